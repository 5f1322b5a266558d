//! The shared conformance suite, under async-std's executor.

tfdisco_testkit::conformance_suite!(AsyncStd, "async-std", tfdisco_async_std::Client, |call| {
    async_std::task::block_on(call)
});
