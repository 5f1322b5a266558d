//! OpenTofu's network mirror tests (`conformance/network_mirror_source.json`:
//! `TestHTTPMirrorSource`, `TestPackageHashAuthentication_success` and
//! `_failure`), run as data against tfdisco's rules (docs/behaviour.md,
//! MIRROR-3 to MIRROR-7, HASH-22, MIRROR-14).
//!
//! - The mirror source's calls: the test's HTTPS handler becomes the
//!   socket-free harness's routes at `https://127.0.0.1:8443`, asked by the
//!   real goals (`Transfer::network_mirror_versions`, `Transfer::network_mirror_archives`) with
//!   OpenTofu's rules and the mirror host's token; a request that does not
//!   carry the token is one the handler answers 401. `AvailableVersions` is
//!   the versions read; `PackageMeta` the platform's archive
//!   (`NetworkMirrorArchives::archive`), its listed hashes judged by
//!   `authenticate_mirror_archive` (which ones are required shows in whom
//!   the refusal of an archive that matches none names). Go's error types
//!   are the error's kind: `ErrProviderNotFound` and
//!   `ErrPlatformNotSupported` are not found, `ErrQueryFailed` a status,
//!   `ErrUnauthorized` a 401, each naming what the Go error holds.
//! - The package hash authentication: the fixture's directory as the
//!   archive a network mirror serves (its files zipped, so its `h1:` is
//!   the directory's), judged by `authenticate_mirror_archive`; with
//!   `trust_all_hashes`, the hashes a trusted mirror reports
//!   (`trusted_mirror_hashes`, for the fixture's provider of OpenTofu's
//!   default registry) join those matched.
//!
//! A case that fails must be listed with its reason in
//! `expected_differences.txt` (under `network_mirror_source/`), and a listed
//! case that passes fails the run.

#[path = "../../core/tests/common/mod.rs"]
mod common;
#[path = "../../core/tests/common/results.rs"]
mod results;
mod zipwriter;

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde_json::Value;
use tfdisco_core::url::Url;
use tfdisco_core::{
    Config, Credentials, Dialect, Error, ErrorKind, NetworkMirror, Platform, ProviderSource, Sink,
    Transfer, Version,
};
use tfdisco_provider::plan::ArchiveSink;
use tfdisco_provider::{SignatureCheck, Trust, authenticate_mirror_archive, trusted_mirror_hashes};

use common::{Net, Reply};
use results::{Results, table};
use zipwriter::{Descriptor, Entry, Method, Zip};

/// `id<TAB>tag<TAB>reason` lines. Tags: `seam` (the Go test reaches what
/// tfdisco has no place for); `wording` (the same outcome, in tfdisco's
/// words).
fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["seam", "wording"])
}

const TABLE: &str = "network_mirror_source.json";
const DIALECT: Dialect = Dialect::OpenTofu;
/// The test server's URL, `{MIRROR}`.
const MIRROR: &str = "https://127.0.0.1:8443";
/// Its host, `{MIRROR_HOST}`.
const MIRROR_HOST: &str = "127.0.0.1:8443";

fn text<'a>(value: &'a Value, what: &str) -> Result<&'a str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("the table's {what} is not a string: {value}"))
}

fn placeholders(text: &str) -> String {
    text.replace("{MIRROR_HOST}", MIRROR_HOST)
        .replace("{MIRROR}", MIRROR)
}

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

/// The harness serving the fixture's handler: every route, anything else
/// its `otherwise`.
fn server(fixture: &Value) -> Result<Net, String> {
    let mut net = Net::new();
    let routes = fixture["routes"]
        .as_object()
        .ok_or("the fixture has no routes")?;
    for (path, answer) in routes {
        net.on(&format!("{MIRROR}{path}"), reply(answer)?);
    }
    Ok(net)
}

fn reply(answer: &Value) -> Result<Reply, String> {
    let status = answer["status"]
        .as_u64()
        .ok_or("a route without a status")? as u16;
    let mut reply = Reply::new(status);
    if let Some(content_type) = answer["content_type"].as_str() {
        reply = reply.header("Content-Type", content_type);
    }
    if let Some(location) = answer["location"].as_str() {
        reply = reply.header("Location", location);
    }
    Ok(reply.body(text(&answer["body"], "body")?.as_bytes()))
}

/// Whether the handler would have let every request through: each
/// carried the mirror host's token.
fn authorized(net: &Net, token: &str) -> bool {
    let wanted = format!("Bearer {token}");
    net.seen
        .iter()
        .all(|seen| seen.authorization() == Some(wanted.as_str()))
}

/// One call of `TestHTTPMirrorSource`.
fn mirror_source_case(fixture: &Value, case: &Value) -> Result<(), String> {
    let config = Config::new(DIALECT);
    let mirror = NetworkMirror::parse(MIRROR).map_err(|e| e.to_string())?;
    let provider = text(&case["provider"], "provider")?;
    let source =
        ProviderSource::parse(provider, DIALECT).map_err(|e| format!("{provider}: {e}"))?;
    let token = text(&fixture["token"], "token")?;
    let with_credentials = case["credentials"].as_bool().unwrap_or(true);
    let credentials = with_credentials
        .then(|| Credentials::token(token))
        .transpose()
        .map_err(|e| e.to_string())?;
    let mut net = server(fixture)?;
    if !with_credentials {
        // Nothing the source sends carries the token: every answer is the
        // handler's 401.
        net = Net::new();
        let unauthorized = reply(&fixture["unauthorized"])?;
        for path in fixture["routes"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(p, _)| p)
        {
            net.on(&format!("{MIRROR}{path}"), unauthorized.clone());
        }
        let missing = mirror.archives_url(&source, &Version::new(1, 0, 0));
        net.on(missing.as_str(), unauthorized.clone());
        net.on(mirror.versions_url(&source).as_str(), unauthorized);
    }
    // Any other URL answers the handler's 404.
    let otherwise = reply(&fixture["otherwise"])?;
    let now = net.now();
    let want = &case["want"];
    let outcome = match text(&case["call"], "call")? {
        "AvailableVersions" => {
            let url = mirror.versions_url(&source);
            if !has_route(fixture, &url) && with_credentials {
                net.on(url.as_str(), otherwise);
            }
            net.run(Transfer::network_mirror_versions(
                &mirror,
                &source,
                &config,
                credentials,
                now,
            ))
            .map(|answer| {
                Value::from(
                    answer
                        .versions
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>(),
                )
            })
        }
        "PackageMeta" => {
            let version = Version::parse(text(&case["version"], "version")?, DIALECT)
                .map_err(|e| e.to_string())?;
            let platform =
                Platform::parse(text(&case["platform"], "platform")?).map_err(|e| e.to_string())?;
            let url = mirror.archives_url(&source, &version);
            if !has_route(fixture, &url) && with_credentials {
                net.on(url.as_str(), otherwise);
            }
            match net.run(Transfer::network_mirror_archives(
                &mirror,
                &source,
                &version,
                &config,
                credentials,
                now,
            )) {
                Ok(answer) => match answer.archive(&platform) {
                    Ok(archive) => return package_meta(want, &archive),
                    Err(e) => Err(e),
                },
                Err(e) => Err(e),
            }
        }
        other => return Err(format!("a call the runner does not know: {other}")),
    };
    if with_credentials && !authorized(&net, token) {
        return Err("a request without the mirror host's token: the handler answers 401".into());
    }
    match (outcome, want.get("versions")) {
        (Ok(versions), Some(wanted)) => check("versions", &versions, wanted),
        (Ok(got), None) => Err(format!("succeeded with {got}; want {want}")),
        (Err(e), Some(_)) => Err(format!("failed: {e}")),
        (Err(e), None) => error_is(want, &e, &source),
    }
}

fn has_route(fixture: &Value, url: &Url) -> bool {
    fixture["routes"].get(url.path()).is_some()
}

/// The error the case wants, by Go's type: its kind, and what the Go error
/// holds named in its text.
fn error_is(want: &Value, error: &Error, source: &ProviderSource) -> Result<(), String> {
    let message = error.to_string();
    let names = |what: &str| {
        if message.contains(what) {
            Ok(())
        } else {
            Err(format!("{message:?} does not name {what}"))
        }
    };
    if want["error"] == true {
        return Ok(());
    }
    match want["error_type"].as_str() {
        Some("ErrProviderNotFound") => {
            check("kind", error.kind(), ErrorKind::NotFound)?;
            names(&source.to_string())
        }
        Some("ErrPlatformNotSupported") => {
            check("kind", error.kind(), ErrorKind::NotFound)?;
            names(&source.to_string())?;
            names(text(&want["platform"], "platform")?)?;
            names(MIRROR)
        }
        Some("ErrQueryFailed") => {
            check("kind", error.kind(), ErrorKind::Status)?;
            names(MIRROR)
        }
        Some("ErrUnauthorized") => {
            check("kind", error.kind(), ErrorKind::Status)?;
            names("401")?;
            names(&placeholders(text(&want["hostname"], "hostname")?))
        }
        other => Err(format!("an error type the runner does not know: {other:?}")),
    }
}

/// A platform's archive against what `PackageMeta` gave: its file name, its
/// URL, and its listed hashes: none (no authentication: the package is
/// unauthenticated), or all of them listed, only those OpenTofu can check
/// required (an archive matching none is refused naming the one required,
/// or in the words for several).
fn package_meta(want: &Value, archive: &tfdisco_core::NetworkMirrorArchive) -> Result<(), String> {
    check(
        "filename",
        archive.filename.as_str(),
        text(&want["filename"], "filename")?,
    )?;
    check(
        "location",
        archive.url.to_string(),
        placeholders(text(&want["location"], "location")?),
    )?;
    let other = hashes_of(&Zip::default().write())?;
    let auth = &want["authentication"];
    if auth.is_null() {
        check("listed hashes", archive.hashes.len(), 0)?;
        let checked = authenticate_mirror_archive(&archive.hashes, &other, DIALECT)
            .map_err(|e| e.to_string())?;
        return check("trust", checked.trust, Trust::Unauthenticated);
    }
    let strings = |value: &Value| -> Vec<String> {
        value
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    check(
        "listed hashes",
        archive.hashes.clone(),
        strings(&auth["all_hashes"]),
    )?;
    check(
        "platform",
        archive.platform.to_string(),
        text(&auth["platform"], "platform")?.to_owned(),
    )?;
    let required = strings(&auth["required_hashes"]);
    let refusal = authenticate_mirror_archive(&archive.hashes, &other, DIALECT)
        .err()
        .ok_or("an archive matching no listed hash was accepted")?
        .to_string();
    let expected = match required.as_slice() {
        [one] => format!("provider package doesn't match the expected checksum {one:?}"),
        _ => "provider package doesn't match the any of the expected checksums".to_owned(),
    };
    check("refusal", refusal, expected)
}

/// The hashes of an archive as the plan reads a download: through the
/// sink that never stops it (an archive that is no zip still has its
/// SHA-256).
fn hashes_of(archive: &[u8]) -> Result<tfdisco_provider::PackageHashes, String> {
    let mut sink = ArchiveSink::new();
    sink.write(archive)?;
    Ok(sink.finish()?.checkable())
}

/// One case of `TestPackageHashAuthentication_*`.
fn authentication_case(fixture: &Value, case: &Value) -> Result<(), String> {
    let archive = match text(&case["location"], "location")? {
        "directory" => {
            let files = fixture["directory"]
                .as_object()
                .ok_or("the fixture has no directory")?;
            let entries = files
                .iter()
                .map(|(name, content)| {
                    Ok(Entry::new(
                        name,
                        text(content, "a file")?.as_bytes(),
                        Method::Deflated,
                        Descriptor::None,
                    ))
                })
                .collect::<Result<Vec<_>, String>>()?;
            let zip = Zip {
                entries,
                ..Zip::default()
            }
            .write();
            let hashes = hashes_of(&zip)?;
            // The directory zipped has the directory's h1:.
            check(
                "the directory's h1:",
                hashes.h1_zip(),
                text(&fixture["known_h1"], "known_h1")?.to_owned(),
            )?;
            hashes
        }
        "invalid zip" => hashes_of(text(&fixture["invalid_zip"], "invalid_zip")?.as_bytes())?,
        other => {
            return Err(format!(
                "no package read from {other}: a location tfdisco has not"
            ));
        }
    };
    let listed: Vec<String> = case["hashes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    let want = &case["want"];
    match authenticate_mirror_archive(&listed, &archive, DIALECT) {
        Ok(checked) => {
            if let Some(error) = want.get("error") {
                return Err(format!("accepted; want {error}"));
            }
            check(
                "result",
                checked.trust.label(),
                text(&want["result"], "result")?,
            )?;
            let mut hashes = checked.matched;
            if case["trust_all_hashes"] == true {
                // The directory's provider: OpenTofu's default registry.
                let source = ProviderSource::parse("registry.opentofu.org/hashicorp/null", DIALECT)
                    .map_err(|e| e.to_string())?;
                let how = SignatureCheck::new(DIALECT, SystemTime::now());
                hashes.extend(trusted_mirror_hashes(&listed, &source, &how));
            }
            hashes.sort();
            hashes.dedup();
            match want.get("hash_count").and_then(Value::as_u64) {
                Some(count) => check("hashes", hashes.len() as u64, count),
                None => Ok(()),
            }
        }
        Err(e) => match want.get("error") {
            Some(error) => check("error", e.to_string(), text(error, "error")?.to_owned()),
            None => Err(format!("refused: {e}")),
        },
    }
}

#[test]
fn opentofu_http_mirror_source() {
    let doc = table(TABLE);
    let fixture = &doc["opentofu_http_mirror_source_fixture"];
    let mut results = Results::new("network_mirror_source/opentofu_http_mirror_source/");
    for (i, case) in doc["opentofu_http_mirror_source"]
        .as_array()
        .expect("cases")
        .iter()
        .enumerate()
    {
        results.record(
            format!("network_mirror_source/opentofu_http_mirror_source/{i}"),
            mirror_source_case(fixture, case),
        );
    }
    results.finish();
}

#[test]
fn opentofu_package_hash_authentication() {
    let doc = table(TABLE);
    let fixture = &doc["opentofu_package_hash_authentication_fixture"];
    let mut results = Results::new("network_mirror_source/opentofu_package_hash_authentication/");
    for (i, case) in doc["opentofu_package_hash_authentication"]
        .as_array()
        .expect("cases")
        .iter()
        .enumerate()
    {
        results.record(
            format!("network_mirror_source/opentofu_package_hash_authentication/{i}"),
            authentication_case(fixture, case),
        );
    }
    results.finish();
}
