//! Configuration directories (docs/behaviour.md, TFCFG-1 to TFCFG-8).
//!
//! The input, read as UTF-8 (invalid bytes become U+FFFD), is cut at each
//! form feed (U+000C) into files of one module directory: the first is
//! `main.tf`, the second `main.tf.json`, the third `override.tf`, the fourth
//! the module manifest `.terraform/modules/modules.json`, the fifth
//! `child/main.tf` (a `module "x" { source = "./child" }` reaches it).
//! Loading must not panic, must finish quickly, and every provider found
//! must have an origin.
#![no_main]

use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tfdisco_config::Configuration;
use tfdisco_core::Dialect;

const FILES: [&str; 5] = [
    "main.tf",
    "main.tf.json",
    "override.tf",
    ".terraform/modules/modules.json",
    "child/main.tf",
];

/// One directory per fuzzing process, rewritten for each input.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("tfdisco-fuzz-config-{}", std::process::id()));
        fs::create_dir_all(dir.join(".terraform/modules")).expect("fuzz directory");
        fs::create_dir_all(dir.join("child")).expect("fuzz directory");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let dir = dir();
    let mut parts = text.split('\u{c}');
    for name in FILES {
        let path = dir.join(name);
        match parts.next() {
            Some(part) => fs::write(&path, part).expect("write"),
            None => {
                let _ = fs::remove_file(&path);
            }
        }
    }
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        if let Ok(config) = Configuration::load(dialect, dir) {
            for provider in config.providers() {
                assert!(!provider.origins().is_empty());
            }
            assert!(!config.modules().is_empty());
        }
    }
});
