//! Assembling response heads from libcurl's header callback: one line at a
//! time, parsed with httparse once the blank line arrives. Interim (1xx)
//! heads and the proxy's answer to `CONNECT` are not the response.

use tfdisco_core::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use tfdisco_core::{TransportError, TransportErrorKind};

/// Headers accepted in one response head (hyper's default too).
const MAX_HEADERS: usize = 100;

/// Collects header lines until a final response head is complete.
pub(crate) struct HeadParser {
    buf: Vec<u8>,
    /// The transfer goes through a `CONNECT` tunnel opened for it: the first
    /// head is the proxy's answer.
    expect_tunnel: bool,
}

impl HeadParser {
    pub(crate) fn new(expect_tunnel: bool) -> HeadParser {
        HeadParser {
            buf: Vec::new(),
            expect_tunnel,
        }
    }

    /// Takes one header line (with its line end). Returns the final head
    /// once complete.
    pub(crate) fn line(
        &mut self,
        line: &[u8],
    ) -> Result<Option<(StatusCode, HeaderMap)>, TransportError> {
        if line.starts_with(b"HTTP/") {
            self.buf.clear();
        }
        self.buf.extend_from_slice(line);
        if line != b"\r\n" && line != b"\n" {
            return Ok(None);
        }
        let (status, headers) = parse(&self.buf)?;
        self.buf.clear();
        if status.is_informational() {
            return Ok(None);
        }
        if std::mem::take(&mut self.expect_tunnel) {
            return if status.is_success() {
                Ok(None)
            } else {
                Err(TransportError::new(
                    TransportErrorKind::Proxy,
                    format!("the proxy refused the tunnel: {status}"),
                ))
            };
        }
        Ok(Some((status, headers)))
    }
}

fn parse(head: &[u8]) -> Result<(StatusCode, HeaderMap), TransportError> {
    let invalid = |what: String| {
        TransportError::new(
            TransportErrorKind::Other,
            format!("invalid response head: {what}"),
        )
    };
    let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut slots);
    match response.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(invalid("incomplete".into())),
        Err(e) => return Err(invalid(e.to_string())),
    }
    let status = response
        .code
        .and_then(|code| StatusCode::from_u16(code).ok())
        .ok_or_else(|| invalid("no valid status".into()))?;
    let mut headers = HeaderMap::with_capacity(response.headers.len());
    for header in response.headers.iter() {
        let name = HeaderName::from_bytes(header.name.as_bytes())
            .map_err(|e| invalid(format!("header name {:?}: {e}", header.name)))?;
        let value = HeaderValue::from_bytes(header.value)
            .map_err(|e| invalid(format!("value of {name}: {e}")))?;
        headers.append(name, value);
    }
    Ok((status, headers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(parser: &mut HeadParser, text: &[u8]) -> Vec<(StatusCode, HeaderMap)> {
        let mut heads = Vec::new();
        for line in text.split_inclusive(|&b| b == b'\n') {
            if let Some(head) = parser.line(line).expect("valid") {
                heads.push(head);
            }
        }
        heads
    }

    #[test]
    fn interim_heads_and_tunnel_answers_are_skipped() {
        let mut p = HeadParser::new(true);
        let heads = feed(
            &mut p,
            b"HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n\
              HTTP/1.1 302 Found\r\nLocation: /x\r\nX-Dup: a\r\nX-Dup: b\r\n\r\n",
        );
        assert_eq!(heads.len(), 1);
        let (status, headers) = &heads[0];
        assert_eq!(status.as_u16(), 302);
        assert_eq!(
            headers.get("location").map(|v| v.as_bytes()),
            Some(&b"/x"[..])
        );
        assert_eq!(headers.get_all("x-dup").iter().count(), 2);
    }

    #[test]
    fn a_refused_tunnel_is_a_proxy_error() {
        let mut p = HeadParser::new(true);
        assert!(
            p.line(b"HTTP/1.1 403 Forbidden\r\n")
                .expect("partial")
                .is_none()
        );
        let e = p.line(b"\r\n").expect_err("refused");
        assert_eq!(e.kind(), TransportErrorKind::Proxy);
    }

    #[test]
    fn garbage_is_an_error() {
        let mut p = HeadParser::new(false);
        assert!(p.line(b"HTTP/1.1 2000 Huh\r\n").expect("partial").is_none());
        assert!(p.line(b"\r\n").is_err());
    }
}
