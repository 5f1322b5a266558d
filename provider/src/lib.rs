//! The provider side of tfdisco, without I/O: what `terraform providers
//! lock`, `providers mirror` and `init` decide about provider packages once
//! the registry has answered, as values and state machines that other crates
//! drive.
//!
//! **In scope**
//! - [`PackageHasher`]: a provider package archive hashed as it streams
//!   (`zh:`, `h1:`, Go's `dirhash`), [`hash1_of_files`] for an unpacked
//!   package; [`Sha256Sums`], the OpenPGP signature and [`Trust`]; the
//!   checks of a registry's package ([`authenticate_package`]) and of a
//!   mirror's archive ([`authenticate_mirror_archive`]).
//! - [`Unpacker`]: a package archive unpacked as it streams, as the
//!   operations a writer makes (folders, files, their bytes), with
//!   Terraform's layout and modes, the unpacked `h1:`, and hostile archives
//!   (`..`, absolute names, links, duplicates, limits) refused.
//! - [`LockPlan`](lock_plan::LockPlan): a lock run as jobs handed to a driver
//!   (which requests, in which order, each file once, every package verified
//!   before a hash counts) and what the lock file gets.
//! - [`ProviderInstallation`]: the CLI configuration's installation methods,
//!   their `include` / `exclude` patterns, which would install a provider
//!   and why, and how their answers combine.
//! - Filesystem mirrors: what each path under a mirror is
//!   ([`classify_mirror_path`]), Go's order of the packages found and which
//!   one a version and platform get ([`LocalPackages`]).
//! - Mirror folders: where `providers mirror` puts a package, which hashes
//!   each dialect lists for it, and the bytes of `index.json` and
//!   `<version>.json` ([`mirror_folder`]).
//!
//! **Out of scope**
//! - Files and the network: `tfdisco-config` walks mirror folders, reads
//!   package files and writes lock files and indexes; the transports run a
//!   plan's jobs (registry requests, downloads) with `tfdisco-core`'s engine.
//!
//! Every rule, the Go behaviour it matches and the test that pins it are in
//! the project's `docs/behaviour.md` (HASH, UNPACK, LOCKRUN, INST, FSM and
//! MIRROR rules).
//!
//! # A package, hashed as it downloads
//!
//! ```
//! use tfdisco_provider::PackageHasher;
//!
//! // An empty zip archive: just the end of central directory record.
//! let archive = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
//! let mut hasher = PackageHasher::new();
//! for chunk in archive.chunks(7) {
//!     hasher.update(chunk)?; // as each chunk arrives
//! }
//! let hashes = hasher.finish()?;
//! assert_eq!(hashes.h1(), tfdisco_provider::EMPTY_H1);
//! assert!(hashes.zh().starts_with("zh:"));
//! # Ok::<(), tfdisco_provider::PackageHashError>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod fs_mirror;
mod installation;
pub mod lock_plan;
pub mod mirror_folder;
pub mod oci_mirror;
mod package_hash;
pub mod unpack;

pub use fs_mirror::{
    EntryKind, LocalLocation, LocalPackage, LocalPackages, MirrorEntry, MirrorPath,
    classify_mirror_path, package_file_platform, package_filename,
};
pub use installation::{
    AvailableVersions, Choice, DevOverride, InstallationMethod, MethodChoice, MethodError,
    MethodKind, MethodSummary, MultiSourceError, PatternError, ProviderInstallation,
    ProviderPattern, Reason, available_versions, first_package,
};
pub use mirror_folder::{ArchiveEntry, mirror_archives_document, mirror_index_document};
pub use package_hash::{
    ArchiveDigest, Authentication, AuthenticationError, EMPTY_H1, HASHICORP_KEY_ID,
    HASHICORP_PARTNERS_KEY_ID, MirrorAuthentication, PackageCheck, PackageHashError, PackageHasher,
    PackageHashes, PackageReadError, Sha256Sums, SignatureCheck, SignatureError, Signatures,
    Signer, SumsError, Trust, TrustRoots, authenticate_mirror_archive, authenticate_package,
    hash_package, hash_package_reader, hash1_of_files, signature_required, trusted_mirror_hashes,
    verify_signature,
};
pub use unpack::{UnpackError, UnpackLimits, UnpackOp, Unpacked, Unpacker};
