//! How a client's trust anchors reach libcurl (docs/behaviour.md, NET-5):
//! the same trusted set as every other transport's (NET-4), given the way
//! libcurl's TLS library takes it best.

#[cfg(all(unix, not(target_os = "macos")))]
use std::sync::Arc;

use curl::easy::Easy;
use tfdisco_transport::{BuildError, TrustAnchors};
use tracing::debug;

#[cfg(all(unix, not(target_os = "macos")))]
use crate::issuer;

/// A directory and a file that do not exist (by convention, `/nonexistent`
/// never does): named where libcurl must look at no directory or file of
/// its own, so that its built-in ones never add to the trust.
const NO_CA_DIRECTORY: &str = "/nonexistent/tfdisco-no-ca-directory";
const NO_CA_FILE: &str = "/nonexistent/tfdisco-no-ca-file";

/// `CURLE_NOT_BUILT_IN`: an option this libcurl's TLS library does not
/// take (`curl-sys` leaves it out).
const CURLE_NOT_BUILT_IN: curl_sys::CURLcode = 4;

/// How the anchors are given to libcurl.
pub(crate) enum Trust {
    /// libcurl on the OpenSSL this crate links: the hashed directories as
    /// `CAPATH`, the caller's CA certificates as a PEM blob, and the issuer
    /// search (`issuer.rs`) on each TLS context's store for every other
    /// anchor, read only if a handshake needs one.
    #[cfg(all(unix, not(target_os = "macos")))]
    Search {
        capath: Option<String>,
        extra_pem: Vec<u8>,
        roots: Arc<issuer::Roots>,
    },
    /// Any other libcurl: every anchor in one PEM bundle, read now.
    Bundle(Bundle),
}

impl std::fmt::Debug for Trust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            #[cfg(all(unix, not(target_os = "macos")))]
            Trust::Search { capath, .. } => f
                .debug_struct("Search")
                .field("capath", capath)
                .finish_non_exhaustive(),
            Trust::Bundle(bundle) => bundle.fmt(f),
        }
    }
}

impl Trust {
    /// The way libcurl takes `anchors` best; `bundle` forces the bundle.
    pub(crate) fn new(anchors: &TrustAnchors, bundle: bool) -> Result<Trust, BuildError> {
        if let Some(refusal) = refused_tls_library(curl::Version::get().ssl_version()) {
            return Err(BuildError::Tls(refusal));
        }
        let why = if bundle {
            Some("asked for".to_owned())
        } else {
            why_bundle()
        };
        match why {
            None => search(anchors),
            Some(why) => {
                debug!(target: "tfdisco", %why, "libcurl gets every trust anchor as one PEM bundle");
                Bundle::new(anchors.pem()).map(Trust::Bundle)
            }
        }
    }

    /// Sets the trust options of a new handle.
    pub(crate) fn apply(&self, easy: &mut Easy) -> Result<(), curl::Error> {
        match self {
            #[cfg(all(unix, not(target_os = "macos")))]
            Trust::Search {
                capath,
                extra_pem,
                roots,
            } => {
                // The blob replaces libcurl's built-in bundle; without a CA
                // of the caller's (libcurl refuses an empty blob) there is
                // no CA file at all.
                if extra_pem.is_empty() {
                    unset(easy, curl_sys::CURLOPT_CAINFO)?;
                } else {
                    easy.ssl_cainfo_blob(extra_pem)?;
                }
                // With no hashed directory, one that does not exist: an
                // empty path makes OpenSSL stall each handshake, and with
                // neither file nor directory some libcurl builds fall back
                // to OpenSSL's default ones.
                easy.capath(capath.as_deref().unwrap_or(NO_CA_DIRECTORY))?;
                let roots = Arc::clone(roots);
                easy.ssl_ctx_function(move |ctx| {
                    // libcurl keeps only the error code: the reason is logged.
                    issuer::install(&roots, ctx).map_err(|refusal| {
                        tracing::error!(target: "tfdisco", refusal, "the TLS context cannot search the trust anchors");
                        curl::Error::new(curl_sys::CURLE_SSL_CACERT_BADFILE)
                    })
                })
            }
            Trust::Bundle(bundle) => {
                match bundle {
                    Bundle::Blob(pem) => easy.ssl_cainfo_blob(pem)?,
                    Bundle::File(file) => easy.cainfo(&file.0)?,
                    // No anchor at all: every handshake fails as untrusted,
                    // rather than falling back to a built-in bundle.
                    Bundle::Nothing => easy.cainfo(NO_CA_FILE)?,
                }
                // No directory: libcurl's built-in one must not add to the
                // bundle, which holds every anchor.
                unset(easy, curl_sys::CURLOPT_CAPATH)
            }
        }
    }
}

/// Every anchor as one PEM bundle, as libcurl takes it.
pub(crate) enum Bundle {
    /// In memory (`CURLOPT_CAINFO_BLOB`).
    Blob(Vec<u8>),
    /// In a file of the client's own, for a libcurl whose TLS library takes
    /// no blob (GnuTLS and NSS, in libcurl 7.88).
    File(BundleFile),
    /// There is no anchor.
    Nothing,
}

impl std::fmt::Debug for Bundle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bundle::Blob(pem) => write!(f, "Bundle::Blob({} bytes)", pem.len()),
            Bundle::File(file) => write!(f, "Bundle::File({})", file.0.display()),
            Bundle::Nothing => f.write_str("Bundle::Nothing"),
        }
    }
}

impl Bundle {
    /// `pem` as libcurl takes it: a blob, or, when libcurl refuses blobs,
    /// a file.
    fn new(pem: Vec<u8>) -> Result<Bundle, BuildError> {
        if pem.is_empty() {
            return Ok(Bundle::Nothing);
        }
        match Easy::new().ssl_cainfo_blob(&pem) {
            Ok(()) => Ok(Bundle::Blob(pem)),
            Err(e) if e.code() == CURLE_NOT_BUILT_IN || e.is_unknown_option() => {
                debug!(target: "tfdisco", "libcurl takes no CA blob: the bundle goes in a file");
                BundleFile::write(&pem).map(Bundle::File).map_err(|e| {
                    BuildError::Tls(format!("cannot write the CA bundle for libcurl: {e}"))
                })
            }
            Err(e) => Err(BuildError::Transport(Box::new(e))),
        }
    }
}

/// A bundle file in the temporary directory, made for one client (created
/// anew, readable by its owner only) and removed when the client is.
pub(crate) struct BundleFile(std::path::PathBuf);

impl BundleFile {
    fn write(pem: &[u8]) -> std::io::Result<BundleFile> {
        use std::io::Write;
        use std::sync::atomic::{AtomicU64, Ordering};
        static MADE: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "tfdisco-curl-{}-{}.pem",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        ));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = BundleFile(path);
        options.open(&file.0)?.write_all(pem)?;
        Ok(file)
    }
}

impl Drop for BundleFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The search set-up, after checking that OpenSSL can read the caller's
/// CA certificates.
#[cfg(all(unix, not(target_os = "macos")))]
fn search(anchors: &TrustAnchors) -> Result<Trust, BuildError> {
    let capath = std::env::join_paths(anchors.hashed_dirs())
        .ok()
        .and_then(|p| p.into_string().ok())
        .filter(|p| !p.is_empty());
    let roots = issuer::Roots::new(anchors.clone()).map_err(BuildError::Tls)?;
    Ok(Trust::Search {
        capath,
        extra_pem: anchors.extra_pem(),
        roots,
    })
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
fn search(_: &TrustAnchors) -> Result<Trust, BuildError> {
    unreachable!("why_bundle always answers here")
}

/// Why libcurl's TLS library (as `curl_version_info` names it) cannot give
/// a client exactly the trust it was given, or `None` when it can. NSS
/// (libcurl before 8.3) keeps every CA certificate any handle loaded for the
/// life of the process and trusts it on every other handle: a client would
/// trust the roots of every client built before it.
fn refused_tls_library(curl_ssl: Option<&str>) -> Option<String> {
    let nss = curl_ssl.filter(|name| name.starts_with("NSS/"))?;
    Some(format!(
        "libcurl uses {nss}, which trusts every CA certificate any client of the \
         process loaded: use a libcurl built on OpenSSL or GnuTLS, or another \
         tfdisco transport"
    ))
}

/// Why libcurl must be given a bundle, or `None` when it can take the
/// issuer search: it does TLS with the very OpenSSL this crate calls.
fn why_bundle() -> Option<String> {
    let version = curl::Version::get();
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        bundle_reason(
            version.ssl_version(),
            &issuer::linked_version(),
            issuer::same_copy_as_libcurl,
        )
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    {
        Some(format!(
            "libcurl uses {} and this platform has no OpenSSL of tfdisco's",
            version.ssl_version().unwrap_or("no TLS library")
        ))
    }
}

/// Why libcurl's TLS library (`curl_ssl`, as `curl_version_info` names it:
/// `OpenSSL/3.0.19`) cannot take the issuer search of the OpenSSL this
/// crate calls (`ours`, as `OpenSSL_version` names it: `OpenSSL 3.0.19 27
/// Jan 2026`), or `None` when it can; `same_copy` is asked last.
#[cfg_attr(not(all(unix, not(target_os = "macos"))), allow(dead_code))]
fn bundle_reason(
    curl_ssl: Option<&str>,
    ours: &str,
    same_copy: impl FnOnce() -> bool,
) -> Option<String> {
    let Some(curl_ssl) = curl_ssl else {
        return Some("libcurl has no TLS library".to_owned());
    };
    let Some(theirs) = curl_ssl.strip_prefix("OpenSSL/") else {
        return Some(format!("libcurl uses {curl_ssl}"));
    };
    let ours_version = ours
        .strip_prefix("OpenSSL ")
        .and_then(|rest| rest.split_whitespace().next());
    if ours_version != Some(theirs) {
        return Some(format!(
            "libcurl uses {curl_ssl}, this program calls {ours}"
        ));
    }
    if !same_copy() {
        return Some(format!(
            "libcurl's {curl_ssl} is another copy than the one this program calls"
        ));
    }
    None
}

/// Sets a path option of `easy` to NULL, which libcurl takes as none at
/// all (its built-in file or directory unset; the `curl` crate cannot).
#[allow(unsafe_code)]
fn unset(easy: &Easy, option: curl_sys::CURLoption) -> Result<(), curl::Error> {
    // SAFETY: the handle is alive; NULL is the documented way to unset a
    // string option.
    let code = unsafe {
        curl_sys::curl_easy_setopt(easy.raw(), option, std::ptr::null::<std::ffi::c_char>())
    };
    if code == curl_sys::CURLE_OK {
        Ok(())
    } else {
        Err(curl::Error::new(code))
    }
}

#[cfg(test)]
mod tests {
    use super::{bundle_reason, refused_tls_library};

    #[test]
    fn a_libcurl_on_nss_is_refused() {
        let refused = refused_tls_library(Some("NSS/3.87")).expect("refused");
        assert!(
            refused.starts_with("libcurl uses NSS/3.87, which trusts"),
            "{refused}"
        );
        for fine in [
            None,
            Some("OpenSSL/3.0.19"),
            Some("GnuTLS/3.7.9"),
            Some("(NSS/3.87) OpenSSL/3.0.19"),
        ] {
            assert_eq!(refused_tls_library(fine), None, "{fine:?}");
        }
    }

    #[test]
    fn the_search_needs_libcurl_on_this_very_openssl() {
        let ours = "OpenSSL 3.0.19 27 Jan 2026";
        let same = || true;
        assert_eq!(bundle_reason(Some("OpenSSL/3.0.19"), ours, same), None);
        for (curl, why) in [
            (None, "libcurl has no TLS library"),
            (Some("GnuTLS/3.7.9"), "libcurl uses GnuTLS/3.7.9"),
            (Some("NSS/3.87"), "libcurl uses NSS/3.87"),
            (Some("Schannel"), "libcurl uses Schannel"),
            (Some("SecureTransport"), "libcurl uses SecureTransport"),
            (
                Some("rustls-ffi/0.13.0/rustls/0.23.4"),
                "libcurl uses rustls-ffi/0.13.0/rustls/0.23.4",
            ),
            (Some("BoringSSL"), "libcurl uses BoringSSL"),
            (Some("LibreSSL/3.8.2"), "libcurl uses LibreSSL/3.8.2"),
            // A libcurl with several backends names the inactive ones in
            // parentheses.
            (
                Some("(OpenSSL/3.0.19) Schannel"),
                "libcurl uses (OpenSSL/3.0.19) Schannel",
            ),
            (
                Some("OpenSSL/3.3.1"),
                "libcurl uses OpenSSL/3.3.1, this program calls OpenSSL 3.0.19 27 Jan 2026",
            ),
            (
                Some("OpenSSL/1.1.1w"),
                "libcurl uses OpenSSL/1.1.1w, this program calls OpenSSL 3.0.19 27 Jan 2026",
            ),
        ] {
            assert_eq!(
                bundle_reason(curl, ours, same).as_deref(),
                Some(why),
                "{curl:?}"
            );
        }
        // The same version, another copy (a vendored openssl-sys beside the
        // system's libcurl): the objects of one must never meet the other.
        assert_eq!(
            bundle_reason(Some("OpenSSL/3.0.19"), ours, || false).as_deref(),
            Some("libcurl's OpenSSL/3.0.19 is another copy than the one this program calls")
        );
        assert_eq!(
            bundle_reason(Some("OpenSSL/1.1.1w"), "OpenSSL 1.1.1w  11 Sep 2023", same),
            None
        );
    }
}
