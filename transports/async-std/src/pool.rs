//! HTTP/1.1 connections without a spawned task: a connection's driver
//! future is polled together with whatever waits on it (the response, the
//! body), and idle connections wait in a pool for the next request to the
//! same origin.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use http_body_util::Full;
use hyper::body::{Body as _, Bytes, Incoming};
use hyper::client::conn::http1::{Connection, SendRequest};
use tfdisco_core::TransportError;
use tfdisco_core::http::{Request, Response};
use tfdisco_transport::{Route, hyper_body};

use crate::io::HyperIo;

type Driver = Pin<Box<Connection<HyperIo, Full<Bytes>>>>;

/// One HTTP/1.1 connection: the handle to send on and the future that
/// drives it (`None` once it ended).
pub(crate) struct Conn {
    sender: SendRequest<Full<Bytes>>,
    driver: Option<Driver>,
}

impl Conn {
    pub(crate) fn new(
        sender: SendRequest<Full<Bytes>>,
        connection: Connection<HyperIo, Full<Bytes>>,
    ) -> Conn {
        Conn {
            sender,
            driver: Some(Box::pin(connection)),
        }
    }

    /// Sends `request` and waits for the response head.
    pub(crate) async fn send(
        &mut self,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, TransportError> {
        drive_with(&mut self.driver, self.sender.ready())
            .await
            .map_err(hyper_body::error)?;
        drive_with(&mut self.driver, self.sender.send_request(request))
            .await
            .map_err(hyper_body::error)
    }

    fn reusable(&self) -> bool {
        self.driver.is_some() && !self.sender.is_closed()
    }
}

/// Polls `future`, driving the connection at the same time.
async fn drive_with<F: Future>(driver: &mut Option<Driver>, future: F) -> F::Output {
    let mut future = pin!(future);
    poll_fn(|cx| {
        if let Some(d) = driver
            && d.as_mut().poll(cx).is_ready()
        {
            // The connection ended; `future` will see why.
            *driver = None;
        }
        future.as_mut().poll(cx)
    })
    .await
}

/// A response body being read, with the connection it arrives on (the body
/// type of [`Http`](crate::Http)'s `AsyncTransport` side; opaque).
pub struct Body {
    incoming: Incoming,
    conn: Option<Conn>,
    ended: bool,
    home: Option<(Arc<Pool>, String)>,
}

impl Body {
    pub(crate) fn new(incoming: Incoming, conn: Conn, home: Option<(Arc<Pool>, String)>) -> Body {
        Body {
            incoming,
            conn: Some(conn),
            ended: false,
            home,
        }
    }

    /// The next data chunk; `None` at the end.
    pub(crate) async fn next_chunk(&mut self) -> Option<Result<Bytes, TransportError>> {
        let Body { incoming, conn, .. } = self;
        let mut none = None;
        let driver = match conn {
            Some(conn) => &mut conn.driver,
            None => &mut none,
        };
        let chunk = drive_with(driver, hyper_body::next_chunk(incoming)).await;
        self.ended = chunk.is_none();
        chunk
    }
}

/// A body read to its end gives its connection back to the pool; one
/// dropped early closes it.
impl Drop for Body {
    fn drop(&mut self) {
        if !(self.ended || self.incoming.is_end_stream()) {
            return;
        }
        if let (Some((pool, key)), Some(conn)) = (self.home.take(), self.conn.take()) {
            pool.put(key, conn);
        }
    }
}

/// Idle connections by origin.
pub(crate) struct Pool {
    idle: Mutex<HashMap<String, Vec<(Conn, Instant)>>>,
    idle_timeout: Duration,
    max_idle_per_origin: usize,
}

impl Pool {
    /// A pool keeping at most `max_idle_per_origin` connections per origin,
    /// each for at most `idle_timeout`.
    pub(crate) fn new(idle_timeout: Duration, max_idle_per_origin: usize) -> Pool {
        Pool {
            idle: Mutex::default(),
            idle_timeout,
            max_idle_per_origin,
        }
    }

    /// The key of connections that can serve `route`.
    pub(crate) fn key(route: &Route) -> String {
        let proxy = route
            .proxy
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        format!("{}|{}|{proxy}", route.https, route.authority())
    }

    /// An idle connection for `key`, if one is left.
    pub(crate) fn take(&self, key: &str) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let list = idle.get_mut(key)?;
        while let Some((conn, since)) = list.pop() {
            if since.elapsed() < self.idle_timeout && conn.reusable() {
                return Some(conn);
            }
        }
        None
    }

    fn put(&self, key: String, conn: Conn) {
        if !conn.reusable() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let list = idle.entry(key).or_default();
        if list.len() < self.max_idle_per_origin {
            list.push((conn, Instant::now()));
        }
    }
}
