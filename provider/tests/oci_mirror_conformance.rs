//! OpenTofu's OCI mirror tests (`conformance/oci_mirror_source.json`), run
//! as data against tfdisco's rules (docs/behaviour.md, OCI-2 to OCI-4,
//! OCI-7, OCIMIRROR-1 to OCIMIRROR-5, INSTALL-4).
//!
//! Each fake repository of the table is materialized into an in-memory
//! store (its zips written with the test zip writer, its documents
//! serialized with their `$ref`s resolved) and served by a fake registry
//! that answers the requests tfdisco's own OCI sessions make
//! (`tfdisco_oci::Authorized` with `TagListRequest`, `ManifestRequest`, `BlobRequest`,
//! driven here as the transports drive them, without sockets). A call of
//! OpenTofu's source is then a provider plan (`ProviderPlan`, a lock run or an
//! install run) whose jobs this test runs against that registry:
//!
//! - `AvailableVersions`: the source as an `oci_mirror` installation method
//!   (the fixture's "example.com only" mapping is its `include` pattern),
//!   asked through `ProviderInstallation::available_versions` (Go's
//!   `MultiSource`) for the repository's tags read as versions; a missing
//!   repository is also run through a provider plan, which must fail with kind
//!   `provider` (`LockProblem::Unknown`).
//! - `PackageMeta`: a lock run of that version for that platform; OpenTofu's
//!   `ErrPlatformNotSupported` is the failure of kind `platform`, its other
//!   errors the failure's `package` message.
//! - `PackageMeta+InstallProviderPackage` and the blob-archive cases: an
//!   install run; the archive is unpacked as it downloads and placed only
//!   when the plan succeeds, as the transports place it. The allowed
//!   hashes are what the lock file records for the version.
//! - The end-to-end `init`: an install run of both providers from the
//!   inlined OCI image layouts, on each platform upstream runs it on.
//!
//! A case that fails must be listed with its reason in
//! `expected_differences.txt` (under `oci_mirror_source/`), and a listed
//! case that passes fails the run.

#[path = "../../core/tests/common/results.rs"]
mod results;
mod zipwriter;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::{Instant, SystemTime};

use base64::Engine as _;
use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};
use tfdisco_core::http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE};
use tfdisco_core::http::{HeaderMap, HeaderName, HeaderValue, Request, StatusCode};
use tfdisco_core::{
    Action, Config, Dialect, Error, ErrorKind, Goal, Hostname, Platform, ProviderSource, Sink,
    Transfer, TransportError, TransportErrorKind, Version, VersionConstraints,
};
use tfdisco_oci::{
    Access, Algorithm, AuthCache, Authorized, BlobRequest, Digest, ManifestRequest,
    RepositoryAddress, Scope, Step, TagListRequest, TagPage, artifact_type, media_type,
};
use tfdisco_provider::oci_mirror::versions_from_tags;
use tfdisco_provider::plan::{
    ArchiveSink, InstallRules, Installed, InstalledPackages, Job, JobOutput, LockFailure,
    LockProblem, Origin, ProviderLock, ProviderPlan, Recorded, Requirement, package_dir,
};
use tfdisco_provider::{
    ArchiveDigest, InstallationMethod, MethodError, MethodKind, MultiSourceError, PackageHashError,
    ProviderInstallation, ProviderPattern, SignatureCheck, Trust, UnpackError, UnpackOp, Unpacker,
};

use results::{Results, table};
use zipwriter::{Descriptor as ZipDescriptor, Entry, Method, Zip};

/// `id<TAB>tag<TAB>reason` lines. Tags: `D31` (the manifest a tag names is
/// fetched with `GET`, never resolved with `HEAD` first); `codes` (a
/// registry's error codes are not read, only its status); `seam` (the Go
/// test injects something tfdisco has no place for); `wording` (the same
/// outcome, in tfdisco's words).
fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["D31", "codes", "seam", "wording"])
}

const TABLE: &str = "oci_mirror_source.json";
const DIALECT: Dialect = Dialect::OpenTofu;

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string {key} in {v}"))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("no array: {v}"))
        .iter()
        .map(|s| s.as_str().expect("a string").to_owned())
        .collect()
}

fn source(given: &str) -> ProviderSource {
    ProviderSource::parse(given, DIALECT).unwrap_or_else(|e| panic!("{given}: {e}"))
}

fn version(given: &str) -> Version {
    Version::parse(given, DIALECT).unwrap_or_else(|e| panic!("{given}: {e}"))
}

fn platform(given: &str) -> Platform {
    let (os, arch) = given.split_once('_').expect("OS_ARCH");
    Platform::new(os, arch)
}

// ---------------------------------------------------------------------------
// The store: objects by digest, the media type each was described with, tags.

#[derive(Debug, Default)]
struct Store {
    /// Object id (the table's) -> digest.
    ids: HashMap<String, Digest>,
    /// Digest -> bytes.
    objects: HashMap<Digest, Vec<u8>>,
    /// Digest -> the media type the first descriptor naming it gave.
    media: HashMap<Digest, String>,
    /// Tag -> the descriptor it resolves to.
    tags: BTreeMap<String, Value>,
}

impl Store {
    fn add(&mut self, id: &str, bytes: Vec<u8>) -> Digest {
        let digest = Digest::of(Algorithm::Sha256, &bytes);
        self.ids.insert(id.to_owned(), digest.clone());
        self.objects.insert(digest.clone(), bytes);
        digest
    }

    /// `value` with every `{"mediaType": M, "$ref": ID, …}` replaced by a
    /// descriptor of object ID's bytes (which must be in already: the
    /// table lists objects in dependency order), and every descriptor's
    /// media type noted for its digest.
    fn resolve(&mut self, value: &Value) -> Value {
        match value {
            Value::Object(o) => {
                let mut out = Map::new();
                if let Some(id) = o.get("$ref").and_then(Value::as_str) {
                    let digest = self.ids.get(id).unwrap_or_else(|| panic!("no object {id}"));
                    let size = self.objects[digest].len();
                    out.insert("mediaType".into(), o["mediaType"].clone());
                    out.insert("digest".into(), digest.to_string().into());
                    out.insert("size".into(), size.into());
                }
                for (k, v) in o {
                    if k != "$ref" && !out.contains_key(k) {
                        out.insert(k.clone(), self.resolve(v));
                    }
                }
                self.note_media_type(&out);
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(|v| self.resolve(v)).collect()),
            other => other.clone(),
        }
    }

    fn note_media_type(&mut self, descriptor: &Map<String, Value>) {
        let media = descriptor.get("mediaType").and_then(Value::as_str);
        let digest = descriptor
            .get("digest")
            .and_then(Value::as_str)
            .and_then(|d| d.parse::<Digest>().ok());
        if let (Some(media), Some(digest)) = (media, digest) {
            self.media.entry(digest).or_insert_with(|| media.to_owned());
        }
    }

    /// A repository as the table writes it: `{objects, tags}`.
    fn from_table(repo: &Value) -> Store {
        let mut store = Store::default();
        for object in repo["objects"].as_array().expect("objects") {
            let bytes = match s(object, "kind") {
                "zip" => zip(&object["entries"]),
                "bytes" => s(object, "text").as_bytes().to_vec(),
                // Compact JSON. serde_json keeps keys sorted, not in Go's
                // field order: the bytes and digests differ from Go's, and
                // no rule reads either.
                "json" => {
                    let document = store.resolve(&object["document"]);
                    serde_json::to_vec(&document).expect("serializes")
                }
                other => panic!("object kind {other}"),
            };
            store.add(s(object, "id"), bytes);
        }
        for (tag, descriptor) in repo["tags"].as_object().expect("tags") {
            let resolved = store.resolve(descriptor);
            store.tags.insert(tag.clone(), resolved);
        }
        store
    }

    /// An OCI image layout as the e2e case inlines it: `blobs/sha256/HEX`
    /// files, and `index.json`, whose entries named by
    /// `org.opencontainers.image.ref.name` are the tags.
    fn from_layout(files: &Value) -> Store {
        let mut store = Store::default();
        let mut documents = Vec::new();
        for (path, file) in files.as_object().expect("layout") {
            let bytes = match (file.get("text"), file.get("base64")) {
                (Some(text), _) => text.as_str().expect("text").as_bytes().to_vec(),
                (None, Some(b64)) => base64::engine::general_purpose::STANDARD
                    .decode(b64.as_str().expect("base64"))
                    .expect("valid base64"),
                _ => panic!("{path}: no content"),
            };
            assert_eq!(bytes.len() as u64, file["size"].as_u64().expect("size"));
            if let Ok(document) = serde_json::from_slice::<Value>(&bytes) {
                documents.push(document);
            }
            if let Some(hex) = path.strip_prefix("blobs/sha256/") {
                let digest = store.add(path, bytes);
                assert_eq!(digest.hex(), hex, "{path} hashes to its name");
            }
        }
        // Every descriptor of every document gives its digest's media type.
        fn walk(store: &mut Store, v: &Value) {
            match v {
                Value::Object(o) => {
                    store.note_media_type(o);
                    o.values().for_each(|v| walk(store, v));
                }
                Value::Array(a) => a.iter().for_each(|v| walk(store, v)),
                _ => {}
            }
        }
        for document in &documents {
            walk(&mut store, document);
        }
        let index: Value = serde_json::from_str(s(&files["index.json"], "text")).expect("index");
        for entry in index["manifests"].as_array().expect("manifests") {
            let name = entry
                .get("annotations")
                .and_then(|a| a.get("org.opencontainers.image.ref.name"))
                .and_then(Value::as_str);
            if let Some(tag) = name {
                store.tags.insert(tag.to_owned(), entry.clone());
            }
        }
        store
    }
}

/// A zip of `entries` (`{name, content}`), written as Go's `archive/zip`
/// writes one: deflated, sizes in a signed data descriptor.
fn zip(entries: &Value) -> Vec<u8> {
    let entries = entries
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            Entry::new(
                s(e, "name"),
                s(e, "content").as_bytes(),
                Method::Deflated,
                ZipDescriptor::Signed32,
            )
        })
        .collect();
    Zip {
        entries,
        ..Zip::default()
    }
    .write()
}

// ---------------------------------------------------------------------------
// The fake registry.

struct Reply {
    status: u16,
    headers: Vec<(HeaderName, String)>,
    body: Vec<u8>,
}

fn error_reply(status: u16, code: &str) -> Reply {
    Reply {
        status,
        headers: vec![(CONTENT_TYPE, "application/json".to_owned())],
        body: json!({"errors": [{"code": code, "message": code.to_lowercase()}]})
            .to_string()
            .into_bytes(),
    }
}

/// A registry serving stores as repositories, as the distribution API
/// does: `tags/list`, manifests by tag or digest (with `Content-Type` the
/// media type the store has for it, and `Docker-Content-Digest`), blobs.
#[derive(Default)]
struct Registry {
    repositories: BTreeMap<String, Store>,
    /// Every blob answered with pseudo-random bytes of its length (the
    /// blob-archive table's misbehaving store).
    scrambled_blobs: bool,
}

impl Registry {
    fn serve(&self, request: &Request<()>) -> Result<Reply, TransportError> {
        let path = request.uri().path();
        let rest = path.strip_prefix("/v2/").expect("an API path");
        let accept: Vec<&str> = request
            .headers()
            .get(ACCEPT)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(',').map(str::trim).collect())
            .unwrap_or_default();
        if let Some(name) = rest.strip_suffix("/tags/list") {
            let Some(store) = self.repositories.get(name) else {
                return Ok(error_reply(404, "NAME_UNKNOWN"));
            };
            let tags: Vec<&String> = store.tags.keys().collect();
            return Ok(Reply {
                status: 200,
                headers: vec![(CONTENT_TYPE, "application/json".to_owned())],
                body: json!({"name": name, "tags": tags}).to_string().into_bytes(),
            });
        }
        if let Some((name, reference)) = rest.split_once("/manifests/") {
            let Some(store) = self.repositories.get(name) else {
                return Ok(error_reply(404, "NAME_UNKNOWN"));
            };
            let found = match reference.parse::<Digest>() {
                Ok(digest) => store.media.get(&digest).map(|m| (m.clone(), digest)),
                Err(_) => store.tags.get(reference).map(|d| {
                    let digest = s(d, "digest").parse().expect("a digest");
                    (s(d, "mediaType").to_owned(), digest)
                }),
            };
            // As distribution 2.8 does (OCI-4): a manifest whose media type
            // the Accept header does not name is not found.
            let Some((media, digest)) = found.filter(|(m, _)| accept.contains(&m.as_str())) else {
                return Ok(error_reply(404, "MANIFEST_UNKNOWN"));
            };
            let Some(bytes) = store.objects.get(&digest) else {
                return Ok(error_reply(404, "MANIFEST_UNKNOWN"));
            };
            return Ok(Reply {
                status: 200,
                headers: vec![
                    (CONTENT_TYPE, media),
                    (
                        HeaderName::from_static("docker-content-digest"),
                        digest.to_string(),
                    ),
                    (CONTENT_LENGTH, bytes.len().to_string()),
                ],
                body: bytes.clone(),
            });
        }
        if let Some((name, digest)) = rest.split_once("/blobs/") {
            let blob = self
                .repositories
                .get(name)
                .and_then(|store| store.objects.get(&digest.parse::<Digest>().ok()?));
            let Some(bytes) = blob else {
                return Ok(error_reply(404, "BLOB_UNKNOWN"));
            };
            let body = if self.scrambled_blobs {
                scramble(bytes.len())
            } else {
                bytes.clone()
            };
            return Ok(Reply {
                status: 200,
                headers: vec![
                    (CONTENT_TYPE, "application/octet-stream".to_owned()),
                    (CONTENT_LENGTH, body.len().to_string()),
                ],
                body,
            });
        }
        Ok(error_reply(404, "UNSUPPORTED"))
    }
}

/// `len` bytes that are no zip (a linear congruential sequence).
fn scramble(len: usize) -> Vec<u8> {
    let mut x: u32 = 0x2545_f491;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) as u8
        })
        .collect()
}

/// Runs one transfer against `serve`: its request answered, its body handed
/// over in small chunks.
fn answer<G: Goal>(
    transfer: &mut Transfer<G>,
    serve: &dyn Fn(&Request<()>) -> Result<Reply, TransportError>,
    now: Instant,
) -> Result<G::Output, Error> {
    let Action::Send(request) = transfer.poll() else {
        panic!("a request to send")
    };
    match serve(&request) {
        Err(e) => transfer.handle_error(e, now),
        Ok(reply) => {
            let mut headers = HeaderMap::new();
            for (name, value) in &reply.headers {
                headers.append(name, HeaderValue::from_str(value).expect("a header value"));
            }
            let status = StatusCode::from_u16(reply.status).expect("a status");
            transfer.handle_head(status, &headers, now);
            if matches!(transfer.poll(), Action::Receive) {
                for chunk in reply.body.chunks(17) {
                    transfer.handle_body(chunk, now);
                }
                transfer.handle_end(now);
            }
        }
    }
    match transfer.poll() {
        Action::Done(result) => result,
        other => panic!("the transfer should be over: {other:?}"),
    }
}

/// One OCI request to the repository at `address`, anonymously, as the
/// transports run it (`oci_run`): the session's steps until it is done.
fn request<G: Goal>(
    serve: &dyn Fn(&Request<()>) -> Result<Reply, TransportError>,
    address: &RepositoryAddress,
    goal: G,
    url: tfdisco_core::url::Url,
) -> Result<G::Output, Error> {
    let config = Config::new(DIALECT);
    let mut cache = AuthCache::new();
    let now = Instant::now();
    let scope = Scope::new(address.repository(), Access::Pull);
    let mut session = Authorized::new(goal, url, address, scope, None);
    for _ in 0..4 {
        match session.next(&cache, &config, now) {
            Step::Request(mut transfer) => {
                let result = answer(&mut transfer, serve, now);
                session.answered(transfer, result, &mut cache);
            }
            Step::Token(_) => panic!("an anonymous registry asks for no token"),
            Step::Done(result) => return result,
        }
    }
    panic!("the session did not end")
}

fn host(address: &RepositoryAddress) -> Hostname {
    Hostname::parse(address.registry()).expect("a host")
}

/// The repository's tags (one page: the fake registry never pages).
fn tags(registry: &Registry, address: &RepositoryAddress) -> Result<Vec<String>, Error> {
    let serve = |r: &Request<()>| registry.serve(r);
    let page = tag_page(&serve, address)?;
    assert!(page.next.is_none());
    Ok(page.tags)
}

/// One page of the repository's tags, from what `serve` answers.
fn tag_page(
    serve: &dyn Fn(&Request<()>) -> Result<Reply, TransportError>,
    address: &RepositoryAddress,
) -> Result<TagPage, Error> {
    request(
        serve,
        address,
        TagListRequest::new(host(address)),
        address.tags_url(),
    )
}

// ---------------------------------------------------------------------------
// Running a plan's jobs.

/// An archive unpacked in memory as it downloads, as the install runs'
/// staging sink unpacks it into a folder: an archive the unpacker refuses
/// still streams to its end, for the checksum check.
#[derive(Debug, Default)]
struct MemoryStaging {
    unpacker: Option<Unpacker>,
    refused: Option<UnpackError>,
    files: BTreeMap<String, Vec<u8>>,
    open: Option<String>,
    sha256: Sha256,
    size: u64,
}

type Files = BTreeMap<String, Vec<u8>>;

impl MemoryStaging {
    fn new() -> MemoryStaging {
        MemoryStaging {
            unpacker: Some(Unpacker::new()),
            ..MemoryStaging::default()
        }
    }

    fn apply(&mut self, op: UnpackOp<'_>) {
        match op {
            UnpackOp::Folder(_) => {}
            UnpackOp::File(path) => {
                self.files.insert(path.to_owned(), Vec::new());
                self.open = Some(path.to_owned());
            }
            UnpackOp::Data(bytes) => {
                let open = self.open.as_ref().expect("an open file");
                self.files.get_mut(open).expect("created").extend(bytes);
            }
            UnpackOp::FileEnd => self.open = None,
        }
    }
}

impl Sink for MemoryStaging {
    type Output = (ArchiveDigest, Option<Files>);

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.sha256.update(chunk);
        self.size += chunk.len() as u64;
        if let Some(mut unpacker) = self.unpacker.take() {
            match unpacker.update(chunk, |op| {
                self.apply(op);
                Ok(())
            }) {
                Ok(()) => self.unpacker = Some(unpacker),
                Err(e) => self.refused = Some(e),
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<Self::Output, String> {
        let sha256: [u8; 32] = std::mem::take(&mut self.sha256).finalize().into();
        let (hashes, files) = match self.unpacker.take().map(Unpacker::finish) {
            Some(Ok(unpacked)) => (Ok(unpacked.archive), Some(std::mem::take(&mut self.files))),
            Some(Err(e)) => (Err(PackageHashError::not_unpacked(e.to_string())), None),
            None => {
                let why = self.refused.take().map(|e| e.to_string());
                (
                    Err(PackageHashError::not_unpacked(why.unwrap_or_default())),
                    None,
                )
            }
        };
        let digest = ArchiveDigest {
            sha256,
            size: self.size,
            hashes,
        };
        Ok((digest, files))
    }
}

/// Runs a plan's jobs against a registry, one at a time.
struct Driver<'a> {
    registry: &'a Registry,
    /// Install runs: each package's files, once downloaded and unpacked.
    staged: BTreeMap<(ProviderSource, Version), Files>,
    /// The blobs fetched: (provider, layer digest).
    blobs: Vec<(ProviderSource, Digest)>,
}

impl<'a> Driver<'a> {
    fn new(registry: &'a Registry) -> Driver<'a> {
        Driver {
            registry,
            staged: BTreeMap::new(),
            blobs: Vec::new(),
        }
    }

    fn run(&mut self, job: Job, installing: bool) -> Result<JobOutput, Error> {
        let serve = |r: &Request<()>| self.registry.serve(r);
        match job {
            Job::OciTags { address, .. } => tags(self.registry, &address).map(JobOutput::OciTags),
            Job::OciManifest {
                address,
                reference,
                accept,
            } => {
                let accept: Vec<&str> = accept.iter().map(String::as_str).collect();
                let goal = ManifestRequest::new(host(&address), reference.clone(), &accept);
                request(&serve, &address, goal, address.manifest_url(&reference))
                    .map(|m| JobOutput::OciManifest(Box::new(m)))
            }
            Job::OciBlob {
                address,
                layer,
                source,
                version,
                ..
            } => {
                self.blobs.push((source.clone(), layer.digest.clone()));
                let url = address.blob_url(&layer.digest);
                let (digest, size) = (layer.digest.clone(), layer.size);
                if installing {
                    let goal = BlobRequest::new(host(&address), digest, size, MemoryStaging::new());
                    let (digest, files) = request(&serve, &address, goal, url)?;
                    if let Some(files) = files {
                        self.staged.insert((source, version), files);
                    }
                    Ok(JobOutput::Archive(digest))
                } else {
                    let goal = BlobRequest::new(host(&address), digest, size, ArchiveSink::new());
                    request(&serve, &address, goal, url).map(JobOutput::Archive)
                }
            }
            // Nothing is installed yet.
            Job::Installed { .. } => Ok(JobOutput::Installed(InstalledPackages::default())),
            other => panic!("a job an OCI mirror's plan does not make: {other:?}"),
        }
    }

    /// Runs `plan` to its end: the locks, or every failure.
    fn run_plan(
        &mut self,
        mut plan: ProviderPlan,
        installing: bool,
    ) -> Result<Vec<ProviderLock>, Vec<LockFailure>> {
        while let Some((id, job)) = plan.next_job() {
            let result = self.run(job, installing);
            plan.complete(id, result);
        }
        assert!(plan.is_finished(), "jobs left over");
        plan.finish()
    }
}

fn requirement(source: ProviderSource, constraints: &str, locked: Option<Version>) -> Requirement {
    Requirement {
        source,
        constraints: if constraints.is_empty() {
            VersionConstraints::new()
        } else {
            VersionConstraints::parse(constraints, DIALECT).expect("constraints")
        },
        locked,
        recorded: None,
    }
}

fn check_now() -> SignatureCheck {
    SignatureCheck::new(DIALECT, SystemTime::now())
}

/// A lock run of `version` (OpenTofu's `PackageMeta` is asked for one
/// version: here the locked one, `go-versions`' `Only`).
fn lock_version(
    registry: &Registry,
    address: RepositoryAddress,
    source: ProviderSource,
    version: Version,
    platform: Platform,
) -> Result<Vec<ProviderLock>, Vec<LockFailure>> {
    let plan = ProviderPlan::with_origin(
        vec![requirement(source, "", Some(version))],
        vec![platform],
        check_now(),
        Origin::OciMirror(address),
    );
    Driver::new(registry).run_plan(plan, false)
}

/// What an install run placed: each package folder (relative to the
/// providers folder) and its files; nothing when the plan failed.
struct InstallRun {
    result: Result<Vec<ProviderLock>, Vec<LockFailure>>,
    placed: BTreeMap<PathBuf, Files>,
    blobs: Vec<(ProviderSource, Digest)>,
}

fn install(
    registry: &Registry,
    requirements: Vec<(Requirement, Origin)>,
    platform: &Platform,
) -> InstallRun {
    let plan = ProviderPlan::install(
        requirements,
        platform.clone(),
        check_now(),
        InstallRules::default(),
    );
    let mut driver = Driver::new(registry);
    let result = driver.run_plan(plan, true);
    let mut placed = BTreeMap::new();
    if let Ok(locks) = &result {
        for lock in locks {
            if lock.installed == Some(Installed::Fetched) {
                let key = (lock.source.clone(), lock.version.clone());
                let files = driver
                    .staged
                    .remove(&key)
                    .expect("the package was unpacked");
                placed.insert(package_dir(&lock.source, &lock.version, platform), files);
            }
        }
    }
    InstallRun {
        result,
        placed,
        blobs: driver.blobs,
    }
}

/// The one failure of a plan that was to fail.
fn one_failure(result: Result<Vec<ProviderLock>, Vec<LockFailure>>) -> Result<LockFailure, String> {
    match result {
        Ok(locks) => Err(format!("no failure: locked {locks:?}")),
        Err(mut failures) if failures.len() == 1 => Ok(failures.remove(0)),
        Err(failures) => Err(format!(
            "{} failures: {}",
            failures.len(),
            failures
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

fn one_lock(result: Result<Vec<ProviderLock>, Vec<LockFailure>>) -> Result<ProviderLock, String> {
    match result {
        Ok(mut locks) if locks.len() == 1 => Ok(locks.remove(0)),
        Ok(locks) => Err(format!("{} locks", locks.len())),
        Err(failures) => Err(format!(
            "failed: {}",
            failures
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

/// OpenTofu's error text against a failure's: the `package` problem's
/// message (OCIMIRROR-2 to OCIMIRROR-4 use OpenTofu's words), else the
/// whole failure.
fn failure_text(failure: &LockFailure) -> String {
    match &failure.problem {
        LockProblem::Package(why) => why.clone(),
        _ => failure.to_string(),
    }
}

// ---------------------------------------------------------------------------
// The mirror source.

/// The fixture's source: registry `example.com`, repository
/// `NAMESPACE_TYPE`, for providers of `example.com` only.
struct MirrorSource {
    registry: Registry,
    installation: ProviderInstallation,
}

impl MirrorSource {
    fn new() -> MirrorSource {
        let t = table(TABLE);
        let fixture = &t["opentofu_mirror_source_fixture"];
        let mut registry = Registry::default();
        for (name, repo) in fixture["repositories"].as_object().expect("repositories") {
            registry
                .repositories
                .insert(name.clone(), Store::from_table(repo));
        }
        // The mapping's "provider hostname must be example.com" is, in a
        // CLI configuration, the method's include pattern (INST-3); its
        // template is read by the config crate (INST-10).
        let method = InstallationMethod::new(
            MethodKind::OciMirror {
                repository_template: "example.com/${namespace}_${type}".to_owned(),
            },
            ProviderPattern::parse_all(&["example.com/*/*"], DIALECT).expect("a pattern"),
            Vec::new(),
        );
        MirrorSource {
            registry,
            installation: ProviderInstallation::new(vec![method]),
        }
    }

    fn address(provider: &ProviderSource) -> RepositoryAddress {
        let repository = format!("{}_{}", provider.namespace(), provider.type_name());
        RepositoryAddress::new("example.com", &repository).expect("an address")
    }

    fn available_versions(&self, case: &Value) -> Result<(), String> {
        let provider = source(s(case, "provider"));
        let got = self.installation.available_versions(&provider, |_| {
            match tags(&self.registry, &Self::address(&provider)) {
                Ok(tags) => Ok((versions_from_tags(&tags, DIALECT), Vec::new())),
                // The plan's rule: only "not found" means not in the mirror.
                Err(e) if e.kind() == ErrorKind::NotFound => Err(MethodError::ProviderNotFound),
                Err(e) => Err(MethodError::Other(e)),
            }
        });
        match (case.get("error_type").and_then(Value::as_str), got) {
            (None, Ok(got)) => {
                let want = &case["want"];
                let versions: Vec<String> = got.versions.iter().map(ToString::to_string).collect();
                check("versions", versions, strings(&want["versions"]))?;
                check("warnings", got.warnings, strings(&want["warnings"]))
            }
            (None, Err(e)) => Err(format!("failed: {e}")),
            (Some("ErrProviderNotFound"), Err(MultiSourceError::ProviderNotFound { .. })) => {
                // A lock or install run from the method: a provider it
                // may install but the registry does not have is of kind
                // `provider` (LockProblem::Unknown).
                if self.installation.handling(&provider).next().is_some() {
                    let plan = ProviderPlan::with_origin(
                        vec![requirement(provider.clone(), "", None)],
                        vec![Platform::new("linux", "amd64")],
                        check_now(),
                        Origin::OciMirror(Self::address(&provider)),
                    );
                    let failure = one_failure(Driver::new(&self.registry).run_plan(plan, false))?;
                    check("the lock run's failure", failure.kind(), "provider")?;
                }
                Ok(())
            }
            (Some(want), got) => Err(format!("want {want}, got {got:?}")),
        }
    }

    fn package_meta(&self, case: &Value) -> Result<(), String> {
        let provider = source(s(case, "provider"));
        let wanted = version(s(case, "version"));
        let target = platform(s(case, "platform"));
        let result = lock_version(
            &self.registry,
            Self::address(&provider),
            provider,
            wanted,
            target,
        );
        if let Some(error_type) = case.get("error_type").and_then(Value::as_str) {
            let failure = one_failure(result)?;
            return match error_type {
                "ErrPlatformNotSupported" => check("failure kind", failure.kind(), "platform")
                    .map_err(|e| format!("{e} ({failure})")),
                other => panic!("error type {other}"),
            };
        }
        if let Some(error) = case.get("error").and_then(Value::as_str) {
            let failure = one_failure(result)?;
            return check("error", failure_text(&failure).as_str(), error);
        }
        let lock = one_lock(result)?;
        check(
            "version",
            lock.version.to_string().as_str(),
            s(&case["want"], "version"),
        )
    }

    fn package_meta_and_install(&self, case: &Value) -> Result<(), String> {
        let want = &case["want"];
        let provider = source(s(case, "provider"));
        let target = platform(s(case, "platform"));
        assert!(want["install_allowed_hashes"].is_null());
        let address = Self::address(&provider);
        let run = install(
            &self.registry,
            vec![(
                requirement(provider.clone(), "", Some(version(s(case, "version")))),
                Origin::OciMirror(address),
            )],
            &target,
        );
        let lock = one_lock(run.result)?;
        check(
            "provider",
            lock.source.to_string().as_str(),
            s(want, "provider"),
        )?;
        check(
            "version",
            lock.version.to_string().as_str(),
            s(want, "version"),
        )?;
        let platforms: Vec<String> = lock
            .packages
            .iter()
            .map(|p| p.platform.to_string())
            .collect();
        check(
            "target platform",
            platforms,
            vec![s(want, "target_platform").to_owned()],
        )?;
        // `Filename` is not compared: OpenTofu does nothing with it, and
        // tfdisco names no file for a package from an OCI repository.
        // PackageOCIBlobArchive: the package is the blob of the platform's
        // manifest's layer, verified by the zh: its digest is.
        check(
            "location",
            s(want, "location_type"),
            "PackageOCIBlobArchive",
        )?;
        let [(blob_of, layer)] = run.blobs.as_slice() else {
            return Err(format!("one blob fetched, not {:?}", run.blobs));
        };
        check("the blob's provider", blob_of, &provider)?;
        // The fixture's object of that package.
        let id = format!("package v{} {}", s(case, "version"), s(case, "platform"));
        let store = &self.registry.repositories[Self::address(&provider).repository()];
        let package = store.ids.get(&id).ok_or(format!("no object {id}"))?;
        check("the blob", layer, package)?;
        let zh = format!("zh:{}", layer.hex());
        if !lock.hashes.contains(&zh) {
            return Err(format!(
                "{zh} (the layer's digest) not in {:?}",
                lock.hashes
            ));
        }
        let summary = match lock.trust {
            Trust::Checksum => "verifiedChecksum",
            other => other.label(),
        };
        check("authentication", summary, s(want, "authentication_summary"))?;
        let dir = package_dir(&lock.source, &lock.version, &target);
        let files = run
            .placed
            .get(&dir)
            .ok_or(format!("nothing placed at {dir:?}"))?;
        for (name, content) in want["installed_files"].as_object().expect("files") {
            let got = files
                .get(name)
                .map(|b| String::from_utf8_lossy(b).into_owned());
            check(name, got.as_deref(), content.as_str())?;
        }
        Ok(())
    }
}

#[test]
fn opentofu_mirror_source() {
    let mirror = MirrorSource::new();
    let t = table(TABLE);
    let name = "opentofu_mirror_source";
    let mut results = Results::new("oci_mirror_source/opentofu_mirror_source/");
    for (i, case) in t[name].as_array().expect("a table").iter().enumerate() {
        let outcome = match s(case, "call") {
            "AvailableVersions" => mirror.available_versions(case),
            "PackageMeta" => mirror.package_meta(case),
            "PackageMeta+InstallProviderPackage" => mirror.package_meta_and_install(case),
            other => panic!("call {other}"),
        };
        results.record(format!("oci_mirror_source/{name}/{i}"), outcome);
    }
    results.finish();
}

// ---------------------------------------------------------------------------
// Which registry errors mean "provider not found".

/// OpenTofu's `errRepresentsOCIProviderNotFound` against tfdisco's rule: a
/// tag listing that fails with kind `NotFound` (a 404, whatever the
/// body's error codes: `oci/src/goals.rs`'s `refused`) is a provider the
/// mirror does not have (`LockProblem::Unknown`); any other failure is a
/// failed request.
#[test]
fn opentofu_err_represents_provider_not_found() {
    let t = table(TABLE);
    let name = "opentofu_err_represents_provider_not_found";
    let mut results = Results::new("oci_mirror_source/opentofu_err_represents_provider_not_found/");
    let address = RepositoryAddress::parse("example.com/foo/bar").expect("an address");
    for (i, case) in t[name].as_array().expect("a table").iter().enumerate() {
        let error = &case["error"];
        let want = case["want"].as_bool().expect("want");
        let result = match s(error, "kind") {
            // A failure that is no registry answer: the transport's.
            "other" => {
                let message = s(error, "message").to_owned();
                let serve = move |_: &Request<()>| {
                    Err(TransportError::new(
                        TransportErrorKind::Other,
                        message.clone(),
                    ))
                };
                tag_page(&serve, &address).map(|page| page.tags)
            }
            // The registry's answer: the status, and the error body when
            // the case has one.
            "ErrorResponse" => {
                assert_eq!(s(error, "url"), "https://example.com/v2/foo/bar/tags/list");
                let status = error["status_code"].as_u64().expect("a status") as u16;
                let body = match error.get("errors") {
                    Some(errors) => json!({ "errors": errors }).to_string().into_bytes(),
                    None => Vec::new(),
                };
                let serve = move |_: &Request<()>| {
                    Ok(Reply {
                        status,
                        headers: vec![(CONTENT_TYPE, "application/json".to_owned())],
                        body: body.clone(),
                    })
                };
                tag_page(&serve, &address).map(|page| page.tags)
            }
            // ORAS's sentinel from its local stores. tfdisco reads
            // registries only: what its store has no repository for, the
            // registry answers 404 (as the mirror-source fixture's
            // `errdef.ErrNotFound` for an unknown repository).
            "errdef.ErrNotFound" => tags(&Registry::default(), &address),
            other => panic!("error kind {other}"),
        };
        let outcome = match result {
            Ok(tags) => Err(format!("the tag list was read: {tags:?}")),
            Err(e) => check(
                &format!("not found ({e})"),
                e.kind() == ErrorKind::NotFound,
                want,
            ),
        };
        results.record(format!("oci_mirror_source/{name}/{i}"), outcome);
    }
    results.finish();
}

// ---------------------------------------------------------------------------
// Installing the archive blob.

/// The blob-archive fixture as an install run: a repository whose tag
/// `1.0.0` is an index with one manifest, for this platform, whose one
/// layer is the fixture's descriptor (changed as the case says).
fn blob_archive(case: &Value) -> Result<(), String> {
    let t = table(TABLE);
    let fixture = &t["opentofu_package_oci_blob_archive_fixture"];
    let meta = &fixture["meta"];
    let provider = source(s(meta, "provider"));
    let wanted = version(s(meta, "version"));
    let current = Platform::current();
    let mut store = Store::default();
    assert_eq!(s(&fixture["blob"], "kind"), "zip");
    store.add("blob", zip(&fixture["blob"]["entries"]));
    let mut layer = store.resolve(&fixture["descriptor"]);
    if let Some(change) = case.get("descriptor_change") {
        for (k, v) in change.as_object().expect("a change") {
            layer[k] = v.clone();
        }
    }
    let manifest = json!({
        "schemaVersion": 2,
        "mediaType": media_type::IMAGE_MANIFEST,
        "artifactType": artifact_type::PROVIDER_TARGET,
        "config": {
            "mediaType": media_type::EMPTY,
            "digest": Digest::of(Algorithm::Sha256, b"{}").to_string(),
            "size": 2
        },
        "layers": [layer]
    });
    store.add("manifest", serde_json::to_vec(&manifest).expect("json"));
    let index = store.resolve(&json!({
        "schemaVersion": 2,
        "mediaType": media_type::IMAGE_INDEX,
        "artifactType": artifact_type::PROVIDER,
        "manifests": [{
            "mediaType": media_type::IMAGE_MANIFEST,
            "$ref": "manifest",
            "platform": {"os": current.os, "architecture": current.arch},
            "artifactType": artifact_type::PROVIDER_TARGET
        }]
    }));
    store.add("index", serde_json::to_vec(&index).expect("json"));
    let tag = store.resolve(&json!({"mediaType": media_type::IMAGE_INDEX, "$ref": "index"}));
    store.tags.insert(wanted.to_string().replace('+', "_"), tag);
    let repository = format!("{}_{}", provider.namespace(), provider.type_name());
    let address = RepositoryAddress::new("example.com", &repository).expect("an address");
    let mut registry = Registry::default();
    registry.repositories.insert(repository, store);
    registry.scrambled_blobs = s(case, "name") == "misbehaving store returns wrong content";

    // The allowed hashes are what the lock file records for the version.
    let recorded = case["allowed_hashes"].as_array().map(|hashes| Recorded {
        version: wanted.clone(),
        hashes: hashes
            .iter()
            .map(|h| h.as_str().expect("a hash").to_owned())
            .collect(),
    });
    let mut requirement = requirement(provider.clone(), "", Some(wanted.clone()));
    requirement.recorded = recorded;
    let run = install(
        &registry,
        vec![(requirement, Origin::OciMirror(address))],
        &current,
    );

    let dir = package_dir(&provider, &wanted, &current);
    let entries: Vec<(String, bool)> = run
        .placed
        .get(&dir)
        .map(|files| files.keys().map(|name| (name.clone(), false)).collect())
        .unwrap_or_default();
    let want = &case["want"];
    if let Some(want_entries) = want.get("target_dir_entries") {
        let want_entries: Vec<(String, bool)> = want_entries
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| (s(e, "name").to_owned(), e["dir"].as_bool().expect("dir")))
            .collect();
        check("target folder", &entries, &want_entries)?;
    }
    let failed = case.get("error_contains").is_some() || case["error"] == true;
    match (run.result, failed) {
        (Ok(locks), false) => {
            let lock = locks.first().ok_or("no lock")?;
            let signed = matches!(
                lock.trust,
                Trust::Official | Trust::Partner | Trust::Community | Trust::Signed
            );
            let want_signed = want["auth_result_signed"].as_bool().expect("signed");
            check(
                &format!(
                    "signed (trust: {}; the Go test's {:?})",
                    lock.trust, case["meta_authentication"]
                ),
                signed,
                want_signed,
            )
        }
        (Ok(_), true) => Err("installed, but the case fails".to_owned()),
        (Err(failures), true) => {
            let texts: Vec<String> = failures.iter().map(failure_text).collect();
            match case.get("error_contains").and_then(Value::as_str) {
                Some(part) if !texts.iter().any(|t| t.contains(part)) => {
                    Err(format!("no failure contains {part:?}: {texts:?}"))
                }
                _ => Ok(()),
            }
        }
        (Err(failures), false) => Err(format!(
            "failed: {}",
            failures
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

#[test]
fn opentofu_package_oci_blob_archive() {
    let t = table(TABLE);
    let name = "opentofu_package_oci_blob_archive";
    let mut results = Results::new("oci_mirror_source/opentofu_package_oci_blob_archive/");
    for (i, case) in t[name].as_array().expect("a table").iter().enumerate() {
        results.record(format!("oci_mirror_source/{name}/{i}"), blob_archive(case));
    }
    results.finish();
}

// ---------------------------------------------------------------------------
// End to end: `tofu init` with an oci_mirror method.

/// `init` as an install run of the configuration's two providers, each from
/// its repository (the template `REGISTRY/${type}` expanded, INST-10), on
/// each platform the upstream test runs on.
fn e2e(case: &Value) -> Result<(), String> {
    const REGISTRY: &str = "localhost:5000";
    let mut registry = Registry::default();
    for (name, layout) in case["layouts"].as_object().expect("layouts") {
        registry
            .repositories
            .insert(name.clone(), Store::from_layout(layout));
    }
    // The method's repository is the registry's repository named by the
    // provider's type.
    let template = s(case, "cli_config_template");
    assert!(template.contains("repository_template = \"%s/${type}\""));
    // versions.tf, as its required_providers block says.
    let versions = s(&case["working_directory_files"], "versions.tf");
    assert!(versions.contains("source  = \"example.com/test/bar\"\n      version = \"~> 1.0.0\""));
    let requirements = || {
        [
            ("example.com/test/foo", ""),
            ("example.com/test/bar", "~> 1.0.0"),
        ]
        .into_iter()
        .map(|(provider, constraints)| {
            let provider = source(provider);
            let address =
                RepositoryAddress::new(REGISTRY, provider.type_name()).expect("an address");
            (
                requirement(provider, constraints, None),
                Origin::OciMirror(address),
            )
        })
        .collect::<Vec<_>>()
    };
    for target in case["platforms"].as_array().expect("platforms") {
        let target = platform(target.as_str().expect("a platform"));
        let run = install(&registry, requirements(), &target);
        if let Err(failures) = &run.result {
            return Err(format!(
                "{target}: failed: {}",
                failures
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
        let mut want = BTreeSet::new();
        for package in case["want"]["cached_packages"]
            .as_array()
            .expect("packages")
        {
            let dir = s(package, "package_dir")
                .replace("<TF_DATA_DIR>/providers/", "")
                .replace("<current platform>", &target.to_string());
            let provider = source(s(package, "provider"));
            let placed_at = package_dir(&provider, &version(s(package, "version")), &target);
            check("package folder", &placed_at, &PathBuf::from(dir))?;
            want.insert(placed_at);
        }
        let got: BTreeSet<PathBuf> = run.placed.keys().cloned().collect();
        check(&format!("{target}: packages"), got, want)?;
        for (dir, files) in &run.placed {
            let type_name = dir.iter().nth(2).expect("HOST/NS/TYPE").to_string_lossy();
            let executable = format!("terraform-provider-{type_name}");
            if !files.contains_key(&executable) {
                return Err(format!("{dir:?}: no {executable} in {:?}", files.keys()));
            }
        }
    }
    Ok(())
}

#[test]
fn opentofu_e2e_provider_oci_mirrors() {
    let t = table(TABLE);
    let name = "opentofu_e2e_provider_oci_mirrors";
    let mut results = Results::new("oci_mirror_source/opentofu_e2e_provider_oci_mirrors/");
    for (i, case) in t[name].as_array().expect("a table").iter().enumerate() {
        results.record(format!("oci_mirror_source/{name}/{i}"), e2e(case));
    }
    results.finish();
}
