//! Properties of the public types that users rely on without thinking.

use tfdisco_core::{
    Action, Config, Credentials, Discovery, DiscoveryCache, Error, Hostname, OAuthClient,
    ServiceId, Services, TransportError,
};

fn send_sync<T: Send + Sync>() {}

#[test]
fn public_types_cross_threads() {
    send_sync::<Hostname>();
    send_sync::<Config>();
    send_sync::<Credentials>();
    send_sync::<Discovery>();
    send_sync::<Action<Services>>();
    send_sync::<Services>();
    send_sync::<OAuthClient>();
    send_sync::<ServiceId>();
    send_sync::<DiscoveryCache>();
    send_sync::<Error>();
    send_sync::<TransportError>();
}

#[test]
fn small_enough_to_pass_around() {
    use std::mem::size_of;
    // Hostnames are map keys and live inline up to 62 bytes.
    assert!(size_of::<Hostname>() <= 64, "{}", size_of::<Hostname>());
    // Below clippy's `result_large_err` threshold, so users' own functions
    // returning `Result<_, tfdisco_core::Error>` stay lint-clean.
    assert!(size_of::<Error>() < 128, "{}", size_of::<Error>());
    assert_eq!(size_of::<Services>(), size_of::<usize>());
}

#[test]
fn hostname_errors_convert_into_the_error_type() {
    fn parse() -> Result<Hostname, Error> {
        Ok(Hostname::parse("a..b")?)
    }
    let e = parse().expect_err("invalid");
    assert_eq!(e.kind(), tfdisco_core::ErrorKind::InvalidHostname);
    assert!(e.is_caller_error());
    // The message names the input, as the README promises.
    assert_eq!(
        e.to_string(),
        r#"invalid hostname "a..b": hostname contains empty label (two consecutive periods)"#
    );
    let underscore: Result<Hostname, Error> = Hostname::parse("foo_bar").map_err(Error::from);
    assert_eq!(
        underscore.expect_err("invalid").to_string(),
        r#"invalid hostname "foo_bar": idna: disallowed rune U+005F"#
    );
}

#[test]
fn errors_work_with_question_mark_into_box_dyn_error() {
    fn parse() -> Result<Hostname, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Hostname::parse("a..b")?)
    }
    let e = parse().expect_err("invalid");
    assert!(e.to_string().contains(r#""a..b""#), "{e}");
}
