//! Which environment a client built with `ClientBuilder::cli_config` reads
//! (docs/behaviour.md, CFG-10): the one the configuration was loaded with,
//! unless `environment` gives another, which must then agree with it on the
//! variables the configuration's application reads.

#![cfg(feature = "cli-config")]

use tfdisco_config::{CliConfig, Dialect, Env};
use tfdisco_core::http::Uri;
use tfdisco_core::{Credentials, CredentialsSource, Hostname, StaticCredentials};
use tfdisco_transport::{BuildError, ClientBuilder, Settings};

const TOKEN: &str = "s3cret-from-the-load-env";

/// An environment without a home directory (no file is read) holding a
/// token for `example.com`, a User-Agent suffix and a proxy.
fn load_env() -> Env {
    Env::empty()
        .with_var("TF_TOKEN_example_com", TOKEN)
        .with_var("TF_APPEND_USER_AGENT", "my-tool/1.0")
        .with_var("HTTPS_PROXY", "http://proxy.example.net:3128")
}

fn host(name: &str) -> Hostname {
    Hostname::parse(name).expect("a valid hostname")
}

/// The token the settings' credentials source gives `name`, if any.
fn token_for(settings: &Settings, name: &str) -> Option<String> {
    settings
        .credentials()
        .credentials(&host(name))
        .expect("the source does not fail")
        .map(|c| c.expose_token().to_owned())
}

/// The proxy host an https request to `example.com` goes through, if any.
fn proxy_host(settings: &Settings) -> Option<String> {
    let uri: Uri = "https://example.com/.well-known/terraform.json"
        .parse()
        .expect("a valid URI");
    let route = settings.route(&uri).expect("a route");
    route.proxy.map(|p| p.host().to_owned())
}

#[test]
fn the_load_environment_is_the_one_the_client_reads() {
    let cli = CliConfig::load(Dialect::OpenTofu, &load_env());
    let settings: Settings = ClientBuilder::new()
        .cli_config(&cli)
        .build()
        .expect("builds");
    assert_eq!(token_for(&settings, "example.com").as_deref(), Some(TOKEN));
    assert_eq!(token_for(&settings, "example.net"), None);
    assert_eq!(
        settings.config().user_agent(),
        "OpenTofu/1.12.6 my-tool/1.0"
    );
    assert_eq!(
        proxy_host(&settings).as_deref(),
        Some("proxy.example.net"),
        "proxies come from the load environment too"
    );
}

#[test]
fn the_same_environment_given_explicitly_works_in_either_order() {
    let cli = CliConfig::load(Dialect::OpenTofu, &load_env());
    let before: Settings = ClientBuilder::new()
        .environment(load_env())
        .cli_config(&cli)
        .build()
        .expect("builds");
    let after: Settings = ClientBuilder::new()
        .cli_config(&cli)
        .environment(load_env())
        .build()
        .expect("builds");
    for settings in [before, after] {
        assert_eq!(token_for(&settings, "example.com").as_deref(), Some(TOKEN));
        assert_eq!(
            settings.config().user_agent(),
            "OpenTofu/1.12.6 my-tool/1.0"
        );
    }
}

#[test]
fn an_explicit_environment_that_disagrees_is_refused_in_either_order() {
    let cli = CliConfig::load(Dialect::OpenTofu, &load_env());
    let other = Env::empty()
        .with_var("TF_TOKEN_example_org", "another-token")
        .with_var("TF_APPEND_USER_AGENT", "other-tool/2.0");
    let results = [
        ClientBuilder::<Settings>::new()
            .cli_config(&cli)
            .environment(other.clone())
            .build(),
        ClientBuilder::<Settings>::new()
            .environment(other)
            .cli_config(&cli)
            .build(),
    ];
    for result in results {
        let error = result.expect_err("two environments that disagree");
        assert!(
            matches!(&error, BuildError::EnvironmentMismatch { variables }
                if variables == &["TF_APPEND_USER_AGENT", "TF_TOKEN_example_com", "TF_TOKEN_example_org"]),
            "{error:?}"
        );
        let text = error.to_string();
        assert!(text.contains("TF_TOKEN_example_com"), "{text}");
        assert!(text.contains("TF_APPEND_USER_AGENT"), "{text}");
        assert!(!text.contains(TOKEN), "no token in {text}");
        assert!(!text.contains("another-token"), "no token in {text}");
        assert!(!format!("{error:?}").contains(TOKEN));
    }
}

#[test]
fn an_explicit_environment_may_differ_in_what_the_configuration_does_not_read() {
    let cli = CliConfig::load(Dialect::OpenTofu, &load_env());
    // The same token and suffix, another proxy: the explicit one is used.
    let explicit = Env::empty()
        .with_var("HTTPS_PROXY", "http://other-proxy.example.net:8080")
        .with_var("TF_APPEND_USER_AGENT", "  my-tool/1.0 ")
        .with_var("TF_TOKEN_EXAMPLE_COM", TOKEN);
    let settings: Settings = ClientBuilder::new()
        .cli_config(&cli)
        .environment(explicit)
        .build()
        .expect("they agree on the token and the User-Agent");
    assert_eq!(token_for(&settings, "example.com").as_deref(), Some(TOKEN));
    assert_eq!(
        settings.config().user_agent(),
        "OpenTofu/1.12.6 my-tool/1.0"
    );
    assert_eq!(
        proxy_host(&settings).as_deref(),
        Some("other-proxy.example.net")
    );
}

#[test]
fn with_a_credentials_source_of_its_own_only_the_user_agent_must_agree() {
    let cli = CliConfig::load(Dialect::OpenTofu, &load_env());
    let own = Credentials::token("mine").expect("a valid token");
    let settings: Settings = ClientBuilder::new()
        .cli_config(&cli)
        .credentials(StaticCredentials::new().with(host("example.com"), own))
        .environment(Env::empty().with_var("TF_APPEND_USER_AGENT", "my-tool/1.0"))
        .build()
        .expect("token variables are not read");
    assert_eq!(token_for(&settings, "example.com").as_deref(), Some("mine"));

    let error = ClientBuilder::<Settings>::new()
        .cli_config(&cli)
        .credentials(tfdisco_core::NoCredentials)
        .environment(Env::empty())
        .build()
        .expect_err("the User-Agent suffix differs");
    assert!(
        matches!(&error, BuildError::EnvironmentMismatch { variables }
            if variables == &["TF_APPEND_USER_AGENT"]),
        "{error:?}"
    );
}

#[test]
fn a_configuration_from_sources_reads_the_builder_environment() {
    let cli = CliConfig::from_sources([("/home/me/.tofurc", "")]);
    assert!(cli.env().is_none());
    let settings: Settings = ClientBuilder::new()
        .cli_config(&cli)
        .environment(load_env())
        .build()
        .expect("builds");
    assert_eq!(token_for(&settings, "example.com").as_deref(), Some(TOKEN));
    assert_eq!(
        settings.config().user_agent(),
        "OpenTofu/1.12.6 my-tool/1.0"
    );
}
