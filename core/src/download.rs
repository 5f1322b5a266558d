//! Downloads, the third kind of request (docs/behaviour.md, DL-1 to DL-3): a
//! file a registry names — a provider package's `SHA256SUMS`, its
//! signature, its archive — streamed as it arrives into a [`Sink`], with
//! the engine's rules for redirects, retries and limits, and without a
//! token but for OpenTofu's direct module packages that ask for one.

use std::fmt;
use std::time::Instant;

use http::{HeaderMap, StatusCode};
use url::Url;

use crate::registry_api::{RegistryCall, wrap};
use crate::transfer::{Goal, Next, Transfer};
use crate::{Config, Credentials, Error, Hostname, RequestKind, StartError};

/// Where a download's bytes go, as they arrive: nothing is kept by the
/// engine, so a sink that hashes (a provider archive's `PackageHasher`)
/// downloads a file of any size in memory of its own size.
pub trait Sink: Send {
    /// What the whole file gives.
    type Output: Clone + fmt::Debug;

    /// Takes the next bytes of the file. An error (`the archive is not a
    /// zip: …`) ends the download as an invalid answer.
    fn write(&mut self, chunk: &[u8]) -> Result<(), String>;

    /// The file is complete.
    fn finish(&mut self) -> Result<Self::Output, String>;
}

/// A sink that keeps the whole file, for the small ones (`SHA256SUMS`, a
/// signature): the download's size limit bounds it, and
/// [`Contents::limited`] more tightly.
#[derive(Clone, Debug)]
pub struct Contents {
    bytes: Vec<u8>,
    limit: usize,
}

impl Default for Contents {
    fn default() -> Self {
        Contents::limited(usize::MAX)
    }
}

impl Contents {
    /// A sink that refuses a file larger than `limit` bytes.
    pub fn limited(limit: usize) -> Contents {
        Contents {
            bytes: Vec::new(),
            limit,
        }
    }
}

impl Sink for Contents {
    type Output = Vec<u8>;

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        if chunk.len() > self.limit - self.bytes.len() {
            return Err(format!("the file is larger than {} bytes", self.limit));
        }
        self.bytes.extend_from_slice(chunk);
        Ok(())
    }

    fn finish(&mut self) -> Result<Vec<u8>, String> {
        Ok(std::mem::take(&mut self.bytes))
    }
}

/// The goal of a download: 200 is the file, streamed into the sink; 404 is
/// [`Error::NotFound`]; any other status (not retried, not a redirect) an
/// [`Error::Status`].
pub struct DownloadRequest<S> {
    about: Hostname,
    sink: S,
}

impl<S> fmt::Debug for DownloadRequest<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DownloadRequest")
            .field("about", &self.about)
            .finish_non_exhaustive()
    }
}

impl<S: Sink> Transfer<DownloadRequest<S>> {
    /// Starts downloading `url` into `sink` at time `now`. `about` is the
    /// registry host the file belongs to, named in traces. No credentials
    /// are sent (DL-1); only http and https URLs can be downloaded.
    pub fn download(
        url: Url,
        sink: S,
        about: Hostname,
        config: &Config,
        now: Instant,
    ) -> Result<Transfer<DownloadRequest<S>>, StartError> {
        Transfer::download_with_credentials(url, sink, about, config, None, now)
    }

    /// Starts downloading `url` into `sink` as
    /// [`download`](Transfer::download) does, with `credentials` (those of
    /// `about`, the registry host), sent as every request's are: over
    /// https only, to the first host and its subdomains, and dropped for
    /// good once a redirect leaves them (D4). The one download that takes
    /// them: OpenTofu's direct module packages whose registry asks for its
    /// credentials (`use_registry_credentials`, MOD-4).
    pub fn download_with_credentials(
        url: Url,
        sink: S,
        about: Hostname,
        config: &Config,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Result<Transfer<DownloadRequest<S>>, StartError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(StartError::new(Error::InvalidArgument {
                message: format!("cannot download {url}: only http and https URLs can be"),
            }));
        }
        Transfer::get(
            DownloadRequest { about, sink },
            url,
            config,
            credentials,
            now,
        )
    }
}

impl<S: Sink> Goal for DownloadRequest<S> {
    type Output = S::Output;
    const NAME: &'static str = "download";
    const KIND: RequestKind = RequestKind::Download;

    fn host(&self) -> &Hostname {
        &self.about
    }

    fn on_head(&mut self, url: &Url, status: StatusCode, _: &HeaderMap) -> Next<S::Output> {
        let url_box = url.clone().into();
        match status {
            StatusCode::OK => Next::Stream,
            StatusCode::NOT_FOUND => Next::Finish(Err(Error::NotFound {
                url: url_box,
                message: format!("{url} not found"),
            })),
            status => Next::Finish(Err(Error::Status {
                url: url_box,
                status,
            })),
        }
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<S::Output, Error> {
        self.on_chunk(url, &body)?;
        self.on_stream_end(url)
    }

    fn on_chunk(&mut self, url: &Url, chunk: &[u8]) -> Result<(), Error> {
        self.sink
            .write(chunk)
            .map_err(|problem| invalid(url, problem))
    }

    fn on_stream_end(&mut self, url: &Url) -> Result<S::Output, Error> {
        self.sink.finish().map_err(|problem| invalid(url, problem))
    }

    fn present_error(&self, error: Error) -> Error {
        wrap(RegistryCall::Download, error)
    }
}

fn invalid(url: &Url, problem: String) -> Error {
    Error::InvalidResponse {
        url: url.clone().into(),
        problem,
    }
}
