//! OpenTofu's `oci_mirror` installation method, its rules without I/O
//! (docs/behaviour.md, OCIMIRROR-1 to OCIMIRROR-5): versions from a
//! repository's tags, the tag of a version, what the version's index must
//! be, which of its manifests is a platform's, which layer is the package,
//! and the `zh:` hash its digest gives. The messages are OpenTofu's.

use std::fmt;

use tfdisco_core::{Dialect, Platform, ProviderSource, Version};
use tfdisco_oci::{
    Algorithm, Descriptor, FetchedManifest, ImageIndex, ImageManifest, RepositoryAddress, Tag,
    artifact_type, media_type,
};

/// `tofu providers lock -oci-mirror=TEMPLATE`'s template (OCIMIRROR-6): an
/// RFC 6570 level 1 URI template naming `{hostname}`, `{namespace}` and
/// `{type}`, whose expansion is a repository address. (The CLI
/// configuration's `oci_mirror` block has an HCL template instead:
/// `tfdisco_config::oci_repository_address`.)
///
/// ```
/// use tfdisco_core::{Dialect, ProviderSource};
/// use tfdisco_provider::oci_mirror::OciMirrorTemplate;
/// let template = OciMirrorTemplate::parse("ghcr.io/mirror/{namespace}/{type}")?;
/// let aws = ProviderSource::parse("hashicorp/aws", Dialect::OpenTofu).expect("a source");
/// assert_eq!(template.address_for(&aws)?.to_string(), "ghcr.io/mirror/hashicorp/aws");
/// assert!(OciMirrorTemplate::parse("ghcr.io/{+type}").is_err());
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct OciMirrorTemplate {
    text: String,
    parts: Vec<TemplatePart>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum TemplatePart {
    Literal(String),
    Variable(String),
}

impl OciMirrorTemplate {
    /// Reads a level 1 template: literal text and `{name}` expressions;
    /// an operator (`{+x}`, `{#x}`, `{.x}`, …), a modifier or an unclosed
    /// brace is refused, in OpenTofu's words for its `-oci-mirror`
    /// argument.
    pub fn parse(text: &str) -> Result<OciMirrorTemplate, String> {
        OciMirrorTemplate::parse_as(text, "-oci-mirror")
    }

    /// [`OciMirrorTemplate::parse`] of a template given as `argument`
    /// (`--to-oci`, `template`): its name in the message.
    ///
    /// ```
    /// use tfdisco_provider::oci_mirror::OciMirrorTemplate;
    /// let refused = OciMirrorTemplate::parse_as("r.example/{+type}", "--to-oci").unwrap_err();
    /// assert!(refused.starts_with("The --to-oci argument is not a valid URI template: "));
    /// ```
    pub fn parse_as(text: &str, argument: &str) -> Result<OciMirrorTemplate, String> {
        let invalid =
            |why: String| format!("The {argument} argument is not a valid URI template: {why}.");
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find(['{', '}']) {
            if rest[open..].starts_with('}') {
                return Err(invalid(format!(
                    "unexpected '}}' at offset {}",
                    text.len() - rest.len() + open
                )));
            }
            if open > 0 {
                parts.push(TemplatePart::Literal(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = after
                .find('}')
                .ok_or_else(|| invalid("an expression has no closing '}'".to_owned()))?;
            let name = &after[..close];
            match name.chars().next() {
                None => return Err(invalid("an expression is empty".to_owned())),
                Some(c @ ('+' | '#')) => {
                    return Err(invalid(format!(
                        "the operator {c:?} is of level 2, and only level 1 is allowed"
                    )));
                }
                Some(c @ ('.' | '/' | ';' | '?' | '&')) => {
                    return Err(invalid(format!(
                        "the operator {c:?} is of level 3, and only level 1 is allowed"
                    )));
                }
                Some(c @ ('=' | ',' | '!' | '@' | '|')) => {
                    return Err(invalid(format!("the operator {c:?} is reserved")));
                }
                Some(_) => {}
            }
            if !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                return Err(invalid(format!(
                    "{name:?} is not a variable name of level 1"
                )));
            }
            parts.push(TemplatePart::Variable(name.to_owned()));
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(TemplatePart::Literal(rest.to_owned()));
        }
        Ok(OciMirrorTemplate {
            text: text.to_owned(),
            parts,
        })
    }

    /// The repository the template names for `provider`: `{hostname}`
    /// (display form), `{namespace}` and `{type}` expanded,
    /// percent-encoding all but `A-Z a-z 0-9 - . _ ~` (so a port's `:` is
    /// `%3a`, as OpenTofu's expansion gives), other names expanding to
    /// nothing; then read as a repository address.
    pub fn address_for(&self, provider: &ProviderSource) -> Result<RepositoryAddress, String> {
        let mut text = String::new();
        for part in &self.parts {
            match part {
                TemplatePart::Literal(literal) => text.push_str(literal),
                TemplatePart::Variable(name) => {
                    let value = match name.as_str() {
                        "hostname" => provider.host().display().into_owned(),
                        "namespace" => provider.namespace().to_owned(),
                        "type" => provider.type_name().to_owned(),
                        _ => String::new(),
                    };
                    for b in value.bytes() {
                        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                            text.push(char::from(b));
                        } else {
                            text.push_str(&format!("%{b:02x}"));
                        }
                    }
                }
            }
        }
        RepositoryAddress::parse(&text).map_err(|e| e.to_string())
    }

    /// The template as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Debug for OciMirrorTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OciMirrorTemplate({:?})", self.text)
    }
}

/// The versions a repository's tags name (OCIMIRROR-1): every `_` read as
/// `+`, tags that are no version skipped (`latest`, `v1.0.0`), sorted.
///
/// ```
/// use tfdisco_core::Dialect;
/// use tfdisco_provider::oci_mirror::versions_from_tags;
/// let tags = ["1.0.1", "latest", "1.0.0", "1.0.2_foo.1", "v2.0.0"].map(String::from);
/// let versions: Vec<String> = versions_from_tags(&tags, Dialect::OpenTofu)
///     .iter()
///     .map(ToString::to_string)
///     .collect();
/// assert_eq!(versions, ["1.0.0", "1.0.1", "1.0.2+foo.1"]);
/// ```
pub fn versions_from_tags(tags: &[String], dialect: Dialect) -> Vec<Version> {
    let mut versions: Vec<Version> = tags
        .iter()
        .filter_map(|tag| Version::parse(&tag.replace('_', "+"), dialect).ok())
        .collect();
    versions.sort();
    versions
}

/// The tag of `version`: its text with `+` written `_` (OCIMIRROR-1).
pub fn tag_for(version: &Version) -> Result<Tag, String> {
    version
        .to_string()
        .replace('+', "_")
        .parse()
        .map_err(|e| format!("version {version} has no valid tag: {e}"))
}

/// The media types a version's tag is asked for: an index (what the
/// layout needs) or an image manifest (so that a tag naming one is told
/// apart with OpenTofu's message rather than a registry's 404).
pub const INDEX_ACCEPT: &[&str] = &[media_type::IMAGE_INDEX, media_type::IMAGE_MANIFEST];

/// The index a version's tag names, checked (OCIMIRROR-2): an image index
/// (`mediaType` as its `Content-Type`) of artifact type
/// `application/vnd.opentofu.provider`.
pub fn check_index(fetched: &FetchedManifest) -> Result<ImageIndex, String> {
    match fetched.media_type.as_str() {
        media_type::IMAGE_INDEX => {}
        // What the manifest is, when it says (OpenTofu's test stores tell
        // it from the tag; tfdisco reads it from the manifest it has).
        media_type::IMAGE_MANIFEST => {
            return Err(match fetched.manifest().ok().and_then(|m| m.artifact_type) {
                Some(t) if t == artifact_type::PROVIDER_TARGET => {
                    "tag refers directly to image manifest, but OpenTofu providers require an \
                     index manifest for multi-platform support"
                        .to_owned()
                }
                Some(t) if t == artifact_type::MODULE_PACKAGE => {
                    "selected OCI artifact is an OpenTofu module package, not a provider package"
                        .to_owned()
                }
                _ => "selected an OCI image manifest directly, but providers must be selected \
                      through a multi-platform index manifest"
                    .to_owned(),
            });
        }
        media_type::DESCRIPTOR => {
            return Err(
                "found OCI descriptor but expected multi-platform index manifest".to_owned(),
            );
        }
        other => {
            return Err(format!(
                "unsupported media type {other:?} for OCI index manifest"
            ));
        }
    }
    let index = INDEX.read(fetched.index(), || fetched.manifest().is_ok())?;
    INDEX.check(
        fetched,
        index.media_type.as_deref(),
        index.artifact_type.as_deref(),
    )?;
    Ok(index)
}

/// What a manifest of the layout must be (OCIMIRROR-2, OCIMIRROR-4).
struct Wanted {
    /// The media type it declares and is fetched as.
    media_type: &'static str,
    /// The artifact type it declares.
    artifact_type: &'static str,
    /// What is said when the content is the other kind of manifest.
    other_kind: &'static str,
}

/// A version's index.
const INDEX: Wanted = Wanted {
    media_type: media_type::IMAGE_INDEX,
    artifact_type: artifact_type::PROVIDER,
    other_kind: "found image manifest but need index manifest",
};

/// A platform's image manifest.
const PLATFORM_MANIFEST: Wanted = Wanted {
    media_type: media_type::IMAGE_MANIFEST,
    artifact_type: artifact_type::PROVIDER_TARGET,
    other_kind: "found index manifest but need image manifest",
};

impl Wanted {
    /// The manifest read as this kind (`read`); content that is not is
    /// said to be the other kind when `is_other_kind`, else invalid.
    fn read<T>(
        &self,
        read: Result<T, serde_json::Error>,
        is_other_kind: impl FnOnce() -> bool,
    ) -> Result<T, String> {
        read.map_err(|e| {
            if is_other_kind() {
                self.other_kind.to_owned()
            } else {
                format!("invalid manifest content: {e}")
            }
        })
    }

    /// The `mediaType` and `artifactType` the manifest declares: the media
    /// type must also be the `Content-Type` it was fetched with.
    fn check(
        &self,
        fetched: &FetchedManifest,
        declared: Option<&str>,
        artifact: Option<&str>,
    ) -> Result<(), String> {
        let declared = declared.unwrap_or_default();
        if declared != fetched.media_type || declared != self.media_type {
            return Err(format!("unexpected manifest media type {declared:?}"));
        }
        let artifact = artifact.unwrap_or_default();
        if artifact != self.artifact_type {
            return Err(format!("unexpected artifact type {artifact:?}"));
        }
        Ok(())
    }
}

/// Why an index has no manifest for a platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoManifest {
    /// The index lists other platforms only: the version is not offered
    /// for this one.
    PlatformNotSupported,
    /// The index cannot be used (OpenTofu's message).
    Invalid(String),
}

/// The manifest of `platform` in a version's index (OCIMIRROR-3): among
/// the entries of artifact type `application/vnd.opentofu.provider-target`
/// (image manifests with a platform), exactly the one whose `os` and
/// `architecture` are the platform's.
pub fn select_platform(index: &ImageIndex, platform: &Platform) -> Result<Descriptor, NoManifest> {
    let mut selected: Option<&Descriptor> = None;
    let mut wrong_platform = false;
    let mut wrong_artifact: Option<&str> = None;
    for entry in &index.manifests {
        match entry.artifact_type.as_deref() {
            Some(artifact_type::PROVIDER_TARGET) => {}
            Some(other) if !other.is_empty() => {
                wrong_artifact = Some(other);
                continue;
            }
            _ => continue,
        }
        if entry.media_type != media_type::IMAGE_MANIFEST {
            return Err(NoManifest::Invalid(format!(
                "provider image manifest has unsupported media type {:?}",
                entry.media_type
            )));
        }
        let Some(target) = &entry.platform else {
            return Err(NoManifest::Invalid(
                "provider image manifest lacks the required platform constraints".to_owned(),
            ));
        };
        if target.os != platform.os || target.architecture != platform.arch {
            wrong_platform = true;
            continue;
        }
        if selected.is_some() {
            return Err(NoManifest::Invalid(format!(
                "ambiguous manifest has multiple descriptors for platform {platform}"
            )));
        }
        selected = Some(entry);
    }
    match (selected, wrong_platform, wrong_artifact) {
        (Some(entry), _, _) => Ok(entry.clone()),
        (None, true, _) => Err(NoManifest::PlatformNotSupported),
        (None, false, Some(other)) => Err(NoManifest::Invalid(format!(
            "provider image manifest has unsupported artifact type {other:?}"
        ))),
        (None, false, None) => Err(NoManifest::Invalid(
            "provider image manifest has unsupported artifact type; is this a container image, \
             rather than an OpenTofu provider?"
                .to_owned(),
        )),
    }
}

/// A platform's manifest, checked (OCIMIRROR-4): an image manifest of
/// artifact type `application/vnd.opentofu.provider-target`.
pub fn check_manifest(fetched: &FetchedManifest) -> Result<ImageManifest, String> {
    let manifest = PLATFORM_MANIFEST.read(fetched.manifest(), || fetched.index().is_ok())?;
    let (declared, artifact) = (&manifest.media_type, &manifest.artifact_type);
    PLATFORM_MANIFEST.check(fetched, declared.as_deref(), artifact.as_deref())?;
    Ok(manifest)
}

/// The package of a platform's manifest (OCIMIRROR-4): its one layer of
/// media type `archive/zip`; the config is never fetched.
pub fn select_layer(manifest: &ImageManifest) -> Result<Descriptor, String> {
    let zips: Vec<&Descriptor> = manifest
        .layers
        .iter()
        .filter(|l| l.media_type == media_type::ZIP)
        .collect();
    match zips.as_slice() {
        [one] => Ok((*one).clone()),
        [] if manifest.layers.is_empty() => Err(format!(
            "image manifest contains no layers of type {:?}",
            media_type::ZIP
        )),
        [] => Err(format!(
            "image manifest contains no layers of type {:?}, but has other unsupported formats; \
             this OCI artifact might be intended for a different version of OpenTofu",
            media_type::ZIP
        )),
        _ => Err("ambiguous manifest declares multiple eligible provider packages".to_owned()),
    }
}

/// The empty config blob (`{}`) of OpenTofu's provider manifests.
pub const EMPTY_CONFIG: &[u8] = b"{}";

/// The image manifest of one platform's package (OCI-8, publishing):
/// artifact type `application/vnd.opentofu.provider-target`, the empty
/// config, the zip as its one `archive/zip` layer, as OpenTofu's docs lay
/// it out.
pub fn package_manifest(zip: &Descriptor) -> Vec<u8> {
    let config = Descriptor {
        media_type: media_type::EMPTY.to_owned(),
        digest: tfdisco_oci::Digest::of(Algorithm::Sha256, EMPTY_CONFIG),
        size: EMPTY_CONFIG.len() as u64,
        artifact_type: None,
        platform: None,
        annotations: Default::default(),
    };
    let manifest = ImageManifest {
        schema_version: 2,
        media_type: Some(media_type::IMAGE_MANIFEST.to_owned()),
        artifact_type: Some(artifact_type::PROVIDER_TARGET.to_owned()),
        config,
        layers: vec![Descriptor {
            media_type: media_type::ZIP.to_owned(),
            ..zip.clone()
        }],
        annotations: Default::default(),
    };
    serde_json::to_vec(&manifest).unwrap_or_default()
}

/// The image index of a release (OCI-8): artifact type
/// `application/vnd.opentofu.provider`, one entry per platform's manifest
/// (`digest`, `size`), with its platform and artifact type.
pub fn release_index(manifests: &[(Platform, tfdisco_oci::Digest, u64)]) -> Vec<u8> {
    let index = ImageIndex {
        schema_version: 2,
        media_type: Some(media_type::IMAGE_INDEX.to_owned()),
        artifact_type: Some(artifact_type::PROVIDER.to_owned()),
        manifests: manifests
            .iter()
            .map(|(platform, digest, size)| Descriptor {
                media_type: media_type::IMAGE_MANIFEST.to_owned(),
                digest: digest.clone(),
                size: *size,
                artifact_type: Some(artifact_type::PROVIDER_TARGET.to_owned()),
                platform: Some(tfdisco_oci::Platform {
                    os: platform.os.to_string(),
                    architecture: platform.arch.to_string(),
                    variant: None,
                }),
                annotations: Default::default(),
            })
            .collect(),
        annotations: Default::default(),
    };
    serde_json::to_vec(&index).unwrap_or_default()
}

/// The `zh:` hash a package layer's digest is (OCIMIRROR-5): the archive's
/// SHA-256, which the download is checked against. Nothing is signed.
pub fn zh_hash(layer: &Descriptor) -> Result<String, String> {
    match layer.digest.algorithm() {
        Algorithm::Sha256 => Ok(format!("zh:{}", layer.digest.hex())),
        other => Err(format!("unsupported digest algorithm {:?}", other.name())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfdisco_oci::Digest;

    fn fetched(media: &str, json: &str) -> FetchedManifest {
        FetchedManifest {
            media_type: media.to_owned(),
            digest: Digest::of(Algorithm::Sha256, json.as_bytes()),
            bytes: json.as_bytes().to_vec(),
        }
    }

    fn entry(artifact: &str, media: &str, platform: Option<(&str, &str)>) -> String {
        let platform = platform
            .map(|(os, arch)| format!(r#","platform":{{"os":"{os}","architecture":"{arch}"}}"#))
            .unwrap_or_default();
        format!(
            r#"{{"mediaType":"{media}","digest":"{}","size":2,"artifactType":"{artifact}"{platform}}}"#,
            Digest::of(Algorithm::Sha256, b"{}")
        )
    }

    fn index(entries: &[String]) -> ImageIndex {
        let json = format!(
            r#"{{"schemaVersion":2,"mediaType":"{}","artifactType":"{}","manifests":[{}]}}"#,
            media_type::IMAGE_INDEX,
            artifact_type::PROVIDER,
            entries.join(",")
        );
        check_index(&fetched(media_type::IMAGE_INDEX, &json)).expect("an index")
    }

    #[test]
    fn uri_templates() {
        let source = |s| ProviderSource::parse(s, Dialect::OpenTofu).expect("a source");
        let t = OciMirrorTemplate::parse("{hostname}/m/{namespace}/{type}{unknown}").expect("ok");
        assert_eq!(
            t.address_for(&source("example.com/ns/aws"))
                .expect("address")
                .to_string(),
            "example.com/m/ns/aws"
        );
        // A port is percent-encoded: no repository address.
        let port = t.address_for(&source("localhost:5000/ns/aws"));
        assert!(port.expect_err("refused").contains("localhost%3a5000"));
        for bad in [
            "r/{+type}",
            "r/{#type}",
            "r/{/type}",
            "r/{type",
            "r/type}",
            "r/{}",
            "r/{ty pe}",
        ] {
            let e = OciMirrorTemplate::parse(bad).expect_err(bad);
            assert!(
                e.starts_with("The -oci-mirror argument is not a valid URI template: "),
                "{e}"
            );
        }
    }

    #[test]
    fn what_publishing_writes_reads_back() {
        let zip = Descriptor {
            media_type: media_type::ZIP.to_owned(),
            digest: Digest::of(Algorithm::Sha256, b"zip"),
            size: 3,
            artifact_type: None,
            platform: None,
            annotations: Default::default(),
        };
        let bytes = package_manifest(&zip);
        let manifest = check_manifest(&fetched(
            media_type::IMAGE_MANIFEST,
            std::str::from_utf8(&bytes).expect("utf-8"),
        ))
        .expect("a provider manifest");
        assert_eq!(select_layer(&manifest).expect("the zip"), zip);
        let digest = Digest::of(Algorithm::Sha256, &bytes);
        let linux = Platform::new("linux", "amd64");
        let index = release_index(&[(linux.clone(), digest.clone(), bytes.len() as u64)]);
        let index = check_index(&fetched(
            media_type::IMAGE_INDEX,
            std::str::from_utf8(&index).expect("utf-8"),
        ))
        .expect("a provider index");
        assert_eq!(
            select_platform(&index, &linux).expect("linux").digest,
            digest
        );
    }

    #[test]
    fn tags_and_versions() {
        let v = Version::parse("1.0.2+foo.1", Dialect::OpenTofu).expect("version");
        assert_eq!(tag_for(&v).expect("tag").as_str(), "1.0.2_foo.1");
    }

    #[test]
    fn indexes() {
        let image = fetched(media_type::IMAGE_MANIFEST, "{}");
        assert!(
            check_index(&image)
                .expect_err("no")
                .contains("selected an OCI image manifest")
        );
        let docker = fetched(media_type::DOCKER_MANIFEST_LIST, "{}");
        assert!(
            check_index(&docker)
                .expect_err("no")
                .contains("unsupported media type")
        );
        let no_artifact = fetched(
            media_type::IMAGE_INDEX,
            r#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#,
        );
        assert_eq!(
            check_index(&no_artifact).expect_err("no"),
            "unexpected artifact type \"\""
        );
    }

    #[test]
    fn platform_selection() {
        let linux = Platform::new("linux", "amd64");
        let target = artifact_type::PROVIDER_TARGET;
        let image = media_type::IMAGE_MANIFEST;
        let one = index(&[
            entry(target, image, Some(("darwin", "arm64"))),
            entry(target, image, Some(("linux", "amd64"))),
        ]);
        assert!(select_platform(&one, &linux).is_ok());
        let other = index(&[entry(target, image, Some(("darwin", "arm64")))]);
        assert_eq!(
            select_platform(&other, &linux),
            Err(NoManifest::PlatformNotSupported)
        );
        let twice = index(&[
            entry(target, image, Some(("linux", "amd64"))),
            entry(target, image, Some(("linux", "amd64"))),
        ]);
        assert!(
            matches!(select_platform(&twice, &linux), Err(NoManifest::Invalid(m)) if m.contains("ambiguous"))
        );
        let bare = index(&[entry(target, image, None)]);
        assert!(
            matches!(select_platform(&bare, &linux), Err(NoManifest::Invalid(m)) if m.contains("platform constraints"))
        );
        let container = index(&[entry("", image, Some(("linux", "amd64")))]);
        assert!(
            matches!(select_platform(&container, &linux), Err(NoManifest::Invalid(m)) if m.contains("container image"))
        );
        let helm = index(&[entry("application/x-helm", image, Some(("linux", "amd64")))]);
        assert!(
            matches!(select_platform(&helm, &linux), Err(NoManifest::Invalid(m)) if m.contains("x-helm"))
        );
    }

    #[test]
    fn layers() {
        let manifest = |layers: &str| {
            let json = format!(
                r#"{{"schemaVersion":2,"mediaType":"{}","artifactType":"{}","config":{},"layers":[{layers}]}}"#,
                media_type::IMAGE_MANIFEST,
                artifact_type::PROVIDER_TARGET,
                entry("", media_type::EMPTY, None)
            );
            check_manifest(&fetched(media_type::IMAGE_MANIFEST, &json)).expect("a manifest")
        };
        let zip = entry("", media_type::ZIP, None);
        let tar = entry("", "application/x-tar", None);
        let layer = select_layer(&manifest(&zip)).expect("one zip");
        assert_eq!(zh_hash(&layer).expect("zh").len(), 3 + 64);
        assert!(
            select_layer(&manifest(""))
                .expect_err("none")
                .ends_with("\"archive/zip\"")
        );
        assert!(
            select_layer(&manifest(&tar))
                .expect_err("none")
                .contains("other unsupported")
        );
        assert!(
            select_layer(&manifest(&format!("{zip},{zip}")))
                .expect_err("two")
                .contains("ambiguous")
        );
    }
}
