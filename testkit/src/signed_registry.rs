//! A provider registry with real, signed packages, for lock files and
//! downloads: `ns/alpha` and `ns/beta` in a few versions (pre-releases
//! among them) for three platforms, each version's `SHA256SUMS` signed by a
//! test key whose public half the package answers carry. The packages were
//! written by Go's `archive/zip`, as release tools write them; one has a
//! folder entry. `fixtures/make-signed-registry.sh` makes them (the private
//! key is never kept); they are compiled in, so `tfdisco-dev serve` serves them
//! too (under its sample document).
//!
//! ```no_run
//! use tfdisco_testkit::{TestServer, signed_registry};
//!
//! let server = TestServer::start();
//! let registry = signed_registry::install(&server);
//! // … `terraform providers lock` or `tfdisco lock` against
//! // `<server.host()>/ns/alpha` …
//! registry.corrupt("alpha", "2.0.0", "linux_amd64"); // the archive no longer matches
//! // A deflate bomb the registry vouches for: a new `SHA256SUMS` lists it,
//! // signed by a key made for it, which the version's answers carry.
//! let bomb = signed_registry::zeros_package("terraform-provider-alpha_v1.1.0", 256);
//! registry.serve_signed_archive("alpha", "1.1.0", "linux_amd64", &bomb);
//! ```

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::sample::version_entries;
use crate::{Reply, TestServer, zip_one};

/// The providers (types in namespace [`NAMESPACE`]) and their versions,
/// oldest first.
pub const PROVIDERS: [(&str, &[&str]); 2] = [
    ("alpha", &["1.0.0", "1.1.0", "2.0.0", "2.1.0-beta1"]),
    ("beta", &["0.9.0", "0.10.0-beta1", "0.10.0"]),
];
/// The namespace of every provider.
pub const NAMESPACE: &str = "ns";
/// The platforms every version is built for.
pub const PLATFORMS: [&str; 3] = ["linux_amd64", "darwin_arm64", "windows_amd64"];
/// Where the packages, sums and signatures are served from.
pub const FILES_PATH: &str = "/files/";

/// The committed fixture: packages, `SHA256SUMS`, signatures, `key.asc`
/// (compiled in: [`file()`] reads them).
pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/signed-registry")
}

/// The fixture's public key, ASCII-armored, as the package answers carry it.
pub fn public_key() -> String {
    text(KEY_ASC)
}

/// The key's id (16 hex digits).
pub fn key_id() -> String {
    text(KEY_ID).trim().to_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const KEY_ASC: &[u8] = include_bytes!("../fixtures/signed-registry/key.asc");
const KEY_ID: &[u8] = include_bytes!("../fixtures/signed-registry/key_id");

/// Every file of a version: its `SHA256SUMS`, signature and packages.
macro_rules! version_files {
    ($(($name:literal, $version:literal)),* $(,)?) => {
        &[$(
            (
                $name,
                $version,
                [
                    version_files!(@one $name, $version, "SHA256SUMS"),
                    version_files!(@one $name, $version, "SHA256SUMS.sig"),
                    version_files!(@one $name, $version, "linux_amd64.zip"),
                    version_files!(@one $name, $version, "darwin_arm64.zip"),
                    version_files!(@one $name, $version, "windows_amd64.zip"),
                ],
            ),
        )*]
    };
    (@one $name:literal, $version:literal, $tail:literal) => {
        (
            concat!("terraform-provider-", $name, "_", $version, "_", $tail),
            include_bytes!(concat!(
                "../fixtures/signed-registry/ns/", $name, "/", $version,
                "/terraform-provider-", $name, "_", $version, "_", $tail
            )) as &[u8],
        )
    };
}

type Files = [(&'static str, &'static [u8]); 5];

/// Every file, by provider and version.
const FILES: &[(&str, &str, Files)] = version_files!(
    ("alpha", "1.0.0"),
    ("alpha", "1.1.0"),
    ("alpha", "2.0.0"),
    ("alpha", "2.1.0-beta1"),
    ("beta", "0.9.0"),
    ("beta", "0.10.0-beta1"),
    ("beta", "0.10.0"),
);

/// The bytes of one of a version's files (`terraform-provider-…`).
pub fn file(name: &str, version: &str, file: &str) -> &'static [u8] {
    FILES
        .iter()
        .filter(|(n, v, _)| *n == name && *v == version)
        .flat_map(|(_, _, files)| files.iter())
        .find(|(f, _)| *f == file)
        .map(|(_, bytes)| *bytes)
        .unwrap_or_else(|| panic!("no file {file} for {name} {version}"))
}

/// The file name of a package: `terraform-provider-alpha_1.0.0_linux_amd64.zip`.
pub fn package_file(name: &str, version: &str, platform: &str) -> String {
    format!("terraform-provider-{name}_{version}_{platform}.zip")
}

/// The file name of a version's checksums.
pub fn sums_file(name: &str, version: &str) -> String {
    format!("terraform-provider-{name}_{version}_SHA256SUMS")
}

/// The SHA-256 `SHA256SUMS` lists for a package.
pub fn shasum(name: &str, version: &str, platform: &str) -> String {
    let sums = text(file(name, version, &sums_file(name, version)));
    let file = package_file(name, version, platform);
    sums.lines()
        .find_map(|line| {
            let (sum, listed) = line.split_once("  ")?;
            (listed == file).then(|| sum.to_owned())
        })
        .unwrap_or_else(|| panic!("{file} is not in its SHA256SUMS"))
}

/// The registry on a test server, whose answers can be spoiled.
pub struct SignedRegistry<'a> {
    server: &'a TestServer,
}

/// Serves the signed registry on `server`: the discovery document, the
/// provider registry API (`providers.v1` = `/v1/providers/`) and the files.
/// What it does not have is a 404 with `{"errors":["Not Found"]}`.
pub fn install(server: &TestServer) -> SignedRegistry<'_> {
    server.route(
        tfdisco_core::DISCOVERY_PATH,
        Reply::json(r#"{"providers.v1": "/v1/providers/"}"#),
    );
    server.route_prefix(
        "/",
        Reply::new(404)
            .header("Content-Type", "application/json")
            .body(br#"{"errors":["Not Found"]}"#),
    );
    install_registry(server)
}

/// Serves only the registry API answers and the files, for a discovery
/// document of the caller's whose `providers.v1` is `/v1/providers/` (the
/// sample registry's).
pub fn install_registry(server: &TestServer) -> SignedRegistry<'_> {
    for (name, versions) in PROVIDERS {
        server.route(
            &format!("/v1/providers/{NAMESPACE}/{name}/versions"),
            Reply::json(&versions_document(versions)),
        );
        for version in versions {
            let files = format!("{FILES_PATH}{NAMESPACE}/{name}/{version}/");
            let sums = sums_file(name, version);
            for file_name in [sums.clone(), format!("{sums}.sig")] {
                server.route(
                    &format!("{files}{file_name}"),
                    file_reply(file(name, version, &file_name)),
                );
            }
            for platform in PLATFORMS {
                let file_name = package_file(name, version, platform);
                server.route(
                    &format!("{files}{file_name}"),
                    file_reply(file(name, version, &file_name)),
                );
                let (os, arch) = platform.split_once('_').expect("OS_ARCH");
                server.route(
                    &format!("/v1/providers/{NAMESPACE}/{name}/{version}/download/{os}/{arch}"),
                    Reply::json(&package_document(name, version, platform)),
                );
            }
        }
    }
    SignedRegistry { server }
}

fn file_reply(bytes: &[u8]) -> Reply {
    Reply::new(200)
        .header("Content-Type", "application/octet-stream")
        .body(bytes)
}

fn versions_document(versions: &[&str]) -> String {
    let platforms: Vec<(&str, &str)> = PLATFORMS
        .iter()
        .map(|p| p.split_once('_').expect("OS_ARCH"))
        .collect();
    format!(
        r#"{{"versions": [{}], "warnings": null}}"#,
        version_entries(versions, &platforms)
    )
}

fn package_document(name: &str, version: &str, platform: &str) -> String {
    let key = (key_id(), public_key());
    package_document_with(
        name,
        version,
        platform,
        &shasum(name, version, platform),
        &key,
    )
}

/// The package answer with this `shasum` and signing key (its id and
/// armored public key).
fn package_document_with(
    name: &str,
    version: &str,
    platform: &str,
    shasum: &str,
    (key_id, armor): &(String, String),
) -> String {
    let (os, arch) = platform.split_once('_').expect("OS_ARCH");
    let files = format!("{FILES_PATH}{NAMESPACE}/{name}/{version}/");
    let file = package_file(name, version, platform);
    let sums = sums_file(name, version);
    object(&[
        ("protocols", "[\"5.0\"]".to_owned()),
        ("os", quoted(os)),
        ("arch", quoted(arch)),
        ("filename", quoted(&file)),
        ("download_url", quoted(&format!("{files}{file}"))),
        ("shasums_url", quoted(&format!("{files}{sums}"))),
        (
            "shasums_signature_url",
            quoted(&format!("{files}{sums}.sig")),
        ),
        ("shasum", quoted(shasum)),
        (
            "signing_keys",
            format!(
                r#"{{"gpg_public_keys": [{{"key_id": {}, "ascii_armor": {}, "trust_signature": "", "source": "tfdisco", "source_url": null}}]}}"#,
                quoted(key_id),
                quoted(armor)
            ),
        ),
    ])
}

/// `"text"` as JSON.
fn quoted(text: &str) -> String {
    tfdisco_core::serde_json::Value::from(text).to_string()
}

/// An object of these members, in this order.
fn object(members: &[(&str, String)]) -> String {
    let parts: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("{}: {v}", quoted(k)))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

impl SignedRegistry<'_> {
    /// Serves a package whose bytes no longer match its checksum (one byte
    /// changed in the middle).
    pub fn corrupt(&self, name: &str, version: &str, platform: &str) {
        let package = package_file(name, version, platform);
        let mut bytes = file(name, version, &package).to_vec();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x01;
        self.server.route(
            &format!("{FILES_PATH}{NAMESPACE}/{name}/{version}/{package}"),
            file_reply(&bytes),
        );
    }

    /// Serves `archive` as a package, in place of the fixture's: its
    /// checksum is still the fixture's, so the archive no longer matches it
    /// (as [`corrupt`](SignedRegistry::corrupt), with any bytes).
    pub fn serve_archive(&self, name: &str, version: &str, platform: &str, archive: &[u8]) {
        let package = package_file(name, version, platform);
        self.server.route(
            &format!("{FILES_PATH}{NAMESPACE}/{name}/{version}/{package}"),
            file_reply(archive),
        );
    }

    /// Serves `archive` as a package the registry vouches for: the
    /// version's `SHA256SUMS` lists its SHA-256 in place of the fixture
    /// package's, signed by a key made here (the fixture's private key is
    /// not kept), which every package answer of the version carries, with
    /// its `shasum`. Its checksum and signature verify: what is refused is
    /// the archive itself.
    pub fn serve_signed_archive(&self, name: &str, version: &str, platform: &str, archive: &[u8]) {
        self.serve_archive(name, version, platform, archive);
        let package = package_file(name, version, platform);
        let sha256: String = Sha256::digest(archive)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let sums_name = sums_file(name, version);
        let sums: String = text(file(name, version, &sums_name))
            .lines()
            .map(|line| match line.split_once("  ") {
                Some((_, listed)) if listed == package => format!("{sha256}  {package}\n"),
                _ => format!("{line}\n"),
            })
            .collect();
        let (key, signature) = sign(sums.as_bytes());
        let files = format!("{FILES_PATH}{NAMESPACE}/{name}/{version}/");
        self.server
            .route(&format!("{files}{sums_name}"), file_reply(sums.as_bytes()));
        self.server
            .route(&format!("{files}{sums_name}.sig"), file_reply(&signature));
        for other in PLATFORMS {
            let sum = if other == platform {
                sha256.clone()
            } else {
                shasum(name, version, other)
            };
            let (os, arch) = other.split_once('_').expect("OS_ARCH");
            self.server.route(
                &format!("/v1/providers/{NAMESPACE}/{name}/{version}/download/{os}/{arch}"),
                Reply::json(&package_document_with(name, version, other, &sum, &key)),
            );
        }
    }

    /// Serves, as a version's signature, one made over other bytes (another
    /// version's `SHA256SUMS`): it no longer verifies.
    pub fn bad_signature(&self, name: &str, version: &str) {
        let (_, versions) = PROVIDERS
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no provider {name}"));
        let other = versions
            .iter()
            .find(|v| **v != version)
            .expect("another version");
        let signature = file(name, other, &format!("{}.sig", sums_file(name, other)));
        self.server.route(
            &format!(
                "{FILES_PATH}{NAMESPACE}/{name}/{version}/{}.sig",
                sums_file(name, version)
            ),
            file_reply(signature),
        );
    }
}

/// A detached signature of `data` by an Ed25519 key made for it: the key's
/// id and armored public key, and the signature's bytes.
fn sign(data: &[u8]) -> ((String, String), Vec<u8>) {
    use pgp::composed::{DetachedSignature, KeyType, SecretKeyParamsBuilder};
    use pgp::crypto::hash::HashAlgorithm;
    use pgp::ser::Serialize;
    use pgp::types::Password;
    use rand::SeedableRng;

    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7fd_15c0);
    let key = SecretKeyParamsBuilder::default()
        .key_type(KeyType::Ed25519Legacy)
        .can_sign(true)
        .can_certify(true)
        .primary_user_id("tfdisco testkit <testkit@tfdisco.invalid>".into())
        .build()
        .expect("key parameters")
        .generate(&mut rng)
        .expect("a key");
    let signature = DetachedSignature::sign_binary_data(
        &mut rng,
        &key.primary_key,
        &Password::empty(),
        HashAlgorithm::Sha256,
        data,
    )
    .expect("a signature");
    let bytes = signature.to_bytes().expect("its bytes");
    (id_and_armor(&key), bytes)
}

/// A key's id (16 upper-case hex digits) and its armored public key, as a
/// registry's package answers give them.
pub(crate) fn id_and_armor(key: &pgp::composed::SignedSecretKey) -> (String, String) {
    use pgp::composed::ArmorOptions;
    use pgp::types::KeyDetails;

    let id: String = key
        .primary_key
        .legacy_key_id()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    let armor = key
        .to_public_key()
        .to_armored_string(ArmorOptions::default())
        .expect("armored");
    (id, armor)
}

/// A zip of one file `entry` (mode 0755, deflated) holding `mib` MiB of
/// zeros: a deflate bomb of about 1 KiB per MiB, made without holding its
/// content. The deflate stream of one MiB of zeros after another refers
/// only back to zeros, so it can follow itself any number of times.
pub fn zeros_package(entry: &str, mib: u32) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};

    /// `input` deflated by `c` and flushed to a byte boundary.
    fn piece(c: &mut Compress, input: &[u8], flush: FlushCompress) -> Vec<u8> {
        let start = c.total_in();
        let mut out = Vec::with_capacity(4096);
        loop {
            let done = usize::try_from(c.total_in() - start).expect("in memory");
            c.compress_vec(&input[done..], &mut out, flush)
                .expect("in memory");
            let taken = usize::try_from(c.total_in() - start).expect("in memory");
            if taken == input.len() && out.len() < out.capacity() {
                return out;
            }
            out.reserve(4096);
        }
    }

    assert!((1..4096).contains(&mib), "1 MiB to 4 GiB (no zip64)");
    let block = vec![0; 1 << 20];
    let mut c = Compress::new(Compression::new(6), false);
    let first = piece(&mut c, &block, FlushCompress::Sync);
    let again = piece(&mut c, &block, FlushCompress::Sync);
    let end = piece(&mut c, &[], FlushCompress::Finish);
    let mut one = flate2::Crc::new();
    one.update(&block);
    let mut crc = flate2::Crc::new();
    for _ in 0..mib {
        crc.combine(&one);
    }
    let crc = crc.sum();
    let packed = first.len() + again.len() * (mib as usize - 1) + end.len();
    let packed = u32::try_from(packed).expect("under 4 GiB");
    let entry = zip_one::Entry {
        name: entry,
        method: 8,
        time: 0,
        date: 0,
        crc,
        packed,
        size: mib << 20,
    };
    let repeats = std::iter::repeat_n(&again[..], mib as usize - 1);
    let data = std::iter::once(&first[..]).chain(repeats).chain([&end[..]]);
    zip_one::write(&entry, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_there_and_listed() {
        for (name, versions) in PROVIDERS {
            for version in versions {
                for platform in PLATFORMS {
                    let sum = shasum(name, version, platform);
                    assert_eq!(sum.len(), 64, "{name} {version} {platform}");
                }
                // What is compiled in is what the fixture holds.
                let dir = fixture_dir().join(NAMESPACE).join(name).join(version);
                let sums = sums_file(name, version);
                let names = PLATFORMS.iter().map(|p| package_file(name, version, p));
                for file_name in names.chain([sums.clone(), format!("{sums}.sig")]) {
                    let on_disk = std::fs::read(dir.join(&file_name)).expect("in the fixture");
                    assert_eq!(file(name, version, &file_name), on_disk, "{file_name}");
                }
            }
        }
        assert!(public_key().starts_with("-----BEGIN PGP PUBLIC KEY BLOCK-----"));
        assert_eq!(key_id().len(), 16);
    }

    #[test]
    fn package_answers_are_json() {
        let doc = package_document("beta", "0.10.0", "darwin_arm64");
        let value: serde_json::Value = serde_json::from_str(&doc).expect("JSON");
        assert_eq!(value["os"], "darwin");
        assert_eq!(
            value["signing_keys"]["gpg_public_keys"][0]["key_id"],
            key_id().as_str()
        );
        let versions: serde_json::Value =
            serde_json::from_str(&versions_document(PROVIDERS[0].1)).expect("JSON");
        assert_eq!(versions["versions"][3]["version"], "2.1.0-beta1");
    }

    /// A zeros package is a real package, whole: its `h1:` is that of one
    /// file of zeros; and a signature made here verifies with its key.
    #[test]
    fn zeros_packages_and_new_signatures_are_real() {
        let archive = zeros_package("bin", 3);
        let hashes = tfdisco_provider::hash_package(&archive).expect("a package");
        let zeros: [u8; 32] = Sha256::digest(vec![0; 3 << 20]).into();
        assert_eq!(
            hashes.h1(),
            tfdisco_provider::hash1_of_files(&[("bin", zeros)]).expect("a name")
        );
        assert!(archive.len() < 4096, "{} bytes", archive.len());
        let ((id, armor), signature) = sign(b"sums");
        let key = tfdisco_core::SigningKey {
            key_id: id.clone(),
            ascii_armor: armor,
            trust_signature: String::new(),
            source: String::new(),
            source_url: None,
        };
        let signer = tfdisco_provider::verify_signature(
            b"sums",
            &signature,
            &[key],
            std::time::SystemTime::now(),
            false,
        )
        .expect("it verifies");
        assert_eq!(signer.key_id, id);
    }
}
