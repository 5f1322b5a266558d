//! Hostname parsing, both display forms and the round-trip invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfdisco_core::Hostname;
use tfdisco_core::hostname::for_display;
use tfdisco_core::serde_json;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let _ = for_display(input);
    if let Ok(stored) = Hostname::from_comparison(input) {
        // A stored comparison form is kept exactly as given.
        assert_eq!(stored.as_str(), input);
    }
    if let Ok(h) = Hostname::parse(input) {
        let s = h.as_str();
        assert!(s.is_ascii(), "{s:?}");
        assert!(!s.bytes().any(|b| b.is_ascii_uppercase()), "{s:?}");
        assert_eq!(h.to_string(), s);
        // The comparison form is exactly its host part and its port.
        let recombined = match h.port() {
            Some(port) => format!("{}:{port}", h.host()),
            None => h.host().to_owned(),
        };
        assert_eq!(recombined, s);
        assert_ne!(h.port(), Some(443));
        // The display form parses back to the same host.
        let display = h.display();
        assert_eq!(
            Hostname::parse(&display).as_ref(),
            Ok(&h),
            "display {display:?}"
        );
        // The comparison form is accepted back from storage, and a form
        // without punycode parses to itself.
        assert_eq!(Hostname::from_comparison(s).as_ref(), Ok(&h));
        if !s.split('.').any(|label| label.starts_with("xn--")) {
            assert_eq!(Hostname::parse(s).as_ref(), Ok(&h));
        }
        // Serde keeps the comparison form.
        let json = serde_json::to_string(&h).expect("a string always serializes");
        let back: Hostname = serde_json::from_str(&json).expect("serialized form reads back");
        assert_eq!(back, h);
    }
});
