//! `conformance/oci_modules.json`: OpenTofu's OCI module getter tests,
//! run as data against a real registry (CNCF distribution 2.8) on
//! loopback (docs/behaviour.md, OCIMOD-1 to OCIMOD-8).
//!
//! - `opentofu_oci_getter`: the getter's fixture repositories (`main`,
//!   `empty`) pushed to the registry, `example.com` read as its address;
//!   each source resolved and downloaded with the library's client, the
//!   error compared without go-getter's `error downloading '…': ` prefix
//!   (the CLI's own wrapping is not OpenTofu's either).
//! - `opentofu_getter_decompressor_media_types`: the layer media types
//!   `tfdisco_oci::module` accepts, and their order.
//! - `opentofu_e2e_module_oci_sources`: the OCI layout pushed byte for
//!   byte, each source downloaded by the real `tfdisco` binary into the
//!   module folder `init` would use.
//!
//! A case that fails on purpose is listed in `tests/expected_differences.txt`
//! under `oci_modules/`, with the reason; a listed case that passes fails
//! the run.
#![cfg(unix)]

#[path = "../../core/tests/common/results.rs"]
mod results;

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value, json};
use tfdisco_core::{Env, Error};
use tfdisco_testkit::install_goldens::stored_zip;
use tfdisco_testkit::oci_registry::{OciAuth, OciRegistry};
use tfdisco_transport::reexports::tfdisco_oci::module::{LAYER_MEDIA_TYPES, LAYER_PREFERENCE};
use tfdisco_transport::reexports::tfdisco_oci::{Algorithm, Digest, OciModuleSource};
use tfdisco_transport::{BlockingClient, ClientBuilder};

use results::{Results, table};
use tfdisco_runs::BlockingRuns;

fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["fixture"])
}

type Client = BlockingClient<tfdisco_tokio::Http>;

fn client() -> Client {
    ClientBuilder::<Client>::new()
        .system_roots(false)
        .add_root_certificate_pem(tfdisco_testkit::pki().ca_pem())
        .environment(Env::empty())
        .build()
        .expect("a client")
}

fn sha256_hex(bytes: &[u8]) -> String {
    Digest::of(Algorithm::Sha256, bytes).hex().to_owned()
}

fn digest_of(bytes: &[u8]) -> String {
    format!("sha256:{}", sha256_hex(bytes))
}

/// Standard base64, as the layouts hold binary blobs.
fn base64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut buffer, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|&c| c != b'=') {
        let value = ALPHABET
            .iter()
            .position(|&a| a == c)
            .unwrap_or_else(|| panic!("{c} is not base64")) as u32;
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    out
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{key} in {v}"))
}

/// A fixture document with each `{"mediaType": M, "$ref": ID}` made a
/// descriptor of the object `ID`.
fn resolve_refs(value: &Value, objects: &BTreeMap<String, Vec<u8>>) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, v) in map {
                if key == "$ref" {
                    let bytes = &objects[v.as_str().expect("an id")];
                    out.insert("digest".into(), json!(digest_of(bytes)));
                    out.insert("size".into(), json!(bytes.len()));
                } else {
                    out.insert(key.clone(), resolve_refs(v, objects));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| resolve_refs(v, objects)).collect())
        }
        other => other.clone(),
    }
}

/// Pushes the getter fixture's repositories: each object (zips and
/// manifests, in order), the tags, and the manifests reachable by digest
/// only; the empty config the manifests name (the in-memory store needs
/// none, a registry does).
fn push_fixture(registry: &OciRegistry, fixture: &Value) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    for (repo, spec) in fixture["repositories"].as_object().expect("repositories") {
        let mut objects: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let mut manifests = Vec::new();
        for object in spec["objects"].as_array().expect("objects") {
            let id = text(object, "id").to_owned();
            let bytes = match text(object, "kind") {
                "zip" => {
                    let entries: Vec<(String, Vec<u8>)> = object["entries"]
                        .as_array()
                        .expect("entries")
                        .iter()
                        .map(|e| {
                            (
                                text(e, "name").to_owned(),
                                text(e, "content").as_bytes().to_vec(),
                            )
                        })
                        .collect();
                    let entries: Vec<(&str, u32, &[u8])> = entries
                        .iter()
                        .map(|(n, d)| (n.as_str(), 0o100_644, d.as_slice()))
                        .collect();
                    let zip = stored_zip(&entries);
                    registry.push_blob(repo, &zip);
                    zip
                }
                "json" => {
                    let document = resolve_refs(&object["document"], &objects);
                    manifests.push(id.clone());
                    serde_json::to_vec(&document).expect("JSON")
                }
                other => panic!("object kind {other}"),
            };
            objects.insert(id, bytes);
        }
        if !manifests.is_empty() {
            registry.push_blob(repo, b"{}");
        }
        let media = "application/vnd.oci.image.manifest.v1+json";
        for (tag, descriptor) in spec["tags"].as_object().expect("tags") {
            let bytes = &objects[text(descriptor, "$ref")];
            registry.push_manifest(repo, tag, media, bytes);
        }
        for id in spec
            .get("resolvable_by_digest")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let bytes = &objects[id.as_str().expect("an id")];
            registry.push_manifest(repo, &digest_of(bytes), media, bytes);
        }
        for (id, bytes) in objects {
            all.insert(id, bytes);
        }
    }
    all
}

/// The source with the fixture's registries made addresses: `example.com`
/// the registry, `nonexist.example.com` a port nothing listens on; a
/// `<digest of X>` computed.
fn localize(source: &str, registry: &OciRegistry, objects: &BTreeMap<String, Vec<u8>>) -> String {
    let mut source = source
        .replace("oci://nonexist.example.com/", "oci://127.0.0.1:1/")
        .replace("oci://example.com/", &format!("oci://{}/", registry.host()));
    while let Some(start) = source.find("<digest of ") {
        let end = start + source[start..].find('>').expect("a closing >");
        let id = &source[start + "<digest of ".len()..end];
        let digest = digest_of(&objects[id]);
        source.replace_range(start..=end, &digest);
    }
    source
}

/// The part of an error OpenTofu's message is: a not-found lookup's and a
/// refused answer's own words, else the whole message.
fn opentofu_words(error: &Error) -> String {
    let inner = match error {
        Error::Registry { error, .. } => error.as_ref(),
        other => other,
    };
    match inner {
        Error::NotFound { message, .. } => message.clone(),
        Error::InvalidResponse { problem, .. } => problem.clone(),
        _ => error.to_string(),
    }
}

/// go-getter's `error downloading 'URL': ` taken off an expected error.
fn getter_words(expected: &str) -> &str {
    match expected.strip_prefix("error downloading '") {
        Some(rest) => rest.split_once("': ").map_or(expected, |(_, words)| words),
        None => expected,
    }
}

fn getter_case(
    case: &Value,
    client: &Client,
    registry: &OciRegistry,
    objects: &BTreeMap<String, Vec<u8>>,
    scratch: &Path,
) -> Result<(), String> {
    let source = localize(text(case, "source"), registry, objects);
    let into = scratch.join("package");
    let got = OciModuleSource::parse(&source)
        .map_err(|e| e.message().to_owned())
        .and_then(|parsed| {
            client
                .oci_module_download(&parsed, &into)
                .map_err(|e| opentofu_words(&e))
        });
    match (got, case.get("want_file_content"), case.get("error")) {
        (Ok(_), Some(want), None) => {
            let content = std::fs::read_to_string(into.join("test_content.txt"))
                .map_err(|e| format!("test_content.txt: {e}"))?;
            let want = want.as_str().expect("text");
            if content.trim() == want {
                Ok(())
            } else {
                Err(format!("content {content:?}, want {want:?}"))
            }
        }
        (Err(e), Some(want), None) => Err(format!("error {e:?}, want content {want}")),
        (Ok(_), None, Some(want)) => Err(format!("downloaded, want error {want}")),
        (Err(e), None, Some(want)) => {
            let want = getter_words(want.as_str().expect("text"));
            if e == want {
                Ok(())
            } else {
                Err(format!("error {e:?}, want {want:?}"))
            }
        }
        _ => panic!("a case has want_file_content or error: {case}"),
    }
}

fn media_types_case(case: &Value) -> Result<(), String> {
    let want: BTreeMap<String, String> =
        serde_json::from_value(case["media_type_decompressors"].clone()).expect("a map");
    let got: BTreeMap<String, String> = LAYER_MEDIA_TYPES
        .iter()
        .map(|(m, d)| ((*m).to_owned(), (*d).to_owned()))
        .collect();
    let preference: Vec<String> =
        serde_json::from_value(case["media_type_preference"].clone()).expect("a list");
    if got != want {
        return Err(format!("media types {got:?}, want {want:?}"));
    }
    if LAYER_PREFERENCE != preference {
        return Err(format!(
            "preference {LAYER_PREFERENCE:?}, want {preference:?}"
        ));
    }
    Ok(())
}

/// Pushes the e2e layout of `repo`: its blobs, and its manifests under the
/// tags `index.json` names.
fn push_layout(registry: &OciRegistry, repo: &str, layout: &Value) {
    let files = layout.as_object().expect("a layout");
    let content = |path: &str| -> Vec<u8> {
        let file = &files[path];
        let bytes = match (file.get("text"), file.get("base64")) {
            (Some(t), None) => t.as_str().expect("text").as_bytes().to_vec(),
            (None, Some(b)) => base64(b.as_str().expect("base64")),
            _ => panic!("{path}: text or base64"),
        };
        assert_eq!(Some(bytes.len() as u64), file["size"].as_u64(), "{path}");
        bytes
    };
    let index: Value = serde_json::from_slice(&content("index.json")).expect("index.json");
    let manifests: Vec<&Value> = index["manifests"]
        .as_array()
        .expect("manifests")
        .iter()
        .collect();
    let is_manifest = |path: &str| {
        manifests
            .iter()
            .any(|m| path.ends_with(text(m, "digest").trim_start_matches("sha256:")))
    };
    for path in files.keys().filter(|p| p.starts_with("blobs/sha256/")) {
        let bytes = content(path);
        assert!(path.ends_with(&sha256_hex(&bytes)), "{path} is its digest");
        if !is_manifest(path) {
            registry.push_blob(repo, &bytes);
        }
    }
    for manifest in manifests {
        let digest = text(manifest, "digest");
        let bytes = content(&format!(
            "blobs/sha256/{}",
            digest.trim_start_matches("sha256:")
        ));
        let tag = text(
            &manifest["annotations"],
            "org.opencontainers.image.ref.name",
        );
        let pushed = registry.push_manifest(repo, tag, text(manifest, "mediaType"), &bytes);
        assert_eq!(pushed, digest);
    }
}

fn e2e_case(case: &Value, registry: &OciRegistry, source: &str) -> Result<(), String> {
    let root = tempfile::tempdir().expect("a root module");
    let want = &case["want"];
    let module = root.path().join(".terraform/modules/test");
    let source = source.replace("<registry>", &registry.host());
    let ca = common::ca_file();
    let home = tempfile::tempdir().expect("a home");
    let run = common::tfdisco(
        home.path(),
        &[],
        &[
            "module",
            "download",
            &source,
            "--into",
            &module.to_string_lossy(),
            "--ca-file",
            &ca,
        ],
    );
    let want_code = want["exit_code"].as_i64().map(|c| c as i32);
    if run.code != want_code {
        return Err(format!(
            "exit {:?}, want {want_code:?}: {}",
            run.code, run.stderr
        ));
    }
    let file = root.path().join(text(want, "file"));
    let meta = std::fs::metadata(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    if meta.is_dir() != want["file_is_directory"].as_bool().expect("a bool") {
        return Err(format!("{} is a folder: {}", file.display(), meta.is_dir()));
    }
    let name = file.file_name().expect("a name").to_string_lossy();
    let tree = &case["package_source_tree"];
    let got = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
    if got != text(tree, &name) {
        return Err(format!("{name}: {got:?}"));
    }
    Ok(())
}

#[test]
fn oci_modules() {
    let data = table("oci_modules.json");
    let mut results = Results::new("oci_modules/");

    let registry = OciRegistry::start(OciAuth::Anonymous);
    let objects = push_fixture(&registry, &data["opentofu_oci_getter_fixture"]);
    let client = client();
    for (i, case) in data["opentofu_oci_getter"]
        .as_array()
        .expect("cases")
        .iter()
        .enumerate()
    {
        let scratch = tempfile::tempdir().expect("a folder");
        let outcome = getter_case(case, &client, &registry, &objects, scratch.path());
        results.record(format!("oci_modules/opentofu_oci_getter/{i}"), outcome);
    }

    for (i, case) in data["opentofu_getter_decompressor_media_types"]
        .as_array()
        .expect("cases")
        .iter()
        .enumerate()
    {
        results.record(
            format!("oci_modules/opentofu_getter_decompressor_media_types/{i}"),
            media_types_case(case),
        );
    }

    for (i, case) in data["opentofu_e2e_module_oci_sources"]
        .as_array()
        .expect("cases")
        .iter()
        .enumerate()
    {
        for (repo, layout) in case["layouts"].as_object().expect("layouts") {
            push_layout(&registry, repo, layout);
        }
        for (j, source) in case["sources"]
            .as_array()
            .expect("sources")
            .iter()
            .enumerate()
        {
            let source = source.as_str().expect("a source");
            results.record(
                format!("oci_modules/opentofu_e2e_module_oci_sources/{i}/{j}"),
                e2e_case(case, &registry, source),
            );
        }
    }
    results.finish();
}
