//! The network shape: latency before every answer, each connection's
//! bodies at a rate. Timings are checked in generous bands (a shared,
//! loaded machine runs these): the lower bounds are what the shape
//! guarantees, the upper ones only tell a paced body from one that is not.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::{NetworkShape, TestServer};
use crate::Reply;

const MIB: usize = 1024 * 1024;

/// The install benchmark's network: 40 ms, 25 MB/s.
fn bench_shape() -> NetworkShape {
    NetworkShape {
        latency: Duration::from_millis(40),
        rate: Some(25_000_000),
    }
}

/// GET `path` on the plain-http port, on a new connection; the response
/// (head and body) and how long it took, from the connect to its end.
fn get(server: &TestServer, path: &str) -> (Vec<u8>, Duration) {
    let start = Instant::now();
    let mut tcp = TcpStream::connect(("127.0.0.1", server.http_port())).expect("connect");
    write!(
        tcp,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut response = Vec::new();
    let _ = tcp.read_to_end(&mut response);
    (response, start.elapsed())
}

/// The body of a response (after the blank line).
fn body(response: &[u8]) -> &[u8] {
    let at = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    &response[at + 4..]
}

fn route_bytes(server: &TestServer, path: &str, len: usize) -> Vec<u8> {
    let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
    server.route(path, Reply::new(200).body(&bytes));
    bytes
}

#[test]
fn no_shape_by_default() {
    let server = TestServer::start();
    assert_eq!(server.network_shape(), NetworkShape::default());
    let bytes = route_bytes(&server, "/big", 4 * MIB);
    let (response, took) = get(&server, "/big");
    assert_eq!(body(&response), bytes);
    // Shaped, this would take 40 ms + 168 ms.
    assert!(took < Duration::from_millis(150), "{took:?}");
}

#[test]
fn a_mebibyte_takes_the_latency_and_its_transfer() {
    let server = TestServer::start();
    server.shape(bench_shape());
    let bytes = route_bytes(&server, "/one", MIB);
    let (response, took) = get(&server, "/one");
    assert_eq!(body(&response), bytes, "every byte, in order");
    // 40 ms + 1 048 576 B / 25 MB/s = 40 + 41.9 ms.
    let floor = Duration::from_millis(40) + bench_shape().transfer_time(MIB as u64);
    assert!(floor > Duration::from_millis(81));
    assert!(took >= floor, "{took:?} < {floor:?}");
    assert!(took < Duration::from_millis(300), "{took:?}");
}

#[test]
fn every_answer_waits_the_latency() {
    let server = TestServer::start();
    server.shape(NetworkShape {
        latency: Duration::from_millis(40),
        rate: None,
    });
    // A path without a route (its 500) waits too.
    let (response, took) = get(&server, "/nothing-here");
    assert!(response.starts_with(b"HTTP/1.1 500"));
    assert!(took >= Duration::from_millis(40), "{took:?}");
    assert!(took < Duration::from_millis(200), "{took:?}");
}

#[test]
fn the_rate_is_per_connection() {
    let server = TestServer::start();
    server.shape(bench_shape());
    let bytes = route_bytes(&server, "/four", 4 * MIB);
    // Each: 40 ms + 167.8 ms. One rate shared by both connections would
    // take 40 + 335.5 ms for the two. A busy machine only adds time: the
    // quickest of three tries is the one compared.
    let each = Duration::from_millis(40) + bench_shape().transfer_time(4 * MIB as u64);
    let quickest = (0..3)
        .map(|_| {
            let start = Instant::now();
            let took: Vec<Duration> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..2)
                    .map(|_| {
                        scope.spawn(|| {
                            let (response, took) = get(&server, "/four");
                            assert_eq!(body(&response), bytes);
                            took
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a client"))
                    .collect()
            });
            for t in &took {
                assert!(*t >= each, "{t:?} < {each:?}");
            }
            start.elapsed()
        })
        .min()
        .expect("three tries");
    assert!(
        quickest < Duration::from_millis(320),
        "{quickest:?} for two connections at once"
    );
    assert_eq!(server.connections(), 6);
}

#[test]
fn a_reset_under_a_rate_comes_where_it_is_scripted() {
    let server = TestServer::start();
    server.shape(bench_shape());
    let bytes: Vec<u8> = vec![7; MIB];
    server.route("/cut", Reply::new(200).body(&bytes).reset_after(100_000));
    let (response, took) = get(&server, "/cut");
    // The reset drops what the server's socket had not sent yet, so the
    // client gets at most what was handed over; the server counts that.
    assert!(body(&response).len() <= 100_000);
    assert!(took >= Duration::from_millis(40), "{took:?}");
    assert!(server.wait_finished(Duration::from_secs(5)));
    assert_eq!(server.requests()[0].body_bytes_sent(), 100_000);
}

#[test]
fn the_shape_can_be_turned_off() {
    let server = TestServer::start();
    server.shape(bench_shape());
    server.shape(NetworkShape::default());
    let bytes = route_bytes(&server, "/big", 4 * MIB);
    let (response, took) = get(&server, "/big");
    assert_eq!(body(&response), bytes);
    assert!(took < Duration::from_millis(150), "{took:?}");
}
