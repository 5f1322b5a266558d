//! OCI registry answers from arbitrary bytes: `WWW-Authenticate`
//! challenges, token answers, tag pages with their `Link` header,
//! manifests and indexes through OpenTofu's mirror rules, digests and
//! `--oci-mirror` templates. Each is an error or a usable value; nothing
//! panics, and a digest or tag that parses prints back as it was given.
//!
//! The first byte picks what the rest is.
#![no_main]

use std::time::Instant;

use libfuzzer_sys::fuzz_target;
use tfdisco_core::http::{HeaderMap, HeaderValue, StatusCode, header};
use tfdisco_core::{Action, Config, Dialect, Hostname, Platform, ProviderSource};
use tfdisco_oci::{
    Access, Algorithm, Answer, AuthCache, Authorized, Challenge, Digest, FetchedManifest,
    ManifestRequest, OciCredentials, Reference, RepositoryAddress, Scope, Step, Tag,
    TagListRequest, media_type,
};
use tfdisco_provider::oci_mirror;

/// Runs the session's first request against one answer: `status`,
/// `headers`, `body`; then its next step, which must exist.
fn answer_once<G: tfdisco_core::Goal>(
    mut request: Authorized<G>,
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
) {
    let config = Config::new(Dialect::OpenTofu);
    let now = Instant::now();
    let mut cache = AuthCache::new();
    let Step::Request(mut transfer) = request.next(&cache, &config, now) else {
        return;
    };
    let Action::Send(_) = transfer.poll() else {
        return;
    };
    transfer.handle_head(status, headers, now);
    if matches!(transfer.poll(), Action::Receive) {
        let (a, b) = body.split_at(body.len() / 2);
        transfer.handle_body(a, now);
        transfer.handle_body(b, now);
        transfer.handle_end(now);
    }
    let Action::Done(result) = transfer.poll() else {
        panic!("one answer ends a transfer")
    };
    if let Ok(Answer::Done(_)) = &result {
        assert_eq!(status, StatusCode::OK);
    }
    request.answered(transfer, result, &mut cache);
    match request.next(&cache, &config, now) {
        Step::Token(transfer) => {
            let url = transfer.url();
            assert!(matches!(url.scheme(), "http" | "https"), "{url}");
        }
        Step::Request(_) | Step::Done(_) => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let address = RepositoryAddress::parse("registry.example/ns/aws").expect("valid");
    let host = Hostname::parse(address.registry()).expect("valid");
    match first % 6 {
        0 => {
            // A challenge, answered with and without credentials.
            if let Some(challenge) = Challenge::parse(&text) {
                let _ = challenge.param("realm");
            }
            let mut headers = HeaderMap::new();
            if let Ok(value) = HeaderValue::from_bytes(rest) {
                headers.insert(header::WWW_AUTHENTICATE, value);
            }
            for credentials in [None, Some(OciCredentials::basic("u", "p"))] {
                let url = address.tags_url();
                let scope = Scope::new(address.repository(), Access::Pull);
                let request = Authorized::new(
                    TagListRequest::new(host.clone()),
                    url,
                    &address,
                    scope,
                    credentials,
                );
                answer_once(request, StatusCode::UNAUTHORIZED, &headers, b"");
            }
        }
        1 => {
            // A tag page, its body and (when it is header text) its Link.
            let mut headers = HeaderMap::new();
            if let Ok(value) = HeaderValue::from_bytes(rest) {
                headers.insert(header::LINK, value);
            }
            let url = address.tags_url();
            let scope = Scope::new(address.repository(), Access::Pull);
            let goal = TagListRequest::new(host.clone());
            let request = Authorized::new(goal, url, &address, scope, None);
            answer_once(request, StatusCode::OK, &headers, rest);
        }
        2 => {
            // A manifest by tag, with the media type the first byte says.
            let media = [
                media_type::IMAGE_INDEX,
                media_type::IMAGE_MANIFEST,
                "text/plain",
            ][usize::from(first / 6) % 3];
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
            let reference = Reference::Tag("1.0.0".parse().expect("tag"));
            let url = address.manifest_url(&reference);
            let scope = Scope::new(address.repository(), Access::Pull);
            let goal = ManifestRequest::new(host.clone(), reference, oci_mirror::INDEX_ACCEPT);
            answer_once(
                Authorized::new(goal, url, &address, scope, None),
                StatusCode::OK,
                &headers,
                rest,
            );
            // The mirror's rules over the same bytes.
            let fetched = FetchedManifest {
                media_type: media.to_owned(),
                digest: Digest::of(Algorithm::Sha256, rest),
                bytes: rest.to_vec(),
            };
            if let Ok(index) = oci_mirror::check_index(&fetched) {
                let _ = oci_mirror::select_platform(&index, &Platform::new("linux", "amd64"));
            }
            if let Ok(manifest) = oci_mirror::check_manifest(&fetched) {
                if let Ok(layer) = oci_mirror::select_layer(&manifest) {
                    let _ = oci_mirror::zh_hash(&layer);
                }
            }
        }
        3 => {
            // A token answer, after a Bearer challenge.
            let mut headers = HeaderMap::new();
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(
                    r#"Bearer realm="https://auth.example/token",service="r""#,
                ),
            );
            let config = Config::new(Dialect::OpenTofu);
            let now = Instant::now();
            let mut cache = AuthCache::new();
            let url = address.tags_url();
            let scope = Scope::new(address.repository(), Access::Pull);
            let goal = TagListRequest::new(host.clone());
            let mut request = Authorized::new(goal, url, &address, scope, None);
            let Step::Request(mut transfer) = request.next(&cache, &config, now) else {
                return;
            };
            let _ = transfer.poll();
            transfer.handle_head(StatusCode::UNAUTHORIZED, &headers, now);
            let Action::Done(result) = transfer.poll() else {
                return;
            };
            request.answered(transfer, result, &mut cache);
            let Step::Token(mut token) = request.next(&cache, &config, now) else {
                panic!("a Bearer challenge asks for a token")
            };
            let _ = token.poll();
            token.handle_head(StatusCode::OK, &HeaderMap::new(), now);
            token.handle_body(rest, now);
            token.handle_end(now);
            let Action::Done(result) = token.poll() else {
                return;
            };
            request.token(result, &mut cache, now);
            let _ = request.next(&cache, &config, now);
        }
        4 => {
            // Digests and tags print back as given.
            if let Ok(digest) = text.parse::<Digest>() {
                assert_eq!(digest.to_string(), text);
            }
            if let Ok(tag) = text.parse::<Tag>() {
                assert_eq!(tag.as_str(), text);
            }
            if let Ok(address) = RepositoryAddress::parse(&text) {
                assert_eq!(address.to_string(), text);
                let _ = address.api_root();
            }
        }
        _ => {
            // An --oci-mirror template, expanded for a provider.
            if let Ok(template) = oci_mirror::OciMirrorTemplate::parse(&text) {
                let source =
                    ProviderSource::parse("hashicorp/aws", Dialect::OpenTofu).expect("source");
                let _ = template.address_for(&source);
            }
        }
    }
});
