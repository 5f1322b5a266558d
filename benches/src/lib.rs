//! Fixtures and baselines shared by the criterion benchmarks in `benches/`,
//! the `paired` tool and the peak-memory test: deterministic hostname
//! corpora, discovery documents of chosen sizes, a driver that runs a
//! [`Discovery`] against canned responses, and the in-run baselines the speed
//! targets are ratios to; and the load test ([`load`]), used by the
//! `load` binary and `tests/load.rs`. `benches/README.md` has the commands
//! and figures. [`registry`] is the signed registry of large packages
//! the install benchmark (`install-bench`) serves; the OCI
//! benchmark (`oci-bench`) also pushes its packages to a `docker-registry`
//! and reads that registry's log with [`registry_log`];
//! [`module_registry`] is the module registry of the module benchmark
//! (`get-bench`) and its network floor. All three time processes with
//! [`process_runs`].
//!
//! Everything here is deterministic, so two runs measure the same work (but
//! for the registry's signing key and signatures, made by GnuPG per run).
//!
//! [`Discovery`]: tfdisco_core::Discovery

pub mod baselines;
pub mod canned;
pub mod documents;
pub mod hostnames;
pub mod load;
pub mod module_registry;
pub mod process_runs;
pub mod registry;
pub mod registry_log;
mod rng;
