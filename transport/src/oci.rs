//! OCI registry requests over a client (OCI-5): each one a
//! `tfdisco_oci::Authorized` session, whose steps (the request, the token
//! service, the request again) are driven here, with the credentials the
//! client's [`OciCredentialsSource`](tfdisco_oci::OciCredentialsSource)
//! gives for the repository; the tokens the client learns are shared by
//! its requests. What is sent, and why, is decided by `tfdisco-oci`.

use tfdisco_core::url::Url;
use tfdisco_core::{Error, Goal, Hostname, Sink};
use tfdisco_oci::{
    Access, Authorized, BlobRequest, Descriptor, FetchedManifest, ManifestRequest, Reference,
    RepositoryAddress, Scope, Step, TagListRequest,
};

use crate::{AsyncClient, BlockingClient, Transport, drive};

/// The most pages of tags a listing follows: a registry whose `Link`
/// headers never end cannot keep a run going.
const MAX_TAG_PAGES: usize = 10_000;

impl<T: Transport> AsyncClient<T> {
    /// Every tag of the repository at `address` (`GET` its
    /// [`tags_url`](RepositoryAddress::tags_url), following `Link` headers), with the client's credentials for it
    /// ([`ClientBuilder::oci_credentials`](crate::ClientBuilder::oci_credentials))
    /// if the registry asks.
    pub async fn oci_tags(&self, address: &RepositoryAddress) -> Result<Vec<String>, Error> {
        let host = registry_host(address)?;
        let credentials = self.cache().oci_credentials(address)?;
        let mut url = address.tags_url();
        let mut tags = Vec::new();
        for _ in 0..MAX_TAG_PAGES {
            let goal = TagListRequest::new(host.clone());
            let page = self
                .oci_run(Authorized::new(
                    goal,
                    url,
                    address,
                    pull(address),
                    credentials.clone(),
                ))
                .await?;
            tags.extend(page.tags);
            match page.next {
                Some(next) => url = next,
                None => return Ok(tags),
            }
        }
        Err(Error::InvalidArgument {
            message: format!("the tag list of {address} has more than {MAX_TAG_PAGES} pages"),
        })
    }

    /// The manifest or index `reference` names in the repository at
    /// `address`, asking for the media types `accept` lists; its digest
    /// checked (OCI-3).
    pub async fn oci_manifest(
        &self,
        address: &RepositoryAddress,
        reference: &Reference,
        accept: &[&str],
    ) -> Result<FetchedManifest, Error> {
        let goal = ManifestRequest::new(registry_host(address)?, reference.clone(), accept);
        let url = address.manifest_url(reference);
        self.oci_request(address, goal, url, pull(address)).await
    }

    /// The blob `descriptor` names in the repository at `address`,
    /// streamed into `sink`, its size and digest checked as it arrives
    /// (OCI-3).
    pub async fn oci_blob<S>(
        &self,
        address: &RepositoryAddress,
        descriptor: &Descriptor,
        sink: S,
    ) -> Result<S::Output, Error>
    where
        S: Sink,
        S::Output: Send,
    {
        let host = registry_host(address)?;
        let goal = BlobRequest::new(host, descriptor.digest.clone(), descriptor.size, sink);
        let url = address.blob_url(&descriptor.digest);
        self.oci_request(address, goal, url, pull(address)).await
    }

    /// A provider package's blob for a job of the provider crate's plan
    /// (`Job::OciBlob`): its size checked as it arrives, its digest by the
    /// plan, against the `zh:` the layer's digest is, from the hashes the
    /// sink computes (OCIMIRROR-5): the archive is hashed once.
    pub async fn oci_package_blob<S>(
        &self,
        address: &RepositoryAddress,
        descriptor: &Descriptor,
        sink: S,
    ) -> Result<S::Output, Error>
    where
        S: Sink,
        S::Output: Send,
    {
        let goal = BlobRequest::size_checked(registry_host(address)?, descriptor.size, sink);
        let url = address.blob_url(&descriptor.digest);
        self.oci_request(address, goal, url, pull(address)).await
    }

    /// One OCI request to `url` in the repository at `address`, with the
    /// repository's credentials and `scope`.
    pub(crate) async fn oci_request<G>(
        &self,
        address: &RepositoryAddress,
        goal: G,
        url: Url,
        scope: Scope,
    ) -> Result<G::Output, Error>
    where
        G: Goal + Send,
        G::Output: Send,
    {
        let credentials = self.cache().oci_credentials(address)?;
        self.oci_run(Authorized::new(goal, url, address, scope, credentials))
            .await
    }

    /// Runs an authorized OCI request: each step's transfer over the
    /// transport, the client's token cache locked only between steps.
    pub(crate) async fn oci_run<G>(&self, mut request: Authorized<G>) -> Result<G::Output, Error>
    where
        G: Goal + Send,
        G::Output: Send,
    {
        let config = self.cache().config();
        let transport = self.transport();
        loop {
            let step = request.next(&self.oci_auth(), &config, transport.now());
            // The transfers live on the heap: this future stays small inside
            // the lock and install runs' job futures.
            match step {
                Step::Request(transfer) => {
                    let mut transfer = Box::new(transfer);
                    let result = Box::pin(drive(transport, &mut *transfer, None)).await;
                    request.answered(*transfer, result, &mut self.oci_auth());
                }
                Step::Token(transfer) => {
                    let mut transfer = Box::new(transfer);
                    let result = Box::pin(drive(transport, &mut *transfer, None)).await;
                    request.token(result, &mut self.oci_auth(), transport.now());
                }
                Step::Done(result) => return result,
            }
        }
    }
}

impl<T: Transport> BlockingClient<T> {
    /// [`AsyncClient::oci_tags`] for blocking code.
    pub fn oci_tags(&self, address: &RepositoryAddress) -> Result<Vec<String>, Error> {
        self.wait(self.as_async().oci_tags(address))
    }

    /// [`AsyncClient::oci_manifest`] for blocking code.
    pub fn oci_manifest(
        &self,
        address: &RepositoryAddress,
        reference: &Reference,
        accept: &[&str],
    ) -> Result<FetchedManifest, Error> {
        self.wait(self.as_async().oci_manifest(address, reference, accept))
    }

    /// [`AsyncClient::oci_blob`] for blocking code.
    pub fn oci_blob<S>(
        &self,
        address: &RepositoryAddress,
        descriptor: &Descriptor,
        sink: S,
    ) -> Result<S::Output, Error>
    where
        S: Sink,
        S::Output: Send,
    {
        self.wait(self.as_async().oci_blob(address, descriptor, sink))
    }
}

/// The registry as the host its transfers are about.
pub(crate) fn registry_host(address: &RepositoryAddress) -> Result<Hostname, Error> {
    Hostname::parse(address.registry()).map_err(|e| Error::InvalidArgument {
        message: format!("the OCI registry {}: {e}", address.registry()),
    })
}

/// The scope of a read of the repository at `address`.
fn pull(address: &RepositoryAddress) -> Scope {
    Scope::new(address.repository(), Access::Pull)
}
