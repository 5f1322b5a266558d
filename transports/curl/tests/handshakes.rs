//! Many TLS handshakes through the curl transport, then every client
//! dropped: run under `valgrind --leak-check=full` by
//! `scripts/curl-leak-check.sh`, which fails on any lost allocation (an
//! OpenSSL certificate reference kept by the issuer search, a store's
//! roots never released).
//!
//! The server, a child process of its own (so that only the client runs
//! under valgrind), presents a leaf and an intermediate; the root is only in
//! `SSL_CERT_FILE`, so that every handshake goes through the issuer search
//! (src/issuer.rs) to the roots read from the bundle, and each discovery
//! opens a new connection (a new TLS context and store).
//!
//! `cargo test -p tfdisco-curl --test handshakes` runs it once without
//! valgrind (40 handshakes); the script passes the count as its argument.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use tfdisco_curl::{Client, Env, Hostname};
use tfdisco_testkit::{Reply, TestServer, chain};

fn main() {
    let mut args = std::env::args().skip(1);
    let first = args.next();
    if first.as_deref() == Some("--serve") {
        return serve(&args.next().expect("a bundle path"));
    }
    let handshakes: usize = first.and_then(|n| n.parse().ok()).unwrap_or(40);
    let bundle =
        std::env::temp_dir().join(format!("tfdisco-handshakes-{}.pem", std::process::id()));
    let mut server = Server(
        bundle.clone(),
        Command::new(std::env::current_exe().expect("this program"))
            .arg("--serve")
            .arg(&bundle)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts"),
    );
    let mut line = String::new();
    BufReader::new(server.1.stdout.take().expect("its output"))
        .read_line(&mut line)
        .expect("the server's port");
    let host = Hostname::parse(&format!("localhost:{}", line.trim())).expect("a host");
    for client_number in 0..2 {
        let client = Client::builder()
            .environment(Env::new([("SSL_CERT_FILE", bundle.display().to_string())]))
            .reuse_connections(false)
            .build()
            .expect("a client");
        for _ in 0..handshakes / 2 {
            client
                .discover(&host)
                .expect("trusted through the bundle's root");
            client.cache().forget(&host);
        }
        println!("client {client_number}: {} discoveries", handshakes / 2);
    }
    drop(server);
}

/// The server's bundle and process, removed and stopped when dropped (also
/// when a client fails).
struct Server(std::path::PathBuf, std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.1.kill();
        let _ = self.1.wait();
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The server: writes the bundle (an unrelated root and the chain's),
/// prints its port, serves until killed.
fn serve(bundle: &str) {
    let server = TestServer::with_config(chain().server_config.clone());
    server.route(
        tfdisco_curl::tfdisco_core::DISCOVERY_PATH,
        Reply::json(r#"{"modules.v1": "/m/"}"#),
    );
    std::fs::write(
        bundle,
        format!("{}{}", chain().unrelated_pem, chain().root_pem),
    )
    .expect("the bundle");
    println!("{}", server.port());
    loop {
        std::thread::park();
    }
}
