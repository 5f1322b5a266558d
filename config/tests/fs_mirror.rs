//! Filesystem mirrors on real directories (docs/behaviour.md, FSM-1 to
//! FSM-6): the walk, symbolic links, the warnings, which package wins, and
//! the hashes of both layouts against the ones Terraform wrote in the
//! testkit's golden lock file.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use tfdisco_config::{FilesystemMirror, MirrorError, hash_local_package};
use tfdisco_core::{Dialect, Platform, ProviderSource, Version};
use tfdisco_provider::LocalLocation;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures")
}

/// A package archive of the testkit's signed registry (written by Go's
/// `archive/zip`, `make-signed-registry.sh`).
fn fixture_zip(name: &str, version: &str, platform: &str) -> PathBuf {
    fixtures().join(format!(
        "signed-registry/ns/{name}/{version}/terraform-provider-{name}_{version}_{platform}.zip"
    ))
}

/// What `make-signed-registry.sh` puts in a package: the files of the
/// archive, unpacked into `dir`.
fn unpack_fixture(name: &str, version: &str, platform: &str, dir: &Path) {
    fs::create_dir_all(dir).expect("mkdir");
    if name == "beta" && version == "0.10.0" {
        fs::create_dir_all(dir.join("docs")).expect("mkdir");
        fs::write(dir.join("docs/README.md"), format!("# {name} {version}\n")).expect("write");
    }
    let mut binary = format!("terraform-provider-{name}_v{version}");
    if platform == "windows_amd64" {
        binary.push_str(".exe");
    }
    let text: String = (0..200)
        .map(|i| format!("{name} {version} {platform} line {i}\n"))
        .collect();
    fs::write(dir.join(binary), text).expect("write");
}

/// The `h1:` and `zh:` hashes Terraform recorded for a provider in the
/// golden lock file of a fresh `terraform providers lock`.
fn golden_hashes(name: &str) -> Vec<String> {
    let text = fs::read_to_string(fixtures().join("lock-goldens/fresh/terraform.lock.hcl"))
        .expect("the golden lock file");
    let block = text
        .split("provider \"")
        .find(|b| b.starts_with(&format!("{{HOST}}/ns/{name}\"")))
        .expect("the provider's block");
    block
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"'))
        .filter_map(|l| l.strip_suffix("\","))
        .map(str::to_owned)
        .collect()
}

fn provider(s: &str) -> ProviderSource {
    ProviderSource::parse(s, Dialect::Terraform).expect("valid")
}

fn mkdirs(path: &Path) {
    fs::create_dir_all(path).expect("mkdir");
}

/// FSM-1, FSM-4, FSM-5: both layouts in one mirror; the packages
/// in Go's order; versions of every platform; the unpacked package wins.
#[test]
fn both_layouts_and_which_package_wins() {
    let dir = tempfile::tempdir().expect("tempdir");
    let alpha = dir.path().join("example.com/ns/alpha");
    mkdirs(&alpha);
    for platform in ["linux_amd64", "darwin_arm64"] {
        fs::copy(
            fixture_zip("alpha", "1.1.0", platform),
            alpha.join(format!("terraform-provider-alpha_1.1.0_{platform}.zip")),
        )
        .expect("copy");
    }
    unpack_fixture(
        "alpha",
        "1.1.0",
        "linux_amd64",
        &alpha.join("1.1.0/linux_amd64"),
    );
    unpack_fixture(
        "alpha",
        "2.0.0",
        "darwin_arm64",
        &alpha.join("2.0.0/darwin_arm64"),
    );
    fs::write(alpha.join("index.json"), "{}").expect("write");
    fs::write(alpha.join("1.1.0.json"), "{}").expect("write");

    let mirror = FilesystemMirror::scan(dir.path(), Dialect::Terraform).expect("scanned");
    let shown: Vec<String> = mirror
        .packages()
        .iter()
        .map(|p| {
            let layout = match p.location {
                LocalLocation::Archive(_) => "zip",
                LocalLocation::Directory(_) => "dir",
            };
            format!("{} {} {} {layout}", p.source, p.platform, p.version)
        })
        .collect();
    assert_eq!(
        shown,
        [
            "example.com/ns/alpha darwin_arm64 1.1.0 zip",
            "example.com/ns/alpha darwin_arm64 2.0.0 dir",
            "example.com/ns/alpha linux_amd64 1.1.0 dir",
            "example.com/ns/alpha linux_amd64 1.1.0 zip",
        ]
    );
    let p = provider("example.com/ns/alpha");
    let found = mirror.packages();
    assert_eq!(found.providers(), std::slice::from_ref(&p));
    // Versions of every platform: 2.0.0 has no linux_amd64 package.
    let versions: Vec<String> = found.versions(&p).iter().map(Version::to_string).collect();
    assert_eq!(versions, ["1.1.0", "2.0.0"]);
    let linux = Platform::new("linux", "amd64");
    let v110: Version = "1.1.0".parse().expect("v");
    let chosen = found.package(&p, &v110, &linux).expect("found");
    assert_eq!(
        chosen.location,
        LocalLocation::Directory(alpha.join("1.1.0/linux_amd64"))
    );
    assert!(
        found
            .package(&p, &"2.0.0".parse().expect("v"), &linux)
            .is_none()
    );
    assert_eq!(
        mirror.warnings(),
        [
            format!(
                "ignoring file {:?} as possible package for example.com/ns/alpha: filename lacks expected prefix \"terraform-provider-alpha_\"",
                "example.com/ns/alpha/1.1.0.json"
            ),
            format!(
                "ignoring file {:?} as possible package for example.com/ns/alpha: filename lacks expected prefix \"terraform-provider-alpha_\"",
                "example.com/ns/alpha/index.json"
            ),
        ]
    );
    assert_eq!(mirror.base(), dir.path());
}

/// FSM-6: the `h1:` of an archive and of the same package unpacked are the
/// one Terraform recorded; the archive's `zh:` too.
#[test]
fn hashes_of_both_layouts_are_terraforms() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("registry.terraform.io/ns");
    for name in ["alpha", "beta"] {
        let version = if name == "alpha" { "1.1.0" } else { "0.10.0" };
        let at = base.join(name);
        mkdirs(&at);
        fs::copy(
            fixture_zip(name, version, "linux_amd64"),
            at.join(format!(
                "terraform-provider-{name}_{version}_linux_amd64.zip"
            )),
        )
        .expect("copy");
        unpack_fixture(
            name,
            version,
            "linux_amd64",
            &at.join(version).join("linux_amd64"),
        );
    }
    let mirror = FilesystemMirror::scan(dir.path(), Dialect::Terraform).expect("scanned");
    assert_eq!(mirror.packages().len(), 4);
    for name in ["alpha", "beta"] {
        let golden = golden_hashes(name);
        let packages: Vec<_> = mirror
            .packages()
            .iter()
            .filter(|p| p.source.type_name() == name)
            .collect();
        let unpacked = hash_local_package(packages[0]).expect("hashed");
        let packed = hash_local_package(packages[1]).expect("hashed");
        assert!(matches!(packages[0].location, LocalLocation::Directory(_)));
        assert_eq!(unpacked.h1(), packed.h1(), "{name}");
        assert!(
            golden.contains(&unpacked.h1().to_owned()),
            "{name}: {golden:?}"
        );
        assert_eq!(unpacked.zh(), None);
        let zh = packed.zh().expect("an archive's zh");
        assert!(golden.contains(&zh), "{name}: {zh}");
        assert_eq!(
            packed.archive().expect("archive").size(),
            fs::metadata(packages[1].location.path())
                .expect("stat")
                .len()
        );
        assert_eq!(unpacked.files(), if name == "beta" { 2 } else { 1 });
    }
    let alpha = hash_local_package(&mirror.packages().as_slice()[0]).expect("hashed");
    assert_eq!(
        alpha.h1(),
        "h1:7deXbkEF87oCZkxr6uceFLhqOwpYAj2wydqVdQSwDWs="
    );

    // A symbolic link to a file is followed (Go's os.Open); one to a
    // directory is an error (Go cannot read a directory as a file).
    let unpacked = base.join("alpha/1.1.0/linux_amd64");
    let elsewhere = dir.path().join("elsewhere");
    mkdirs(&elsewhere);
    let binary = unpacked.join("terraform-provider-alpha_v1.1.0");
    fs::rename(&binary, elsewhere.join("binary")).expect("move");
    symlink(elsewhere.join("binary"), &binary).expect("symlink");
    let linked = hash_local_package(&mirror.packages().as_slice()[0]).expect("hashed");
    assert_eq!(linked.h1(), alpha.h1());
    symlink(&elsewhere, unpacked.join("dir-link")).expect("symlink");
    let err = hash_local_package(&mirror.packages().as_slice()[0]).expect_err("a directory");
    assert!(matches!(err, MirrorError::Read { .. }), "{err}");

    // An archive that is no package.
    fs::write(
        base.join("alpha/terraform-provider-alpha_1.1.0_linux_amd64.zip"),
        "not a zip",
    )
    .expect("write");
    let err = hash_local_package(&mirror.packages().as_slice()[1]).expect_err("not a zip");
    assert!(matches!(err, MirrorError::Package { .. }), "{err}");
}

/// FSM-2: the base may be a link; below it, links are not descended into:
/// one above the provider level is a warning, a linked `OS_ARCH`
/// directory or archive is a package, a linked version directory nothing.
#[test]
fn symbolic_links_as_terraform_follows_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let real = dir.path().join("real");
    let store = dir.path().join("store");
    unpack_fixture("alpha", "1.0.0", "linux_amd64", &store.join("linux_amd64"));
    unpack_fixture(
        "alpha",
        "1.1.0",
        "linux_amd64",
        &store.join("1.1.0/linux_amd64"),
    );
    let ns = real.join("registry.terraform.io/ns");
    mkdirs(&ns.join("alpha/1.0.0"));
    symlink(
        store.join("linux_amd64"),
        ns.join("alpha/1.0.0/linux_amd64"),
    )
    .expect("symlink");
    symlink(store.join("1.1.0"), ns.join("alpha/1.1.0")).expect("symlink");
    symlink(
        fixture_zip("alpha", "2.0.0", "linux_amd64"),
        ns.join("alpha/terraform-provider-alpha_2.0.0_linux_amd64.zip"),
    )
    .expect("symlink");
    symlink(&store, real.join("registry.terraform.io/linked-ns")).expect("symlink");
    let link = dir.path().join("link");
    symlink(&real, &link).expect("symlink");

    let mirror = FilesystemMirror::scan(&link, Dialect::Terraform).expect("scanned");
    assert_eq!(mirror.base(), link);
    assert_eq!(mirror.walked(), fs::canonicalize(&real).expect("real"));
    let found: Vec<String> = mirror
        .packages()
        .iter()
        .map(|p| format!("{} {}", p.version, p.location.path().display()))
        .collect();
    let walked = mirror.walked().join("registry.terraform.io/ns/alpha");
    assert_eq!(
        found,
        [
            format!("1.0.0 {}", walked.join("1.0.0/linux_amd64").display()),
            format!(
                "2.0.0 {}",
                walked
                    .join("terraform-provider-alpha_2.0.0_linux_amd64.zip")
                    .display()
            ),
        ]
    );
    assert_eq!(
        mirror.warnings(),
        [format!(
            "Provider plugin search ignored symlink {}: only the base directory {} may be a symlink",
            mirror
                .walked()
                .join("registry.terraform.io/linked-ns")
                .display(),
            link.display()
        )]
    );
    // A package from a linked archive hashes as the archive.
    let packed = hash_local_package(&mirror.packages().as_slice()[1]).expect("hashed");
    assert!(packed.zh().is_some());
}

/// FSM-2, FSM-3: a base that does not exist fails the scan; one that is a
/// file holds nothing; an invalid name is reported for every path below
/// it; a link that leads nowhere is reported.
#[test]
fn missing_bases_invalid_names_and_dangling_links() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing");
    let err = FilesystemMirror::scan(&missing, Dialect::Terraform).expect_err("missing");
    assert!(
        err.to_string()
            .starts_with(&format!("cannot search {}: ", missing.display())),
        "{err}"
    );
    let file = dir.path().join("file");
    fs::write(&file, "").expect("write");
    let empty = FilesystemMirror::scan(&file, Dialect::Terraform).expect("a file");
    assert!(empty.packages().is_empty() && empty.warnings().is_empty());

    let base = dir.path().join("mirror");
    unpack_fixture(
        "alpha",
        "1.0.0",
        "linux_amd64",
        &base.join("registry.terraform.io/Bad_NS/alpha/1.0.0/linux_amd64"),
    );
    mkdirs(&base.join("registry.terraform.io/ns/alpha/1.0.0"));
    symlink(
        dir.path().join("nowhere"),
        base.join("registry.terraform.io/ns/alpha/1.0.0/linux_amd64"),
    )
    .expect("symlink");
    let mirror = FilesystemMirror::scan(&base, Dialect::Terraform).expect("scanned");
    assert!(mirror.packages().is_empty());
    let warnings = mirror.warnings();
    assert_eq!(warnings.len(), 5, "{warnings:#?}");
    for (w, below) in warnings[..4].iter().zip([
        "",
        "/1.0.0",
        "/1.0.0/linux_amd64",
        "/1.0.0/linux_amd64/terraform-provider-alpha_v1.0.0",
    ]) {
        assert_eq!(
            *w,
            format!(
                "local provider path {:?} contains invalid namespace \"Bad_NS\"; ignoring",
                base.join("registry.terraform.io/Bad_NS/alpha")
                    .display()
                    .to_string()
                    + below
            )
        );
    }
    assert!(
        warnings[4].starts_with(&format!(
            "failed to read metadata about {}: ",
            base.join("registry.terraform.io/ns/alpha/1.0.0/linux_amd64")
                .display()
        )),
        "{}",
        warnings[4]
    );
}
