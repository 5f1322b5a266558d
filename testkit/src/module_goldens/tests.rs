//! The committed goldens exist and parse, and `Case::setup` serves the
//! registry, makes the repository and puts the pre-step's state back,
//! all without Terraform.

use std::collections::BTreeSet;
use std::fs;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;

use super::*;

/// `GET path` over the server's plain-http port: the status, the head and
/// the body.
fn get(server: &TestServer, path: &str) -> (u16, String, Vec<u8>) {
    let mut tcp = TcpStream::connect(("127.0.0.1", server.http_port())).expect("connect");
    write!(
        tcp,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut response = Vec::new();
    tcp.read_to_end(&mut response).expect("read");
    let at = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&response[..at]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, head, response[at + 4..].to_vec())
}

#[test]
fn module_goldens_every_case_has_its_files() {
    let names: BTreeSet<&str> = CASES.iter().map(|c| c.name).collect();
    assert_eq!(names.len(), CASES.len(), "case names are unique");
    let folders: BTreeSet<String> = fs::read_dir(goldens_dir())
        .expect("the goldens folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let named: BTreeSet<String> = names.iter().map(|n| (*n).to_owned()).collect();
    assert_eq!(
        folders, named,
        "every folder is a case and every case a folder"
    );
    for case in CASES {
        let dir = case.dir();
        assert!(
            dir.join("input/main.tf").is_file(),
            "{}: input/main.tf",
            case.name
        );
        assert_eq!(case.terraform_exit(), case.exit, "{}: exit-code", case.name);
        for line in case.terraform_tree().lines() {
            assert!(
                parse_module_line(line).is_some(),
                "{}: tree.txt {line}",
                case.name
            );
        }
        let requests = fs::read_to_string(dir.join("requests.txt")).expect("requests.txt");
        for line in requests.lines() {
            assert!(
                line.starts_with("GET /") || line.starts_with("HEAD /"),
                "{}: requests.txt {line}",
                case.name
            );
        }
        // `terraform get` with nothing to do prints nothing.
        let output = case.terraform_output();
        assert!(
            !output.is_empty() || case.exit == 0,
            "{}: terraform.out",
            case.name
        );
        if let Ok(json) = fs::read_to_string(dir.join(MODULES_JSON_GOLDEN)) {
            let value: serde_json::Value = serde_json::from_str(&json)
                .unwrap_or_else(|e| panic!("{}: modules.json: {e}", case.name));
            assert!(value["Modules"].is_array(), "{}: modules.json", case.name);
            assert!(
                !json.ends_with('\n'),
                "{}: modules.json as written",
                case.name
            );
        }
        assert_eq!(
            dir.join("before.txt").is_file(),
            case.before,
            "{}: before.txt",
            case.name
        );
        if let Expect::Differs { why, exit, .. } = case.tfdisco {
            assert!(!why.is_empty() && exit != 0, "{}", case.name);
        }
    }
}

#[test]
fn module_goldens_the_repository_has_its_commits() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let repo = git::make_repo(scratch.path());
    let made: Vec<(&str, String)> = git::COMMITS
        .iter()
        .map(|(name, _)| (*name, git::commit_of(&repo, name)))
        .collect();
    let expected: Vec<(&str, String)> = git::COMMITS
        .iter()
        .map(|(name, commit)| (*name, (*commit).to_owned()))
        .collect();
    assert_eq!(made, expected);
    assert_eq!(
        git::git_line(&repo.join(".git"), "r/.git"),
        format!("git r/.git HEAD {} refs/heads/main", git::MAIN_COMMIT)
    );
}

#[test]
fn module_goldens_setup_serves_and_prepares() {
    for case in CASES {
        let server = TestServer::start();
        let scratch = tempfile::tempdir().expect("temp dir");
        let setup = case.setup(&server, scratch.path());
        let main = fs::read_to_string(setup.dir.join("main.tf")).expect("main.tf");
        for placeholder in [HOST, SERVER, GIT, DIR] {
            assert!(!main.contains(placeholder), "{}: {placeholder}", case.name);
        }
        assert!(setup.git.join(git::REPO).join(".git").is_dir());
        let config = fs::read_to_string(&setup.cli_config).expect("the CLI configuration");
        assert!(
            config.contains(&server.url(registry::MODULES_PATH)),
            "{config}"
        );
        assert_eq!(
            setup.tree(),
            case.before_tree(),
            "{}: the state before",
            case.name
        );
        assert_eq!(
            setup.modules_json(),
            case.before_modules_json(&setup),
            "{}",
            case.name
        );
        let env = setup.env();
        assert!(env.iter().any(|(k, _)| *k == "TF_CLI_CONFIG_FILE"));
        // What Terraform left passes for a Same case.
        if case.tfdisco == Expect::Same {
            let observed = Observed {
                exit: case.exit,
                modules_json: case.terraform_modules_json(&setup),
                tree: case.terraform_tree(),
                requests: case.terraform_requests(&setup),
            };
            case.expected_for_tfdisco(&setup)
                .check(&observed)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        } else {
            let expected = case.expected_for_tfdisco(&setup);
            let observed = setup.observe(expected.exit, &[]);
            let problems = expected.check(&observed);
            // Nothing ran: only the downloads can differ.
            if let Err(e) = problems {
                assert!(e.starts_with("downloads "), "{}: {e}", case.name);
            }
        }
    }
}

#[test]
fn module_goldens_the_registry_answers() {
    let server = TestServer::start();
    let scratch = tempfile::tempdir().expect("temp dir");
    let setup = case("registry-constraint").setup(&server, scratch.path());
    let (status, _, body) = get(&server, "/.well-known/terraform.json");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&body).contains("modules.v1"));
    let (status, _, body) = get(&server, "/v1/modules/tfdisco/net/test/versions");
    assert_eq!(status, 200);
    let body = String::from_utf8_lossy(&body).into_owned();
    assert!(
        body.contains("\"1.1.0\"") && !body.contains("1.2.0"),
        "{body}"
    );
    let (status, head, _) = get(&server, "/v1/modules/tfdisco/net/test/1.1.0/download");
    assert_eq!(status, 204);
    assert!(
        head.to_ascii_lowercase()
            .contains("x-terraform-get: ./net.tar.gz"),
        "{head}"
    );
    let (status, _, body) = get(&server, "/v1/modules/tfdisco/net/test/1.1.0/net.tar.gz");
    assert_eq!(status, 200);
    assert_eq!(body, registry::net_package("1.1.0", &setup.host));
    let (_, head, _) = get(&server, "/v1/modules/tfdisco/gitloc/test/1.0.0/download");
    assert!(
        head.contains(&format!(
            "git::file://{}/repo.git?ref=v1.0.0",
            setup.git.display()
        )),
        "{head}"
    );
    assert_eq!(
        get(&server, "/v1/modules/tfdisco/gone/test/1.0.0/download").0,
        404
    );
    assert_eq!(
        get(
            &server,
            "/v1/modules/tfdisco/missing/test/1.0.0/missing.tar.gz"
        )
        .0,
        404
    );
    assert_eq!(get(&server, "/archives/direct.zip").0, 200);
}

#[test]
fn module_goldens_placeholders_round_trip() {
    let server = TestServer::start();
    let scratch = tempfile::tempdir().expect("temp dir");
    let setup = case("git-refs").setup(&server, scratch.path());
    let text = "{DIR}/x {GIT}/repo.git {HOST}/a https://{SERVER}/b {SCRATCH}/home";
    assert_eq!(setup.normalize(&setup.fill(text)), text);
    assert_eq!(
        downloads(&[
            "GET /.well-known/terraform.json".into(),
            "GET /v1/modules/tfdisco/net/test/versions".into(),
            "GET /v1/modules/tfdisco/net/test/1.1.0/download".into(),
            "HEAD /archives/b.zip".into(),
            "GET /v1/modules/tfdisco/net/test/1.1.0/net.tar.gz".into(),
            "GET /archives/a?archive=zip".into(),
        ]),
        [
            "/archives/a?archive=zip",
            "/v1/modules/tfdisco/net/test/1.1.0/net.tar.gz"
        ]
    );
}

/// The `checksums` case's `?checksum=` values are the hashes of the
/// archives the server gives (the GNU and BSD checksum files too), so the
/// case checks the hashes, not the fixtures' typing.
#[test]
fn the_checksum_cases_name_the_archives_hashes() {
    let server = TestServer::start();
    let scratch = tempfile::tempdir().expect("temp dir");
    let setup = case("checksums").setup(&server, scratch.path());
    let main = fs::read_to_string(setup.dir.join("main.tf")).expect("main.tf");
    let mut checked = 0;
    for line in main.lines() {
        let Some((address, value)) = line.split_once("?checksum=") else {
            continue;
        };
        let path = &address[address.find("/archives/").expect("an archive")..];
        let value = value.trim_end_matches('"');
        let checksum = match tfdisco_provider::ChecksumRequest::parse(value).expect(value) {
            tfdisco_provider::ChecksumRequest::Digest(checksum) => checksum,
            tfdisco_provider::ChecksumRequest::File(url) => {
                let sums = &url[url.find("/archives/").expect("a checksum file")..];
                let (status, _, text) = get(&server, sums);
                assert_eq!(status, 200, "{sums}");
                tfdisco_provider::ArchiveChecksum::from_checksum_file(
                    &String::from_utf8_lossy(&text),
                    path,
                    sums,
                )
                .expect(value)
            }
        };
        let (status, _, body) = get(&server, path);
        assert_eq!(status, 200, "{path}");
        let mut hasher = checksum.hasher();
        hasher.update(&body);
        hasher
            .verify(path)
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        checked += 1;
    }
    assert_eq!(checked, 6);
}
