//! Running one [`Case`] with the real `terraform` and writing its golden
//! files (the `login-goldens` generator): the home folder, the CLI
//! configuration, the browser and helper scripts, the prompts answered
//! one at a time, the run bounded, the random values replaced by
//! placeholders once their relations are checked.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{BROWSER_SCRIPT, Case, Exit, HELPER_NAME, HELPER_SCRIPT, Ports};
use crate::generator::write;
use crate::oauth_server::{OAuthServer, OAuthSettings, s256_challenge};
use crate::pki;
use crate::terraform::{strip_colours, terraform_environment, terraform_program};

/// The prompt Terraform prints before it reads an answer.
const PROMPT: &str = "Enter a value:";

/// How long the browser's fetch may still take after Terraform ended.
const BROWSER_GRACE: Duration = Duration::from_secs(3);

/// What one run left.
struct Outcome {
    exit: Option<i32>,
    stdout: String,
    stderr: String,
}

/// A pipe read to its end on a thread of its own.
fn drain(mut from: impl Read + Send + 'static) -> (Arc<Mutex<Vec<u8>>>, JoinHandle<()>) {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let sink = buffer.clone();
    let thread = std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = from.read(&mut chunk) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(&chunk[..n]);
        }
    });
    (buffer, thread)
}

fn text(buffer: &Mutex<Vec<u8>>) -> String {
    String::from_utf8_lossy(&buffer.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
}

/// Answers each prompt in turn (the next answer once the prompt appears
/// on standard output), then waits for the end, killing the run at
/// `deadline`.
fn drive(mut child: Child, answers: &[&str], deadline: Instant) -> Result<Outcome, String> {
    let (out, out_thread) = drain(child.stdout.take().ok_or("no stdout")?);
    let (err, err_thread) = drain(child.stderr.take().ok_or("no stderr")?);
    let mut stdin = child.stdin.take();
    let mut answered = 0;
    let exit = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status.code();
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        if answered < answers.len() && text(&out).matches(PROMPT).count() > answered {
            if let Some(pipe) = stdin.as_mut() {
                let _ = pipe.write_all(format!("{}\n", answers[answered]).as_bytes());
                let _ = pipe.flush();
            }
            answered += 1;
            if answered == answers.len() {
                stdin = None;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    let _ = out_thread.join();
    let _ = err_thread.join();
    Ok(Outcome {
        exit,
        stdout: strip_colours(&text(&out)),
        stderr: strip_colours(&text(&err)),
    })
}

fn executable(path: &Path, text: &str) -> Result<(), String> {
    write(path, text)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The placeholders of one run, longest value first.
#[derive(Default)]
struct Placeholders(Vec<(String, String)>);

impl Placeholders {
    fn add(&mut self, value: &str, name: &str) {
        if !value.is_empty() && !self.0.iter().any(|(v, _)| v == value) {
            self.0.push((value.to_owned(), name.to_owned()));
        }
    }

    fn port(&mut self, port: u16, name: &str) {
        for prefix in [":", "%3A", "%3a"] {
            self.add(&format!("{prefix}{port}"), &format!("{prefix}{{{name}}}"));
        }
        // "between LOW and HIGH" in the message of a port range.
        self.add(&format!("between {port} "), &format!("between {{{name}}} "));
        self.add(&format!("and {port}"), &format!("and {{{name}}}"));
    }

    fn apply(&self, text: &str) -> String {
        let mut sorted: Vec<&(String, String)> = self.0.iter().collect();
        sorted.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
        sorted
            .iter()
            .fold(text.to_owned(), |t, (value, name)| t.replace(value, name))
    }
}

fn query_field(url: &str, name: &str) -> Option<String> {
    let (_, query) = url.split_once('?')?;
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
}

fn callback_port(uri: &str) -> Option<u16> {
    uri.strip_prefix("http://localhost:")?
        .strip_suffix("/login")?
        .parse()
        .ok()
}

/// The folder the runs are made in: `TMP/tfdisco-login-PID`, the process
/// id in 8 digits, so the paths have one length at every run (Terraform
/// wraps its messages by their width, paths included).
pub fn scratch_root() -> PathBuf {
    std::env::temp_dir().join(format!("tfdisco-login-{:08}", std::process::id()))
}

/// Runs `case` in its folder under [`scratch_root`] (not the generator's
/// scratch folder, whose length varies) and writes its golden folder; the
/// summary line, or what went wrong (a wrong exit, a broken relation).
///
/// Terraform closes its callback server as soon as it has the code, and
/// Go's `Server.Close` closes the connection being answered too: the
/// browser gets its page, or, as often as not, nothing (`curl: (52) Empty
/// reply from server`). A case whose browser got nothing runs again (at
/// most 8 times), so the golden has the page.
pub fn make(case: &Case, _generator_scratch: &Path) -> Result<String, String> {
    let mut tries = 1;
    loop {
        let summary = make_once(case)?;
        let callback = fs::read_to_string(case.dir().join("callback.txt")).unwrap_or_default();
        if !callback.starts_with(CUT_CALLBACK) || tries == TRIES {
            return Ok(format!(
                "{summary} ({tries} run{})",
                if tries > 1 { "s" } else { "" }
            ));
        }
        tries += 1;
    }
}

/// What the browser wrote when Terraform closed its callback connection
/// before answering: the status of the redirect before it.
const CUT_CALLBACK: &str = "status 302";

/// How many times a case runs at most until the browser has Terraform's
/// callback page.
const TRIES: u32 = 8;

/// One run of `case` with the real `terraform`; its golden folder written.
fn make_once(case: &Case) -> Result<String, String> {
    let scratch = &scratch_root().join(case.name);
    let _ = fs::remove_dir_all(scratch);
    let program = terraform_program();
    let ran = run(case, scratch, &program, BROWSER_SCRIPT, &|authority| {
        case.command_line(authority)
    })?;
    let golden = case.dir();
    let _ = fs::remove_dir_all(&golden);
    fs::create_dir_all(&golden).map_err(|e| format!("{}: {e}", golden.display()))?;
    for (name, bytes) in &ran.files {
        fs::write(golden.join(name), bytes).map_err(|e| format!("{name}: {e}"))?;
    }
    let expected = match case.exit {
        Exit::Code(code) => Some(code),
        Exit::Killed => None,
    };
    if !ran.problems.is_empty() {
        return Err(ran.problems.join("; "));
    }
    if ran.exit != expected {
        return Err(format!(
            "exit {:?} where the case says {:?}:\n{}{}",
            ran.exit,
            case.exit,
            ran.text("stdout"),
            ran.text("stderr")
        ));
    }
    Ok(ran.summary)
}

/// What one run of a case left: the files of its golden folder (the
/// random values, ports and paths replaced by their placeholders), its
/// exit code (`None`: killed at the case's limit), the relations between
/// the random values that did not hold, and a summary line.
#[derive(Debug)]
pub struct Ran {
    /// Each file's name in a golden folder and its bytes.
    pub files: std::collections::BTreeMap<&'static str, Vec<u8>>,
    /// The exit code; `None` when it was killed.
    pub exit: Option<i32>,
    /// Relations that did not hold (a challenge that is not `S256` of the
    /// verifier, a code that was not issued, …).
    pub problems: Vec<String>,
    /// One line: the exit, the requests, the file.
    pub summary: String,
}

impl Ran {
    /// The file `name` as text (empty when the run left none).
    pub fn text(&self, name: &str) -> String {
        self.files
            .get(name)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }
}

/// Runs `case` with `program` (the real `terraform`, or a tool compared
/// with it) in `scratch` (made; its length shows in wrapped output): the
/// server, the home folder, the CLI configuration, `browser` as `xdg-open`
/// ([`BROWSER_SCRIPT`], or another that honours its variables) and the
/// helper script as [the module](super) says, the arguments `command_line`
/// gives for the server's `localhost:PORT`, the prompts answered one at a
/// time, the run killed at the case's limit.
pub fn run(
    case: &Case,
    scratch: &Path,
    program: &std::ffi::OsStr,
    browser: &str,
    command_line: &dyn Fn(&str) -> Vec<String>,
) -> Result<Ran, String> {
    let home = scratch.join("home");
    let bin = scratch.join("bin");
    let work = scratch.join("work");
    for dir in [&home, &bin, &work] {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let taken = (case.ports == Ports::Taken)
        .then(|| std::net::TcpListener::bind("127.0.0.1:0"))
        .transpose()
        .map_err(|e| format!("holding a port: {e}"))?;
    let taken_port = taken
        .as_ref()
        .and_then(|l| l.local_addr().ok())
        .map(|a| a.port());
    let mut settings: OAuthSettings = (case.settings)();
    settings.ports = match case.ports {
        Ports::Default => settings.ports,
        Ports::Range(low, high) => Some((low, high)),
        Ports::Taken => taken_port.map(|p| (p, p + 1)),
    };
    let server = OAuthServer::start(settings);
    let host = match (case.host, case.main_tf) {
        ("", None) => "app.terraform.io",
        ("", Some(_)) => super::HOST,
        (host, _) => host,
    };
    if let Some(main_tf) = case.main_tf {
        write(&work.join("main.tf"), main_tf)?;
    }
    let mut config = String::new();
    if case.host_block {
        config.push_str(&server.host_block(host));
    }
    config.push_str(case.cli_config);
    let helper_log = scratch.join("helper.log");
    if case.helper {
        config.push_str(&format!("credentials_helper \"{HELPER_NAME}\" {{}}\n"));
        executable(
            &home.join(format!(
                ".terraform.d/plugins/terraform-credentials-{HELPER_NAME}"
            )),
            HELPER_SCRIPT,
        )?;
    }
    if case.config_dir {
        let dir = home.join(".terraform.d");
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let config_file = if case.config_env {
        scratch.join("cli.tfrc")
    } else {
        home.join(".terraformrc")
    };
    write(&config_file, &config)?;
    executable(&bin.join("xdg-open"), browser)?;
    let credentials = home.join(".terraform.d/credentials.tfrc.json");
    if let Some(before) = case.before {
        write(&credentials, before)?;
        fs::set_permissions(&credentials, fs::Permissions::from_mode(0o600))
            .map_err(|e| e.to_string())?;
    }
    let browser_log = scratch.join("browser.log");
    let browser_out = scratch.join("callback");

    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.clone()];
    paths.extend(std::env::split_paths(&path));
    let mut command = Command::new(program);
    terraform_environment(&mut command);
    command
        .args(command_line(&server.authority()))
        .current_dir(&work)
        .env("HOME", &home)
        .env(
            "PATH",
            std::env::join_paths(paths).map_err(|e| e.to_string())?,
        )
        .env("TFDISCO_BROWSER_LOG", &browser_log)
        .env("TFDISCO_BROWSER_OUT", &browser_out)
        .env("TFDISCO_BROWSER_CA", pki().ca_file())
        .env("TFDISCO_HELPER_LOG", &helper_log)
        .env_remove("BROWSER")
        .env_remove("DISPLAY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if case.config_env {
        command.env("TF_CLI_CONFIG_FILE", &config_file);
    } else {
        command.env_remove("TF_CLI_CONFIG_FILE");
    }
    let child = command
        .spawn()
        .map_err(|e| format!("running {}: {e}", program.to_string_lossy()))?;
    let outcome = drive(
        child,
        case.answers,
        Instant::now() + Duration::from_secs(case.limit),
    )?;
    drop(taken);

    let browser = fs::read_to_string(&browser_log).unwrap_or_default();
    let callback = if browser.is_empty() {
        None
    } else {
        let end = Instant::now() + BROWSER_GRACE;
        while !browser_out.exists() && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(20));
        }
        fs::read_to_string(&browser_out).ok()
    };

    // The random values, their relations checked, then placeholders.
    let authz = server.authz_requests();
    let tokens = server.token_requests();
    let mut checks = Vec::new();
    let mut problems = Vec::new();
    let mut names = Placeholders::default();
    let launched = browser.lines().next().unwrap_or("");
    let state = query_field(launched, "state").unwrap_or_default();
    let challenge = query_field(launched, "code_challenge").unwrap_or_default();
    if !state.is_empty() {
        checks.push(format!(
            "state: {} characters, the form of a UUID: {}",
            state.len(),
            is_uuid(&state)
        ));
    }
    for request in &authz {
        if request.field("state") != Some(state.as_str()) {
            problems.push("an authz request's state is not the launched URL's".to_owned());
        }
        if request.field("code_challenge") != Some(challenge.as_str()) {
            problems.push("an authz request's challenge is not the launched URL's".to_owned());
        }
        for problem in &request.problems {
            checks.push(format!("the server found in an authz request: {problem}"));
        }
    }
    if !authz.is_empty() {
        checks.push("every authz request has the launched URL's state and challenge".to_owned());
    }
    let codes: Vec<String> = authz.iter().filter_map(|a| a.code.clone()).collect();
    for (i, request) in tokens.iter().enumerate() {
        if let Some(verifier) = request.field("code_verifier") {
            names.add(verifier, "{CODE_VERIFIER}");
            let (uuid, digits) = verifier.split_at(verifier.len().min(36));
            checks.push(format!(
                "token request {}: code_verifier of {} characters, a UUID: {}, then {:?} and 9 digits: {}",
                i + 1,
                verifier.len(),
                is_uuid(uuid),
                digits.get(..1).unwrap_or(""),
                digits.len() == 10 && digits[1..].bytes().all(|b| b.is_ascii_digit())
            ));
            if s256_challenge(verifier) == challenge {
                checks.push(format!(
                    "token request {}: S256(code_verifier) is the code_challenge",
                    i + 1
                ));
            } else {
                problems.push(format!(
                    "token request {}: S256(verifier) is not the challenge",
                    i + 1
                ));
            }
        }
        if let Some(code) = request.field("code") {
            if codes.iter().any(|c| c == code) {
                checks.push(format!("token request {}: code is the code issued", i + 1));
            } else {
                problems.push(format!("token request {}: a code not issued", i + 1));
            }
        }
        for problem in &request.problems {
            checks.push(format!(
                "the server found in token request {}: {problem}",
                i + 1
            ));
        }
    }
    names.add(&state, "{STATE}");
    names.add(&challenge, "{CODE_CHALLENGE}");
    for (i, code) in codes.iter().enumerate() {
        names.add(code, if i == 0 { "{CODE}" } else { "{CODE2}" });
    }
    if let Some(port) = query_field(launched, "redirect_uri").and_then(|u| callback_port(&u)) {
        names.port(port, "CALLBACK_PORT");
    }
    if let Some(port) = taken_port {
        names.port(port, "TAKEN_PORT");
        names.port(port + 1, "TAKEN_PORT_PLUS_1");
    }
    names.port(server.port(), "PORT");
    names.port(server.server().http_port(), "HTTP_PORT");
    names.add(&home.display().to_string(), "{HOME}");
    names.add(&scratch.display().to_string(), "{SCRATCH}");

    let mut files = std::collections::BTreeMap::new();
    let mut put = |name: &'static str, text: &str| {
        files.insert(name, temp_names(&names.apply(text)).into_bytes());
    };
    let after = fs::read(&credentials).ok();
    if let Some(after) = &after {
        let text = String::from_utf8(after.clone()).map_err(|e| e.to_string())?;
        put("credentials.after.json", &text);
        let mode = fs::metadata(&credentials)
            .map_err(|e| e.to_string())?
            .permissions()
            .mode();
        put(
            "credentials.after.mode",
            &format!("{:04o}\n", mode & 0o7777),
        );
    }
    let exit_text = match outcome.exit {
        Some(code) => format!("{code}\n"),
        None => "killed\n".to_owned(),
    };
    put("exit-code", &exit_text);
    put("stdout", &outcome.stdout);
    put("stderr", &outcome.stderr);
    put("authz.txt", &authz_text(&server));
    put("token.txt", &token_text(&server));
    put("services.txt", &services_text(&server));
    put("browser.txt", &browser);
    if let Some(callback) = &callback {
        put("callback.txt", callback);
    }
    if case.helper {
        put(
            "helper.txt",
            &fs::read_to_string(&helper_log).unwrap_or_default(),
        );
    }
    let checks_text: String = checks.iter().map(|c| format!("{c}\n")).collect();
    put("checks.txt", &checks_text);
    if let Some(before) = case.before {
        files.insert("credentials.before.json", before.as_bytes().to_vec());
    }
    let summary = format!(
        "{}, {} authz and {} token requests, file {}",
        exit_text.trim(),
        authz.len(),
        tokens.len(),
        if after.is_some() {
            "written or kept"
        } else {
            "absent"
        }
    );
    Ok(Ran {
        files,
        exit: outcome.exit,
        problems,
        summary,
    })
}

/// `credentials.tfrc.json` followed by digits (Go's temporary file) as
/// `credentials.tfrc.json{RANDOM}`.
fn temp_names(text: &str) -> String {
    const NAME: &str = "credentials.tfrc.json";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(NAME) {
        let (head, tail) = rest.split_at(at + NAME.len());
        out.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            out.push_str("{RANDOM}");
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn fields_text(out: &mut String, fields: &[(String, String)]) {
    for (name, value) in fields {
        out.push_str(&format!("  {name}={value}\n"));
    }
}

fn authz_text(server: &OAuthServer) -> String {
    let mut out = String::new();
    for (i, request) in server.authz_requests().iter().enumerate() {
        out.push_str(&format!("request {}: GET /authz\n", i + 1));
        fields_text(&mut out, &request.fields);
        for problem in &request.problems {
            out.push_str(&format!("  problem: {problem}\n"));
        }
        if let Some(location) = &request.location {
            out.push_str(&format!("  answered: 302 {location}\n"));
        } else {
            out.push_str("  answered: 400\n");
        }
    }
    out
}

fn token_text(server: &OAuthServer) -> String {
    let mut out = String::new();
    for (i, request) in server.token_requests().iter().enumerate() {
        out.push_str(&format!("request {}: POST /token\n", i + 1));
        out.push_str(&format!(
            "  Authorization: {}\n",
            request.authorization.as_deref().unwrap_or("(none)")
        ));
        out.push_str(&format!(
            "  Content-Type: {}\n",
            request.content_type.as_deref().unwrap_or("(none)")
        ));
        fields_text(&mut out, &request.fields);
        if let Some((client, from)) = &request.client {
            out.push_str(&format!("  client: {client} ({from})\n"));
        }
        for problem in &request.problems {
            out.push_str(&format!("  problem: {problem}\n"));
        }
        out.push_str(&format!("  answered: {}\n", request.status));
    }
    out
}

fn services_text(server: &OAuthServer) -> String {
    server
        .service_requests()
        .iter()
        .map(|r| {
            format!(
                "{} {} Authorization: {} answered: {}\n",
                r.method,
                r.path,
                r.authorization.as_deref().unwrap_or("(none)"),
                r.status
            )
        })
        .collect()
}
