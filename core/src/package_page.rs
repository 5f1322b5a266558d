//! A module package URL that is no archive (docs/behaviour.md, MOD-7):
//! go-getter's http getter asks the page for the package's real source —
//! `GET URL?terraform-get=1`, then the `X-Terraform-Get` header, else the
//! `content` of a `<meta name="terraform-get">` in the page's head — with
//! no token, as a download (DL-1).

mod meta;

use std::fmt;
use std::time::Instant;

use http::{HeaderMap, StatusCode};
use url::Url;

use crate::transfer::{Goal, Next, Transfer};
use crate::{Config, Error, Hostname, RequestKind, StartError};

pub use meta::terraform_get_meta;

/// The most bytes of a page read for its meta tag: the rest is dropped.
pub const PAGE_LIMIT: usize = 1 << 20;

/// The header that names the source.
const X_TERRAFORM_GET: &str = "x-terraform-get";

/// The goal of a package page request: a 2xx names the source in its
/// `X-Terraform-Get` header or in its head's meta tag (`None`: neither);
/// any other status is an [`Error::Status`].
pub struct PackagePageRequest {
    about: Hostname,
    body: Vec<u8>,
    /// Whether bytes past [`PAGE_LIMIT`] were dropped.
    cut: bool,
}

impl fmt::Debug for PackagePageRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackagePageRequest")
            .field("about", &self.about)
            .finish_non_exhaustive()
    }
}

/// go-getter's page URL: `terraform-get=1` added to the query, which is
/// written again sorted by name (Go's `Values.Encode`).
pub fn package_page_url(url: &Url) -> Url {
    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    pairs.push(("terraform-get".to_owned(), "1".to_owned()));
    // A stable sort keeps the values of one name in their order, as Go's
    // `Encode` does.
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut page = url.clone();
    page.query_pairs_mut().clear().extend_pairs(pairs);
    page
}

impl Transfer<PackagePageRequest> {
    /// Starts asking the page at `url` (the package URL, without
    /// `archive=` and `checksum=`) for its source, at `package_page_url`.
    /// `about` is the host named in traces. No credentials are sent (DL-1).
    pub fn package_page(
        url: &Url,
        about: Hostname,
        config: &Config,
        now: Instant,
    ) -> Result<Transfer<PackagePageRequest>, StartError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(StartError::new(Error::InvalidArgument {
                message: format!("cannot ask {url} for a package: only http and https URLs can"),
            }));
        }
        let goal = PackagePageRequest {
            about,
            body: Vec::new(),
            cut: false,
        };
        Transfer::get(goal, package_page_url(url), config, None, now)
    }
}

impl Goal for PackagePageRequest {
    type Output = Option<String>;
    const NAME: &'static str = "package page";
    const KIND: RequestKind = RequestKind::Download;

    fn host(&self) -> &Hostname {
        &self.about
    }

    fn on_head(
        &mut self,
        url: &Url,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> Next<Self::Output> {
        if !status.is_success() {
            return Next::Finish(Err(Error::Status {
                url: url.clone().into(),
                status,
            }));
        }
        // Go's `Header.Get`: the first value; an empty one is none.
        match headers.get(X_TERRAFORM_GET).map(|v| v.as_bytes()) {
            Some(value) if !value.is_empty() => {
                Next::Finish(Ok(Some(String::from_utf8_lossy(value).into_owned())))
            }
            _ => Next::Stream,
        }
    }

    fn on_body(&mut self, url: &Url, body: Vec<u8>) -> Result<Self::Output, Error> {
        self.on_chunk(url, &body)?;
        self.on_stream_end(url)
    }

    fn on_chunk(&mut self, _: &Url, chunk: &[u8]) -> Result<(), Error> {
        let room = PAGE_LIMIT - self.body.len();
        if chunk.len() > room {
            self.cut = true;
        }
        self.body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        Ok(())
    }

    fn on_stream_end(&mut self, url: &Url) -> Result<Self::Output, Error> {
        terraform_get_meta(&self.body, self.cut).map_err(|problem| Error::InvalidResponse {
            url: url.clone().into(),
            problem,
        })
    }
}

#[cfg(test)]
mod tests;
