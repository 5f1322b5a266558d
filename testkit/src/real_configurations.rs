//! A corpus of configurations, each locked by the real `terraform providers
//! lock` against the [registry that answers for any
//! provider](crate::any_registry), and what tfdisco must do with the same
//! configuration: write the same lock file byte for byte, or fail as
//! Terraform failed.
//!
//! The corpus has two parts. The edges (`fixtures/real-configurations/edges/`)
//! are small configurations written for this corpus, each showing one thing
//! real repositories have ([`EDGES`]). The repositories ([`REPOSITORIES`])
//! are popular public module repositories at a named commit; their files are
//! not kept in this repository: they are read from a corpus folder
//! ([`corpus_dir`]: `$TFDISCO_REAL_CONFIGURATIONS`, else
//! `shared/real-configurations/` beside the workspace), one folder per
//! repository holding its `.tf` and `.tf.json` files, its `LICENSE` and a
//! `SOURCE` file naming the repository and commit. Without that folder only
//! the edges run.
//!
//! Each root (a folder locked on its own) has a golden folder under
//! `fixtures/real-configurations/goldens/<corpus>/<root>/`:
//! `terraform.lock.hcl` (what Terraform wrote) or `terraform.refused` (the
//! command that failed, its exit code and its errors' summaries). `cargo run -p tfdisco-testkit --bin
//! real-configuration-goldens` makes them again with the `terraform` on the
//! PATH; the tests never need it. Roots where tfdisco does not agree today
//! are listed in [`EXPECTED_FAILURES`] with the reason.
//!
//! ```no_run
//! use tfdisco_testkit::real_configurations::{self, PLATFORMS};
//!
//! for root in real_configurations::roots().expect("the corpus") {
//!     let scratch = tempfile::tempdir().expect("a folder");
//!     let dir = root.prepare(scratch.path());
//!     // … `tfdisco lock --dialect terraform` in `dir` for PLATFORMS …
//!     let _expected = root.expected();
//! }
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use tfdisco_core::Dialect;

/// The `-platform` arguments of every run.
pub const PLATFORMS: [&str; 2] = ["linux_amd64", "darwin_arm64"];

/// The lock file's name.
pub const LOCK_FILE: &str = ".terraform.lock.hcl";

/// The environment variable that names the corpus folder.
pub const CORPUS_VAR: &str = "TFDISCO_REAL_CONFIGURATIONS";

/// The corpus name of the edges.
pub const EDGES_CORPUS: &str = "edges";

/// The file of a golden where Terraform refused: the command, its exit
/// code, the summary of each error (`command: terraform get`, `exit: 1`,
/// `error: …`).
pub const REFUSED_FILE: &str = "terraform.refused";

/// The placeholder for the test server's `host:port` in `terraform.refused`.
pub const SERVER: &str = "{SERVER}";

/// The placeholder for the folder a run copied the configuration into.
pub const SCRATCH: &str = "{SCRATCH}";

/// A public repository of the corpus.
#[derive(Debug, Clone, Copy)]
pub struct Repository {
    /// Its folder in the corpus folder and under `goldens/`.
    pub name: &'static str,
    /// `owner/name` on GitHub.
    pub repository: &'static str,
    /// The commit its files are from.
    pub commit: &'static str,
    /// Its licence (the `LICENSE` file is kept beside its files).
    pub license: &'static str,
    /// Its roots: `""` for the repository's own root module, a folder, or
    /// `folder/*` for every folder in it that holds configuration files.
    pub roots: &'static [&'static str],
}

/// The repositories, in the order they are run.
pub const REPOSITORIES: &[Repository] = &[
    Repository {
        name: "terraform-aws-vpc",
        repository: "terraform-aws-modules/terraform-aws-vpc",
        commit: "82d1929e669efef4e2ad00611b8a68e7a56e049c",
        license: "Apache-2.0",
        roots: &["", "examples/*", "modules/*", "wrappers", "wrappers/*"],
    },
    Repository {
        name: "terraform-aws-eks",
        repository: "terraform-aws-modules/terraform-aws-eks",
        commit: "bef29c4d9523523e57fe898643fde2895106b339",
        license: "Apache-2.0",
        roots: &["", "examples/*", "modules/*", "tests/*"],
    },
    Repository {
        name: "terraform-aws-vpc_endpoints",
        repository: "aws-ia/terraform-aws-vpc_endpoints",
        commit: "ef023c348885fcc72ccc9793fee8509c573506a8",
        license: "Apache-2.0",
        roots: &["", "examples/*"],
    },
    Repository {
        name: "terraform-google-kubernetes-engine",
        repository: "terraform-google-modules/terraform-google-kubernetes-engine",
        commit: "bb176b213d8c55f6c3034cb39828dfe1631d7647",
        license: "Apache-2.0",
        roots: &["", "modules/*", "examples/*"],
    },
    Repository {
        name: "terraform-azurerm-aks",
        repository: "Azure/terraform-azurerm-aks",
        commit: "e29456edaa389ae47a3862963bb5a3b65f7126a5",
        license: "MIT",
        roots: &["", "examples/*"],
    },
    Repository {
        name: "terraform-azurerm-avm-res-network-virtualnetwork",
        repository: "Azure/terraform-azurerm-avm-res-network-virtualnetwork",
        commit: "04f81f7bf1acafe042de65a42d86910264971730",
        license: "MIT",
        roots: &["", "modules/*", "examples/*"],
    },
];

/// Who says what the lock file must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oracle {
    /// Terraform 1.11.4's `providers lock` (`terraform.lock.hcl`).
    Terraform,
    /// Written by hand from OpenTofu's rules (`opentofu.lock.hcl`), where
    /// no `tofu` binary could make it; the fixture's `ORACLE` file says
    /// which rules.
    HandWrittenOpenTofu,
}

/// A configuration written for the corpus, showing one edge.
#[derive(Debug, Clone, Copy)]
pub struct Edge {
    /// Its id under `edges/` (its golden is `goldens/edges/<name>/`).
    pub name: &'static str,
    /// Its folder under `edges/` (two edges may read one folder in two
    /// dialects).
    pub tree: &'static str,
    /// What it shows.
    pub about: &'static str,
    /// The dialect tfdisco reads it in.
    pub dialect: Dialect,
    /// Who made its golden.
    pub oracle: Oracle,
}

const fn terraform(name: &'static str, about: &'static str) -> Edge {
    Edge {
        name,
        tree: name,
        about,
        dialect: Dialect::Terraform,
        oracle: Oracle::Terraform,
    }
}

/// Every edge.
pub const EDGES: &[Edge] = &[
    terraform(
        "child-only-provider",
        "a provider required only by a local child module, another implied by a resource \
         of the child's child",
    ),
    terraform(
        "no-source",
        "required_providers entries without source: the legacy string form, an object \
         with only a version, an empty object",
    ),
    terraform(
        "local-names",
        "a local name other than the type, a source with capitals, configuration_aliases \
         in a child, an ephemeral resource, built-in terraform_data and \
         terraform_remote_state (never locked)",
    ),
    terraform(
        "provider-block-version",
        "the deprecated version argument of provider blocks, aliased and not, without \
         required_providers",
    ),
    terraform(
        "empty-terraform-block",
        "an empty terraform {} block; resources, data sources and a check block's data \
         source implying their providers",
    ),
    terraform(
        "json-terraform-array",
        ".tf.json with \"terraform\" and \"required_providers\" as arrays of objects, \
         provider blocks as an array, resources as an array; a JSON child module",
    ),
    terraform(
        "override-files",
        "main_override.tf changing a version constraint, override.tf.json changing a \
         provider's source",
    ),
    terraform(
        "no-providers",
        "a configuration that requires no provider: a lock file of its two header lines",
    ),
    terraform(
        "deep-types",
        "a variable whose type nests optional(object(...)) and optional(list(object(...))) \
         three levels deep, and a resource of dynamic blocks with conditionals",
    ),
    terraform(
        "deeper-types",
        "a variable whose type nests optional(list(object(...))) so deep that its \
         innermost map(string) is 17 brackets in, as a cluster module's settings are",
    ),
    terraform(
        "long-conditionals",
        "one resource of 250 dynamic blocks with conditionals (96 kB), as the largest \
         cluster modules write their node pools",
    ),
    terraform(
        "tofu-files",
        "Terraform reads the .tf and .tf.json files and ignores their .tofu twins",
    ),
    Edge {
        name: "tofu-files-opentofu",
        tree: "tofu-files",
        about: "OpenTofu reads main.tofu, queue.tofu.json and override.tofu instead of their \
                .tf twins, and keys.tf, which has none",
        dialect: Dialect::OpenTofu,
        oracle: Oracle::HandWrittenOpenTofu,
    },
];

/// A root where tfdisco does not agree with its golden today, and why.
#[derive(Debug, Clone, Copy)]
pub struct ExpectedFailure {
    /// The root's id ([`Root::id`]); a trailing `*` matches every root
    /// whose id starts with what precedes it.
    pub root: &'static str,
    /// Why tfdisco differs.
    pub reason: &'static str,
}

/// The roots where tfdisco differs from the golden today. A root listed
/// here that agrees fails the test too, so the list stays true.
pub const EXPECTED_FAILURES: &[ExpectedFailure] = &[];

/// One root of the corpus.
#[derive(Debug, Clone)]
pub struct Root {
    /// `edges/<name>` for an edge, else the repository's name.
    pub corpus: String,
    /// The root's folder in its tree (`""` for the tree's own root).
    pub path: String,
    /// The tree the root is in: what a run copies.
    pub tree: PathBuf,
    /// The dialect tfdisco reads it in.
    pub dialect: Dialect,
    /// Who made its golden.
    pub oracle: Oracle,
}

/// What a root's run must end with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// This lock file, byte for byte.
    Written(String),
    /// A refusal, no lock file written.
    Refused {
        /// The command that failed: `terraform get` (a module Terraform
        /// could not install: the registry serves no modules and the
        /// network is not reached) or `terraform providers lock`.
        command: String,
        /// The summary of Terraform's first error.
        error: String,
    },
}

impl Expected {
    /// Whether Terraform refused at `terraform get`, before any provider
    /// was looked at: a root with module calls that are not local.
    pub fn is_remote_modules(&self) -> bool {
        matches!(self, Expected::Refused { command, .. } if command == "terraform get")
    }
}

/// The fixture folder of the corpus.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real-configurations")
}

/// The folder of the edges' configurations.
pub fn edges_dir() -> PathBuf {
    fixtures_dir().join(EDGES_CORPUS)
}

/// The folder of every golden.
pub fn goldens_dir() -> PathBuf {
    fixtures_dir().join("goldens")
}

/// The corpus folder of the repositories: `$TFDISCO_REAL_CONFIGURATIONS`,
/// else `shared/real-configurations/` beside the workspace when it exists.
pub fn corpus_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(CORPUS_VAR) {
        return Some(PathBuf::from(dir));
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/real-configurations");
    beside.is_dir().then_some(beside)
}

/// The edges' roots: each edge is a tree of its own, whose root is its
/// folder (its id `edges/<name>`).
pub fn edge_roots() -> Vec<Root> {
    EDGES
        .iter()
        .map(|edge| Root {
            corpus: format!("{EDGES_CORPUS}/{}", edge.name),
            path: String::new(),
            tree: edges_dir().join(edge.tree),
            dialect: edge.dialect,
            oracle: edge.oracle,
        })
        .collect()
}

/// The roots of `repository` in the corpus folder `corpus`: its `SOURCE`
/// must name the repository's commit.
pub fn repository_roots(corpus: &Path, repository: &Repository) -> Result<Vec<Root>, String> {
    let tree = corpus.join(repository.name);
    let source = fs::read_to_string(tree.join("SOURCE"))
        .map_err(|e| format!("{}: {e}", tree.join("SOURCE").display()))?;
    if !source.contains(repository.commit) {
        return Err(format!(
            "{}: SOURCE does not name commit {}: the corpus is not the one the goldens were made \
             from",
            tree.display(),
            repository.commit
        ));
    }
    let mut paths = Vec::new();
    for pattern in repository.roots {
        match pattern.strip_suffix("/*") {
            Some(parent) => {
                let mut found: Vec<String> = fs::read_dir(tree.join(parent))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| format!("{parent}/{}", e.file_name().to_string_lossy()))
                    .filter(|path| has_configuration(&tree.join(path)))
                    .collect();
                found.sort();
                paths.extend(found);
            }
            None if has_configuration(&tree.join(pattern)) => paths.push((*pattern).to_owned()),
            None => {}
        }
    }
    Ok(paths
        .into_iter()
        .map(|path| Root {
            corpus: repository.name.to_owned(),
            path,
            tree: tree.clone(),
            dialect: Dialect::Terraform,
            oracle: Oracle::Terraform,
        })
        .collect())
}

/// Every root: the edges, then each repository's when the corpus folder is
/// there. An error when the corpus folder is there but not as the goldens
/// want it.
pub fn roots() -> Result<Vec<Root>, String> {
    let mut roots = edge_roots();
    if let Some(corpus) = corpus_dir() {
        for repository in REPOSITORIES {
            roots.extend(repository_roots(&corpus, repository)?);
        }
    }
    Ok(roots)
}

/// Whether `dir` holds a `.tf` or `.tf.json` file.
fn has_configuration(dir: &Path) -> bool {
    fs::read_dir(dir).into_iter().flatten().flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.ends_with(".tf") || name.ends_with(".tf.json")
    })
}

/// The expected failure that lists `id`, if one does.
pub fn expected_failure(id: &str) -> Option<&'static ExpectedFailure> {
    EXPECTED_FAILURES.iter().find(|f| matches(f.root, id))
}

/// The entries of [`EXPECTED_FAILURES`] that match none of `roots`, among
/// those whose corpus `roots` has (the edges always; a repository when the
/// corpus folder has it): an entry left behind.
pub fn unmatched_expected_failures(roots: &[Root]) -> Vec<&'static ExpectedFailure> {
    EXPECTED_FAILURES
        .iter()
        .filter(|failure| {
            let prefix = failure.root.trim_end_matches('*');
            let present = prefix.starts_with(&format!("{EDGES_CORPUS}/"))
                || roots
                    .iter()
                    .any(|r| prefix.starts_with(&r.corpus) || r.corpus.starts_with(prefix));
            present && !roots.iter().any(|r| matches(failure.root, &r.id()))
        })
        .collect()
}

fn matches(pattern: &str, id: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => id.starts_with(prefix),
        None => pattern == id,
    }
}

impl Root {
    /// `corpus/path`, or `corpus` for the tree's own root:
    /// `terraform-aws-vpc/examples/simple`, `edges/no-source`.
    pub fn id(&self) -> String {
        if self.path.is_empty() {
            self.corpus.clone()
        } else {
            format!("{}/{}", self.corpus, self.path)
        }
    }

    /// Its golden folder: `goldens/<id>/`.
    pub fn golden_dir(&self) -> PathBuf {
        goldens_dir().join(self.id())
    }

    /// Copies its tree into `scratch` (without any `.terraform` folder or
    /// lock file) and returns where the root is in the copy.
    pub fn prepare(&self, scratch: &Path) -> PathBuf {
        copy_configuration(&self.tree, scratch);
        scratch.join(&self.path)
    }

    /// What a run must end with: the golden lock file, or Terraform's
    /// refusal.
    pub fn expected(&self) -> Expected {
        let dir = self.golden_dir();
        let lock = match self.oracle {
            Oracle::Terraform => dir.join("terraform.lock.hcl"),
            Oracle::HandWrittenOpenTofu => dir.join("opentofu.lock.hcl"),
        };
        match fs::read_to_string(&lock) {
            Ok(text) => Expected::Written(text),
            Err(_) => {
                let refused = fs::read_to_string(dir.join(REFUSED_FILE)).unwrap_or_default();
                let field = |name: &str| {
                    refused
                        .lines()
                        .find_map(|l| l.strip_prefix(name))
                        .unwrap_or_default()
                        .to_owned()
                };
                Expected::Refused {
                    command: field("command: "),
                    error: field("error: "),
                }
            }
        }
    }
}

/// Copies the files of `from` into `to`, recursively, leaving out
/// `.terraform` folders and lock files (what a run writes).
pub fn copy_configuration(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    let entries = fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let name = entry.file_name();
        if name == ".terraform" || name == LOCK_FILE {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().expect("a file type").is_dir() {
            copy_configuration(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        }
    }
}

/// A CLI configuration file for a run against `server`'s
/// [`any_registry`](crate::any_registry), written into `dir`.
pub fn write_cli_config(server: &crate::TestServer, dir: &Path) -> PathBuf {
    let rc = dir.join("terraformrc");
    fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    fs::write(&rc, crate::any_registry::cli_config(server))
        .unwrap_or_else(|e| panic!("{}: {e}", rc.display()));
    rc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_edge_has_its_files_and_golden() {
        for root in edge_roots() {
            assert!(has_configuration(&root.tree), "{}", root.id());
            let golden = root.golden_dir();
            match root.oracle {
                Oracle::Terraform => {
                    let lock = golden.join("terraform.lock.hcl").is_file();
                    let refused = golden.join(REFUSED_FILE).is_file();
                    assert!(lock != refused, "{}", root.id());
                }
                Oracle::HandWrittenOpenTofu => {
                    assert!(golden.join("opentofu.lock.hcl").is_file(), "{}", root.id());
                    assert!(golden.join("ORACLE").is_file(), "{}", root.id());
                }
            }
        }
    }

    #[test]
    fn expected_failures_match_by_id_or_prefix() {
        assert!(matches("a/b", "a/b"));
        assert!(!matches("a/b", "a/bc"));
        assert!(matches("a/*", "a/bc"));
        assert!(matches("a*", "a"));
        assert!(!matches("a/*", "b/a"));
    }
}
