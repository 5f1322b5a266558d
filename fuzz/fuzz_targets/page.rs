//! Package pages from arbitrary bytes (MOD-7): `terraform_get_meta` on the
//! body, whole and as if cut at the page limit, and
//! `ModulePackage::from_page_source` on the text, in both dialects. Nothing
//! panics; a cut only turns an unexpected end into no source; a meta tag
//! found is not empty; a source that passes names a getter and has no
//! subdirectory left in its address.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfdisco_core::{Dialect, ModulePackage, terraform_get_meta};

fuzz_target!(|data: &[u8]| {
    let whole = terraform_get_meta(data, false);
    let cut = terraform_get_meta(data, true);
    match &whole {
        Ok(found) => assert_eq!(&cut, &whole, "{found:?}"),
        Err(_) => assert!(cut.is_ok() || cut == whole),
    }
    if let Ok(Some(content)) = &whole {
        assert!(!content.is_empty());
    }
    let text = String::from_utf8_lossy(data);
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        if let Ok((package, _)) = ModulePackage::from_page_source(&text, dialect) {
            assert!(package.getter().is_some(), "{package:?}");
            assert!(package.subdir().is_empty(), "{package:?}");
        }
    }
});
