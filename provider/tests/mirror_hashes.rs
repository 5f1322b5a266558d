//! A network mirror's hashes (docs/behaviour.md, HASH-21, HASH-22): the
//! `h1:` of an archive as `dirhash.HashZip` gives it, and which listed hash
//! vouches for an archive.

use tfdisco_core::Dialect;
use tfdisco_provider::{Trust, authenticate_mirror_archive, hash_package};

const T: Dialect = Dialect::Terraform;

/// HASH-21: `h1_zip` is `dirhash.HashZip`'s hash, folder entries included:
/// what Terraform's `providers mirror` listed for each archive of the
/// signed registry (beta 0.10.0's packages have a folder entry, so their
/// `h1_zip` and `h1` differ).
#[test]
fn the_archive_h1_is_hash_zip() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures");
    let tree = root.join("mirror-goldens/mirror-fresh/tree/{HOST}/ns");
    for (name, version) in [("alpha", "1.1.0"), ("beta", "0.10.0")] {
        let listed =
            std::fs::read_to_string(tree.join(format!("{name}/{version}.json"))).expect("json");
        for platform in ["linux_amd64", "darwin_arm64", "windows_amd64"] {
            let file = format!("terraform-provider-{name}_{version}_{platform}.zip");
            let bytes = std::fs::read(tree.join(name).join(&file)).expect("zip");
            let hashes = hash_package(&bytes).expect("a package");
            assert!(
                listed.contains(&hashes.h1_zip()),
                "{file}: {} not in {listed}",
                hashes.h1_zip()
            );
            assert_eq!(hashes.h1_zip() == hashes.h1(), name == "alpha", "{file}");
            assert!(hashes.matches(&hashes.h1_zip()) && hashes.matches(&hashes.zh()));
            assert!(!hashes.matches(&hashes.h1()) || name == "alpha");
        }
    }
}

/// HASH-22: the mirror's hashes vouch for an archive as the CLIs'
/// `PackageHashAuthentication` does, in their words.
#[test]
fn mirror_hashes_vouch_for_an_archive() {
    let zip = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../testkit/fixtures/signed-registry/ns/beta/0.10.0/terraform-provider-beta_0.10.0_linux_amd64.zip",
        ),
    )
    .expect("zip");
    let archive = hash_package(&zip).expect("a package");
    let ok =
        authenticate_mirror_archive(&[archive.zh(), "h1:nope".into()], &archive, T).expect("zh");
    assert_eq!(ok.trust, Trust::Checksum);
    assert_eq!(ok.matched, [archive.zh()]);
    assert_eq!(Trust::Checksum.to_string(), "verified checksum");
    let none = authenticate_mirror_archive(&[], &archive, T).expect("nothing listed");
    assert_eq!(none.trust, Trust::Unauthenticated);
    assert_eq!(none.trust.to_string(), "unauthenticated");

    let unpacked =
        authenticate_mirror_archive(&[archive.h1()], &archive, T).expect_err("h1 of the files");
    assert_eq!(unpacked.check(), "hashes");
    assert_eq!(
        unpacked.to_string(),
        format!(
            "provider package doesn't match the expected checksum {:?}",
            archive.h1()
        )
    );
    let two = authenticate_mirror_archive(&["zh:00".into(), "h1:x".into()], &archive, T)
        .expect_err("two");
    assert_eq!(
        two.to_string(),
        "provider package doesn't match the any of the expected checksums"
    );
    for (dialect, cli) in [
        (Dialect::Terraform, "Terraform"),
        (Dialect::OpenTofu, "OpenTofu"),
    ] {
        let other = authenticate_mirror_archive(&["sha512:abc".into()], &archive, dialect)
            .expect_err("scheme");
        assert_eq!(
            other.to_string(),
            format!(
                "this version of {cli} does not support any of the checksum formats given for this provider"
            )
        );
    }
}
