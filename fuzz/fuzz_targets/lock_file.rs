//! Dependency lock files (docs/behaviour.md, LOCK-1 to LOCK-6).
//!
//! The input, read as UTF-8 (invalid bytes become U+FFFD), is a lock file's
//! text, parsed in both dialects. Parsing must not panic and must finish
//! quickly (the nesting check, CFG-9). A file that parses must write back to
//! text that parses to the same locks and writes the same bytes again (the
//! writer's output is a fixed point), and merging a lock into it must keep it
//! writable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfdisco_config::{LockFile, LockedProvider};
use tfdisco_core::Dialect;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let Ok(mut lock) = LockFile::parse(&text, ".terraform.lock.hcl", dialect) else {
            continue;
        };
        let bytes = lock.to_bytes();
        let written = String::from_utf8(bytes.clone()).expect("the writer writes UTF-8");
        let reread = LockFile::parse(&written, "written", dialect)
            .unwrap_or_else(|e| panic!("written lock file does not parse: {e}\n{written}"));
        assert_eq!(
            reread.providers().collect::<Vec<_>>(),
            lock.providers().collect::<Vec<_>>()
        );
        assert_eq!(reread.to_bytes(), bytes, "writing is not a fixed point");
        let first = lock.providers().next().cloned();
        if let Some(first) = first {
            let hashes = first.hashes().iter().cloned().chain(["zh:00".to_owned()]);
            let merged = LockedProvider::new(first.source().clone(), first.version(), None, hashes)
                .expect("a lock that was read can be made again");
            lock.merge(merged);
            assert!(
                lock.provider(first.source())
                    .is_some_and(|p| p.hashes().len() >= first.hashes().len())
            );
            LockFile::parse(
                &String::from_utf8_lossy(&lock.to_bytes()),
                "merged",
                dialect,
            )
            .expect("a merged lock file parses");
        }
    }
});
