//! A module download location read as `init` reads it (docs/behaviour.md,
//! PKG-1, PKG-5, PKG-7, PKG-8): the package each go-getter location comes
//! with, and the locations `init` refuses, failing the request as an invalid
//! response in the CLI's words.

mod common;

use tfdisco_core::url::Url;
use tfdisco_core::{
    Config, Dialect, Error, ErrorKind, Getter, Hostname, ModuleLocation, ModuleSource, Services,
    Transfer,
};

use common::{Net, Reply};

/// Asks for `example.com/a/b/c` (with `source_subdir`) 1.0.0, which the
/// registry answers with `reply`.
fn fetch(dialect: Dialect, source_subdir: &str, reply: Reply) -> Result<ModuleLocation, Error> {
    fetch_on(&mut Net::new(), dialect, source_subdir, reply)
}

fn fetch_on(
    net: &mut Net,
    dialect: Dialect,
    source_subdir: &str,
    reply: Reply,
) -> Result<ModuleLocation, Error> {
    net.on("https://example.com/m/a/b/c/1.0.0/download", reply);
    let services = Services::from_json(
        Hostname::parse("example.com").expect("valid"),
        Url::parse("https://example.com/.well-known/terraform.json").expect("valid"),
        dialect,
        br#"{"modules.v1": "/m/"}"#,
    )
    .expect("a valid document");
    let source = ModuleSource::parse(&format!("example.com/a/b/c{source_subdir}"), dialect)
        .expect("a valid source");
    let transfer = Transfer::module_download(
        &services,
        &source,
        "1.0.0",
        &Config::new(dialect),
        None,
        net.now(),
    );
    net.run(transfer)
}

/// The module downloads from `location` (a 204 with `X-Terraform-Get`).
fn download(
    dialect: Dialect,
    source_subdir: &str,
    location: &str,
) -> Result<ModuleLocation, Error> {
    fetch(
        dialect,
        source_subdir,
        Reply::new(204).header("X-Terraform-Get", location),
    )
}

#[test]
fn each_location_comes_with_its_package() {
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let got = download(
            dialect,
            "//examples/b",
            "github.com/acme/vpc/modules/a?ref=v2&depth=3",
        )
        .expect("a location");
        assert_eq!(got.location, "github.com/acme/vpc/modules/a?ref=v2&depth=3");
        let package = got.package.expect("a go-getter address has a package");
        assert_eq!(package.getter(), Some(Getter::Git));
        assert_eq!(
            package.address(),
            "git::https://github.com/acme/vpc.git?ref=v2&depth=3"
        );
        assert_eq!(package.subdir(), "modules/a");
        assert_eq!((package.revision(), package.depth()), (Some("v2"), Some(3)));
        // The source's own subdir goes inside the location's (PKG-8).
        assert_eq!(
            package.join_subdir(got.source.subdir()),
            "modules/a/examples/b"
        );

        // A relative location is resolved first (API-6), then parsed.
        let got = download(dialect, "", "../pkg.tgz").expect("a location");
        let package = got.package.expect("a package");
        assert_eq!(package.address(), "https://example.com/m/a/b/c/pkg.tgz");
        assert_eq!(
            (package.getter(), package.archive()),
            (Some(Getter::Https), Some("tgz"))
        );
    }
}

#[test]
fn locations_init_refuses_are_invalid_responses_in_its_words() {
    for (dialect, location, words) in [
        (
            Dialect::Terraform,
            "?archive=zip",
            "Terraform cannot detect a supported external module source type for ?archive=zip",
        ),
        (
            Dialect::OpenTofu,
            "?archive=zip",
            "OpenTofu cannot detect a supported external module source type for ?archive=zip",
        ),
        // A registry address or a local path: not a package (PKG-1).
        (
            Dialect::Terraform,
            "s3.amazonaws.com/bucket/foo/bar",
            "must be a direct remote package address",
        ),
        (
            Dialect::OpenTofu,
            ".\\pkg",
            "must be a direct remote package address",
        ),
        (
            Dialect::Terraform,
            "git@github.com:acme/x?a;b",
            "error parsing Git SSH URL: invalid semicolon separator in query",
        ),
        (
            Dialect::OpenTofu,
            "git@github.com:acme/x?a;b",
            "error parsing GitHub SSH URL: invalid semicolon separator in query",
        ),
        (
            Dialect::Terraform,
            "https://example.com/%zz",
            "Terraform cannot detect a supported external module source type for \
             https://example.com/%zz",
        ),
        // Getters `init` does not have (PKG-7).
        (
            Dialect::Terraform,
            "oci://example.com/m",
            "download not supported for scheme 'oci'",
        ),
        (
            Dialect::OpenTofu,
            "GIT::https://example.com/m",
            "download not supported for scheme 'GIT'",
        ),
    ] {
        let error = download(dialect, "", location).expect_err(location);
        assert_eq!(error.kind(), ErrorKind::InvalidResponse, "{error}");
        let message = error.to_string();
        assert!(
            message.ends_with(&format!(
                "invalid source location {location:?} for example.com/a/b/c 1.0.0: {words}"
            )),
            "{message}"
        );
        assert!(
            message.starts_with(
                "invalid module download response from https://example.com/m/a/b/c/1.0.0/download"
            ),
            "{message}"
        );
    }
    // OpenTofu has the `oci` getter.
    let got = download(Dialect::OpenTofu, "", "oci://example.com/m").expect("a location");
    assert_eq!(got.package.expect("a package").getter(), Some(Getter::Oci));
}

#[test]
fn bitbucket_shorthands_are_git_without_asking_bitbucket() {
    // D11: OpenTofu asks api.bitbucket.org whether the repository is Git or
    // Mercurial; tfdisco reads the address alone, as Terraform does (PKG-5):
    // the one request is the download request.
    for dialect in [Dialect::Terraform, Dialect::OpenTofu] {
        let mut net = Net::new();
        let reply = Reply::new(204).header("X-Terraform-Get", "bitbucket.org/acme/vpc");
        let got = fetch_on(&mut net, dialect, "", reply).expect("a location");
        assert_eq!(net.seen.len(), 1, "{:?}", net.seen);
        let package = got.package.expect("a package");
        assert_eq!(package.address(), "git::https://bitbucket.org/acme/vpc.git");
        assert_eq!(package.getter(), Some(Getter::Git));
    }
}

#[test]
fn direct_packages_have_no_go_getter_address() {
    // OpenTofu's direct package is a URL its registry client fetches, not a
    // go-getter address: nothing to detect (PKG-1).
    let got = fetch(
        Dialect::OpenTofu,
        "",
        Reply::json(
            r#"{"location": "https://p/m.zip?archive=x", "use_registry_credentials": true}"#,
        ),
    )
    .expect("a direct location");
    assert_eq!(got.use_registry_credentials, Some(true));
    assert_eq!(got.package, None);
    // Without the flag the same body is a go-getter address.
    let got = fetch(
        Dialect::OpenTofu,
        "",
        Reply::json(r#"{"location": "https://p/m.zip?archive=x"}"#),
    )
    .expect("a location");
    let package = got.package.expect("a package");
    assert_eq!(
        (package.getter(), package.archive()),
        (Some(Getter::Https), None)
    );
}
