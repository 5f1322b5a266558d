//! One discovery over loopback HTTPS per transport (tokio, async-std, curl),
//! on a new connection each time and on a reused one, next to what any
//! client must do for the same exchange.
//!
//! No target: the speed targets name none, so this group only reports
//! figures (see `benches/README.md`). Each iteration drives a fresh
//! `Discovery` with the client's `drive`, bypassing the registry, so no
//! iteration is a cache hit.
//! The server is `tfdisco-testkit`'s, on 127.0.0.1, answering the typical
//! document; every client trusts only the test CA, reads no proxy variables
//! and reaches `localhost` through an address override (no DNS).
//!
//! The baselines use tokio, tokio-rustls and hyper directly, with the same
//! rustls configuration as the tokio and async-std transports (ring, HTTP/1.1
//! ALPN, one configuration for every connection, so TLS session resumption
//! works as it does for them):
//! - `baseline/connect_tls_full`: a TCP connection and a TLS handshake,
//!   nothing sent or read. Nothing read means no session ticket kept, so
//!   every handshake is a full one;
//! - `baseline/connect_tls_get`: a TCP connection, a TLS handshake (resumed
//!   with the previous connection's ticket), one HTTP/1.1 GET of the
//!   document, read to the end: the floor of a new-connection discovery;
//! - `baseline/kept_connection_get`: that GET on one kept connection: the
//!   floor of a reused-connection discovery.

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkGroup, Criterion, SamplingMode, criterion_group, criterion_main};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tfdisco_benches::documents::TYPICAL;
use tfdisco_core::http::{Request, header};
use tfdisco_core::{Discovery, Hostname, Transfer};
use tfdisco_testkit::{Reply, TestServer, pki};
use tfdisco_transport::{ClientBuilder, FromSettings};
use tokio::net::TcpStream;
use tokio::runtime::Runtime;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto};

const PATH: &str = "/.well-known/terraform.json";
/// Discoveries run before measuring, to check the connection mode.
const CHECK_RUNS: u64 = 4;

/// A server answering the typical document.
fn server() -> TestServer {
    let server = TestServer::start();
    server.route(PATH, Reply::json(TYPICAL));
    server
}

fn address(server: &TestServer) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], server.port()))
}

/// A client of any transport for `server`.
fn client<C: FromSettings>(server: &TestServer, reuse: bool) -> C {
    ClientBuilder::<C>::new()
        .system_roots(false)
        .add_root_certificate_pem(pki().ca_pem())
        .env_proxies(false)
        .resolve("localhost", address(server))
        .reuse_connections(reuse)
        .build()
        .expect("a client")
}

/// The two connection modes.
#[derive(Clone, Copy)]
enum Mode {
    NewConnection,
    Reused,
}

impl Mode {
    const ALL: [Mode; 2] = [Mode::NewConnection, Mode::Reused];

    fn name(self) -> &'static str {
        match self {
            Mode::NewConnection => "new_connection",
            Mode::Reused => "reused",
        }
    }

    fn reuse(self) -> bool {
        matches!(self, Mode::Reused)
    }
}

/// Benchmarks `discover` (one whole discovery of `host`) as
/// `<mode>/<transport>`, after checking that the server sees the connections
/// the mode promises.
fn bench_discovery(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    transport: &str,
    mode: Mode,
    server: &TestServer,
    mut discover: impl FnMut() -> bool,
) {
    for _ in 0..CHECK_RUNS {
        assert!(discover(), "{transport}: discovery failed");
    }
    let expected = match mode {
        Mode::NewConnection => CHECK_RUNS,
        Mode::Reused => 1,
    };
    assert_eq!(
        server.connections(),
        expected,
        "{transport}, {}: connections for {CHECK_RUNS} discoveries",
        mode.name()
    );
    g.bench_function(format!("{}/{transport}", mode.name()), |b| {
        b.iter(&mut discover)
    });
}

fn start(host: &Hostname, config: &tfdisco_core::Config) -> Discovery {
    Transfer::discovery(black_box(host).clone(), config, None, Instant::now()).expect("starts")
}

fn transports(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, rt: &Runtime) {
    for mode in Mode::ALL {
        let server = server();
        let host = server.host();
        let _entered = rt.enter();
        let client: tfdisco_tokio::Client = client(&server, mode.reuse());
        let config = client.cache().config();
        bench_discovery(g, "tokio", mode, &server, || {
            let mut d = start(&host, &config);
            rt.block_on(client.drive(&mut d, None)).is_ok()
        });
    }
    for mode in Mode::ALL {
        let server = server();
        let host = server.host();
        let client: tfdisco_async_std::Client = client(&server, mode.reuse());
        let config = client.cache().config();
        bench_discovery(g, "async-std", mode, &server, || {
            let mut d = start(&host, &config);
            async_io::block_on(client.drive(&mut d, None)).is_ok()
        });
    }
    for mode in Mode::ALL {
        let server = server();
        let host = server.host();
        let client: tfdisco_curl::Client = client(&server, mode.reuse());
        let config = client.cache().config();
        bench_discovery(g, "curl", mode, &server, || {
            let mut d = start(&host, &config);
            client.drive(&mut d, None).is_ok()
        });
    }
}

/// The rustls configuration the tokio and async-std transports build for a
/// client trusting only the test CA.
fn tls_connector() -> TlsConnector {
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(pki().ca_pem().as_bytes()) {
        roots
            .add(cert.expect("a PEM certificate"))
            .expect("a usable CA");
    }
    let mut config =
        ClientConfig::builder_with_provider(Arc::new(crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("default versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    TlsConnector::from(Arc::new(config))
}

async fn connect_tls(tls: &TlsConnector, addr: SocketAddr) -> TlsStream<TcpStream> {
    let tcp = TcpStream::connect(addr).await.expect("connected");
    tcp.set_nodelay(true).expect("no delay");
    let name = ServerName::try_from("localhost").expect("a valid name");
    tls.connect(name, tcp).await.expect("a TLS handshake")
}

/// An HTTP/1.1 connection over `stream`, driven by a task of the runtime.
async fn handshake(stream: TlsStream<TcpStream>) -> SendRequest<Empty<Bytes>> {
    let (sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1.1 connection");
    tokio::spawn(connection);
    sender
}

/// GETs the document and reads it to the end; returns its length.
async fn get(sender: &mut SendRequest<Empty<Bytes>>, authority: &str) -> usize {
    let request = Request::get(PATH)
        .header(header::HOST, authority)
        .body(Empty::new())
        .expect("a valid request");
    let response = sender.send_request(request).await.expect("a response");
    let body = response.into_body().collect().await.expect("a body");
    body.to_bytes().len()
}

fn baselines(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, rt: &Runtime) {
    let tls = tls_connector();
    let server = server();
    let addr = address(&server);
    let authority = format!("localhost:{}", server.port());

    g.bench_function("baseline/connect_tls_full", |b| {
        b.iter(|| rt.block_on(connect_tls(&tls, addr)))
    });
    g.bench_function("baseline/connect_tls_get", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut sender = handshake(connect_tls(&tls, addr).await).await;
                get(&mut sender, &authority).await
            })
        })
    });
    let mut sender = rt.block_on(async { handshake(connect_tls(&tls, addr).await).await });
    assert_eq!(rt.block_on(get(&mut sender, &authority)), TYPICAL.len());
    g.bench_function("baseline/kept_connection_get", |b| {
        b.iter(|| rt.block_on(get(&mut sender, &authority)))
    });
}

/// A current-thread runtime: the client's side runs on the benchmark's
/// thread, the server on its own.
fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

fn transport(c: &mut Criterion) {
    let rt = runtime();
    let mut g = c.benchmark_group("transport");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(50)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5));
    baselines(&mut g, &rt);
    transports(&mut g, &rt);
    g.finish();
}

criterion_group!(benches, transport);
criterion_main!(benches);
