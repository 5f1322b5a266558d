//! The discovery state machine driven by an arbitrary script: response heads,
//! body chunks, ends, clock steps, timeouts and transport errors, in any
//! order, whatever state the machine is in.
//!
//! Asserts what `core/tests/properties.rs` checks on generated scripts: the
//! machine never panics and always finishes by its deadline, follows at most
//! `max_redirects` redirects, never accepts more body than the limit, sends
//! credentials only over https to the initial host or its subdomains and
//! never again once dropped (D4), uses plain http only for the development
//! host (D5), keeps its result once done, and never shows the token. With
//! retries: a wait never ends past the deadline, each attempt starts over
//! at the first URL with the same credentials decision, and no more
//! attempts are made than the policy allows. Bodies may be gzip.
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use tfdisco_core::http::header::{
    AUTHORIZATION, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, DATE, LOCATION, RETRY_AFTER,
};
use tfdisco_core::http::{HeaderMap, HeaderValue, StatusCode};
use tfdisco_core::url::Url;
use tfdisco_core::{
    Action, Config, Credentials, Discovery, Error, Hostname, Transfer, TransportError,
    TransportErrorKind,
};

const TOKEN: &str = "fuzz-SECRET-token";

const HOSTS: [&str; 5] = [
    "example.com",
    "registry.example.com:8443",
    "münchen.de",
    "127.0.0.1:8443",
    "localhost:8080",
];

const LOCATIONS: [&str; 28] = [
    "/next",
    "next",
    "../up/x",
    "?q=1",
    "#frag",
    "",
    "//example.com/x",
    "//other.example/x",
    "https://example.com:8443/x",
    "https://sub.example.com/y",
    "https://EXAMPLE.com/case",
    "https://example.net/z",
    "https://example.com.evil.net/",
    "https://badexample.com/",
    "https://user:pw@example.com/u",
    "http://example.com/plain",
    "http://localhost:8080/dev",
    "http://localhost/dev",
    "https://münchen.de/x",
    "https://xn--mnchen-3ya.de/p",
    "https://127.0.0.1/",
    "https://[::1]:8443/",
    "ftp://example.com/",
    "::garbage",
    "https://example.com:99999/",
    "https://exa mple.com/",
    "/%zz",
    "https://sub.registry.example.com/z",
];

const DOCUMENTS: [&str; 4] = [
    "null",
    "{}",
    r#"{"modules.v1": "/m/", "providers.v1": "https://cdn.example.net/p/"}"#,
    r#"{"login.v1": {"client": "c", "authz": "/a", "token": "/t"}, "tfe.v2.1": "./api/"}"#,
];

const RETRY_AFTERS: [&str; 6] = [
    "0",
    "1",
    "3600",
    "soon",
    "Sun, 22 Nov 2026 10:00:02 GMT",
    "99999999999999999999999",
];

const CONTENT_TYPES: [&str; 6] = [
    "application/json",
    "Application/JSON; charset=utf-8",
    " application/json ",
    "text/plain",
    "application/json;;",
    "",
];

#[derive(Arbitrary, Debug)]
struct Script {
    host: u8,
    dev_host: bool,
    with_token: bool,
    max_redirects: u8,
    limit: u16,
    timeout_ms: u16,
    retries: u8,
    events: Vec<Event>,
}

#[derive(Arbitrary, Debug)]
enum Event {
    Head {
        status: Status,
        location: Option<Text>,
        content_type: Option<Text>,
        content_length: Option<u64>,
        retry_after: Option<Text>,
        /// A `Date` header, so that an HTTP-date `Retry-After` counts.
        dated: bool,
        /// `Content-Encoding: gzip`.
        gzip: bool,
    },
    Chunk(Vec<u8>),
    /// A chunk that is a whole valid document, so success paths are reached.
    Document(u8),
    /// A whole valid document, gzip-compressed, in pieces of this size.
    GzipDocument(u8, u8),
    End,
    Advance(u16),
    /// `handle_timeout` now, which may be before the deadline.
    Timeout,
    /// The driver's timer fires at the machine's deadline.
    Deadline,
    Error(ErrorKind),
}

#[derive(Arbitrary, Debug)]
enum Status {
    Ok,
    NotFound,
    Redirect(u8),
    /// 429 and 5xx, which the retry policy retries (but 501).
    Retried(u8),
    Other(u16),
}

#[derive(Arbitrary, Debug)]
enum Text {
    Known(u8),
    Raw(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
enum ErrorKind {
    Connect,
    Io,
    Timeout,
    Tls,
}

impl Status {
    fn code(&self) -> StatusCode {
        let n = match self {
            Status::Ok => 200,
            Status::NotFound => 404,
            Status::Redirect(i) => [300, 301, 302, 303, 304, 307, 308][usize::from(*i) % 7],
            Status::Retried(i) => [429, 500, 501, 502, 503, 504][usize::from(*i) % 6],
            Status::Other(n) => 100 + n % 900,
        };
        StatusCode::from_u16(n).expect("100..=999 is a valid status")
    }
}

impl Text {
    fn value(&self, known: &[&str]) -> Option<HeaderValue> {
        match self {
            Text::Known(i) => HeaderValue::from_str(known[usize::from(*i) % known.len()]).ok(),
            Text::Raw(bytes) => HeaderValue::from_bytes(bytes).ok(),
        }
    }
}

/// What the driver has seen so far, checked at every step.
struct Observer {
    max_redirects: u32,
    limit: u64,
    deadline: Instant,
    attempts: u32,
    attempt: u32,
    with_token: bool,
    initial_host: Option<String>,
    dev: Option<(String, u16)>,
    credentials_dropped: bool,
    /// Body bytes handed over since the last head while the machine read them.
    accepted: u64,
    /// The last head said gzip: the limit is on decoded bytes, which the
    /// fuzzer cannot count.
    gzip: bool,
    done: Option<String>,
}

impl Observer {
    /// Hands `bytes` to the machine, counting them if it read them.
    fn chunk(&mut self, d: &mut Discovery, bytes: &[u8], now: Instant) {
        let reading = d.is_receiving();
        d.handle_body(bytes, now);
        if reading && d.is_receiving() {
            self.accepted += bytes.len() as u64;
        }
    }

    fn check(&mut self, d: &mut Discovery) {
        assert!(d.redirects() <= self.max_redirects);
        assert!(
            d.attempt() <= self.attempts,
            "attempt {} of {}",
            d.attempt(),
            self.attempts
        );
        if d.attempt() != self.attempt {
            // A retry: the first URL again, with the same credentials decision.
            assert_eq!(d.attempt(), self.attempt + 1);
            assert_eq!(d.redirects(), 0);
            self.attempt = d.attempt();
            self.credentials_dropped = !self.with_token;
        }
        match d.poll() {
            Action::Send(request) => {
                let url = Url::parse(&request.uri().to_string()).expect("absolute request URI");
                let host = url.host_str().expect("request URLs have a host").to_owned();
                let initial = self.initial_host.get_or_insert_with(|| host.clone());
                if d.redirects() == 0 {
                    assert_eq!(&host, initial, "each attempt starts at the first URL");
                }
                if url.scheme() == "http" {
                    let dev = self.dev.as_ref().expect("plain http only with a dev host");
                    assert_eq!(
                        (host.as_str(), url.port_or_known_default()),
                        (dev.0.as_str(), Some(dev.1))
                    );
                }
                match request.headers().get(AUTHORIZATION) {
                    Some(value) => {
                        assert!(!self.credentials_dropped, "credentials came back to {url}");
                        assert_eq!(url.scheme(), "https");
                        assert!(
                            host == *initial || host.ends_with(&format!(".{initial}")),
                            "token sent to {host} from {initial}"
                        );
                        assert_eq!(
                            value.to_str().ok(),
                            Some(format!("Bearer {TOKEN}").as_str())
                        );
                    }
                    None => self.credentials_dropped = true,
                }
            }
            Action::Receive => assert!(self.gzip || self.accepted <= self.limit),
            Action::Wait(until) => {
                assert_eq!(d.poll_timeout(), Some(until));
                assert!(until < self.deadline, "a wait past the deadline");
                assert!(d.attempt() < self.attempts, "a wait with no attempt left");
            }
            Action::Done(result) => {
                let shown = match &result {
                    Ok(services) => format!("{services:?}"),
                    Err(e) => {
                        if !matches!(e, Error::BodyTooLarge { .. }) {
                            assert!(self.gzip || self.accepted <= self.limit);
                        }
                        format!("{e} {e:?}")
                    }
                };
                assert!(!shown.contains("SECRET"), "{shown}");
                if let Ok(services) = &result {
                    assert!(
                        self.gzip || self.accepted <= self.limit,
                        "{} > {}",
                        self.accepted,
                        self.limit
                    );
                    let _ = services.len();
                }
                match &self.done {
                    Some(first) => assert_eq!(first, &shown, "the result changed after Done"),
                    None => self.done = Some(shown),
                }
            }
            other => panic!("an action the fuzz target does not know: {other:?}"),
        }
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).expect("in memory");
    e.finish().expect("in memory")
}

fuzz_target!(|script: Script| {
    let host_text = HOSTS[usize::from(script.host) % HOSTS.len()];
    let host = Hostname::parse(host_text).expect("valid fuzz host");
    let mut config = Config::default()
        .with_max_redirects(u32::from(script.max_redirects % 6))
        .with_body_limit(u64::from(script.limit % 4096))
        .with_timeout(Duration::from_millis(u64::from(script.timeout_ms)))
        .with_retries(u32::from(script.retries % 4));
    let dev = Hostname::parse("localhost:8080").expect("valid");
    if script.dev_host {
        config = config.with_plain_http_host(dev);
    }
    let credentials = script
        .with_token
        .then(|| Credentials::token(TOKEN).expect("valid token"));
    let start = Instant::now();
    let mut now = start;
    let mut d = Transfer::discovery(host, &config, credentials, now).expect("these hosts start");
    let mut seen = Observer {
        max_redirects: config.max_redirects(),
        limit: config.body_limit(),
        deadline: start + config.timeout(),
        attempts: config.retry_policy().attempts(),
        attempt: 1,
        with_token: script.with_token,
        initial_host: None,
        dev: script.dev_host.then(|| ("localhost".to_owned(), 8080)),
        credentials_dropped: !script.with_token,
        accepted: 0,
        gzip: false,
        done: None,
    };
    seen.check(&mut d);

    for event in &script.events {
        match event {
            Event::Head {
                status,
                location,
                content_type,
                content_length,
                retry_after,
                dated,
                gzip,
            } => {
                let mut headers = HeaderMap::new();
                if let Some(v) = location.as_ref().and_then(|l| l.value(&LOCATIONS)) {
                    headers.insert(LOCATION, v);
                }
                if let Some(v) = content_type.as_ref().and_then(|c| c.value(&CONTENT_TYPES)) {
                    headers.insert(CONTENT_TYPE, v);
                }
                if let Some(n) = content_length {
                    headers.insert(CONTENT_LENGTH, HeaderValue::from(*n));
                }
                if let Some(v) = retry_after.as_ref().and_then(|r| r.value(&RETRY_AFTERS)) {
                    headers.insert(RETRY_AFTER, v);
                }
                if *dated {
                    headers.insert(
                        DATE,
                        HeaderValue::from_static("Sun, 22 Nov 2026 10:00:00 GMT"),
                    );
                }
                if *gzip {
                    headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                }
                let answered = d.is_sending();
                d.handle_head(status.code(), &headers, now);
                if answered && d.is_receiving() {
                    // A head the machine took: a new body starts.
                    seen.accepted = 0;
                    seen.gzip = *gzip;
                }
            }
            Event::Chunk(bytes) => seen.chunk(&mut d, bytes, now),
            Event::Document(i) => {
                let document = DOCUMENTS[usize::from(*i) % DOCUMENTS.len()];
                seen.chunk(&mut d, document.as_bytes(), now);
            }
            Event::GzipDocument(i, piece) => {
                let document = DOCUMENTS[usize::from(*i) % DOCUMENTS.len()];
                for part in gzip(document.as_bytes()).chunks(usize::from(*piece).max(1)) {
                    seen.chunk(&mut d, part, now);
                }
            }
            Event::End => d.handle_end(now),
            Event::Advance(ms) => now += Duration::from_millis(u64::from(*ms)),
            Event::Timeout => d.handle_timeout(now),
            Event::Deadline => {
                if let Some(deadline) = d.poll_timeout() {
                    now = now.max(deadline);
                    d.handle_timeout(now);
                }
            }
            Event::Error(kind) => {
                let kind = match kind {
                    ErrorKind::Connect => TransportErrorKind::Connect,
                    ErrorKind::Io => TransportErrorKind::Io,
                    ErrorKind::Timeout => TransportErrorKind::Timeout,
                    ErrorKind::Tls => TransportErrorKind::Tls,
                };
                d.handle_error(TransportError::new(kind, "simulated failure"), now);
            }
        }
        seen.check(&mut d);
    }

    // The script is over: the driver's timers fire (a retry's wait, then the
    // deadline), and that ends it.
    for _ in 0..2 {
        if matches!(d.poll(), Action::Done(_)) {
            break;
        }
        let next = d
            .poll_timeout()
            .expect("a running discovery has a deadline");
        assert!(next <= start + config.timeout());
        now = now.max(next);
        d.handle_timeout(now);
        seen.check(&mut d);
    }
    assert!(
        matches!(d.poll(), Action::Done(_)),
        "still running after its deadline"
    );
    assert_eq!(d.poll_timeout(), None);
});
