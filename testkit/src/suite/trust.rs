//! Which certificates a client trusts (docs/behaviour.md NET-4, NET-5): the
//! system roots (`SSL_CERT_FILE`, every file of `SSL_CERT_DIR`) and the
//! caller's CA certificates, wherever a root sits and whatever other
//! certificate shares its subject: the same set on every transport.
//!
//! The chain scenarios are shaped as public registries are: the server
//! presents a leaf and an intermediate ([`crate::chain`]), and the root is
//! found only among the client's anchors, in a bundle, in a directory in
//! OpenSSL's hashed layout (its `<hash>.<n>` links made by `openssl rehash`,
//! as `update-ca-certificates` makes them), or given by the caller; a
//! re-keyed root (the same subject, another key) sits where a search that
//! stops at the first certificate of a name would find it first.

#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

use tfdisco_core::{Env, ErrorKind, TransportErrorKind};
use tfdisco_transport::ClientBuilder;

use super::{
    Client, GENEROUS, Subject, WELL_KNOWN, build, error, hostname, services, transport_kind,
};
use crate::{CHAIN_NAMES, Reply, TestServer, chain, pki};

/// `SSL_CERT_FILE` replaces the system roots, as in Go on Unix.
pub fn ssl_cert_file_from_environment<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let with_env = |file: String| {
        ClientBuilder::new()
            .environment(Env::new([("SSL_CERT_FILE", file)]))
            .timeout(GENEROUS)
    };
    let trusting = build::<T>(with_env(pki().ca_file().display().to_string()));
    services::<T>(trusting.discover(&server.host()));
    let system_only = build::<T>(with_env("/nonexistent/tfdisco-bundle.pem".into()));
    refused::<T>(&system_only, &server);
}

/// NET-4, NET-5: `SSL_CERT_DIR` with `SSL_CERT_FILE`, as in Go on Unix:
/// every file of the directory and the bundle are trusted, also a root in a
/// directory file not named by its hash.
pub fn ssl_cert_dir_with_ssl_cert_file<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let scratch = Scratch::new::<T>("dir-with-file");
    let unrelated = crate::dev_pki(&["localhost"])
        .expect("a CA of its own")
        .ca_pem;
    let with_dir = |name: &str, pem: &str| {
        let dir = scratch.path(name);
        std::fs::create_dir_all(&dir).expect("a directory");
        std::fs::write(dir.join("root.pem"), pem).expect("a root");
        dir.display().to_string()
    };
    // The server's CA in the bundle, another in the directory.
    let other_dir = with_dir("other", &unrelated);
    let bundle = pki().ca_file().display().to_string();
    let both = trusting::<T>(&[
        ("SSL_CERT_DIR", other_dir.clone()),
        ("SSL_CERT_FILE", bundle),
    ]);
    services::<T>(both.discover(&server.host()));
    // The server's CA in a file of the directory, no bundle.
    let ca_dir = with_dir("ca", pki().ca_pem());
    let directory = trusting::<T>(&[("SSL_CERT_DIR", ca_dir)]);
    services::<T>(directory.discover(&server.host()));
    // Neither: refused.
    let neither = trusting::<T>(&[
        ("SSL_CERT_DIR", other_dir),
        ("SSL_CERT_FILE", NO_FILE.into()),
    ]);
    refused::<T>(&neither, &server);
}

pub fn ca_certificate_file<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let base = || {
        ClientBuilder::new()
            .system_roots(false)
            .environment(Env::empty())
            .timeout(GENEROUS)
    };
    let client = build::<T>(base().add_root_certificate_file(pki().ca_file()));
    services::<T>(client.discover(&server.host()));
    let missing: Result<Client<T>, _> = base()
        .add_root_certificate_file("/nonexistent/tfdisco-ca.pem")
        .build();
    assert!(missing.is_err(), "{}: a missing CA file", T::NAME);
}

/// The chain's root only in a hashed directory, as a real `<hash>.0` entry
/// (beside an unrelated root), no bundle.
pub fn chain_root_only_in_a_hashed_directory<T: Subject>() {
    let server = chain_server();
    let scratch = Scratch::new::<T>("hashed-dir");
    let chain = chain();
    let dir = scratch.hashed_dir("roots", &[&chain.unrelated_pem, &chain.root_pem]);
    let client = trusting::<T>(&[("SSL_CERT_DIR", dir), ("SSL_CERT_FILE", NO_FILE.into())]);
    services::<T>(client.discover(&server.host()));
    let unrelated = scratch.hashed_dir("unrelated", &[&chain.unrelated_pem]);
    let client = trusting::<T>(&[
        ("SSL_CERT_DIR", unrelated),
        ("SSL_CERT_FILE", NO_FILE.into()),
    ]);
    refused::<T>(&client, &server);
}

/// The chain's root only in `SSL_CERT_FILE`, with or without a hashed
/// directory of other roots beside it.
pub fn chain_root_only_in_the_bundle<T: Subject>() {
    let server = chain_server();
    let scratch = Scratch::new::<T>("bundle");
    let (dir, bundle) = scratch.root_only_in_the_bundle();
    let both = trusting::<T>(&[("SSL_CERT_DIR", dir), ("SSL_CERT_FILE", bundle.clone())]);
    services::<T>(both.discover(&server.host()));
    let file_only = trusting::<T>(&[("SSL_CERT_FILE", bundle)]);
    services::<T>(file_only.discover(&server.host()));
}

/// A re-keyed root shares the root's subject, in the directory, in the
/// bundle, or in both: the root is trusted wherever it is, and the
/// re-keyed one alone is refused.
pub fn a_rekeyed_root_shares_its_subject_across_directory_and_bundle<T: Subject>() {
    let server = chain_server();
    let scratch = Scratch::new::<T>("rekeyed");
    let placed = Placed::new(&scratch);
    let cases = [
        (
            "root in the bundle, re-keyed in the directory",
            &placed.hashed_rekeyed,
            &placed.bundle_root,
            true,
        ),
        (
            "re-keyed in the bundle, root in the directory",
            &placed.hashed_root,
            &placed.bundle_rekeyed,
            true,
        ),
        (
            "re-keyed in both",
            &placed.hashed_rekeyed,
            &placed.bundle_rekeyed,
            false,
        ),
    ];
    for (case, dir, bundle, trusted) in cases {
        let client = trusting::<T>(&[
            ("SSL_CERT_DIR", dir.clone()),
            ("SSL_CERT_FILE", bundle.clone()),
        ]);
        trusted_or_refused::<T>(&client, &server, case, trusted);
    }
    // Both in one hashed directory (`<hash>.0` and `<hash>.1`), re-keyed
    // first; and the root in a directory file no hash link names, the
    // re-keyed one under the hash.
    let both = scratch.hashed_dir("both", &[placed.rekeyed, placed.root]);
    let client = trusting::<T>(&[("SSL_CERT_DIR", both), ("SSL_CERT_FILE", NO_FILE.into())]);
    services::<T>(client.discover(&server.host()));
    let unnamed = scratch.hashed_dir("unnamed", &[placed.rekeyed]);
    std::fs::write(Path::new(&unnamed).join("root.crt"), placed.root).expect("a root");
    let client = trusting::<T>(&[("SSL_CERT_DIR", unnamed), ("SSL_CERT_FILE", NO_FILE.into())]);
    services::<T>(client.discover(&server.host()));
}

/// The caller's CA certificate shares a system root's subject: the system
/// root is still trusted, and so is the caller's.
pub fn a_callers_ca_shares_a_system_roots_subject<T: Subject>() {
    let server = chain_server();
    let scratch = Scratch::new::<T>("callers");
    let placed = Placed::new(&scratch);
    let (root, rekeyed) = (placed.root, placed.rekeyed);
    let cases = [
        (
            "the caller's re-keyed, the root in the directory",
            rekeyed,
            &placed.hashed_root,
            NO_FILE,
            true,
        ),
        (
            "the caller's re-keyed, the root in the bundle",
            rekeyed,
            &placed.hashed_rekeyed,
            placed.bundle_root.as_str(),
            true,
        ),
        (
            "the caller's root, re-keyed in both",
            root,
            &placed.hashed_rekeyed,
            placed.bundle_rekeyed.as_str(),
            true,
        ),
        (
            "the caller's re-keyed, re-keyed in both",
            rekeyed,
            &placed.hashed_rekeyed,
            placed.bundle_rekeyed.as_str(),
            false,
        ),
    ];
    for (case, callers, dir, bundle, trusted) in cases {
        let client = build::<T>(
            ClientBuilder::new()
                .environment(Env::new([
                    ("SSL_CERT_DIR", dir.clone()),
                    ("SSL_CERT_FILE", bundle.to_owned()),
                ]))
                .add_root_certificate_pem(callers)
                .timeout(GENEROUS),
        );
        trusted_or_refused::<T>(&client, &server, case, trusted);
    }
}

/// Eight threads make their first handshake at once, each to a host of its
/// own (no shared discovery), with the root only in the bundle.
pub fn first_handshakes_on_eight_threads<T: Subject>() {
    let server = chain_server();
    let scratch = Scratch::new::<T>("threads");
    let (dir, bundle) = scratch.root_only_in_the_bundle();
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], server.port()));
    let builder = CHAIN_NAMES.iter().fold(
        ClientBuilder::new()
            .environment(Env::new([("SSL_CERT_DIR", dir), ("SSL_CERT_FILE", bundle)]))
            .timeout(GENEROUS),
        |builder, name| builder.resolve(name, address),
    );
    let client = build::<T>(builder);
    let start = std::sync::Barrier::new(CHAIN_NAMES.len());
    std::thread::scope(|scope| {
        let threads: Vec<_> = CHAIN_NAMES
            .iter()
            .map(|name| {
                let (client, start) = (&client, &start);
                scope.spawn(move || {
                    let host = hostname(&format!("{name}:{}", address.port()));
                    start.wait();
                    client.discover(&host)
                })
            })
            .collect();
        for (name, thread) in CHAIN_NAMES.iter().zip(threads) {
            if let Err(e) = thread.join().expect("no panic") {
                panic!("{}: {name}: {e}", T::NAME);
            }
        }
    });
    assert_eq!(server.requests().len(), CHAIN_NAMES.len(), "{}", T::NAME);
}

/// `SSL_CERT_FILE` for "no bundle".
const NO_FILE: &str = "/nonexistent/tfdisco-bundle.pem";

/// A server presenting the chain's leaf and intermediate.
fn chain_server() -> TestServer {
    let server = TestServer::with_config(chain().server_config.clone());
    server.route(WELL_KNOWN, Reply::json("{}"));
    server
}

/// A client trusting the system roots `vars` name, and nothing else.
fn trusting<T: Subject>(vars: &[(&str, String)]) -> Client<T> {
    build::<T>(
        ClientBuilder::new()
            .environment(Env::new(vars.iter().cloned()))
            .timeout(GENEROUS),
    )
}

/// The handshake is refused: the certificate is not trusted.
#[track_caller]
fn refused<T: Subject>(client: &Client<T>, server: &TestServer) {
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Tls);
    assert_eq!(
        transport_kind::<T>(&e),
        TransportErrorKind::Certificate,
        "{}: {e}",
        T::NAME
    );
}

/// Discovery of `server` with `client` succeeds when `trusted`, and is
/// refused as [`refused`] otherwise; `case` names it in a failure.
#[track_caller]
fn trusted_or_refused<T: Subject>(
    client: &Client<T>,
    server: &TestServer,
    case: &str,
    trusted: bool,
) {
    if trusted {
        if let Err(e) = client.discover(&server.host()) {
            panic!("{}: {case}: {e}", T::NAME);
        }
    } else {
        refused::<T>(client, server);
    }
}

/// The chain's root and its re-keyed twin (the same subject), each alone
/// in a hashed directory and in a bundle of a [`Scratch`]: their PEM and
/// the paths.
struct Placed {
    root: &'static str,
    rekeyed: &'static str,
    hashed_root: String,
    hashed_rekeyed: String,
    bundle_root: String,
    bundle_rekeyed: String,
}

impl Placed {
    fn new(scratch: &Scratch) -> Placed {
        let (root, rekeyed) = (chain().root_pem.as_str(), chain().rekeyed_pem.as_str());
        Placed {
            root,
            rekeyed,
            hashed_root: scratch.hashed_dir("root", &[root]),
            hashed_rekeyed: scratch.hashed_dir("rekeyed", &[rekeyed]),
            bundle_root: scratch.bundle("root.pem", &[root]),
            bundle_rekeyed: scratch.bundle("rekeyed.pem", &[rekeyed]),
        }
    }
}

/// A scenario's own scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new<T: Subject>(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "tfdisco-trust-{}-{}-{name}",
            std::process::id(),
            T::NAME
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// A bundle file of `roots`; its path.
    fn bundle(&self, name: &str, roots: &[&str]) -> String {
        let path = self.path(name);
        std::fs::write(&path, roots.concat()).expect("a bundle");
        path.display().to_string()
    }

    /// The chain's root only in a bundle (beside an unrelated root), and a
    /// hashed directory of the unrelated root: their paths, the directory's
    /// first.
    fn root_only_in_the_bundle(&self) -> (String, String) {
        let chain = chain();
        let bundle = self.bundle("bundle.pem", &[&chain.unrelated_pem, &chain.root_pem]);
        let dir = self.hashed_dir("unrelated", &[&chain.unrelated_pem]);
        (dir, bundle)
    }

    /// A directory in OpenSSL's hashed layout: each root as `<n>.pem`, then
    /// the `<hash>.<n>` links `openssl rehash` makes; its path.
    fn hashed_dir(&self, name: &str, roots: &[&str]) -> String {
        let dir = self.path(name);
        std::fs::create_dir_all(&dir).expect("a directory");
        for (n, root) in roots.iter().enumerate() {
            std::fs::write(dir.join(format!("{n}.pem")), root).expect("a root");
        }
        let status = Command::new("openssl")
            .arg("rehash")
            .arg(&dir)
            .status()
            .unwrap_or_else(|e| {
                panic!("the openssl command is needed (apt-get install openssl): {e}")
            });
        assert!(
            status.success(),
            "openssl rehash {}: {status}",
            dir.display()
        );
        let links = std::fs::read_dir(&dir)
            .expect("the directory")
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.len() == 10 && name.as_bytes()[8] == b'.'
            })
            .count();
        assert_eq!(
            links,
            roots.len(),
            "a hash link per root in {}",
            dir.display()
        );
        dir.display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
