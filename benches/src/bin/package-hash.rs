//! The package hash benchmark, Rust's side: streams a provider
//! package archive through `PackageHasher` in 64 KiB chunks, as a download
//! feeds it, and prints the hashes, the time and the peak resident memory
//! (`VmHWM`). `benches/package-hash.sh` runs it against Go's
//! `dirhash.HashZip` plus a SHA-256 of the file (`benches/go/hashzip`).
//!
//! ```text
//! cargo run --release -p tfdisco-benches --bin package-hash -- ARCHIVE.zip
//! ```

use std::fs::File;
use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

use tfdisco_provider::PackageHasher;

fn vm_hwm() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_owned()))
        })
        .unwrap_or_else(|| "?".to_owned())
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: package-hash ARCHIVE.zip");
        return ExitCode::FAILURE;
    };
    let start = Instant::now();
    let mut file = match File::open(&path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut hasher = PackageHasher::new();
    let mut chunk = vec![0; 64 * 1024];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                if let Err(e) = hasher.update(&chunk[..n]) {
                    eprintln!("{path}: {e}");
                    return ExitCode::FAILURE;
                }
            }
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    match hasher.finish() {
        Ok(hashes) => {
            let elapsed = start.elapsed().as_secs_f64();
            println!(
                "rust\t{}\t{}\t{elapsed:.3} s\tVmHWM {}",
                hashes.h1(),
                hashes.zh(),
                vm_hwm()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::FAILURE
        }
    }
}
