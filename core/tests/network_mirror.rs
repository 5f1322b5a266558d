//! The provider network mirror protocol, without sockets (docs/behaviour.md,
//! MIRROR-1 to MIRROR-9, D19, D20).

mod common;

use common::{Net, Reply};
use tfdisco_core::url::Url;
use tfdisco_core::{
    Config, Credentials, Dialect, Error, ErrorKind, Hostname, NetworkMirror, NetworkMirrorArchives,
    NetworkMirrorVersions, Platform, ProviderSource, Transfer, Version,
};

const BASE: &str = "https://mirror.example.net/providers/";
const T: Dialect = Dialect::Terraform;

fn mirror(base: &str) -> NetworkMirror {
    NetworkMirror::new(Url::parse(base).expect("a URL")).expect("a mirror")
}

fn source(given: &str) -> ProviderSource {
    ProviderSource::parse(given, T).expect("a source")
}

fn version(given: &str) -> Version {
    Version::parse(given, T).expect("a version")
}

fn token() -> Option<Credentials> {
    Some(Credentials::token("s3cret").expect("a token"))
}

fn versions(net: &mut Net, config: &Config) -> Result<NetworkMirrorVersions, Error> {
    let now = net.now();
    net.run(Transfer::network_mirror_versions(
        &mirror(BASE),
        &source("example.com/ns/alpha"),
        config,
        token(),
        now,
    ))
}

fn archives(net: &mut Net) -> Result<NetworkMirrorArchives, Error> {
    let now = net.now();
    net.run(Transfer::network_mirror_archives(
        &mirror(BASE),
        &source("example.com/ns/alpha"),
        &version("1.1.0"),
        &Config::new(T),
        token(),
        now,
    ))
}

const INDEX: &str = "https://mirror.example.net/providers/example.com/ns/alpha/index.json";
const ARCHIVES: &str = "https://mirror.example.net/providers/example.com/ns/alpha/1.1.0.json";

/// MIRROR-1: the base must be https with a host.
#[test]
fn a_mirror_is_at_an_https_url() {
    for bad in ["http://mirror.example.net/", "file:///tmp/mirror/"] {
        let error = Error::from(NetworkMirror::new(Url::parse(bad).expect("URL")).expect_err(bad));
        assert_eq!(error.kind(), ErrorKind::InvalidArgument, "{bad}");
        assert!(
            error.to_string().contains("must be at an https: URL"),
            "{error}"
        );
    }
    // Parsed from text, the one check of a mirror's URL (MIRROR-1, INST-1).
    assert_eq!(
        NetworkMirror::parse("::")
            .expect_err("not a URL")
            .to_string(),
        r#"Cannot parse "::" as a URL for a network provider mirror: relative URL without a base"#
    );
    let m = mirror("https://Mirror.Example.NET:8443/p/");
    assert_eq!(
        m.host(),
        &Hostname::parse("mirror.example.net:8443").expect("host")
    );
    assert_eq!(
        m.to_string(),
        "provider mirror https://mirror.example.net:8443/p/"
    );
}

/// MIRROR-2, D19: URLs resolved as Go resolves `host/ns/type/index.json`
/// against the base, but with the host a path segment of its own.
#[test]
fn document_urls() {
    let alpha = source("Example.COM/NS/Alpha");
    let cases = [
        (
            BASE,
            "https://mirror.example.net/providers/example.com/ns/alpha/index.json",
        ),
        // No trailing slash: the last segment goes, as Go resolves it.
        (
            "https://mirror.example.net/providers",
            "https://mirror.example.net/example.com/ns/alpha/index.json",
        ),
        // Query and fragment dropped.
        (
            "https://mirror.example.net/p/?x=1#f",
            "https://mirror.example.net/p/example.com/ns/alpha/index.json",
        ),
        (
            "https://mirror.example.net",
            "https://mirror.example.net/example.com/ns/alpha/index.json",
        ),
    ];
    for (base, want) in cases {
        assert_eq!(mirror(base).versions_url(&alpha).as_str(), want, "{base}");
    }
    // A host with a port, and an internationalised one in comparison form.
    let ported = source("127.0.0.1:8443/ns/alpha");
    assert_eq!(
        mirror(BASE)
            .archives_url(&ported, &version("1.1.0"))
            .as_str(),
        "https://mirror.example.net/providers/127.0.0.1:8443/ns/alpha/1.1.0.json"
    );
    let idn = source("bücher.example/ns/alpha");
    assert_eq!(
        mirror(BASE).versions_url(&idn).as_str(),
        "https://mirror.example.net/providers/xn--bcher-kva.example/ns/alpha/index.json"
    );
    // The version in its normalized form.
    assert_eq!(
        mirror(BASE).archives_url(&alpha, &version("1.2")).as_str(),
        "https://mirror.example.net/providers/example.com/ns/alpha/1.2.0.json"
    );
}

/// MIRROR-3: the versions are the keys that are versions, sorted; other
/// keys are skipped; `null` and a missing member are none; what follows
/// the first JSON value is not read.
#[test]
fn the_index() {
    let mut net = Net::new();
    net.on(
        INDEX,
        Reply::json(
            r#"{"versions": {"2.0.0": {}, "1.10.0": {}, "banana": {}, "1.2.0": {}}} trailing"#,
        ),
    );
    let got = versions(&mut net, &Config::new(T)).expect("versions");
    let listed: Vec<String> = got.versions.iter().map(ToString::to_string).collect();
    assert_eq!(listed, ["1.2.0", "1.10.0", "2.0.0"]);
    assert_eq!(got.skipped, ["banana"]);
    assert_eq!(got.url.as_str(), INDEX);
    for empty in ["null", "{}", r#"{"versions": null}"#] {
        let mut net = Net::new();
        net.on(INDEX, Reply::json(empty));
        let got = versions(&mut net, &Config::new(T)).expect(empty);
        assert!(got.versions.is_empty(), "{empty}");
    }
    let mut net = Net::new();
    net.on(INDEX, Reply::json(r#"{"versions": ["1.0.0"]}"#));
    let error = versions(&mut net, &Config::new(T)).expect_err("an array");
    assert_eq!(error.kind(), ErrorKind::Json, "{error}");
    assert!(
        error.to_string().contains("provider mirror versions"),
        "{error}"
    );
}

/// MIRROR-4: the request's headers (no Accept, the CLI version, the
/// registry clients' User-Agent, the mirror host's token), the
/// `Content-Type` check, and the redirect limit of 5.
#[test]
fn headers_content_type_and_redirects() {
    let mut net = Net::new();
    net.on(INDEX, Reply::json(r#"{"versions": {}}"#));
    versions(
        &mut net,
        &Config::new(T).with_cli_version("1.11.4").expect("version"),
    )
    .expect("versions");
    let headers = &net.seen[0].headers;
    assert!(headers.get("accept").is_none());
    assert_eq!(headers["x-terraform-version"], "1.11.4");
    assert_eq!(headers["user-agent"], "Terraform/1.11.4");
    assert_eq!(net.seen[0].authorization(), Some("Bearer s3cret"));

    for (content_type, kind) in [
        (Some("text/plain"), ErrorKind::ContentType),
        (None, ErrorKind::ContentType),
        (Some("Application/JSON; charset=utf-8"), ErrorKind::Status),
    ] {
        let mut net = Net::new();
        let mut reply = Reply::new(200).body(br#"{"versions": {}}"#);
        if let Some(value) = content_type {
            reply = reply.header("Content-Type", value);
        }
        net.on(INDEX, reply);
        let result = versions(&mut net, &Config::new(T));
        match kind {
            ErrorKind::Status => assert!(result.is_ok(), "{content_type:?}: {result:?}"),
            kind => assert_eq!(
                result.expect_err("refused").kind(),
                kind,
                "{content_type:?}"
            ),
        }
    }

    // Five redirects are followed, the sixth is refused.
    let mut net = Net::new();
    for n in 0..6 {
        let from = if n == 0 {
            INDEX.to_owned()
        } else {
            format!("https://mirror.example.net/r{n}")
        };
        net.on(&from, Reply::redirect(302, &format!("/r{}", n + 1)));
    }
    let error = versions(&mut net, &Config::new(T)).expect_err("too many");
    assert_eq!(error.kind(), ErrorKind::Redirect, "{error}");
    assert_eq!(net.seen.len(), 6);
}

/// MIRROR-4: Terraform's mirror client retries as its registry client
/// (2 attempts, 1 s apart); OpenTofu's does not.
#[test]
fn retries_per_dialect() {
    for (dialect, attempts) in [(Dialect::Terraform, 2), (Dialect::OpenTofu, 1)] {
        let mut net = Net::new();
        net.on(INDEX, Reply::new(500));
        let error = versions(&mut net, &Config::new(dialect)).expect_err("500");
        assert_eq!(error.status().map(|s| s.as_u16()), Some(500), "{dialect:?}");
        assert_eq!(net.seen.len(), attempts, "{dialect:?}");
    }
}

/// MIRROR-5: 404 on the index is "not found"; on a version's archives (a
/// version the index listed) an invalid answer.
#[test]
fn not_found() {
    let mut net = Net::new();
    net.on(INDEX, Reply::new(404));
    let error = versions(&mut net, &Config::new(T)).expect_err("404");
    assert_eq!(error.kind(), ErrorKind::NotFound);
    assert!(
        error
            .to_string()
            .contains("provider mirror https://mirror.example.net/providers/ does not have provider example.com/ns/alpha"),
        "{error}"
    );
    let mut net = Net::new();
    net.on(ARCHIVES, Reply::new(404));
    let error = archives(&mut net).expect_err("404");
    assert_eq!(error.kind(), ErrorKind::InvalidResponse);
    assert!(
        error.to_string().contains(
            "provider mirror does not have archive index for previously-reported example.com/ns/alpha version 1.1.0"
        ),
        "{error}"
    );
}

/// MIRROR-6: archive URLs are relative to the document's URL after
/// redirects; only the platform asked for is read.
#[test]
fn archives_resolve_against_the_final_url() {
    let mut net = Net::new();
    net.on(
        ARCHIVES,
        Reply::redirect(302, "https://cdn.example.org/m/alpha/1.1.0.json"),
    );
    net.on(
        "https://cdn.example.org/m/alpha/1.1.0.json",
        Reply::json(
            r#"{"archives": {
                "linux_amd64": {"url": "a_linux.zip", "hashes": ["h1:x=", "zh:00"]},
                "darwin_arm64": {"url": "https://other.example.com/d.zip"},
                "windows_amd64": {"url": "w.zip", "hashes": ["nocolon"]}
            }}"#,
        ),
    );
    let got = archives(&mut net).expect("archives");
    // The token does not follow the redirect to another host (D4).
    assert_eq!(net.seen[0].authorization(), Some("Bearer s3cret"));
    assert_eq!(net.seen[1].authorization(), None);
    let linux = got
        .archive(&Platform::new("linux", "amd64"))
        .expect("linux");
    assert_eq!(
        linux.url.as_str(),
        "https://cdn.example.org/m/alpha/a_linux.zip"
    );
    assert_eq!(linux.filename, "a_linux.zip");
    assert_eq!(linux.hashes, ["h1:x=", "zh:00"]);
    let darwin = got
        .archive(&Platform::new("darwin", "arm64"))
        .expect("darwin");
    assert_eq!(darwin.url.as_str(), "https://other.example.com/d.zip");
    assert!(darwin.hashes.is_empty());
    // A bad hash counts only when that platform is asked for.
    let windows = got
        .archive(&Platform::new("windows", "amd64"))
        .expect_err("no scheme");
    assert!(
        windows.to_string().contains(
            r#"provider mirror returned invalid provider hash "nocolon": hash string must start with a scheme keyword followed by a colon"#
        ),
        "{windows}"
    );
}

/// MIRROR-7, D20: what an archive entry cannot be: missing (not found),
/// `null` (Go crashes), without a `url`, or not at an https: URL.
#[test]
fn unusable_archive_entries() {
    let mut net = Net::new();
    net.on(
        ARCHIVES,
        Reply::json(
            r#"{"archives": {
                "linux_amd64": null,
                "darwin_arm64": {"hashes": []},
                "windows_amd64": {"url": "http://mirror.example.net/w.zip"},
                "linux_arm64": {"url": "ftp://mirror.example.net/w.zip"}
            }}"#,
        ),
    );
    let got = archives(&mut net).expect("archives");
    let missing = got
        .archive(&Platform::new("plan9", "amd64"))
        .expect_err("missing");
    assert_eq!(missing.kind(), ErrorKind::NotFound);
    assert!(
        missing.to_string().contains(
            "provider mirror https://mirror.example.net/providers/ does not have a package of example.com/ns/alpha 1.1.0 for plan9_amd64"
        ),
        "{missing}"
    );
    for (platform, words) in [
        (
            Platform::new("linux", "amd64"),
            "the archive of linux_amd64 is null",
        ),
        (
            Platform::new("darwin", "arm64"),
            "the archive of darwin_arm64 has no url",
        ),
        (Platform::new("windows", "amd64"), "must be at https: URLs"),
        (Platform::new("linux", "arm64"), "must be at https: URLs"),
    ] {
        let error = got.archive(&platform).expect_err("unusable");
        assert_eq!(error.kind(), ErrorKind::InvalidResponse, "{platform}");
        assert!(error.to_string().contains(words), "{platform}: {error}");
    }

    // Plain http to a host the configuration allows it for (D5), as the
    // requests' own check decides it: port 80 unless the host names one.
    let document = r#"{"archives": {
        "linux_amd64": {"url": "http://mirror.example.net/l.zip"},
        "darwin_arm64": {"url": "http://mirror.example.net:8080/d.zip"}
    }}"#;
    let mut net = Net::new();
    net.on(ARCHIVES, Reply::json(document));
    let now = net.now();
    let config =
        Config::new(T).with_plain_http_host(Hostname::parse("mirror.example.net").expect("host"));
    let got = net
        .run(Transfer::network_mirror_archives(
            &mirror(BASE),
            &source("example.com/ns/alpha"),
            &version("1.1.0"),
            &config,
            token(),
            now,
        ))
        .expect("archives");
    let linux = got
        .archive(&Platform::new("linux", "amd64"))
        .expect("allowed");
    assert_eq!(linux.url.as_str(), "http://mirror.example.net/l.zip");
    let darwin = got.archive(&Platform::new("darwin", "arm64"));
    assert!(darwin.is_err(), "another port: {darwin:?}");
}

/// MIRROR-1, D5: a mirror that redirects to plain http is refused, its
/// documents and (as downloads, DL-2) its archives alike.
#[test]
fn a_redirect_to_http_is_refused() {
    let mut net = Net::new();
    net.on(
        INDEX,
        Reply::redirect(302, "http://mirror.example.net/providers/x/index.json"),
    );
    let error = versions(&mut net, &Config::new(T)).expect_err("insecure");
    assert_eq!(error.kind(), ErrorKind::Redirect, "{error}");
    assert!(
        error
            .to_string()
            .contains("http://mirror.example.net/providers/x/index.json"),
        "{error}"
    );
    assert_eq!(net.seen.len(), 1);

    let archive = "https://mirror.example.net/providers/example.com/ns/alpha/a.zip";
    let mut net = Net::new();
    net.on(
        archive,
        Reply::redirect(302, "http://cdn.example.net/a.zip"),
    );
    let now = net.now();
    let error = net
        .run(Transfer::download(
            Url::parse(archive).expect("URL"),
            tfdisco_core::Contents::default(),
            Hostname::parse("mirror.example.net").expect("host"),
            &Config::new(T),
            now,
        ))
        .expect_err("insecure");
    assert_eq!(error.kind(), ErrorKind::Redirect, "{error}");
}
