//! Loopback HTTPS discovery servers for tests and development: a scripted
//! scenario server, a CONNECT proxy, test and development PKIs, and the one
//! conformance suite every tfdisco transport runs unchanged. `tfdisco-dev serve`
//! and `tfdisco-dev demo` run on it too.
//!
//! A transport's test file expands [`conformance_suite!`] with its
//! [`Transport`](tfdisco_transport::Transport) type, which defines one
//! `#[test]` per scenario in [`suite::SCENARIOS`], each driving a
//! [`BlockingClient`](tfdisco_transport::BlockingClient) over it.
//!
//! ```no_run
//! use tfdisco_testkit::{Reply, TestServer};
//!
//! let server = TestServer::start();
//! server.route("/.well-known/terraform.json", Reply::json(r#"{"modules.v1": "/m/"}"#));
//! // … discover `server.host()` with a client trusting `tfdisco_testkit::pki().ca_pem()` …
//! assert_eq!(server.requests().len(), 1);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod any_registry;
mod background;
pub mod generator;
#[cfg(unix)]
pub mod git_http;
mod golden_files;
#[cfg(unix)]
pub mod install_goldens;
pub mod lock_goldens;
pub mod login_goldens;
pub mod mirror_goldens;
#[cfg(unix)]
pub mod module_goldens;
#[cfg(unix)]
pub mod module_lock_goldens;
pub mod oauth_server;
pub mod oci_registry;
mod pki;
pub mod program;
mod proxy;
pub mod real_configurations;
mod reply;
mod routes;
pub mod sample;
mod server;
pub mod signed_registry;
#[cfg(unix)]
pub mod ssh_server;
pub mod suite;
pub mod terraform;
mod trace;
mod zip_one;

pub use pki::{
    CHAIN_NAMES, Cert, Chain, DevPki, LEAF_NAMES, Pki, WRONG_NAME, chain, dev_pki, pki,
    server_config_from_pem,
};
pub use proxy::{TestProxy, Tunnel};
pub use reply::Reply;
pub use server::{NetworkShape, Seen, TestServer};
pub use suite::Subject;
pub use trace::{Traces, traces};

#[doc(hidden)]
pub use {tfdisco_core as __core, tfdisco_transport as __transport};
