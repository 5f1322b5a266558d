//! The native part of the `tfdisco` npm package: napi-rs bindings of the
//! tfdisco crates over the tokio transport. The package's JavaScript
//! (`index.js`, `lib/`) adds the error classes, argument checks and the
//! JavaScript protocols (`util.inspect`, `toJSON`, iteration).

mod client;
mod credentials_store;
mod errors;
mod hostname;
mod install;
mod installation;
mod lock;
mod modules;
mod oci_push;
mod options;
mod package_hash;
mod promise;
mod report;
mod services;

/// The package's version, as Cargo.toml and package.json give it.
#[napi_derive::napi(js_name = "_version")]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
