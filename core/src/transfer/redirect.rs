//! Following a redirect: where to, whether at all, and with which credentials.

use url::Url;

use crate::{Config, url_rules};

/// The statuses Go's client follows (all as GET; ours are GETs anyway).
pub(crate) fn is_followed(status: http::StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

/// Why a `Location` is not followed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The value is not a usable URL reference (`problem` says why).
    Unusable(String),
    /// It leads to plain http on a host not allowed plain http (D5).
    Insecure(Url),
}

/// Resolves a `Location` value against the current URL: Go's syntax checks,
/// http(s) only, plain http only for development hosts (D5). The result has
/// no userinfo and no fragment, since neither is ever sent.
pub(crate) fn target(current: &Url, location: &[u8], config: &Config) -> Result<Url, Refusal> {
    let location = std::str::from_utf8(location)
        .map_err(|_| Refusal::Unusable("the value is not valid UTF-8".to_owned()))?;
    url_rules::go_parse(location).map_err(Refusal::Unusable)?;
    let mut next = current
        .join(location)
        .map_err(|e| Refusal::Unusable(e.to_string()))?;
    let _ = next.set_username("");
    let _ = next.set_password(None);
    next.set_fragment(None);
    match next.scheme() {
        "https" => Ok(next),
        "http" if config.allows_plain_http(next.host_str().unwrap_or(""), next.port()) => Ok(next),
        "http" => Err(Refusal::Insecure(next)),
        other => Err(Refusal::Unusable(format!("unsupported scheme {other}"))),
    }
}

/// D4: credentials go only over https, to the initial host or its subdomains
/// (ports ignored). Both hosts come from parsed URLs, so they are comparable.
pub(crate) fn may_carry_credentials(initial: &Url, next: &Url) -> bool {
    if next.scheme() != "https" {
        return false;
    }
    match (initial.host(), next.host()) {
        (Some(url::Host::Domain(a)), Some(url::Host::Domain(b))) => {
            a == b
                || (b.len() > a.len()
                    && b.ends_with(a)
                    && b.as_bytes()[b.len() - a.len() - 1] == b'.')
        }
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hostname;

    fn url(s: &str) -> Url {
        Url::parse(s).expect("test URL")
    }

    #[test]
    fn relative_and_absolute_locations() {
        let current = url("https://example.com/.well-known/terraform.json");
        let config = Config::default();
        let t = |loc: &str| target(&current, loc.as_bytes(), &config).map(String::from);
        assert_eq!(t("/api/").as_deref(), Ok("https://example.com/api/"));
        assert_eq!(t("../x").as_deref(), Ok("https://example.com/x"));
        assert_eq!(
            t("https://u:p@other.example:8443/d#f").as_deref(),
            Ok("https://other.example:8443/d")
        );
        assert!(matches!(
            t("http://example.com/"),
            Err(Refusal::Insecure(_))
        ));
        assert!(matches!(t("ftp://example.com/"), Err(Refusal::Unusable(_))));
        assert!(matches!(t("***:/<@@>"), Err(Refusal::Unusable(_))));
        assert!(matches!(
            t("https://exa mple.com/"),
            Err(Refusal::Unusable(_))
        ));
        assert!(matches!(
            target(&current, b"/\xff", &config),
            Err(Refusal::Unusable(_))
        ));
    }

    #[test]
    fn plain_http_only_for_development_hosts() {
        let current = url("https://example.com/");
        let dev = Config::default()
            .with_plain_http_host(Hostname::parse("localhost:8080").expect("valid"))
            .with_plain_http_host(Hostname::parse("devbox").expect("valid"));
        assert!(target(&current, b"http://localhost:8080/x", &dev).is_ok());
        assert!(target(&current, b"http://localhost:8081/x", &dev).is_err());
        assert!(target(&current, b"http://devbox/x", &dev).is_ok());
        assert!(target(&current, b"http://devbox:80/x", &dev).is_ok());
    }

    #[test]
    fn d4_credential_scope() {
        let initial = url("https://example.com/.well-known/terraform.json");
        let may = |to: &str| may_carry_credentials(&initial, &url(to));
        assert!(may("https://example.com:8443/"));
        assert!(may("https://registry.example.com/"));
        assert!(!may("http://example.com/"));
        assert!(!may("https://example.net/"));
        assert!(!may("https://badexample.com/"));
        assert!(!may("https://com/"));
        let from_sub = url("https://registry.example.com/");
        assert!(!may_carry_credentials(
            &from_sub,
            &url("https://example.com/")
        ));
        let ip = url("https://127.0.0.1:1/");
        assert!(may_carry_credentials(&ip, &url("https://127.0.0.1:2/")));
        assert!(!may_carry_credentials(
            &url("https://0.0.1/"),
            &url("https://127.0.0.1/")
        ));
    }
}
