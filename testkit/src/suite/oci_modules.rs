//! OpenTofu's `oci://` module sources (docs/behaviour.md, OCIMOD-4 to
//! OCIMOD-8) against a real registry (CNCF distribution 2.8) on loopback:
//! a tag resolved to the digest the push made, a package downloaded by
//! tag and by digest with its files byte for byte, and every refusal
//! (another artifact type, an index, no zip layer, a blob that is not its
//! descriptor's, a zip the unpacker refuses) with OpenTofu's message and
//! nothing left behind.

#![allow(missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};

use tfdisco_core::{Error, ErrorKind};
use tfdisco_oci::{OciCredentials, OciModuleSource, RegistryCredentials, media_type};
use tfdisco_runs::BlockingRuns;

use super::lock::Scratch;
use super::{Client, Subject, build, builder};
use crate::install_goldens::stored_zip;
use crate::oci_registry::{
    EMPTY_CONFIG, EMPTY_MEDIA_TYPE, MANIFEST_MEDIA_TYPE, OciAuth, OciRegistry,
    PROVIDER_TARGET_ARTIFACT_TYPE, ZIP_MEDIA_TYPE, sha256_digest,
};

const REPOSITORY: &str = "modules/network";

/// The package's files: (name, Unix mode, content).
const FILES: &[(&str, u32, &[u8])] = &[
    (
        "main.tf",
        0o100_644,
        b"module \"subnet\" {\n  source = \"./modules/subnet\"\n}\n",
    ),
    (
        "modules/subnet/main.tf",
        0o100_644,
        b"variable \"cidr\" {}\n",
    ),
    ("scripts/check.sh", 0o100_755, b"#!/bin/sh\necho ok\n"),
];

fn package() -> Vec<u8> {
    stored_zip(FILES)
}

/// A client asking the registry with `credentials`.
fn client_for<T: Subject>(
    registry: &OciRegistry,
    credentials: Option<OciCredentials>,
) -> Client<T> {
    let table = match credentials {
        Some(credentials) => RegistryCredentials::new().with(&registry.host(), credentials),
        None => RegistryCredentials::new(),
    };
    build::<T>(builder::<T>().oci_credentials(table))
}

fn source(text: &str) -> OciModuleSource {
    OciModuleSource::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// What is in `dir`, as sorted relative paths of files with their bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in fs::read_dir(dir).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let name = path.strip_prefix(root).expect("inside").to_string_lossy();
                out.push((name.into_owned(), fs::read(&path).expect("a readable file")));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn expected_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = FILES
        .iter()
        .map(|(name, _, data)| ((*name).to_owned(), data.to_vec()))
        .collect();
    files.sort();
    files
}

/// The names in `dir` (a staging folder left behind would show here).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("a readable folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

pub fn oci_module_resolve_a_tag_to_its_manifest_digest<T: Subject>() {
    let registry = OciRegistry::start(OciAuth::basic("ci", "module-secret"));
    let zip = package();
    let pushed = registry.push_module(REPOSITORY, "1.2.0", &zip);
    let latest = registry.push_module(REPOSITORY, "latest", &zip);
    let client = client_for::<T>(
        &registry,
        Some(OciCredentials::basic("ci", "module-secret")),
    );
    let host = registry.host();

    let resolved = client
        .oci_module_resolve(&source(&format!("oci://{host}/{REPOSITORY}?tag=1.2.0")))
        .unwrap_or_else(|e| panic!("{}: {e}", T::NAME));
    assert_eq!(
        resolved.digest.to_string(),
        pushed.manifest_digest,
        "{}",
        T::NAME
    );
    assert_eq!(resolved.media_type, media_type::IMAGE_MANIFEST);
    assert_eq!(resolved.size, pushed.manifest.len() as u64);
    assert_eq!(resolved.layer.digest.to_string(), pushed.zip_digest);
    assert_eq!(resolved.layer.size, zip.len() as u64);
    assert_eq!(resolved.reference.to_string(), "1.2.0");
    assert_eq!(
        resolved.pinned(),
        format!(
            "oci://{host}/{REPOSITORY}?digest={}",
            pushed.manifest_digest
        )
    );

    // No tag: `latest`; a subdirectory stays on the pinned source.
    let resolved = client
        .oci_module_resolve(&source(&format!(
            "oci://{host}/{REPOSITORY}//modules/subnet"
        )))
        .unwrap_or_else(|e| panic!("{}: {e}", T::NAME));
    assert_eq!(resolved.digest.to_string(), latest.manifest_digest);
    assert_eq!(resolved.reference.to_string(), "latest");
    assert_eq!(
        resolved.pinned(),
        format!(
            "oci://{host}/{REPOSITORY}//modules/subnet?digest={}",
            latest.manifest_digest
        )
    );

    // By the digest: the same manifest.
    let by_digest = client
        .oci_module_resolve(&source(&resolved.pinned()))
        .unwrap_or_else(|e| panic!("{}: {e}", T::NAME));
    assert_eq!(by_digest.digest, resolved.digest);

    // A tag the repository does not have: OpenTofu's words.
    let err = client
        .oci_module_resolve(&source(&format!("oci://{host}/{REPOSITORY}?tag=9.9.9")))
        .expect_err("no such tag");
    assert_eq!(err.kind(), ErrorKind::NotFound, "{}: {err}", T::NAME);
    assert!(
        err.to_string().starts_with(&format!(
            "resolving tag: {host}/{REPOSITORY}:9.9.9: not found"
        )),
        "{}: {err}",
        T::NAME
    );

    // Without credentials the Basic registry refuses.
    let err = client_for::<T>(&registry, None)
        .oci_module_resolve(&source(&format!("oci://{host}/{REPOSITORY}?tag=1.2.0")))
        .expect_err("refused");
    assert_eq!(
        err.status().map(|s| s.as_u16()),
        Some(401),
        "{}: {err}",
        T::NAME
    );
}

pub fn oci_module_download_by_tag_and_by_digest<T: Subject>() {
    let registry = OciRegistry::start(OciAuth::token("ci", "module-token"));
    let zip = package();
    let pushed = registry.push_module(REPOSITORY, "1.2.0", &zip);
    let client = client_for::<T>(&registry, Some(OciCredentials::basic("ci", "module-token")));
    let host = registry.host();
    let scratch = Scratch::new("oci-module-download");

    // By tag, into folders that do not exist yet.
    let by_tag = scratch.path().join(".terraform/modules/network");
    let module = client
        .oci_module_download(
            &source(&format!("oci://{host}/{REPOSITORY}?tag=1.2.0")),
            &by_tag,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", T::NAME));
    assert_eq!(tree(&by_tag), expected_files(), "{}", T::NAME);
    assert_eq!(module.path, by_tag);
    assert_eq!(module.module_dir, by_tag);
    assert_eq!(
        (module.files, module.bytes),
        (3, FILES.iter().map(|f| f.2.len() as u64).sum())
    );
    assert_eq!(module.resolved.digest.to_string(), pushed.manifest_digest);
    assert_eq!(
        names(by_tag.parent().expect("a parent")),
        ["network"],
        "nothing beside it"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &str| {
            fs::metadata(by_tag.join(p))
                .expect("a file")
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!((mode("scripts/check.sh"), mode("main.tf")), (0o755, 0o644));
    }

    // By digest, with a subdirectory, into an empty folder.
    let by_digest = scratch.path().join("pinned");
    fs::create_dir_all(&by_digest).expect("an empty folder");
    let pinned = format!(
        "oci://{host}/{REPOSITORY}//modules/subnet?digest={}",
        pushed.manifest_digest
    );
    let module = client
        .oci_module_download(&source(&pinned), &by_digest)
        .unwrap_or_else(|e| panic!("{}: {e}", T::NAME));
    assert_eq!(tree(&by_digest), expected_files(), "{}", T::NAME);
    assert_eq!(module.module_dir, by_digest.join("modules/subnet"));

    // A folder that is not empty is not touched.
    let err = client
        .oci_module_download(&source(&pinned), &by_digest)
        .expect_err("not empty");
    assert_eq!(err.kind(), ErrorKind::LocalFile, "{}: {err}", T::NAME);
    assert_eq!(tree(&by_digest), expected_files());

    // A subdirectory the package does not have: nothing is placed.
    let missing = scratch.path().join("missing");
    let err = client
        .oci_module_download(
            &source(&format!("oci://{host}/{REPOSITORY}//nowhere?tag=1.2.0")),
            &missing,
        )
        .expect_err("no such subdirectory");
    assert!(
        err.to_string().contains("Module subdirectory not found"),
        "{}: {err}",
        T::NAME
    );
    assert!(!missing.exists());
}

/// Pushes `zip` and, as `tag`, a module package manifest of that one zip
/// layer; the layer's digest.
fn push_zip_module(registry: &OciRegistry, tag: &str, zip: &[u8]) -> String {
    let digest = registry.push_blob(REPOSITORY, zip);
    push_manifest_with(
        registry,
        tag,
        tfdisco_oci::artifact_type::MODULE_PACKAGE,
        &[(ZIP_MEDIA_TYPE, &digest, zip.len())],
    );
    digest
}

/// A manifest of `artifact_type` (none when empty) with these layers,
/// pushed under `tag`.
fn push_manifest_with(
    registry: &OciRegistry,
    tag: &str,
    artifact_type: &str,
    layers: &[(&str, &str, usize)],
) {
    registry.push_blob(REPOSITORY, EMPTY_CONFIG);
    let artifact = if artifact_type.is_empty() {
        String::new()
    } else {
        format!(r#""artifactType":"{artifact_type}","#)
    };
    let layers: Vec<String> = layers
        .iter()
        .map(|(media, digest, size)| {
            format!(r#"{{"mediaType":"{media}","digest":"{digest}","size":{size}}}"#)
        })
        .collect();
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"{MANIFEST_MEDIA_TYPE}",{artifact}"config":{{"mediaType":"{EMPTY_MEDIA_TYPE}","digest":"{}","size":2}},"layers":[{}]}}"#,
        sha256_digest(EMPTY_CONFIG),
        layers.join(",")
    );
    registry.push_manifest(REPOSITORY, tag, MANIFEST_MEDIA_TYPE, manifest.as_bytes());
}

/// A download of `tag` that must fail with `message`, leaving `into` (an
/// empty folder) empty and nothing beside it; and into a folder that does
/// not exist, leaving no folder made.
fn refused<T: Subject>(
    client: &Client<T>,
    registry: &OciRegistry,
    tag: &str,
    message: &str,
) -> Error {
    let scratch = Scratch::new("oci-module-refused");
    let into = scratch.path().join("into");
    fs::create_dir_all(&into).expect("an empty folder");
    let text = format!("oci://{}/{REPOSITORY}?tag={tag}", registry.host());
    let err = client
        .oci_module_download(&source(&text), &into)
        .expect_err(message);
    assert!(
        err.to_string().contains(message),
        "{}: {tag}: want {message:?}, got: {err}",
        T::NAME
    );
    assert!(
        names(&into).is_empty(),
        "{}: {tag}: into is not empty",
        T::NAME
    );
    assert_eq!(
        names(scratch.path()),
        ["into"],
        "{}: {tag}: left behind",
        T::NAME
    );

    let deep: PathBuf = scratch.path().join("a/b/into");
    let again = client
        .oci_module_download(&source(&text), &deep)
        .expect_err(message);
    assert!(
        again.to_string().contains(message) && again.kind() == err.kind(),
        "{}: {tag}: {again}",
        T::NAME
    );
    assert_eq!(
        names(scratch.path()),
        ["into"],
        "{}: {tag}: folders made",
        T::NAME
    );
    err
}

pub fn oci_module_refusals_leave_nothing_behind<T: Subject>() {
    let registry = OciRegistry::start(OciAuth::Anonymous);
    let client = client_for::<T>(&registry, None);
    let zip = package();
    let zip_digest = registry.push_blob(REPOSITORY, &zip);

    // Another artifact type, and none (a plain container image).
    push_manifest_with(
        &registry,
        "provider",
        PROVIDER_TARGET_ARTIFACT_TYPE,
        &[(ZIP_MEDIA_TYPE, &zip_digest, zip.len())],
    );
    refused::<T>(
        &client,
        &registry,
        "provider",
        r#"unexpected artifact type "application/vnd.opentofu.provider-target""#,
    );
    push_manifest_with(
        &registry,
        "image",
        "",
        &[(ZIP_MEDIA_TYPE, &zip_digest, zip.len())],
    );
    refused::<T>(
        &client,
        &registry,
        "image",
        r#"unexpected artifact type """#,
    );

    // An index (a provider release) instead of a manifest.
    registry.push_provider(REPOSITORY, "1.0.0", &[("linux", "amd64", &zip)]);
    refused::<T>(
        &client,
        &registry,
        "1.0.0",
        "selected object is not an OCI image manifest",
    );

    // No zip layer: another format only, and no layer at all.
    let tar_digest = registry.push_blob(REPOSITORY, b"a tar, say");
    push_manifest_with(
        &registry,
        "tar",
        tfdisco_oci::artifact_type::MODULE_PACKAGE,
        &[("application/x-tar", &tar_digest, 10)],
    );
    refused::<T>(
        &client,
        &registry,
        "tar",
        "image manifest contains no layers of types supported as module packages by \
         OpenTofu, but has other unsupported formats; this OCI artifact might be intended for \
         a different version of OpenTofu",
    );
    push_manifest_with(
        &registry,
        "empty",
        tfdisco_oci::artifact_type::MODULE_PACKAGE,
        &[],
    );
    refused::<T>(
        &client,
        &registry,
        "empty",
        "image manifest contains no layers of types supported as module packages by OpenTofu",
    );
    push_manifest_with(
        &registry,
        "two",
        tfdisco_oci::artifact_type::MODULE_PACKAGE,
        &[
            (ZIP_MEDIA_TYPE, &zip_digest, zip.len()),
            (ZIP_MEDIA_TYPE, &zip_digest, zip.len()),
        ],
    );
    refused::<T>(
        &client,
        &registry,
        "two",
        r#"multiple layers with media type "archive/zip""#,
    );

    // A layer descriptor whose size is not the blob's.
    push_manifest_with(
        &registry,
        "short",
        tfdisco_oci::artifact_type::MODULE_PACKAGE,
        &[(ZIP_MEDIA_TYPE, &zip_digest, zip.len() + 1)],
    );
    refused::<T>(
        &client,
        &registry,
        "short",
        &format!(
            "the content is {} bytes long, its descriptor's size {} bytes",
            zip.len(),
            zip.len() + 1
        ),
    );

    // A zip the unpacker refuses.
    let hostile = stored_zip(&[("../escape.tf", 0o100_644, b"x")]);
    push_zip_module(&registry, "hostile", &hostile);
    refused::<T>(
        &client,
        &registry,
        "hostile",
        r#"into: entry "../escape.tf" has a ".." element"#,
    );

    // A blob whose bytes the registry's storage no longer matches to its
    // digest (damaged on disk, same length): the digest check refuses it.
    let damaged = stored_zip(&[("main.tf", 0o100_644, b"# damaged later\n")]);
    let damaged_digest = push_zip_module(&registry, "damaged", &damaged);
    let data = registry.blob_file(&damaged_digest);
    let mut bytes = fs::read(&data).expect("the stored blob");
    assert_eq!(bytes, damaged);
    let at = bytes
        .windows(7)
        .position(|w| w == b"damaged")
        .expect("the content");
    bytes[at..at + 7].copy_from_slice(b"DAMAGED");
    fs::write(&data, &bytes).expect("damaged");
    refused::<T>(&client, &registry, "damaged", "the content's digest is");

    // And what is not there at all.
    let err = refused::<T>(
        &client,
        &registry,
        "nope",
        &format!(
            "resolving tag: {}/{REPOSITORY}:nope: not found",
            registry.host()
        ),
    );
    assert_eq!(err.kind(), ErrorKind::NotFound);
}
