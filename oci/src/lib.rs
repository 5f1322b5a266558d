//! The OCI distribution protocol as OpenTofu uses it, sans IO: where an
//! artifact lives ([`RepositoryAddress`], [`Tag`], [`Reference`],
//! [`Digest`]), what its manifests say ([`ImageIndex`], [`ImageManifest`],
//! [`Descriptor`]), how a registry's challenge is answered ([`Challenge`],
//! [`OciCredentials`], [`AuthCache`]), and each request as a goal of
//! `tfdisco-core`'s one engine ([`TagList`], [`ManifestGoal`],
//! [`BlobGoal`], [`TokenGoal`]), authorized by an [`Authorized`] session.
//!
//! Like `tfdisco-core` and `tfdisco-provider`, it does no I/O: a transport
//! (`tfdisco-transport`'s clients) runs the fetches each [`Step`] hands
//! out. Every rule (OCI-1 to OCI-7, and OCIMOD-1 to OCIMOD-8 for [`module`]
//! sources) and the test that pins it are listed in
//! the project's `docs/behaviour.md`.
//!
//! # A request, driven by hand
//!
//! A tag list from a registry that asks for a token first. The "network"
//! is canned answers.
//!
//! ```
//! use std::time::Instant;
//! use tfdisco_core::http::{HeaderMap, HeaderValue, StatusCode, header};
//! use tfdisco_core::{Action, Config, Dialect, Hostname};
//! use tfdisco_oci::{
//!     Access, Answer, AuthCache, Authorized, OciCredentials, RepositoryAddress, Scope, Step,
//!     TagList,
//! };
//!
//! let address = RepositoryAddress::parse("registry.example/providers/aws")?;
//! let host = Hostname::parse(address.registry())?;
//! let url = address.tags_url();
//! let mut request = Authorized::new(
//!     TagList::new(host),
//!     url,
//!     &address,
//!     Scope::new(address.repository(), Access::Pull),
//!     Some(OciCredentials::basic("ci", "s3cret")),
//! );
//! let (mut cache, config, now) = (AuthCache::new(), Config::new(Dialect::OpenTofu), Instant::now());
//!
//! // 1. The request, without credentials: the registry challenges it.
//! let Step::Request(mut fetch) = request.next(&cache, &config, now) else { panic!() };
//! let Action::Send(sent) = fetch.poll() else { panic!() };
//! assert!(sent.headers().get(header::AUTHORIZATION).is_none());
//! let mut headers = HeaderMap::new();
//! headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(
//!     r#"Bearer realm="https://auth.example/token",service="registry.example""#,
//! ));
//! fetch.handle_head(StatusCode::UNAUTHORIZED, &headers, now);
//! let Action::Done(result) = fetch.poll() else { panic!() };
//! request.answered(fetch, result, &mut cache);
//!
//! // 2. The token service, with the username and password.
//! let Step::Token(mut fetch) = request.next(&cache, &config, now) else { panic!() };
//! let Action::Send(sent) = fetch.poll() else { panic!() };
//! assert_eq!(sent.uri().host(), Some("auth.example"));
//! assert!(sent.headers()[header::AUTHORIZATION].to_str()?.starts_with("Basic "));
//! fetch.handle_head(StatusCode::OK, &HeaderMap::new(), now);
//! fetch.handle_body(br#"{"token":"T1","expires_in":300}"#, now);
//! fetch.handle_end(now);
//! let Action::Done(result) = fetch.poll() else { panic!() };
//! request.token(result, &mut cache, now);
//!
//! // 3. The request again, with the token.
//! let Step::Request(mut fetch) = request.next(&cache, &config, now) else { panic!() };
//! let Action::Send(sent) = fetch.poll() else { panic!() };
//! assert_eq!(sent.headers()[header::AUTHORIZATION], "Bearer T1");
//! fetch.handle_head(StatusCode::OK, &HeaderMap::new(), now);
//! fetch.handle_body(br#"{"name":"providers/aws","tags":["5.0.0","latest"]}"#, now);
//! fetch.handle_end(now);
//! let Action::Done(result) = fetch.poll() else { panic!() };
//! assert!(matches!(&result, Ok(Answer::Done(page)) if page.tags == ["5.0.0", "latest"]));
//! request.answered(fetch, result, &mut cache);
//! let Step::Done(Ok(page)) = request.next(&cache, &config, now) else { panic!() };
//! assert_eq!(page.next, None);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod auth;
mod challenge;
mod credentials;
mod digest;
mod goals;
mod manifest;
pub mod module;
mod reference;
mod session;
mod upload;

pub use auth::{Access, AuthCache, Scope, TokenAnswer};
pub use challenge::{Challenge, Scheme};
pub use credentials::{OciCredentials, OciCredentialsSource, RegistryCredentials};
pub use digest::{Algorithm, Digest, InvalidDigest, Mismatch, Verifier};
pub use goals::{Answer, BlobGoal, Challenged, ManifestGoal, TagList, TagPage, TokenGoal};
pub use manifest::{
    Descriptor, FetchedManifest, ImageIndex, ImageManifest, MANIFEST_LIMIT, Platform,
    artifact_type, media_type,
};
pub use module::{InvalidModuleSource, OciModuleSource};
pub use reference::{InvalidReference, Reference, RepositoryAddress, Tag};
pub use session::{Authorized, Step};
pub use upload::{BlobExists, ManifestPut, UploadChunk, UploadFinish, UploadStart, UploadStarted};
