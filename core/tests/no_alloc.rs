//! An already-normalized ASCII hostname parses without touching the heap.
//!
//! A counting global allocator needs `unsafe impl GlobalAlloc`; the library
//! itself forbids unsafe code, this test binary alone allows it.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tfdisco_core::Hostname;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter is a thread-local `Cell` that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations_during<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOCATIONS.with(Cell::get);
    let value = f();
    (ALLOCATIONS.with(Cell::get) - before, value)
}

#[test]
fn normalized_ascii_names_do_not_allocate() {
    for input in [
        "registry.terraform.io",
        "registry.opentofu.org",
        "app.terraform.io",
        "tfe.internal.example.com:8443",
        "localhost:8080",
        "127.0.0.1:41001",
        // Mixed case and a default port are normalized on the same path.
        "Registry.Terraform.IO:443",
        "terraform-registry.platform.corp.example.com:8443",
    ] {
        let (count, parsed) = allocations_during(|| Hostname::parse(input));
        let host = parsed.expect("valid");
        assert_eq!(count, 0, "{input} allocated {count} times");
        let (count, _) = allocations_during(|| host.clone());
        assert_eq!(count, 0, "cloning {input} allocated");
    }
}

#[test]
fn the_counter_sees_allocations() {
    // Guards the test above against a counter that never counts.
    let (count, _) = allocations_during(|| Hostname::parse("münchen.de"));
    assert!(count > 0);
    let (count, _) = allocations_during(|| vec![1u8; 10]);
    assert_eq!(count, 1);
}
