//! Storage for a comparison-form hostname: inline when short, shared when long.
//!
//! Comparison forms are always ASCII and almost always short, so the common case
//! (`registry.terraform.io`, `tfe.example.com:8443`) lives inline and a parse of
//! an already-normalized name allocates nothing. Longer names share one
//! reference-counted allocation, so clones stay cheap either way.

use std::sync::Arc;

/// Longest comparison form stored without a heap allocation.
pub(crate) const INLINE_CAP: usize = 62;

#[derive(Clone)]
pub(crate) enum Repr {
    Inline { len: u8, buf: [u8; INLINE_CAP] },
    Shared(Arc<str>),
}

impl Repr {
    /// Builds the stored form from pieces that are concatenated: the host part,
    /// lower-cased on the way in when `lowercase` is set, then `:port` if any.
    ///
    /// Callers only pass ASCII host parts.
    pub(crate) fn build(host: &str, lowercase: bool, port: Option<u16>) -> Repr {
        let mut port_buf = [0u8; 6];
        let port_text = port.map(|p| render_port(p, &mut port_buf)).unwrap_or("");
        let total = host.len() + port_text.len();
        if total <= INLINE_CAP {
            let mut buf = [0u8; INLINE_CAP];
            buf[..host.len()].copy_from_slice(host.as_bytes());
            if lowercase {
                buf[..host.len()].make_ascii_lowercase();
            }
            buf[host.len()..total].copy_from_slice(port_text.as_bytes());
            // `total <= INLINE_CAP < 256`, so the length fits in a byte.
            Repr::Inline {
                len: total as u8,
                buf,
            }
        } else {
            let mut s = String::with_capacity(total);
            s.push_str(host);
            if lowercase {
                s.make_ascii_lowercase();
            }
            s.push_str(port_text);
            Repr::Shared(Arc::from(s))
        }
    }

    /// The inline form from its parts, as the ASCII fast path builds it:
    /// `buf[..len]` is the comparison form (ASCII), the rest zero.
    pub(crate) fn from_inline_parts(len: usize, buf: [u8; INLINE_CAP]) -> Repr {
        debug_assert!(len <= INLINE_CAP && buf[..len].is_ascii());
        debug_assert!(buf[len..].iter().all(|&b| b == 0));
        Repr::Inline {
            // `len <= INLINE_CAP < 256`.
            len: len as u8,
            buf,
        }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Repr::Inline { len, buf } => &buf[..usize::from(*len)],
            Repr::Shared(s) => s.as_bytes(),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            Repr::Inline { len, buf } => std::str::from_utf8(&buf[..usize::from(*len)])
                .expect("inline bytes are ASCII or copied from a whole &str"),
            Repr::Shared(s) => s,
        }
    }
}

/// Writes `:<port>` into `buf` and returns it as text.
fn render_port(port: u16, buf: &mut [u8; 6]) -> &str {
    let mut digits = [0u8; 5];
    let mut n = port;
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let count = digits.len() - i;
    buf[0] = b':';
    buf[1..=count].copy_from_slice(&digits[i..]);
    std::str::from_utf8(&buf[..=count]).expect("a colon and ASCII digits")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_inline_and_long_names_shared() {
        let r = Repr::build("Example.COM", true, Some(8443));
        assert!(matches!(r, Repr::Inline { .. }));
        assert_eq!(r.as_str(), "example.com:8443");

        let long = "a".repeat(INLINE_CAP + 1);
        let r = Repr::build(&long, false, None);
        assert!(matches!(r, Repr::Shared(_)));
        assert_eq!(r.as_str(), long);

        let exact = "b".repeat(INLINE_CAP - 3);
        let r = Repr::build(&exact, false, Some(81));
        assert!(matches!(r, Repr::Inline { .. }));
        assert_eq!(r.as_str(), format!("{exact}:81"));
    }

    #[test]
    fn ports_render_without_padding() {
        let mut b = [0u8; 6];
        assert_eq!(render_port(1, &mut b), ":1");
        assert_eq!(render_port(80, &mut b), ":80");
        assert_eq!(render_port(65535, &mut b), ":65535");
    }
}
