//! What each path of a filesystem mirror is (docs/behaviour.md, FSM-1 to
//! FSM-4) and the `h1:` of a directory's files (FSM-6), without a file
//! system: the walk itself is tested in the config crate
//! (`config/tests/fs_mirror.rs`).

use std::path::{Path, PathBuf};

use tfdisco_core::Dialect;
use tfdisco_provider::{
    EMPTY_H1, EntryKind, LocalLocation, LocalPackage, LocalPackages, MirrorEntry, MirrorPath,
    PackageHashError, classify_mirror_path, hash1_of_files,
};

const BASE: &str = "/m";

fn classify_in(dialect: Dialect, path: &str, kind: Result<EntryKind, String>) -> MirrorEntry {
    let components: Vec<&str> = path.split('/').collect();
    classify_mirror_path(&MirrorPath {
        dialect,
        base: Path::new(BASE),
        given_base: Path::new("/given"),
        components: &components,
        is_symlink: false,
        kind,
    })
}

fn classify(path: &str, kind: EntryKind) -> MirrorEntry {
    classify_in(Dialect::Terraform, path, Ok(kind))
}

fn package(entry: MirrorEntry) -> LocalPackage {
    match entry {
        MirrorEntry::Package(p) => *p,
        other => panic!("not a package: {other:?}"),
    }
}

fn warning(entry: MirrorEntry) -> String {
    match entry {
        MirrorEntry::Warning(w) => w,
        other => panic!("not a warning: {other:?}"),
    }
}

use EntryKind::{Directory, File};

/// FSM-1: the two layouts, and nothing else.
#[test]
fn the_two_layouts() {
    let unpacked = package(classify(
        "registry.terraform.io/HashiCorp/Null/3.2.1/linux_amd64",
        Directory,
    ));
    assert_eq!(
        unpacked.source.to_string(),
        "registry.terraform.io/hashicorp/null"
    );
    assert_eq!(unpacked.version.to_string(), "3.2.1");
    assert_eq!(unpacked.platform.to_string(), "linux_amd64");
    assert_eq!(
        unpacked.filename,
        "terraform-provider-null_3.2.1_linux_amd64.zip"
    );
    assert_eq!(
        unpacked.location,
        LocalLocation::Directory(PathBuf::from(
            "/m/registry.terraform.io/HashiCorp/Null/3.2.1/linux_amd64"
        ))
    );

    let packed = package(classify(
        "example.com:443/acme/widget/Terraform-Provider-Widget_1.0.0_Darwin_ARM64.zip",
        File,
    ));
    assert_eq!(packed.source.to_string(), "example.com/acme/widget");
    assert_eq!(packed.platform.to_string(), "darwin_arm64");
    assert_eq!(
        packed.filename,
        "terraform-provider-widget_1.0.0_darwin_arm64.zip"
    );
    assert_eq!(
        packed.location.path(),
        Path::new(
            "/m/example.com:443/acme/widget/Terraform-Provider-Widget_1.0.0_Darwin_ARM64.zip"
        )
    );

    // Depth and kind must agree; everything else is ignored silently.
    for (path, kind) in [
        (
            "registry.terraform.io/hashicorp/null/3.2.1/linux_amd64",
            File,
        ),
        (
            "registry.terraform.io/hashicorp/null/terraform-provider-null_3.2.1_linux_amd64.zip",
            Directory,
        ),
        ("registry.terraform.io/hashicorp/null", Directory),
        ("registry.terraform.io/hashicorp/null/3.2.1", Directory),
        (
            "registry.terraform.io/hashicorp/null/3.2.1/linux_amd64/terraform-provider-null",
            File,
        ),
        ("registry.terraform.io/hashicorp", Directory),
        ("registry.terraform.io", Directory),
        ("README", File),
    ] {
        assert_eq!(classify(path, kind), MirrorEntry::Ignored, "{path}");
    }
}

/// FSM-3: what the names must be, and the warnings, in Go's words.
#[test]
fn names_and_their_warnings() {
    assert_eq!(
        warning(classify(
            "registry.terraform.io/Bad_NS/null/1.0.0/linux_amd64",
            Directory
        )),
        r#"local provider path "/m/registry.terraform.io/Bad_NS/null/1.0.0/linux_amd64" contains invalid namespace "Bad_NS"; ignoring"#
    );
    assert_eq!(
        warning(classify("registry.terraform.io/ns/bad.type", Directory)),
        r#"local provider path "/m/registry.terraform.io/ns/bad.type" contains invalid type "bad.type"; ignoring"#
    );
    // The type is checked before the hostname, the namespace first.
    assert_eq!(
        warning(classify("xn--bcher-kva.example/ns/t", Directory)),
        r#"local provider path "/m/xn--bcher-kva.example/ns/t" contains invalid hostname "xn--bcher-kva.example"; ignoring"#
    );
    assert!(warning(classify("bad host/bad--ns/t", Directory)).contains("invalid namespace"));
    // Unicode hostnames are fine; the port 443 is dropped.
    let p = package(classify("Bücher.Example/ns/t/1.0.0/linux_amd64", Directory));
    assert_eq!(p.source.to_string(), "bücher.example/ns/t");
    // The legacy namespace only on the default registry.
    let legacy = package(classify(
        "registry.terraform.io/-/aws/1.0.0/linux_amd64",
        Directory,
    ));
    assert_eq!(legacy.source.to_string(), "registry.terraform.io/-/aws");
    assert_eq!(
        warning(classify("example.com/-/aws/1.0.0/linux_amd64", Directory)),
        r#"local provider path "/m/example.com/-/aws/1.0.0/linux_amd64" indicates a legacy provider not on the default registry host; ignoring"#
    );
    let tofu = classify_in(
        Dialect::OpenTofu,
        "registry.opentofu.org/-/aws/1.0.0/linux_amd64",
        Ok(Directory),
    );
    assert!(matches!(tofu, MirrorEntry::Package(_)));
    // Versions and platforms of the unpacked layout.
    assert_eq!(
        warning(classify(
            "registry.terraform.io/ns/t/v1.7.0/linux_amd64",
            Directory
        )),
        r#"ignoring local provider path "/m/registry.terraform.io/ns/t/v1.7.0/linux_amd64" with invalid version "v1.7.0": a "v" prefix should not be used"#
    );
    assert_eq!(
        warning(classify(
            "registry.terraform.io/ns/t/1.7.0/linux-amd64",
            Directory
        )),
        r#"ignoring local provider path "/m/registry.terraform.io/ns/t/1.7.0/linux-amd64" with invalid platform "linux-amd64": must be two words separated by an underscore"#
    );
    assert!(
        warning(classify(
            "registry.terraform.io/ns/t/1.7.0/linux_amd64_v2",
            Directory
        ))
        .ends_with("must be two words separated by an underscore")
    );
    assert!(
        warning(classify(
            "registry.terraform.io/ns/t/1.7.0/linux _amd64",
            Directory
        ))
        .ends_with("OS portion must not contain whitespace")
    );
    // An unpacked platform keeps its case (and so never matches linux_amd64).
    let upper = package(classify(
        "registry.terraform.io/ns/t/1.7.0/LINUX_AMD64",
        Directory,
    ));
    assert_eq!(upper.platform.to_string(), "LINUX_AMD64");
    // The walk goes on below an invalid name: the warning repeats there.
    assert!(
        warning(classify(
            "registry.terraform.io/ns/bad.type/1.0.0/linux_amd64/x",
            File
        ))
        .contains("invalid type")
    );
}

/// FSM-3: packed file names, checked lower-cased.
#[test]
fn packed_file_names() {
    let dir = "registry.terraform.io/hashicorp/null";
    let at = |name: &str| classify(&format!("{dir}/{name}"), File);
    assert_eq!(
        warning(at("index.json")),
        r#"ignoring file "registry.terraform.io/hashicorp/null/index.json" as possible package for registry.terraform.io/hashicorp/null: filename lacks expected prefix "terraform-provider-null_""#
    );
    assert_eq!(
        warning(at("terraform-provider-null_1.0.0_linux_amd64.tar.gz")),
        r#"ignoring file "registry.terraform.io/hashicorp/null/terraform-provider-null_1.0.0_linux_amd64.tar.gz" as possible package for registry.terraform.io/hashicorp/null: filename lacks expected suffix ".zip""#
    );
    assert_eq!(
        warning(at("terraform-provider-null_1.0.0_linux.zip")),
        r#"ignoring file "registry.terraform.io/hashicorp/null/terraform-provider-null_1.0.0_linux.zip" as possible package for registry.terraform.io/hashicorp/null: filename does not include version number, target OS, and target architecture"#
    );
    assert!(warning(at(".terraform-provider-null_1.0.0_linux_amd64.zip")).contains("prefix"));
    // The words are taken by position, whatever they are.
    let odd = package(at("terraform-provider-null_1.0_x_linux_amd64.zip"));
    assert_eq!(
        (odd.version.to_string(), odd.platform.to_string()),
        ("1.0.0".to_owned(), "x_linux".to_owned())
    );
    // Extra parts are ignored.
    let extra = package(at("terraform-provider-null_1.2.0_linux_amd64_extra.zip"));
    assert_eq!(
        (extra.version.to_string(), extra.platform.to_string()),
        ("1.2.0".to_owned(), "linux_amd64".to_owned())
    );
    assert!(
        warning(at("terraform-provider-null_v1.2.0_linux_amd64.zip"))
            .contains(r#"with invalid version "v1.2.0": a "v" prefix should not be used"#)
    );
}

/// FSM-2: a symbolic link above the provider level is a warning; a path
/// whose kind cannot be read is one once its names are valid.
#[test]
fn links_and_unreadable_paths() {
    let components = ["registry.terraform.io", "hashicorp"];
    let entry = classify_mirror_path(&MirrorPath {
        dialect: Dialect::Terraform,
        base: Path::new("/real/mirror"),
        given_base: Path::new("/link/to/mirror"),
        components: &components,
        is_symlink: true,
        kind: Ok(Directory),
    });
    assert_eq!(
        warning(entry),
        "Provider plugin search ignored symlink /real/mirror/registry.terraform.io/hashicorp: \
         only the base directory /link/to/mirror may be a symlink"
    );
    assert_eq!(
        warning(classify_in(
            Dialect::Terraform,
            "registry.terraform.io/hashicorp/null/1.0.0/linux_amd64",
            Err("No such file or directory (os error 2)".into())
        )),
        "failed to read metadata about /m/registry.terraform.io/hashicorp/null/1.0.0/linux_amd64: \
         No such file or directory (os error 2)"
    );
    // A name problem is found before the kind is looked at.
    assert!(
        warning(classify_in(
            Dialect::Terraform,
            "registry.terraform.io/bad.ns/null",
            Err("gone".into())
        ))
        .contains("invalid namespace")
    );
}

/// FSM-4: provider, platform, version; ties keep the walk's order, so an
/// unpacked directory comes before the archive of the same package.
#[test]
fn packages_sort_as_go_sorts_them() {
    let d = "registry.terraform.io/hashicorp";
    let packages: Vec<LocalPackage> = [
        (format!("{d}/null/2.0.0/linux_amd64"), Directory),
        (format!("{d}/null/1.10.0/linux_amd64"), Directory),
        (format!("{d}/null/1.2.0/darwin_arm64"), Directory),
        (format!("{d}/aws/1.0.0/linux_amd64"), Directory),
        (format!("{d}/null/1.2.0/linux_amd64"), Directory),
        (
            format!("{d}/null/terraform-provider-null_1.2.0_linux_amd64.zip"),
            File,
        ),
    ]
    .into_iter()
    .map(|(p, k)| package(classify(&p, k)))
    .collect();
    let packages = LocalPackages::new(packages);
    let shown: Vec<String> = packages
        .iter()
        .map(|p| {
            let layout = match p.location {
                LocalLocation::Archive(_) => "zip",
                LocalLocation::Directory(_) => "dir",
            };
            format!(
                "{} {} {} {layout}",
                p.source.type_name(),
                p.platform,
                p.version
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "aws linux_amd64 1.0.0 dir",
            "null darwin_arm64 1.2.0 dir",
            "null linux_amd64 1.2.0 dir",
            "null linux_amd64 1.2.0 zip",
            "null linux_amd64 1.10.0 dir",
            "null linux_amd64 2.0.0 dir",
        ]
    );
}

fn sha256_hex(hex: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex");
    }
    out
}

/// FSM-6: `Hash1` of a directory's files: the unpacked linux_amd64 package
/// of the testkit's alpha 1.1.0 gives the `h1:` Terraform wrote in the
/// golden lock file.
#[test]
fn hash1_of_files_is_go_hash1() {
    let alpha = [(
        "terraform-provider-alpha_v1.1.0",
        sha256_hex("85bb5d75d7cbaf77cc15532ba6f3a0b2b4b83e22acc787eb7107025857ef8f32"),
    )];
    assert_eq!(
        hash1_of_files(&alpha).expect("hashed"),
        "h1:7deXbkEF87oCZkxr6uceFLhqOwpYAj2wydqVdQSwDWs="
    );
    let none: [(&str, [u8; 32]); 0] = [];
    assert_eq!(hash1_of_files(&none).expect("hashed"), EMPTY_H1);
    // Order does not matter; names are sorted as bytes.
    let a = [("b", [1; 32]), ("a/c", [2; 32]), ("B", [3; 32])];
    let b = [("B", [3; 32]), ("b", [1; 32]), ("a/c", [2; 32])];
    assert_eq!(hash1_of_files(&a), hash1_of_files(&b));
    // Names are checked as an archive's are.
    assert!(matches!(
        hash1_of_files(&[("a\nb", [0; 32])]),
        Err(PackageHashError::NewlineInName { .. })
    ));
    assert!(matches!(
        hash1_of_files(&[("../a", [0; 32])]),
        Err(PackageHashError::UnsafeName { .. })
    ));
    assert!(matches!(
        hash1_of_files(&[("a", [0; 32]), ("a", [1; 32])]),
        Err(PackageHashError::DuplicateName { .. })
    ));
    assert!(matches!(
        hash1_of_files(&[("a", [0; 32]), ("a/b", [1; 32])]),
        Err(PackageHashError::NameConflict { .. })
    ));
}
