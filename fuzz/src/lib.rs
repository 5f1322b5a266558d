//! What the fuzz targets share.

use tfdisco_core::Dialect;

/// The dialect the lowest bit of a target's selector byte picks: OpenTofu
/// when clear, Terraform when set.
pub fn dialect(selector: u8) -> Dialect {
    if selector & 1 == 0 {
        Dialect::OpenTofu
    } else {
        Dialect::Terraform
    }
}
