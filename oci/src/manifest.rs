//! Image indexes, image manifests and their descriptors (OCI-4), with the
//! media types and artifact types OpenTofu's layouts use.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Digest;

/// The media types tfdisco reads and writes.
pub mod media_type {
    /// An OCI image index: one descriptor per platform.
    pub const IMAGE_INDEX: &str = "application/vnd.oci.image.index.v1+json";
    /// An OCI image manifest: a config and layers.
    pub const IMAGE_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
    /// A descriptor on its own (what a registry may answer a `HEAD` with).
    pub const DESCRIPTOR: &str = "application/vnd.oci.descriptor.v1+json";
    /// Docker's manifest list (the image index's predecessor).
    pub const DOCKER_MANIFEST_LIST: &str =
        "application/vnd.docker.distribution.manifest.list.v2+json";
    /// Docker's image manifest, schema 2.
    pub const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
    /// The empty config blob (`{}`) of an artifact that needs none.
    pub const EMPTY: &str = "application/vnd.oci.empty.v1+json";
    /// The one layer of an OpenTofu provider or module package: the zip.
    pub const ZIP: &str = "archive/zip";
}

/// The artifact types of OpenTofu's layouts.
pub mod artifact_type {
    /// The index tagged with a provider version.
    pub const PROVIDER: &str = "application/vnd.opentofu.provider";
    /// Each platform's manifest of a provider version.
    pub const PROVIDER_TARGET: &str = "application/vnd.opentofu.provider-target";
    /// A module package's manifest.
    pub const MODULE_PACKAGE: &str = "application/vnd.opentofu.modulepkg";
}

/// The largest manifest or index read: 4 MiB, ORAS's limit and OpenTofu's
/// (`ociImageManifestSizeLimitMiB`).
pub const MANIFEST_LIMIT: u64 = 4 * 1024 * 1024;

/// What a descriptor says of the content it points to.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    /// The content's media type.
    pub media_type: String,
    /// Its digest.
    pub digest: Digest,
    /// Its size in bytes.
    pub size: u64,
    /// The artifact type of the manifest it points to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    /// The platform the content is for (index entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// An index entry's platform.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct Platform {
    /// `linux`, `darwin`, `windows`, …
    pub os: String,
    /// `amd64`, `arm64`, …
    pub architecture: String,
    /// A CPU variant (`v7`); OpenTofu's layout has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// An image index.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageIndex {
    /// Always 2.
    pub schema_version: u32,
    /// `application/vnd.oci.image.index.v1+json` when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// The artifact type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    /// The manifests it lists.
    pub manifests: Vec<Descriptor>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// An image manifest.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageManifest {
    /// Always 2.
    pub schema_version: u32,
    /// `application/vnd.oci.image.manifest.v1+json` when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// The artifact type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    /// The config blob.
    pub config: Descriptor,
    /// The layers.
    pub layers: Vec<Descriptor>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// A manifest as fetched: its bytes, the media type the registry gave it
/// and the digest of the bytes (checked against what named it, OCI-3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchedManifest {
    /// The registry's `Content-Type` (its media type, parameters dropped).
    pub media_type: String,
    /// The digest of [`FetchedManifest::bytes`].
    pub digest: Digest,
    /// The manifest, byte for byte.
    pub bytes: Vec<u8>,
}

impl FetchedManifest {
    /// Its descriptor (no artifact type or platform).
    pub fn descriptor(&self) -> Descriptor {
        Descriptor {
            media_type: self.media_type.clone(),
            digest: self.digest.clone(),
            size: self.bytes.len() as u64,
            artifact_type: None,
            platform: None,
            annotations: BTreeMap::new(),
        }
    }

    /// The bytes read as an image index.
    pub fn index(&self) -> Result<ImageIndex, serde_json::Error> {
        serde_json::from_slice(&self.bytes)
    }

    /// The bytes read as an image manifest.
    pub fn manifest(&self) -> Result<ImageManifest, serde_json::Error> {
        serde_json::from_slice(&self.bytes)
    }

    /// The `mediaType` written in the manifest itself, if any (ORAS checks
    /// it against the `Content-Type`).
    pub fn declared_media_type(&self) -> Option<String> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Declared {
            media_type: Option<String>,
        }
        serde_json::from_slice::<Declared>(&self.bytes)
            .ok()
            .and_then(|d| d.media_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Algorithm;

    const INDEX: &str = r#"{
      "schemaVersion": 2,
      "mediaType": "application/vnd.oci.image.index.v1+json",
      "artifactType": "application/vnd.opentofu.provider",
      "manifests": [
        {
          "mediaType": "application/vnd.oci.image.manifest.v1+json",
          "digest": "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
          "size": 2,
          "artifactType": "application/vnd.opentofu.provider-target",
          "platform": {"os": "linux", "architecture": "amd64"}
        }
      ]
    }"#;

    #[test]
    fn an_index_of_opentofus_layout() {
        let fetched = FetchedManifest {
            media_type: media_type::IMAGE_INDEX.to_owned(),
            digest: Digest::of(Algorithm::Sha256, INDEX.as_bytes()),
            bytes: INDEX.as_bytes().to_vec(),
        };
        let index = fetched.index().expect("parses");
        assert_eq!(
            index.artifact_type.as_deref(),
            Some(artifact_type::PROVIDER)
        );
        let entry = &index.manifests[0];
        assert_eq!(entry.size, 2);
        assert_eq!(
            entry.platform,
            Some(Platform {
                os: "linux".to_owned(),
                architecture: "amd64".to_owned(),
                variant: None
            })
        );
        assert_eq!(
            fetched.declared_media_type().as_deref(),
            Some(media_type::IMAGE_INDEX)
        );
        assert_eq!(fetched.descriptor().size, INDEX.len() as u64);
    }

    #[test]
    fn descriptors_need_a_valid_digest_and_size() {
        for bad in [
            r#"{"mediaType":"a","digest":"sha256:00","size":1}"#,
            r#"{"mediaType":"a","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":-1}"#,
            r#"{"digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":1}"#,
        ] {
            assert!(serde_json::from_str::<Descriptor>(bad).is_err(), "{bad}");
        }
    }
}
