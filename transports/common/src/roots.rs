//! The certificates a client trusts: the system roots (or `SSL_CERT_FILE` /
//! `SSL_CERT_DIR`, as Go honours them on Unix) plus extra CA certificates.
//!
//! The system roots are read at every start, so reading them is kept cheap:
//! where they are is decided when the client is built, but they are read
//! only when a transport first asks for them (the rustls transports when
//! they are built; libcurl's only if a handshake needs a root OpenSSL does
//! not find by itself, NET-5); files are read in as few system calls as it
//! takes, one after another into one buffer, PEM blocks are kept there as
//! text and decoded only for the views a transport asks for, and for
//! libcurl the roots OpenSSL finds by itself in hashed directories are not
//! handed over at all.

mod dir;
mod files;
mod subject_hash;

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use base64::Engine;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use tracing::{debug, warn};

use tfdisco_core::Env;

use crate::BuildError;
use files::Files;

/// Where an extra CA certificate comes from.
#[derive(Clone, Debug)]
pub(crate) enum CaSource {
    File(PathBuf),
    Pem(Vec<u8>),
}

/// The trust anchors of a client, as DER certificates.
///
/// The system roots are what the platform (or the `SSL_CERT_*` variables)
/// gave, and may contain certificates a TLS library cannot use; `extra`
/// holds the caller's own CA certificates, which must all be usable. For TLS
/// libraries that look certificates up in hashed directories (OpenSSL's
/// `CAPATH`, as libcurl uses it) it also knows those directories and which
/// system roots they do not hold ([`TrustAnchors::hashed_dirs`],
/// [`TrustAnchors::pem_beyond_hashed_dirs`]): the same trust, without
/// loading every root up front. System roots are decoded when first asked
/// for, each view once.
#[derive(Clone, Debug, Default)]
pub struct TrustAnchors {
    system: Arc<LazyRoots>,
    extra: Vec<CertificateDer<'static>>,
}

/// Where the system roots are, read when first asked for.
#[derive(Debug, Default)]
struct LazyRoots {
    source: RootSource,
    roots: OnceLock<SystemRoots>,
}

/// Where the system roots come from.
#[derive(Debug, Default)]
enum RootSource {
    /// None (`system_roots(false)`).
    #[default]
    Nothing,
    /// A bundle and hashed directories (`SSL_CERT_FILE`, `SSL_CERT_DIR`, or
    /// the platform's files).
    Files {
        file: Option<PathBuf>,
        dirs: Vec<PathBuf>,
    },
    /// The platform's own store (macOS, Windows).
    Platform,
}

impl LazyRoots {
    fn get(&self) -> &SystemRoots {
        self.roots.get_or_init(|| {
            let roots = self.source.read();
            debug!(
                target: "tfdisco",
                in_hashed_dirs = roots.blocks.iter().filter(|b| b.hashed).count(),
                other_system = roots.blocks.iter().filter(|b| !b.hashed).count() + roots.ders.len(),
                "system root certificates read"
            );
            roots
        })
    }

    fn hashed_dirs(&self) -> &[PathBuf] {
        match &self.source {
            RootSource::Files { dirs, .. } => dirs,
            _ => &[],
        }
    }
}

/// The system roots as read from their files.
#[derive(Default)]
struct SystemRoots {
    /// The text of the PEM blocks read: the first file as read, then the
    /// blocks of the others that were not read before.
    text: Vec<u8>,
    /// Every root read from a file, once each.
    blocks: Vec<Block>,
    /// The platform's store, where it keeps no files (macOS, Windows).
    ders: Vec<CertificateDer<'static>>,
    /// Every root, decoded, sorted and without duplicates.
    all: OnceLock<Vec<CertificateDer<'static>>>,
    /// The roots no hashed directory entry holds.
    beyond: OnceLock<Vec<CertificateDer<'static>>>,
}

/// A root read from a file: the base64 text of its PEM block (a range of
/// [`SystemRoots::text`]), not decoded yet.
#[derive(Debug)]
struct Block {
    text: Range<usize>,
    /// A hashed directory entry OpenSSL finds holds it (its subject hash
    /// was checked): OpenSSL looks it up there when a handshake needs it.
    hashed: bool,
}

impl fmt::Debug for SystemRoots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SystemRoots")
            .field("from_files", &self.blocks.len())
            .field("from_the_platform", &self.ders.len())
            .finish_non_exhaustive()
    }
}

/// Decodes the base64 text of a PEM block.
fn decode(text: &[u8]) -> Option<CertificateDer<'static>> {
    let der = decode_base64_lines(text).map(CertificateDer::from);
    if der.is_none() {
        warn!(target: "tfdisco", "skipped a system root certificate that is not valid base64");
    }
    der
}

impl TrustAnchors {
    pub(crate) fn load(
        system_roots: bool,
        extra: &[CaSource],
        env: &Env,
    ) -> Result<TrustAnchors, BuildError> {
        let source = if system_roots {
            RootSource::from_env(env)
        } else {
            RootSource::Nothing
        };
        let mut anchors = TrustAnchors {
            system: Arc::new(LazyRoots {
                source,
                roots: OnceLock::new(),
            }),
            extra: Vec::new(),
        };
        for source in extra {
            let (origin, pem) = match source {
                CaSource::File(path) => {
                    let pem = std::fs::read(path).map_err(|source| BuildError::CaFile {
                        path: path.clone(),
                        source,
                    })?;
                    (path.display().to_string(), pem)
                }
                CaSource::Pem(pem) => ("PEM bytes".to_owned(), pem.clone()),
            };
            anchors.extra.extend(parse_pem(&pem, &origin)?);
        }
        debug!(target: "tfdisco", extra = anchors.extra.len(), "trust anchors set up");
        Ok(anchors)
    }

    /// The system (or `SSL_CERT_*`) roots; some may be unusable. Read when
    /// first asked for.
    pub fn system(&self) -> &[CertificateDer<'static>] {
        let system = self.system.get();
        system.all.get_or_init(|| {
            let mut all: Vec<_> = system.decoded(|_| true).collect();
            all.extend(system.ders.iter().cloned());
            all.sort_unstable_by(|a, b| a.as_ref().cmp(b.as_ref()));
            all.dedup();
            all
        })
    }

    /// The caller's extra CA certificates.
    pub fn extra(&self) -> &[CertificateDer<'static>] {
        &self.extra
    }

    /// The system root directories in OpenSSL's hashed form (`SSL_CERT_DIR`,
    /// or the platform's), where every root held in a `<hash>.<n>` entry is
    /// found by subject when needed.
    pub fn hashed_dirs(&self) -> &[PathBuf] {
        self.system.hashed_dirs()
    }

    /// The system roots that [`TrustAnchors::hashed_dirs`] do not hold
    /// (found only in a file, or in an entry not named by its hash): with
    /// the hashed directories, exactly [`TrustAnchors::system`]. Read when
    /// first asked for.
    pub fn system_beyond_hashed_dirs(&self) -> &[CertificateDer<'static>] {
        let system = self.system.get();
        system.beyond.get_or_init(|| system.beyond_hashed())
    }

    /// The caller's extra CA certificates as one PEM bundle (empty when
    /// there are none).
    pub fn extra_pem(&self) -> Vec<u8> {
        pem_bundle(&self.extra)
    }

    /// As one PEM bundle, every anchor that [`TrustAnchors::hashed_dirs`]
    /// does not hold: the system roots found only in a file (`SSL_CERT_FILE`,
    /// the platform bundle) or in an entry not named by its hash, then the
    /// caller's extra CA certificates. With the hashed directories this is
    /// exactly [`TrustAnchors::system`] plus [`TrustAnchors::extra`].
    ///
    /// Never empty while the hashed directories hold a root: then it is one
    /// of those (trusting it twice changes nothing), because libcurl refuses
    /// an empty bundle and, given none, falls back to a built-in file that
    /// may trust more than asked. Empty only when there is no anchor at all.
    pub fn pem_beyond_hashed_dirs(&self) -> Vec<u8> {
        let mut certs: Vec<CertificateDer<'_>> = self
            .system_beyond_hashed_dirs()
            .iter()
            .chain(&self.extra)
            .cloned()
            .collect();
        if certs.is_empty() {
            certs.extend(self.system.get().decoded(|block| block.hashed).next());
        }
        pem_bundle(&certs)
    }
}

/// Certificates as one PEM bundle.
fn pem_bundle(certs: &[CertificateDer<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for cert in certs {
        let b64 = base64::engine::general_purpose::STANDARD.encode(cert.as_ref());
        out.extend_from_slice(b"-----BEGIN CERTIFICATE-----\n");
        for line in b64.as_bytes().chunks(64) {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
        out.extend_from_slice(b"-----END CERTIFICATE-----\n");
    }
    out
}

impl SystemRoots {
    /// The roots read from files that `keep` keeps, decoded.
    fn decoded<'a>(
        &'a self,
        keep: impl Fn(&Block) -> bool + 'a,
    ) -> impl Iterator<Item = CertificateDer<'static>> + 'a {
        self.blocks
            .iter()
            .filter(move |block| keep(block))
            .filter_map(|block| decode(&self.text[block.text.clone()]))
    }

    /// The roots no hashed entry holds. A block read in a hashed entry too
    /// is held (the usual case: a bundle made from the directory); any other
    /// is decoded and compared, in case the same certificate was written out
    /// differently.
    fn beyond_hashed(&self) -> Vec<CertificateDer<'static>> {
        let mut unsure = self
            .decoded(|block| !block.hashed)
            .chain(self.ders.iter().cloned())
            .peekable();
        if unsure.peek().is_none() {
            return Vec::new();
        }
        let hashed: HashSet<CertificateDer<'static>> = self.decoded(|block| block.hashed).collect();
        let mut beyond: Vec<_> = unsure.filter(|der| !hashed.contains(der)).collect();
        beyond.sort_unstable_by(|a, b| a.as_ref().cmp(b.as_ref()));
        beyond.dedup();
        beyond
    }
}

/// Parses every certificate in `pem`; fails if there is none or one is broken.
fn parse_pem(pem: &[u8], origin: &str) -> Result<Vec<CertificateDer<'static>>, BuildError> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| BuildError::CaPem {
            origin: origin.to_owned(),
            problem: e.to_string(),
        })?;
    if certs.is_empty() {
        return Err(BuildError::CaPem {
            origin: origin.to_owned(),
            problem: "no PEM certificate found".to_owned(),
        });
    }
    Ok(certs)
}

impl RootSource {
    /// `SSL_CERT_FILE` and `SSL_CERT_DIR` (colon-separated) when either is
    /// set, as Go does on Unix; the platform's files or store otherwise.
    fn from_env(env: &Env) -> RootSource {
        let file = env.non_empty_str("SSL_CERT_FILE");
        let dirs = env.non_empty_str("SSL_CERT_DIR");
        if file.is_some() || dirs.is_some() {
            let dirs = dirs.iter().flat_map(|d| d.split(':'));
            return RootSource::Files {
                file: file.map(PathBuf::from),
                dirs: dirs.filter(|d| !d.is_empty()).map(PathBuf::from).collect(),
            };
        }
        match platform_paths() {
            Some((file, dirs)) => RootSource::Files { file, dirs },
            None => RootSource::Platform,
        }
    }

    /// The roots, read now. Unreadable entries are logged and skipped, as
    /// Go skips them.
    fn read(&self) -> SystemRoots {
        match self {
            RootSource::Nothing => SystemRoots::default(),
            RootSource::Platform => {
                let result = rustls_native_certs::load_native_certs();
                for error in &result.errors {
                    warn!(target: "tfdisco", %error, "could not load some system root certificates");
                }
                SystemRoots {
                    ders: result.certs,
                    ..SystemRoots::default()
                }
            }
            RootSource::Files { file, dirs } => {
                let mut files = Files::default();
                if let Some(file) = file {
                    files.load(file);
                }
                for dir in dirs {
                    files.load_dir(dir);
                }
                SystemRoots {
                    text: files.text,
                    blocks: files.blocks,
                    ..SystemRoots::default()
                }
            }
        }
    }
}

/// Where the platform keeps its roots as files: OpenSSL's usual bundle and
/// directories, as `rustls-native-certs` finds them.
#[cfg(all(unix, not(target_os = "macos")))]
fn platform_paths() -> Option<(Option<PathBuf>, Vec<PathBuf>)> {
    let probe = openssl_probe::probe();
    Some((probe.cert_file, probe.cert_dir))
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
fn platform_paths() -> Option<(Option<PathBuf>, Vec<PathBuf>)> {
    None
}

/// Where the base64 text of each `CERTIFICATE` block of a PEM text lies
/// (other blocks are skipped; an unterminated one ends the text). Blocks are
/// found with `memchr` and decoded only when needed, with the `base64`
/// crate's fast engine rather than the constant-time one meant for secrets.
fn pem_blocks(pem: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    const BEGIN: &[u8] = b"-----BEGIN CERTIFICATE-----";
    const END: &[u8] = b"-----END CERTIFICATE-----";
    type Finder = memchr::memmem::Finder<'static>;
    static FINDERS: OnceLock<(Finder, Finder)> = OnceLock::new();
    let (begin, end) = FINDERS.get_or_init(|| (Finder::new(BEGIN), Finder::new(END)));
    let mut at = 0;
    std::iter::from_fn(move || {
        // Usually a block begins where the last one ended, after a line
        // break, and ends at the first `-` after its base64 text: those are
        // looked at first, the searches only when they are not there.
        let rest = &pem[at..];
        let blank = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let start =
            at + if rest[blank..].starts_with(BEGIN) {
                blank
            } else {
                begin.find(rest)?
            } + BEGIN.len();
        let body = &pem[start..];
        let len = match memchr::memchr(b'-', body) {
            Some(dash) if body[dash..].starts_with(END) => dash,
            _ => end.find(body)?,
        };
        at = start + len + END.len();
        Some(start..start + len)
    })
}

/// Decodes base64 text broken into lines, line by line (each a whole number
/// of 4-character groups, as PEM writes them), without copying the text; any
/// other layout is decoded after removing the white space.
fn decode_base64_lines(text: &[u8]) -> Option<Vec<u8>> {
    decode_base64_lines_until(text, |_| false)
}

/// [`decode_base64_lines`], stopping after the first line at which `enough`
/// says the bytes decoded so far suffice (a PEM body in its usual 64-column
/// layout; any other layout is decoded whole).
pub(crate) fn decode_base64_lines_until(
    text: &[u8],
    mut enough: impl FnMut(&[u8]) -> bool,
) -> Option<Vec<u8>> {
    let engine = &base64::engine::general_purpose::STANDARD;
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for line in text.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.len() % 4 != 0 {
            return decode_base64_joined(text);
        }
        engine.decode_vec(line, &mut out).ok()?;
        if enough(&out) {
            break;
        }
    }
    Some(out)
}

/// Base64 text in a layout other than whole 4-character groups per line,
/// decoded after removing the white space.
pub(crate) fn decode_base64_joined(text: &[u8]) -> Option<Vec<u8>> {
    let joined: Vec<u8> = text
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(joined)
        .ok()
}

/// The lines of `text`, as `text.split(|&b| b == b'\n')` gives them, found
/// with `memchr`.
pub(crate) fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        match memchr::memchr(b'\n', text) {
            Some(end) => {
                rest = Some(&text[end + 1..]);
                Some(&text[..end])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::dir::{entry_in, found_by_openssl, is_hash_name};
    use super::*;

    /// A PEM certificate with its own subject, made on the spot.
    fn cert(name: &str) -> String {
        let key = rcgen::KeyPair::generate().expect("a key");
        let mut params = rcgen::CertificateParams::new(Vec::new()).expect("params");
        params.distinguished_name = rcgen::DistinguishedName::new();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, format!("Test root {name}"));
        params.self_signed(&key).expect("a certificate").pem()
    }

    fn der(pem: &str) -> CertificateDer<'static> {
        CertificateDer::from_pem_slice(pem.as_bytes()).expect("PEM")
    }

    /// Our PEM reading, certificate for certificate.
    fn decoded(pem: &[u8]) -> Vec<Option<CertificateDer<'static>>> {
        pem_blocks(pem)
            .map(|block| decode_base64_lines(&pem[block]).map(CertificateDer::from))
            .collect()
    }

    #[test]
    fn pem_round_trip_and_errors() {
        let der = CertificateDer::from(vec![0x30, 0x03, 0x02, 0x01, 0x07]);
        let anchors = TrustAnchors {
            system: Arc::new(LazyRoots {
                source: RootSource::Platform,
                roots: OnceLock::from(SystemRoots {
                    ders: vec![der.clone()],
                    ..SystemRoots::default()
                }),
            }),
            extra: Vec::new(),
        };
        assert_eq!(anchors.system(), std::slice::from_ref(&der));
        let pem = anchors.pem_beyond_hashed_dirs();
        assert_eq!(parse_pem(&pem, "test").expect("one cert"), vec![der]);
        let e = parse_pem(b"not a certificate", "ca.pem").expect_err("nothing in it");
        assert_eq!(
            e.to_string(),
            "cannot use CA certificates from ca.pem: no PEM certificate found"
        );
    }

    #[test]
    fn pem_blocks_read_as_rustls_reads_them() {
        let (a, b) = (cert("a"), cert("b"));
        let text =
            format!("junk\n{a}-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n{b}");
        let theirs: Vec<_> = CertificateDer::pem_slice_iter(text.as_bytes())
            .map(Result::ok)
            .collect();
        assert_eq!(decoded(text.as_bytes()), theirs);
        assert_eq!(theirs.len(), 2);
        let broken = "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n";
        assert_eq!(decoded(broken.as_bytes()), [None]);
        let open = "-----BEGIN CERTIFICATE-----\nAAAA";
        assert!(decoded(open.as_bytes()).is_empty());
        // The system bundle, where there is one.
        if let Ok(bundle) = std::fs::read("/etc/ssl/certs/ca-certificates.crt") {
            let theirs: Vec<_> = CertificateDer::pem_slice_iter(&bundle)
                .map(Result::ok)
                .collect();
            assert_eq!(decoded(&bundle), theirs);
        }
    }

    #[test]
    fn lines_split_as_split_does() {
        for text in ["", "\n", "a", "a\n", "a\nb", "\n\na\r\n b \n"] {
            let split: Vec<&[u8]> = text.as_bytes().split(|&b| b == b'\n').collect();
            assert_eq!(
                lines(text.as_bytes()).collect::<Vec<_>>(),
                split,
                "{text:?}"
            );
        }
    }

    #[test]
    fn hash_names() {
        for name in ["5ad8a5d6.0", "abcdef01.12"] {
            assert!(is_hash_name(name), "{name}");
        }
        for name in [
            "5ad8a5d6.r0",
            "5ad8a5d6",
            "ca.pem",
            "5ad8a5d.0",
            "5ad8a5dg.0",
            "5ad8a5d6.",
            "ABCDEF01.0",
        ] {
            assert!(!is_hash_name(name), "{name}");
        }
        let names = HashSet::from(["aaaaaaaa.0", "aaaaaaaa.1", "bbbbbbbb.1"]);
        let exists = |name: &str| names.contains(name);
        assert_eq!(found_by_openssl("aaaaaaaa.1", exists), Some(0xaaaa_aaaa));
        assert_eq!(
            found_by_openssl("bbbbbbbb.1", exists),
            None,
            "no .0 before it"
        );
        let dir = Path::new("/etc/ssl/certs");
        assert_eq!(entry_in(dir, Path::new("a.pem")).as_deref(), Some("a.pem"));
        assert_eq!(
            entry_in(dir, Path::new("./a.pem")).as_deref(),
            Some("a.pem")
        );
        assert_eq!(
            entry_in(dir, Path::new("/etc/ssl/certs/a.pem")).as_deref(),
            Some("a.pem")
        );
        assert_eq!(entry_in(dir, Path::new("/usr/share/a.crt")), None);
    }

    #[test]
    fn a_hashed_directory_spares_the_certificates_it_holds() {
        let dir = tempfile::tempdir().expect("a directory");
        let (a, b, c, d) = (cert("a"), cert("b"), cert("c"), cert("d"));
        let hash = |pem: &str| {
            let hash = subject_hash::subject_hash(der(pem).as_ref()).expect("a hash");
            format!("{hash:08x}")
        };
        // a: a .pem file with its hash link; b: no hash link; c: only in the
        // bundle; d: under a hash name that is not its own.
        std::fs::write(dir.path().join("a.pem"), &a).expect("write");
        std::os::unix::fs::symlink("a.pem", dir.path().join(format!("{}.0", hash(&a))))
            .expect("link");
        std::fs::write(dir.path().join("b.pem"), &b).expect("write");
        std::fs::write(dir.path().join("0000000d.0"), &d).expect("write");
        let bundle = dir.path().join("bundle.crt");
        std::fs::write(&bundle, format!("{a}{c}")).expect("write");
        let env = Env::new([
            ("SSL_CERT_FILE", bundle.display().to_string()),
            ("SSL_CERT_DIR", dir.path().display().to_string()),
        ]);
        let anchors = TrustAnchors::load(true, &[], &env).expect("loads");
        assert_eq!(anchors.system().len(), 4, "a, b, c and d, once each");
        for pem in [&a, &b, &c, &d] {
            assert!(anchors.system().contains(&der(pem)));
        }
        assert_eq!(anchors.hashed_dirs(), [dir.path()]);
        let beyond = anchors.pem_beyond_hashed_dirs();
        let beyond: Vec<_> = CertificateDer::pem_slice_iter(&beyond)
            .collect::<Result<_, _>>()
            .expect("PEM");
        assert_eq!(beyond.len(), 3);
        for other in [&b, &c, &d] {
            assert!(beyond.contains(&der(other)));
        }
        assert!(!beyond.contains(&der(&a)), "OpenSSL finds a by its hash");
    }

    #[test]
    fn the_bundle_beyond_is_never_empty_while_a_hashed_root_exists() {
        let dir = tempfile::tempdir().expect("a directory");
        let a = cert("a");
        let hash = subject_hash::subject_hash(der(&a).as_ref()).expect("a hash");
        std::fs::write(dir.path().join(format!("{hash:08x}.0")), &a).expect("write");
        let bundle = dir.path().join("bundle.crt");
        std::fs::write(&bundle, &a).expect("write");
        let env = Env::new([
            ("SSL_CERT_FILE", bundle.display().to_string()),
            ("SSL_CERT_DIR", dir.path().display().to_string()),
        ]);
        // Every root is in the hashed directory: libcurl still needs a
        // bundle (it refuses an empty one), so the bundle repeats one of
        // them rather than trusting anything else.
        let anchors = TrustAnchors::load(true, &[], &env).expect("loads");
        let beyond = anchors.pem_beyond_hashed_dirs();
        let beyond: Vec<_> = CertificateDer::pem_slice_iter(&beyond)
            .collect::<Result<_, _>>()
            .expect("PEM");
        assert_eq!(beyond, [der(&a)]);
        // No anchor at all: an empty bundle.
        let none = TrustAnchors::load(false, &[], &Env::empty()).expect("loads");
        assert!(none.pem_beyond_hashed_dirs().is_empty());
    }

    #[test]
    fn missing_ca_file_is_a_build_error() {
        let e = TrustAnchors::load(
            false,
            &[CaSource::File("/nonexistent/tfdisco-ca.pem".into())],
            &Env::empty(),
        )
        .expect_err("missing file");
        assert!(e.to_string().contains("/nonexistent/tfdisco-ca.pem"), "{e}");
    }

    #[test]
    fn ssl_cert_variables_replace_the_platform_store() {
        let env = Env::new([("SSL_CERT_FILE", "/nonexistent/bundle.pem")]);
        let anchors = TrustAnchors::load(true, &[], &env).expect("missing files are skipped");
        assert!(anchors.system().is_empty());
    }
}
