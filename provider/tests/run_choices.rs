//! The runs' choices, made by the provider crate without I/O: what a run
//! asks of its plan (LOCKRUN-1), which origin an install run gives each
//! provider (INSTALL-13), what its lock file loses and refuses (INSTALL-5).
//! The tests supply what the run would read.

use std::path::{Path, PathBuf};

use tfdisco_core::{Dialect, NetworkMirror, ProviderSource};
use tfdisco_oci::RepositoryAddress;
use tfdisco_provider::LocalPackages;
use tfdisco_provider::plan::{Origin, OriginError, readonly_refusal, unrequired};
use tfdisco_provider::{InstallationMethod, MethodKind, ProviderInstallation, ProviderPattern};

fn source(given: &str) -> ProviderSource {
    ProviderSource::parse_argument(given, Dialect::OpenTofu).expect("a source")
}

fn method(kind: MethodKind, include: &[&str]) -> InstallationMethod {
    let include = include
        .iter()
        .map(|p| ProviderPattern::parse(p, Dialect::OpenTofu).expect("a pattern"))
        .collect();
    InstallationMethod::new(kind, include, Vec::new())
}

fn mirror(trust_all_hashes: Option<bool>) -> MethodKind {
    MethodKind::NetworkMirror {
        mirror: NetworkMirror::parse("https://mirror.example.com/providers/").expect("a mirror"),
        download_retry_count: None,
        trust_all_hashes,
    }
}

#[test]
fn each_method_that_may_install_a_provider_is_an_origin_in_order() {
    let installation = ProviderInstallation::new(vec![
        method(
            MethodKind::FilesystemMirror {
                path: PathBuf::from("/srv/providers"),
            },
            &["example.com/acme/*"],
        ),
        method(mirror(Some(true)), &[]),
        method(mirror(None), &[]),
        method(
            MethodKind::OciMirror {
                repository_template: "ghcr.io/acme/{type}".to_owned(),
            },
            &[],
        ),
        method(
            MethodKind::Direct {
                download_retry_count: None,
            },
            &[],
        ),
    ]);
    let mut scanned = Vec::new();
    let mut templates = Vec::new();
    let (origin, names) = installation
        .origin_for(
            &source("example.com/acme/widget"),
            |path: &Path| {
                scanned.push(path.to_owned());
                Ok::<_, String>(LocalPackages::default())
            },
            |template: &str| {
                templates.push(template.to_owned());
                Ok(RepositoryAddress::parse("ghcr.io/acme/widget").expect("an address"))
            },
        )
        .expect("an origin");
    assert_eq!(scanned, [PathBuf::from("/srv/providers")]);
    assert_eq!(templates, ["ghcr.io/acme/{type}"]);
    let Origin::Methods(origins) = origin else {
        panic!("the methods, in order: {origin:?}");
    };
    assert!(matches!(origins[0], Origin::Filesystem(_)));
    assert!(matches!(origins[1], Origin::TrustedNetworkMirror(_)));
    assert!(matches!(origins[2], Origin::NetworkMirror(_)));
    assert!(matches!(origins[3], Origin::OciMirror(_)));
    assert!(matches!(origins[4], Origin::Registry));
    assert_eq!(
        names,
        [
            "/srv/providers",
            "https://mirror.example.com/providers/",
            "https://mirror.example.com/providers/",
            "ghcr.io/acme/widget",
            "registry",
        ]
    );
}

#[test]
fn a_method_that_may_not_install_it_is_skipped_and_none_is_refused() {
    let installation = ProviderInstallation::new(vec![method(
        MethodKind::FilesystemMirror {
            path: PathBuf::from("/srv/providers"),
        },
        &["example.com/acme/*"],
    )]);
    let error = installation
        .origin_for(
            &source("hashicorp/aws"),
            |_: &Path| -> Result<LocalPackages, String> { panic!("nothing to scan") },
            |_: &str| -> Result<RepositoryAddress, String> { panic!("no template") },
        )
        .expect_err("no method");
    let OriginError::NoMethod(message) = error else {
        panic!("no method: {error:?}");
    };
    assert_eq!(
        message,
        "no installation method of the CLI configuration may install registry.opentofu.org/hashicorp/aws"
    );
}

#[test]
fn what_the_caller_fails_with_is_the_error() {
    let installation = ProviderInstallation::new(vec![method(
        MethodKind::FilesystemMirror {
            path: PathBuf::from("/nowhere"),
        },
        &[],
    )]);
    let error = installation
        .origin_for(
            &source("hashicorp/aws"),
            |_: &Path| Err("cannot read /nowhere".to_owned()),
            |_: &str| -> Result<RepositoryAddress, String> { panic!("no template") },
        )
        .expect_err("the scan failed");
    assert!(matches!(error, OriginError::Caller(ref e) if e == "cannot read /nowhere"));
}

#[test]
fn providers_no_longer_required_leave_the_lock_file() {
    let (aws, google, random) = (
        source("hashicorp/aws"),
        source("hashicorp/google"),
        source("hashicorp/random"),
    );
    let locked = [aws.clone(), google.clone(), random.clone()];
    assert_eq!(
        unrequired(&locked, &[aws.clone(), random.clone()]),
        [google]
    );
    assert!(unrequired(&locked, &locked).is_empty());
}

#[test]
fn a_read_only_lock_file_that_would_change_is_refused() {
    let path = Path::new("infra/.terraform.lock.hcl");
    assert_eq!(
        readonly_refusal(true, true, path).as_deref(),
        Some(
            "the lock file infra/.terraform.lock.hcl would change, and it is read-only \
             (--lockfile readonly)"
        )
    );
    assert_eq!(readonly_refusal(false, true, path), None);
    assert_eq!(readonly_refusal(true, false, path), None);
}

mod requirements {
    use tfdisco_core::{Dialect, ProviderSource};
    use tfdisco_provider::plan::{Required, requirements};

    use super::source;

    fn required<'a>(source: &'a ProviderSource, constraints: &[(&'a str, &str)]) -> Required<'a> {
        Required {
            source,
            lockable: true,
            constraints: constraints
                .iter()
                .map(|(given, at)| (*given, (*at).to_owned()))
                .collect(),
        }
    }

    #[test]
    fn constraints_merge_and_the_lock_files_version_is_kept() {
        let aws = source("hashicorp/aws");
        let given = [required(
            &aws,
            &[(">= 4.0", "main.tf:3"), ("< 6.0", "modules/vpc/main.tf:9")],
        )];
        let recorded = |_: &ProviderSource| Some(("5.1.0".to_owned(), vec!["h1:abc=".to_owned()]));
        let found = requirements(given, &[], recorded, Dialect::OpenTofu).expect("requirements");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].constraints.to_string(), ">= 4.0.0, < 6.0.0");
        assert_eq!(
            found[0].locked.as_ref().map(ToString::to_string).as_deref(),
            Some("5.1.0")
        );
        assert_eq!(
            found[0].recorded.as_ref().map(|r| r.hashes.clone()),
            Some(vec!["h1:abc=".to_owned()])
        );
    }

    #[test]
    fn a_bad_constraint_names_where_it_stands() {
        let aws = source("hashicorp/aws");
        let error = requirements(
            [required(&aws, &[("~> banana", "main.tf:3")])],
            &[],
            |_: &ProviderSource| None,
            Dialect::OpenTofu,
        )
        .expect_err("a bad constraint");
        assert!(
            error.starts_with(
                "main.tf:3: invalid version constraint for registry.opentofu.org/hashicorp/aws: "
            ),
            "{error}"
        );
    }

    #[test]
    fn a_named_provider_must_be_required_and_only_the_named_are_asked() {
        let (aws, random) = (source("hashicorp/aws"), source("hashicorp/random"));
        let given = || [required(&aws, &[]), required(&random, &[])];
        let none = |_: &ProviderSource| None;
        let found = requirements(
            given(),
            std::slice::from_ref(&random),
            none,
            Dialect::OpenTofu,
        )
        .expect("random alone");
        assert_eq!(
            found.iter().map(|r| &r.source).collect::<Vec<_>>(),
            [&random]
        );
        let error = requirements(
            given(),
            &[source("hashicorp/google")],
            none,
            Dialect::OpenTofu,
        )
        .expect_err("google is not required");
        assert_eq!(
            error,
            "Invalid provider argument: The provider registry.opentofu.org/hashicorp/google is not \
             required by the current configuration."
        );
    }
}
