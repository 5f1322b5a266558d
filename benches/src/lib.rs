//! Fixtures shared by the criterion benchmarks in `benches/` and the
//! peak-memory test: deterministic hostname corpora, discovery documents of
//! chosen sizes, and a driver that runs a [`Discovery`] against canned
//! responses.
//!
//! Everything here is deterministic, so two runs measure the same work.
//!
//! [`Discovery`]: tfdisco_core::Discovery

pub mod baselines;
pub mod canned;
pub mod documents;
pub mod hostnames;
mod rng;
