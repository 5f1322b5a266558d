//! A socket-free scenario harness: scripted responses, a simulated clock, and
//! a record of every request the machine sent.
#![allow(dead_code, unreachable_pub)]

pub mod trace;

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use tfdisco_core::http::header::AUTHORIZATION;
use tfdisco_core::http::{HeaderMap, HeaderName, HeaderValue, Request, StatusCode};
use tfdisco_core::{
    Action, Config, Credentials, CredentialsSource, DiscoveryCache, Error, Goal, Hostname, Lookup,
    Services, StartError, Transfer, TransportError, TransportErrorKind,
};

/// What a simulated server does with one request.
#[derive(Clone, Debug)]
pub enum Reply {
    Response {
        status: u16,
        headers: Vec<(String, String)>,
        chunks: Vec<Vec<u8>>,
        delay: Duration,
        chunk_delay: Duration,
        /// The connection breaks after the chunks, before the end.
        then_fail: Option<TransportErrorKind>,
    },
    /// Accepts the request and never answers.
    Stall,
    /// The transport fails with this kind of error.
    Fail(TransportErrorKind),
}

impl Reply {
    pub fn new(status: u16) -> Reply {
        Reply::Response {
            status,
            headers: Vec::new(),
            chunks: Vec::new(),
            delay: Duration::ZERO,
            chunk_delay: Duration::ZERO,
            then_fail: None,
        }
    }

    /// 200 with `Content-Type: application/json` and a declared length.
    pub fn json(body: &str) -> Reply {
        Reply::new(200)
            .header("Content-Type", "application/json")
            .body(body.as_bytes())
    }

    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::new(status).header("Location", location)
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Response { headers, .. } = &mut self {
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }

    /// A body with a declared `Content-Length`.
    pub fn body(self, body: &[u8]) -> Reply {
        self.header("Content-Length", &body.len().to_string())
            .chunked(&[body])
    }

    /// A body of unknown length, in these chunks.
    pub fn chunked(mut self, parts: &[&[u8]]) -> Reply {
        if let Reply::Response { chunks, .. } = &mut self {
            *chunks = parts.iter().map(|p| p.to_vec()).collect();
        }
        self
    }

    /// The head arrives after `delay`.
    pub fn after(mut self, d: Duration) -> Reply {
        if let Reply::Response { delay, .. } = &mut self {
            *delay = d;
        }
        self
    }

    /// The connection breaks with `kind` after the body chunks sent so far.
    pub fn then_fail(mut self, kind: TransportErrorKind) -> Reply {
        if let Reply::Response { then_fail, .. } = &mut self {
            *then_fail = Some(kind);
        }
        self
    }

    /// Each body chunk arrives `d` after the previous one.
    pub fn drip(mut self, d: Duration) -> Reply {
        if let Reply::Response { chunk_delay, .. } = &mut self {
            *chunk_delay = d;
        }
        self
    }
}

/// A request as the simulated server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub url: String,
    pub headers: HeaderMap,
    /// When the request was sent, from the start of the scenario.
    pub at: Duration,
}

impl Seen {
    pub fn authorization(&self) -> Option<&str> {
        self.headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
    }
}

/// Simulated servers keyed by full request URL, and a clock.
#[derive(Default)]
pub struct Net {
    routes: HashMap<String, VecDeque<Reply>>,
    pub seen: Vec<Seen>,
    /// Body bytes the servers handed over.
    pub bytes_sent: u64,
    pub elapsed: Duration,
    start: Option<Instant>,
}

impl Net {
    pub fn new() -> Net {
        Net {
            start: Some(Instant::now()),
            ..Net::default()
        }
    }

    /// Queues `reply` for `url`; the last reply queued for a URL repeats.
    pub fn on(&mut self, url: &str, reply: Reply) -> &mut Net {
        self.routes
            .entry(url.to_owned())
            .or_default()
            .push_back(reply);
        self
    }

    pub fn now(&self) -> Instant {
        self.start.expect("Net::new sets the start") + self.elapsed
    }

    fn reply_for(&mut self, url: &str) -> Option<Reply> {
        let queue = self.routes.get_mut(url)?;
        if queue.len() > 1 {
            queue.pop_front()
        } else {
            queue.front().cloned()
        }
    }

    /// Starts a transfer and drives it to its result: a transfer that cannot
    /// start fails as the clients fail, with its [`StartError`] as an
    /// [`Error`].
    pub fn run<G: Goal>(
        &mut self,
        start: Result<Transfer<G>, StartError>,
    ) -> Result<G::Output, Error> {
        self.drive(&mut start?)
    }

    /// Drives `d` to its result, as a transport would.
    pub fn drive<G: Goal>(&mut self, d: &mut Transfer<G>) -> Result<G::Output, Error> {
        loop {
            match d.poll() {
                Action::Send(request) => self.exchange(d, request),
                Action::Receive => panic!("the harness reads each body right after its head"),
                Action::Wait(until) => {
                    self.elapsed += until.saturating_duration_since(self.now());
                    d.handle_timeout(self.now());
                }
                Action::Done(result) => return result,
                other => panic!("an action the harness does not know: {other:?}"),
            }
        }
    }

    fn exchange<G: Goal>(&mut self, d: &mut Transfer<G>, request: Request<()>) {
        let url = request.uri().to_string();
        self.seen.push(Seen {
            url: url.clone(),
            headers: request.headers().clone(),
            at: self.elapsed,
        });
        let reply = match self.reply_for(&url) {
            Some(reply) => reply,
            None => {
                let refused =
                    TransportError::new(TransportErrorKind::Connect, "connection refused");
                return d.handle_error(refused, self.now());
            }
        };
        match reply {
            Reply::Fail(kind) => {
                d.handle_error(TransportError::new(kind, "simulated failure"), self.now())
            }
            Reply::Stall => self.wait_for_deadline(d),
            Reply::Response {
                status,
                headers,
                chunks,
                delay,
                chunk_delay,
                then_fail,
            } => {
                if !self.advance(d, delay) {
                    return;
                }
                let status = StatusCode::from_u16(status).expect("a valid test status");
                d.handle_head(status, &header_map(&headers), self.now());
                for chunk in chunks {
                    if !d.is_receiving() || !self.advance(d, chunk_delay) {
                        return;
                    }
                    self.bytes_sent += chunk.len() as u64;
                    d.handle_body(&chunk, self.now());
                }
                match then_fail {
                    Some(kind) => {
                        d.handle_error(TransportError::new(kind, "connection reset"), self.now())
                    }
                    None if d.is_receiving() => d.handle_end(self.now()),
                    None => {}
                }
            }
        }
    }

    /// Lets `by` pass, firing the machine's timer if it falls due first.
    /// Returns false when the discovery timed out.
    fn advance<G: Goal>(&mut self, d: &mut Transfer<G>, by: Duration) -> bool {
        let target = self.now() + by;
        if let Some(deadline) = d.poll_timeout()
            && deadline <= target
        {
            self.elapsed += deadline - self.now();
            d.handle_timeout(self.now());
            return false;
        }
        self.elapsed += by;
        true
    }

    fn wait_for_deadline<G: Goal>(&mut self, d: &mut Transfer<G>) {
        let deadline = d
            .poll_timeout()
            .expect("a stalled server needs a deadline to end");
        self.elapsed += deadline.saturating_duration_since(self.now());
        d.handle_timeout(self.now());
    }

    /// What a transport does for one `discover` call: the cache,
    /// the target's credentials (a failing source means none), the machine.
    pub fn discover(
        &mut self,
        cache: &mut DiscoveryCache,
        source: &dyn CredentialsSource,
        host: &Hostname,
    ) -> Result<Services, Error> {
        let ticket = match cache.lookup(host) {
            Lookup::Cached(services) => return Ok(services),
            Lookup::Discover(ticket) => ticket,
        };
        let (credentials, _) = tfdisco_core::credentials_for(source, ticket.target());
        let result = self.run(cache.start(&ticket, credentials, self.now()));
        cache.complete(ticket, result)
    }
}

pub fn header_map(headers: &[(String, String)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        map.append(
            HeaderName::from_bytes(name.as_bytes()).expect("a valid test header name"),
            HeaderValue::from_str(value).expect("a valid test header value"),
        );
    }
    map
}

/// The usual one-host scenario.
pub struct Scenario {
    pub host: Hostname,
    pub config: Config,
    pub credentials: Option<Credentials>,
    pub net: Net,
}

/// The discovery URL of `host`.
pub fn disco(host: &str) -> String {
    format!("https://{host}/.well-known/terraform.json")
}

impl Scenario {
    pub fn new(host: &str) -> Scenario {
        Scenario {
            host: Hostname::parse(host).expect("a valid test hostname"),
            config: Config::default(),
            credentials: None,
            net: Net::new(),
        }
    }

    /// Queues a reply at the host's discovery URL.
    pub fn reply(mut self, reply: Reply) -> Scenario {
        let url = disco(self.host.as_str());
        self.net.on(&url, reply);
        self
    }

    /// Queues a reply at any URL.
    pub fn reply_at(mut self, url: &str, reply: Reply) -> Scenario {
        self.net.on(url, reply);
        self
    }

    pub fn config(mut self, f: impl FnOnce(Config) -> Config) -> Scenario {
        self.config = f(self.config);
        self
    }

    pub fn token(mut self, token: &str) -> Scenario {
        self.credentials = Some(Credentials::token(token).expect("a valid test token"));
        self
    }

    pub fn run(mut self) -> Outcome {
        let now = self.net.now();
        let result = self.net.run(Transfer::discovery(
            self.host,
            &self.config,
            self.credentials,
            now,
        ));
        Outcome {
            result,
            seen: self.net.seen,
            bytes_sent: self.net.bytes_sent,
            elapsed: self.net.elapsed,
        }
    }
}

pub struct Outcome {
    pub result: Result<Services, Error>,
    pub seen: Vec<Seen>,
    pub bytes_sent: u64,
    pub elapsed: Duration,
}

impl Outcome {
    pub fn services(&self) -> &Services {
        match &self.result {
            Ok(s) => s,
            Err(e) => panic!("expected services, got error: {e}"),
        }
    }

    pub fn error(&self) -> &Error {
        match &self.result {
            Ok(s) => panic!("expected an error, got {s:?}"),
            Err(e) => e,
        }
    }

    pub fn urls(&self) -> Vec<&str> {
        self.seen.iter().map(|s| s.url.as_str()).collect()
    }

    pub fn authorizations(&self) -> Vec<Option<&str>> {
        self.seen.iter().map(Seen::authorization).collect()
    }
}
