//! The conformance suite: every scenario, written once against a
//! [`Subject`], run by every transport through [`crate::conformance_suite!`].
//!
//! Each scenario starts its own [`TestServer`] (and proxy, if it needs one),
//! builds a client, and asserts both the result and what the servers saw.
//! Success paths get a generous deadline; stall scenarios configure a short
//! one, so nothing depends on timing luck and nothing waits for 11 s.

// The scenario modules allow missing docs: each scenario's name says what
// it checks; its body is the specification.
pub mod cache;
pub mod client;
pub mod credentials;
pub mod documents;
#[cfg(unix)]
pub mod install;
pub mod limits;
pub mod lock;
pub mod mirror;
pub mod network;
#[cfg(unix)]
pub mod oci;
#[cfg(unix)]
pub mod oci_modules;
#[cfg(unix)]
pub mod oci_push;
pub mod redirects;
pub mod registry_api;
pub mod retries;
pub mod trust;
pub mod upload;

use std::time::Duration;

use tfdisco_core::{
    Credentials, DISCOVERY_PATH, Env, Error, ErrorKind, Hostname, Services, TransportErrorKind,
};
use tfdisco_transport::{
    BlockingClient, ClientBuilder, Event, ExchangeReport, FromSettings, Transport,
};

use crate::{TestServer, pki};

/// A transport the suite runs against: its name, for failure messages, and
/// its [`Transport`]. Every scenario drives it through a [`BlockingClient`],
/// which runs the same async client code every client of that transport
/// runs.
pub trait Subject: 'static {
    /// Shown in failure messages.
    const NAME: &'static str;
    /// The transport.
    type Transport: Transport + FromSettings;
    /// The transport of the scenarios that wait with nothing in flight
    /// (the retries): the same transport on a clock the test can stop, where
    /// its runtime has one (tokio's paused clock), so that waits take no
    /// real time; else [`Subject::Transport`] itself. Its exchanges still
    /// run on real sockets.
    type Waiting: Transport + FromSettings;
}

/// The client every scenario uses.
pub type Client<T> = BlockingClient<<T as Subject>::Transport>;

/// The client builder of `T`.
pub type Builder<T> = ClientBuilder<Client<T>>;

/// The client of the scenarios that wait ([`Subject::Waiting`]).
pub type WaitingClient<T> = BlockingClient<<T as Subject>::Waiting>;

/// The discovery path.
pub const WELL_KNOWN: &str = DISCOVERY_PATH;

/// The deadline for scenarios that should succeed: long enough for any
/// loaded machine, short enough that a hang fails the test.
pub const GENEROUS: Duration = Duration::from_secs(20);

/// The deadline for scenarios where the server stalls.
pub const SHORT: Duration = Duration::from_millis(600);

/// A builder that trusts only the test CA, reads no environment and allows
/// [`GENEROUS`] time.
pub fn builder<T: Subject>() -> Builder<T> {
    test_builder()
}

/// [`builder`], for the client of the scenarios that wait.
pub fn waiting_builder<T: Subject>() -> ClientBuilder<WaitingClient<T>> {
    test_builder()
}

fn test_builder<C: FromSettings>() -> ClientBuilder<C> {
    ClientBuilder::new()
        .system_roots(false)
        .add_root_certificate_pem(pki().ca_pem())
        .environment(Env::empty())
        .timeout(GENEROUS)
}

/// Builds the client or fails the test.
pub fn build<T: Subject>(builder: Builder<T>) -> Client<T> {
    built::<T, _>(builder)
}

/// [`build`], for the client of the scenarios that wait.
pub fn build_waiting<T: Subject>(builder: ClientBuilder<WaitingClient<T>>) -> WaitingClient<T> {
    built::<T, _>(builder)
}

fn built<T: Subject, C: FromSettings>(builder: ClientBuilder<C>) -> C {
    match builder.build() {
        Ok(client) => client,
        Err(e) => panic!("{}: the client does not build: {e}", T::NAME),
    }
}

/// The services, or a failed test naming the transport.
#[track_caller]
pub fn services<T: Subject>(result: Result<Services, Error>) -> Services {
    match result {
        Ok(services) => services,
        Err(e) => panic!("{}: expected services, got error: {e} ({e:?})", T::NAME),
    }
}

/// The error, which must be of `kind`, or a failed test.
#[track_caller]
pub fn error<T: Subject>(result: Result<Services, Error>, kind: ErrorKind) -> Error {
    match result {
        Ok(services) => panic!("{}: expected a {kind} error, got {services:?}", T::NAME),
        Err(e) if e.kind() == kind => e,
        Err(e) => panic!("{}: expected a {kind} error, got {e} ({e:?})", T::NAME),
    }
}

/// The class of a transport failure.
#[track_caller]
pub fn transport_kind<T: Subject>(e: &Error) -> TransportErrorKind {
    match e {
        Error::Transport { error, .. } => error.kind(),
        other => panic!("{}: expected a transport error, got {other}", T::NAME),
    }
}

/// `name.vN`'s URL as text.
#[track_caller]
pub fn service_url(services: &Services, id: &str) -> String {
    match services.service_url(id) {
        Ok(url) => url.into(),
        Err(e) => panic!("no URL for {id}: {e}"),
    }
}

/// A hostname the test gives.
pub fn hostname(s: &str) -> Hostname {
    Hostname::parse(s).expect("a valid test hostname")
}

/// Every test token starts with this, so traces can be searched for leaks.
pub const TOKEN_PREFIX: &str = "tfdisco-test-token-";

/// Token credentials `tfdisco-test-token-<name>`.
pub fn token(name: &str) -> Credentials {
    Credentials::token(&format!("{TOKEN_PREFIX}{name}")).expect("a valid token")
}

/// The `Authorization` value of [`token`].
pub fn bearer(name: &str) -> String {
    format!("Bearer {TOKEN_PREFIX}{name}")
}

/// An observer that keeps every exchange report.
pub fn record(reports: &mut Vec<ExchangeReport>) -> impl FnMut(&Event<'_>) + Send + '_ {
    |event| {
        if let Event::Exchange(report) = event {
            reports.push((*report).clone());
        }
    }
}

/// Runs the suite for a transport: one `#[test]` per scenario.
///
/// Name the subject, its label and its [`Transport`] type, and optionally
/// the transport on a clock the tests can stop ([`Subject::Waiting`]):
///
/// ```ignore
/// tfdisco_testkit::conformance_suite!(Curl, "curl", tfdisco_curl::Blocking<tfdisco_curl::Http>);
/// tfdisco_testkit::conformance_suite!(Tokio, "tokio", tfdisco_tokio::Http, waiting: Paused);
/// ```
///
/// Or implement [`Subject`] yourself and write
/// `tfdisco_testkit::conformance_suite!(MySubject);`.
#[macro_export]
macro_rules! conformance_suite {
    ($name:ident, $label:literal, $transport:ty) => {
        $crate::conformance_suite!($name, $label, $transport, waiting: $transport);
    };
    ($name:ident, $label:literal, $transport:ty, waiting: $waiting:ty) => {
        struct $name;

        impl $crate::suite::Subject for $name {
            const NAME: &'static str = $label;
            type Transport = $transport;
            type Waiting = $waiting;
        }

        $crate::conformance_suite!($name);
    };
    ($subject:ty) => {
        $crate::__with_scenarios!(__scenario_tests!($subject));
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __scenario_tests {
    (($subject:ty) $($module:ident :: $name:ident,)*) => {
        $(
            #[test]
            fn $name() {
                $crate::suite::$module::$name::<$subject>();
            }
        )*
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __scenario_names {
    (() $($module:ident :: $name:ident,)*) => {
        &[$(concat!(stringify!($module), "::", stringify!($name))),*]
    };
}

/// The one list of scenarios.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_scenarios {
    ($callback:ident ! ($($args:tt)*)) => {
        $crate::$callback! {
            ($($args)*)
            documents::discovers_absolute_urls,
            documents::resolves_relative_urls,
            documents::keeps_query_drops_fragment,
            documents::accepts_charset_parameter,
            documents::accepts_upper_case_media_type,
            documents::rejects_missing_content_type,
            documents::rejects_malformed_content_type,
            documents::rejects_unsupported_content_type,
            documents::not_found_means_no_services,
            documents::null_means_no_services,
            documents::empty_object_has_no_services,
            documents::status_500_is_an_error,
            documents::status_204_is_an_error,
            documents::invalid_utf8_is_replaced,
            documents::byte_order_mark_is_an_error,
            documents::duplicate_keys_keep_the_last,
            documents::deep_nesting_is_an_error,
            documents::nesting_as_deep_as_go_accepts,
            documents::large_response_header_is_fine,
            documents::gzip_document_is_decoded,
            documents::gzip_bomb_stops_at_the_limit,
            documents::unsupported_content_encoding_is_named,
            documents::numbers_go_cannot_hold_are_refused,
            redirects::redirect_301,
            redirects::redirect_302,
            redirects::redirect_303,
            redirects::redirect_307,
            redirects::redirect_308,
            redirects::redirect_to_other_port,
            redirects::redirect_to_other_host,
            redirects::redirect_without_location,
            redirects::redirect_with_garbage_location,
            redirects::redirect_chain_at_the_limit,
            redirects::redirect_loop_past_the_limit,
            redirects::https_to_http_is_refused,
            redirects::https_to_http_for_a_development_host,
            redirects::plain_http_development_host,
            credentials::sends_credentials_and_user_agent,
            credentials::credentials_follow_d4,
            credentials::credentials_not_sent_to_parent_domain,
            credentials::failing_credentials_source_means_anonymous,
            credentials::alias_uses_target_document_and_credentials,
            credentials::cli_config_gives_credentials_host_blocks_and_user_agent,
            limits::declared_body_over_the_limit,
            limits::chunked_body_over_the_limit,
            limits::declared_body_of_exactly_the_limit,
            limits::chunked_body_of_exactly_the_limit,
            limits::configured_body_limit,
            limits::stall_before_headers_times_out,
            limits::dripping_body_times_out,
            limits::slow_server_within_the_deadline,
            network::connection_reset_mid_body,
            network::connection_refused,
            network::untrusted_certificate,
            network::wrong_name_certificate,
            network::proxy_tunnel,
            network::proxy_from_environment,
            network::no_proxy_from_environment,
            network::loopback_is_never_proxied,
            network::proxy_refuses_the_tunnel,
            retries::status_503_twice_then_the_document,
            retries::a_reset_twice_then_the_document,
            retries::status_429_with_retry_after_then_the_document,
            retries::status_500_forever_is_four_requests,
            retries::status_501_is_not_retried,
            retries::a_retry_cut_short_by_the_deadline,
            cache::cache_hit_makes_no_request,
            cache::errors_are_not_cached,
            cache::forget_and_forget_all,
            cache::forced_services_make_no_request,
            cache::forget_alias,
            cache::service_url_through_the_client,
            cache::concurrent_discoveries_share_one_request,
            cache::concurrent_failure_is_shared_not_cached,
            registry_api::sample_registry_from_source_to_package,
            registry_api::registry_api_on_another_https_host_gets_the_token,
            registry_api::registry_api_on_plain_http_gets_no_token,
            registry_api::redirect_inside_the_registry_api,
            registry_api::registry_not_found_and_not_a_registry,
            registry_api::registry_calls_tell_their_observer,
            registry_api::registry_requests_as_terraform_makes_them,
            registry_api::registry_headers_as_opentofu_sends_them,
            registry_api::registry_answers_of_any_content_type,
            registry_api::a_failed_handshake_is_retried_a_refused_certificate_is_not,
            registry_api::a_location_init_would_refuse_is_an_error,
            registry_api::a_download_streams_into_its_sink,
            install::install_goldens,
            lock::lock_files_as_terraform_writes_them,
            lock::refused_locks_leave_the_file_as_it_was,
            lock::each_file_is_fetched_once,
            lock::a_network_mirror_serves_a_host_with_a_port,
            mirror::mirror_folders_as_terraform_writes_them,
            mirror::a_failed_mirror_leaves_the_folder_as_it_was,
            upload::a_write_sends_its_method_and_body,
            upload::a_307_sends_the_write_again_a_303_makes_a_get,
            upload::a_head_reads_no_body,
            oci_push::oci_push_then_lock_with_basic,
            oci_push::oci_push_then_lock_with_tokens,
            oci::oci_a_provider_read_anonymously,
            oci::oci_a_spoiled_layer_fails_its_checksum,
            oci::oci_basic_credentials_are_sent_once_asked_for,
            oci::oci_the_token_handshake_asks_once_per_repository,
            oci::oci_what_is_not_there_is_not_found,
            oci::oci_lock_from_a_mirror_as_terraform_locks_from_the_registry,
            oci::oci_install_from_an_oci_mirror,
            oci_modules::oci_module_resolve_a_tag_to_its_manifest_digest,
            oci_modules::oci_module_download_by_tag_and_by_digest,
            oci_modules::oci_module_refusals_leave_nothing_behind,
            client::user_agent_and_dialect,
            trust::ssl_cert_file_from_environment,
            trust::ssl_cert_dir_with_ssl_cert_file,
            trust::ca_certificate_file,
            trust::chain_root_only_in_a_hashed_directory,
            trust::chain_root_only_in_the_bundle,
            trust::a_rekeyed_root_shares_its_subject_across_directory_and_bundle,
            trust::a_callers_ca_shares_a_system_roots_subject,
            trust::first_handshakes_on_eight_threads,
            client::observer_sees_each_exchange,
            client::connections_are_reused,
            client::new_connection_per_request_without_reuse,
            client::traces_never_show_the_token,
        }
    };
}

/// Every scenario, as `module::name`.
pub const SCENARIOS: &[&str] = crate::__with_scenarios!(__scenario_names!());

/// The server saw exactly these paths.
#[track_caller]
pub fn assert_paths<T: Subject>(server: &TestServer, expected: &[&str]) {
    let paths = server.paths();
    assert_eq!(paths, expected, "{}: the requests the server saw", T::NAME);
}

#[cfg(test)]
mod tests {
    /// Every `pub fn name<T: Subject>()` in a scenario module is listed
    /// once in the macro, so no transport skips one.
    #[test]
    fn every_scenario_is_listed_once() {
        let sources = [
            ("client", include_str!("suite/client.rs")),
            ("credentials", include_str!("suite/credentials.rs")),
            ("documents", include_str!("suite/documents.rs")),
            ("install", include_str!("suite/install.rs")),
            ("limits", include_str!("suite/limits.rs")),
            ("lock", include_str!("suite/lock.rs")),
            ("mirror", include_str!("suite/mirror.rs")),
            ("network", include_str!("suite/network.rs")),
            ("oci", include_str!("suite/oci.rs")),
            ("oci_push", include_str!("suite/oci_push.rs")),
            ("oci_modules", include_str!("suite/oci_modules.rs")),
            ("redirects", include_str!("suite/redirects.rs")),
            ("cache", include_str!("suite/cache.rs")),
            ("registry_api", include_str!("suite/registry_api.rs")),
            ("retries", include_str!("suite/retries.rs")),
            ("trust", include_str!("suite/trust.rs")),
            ("upload", include_str!("suite/upload.rs")),
        ];
        let mut defined = Vec::new();
        for (module, source) in sources {
            for line in source.lines() {
                if let Some(rest) = line.strip_prefix("pub fn ")
                    && let Some((name, _)) = rest.split_once("<T: Subject>()")
                {
                    defined.push(format!("{module}::{name}"));
                }
            }
        }
        let mut listed: Vec<String> = super::SCENARIOS.iter().map(|s| s.to_string()).collect();
        defined.sort();
        listed.sort();
        assert_eq!(defined, listed);
    }
}
