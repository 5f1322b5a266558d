//! Authorized OCI requests driven by hand, no sockets (OCI-3 to OCI-6):
//! each transfer a session hands out is answered from a canned response.

use std::time::{Duration, Instant};

use tfdisco_core::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use tfdisco_core::http::{HeaderMap, HeaderName, HeaderValue, Request, StatusCode};
use tfdisco_core::{Action, Config, Contents, Dialect, Error, Goal, Hostname, Transfer};
use tfdisco_oci::{
    Access, Algorithm, AuthCache, Authorized, BlobRequest, Digest, ManifestRequest, OciCredentials,
    Reference, RepositoryAddress, Scope, Step, TagListRequest, media_type,
};

/// A canned response: status, headers, body.
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

fn reply(status: u16, headers: &[(&'static str, &str)], body: &[u8]) -> Reply {
    Reply {
        status,
        headers: headers.iter().map(|(n, v)| (*n, (*v).to_owned())).collect(),
        body: body.to_vec(),
    }
}

/// Runs one transfer to its end against `reply`; gives what was sent.
fn answer<G: Goal>(transfer: &mut Transfer<G>, reply: &Reply, now: Instant) -> Request<()> {
    let Action::Send(sent) = transfer.poll() else {
        panic!("a request to send")
    };
    let mut headers = HeaderMap::new();
    for (name, value) in &reply.headers {
        headers.append(
            HeaderName::from_static(name),
            HeaderValue::from_str(value).expect("header"),
        );
    }
    let status = StatusCode::from_u16(reply.status).expect("status");
    transfer.handle_head(status, &headers, now);
    if matches!(transfer.poll(), Action::Receive) {
        transfer.handle_body(&reply.body, now);
        transfer.handle_end(now);
    }
    sent
}

/// What each request of a session carried, and how it ended.
struct Run<T> {
    sent: Vec<Request<()>>,
    result: Result<T, Error>,
}

/// Drives `request` to its end, answering its transfers from `replies` in
/// order (a bounded number of steps).
fn run<G: Goal>(
    mut request: Authorized<G>,
    cache: &mut AuthCache,
    replies: &[Reply],
    now: Instant,
) -> Run<G::Output> {
    let config = Config::new(Dialect::OpenTofu);
    let mut sent = Vec::new();
    let mut replies = replies.iter();
    for _ in 0..10 {
        match request.next(cache, &config, now) {
            Step::Request(mut transfer) => {
                let reply = replies.next().expect("a reply for each request");
                sent.push(answer(&mut transfer, reply, now));
                let Action::Done(result) = transfer.poll() else {
                    panic!("done")
                };
                request.answered(transfer, result, cache);
            }
            Step::Token(mut transfer) => {
                let reply = replies.next().expect("a reply for each request");
                sent.push(answer(&mut transfer, reply, now));
                let Action::Done(result) = transfer.poll() else {
                    panic!("done")
                };
                request.token(result, cache, now);
            }
            Step::Done(result) => {
                assert!(replies.next().is_none(), "every reply was used");
                return Run { sent, result };
            }
        }
    }
    panic!("the session did not end in 10 steps")
}

fn address() -> RepositoryAddress {
    RepositoryAddress::parse("registry.example/opentofu/aws").expect("valid")
}

fn tags(credentials: Option<OciCredentials>) -> Authorized<TagListRequest> {
    let address = address();
    Authorized::new(
        TagListRequest::new(Hostname::parse(address.registry()).expect("host")),
        address.tags_url(),
        &address,
        Scope::new(address.repository(), Access::Pull),
        credentials,
    )
}

fn authorization(request: &Request<()>) -> Option<&str> {
    request
        .headers()
        .get(AUTHORIZATION)
        .map(|v| v.to_str().expect("ascii"))
}

const TAGS: &[u8] = br#"{"name":"opentofu/aws","tags":["5.0.0","latest"]}"#;
const BEARER: &str = r#"Bearer realm="https://auth.example/token",service="registry.example",scope="repository:opentofu/aws:pull""#;

#[test]
fn an_anonymous_registry_gets_no_authorization() {
    let mut cache = AuthCache::new();
    let done = run(
        tags(Some(OciCredentials::basic("u", "p"))),
        &mut cache,
        &[reply(200, &[], TAGS)],
        Instant::now(),
    );
    assert_eq!(done.result.expect("tags").tags, ["5.0.0", "latest"]);
    assert_eq!(authorization(&done.sent[0]), None);
    let accept = done.sent[0].headers()["accept"].to_str().expect("ascii");
    assert_eq!(accept, "application/json");
    assert_eq!(done.sent[0].headers()["user-agent"], "OpenTofu/1.12.6");
    assert!(done.sent[0].headers().get("x-terraform-version").is_none());
}

#[test]
fn basic_is_learned_once_and_sent_from_then_on() {
    let mut cache = AuthCache::new();
    let creds = OciCredentials::basic("u", "p");
    let now = Instant::now();
    let first = run(
        tags(Some(creds.clone())),
        &mut cache,
        &[
            reply(401, &[("www-authenticate", r#"Basic realm="r""#)], b""),
            reply(200, &[], TAGS),
        ],
        now,
    );
    assert!(first.result.is_ok());
    assert_eq!(authorization(&first.sent[0]), None);
    assert_eq!(authorization(&first.sent[1]), Some("Basic dTpw"));
    // The next request sends it at once.
    let second = run(tags(Some(creds)), &mut cache, &[reply(200, &[], TAGS)], now);
    assert_eq!(authorization(&second.sent[0]), Some("Basic dTpw"));
}

#[test]
fn a_bearer_token_is_asked_once_and_reused_until_it_expires() {
    let mut cache = AuthCache::new();
    let creds = OciCredentials::basic("u", "p");
    let now = Instant::now();
    let first = run(
        tags(Some(creds.clone())),
        &mut cache,
        &[
            reply(401, &[("www-authenticate", BEARER)], b""),
            reply(200, &[], br#"{"token":"T1","expires_in":120}"#),
            reply(200, &[], TAGS),
        ],
        now,
    );
    assert!(first.result.is_ok());
    let token_request = &first.sent[1];
    assert_eq!(
        token_request.uri().to_string(),
        "https://auth.example/token?service=registry.example&scope=repository%3Aopentofu%2Faws%3Apull"
    );
    assert_eq!(authorization(token_request), Some("Basic dTpw"));
    assert_eq!(authorization(&first.sent[2]), Some("Bearer T1"));

    let reused = run(
        tags(Some(creds.clone())),
        &mut cache,
        &[reply(200, &[], TAGS)],
        now,
    );
    assert_eq!(authorization(&reused.sent[0]), Some("Bearer T1"));

    let later = now + Duration::from_secs(121);
    let renewed = run(
        tags(Some(creds)),
        &mut cache,
        &[
            reply(401, &[("www-authenticate", BEARER)], b""),
            reply(200, &[], br#"{"access_token":"T2"}"#),
            reply(200, &[], TAGS),
        ],
        later,
    );
    assert_eq!(authorization(&renewed.sent[0]), None);
    assert_eq!(authorization(&renewed.sent[2]), Some("Bearer T2"));
}

#[test]
fn anonymous_token_requests_carry_no_authorization() {
    let mut cache = AuthCache::new();
    let done = run(
        tags(None),
        &mut cache,
        &[
            reply(401, &[("www-authenticate", BEARER)], b""),
            reply(200, &[], br#"{"token":"A"}"#),
            reply(200, &[], TAGS),
        ],
        Instant::now(),
    );
    assert!(done.result.is_ok());
    assert_eq!(authorization(&done.sent[1]), None);
}

#[test]
fn an_access_token_is_sent_as_it_is() {
    let mut cache = AuthCache::new();
    let done = run(
        tags(Some(OciCredentials::access_token("AT"))),
        &mut cache,
        &[
            reply(401, &[("www-authenticate", BEARER)], b""),
            reply(200, &[], TAGS),
        ],
        Instant::now(),
    );
    assert!(done.result.is_ok());
    assert_eq!(authorization(&done.sent[1]), Some("Bearer AT"));
}

#[test]
fn refusals_end_the_request() {
    let now = Instant::now();
    let creds = OciCredentials::basic("u", "wrong");
    // A second 401, after the challenge was answered.
    let again = run(
        tags(Some(creds.clone())),
        &mut AuthCache::new(),
        &[
            reply(401, &[("www-authenticate", r#"Basic realm="r""#)], b""),
            reply(401, &[("www-authenticate", r#"Basic realm="r""#)], b""),
        ],
        now,
    );
    let err = again.result.expect_err("401");
    assert_eq!(err.status(), Some(StatusCode::UNAUTHORIZED));
    assert!(!format!("{err} {err:?}").contains("wrong"));
    // The token service refuses the credentials.
    let refused = run(
        tags(Some(creds)),
        &mut AuthCache::new(),
        &[
            reply(401, &[("www-authenticate", BEARER)], b""),
            reply(401, &[], b""),
        ],
        now,
    );
    let err = refused.result.expect_err("401");
    assert_eq!(err.status(), Some(StatusCode::UNAUTHORIZED));
    assert!(err.to_string().contains("auth.example"), "{err}");
    // A 401 without a challenge.
    let bare = run(
        tags(None),
        &mut AuthCache::new(),
        &[reply(401, &[], b"")],
        now,
    );
    assert_eq!(
        bare.result.expect_err("401").status(),
        Some(StatusCode::UNAUTHORIZED)
    );
    // 404: the repository is not there.
    let missing = run(
        tags(None),
        &mut AuthCache::new(),
        &[reply(404, &[], b"")],
        now,
    );
    assert_eq!(
        missing.result.expect_err("404").kind(),
        tfdisco_core::ErrorKind::NotFound
    );
}

fn manifest(reference: Reference) -> Authorized<ManifestRequest> {
    let address = address();
    let url = address.manifest_url(&reference);
    Authorized::new(
        ManifestRequest::new(
            Hostname::parse(address.registry()).expect("host"),
            reference,
            &[media_type::IMAGE_INDEX, media_type::IMAGE_MANIFEST],
        ),
        url,
        &address,
        Scope::new(address.repository(), Access::Pull),
        None,
    )
}

#[test]
fn manifests_are_checked_against_the_digests_that_name_them() {
    let body = br#"{"schemaVersion":2,"manifests":[]}"#;
    let digest = Digest::of(Algorithm::Sha256, body);
    let other = Digest::of(Algorithm::Sha256, b"other");
    let now = Instant::now();
    let content_type = ("content-type", media_type::IMAGE_INDEX);

    let by_tag = run(
        manifest(Reference::Tag("5.0.0".parse().expect("tag"))),
        &mut AuthCache::new(),
        &[reply(200, &[content_type], body)],
        now,
    );
    let sent = &by_tag.sent[0];
    assert_eq!(
        sent.headers()["accept"],
        "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json"
    );
    let fetched = by_tag.result.expect("manifest");
    assert_eq!(
        (fetched.digest.clone(), fetched.media_type.as_str()),
        (digest.clone(), media_type::IMAGE_INDEX)
    );
    assert_eq!(fetched.index().expect("index").manifests, []);

    let by_digest = run(
        manifest(Reference::Digest(digest.clone())),
        &mut AuthCache::new(),
        &[reply(200, &[content_type], body)],
        now,
    );
    assert_eq!(by_digest.result.expect("manifest").digest, digest);

    let wrong = run(
        manifest(Reference::Digest(other.clone())),
        &mut AuthCache::new(),
        &[reply(200, &[content_type], body)],
        now,
    );
    assert!(
        wrong
            .result
            .expect_err("mismatch")
            .to_string()
            .contains("digest")
    );

    let other_text = other.to_string();
    let header_differs = run(
        manifest(Reference::Tag("5.0.0".parse().expect("tag"))),
        &mut AuthCache::new(),
        &[reply(
            200,
            &[content_type, ("docker-content-digest", other_text.as_str())],
            body,
        )],
        now,
    );
    assert!(header_differs.result.is_err());

    let no_type = run(
        manifest(Reference::Tag("5.0.0".parse().expect("tag"))),
        &mut AuthCache::new(),
        &[reply(200, &[], body)],
        now,
    );
    assert!(
        no_type
            .result
            .expect_err("no type")
            .to_string()
            .contains("Content-Type")
    );

    // Over the 4 MiB limit: refused from its declared length.
    let big = (5 * 1024 * 1024).to_string();
    let too_big = run(
        manifest(Reference::Tag("5.0.0".parse().expect("tag"))),
        &mut AuthCache::new(),
        &[reply(
            200,
            &[content_type, ("content-length", big.as_str())],
            b"",
        )],
        now,
    );
    assert_eq!(
        too_big.result.expect_err("too big").kind(),
        tfdisco_core::ErrorKind::TooLarge
    );
    let _ = CONTENT_TYPE;
}

fn blob(digest: Digest, size: u64) -> Authorized<BlobRequest<Contents>> {
    let address = address();
    let url = address.blob_url(&digest);
    Authorized::new(
        BlobRequest::new(
            Hostname::parse(address.registry()).expect("host"),
            digest,
            size,
            Contents::default(),
        ),
        url,
        &address,
        Scope::new(address.repository(), Access::Pull),
        Some(OciCredentials::basic("u", "p")),
    )
}

#[test]
fn blobs_are_checked_as_they_stream() {
    let zip = b"PK\x05\x06 not really a zip";
    let digest = Digest::of(Algorithm::Sha256, zip);
    let now = Instant::now();
    let ok = run(
        blob(digest.clone(), zip.len() as u64),
        &mut AuthCache::new(),
        &[reply(200, &[], zip)],
        now,
    );
    assert_eq!(ok.result.expect("blob"), zip);
    assert!(ok.sent[0].headers().get("accept").is_none());

    let short = run(
        blob(digest.clone(), zip.len() as u64 + 1),
        &mut AuthCache::new(),
        &[reply(200, &[], zip)],
        now,
    );
    assert!(
        short
            .result
            .expect_err("short")
            .to_string()
            .contains("bytes long")
    );

    let long = run(
        blob(digest, zip.len() as u64 - 1),
        &mut AuthCache::new(),
        &[reply(200, &[], zip)],
        now,
    );
    assert!(
        long.result
            .expect_err("long")
            .to_string()
            .contains("longer")
    );

    let other = Digest::of(Algorithm::Sha256, b"x");
    let wrong = run(
        blob(other, zip.len() as u64),
        &mut AuthCache::new(),
        &[reply(200, &[], zip)],
        now,
    );
    assert!(
        wrong
            .result
            .expect_err("digest")
            .to_string()
            .contains("digest")
    );
}

#[test]
fn a_blob_redirected_elsewhere_goes_without_the_registrys_authorization() {
    let zip = b"content";
    let digest = Digest::of(Algorithm::Sha256, zip);
    let mut cache = AuthCache::new();
    let config = Config::new(Dialect::OpenTofu);
    let now = Instant::now();
    let mut request = blob(digest, zip.len() as u64);
    // Learn Basic first.
    let Step::Request(mut transfer) = request.next(&cache, &config, now) else {
        panic!("request")
    };
    answer(
        &mut transfer,
        &reply(401, &[("www-authenticate", r#"Basic realm="r""#)], b""),
        now,
    );
    let Action::Done(result) = transfer.poll() else {
        panic!("done")
    };
    request.answered(transfer, result, &mut cache);
    let Step::Request(mut transfer) = request.next(&cache, &config, now) else {
        panic!("request")
    };
    let sent = answer(
        &mut transfer,
        &reply(
            307,
            &[("location", "https://storage.example/blob?sig=1")],
            b"",
        ),
        now,
    );
    assert_eq!(authorization(&sent), Some("Basic dTpw"));
    let Action::Send(redirected) = transfer.poll() else {
        panic!("the redirect is followed")
    };
    assert_eq!(redirected.uri().host(), Some("storage.example"));
    assert_eq!(redirected.headers().get(AUTHORIZATION), None);
    let _ = WWW_AUTHENTICATE;
}
