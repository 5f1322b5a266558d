//! One discovery as a whole process: `tfdisco discover` on each transport
//! against `curl` fetching the same document, in alternating pairs, on a
//! loopback HTTPS server (tfdisco-testkit).
//!
//! ```text
//! cargo build --release -p tfdisco -p tfdisco-benches
//! target/release/process-pairs [PAIRS] [path/to/tfdisco] [--shape SHAPE]
//! ```
//!
//! Shapes (where the server's root is; `SSL_CERT_FILE` and `SSL_CERT_DIR`
//! always point at a system store, as on Debian and Ubuntu images):
//!
//! - `public` (the default; the trust fix's target): the shape of a public
//!   registry. The server presents a leaf and an intermediate; the root is
//!   in the system store, the bundle and the hashed directory both (a copy
//!   of `/etc/ssl/certs` with the root added, its hash link made by
//!   `openssl rehash`). `curl --cacert BUNDLE --capath DIR`.
//! - `bundle-only`: as `public`, but the root only in the bundle, not in
//!   the directory (the curl transport's issuer search reads the roots).
//! - `caller-ca` (the shape the 1.25× target was first measured on): the
//!   server's CA given on the command line (`--ca-file`, `curl --cacert CA
//!   --capath /etc/ssl/certs`), the system store `/etc/ssl/certs` as it is.
//!
//! Prints the median and interquartile range of each command's wall time,
//! and the median of the per-round ratios to `curl` (each round runs every
//! command once, in an order that rotates). Exits with status 1 when the
//! curl transport's ratio is over [`TARGET`].

use std::path::{Path, PathBuf};
use std::process::{self, Command, Stdio};
use std::time::Instant;

use tfdisco_testkit::{Reply, TestServer, chain, pki};

/// The largest median ratio of the curl transport to `curl` accepted
/// (1.3 when the benchmark was first written).
const TARGET: f64 = 1.25;

/// Rounds measured, after a few to warm the page cache.
const DEFAULT_PAIRS: usize = 21;
const WARM_UP: usize = 3;

/// The system roots, as Debian and Ubuntu images set the variables.
const CERT_FILE: &str = "/etc/ssl/certs/ca-certificates.crt";
const CERT_DIR: &str = "/etc/ssl/certs";

fn quartiles(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.25), at(0.75))
}

/// Runs `command` to its end; its wall time in milliseconds.
fn time(command: &mut Command) -> f64 {
    let start = Instant::now();
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("{command:?} does not run: {e}"));
    let elapsed = start.elapsed().as_secs_f64() * 1e3;
    assert!(status.success(), "{command:?} failed: {status}");
    elapsed
}

/// Where the server's root is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Public,
    BundleOnly,
    CallerCa,
}

fn main() {
    let mut shape = Shape::Public;
    let mut positional = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--shape" => {
                shape = match args.next().as_deref() {
                    Some("public") => Shape::Public,
                    Some("bundle-only") => Shape::BundleOnly,
                    Some("caller-ca") => Shape::CallerCa,
                    other => panic!("--shape public|bundle-only|caller-ca, not {other:?}"),
                }
            }
            _ => positional.push(arg),
        }
    }
    let mut positional = positional.into_iter();
    let pairs: usize = positional
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_PAIRS)
        .max(15);
    let tfdisco = positional
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/tfdisco"));
    assert!(
        tfdisco.exists(),
        "{} not found: cargo build --release -p tfdisco",
        tfdisco.display()
    );
    for needed in [CERT_FILE, CERT_DIR] {
        assert!(
            Path::new(needed).exists(),
            "{needed} is needed (system roots)"
        );
    }

    let server = match shape {
        Shape::CallerCa => TestServer::start(),
        Shape::Public | Shape::BundleOnly => TestServer::with_config(chain().server_config.clone()),
    };
    server.route(
        tfdisco_core::DISCOVERY_PATH,
        Reply::json(r#"{"modules.v1": "/m/", "providers.v1": "/p/"}"#),
    );
    let host = server.host().to_string();
    let url = server.url(tfdisco_core::DISCOVERY_PATH);
    let home = tempfile_dir();
    let (cert_file, cert_dir) = match shape {
        Shape::CallerCa => (PathBuf::from(CERT_FILE), PathBuf::from(CERT_DIR)),
        Shape::Public | Shape::BundleOnly => system_store_with_root(&home, shape),
    };
    let ca = pki().ca_file();

    let tfdisco_on = |transport: &str| {
        let mut c = Command::new(&tfdisco);
        c.args(["discover", "--transport", transport]);
        if shape == Shape::CallerCa {
            c.arg("--ca-file").arg(ca);
        }
        c.arg(&host);
        c
    };
    let curl = || {
        let mut c = Command::new("curl");
        c.args(["-sS", "--fail", "--cacert"]);
        match shape {
            Shape::CallerCa => c.arg(ca),
            Shape::Public | Shape::BundleOnly => c.arg(&cert_file),
        };
        c.arg("--capath").arg(&cert_dir).arg(&url);
        c
    };
    let curl_label = match shape {
        Shape::CallerCa => "curl --cacert CA --capath /etc/ssl/certs",
        Shape::Public | Shape::BundleOnly => "curl --cacert BUNDLE --capath DIR",
    };
    let mut commands: Vec<(&str, Command)> = vec![
        (curl_label, curl()),
        ("tfdisco discover --transport curl", tfdisco_on("curl")),
        ("tfdisco discover --transport tokio", tfdisco_on("tokio")),
        (
            "tfdisco discover --transport async-std",
            tfdisco_on("async-std"),
        ),
    ];
    for (_, c) in &mut commands {
        c.env_clear()
            .env("HOME", &home)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("SSL_CERT_FILE", &cert_file)
            .env("SSL_CERT_DIR", &cert_dir);
    }
    println!(
        "shape {shape:?}: SSL_CERT_FILE={}, SSL_CERT_DIR={}",
        cert_file.display(),
        cert_dir.display()
    );

    let mut times = vec![Vec::new(); commands.len()];
    for round in 0..WARM_UP + pairs {
        let n = commands.len();
        let mut this_round = vec![0.0; n];
        for k in 0..n {
            let i = (round + k) % n;
            this_round[i] = time(&mut commands[i].1);
        }
        if round >= WARM_UP {
            for (i, t) in this_round.into_iter().enumerate() {
                times[i].push(t);
            }
        }
    }

    // Only our own directory: the system store copy, if any.
    let _ = std::fs::remove_dir_all(&home);

    println!(
        "{pairs} rounds, each command once a round in rotating order; wall time of the whole process"
    );
    println!();
    println!("| command | median | IQR | median ratio to curl (IQR) |");
    println!("|---|---:|---:|---:|");
    let mut curl_transport_ratio = 0.0;
    for (i, (name, _)) in commands.iter().enumerate() {
        let (median, q1, q3) = quartiles(times[i].clone());
        let ratios: Vec<f64> = times[i].iter().zip(&times[0]).map(|(t, c)| t / c).collect();
        let (r, r1, r3) = quartiles(ratios);
        if i == 1 {
            curl_transport_ratio = r;
        }
        println!("| `{name}` | {median:.1} ms | {q1:.1}–{q3:.1} ms | {r:.2}× ({r1:.2}–{r3:.2}) |");
    }
    if curl_transport_ratio > TARGET {
        eprintln!(
            "the curl transport is {curl_transport_ratio:.2}× curl: over the {TARGET}× target"
        );
        process::exit(1);
    }
}

/// A system store with the chain's root added, in `home`: the system
/// bundle plus the root, and a directory of links to every entry of
/// `/etc/ssl/certs` plus the root with its hash link (`openssl rehash`), or
/// (`Shape::BundleOnly`) the system directory as it is.
fn system_store_with_root(home: &Path, shape: Shape) -> (PathBuf, PathBuf) {
    let root = &chain().root_pem;
    let bundle = home.join("ca-certificates.crt");
    let mut text = std::fs::read_to_string(CERT_FILE).expect("the system bundle");
    text.push_str(root);
    std::fs::write(&bundle, text).expect("the bundle");
    if shape == Shape::BundleOnly {
        return (bundle, PathBuf::from(CERT_DIR));
    }
    let dir = home.join("certs");
    std::fs::create_dir_all(&dir).expect("a directory");
    for entry in std::fs::read_dir(CERT_DIR).expect("the system directory") {
        let entry = entry.expect("an entry");
        std::os::unix::fs::symlink(entry.path(), dir.join(entry.file_name())).expect("a link");
    }
    std::fs::write(dir.join("tfdisco-chain-root.pem"), root).expect("the root");
    let status = Command::new("openssl")
        .arg("rehash")
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("openssl rehash runs");
    assert!(status.success(), "openssl rehash: {status}");
    (bundle, dir)
}

/// A home directory (no CLI configuration), unique to this process;
/// `main` removes it when the rounds are done.
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tfdisco-process-pairs-{}", process::id()));
    std::fs::create_dir_all(&dir).expect("a home directory");
    dir
}
