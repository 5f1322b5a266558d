//! The OCI documents OpenTofu reads from a registry: a provider release (an
//! image index over one image manifest per platform) and a module package
//! (one image manifest), each manifest with the empty config and exactly
//! one `archive/zip` layer. The bytes are written here field by field, so
//! a test knows exactly what was pushed.

use sha2::{Digest, Sha256};

/// An OCI image index.
pub const INDEX_MEDIA_TYPE: &str = "application/vnd.oci.image.index.v1+json";
/// An OCI image manifest.
pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// The empty descriptor's media type (image-spec 1.1), the config of an
/// artifact that has none.
pub const EMPTY_MEDIA_TYPE: &str = "application/vnd.oci.empty.v1+json";
/// The empty descriptor's content: `{}`.
pub const EMPTY_CONFIG: &[u8] = b"{}";
/// The index of a provider release.
pub const PROVIDER_ARTIFACT_TYPE: &str = "application/vnd.opentofu.provider";
/// The image manifest of one platform of a provider release.
pub const PROVIDER_TARGET_ARTIFACT_TYPE: &str = "application/vnd.opentofu.provider-target";
/// The image manifest of a module package.
pub const MODULE_ARTIFACT_TYPE: &str = "application/vnd.opentofu.modulepkg";
/// The media type of the one layer: the `.zip` package, byte for byte.
pub const ZIP_MEDIA_TYPE: &str = "archive/zip";

/// `sha256:` and the SHA-256 of `bytes` in lowercase hex: an OCI digest.
pub fn sha256_digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The tag of a provider version: the version with `_` for `+` (OCI tags
/// cannot hold `+`).
pub fn version_tag(version: &str) -> String {
    version.replace('+', "_")
}

/// An image manifest of `artifact_type` whose config is the empty
/// descriptor and whose one layer is the zip of this digest and size.
pub fn zip_manifest(artifact_type: &str, zip_digest: &str, zip_size: usize) -> Vec<u8> {
    format!(
        concat!(
            r#"{{"schemaVersion":2,"mediaType":{},"artifactType":{},"#,
            r#""config":{{"mediaType":{},"digest":{},"size":{}}},"#,
            r#""layers":[{{"mediaType":{},"digest":{},"size":{}}}]}}"#
        ),
        quoted(MANIFEST_MEDIA_TYPE),
        quoted(artifact_type),
        quoted(EMPTY_MEDIA_TYPE),
        quoted(&sha256_digest(EMPTY_CONFIG)),
        EMPTY_CONFIG.len(),
        quoted(ZIP_MEDIA_TYPE),
        quoted(zip_digest),
        zip_size,
    )
    .into_bytes()
}

/// One platform's entry in a provider index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry<'a> {
    /// The operating system (`linux`).
    pub os: &'a str,
    /// The architecture (`amd64`).
    pub arch: &'a str,
    /// The digest of the platform's image manifest.
    pub manifest_digest: &'a str,
    /// The size of the platform's image manifest.
    pub manifest_size: usize,
}

/// The image index of a provider release (`artifactType`
/// [`PROVIDER_ARTIFACT_TYPE`]): one descriptor per platform, with its
/// `platform` and the manifest's own artifact type.
pub fn provider_index(entries: &[IndexEntry<'_>]) -> Vec<u8> {
    let manifests: Vec<String> = entries
        .iter()
        .map(|e| {
            format!(
                concat!(
                    r#"{{"mediaType":{},"artifactType":{},"digest":{},"size":{},"#,
                    r#""platform":{{"architecture":{},"os":{}}}}}"#
                ),
                quoted(MANIFEST_MEDIA_TYPE),
                quoted(PROVIDER_TARGET_ARTIFACT_TYPE),
                quoted(e.manifest_digest),
                e.manifest_size,
                quoted(e.arch),
                quoted(e.os),
            )
        })
        .collect();
    format!(
        r#"{{"schemaVersion":2,"mediaType":{},"artifactType":{},"manifests":[{}]}}"#,
        quoted(INDEX_MEDIA_TYPE),
        quoted(PROVIDER_ARTIFACT_TYPE),
        manifests.join(","),
    )
    .into_bytes()
}

/// `"text"` as JSON.
fn quoted(text: &str) -> String {
    tfdisco_core::serde_json::Value::from(text).to_string()
}
