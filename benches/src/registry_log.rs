//! What `docker-registry` (CNCF distribution 2.8) logs, read back: its
//! access log (one line per request, Apache's combined format, written
//! when the answer is done) and the `http.request.remoteaddr` its other
//! lines carry, so the OCI benchmark (`oci-bench`) can count the
//! requests and connections a client made.
//!
//! ```text
//! 127.0.0.1 - - [28/Nov/2026:06:36:07 +0000] "GET /v2/ HTTP/1.1" 200 2 "" "curl/7.88.1"
//! time="…" level=info msg="response completed" … http.request.remoteaddr="127.0.0.1:36638" …
//! ```

use std::collections::BTreeSet;

/// One access-log line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logged {
    /// `GET`.
    pub method: String,
    /// `/v2/…`, with its query.
    pub uri: String,
    /// The answer's status.
    pub status: u16,
    /// The body bytes written (0 for `-`).
    pub bytes: u64,
    /// The `User-Agent`.
    pub user_agent: String,
}

/// The access-log lines of `text`, in order (other lines skipped).
pub fn requests(text: &str) -> Vec<Logged> {
    text.lines().filter_map(access_line).collect()
}

fn access_line(line: &str) -> Option<Logged> {
    if line.starts_with("time=") {
        return None;
    }
    let (_, rest) = line.split_once("] \"")?;
    let (request, rest) = rest.split_once('"')?;
    let mut parts = request.split(' ');
    let method = parts.next()?.to_owned();
    let uri = parts.next()?.to_owned();
    let mut fields = rest.split_whitespace();
    let status = fields.next()?.parse().ok()?;
    let bytes = match fields.next()? {
        "-" => 0,
        n => n.parse().ok()?,
    };
    // The last quoted field.
    let trimmed = rest.trim_end().strip_suffix('"')?;
    let user_agent = trimmed[trimmed.rfind('"')? + 1..].to_owned();
    Some(Logged {
        method,
        uri,
        status,
        bytes,
        user_agent,
    })
}

/// The distinct client addresses (`IP:PORT`, one per connection) the
/// structured lines of `text` name.
pub fn remote_addresses(text: &str) -> BTreeSet<String> {
    const KEY: &str = "http.request.remoteaddr=";
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let Some(at) = line.find(KEY) else { continue };
        let value = &line[at + KEY.len()..];
        let value = match value.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next(),
            None => value.split_whitespace().next(),
        };
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            out.insert(v.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"time="2026-11-28T06:36:05.828Z" level=info msg="listening on 127.0.0.1:35999" go.version=go1.19.8
time="2026-11-28T06:36:07.280Z" level=info msg="response completed" http.request.host="127.0.0.1:35999" http.request.method=GET http.request.remoteaddr="127.0.0.1:36638" http.request.uri=/v2/ http.response.status=200
127.0.0.1 - - [28/Nov/2026:06:36:07 +0000] "GET /v2/ HTTP/1.1" 200 2 "" "curl/7.88.1"
time="2026-11-28T06:36:07.326Z" level=error msg="response completed with error" err.code="name unknown" http.request.remoteaddr="127.0.0.1:36650" http.request.uri=/v2/a/b/tags/list http.response.status=404
127.0.0.1 - - [28/Nov/2026:06:36:07 +0000] "GET /v2/a/b/tags/list?n=5 HTTP/1.1" 404 111 "" "OpenTofu/1.10.0 (+https://opentofu.org)"
127.0.0.1 - ci [28/Nov/2026:06:36:07 +0000] "HEAD /v2/a/b/blobs/sha256:00 HTTP/1.1" 200 - "" "x"
"#;

    #[test]
    fn access_lines() {
        let seen = requests(LOG);
        assert_eq!(seen.len(), 3);
        assert_eq!(
            seen[1],
            Logged {
                method: "GET".into(),
                uri: "/v2/a/b/tags/list?n=5".into(),
                status: 404,
                bytes: 111,
                user_agent: "OpenTofu/1.10.0 (+https://opentofu.org)".into(),
            }
        );
        assert_eq!(seen[2].method, "HEAD");
        assert_eq!(seen[2].bytes, 0);
    }

    #[test]
    fn connections() {
        let addresses = remote_addresses(LOG);
        assert_eq!(
            addresses.into_iter().collect::<Vec<_>>(),
            ["127.0.0.1:36638", "127.0.0.1:36650"]
        );
    }
}
