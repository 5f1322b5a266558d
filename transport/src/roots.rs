//! The certificates a client trusts: the system roots (or `SSL_CERT_FILE` /
//! `SSL_CERT_DIR`, as Go honours them on Unix) plus extra CA certificates.
//!
//! The system roots are read at every start, so reading them is kept cheap:
//! where they are is decided when the client is built, but they are read
//! only when a transport first asks for them (the rustls transports when
//! they are built; libcurl's only if a handshake needs a root that OpenSSL's
//! own search does not give, NET-5); files are read in as few system calls as
//! it takes, one after another into one buffer, and PEM blocks are kept there
//! as text until a transport asks for the certificates.

mod dir;
mod files;
mod subject;

use std::collections::HashMap;
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
/// libraries that look certificates up by subject (OpenSSL, as libcurl uses
/// it) it also knows the directories in OpenSSL's hashed layout
/// ([`TrustAnchors::hashed_dirs`]) and finds every anchor of a subject
/// ([`TrustAnchors::with_subject`]). System roots are read when first asked
/// for, and each view of them made once.
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
                from_files = roots.blocks.len(),
                from_the_platform = roots.ders.len(),
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
    /// Where the base64 text of each root read from a file lies in `text`
    /// (each root once), not decoded yet.
    blocks: Vec<Range<usize>>,
    /// The platform's store, where it keeps no files (macOS, Windows).
    ders: Vec<CertificateDer<'static>>,
    /// Every root, decoded, sorted and without duplicates.
    all: OnceLock<Vec<CertificateDer<'static>>>,
    /// The roots of `all` by subject.
    subjects: OnceLock<Subjects>,
}

/// Certificates by subject, in OpenSSL's canonical form of the name.
#[derive(Debug, Default)]
struct Subjects {
    /// The positions of the certificates of each subject.
    by_name: HashMap<Vec<u8>, Vec<usize>>,
    /// The certificates whose subject this code cannot read.
    unreadable: Vec<usize>,
}

impl Subjects {
    fn of(certs: &[CertificateDer<'_>]) -> Subjects {
        let mut subjects = Subjects::default();
        for (i, cert) in certs.iter().enumerate() {
            match subject::canonical_subject(cert.as_ref()) {
                Some(name) => subjects.by_name.entry(name).or_default().push(i),
                None => subjects.unreadable.push(i),
            }
        }
        subjects
    }

    /// The positions of the certificates whose subject may be `name`
    /// (canonical; `None` when the name could not be read: then all).
    fn positions(&self, name: Option<&[u8]>, len: usize) -> Vec<usize> {
        let Some(name) = name else {
            return (0..len).collect();
        };
        let mut found: Vec<usize> = self.by_name.get(name).cloned().unwrap_or_default();
        found.extend_from_slice(&self.unreadable);
        found.sort_unstable();
        found
    }
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
            let mut all: Vec<_> = system
                .blocks
                .iter()
                .filter_map(|block| decode(&system.text[block.clone()]))
                .collect();
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
    /// or the platform's), where OpenSSL finds a root held in a
    /// `<hash>.<n>` entry by its subject when a handshake needs it. Other
    /// entries of these directories are trusted too but not found that way
    /// (see [`TrustAnchors::with_subject`]).
    pub fn hashed_dirs(&self) -> &[PathBuf] {
        self.system.hashed_dirs()
    }

    /// Every anchor whose subject may be `name`, the DER encoding of an
    /// X.509 Name (as `i2d_X509_NAME` writes a certificate's issuer): the
    /// system roots, then the caller's CA certificates, whose subject is that
    /// name as OpenSSL compares names (`X509_NAME_cmp`: their canonical
    /// form, whatever the string types, case and white space), and any whose
    /// subject this code cannot read, which the caller must compare itself.
    /// The system roots are read, and indexed by subject, when first asked.
    ///
    /// This is how a TLS library that looks issuers up by subject is given
    /// the whole trusted set without loading it up front (NET-5).
    pub fn with_subject(&self, name: &[u8]) -> Vec<&CertificateDer<'static>> {
        let wanted = subject::canonical_name(name);
        let system = self.system();
        let index = self
            .system
            .get()
            .subjects
            .get_or_init(|| Subjects::of(system));
        let extra = Subjects::of(&self.extra);
        let mut found: Vec<&CertificateDer<'static>> = index
            .positions(wanted.as_deref(), system.len())
            .into_iter()
            .map(|i| &system[i])
            .collect();
        found.extend(
            extra
                .positions(wanted.as_deref(), self.extra.len())
                .into_iter()
                .map(|i| &self.extra[i]),
        );
        found
    }

    /// The caller's extra CA certificates as one PEM bundle (empty when
    /// there are none).
    pub fn extra_pem(&self) -> Vec<u8> {
        pem_bundle(&self.extra)
    }

    /// Every anchor as one PEM bundle: the system roots, then the caller's
    /// extra CA certificates (empty when there is none), for a TLS library
    /// that is given a bundle and nothing else.
    pub fn pem(&self) -> Vec<u8> {
        let all: Vec<_> = self.system().iter().chain(&self.extra).cloned().collect();
        pem_bundle(&all)
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
    let engine = &base64::engine::general_purpose::STANDARD;
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for line in text.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.len() % 4 != 0 {
            return decode_base64_joined(text);
        }
        engine.decode_vec(line, &mut out).ok()?;
    }
    Some(out)
}

/// Base64 text in a layout other than whole 4-character groups per line,
/// decoded after removing the white space.
fn decode_base64_joined(text: &[u8]) -> Option<Vec<u8>> {
    let joined: Vec<u8> = text
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(joined)
        .ok()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::dir::{entry_in, is_hash_name};
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
        let pem = anchors.pem();
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

    /// A self-signed certificate named `name`, with a key of its own:
    /// two calls give two roots of one subject ("re-keyed").
    fn root(name: &str) -> String {
        cert(name)
    }

    /// The DER Name of a certificate's subject, as OpenSSL hands over a
    /// certificate's issuer name.
    fn name_of(pem: &str) -> Vec<u8> {
        subject_name_der(der(pem).as_ref())
    }

    /// The subject Name element (tag, length and contents) of a DER
    /// certificate.
    fn subject_name_der(cert: &[u8]) -> Vec<u8> {
        fn element(input: &[u8]) -> (&[u8], &[u8]) {
            let len = input[1];
            let (header, length) = if len < 0x80 {
                (2, usize::from(len))
            } else {
                let n = usize::from(len & 0x7F);
                let length = input[2..2 + n]
                    .iter()
                    .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
                (2 + n, length)
            };
            (&input[..header + length], &input[header + length..])
        }
        fn contents(element: &[u8]) -> &[u8] {
            let len = element[1];
            let skip = if len < 0x80 {
                2
            } else {
                2 + usize::from(len & 0x7F)
            };
            &element[skip..]
        }
        let tbs = contents(element(contents(cert)).0);
        let mut rest = tbs;
        if rest[0] == 0xA0 {
            rest = element(rest).1;
        }
        for _ in 0..4 {
            rest = element(rest).1; // serial, signature, issuer, validity
        }
        element(rest).0.to_vec()
    }

    #[test]
    fn every_anchor_of_a_subject_is_found_wherever_it_is() {
        let dir = tempfile::tempdir().expect("a directory");
        let certs = dir.path().join("certs");
        std::fs::create_dir(&certs).expect("a directory");
        // One subject, three keys: in a file of the directory, in the
        // bundle, and the caller's; another subject beside them.
        let (in_dir, in_bundle, callers, other) = (
            root("shared"),
            root("shared"),
            root("shared"),
            root("other"),
        );
        std::fs::write(certs.join("a.pem"), &in_dir).expect("write");
        std::fs::write(certs.join("b.pem"), &other).expect("write");
        let bundle = dir.path().join("bundle.crt");
        std::fs::write(&bundle, format!("{in_bundle}{other}")).expect("write");
        let env = Env::new([
            ("SSL_CERT_FILE", bundle.display().to_string()),
            ("SSL_CERT_DIR", certs.display().to_string()),
        ]);
        let anchors =
            TrustAnchors::load(true, &[CaSource::Pem(callers.clone().into_bytes())], &env)
                .expect("loads");
        assert_eq!(
            anchors.system().len(),
            3,
            "in_dir, in_bundle, other: once each"
        );
        let found: Vec<CertificateDer<'static>> = anchors
            .with_subject(&name_of(&in_dir))
            .into_iter()
            .cloned()
            .collect();
        assert_eq!(found.len(), 3, "{found:?}");
        for pem in [&in_dir, &in_bundle, &callers] {
            assert!(found.contains(&der(pem)));
        }
        assert_eq!(found.last(), Some(&der(&callers)), "the caller's last");
        assert_eq!(
            anchors.with_subject(&name_of(&other)),
            [&der(&other)],
            "the other subject"
        );
        assert!(anchors.with_subject(&name_of(&root("nobody"))).is_empty());
        // A name this code cannot read: every anchor, for the caller to
        // compare.
        assert_eq!(anchors.with_subject(b"\x30\x01").len(), 4);
        // Every anchor in one bundle.
        let pem = anchors.pem();
        let all: Vec<_> = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<_, _>>()
            .expect("PEM");
        assert_eq!(all.len(), 4);
    }

    #[test]
    fn a_directory_is_read_once_through_its_hash_links() {
        let dir = tempfile::tempdir().expect("a directory");
        let (a, b, c) = (cert("a"), cert("b"), cert("c"));
        // a: a .pem file with a hash link (any hash name); b: no hash link;
        // c: only under a hash name.
        std::fs::write(dir.path().join("a.pem"), &a).expect("write");
        std::os::unix::fs::symlink("a.pem", dir.path().join("0000000a.0")).expect("link");
        std::fs::write(dir.path().join("b.pem"), &b).expect("write");
        std::fs::write(dir.path().join("0000000c.0"), &c).expect("write");
        let env = Env::new([("SSL_CERT_DIR", dir.path().display().to_string())]);
        let anchors = TrustAnchors::load(true, &[], &env).expect("loads");
        assert_eq!(anchors.hashed_dirs(), [dir.path()]);
        assert_eq!(anchors.system().len(), 3, "a, b and c, once each");
        for pem in [&a, &b, &c] {
            assert!(anchors.system().contains(&der(pem)));
        }
        let none = TrustAnchors::load(false, &[], &Env::empty()).expect("loads");
        assert!(none.pem().is_empty());
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
