//! The load test, scaled down for CI: 100 concurrent discoveries
//! over 10 loopback HTTPS hosts, for each client, two rounds with a fresh
//! client each, each followed by a warm pass. Every discovery must succeed
//! and each host must get exactly one request a round (none warm): `round`
//! checks both. The full-size figures come from the `load` binary.

use tfdisco_benches::load::{ClientKind, Hosts, Load};

fn scaled_down(kind: ClientKind) {
    let load = Load::new(kind, Hosts::start(10), 100);
    for round in 1..=2 {
        if let Err(e) = load.round(true) {
            panic!("{}, round {round}: {e}", kind.name());
        }
    }
}

#[test]
fn tokio_tasks() {
    scaled_down(ClientKind::Tokio);
}

#[test]
fn async_std_tasks() {
    scaled_down(ClientKind::AsyncStd);
}

#[test]
fn curl_from_threads() {
    scaled_down(ClientKind::Curl);
}

#[test]
fn tokio_blocking_from_threads() {
    scaled_down(ClientKind::TokioBlocking);
}
