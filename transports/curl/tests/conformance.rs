//! The shared conformance suite, on libcurl (blocking).

tfdisco_testkit::conformance_suite!(Curl, "curl", tfdisco_curl::Client, |call| call);
