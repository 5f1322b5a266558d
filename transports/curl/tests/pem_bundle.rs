//! The trust scenarios on libcurl given every anchor in one PEM bundle: the
//! way the curl transport falls back to when libcurl's TLS library is not
//! the OpenSSL it links (another TLS library, another OpenSSL version, a
//! second copy of OpenSSL in the program), forced here on a libcurl that
//! could take the issuer search. The same trusted set either way (NET-5).

use tfdisco_curl::tfdisco_core::bytes::Bytes;
use tfdisco_curl::tfdisco_core::http::Request;
use tfdisco_curl::{
    Blocking, BlockingTransport, BuildError, Exchange, FromSettings, Http, Settings,
};
use tfdisco_testkit::suite::{Subject, trust};

/// The curl transport, given a PEM bundle.
struct Bundled(Http);

impl FromSettings for Bundled {
    fn from_settings(settings: Settings) -> Result<Self, BuildError> {
        Http::from_settings_with_pem_bundle(settings).map(Bundled)
    }
}

impl BlockingTransport for Bundled {
    fn perform(&self, request: Request<Bytes>, exchange: &mut Exchange<'_>) {
        self.0.perform(request, exchange);
    }
}

struct CurlBundle;

impl Subject for CurlBundle {
    const NAME: &'static str = "curl (PEM bundle)";
    type Transport = Blocking<Bundled>;
    type Waiting = Blocking<Bundled>;
}

#[test]
fn ssl_cert_file_from_environment() {
    trust::ssl_cert_file_from_environment::<CurlBundle>();
}

#[test]
fn ssl_cert_dir_with_ssl_cert_file() {
    trust::ssl_cert_dir_with_ssl_cert_file::<CurlBundle>();
}

#[test]
fn ca_certificate_file() {
    trust::ca_certificate_file::<CurlBundle>();
}

#[test]
fn chain_root_only_in_a_hashed_directory() {
    trust::chain_root_only_in_a_hashed_directory::<CurlBundle>();
}

#[test]
fn chain_root_only_in_the_bundle() {
    trust::chain_root_only_in_the_bundle::<CurlBundle>();
}

#[test]
fn a_rekeyed_root_shares_its_subject_across_directory_and_bundle() {
    trust::a_rekeyed_root_shares_its_subject_across_directory_and_bundle::<CurlBundle>();
}

#[test]
fn a_callers_ca_shares_a_system_roots_subject() {
    trust::a_callers_ca_shares_a_system_roots_subject::<CurlBundle>();
}

#[test]
fn first_handshakes_on_eight_threads() {
    trust::first_handshakes_on_eight_threads::<CurlBundle>();
}

/// Every trust scenario of the suite runs here too.
#[test]
fn every_trust_scenario_runs_here() {
    let here: Vec<&str> = include_str!("pem_bundle.rs")
        .lines()
        .filter_map(|line| line.trim().strip_prefix("trust::"))
        .filter_map(|call| call.split_once("::<CurlBundle>"))
        .map(|(name, _)| name)
        .collect();
    let suite: Vec<&str> = tfdisco_testkit::suite::SCENARIOS
        .iter()
        .filter_map(|scenario| scenario.strip_prefix("trust::"))
        .collect();
    assert_eq!(here, suite);
}
