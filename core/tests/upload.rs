//! Requests that write (UPLOAD): the goal's method and body on the first
//! request, kept by 307 and 308, turned into a GET without a body by 301,
//! 302 and 303, and retried only for idempotent methods.

use std::time::Instant;

use tfdisco_core::bytes::Bytes;
use tfdisco_core::http::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
use tfdisco_core::http::{HeaderMap, HeaderValue, Method, StatusCode};
use tfdisco_core::url::Url;
use tfdisco_core::{
    Action, Body, Config, Dialect, Error, Goal, Hostname, Next, RequestKind, Transfer,
};

/// A write: `method` with a body; 201 is the answer.
struct Write {
    host: Hostname,
    method: Method,
}

impl Goal for Write {
    type Output = ();
    const NAME: &'static str = "write";
    const KIND: RequestKind = RequestKind::Registry;

    fn host(&self) -> &Hostname {
        &self.host
    }

    fn method(&self) -> Method {
        self.method.clone()
    }

    fn body(&self) -> Option<Body> {
        Some(Body {
            content_type: HeaderValue::from_static("application/octet-stream"),
            bytes: Bytes::from_static(b"layer bytes"),
        })
    }

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<()> {
        Next::Finish(match status {
            StatusCode::CREATED => Ok(()),
            status => Err(Error::Status {
                url: url.clone().into(),
                status,
            }),
        })
    }

    fn on_body(&mut self, _: &Url, _: Vec<u8>) -> Result<(), Error> {
        Ok(())
    }
}

fn start(method: Method) -> Transfer<Write> {
    let goal = Write {
        host: Hostname::parse("registry.example").expect("host"),
        method,
    };
    let url = Url::parse("https://registry.example/v2/a/blobs/uploads/x").expect("url");
    Transfer::get(
        goal,
        url,
        &Config::new(Dialect::OpenTofu),
        None,
        Instant::now(),
    )
    .expect("starts")
}

fn redirect(transfer: &mut Transfer<Write>, status: StatusCode) {
    let mut headers = HeaderMap::new();
    headers.insert(
        LOCATION,
        HeaderValue::from_static("https://storage.example/put"),
    );
    transfer.handle_head(status, &headers, Instant::now());
}

#[test]
fn the_first_request_sends_the_goals_method_and_body() {
    let mut transfer = start(Method::PUT);
    let Action::Send(request) = transfer.poll() else {
        panic!("a request")
    };
    assert_eq!(request.method(), Method::PUT);
    assert_eq!(request.headers()[CONTENT_TYPE], "application/octet-stream");
    assert_eq!(request.headers()[CONTENT_LENGTH], "11");
    let body = transfer.request_body().expect("a body");
    assert_eq!(&body.bytes[..], b"layer bytes");
}

#[test]
fn a_307_or_308_sends_it_again_a_303_makes_a_get() {
    for status in [
        StatusCode::TEMPORARY_REDIRECT,
        StatusCode::PERMANENT_REDIRECT,
    ] {
        let mut transfer = start(Method::PUT);
        redirect(&mut transfer, status);
        let Action::Send(request) = transfer.poll() else {
            panic!("the redirect is followed")
        };
        assert_eq!(request.method(), Method::PUT, "{status}");
        assert!(transfer.request_body().is_some(), "{status}");
    }
    for status in [
        StatusCode::SEE_OTHER,
        StatusCode::FOUND,
        StatusCode::MOVED_PERMANENTLY,
    ] {
        let mut transfer = start(Method::POST);
        redirect(&mut transfer, status);
        let Action::Send(request) = transfer.poll() else {
            panic!("the redirect is followed")
        };
        assert_eq!(request.method(), Method::GET, "{status}");
        assert!(request.headers().get(CONTENT_TYPE).is_none(), "{status}");
        assert!(transfer.request_body().is_none(), "{status}");
    }
}

#[test]
fn only_idempotent_writes_are_retried() {
    let now = Instant::now();
    let mut put = start(Method::PUT);
    put.handle_head(StatusCode::SERVICE_UNAVAILABLE, &HeaderMap::new(), now);
    assert!(put.is_waiting(), "a PUT is retried");
    let mut post = start(Method::POST);
    post.handle_head(StatusCode::SERVICE_UNAVAILABLE, &HeaderMap::new(), now);
    let Action::Done(Err(e)) = post.poll() else {
        panic!("a POST is not retried")
    };
    assert_eq!(e.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
}

#[test]
fn a_retry_sends_the_first_request_again_with_its_body() {
    let now = Instant::now();
    let mut transfer = start(Method::PUT);
    redirect(&mut transfer, StatusCode::SEE_OTHER);
    let _ = transfer.poll();
    transfer.handle_head(StatusCode::SERVICE_UNAVAILABLE, &HeaderMap::new(), now);
    // The GET the 303 made is retried as the goal's first request: a PUT.
    let Action::Wait(at) = transfer.poll() else {
        panic!("a retry")
    };
    transfer.handle_timeout(at);
    let Action::Send(request) = transfer.poll() else {
        panic!("the retry")
    };
    assert_eq!(request.method(), Method::PUT);
    assert_eq!(request.uri().host(), Some("registry.example"));
    assert!(transfer.request_body().is_some());
}
