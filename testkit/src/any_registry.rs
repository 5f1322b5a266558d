//! A provider registry that answers for any provider: every namespace and
//! type has the same long list of versions, a package for each of
//! [`PLATFORMS`], a `SHA256SUMS` and its signature, so that a real
//! configuration's constraints (`>= 5.46, < 6.0`, `~> 4.0`, `= 2.3.1`)
//! all have an answer. Both Terraform and tfdisco are pointed at it for
//! `registry.terraform.io` and `registry.opentofu.org` by a CLI
//! configuration's `host` blocks ([`cli_config`]), as the corpus of real
//! configurations does ([`crate::real_configurations`]).
//!
//! The packages are made on request and are the same bytes for the same
//! provider, version and platform on every run (a stored zip of one file
//! with fixed times), so lock files made against it are stable. The
//! signing key is made from a fixed seed when first needed, and each
//! `SHA256SUMS` is signed when asked for (the signature's bytes may differ
//! from one run to the next; what it signs does not).
//!
//! ```no_run
//! use tfdisco_testkit::{TestServer, any_registry};
//!
//! let server = TestServer::start();
//! any_registry::install(&server);
//! let rc = any_registry::cli_config(&server);
//! // … write `rc` to a file named by TF_CLI_CONFIG_FILE, trust the test CA,
//! // and run `terraform providers lock` or `tfdisco lock` …
//! # let _ = rc;
//! ```

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::{signed_registry, zip_one};

use crate::{Reply, TestServer};

/// The platforms every version has a package for, in the order
/// `SHA256SUMS` lists them (by file name).
pub const PLATFORMS: [&str; 5] = [
    "darwin_amd64",
    "darwin_arm64",
    "linux_amd64",
    "linux_arm64",
    "windows_amd64",
];

/// The hosts a [`cli_config`] sends to the registry.
pub const HOSTS: [&str; 2] = ["registry.terraform.io", "registry.opentofu.org"];

/// The registry API's path (`providers.v1`).
pub const PROVIDERS_PATH: &str = "/v1/providers/";

/// Where the packages, sums and signatures are served from.
pub const FILES_PATH: &str = "/any-files/";

/// Major versions `0` to `MAJORS - 1` are released.
const MAJORS: u64 = 8;
/// Each major version has minors `0` to `MINORS - 1`.
const MINORS: u64 = 131;
/// Each minor has patches `0` to `PATCHES - 1`.
const PATCHES: u64 = 6;

/// Every version of every provider, oldest first: every `M.m.p` with `M`
/// below 8, `m` below 131 and `p` below 6, and pre-releases newer than the
/// newest release of each major (`M.131.0-rc1`, and `8.0.0-beta1`), which
/// only a constraint naming them may select.
pub fn versions() -> &'static [String] {
    static VERSIONS: OnceLock<Vec<String>> = OnceLock::new();
    VERSIONS.get_or_init(|| {
        let mut out = Vec::new();
        for major in 0..MAJORS {
            for minor in 0..MINORS {
                for patch in 0..PATCHES {
                    out.push(format!("{major}.{minor}.{patch}"));
                }
            }
            out.push(format!("{major}.{MINORS}.0-rc1"));
        }
        out.push(format!("{MAJORS}.0.0-beta1"));
        out
    })
}

fn is_version(text: &str) -> bool {
    versions().iter().any(|v| v == text)
}

/// The package's file name: `terraform-provider-aws_5.1.0_linux_amd64.zip`.
pub fn package_file(type_name: &str, version: &str, platform: &str) -> String {
    format!("terraform-provider-{type_name}_{version}_{platform}.zip")
}

/// The file name of a version's checksums.
pub fn sums_file(type_name: &str, version: &str) -> String {
    format!("terraform-provider-{type_name}_{version}_SHA256SUMS")
}

/// A provider's package: a zip of one file, the provider's "binary"
/// (`terraform-provider-TYPE_vVERSION`, `.exe` on Windows), stored, mode
/// 0755, dated 2026-01-02 03:04:06, holding one line that names the
/// provider, version and platform. The same bytes on every call.
pub fn package(namespace: &str, type_name: &str, version: &str, platform: &str) -> Vec<u8> {
    let mut name = format!("terraform-provider-{type_name}_v{version}");
    if platform.starts_with("windows_") {
        name.push_str(".exe");
    }
    let content = format!("{namespace}/{type_name} {version} {platform}\n");
    stored_zip(&name, content.as_bytes())
}

/// A zip of one stored file with mode 0755.
fn stored_zip(name: &str, content: &[u8]) -> Vec<u8> {
    /// 2026-01-02 03:04:06 in MS-DOS form.
    const DOS_TIME: u16 = (3 << 11) | (4 << 5) | 3;
    const DOS_DATE: u16 = ((2026 - 1980) << 9) | (1 << 5) | 2;
    let mut crc = flate2::Crc::new();
    crc.update(content);
    let crc = crc.sum();
    let size = u32::try_from(content.len()).expect("a small file");
    let entry = zip_one::Entry {
        name,
        method: 0,
        time: DOS_TIME,
        date: DOS_DATE,
        crc,
        packed: size,
        size,
    };
    zip_one::write(&entry, [content])
}

/// The SHA-256 of `bytes`, in lower-case hex.
fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A version's `SHA256SUMS`: every platform's package, sorted by name.
pub fn sums(namespace: &str, type_name: &str, version: &str) -> String {
    PLATFORMS
        .iter()
        .map(|platform| {
            let zip = package(namespace, type_name, version, platform);
            format!(
                "{}  {}\n",
                sha256_hex(&zip),
                package_file(type_name, version, platform)
            )
        })
        .collect()
}

/// The signing key: its id (16 hex digits), its armored public half, and
/// the key itself.
struct Key {
    id: String,
    armor: String,
    secret: pgp::composed::SignedSecretKey,
}

fn key() -> &'static Key {
    use pgp::composed::{KeyType, SecretKeyParamsBuilder};
    use rand::SeedableRng;

    static KEY: OnceLock<Key> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0xa110_fa11);
        let secret = SecretKeyParamsBuilder::default()
            .key_type(KeyType::Ed25519Legacy)
            .can_sign(true)
            .can_certify(true)
            .primary_user_id("tfdisco any registry <any-registry@tfdisco.invalid>".into())
            .created_at(pgp::types::Timestamp::from_secs(1_767_322_800))
            .build()
            .expect("key parameters")
            .generate(&mut rng)
            .expect("a key");
        let (id, armor) = signed_registry::id_and_armor(&secret);
        Key { id, armor, secret }
    })
}

/// The key's id (16 hex digits), as the package answers give it.
pub fn key_id() -> String {
    key().id.clone()
}

/// A detached signature of `data` by the key.
fn sign(data: &[u8]) -> Vec<u8> {
    use pgp::composed::DetachedSignature;
    use pgp::crypto::hash::HashAlgorithm;
    use pgp::ser::Serialize;
    use pgp::types::Password;
    use rand::SeedableRng;

    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5190_fa11);
    DetachedSignature::sign_binary_data(
        &mut rng,
        &key().secret.primary_key,
        &Password::empty(),
        HashAlgorithm::Sha256,
        data,
    )
    .expect("a signature")
    .to_bytes()
    .expect("its bytes")
}

/// Serves the registry on `server`: the discovery document
/// (`providers.v1`), the versions of any provider, the package answers,
/// the packages, sums and signatures. What it does not have (another
/// platform, an unknown version, another path) is a 404 with
/// `{"errors":["Not Found"]}`.
pub fn install(server: &TestServer) {
    server.route(
        tfdisco_core::DISCOVERY_PATH,
        Reply::json(&format!(r#"{{"providers.v1": "{PROVIDERS_PATH}"}}"#)),
    );
    server.route_prefix(
        "/",
        Reply::new(404)
            .header("Content-Type", "application/json")
            .body(br#"{"errors":["Not Found"]}"#),
    );
    let base = server.url("");
    server.route_with(PROVIDERS_PATH, move |path| registry_answer(&base, path));
    server.route_with(FILES_PATH, file_answer);
}

/// A CLI configuration that sends both [`HOSTS`] to `server`'s registry
/// (`host` blocks) and turns the checkpoint off.
pub fn cli_config(server: &TestServer) -> String {
    let mut out = String::from("disable_checkpoint = true\n");
    for host in HOSTS {
        out.push_str(&format!(
            "\nhost \"{host}\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n",
            server.url(PROVIDERS_PATH)
        ));
    }
    out
}

/// `/v1/providers/NS/TYPE/versions` and
/// `/v1/providers/NS/TYPE/VERSION/download/OS/ARCH`.
fn registry_answer(base: &str, path: &str) -> Option<Reply> {
    let rest = path.strip_prefix(PROVIDERS_PATH)?;
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        [namespace, type_name, "versions"] => {
            Some(Reply::json(&versions_document(namespace, type_name)))
        }
        [namespace, type_name, version, "download", os, arch] => {
            let platform = format!("{os}_{arch}");
            (is_version(version) && PLATFORMS.contains(&platform.as_str())).then(|| {
                Reply::json(&package_document(
                    base, namespace, type_name, version, &platform,
                ))
            })
        }
        _ => None,
    }
}

/// `/any-files/NS/TYPE/VERSION/FILE`: a package, the sums or the signature.
fn file_answer(path: &str) -> Option<Reply> {
    let rest = path.strip_prefix(FILES_PATH)?;
    let [namespace, type_name, version, file] = rest.split('/').collect::<Vec<_>>()[..] else {
        return None;
    };
    if !is_version(version) {
        return None;
    }
    let sums_name = sums_file(type_name, version);
    let bytes = if file == sums_name {
        sums(namespace, type_name, version).into_bytes()
    } else if file == format!("{sums_name}.sig") {
        sign(sums(namespace, type_name, version).as_bytes())
    } else {
        let platform = PLATFORMS
            .iter()
            .find(|p| file == package_file(type_name, version, p))?;
        package(namespace, type_name, version, platform)
    };
    Some(
        Reply::new(200)
            .header("Content-Type", "application/octet-stream")
            .body(&bytes),
    )
}

fn versions_document(namespace: &str, type_name: &str) -> String {
    let entries: Vec<String> = versions()
        .iter()
        .map(|v| format!(r#"{{"version":"{v}","protocols":["5.0"]}}"#))
        .collect();
    format!(
        r#"{{"id":{},"versions":[{}],"warnings":null}}"#,
        quoted(&format!("{namespace}/{type_name}")),
        entries.join(",")
    )
}

fn package_document(
    base: &str,
    namespace: &str,
    type_name: &str,
    version: &str,
    platform: &str,
) -> String {
    let (os, arch) = platform.split_once('_').expect("OS_ARCH");
    let files = format!("{base}{FILES_PATH}{namespace}/{type_name}/{version}/");
    let file = package_file(type_name, version, platform);
    let sums = sums_file(type_name, version);
    let shasum = sha256_hex(&package(namespace, type_name, version, platform));
    let key = key();
    format!(
        r#"{{"protocols":["5.0"],"os":{},"arch":{},"filename":{},"download_url":{},"shasums_url":{},"shasums_signature_url":{},"shasum":{},"signing_keys":{{"gpg_public_keys":[{{"key_id":{},"ascii_armor":{},"trust_signature":"","source":"tfdisco","source_url":null}}]}}}}"#,
        quoted(os),
        quoted(arch),
        quoted(&file),
        quoted(&format!("{files}{file}")),
        quoted(&format!("{files}{sums}")),
        quoted(&format!("{files}{sums}.sig")),
        quoted(&shasum),
        quoted(&key.id),
        quoted(&key.armor),
    )
}

/// `"text"` as JSON.
fn quoted(text: &str) -> String {
    tfdisco_core::serde_json::Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_are_the_same_bytes_every_time_and_real_packages() {
        let zip = package("hashicorp", "aws", "5.1.0", "windows_amd64");
        assert_eq!(zip, package("hashicorp", "aws", "5.1.0", "windows_amd64"));
        assert_ne!(zip, package("hashicorp", "aws", "5.1.0", "linux_amd64"));
        let hashes = tfdisco_provider::hash_package(&zip).expect("a package");
        let content: [u8; 32] = Sha256::digest(b"hashicorp/aws 5.1.0 windows_amd64\n").into();
        assert_eq!(
            hashes.h1(),
            tfdisco_provider::hash1_of_files(&[("terraform-provider-aws_v5.1.0.exe", content)])
                .expect("a name")
        );
    }

    #[test]
    fn sums_list_every_platform_and_signatures_verify() {
        let sums = sums("hashicorp", "null", "3.2.4");
        assert_eq!(sums.lines().count(), PLATFORMS.len());
        assert!(sums.contains("  terraform-provider-null_3.2.4_linux_amd64.zip\n"));
        let signature = sign(sums.as_bytes());
        let key = tfdisco_core::SigningKey {
            key_id: key_id(),
            ascii_armor: key().armor.clone(),
            trust_signature: String::new(),
            source: String::new(),
            source_url: None,
        };
        let signer = tfdisco_provider::verify_signature(
            sums.as_bytes(),
            &signature,
            &[key],
            std::time::SystemTime::now(),
            false,
        )
        .expect("it verifies");
        assert_eq!(signer.key_id, key_id());
    }

    #[test]
    fn versions_answer_real_constraints() {
        let all = versions();
        assert_eq!(all.len(), (MAJORS * MINORS * PATCHES + MAJORS + 1) as usize);
        for wanted in [
            "5.46.0",
            "4.130.5",
            "2.3.1",
            "0.9.0",
            "7.130.5",
            "7.131.0-rc1",
        ] {
            assert!(is_version(wanted), "{wanted}");
        }
        let doc: serde_json::Value =
            serde_json::from_str(&versions_document("hashicorp", "aws")).expect("JSON");
        assert_eq!(doc["versions"][0]["version"], "0.0.0");
        let package: serde_json::Value = serde_json::from_str(&package_document(
            "https://h",
            "ns",
            "t",
            "1.0.0",
            "linux_arm64",
        ))
        .expect("JSON");
        assert_eq!(
            package["download_url"],
            "https://h/any-files/ns/t/1.0.0/terraform-provider-t_1.0.0_linux_arm64.zip"
        );
    }
}
