//! The exit codes of `tfdisco`.

use std::process::ExitCode;

/// Everything worked.
pub(crate) const SUCCESS: u8 = 0;
/// Discovery failed: network, TLS, status, content type, JSON, size,
/// redirects, timeout.
pub(crate) const DISCOVERY_FAILED: u8 = 1;
/// Bad usage, or an invalid hostname or service id.
pub(crate) const USAGE: u8 = 2;

pub(crate) fn code(n: u8) -> ExitCode {
    ExitCode::from(n)
}
