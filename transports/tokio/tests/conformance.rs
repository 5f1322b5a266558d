//! The shared conformance suite, on tokio: each scenario's blocking client
//! runs the async client on the transport's own current-thread runtime.

tfdisco_testkit::conformance_suite!(Tokio, "tokio", tfdisco_tokio::Http);
