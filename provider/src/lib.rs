#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod archive_checksum;
mod fs_mirror;
mod installation;
pub mod mirror_folder;
pub mod oci_mirror;
mod package_hash;
pub mod plan;
pub mod unpack;

pub use archive_checksum::{
    ArchiveChecksum, ChecksumError, ChecksumHasher, ChecksumKind, ChecksumRequest,
};
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
pub use unpack::{
    ArchiveFormat, TarUnpacked, TarUnpacker, UnpackError, UnpackLimits, UnpackOp, Unpacked,
    Unpacker, UnsupportedArchive,
};
