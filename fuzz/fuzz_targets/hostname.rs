//! Hostname parsing, both display forms and the round-trip invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfdisco_core::Hostname;
use tfdisco_core::hostname::for_display;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let _ = for_display(input);
    let _ = Hostname::from_comparison(input);
    if let Ok(h) = Hostname::parse(input) {
        assert!(h.as_str().is_ascii());
        let display = h.display();
        assert_eq!(Hostname::parse(&display).as_ref(), Ok(&h), "display {display:?}");
        assert_eq!(Hostname::from_comparison(h.as_str()).as_ref(), Ok(&h));
    }
});
