#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

/// The parts of an `impl Goal` every registry request of this crate has:
/// its name in traces, its kind (`Oci` unless given), the registry's host
/// as its host, and failures named after the [`RegistryCall`](tfdisco_core::RegistryCall)
/// `$call`. The goal keeps the host in a field `host`.
macro_rules! oci_goal {
    ($name:literal, $call:ident) => {
        oci_goal!($name, $call, Oci);
    };
    ($name:literal, $call:ident, $kind:ident) => {
        const NAME: &'static str = $name;
        const KIND: tfdisco_core::RequestKind = tfdisco_core::RequestKind::$kind;

        fn host(&self) -> &tfdisco_core::Hostname {
            &self.host
        }

        fn present_error(&self, error: tfdisco_core::Error) -> tfdisco_core::Error {
            tfdisco_core::RegistryCall::$call.wrap(error)
        }
    };
}

/// A goal whose request needs nothing but the registry's host: the struct
/// (with the docs and attributes given) and its `new(host)`.
macro_rules! host_goal {
    (
        $(#[$attr:meta])*
        pub struct $name:ident;
        $(#[$new_doc:meta])*
        pub fn new;
    ) => {
        $(#[$attr])*
        #[derive(Debug)]
        pub struct $name {
            host: tfdisco_core::Hostname,
        }

        impl $name {
            $(#[$new_doc])*
            pub fn new(host: tfdisco_core::Hostname) -> $name {
                $name { host }
            }
        }
    };
}

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
pub use goals::{
    Answer, BlobRequest, Challenged, ManifestRequest, TagListRequest, TagPage, TokenRequest,
};
pub use manifest::{
    Descriptor, FetchedManifest, ImageIndex, ImageManifest, MANIFEST_LIMIT, Platform,
    artifact_type, media_type,
};
pub use module::{InvalidModuleSource, OciModuleSource};
pub use reference::{InvalidReference, Reference, RepositoryAddress, Tag};
pub use session::{Authorized, Step};
pub use upload::{
    BlobExistsRequest, ManifestPutRequest, UploadChunkRequest, UploadFinishRequest,
    UploadStartRequest, UploadStarted,
};
