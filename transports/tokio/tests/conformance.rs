//! The shared conformance suite, on tokio.

use std::sync::LazyLock;

use tokio::runtime::Runtime;

/// One multi-threaded runtime for every test; each test blocks on it from
/// its own thread (several at once in the coalescing scenarios).
static RUNTIME: LazyLock<Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
});

tfdisco_testkit::conformance_suite!(Tokio, "tokio", tfdisco_tokio::Client, |call| RUNTIME
    .block_on(call));
