//! OCI registries (docs/behaviour.md, OCI-1 to OCI-7) against a real
//! registry (CNCF distribution 2.8, Debian's `docker-registry`) on
//! loopback: a provider laid out as OpenTofu's docs lay it out, read back
//! tag, index, manifest and zip, anonymously, with Basic credentials and
//! through the token handshake.

#![allow(missing_docs)]

use std::path::PathBuf;

use tfdisco_core::http::StatusCode;
use tfdisco_core::{Contents, Error, ErrorKind};
use tfdisco_oci::{
    Algorithm, Digest, OciCredentials, Reference, RegistryCredentials, RepositoryAddress,
    artifact_type, media_type,
};

use tfdisco_core::Env;
use tfdisco_core::{Dialect, Platform};
use tfdisco_provider::oci_mirror::OciMirrorTemplate;
use tfdisco_runs::{
    BlockingRuns, ClientOptions, CredentialsChoice, InstallOptions, LockOptions, RunError,
};

use super::lock::Scratch;
use super::{Client, Subject, build, builder};
use crate::lock_goldens::{CASES, Case};
use crate::oci_registry::{OciAuth, OciRegistry};
use crate::signed_registry;

const REPOSITORY: &str = "opentofu/providers/example";
const ZIP_LINUX: &[u8] = b"PK\x05\x06linux zip bytes, not really a zip";
const ZIP_DARWIN: &[u8] = b"PK\x05\x06darwin zip bytes, not really a zip";

/// A registry in `auth` mode holding one provider version for two
/// platforms.
fn registry(auth: OciAuth) -> (OciRegistry, RepositoryAddress) {
    let registry = OciRegistry::start(auth);
    registry.push_provider(
        REPOSITORY,
        "1.2.0+build.1",
        &[
            ("linux", "amd64", ZIP_LINUX),
            ("darwin", "arm64", ZIP_DARWIN),
        ],
    );
    let address = RepositoryAddress::new(&registry.host(), REPOSITORY).expect("an address");
    (registry, address)
}

/// A client asking `address`'s registry with `credentials`.
fn client_with<T: Subject>(
    address: &RepositoryAddress,
    credentials: Option<OciCredentials>,
) -> Client<T> {
    let table = match credentials {
        Some(credentials) => RegistryCredentials::new().with(address.registry(), credentials),
        None => RegistryCredentials::new(),
    };
    build::<T>(builder::<T>().oci_credentials(table))
}

/// The tag, the index, linux_amd64's manifest and its zip, read through
/// `client`.
fn read_provider<T: Subject>(
    client: &Client<T>,
    address: &RepositoryAddress,
) -> Result<Vec<u8>, Error> {
    let tags = client.oci_tags(address)?;
    assert_eq!(tags, ["1.2.0_build.1"], "{}", T::NAME);
    let tag = Reference::Tag(tags[0].parse().expect("a tag"));
    let index = client.oci_manifest(
        address,
        &tag,
        &[media_type::IMAGE_INDEX, media_type::IMAGE_MANIFEST],
    )?;
    assert_eq!(index.media_type, media_type::IMAGE_INDEX, "{}", T::NAME);
    let index = index.index().expect("an index");
    assert_eq!(
        index.artifact_type.as_deref(),
        Some(artifact_type::PROVIDER)
    );
    let entry = index
        .manifests
        .iter()
        .find(|d| {
            d.platform
                .as_ref()
                .is_some_and(|p| (p.os.as_str(), p.architecture.as_str()) == ("linux", "amd64"))
        })
        .expect("linux_amd64 in the index");
    let manifest = client.oci_manifest(
        address,
        &Reference::Digest(entry.digest.clone()),
        &[&entry.media_type],
    )?;
    assert_eq!(manifest.digest, entry.digest, "{}", T::NAME);
    let manifest = manifest.manifest().expect("a manifest");
    assert_eq!(
        manifest.artifact_type.as_deref(),
        Some(artifact_type::PROVIDER_TARGET)
    );
    let [layer] = manifest.layers.as_slice() else {
        panic!("{}: one layer, got {:?}", T::NAME, manifest.layers)
    };
    assert_eq!(layer.media_type, media_type::ZIP);
    client.oci_blob(address, layer, Contents::default())
}

pub fn oci_a_provider_read_anonymously<T: Subject>() {
    let (_registry, address) = registry(OciAuth::Anonymous);
    let client = client_with::<T>(&address, None);
    let zip = read_provider::<T>(&client, &address).expect("the provider");
    assert_eq!(zip, ZIP_LINUX, "{}", T::NAME);
}

/// Asks for `address`'s tags with `credentials` and checks that the
/// registry refused (401), the error showing no `not-the-secret`.
fn refused<T: Subject>(address: &RepositoryAddress, credentials: Option<OciCredentials>) {
    let err = client_with::<T>(address, credentials)
        .oci_tags(address)
        .expect_err("refused");
    assert_eq!(
        err.status(),
        Some(StatusCode::UNAUTHORIZED),
        "{}: {err}",
        T::NAME
    );
    assert!(
        !format!("{err} {err:?}").contains("not-the-secret"),
        "{err:?}"
    );
}

pub fn oci_basic_credentials_are_sent_once_asked_for<T: Subject>() {
    let (registry, address) = registry(OciAuth::basic("ci", "basic-secret"));
    let creds = OciCredentials::basic("ci", "basic-secret");
    let client = client_with::<T>(&address, Some(creds));
    let zip = read_provider::<T>(&client, &address).expect("the provider");
    assert_eq!(zip, ZIP_LINUX, "{}", T::NAME);

    refused::<T>(
        &address,
        Some(OciCredentials::basic("ci", "not-the-secret")),
    );
    refused::<T>(&address, None);
    drop(registry);
}

pub fn oci_the_token_handshake_asks_once_per_repository<T: Subject>() {
    let (registry, address) = registry(OciAuth::token("ci", "token-secret"));
    registry.take_token_requests();
    let creds = OciCredentials::basic("ci", "token-secret");
    let zip = read_provider::<T>(&client_with::<T>(&address, Some(creds)), &address)
        .expect("the provider");
    assert_eq!(zip, ZIP_LINUX, "{}", T::NAME);
    let asked = registry.take_token_requests();
    assert_eq!(
        asked.len(),
        1,
        "{}: one token for the four requests: {asked:?}",
        T::NAME
    );
    assert!(
        asked[0].authorization,
        "{}: the token was asked with credentials",
        T::NAME
    );
    assert_eq!(asked[0].scopes, [format!("repository:{REPOSITORY}:pull")]);

    refused::<T>(
        &address,
        Some(OciCredentials::basic("ci", "not-the-secret")),
    );
}

pub fn oci_what_is_not_there_is_not_found<T: Subject>() {
    let (_registry, address) = registry(OciAuth::Anonymous);
    let client = client_with::<T>(&address, None);
    let elsewhere =
        RepositoryAddress::new(address.registry(), "opentofu/providers/none").expect("an address");
    let err = client.oci_tags(&elsewhere).expect_err("no repository");
    assert_eq!(err.kind(), ErrorKind::NotFound, "{}: {err}", T::NAME);
    let digest = Digest::of(Algorithm::Sha256, b"no such manifest");
    let err = client
        .oci_manifest(
            &address,
            &Reference::Digest(digest),
            &[media_type::IMAGE_MANIFEST],
        )
        .expect_err("no manifest");
    assert_eq!(err.kind(), ErrorKind::NotFound, "{}: {err}", T::NAME);
}

/// The providers' host in the OCI lock scenarios: only the mirror is
/// asked, never it.
const LOCK_HOST: &str = "registry.example.test";

/// The lock goldens' `fresh` case with its input prepared for
/// [`LOCK_HOST`] in `run` of a new scratch folder `name`: the case, the
/// scratch folder (removed when dropped) and `run`.
fn fresh_lock_input(name: &str) -> (&'static Case, Scratch, PathBuf) {
    let case = CASES
        .iter()
        .find(|c| c.name == "fresh")
        .expect("the fresh case");
    let scratch = Scratch::new(name);
    let dir = scratch.path().join("run");
    case.prepare(&dir, LOCK_HOST);
    (case, scratch, dir)
}

/// Locks the lock goldens' `fresh` case from the OCI mirror `template`
/// alone (the providers' own host is never asked) and gives the lock file
/// written, after checking that but for its first line it is Terraform's
/// from the registry.
pub(super) fn lock_fresh_from_mirror<T: Subject>(client: &Client<T>, template: &str) -> String {
    let (case, _scratch, dir) = fresh_lock_input("oci-lock");
    let template = OciMirrorTemplate::parse(template).expect("a template");
    let options = LockOptions::new()
        .platforms_from(
            case.platforms
                .iter()
                .map(|p| Platform::parse(p).expect("a platform")),
        )
        .oci_mirror(template);
    let report = client.lock(&dir, &options);
    assert!(report.is_ok(), "{}: {report:?}", T::NAME);
    let written = std::fs::read_to_string(dir.join(".terraform.lock.hcl")).expect("a lock file");
    let expected = case.expected(LOCK_HOST).expect("Terraform's lock file");
    let body = |text: &str| text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(
        body(&written),
        body(&expected),
        "{}: the lock file from the OCI mirror is not Terraform's from the registry",
        T::NAME
    );
    written
}

pub fn oci_lock_from_a_mirror_as_terraform_locks_from_the_registry<T: Subject>() {
    let registry = OciRegistry::start(OciAuth::basic("ci", "lock-secret"));
    registry.mirror_signed_registry();
    let address = RepositoryAddress::new(&registry.host(), "mirror").expect("an address");
    let credentials = RegistryCredentials::new().with(
        address.registry(),
        OciCredentials::basic("ci", "lock-secret"),
    );
    let client = build::<T>(
        builder::<T>()
            .dialect(Dialect::OpenTofu)
            .oci_credentials(credentials),
    );
    let written = lock_fresh_from_mirror::<T>(&client, &registry.signed_mirror_template());
    assert!(written.starts_with("# This file is maintained automatically by \"tofu init\"."));
}

/// A zip layer whose stored bytes are not its digest's (its size right):
/// the lock fails for that platform with a checksum failure, and no lock
/// file is written. The blob is hashed once, by the plan's hasher, which
/// checks it against the `zh:` the digest is (OCIMIRROR-5).
pub fn oci_a_spoiled_layer_fails_its_checksum<T: Subject>() {
    let registry = OciRegistry::start(OciAuth::Anonymous);
    registry.mirror_signed_registry();
    let file = signed_registry::package_file("alpha", "1.1.0", "linux_amd64");
    let zip = signed_registry::file("alpha", "1.1.0", &file);
    registry.corrupt_blob(&Digest::of(Algorithm::Sha256, zip).to_string());
    let (_, _scratch, dir) = fresh_lock_input("oci-spoiled");
    let client = build::<T>(builder::<T>().dialect(Dialect::OpenTofu));
    let template =
        OciMirrorTemplate::parse(&registry.signed_mirror_template()).expect("a template");
    let options = LockOptions::new()
        .platform(Platform::parse("linux_amd64").expect("a platform"))
        .oci_mirror(template);
    let failures = match client.lock(&dir, &options) {
        Err(RunError::Failed(failures)) => failures,
        other => panic!("{}: a checksum failure, not {other:?}", T::NAME),
    };
    let [failure] = failures.as_slice() else {
        panic!("{}: one failure: {failures:?}", T::NAME)
    };
    assert_eq!(failure.kind(), "checksum", "{}: {failure}", T::NAME);
    assert_eq!(failure.source.type_name(), "alpha", "{}", T::NAME);
    assert!(
        !dir.join(".terraform.lock.hcl").exists(),
        "{}: a lock file was written",
        T::NAME
    );
}

pub fn oci_install_from_an_oci_mirror<T: Subject>() {
    let registry = OciRegistry::start(OciAuth::Anonymous);
    registry.mirror_signed_registry();
    let host = "registry.example.test";
    let scratch = Scratch::new("oci-install");
    let dir = scratch.path().join("run");
    std::fs::create_dir_all(&dir).expect("a folder");
    std::fs::write(
        dir.join("main.tf"),
        format!(
            "terraform {{\n  required_providers {{\n    alpha = {{\n      source  = \"{host}/ns/alpha\"\n      version = \"~> 1.0\"\n    }}\n  }}\n}}\n"
        ),
    )
    .expect("the configuration");
    let config = scratch.path().join("tofu.rc");
    std::fs::write(
        &config,
        format!(
            "provider_installation {{\n  oci_mirror {{\n    repository_template = \"{}/mirror/${{namespace}}/${{type}}\"\n    include = [\"{host}/*/*\"]\n  }}\n}}\n",
            registry.host()
        ),
    )
    .expect("the CLI configuration");
    let mut options = ClientOptions::new(Dialect::OpenTofu);
    options.env = Some(Env::new([(
        "TF_CLI_CONFIG_FILE".to_owned(),
        config.to_string_lossy().into_owned(),
    )]));
    options.system_roots = false;
    options.ca_files = vec![crate::pki().ca_file().clone()];
    options.credentials = CredentialsChoice::Nothing;
    options.timeout = Some(super::GENEROUS);
    let loaded = options.load().expect("the options load");
    let client: Client<T> = loaded.builder().build().expect("the client builds");
    let install = InstallOptions::new().with_setup(&loaded, &dir);
    let report = client.install(&dir, &install);
    let report = report.unwrap_or_else(|e| panic!("{}: {e}", T::NAME));
    let [provider] = report.providers.as_slice() else {
        panic!("{}: one provider: {report:?}", T::NAME)
    };
    assert_eq!(provider.version.to_string(), "1.1.0");
    assert_eq!(
        provider.from,
        format!("{}/mirror/ns/alpha", registry.host())
    );
    let platform = Platform::current();
    let installed = dir.join(format!(
        ".terraform/providers/{host}/ns/alpha/1.1.0/{}_{}",
        platform.os, platform.arch
    ));
    assert!(
        installed.is_dir(),
        "{}: {} is not there",
        T::NAME,
        installed.display()
    );
    let lock = std::fs::read_to_string(dir.join(".terraform.lock.hcl")).expect("a lock file");
    let file = signed_registry::package_file("alpha", "1.1.0", &platform.to_string());
    let zip = signed_registry::file("alpha", "1.1.0", &file);
    let zh = format!(
        "zh:{}",
        tfdisco_oci::Digest::of(Algorithm::Sha256, zip).hex()
    );
    assert!(lock.contains(&zh), "{}: {zh} in\n{lock}", T::NAME);
    assert_eq!(lock.matches("\"h1:").count(), 1, "{lock}");
    assert_eq!(lock.matches("\"zh:").count(), 1, "{lock}");
}
