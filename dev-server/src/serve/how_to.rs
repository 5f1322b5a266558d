//! What `tfdisco-dev serve` prints once it listens: where, and commands that
//! reach it as they are (the address it listens on, the CA to trust).

use std::fmt::Write as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;

use tfdisco_core::shell_word;
use tfdisco_testkit::sample::{MODULES, PROVIDERS};

/// What the commands say for the CA file of a certificate the user brought.
pub(crate) const THEIR_CA: &str = "YOUR-CA.pem";

/// Which CA a client must trust.
pub(crate) enum Trust<'a> {
    /// The CA `serve` made, written to this file.
    MadeCa(&'a Path),
    /// The CA that signed the user's `--cert`, whose file `serve` does not know.
    TheirCa,
}

/// The names of the certificate `serve` makes: loopback's, and the address
/// it listens on unless that is unspecified (`0.0.0.0`, `::`).
pub(crate) fn certificate_names(ip: IpAddr) -> Vec<String> {
    let mut names = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    let listen = ip.to_string();
    if !ip.is_unspecified() && !names.contains(&listen) {
        names.push(listen);
    }
    names
}

/// Where a client on this machine reaches a server listening on `listen`
/// (whose port is `port` once bound): that address, or loopback for an
/// unspecified one.
pub(crate) fn reachable(listen: SocketAddr, port: u16) -> SocketAddr {
    let ip = match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, port)
}

/// The host to name for `address`, and the options that take a client
/// there. An IPv4 address is a hostname as it is; an IPv6 literal never is
/// (docs/behaviour.md HOST-2), so `localhost` with `--resolve` to it.
fn host_and_options(address: SocketAddr) -> (String, String) {
    match address {
        SocketAddr::V4(_) => (address.to_string(), String::new()),
        SocketAddr::V6(v6) => {
            let host = format!("localhost:{}", v6.port());
            let resolve = format!(" --resolve {host}:{}", v6.ip());
            (host, resolve)
        }
    }
}

/// Where the server is and the commands that reach it, one per line. With
/// `sample_document`, also commands that ask the sample registry.
pub(crate) fn text(address: SocketAddr, trust: &Trust<'_>, sample_document: bool) -> String {
    let (host, options) = host_and_options(address);
    let mut out = format!(
        "serving https://{address}{}\n",
        tfdisco_core::DISCOVERY_PATH
    );
    let ca = match trust {
        Trust::MadeCa(path) => {
            let _ = writeln!(out, "CA certificate: {}", path.display());
            shell_word(&path.display().to_string())
        }
        Trust::TheirCa => {
            let name = host
                .rsplit_once(':')
                .map_or(host.as_str(), |(name, _)| name);
            let _ = writeln!(
                out,
                "{THEIR_CA} below stands for the file of the CA that signed --cert (tfdisco-dev \
                 cannot know it),\nand the certificate must name {name}"
            );
            THEIR_CA.to_owned()
        }
    };
    let _ = writeln!(out, "discover it with:");
    let _ = writeln!(out, "  tfdisco discover {host}{options} --ca-file {ca}");
    if sample_document {
        let _ = writeln!(
            out,
            "ask its sample registry (tfdisco-dev serve --help lists it):"
        );
        if let Some(provider) = PROVIDERS.first() {
            let _ = writeln!(
                out,
                "  tfdisco provider versions {host}/{}{options} --ca-file {ca}",
                provider.source
            );
        }
        // Module registry hosts need a dot (docs/behaviour.md SRC-7).
        if let (Some(module), true) = (MODULES.first(), host.contains('.')) {
            let _ = writeln!(
                out,
                "  tfdisco module versions {host}/{}{options} --ca-file {ca}",
                module.source
            );
        }
    }
    let _ = writeln!(
        out,
        "or, for Terraform and OpenTofu (this replaces the system roots):"
    );
    let _ = writeln!(out, "  SSL_CERT_FILE={ca} tofu init");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(text: &str) -> SocketAddr {
        text.parse().expect("a socket address")
    }

    #[test]
    fn an_unspecified_address_is_reached_on_loopback() {
        assert_eq!(reachable(addr("0.0.0.0:0"), 8443), addr("127.0.0.1:8443"));
        assert_eq!(reachable(addr("[::]:0"), 8443), addr("[::1]:8443"));
        assert_eq!(reachable(addr("127.0.0.2:0"), 9), addr("127.0.0.2:9"));
        assert_eq!(reachable(addr("10.1.2.3:0"), 9), addr("10.1.2.3:9"));
    }

    #[test]
    fn the_made_certificate_names_the_listen_address() {
        let names = certificate_names("127.0.0.2".parse().expect("an IP"));
        assert_eq!(names.last().map(String::as_str), Some("127.0.0.2"));
        assert_eq!(
            certificate_names("0.0.0.0".parse().expect("an IP")),
            ["localhost", "127.0.0.1", "::1"]
        );
        assert_eq!(certificate_names("::1".parse().expect("an IP")).len(), 3);
    }

    #[test]
    fn their_certificate_needs_their_ca() {
        let text = text(addr("127.0.0.2:8443"), &Trust::TheirCa, false);
        assert!(text.starts_with("serving https://127.0.0.2:8443/.well-known/terraform.json\n"));
        assert!(
            text.contains("\n  tfdisco discover 127.0.0.2:8443 --ca-file YOUR-CA.pem\n"),
            "{text}"
        );
        assert!(text.contains("must name 127.0.0.2\n"), "{text}");
        assert!(!text.contains("sample registry"), "{text}");
    }

    #[test]
    fn ipv6_is_reached_through_localhost_and_resolve() {
        let path = Path::new("/tmp/my ca.pem");
        let text = text(addr("[::1]:8443"), &Trust::MadeCa(path), true);
        assert!(text.starts_with("serving https://[::1]:8443/"), "{text}");
        assert!(
            text.contains(
                "\n  tfdisco discover localhost:8443 --resolve localhost:8443:::1 \
                 --ca-file '/tmp/my ca.pem'\n"
            ),
            "{text}"
        );
        assert!(text.contains("provider versions localhost:8443/"), "{text}");
        assert!(!text.contains("module versions"), "no dot: {text}");
    }
}
