//! Downloads through the machine, without sockets (docs/behaviour.md, DL-1
//! to DL-3): streamed into a sink chunk by chunk, nothing kept by the
//! engine, the registry clients' headers without a token, retries and
//! redirects as registry requests have them, their own limits.

mod common;

use std::time::Duration;

use tfdisco_core::url::Url;
use tfdisco_core::{Config, Contents, Dialect, ErrorKind, Hostname, Sink, Transfer};

use common::{Net, Reply};

const ZIP_URL: &str = "https://releases.example.com/p/terraform-provider-x_1.0.0_linux_amd64.zip";

fn about() -> Hostname {
    Hostname::parse("registry.example.com").expect("valid")
}

/// A sink that keeps only what it was told: how many bytes, in how many
/// pieces, the largest piece, and their sum.
#[derive(Clone, Debug, Default)]
struct Counting {
    bytes: usize,
    pieces: usize,
    largest: usize,
    sum: u64,
    fail_after: Option<usize>,
}

impl Sink for Counting {
    type Output = (usize, usize, usize, u64);

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        if chunk.is_empty() {
            return Ok(());
        }
        self.bytes += chunk.len();
        self.pieces += 1;
        self.largest = self.largest.max(chunk.len());
        self.sum += chunk.iter().map(|&b| u64::from(b)).sum::<u64>();
        match self.fail_after {
            Some(n) if self.bytes > n => Err(format!("not a zip after {n} bytes")),
            _ => Ok(()),
        }
    }

    fn finish(&mut self) -> Result<Self::Output, String> {
        Ok((self.bytes, self.pieces, self.largest, self.sum))
    }
}

fn download<S: Sink>(
    net: &mut Net,
    sink: S,
    config: &Config,
) -> Result<S::Output, tfdisco_core::Error> {
    let url = Url::parse(ZIP_URL).expect("valid");
    net.run(Transfer::download(url, sink, about(), config, net.now()))
}

#[test]
fn the_body_is_streamed_into_the_sink() {
    let pieces: Vec<Vec<u8>> = (0..50u8).map(|n| vec![n; 10_000]).collect();
    let borrowed: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
    let mut net = Net::new();
    net.on(ZIP_URL, Reply::new(200).chunked(&borrowed));
    let (bytes, count, largest, sum) =
        download(&mut net, Counting::default(), &Config::default()).expect("downloaded");
    assert_eq!(
        (bytes, count, largest),
        (500_000, 50, 10_000),
        "handed on as it came"
    );
    assert_eq!(sum, (0..50u64).map(|n| n * 10_000).sum::<u64>());
    let headers = &net.seen[0].headers;
    assert_eq!(headers["user-agent"], "OpenTofu/1.12.6");
    assert!(!headers.contains_key("accept"));
    assert!(!headers.contains_key("x-terraform-version"));
    assert!(!headers.contains_key("authorization"));
}

#[test]
fn a_gzip_coded_body_is_decoded_on_the_way() {
    use std::io::Write;
    let data = b"SHA256SUMS contents\n".repeat(100);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&data).expect("in memory");
    let coded = gz.finish().expect("in memory");
    let mut net = Net::new();
    net.on(
        ZIP_URL,
        Reply::new(200)
            .header("Content-Encoding", "gzip")
            .chunked(&[&coded[..10], &coded[10..]]),
    );
    let got = download(&mut net, Contents::default(), &Config::default()).expect("downloaded");
    assert_eq!(got, data);
}

#[test]
fn the_download_limit_counts_streamed_bytes() {
    let mut net = Net::new();
    net.on(
        ZIP_URL,
        Reply::new(200).chunked(&[&[0u8; 600], &[0u8; 600]]),
    );
    let config = Config::default().with_download_limit(1000);
    let error = download(&mut net, Counting::default(), &config).expect_err("too large");
    assert_eq!(error.kind(), ErrorKind::TooLarge);
    assert!(error.to_string().contains("download from"), "{error}");
}

#[test]
fn statuses_retries_and_redirects() {
    let mut net = Net::new();
    net.on(ZIP_URL, Reply::new(404));
    let error = download(&mut net, Contents::default(), &Config::default()).expect_err("404");
    assert_eq!(error.kind(), ErrorKind::NotFound);

    // Retried as registry requests are: 2 attempts, 1 s apart.
    let mut net = Net::new();
    net.on(ZIP_URL, Reply::new(502));
    net.on(ZIP_URL, Reply::new(200).chunked(&[b"zip"]));
    assert_eq!(
        download(
            &mut net,
            Contents::default(),
            &Config::new(Dialect::Terraform)
        )
        .expect("retried"),
        b"zip"
    );
    assert_eq!(net.seen[1].at - net.seen[0].at, Duration::from_secs(1));
    assert_eq!(net.seen[0].headers["user-agent"], "Terraform/1.15.9");

    // Release files often live behind a redirect to object storage.
    let mut net = Net::new();
    net.on(
        ZIP_URL,
        Reply::redirect(302, "https://cdn.example.net/x.zip"),
    );
    net.on(
        "https://cdn.example.net/x.zip",
        Reply::new(200).chunked(&[b"zip"]),
    );
    assert_eq!(
        download(&mut net, Contents::default(), &Config::default()).expect("redirected"),
        b"zip"
    );
}

#[test]
fn a_sink_that_refuses_ends_the_download() {
    let mut net = Net::new();
    net.on(
        ZIP_URL,
        Reply::new(200).chunked(&[&[1u8; 100], &[2u8; 100], &[3u8; 100]]),
    );
    let sink = Counting {
        fail_after: Some(150),
        ..Counting::default()
    };
    let error = download(&mut net, sink, &Config::default()).expect_err("refused");
    assert_eq!(error.kind(), ErrorKind::InvalidResponse);
    assert!(
        error.to_string().contains("not a zip after 150 bytes"),
        "{error}"
    );
    assert_eq!(net.bytes_sent, 200, "the third chunk was not asked for");
}

#[test]
fn only_http_and_https_are_downloaded() {
    let url = Url::parse("file:///etc/passwd").expect("valid");
    let error = Transfer::download(
        url,
        Contents::default(),
        about(),
        &Config::default(),
        Net::new().now(),
    )
    .expect_err("not over the network");
    assert_eq!(error.kind(), ErrorKind::InvalidArgument);
}

/// With the registry's credentials (OpenTofu's direct module packages,
/// MOD-4): the token goes to the first host over https, never over http,
/// and not past a redirect to another host; without them none goes.
#[test]
fn credentials_go_only_where_a_token_may() {
    let token = || Some(tfdisco_core::Credentials::token("direct-token").expect("valid"));
    let run = |url: &str, credentials| {
        let mut net = Net::new();
        net.on(
            "https://registry.example.com/pkg",
            Reply::redirect(302, "https://cdn.example.net/pkg"),
        );
        net.on(
            "https://cdn.example.net/pkg",
            Reply::new(200).body(b"bytes"),
        );
        net.on(
            "https://registry.example.com/own",
            Reply::new(200).body(b"bytes"),
        );
        net.on(
            "http://registry.example.com/own",
            Reply::new(200).body(b"bytes"),
        );
        let url = Url::parse(url).expect("valid");
        let start = Transfer::download_with_credentials(
            url,
            Contents::default(),
            about(),
            &Config::default(),
            credentials,
            net.now(),
        );
        net.run(start).expect("downloaded");
        net.seen
            .iter()
            .map(|seen| seen.authorization().map(str::to_owned))
            .collect::<Vec<_>>()
    };
    let bearer = Some("Bearer direct-token".to_owned());
    assert_eq!(
        run("https://registry.example.com/own", token()),
        std::slice::from_ref(&bearer)
    );
    assert_eq!(run("https://registry.example.com/own", None), [None]);
    assert_eq!(run("http://registry.example.com/own", token()), [None]);
    assert_eq!(
        run("https://registry.example.com/pkg", token()),
        [bearer, None],
        "dropped at the redirect to another host"
    );
}
