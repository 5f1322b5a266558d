//! The loopback listener a login's browser is sent back to: plain HTTP on
//! 127.0.0.1, at a port of the client's range (docs/behaviour.md, LOGIN-L1
//! to LOGIN-L3). Each connection's request head is read on a thread of its
//! own, within a size and a time limit, so a connection that says nothing
//! (a browser's preconnect) holds nothing up; the request-target is judged
//! by the caller and answered with the page it gives.

use std::io::{self, ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::Cancel;

/// The largest request head read (the request line and headers).
const HEAD_LIMIT: usize = 16 * 1024;
/// How long a connection may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How many connections are read at once; more wait in the backlog.
const READERS: usize = 16;
/// How often the wait looks at its deadline and cancellation.
const TICK: Duration = Duration::from_millis(20);

/// What the caller makes of one request.
pub(crate) enum Answer<T> {
    /// The wait is over with `T`; the browser gets `page` with `status`.
    Done(T, u16, String),
    /// Not the request the wait is for: answered, and the wait goes on.
    KeepWaiting(u16, String),
}

/// Why a wait ended without an answer.
#[derive(Debug)]
pub(crate) enum WaitEnd {
    /// The deadline passed.
    TimedOut,
    /// The caller's [`Cancel`] was cancelled.
    Cancelled,
    /// The listener failed.
    Io(io::Error),
}

/// A bound listener.
pub(crate) struct CallbackListener {
    listener: TcpListener,
    port: u16,
}

impl CallbackListener {
    /// Listens on 127.0.0.1 at the first of `ports` that can be bound;
    /// `None` when none can.
    pub(crate) fn bind(ports: &[u16]) -> Option<CallbackListener> {
        ports.iter().find_map(|&port| {
            let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)).ok()?;
            listener.set_nonblocking(true).ok()?;
            Some(CallbackListener { listener, port })
        })
    }

    /// The port it listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// Answers requests with `judge` until one ends the wait, the deadline
    /// passes or `cancel` is cancelled.
    pub(crate) fn wait<T>(
        &self,
        deadline: Instant,
        cancel: Option<&Cancel>,
        judge: &mut dyn FnMut(&str) -> Answer<T>,
    ) -> Result<T, WaitEnd> {
        let (heads, received) = mpsc::channel::<(TcpStream, String)>();
        let reading = Arc::new(AtomicUsize::new(0));
        loop {
            if cancel.is_some_and(Cancel::is_cancelled) {
                return Err(WaitEnd::Cancelled);
            }
            if Instant::now() >= deadline {
                return Err(WaitEnd::TimedOut);
            }
            let mut idle = true;
            if reading.load(Ordering::SeqCst) < READERS {
                match self.listener.accept() {
                    Ok((stream, _)) => {
                        idle = false;
                        reading.fetch_add(1, Ordering::SeqCst);
                        let heads = heads.clone();
                        let reading = Arc::clone(&reading);
                        thread::spawn(move || {
                            if let Some(head) = read_target(stream) {
                                let _ = heads.send(head);
                            }
                            reading.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => return Err(WaitEnd::Io(e)),
                }
            }
            while let Ok((mut stream, target)) = received.try_recv() {
                idle = false;
                match judge(&target) {
                    Answer::Done(value, status, page) => {
                        respond(&mut stream, status, &page);
                        return Ok(value);
                    }
                    Answer::KeepWaiting(status, page) => respond(&mut stream, status, &page),
                }
            }
            if idle {
                thread::sleep(TICK);
            }
        }
    }
}

/// Reads the request head of `stream` and gives its request-target, or
/// answers 400 (a head that is too large, late or not HTTP) and gives
/// nothing.
fn read_target(mut stream: TcpStream) -> Option<(TcpStream, String)> {
    let started = Instant::now();
    let _ = stream.set_nonblocking(false);
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    let complete = loop {
        if head.windows(4).any(|w| w == b"\r\n\r\n") {
            break true;
        }
        let left = HEAD_TIMEOUT.saturating_sub(started.elapsed());
        if head.len() > HEAD_LIMIT || left.is_zero() {
            break false;
        }
        let _ = stream.set_read_timeout(Some(left));
        match stream.read(&mut buf) {
            Ok(0) => return None,
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => break false,
        }
    };
    let target = complete.then(|| request_target(&head)).flatten();
    match target {
        Some(target) => Some((stream, target)),
        None => {
            respond(&mut stream, 400, "");
            None
        }
    }
}

/// The request-target of a request line `METHOD SP TARGET SP HTTP/x.y`.
fn request_target(head: &[u8]) -> Option<String> {
    let line = head.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim_end_matches('\r');
    let mut parts = line.split(' ');
    let (_method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    (parts.next().is_none() && version.starts_with("HTTP/") && !target.is_empty())
        .then(|| target.to_owned())
}

/// Writes a whole response and closes the connection.
fn respond(stream: &mut TcpStream, status: u16, page: &str) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        _ => "",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n\
         Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        page.len()
    );
    let _ = stream.set_write_timeout(Some(HEAD_TIMEOUT));
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(page.as_bytes());
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(port: u16, target: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        write!(stream, "GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n").expect("write");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    }

    fn free_port() -> u16 {
        TcpListener::bind("127.0.0.1:0")
            .expect("bind")
            .local_addr()
            .expect("addr")
            .port()
    }

    #[test]
    fn a_silent_connection_holds_nothing_up_and_a_rejected_request_keeps_the_wait() {
        let listener = CallbackListener::bind(&[free_port()]).expect("bound");
        let port = listener.port();
        let client = thread::spawn(move || {
            let _silent = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            let first = get(port, "/favicon.ico");
            let second = get(port, "/login?code=c");
            (first, second)
        });
        let mut seen = Vec::new();
        let got = listener.wait(
            Instant::now() + Duration::from_secs(20),
            None,
            &mut |target| {
                seen.push(target.to_owned());
                if target.contains("code=") {
                    Answer::Done(target.to_owned(), 200, "done".into())
                } else {
                    Answer::KeepWaiting(400, "no".into())
                }
            },
        );
        assert_eq!(got.expect("answered"), "/login?code=c");
        let (first, second) = client.join().expect("client");
        assert!(first.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{first}");
        assert!(second.starts_with("HTTP/1.1 200 OK\r\n"), "{second}");
        assert!(second.ends_with("\r\n\r\ndone"), "{second}");
        assert_eq!(seen, ["/favicon.ico", "/login?code=c"]);
    }

    #[test]
    fn the_wait_ends_at_its_deadline_and_on_cancel() {
        let listener = CallbackListener::bind(&[free_port()]).expect("bound");
        let started = Instant::now();
        let end = listener.wait::<()>(started + Duration::from_millis(200), None, &mut |_| {
            Answer::KeepWaiting(400, String::new())
        });
        assert!(matches!(end, Err(WaitEnd::TimedOut)), "{end:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let cancel = Cancel::new();
        cancel.cancel();
        let end = listener.wait::<()>(
            started + Duration::from_secs(60),
            Some(&cancel),
            &mut |_| Answer::KeepWaiting(400, String::new()),
        );
        assert!(matches!(end, Err(WaitEnd::Cancelled)), "{end:?}");
    }

    #[test]
    fn a_taken_port_is_skipped_and_no_free_port_is_none() {
        let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
        let taken_port = taken.local_addr().expect("addr").port();
        assert!(CallbackListener::bind(&[taken_port]).is_none());
        let free = free_port();
        let listener = CallbackListener::bind(&[taken_port, free]).expect("bound");
        assert_eq!(listener.port(), free);
    }

    #[test]
    fn request_lines() {
        assert_eq!(
            request_target(b"GET /login?a=b HTTP/1.1\r\n\r\n").as_deref(),
            Some("/login?a=b")
        );
        assert_eq!(request_target(b"GET /x\r\n\r\n"), None);
        assert_eq!(request_target(b"\xff\xfe /x HTTP/1.1\r\n"), None);
        assert_eq!(request_target(b"GET  HTTP/1.1\r\n"), None);
    }
}
