//! Writing to a repository (OCI-8, for publishing): whether a blob is
//! there (`HEAD`), a blob upload (`POST` to open a session, or to mount the
//! blob from another repository of the registry; `PATCH` chunks; `PUT`
//! with its digest to close it), and a manifest `PUT`. Each is a goal of
//! the core's engine, run by an [`Authorized`](crate::Authorized) session
//! with a push scope.

use tfdisco_core::bytes::Bytes;
use tfdisco_core::http::header::{CONTENT_RANGE, LOCATION};
use tfdisco_core::http::{HeaderMap, HeaderValue, Method, StatusCode};
use tfdisco_core::{Body, Error, Goal, Hostname, Next};
use url::Url;

use crate::Digest;
use crate::goals::{invalid, status_error as status};

/// An upload's bytes, as `application/octet-stream` (none for the `POST`
/// that opens a session and the `PUT` that closes it).
fn octets(bytes: Bytes) -> Option<Body> {
    Some(Body {
        content_type: HeaderValue::from_static("application/octet-stream"),
        bytes,
    })
}

/// A write's answer is all in its head: no `on_head` of these goals asks
/// for the document, so a body reaching one is taken as the status that
/// came with it.
fn no_document<T>(url: &Url) -> Result<T, Error> {
    Err(status(url, StatusCode::OK))
}

/// An upload session's next URL: the `Location` of the answer, resolved
/// against the request's, on the same origin (the registry's credentials
/// go to it).
fn session_url(url: &Url, headers: &HeaderMap) -> Result<Url, Error> {
    let location = headers
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| invalid(url, "the upload answer has no Location".to_owned()))?;
    let next = url
        .join(location)
        .map_err(|e| invalid(url, format!("the upload's Location {location:?}: {e}")))?;
    if next.origin() != url.origin() {
        return Err(invalid(
            url,
            format!("the upload's Location {next} is on another host"),
        ));
    }
    Ok(next)
}

host_goal! {
    /// `HEAD` a [`blob_url`](crate::RepositoryAddress::blob_url): whether the
    /// repository has the blob.
    pub struct BlobExistsRequest;
    /// The goal of asking `host` whether a blob is there.
    pub fn new;
}

impl Goal for BlobExistsRequest {
    type Output = bool;
    oci_goal!("OCI blob check", OciBlob);

    fn method(&self) -> Method {
        Method::HEAD
    }

    fn on_head(&mut self, url: &Url, code: StatusCode, _: &HeaderMap) -> Next<bool> {
        Next::Finish(match code {
            StatusCode::OK => Ok(true),
            StatusCode::NOT_FOUND => Ok(false),
            code => Err(status(url, code)),
        })
    }

    fn on_body(&mut self, _: &Url, _: Vec<u8>) -> Result<bool, Error> {
        Ok(true)
    }
}

/// What opening an upload gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UploadStarted {
    /// The blob was mounted from the other repository: nothing to send.
    Mounted,
    /// A session: where the chunks go.
    Session(Url),
}

host_goal! {
    /// `POST` to the repository's
    /// [`upload_url`](crate::RepositoryAddress::upload_url), or to its
    /// [`mount_url`](crate::RepositoryAddress::mount_url) to mount a blob
    /// another repository of the registry has: `201` when the registry
    /// mounted it, else `202` and an ordinary session.
    pub struct UploadStartRequest;
    /// The goal of opening an upload on `host`.
    pub fn new;
}

impl Goal for UploadStartRequest {
    type Output = UploadStarted;
    oci_goal!("OCI upload", OciBlob);

    fn method(&self) -> Method {
        Method::POST
    }

    fn body(&self) -> Option<Body> {
        octets(Bytes::new())
    }

    fn on_head(&mut self, url: &Url, code: StatusCode, headers: &HeaderMap) -> Next<UploadStarted> {
        Next::Finish(match code {
            StatusCode::CREATED => Ok(UploadStarted::Mounted),
            StatusCode::ACCEPTED => session_url(url, headers).map(UploadStarted::Session),
            code => Err(status(url, code)),
        })
    }

    fn on_body(&mut self, url: &Url, _: Vec<u8>) -> Result<UploadStarted, Error> {
        no_document(url)
    }
}

/// `PATCH SESSION`: one chunk, at `offset` (`Content-Range:
/// START-END`); the answer names the session's next URL.
#[derive(Debug)]
pub struct UploadChunkRequest {
    host: Hostname,
    chunk: Bytes,
    offset: u64,
}

impl UploadChunkRequest {
    /// The goal of sending `chunk`, which starts at byte `offset` of the
    /// blob.
    pub fn new(host: Hostname, chunk: Bytes, offset: u64) -> UploadChunkRequest {
        UploadChunkRequest {
            host,
            chunk,
            offset,
        }
    }
}

impl Goal for UploadChunkRequest {
    type Output = Url;
    oci_goal!("OCI upload chunk", OciBlob);

    fn method(&self) -> Method {
        Method::PATCH
    }

    fn body(&self) -> Option<Body> {
        octets(self.chunk.clone())
    }

    fn request_headers(&self, headers: &mut HeaderMap) {
        let end = (self.offset + self.chunk.len() as u64).saturating_sub(1);
        if let Ok(range) = HeaderValue::from_str(&format!("{}-{end}", self.offset)) {
            headers.insert(CONTENT_RANGE, range);
        }
    }

    fn on_head(&mut self, url: &Url, code: StatusCode, headers: &HeaderMap) -> Next<Url> {
        Next::Finish(match code {
            StatusCode::ACCEPTED | StatusCode::NO_CONTENT => session_url(url, headers),
            code => Err(status(url, code)),
        })
    }

    fn on_body(&mut self, url: &Url, _: Vec<u8>) -> Result<Url, Error> {
        no_document(url)
    }
}

host_goal! {
    /// `PUT SESSION?digest=DIGEST`: the upload closed, the registry checking
    /// the digest of what it was sent.
    pub struct UploadFinishRequest;
    /// The goal of closing an upload on `host`.
    pub fn new;
}

impl UploadFinishRequest {
    /// The session URL with `digest=` added.
    pub fn url(session: &Url, digest: &Digest) -> Url {
        let mut url = session.clone();
        url.query_pairs_mut()
            .append_pair("digest", &digest.to_string());
        url
    }
}

impl Goal for UploadFinishRequest {
    type Output = ();
    oci_goal!("OCI upload end", OciBlob);

    fn method(&self) -> Method {
        Method::PUT
    }

    fn body(&self) -> Option<Body> {
        octets(Bytes::new())
    }

    fn on_head(&mut self, url: &Url, code: StatusCode, _: &HeaderMap) -> Next<()> {
        Next::Finish(match code {
            StatusCode::CREATED => Ok(()),
            code => Err(status(url, code)),
        })
    }

    fn on_body(&mut self, url: &Url, _: Vec<u8>) -> Result<(), Error> {
        no_document(url)
    }
}

/// `PUT` a [`manifest_url`](crate::RepositoryAddress::manifest_url): a
/// manifest or index, with its media type.
#[derive(Debug)]
pub struct ManifestPutRequest {
    host: Hostname,
    media_type: HeaderValue,
    bytes: Bytes,
}

impl ManifestPutRequest {
    /// The goal of putting `bytes`, of `media_type`, on `host`.
    pub fn new(
        host: Hostname,
        media_type: &str,
        bytes: Bytes,
    ) -> Result<ManifestPutRequest, Error> {
        let media_type = HeaderValue::from_str(media_type).map_err(|_| Error::InvalidArgument {
            message: format!("{media_type:?} is no media type"),
        })?;
        Ok(ManifestPutRequest {
            host,
            media_type,
            bytes,
        })
    }
}

impl Goal for ManifestPutRequest {
    type Output = ();
    oci_goal!("OCI manifest put", OciManifest);

    fn method(&self) -> Method {
        Method::PUT
    }

    fn body(&self) -> Option<Body> {
        Some(Body {
            content_type: self.media_type.clone(),
            bytes: self.bytes.clone(),
        })
    }

    fn on_head(&mut self, url: &Url, code: StatusCode, _: &HeaderMap) -> Next<()> {
        Next::Finish(match code {
            StatusCode::CREATED | StatusCode::OK => Ok(()),
            code => Err(status(url, code)),
        })
    }

    fn on_body(&mut self, url: &Url, _: Vec<u8>) -> Result<(), Error> {
        no_document(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_urls_stay_on_the_registry() {
        let address = crate::RepositoryAddress::parse("r.example/a").expect("valid");
        let url = address.upload_url();
        let mut headers = HeaderMap::new();
        headers.insert(
            LOCATION,
            HeaderValue::from_static("/v2/a/blobs/uploads/u1?_state=x"),
        );
        assert_eq!(
            session_url(&url, &headers).expect("ok").as_str(),
            "https://r.example/v2/a/blobs/uploads/u1?_state=x"
        );
        headers.insert(
            LOCATION,
            HeaderValue::from_static("https://elsewhere.example/u"),
        );
        assert!(session_url(&url, &HeaderMap::new()).is_err());
        assert!(session_url(&url, &headers).is_err());
        let d: Digest = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
            .parse()
            .expect("digest");
        let session = Url::parse("https://r.example/v2/a/blobs/uploads/u1?_state=x").expect("url");
        assert_eq!(
            UploadFinishRequest::url(&session, &d).as_str(),
            "https://r.example/v2/a/blobs/uploads/u1?_state=x&digest=sha256%3A44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
