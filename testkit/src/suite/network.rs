//! Broken connections, certificates, proxies.

#![allow(missing_docs)]

use std::net::SocketAddr;
use std::time::Duration;

use tfdisco_core::Env;
use tfdisco_core::{Config, ErrorKind, Transfer, TransportErrorKind};
use tfdisco_transport::Transport;

use super::{
    Subject, WELL_KNOWN, assert_paths, build, builder, error, hostname, record, services,
    transport_kind,
};
use crate::{Cert, Reply, TestProxy, TestServer, Tunnel};

pub fn connection_reset_mid_body<T: Subject>() {
    let server = TestServer::start();
    server.route(
        WELL_KNOWN,
        Reply::new(200)
            .header("Content-Type", "application/json")
            .header("Content-Length", "10000")
            .chunked([vec![b' '; 100], vec![b' '; 9900]])
            .interval(Duration::from_millis(500))
            .reset_after(100),
    );
    let client = build::<T>(builder::<T>());
    let now = client.transport().now();
    let mut discovery =
        Transfer::discovery(server.host(), &Config::default(), None, now).expect("starts");
    let mut exchanges = Vec::new();
    let result = client.drive(&mut discovery, Some(&mut record(&mut exchanges)));
    let e = error::<T>(result, ErrorKind::Network);
    assert_eq!(transport_kind::<T>(&e), TransportErrorKind::Io, "{e}");
    assert_eq!(exchanges.len(), 1, "{}", T::NAME);
    assert_eq!(
        exchanges[0].status.map(|s| s.as_u16()),
        Some(200),
        "the head arrived"
    );
    assert!(exchanges[0].body_bytes <= 100);
    assert!(exchanges[0].error.is_some());
}

pub fn connection_refused<T: Subject>() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.local_addr().expect("bound").port()
    };
    let client = build::<T>(builder::<T>());
    let e = error::<T>(
        client.discover(&hostname(&format!("127.0.0.1:{port}"))),
        ErrorKind::Network,
    );
    assert_eq!(transport_kind::<T>(&e), TransportErrorKind::Connect, "{e}");
}

fn refused_certificate<T: Subject>(cert: Cert) {
    let server = TestServer::with_cert(cert);
    server.route(WELL_KNOWN, Reply::json("{}"));
    let client = build::<T>(builder::<T>());
    let e = error::<T>(client.discover(&server.host()), ErrorKind::Tls);
    assert_eq!(
        transport_kind::<T>(&e),
        TransportErrorKind::Certificate,
        "{e}"
    );
    assert_paths::<T>(&server, &[]);
    // The client connected, then refused the certificate (libcurl checks
    // the name after the handshake, rustls during it).
    assert!(server.connections() >= 1, "{}: never connected", T::NAME);
}

pub fn untrusted_certificate<T: Subject>() {
    refused_certificate::<T>(Cert::Untrusted);
}

pub fn wrong_name_certificate<T: Subject>() {
    refused_certificate::<T>(Cert::WrongName);
}

pub fn proxy_tunnel<T: Subject>() {
    let server = TestServer::start();
    let proxy = TestProxy::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/m/"}"#));
    let proxy_url = proxy
        .url()
        .replace("http://", "http://tfdisco:pr%40xy-secret@");
    let client = build::<T>(builder::<T>().proxy(&proxy_url));
    let host = hostname(&format!("example.test:{}", server.port()));
    services::<T>(client.discover(&host));
    assert_eq!(
        proxy.tunnels(),
        [Tunnel {
            target: host.to_string(),
            // base64("tfdisco:pr@xy-secret")
            authorization: Some("Basic dGZkaXNjbzpwckB4eS1zZWNyZXQ=".into()),
        }],
        "{}",
        T::NAME
    );
    assert_eq!(server.requests()[0].host(), Some(host.as_str()));
}

pub fn proxy_from_environment<T: Subject>() {
    let server = TestServer::start();
    let proxy = TestProxy::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let env = Env::new([("HTTPS_PROXY", proxy.url())]);
    let client = build::<T>(builder::<T>().environment(env));
    let host = hostname(&format!("registry.example.test:{}", server.port()));
    services::<T>(client.discover(&host));
    let targets: Vec<String> = proxy.tunnels().into_iter().map(|t| t.target).collect();
    assert_eq!(targets, [host.to_string()], "{}", T::NAME);
    assert_paths::<T>(&server, &[WELL_KNOWN]);
}

pub fn no_proxy_from_environment<T: Subject>() {
    let server = TestServer::start();
    let proxy = TestProxy::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let env = Env::new([
        ("HTTPS_PROXY", proxy.url().as_str()),
        ("NO_PROXY", "other.test,.example.test"),
    ]);
    let addr = SocketAddr::from(([127, 0, 0, 1], server.port()));
    let client = build::<T>(
        builder::<T>()
            .environment(env)
            .resolve("registry.example.test", addr),
    );
    let host = hostname(&format!("registry.example.test:{}", server.port()));
    services::<T>(client.discover(&host));
    assert_eq!(proxy.tunnels(), [], "{}: NO_PROXY matched", T::NAME);
    assert_paths::<T>(&server, &[WELL_KNOWN]);
}

pub fn loopback_is_never_proxied<T: Subject>() {
    let server = TestServer::start();
    let proxy = TestProxy::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let client = build::<T>(builder::<T>().proxy(&proxy.url()));
    services::<T>(client.discover(&server.host()));
    services::<T>(client.discover(&hostname(&format!("127.0.0.1:{}", server.port()))));
    assert_eq!(proxy.tunnels(), [], "{}", T::NAME);
    assert_paths::<T>(&server, &[WELL_KNOWN, WELL_KNOWN]);
}

pub fn proxy_refuses_the_tunnel<T: Subject>() {
    let server = TestServer::start();
    let proxy = TestProxy::refusing();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let client = build::<T>(builder::<T>().proxy(&proxy.url()));
    let host = hostname(&format!("example.test:{}", server.port()));
    let e = error::<T>(client.discover(&host), ErrorKind::Network);
    assert_eq!(transport_kind::<T>(&e), TransportErrorKind::Proxy, "{e}");
    assert_eq!(proxy.tunnels().len(), 1, "{}", T::NAME);
    assert_paths::<T>(&server, &[]);
}
