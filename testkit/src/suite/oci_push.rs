//! Writing to a real OCI registry (docs/behaviour.md, OCI-8): a provider
//! release pushed through the client's own uploads (blobs checked with
//! `HEAD`, uploaded in chunks, closed with their digest; manifests by
//! digest; the index by tag, last), then read back by `lock --oci-mirror`,
//! whose lock file is Terraform's from the registry; a second push sends
//! no blob; a push to another repository asking to mount from the first
//! sends none either. The layout's JSON comes from the testkit's own
//! writer.

#![allow(missing_docs)]

use tfdisco_core::Dialect;
use tfdisco_core::bytes::Bytes;
use tfdisco_oci::{OciCredentials, Reference, RegistryCredentials, RepositoryAddress};

use super::oci::lock_fresh_from_mirror;
use super::{Client, Subject, build, builder};
use crate::oci_registry::layout::{
    EMPTY_CONFIG, INDEX_MEDIA_TYPE, IndexEntry, MANIFEST_MEDIA_TYPE, PROVIDER_TARGET_ARTIFACT_TYPE,
    provider_index, version_tag, zip_manifest,
};
use crate::oci_registry::{OciAuth, OciRegistry};
use crate::signed_registry::{self, NAMESPACE, PLATFORMS, PROVIDERS};

/// Pushes every version of the signed registry's providers under
/// `pushed/ns/TYPE`; gives how many blobs were sent.
fn push_all<T: Subject>(client: &Client<T>, registry: &OciRegistry) -> usize {
    let mut sent = 0;
    for (name, versions) in PROVIDERS {
        let address =
            RepositoryAddress::new(&registry.host(), &format!("pushed/{NAMESPACE}/{name}"))
                .expect("an address");
        for version in versions {
            let mut manifests = Vec::new();
            for platform in PLATFORMS {
                let (os, arch) = platform.split_once('_').expect("OS_ARCH");
                let file = signed_registry::package_file(name, version, platform);
                let zip = signed_registry::file(name, version, &file);
                let pushed = client
                    .oci_push_blob(&address, Bytes::from_static(zip), None)
                    .unwrap_or_else(|e| panic!("{}: the zip: {e}", T::NAME));
                let config = client
                    .oci_push_blob(&address, Bytes::from_static(EMPTY_CONFIG), None)
                    .unwrap_or_else(|e| panic!("{}: the config: {e}", T::NAME));
                sent += usize::from(pushed.sent) + usize::from(config.sent);
                let manifest = zip_manifest(
                    PROVIDER_TARGET_ARTIFACT_TYPE,
                    &pushed.digest.to_string(),
                    zip.len(),
                );
                let size = manifest.len();
                let digest = client
                    .oci_push_manifest(
                        &address,
                        &Reference::Digest(tfdisco_oci::Digest::of(
                            tfdisco_oci::Algorithm::Sha256,
                            &manifest,
                        )),
                        MANIFEST_MEDIA_TYPE,
                        Bytes::from(manifest),
                    )
                    .unwrap_or_else(|e| panic!("{}: a manifest: {e}", T::NAME));
                manifests.push((os, arch, digest.to_string(), size));
            }
            let entries: Vec<IndexEntry<'_>> = manifests
                .iter()
                .map(|(os, arch, digest, size)| IndexEntry {
                    os,
                    arch,
                    manifest_digest: digest,
                    manifest_size: *size,
                })
                .collect();
            let tag = version_tag(version).parse().expect("a tag");
            client
                .oci_push_manifest(
                    &address,
                    &Reference::Tag(tag),
                    INDEX_MEDIA_TYPE,
                    Bytes::from(provider_index(&entries)),
                )
                .unwrap_or_else(|e| panic!("{}: the index: {e}", T::NAME));
        }
    }
    sent
}

fn push_then_lock<T: Subject>(auth: OciAuth, password: &str) {
    let registry = OciRegistry::start(auth);
    let address = RepositoryAddress::new(&registry.host(), "pushed").expect("an address");
    let credentials =
        RegistryCredentials::new().with(address.registry(), OciCredentials::basic("ci", password));
    let client = build::<T>(
        builder::<T>()
            .dialect(Dialect::OpenTofu)
            .oci_credentials(credentials),
    );
    let sent = push_all::<T>(&client, &registry);
    // Each version's zips, and one empty config per repository.
    let zips: usize = PROVIDERS
        .iter()
        .map(|(_, v)| v.len() * PLATFORMS.len())
        .sum();
    assert_eq!(sent, zips + PROVIDERS.len(), "{}: blobs sent", T::NAME);
    assert_eq!(
        push_all::<T>(&client, &registry),
        0,
        "{}: a second push",
        T::NAME
    );

    promote::<T>(&client, &registry);

    lock_fresh_from_mirror::<T>(
        &client,
        &format!("{}/pushed/{{namespace}}/{{type}}", registry.host()),
    );
}

/// Each zip pushed again to `promoted/ns/TYPE`, asking to mount it from
/// `pushed/ns/TYPE`: the registry mounts every one (with tokens, one that
/// may pull from the source), nothing is sent; a blob the source lacks is
/// uploaded as usual.
fn promote<T: Subject>(client: &Client<T>, registry: &OciRegistry) {
    for (name, versions) in PROVIDERS {
        let repository = |path: &str| {
            RepositoryAddress::new(&registry.host(), &format!("{path}/{NAMESPACE}/{name}"))
                .expect("an address")
        };
        let (from, to) = (repository("pushed"), repository("promoted"));
        for version in versions {
            for platform in PLATFORMS {
                let file = signed_registry::package_file(name, version, platform);
                let zip = signed_registry::file(name, version, &file);
                let pushed = client
                    .oci_push_blob(&to, Bytes::from_static(zip), Some(&from))
                    .unwrap_or_else(|e| panic!("{}: a mount: {e}", T::NAME));
                assert!(pushed.mounted && !pushed.sent, "{}: {pushed:?}", T::NAME);
                let held = registry.blob(to.repository(), &pushed.digest.to_string());
                assert_eq!(held.as_deref(), Some(zip), "{}: {file}", T::NAME);
            }
        }
        if registry.token_realm().is_some() {
            let source = format!("repository:{}:pull", from.repository());
            let asked = registry.token_requests();
            assert!(
                asked.iter().any(|r| r.scopes.contains(&source)),
                "{}: no token asked to pull from {from}: {asked:?}",
                T::NAME
            );
        }
        let fresh = Bytes::from(format!("only in promoted/{name}"));
        let pushed = client
            .oci_push_blob(&to, fresh.clone(), Some(&from))
            .unwrap_or_else(|e| panic!("{}: an upload: {e}", T::NAME));
        assert!(!pushed.mounted && pushed.sent, "{}: {pushed:?}", T::NAME);
        let held = registry.blob(to.repository(), &pushed.digest.to_string());
        assert_eq!(held.as_deref(), Some(&fresh[..]), "{}", T::NAME);
    }
    // Mounting from another registry is refused before any request.
    let elsewhere = RepositoryAddress::new("other.example", "pushed").expect("an address");
    let to = RepositoryAddress::new(&registry.host(), "promoted/x").expect("an address");
    let refused = client.oci_push_blob(&to, Bytes::from_static(b"x"), Some(&elsewhere));
    assert!(
        refused.is_err_and(|e| e.to_string().contains("same registry")),
        "{}",
        T::NAME
    );
}

pub fn oci_push_then_lock_with_basic<T: Subject>() {
    push_then_lock::<T>(OciAuth::basic("ci", "push-secret"), "push-secret");
}

pub fn oci_push_then_lock_with_tokens<T: Subject>() {
    push_then_lock::<T>(OciAuth::token("ci", "push-secret"), "push-secret");
}
