//! The shared conformance suite, on libcurl (blocking).

tfdisco_testkit::conformance_suite!(Curl, "curl", tfdisco_curl::Blocking<tfdisco_curl::Http>);
