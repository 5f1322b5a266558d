//! Golden results of the real `terraform get` and `terraform init
//! -backend=false` (Terraform 1.11.4) installing modules, one per
//! [`Case`], and what `tfdisco get` must do with the same input: the same,
//! or, where a case says so ([`Expect::Differs`]), a deliberate
//! difference.
//!
//! The modules come from a [module registry](registry) on the loopback
//! [`TestServer`] (archives this module builds, the same bytes at every
//! run), from archives named directly (`https://{SERVER}/archives/…`), and
//! from a [git repository](git) the set-up makes with the real `git`
//! (fixed identities and dates: stable commit ids). The registry's host is
//! [`REGISTRY_HOST`], which has no port: the CLI configuration's `host`
//! block gives its `modules.v1` on the test server, so what the packages'
//! own calls name is the same text at every run (their files' hashes in
//! the manifests too).
//!
//! Each case is a folder of `fixtures/module-goldens/`:
//!
//! - `input/`: the configuration (`main.tf`, maybe `modules/…`);
//! - `before/` and `before.txt`, for a case with a pre-step
//!   ([`Case::before`]): what an earlier `terraform get` against
//!   [`Registry::Base`] left in `.terraform/modules` (the files, and their
//!   [manifest](module_tree)), which [`Case::setup`] puts back;
//! - `modules.json`: `.terraform/modules/modules.json` as Terraform wrote
//!   it, byte for byte but for the placeholders (absent when none);
//! - `tree.txt`: the [manifest](module_tree) of `.terraform/modules`
//!   (`modules.json` left out; a clone's `.git` folder one line,
//!   `git PATH HEAD COMMIT REF`);
//! - `terraform.out`: what Terraform printed;
//! - `exit-code`: its exit code;
//! - `requests.txt`: the requests the test server saw, in order
//!   (`METHOD /path[?query]`).
//!
//! The placeholders: `{HOST}` the registry host, `{SERVER}` the test
//! server (`localhost:PORT`), `{GIT}` the folder holding `repo.git`,
//! `{DIR}` the working directory, `{SCRATCH}` the folder holding them;
//! for a case whose repository is served over https and ssh too
//! ([`Case::remotes`]), `{GIT_HTTPS}`, `{GIT_SSH}` and `{SSHKEY}`
//! ([`remotes`]).
//! Every run is under umask `022`.
//! `cargo run -p tfdisco-testkit --bin module-goldens [CASE…]` makes them
//! again with the `terraform` (and `git`) on the PATH; the tests never
//! need Terraform (the set-up needs `git`).
//!
//! What Terraform 1.11.4 does that may surprise (each pinned by a case):
//!
//! - a symlink in a tar becomes an empty regular file of mode `0777`; a
//!   symlink in a zip becomes a regular file of mode `0777` holding the
//!   target's text (`registry-constraint`, `direct-archives`,
//!   `registry-zip-location`; a zip link named `*.tf` breaks the run, as
//!   its target's name is no HCL: `zip-link-named-tf`);
//! - a tar's folder keeps its mode (`0700`), a zip's folder is made `0755`;
//!   files keep their modes (`0600`, `0755`) in both;
//! - an absolute tar entry (`/absolute.txt`) is unpacked inside the
//!   module, its leading `/` dropped, and the run succeeds
//!   (`archive-absolute`); a `../` entry fails the run after the entries
//!   before it were written (`archive-dotdot`);
//! - every HTTP archive is asked twice, `HEAD` then `GET`, the registry's
//!   relative locations (`./net.tar.gz`, resolved against the download
//!   URL) too;
//! - calls are installed in the order of their keys; a later call of a
//!   package already installed in the run (the same address, the same
//!   version or the same git URL without its `//subdir`) is not fetched
//!   again: the first one's folder is copied, without its dot files
//!   (`.hidden`, `.git`, `.gitignore`, `.tflint.hcl`) and with every folder
//!   `0755` (`same-package-twice`; in `git-refs`, `tag` is a copy of
//!   `subdir`'s clone, which holds the whole repository);
//! - a `//subdir` in the call or in the download location installs the
//!   whole package, `Dir` naming the subfolder (`registry-subdir`); a
//!   registry module's `Source` in `modules.json` is its address, with the
//!   call's `//subdir` but not the location's;
//! - a `github.com/O/R[/SUB]` or `bitbucket.org/O/R` call is cloned from
//!   `https://github.com/O/R.git` (`…bitbucket.org…`), the rest of the
//!   path a subdirectory, and `modules.json`'s `Source` is the detected
//!   `git::https://…` address (`git-shorthands`);
//! - a package URL that is no archive is a page (`?terraform-get=1`) naming
//!   the package in its `X-Terraform-Get` header or a meta tag; a
//!   `//subdir` in what it names installs only that folder, its files'
//!   modes kept, folders `0755` (`http-pages`); a page naming itself is
//!   asked ten times, each error wrapping the next (`page-hop-limit`);
//! - a git clone keeps its `.git` (a branch checked out as
//!   `refs/heads/NAME`, a tag or commit id detached); `?ref=` of a missing
//!   ref leaves the clone of the default branch in place (`git-bad-ref`);
//! - `terraform get` without `-update` does nothing, asks nothing and
//!   prints nothing when `modules.json` already lists every call
//!   (`no-update-newer`); `-update` downloads every registry module again,
//!   unchanged ones too (`update-newer`);
//! - a failed `get` writes no `modules.json` but leaves `.terraform/modules`
//!   (even empty) and what it unpacked; a failed `init` writes a
//!   `modules.json` of the calls that were installed (`init-partial`);
//! - `modules.json` is written without a final newline, `&` in a source
//!   as `\u0026`.
//!
//! ```no_run
//! use tfdisco_testkit::TestServer;
//! use tfdisco_testkit::module_goldens::CASES;
//!
//! for case in CASES {
//!     let server = TestServer::start();
//!     let scratch = tempfile::tempdir().expect("a temporary folder");
//!     let setup = case.setup(&server, scratch.path());
//!     server.take_requests();
//!     // … `tfdisco get` (or `init`) in `setup.dir` with `setup.env()`
//!     // and `case.args`, exiting with `exit` …
//!     # let exit = 0;
//!     let observed = setup.observe(exit, &server.take_requests());
//!     case.expected_for_tfdisco(&setup)
//!         .check(&observed)
//!         .unwrap_or_else(|e| panic!("{}: {e}", case.name));
//! }
//! ```

pub mod git;
pub mod pages;
pub mod registry;
pub mod remotes;
pub mod tar;
mod tree;

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::install_goldens::request_line;
use crate::{Seen, TestServer, pki};

pub use registry::Registry;
pub use remotes::{GIT_HTTPS, GIT_SSH, Remotes, SSH_KEY};
pub use tree::{MODULES_DIR, MODULES_JSON, module_tree, parse_module_line};

/// The registry's host in the configurations and packages (no port: the
/// CLI configuration's `host` block names its `modules.v1`).
pub const REGISTRY_HOST: &str = "registry.example.test";

/// The placeholder for the registry host.
pub const HOST: &str = "{HOST}";
/// The placeholder for the test server (`localhost:PORT`).
pub const SERVER: &str = "{SERVER}";
/// The placeholder for the folder holding the git repository.
pub const GIT: &str = "{GIT}";
/// The placeholder for the working directory.
pub const DIR: &str = "{DIR}";
/// The placeholder for the folder holding the working directory, the git
/// folder, the CLI configuration and the home folder.
pub const SCRATCH: &str = "{SCRATCH}";

/// The command a case runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `terraform get -no-color ARGS`.
    Get,
    /// `terraform init -backend=false -input=false -no-color ARGS` (the
    /// configurations need no provider).
    Init,
}

impl Command {
    /// The arguments before the case's own.
    pub fn args(self) -> &'static [&'static str] {
        match self {
            Command::Get => &["get", "-no-color"],
            Command::Init => &crate::terraform::INIT_ARGS,
        }
    }
}

/// What tfdisco's `.terraform/modules` must be, where it differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tree {
    /// Terraform's (`tree.txt`).
    Terraform,
    /// As before the run (`before.txt`, or nothing): nothing partial.
    Before,
}

/// What tfdisco's `modules.json` must be, where it differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModulesJson {
    /// Terraform's (`modules.json`, or none).
    Terraform,
    /// The one before the run (`before/modules.json`, or none): untouched.
    Before,
}

/// What `tfdisco get` must do with a case's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// What Terraform did: its exit code, `modules.json` and tree, and the
    /// same archives downloaded, each once (no `HEAD` needed).
    Same,
    /// A deliberate difference.
    Differs {
        /// Why, in a line.
        why: &'static str,
        /// tfdisco's exit code.
        exit: i32,
        /// Its tree.
        tree: Tree,
        /// Its `modules.json`.
        modules_json: ModulesJson,
    },
}

/// One golden case.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Its folder under `fixtures/module-goldens/`.
    pub name: &'static str,
    /// What it shows.
    pub about: &'static str,
    /// `get` or `init`.
    pub command: Command,
    /// The command's arguments besides [`Command::args`] (`-update`).
    pub args: &'static [&'static str],
    /// What the registry holds for the run.
    pub registry: Registry,
    /// A pre-step: an earlier `terraform get` against [`Registry::Base`]
    /// whose result is committed as `before/` (and `before.txt`) and put
    /// back by [`Case::setup`].
    pub before: bool,
    /// Terraform's exit code (`exit-code` holds it too).
    pub exit: i32,
    /// What tfdisco must do.
    pub tfdisco: Expect,
    /// Whether the git repository is served over https and ssh too
    /// ([`Remotes`]).
    pub remotes: bool,
}

/// Why tfdisco differs on a failure.
pub const NOTHING_PARTIAL: &str = "a failed tfdisco get leaves nothing partial: .terraform/modules and modules.json stay as they were";

/// Why tfdisco's exit code differs when a module's files do not read.
pub const UNREADABLE_MODULE: &str = "a module whose files do not parse is a configuration that does not read: exit 2, as for the root module (Terraform exits 1), and nothing partial";

/// Why tfdisco's exit code differs when no version fits.
pub const NO_VERSION: &str = "tfdisco exits 3 when no version meets a constraint, as for providers (Terraform exits 1), and leaves nothing partial";

const FAILS: Expect = Expect::Differs {
    why: NOTHING_PARTIAL,
    exit: 1,
    tree: Tree::Before,
    modules_json: ModulesJson::Before,
};

const fn get(name: &'static str, about: &'static str) -> Case {
    Case {
        name,
        about,
        command: Command::Get,
        args: &[],
        registry: Registry::Base,
        before: false,
        exit: 0,
        tfdisco: Expect::Same,
        remotes: false,
    }
}

const fn failing(case: Case) -> Case {
    Case {
        exit: 1,
        tfdisco: FAILS,
        ..case
    }
}

/// Every case, in the order the generator makes them.
pub const CASES: &[Case] = &[
    get(
        "registry-constraint",
        "a registry module picked by its constraint (~> 1.0: 1.1.0, not 2.0.0), relative download location; its package calls another registry module (absolute location) and a local ./ module; a 0700 folder, a 0755 script, a symlink and a dot file in the tar",
    ),
    get(
        "registry-subdir",
        "//subdir in the call (sub//modules/inner, which calls ../shared) and in the download location (./located.tar.gz//modules/x)",
    ),
    get(
        "registry-zip-location",
        "a download location ?archive=zip on the server (absolute); the zip holds a 0700 folder, a 0755 file and a symlink",
    ),
    get(
        "registry-git-location",
        "a download location git::file://…?ref=v1.0.0",
    ),
    get(
        "direct-archives",
        "archives named directly: .tar.gz, .tgz, .zip, ?archive=zip, each with a symlink",
    ),
    get(
        "compressed-tars",
        "archives named directly: .tar.bz2, .tbz2, .tar.xz, .txz, ?archive=tar.xz, each with a symlink",
    ),
    get(
        "checksums",
        "?checksum= of each kind: sha256:, md5 by its length, SHA512: in capitals, sha1:, and file: checksum files in GNU and BSD style",
    ),
    get(
        "git-refs",
        "git: no ref, a tag, a branch, a commit id, depth=1 with a tag, //subdir with a tag",
    ),
    get(
        "same-package-twice",
        "two calls of the same registry package and two of the same git source: the second is a copy of the first",
    ),
    get(
        "local-modules",
        "local modules calling local and registry modules: dotted nested keys (a.b, a.leaf, a.b.c)",
    ),
    Case {
        args: &["-update"],
        registry: Registry::Newer,
        before: true,
        ..get(
            "update-newer",
            "get -update after the registry gained net 1.2.0 (the first get installed 1.1.0)",
        )
    },
    Case {
        registry: Registry::Newer,
        before: true,
        ..get(
            "no-update-newer",
            "get without -update after the registry gained net 1.2.0: what the first get installed stays",
        )
    },
    Case {
        tfdisco: Expect::Differs {
            why: NO_VERSION,
            exit: 3,
            tree: Tree::Before,
            modules_json: ModulesJson::Before,
        },
        ..failing(get(
            "no-version-matches",
            "no version matches the constraint (~> 3.0)",
        ))
    },
    failing(get("download-404", "the registry's download answers 404")),
    failing(get(
        "archive-404",
        "the download location's archive is a 404",
    )),
    failing(get("git-bad-ref", "a git ref that does not exist")),
    failing(get("archive-dotdot", "an archive with a ../ entry")),
    failing(get(
        "checksum-mismatch",
        "an archive whose ?checksum=sha256: is another's",
    )),
    Case {
        tfdisco: Expect::Differs {
            why: UNREADABLE_MODULE,
            exit: 2,
            tree: Tree::Before,
            modules_json: ModulesJson::Before,
        },
        ..failing(get(
            "zip-link-named-tf",
            "a zip whose symlink is named link.tf: unpacked as a file holding its target's name, then read as configuration",
        ))
    },
    get(
        "archive-absolute",
        "an archive with an absolute /absolute.txt entry: Terraform drops the leading / and installs it inside the module",
    ),
    get(
        "http-pages",
        "package URLs that are no archive: a page's X-Terraform-Get header to a .zip, a meta tag to a .tgz, two pages (the second ?archive=false), a //lib subdir of a .tar.gz kept alone",
    ),
    failing(get(
        "page-hop-limit",
        "a page whose X-Terraform-Get names itself: ten pages asked, the eleventh refused",
    )),
    Case {
        remotes: true,
        ..get(
            "git-https",
            "git over https (the real git http-backend, trusted through GIT_SSL_CAINFO): a tag, a branch with depth=1, //subdir of the default branch",
        )
    },
    Case {
        remotes: true,
        ..get(
            "git-ssh-key",
            "git over ssh (a real sshd) with sshkey= the only key that logs in: a tag, a branch with depth=1",
        )
    },
    Case {
        remotes: true,
        ..get(
            "git-shorthands",
            "github.com/… and bitbucket.org/… shorthands, detected into git::https:// and cloned by the real git (rewritten to the test's server by git's own insteadOf): a ref, a //subdir",
        )
    },
    Case {
        command: Command::Init,
        ..get(
            "init-registry",
            "terraform init -backend=false installing registry-constraint's modules",
        )
    },
    Case {
        command: Command::Init,
        ..failing(get(
            "init-partial",
            "terraform init -backend=false with one good call and one whose download is a 404",
        ))
    },
];

/// The folder holding every case's folder.
pub fn goldens_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/module-goldens")
}

/// The case named `name`; panics when there is none.
pub fn case(name: &str) -> &'static Case {
    CASES
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no module golden case {name}"))
}

/// The committed `modules.json` (and the folder `before/` holds).
pub const MODULES_JSON_GOLDEN: &str = "modules.json";

pub(crate) fn read_fixture(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub(crate) fn read_optional(path: &Path) -> Option<String> {
    match fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

pub(crate) fn mkdir(path: &Path, mode: u32) {
    fs::create_dir_all(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    chmod(path, mode);
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

impl Case {
    /// This case's folder.
    pub fn dir(&self) -> PathBuf {
        goldens_dir().join(self.name)
    }

    /// The arguments of the command Terraform ran: [`Command::args`] and
    /// [`Case::args`].
    pub fn terraform_args(&self) -> Vec<&'static str> {
        let mut args = self.command.args().to_vec();
        args.extend_from_slice(self.args);
        args
    }

    /// Sets a run up on `server` in `scratch`, without Terraform: serves
    /// the registry as [`Case::registry`] says, makes the git repository
    /// in `scratch/git`, copies `input/` into `scratch/work` (the
    /// placeholders filled in), puts back the pre-step's `before/` state
    /// (files, folders and links with their modes, `modules.json`), writes
    /// the CLI configuration `scratch/terraformrc` and makes an empty
    /// `scratch/home`.
    pub fn setup(&self, server: &TestServer, scratch: &Path) -> Setup {
        let setup = self.setup_with(server, scratch, self.registry);
        if self.before {
            setup.restore(&self.dir());
        }
        setup
    }

    /// The set-up of the pre-step's run (the generator's): as
    /// [`Case::setup`], against [`Registry::Base`], without the `before/`
    /// state.
    pub fn setup_first_run(&self, server: &TestServer, scratch: &Path) -> Setup {
        self.setup_with(server, scratch, Registry::Base)
    }

    fn setup_with(&self, server: &TestServer, scratch: &Path, registry: Registry) -> Setup {
        let git = scratch.join("git");
        git::make_repo(&git);
        registry::serve(server, registry, REGISTRY_HOST, &git);
        let remotes = self
            .remotes
            .then(|| Arc::new(Remotes::start(&git, scratch)));
        pages::serve(server);
        let setup = Setup {
            dir: scratch.join("work"),
            cli_config: scratch.join("terraformrc"),
            home: scratch.join("home"),
            git,
            host: REGISTRY_HOST.to_owned(),
            server_host: server.host().to_string(),
            remotes,
        };
        setup.copy_filled(&self.dir().join("input"), &setup.dir);
        mkdir(&setup.home, 0o755);
        let config = format!(
            "disable_checkpoint = true\nhost \"{REGISTRY_HOST}\" {{\n  services = {{\n    \"modules.v1\" = \"{}\"\n  }}\n}}\n",
            server.url(registry::MODULES_PATH)
        );
        fs::write(&setup.cli_config, config)
            .unwrap_or_else(|e| panic!("{}: {e}", setup.cli_config.display()));
        setup
    }

    /// The manifest before the run (`before.txt`; empty without a
    /// pre-step).
    pub fn before_tree(&self) -> String {
        read_optional(&self.dir().join("before.txt")).unwrap_or_default()
    }

    /// The `modules.json` before the run, placeholders filled in for
    /// `setup`; `None` without one.
    pub fn before_modules_json(&self, setup: &Setup) -> Option<String> {
        read_optional(&self.dir().join("before").join(MODULES_JSON)).map(|t| setup.fill(&t))
    }

    /// The manifest Terraform left (`tree.txt`).
    pub fn terraform_tree(&self) -> String {
        read_fixture(&self.dir().join("tree.txt"))
    }

    /// The `modules.json` Terraform left, placeholders filled in for
    /// `setup`; `None` when it left none.
    pub fn terraform_modules_json(&self, setup: &Setup) -> Option<String> {
        read_optional(&self.dir().join(MODULES_JSON_GOLDEN)).map(|t| setup.fill(&t))
    }

    /// Terraform's exit code, as committed.
    pub fn terraform_exit(&self) -> i32 {
        let text = read_fixture(&self.dir().join("exit-code"));
        text.trim()
            .parse()
            .unwrap_or_else(|e| panic!("{}: exit-code {text:?}: {e}", self.name))
    }

    /// What Terraform printed (with the placeholders).
    pub fn terraform_output(&self) -> String {
        read_fixture(&self.dir().join("terraform.out"))
    }

    /// The requests Terraform made, in order (`METHOD /path[?query]`, the
    /// placeholders filled in for `setup`).
    pub fn terraform_requests(&self, setup: &Setup) -> Vec<String> {
        setup
            .fill(&read_fixture(&self.dir().join("requests.txt")))
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// What `tfdisco get` must leave after this case's run set up as
    /// `setup`.
    pub fn expected_for_tfdisco(&self, setup: &Setup) -> Expected {
        let (exit, tree, modules_json) = match self.tfdisco {
            Expect::Same => (self.exit, Tree::Terraform, ModulesJson::Terraform),
            Expect::Differs {
                exit,
                tree,
                modules_json,
                ..
            } => (exit, tree, modules_json),
        };
        Expected {
            exit,
            tree: match tree {
                Tree::Terraform => self.terraform_tree(),
                Tree::Before => self.before_tree(),
            },
            modules_json: match modules_json {
                ModulesJson::Terraform => self.terraform_modules_json(setup),
                ModulesJson::Before => self.before_modules_json(setup),
            },
            downloads: downloads(&self.terraform_requests(setup)),
        }
    }
}

/// The archive downloads among `requests`: the `GET`s of neither the
/// discovery document nor the registry's API, sorted, each once.
pub fn downloads(requests: &[String]) -> Vec<String> {
    let mut out: Vec<String> = requests
        .iter()
        .filter_map(|r| r.strip_prefix("GET "))
        .filter(|path| is_archive(path))
        .map(str::to_owned)
        .collect();
    out.sort();
    out.dedup();
    out
}

fn is_archive(path: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    !(path.starts_with("/.well-known/")
        || path.starts_with(registry::MODULES_PATH)
            && (path.ends_with("/versions") || path.ends_with("/download")))
}

/// Whether `path` is a package page's request (go-getter adds
/// `terraform-get=1` to the page's query).
fn is_page(path: &str) -> bool {
    path.split_once('?')
        .is_some_and(|(_, query)| query.split('&').any(|p| p == "terraform-get=1"))
}

/// Where a case's run reads and writes ([`Case::setup`]).
#[derive(Debug, Clone)]
pub struct Setup {
    /// The working directory: the configuration, `.terraform/modules`.
    pub dir: PathBuf,
    /// The CLI configuration file (the registry host's `host` block).
    pub cli_config: PathBuf,
    /// An empty home folder.
    pub home: PathBuf,
    /// The folder holding the git repository `repo.git` (`{GIT}`).
    pub git: PathBuf,
    /// The registry's host (`{HOST}`).
    pub host: String,
    /// The test server's host, `localhost:PORT` (`{SERVER}`).
    pub server_host: String,
    /// The git repository over https and ssh, for a case with
    /// [`Case::remotes`] (running as long as a clone of the set-up).
    pub remotes: Option<Arc<Remotes>>,
}

impl Setup {
    /// The variables of a run: `TF_CLI_CONFIG_FILE`, `HOME`,
    /// `SSL_CERT_FILE` (the testkit's CA) and `GIT_CONFIG_NOSYSTEM=1`;
    /// with [`Remotes`], their `GIT_SSL_CAINFO` and `GIT_SSH_COMMAND`.
    pub fn env(&self) -> Vec<(&'static str, OsString)> {
        let mut env = vec![
            (
                "TF_CLI_CONFIG_FILE",
                self.cli_config.clone().into_os_string(),
            ),
            ("HOME", self.home.clone().into_os_string()),
            ("SSL_CERT_FILE", pki().ca_file().clone().into_os_string()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ];
        if let Some(remotes) = &self.remotes {
            env.extend(remotes.env());
        }
        env
    }

    /// The manifest of `.terraform/modules` now.
    pub fn tree(&self) -> String {
        module_tree(&self.dir)
    }

    /// `.terraform/modules/modules.json` now, if any.
    pub fn modules_json(&self) -> Option<String> {
        read_optional(&self.dir.join(MODULES_DIR).join(MODULES_JSON))
    }

    /// What a run that exited with `exit` and made `requests` left.
    pub fn observe(&self, exit: i32, requests: &[Seen]) -> Observed {
        Observed {
            exit,
            modules_json: self.modules_json(),
            tree: self.tree(),
            requests: requests.iter().map(request_line).collect(),
        }
    }

    /// `text` with the placeholders in: the working directory `{DIR}`, the
    /// git folder `{GIT}`, the scratch folder `{SCRATCH}`, the registry
    /// host `{HOST}`, the server `{SERVER}`.
    pub fn normalize(&self, text: &str) -> String {
        let mut text = match &self.remotes {
            Some(remotes) => remotes.normalize(text),
            None => text.to_owned(),
        };
        text = text.replace(&*self.dir.to_string_lossy(), DIR);
        text = text.replace(&*self.git.to_string_lossy(), GIT);
        if let Some(scratch) = self.dir.parent() {
            text = text.replace(&*scratch.to_string_lossy(), SCRATCH);
        }
        text = text.replace(&self.host, HOST);
        text.replace(&self.server_host, SERVER)
    }

    /// `text` with the placeholders filled in ([`Setup::normalize`]
    /// undone).
    pub fn fill(&self, text: &str) -> String {
        let mut text = text
            .replace(DIR, &self.dir.to_string_lossy())
            .replace(GIT, &self.git.to_string_lossy());
        if let Some(scratch) = self.dir.parent() {
            text = text.replace(SCRATCH, &scratch.to_string_lossy());
        }
        text = text
            .replace(HOST, &self.host)
            .replace(SERVER, &self.server_host);
        match &self.remotes {
            Some(remotes) => remotes.fill(&text),
            None => text,
        }
    }

    /// Copies the text files under `from` into `to` with the placeholders
    /// filled in (folders `0755`, files `0644`).
    pub(crate) fn copy_filled(&self, from: &Path, to: &Path) {
        mkdir(to, 0o755);
        let entries = fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        for entry in entries {
            let entry = entry.expect("a directory entry");
            let target = to.join(entry.file_name());
            if entry.file_type().expect("a file type").is_dir() {
                self.copy_filled(&entry.path(), &target);
            } else {
                fs::write(&target, self.fill(&read_fixture(&entry.path())))
                    .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
                chmod(&target, 0o644);
            }
        }
    }

    /// Puts back the pre-step's state of case folder `golden`: each
    /// entry of `before.txt` (folders and files with their modes, files'
    /// contents from `before/`, links), then `before/modules.json`.
    fn restore(&self, golden: &Path) {
        let manifest = read_fixture(&golden.join("before.txt"));
        let before = golden.join("before");
        let mut modes = Vec::new();
        for line in manifest.lines() {
            let (kind, mode, path, detail) =
                parse_module_line(line).unwrap_or_else(|| panic!("not a manifest line: {line}"));
            let target = self.dir.join(path);
            let rel = path
                .strip_prefix(MODULES_DIR)
                .unwrap_or_else(|| panic!("{path}: not under {MODULES_DIR}"))
                .trim_start_matches('/');
            match kind {
                "dir" => {
                    mkdir(&target, 0o755);
                    modes.push((target, mode.unwrap_or(0o755)));
                }
                "file" => {
                    fs::write(&target, self.fill(&read_fixture(&before.join(rel))))
                        .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
                    chmod(&target, mode.unwrap_or(0o644));
                }
                "link" => std::os::unix::fs::symlink(self.fill(detail), &target)
                    .unwrap_or_else(|e| panic!("{}: {e}", target.display())),
                other => panic!("{line}: a {other} entry cannot be put back"),
            }
        }
        if let Some(json) = read_optional(&before.join(MODULES_JSON)) {
            let path = self.dir.join(MODULES_DIR).join(MODULES_JSON);
            fs::write(&path, self.fill(&json))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        // Folder modes last, deepest first: a 0700 folder stays writable
        // until its entries are in.
        for (path, mode) in modes.into_iter().rev() {
            chmod(&path, mode);
        }
    }
}

/// What a run left: compare it with an [`Expected`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    /// The exit code.
    pub exit: i32,
    /// `.terraform/modules/modules.json`, if any.
    pub modules_json: Option<String>,
    /// The [manifest](module_tree) of `.terraform/modules`.
    pub tree: String,
    /// The requests made, in order ([`request_line`]).
    pub requests: Vec<String>,
}

/// What a `tfdisco get` run must leave ([`Case::expected_for_tfdisco`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The exit code.
    pub exit: i32,
    /// The manifest (made under umask `022`).
    pub tree: String,
    /// `modules.json` byte for byte, or none.
    pub modules_json: Option<String>,
    /// The archives Terraform downloaded ([`downloads`]): exactly these,
    /// each once. Git clones are not seen by the server.
    pub downloads: Vec<String>,
}

impl Expected {
    /// Checks `observed`: the exit code, the tree and `modules.json` byte
    /// for byte, the archives downloaded (each once, no other; `HEAD`s and
    /// the registry's API are free; a package page as often as it is
    /// named). The error says every difference.
    pub fn check(&self, observed: &Observed) -> Result<(), String> {
        let mut problems = Vec::new();
        if observed.exit != self.exit {
            problems.push(format!(
                "exit code {} where {} was expected",
                observed.exit, self.exit
            ));
        }
        if observed.tree != self.tree {
            problems.push(format!(
                "the tree differs:\n--- expected\n{}--- observed\n{}",
                self.tree, observed.tree
            ));
        }
        if observed.modules_json != self.modules_json {
            problems.push(format!(
                "modules.json differs:\n--- expected\n{}\n--- observed\n{}",
                self.modules_json.as_deref().unwrap_or("(none)"),
                observed.modules_json.as_deref().unwrap_or("(none)")
            ));
        }
        let mut got: Vec<String> = observed
            .requests
            .iter()
            .filter_map(|r| r.strip_prefix("GET "))
            .filter(|path| is_archive(path))
            .map(str::to_owned)
            .collect();
        got.sort();
        let mut once = got.clone();
        once.dedup();
        // A page (`?terraform-get=1`, MOD-7) is asked again by each page
        // that names it (`page-hop-limit`); an archive is downloaded once.
        let mut archives = got.clone();
        archives.retain(|path| !is_page(path));
        let archive_count = archives.len();
        archives.dedup();
        if archives.len() != archive_count {
            problems.push(format!("an archive was downloaded more than once: {got:?}"));
        }
        if once != self.downloads {
            problems.push(format!(
                "downloads {once:?} where {:?} were expected",
                self.downloads
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }
}

#[cfg(test)]
mod tests;
