//! Registry responses from arbitrary bytes: the body (and the location
//! header) of each of the four registry requests and the two network
//! mirror documents, in both dialects, through the machine as a transport
//! would feed it. The answer is an error or a result whose URLs are usable;
//! nothing panics.
//!
//! The first byte picks the request, the dialect, the status (200 or 204)
//! and whether the response first redirects; the rest is the body, and also
//! the `X-Terraform-Get` value when it is valid header text. A module
//! location that is a go-getter address comes with its parsed package.
#![no_main]

use std::time::Instant;

use libfuzzer_sys::fuzz_target;
use tfdisco_core::http::{HeaderMap, HeaderValue, StatusCode, header};
use tfdisco_core::url::Url;
use tfdisco_core::{
    Action, Config, Error, Goal, Hostname, ModuleSource, NetworkMirror, Platform, ProviderSource,
    Services, Transfer, Version,
};

fn check_url(url: &Url) {
    assert!(matches!(url.scheme(), "http" | "https"), "{url}");
}

/// One response for each request: the head, then the body in two chunks.
fn drive<G: Goal>(
    mut transfer: Transfer<G>,
    redirect: bool,
    status: StatusCode,
    body: &[u8],
) -> Result<G::Output, Error> {
    let now = Instant::now();
    let mut redirected = false;
    loop {
        match transfer.poll() {
            Action::Send(_) if redirect && !redirected => {
                redirected = true;
                let mut headers = HeaderMap::new();
                headers.insert(header::LOCATION, HeaderValue::from_static("/moved/here"));
                transfer.handle_head(StatusCode::FOUND, &headers, now);
            }
            Action::Send(_) => {
                let mut headers = HeaderMap::new();
                headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                if let Ok(value) = HeaderValue::from_bytes(body) {
                    headers.insert("x-terraform-get", value);
                }
                transfer.handle_head(status, &headers, now);
                let (a, b) = body.split_at(body.len() / 2);
                for chunk in [a, b] {
                    if transfer.is_receiving() {
                        transfer.handle_body(chunk, now);
                    }
                }
                transfer.handle_end(now);
            }
            Action::Receive => unreachable!("bodies are read right after their head"),
            Action::Wait(until) => transfer.handle_timeout(until),
            Action::Done(result) => return result,
            _ => unreachable!("no other action"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let dialect = tfdisco_fuzz::dialect(selector);
    let status = if selector & 2 == 0 {
        StatusCode::OK
    } else {
        StatusCode::NO_CONTENT
    };
    let redirect = selector & 4 != 0;
    let config = Config::new(dialect).with_retries(0);
    let now = Instant::now();
    let services = Services::from_json(
        Hostname::parse("registry.example.com").expect("valid"),
        Url::parse("https://registry.example.com/.well-known/terraform.json").expect("valid"),
        dialect,
        br#"{"providers.v1": "/v1/providers/", "modules.v1": "https://api.example.net/m"}"#,
    )
    .expect("valid");
    let provider =
        ProviderSource::parse("registry.example.com/hashicorp/aws", dialect).expect("valid");
    let module = ModuleSource::parse("registry.example.com/acme/vpc/aws", dialect).expect("valid");
    let platform = Platform::parse("linux_amd64").expect("valid");
    let mirror = NetworkMirror::new(Url::parse("https://mirror.example.net/p/").expect("valid"))
        .expect("https");
    match (selector >> 3) % 6 {
        0 => {
            let transfer = Transfer::provider_versions(&services, &provider, &config, None, now)
                .expect("these requests start");
            if let Ok(answer) = drive(transfer, redirect, status, body) {
                check_url(&answer.url);
            }
        }
        1 => {
            let transfer = Transfer::provider_package(
                &services, &provider, "1.0.0", &platform, &config, None, now,
            )
            .expect("these requests start");
            if let Ok(package) = drive(transfer, redirect, status, body) {
                for url in [
                    &package.download_url,
                    &package.shasums_url,
                    &package.shasums_signature_url,
                ] {
                    check_url(url);
                }
                assert_eq!(package.shasum.len(), 64);
                assert_eq!(package.platform, platform);
            }
        }
        2 => {
            let transfer = Transfer::module_versions(&services, &module, &config, None, now)
                .expect("these requests start");
            if let Ok(answer) = drive(transfer, redirect, status, body) {
                check_url(&answer.url);
            }
        }
        4 => {
            let transfer =
                Transfer::network_mirror_versions(&mirror, &provider, &config, None, now)
                    .expect("these requests start");
            if let Ok(answer) = drive(transfer, redirect, status, body) {
                check_url(&answer.url);
                assert!(answer.versions.windows(2).all(|w| w[0] < w[1]));
            }
        }
        5 => {
            let version = Version::parse("1.0.0", dialect).expect("valid");
            let transfer =
                Transfer::network_mirror_archives(&mirror, &provider, &version, &config, None, now)
                    .expect("these requests start");
            if let Ok(answer) = drive(transfer, redirect, status, body) {
                for key in answer.platforms().map(str::to_owned).collect::<Vec<_>>() {
                    let (os, arch) = key.split_once('_').unwrap_or((&key, ""));
                    if let Ok(archive) = answer.archive(&Platform::new(os, arch)) {
                        assert_eq!(archive.url.scheme(), "https");
                        assert!(
                            archive
                                .hashes
                                .iter()
                                .all(|h| h.find(':').is_some_and(|at| at > 0))
                        );
                    }
                }
                let _ = answer.archive(&platform);
            }
        }
        _ => {
            let transfer =
                Transfer::module_download(&services, &module, "1.0.0", &config, None, now)
                    .expect("these requests start");
            if let Ok(location) = drive(transfer, redirect, status, body) {
                assert!(!location.location.is_empty());
                match (&location.use_registry_credentials, &location.package) {
                    (Some(_), None) => {
                        check_url(&Url::parse(&location.location).expect("a direct URL parses"));
                    }
                    // A go-getter address init can download (PKG-1, PKG-7).
                    (None, Some(package)) => {
                        assert_eq!(package.given(), location.location);
                        assert!(package.getter().is_some(), "{package:?}");
                    }
                    other => panic!("a direct URL has no package, an address has one: {other:?}"),
                }
            }
        }
    }
});
