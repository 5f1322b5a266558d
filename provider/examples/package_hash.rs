//! Prints the lock file hashes of provider package archives, read in 64 KiB
//! chunks as a download would feed them:
//!
//! ```text
//! cargo run -p tfdisco-provider --example package_hash -- terraform-provider-x_1.0.0_linux_amd64.zip
//! terraform-provider-x_1.0.0_linux_amd64.zip  h1:…=  zh:…
//! ```
//!
//! A file that cannot be hashed prints `ERROR <kind>: <message>` instead,
//! and the exit status is 1.

use std::fs::File;
use std::process::ExitCode;

use tfdisco_provider::{PackageReadError, hash_package_reader};

fn main() -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for path in std::env::args().skip(1) {
        let hashed = File::open(&path)
            .map_err(PackageReadError::Read)
            .and_then(hash_package_reader);
        match hashed {
            Ok(hashes) => println!("{path}  {}  {}", hashes.h1(), hashes.zh()),
            Err(error) => {
                status = ExitCode::FAILURE;
                match error {
                    PackageReadError::Package(hash) => {
                        println!("{path}  ERROR {}: {hash}", hash.kind())
                    }
                    PackageReadError::Read(io) => println!("{path}  ERROR io: {io}"),
                }
            }
        }
    }
    status
}
