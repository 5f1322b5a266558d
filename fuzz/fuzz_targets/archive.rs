//! Provider package archives from arbitrary bytes, fed in arbitrary chunks:
//! `PackageHasher` never panics, never hangs and never holds the archive;
//! the result (the hashes, or the kind of error) is the same whatever the
//! chunks; an archive that hashes does not hash once cut short.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfdisco_provider::{PackageHasher, hash_package};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, archive)) = data.split_first() else {
        return;
    };
    let summary = |r: Result<
        tfdisco_provider::PackageHashes,
        tfdisco_provider::PackageHashError,
    >| { r.map(|h| (h.h1(), h.zh(), h.size())).map_err(|e| e.kind()) };
    let whole = summary(hash_package(archive));
    // Chunks of varying sizes, from the selector.
    let mut hasher = PackageHasher::new();
    let mut rest = archive;
    let mut size = 1 + usize::from(selector % 31);
    let mut failed = None;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        if let Err(e) = hasher.update(chunk) {
            failed = Some(e);
            break;
        }
        rest = tail;
        size = (size * 7 + usize::from(selector)) % 97 + 1;
    }
    let chunked = match failed {
        Some(e) => Err(e.kind()),
        None => summary(hasher.finish()),
    };
    assert_eq!(whole, chunked, "chunking changed the result");
    if whole.is_ok() && !archive.is_empty() {
        let cut = archive.len() * usize::from(selector) / 256;
        assert!(
            hash_package(&archive[..cut]).is_err(),
            "a prefix of {cut} bytes hashed"
        );
    }
});
