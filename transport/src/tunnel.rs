//! The `CONNECT` handshake with an HTTP proxy, without I/O: the request
//! bytes, and a parser (httparse) for the proxy's answer.

use tfdisco_core::{TransportError, TransportErrorKind};

use crate::{Proxy, Route};

/// The longest proxy answer accepted before the tunnel is up.
pub const MAX_RESPONSE_HEAD: usize = 16 * 1024;

/// `CONNECT host:port HTTP/1.1` with `Host` and, when the proxy URL had
/// user info, `Proxy-Authorization`.
pub fn request(route: &Route, proxy: &Proxy) -> Vec<u8> {
    let authority = route.authority();
    let mut out = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n").into_bytes();
    if let Some(value) = proxy.authorization() {
        out.extend_from_slice(b"Proxy-Authorization: ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// Reads the proxy's answer from the bytes received so far: `Ok(None)` when
/// more are needed, `Ok(Some(n))` when a 2xx head of `n` bytes arrived (the
/// tunnel is up), an error of kind [`TransportErrorKind::Proxy`] otherwise.
pub fn response(received: &[u8], proxy: &Proxy) -> Result<Option<usize>, TransportError> {
    let fail = |what: String| {
        TransportError::new(TransportErrorKind::Proxy, format!("proxy {proxy}: {what}"))
    };
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut head = httparse::Response::new(&mut headers);
    match head.parse(received) {
        Ok(httparse::Status::Partial) if received.len() > MAX_RESPONSE_HEAD => {
            Err(fail("answer to CONNECT is too long".into()))
        }
        Ok(httparse::Status::Partial) => Ok(None),
        Ok(httparse::Status::Complete(len)) => match head.code {
            Some(code) if (200..300).contains(&code) => Ok(Some(len)),
            Some(code) => Err(fail(format!(
                "refused the tunnel: {code} {}",
                head.reason.unwrap_or("")
            ))),
            None => Err(fail("answer to CONNECT has no status".into())),
        },
        Err(e) => Err(fail(format!("invalid answer to CONNECT: {e}"))),
    }
}

/// Checks that nothing but the answer's head (`head` bytes) was received:
/// the tunnel carries TLS, where the client speaks first.
pub fn check_rest(head: usize, received: &[u8], proxy: &Proxy) -> Result<(), TransportError> {
    if received.len() == head {
        Ok(())
    } else {
        Err(TransportError::new(
            TransportErrorKind::Proxy,
            format!("proxy {proxy} sent data after its answer to CONNECT"),
        ))
    }
}

/// The failure to report when the proxy closed the connection before
/// answering.
pub fn closed(proxy: &Proxy) -> TransportError {
    TransportError::new(
        TransportErrorKind::Proxy,
        format!("proxy {proxy} closed the connection before answering CONNECT"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(proxy: &str) -> (Route, Proxy) {
        let proxy = Proxy::parse(proxy).expect("valid proxy");
        let route = Route {
            https: true,
            host: "registry.example.com".into(),
            port: 443,
            proxy: Some(proxy.clone()),
        };
        (route, proxy)
    }

    #[test]
    fn request_bytes() {
        let (r, p) = route("http://u:p@proxy:3128");
        assert_eq!(
            String::from_utf8(request(&r, &p)).expect("ascii"),
            "CONNECT registry.example.com:443 HTTP/1.1\r\nHost: registry.example.com:443\r\n\
             Proxy-Authorization: Basic dTpw\r\n\r\n"
        );
    }

    #[test]
    fn answers() {
        let (_, p) = route("proxy:3128");
        assert_eq!(
            response(b"HTTP/1.1 200 Connection est", &p).expect("partial"),
            None
        );
        assert_eq!(
            response(b"HTTP/1.1 200 Connection established\r\n\r\n", &p).expect("up"),
            Some(39)
        );
        let e =
            response(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", &p).expect_err("407");
        assert_eq!(e.kind(), TransportErrorKind::Proxy);
        assert_eq!(
            e.to_string(),
            "proxy http://proxy:3128: refused the tunnel: 407 Proxy Authentication Required"
        );
        assert!(response(b"SSH-2.0-OpenSSH\r\n\r\n", &p).is_err());
        assert!(response(&vec![b'a'; MAX_RESPONSE_HEAD + 1][..], &p).is_err());
    }
}
