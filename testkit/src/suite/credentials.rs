//! Credentials: sent to the host, kept or dropped on redirects by D4, a
//! failing source, aliases.

#![allow(missing_docs)]

use std::net::SocketAddr;

use tfdisco_config::CliConfig;
use tfdisco_core::{
    Credentials, CredentialsError, CredentialsSource, Env, Hostname, StaticCredentials,
};
use tfdisco_transport::Event;

use super::{
    Builder, Subject, TOKEN_PREFIX, WELL_KNOWN, assert_paths, bearer, build, builder, hostname,
    service_url, services, token,
};

use crate::{Reply, TestServer};

/// `host` on `port` connects to the test server's loopback port.
fn resolving<T: Subject>(builder: Builder<T>, names: &[&str], ports: &[u16]) -> Builder<T> {
    let mut builder = builder;
    for name in names {
        for port in ports {
            builder = builder.resolve(name, SocketAddr::from(([127, 0, 0, 1], *port)));
        }
    }
    builder
}

pub fn sends_credentials_and_user_agent<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let client = build::<T>(
        builder::<T>()
            .credentials(StaticCredentials::new().with(server.host(), token("plain")))
            .user_agent("tfdisco-suite/1.0"),
    );
    services::<T>(client.discover(&server.host()));
    let seen = server.requests();
    assert_eq!(seen.len(), 1, "{}", T::NAME);
    assert_eq!(seen[0].authorization(), Some(&*bearer("plain")));
    assert_eq!(seen[0].header("user-agent"), Some("tfdisco-suite/1.0"));
}

/// Same host other port (kept), subdomain (kept), other host (dropped), and
/// back again (still dropped).
pub fn credentials_follow_d4<T: Subject>() {
    let server = TestServer::start();
    let (p, other) = (server.port(), server.other_port());
    let host = hostname(&format!("example.test:{p}"));
    server
        .route(
            WELL_KNOWN,
            Reply::redirect(302, &format!("https://example.test:{other}/c1")),
        )
        .route(
            "/c1",
            Reply::redirect(302, &format!("https://registry.example.test:{p}/c2")),
        )
        .route(
            "/c2",
            Reply::redirect(302, &format!("https://other.test:{p}/c3")),
        )
        .route(
            "/c3",
            Reply::redirect(302, &format!("https://example.test:{p}/c4")),
        )
        .route("/c4", Reply::json(r#"{"modules.v1": "/m/"}"#));
    let client = build::<T>(
        resolving::<T>(
            builder::<T>(),
            &["example.test", "registry.example.test", "other.test"],
            &[p, other],
        )
        .max_redirects(4)
        .credentials(StaticCredentials::new().with(host.clone(), token("d4"))),
    );
    let s = services::<T>(client.discover(&host));
    assert_eq!(
        service_url(&s, "modules.v1"),
        format!("https://example.test:{p}/m/")
    );
    let seen = server.requests();
    let hosts: Vec<_> = seen
        .iter()
        .map(|r| r.host().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        hosts,
        [
            format!("example.test:{p}"),
            format!("example.test:{other}"),
            format!("registry.example.test:{p}"),
            format!("other.test:{p}"),
            format!("example.test:{p}"),
        ],
        "{}",
        T::NAME
    );
    let sent: Vec<_> = seen
        .iter()
        .map(|r| r.authorization().map(str::to_owned))
        .collect();
    let token = Some(bearer("d4"));
    assert_eq!(
        sent,
        [token.clone(), token.clone(), token, None, None],
        "{}",
        T::NAME
    );
}

pub fn credentials_not_sent_to_parent_domain<T: Subject>() {
    let server = TestServer::start();
    let p = server.port();
    let host = hostname(&format!("registry.example.test:{p}"));
    server
        .route(
            WELL_KNOWN,
            Reply::redirect(301, &format!("https://example.test:{p}/parent")),
        )
        .route("/parent", Reply::json("{}"));
    let client = build::<T>(
        resolving::<T>(
            builder::<T>(),
            &["example.test", "registry.example.test"],
            &[p],
        )
        .credentials(StaticCredentials::new().with(host.clone(), token("child"))),
    );
    services::<T>(client.discover(&host));
    let sent: Vec<_> = server
        .requests()
        .iter()
        .map(|r| r.authorization().map(str::to_owned))
        .collect();
    assert_eq!(sent, [Some(bearer("child")), None], "{}", T::NAME);
}

/// A credentials source that always fails, as a broken helper does.
pub(crate) struct FailingSource;

impl CredentialsSource for FailingSource {
    fn credentials(&self, _: &Hostname) -> Result<Option<Credentials>, CredentialsError> {
        Err("the credentials helper exited with status 1".into())
    }
}

pub fn failing_credentials_source_means_anonymous<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json("{}"));
    let client = build::<T>(builder::<T>().credentials(FailingSource));
    let mut failures = Vec::new();
    let mut observer = |event: &Event<'_>| {
        if let Event::CredentialsFailed { host, error } = event {
            failures.push(format!("{host}: {error}"));
        }
    };
    let host = server.host();
    services::<T>(client.wait(client.as_async().discover(&host).observe(&mut observer)));
    let seen = server.requests();
    assert_eq!(seen.len(), 1, "{}", T::NAME);
    assert_eq!(seen[0].authorization(), None);
    assert_eq!(
        failures,
        [format!(
            "{}: the credentials helper exited with status 1",
            server.host()
        )],
        "{}: the observer hears of the failure",
        T::NAME
    );
}

/// An alias fetches the target's document with the target's credentials and
/// is cached under the alias; the target is a separate entry.
pub fn alias_uses_target_document_and_credentials<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/m/"}"#));
    let alias = hostname("alias.test");
    let client = build::<T>(
        builder::<T>().credentials(
            StaticCredentials::new()
                .with(server.host(), token("target"))
                .with(alias.clone(), token("alias")),
        ),
    );
    client.cache().alias(alias.clone(), server.host());
    let s = services::<T>(client.discover(&alias));
    assert_eq!(service_url(&s, "modules.v1"), server.url("/m/"));
    assert_eq!(
        server.requests()[0].authorization(),
        Some(&*bearer("target"))
    );
    assert!(client.cache().cached(&alias).is_some());
    assert!(client.cache().cached(&server.host()).is_none());
    services::<T>(client.discover(&alias));
    assert_paths::<T>(&server, &[WELL_KNOWN]);
    services::<T>(client.discover(&server.host()));
    assert_paths::<T>(&server, &[WELL_KNOWN, WELL_KNOWN]);
}

/// `cli_config` applies a CLI configuration: its `credentials` block, its
/// `host` blocks (never discovered) and `TF_APPEND_USER_AGENT`.
pub fn cli_config_gives_credentials_host_blocks_and_user_agent<T: Subject>() {
    let server = TestServer::start();
    server.route(WELL_KNOWN, Reply::json(r#"{"modules.v1": "/m/"}"#));
    let text = format!(
        r#"
        credentials "{host}" {{
          token = "{TOKEN_PREFIX}from-config"
        }}
        host "forced.test" {{
          services = {{
            "modules.v1" = "https://modules.forced.test/v1/"
          }}
        }}
        "#,
        host = server.host().display(),
    );
    let cli = CliConfig::from_sources([("/home/me/.tofurc", text)]);
    assert!(cli.diagnostics().is_empty(), "{:?}", cli.diagnostics());
    let env = Env::empty().with_var("TF_APPEND_USER_AGENT", " ci-runner/7 ");
    let client = build::<T>(builder::<T>().cli_config(&cli).environment(env));
    services::<T>(client.discover(&server.host()));
    let forced = services::<T>(client.discover(&hostname("forced.test")));
    assert!(forced.is_forced(), "{}", T::NAME);
    assert_eq!(
        service_url(&forced, "modules.v1"),
        "https://modules.forced.test/v1/"
    );
    let seen = server.requests();
    assert_eq!(
        seen.len(),
        1,
        "{}: the forced host is not discovered",
        T::NAME
    );
    assert_eq!(
        seen[0].authorization(),
        Some(bearer("from-config").as_str()),
        "{}",
        T::NAME
    );
    assert_eq!(
        seen[0].header("user-agent"),
        Some("OpenTofu/1.12.6 ci-runner/7"),
        "{}",
        T::NAME
    );
}
