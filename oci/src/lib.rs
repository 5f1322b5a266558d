#![doc = include_str!("../README.md")]
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
