//! Module package addresses from arbitrary text: `ModuleAddress::parse`,
//! `ModulePackage::detect`, every detector alone and the subdirectory split,
//! in both dialects. Nothing panics, and what parses holds together: a
//! package's address has no subdirectory left in it, its subdirectory never
//! leaves the package, and its display form puts the subdirectory back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfdisco_core::{Dialect, ModuleAddress, ModulePackage, PackageDetector};

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    let _ = ModulePackage::split_subdir(&input);
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let _ = ModulePackage::detect(&input, dialect);
        for detector in PackageDetector::ALL {
            if let Ok(Some(detected)) = detector.detect(&input, dialect) {
                assert!(detected.contains(':'), "{detected:?}");
            }
        }
        match ModuleAddress::parse(&input, dialect) {
            Ok(ModuleAddress::Remote(package)) => {
                assert_eq!(package.given(), input);
                assert!(!package.subdir().starts_with("../"), "{package:?}");
                let (address, rest) = ModulePackage::split_subdir(package.address());
                assert_eq!(address, package.address());
                assert!(rest.is_empty(), "{package:?}");
                assert!(package.address().ends_with(package.url()));
                let shown = package.to_string();
                if package.subdir().is_empty() {
                    assert_eq!(shown, package.address());
                } else {
                    assert!(
                        shown.contains(&format!("//{}", package.subdir())),
                        "{shown:?}"
                    );
                }
                let _ = package.join_subdir(&input);
                let _ = (package.getter(), package.revision(), package.depth());
                let _ = (package.archive(), package.checksum(), package.has_ssh_key());
            }
            Ok(ModuleAddress::Local(path)) => {
                assert!(
                    path.starts_with("./") || path.starts_with("../"),
                    "{path:?}"
                );
            }
            Ok(ModuleAddress::Registry(_)) | Err(_) => {}
        }
    }
});
