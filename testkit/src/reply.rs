//! What a test server answers on one path: status, headers, a body declared
//! or chunked, and misbehaviour (stalls, drips, resets, held answers).

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;

/// A scripted answer.
///
/// ```
/// use std::time::Duration;
/// use tfdisco_testkit::Reply;
///
/// let ok = Reply::json(r#"{"modules.v1": "/m/"}"#);
/// let redirect = Reply::redirect(302, "/elsewhere");
/// let slow = Reply::json("{}").stall(Duration::from_secs(20));
/// # let _ = (ok, redirect, slow);
/// ```
#[derive(Clone, Debug)]
pub struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, Vec<u8>)>,
    pub(crate) body: Body,
    pub(crate) stall: Duration,
    pub(crate) interval: Duration,
    pub(crate) reset_after: Option<u64>,
    pub(crate) reset: bool,
    pub(crate) hold: bool,
    pub(crate) hold_rest: bool,
}

/// Where body bytes come from.
#[derive(Clone, Debug)]
pub(crate) enum Body {
    Parts(VecDeque<Bytes>),
    Repeat { chunk: Bytes, times: usize },
}

impl Reply {
    /// A status with no headers and an empty body.
    pub fn new(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: Body::Parts(VecDeque::new()),
            stall: Duration::ZERO,
            interval: Duration::ZERO,
            reset_after: None,
            reset: false,
            hold: false,
            hold_rest: false,
        }
    }

    /// 200, `Content-Type: application/json`, the body with its length.
    pub fn json(body: &str) -> Reply {
        Reply::new(200)
            .header("Content-Type", "application/json")
            .body(body.as_bytes())
    }

    /// A redirect to `location`.
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::new(status).header("Location", location)
    }

    /// Adds a header.
    pub fn header(self, name: &str, value: &str) -> Reply {
        self.header_bytes(name, value.as_bytes())
    }

    /// Adds a header whose value is any bytes (invalid UTF-8, say).
    pub fn header_bytes(mut self, name: &str, value: &[u8]) -> Reply {
        self.headers.push((name.to_owned(), value.to_vec()));
        self
    }

    /// The body, with `Content-Length`.
    pub fn body(self, body: &[u8]) -> Reply {
        self.header("Content-Length", &body.len().to_string())
            .chunked([body.to_vec()])
    }

    /// The body in these chunks, without `Content-Length` (chunked
    /// transfer encoding), unless a `Content-Length` header was added.
    pub fn chunked<I: IntoIterator<Item = Vec<u8>>>(mut self, parts: I) -> Reply {
        self.body = Body::Parts(parts.into_iter().map(Bytes::from).collect());
        self
    }

    /// `times` copies of `chunk` (a huge body without holding it in memory).
    pub fn repeat(mut self, chunk: &[u8], times: usize) -> Reply {
        self.body = Body::Repeat {
            chunk: Bytes::copy_from_slice(chunk),
            times,
        };
        self
    }

    /// Splits the body into chunks of `size` bytes.
    pub fn chunk_size(mut self, size: usize) -> Reply {
        if let Body::Parts(parts) = &mut self.body {
            let all: Vec<u8> = parts.iter().flat_map(|p| p.iter().copied()).collect();
            *parts = all
                .chunks(size.max(1))
                .map(Bytes::copy_from_slice)
                .collect();
        }
        self
    }

    /// Waits `d` before sending the head.
    pub fn stall(mut self, d: Duration) -> Reply {
        self.stall = d;
        self
    }

    /// Waits `d` before each body chunk after the first.
    pub fn interval(mut self, d: Duration) -> Reply {
        self.interval = d;
        self
    }

    /// Resets the connection (TCP RST) once `n` body bytes are sent.
    pub fn reset_after(mut self, n: u64) -> Reply {
        self.reset_after = Some(n);
        self
    }

    /// Resets the connection (TCP RST) instead of answering: a failure
    /// before any response head.
    pub fn reset() -> Reply {
        Reply {
            reset: true,
            ..Reply::new(500)
        }
    }

    /// Holds the head until [`crate::TestServer::release`] (at most 30 s).
    pub fn hold(mut self) -> Reply {
        self.hold = true;
        self
    }

    /// Sends the body's first chunk, then holds the rest until
    /// [`crate::TestServer::release`] (at most 30 s): a download the test
    /// keeps streaming while it looks at what the client does meanwhile.
    pub fn hold_rest(mut self) -> Reply {
        self.hold_rest = true;
        self
    }
}
