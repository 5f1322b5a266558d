//! The shared conformance suite, under smol's executor (`smol::block_on` is
//! `async_io::block_on`).

tfdisco_testkit::conformance_suite!(Smol, "smol", tfdisco_async_std::Client, |call| {
    async_io::block_on(call)
});
