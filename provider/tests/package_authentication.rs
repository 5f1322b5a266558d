//! A downloaded package checked as both CLIs check it (docs/behaviour.md,
//! HASH-10 to HASH-20, API-13): `SHA256SUMS`, the detached OpenPGP
//! signature with a test key made by GnuPG (its public half, the
//! `SHA256SUMS` and the signatures are fixtures; no private key is kept),
//! the trust levels, OpenTofu's `packages`, and the order of the checks.

#[path = "../../core/tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tfdisco_core::url::Url;
use tfdisco_core::{
    Config, Dialect, Error, Hostname, Platform, ProviderPackage, ProviderSource, Services,
    SigningKey, Transfer,
};
use tfdisco_provider::{
    AuthenticationError, PackageCheck, PackageHashes, Sha256Sums, SignatureCheck, SignatureError,
    SumsError, Trust, TrustRoots, authenticate_package, hash_package, verify_signature,
};

use common::{Net, Reply};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packages");
    std::fs::read(path.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn text(name: &str) -> String {
    String::from_utf8(fixture(name)).expect("UTF-8")
}

/// The test signing key: an Ed25519 primary key that only certifies, and an
/// Ed25519 subkey that signs (as HashiCorp's key signs with a subkey).
const SIGNING_KEY_ID: &str = "CD9C218946CEC21B";
const RSA_KEY_ID: &str = "F9D2587B51F5CF79";
const LINUX: &str = "terraform-provider-example_1.0.0_linux_amd64.zip";

fn key(name: &str) -> SigningKey {
    SigningKey {
        key_id: String::new(),
        ascii_armor: text(&format!("signing/{name}.asc")),
        trust_signature: String::new(),
        source: String::new(),
        source_url: None,
    }
}

/// When the fixtures were signed (the signatures' creation time).
fn signed_at() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_795_604_970)
}

fn sums() -> Vec<u8> {
    fixture("signing/SHA256SUMS")
}

#[test]
fn sha256sums_are_read_as_terraform_reads_them() {
    let sums = Sha256Sums::new(sums());
    let linux = sums.lookup(LINUX).expect("listed");
    let archive = hash_package(&fixture("deflated.zip")).expect("hashes");
    assert_eq!(linux, archive.sha256());
    assert!(sums.check(LINUX, &archive.sha256()).is_ok());
    assert_eq!(
        sums.lookup("other.zip")
            .expect_err("not listed")
            .to_string(),
        r#"checksum list has no SHA-256 hash for "other.zip""#
    );
    let zh = sums.zip_hashes().expect("a checksums list");
    assert_eq!(zh.len(), 3);
    assert!(zh.contains(&archive.zh()));

    let a = "a".repeat(64);
    let b = "B".repeat(64);
    // The first line naming the file wins; `*name` is another name; fields
    // are split at any white space, Unicode's too; hex in either case.
    let doc = format!("{a}  *x.zip\n{b}\u{a0}x.zip extra\r\n{a}  x.zip\n");
    let sums = Sha256Sums::new(doc.as_bytes());
    assert_eq!(sums.lookup("x.zip"), Ok([0xbb; 32]));
    assert_eq!(sums.lookup("*x.zip"), Ok([0xaa; 32]));
    // A hash that is not hex, of odd length, too short or too long.
    let bad = |hash: &str| Sha256Sums::new(format!("{hash}  x.zip\n")).lookup("x.zip");
    assert_eq!(
        bad(&"g".repeat(64)).expect_err("not hex").to_string(),
        format!(
            "checksum list has invalid SHA256 hash \"{}\": encoding/hex: invalid byte: U+0067 'g'",
            "g".repeat(64)
        )
    );
    assert!(
        bad("abc")
            .expect_err("odd")
            .to_string()
            .ends_with("encoding/hex: odd length hex string")
    );
    let short = bad("abcd").expect("Go decodes what there is");
    assert_eq!(&short[..3], &[0xab, 0xcd, 0]);
    let err = Sha256Sums::new("abcd  x.zip\n")
        .check("x.zip", &[0xaa; 32])
        .expect_err("mismatch");
    assert!(matches!(err, SumsError::Mismatch { .. }));
    assert!(
        err.to_string().starts_with(
            "checksum list has unexpected SHA-256 hash abcd0000000000000000000000000000"
        ),
        "{err}"
    );
    // Go panics on more than 64 digits; here it is an error.
    assert!(matches!(
        bad(&"a".repeat(66)),
        Err(SumsError::InvalidHash { .. })
    ));

    // The lock file's zh: list: none when the document is no checksums
    // list.
    for doc in [
        format!("{a}  x.zip\njust-one-field\n"),
        format!("{}  x.zip\n", "a".repeat(63)),
        format!("{}  x.zip\n", "g".repeat(64)),
        format!("{a}  x.zip\n\n{b}  y.zip\n"),
    ] {
        assert_eq!(
            Sha256Sums::new(doc.as_bytes()).zip_hashes(),
            None,
            "{doc:?}"
        );
    }
    let list = Sha256Sums::new(format!("{b}  y.zip\r\n{a}  x.zip")).zip_hashes();
    assert_eq!(
        list,
        Some(vec![format!("zh:{}", "b".repeat(64)), format!("zh:{a}")])
    );
    // bufio.Scanner stops at a line of 64 KiB; what came before is kept.
    let long = format!("{a}  x.zip\n{}\n{b}  y.zip\n", "c".repeat(70_000));
    assert_eq!(
        Sha256Sums::new(long).zip_hashes(),
        Some(vec![format!("zh:{a}")])
    );
}

#[test]
fn a_signature_verifies_with_the_key_that_made_it() {
    let now = signed_at();
    let signer = verify_signature(
        &sums(),
        &fixture("signing/SHA256SUMS.sig"),
        &[key("signing")],
        now,
        false,
    )
    .expect("verifies");
    // Made by the signing subkey, reported under the primary key's id.
    assert_eq!(signer.key_id, SIGNING_KEY_ID);
    assert_eq!(signer.key_index, 0);
    // The first key that made it, after keys that did not.
    let keys = [key("other"), key("rsa"), key("signing")];
    let signer = verify_signature(
        &sums(),
        &fixture("signing/SHA256SUMS.sig"),
        &keys,
        now,
        false,
    )
    .expect("verifies");
    assert_eq!(signer.key_index, 2);
    let signer = verify_signature(
        &sums(),
        &fixture("signing/SHA256SUMS.rsa.sig"),
        &keys,
        now,
        false,
    )
    .expect("RSA verifies");
    assert_eq!((signer.key_index, signer.key_id.as_str()), (1, RSA_KEY_ID));
}

#[test]
fn signatures_that_do_not_verify() {
    let now = signed_at();
    let sig = fixture("signing/SHA256SUMS.sig");
    // No key made it.
    for keys in [vec![key("other")], vec![]] {
        assert_eq!(
            verify_signature(&sums(), &sig, &keys, now, false),
            Err(SignatureError::UnknownIssuer)
        );
    }
    // The key that made it, over other bytes.
    let mut changed = sums();
    changed[0] ^= 1;
    let err = verify_signature(&changed, &sig, &[key("signing")], now, false).expect_err("bad");
    assert!(matches!(err, SignatureError::Invalid { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("error checking signature: openpgp: invalid signature")
    );
    // An armored signature: both CLIs read the file as binary packets.
    let err = verify_signature(
        &sums(),
        &fixture("signing/SHA256SUMS.sig.asc"),
        &[key("signing")],
        now,
        false,
    )
    .expect_err("armored");
    assert!(matches!(err, SignatureError::Invalid { .. }), "{err}");
    assert_eq!(
        verify_signature(&sums(), b"", &[key("signing")], now, false),
        Err(SignatureError::UnknownIssuer)
    );
    // A key that does not parse stops the search, before the one that made
    // it; after it, it is never read. The message quotes no key material.
    let mut garbage = key("signing");
    garbage.ascii_armor = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nnot base64!\n".into();
    let err = verify_signature(
        &sums(),
        &sig,
        &[garbage.clone(), key("signing")],
        now,
        false,
    )
    .expect_err("stops");
    assert!(matches!(err, SignatureError::Key { index: 0, .. }), "{err}");
    assert!(
        err.to_string().starts_with("error decoding signing key"),
        "{err}"
    );
    assert!(!err.to_string().contains("not base64"), "{err}");
    assert!(verify_signature(&sums(), &sig, &[key("signing"), garbage], now, false).is_ok());
}

#[test]
fn an_expired_signature_fails_terraform_and_warns_opentofu() {
    let sig = fixture("signing/SHA256SUMS.expiring.sig");
    let keys = [key("signing")];
    // Valid for a day from its creation.
    let within = signed_at() + Duration::from_secs(3600);
    let after = signed_at() + Duration::from_secs(2 * 86_400);
    assert!(verify_signature(&sums(), &sig, &keys, within, false).is_ok());
    assert_eq!(
        verify_signature(&sums(), &sig, &keys, after, false),
        Err(SignatureError::Expired {
            key_id: SIGNING_KEY_ID.into()
        })
    );
    let signer = verify_signature(&sums(), &sig, &keys, after, true).expect("OpenTofu accepts");
    assert!(signer.expired);
}

/// The registry answer, read as the CLIs read it.
fn answer(
    dialect: Dialect,
    keys: &[SigningKey],
    shasum: &str,
    packages: &str,
) -> Result<ProviderPackage, Error> {
    let keys: Vec<String> = keys
        .iter()
        .map(|k| {
            format!(
                r#"{{"key_id": "X", "ascii_armor": {}, "trust_signature": {}}}"#,
                serde_json(&k.ascii_armor),
                serde_json(&k.trust_signature)
            )
        })
        .collect();
    let body = format!(
        r#"{{"protocols": ["5.0"], "os": "linux", "arch": "amd64", "filename": "{LINUX}",
        "download_url": "{LINUX}", "shasums_url": "SHA256SUMS",
        "shasums_signature_url": "SHA256SUMS.sig", "shasum": "{shasum}",
        "signing_keys": {{"gpg_public_keys": [{}]}}{packages}}}"#,
        keys.join(", ")
    );
    let host = match dialect {
        Dialect::OpenTofu => "registry.opentofu.org",
        _ => "registry.terraform.io",
    };
    let mut net = Net::new();
    net.on(
        &format!("https://{host}/v1/providers/hashicorp/example/1.0.0/download/linux/amd64"),
        Reply::json(&body),
    );
    let services = Services::from_json(
        Hostname::parse(host).expect("valid"),
        Url::parse(&format!("https://{host}/.well-known/terraform.json")).expect("valid"),
        dialect,
        br#"{"providers.v1": "/v1/providers/"}"#,
    )
    .expect("a document");
    let transfer = Transfer::provider_package(
        &services,
        &ProviderSource::parse(&format!("{host}/hashicorp/example"), dialect).expect("valid"),
        "1.0.0",
        &Platform::parse("linux_amd64").expect("valid"),
        &Config::new(dialect),
        None,
        net.now(),
    );
    net.run(transfer)
}

fn serde_json(s: &str) -> String {
    tfdisco_core::serde_json::to_string(s).expect("a string")
}

fn linux() -> PackageHashes {
    hash_package(&fixture("deflated.zip")).expect("hashes")
}

fn authenticate(
    package: &ProviderPackage,
    sums: &[u8],
    signature: &[u8],
    archive: &PackageHashes,
    how: &SignatureCheck,
) -> Result<tfdisco_provider::Authentication, AuthenticationError> {
    authenticate_package(
        &PackageCheck {
            package,
            sha256sums: sums,
            signature,
            archive,
        },
        how,
    )
}

#[test]
fn terraform_reports_how_the_key_is_trusted() {
    let archive = linux();
    let sha = archive.sha256_hex();
    let sig = fixture("signing/SHA256SUMS.sig");
    let how = SignatureCheck::new(Dialect::Terraform, signed_at());
    // No trust signature: community ("self-signed"), with the key id; the
    // real HashiCorp keys are read to tell.
    let package = answer(
        Dialect::Terraform,
        &[key("other"), key("signing")],
        &sha,
        "",
    )
    .expect("answer");
    let auth = authenticate(&package, &sums(), &sig, &archive, &how).expect("authenticates");
    assert_eq!(auth.trust, Trust::Community);
    assert_eq!(
        auth.describe(),
        format!("self-signed, key ID {SIGNING_KEY_ID}")
    );
    assert_eq!(auth.signer.as_ref().map(|s| s.key_index), Some(1));
    // The lock file's hashes: the archive's h1 and every zh of SHA256SUMS.
    assert_eq!(auth.hashes.len(), 4);
    assert!(auth.hashes.contains(&archive.h1()) && auth.hashes.contains(&archive.zh()));
    assert!(auth.hashes.windows(2).all(|w| w[0] < w[1]));

    // A trust signature made by the partner key: partner.
    let mut trusted = key("signing");
    trusted.trust_signature = text("signing/signing.trust.asc");
    let package = answer(Dialect::Terraform, &[trusted.clone()], &sha, "").expect("answer");
    let roots = TrustRoots::new(text("signing/other.asc"), text("signing/partners.asc"));
    let partner = SignatureCheck {
        trust_roots: roots,
        ..how.clone()
    };
    let auth = authenticate(&package, &sums(), &sig, &archive, &partner).expect("authenticates");
    assert_eq!(auth.trust, Trust::Partner);
    assert_eq!(
        auth.describe(),
        format!("signed by a HashiCorp partner, key ID {SIGNING_KEY_ID}")
    );
    // A trust signature HashiCorp's real partner key did not make: an error.
    let err = authenticate(&package, &sums(), &sig, &archive, &how).expect_err("not HashiCorp's");
    assert_eq!(err.check(), "trust-signature");
    assert!(err.is_signature());
    assert!(
        err.to_string()
            .starts_with("error verifying trust signature"),
        "{err}"
    );
    // Signed by the official key itself: official, whatever the trust
    // signature.
    let official = SignatureCheck {
        trust_roots: TrustRoots::new(text("signing/signing.asc"), text("signing/partners.asc")),
        ..how.clone()
    };
    let auth = authenticate(&package, &sums(), &sig, &archive, &official).expect("authenticates");
    assert_eq!(
        (auth.trust, auth.describe().as_str()),
        (Trust::Official, "signed by HashiCorp")
    );
}

#[test]
fn the_checks_run_in_the_clis_order() {
    let archive = linux();
    let sha = archive.sha256_hex();
    let sig = fixture("signing/SHA256SUMS.sig");
    let mut bad_sig = sig.clone();
    let last = bad_sig.len() - 1;
    bad_sig[last] ^= 1;
    let how = SignatureCheck::new(Dialect::Terraform, signed_at());
    let package = answer(Dialect::Terraform, &[key("signing")], &sha, "").expect("answer");

    // 1. SHA256SUMS must list the shasum for the file name (before the
    //    signature is looked at).
    let mut renamed = package.clone();
    renamed.filename = "terraform-provider-example_1.0.0_plan9_amd64.zip".into();
    let err = authenticate(&renamed, &sums(), &bad_sig, &archive, &how).expect_err("not listed");
    assert_eq!((err.check(), err.file()), ("checksum", "SHA256SUMS"));
    assert!(!err.is_signature());
    let mut other = package.clone();
    other.shasum = "0".repeat(64);
    let err = authenticate(&other, &sums(), &bad_sig, &archive, &how).expect_err("mismatch");
    assert!(
        err.to_string()
            .starts_with("checksum list has unexpected SHA-256 hash"),
        "{err}"
    );
    // 2. The archive must be the one the shasum names.
    let stored = hash_package(&fixture("stored.zip")).expect("hashes");
    let err = authenticate(&package, &sums(), &bad_sig, &stored, &how).expect_err("archive");
    assert_eq!(err.check(), "archive");
    assert_eq!(
        err.to_string(),
        format!(
            "archive has incorrect checksum {} (expected zh:{sha})",
            stored.zh()
        )
    );
    // 3. The signature.
    let err = authenticate(&package, &sums(), &bad_sig, &archive, &how).expect_err("signature");
    assert_eq!(
        (err.check(), err.file()),
        ("signature", "SHA256SUMS's signature")
    );
    assert!(
        err.to_string().starts_with("error checking signature"),
        "{err}"
    );
    let err = authenticate(
        &package,
        &sums(),
        &fixture("signing/SHA256SUMS.rsa.sig"),
        &archive,
        &how,
    )
    .expect_err("another key");
    assert_eq!(
        err.to_string(),
        "authentication signature from unknown issuer"
    );
    // An expired signature fails Terraform.
    let late = SignatureCheck::new(
        Dialect::Terraform,
        signed_at() + Duration::from_secs(3 * 86_400),
    );
    let expiring = fixture("signing/SHA256SUMS.expiring.sig");
    assert_eq!(
        authenticate(&package, &sums(), &expiring, &archive, &late)
            .expect_err("expired")
            .check(),
        "signature"
    );
}

#[test]
fn opentofu_checks_and_words() {
    let archive = linux();
    let sha = archive.sha256_hex();
    let sig = fixture("signing/SHA256SUMS.sig");
    let how = SignatureCheck::new(Dialect::OpenTofu, signed_at());
    let package = answer(Dialect::OpenTofu, &[key("signing")], &sha, "").expect("answer");
    assert_eq!(package.packages, None);
    let auth = authenticate(&package, &sums(), &sig, &archive, &how).expect("authenticates");
    assert_eq!(auth.trust, Trust::Signed);
    assert_eq!(auth.describe(), format!("signed, key ID {SIGNING_KEY_ID}"));
    let err = authenticate(
        &package,
        &sums(),
        &fixture("signing/SHA256SUMS.rsa.sig"),
        &archive,
        &how,
    )
    .expect_err("another key");
    assert_eq!(
        err.to_string(),
        "the provider is not signed with a valid signing key; please contact the provider author \
         (authentication signature from unknown issuer)"
    );
    // An expired signature is accepted, unless refused.
    let late = SignatureCheck::new(
        Dialect::OpenTofu,
        signed_at() + Duration::from_secs(3 * 86_400),
    );
    let expiring = fixture("signing/SHA256SUMS.expiring.sig");
    let auth = authenticate(&package, &sums(), &expiring, &archive, &late).expect("accepted");
    assert!(auth.signer.is_some_and(|s| s.expired));
    let strict = SignatureCheck {
        refuse_expired: true,
        ..late
    };
    assert!(authenticate(&package, &sums(), &expiring, &archive, &strict).is_err());
    // No keys from OpenTofu's registry: the signature is not checked...
    let keyless = answer(Dialect::OpenTofu, &[], &sha, "").expect("answer");
    let auth = authenticate(&keyless, &sums(), b"", &archive, &how).expect("skipped");
    assert_eq!(
        (auth.trust, auth.signer.is_none()),
        (Trust::SigningSkipped, true)
    );
    assert_eq!(auth.describe(), "signing skipped");
    // ...unless required, or from another registry.
    let required = SignatureCheck {
        require_signature: true,
        ..how.clone()
    };
    assert!(authenticate(&keyless, &sums(), b"", &archive, &required).is_err());
    let mut elsewhere = keyless.clone();
    elsewhere.source =
        ProviderSource::parse("example.com/hashicorp/example", Dialect::OpenTofu).expect("valid");
    assert!(authenticate(&elsewhere, &sums(), b"", &archive, &how).is_err());
}

fn packages(linux_hashes: &str, size: &str) -> String {
    format!(
        r#", "packages": {{
            "darwin_arm64": {{"hashes": ["h1:darwin=", "zh:{}", "x:other"], "package_size": 5}},
            "linux_amd64": {{"hashes": {linux_hashes}, "package_size": {size}}}
        }}"#,
        "d".repeat(64)
    )
}

#[test]
fn opentofu_reads_and_checks_the_registrys_packages() {
    let archive = linux();
    let sha = archive.sha256_hex();
    let size = archive.size().to_string();
    let sig = fixture("signing/SHA256SUMS.sig");
    let how = SignatureCheck::new(Dialect::OpenTofu, signed_at());
    let good = format!(r#"["{}", "zh:{sha}"]"#, archive.h1());
    let package = answer(
        Dialect::OpenTofu,
        &[key("signing")],
        &sha,
        &packages(&good, &size),
    )
    .expect("answer");
    let read = package.packages.as_deref().expect("packages");
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].platform.to_string(), "darwin_arm64");
    assert_eq!(read[1].hashes, vec![archive.h1(), archive.zh()]);
    assert_eq!(read[1].package_size, archive.size() as i64);
    let auth = authenticate(&package, &sums(), &sig, &archive, &how).expect("authenticates");
    // Every platform's h1 and zh join the lock file's hashes (not `x:`).
    assert!(auth.hashes.contains(&"h1:darwin=".to_owned()));
    assert!(!auth.hashes.iter().any(|h| h.starts_with("x:")));
    // Terraform does not read the member at all.
    let tf = answer(
        Dialect::Terraform,
        &[key("signing")],
        &sha,
        &packages("[1]", "\"x\""),
    )
    .expect("ignored");
    assert_eq!(tf.packages, None);

    // The checks, before SHA256SUMS's.
    for (hashes, size, want) in [
        (
            good.clone(),
            "1".to_owned(),
            "registry response indicates a package of size 1, but received",
        ),
        (
            good.clone(),
            "0".to_owned(),
            "registry response has invalid package size 0",
        ),
        (
            good.clone(),
            "null".to_owned(),
            "registry response has invalid package size 0",
        ),
        (
            format!(r#"["{}"]"#, archive.h1()),
            size.clone(),
            "does not contain matching sha256sum",
        ),
        (
            format!(r#"["zh:{}"]"#, "e".repeat(64)),
            size.clone(),
            "which does not match the platform's value",
        ),
    ] {
        let package = answer(
            Dialect::OpenTofu,
            &[key("signing")],
            &sha,
            &packages(&hashes, &size),
        )
        .expect("answer");
        let err = authenticate(&package, b"", b"", &archive, &how).expect_err(want);
        assert_eq!(err.check(), "packages");
        assert!(err.to_string().contains(want), "{err}");
    }
    let no_linux = r#", "packages": {"darwin_arm64": {"hashes": [], "package_size": 1}}"#;
    let package = answer(Dialect::OpenTofu, &[key("signing")], &sha, no_linux).expect("answer");
    let err = authenticate(&package, b"", b"", &archive, &how).expect_err("missing");
    assert_eq!(
        err.to_string(),
        r#"registry response missing package with platform "linux_amd64""#
    );

    // Answers OpenTofu refuses.
    for (member, want) in [
        (
            r#", "packages": {"linux": {}}"#,
            "must be two words separated by an underscore",
        ),
        (r#", "packages": {"a_b_c": {}}"#, "must be two words"),
        (
            r#", "packages": {"li nux_amd64": {}}"#,
            "OS portion must not contain whitespace",
        ),
        (
            r#", "packages": {"linux_amd64": {"hashes": [":x"]}}"#,
            "invalid package hash \":x\"",
        ),
        (
            r#", "packages": {"linux_amd64": {"hashes": ["nocolon"]}}"#,
            "scheme keyword followed by a colon",
        ),
        (
            r#", "packages": {"linux_amd64": {"package_size": 1.5}}"#,
            "invalid type",
        ),
        (
            r#", "packages": {"linux_amd64": {"hashes": [1]}}"#,
            "invalid type",
        ),
    ] {
        let err = answer(Dialect::OpenTofu, &[], &sha, member).expect_err(want);
        assert!(err.to_string().contains(want), "{member}: {err}");
    }
    // null and {} are no packages to check.
    for member in [r#", "packages": null"#, r#", "packages": {}"#] {
        let package = answer(Dialect::OpenTofu, &[key("signing")], &sha, member).expect("answer");
        assert!(
            authenticate(&package, &sums(), &sig, &archive, &how).is_ok(),
            "{member}"
        );
    }
}
