//! `tfdisco provider …` and `tfdisco module …` against the sample registry
//! `tfdisco-dev serve` serves, here on the test kit's loopback server: it
//! answers what it does not have with a registry's 404, so the CLI says
//! `not_found` and exits 3.

mod common;

use common::{Run, ca_file, tfdisco};
use tfdisco_testkit::{TestServer, sample};

struct Served {
    home: tempfile::TempDir,
    ca: String,
    /// `127.0.0.1:PORT`: module registry hosts need a dot.
    host: String,
    _server: TestServer,
}

fn served() -> Served {
    let server = TestServer::start();
    sample::install(&server, sample::DOCUMENT.as_bytes());
    Served {
        home: tempfile::tempdir().expect("temp dir"),
        ca: ca_file(),
        host: format!("127.0.0.1:{}", server.port()),
        _server: server,
    }
}

impl Served {
    fn run(&self, args: &[&str]) -> Run {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--ca-file", &self.ca, "--json"]);
        tfdisco(self.home.path(), &[], &all)
    }

    #[track_caller]
    fn not_found(&self, args: &[&str]) {
        let r = self.run(args);
        assert_eq!(r.code, Some(3), "{args:?}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.json()["error"]["kind"], "not_found", "{args:?}");
    }
}

#[test]
fn an_unknown_provider_or_module_is_not_found() {
    let s = served();
    let h = &s.host;
    s.not_found(&["provider", "versions", &format!("{h}/acme/none")]);
    s.not_found(&["module", "versions", &format!("{h}/acme/none/aws")]);
}

#[test]
fn an_unknown_version_or_platform_is_not_found() {
    let s = served();
    let provider = format!("{}/{}", s.host, sample::PROVIDER);
    let module = format!("{}/{}", s.host, sample::MODULE);
    s.not_found(&["provider", "package", &provider, "9.9.9", "linux_amd64"]);
    s.not_found(&["provider", "package", &provider, "3.6.0", "freebsd_amd64"]);
    s.not_found(&["module", "download", &module, "9.9.9"]);
    // What it has, it answers.
    let r = s.run(&["provider", "package", &provider, "3.6.0", "linux_amd64"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let r = s.run(&["module", "download", &module, "0.12.1"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
}
