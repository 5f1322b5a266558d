//! `PackageHasher` never holds the archive (docs/behaviour.md, HASH-3): the
//! heap it holds while reading an archive of over 32 MiB (48 MiB of files), made and fed in 64 KiB
//! chunks, stays under 1 MiB, whatever the entries' sizes. Nor does the
//! `Unpacker` that reads through it (UNPACK-1).
//!
//! A counting global allocator needs `unsafe impl GlobalAlloc`; the library
//! itself forbids unsafe code, this test binary alone allows it.
#![allow(unsafe_code)]

mod zipwriter;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tfdisco_provider::{PackageHasher, Unpacker};
use zipwriter::{Descriptor, Entry, Method, Zip};

struct Counting;

thread_local! {
    /// Counting only while the hasher runs.
    static ON: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    if ON.with(Cell::get) {
        LIVE.with(|live| {
            live.set(live.get() + delta);
            PEAK.with(|peak| peak.set(peak.get().max(live.get())));
        });
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counters are thread-local `Cell`s that never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` with the hasher's allocations counted.
fn counted<T>(f: impl FnOnce() -> T) -> T {
    ON.with(|on| on.set(true));
    let out = f();
    ON.with(|on| on.set(false));
    out
}

/// 16 MiB entries, stored with a descriptor (read until it), deflated with
/// one, and stored with sizes in the header; small files in a folder.
fn archive() -> Vec<u8> {
    let big: Vec<u8> = (0..16u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut entries = vec![
        Entry::new(
            "stored-descriptor",
            &big,
            Method::Stored,
            Descriptor::Signed32,
        ),
        Entry::new("deflated", &big, Method::Deflated, Descriptor::Signed32),
        Entry::new("stored", &big, Method::Stored, Descriptor::None),
    ];
    for i in 0..200 {
        entries.push(Entry::new(
            &format!("docs/{i}.md"),
            b"# doc\n",
            Method::Deflated,
            Descriptor::Signed32,
        ));
    }
    let archive = Zip {
        entries,
        ..Zip::default()
    }
    .write();
    drop(big);
    assert!(archive.len() > 32 << 20);
    archive
}

#[test]
fn the_hasher_never_holds_the_archive() {
    let archive = archive();
    let mut hasher = counted(PackageHasher::new);
    for chunk in archive.chunks(64 * 1024) {
        counted(|| hasher.update(chunk)).expect("reads");
    }
    let hashes = counted(|| hasher.finish()).expect("hashes");
    assert_eq!(hashes.files(), 203);
    let peak = PEAK.with(Cell::get);
    assert!(peak < 1 << 20, "the hasher held {peak} bytes at its peak");
    assert!(peak > 64 * 1024, "the count saw the inflate buffer: {peak}");
}

#[test]
fn the_unpacker_never_holds_the_archive() {
    let archive = archive();
    let mut unpacker = counted(Unpacker::new);
    let mut written = 0u64;
    for chunk in archive.chunks(64 * 1024) {
        counted(|| {
            unpacker.update(chunk, |op| {
                if let tfdisco_provider::UnpackOp::Data(bytes) = op {
                    written += bytes.len() as u64;
                }
                Ok(())
            })
        })
        .expect("unpacks");
    }
    let unpacked = counted(|| unpacker.finish()).expect("unpacked");
    assert_eq!(unpacked.files, 203);
    assert_eq!(unpacked.bytes, written);
    assert!(written > 48 << 20);
    let peak = PEAK.with(Cell::get);
    assert!(peak < 1 << 20, "the unpacker held {peak} bytes at its peak");
}
