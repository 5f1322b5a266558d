//! A provider mirror folder as `terraform providers mirror` writes it
//! (docs/behaviour.md, MIRROR-9 to MIRROR-13), without I/O.

mod documents;

pub use documents::{ArchiveEntry, mirror_archives_document, mirror_index_document};
