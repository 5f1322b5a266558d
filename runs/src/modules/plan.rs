//! The module installer's plan, as `init` walks a configuration
//! (docs/behaviour.md, MOD-1 to MOD-6): no request and no download of its
//! own, only decisions. Each module call becomes a node keyed as the
//! manifest keys it (`vpc`, `vpc.subnets`); a node's module is read (its
//! calls) once its folder is known; a registry module's versions are asked
//! once per package and its location once per package and version; each
//! package address is fetched once, into a folder of the staging area.
//! The driver runs the jobs [`ModulePlan::next_job`] gives and hands each
//! result to [`ModulePlan::complete`], in any order and as many at once as
//! it likes; when no job is left, [`ModulePlan::finish`] says what to place.
//!
//! While a package streams in, its fetch job tells the plan the calls of
//! each configuration file of the module's folder written whole
//! ([`Peeked`], MOD-16): each becomes a hint, whose registry requests and
//! archive are asked ahead of the call they guess, from the hosts the run
//! already talks to. A hint decides nothing: it only fills the answers
//! the calls read once the package is whole then find already asked (or
//! never use).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use tfdisco_config::{
    ConfigurationError, Diagnostic, MAX_MODULES, MODULE_LOCK_FILE, MODULES_DIR, ModuleCall,
    ModuleLock, ModuleLockEntry, ModuleManifest, ModuleRecord,
};
use tfdisco_core::{
    Dialect, Error, Getter, ModuleAddress, ModuleLocation, ModuleSource, ModuleVersions, Version,
    VersionConstraints, go_clean, go_quote, without_ssh_key,
};

use super::failure::{FailureKind, ModuleFailure};
use super::fetch::{DirectPackage, Remote};
use crate::plan_jobs::JobPlan;

/// A job's id: what [`ModulePlan::complete`] is told it answers.
pub(crate) type JobId = usize;

/// What the driver does for the plan.
#[derive(Debug)]
pub(crate) enum Job {
    /// Read the module calls of the module in `dir` (its key `key`).
    Calls { key: String, dir: PathBuf },
    /// Ask a registry for a module package's versions.
    Versions { source: ModuleSource },
    /// Ask a registry where a version of a module package is.
    Location {
        source: ModuleSource,
        version: String,
    },
    /// Fetch a package into `into`, a folder that does not exist yet;
    /// `expected` is what the module lock says identifies it, if anything
    /// (a module cache entry may stand for it then, MOD-13).
    Fetch {
        package: Remote,
        into: PathBuf,
        expected: Option<String>,
        watch: Watch,
    },
}

/// The folder of a package being fetched whose configuration files the
/// fetch reads as each is written whole, telling the plan their calls
/// ([`Peeked`]).
#[derive(Clone, Debug)]
pub(crate) struct Watch {
    /// The package (what [`Peeked::package`] names).
    pub(crate) package: usize,
    /// The folder, in the package (`""` for its top).
    pub(crate) folder: String,
}

/// What a fetch job tells the plan before it ends: the calls of one
/// configuration file of its watched folder, read while the rest of the
/// package streams in.
#[derive(Debug)]
pub(crate) struct Peeked {
    pub(crate) package: usize,
    pub(crate) calls: Vec<ModuleCall>,
}

/// A job's result.
#[derive(Debug)]
pub(crate) enum Output {
    Calls(Result<Vec<ModuleCall>, ConfigurationError>),
    Versions(Result<ModuleVersions, Error>),
    Location(Result<ModuleLocation, Error>),
    /// The package is in the folder asked, and what identifies it (`h1:…`,
    /// `git:COMMIT`, `sha256:…`), or why not.
    Fetch(Result<String, String>),
}

/// One module call being installed.
#[derive(Debug)]
struct Node {
    key: String,
    call: ModuleCall,
    parent: usize,
    /// The registry module's constraint, read.
    constraints: VersionConstraints,
    /// The address, as parsed.
    address: ModuleAddress,
    /// Where its module is now (to read its calls).
    dir: Option<PathBuf>,
    /// Its record, once known.
    record: Option<ModuleRecord>,
    /// The package it was fetched from this run (an index of `packages`).
    package: Option<usize>,
}

/// A package fetched this run: its address, where it is in the staging
/// area, the folder its fetch watches, and the nodes and hints waiting for
/// it.
#[derive(Debug)]
struct Package {
    address: String,
    folder: PathBuf,
    watched: String,
    state: Waiting<String>,
}

/// A request's state: asked (with who waits, and for a package the
/// subdir each wants), or answered.
#[derive(Debug)]
enum Waiting<T> {
    Asked(Vec<(For, String)>),
    Answered(Result<T, String>),
}

/// Who waits for an answer: a node (a call read), or a hint (a call
/// guessed from a package still streaming in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum For {
    Node(usize),
    Hint(usize),
}

/// A call guessed from one file of a package still streaming in: its key,
/// address and constraint as the call would have them, and the version it
/// would pick.
#[derive(Debug)]
struct Hint {
    key: String,
    address: ModuleAddress,
    constraints: VersionConstraints,
    version: Option<String>,
}

/// The registry package a node's registry source names (no subdir).
type PackageKey = String;

/// What the plan says to place once every job is done.
#[derive(Debug)]
pub(crate) struct Finished {
    /// The manifest to write.
    pub(crate) manifest: ModuleManifest,
    /// Each module folder to place under the modules folder, in `init`'s
    /// walk order: its key, the staging folder of its package, and whether
    /// it is the package's first module (which keeps everything; later
    /// ones get a copy without dot files).
    pub(crate) placements: Vec<Placement>,
    /// The keys whose folders are replaced (every key installed again,
    /// and those dropped from the manifest).
    pub(crate) replaced: Vec<String>,
    /// The module lock: every module not from a local path, with what
    /// identifies its package (the fetched package's, or the old lock's
    /// for a module kept).
    pub(crate) lock: ModuleLock,
}

/// A module folder to place.
#[derive(Debug, Clone)]
pub(crate) struct Placement {
    pub(crate) key: String,
    pub(crate) from: PathBuf,
    pub(crate) first: bool,
}

/// The plan of one `get`.
#[derive(Debug)]
pub(crate) struct ModulePlan {
    dialect: Dialect,
    root: PathBuf,
    staging: PathBuf,
    upgrade: bool,
    old: ModuleManifest,
    /// The module lock read (empty when none).
    lock: ModuleLock,
    /// Whether the lock is written: then every module it has no entry for
    /// is fetched, for its hash.
    write_lock: bool,
    nodes: Vec<Node>,
    /// The root module's record (node index `usize::MAX` stands for it).
    root_record: ModuleRecord,
    jobs: VecDeque<(JobId, Job)>,
    next_id: JobId,
    /// What each job in flight answers for.
    in_flight: HashMap<JobId, Asked>,
    versions: HashMap<PackageKey, Waiting<Vec<Version>>>,
    locations: HashMap<(PackageKey, String), Waiting<Remote>>,
    packages: Vec<Package>,
    by_address: HashMap<String, usize>,
    failures: Vec<ModuleFailure>,
    hints: Vec<Hint>,
    /// The keys hinted, each once.
    hinted: HashSet<String>,
    /// The hosts the calls read so far ask (registries, archives): the
    /// only ones a hint may ask.
    hosts: HashSet<String>,
}

/// What a job in flight was asked for.
#[derive(Debug)]
enum Asked {
    Calls(usize),
    Versions(PackageKey),
    Location(PackageKey, String),
    Fetch(usize),
}

/// The root module's parent index.
const ROOT: usize = usize::MAX;

impl ModulePlan {
    /// The plan for the configuration in `root`, its manifest `old` (empty
    /// when none), fetching into folders of `staging`; `upgrade` installs
    /// every module again (`get -update`).
    #[cfg(test)]
    pub(crate) fn new(
        dialect: Dialect,
        root: &Path,
        old: ModuleManifest,
        staging: &Path,
        upgrade: bool,
    ) -> ModulePlan {
        ModulePlan::locked(
            dialect,
            root,
            old,
            staging,
            upgrade,
            ModuleLock::default(),
            false,
        )
    }

    /// The same with a module lock (MOD-12): its versions preferred, its
    /// hashes checked; with `write_lock`, every module it has no entry
    /// for fetched.
    pub(crate) fn locked(
        dialect: Dialect,
        root: &Path,
        old: ModuleManifest,
        staging: &Path,
        upgrade: bool,
        lock: ModuleLock,
        write_lock: bool,
    ) -> ModulePlan {
        let mut plan = ModulePlan {
            dialect,
            root: root.to_owned(),
            staging: staging.to_owned(),
            upgrade,
            old,
            lock,
            write_lock,
            nodes: Vec::new(),
            root_record: ModuleManifest::new()
                .get("")
                .cloned()
                .expect("the root record"),
            jobs: VecDeque::new(),
            next_id: 0,
            in_flight: HashMap::new(),
            versions: HashMap::new(),
            locations: HashMap::new(),
            packages: Vec::new(),
            by_address: HashMap::new(),
            failures: Vec::new(),
            hints: Vec::new(),
            hinted: HashSet::new(),
            hosts: HashSet::new(),
        };
        plan.push(
            Job::Calls {
                key: String::new(),
                dir: root.to_owned(),
            },
            Asked::Calls(ROOT),
        );
        plan
    }

    fn push(&mut self, job: Job, asked: Asked) {
        let id = self.next_id;
        self.next_id += 1;
        self.in_flight.insert(id, asked);
        self.jobs.push_back((id, job));
    }

    /// A job's result.
    fn completed(&mut self, id: JobId, output: Result<Output, Error>) {
        let Some(asked) = self.in_flight.remove(&id) else {
            return;
        };
        let output = match output {
            Ok(output) => output,
            Err(error) => match &asked {
                Asked::Calls(node) => {
                    let key = self.key_of(*node).to_owned();
                    let diagnostic = Diagnostic::with_detail(
                        "Failed to read module directory",
                        error.to_string(),
                    );
                    self.fail(&key, FailureKind::Configuration, diagnostic);
                    return;
                }
                Asked::Versions(_) => Output::Versions(Err(error)),
                Asked::Location(..) => Output::Location(Err(error)),
                Asked::Fetch(_) => Output::Fetch(Err(error.to_string())),
            },
        };
        match (asked, output) {
            (Asked::Calls(node), Output::Calls(result)) => self.calls_read(node, result),
            (Asked::Versions(package), Output::Versions(result)) => {
                self.versions_known(package, result);
            }
            (Asked::Location(package, version), Output::Location(result)) => {
                self.location_known(package, version, result);
            }
            (Asked::Fetch(index), Output::Fetch(result)) => self.fetched(index, result),
            (asked, output) => unreachable!("{asked:?} answered with {output:?}"),
        }
    }

    fn record_of(&self, node: usize) -> &ModuleRecord {
        if node == ROOT {
            &self.root_record
        } else {
            self.nodes[node]
                .record
                .as_ref()
                .expect("a read module has its record")
        }
    }

    fn dir_of(&self, node: usize) -> &Path {
        if node == ROOT {
            &self.root
        } else {
            self.nodes[node]
                .dir
                .as_deref()
                .expect("a read module has its folder")
        }
    }

    fn key_of(&self, node: usize) -> &str {
        if node == ROOT {
            ""
        } else {
            &self.nodes[node].key
        }
    }

    /// A module was read: each of its calls becomes a node.
    fn calls_read(&mut self, parent: usize, result: Result<Vec<ModuleCall>, ConfigurationError>) {
        let calls = match result {
            Ok(calls) => calls,
            Err(e) => {
                let key = self.key_of(parent).to_owned();
                for diagnostic in e.diagnostics() {
                    self.fail(&key, FailureKind::Configuration, diagnostic.clone());
                }
                return;
            }
        };
        for call in calls {
            if !tfdisco_config::hcl_syntax::is_identifier(&call.name) {
                // The name is a folder's: never a path (`../x`, `a/b`).
                let diagnostic = at_call(
                    &call,
                    "Invalid module instance name",
                    "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.".to_owned(),
                );
                let key = self.key_of(parent).to_owned();
                self.fail(&key, FailureKind::Configuration, diagnostic);
                continue;
            }
            let parent_key = self.key_of(parent);
            let key = if parent_key.is_empty() {
                call.name.clone()
            } else {
                format!("{parent_key}.{}", call.name)
            };
            let Some(source) = call.source.clone() else {
                self.fail(&key, FailureKind::Configuration, call.missing_source());
                continue;
            };
            let address = match ModuleAddress::parse(&source, self.dialect) {
                Ok(address) => address,
                Err(e) => {
                    let diagnostic = at_call(
                        &call,
                        "Invalid module source address",
                        format!("Failed to parse module source address: {}", e.message()),
                    );
                    self.fail(&key, FailureKind::InvalidSource, diagnostic);
                    continue;
                }
            };
            let constraints = match &call.version {
                None => VersionConstraints::new(),
                Some(text) => match VersionConstraints::parse(text, self.dialect) {
                    Ok(constraints) => constraints,
                    Err(e) => {
                        let diagnostic = at_call(
                            &call,
                            "Invalid version constraint",
                            format!(
                                "This string does not use correct version constraint syntax: {e}"
                            ),
                        );
                        self.fail(&key, FailureKind::Configuration, diagnostic);
                        continue;
                    }
                },
            };
            if !constraints.is_empty() && !matches!(address, ModuleAddress::Registry(_)) {
                let detail = format!(
                    "Cannot apply a version constraint to module {} (at {}:{}) because it {}.",
                    go_quote(&call.name),
                    call.file.display(),
                    call.line.unwrap_or(0),
                    if matches!(address, ModuleAddress::Local(_)) {
                        "has a relative local path"
                    } else {
                        "doesn't come from a module registry"
                    }
                );
                let diagnostic = at_call(&call, "Invalid version constraint", detail);
                self.fail(&key, FailureKind::Configuration, diagnostic);
                continue;
            }
            if self.nodes.len() + 1 >= MAX_MODULES {
                let detail = format!(
                    "The configuration has more than {MAX_MODULES} module calls (counting each call of a module that is called more than once, and calls that call themselves)."
                );
                let diagnostic = at_call(&call, "Too many modules", detail);
                self.fail(&key, FailureKind::Configuration, diagnostic);
                return;
            }
            let index = self.nodes.len();
            self.nodes.push(Node {
                key,
                call,
                parent,
                constraints,
                address,
                dir: None,
                record: None,
                package: None,
            });
            self.start(index);
        }
    }

    /// Starts a node: kept as installed, read where its parent is, or
    /// fetched.
    fn start(&mut self, node: usize) {
        if let Some(record) = self.kept(node) {
            let dir = self.root.join(&record.dir);
            self.read(node, dir, record);
            return;
        }
        let source = self.nodes[node].address.to_string();
        match self.nodes[node].address.clone() {
            ModuleAddress::Local(path) => {
                let parent = self.nodes[node].parent;
                let record_dir = join_dir(&self.record_of(parent).dir, &path);
                let dir = clean_path(&self.dir_of(parent).join(&path));
                let record = ModuleRecord {
                    key: self.nodes[node].key.clone(),
                    source,
                    version: None,
                    dir: record_dir,
                };
                self.read(node, dir, record);
            }
            ModuleAddress::Remote(package) => {
                let subdir = package.subdir().to_owned();
                self.fetch(For::Node(node), &Remote::Address(package), &subdir);
            }
            ModuleAddress::Registry(registry) => self.ask_versions(For::Node(node), &registry),
        }
    }

    /// Asks a registry package's versions for `who` (once per package).
    fn ask_versions(&mut self, who: For, registry: &ModuleSource) {
        if let For::Node(_) = who {
            self.hosts.insert(registry.host().to_string());
        }
        let key = package_key(registry);
        match self.versions.get_mut(&key) {
            Some(Waiting::Asked(waiting)) => waiting.push((who, String::new())),
            Some(Waiting::Answered(_)) => self.versions_ready(who),
            None => {
                self.versions
                    .insert(key.clone(), Waiting::Asked(vec![(who, String::new())]));
                self.push(
                    Job::Versions {
                        source: without_subdir(registry),
                    },
                    Asked::Versions(key),
                );
            }
        }
    }

    /// The versions `who` waited for are known.
    fn versions_ready(&mut self, who: For) {
        match who {
            For::Node(node) => self.pick_version(node),
            For::Hint(hint) => self.pick_hint_version(hint),
        }
    }

    /// The record `init` keeps for a node (MOD-5): the manifest's, when not
    /// upgrading, its source is the same, its version still allowed and
    /// its folder still there.
    fn kept(&self, node: usize) -> Option<ModuleRecord> {
        if self.upgrade {
            return None;
        }
        let n = &self.nodes[node];
        if self.write_lock
            && !matches!(n.address, ModuleAddress::Local(_))
            && self.locked_entry(node).is_none()
        {
            return None;
        }
        let record = self.old.get(&n.key)?;
        let same_source = ModuleAddress::parse(&record.source, self.dialect)
            .is_ok_and(|recorded| recorded.to_string() == n.address.to_string());
        if !same_source {
            return None;
        }
        if let Some(version) = &record.version {
            let version = Version::parse(version, self.dialect).ok()?;
            if !n.constraints.allows(&version) {
                return None;
            }
        }
        if !self.ancestors_kept(n.parent) {
            return None;
        }
        self.root.join(&record.dir).is_dir().then(|| record.clone())
    }

    /// Whether every module above a node was kept: a module installed
    /// again takes its descendants' records with it.
    fn ancestors_kept(&self, mut node: usize) -> bool {
        while node != ROOT {
            let n = &self.nodes[node];
            if n.package.is_some() {
                return false;
            }
            if !matches!(n.address, ModuleAddress::Local(_))
                && n.record.as_ref() != self.old.get(&n.key)
            {
                return false;
            }
            node = n.parent;
        }
        true
    }

    /// A node's module is at `dir`: record it and read its calls.
    fn read(&mut self, node: usize, dir: PathBuf, record: ModuleRecord) {
        self.nodes[node].dir = Some(dir.clone());
        self.nodes[node].record = Some(record);
        let key = self.nodes[node].key.clone();
        self.push(Job::Calls { key, dir }, Asked::Calls(node));
    }

    /// Fetches `package` for `who` (once per address), the module in its
    /// `subdir`; the fetch watches the `subdir` of whoever asked first.
    fn fetch(&mut self, who: For, package: &Remote, subdir: &str) {
        let address = package.address().to_owned();
        if let (For::Node(_), Some(host)) = (who, remote_host(package)) {
            self.hosts.insert(host);
        }
        let index = match self.by_address.get(&address) {
            Some(index) => *index,
            None => {
                let index = self.packages.len();
                let folder = self.staging.join(format!("p{index}"));
                self.packages.push(Package {
                    address: address.clone(),
                    folder: folder.clone(),
                    watched: subdir.to_owned(),
                    state: Waiting::Asked(Vec::new()),
                });
                self.by_address.insert(address, index);
                self.push(
                    Job::Fetch {
                        package: package.clone(),
                        into: folder,
                        expected: self.expected_hash(who),
                        watch: Watch {
                            package: index,
                            folder: subdir.to_owned(),
                        },
                    },
                    Asked::Fetch(index),
                );
                index
            }
        };
        let node = match who {
            For::Node(node) => node,
            // A hint waits only for the calls its package's files tell.
            For::Hint(_) => {
                if let Waiting::Asked(waiting) = &mut self.packages[index].state {
                    waiting.push((who, subdir.to_owned()));
                }
                return;
            }
        };
        self.nodes[node].package = Some(index);
        match &mut self.packages[index].state {
            Waiting::Asked(waiting) => waiting.push((who, subdir.to_owned())),
            Waiting::Answered(result) => {
                let result = result.clone();
                self.package_ready(node, index, subdir, result);
            }
        }
    }

    /// The hash the lock records for the package of `who`: its entry for
    /// the key and source and, for a registry module, the version chosen.
    fn expected_hash(&self, who: For) -> Option<String> {
        let (key, address, version) = match who {
            For::Node(node) => {
                let n = &self.nodes[node];
                (&n.key, &n.address, self.chosen_version(node))
            }
            For::Hint(hint) => {
                let h = &self.hints[hint];
                (&h.key, &h.address, h.version.clone())
            }
        };
        let version = version.filter(|_| matches!(address, ModuleAddress::Registry(_)));
        self.locked_for(key, address)
            .filter(|entry| entry.version == version)
            .map(|entry| entry.hash.clone())
    }

    /// The lock's entry for a node, when it is for the node's source.
    fn locked_entry(&self, node: usize) -> Option<&ModuleLockEntry> {
        let n = &self.nodes[node];
        self.locked_for(&n.key, &n.address)
    }

    /// The lock's entry for a key, when it is for `address`.
    fn locked_for(&self, key: &str, address: &ModuleAddress) -> Option<&ModuleLockEntry> {
        self.lock
            .modules
            .get(key)
            .filter(|entry| entry.source == address.to_string())
    }

    fn fetched(&mut self, index: usize, result: Result<String, String>) {
        let state = std::mem::replace(
            &mut self.packages[index].state,
            Waiting::Answered(result.clone()),
        );
        if let Waiting::Asked(waiting) = state {
            for (who, subdir) in waiting {
                if let For::Node(node) = who {
                    self.package_ready(node, index, &subdir, result.clone());
                }
            }
        }
    }

    /// A node's package is fetched (or failed): its module is read from
    /// the package's `subdir`.
    fn package_ready(
        &mut self,
        node: usize,
        index: usize,
        subdir: &str,
        result: Result<String, String>,
    ) {
        let version = match &self.nodes[node].address {
            ModuleAddress::Registry(_) => self.chosen_version(node),
            _ => None,
        };
        let result = result.and_then(|hash| self.check_locked(node, version.as_deref(), hash));
        let n = &self.nodes[node];
        if let Err(why) = result {
            let detail = format!(
                "Could not download module {} ({}:{}) source code from {}: {why}",
                go_quote(&n.call.name),
                n.call.file.display(),
                n.call.line.unwrap_or(0),
                go_quote(&without_ssh_key(&self.packages[index].address)),
            );
            let diagnostic = at_call(&n.call, "Failed to download module", detail);
            let key = n.key.clone();
            self.fail(&key, FailureKind::Download, diagnostic);
            return;
        }
        let folder = self.packages[index].folder.clone();
        let dir = if subdir.is_empty() {
            folder.clone()
        } else {
            folder.join(subdir)
        };
        let module_dir = format!("{MODULES_DIR}/{}", n.key);
        let record_dir = if subdir.is_empty() {
            module_dir
        } else {
            join_dir(&module_dir, subdir)
        };
        if !dir.is_dir() {
            let detail = format!(
                "The directory {record_dir} does not exist. The target submodule {subdir} does not exist within the target module."
            );
            let diagnostic = at_call(&n.call, "Unreadable module subdirectory", detail);
            let key = n.key.clone();
            self.fail(&key, FailureKind::Download, diagnostic);
            return;
        }
        let record = ModuleRecord {
            key: n.key.clone(),
            source: n.address.to_string(),
            version,
            dir: record_dir,
        };
        self.read(node, dir, record);
    }

    /// A fetched package's hash against the lock's entry for the node, when
    /// it has one for this source and version (MOD-12).
    fn check_locked(
        &self,
        node: usize,
        version: Option<&str>,
        hash: String,
    ) -> Result<String, String> {
        match self.locked_entry(node) {
            Some(entry) if entry.version.as_deref() == version && entry.hash != hash => {
                Err(format!(
                    "the package is not the one the module lock ({MODULE_LOCK_FILE}) records: it \
                 is {hash}, the lock says {}; if the change is expected, run with --lock \
                 --upgrade to record it",
                    entry.hash
                ))
            }
            _ => Ok(hash),
        }
    }

    fn versions_known(&mut self, key: PackageKey, result: Result<ModuleVersions, Error>) {
        let dialect = self.dialect;
        let answer = result
            .map(|found| {
                found
                    .versions
                    .iter()
                    .filter_map(|v| Version::parse(v, dialect).ok())
                    .collect::<Vec<_>>()
            })
            .map_err(|e| e.to_string());
        let state = self.versions.insert(key, Waiting::Answered(answer));
        if let Some(Waiting::Asked(waiting)) = state {
            for (who, _) in waiting {
                self.versions_ready(who);
            }
        }
    }

    /// The version a call at `key` of `address` with `constraints`
    /// installs from `versions` (MOD-3, MOD-12): the module lock's when it
    /// is there and still allowed (and not upgrading), else the newest
    /// allowed; when none is, the newest there is, if any.
    fn choose<'v>(
        &self,
        key: &str,
        address: &ModuleAddress,
        constraints: &VersionConstraints,
        versions: &'v [Version],
    ) -> Result<&'v Version, Option<&'v Version>> {
        let newest = versions
            .iter()
            .filter(|v| !v.is_prerelease() || constraints.allows(v))
            .max();
        let locked = self
            .locked_for(key, address)
            .filter(|_| !self.upgrade)
            .and_then(|entry| entry.version.as_deref())
            .and_then(|v| versions.iter().find(|known| known.to_string() == v))
            .filter(|v| constraints.allows(v));
        let chosen = locked.or_else(|| versions.iter().filter(|v| constraints.allows(v)).max());
        match (newest, chosen) {
            (Some(_), Some(chosen)) => Ok(chosen),
            (newest, _) => Err(newest),
        }
    }

    /// The newest version a node's constraint allows (MOD-3), then its
    /// location.
    fn pick_version(&mut self, node: usize) {
        let n = &self.nodes[node];
        let ModuleAddress::Registry(registry) = &n.address else {
            return;
        };
        let key = package_key(registry);
        let Some(Waiting::Answered(answer)) = self.versions.get(&key) else {
            return;
        };
        let versions = match answer {
            Ok(versions) => versions,
            Err(why) => {
                let detail = format!(
                    "Failed to retrieve available versions for module {} ({}:{}) from {}: {why}.",
                    go_quote(&n.call.name),
                    n.call.file.display(),
                    n.call.line.unwrap_or(0),
                    registry.host()
                );
                let diagnostic = at_call(&n.call, "Error accessing remote module registry", detail);
                let key = n.key.clone();
                self.fail(&key, FailureKind::Registry, diagnostic);
                return;
            }
        };
        let chosen = match self.choose(&n.key, &n.address, &n.constraints, versions) {
            Ok(chosen) => chosen,
            Err(newest) => {
                let (summary, detail) = match newest {
                    None => (
                        "Module has no versions",
                        format!(
                            "Module {} ({}:{}) has no versions available on {}.",
                            go_quote(&registry.to_string()),
                            n.call.file.display(),
                            n.call.line.unwrap_or(0),
                            registry.host()
                        ),
                    ),
                    Some(newest) => (
                        "Unresolvable module version constraint",
                        format!(
                            "There is no available version of module {} ({}:{}) which matches the given version constraint. The newest available version is {newest}.",
                            go_quote(&registry.to_string()),
                            n.call.file.display(),
                            n.call.line.unwrap_or(0),
                        ),
                    ),
                };
                let diagnostic = at_call(&n.call, summary, detail.clone());
                let key = n.key.clone();
                self.fail(&key, FailureKind::NoVersion, diagnostic);
                return;
            }
        };
        let version = chosen.to_string();
        let registry = registry.clone();
        self.nodes[node].record = Some(ModuleRecord {
            key: self.nodes[node].key.clone(),
            source: String::new(),
            version: Some(version.clone()),
            dir: String::new(),
        });
        self.ask_location(For::Node(node), key, version, &registry);
    }

    /// Asks where a version of a registry package is, for `who` (once per
    /// package and version).
    fn ask_location(
        &mut self,
        who: For,
        key: PackageKey,
        version: String,
        registry: &ModuleSource,
    ) {
        let location_key = (key.clone(), version.clone());
        match self.locations.get_mut(&location_key) {
            Some(Waiting::Asked(waiting)) => waiting.push((who, String::new())),
            Some(Waiting::Answered(answer)) => {
                let answer = answer.clone();
                self.location_for(who, answer);
            }
            None => {
                self.locations
                    .insert(location_key, Waiting::Asked(vec![(who, String::new())]));
                self.push(
                    Job::Location {
                        source: without_subdir(registry),
                        version: version.clone(),
                    },
                    Asked::Location(key, version),
                );
            }
        }
    }

    /// The location `who` waited for is known.
    fn location_for(&mut self, who: For, answer: Result<Remote, String>) {
        match who {
            For::Node(node) => self.location_ready(node, answer),
            For::Hint(hint) => self.hint_located(hint, answer),
        }
    }

    /// The version picked for a registry node.
    fn chosen_version(&self, node: usize) -> Option<String> {
        self.nodes[node].record.as_ref()?.version.clone()
    }

    fn location_known(
        &mut self,
        key: PackageKey,
        version: String,
        result: Result<ModuleLocation, Error>,
    ) {
        let answer = result
            .map_err(|e| e.to_string())
            .map(|location| match location.package {
                Some(package) => Remote::Address(package),
                None => Remote::Direct(DirectPackage {
                    url: location.location,
                    registry: location.source.host().clone(),
                    credentials: location.use_registry_credentials == Some(true),
                }),
            });
        let state = self
            .locations
            .insert((key, version), Waiting::Answered(answer.clone()));
        if let Some(Waiting::Asked(waiting)) = state {
            for (who, _) in waiting {
                self.location_for(who, answer.clone());
            }
        }
    }

    /// A registry node's package location is known: fetch it, the module
    /// in the location's subdir joined with the source's.
    fn location_ready(&mut self, node: usize, answer: Result<Remote, String>) {
        let n = &self.nodes[node];
        let ModuleAddress::Registry(registry) = &n.address else {
            return;
        };
        match answer {
            Ok(package) => {
                let subdir = located_subdir(&package, registry);
                self.fetch(For::Node(node), &package, &subdir);
            }
            Err(why) => {
                let version = self.chosen_version(node).unwrap_or_default();
                let detail = format!(
                    "Failed to retrieve a download URL for {registry} {version} from {}: {why}",
                    registry.host()
                );
                let diagnostic = at_call(&n.call, "Error accessing remote module registry", detail);
                let key = n.key.clone();
                self.fail(&key, FailureKind::Registry, diagnostic);
            }
        }
    }

    /// A fetch's note: each call of the file it read guessed, for each
    /// node or hint waiting for the module in the folder the fetch watches
    /// (nothing once the package is whole: its calls are read then).
    fn peeked(&mut self, peeked: Peeked) {
        let Some(package) = self.packages.get(peeked.package) else {
            return;
        };
        let Waiting::Asked(waiting) = &package.state else {
            return;
        };
        let mut parents: Vec<String> = waiting
            .iter()
            .filter(|(_, subdir)| *subdir == package.watched)
            .map(|(who, _)| match who {
                For::Node(node) => self.nodes[*node].key.clone(),
                For::Hint(hint) => self.hints[*hint].key.clone(),
            })
            .collect();
        parents.dedup();
        for parent in parents {
            for call in &peeked.calls {
                self.hint(&parent, call);
            }
        }
    }

    /// A call guessed in the module at `parent`: its registry requests and
    /// archive asked now, when they are on a host the run already asks
    /// (each key once; a guess that does not parse is dropped).
    fn hint(&mut self, parent: &str, call: &ModuleCall) {
        if self.nodes.len() + self.hints.len() + 1 >= MAX_MODULES
            || !tfdisco_config::hcl_syntax::is_identifier(&call.name)
        {
            return;
        }
        let key = format!("{parent}.{}", call.name);
        let Some(Ok(address)) = call
            .source
            .as_deref()
            .map(|source| ModuleAddress::parse(source, self.dialect))
        else {
            return;
        };
        let constraints = match call.version.as_deref() {
            None => VersionConstraints::new(),
            Some(text) => match VersionConstraints::parse(text, self.dialect) {
                Ok(constraints) => constraints,
                Err(_) => return,
            },
        };
        let asked = match &address {
            ModuleAddress::Registry(registry) => self.hosts.contains(&registry.host().to_string()),
            ModuleAddress::Remote(package) => self.may_prefetch(&Remote::Address(package.clone())),
            ModuleAddress::Local(_) => false,
        };
        if !asked || !self.hinted.insert(key.clone()) {
            return;
        }
        let hint = self.hints.len();
        self.hints.push(Hint {
            key,
            address: address.clone(),
            constraints,
            version: None,
        });
        match address {
            ModuleAddress::Registry(registry) => self.ask_versions(For::Hint(hint), &registry),
            ModuleAddress::Remote(package) => {
                let subdir = package.subdir().to_owned();
                self.fetch(For::Hint(hint), &Remote::Address(package), &subdir);
            }
            ModuleAddress::Local(_) => {}
        }
    }

    /// A hint's versions are known: the version its call would pick, and
    /// then its location (nothing when none would be picked).
    fn pick_hint_version(&mut self, hint: usize) {
        let h = &self.hints[hint];
        let ModuleAddress::Registry(registry) = &h.address else {
            return;
        };
        let key = package_key(registry);
        let Some(Waiting::Answered(Ok(versions))) = self.versions.get(&key) else {
            return;
        };
        let Ok(version) = self.choose(&h.key, &h.address, &h.constraints, versions) else {
            return;
        };
        let version = version.to_string();
        let registry = registry.clone();
        self.hints[hint].version = Some(version.clone());
        self.ask_location(For::Hint(hint), key, version, &registry);
    }

    /// A hint's location is known: its package fetched when it is an
    /// archive on a host the run already asks.
    fn hint_located(&mut self, hint: usize, answer: Result<Remote, String>) {
        let ModuleAddress::Registry(registry) = &self.hints[hint].address else {
            return;
        };
        if let Ok(package) = answer
            && self.may_prefetch(&package)
        {
            let subdir = located_subdir(&package, registry);
            self.fetch(For::Hint(hint), &package, &subdir);
        }
    }

    /// Whether a hint may fetch `package` before a call asks for it: an
    /// http(s) archive (no page, no clone) on a host the run already asks.
    fn may_prefetch(&self, package: &Remote) -> bool {
        let archive = match package {
            Remote::Address(package) => {
                matches!(package.getter(), Some(Getter::Http | Getter::Https))
                    && package.archive().is_some()
            }
            Remote::Direct(_) => true,
        };
        archive && remote_host(package).is_some_and(|host| self.hosts.contains(&host))
    }

    fn fail(&mut self, key: &str, kind: FailureKind, diagnostic: Diagnostic) {
        self.failures.push(ModuleFailure {
            key: key.to_owned(),
            kind,
            diagnostic,
        });
    }

    /// The plan's outcome once every job is done: what to place and the
    /// manifest to write, or every failure.
    pub(crate) fn finish(self) -> Result<Finished, Vec<ModuleFailure>> {
        if !self.failures.is_empty() {
            return Err(self.failures);
        }
        // `init`'s walk order: depth first, calls sorted by name.
        let mut children: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, node) in self.nodes.iter().enumerate() {
            children.entry(node.parent).or_default().push(i);
        }
        let mut order = Vec::new();
        let mut stack: Vec<usize> = children.get(&ROOT).cloned().unwrap_or_default();
        stack.sort_by(|a, b| self.nodes[*b].call.name.cmp(&self.nodes[*a].call.name));
        while let Some(node) = stack.pop() {
            order.push(node);
            let mut below = children.get(&node).cloned().unwrap_or_default();
            below.sort_by(|a, b| self.nodes[*b].call.name.cmp(&self.nodes[*a].call.name));
            stack.extend(below);
        }
        let mut manifest = ModuleManifest::new();
        let mut lock = ModuleLock::default();
        let mut placements = Vec::new();
        let mut firsts = vec![true; self.packages.len()];
        for node in order {
            let n = &self.nodes[node];
            let record = n.record.clone().expect("every node placed has its record");
            let hash = match n.package {
                Some(index) => match &self.packages[index].state {
                    Waiting::Answered(Ok(hash)) => Some(hash.clone()),
                    _ => None,
                },
                None => self.lock.modules.get(&n.key).map(|e| e.hash.clone()),
            };
            if let (false, Some(hash)) = (matches!(n.address, ModuleAddress::Local(_)), hash) {
                lock.modules.insert(
                    n.key.clone(),
                    ModuleLockEntry {
                        source: record.source.clone(),
                        version: record.version.clone(),
                        hash,
                    },
                );
            }
            if let Some(index) = n.package {
                placements.push(Placement {
                    key: n.key.clone(),
                    from: self.packages[index].folder.clone(),
                    first: std::mem::replace(&mut firsts[index], false),
                });
            }
            manifest.insert(record);
        }
        // Folders of modules installed again, and of modules no longer
        // called, go.
        let mut replaced: Vec<String> = placements.iter().map(|p| p.key.clone()).collect();
        for old in self.old.records() {
            if !old.key.is_empty() && manifest.get(&old.key).is_none() {
                replaced.push(old.key.clone());
            }
        }
        Ok(Finished {
            manifest,
            placements,
            replaced,
            lock,
        })
    }
}

impl JobPlan for ModulePlan {
    type Id = JobId;
    type Job = Job;
    type Output = Result<Output, Error>;

    /// Registry requests and call reads first, in the order they were
    /// found: they are small, and each finds more work. Then fetches, the
    /// most recently found first: a nested package (found once its parent
    /// is unpacked, so on the longest chain) starts before the root's
    /// packages still waiting.
    fn next_job(&mut self) -> Option<(JobId, Job)> {
        match self
            .jobs
            .iter()
            .position(|(_, job)| !matches!(job, Job::Fetch { .. }))
        {
            Some(at) => self.jobs.remove(at),
            None => self.jobs.pop_back(),
        }
    }

    fn is_finished(&self) -> bool {
        self.jobs.is_empty() && self.in_flight.is_empty()
    }

    fn complete(&mut self, id: JobId, output: Result<Output, Error>) {
        self.completed(id, output);
    }

    fn not_run(error: Error) -> Result<Output, Error> {
        Err(error)
    }

    type Note = Peeked;

    fn noted(&mut self, note: Peeked) {
        self.peeked(note);
    }
}

/// A diagnostic at a module call.
fn at_call(call: &ModuleCall, summary: &str, detail: String) -> Diagnostic {
    Diagnostic::with_detail(summary, detail).at(&call.file, call.line)
}

/// The folder of a located package a registry source's module is in: the
/// location's subdir joined with the source's.
fn located_subdir(package: &Remote, registry: &ModuleSource) -> String {
    match package {
        Remote::Address(package) => package.join_subdir(registry.subdir()),
        Remote::Direct(_) => registry.subdir().to_owned(),
    }
}

/// The host a package is fetched from (with its port, when the URL names
/// one), when its address has one.
fn remote_host(package: &Remote) -> Option<String> {
    let url = match package {
        Remote::Address(package) => package.url(),
        Remote::Direct(direct) => &direct.url,
    };
    let url = tfdisco_core::url::Url::parse(url).ok()?;
    tfdisco_core::Hostname::of_url(&url)
        .ok()
        .map(|host| host.to_string())
}

/// A registry source's package, as the versions are asked for it.
fn package_key(source: &ModuleSource) -> PackageKey {
    without_subdir(source).to_string()
}

/// The source without its `//subdir`.
fn without_subdir(source: &ModuleSource) -> ModuleSource {
    if source.subdir().is_empty() {
        return source.clone();
    }
    let text = source.to_string();
    let bare = text
        .rsplit_once("//")
        .map_or(text.as_str(), |(package, _)| package);
    ModuleSource::parse(bare, source.dialect()).unwrap_or_else(|_| source.clone())
}

/// Go's `filepath.Join(dir, rel)` for `/`-separated relative paths: joined
/// and cleaned.
fn join_dir(dir: &str, rel: &str) -> String {
    go_clean(&format!("{dir}/{rel}"))
}

/// A path with `.` and `x/..` taken out lexically.
fn clean_path(path: &Path) -> PathBuf {
    PathBuf::from(go_clean(&path.to_string_lossy()))
}
