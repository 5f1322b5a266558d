//! The certificates a client trusts: the system roots (or `SSL_CERT_FILE` /
//! `SSL_CERT_DIR`, as Go honours them on Unix) plus extra CA certificates.
//!
//! The system roots are read at every start, so reading them is kept cheap:
//! files are read in as few system calls as it takes, PEM blocks are kept as
//! text and decoded only for the views a transport asks for, and for
//! libcurl the roots OpenSSL finds by itself in hashed directories are not
//! handed over at all (docs/behaviour.md, NET-5).

mod subject_hash;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use base64::Engine;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use tracing::{debug, warn};

use tfdisco_core::Env;

use crate::BuildError;

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
    system: Arc<SystemRoots>,
    extra: Vec<CertificateDer<'static>>,
}

/// The system roots as read from their files.
#[derive(Debug, Default)]
struct SystemRoots {
    /// Held by a hashed directory entry OpenSSL finds (its subject hash was
    /// checked): the base64 text of its PEM block.
    hashed: Vec<Vec<u8>>,
    /// Every other root: from a file, an entry not named by its hash, or
    /// the platform's store.
    others: Vec<Root>,
    hashed_dirs: Vec<PathBuf>,
    /// Every root, decoded, sorted and without duplicates.
    all: OnceLock<Vec<CertificateDer<'static>>>,
    /// The roots `hashed` does not hold.
    beyond: OnceLock<Vec<CertificateDer<'static>>>,
}

/// A root as read.
#[derive(Debug)]
enum Root {
    Der(CertificateDer<'static>),
    /// The base64 text of a PEM block, not decoded yet.
    Pem(Vec<u8>),
}

impl Root {
    fn decode(&self) -> Option<CertificateDer<'static>> {
        match self {
            Root::Der(der) => Some(der.clone()),
            Root::Pem(text) => decode(text),
        }
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
        let system = if system_roots {
            system_roots_from(env)
        } else {
            SystemRoots::default()
        };
        let mut anchors = TrustAnchors {
            system: Arc::new(system),
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
        debug!(
            target: "tfdisco",
            in_hashed_dirs = anchors.system.hashed.len(),
            other_system = anchors.system.others.len(),
            extra = anchors.extra.len(),
            "trust anchors loaded"
        );
        Ok(anchors)
    }

    /// The system (or `SSL_CERT_*`) roots; some may be unusable.
    pub fn system(&self) -> &[CertificateDer<'static>] {
        self.system.all.get_or_init(|| {
            let mut all: Vec<_> = self
                .system
                .hashed
                .iter()
                .filter_map(|t| decode(t))
                .collect();
            all.extend(self.system.others.iter().filter_map(Root::decode));
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
        &self.system.hashed_dirs
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
        let beyond = self
            .system
            .beyond
            .get_or_init(|| self.system.beyond_hashed());
        let mut certs: Vec<CertificateDer<'_>> =
            beyond.iter().chain(&self.extra).cloned().collect();
        if certs.is_empty() {
            certs.extend(self.system.hashed.iter().find_map(|text| decode(text)));
        }
        let mut out = Vec::new();
        for cert in &certs {
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
}

impl SystemRoots {
    /// The roots no hashed entry holds. A PEM block whose text is that of a
    /// hashed root needs no decoding (the usual case: a bundle made from the
    /// directory); any other is decoded and compared.
    fn beyond_hashed(&self) -> Vec<CertificateDer<'static>> {
        let texts: HashSet<Text<'_>> = self.hashed.iter().map(|text| Text(text)).collect();
        let mut unsure = self
            .others
            .iter()
            .filter(|root| !matches!(root, Root::Pem(text) if texts.contains(&Text(text))))
            .filter_map(Root::decode)
            .peekable();
        if unsure.peek().is_none() {
            return Vec::new();
        }
        let ders: HashSet<CertificateDer<'static>> =
            self.hashed.iter().filter_map(|text| decode(text)).collect();
        let mut beyond: Vec<_> = unsure.filter(|der| !ders.contains(der)).collect();
        beyond.sort_unstable_by(|a, b| a.as_ref().cmp(b.as_ref()));
        beyond.dedup();
        beyond
    }
}

/// The base64 text of a PEM block as a set key: compared whole, hashed by
/// its end only (the signature, unique to each certificate), which keeps
/// hashing a few hundred blocks cheap.
#[derive(PartialEq, Eq)]
struct Text<'a>(&'a [u8]);

impl std::hash::Hash for Text<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0[self.0.len().saturating_sub(64)..].hash(state);
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

/// `SSL_CERT_FILE` and `SSL_CERT_DIR` (colon-separated) when either is set,
/// as Go does on Unix; the platform's store otherwise. Unreadable entries are
/// logged and skipped, as Go skips them.
fn system_roots_from(env: &Env) -> SystemRoots {
    let file = env.non_empty_str("SSL_CERT_FILE");
    let dirs = env.non_empty_str("SSL_CERT_DIR");
    let (file, dirs): (Option<PathBuf>, Vec<PathBuf>) = if file.is_some() || dirs.is_some() {
        let dirs = dirs.iter().flat_map(|d| d.split(':'));
        (
            file.map(PathBuf::from),
            dirs.filter(|d| !d.is_empty()).map(PathBuf::from).collect(),
        )
    } else {
        match platform_paths() {
            Some(paths) => paths,
            // No files to read (macOS, Windows): the platform's own store.
            None => {
                let result = rustls_native_certs::load_native_certs();
                for error in &result.errors {
                    warn!(target: "tfdisco", %error, "could not load some system root certificates");
                }
                return SystemRoots {
                    others: result.certs.into_iter().map(Root::Der).collect(),
                    ..SystemRoots::default()
                };
            }
        }
    };
    let mut files = Files::default();
    if let Some(file) = &file {
        files.load(file);
    }
    for dir in &dirs {
        files.load_dir(dir);
    }
    SystemRoots {
        hashed: files.hashed,
        others: files.others,
        hashed_dirs: dirs,
        ..SystemRoots::default()
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

/// Certificates read from files: those a hashed directory entry holds, and
/// the others, as the base64 text of their PEM blocks.
#[derive(Default)]
struct Files {
    hashed: Vec<Vec<u8>>,
    others: Vec<Root>,
    /// Files already read (device and inode), such as a bundle that also
    /// sits in a directory.
    #[cfg(unix)]
    seen: HashSet<(u64, u64)>,
}

impl Files {
    /// Reads every file of `dir`, as Go and rustls-native-certs do, with as
    /// few system calls as it takes (this runs at every start): a hash link
    /// is read once through its name, and the entry it points at in the same
    /// directory is not read again.
    fn load_dir(&mut self, dir: &Path) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(error) => {
                warn!(target: "tfdisco", dir = %dir.display(), %error, "could not read a root certificate directory");
                return;
            }
        };
        let entries: Vec<(String, bool)> = entries
            .filter_map(Result::ok)
            .map(|entry| {
                let link = entry.file_type().is_ok_and(|t| t.is_symlink());
                (entry.file_name().to_string_lossy().into_owned(), link)
            })
            .collect();
        let names: HashSet<&str> = entries.iter().map(|(name, _)| name.as_str()).collect();
        let mut covered = HashSet::new();
        for (name, link) in &entries {
            let Some(hash) = found_by_openssl(name, &names) else {
                continue;
            };
            let path = dir.join(name);
            if *link {
                if let Some(target) = std::fs::read_link(&path)
                    .ok()
                    .and_then(|target| entry_in(dir, &target))
                {
                    covered.insert(target);
                }
            }
            self.read(&path, Some(hash));
        }
        for (name, _) in &entries {
            if found_by_openssl(name, &names).is_none() && !covered.contains(name.as_str()) {
                self.load(&dir.join(name));
            }
        }
    }

    /// Reads `path` unless it is the same file as one read before (a bundle
    /// that also sits in a directory, say).
    fn load(&mut self, path: &Path) {
        let metadata = match std::fs::metadata(path) {
            Ok(metadata) if metadata.is_file() => metadata,
            // Dangling links, directories and the like hold no roots.
            Ok(_) => return,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return,
            Err(error) => {
                warn!(target: "tfdisco", path = %path.display(), %error, "could not read root certificates");
                return;
            }
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if !self.seen.insert((metadata.dev(), metadata.ino())) {
                return;
            }
        }
        #[cfg(not(unix))]
        let _ = metadata;
        self.read(path, None);
    }

    /// Reads the certificates of `path`. With `hash` (the entry is named
    /// `<hash>.<n>` and OpenSSL's lookup reaches it), a certificate whose
    /// subject hashes to it is one OpenSSL finds in the directory.
    fn read(&mut self, path: &Path, hash: Option<&str>) {
        let pem = match read_file(path) {
            Ok(pem) => pem,
            // Dangling links and directories hold no roots.
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::IsADirectory
                ) =>
            {
                return;
            }
            Err(error) => {
                warn!(target: "tfdisco", path = %path.display(), %error, "could not read root certificates");
                return;
            }
        };
        for text in pem_blocks(&pem) {
            let found = hash.is_some_and(|hash| {
                subject_hash::subject_hash_of_pem(text).is_some_and(|h| format!("{h:08x}") == hash)
            });
            if found {
                self.hashed.push(text.to_vec());
            } else {
                self.others.push(Root::Pem(text.to_vec()));
            }
        }
    }
}

/// The name of the entry of `dir` a link target names (`X.pem`,
/// `./X.pem` or `<dir>/X.pem`), if it names one.
fn entry_in(dir: &Path, target: &Path) -> Option<String> {
    let parent = target.parent()?;
    let here = parent.as_os_str().is_empty() || parent == Path::new(".") || parent == dir;
    here.then(|| target.file_name())
        .flatten()
        .map(|name| name.to_string_lossy().into_owned())
}

/// A small file's bytes, in as few system calls as it takes: no size lookup
/// first, as `std::fs::read` makes, and no zeroed buffer.
fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(8 * 1024);
    // Through `Take`, `read_to_end` is the generic loop, not `File`'s, which
    // asks for the size and the position before reading.
    std::fs::File::open(path)?
        .take(u64::MAX)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The base64 text of the `CERTIFICATE` blocks of a PEM text (other
/// blocks are skipped; an unterminated one ends the text). Blocks are found
/// with `memchr` and decoded only when needed, with the `base64` crate's
/// fast engine rather than the constant-time one meant for secrets.
fn pem_blocks(pem: &[u8]) -> impl Iterator<Item = &[u8]> + '_ {
    const BEGIN: &[u8] = b"-----BEGIN CERTIFICATE-----";
    const END: &[u8] = b"-----END CERTIFICATE-----";
    type Finder = memchr::memmem::Finder<'static>;
    static FINDERS: OnceLock<(Finder, Finder)> = OnceLock::new();
    let (begin, end) = FINDERS.get_or_init(|| (Finder::new(BEGIN), Finder::new(END)));
    let mut rest = pem;
    std::iter::from_fn(move || {
        let start = begin.find(rest)? + BEGIN.len();
        let len = end.find(&rest[start..])?;
        let text = &rest[start..start + len];
        rest = &rest[start + len + END.len()..];
        Some(text)
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
            let joined: Vec<u8> = text
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            return engine.decode(joined).ok();
        }
        engine.decode_vec(line, &mut out).ok()?;
        if enough(&out) {
            break;
        }
    }
    Some(out)
}

/// True for OpenSSL's hashed entry names: eight lower-case hex digits, a
/// dot and a number (`5ad8a5d6.0`; CRLs are `.r0` and hold no roots).
fn is_hash_name(name: &str) -> bool {
    match name.split_once('.') {
        Some((hash, n)) => {
            hash.len() == 8
                && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// The hash of an entry OpenSSL's directory lookup reaches: named
/// `<hash>.<n>`, with `<hash>.0` … `<hash>.<n-1>` present too (OpenSSL
/// stops at the first missing number).
fn found_by_openssl<'a>(name: &'a str, names: &HashSet<&str>) -> Option<&'a str> {
    if !is_hash_name(name) {
        return None;
    }
    let (hash, n) = name.split_once('.')?;
    let n: u32 = n.parse().ok()?;
    (0..n)
        .all(|i| names.contains(format!("{hash}.{i}").as_str()))
        .then_some(hash)
}

#[cfg(test)]
mod tests {
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
            .map(|text| decode_base64_lines(text).map(CertificateDer::from))
            .collect()
    }

    #[test]
    fn pem_round_trip_and_errors() {
        let der = CertificateDer::from(vec![0x30, 0x03, 0x02, 0x01, 0x07]);
        let anchors = TrustAnchors {
            system: Arc::new(SystemRoots {
                others: vec![Root::Der(der.clone())],
                ..SystemRoots::default()
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
        assert_eq!(found_by_openssl("aaaaaaaa.1", &names), Some("aaaaaaaa"));
        assert_eq!(
            found_by_openssl("bbbbbbbb.1", &names),
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
