//! No secret in the errors of the CLI configuration readers
//! (docs/behaviour.md, CFG-13): valid documents holding a token are broken
//! in every systematic way (cut at every byte, each character deleted, each
//! of a few characters inserted at every place), and no error, diagnostic or
//! `tracing` event about any of them may hold the token or any 8 characters
//! of it in a row.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use base64::Engine as _;
use tempfile::TempDir;
use tfdisco_config::{
    CliConfig, CredentialsStore, Diagnostic, Dialect, Env, HelperProgram, OciHostOs,
};
use tfdisco_core::{Credentials, Hostname};

/// 24 letters and digits, all different even without case: 8 of them in a
/// row anywhere come from the token.
const TOKEN: &str = "Q7wErT9yUi3oPaS5dFgH2jKl";

/// Where a document holds the token, and where the `auth` of `me:TOKEN`.
const T: &str = "@TOKEN@";
const AUTH: &str = "@AUTH@";

/// What is inserted at every place.
const INSERTS: [&str; 10] = ["\"", "{", "}", "=", "\n", "\\", "$", "<<", ",", "["];

/// `me:TOKEN` in standard base64, as a Docker-style `auth`.
fn basic_auth() -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("me:{TOKEN}"))
}

fn fill(doc: &str) -> String {
    doc.replace(T, TOKEN).replace(AUTH, &basic_auth())
}

/// Every 8 characters in a row of the token and of its `auth`, lower case.
fn pieces() -> &'static [String] {
    static PIECES: OnceLock<Vec<String>> = OnceLock::new();
    PIECES.get_or_init(|| {
        let mut pieces = Vec::new();
        for secret in [TOKEN.to_owned(), basic_auth()] {
            let chars: Vec<char> = secret.to_lowercase().chars().collect();
            pieces.extend(chars.windows(8).map(|w| w.iter().collect::<String>()));
        }
        pieces
    })
}

/// The document cut at every byte, without each character, and with each
/// of [`INSERTS`] at every place; each text once.
fn mutations(doc: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut push = |text: String| {
        if text != doc && seen.insert(text.clone()) {
            out.push(text);
        }
    };
    let bounds: Vec<usize> = doc
        .char_indices()
        .map(|(i, _)| i)
        .chain([doc.len()])
        .collect();
    for &end in &bounds[..bounds.len() - 1] {
        push(doc[..end].to_owned());
    }
    for w in bounds.windows(2) {
        push(format!("{}{}", &doc[..w[0]], &doc[w[1]..]));
    }
    for insert in INSERTS {
        for &at in &bounds {
            push(format!("{}{insert}{}", &doc[..at], &doc[at..]));
        }
    }
    out
}

thread_local! {
    /// What the `tracing` subscriber of this thread wrote.
    static LOG: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

struct LogWriter;

impl io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        LOG.with(|log| log.borrow_mut().extend_from_slice(buf));
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Every event of every level on this thread goes to [`LOG`] while the
/// guard lives.
fn capture_tracing() -> tracing::subscriber::DefaultGuard {
    let subscriber = tracing_subscriber::fmt()
        .with_writer(|| LogWriter)
        .with_max_level(tracing::Level::TRACE)
        .finish();
    tracing::subscriber::set_default(subscriber)
}

fn take_log() -> String {
    LOG.with(|log| String::from_utf8_lossy(&std::mem::take(&mut *log.borrow_mut())).into_owned())
}

/// The inputs read, those that failed, and what leaked.
#[derive(Default)]
struct Check {
    inputs: usize,
    failed: usize,
    /// The current input failed.
    failing: bool,
    log_bytes: usize,
    leaks: Vec<String>,
}

impl Check {
    /// The next input.
    fn input(&mut self) {
        self.inputs += 1;
        self.failing = false;
    }

    fn fail(&mut self) {
        if !self.failing {
            self.failing = true;
            self.failed += 1;
        }
    }

    fn text(&mut self, case: &str, input: &str, what: &str, text: &str) {
        let lower = text.to_lowercase();
        if let Some(piece) = pieces().iter().find(|p| lower.contains(p.as_str())) {
            self.leaks.push(format!(
                "{case}, input {input:?}: {what} holds {piece:?}: {text}"
            ));
        }
    }

    fn error(&mut self, case: &str, input: &str, e: &(impl fmt::Display + fmt::Debug + ?Sized)) {
        self.fail();
        self.text(case, input, "the error's Display", &e.to_string());
        self.text(case, input, "the error's Debug", &format!("{e:?}"));
    }

    fn diagnostics(&mut self, case: &str, input: &str, diags: &[Diagnostic]) {
        if !diags.is_empty() {
            self.fail();
        }
        for d in diags {
            self.text(case, input, "a diagnostic", &d.located());
            self.text(case, input, "a diagnostic's Debug", &format!("{d:?}"));
        }
    }

    fn tracing(&mut self, case: &str, input: &str) {
        let log = take_log();
        self.log_bytes += log.len();
        self.text(case, input, "the tracing output", &log);
    }

    fn done(self, what: &str, started: Instant) {
        eprintln!(
            "{what}: {} inputs, {} failing, {} bytes of tracing output, {:?}",
            self.inputs,
            self.failed,
            self.log_bytes,
            started.elapsed()
        );
        assert!(self.failed > 0, "{what}: no input failed to read");
        assert!(
            self.leaks.is_empty(),
            "{what}: {} texts hold a piece of the token, such as:\n{}",
            self.leaks.len(),
            self.leaks
                .iter()
                .take(400)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

fn host(name: &str) -> Hostname {
    Hostname::parse(name).expect("a hostname")
}

/// A new token to store.
fn other_token() -> Credentials {
    Credentials::token("stored-by-the-test").expect("valid")
}

/// The documents of the CLI configuration that hold a token: where the
/// file is (the JSON form by its first character), the text, and the
/// dialect that reads what it holds.
const CLI_DOCUMENTS: [(&str, &str, Dialect); 12] = [
    (
        "/home/me/.terraformrc",
        "credentials \"app.terraform.io\" {\n  token = \"@TOKEN@\"\n}\n",
        Dialect::Terraform,
    ),
    (
        "/home/me/.terraformrc",
        "credentials \"app.terraform.io\" { token = \"9@TOKEN@\" }\n",
        Dialect::OpenTofu,
    ),
    (
        "/home/me/.terraformrc",
        "credentials \"app.terraform.io\" {\n  token = <<EOT\n@TOKEN@\nEOT\n}\n",
        Dialect::Terraform,
    ),
    (
        "/home/me/.terraformrc",
        "host \"example.com\" {\n  services = {\n    \"modules.v1\" = \"https://example.com/@TOKEN@/\"\n  }\n}\n",
        Dialect::Terraform,
    ),
    (
        "/home/me/.terraformrc",
        "provider_installation {\n  direct {}\n}\ncredentials \"app.terraform.io\" {\n  token = \"@TOKEN@\"\n}\n",
        Dialect::Terraform,
    ),
    (
        "/home/me/.tofurc",
        "provider_installation {\n  direct {}\n}\ncredentials \"app.terraform.io\" {\n  token = \"@TOKEN@\"\n}\n",
        Dialect::OpenTofu,
    ),
    (
        "/home/me/.tofurc",
        "oci_credentials \"ghcr.io\" {\n  username = \"me\"\n  password = \"@TOKEN@\"\n}\n",
        Dialect::OpenTofu,
    ),
    (
        "/home/me/.tofurc",
        "oci_credentials \"ghcr.io/team\" {\n  access_token = \"@TOKEN@\"\n  refresh_token = \"r\"\n}\n",
        Dialect::OpenTofu,
    ),
    (
        "/home/me/.terraform.d/a.tfrc.json",
        r#"{"credentials": {"app.terraform.io": {"token": "@TOKEN@"}}}"#,
        Dialect::Terraform,
    ),
    (
        "/home/me/.terraform.d/a.tfrc.json",
        r#"{"provider_installation": {"direct": [{}]}, "credentials": {"app.terraform.io": {"token": "@TOKEN@"}}}"#,
        Dialect::Terraform,
    ),
    (
        "/home/me/.terraform.d/a.tfrc.json",
        r#"{"host": {"example.com": {"services": {"modules.v1": "https://example.com/@TOKEN@/"}}}}"#,
        Dialect::Terraform,
    ),
    (
        "/home/me/.terraform.d/a.tfrc.json",
        r#"{"oci_credentials": {"ghcr.io": {"username": "me", "password": "@TOKEN@"}}}"#,
        Dialect::OpenTofu,
    ),
];

/// Documents broken as people break them, read as they are: the token
/// unquoted (which `hcl-edit` reads as a reference, and the HCL 1 reader
/// then refuses when the file has a block only it reads), a second string,
/// a missing `=` or closing quote.
const BROKEN_CLI_DOCUMENTS: [(&str, &str, Dialect); 9] = [
    (
        "/home/me/.terraformrc",
        "provider_installation {\n  direct {}\n}\ncredentials \"app.terraform.io\" {\n  token = @TOKEN@\n}\n",
        Dialect::Terraform,
    ),
    (
        "/home/me/.tofurc",
        "provider_installation {\n  direct {}\n}\ncredentials \"app.terraform.io\" {\n  token = abcdef.atlasv1.@TOKEN@\n}\n",
        Dialect::OpenTofu,
    ),
    (
        "/home/me/.tofurc",
        "oci_credentials \"ghcr.io\" {\n  username = \"me\"\n  password = @TOKEN@\n}\n",
        Dialect::OpenTofu,
    ),
    (
        "/home/me/.terraformrc",
        "credentials \"app.terraform.io\" {\n  token = \"abcdef.atlasv1.@TOKEN@\n}\n",
        Dialect::Terraform,
    ),
    (
        "/home/me/.terraformrc",
        "credentials \"app.terraform.io\" {\n  token = \"x\" \"@TOKEN@\"\n}\n",
        Dialect::OpenTofu,
    ),
    (
        "/home/me/.terraformrc",
        "provider_installation {\n  direct {}\n}\ncredentials \"app.terraform.io\" {\n  token \"@TOKEN@\"\n}\n",
        Dialect::Terraform,
    ),
    (
        "/home/me/.terraformrc",
        "provider_installation {\n  direct {}\n}\ncredentials \"app.terraform.io\" {\n  token = 9@TOKEN@\n}\n",
        Dialect::Terraform,
    ),
    (
        "/home/me/.terraformrc",
        "credentials \"app.terraform.io\" {\n  token = [\"x\" \"@TOKEN@\"]\n}\n",
        Dialect::OpenTofu,
    ),
    (
        "/home/me/.terraform.d/a.tfrc.json",
        r#"{"provider_installation": {"direct": [{}]}, "credentials": {"app.terraform.io": {"token": @TOKEN@}}}"#,
        Dialect::OpenTofu,
    ),
];

/// Reads one text as a CLI configuration file, then what the clients ask
/// of it: the credentials of a host (through `credentials_for`, which logs
/// a failure), and in OpenTofu the OCI credentials policy.
fn read_cli_config(check: &mut Check, path: &str, input: &str, dialect: Dialect, env: &Env) {
    let case = format!("{path} ({dialect:?})");
    check.input();
    let config = CliConfig::from_sources_in(dialect, env, [(path, input)]);
    check.diagnostics(&case, input, config.diagnostics());
    let source = config.credentials_source(env);
    if let (_, Some(e)) = tfdisco_core::credentials_for(&source, &host("app.terraform.io")) {
        check.error(&case, input, &*e);
    }
    if dialect == Dialect::OpenTofu {
        match config.oci_credentials_policy_for(OciHostOs::Linux, env) {
            Err(e) => check.error(&case, input, &e),
            Ok(policy) => {
                if let Err(e) = policy.credentials_for("ghcr.io", "team/app") {
                    check.error(&case, input, &e);
                }
            }
        }
    }
    check.tracing(&case, input);
}

#[test]
fn cli_configuration_errors_hold_no_secret() {
    let started = Instant::now();
    let _tracing = capture_tracing();
    let home = TempDir::new().expect("a temporary directory");
    let env = Env::empty().with_var("HOME", home.path());
    let mut check = Check::default();
    for (path, doc, dialect) in CLI_DOCUMENTS {
        let doc = fill(doc);
        let valid = CliConfig::from_sources_in(dialect, &env, [(path, &doc)]);
        assert!(
            valid.diagnostics().is_empty(),
            "{doc}: {:?}",
            valid.diagnostics()
        );
        for input in mutations(&doc) {
            read_cli_config(&mut check, path, &input, dialect, &env);
        }
    }
    for (path, doc, dialect) in BROKEN_CLI_DOCUMENTS {
        let input = fill(doc);
        read_cli_config(&mut check, path, &input, dialect, &env);
        assert!(check.failing, "{input}: read without a problem");
    }
    check.done("CLI configuration files", started);
}

#[test]
fn credentials_file_errors_hold_no_secret() {
    let started = Instant::now();
    let _tracing = capture_tracing();
    let home = TempDir::new().expect("a temporary directory");
    let dir = home.path().join(".terraform.d");
    fs::create_dir_all(&dir).expect("mkdir");
    let path = dir.join("credentials.tfrc.json");
    let env = Env::empty().with_var("HOME", home.path());
    let app = host("app.terraform.io");
    let doc = fill(r#"{"credentials": {"app.terraform.io": {"token": "@TOKEN@"}}}"#);
    let mut check = Check::default();
    for input in mutations(&doc) {
        let case = "credentials.tfrc.json";
        check.input();
        fs::write(&path, &input).expect("write");
        let config = CliConfig::load(Dialect::Terraform, &env);
        check.diagnostics(case, &input, config.diagnostics());
        let source = config.credentials_source(&env);
        if let (_, Some(e)) = tfdisco_core::credentials_for(&source, &app) {
            check.error(case, &input, &*e);
        }
        if let Err(e) = source.store(&app, &other_token()) {
            check.error(case, &input, &e);
        }
        check.tracing(case, &input);
    }
    check.done("credentials.tfrc.json", started);
}

#[test]
fn docker_style_file_errors_hold_no_secret() {
    let started = Instant::now();
    let _tracing = capture_tracing();
    let dir = TempDir::new().expect("a temporary directory");
    // A file listed in `docker_style_config_files`: its problems are errors.
    let listed = dir.path().join("listed/config.json");
    fs::create_dir_all(listed.parent().expect("a parent")).expect("mkdir");
    let listing = CliConfig::from_sources_in(
        Dialect::OpenTofu,
        &Env::empty(),
        [(
            "/home/me/.tofurc",
            format!(
                "oci_default_credentials {{\n  docker_style_config_files = [{:?}]\n}}\n",
                listed.display().to_string()
            ),
        )],
    );
    assert!(
        listing.diagnostics().is_empty(),
        "{:?}",
        listing.diagnostics()
    );
    // A file the default search finds: its problems are warnings.
    let home = dir.path().join("home");
    let found = home.join(".docker/config.json");
    fs::create_dir_all(found.parent().expect("a parent")).expect("mkdir");
    let search_env = Env::empty().with_var("HOME", &home);
    let searching =
        CliConfig::from_sources_in(Dialect::OpenTofu, &search_env, [("/home/me/.tofurc", "")]);
    let doc = fill(r#"{"auths": {"ghcr.io": {"auth": "@AUTH@", "identitytoken": "@TOKEN@"}}}"#);
    let mut check = Check::default();
    for input in mutations(&doc) {
        let case = "config.json";
        check.input();
        fs::write(&listed, &input).expect("write");
        fs::write(&found, &input).expect("write");
        match listing.oci_credentials_policy_for(OciHostOs::Linux, &Env::empty()) {
            Err(e) => check.error(case, &input, &e),
            Ok(policy) => {
                if let Err(e) = policy.credentials_for("ghcr.io", "team/app") {
                    check.error(case, &input, &e);
                }
            }
        }
        match searching.oci_credentials_policy_for(OciHostOs::Linux, &search_env) {
            Err(e) => check.error(case, &input, &e),
            Ok(policy) => {
                for problem in policy.ignored_files() {
                    check.text(case, &input, "an ignored file's problem", problem);
                }
                check.text(case, &input, "the policy's Debug", &format!("{policy:?}"));
                if let Err(e) = policy.credentials_for("ghcr.io", "team/app") {
                    check.error(case, &input, &e);
                }
            }
        }
        check.tracing(case, &input);
    }
    assert!(check.log_bytes > 0, "the tracing output was not captured");
    check.done("Docker-style config.json", started);
}

/// The helper programs, written once per test process before any test runs
/// one (writing an executable while another thread forks can make running
/// it fail with "text file busy"):
///
/// - `terraform-credentials-leak OUT`: prints the file `OUT`;
/// - `docker-credential-leak`, `docker-credential-leakfail`: print the file
///   `docker.out` beside them, then exit with 0 and 1.
fn helpers() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        use std::os::unix::fs::PermissionsExt;
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("tfdisco-no-secret-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("mkdir");
        for (name, text) in [
            ("terraform-credentials-leak", "#!/bin/sh\nexec cat \"$1\"\n"),
            (
                "docker-credential-leak",
                "#!/bin/sh\nexec cat \"${0%/*}/docker.out\"\n",
            ),
            (
                "docker-credential-leakfail",
                "#!/bin/sh\ncat \"${0%/*}/docker.out\"\nexit 1\n",
            ),
        ] {
            let path = dir.join(name);
            fs::write(&path, text).expect("write a helper");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        dir
    })
}

#[test]
fn credentials_helper_answers_in_errors_hold_no_secret() {
    let started = Instant::now();
    let dir = helpers();
    let _tracing = capture_tracing();
    let out = dir.join("terraform.out");
    let program = HelperProgram::new(
        dir.join("terraform-credentials-leak"),
        [out.display().to_string()],
    )
    .expect("absolute");
    let app = host("app.terraform.io");
    let mut answers = mutations(&fill(r#"{"token":"@TOKEN@"}"#));
    answers.extend(
        [
            "\"@TOKEN@\"",
            "@TOKEN@",
            "9@TOKEN@",
            "[\"@TOKEN@\"]",
            "{\"token\":[\"@TOKEN@\"]}",
            "{\"token\":\"@TOKEN@\\n\"}",
        ]
        .map(fill),
    );
    let mut check = Check::default();
    for input in &answers {
        let case = "terraform-credentials-leak get";
        check.input();
        fs::write(&out, input).expect("write");
        if let (_, Some(e)) = tfdisco_core::credentials_for(&program, &app) {
            check.error(case, input, &*e);
        }
        check.tracing(case, input);
    }
    check.done("credentials helper answers", started);
}

/// What a Docker-style credential helper prints for `get`; and what a
/// failing one prints when that is its answer, or the start of it (other
/// text from a failing helper is its error message, shown as OpenTofu
/// shows it, OCICRED-10).
#[test]
fn docker_credential_helper_answers_in_errors_hold_no_secret() {
    let started = Instant::now();
    let dir = helpers();
    let _tracing = capture_tracing();
    let out = dir.join("docker.out");
    let env = Env::empty().with_var("PATH", dir);
    let policy = |name: &str| {
        CliConfig::from_sources_in(
            Dialect::OpenTofu,
            &env,
            [(
                "/home/me/.tofurc",
                format!(
                    "oci_default_credentials {{\n  discover_ambient_credentials = false\n  docker_credentials_helper = \"{name}\"\n}}\n"
                ),
            )],
        )
        .oci_credentials_policy_for(OciHostOs::Linux, &env)
        .expect("a policy")
    };
    let answer = fill(r#"{"Username":"me","Secret":"@TOKEN@"}"#);
    let succeeding = policy("leak");
    let failing = policy("leakfail");
    let mut runs: Vec<(&_, String)> = mutations(&answer)
        .into_iter()
        .map(|input| (&succeeding, input))
        .collect();
    runs.extend(
        (1..=answer.len())
            .map(|end| answer[..end].to_owned())
            .map(|input| (&failing, input)),
    );
    let mut check = Check::default();
    for (policy, input) in &runs {
        let case = "docker-credential-leak get";
        check.input();
        fs::write(&out, input).expect("write");
        if let Err(e) = policy.credentials_for("ghcr.io", "team/app") {
            check.error(case, input, &e);
        }
        check.tracing(case, input);
    }
    check.done("Docker-style credential helper answers", started);
}
