//! Which proxy a request goes through: explicit settings, then
//! `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`, with Go's matching rules
//! (`golang.org/x/net/http/httpproxy`). Loopback is never proxied.

use std::fmt;
use std::net::IpAddr;

use base64::Engine;
use tfdisco_core::http::HeaderValue;
use tfdisco_core::url::Url;

use tfdisco_core::Env;

use crate::BuildError;

/// An HTTP proxy: requests to https URLs go through a `CONNECT` tunnel,
/// requests to plain-http development hosts are sent to it in absolute form.
#[derive(Clone, PartialEq, Eq)]
pub struct Proxy {
    host: String,
    port: u16,
    authorization: Option<HeaderValue>,
}

impl Proxy {
    /// Parses a proxy URL as Go does: `http://host:port`, or just
    /// `host:port` (http assumed). User info becomes a `Proxy-Authorization:
    /// Basic` header. Only `http` proxies are supported.
    pub fn parse(value: &str) -> Result<Proxy, BuildError> {
        let error = |problem: &str| BuildError::Proxy {
            url: redact(value),
            problem: problem.to_owned(),
        };
        let url = match Url::parse(value) {
            Ok(url) if url.has_host() => url,
            _ => Url::parse(&format!("http://{value}")).map_err(|e| error(&e.to_string()))?,
        };
        if url.scheme() != "http" {
            return Err(error(&format!(
                "unsupported proxy scheme {:?} (only http proxies are supported)",
                url.scheme()
            )));
        }
        let host = match url.host() {
            Some(tfdisco_core::url::Host::Ipv6(ip)) => ip.to_string(),
            Some(host) => host.to_string(),
            None => return Err(error("no host")),
        };
        let authorization = if url.username().is_empty() {
            None
        } else {
            let decode = |s: &str| {
                percent_decode(s)
                    .ok_or_else(|| error("user info is not valid percent-encoded UTF-8"))
            };
            let user = decode(url.username())?;
            let password = decode(url.password().unwrap_or(""))?;
            let token =
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            let mut value = HeaderValue::from_str(&format!("Basic {token}"))
                .map_err(|_| error("user info cannot be sent in a header"))?;
            value.set_sensitive(true);
            Some(value)
        };
        Ok(Proxy {
            host,
            port: url.port_or_known_default().unwrap_or(80),
            authorization,
        })
    }

    /// The proxy's host name or IP address (IPv6 without brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The proxy's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The `Proxy-Authorization` value, when the URL had user info.
    pub fn authorization(&self) -> Option<&HeaderValue> {
        self.authorization.as_ref()
    }
}

/// Shows `http://host:port`, never the credentials.
impl fmt::Display for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "http://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "http://{}:{}", self.host, self.port)
        }
    }
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Proxy({self})")
    }
}

/// The explicit proxy settings of a builder.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProxyOptions {
    pub(crate) http: Option<String>,
    pub(crate) https: Option<String>,
    pub(crate) no_proxy: Option<String>,
    pub(crate) from_env: bool,
}

/// The resolved proxy table: which proxy (if any) each request uses.
#[derive(Clone, Debug, Default)]
pub(crate) struct Proxies {
    http: Option<Proxy>,
    https: Option<Proxy>,
    no_proxy: NoProxy,
}

impl Proxies {
    /// Explicit values first, then (if allowed) the environment, with Go's
    /// variable names and precedence.
    pub(crate) fn resolve(options: &ProxyOptions, env: &Env) -> Result<Proxies, BuildError> {
        let pick = |explicit: &Option<String>, names: &[&str]| -> Option<String> {
            explicit.clone().or_else(|| {
                options
                    .from_env
                    .then(|| env.first_non_empty_str(names).map(str::to_owned))
                    .flatten()
            })
        };
        let parse = |value: Option<String>| value.as_deref().map(Proxy::parse).transpose();
        Ok(Proxies {
            http: parse(pick(&options.http, &["HTTP_PROXY", "http_proxy"]))?,
            https: parse(pick(&options.https, &["HTTPS_PROXY", "https_proxy"]))?,
            no_proxy: NoProxy::parse(
                &pick(&options.no_proxy, &["NO_PROXY", "no_proxy"]).unwrap_or_default(),
            ),
        })
    }

    /// The proxy for a request to `host:port` over `https` or plain http.
    pub(crate) fn for_target(&self, https: bool, host: &str, port: u16) -> Option<&Proxy> {
        let proxy = if https { &self.https } else { &self.http };
        proxy
            .as_ref()
            .filter(|_| self.no_proxy.allows_proxy(host, port))
    }
}

/// A parsed `NO_PROXY` list.
#[derive(Clone, Debug, Default)]
struct NoProxy {
    all: bool,
    ips: Vec<(IpNet, Option<u16>)>,
    domains: Vec<DomainMatch>,
}

#[derive(Clone, Debug)]
struct DomainMatch {
    /// With a leading dot: `.example.com`.
    suffix: String,
    /// The entry had no leading dot, so the bare name matches too.
    exact_too: bool,
    port: Option<u16>,
}

#[derive(Clone, Copy, Debug)]
struct IpNet {
    addr: IpAddr,
    prefix: u8,
}

impl IpNet {
    fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                prefix_eq(&net.octets(), &ip.octets(), self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                prefix_eq(&net.octets(), &ip.octets(), self.prefix)
            }
            _ => false,
        }
    }
}

fn prefix_eq(a: &[u8], b: &[u8], prefix: u8) -> bool {
    let bits = usize::from(prefix).min(a.len() * 8);
    let (full, rest) = (bits / 8, bits % 8);
    if a[..full] != b[..full] {
        return false;
    }
    rest == 0 || {
        let mask = 0xffu8 << (8 - rest);
        a[full] & mask == b[full] & mask
    }
}

impl NoProxy {
    fn parse(list: &str) -> NoProxy {
        let mut out = NoProxy::default();
        for entry in list.split(',') {
            let entry = entry.trim().to_ascii_lowercase();
            if entry.is_empty() {
                continue;
            }
            if entry == "*" {
                out.all = true;
                continue;
            }
            if let Some((addr, len)) = entry.split_once('/') {
                if let (Ok(addr), Ok(prefix)) = (addr.parse::<IpAddr>(), len.parse::<u8>()) {
                    out.ips.push((IpNet { addr, prefix }, None));
                }
                continue;
            }
            if let Ok(addr) = entry.parse::<IpAddr>() {
                out.ips.push((IpNet::host(addr), None));
                continue;
            }
            let (host, port) = split_port(&entry);
            if let Ok(addr) = host.trim_matches(['[', ']']).parse::<IpAddr>() {
                out.ips.push((IpNet::host(addr), port));
                continue;
            }
            let host = host.strip_prefix('*').unwrap_or(host);
            if host.is_empty() || host == "." {
                continue;
            }
            let exact_too = !host.starts_with('.');
            out.domains.push(DomainMatch {
                suffix: if exact_too {
                    format!(".{host}")
                } else {
                    host.to_owned()
                },
                exact_too,
                port,
            });
        }
        out
    }

    /// Go's `useProxy`: loopback and `localhost` never, then the list.
    fn allows_proxy(&self, host: &str, port: u16) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let ip = host.trim_matches(['[', ']']).parse::<IpAddr>().ok();
        if host == "localhost" || ip.is_some_and(|ip| ip.is_loopback()) {
            return false;
        }
        if self.all {
            return false;
        }
        let port_ok = |p: Option<u16>| p.is_none_or(|p| p == port);
        match ip {
            Some(ip) => !self
                .ips
                .iter()
                .any(|(net, p)| net.contains(ip) && port_ok(*p)),
            None => !self.domains.iter().any(|d| {
                (host.ends_with(&d.suffix) || (d.exact_too && host == d.suffix[1..]))
                    && port_ok(d.port)
            }),
        }
    }
}

impl IpNet {
    fn host(addr: IpAddr) -> IpNet {
        let prefix = if addr.is_ipv4() { 32 } else { 128 };
        IpNet { addr, prefix }
    }
}

/// `host:port` → (host, Some(port)); anything else → (entry, None).
fn split_port(entry: &str) -> (&str, Option<u16>) {
    match entry.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && (!host.contains(':') || host.ends_with(']')) => {
            match port.parse() {
                Ok(port) => (host, Some(port)),
                Err(_) => (entry, None),
            }
        }
        _ => (entry, None),
    }
}

fn percent_decode(s: &str) -> Option<String> {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .ok()
        .map(Into::into)
}

/// A proxy URL for messages: user info replaced by `***`.
fn redact(value: &str) -> String {
    match value.rsplit_once('@') {
        Some((before, after)) => match before.split_once("://") {
            Some((scheme, _)) => format!("{scheme}://***@{after}"),
            None => format!("***@{after}"),
        },
        None => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_proxy(list: &str) -> NoProxy {
        NoProxy::parse(list)
    }

    #[test]
    fn loopback_is_never_proxied() {
        let n = no_proxy("");
        for host in [
            "localhost",
            "LOCALHOST.",
            "127.0.0.1",
            "127.8.9.1",
            "::1",
            "[::1]",
        ] {
            assert!(!n.allows_proxy(host, 443), "{host}");
        }
        assert!(n.allows_proxy("example.com", 443));
        assert!(n.allows_proxy("10.0.0.1", 443));
    }

    #[test]
    fn domain_entries_follow_go() {
        let n = no_proxy("example.com, .internal, *.corp.test, foo.test:8443, ");
        assert!(!n.allows_proxy("example.com", 443));
        assert!(!n.allows_proxy("registry.example.com", 443));
        assert!(n.allows_proxy("notexample.com", 443));
        assert!(
            n.allows_proxy("internal", 443),
            "a leading dot means subdomains only"
        );
        assert!(!n.allows_proxy("a.internal", 443));
        assert!(!n.allows_proxy("x.corp.test", 443));
        assert!(n.allows_proxy("corp.test", 443));
        assert!(!n.allows_proxy("foo.test", 8443));
        assert!(n.allows_proxy("foo.test", 443));
        assert!(!no_proxy("*").allows_proxy("anything.test", 443));
    }

    #[test]
    fn ip_and_cidr_entries() {
        let n = no_proxy("10.0.0.0/8,192.168.1.7,[2001:db8::1]:443,2001:db8:1::/48");
        assert!(!n.allows_proxy("10.200.3.4", 443));
        assert!(n.allows_proxy("11.0.0.1", 443));
        assert!(!n.allows_proxy("192.168.1.7", 80));
        assert!(!n.allows_proxy("2001:db8::1", 443));
        assert!(n.allows_proxy("2001:db8::1", 8443));
        assert!(!n.allows_proxy("2001:db8:1:ffff::1", 443));
        assert!(n.allows_proxy("2001:db8:2::1", 443));
    }

    #[test]
    fn proxy_urls() {
        let p = Proxy::parse("proxy.internal:3128").expect("no scheme means http");
        assert_eq!((p.host(), p.port()), ("proxy.internal", 3128));
        assert!(p.authorization().is_none());
        let p = Proxy::parse("http://us%40er:p%3Ass@[::1]").expect("valid");
        assert_eq!((p.host(), p.port()), ("::1", 80));
        assert_eq!(
            p.authorization().map(|v| v.to_str().expect("ascii")),
            Some("Basic dXNAZXI6cDpzcw==")
        );
        assert_eq!(p.to_string(), "http://[::1]:80");
        let e = Proxy::parse("socks5://user:secret@proxy:1080").expect_err("socks");
        assert!(e.to_string().contains("socks5"), "{e}");
        assert!(!e.to_string().contains("secret"), "{e}");
    }

    #[test]
    fn explicit_settings_win_over_the_environment() {
        let env = Env::new([
            ("HTTPS_PROXY", "http://env-proxy:1"),
            ("http_proxy", "http://lower:2"),
            ("NO_PROXY", "skip.test"),
        ]);
        let options = ProxyOptions {
            from_env: true,
            ..ProxyOptions::default()
        };
        let p = Proxies::resolve(&options, &env).expect("valid");
        assert_eq!(
            p.for_target(true, "a.test", 443).map(Proxy::host),
            Some("env-proxy")
        );
        assert_eq!(
            p.for_target(false, "a.test", 80).map(Proxy::host),
            Some("lower")
        );
        assert_eq!(p.for_target(true, "skip.test", 443), None);
        let explicit = ProxyOptions {
            https: Some("explicit:3".into()),
            no_proxy: Some(String::new()),
            ..options
        };
        let p = Proxies::resolve(&explicit, &env).expect("valid");
        assert_eq!(
            p.for_target(true, "skip.test", 443).map(Proxy::host),
            Some("explicit")
        );
        let off = ProxyOptions::default();
        assert_eq!(
            Proxies::resolve(&off, &env)
                .expect("valid")
                .for_target(true, "a.test", 443),
            None
        );
    }
}
