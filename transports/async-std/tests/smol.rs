//! The shared conformance suite, under smol's executor: the transport's own
//! `block_on` is `async_io::block_on`, which `smol::block_on` is.

tfdisco_testkit::conformance_suite!(Smol, "smol", tfdisco_async_std::Http);
