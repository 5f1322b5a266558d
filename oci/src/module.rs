//! OpenTofu's `oci://` module sources, their rules without I/O
//! (docs/behaviour.md, OCIMOD-1 to OCIMOD-8): the source address read as
//! OpenTofu's module installer and its OCI getter read it (the registry,
//! the repository, `?tag=` or `?digest=`, a `//subdir`), what the manifest
//! a tag or digest selects must be, and which of its layers is the module
//! package. The messages are OpenTofu's.
//!
//! ```
//! use tfdisco_oci::module::OciModuleSource;
//! use tfdisco_oci::Reference;
//!
//! let source = OciModuleSource::parse("oci://ghcr.io/acme/vpc//modules/subnet?tag=1.2.0")?;
//! assert_eq!(source.address().to_string(), "ghcr.io/acme/vpc");
//! assert!(matches!(source.reference(), Reference::Tag(t) if t.as_str() == "1.2.0"));
//! assert_eq!(source.subdir(), "modules/subnet");
//!
//! // No tag or digest: the tag `latest`.
//! let latest = OciModuleSource::parse("oci://ghcr.io/acme/vpc")?;
//! assert_eq!(latest.to_string(), "oci://ghcr.io/acme/vpc?tag=latest");
//!
//! let empty = OciModuleSource::parse("oci://ghcr.io/acme/vpc?tag=");
//! assert_eq!(empty.unwrap_err().message(), "tag argument must not be empty");
//! # Ok::<(), tfdisco_oci::module::InvalidModuleSource>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;

use percent_encoding::percent_decode_str;
use tfdisco_core::{Dialect, Getter, ModulePackage, go_quote};

use crate::{
    Descriptor, Digest, FetchedManifest, ImageIndex, ImageManifest, Reference, RepositoryAddress,
    Tag, artifact_type, media_type,
};

/// The tag a source without `?tag=` or `?digest=` selects.
pub const DEFAULT_TAG: &str = "latest";

/// The media types a module's manifest is asked for: the five ORAS's
/// `Resolve` accepts, so that a registry answers an index as an index
/// (which is then refused, OCIMOD-4) rather than picking one of its
/// manifests.
pub const MANIFEST_ACCEPT: &[&str] = &[
    media_type::DOCKER_MANIFEST,
    media_type::DOCKER_MANIFEST_LIST,
    media_type::IMAGE_MANIFEST,
    media_type::IMAGE_INDEX,
    "application/vnd.oci.artifact.manifest.v1+json",
];

/// The layer media types a module package may be, with the go-getter
/// decompressor OpenTofu unpacks each with (OCIMOD-6).
pub const LAYER_MEDIA_TYPES: &[(&str, &str)] = &[(media_type::ZIP, "zip")];

/// The order of preference among [`LAYER_MEDIA_TYPES`] when a manifest has
/// layers of several of them.
pub const LAYER_PREFERENCE: &[&str] = &[media_type::ZIP];

/// An `oci://` source that `init` would refuse before asking a registry,
/// with OpenTofu's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidModuleSource(String);

impl InvalidModuleSource {
    /// OpenTofu's message (without go-getter's `error downloading '…': `).
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for InvalidModuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidModuleSource {}

fn invalid(message: impl Into<String>) -> InvalidModuleSource {
    InvalidModuleSource(message.into())
}

/// A module source `oci://REGISTRY[:PORT]/REPOSITORY[//SUBDIR][?tag=T|?digest=D]`
/// (OpenTofu only), read as OpenTofu reads it (OCIMOD-1 to OCIMOD-3).
#[derive(Clone, PartialEq, Eq)]
pub struct OciModuleSource {
    given: String,
    address: RepositoryAddress,
    reference: Reference,
    explicit: bool,
    subdir: String,
}

impl OciModuleSource {
    /// Whether `text` names OpenTofu's OCI getter (`oci://…`, or a forced
    /// `oci::…`): what [`parse`](Self::parse) is for, and what Terraform
    /// has no getter for.
    pub fn is_oci(text: &str) -> bool {
        let lower = |n: usize| text.get(..n).map(str::to_ascii_lowercase);
        lower(6).as_deref() == Some("oci://") || text.starts_with("oci::")
    }

    /// Reads `text` as OpenTofu's module installer and OCI getter do, in
    /// their order: the `//subdir` split off and checked (go-getter's
    /// split, cleaned, `..` refused), go-getter's own `archive=` and
    /// `checksum=`, the registry and repository (ORAS's grammar), then the
    /// getter's arguments (OCIMOD-1 to OCIMOD-3).
    pub fn parse(text: &str) -> Result<OciModuleSource, InvalidModuleSource> {
        let package =
            ModulePackage::parse(text, Dialect::OpenTofu).map_err(|e| invalid(e.message()))?;
        if package.getter() != Some(Getter::Oci) {
            return Err(invalid(format!(
                "{} is not an oci:// module source",
                go_quote(text)
            )));
        }
        let subdir = package.subdir().to_owned();
        if subdir == ".." {
            return Err(invalid(format!(
                "subdirectory path {} leads outside of the module package",
                go_quote(&subdir)
            )));
        }
        let url = package.url();
        let Some(rest) = url
            .get(..6)
            .filter(|s| s.eq_ignore_ascii_case("oci://"))
            .map(|_| &url[6..])
        else {
            return Err(invalid("oci source type only supports oci URL scheme"));
        };
        // go-getter's magic arguments, before the getter sees the rest.
        if package.archive().is_some() {
            return Err(invalid(
                "the \"archive\" argument is not allowed for OCI sources, because the archive \
                 format is detected automatically from the image manifest",
            ));
        }
        if package.checksum().is_some() {
            return Err(invalid(
                "checksum cannot be specified for directory download",
            ));
        }
        let rest = rest.split_once('#').map_or(rest, |(before, _)| before);
        let (location, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (registry, path) = match location.find('/') {
            Some(at) => (&location[..at], &location[at..]),
            None => (location, ""),
        };
        let path = percent_decode_str(path).decode_utf8_lossy();
        let repository = path.strip_prefix('/').unwrap_or(&path);
        let address =
            RepositoryAddress::new(registry, repository).map_err(|e| invalid(e.to_string()))?;
        let (reference, explicit) = arguments(query)?;
        Ok(OciModuleSource {
            given: text.to_owned(),
            address,
            reference,
            explicit,
            subdir,
        })
    }

    /// The text parsed.
    pub fn given(&self) -> &str {
        &self.given
    }

    /// The registry and repository.
    pub fn address(&self) -> &RepositoryAddress {
        &self.address
    }

    /// The tag or digest that selects the manifest (`latest` when the
    /// source names neither).
    pub fn reference(&self) -> &Reference {
        &self.reference
    }

    /// Whether the source names its tag or digest (false: the default
    /// `latest`).
    pub fn is_explicit(&self) -> bool {
        self.explicit
    }

    /// The module's folder in the package (after `//`), cleaned; empty for
    /// the package's root. OpenTofu installs the whole package and reads
    /// the module from there.
    pub fn subdir(&self) -> &str {
        &self.subdir
    }

    /// The same module pinned to the manifest `digest`:
    /// `oci://REGISTRY/REPOSITORY[//SUBDIR]?digest=DIGEST`.
    pub fn pinned(&self, digest: &Digest) -> String {
        self.with_reference(&format!("digest={digest}"))
    }

    fn with_reference(&self, query: &str) -> String {
        let subdir = if self.subdir.is_empty() {
            String::new()
        } else {
            format!("//{}", self.subdir)
        };
        format!("oci://{}{subdir}?{query}", self.address)
    }
}

/// The source with its tag or digest spelled out:
/// `oci://REGISTRY/REPOSITORY[//SUBDIR]?tag=TAG` or `?digest=DIGEST`.
impl fmt::Display for OciModuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let query = match &self.reference {
            Reference::Tag(tag) => format!("tag={tag}"),
            Reference::Digest(digest) => format!("digest={digest}"),
        };
        f.write_str(&self.with_reference(&query))
    }
}

impl fmt::Debug for OciModuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OciModuleSource({self})")
    }
}

/// Go's `url.Query()`: `&`-separated pairs, each key and value
/// query-unescaped (`+` a space); a pair with a `;` or a bad escape is
/// dropped. Keys in order, values in order.
fn go_query(query: &str) -> BTreeMap<String, Vec<String>> {
    let unescape = |s: &str| -> Option<String> {
        let s = s.replace('+', " ");
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                let hex = bytes.get(i + 1..i + 3)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                i += 3;
            } else {
                i += 1;
            }
        }
        Some(percent_decode_str(&s).decode_utf8_lossy().into_owned())
    };
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        if pair.contains(';') {
            continue;
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (Some(key), Some(value)) = (unescape(key), unescape(value)) else {
            continue;
        };
        map.entry(key).or_default().push(value);
    }
    map
}

/// The getter's arguments (OCIMOD-3): each at most once, `tag` or
/// `digest` (not both), nothing else; go-getter has already taken a
/// non-empty `archive` (an unknown format, or a false one, is dropped
/// silently) and `checksum` (always).
fn arguments(query: &str) -> Result<(Reference, bool), InvalidModuleSource> {
    let mut tag = None;
    let mut digest = None;
    let mut unsupported = Vec::new();
    for (name, values) in go_query(query) {
        // go-getter deletes `checksum` whatever its value, `archive` when
        // its first value is not empty.
        let archive = name == "archive" && values.first().is_some_and(|v| !v.is_empty());
        if archive || name == "checksum" {
            continue;
        }
        if values.len() > 1 {
            return Err(invalid(format!("too many {} arguments", go_quote(&name))));
        }
        let value = values.into_iter().next().unwrap_or_default();
        match name.as_str() {
            "tag" => {
                if value.is_empty() {
                    return Err(invalid("tag argument must not be empty"));
                }
                tag = Some(value.parse::<Tag>().map_err(|e| invalid(e.to_string()))?);
            }
            "digest" => {
                if value.is_empty() {
                    return Err(invalid("digest argument must not be empty"));
                }
                if let Some(problem) = go_digest_problem(&value) {
                    return Err(invalid(format!("invalid digest: {problem}")));
                }
                digest = Some(
                    value
                        .parse::<Digest>()
                        .map_err(|e| invalid(format!("invalid digest: {}", e.problem)))?,
                );
            }
            _ => unsupported.push(name),
        }
    }
    match unsupported.as_slice() {
        [] => {}
        [one] => return Err(invalid(format!("unsupported argument {}", go_quote(one)))),
        many => {
            return Err(invalid(format!(
                "unsupported arguments: {}",
                many.join(", ")
            )));
        }
    }
    match (tag, digest) {
        (Some(_), Some(_)) => Err(invalid("cannot set both \"tag\" and \"digest\" arguments")),
        (Some(tag), None) => Ok((Reference::Tag(tag), true)),
        (None, Some(digest)) => Ok((Reference::Digest(digest), true)),
        (None, None) => {
            let latest = DEFAULT_TAG
                .parse()
                .map_err(|e: crate::InvalidReference| invalid(e.to_string()))?;
            Ok((Reference::Tag(latest), false))
        }
    }
}

/// go-digest's `Parse` errors, in its words: the digest must be
/// `ALGORITHM:ENCODED`, the algorithm one it has (`sha256`, `sha384`,
/// `sha512`), the encoded part of its length and lowercase hex.
fn go_digest_problem(text: &str) -> Option<&'static str> {
    const FORMAT: &str = "invalid checksum digest format";
    let Some(at) = text.find(':').filter(|&i| i > 0 && i + 1 < text.len()) else {
        return Some(FORMAT);
    };
    let (algorithm, encoded) = (&text[..at], &text[at + 1..]);
    let hex_len = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => {
            // `[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+`
            let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
            let algorithm_ok = algorithm
                .split(['.', '+', '_', '-'])
                .all(|part| !part.is_empty() && part.chars().all(alnum));
            let encoded_ok = encoded
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '=' | '_' | '-'));
            return Some(if algorithm_ok && encoded_ok {
                "unsupported digest algorithm"
            } else {
                FORMAT
            });
        }
    };
    if encoded.len() != hex_len {
        return Some("invalid checksum digest length");
    }
    if !encoded
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Some(FORMAT);
    }
    None
}

/// What a failed lookup of the source's tag or digest says (OCIMOD-4), as
/// OpenTofu prints it against a registry: `resolving tag:
/// REGISTRY/REPOSITORY:TAG: not found`, `resolving digest:
/// REGISTRY/REPOSITORY@DIGEST: not found`.
pub fn not_found(address: &RepositoryAddress, reference: &Reference) -> String {
    match reference {
        Reference::Tag(tag) => format!("resolving tag: {address}:{tag}: not found"),
        Reference::Digest(digest) => format!("resolving digest: {address}@{digest}: not found"),
    }
}

/// The manifest a tag or digest selected, checked as OpenTofu checks it
/// (OCIMOD-4, OCIMOD-5): an OCI image manifest (by its media type), that
/// decodes, whose `mediaType` is that media type and whose `artifactType`
/// is `application/vnd.opentofu.modulepkg`.
pub fn check_manifest(fetched: &FetchedManifest) -> Result<ImageManifest, String> {
    if fetched.media_type != media_type::IMAGE_MANIFEST {
        return Err("selected object is not an OCI image manifest".to_owned());
    }
    let manifest: ImageManifest = match fetched.manifest() {
        Ok(manifest) => manifest,
        Err(e) => {
            let index = serde_json::from_slice::<ImageIndex>(&fetched.bytes);
            return Err(match index {
                Ok(index) if index.media_type.as_deref() == Some(media_type::IMAGE_INDEX) => {
                    "found index manifest but need image manifest".to_owned()
                }
                _ => format!("invalid manifest content: {e}"),
            });
        }
    };
    let declared = manifest.media_type.as_deref().unwrap_or_default();
    if declared != fetched.media_type {
        return Err(format!(
            "unexpected manifest media type {}",
            go_quote(declared)
        ));
    }
    let artifact = manifest.artifact_type.as_deref().unwrap_or_default();
    if artifact != artifact_type::MODULE_PACKAGE {
        return Err(format!("unexpected artifact type {}", go_quote(artifact)));
    }
    Ok(manifest)
}

/// The layer that is the module package (OCIMOD-6): the one of a media
/// type OpenTofu unpacks (`archive/zip`); two of one type are ambiguous;
/// layers of other types are ignored, but named when there is no other.
pub fn select_layer(layers: &[Descriptor]) -> Result<Descriptor, String> {
    let mut found: BTreeMap<&str, &Descriptor> = BTreeMap::new();
    let mut others = 0usize;
    for layer in layers {
        let supported = LAYER_MEDIA_TYPES
            .iter()
            .any(|(media, _)| *media == layer.media_type);
        if !supported {
            others += 1;
            continue;
        }
        if found.insert(&layer.media_type, layer).is_some() {
            return Err(format!(
                "multiple layers with media type {}",
                go_quote(&layer.media_type)
            ));
        }
    }
    for preferred in LAYER_PREFERENCE {
        if let Some(layer) = found.get(preferred) {
            return Ok((*layer).clone());
        }
    }
    let none =
        "image manifest contains no layers of types supported as module packages by OpenTofu";
    Err(if others > 0 {
        format!(
            "{none}, but has other unsupported formats; this OCI artifact might be intended \
             for a different version of OpenTofu"
        )
    } else {
        none.to_owned()
    })
}

/// The module package's layer of the manifest a source selected: the
/// manifest checked ([`check_manifest`]), its layer selected
/// ([`select_layer`]).
pub fn package_layer(fetched: &FetchedManifest) -> Result<Descriptor, String> {
    select_layer(&check_manifest(fetched)?.layers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Algorithm;

    const D: &str = "sha256:1d57d25084effd3fdfd902eca00020b34b1fb020253b84d7dd471301606015ac";

    fn parse(text: &str) -> Result<OciModuleSource, String> {
        OciModuleSource::parse(text).map_err(|e| e.0)
    }

    fn err(text: &str) -> String {
        parse(text).expect_err(text)
    }

    #[test]
    fn references_and_defaults() {
        let s = parse("oci://example.com/main").expect("ok");
        assert_eq!(
            (s.address().registry(), s.address().repository()),
            ("example.com", "main")
        );
        assert_eq!(s.reference().to_string(), "latest");
        assert!(!s.is_explicit());
        let s = parse("oci://example.com:5000/a/b?tag=foo").expect("ok");
        assert_eq!(s.address().registry(), "example.com:5000");
        assert_eq!(s.reference().to_string(), "foo");
        assert!(s.is_explicit());
        let s = parse(&format!("oci://example.com/a?digest={D}")).expect("ok");
        assert_eq!(s.reference().to_string(), D);
        assert_eq!(s.to_string(), format!("oci://example.com/a?digest={D}"));
        // A percent-encoded path is Go's decoded path.
        let s = parse("oci://example.com/a%2Fb").expect("ok");
        assert_eq!(s.address().repository(), "a/b");
        // `+` in a query value is a space: no tag.
        assert_eq!(
            err("oci://h/r?tag=a+b"),
            r#"invalid reference: invalid tag "a b""#
        );
        // archive= with an unknown or false format is dropped by go-getter.
        assert!(parse("oci://h/r?archive=rar").is_ok());
        assert!(parse("oci://h/r?archive=false").is_ok());
        assert_eq!(
            err("oci://h/r?archive="),
            r#"unsupported argument "archive""#
        );
    }

    #[test]
    fn subdirectories() {
        let s = parse("oci://h/r//a/./b/../c?tag=x").expect("ok");
        assert_eq!(s.subdir(), "a/c");
        assert_eq!(s.reference().to_string(), "x");
        assert_eq!(s.to_string(), "oci://h/r//a/c?tag=x");
        let digest = Digest::of(Algorithm::Sha256, b"m");
        assert_eq!(s.pinned(&digest), format!("oci://h/r//a/c?digest={digest}"));
        assert_eq!(
            err("oci://h/r//../x"),
            r#"subdirectory path "../x" leads outside of the module package"#
        );
        assert_eq!(
            err("oci://h/r//a/../.."),
            r#"subdirectory path ".." leads outside of the module package"#
        );
    }

    #[test]
    fn argument_errors() {
        for (text, want) in [
            ("oci://h/r?tag=", "tag argument must not be empty"),
            ("oci://h/r?digest=", "digest argument must not be empty"),
            ("oci://h/r?tag=a&tag=b", r#"too many "tag" arguments"#),
            (
                "oci://h/r?digest=a&digest=b",
                r#"too many "digest" arguments"#,
            ),
            (
                "oci://h/r?tag=in$valid",
                r#"invalid reference: invalid tag "in$valid""#,
            ),
            (
                "oci://h/r?digest=nope",
                "invalid digest: invalid checksum digest format",
            ),
            (
                "oci://h/r?digest=nope:nope",
                "invalid digest: unsupported digest algorithm",
            ),
            (
                "oci://h/r?digest=sha256:abc",
                "invalid digest: invalid checksum digest length",
            ),
            (
                "oci://h/r?digest=NOPE:x",
                "invalid digest: invalid checksum digest format",
            ),
            ("oci://h/r?other=1", r#"unsupported argument "other""#),
            ("oci://h/r?b=1&a=2", "unsupported arguments: a, b"),
            (
                &format!("oci://h/r?tag=a&digest={D}"),
                r#"cannot set both "tag" and "digest" arguments"#,
            ),
            (
                "oci://h/r?archive=zip",
                "the \"archive\" argument is not allowed for OCI sources, because the archive \
                 format is detected automatically from the image manifest",
            ),
            (
                "oci://h/r.tar.gz",
                "the \"archive\" argument is not allowed for OCI sources, because the archive \
                 format is detected automatically from the image manifest",
            ),
            (
                "oci://h/r?checksum=sha256:00",
                "checksum cannot be specified for directory download",
            ),
            (
                "oci://h/in$valid",
                r#"invalid reference: invalid repository "in$valid""#,
            ),
            ("oci:///r", r#"invalid reference: invalid registry """#),
            (
                "oci::https://h/r",
                "oci source type only supports oci URL scheme",
            ),
        ] {
            assert_eq!(err(text), want, "{text}");
        }
        assert!(err("https://h/r").contains("not an oci:// module source"));
        assert!(err("./local").contains("direct remote package address"));
    }

    #[test]
    fn is_oci() {
        assert!(OciModuleSource::is_oci("oci://h/r"));
        assert!(OciModuleSource::is_oci("OCI://h/r"));
        assert!(OciModuleSource::is_oci("oci::https://h/r"));
        assert!(!OciModuleSource::is_oci("hashicorp/consul/aws"));
        assert!(!OciModuleSource::is_oci("oci"));
    }

    fn fetched(media: &str, json: &str) -> FetchedManifest {
        FetchedManifest {
            media_type: media.to_owned(),
            digest: Digest::of(Algorithm::Sha256, json.as_bytes()),
            bytes: json.as_bytes().to_vec(),
        }
    }

    fn layer(media: &str) -> String {
        format!(
            r#"{{"mediaType":"{media}","digest":"{}","size":2}}"#,
            Digest::of(Algorithm::Sha256, b"{}")
        )
    }

    fn manifest(media: Option<&str>, artifact: Option<&str>, layers: &[String]) -> String {
        let mut fields = vec![r#""schemaVersion":2"#.to_owned()];
        if let Some(m) = media {
            fields.push(format!(r#""mediaType":"{m}""#));
        }
        if let Some(a) = artifact {
            fields.push(format!(r#""artifactType":"{a}""#));
        }
        fields.push(format!(r#""config":{}"#, layer(media_type::EMPTY)));
        fields.push(format!(r#""layers":[{}]"#, layers.join(",")));
        format!("{{{}}}", fields.join(","))
    }

    #[test]
    fn manifests() {
        let image = media_type::IMAGE_MANIFEST;
        let module = artifact_type::MODULE_PACKAGE;
        let zip = layer(media_type::ZIP);
        let good = manifest(Some(image), Some(module), std::slice::from_ref(&zip));
        assert_eq!(
            package_layer(&fetched(image, &good))
                .expect("a layer")
                .media_type,
            media_type::ZIP
        );
        let index = r#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;
        assert_eq!(
            check_manifest(&fetched(media_type::IMAGE_INDEX, index)).expect_err("an index"),
            "selected object is not an OCI image manifest"
        );
        assert_eq!(
            check_manifest(&fetched(image, index)).expect_err("an index"),
            "found index manifest but need image manifest"
        );
        assert!(
            check_manifest(&fetched(image, "[]"))
                .expect_err("no JSON object")
                .starts_with("invalid manifest content: ")
        );
        assert_eq!(
            check_manifest(&fetched(image, &manifest(None, Some(module), &[]))).expect_err("no"),
            r#"unexpected manifest media type """#
        );
        assert_eq!(
            check_manifest(&fetched(image, &manifest(Some(image), None, &[]))).expect_err("no"),
            r#"unexpected artifact type """#
        );
        assert_eq!(
            check_manifest(&fetched(
                image,
                &manifest(Some(image), Some(artifact_type::PROVIDER_TARGET), &[])
            ))
            .expect_err("no"),
            r#"unexpected artifact type "application/vnd.opentofu.provider-target""#
        );
    }

    #[test]
    fn layers() {
        let descriptors = |types: &[&str]| -> Vec<Descriptor> {
            types
                .iter()
                .map(|t| serde_json::from_str(&layer(t)).expect("a descriptor"))
                .collect()
        };
        let none =
            "image manifest contains no layers of types supported as module packages by OpenTofu";
        assert_eq!(select_layer(&[]).expect_err("none"), none);
        assert_eq!(
            select_layer(&descriptors(&["application/x-tar"])).expect_err("none"),
            format!(
                "{none}, but has other unsupported formats; this OCI artifact might be intended \
                 for a different version of OpenTofu"
            )
        );
        assert_eq!(
            select_layer(&descriptors(&["archive/zip", "archive/zip"])).expect_err("two"),
            r#"multiple layers with media type "archive/zip""#
        );
        let chosen =
            select_layer(&descriptors(&["application/x-tar", "archive/zip"])).expect("the zip");
        assert_eq!(chosen.media_type, "archive/zip");
    }

    #[test]
    fn messages_for_what_is_not_there() {
        let a = RepositoryAddress::new("r.example:5000", "m").expect("ok");
        let tag = Reference::Tag("v1".parse().expect("a tag"));
        assert_eq!(
            not_found(&a, &tag),
            "resolving tag: r.example:5000/m:v1: not found"
        );
        let digest = Reference::Digest(D.parse().expect("a digest"));
        assert_eq!(
            not_found(&a, &digest),
            format!("resolving digest: r.example:5000/m@{D}: not found")
        );
    }
}
