//! Pushing with the fixture's own client: blobs (a monolithic upload:
//! `POST …/blobs/uploads/`, then `PUT` of the whole content at the
//! `Location` answered, with its digest), manifests (`PUT
//! …/manifests/<reference>`), and the layouts OpenTofu reads.

use super::OciRegistry;
use super::access::Access;
use super::client::{Answer, block_on};
use super::layout::{
    EMPTY_CONFIG, INDEX_MEDIA_TYPE, IndexEntry, MANIFEST_MEDIA_TYPE, MODULE_ARTIFACT_TYPE,
    PROVIDER_TARGET_ARTIFACT_TYPE, provider_index, sha256_digest, version_tag, zip_manifest,
};

/// An image manifest with one zip layer, as pushed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushedArtifact {
    /// The manifest's digest (`sha256:…`).
    pub manifest_digest: String,
    /// The manifest, byte for byte.
    pub manifest: Vec<u8>,
    /// The zip layer's digest (`sha256:…`, from which OpenTofu's `zh:`
    /// hash comes).
    pub zip_digest: String,
}

/// One platform of a pushed provider release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushedTarget {
    /// The operating system (`linux`).
    pub os: String,
    /// The architecture (`amd64`).
    pub arch: String,
    /// Its image manifest and zip.
    pub artifact: PushedArtifact,
}

/// A pushed provider release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushedProvider {
    /// The tag (the version, `_` for `+`).
    pub tag: String,
    /// The index's digest.
    pub index_digest: String,
    /// The index, byte for byte.
    pub index: Vec<u8>,
    /// The platforms, in the order given.
    pub targets: Vec<PushedTarget>,
}

impl OciRegistry {
    /// Uploads `bytes` as a blob of `repo`; answers its digest.
    pub fn push_blob(&self, repo: &str, bytes: &[u8]) -> String {
        let access = &self.access;
        let pushed = block_on(async {
            let authorization = access.authorization(repo, "pull,push").await?;
            upload_blob(access, authorization.as_deref(), repo, bytes).await
        });
        pushed.unwrap_or_else(|e| self.fail(&format!("pushing a blob to {repo}"), e))
    }

    /// Puts `bytes` as a manifest of `repo` with this media type (the
    /// `Content-Type`), under `reference` (a tag or its digest); answers
    /// its digest.
    pub fn push_manifest(
        &self,
        repo: &str,
        reference: &str,
        media_type: &str,
        bytes: &[u8],
    ) -> String {
        let access = &self.access;
        let pushed = block_on(async {
            let authorization = access.authorization(repo, "pull,push").await?;
            put_manifest(
                access,
                authorization.as_deref(),
                repo,
                reference,
                media_type,
                bytes,
            )
            .await
        });
        pushed.unwrap_or_else(|e| self.fail(&format!("pushing manifest {reference} to {repo}"), e))
    }

    /// Pushes a provider release as OpenTofu's provider mirror docs lay it
    /// out: per platform (`os`, `arch`, the `.zip` package) an image
    /// manifest of artifact type `application/vnd.opentofu.provider-target`
    /// (the empty config, one `archive/zip` layer: the zip byte for byte),
    /// pushed by digest, and an image index of artifact type
    /// `application/vnd.opentofu.provider` listing them with their
    /// platforms, tagged with `version` (`_` for `+`).
    pub fn push_provider(
        &self,
        repo: &str,
        version: &str,
        platforms: &[(&str, &str, &[u8])],
    ) -> PushedProvider {
        let access = &self.access;
        let tag = version_tag(version);
        let pushed = block_on(async {
            let authorization = access.authorization(repo, "pull,push").await?;
            let authorization = authorization.as_deref();
            upload_blob(access, authorization, repo, EMPTY_CONFIG).await?;
            let mut targets = Vec::new();
            for (os, arch, zip) in platforms {
                let artifact = push_zip_artifact(
                    access,
                    authorization,
                    repo,
                    None,
                    PROVIDER_TARGET_ARTIFACT_TYPE,
                    zip,
                )
                .await?;
                targets.push(PushedTarget {
                    os: (*os).to_owned(),
                    arch: (*arch).to_owned(),
                    artifact,
                });
            }
            let entries: Vec<IndexEntry<'_>> = targets
                .iter()
                .map(|t| IndexEntry {
                    os: &t.os,
                    arch: &t.arch,
                    manifest_digest: &t.artifact.manifest_digest,
                    manifest_size: t.artifact.manifest.len(),
                })
                .collect();
            let index = provider_index(&entries);
            let index_digest =
                put_manifest(access, authorization, repo, &tag, INDEX_MEDIA_TYPE, &index).await?;
            Ok::<_, String>(PushedProvider {
                tag: tag.clone(),
                index_digest,
                index,
                targets,
            })
        });
        pushed.unwrap_or_else(|e| self.fail(&format!("pushing provider {repo}:{tag}"), e))
    }

    /// Pushes a module package as OpenTofu's module package docs lay it
    /// out: an image manifest of artifact type
    /// `application/vnd.opentofu.modulepkg` (the empty config, one
    /// `archive/zip` layer: the zip byte for byte), tagged `tag`.
    pub fn push_module(&self, repo: &str, tag: &str, zip: &[u8]) -> PushedArtifact {
        let access = &self.access;
        let pushed = block_on(async {
            let authorization = access.authorization(repo, "pull,push").await?;
            let authorization = authorization.as_deref();
            upload_blob(access, authorization, repo, EMPTY_CONFIG).await?;
            push_zip_artifact(
                access,
                authorization,
                repo,
                Some(tag),
                MODULE_ARTIFACT_TYPE,
                zip,
            )
            .await
        });
        pushed.unwrap_or_else(|e| self.fail(&format!("pushing module {repo}:{tag}"), e))
    }
}

/// Uploads the zip and puts its image manifest (the empty config blob
/// must be there already), under `tag` or else its digest.
async fn push_zip_artifact(
    access: &Access,
    authorization: Option<&str>,
    repo: &str,
    tag: Option<&str>,
    artifact_type: &str,
    zip: &[u8],
) -> Result<PushedArtifact, String> {
    let zip_digest = upload_blob(access, authorization, repo, zip).await?;
    let manifest = zip_manifest(artifact_type, &zip_digest, zip.len());
    let digest = sha256_digest(&manifest);
    let reference = tag.unwrap_or(&digest);
    let manifest_digest = put_manifest(
        access,
        authorization,
        repo,
        reference,
        MANIFEST_MEDIA_TYPE,
        &manifest,
    )
    .await?;
    Ok(PushedArtifact {
        manifest_digest,
        manifest,
        zip_digest,
    })
}

/// A monolithic blob upload; answers the digest.
async fn upload_blob(
    access: &Access,
    authorization: Option<&str>,
    repo: &str,
    bytes: &[u8],
) -> Result<String, String> {
    let digest = sha256_digest(bytes);
    let start = format!("/v2/{repo}/blobs/uploads/");
    let answer = access
        .send(authorization, "POST", &start, &[], b"")
        .await?
        .expect(202, &format!("POST {start}"))?;
    let location = answer
        .header("location")
        .ok_or_else(|| format!("POST {start} answered no Location"))?;
    let target = path_of(location);
    let separator = if target.contains('?') { '&' } else { '?' };
    let target = format!("{target}{separator}digest={digest}");
    let what = format!("PUT of blob {digest}");
    put(
        access,
        authorization,
        &target,
        "application/octet-stream",
        bytes,
        &what,
    )
    .await?;
    Ok(digest)
}

/// `PUT target` of `bytes` as `content_type`, which must answer 201
/// (`what` says what it was in an error).
async fn put(
    access: &Access,
    authorization: Option<&str>,
    target: &str,
    content_type: &str,
    bytes: &[u8],
    what: &str,
) -> Result<Answer, String> {
    let headers = [("Content-Type", content_type)];
    access
        .send(authorization, "PUT", target, &headers, bytes)
        .await?
        .expect(201, what)
}

/// Puts a manifest; answers its digest (checked against the registry's).
async fn put_manifest(
    access: &Access,
    authorization: Option<&str>,
    repo: &str,
    reference: &str,
    media_type: &str,
    bytes: &[u8],
) -> Result<String, String> {
    let digest = sha256_digest(bytes);
    let target = format!("/v2/{repo}/manifests/{reference}");
    let what = format!("PUT {target}");
    let answer = put(access, authorization, &target, media_type, bytes, &what).await?;
    match answer.header("docker-content-digest") {
        Some(theirs) if theirs != digest => Err(format!(
            "PUT {target}: the registry says the digest is {theirs}, not {digest}"
        )),
        _ => Ok(digest),
    }
}

/// The path and query of a `Location` (distribution answers absolute URLs).
fn path_of(location: &str) -> &str {
    match location.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => location,
    }
}

#[cfg(test)]
mod tests {
    use super::path_of;

    #[test]
    fn oci_upload_locations() {
        assert_eq!(
            path_of("https://127.0.0.1:5000/v2/a/blobs/uploads/u?_state=x"),
            "/v2/a/blobs/uploads/u?_state=x"
        );
        assert_eq!(path_of("/v2/a/blobs/uploads/u"), "/v2/a/blobs/uploads/u");
    }
}
