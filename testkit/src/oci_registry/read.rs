//! Reading back with the fixture's own client: what a library under test
//! pushed, or what the fixture did.

use std::path::PathBuf;

use super::OciRegistry;
use super::client::block_on;

/// Every manifest type the fixture accepts: distribution 2.8 answers 404
/// for an OCI manifest or index whose type the `Accept` header leaves out.
const MANIFEST_ACCEPT: &str = "application/vnd.oci.image.index.v1+json, \
     application/vnd.oci.image.manifest.v1+json, \
     application/vnd.docker.distribution.manifest.list.v2+json, \
     application/vnd.docker.distribution.manifest.v2+json";

impl OciRegistry {
    /// The manifest `reference` (a tag or a digest) of `repo`: its media
    /// type (`Content-Type`) and bytes; `None` when the registry has none
    /// (404).
    pub fn manifest(&self, repo: &str, reference: &str) -> Option<(String, Vec<u8>)> {
        let target = format!("/v2/{repo}/manifests/{reference}");
        let answer = self.get(repo, &target, &[("Accept", MANIFEST_ACCEPT)])?;
        let media_type = answer.header("content-type").unwrap_or("").to_owned();
        Some((media_type, answer.body.to_vec()))
    }

    /// The file in the registry's storage that holds the content of the
    /// blob `digest` (`sha256:HEX`).
    pub fn blob_file(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").expect("a sha256 digest");
        self.dir()
            .join("storage/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    /// Spoils the stored content of the blob `digest` (`sha256:HEX`), its
    /// size kept: every byte inverted in the registry's storage, which
    /// serves it as it is (a storage fault, or a registry that lies).
    pub fn corrupt_blob(&self, digest: &str) {
        let data = self.blob_file(digest);
        let bytes = std::fs::read(&data)
            .unwrap_or_else(|e| self.fail(&format!("reading {}", data.display()), e.to_string()));
        let spoiled: Vec<u8> = bytes.iter().map(|b| !b).collect();
        std::fs::write(&data, spoiled)
            .unwrap_or_else(|e| self.fail(&format!("writing {}", data.display()), e.to_string()));
    }

    /// The blob `digest` of `repo`; `None` when the registry has none (404).
    pub fn blob(&self, repo: &str, digest: &str) -> Option<Vec<u8>> {
        let target = format!("/v2/{repo}/blobs/{digest}");
        self.get(repo, &target, &[]).map(|a| a.body.to_vec())
    }

    /// The tags of `repo` (`tags/list`), as the registry orders them; none
    /// for a repository it does not know.
    pub fn tags(&self, repo: &str) -> Vec<String> {
        let target = format!("/v2/{repo}/tags/list");
        let Some(answer) = self.get(repo, &target, &[]) else {
            return Vec::new();
        };
        let value: tfdisco_core::serde_json::Value =
            tfdisco_core::serde_json::from_slice(&answer.body)
                .unwrap_or_else(|e| self.fail(&format!("GET {target}"), e.to_string()));
        value["tags"]
            .as_array()
            .map(|tags| {
                tags.iter()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A `GET` with pull access: the answer when 200, `None` when 404.
    fn get(
        &self,
        repo: &str,
        target: &str,
        headers: &[(&str, &str)],
    ) -> Option<super::client::Answer> {
        let access = &self.access;
        let answer = block_on(async {
            let authorization = access.authorization(repo, "pull").await?;
            access
                .send(authorization.as_deref(), "GET", target, headers, b"")
                .await
        })
        .unwrap_or_else(|e| self.fail(&format!("GET {target}"), e));
        match answer.status {
            200 => Some(answer),
            404 => None,
            status => self.fail(
                &format!("GET {target}"),
                format!("answered {status}: {}", answer.text()),
            ),
        }
    }
}
