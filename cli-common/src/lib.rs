//! What the `tfdisco` command-line tool and the development server
//! `tfdisco-dev` share: a command's failure and its exit code, the client
//! over a chosen transport, the table of services shown to people, and
//! what `-v` shows.

#![forbid(unsafe_code)]

/// The exit codes: the runs' one table.
pub use tfdisco_runs::exit;

pub mod client;
pub mod failure;
pub mod report;
pub mod verbose;
