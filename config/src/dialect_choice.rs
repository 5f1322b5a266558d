//! Which dialect a user means when they name none (docs/behaviour.md,
//! CFG-14): [`DialectChoice`].

use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::ser::{Serialize, SerializeStruct, Serializer};
use tfdisco_core::{Dialect, Env, UnknownDialect};

use crate::LOCK_FILE_NAME;

/// The variable that names the dialect when no argument does.
pub const DIALECT_VAR: &str = "TFDISCO_DIALECT";

/// How much of a lock file is read to tell its CLI and hosts.
const LOCK_FILE_PEEK: u64 = 1 << 20;

/// A dialect and what chose it: Terraform's rules or OpenTofu's, told by
/// what a working folder and the machine say, in this order
/// ([`DialectChoice::detect`]):
///
/// 1. a dialect given (`--dialect`, an argument): [`DialectChoice::given`];
/// 2. the variable `TFDISCO_DIALECT` (`terraform`, `opentofu` or `tofu`);
/// 3. the folder's lock file: the CLI its first line names (`"terraform
///    init"`, `"tofu init"`), else the registry every provider in it is
///    from (`registry.terraform.io`, `registry.opentofu.org`);
/// 4. `.tofu` or `.tofu.json` files in the folder (only OpenTofu reads them);
/// 5. which of `terraform` and `tofu` is on the `PATH`, when only one is;
/// 6. else OpenTofu, the default of every call that is given a dialect.
///
/// The files are only looked at: a lock file that does not parse still
/// tells its CLI by its first line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DialectChoice {
    dialect: Dialect,
    clue: DialectClue,
}

/// What chose a dialect ([`DialectChoice`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DialectClue {
    /// It was given.
    Given,
    /// `TFDISCO_DIALECT`.
    Variable,
    /// The lock file's first line names its CLI.
    LockFileHeader(PathBuf),
    /// Every provider of the lock file is from the dialect's registry.
    LockFileHosts(PathBuf),
    /// This `.tofu` (or `.tofu.json`) file is in the folder.
    TofuFile(PathBuf),
    /// Only this one of `terraform` and `tofu` is on the `PATH`.
    Program(PathBuf),
    /// Nothing told: the default.
    Default,
}

impl DialectChoice {
    /// `dialect`, given.
    pub fn given(dialect: Dialect) -> DialectChoice {
        DialectChoice {
            dialect,
            clue: DialectClue::Given,
        }
    }

    /// The dialect meant for work in the folder `dir` in the environment
    /// `env`, in [`DialectChoice`]'s order. A `TFDISCO_DIALECT` that names
    /// no dialect is an error.
    pub fn detect(dir: &Path, env: &Env) -> Result<DialectChoice, UnknownDialect> {
        let choice = |dialect, clue| Ok(DialectChoice { dialect, clue });
        if let Some(value) = env.non_empty(DIALECT_VAR) {
            let dialect = value.to_string_lossy().parse()?;
            return choice(dialect, DialectClue::Variable);
        }
        let lock_file = dir.join(LOCK_FILE_NAME);
        if let Some(text) = peek(&lock_file) {
            if let Some(dialect) = header_dialect(&text) {
                return choice(dialect, DialectClue::LockFileHeader(lock_file));
            }
            if let Some(dialect) = hosts_dialect(&text) {
                return choice(dialect, DialectClue::LockFileHosts(lock_file));
            }
        }
        if let Some(file) = tofu_file(dir) {
            return choice(Dialect::OpenTofu, DialectClue::TofuFile(file));
        }
        let terraform = on_path(env, Dialect::Terraform.command());
        let tofu = on_path(env, Dialect::OpenTofu.command());
        match (terraform, tofu) {
            (Some(program), None) => choice(Dialect::Terraform, DialectClue::Program(program)),
            (None, Some(program)) => choice(Dialect::OpenTofu, DialectClue::Program(program)),
            _ => choice(Dialect::default(), DialectClue::Default),
        }
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// What chose it.
    pub fn clue(&self) -> &DialectClue {
        &self.clue
    }

    /// What chose it, in a word: `given`, `variable`, `lock_file`,
    /// `tofu_file`, `program` or `default`.
    pub fn chosen_by(&self) -> &'static str {
        match self.clue {
            DialectClue::Given => "given",
            DialectClue::Variable => "variable",
            DialectClue::LockFileHeader(_) | DialectClue::LockFileHosts(_) => "lock_file",
            DialectClue::TofuFile(_) => "tofu_file",
            DialectClue::Program(_) => "program",
            DialectClue::Default => "default",
        }
    }

    /// Why, in words: `the lock file ./.terraform.lock.hcl was written by
    /// terraform init`.
    pub fn why(&self) -> String {
        match &self.clue {
            DialectClue::Given => "given".to_owned(),
            DialectClue::Variable => format!("{DIALECT_VAR} names it"),
            DialectClue::LockFileHeader(path) => format!(
                "the lock file {} was written by {} init",
                path.display(),
                self.dialect.command()
            ),
            DialectClue::LockFileHosts(path) => format!(
                "every provider of the lock file {} is from {}",
                path.display(),
                self.dialect.default_registry_host()
            ),
            DialectClue::TofuFile(path) => {
                format!("{} is an OpenTofu file", path.display())
            }
            DialectClue::Program(path) => format!(
                "{} is on the PATH, and {} is not",
                path.display(),
                match self.dialect {
                    Dialect::Terraform => Dialect::OpenTofu,
                    Dialect::OpenTofu => Dialect::Terraform,
                }
                .command()
            ),
            DialectClue::Default => {
                "nothing tells otherwise: neither TFDISCO_DIALECT, a lock file, a .tofu file \
                 nor only one of terraform and tofu on the PATH"
                    .to_owned()
            }
        }
    }
}

impl fmt::Display for DialectChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.dialect, self.why())
    }
}

/// `{"name": "terraform", "chosen_by": "lock_file", "why": "…"}`.
impl Serialize for DialectChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_struct("DialectChoice", 3)?;
        map.serialize_field("name", self.dialect.name())?;
        map.serialize_field("chosen_by", self.chosen_by())?;
        map.serialize_field("why", &self.why())?;
        map.end()
    }
}

/// The start of a file (at most [`LOCK_FILE_PEEK`] bytes), if it can be
/// read.
fn peek(path: &Path) -> Option<String> {
    let mut bytes = Vec::new();
    fs::File::open(path)
        .ok()?
        .take(LOCK_FILE_PEEK)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The CLI a lock file's first line names.
fn header_dialect(text: &str) -> Option<Dialect> {
    let first = text.lines().next()?.trim();
    let named = first
        .strip_prefix("# This file is maintained automatically by \"")?
        .strip_suffix("\".")?;
    match named {
        "terraform init" => Some(Dialect::Terraform),
        "tofu init" => Some(Dialect::OpenTofu),
        _ => None,
    }
}

/// The dialect whose registry every `provider "HOST/…"` block of a lock
/// file is from, if there is at least one and they agree.
fn hosts_dialect(text: &str) -> Option<Dialect> {
    let mut found = None;
    for line in text.lines() {
        let Some(address) = line.trim_start().strip_prefix("provider \"") else {
            continue;
        };
        let host = address.split('/').next()?.to_ascii_lowercase();
        let dialect = [Dialect::Terraform, Dialect::OpenTofu]
            .into_iter()
            .find(|d| d.default_registry_host().to_string() == host)?;
        if found.is_some_and(|f| f != dialect) {
            return None;
        }
        found = Some(dialect);
    }
    found
}

/// The first `.tofu` or `.tofu.json` file of `dir`, by name.
fn tofu_file(dir: &Path) -> Option<PathBuf> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| !t.is_dir()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".tofu") || name.ends_with(".tofu.json"))
        .collect();
    names.sort();
    names.first().map(|name| dir.join(name))
}

/// Where `program` is on `env`'s `PATH`, if it is there and can be run.
fn on_path(env: &Env, program: &str) -> Option<PathBuf> {
    let path = env.var("PATH")?;
    let names: &[String] = &if cfg!(windows) {
        vec![format!("{program}.exe")]
    } else {
        vec![program.to_owned()]
    };
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| runnable(candidate))
}

#[cfg(unix)]
fn runnable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn runnable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(dir: &Path, name: &str) {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        fs::write(&path, "#!/bin/sh\n").expect("written");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// Each clue, in order, and what each one hides.
    #[test]
    fn the_clues_in_order() {
        let scratch = tempfile::tempdir().expect("a folder");
        let dir = scratch.path().join("work");
        let bin = scratch.path().join("bin");
        fs::create_dir_all(&dir).expect("made");
        fs::create_dir_all(&bin).expect("made");
        let env = Env::new([("PATH", bin.as_os_str())]);
        let detect = |env: &Env| DialectChoice::detect(&dir, env).expect("a dialect");

        assert_eq!(detect(&env).clue(), &DialectClue::Default);
        assert_eq!(detect(&env).dialect(), Dialect::OpenTofu);

        program(&bin, "terraform");
        let choice = detect(&env);
        assert_eq!(choice.dialect(), Dialect::Terraform);
        assert_eq!(choice.chosen_by(), "program");
        program(&bin, "tofu");
        assert_eq!(detect(&env).clue(), &DialectClue::Default, "both: no clue");
        fs::remove_file(bin.join("tofu")).expect("removed");

        fs::write(dir.join("main.tofu"), "").expect("written");
        let choice = detect(&env);
        assert_eq!(
            (choice.dialect(), choice.chosen_by()),
            (Dialect::OpenTofu, "tofu_file")
        );

        let lock = dir.join(LOCK_FILE_NAME);
        fs::write(
            &lock,
            "# hand-written\n\nprovider \"registry.terraform.io/hashicorp/aws\" {\n}\n\
             provider \"REGISTRY.TERRAFORM.IO/hashicorp/null\" {\n}\n",
        )
        .expect("written");
        let choice = detect(&env);
        assert_eq!(choice.clue(), &DialectClue::LockFileHosts(lock.clone()));
        assert_eq!(choice.dialect(), Dialect::Terraform);
        fs::write(
            &lock,
            "provider \"registry.terraform.io/hashicorp/aws\" {\n}\n\
             provider \"registry.opentofu.org/hashicorp/null\" {\n}\n",
        )
        .expect("written");
        assert_eq!(detect(&env).chosen_by(), "tofu_file", "hosts that disagree");

        fs::write(
            &lock,
            "# This file is maintained automatically by \"tofu init\".\n\
             # Manual edits may be lost in future updates.\n\n\
             provider \"registry.terraform.io/hashicorp/aws\" {\n",
        )
        .expect("written");
        let choice = detect(&env);
        assert_eq!(choice.clue(), &DialectClue::LockFileHeader(lock.clone()));
        assert_eq!(choice.dialect(), Dialect::OpenTofu);
        assert!(choice.why().contains("tofu init"), "{}", choice.why());

        let env = env.with_var(DIALECT_VAR, "Terraform");
        let choice = detect(&env);
        assert_eq!(
            (choice.dialect(), choice.chosen_by()),
            (Dialect::Terraform, "variable")
        );
        let bad = Env::new([(DIALECT_VAR, "terraformish")]);
        assert!(DialectChoice::detect(&dir, &bad).is_err());
        assert_eq!(
            DialectChoice::given(Dialect::Terraform).chosen_by(),
            "given"
        );
    }

    #[test]
    fn serialized() {
        let choice = DialectChoice::given(Dialect::Terraform);
        assert_eq!(
            serde_json::to_string(&choice).expect("JSON"),
            r#"{"name":"terraform","chosen_by":"given","why":"given"}"#
        );
        assert_eq!(choice.to_string(), "terraform (given)");
    }
}
