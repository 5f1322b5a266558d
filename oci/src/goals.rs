//! The OCI distribution requests, as goals of the core's engine (OCI-2 to
//! OCI-4, OCI-7): a page of a repository's tags, a manifest by tag or
//! digest, a blob streamed into a sink, a token; and [`Challenged`], which
//! turns any of them's 401 into an answer the session acts on.

use std::fmt;

use tfdisco_core::http::header::{CONTENT_TYPE, LINK, WWW_AUTHENTICATE};
use tfdisco_core::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use tfdisco_core::{Error, Goal, Hostname, Next, RequestKind, Sink};
use url::Url;

use crate::digest::Hasher;
use crate::{
    Algorithm, Challenge, Digest, FetchedManifest, Mismatch, Reference, TokenAnswer, Verifier,
};

/// The header a registry names a manifest's digest in.
const DOCKER_CONTENT_DIGEST: HeaderName = HeaderName::from_static("docker-content-digest");

/// A goal's answer, or the registry's challenge (a 401).
#[derive(Clone, Debug)]
pub enum Answer<T> {
    /// The goal's answer.
    Done(T),
    /// 401, with the `WWW-Authenticate` challenge when it parses.
    Challenged(Option<Challenge>),
}

/// Any goal, its 401 made an [`Answer::Challenged`].
#[derive(Debug)]
pub struct Challenged<G>(pub G);

impl<G: Goal> Goal for Challenged<G> {
    type Output = Answer<G::Output>;
    const NAME: &'static str = G::NAME;
    const KIND: RequestKind = G::KIND;

    fn host(&self) -> &Hostname {
        self.0.host()
    }

    fn accept(&self) -> Option<HeaderValue> {
        self.0.accept()
    }

    fn method(&self) -> tfdisco_core::http::Method {
        self.0.method()
    }

    fn body(&self) -> Option<tfdisco_core::Body> {
        self.0.body()
    }

    fn request_headers(&self, headers: &mut HeaderMap) {
        self.0.request_headers(headers);
    }

    fn on_head(
        &mut self,
        url: &Url,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> Next<Self::Output> {
        if status == StatusCode::UNAUTHORIZED {
            let challenge = headers
                .get(WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .and_then(Challenge::parse);
            return Next::Finish(Ok(Answer::Challenged(challenge)));
        }
        match self.0.on_head(url, status, headers) {
            Next::Finish(result) => Next::Finish(result.map(Answer::Done)),
            Next::ReadDocument => Next::ReadDocument,
            Next::Stream => Next::Stream,
        }
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<Self::Output, Error> {
        self.0.on_body(url, body).map(Answer::Done)
    }

    fn on_chunk(&mut self, url: &Url, chunk: &[u8]) -> Result<(), Error> {
        self.0.on_chunk(url, chunk)
    }

    fn on_stream_end(&mut self, url: &Url) -> Result<Self::Output, Error> {
        self.0.on_stream_end(url).map(Answer::Done)
    }

    fn present_error(&self, error: Error) -> Error {
        self.0.present_error(error)
    }
}

/// The answer at `url` is not what the protocol says: `problem`.
pub(crate) fn invalid(url: &Url, problem: String) -> Error {
    Error::InvalidResponse {
        url: url.clone().into(),
        problem,
    }
}

/// The registry answered `url` with a status the request does not take.
pub(crate) fn status_error(url: &Url, status: StatusCode) -> Error {
    Error::Status {
        url: url.clone().into(),
        status,
    }
}

/// 404 as the registry's "no such …", any other status as itself.
fn refused<T>(url: &Url, status: StatusCode, what: &str) -> Next<T> {
    Next::Finish(Err(if status == StatusCode::NOT_FOUND {
        Error::NotFound {
            url: url.clone().into(),
            message: format!("{what} not found"),
        }
    } else {
        status_error(url, status)
    }))
}

/// One page of a repository's tags: its tags and the next page's URL
/// (the `Link: <…>; rel="next"` header, on the same origin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagPage {
    /// The tags on this page, as listed.
    pub tags: Vec<String>,
    /// The next page, if the registry paginates.
    pub next: Option<Url>,
}

/// `GET` a [`tags_url`](crate::RepositoryAddress::tags_url) (or the next
/// page's URL): one page.
#[derive(Debug)]
pub struct TagListRequest {
    host: Hostname,
    next: Option<Url>,
    /// A status other than 200, whose error body is read for its codes.
    refused: Option<StatusCode>,
}

impl TagListRequest {
    /// The goal of a tag page of a repository on `host`.
    pub fn new(host: Hostname) -> TagListRequest {
        TagListRequest {
            host,
            next: None,
            refused: None,
        }
    }
}

/// A tag list refused with `status` and the error `body` (OCI-2): the
/// repository is not there when the body's error codes say
/// `NAME_UNKNOWN` or `NAME_INVALID` (whatever the status), or when it is a
/// 404 whose body has no codes; any other refusal is its status (a 404
/// saying only `UNAUTHORIZED` is a refusal, not a missing repository).
fn tag_list_refusal(url: &Url, status: StatusCode, body: &[u8]) -> Error {
    #[derive(serde::Deserialize)]
    struct Body {
        #[serde(default)]
        errors: Vec<Code>,
    }
    #[derive(serde::Deserialize)]
    struct Code {
        #[serde(default)]
        code: String,
    }
    let codes: Vec<String> = serde_json::from_slice::<Body>(body)
        .map(|b| b.errors.into_iter().map(|e| e.code).collect())
        .unwrap_or_default();
    let named = codes
        .iter()
        .any(|c| c == "NAME_UNKNOWN" || c == "NAME_INVALID");
    if named || (status == StatusCode::NOT_FOUND && codes.is_empty()) {
        Error::NotFound {
            url: url.clone().into(),
            message: "repository not found".to_owned(),
        }
    } else {
        status_error(url, status)
    }
}

impl Goal for TagListRequest {
    type Output = TagPage;
    oci_goal!("OCI tag list", OciTags);

    fn accept(&self) -> Option<HeaderValue> {
        Some(HeaderValue::from_static("application/json"))
    }

    fn on_head(&mut self, url: &Url, status: StatusCode, headers: &HeaderMap) -> Next<TagPage> {
        if status != StatusCode::OK {
            // Its error codes say whether the repository is there.
            self.refused = Some(status);
            return Next::ReadDocument;
        }
        match next_link(url, headers) {
            Ok(next) => {
                self.next = next;
                Next::ReadDocument
            }
            Err(problem) => Next::Finish(Err(invalid(url, problem))),
        }
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<TagPage, Error> {
        if let Some(status) = self.refused.take() {
            return Err(tag_list_refusal(url, status, &body));
        }
        #[derive(serde::Deserialize)]
        struct Body {
            #[serde(default)]
            tags: Option<Vec<String>>,
        }
        let body: Body = serde_json::from_slice(&body)
            .map_err(|e| invalid(url, format!("the tag list is not its JSON: {e}")))?;
        Ok(TagPage {
            tags: body.tags.unwrap_or_default(),
            next: self.next.take(),
        })
    }
}

/// The `rel="next"` target of a `Link` header, resolved against `url`; it
/// must stay on the same origin (a token is sent to it).
fn next_link(url: &Url, headers: &HeaderMap) -> Result<Option<Url>, String> {
    for value in headers.get_all(LINK) {
        let text = value
            .to_str()
            .map_err(|_| "the Link header is not text".to_owned())?;
        for link in text.split(',') {
            let link = link.trim();
            let Some(rest) = link.strip_prefix('<') else {
                continue;
            };
            let Some((target, params)) = rest.split_once('>') else {
                return Err(format!("the Link header {text:?} does not parse"));
            };
            let is_next = params.split(';').any(|p| {
                let p = p.trim();
                p.eq_ignore_ascii_case("rel=\"next\"") || p.eq_ignore_ascii_case("rel=next")
            });
            if !is_next {
                continue;
            }
            let next = url
                .join(target)
                .map_err(|e| format!("the Link header's next page {target:?}: {e}"))?;
            if next.origin() != url.origin() {
                return Err(format!(
                    "the Link header's next page {next} is on another host"
                ));
            }
            return Ok(Some(next));
        }
    }
    Ok(None)
}

/// `GET` a [`manifest_url`](crate::RepositoryAddress::manifest_url): a
/// manifest or index, checked
/// against the digest that named it, and against the
/// `Docker-Content-Digest` the registry gives (OCI-3).
#[derive(Debug)]
pub struct ManifestRequest {
    host: Hostname,
    reference: Reference,
    accept: HeaderValue,
    media_type: Option<String>,
    registry_digest: Option<Digest>,
}

impl ManifestRequest {
    /// The goal of the manifest `reference` names on `host`, asking for
    /// the media types `accept` lists.
    pub fn new(host: Hostname, reference: Reference, accept: &[&str]) -> ManifestRequest {
        let accept = HeaderValue::from_str(&accept.join(", "))
            .unwrap_or_else(|_| HeaderValue::from_static("*/*"));
        ManifestRequest {
            host,
            reference,
            accept,
            media_type: None,
            registry_digest: None,
        }
    }
}

impl Goal for ManifestRequest {
    type Output = FetchedManifest;
    oci_goal!("OCI manifest", OciManifest);

    fn accept(&self) -> Option<HeaderValue> {
        Some(self.accept.clone())
    }

    fn on_head(
        &mut self,
        url: &Url,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> Next<FetchedManifest> {
        if status != StatusCode::OK {
            return refused(url, status, "manifest");
        }
        self.media_type = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or(v).trim().to_owned())
            .filter(|v| !v.is_empty());
        if self.media_type.is_none() {
            return Next::Finish(Err(invalid(
                url,
                "the manifest has no Content-Type".to_owned(),
            )));
        }
        if let Some(value) = headers.get(DOCKER_CONTENT_DIGEST) {
            match value.to_str().ok().and_then(|v| v.trim().parse().ok()) {
                Some(digest) => self.registry_digest = Some(digest),
                None => {
                    return Next::Finish(Err(invalid(
                        url,
                        format!("the Docker-Content-Digest {value:?} is not a digest"),
                    )));
                }
            }
        }
        Next::ReadDocument
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<FetchedManifest, Error> {
        let algorithm = match &self.reference {
            Reference::Digest(d) => d.algorithm(),
            Reference::Tag(_) => self
                .registry_digest
                .as_ref()
                .map_or(Algorithm::Sha256, Digest::algorithm),
        };
        let mut hasher = Hasher::new(algorithm);
        hasher.update(&body);
        let digest = hasher.finish();
        let named = match &self.reference {
            Reference::Digest(d) => Some(d),
            Reference::Tag(_) => None,
        };
        for expected in named.into_iter().chain(self.registry_digest.as_ref()) {
            if expected.algorithm() == digest.algorithm() && *expected != digest {
                return Err(invalid(
                    url,
                    format!("the manifest's digest is {digest}, not {expected}"),
                ));
            }
        }
        Ok(FetchedManifest {
            media_type: self.media_type.take().unwrap_or_default(),
            digest,
            bytes: body,
        })
    }
}

/// `GET` a [`blob_url`](crate::RepositoryAddress::blob_url): streamed into
/// a sink, its size and digest
/// checked as it arrives (OCI-3); a redirect to storage elsewhere is
/// followed without the registry's credentials (D4).
pub struct BlobRequest<S> {
    host: Hostname,
    check: Check,
    sink: S,
}

/// What a [`BlobRequest`] checks of the content as it arrives.
#[derive(Debug)]
enum Check {
    /// Its size and digest (boxed: the hasher's state is large).
    Digest(Box<Verifier>),
    /// Its size only: the caller checks the digest.
    Size { size: u64, seen: u64 },
    /// Checked already.
    Done,
}

impl<S> fmt::Debug for BlobRequest<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlobRequest")
            .field("host", &self.host)
            .field("check", &self.check)
            .finish_non_exhaustive()
    }
}

impl<S: Sink> BlobRequest<S> {
    /// The goal of the blob of `digest` and `size` on `host`, into `sink`.
    pub fn new(host: Hostname, digest: Digest, size: u64, sink: S) -> BlobRequest<S> {
        BlobRequest {
            host,
            check: Check::Digest(Box::new(Verifier::new(digest, size))),
            sink,
        }
    }

    /// The goal of a blob of `size` bytes on `host`, into `sink`, its size
    /// checked as it arrives but not its digest: for a sink that hashes
    /// what it is given, whose output the caller checks against the
    /// digest (a provider package: its SHA-256 is the `zh:` the layer's
    /// digest gives, checked by the provider plan, OCIMIRROR-5), so that the
    /// content is hashed once.
    pub fn size_checked(host: Hostname, size: u64, sink: S) -> BlobRequest<S> {
        BlobRequest {
            host,
            check: Check::Size { size, seen: 0 },
            sink,
        }
    }
}

impl<S: Sink> Goal for BlobRequest<S> {
    type Output = S::Output;
    oci_goal!("OCI blob", OciBlob, Download);

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<S::Output> {
        if status != StatusCode::OK {
            return refused(url, status, "blob");
        }
        Next::Stream
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<S::Output, Error> {
        self.on_chunk(url, &body)?;
        self.on_stream_end(url)
    }

    fn on_chunk(&mut self, url: &Url, chunk: &[u8]) -> Result<(), Error> {
        let checked = match &mut self.check {
            Check::Digest(verifier) => verifier.update(chunk),
            Check::Size { size, seen } => {
                *seen = seen.saturating_add(chunk.len() as u64);
                if *seen > *size {
                    Err(Mismatch::TooLong { size: *size })
                } else {
                    Ok(())
                }
            }
            Check::Done => Ok(()),
        };
        checked.map_err(|e| invalid(url, e.to_string()))?;
        self.sink
            .write(chunk)
            .map_err(|problem| invalid(url, problem))
    }

    fn on_stream_end(&mut self, url: &Url) -> Result<S::Output, Error> {
        let checked = match std::mem::replace(&mut self.check, Check::Done) {
            Check::Digest(verifier) => verifier.finish().map(drop),
            Check::Size { size, seen } if seen != size => Err(Mismatch::TooShort { size, seen }),
            Check::Size { .. } | Check::Done => Ok(()),
        };
        checked.map_err(|e| invalid(url, e.to_string()))?;
        self.sink.finish().map_err(|problem| invalid(url, problem))
    }
}

host_goal! {
    /// A token service's `GET REALM?service=…&scope=…`.
    pub struct TokenRequest;
    /// The goal of a token request about the registry `host`.
    pub fn new;
}

impl Goal for TokenRequest {
    type Output = TokenAnswer;
    oci_goal!("OCI token", OciToken);

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<TokenAnswer> {
        match status {
            StatusCode::OK => Next::ReadDocument,
            status => Next::Finish(Err(status_error(url, status))),
        }
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<TokenAnswer, Error> {
        TokenAnswer::parse(url, &body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address() -> crate::RepositoryAddress {
        crate::RepositoryAddress::parse("r.example/a").expect("valid")
    }

    fn link(value: &str) -> Result<Option<Url>, String> {
        let mut url = address().tags_url();
        url.set_query(Some("n=2"));
        let mut headers = HeaderMap::new();
        headers.insert(LINK, HeaderValue::from_str(value).expect("header"));
        next_link(&url, &headers)
    }

    #[test]
    fn a_blob_checked_by_digest_or_by_size_only() {
        let host = || Hostname::parse("r.example").expect("host");
        let digest = Digest::of(Algorithm::Sha256, b"abcd");
        let url = address().blob_url(&digest);
        let run = |mut goal: BlobRequest<tfdisco_core::Contents>, chunks: &[&[u8]]| {
            for chunk in chunks {
                goal.on_chunk(&url, chunk)?;
            }
            goal.on_stream_end(&url)
        };
        let full = |size| BlobRequest::new(host(), digest.clone(), size, Default::default());
        let sized = |size| BlobRequest::size_checked(host(), size, Default::default());
        assert_eq!(run(full(4), &[b"ab", b"cd"]).expect("ok"), b"abcd");
        let wrong = run(full(4), &[b"abce"]).expect_err("digest");
        assert!(wrong.to_string().contains("digest"), "{wrong}");
        // Size only: other bytes of the right size pass (the caller checks
        // the digest); a byte too many or too few does not.
        assert_eq!(run(sized(4), &[b"abce"]).expect("ok"), b"abce");
        let long = run(sized(3), &[b"ab", b"cd"]).expect_err("too long");
        assert!(long.to_string().contains("longer"), "{long}");
        let short = run(sized(5), &[b"abcd"]).expect_err("too short");
        assert!(short.to_string().contains("4 bytes long"), "{short}");
    }

    #[test]
    fn what_a_refused_tag_list_means() {
        let url = address().tags_url();
        let not_found = |status: u16, body: &str| {
            tag_list_refusal(
                &url,
                StatusCode::from_u16(status).expect("status"),
                body.as_bytes(),
            )
            .kind()
                == tfdisco_core::ErrorKind::NotFound
        };
        assert!(not_found(404, ""));
        assert!(not_found(404, r#"{"errors":[{"code":"NAME_UNKNOWN"}]}"#));
        assert!(not_found(401, r#"{"errors":[{"code":"NAME_INVALID"}]}"#));
        assert!(!not_found(404, r#"{"errors":[{"code":"UNAUTHORIZED"}]}"#));
        assert!(not_found(
            404,
            r#"{"errors":[{"code":"UNAUTHORIZED"},{"code":"NAME_UNKNOWN"}]}"#
        ));
        assert!(!not_found(403, ""));
        assert!(!not_found(500, "not json"));
    }

    #[test]
    fn link_headers() {
        assert_eq!(
            link(r#"</v2/a/tags/list?n=2&last=b>; rel="next""#)
                .expect("ok")
                .map(String::from),
            Some("https://r.example/v2/a/tags/list?n=2&last=b".to_owned())
        );
        assert_eq!(link(r#"</x>; rel="prev""#), Ok(None));
        assert!(link(r#"<https://other.example/v2/a/tags/list>; rel="next""#).is_err());
        assert!(link(r#"<unterminated; rel="next""#).is_err());
    }
}
