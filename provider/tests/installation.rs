//! Installation methods (docs/behaviour.md, INST-3 to INST-7): patterns,
//! which methods handle a provider and why, and how the methods' answers
//! combine, with the `*_multi_source_*` tables of
//! `conformance/provider_installation.json` run as data. Cases failed on
//! purpose are listed under `provider_installation/` in
//! `expected_differences.txt`.

#[path = "../../core/tests/common/results.rs"]
mod results;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tfdisco_core::{Dialect, NetworkMirror, Platform, ProviderSource, Version};
use tfdisco_provider::{
    Choice, DevOverride, InstallationMethod, MethodError, MethodKind, MultiSourceError,
    ProviderInstallation, ProviderPattern, Reason,
};

use results::{Results, table};

fn expected_differences(prefix: &str) -> BTreeMap<String, String> {
    results::expected_differences_with(prefix, &["v1.16"])
}

const TABLE: &str = "provider_installation.json";

fn dialect_of(table_name: &str) -> Dialect {
    if table_name.starts_with("terraform_") {
        Dialect::Terraform
    } else {
        Dialect::OpenTofu
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().expect("a string").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn provider(given: &str, dialect: Dialect) -> Result<ProviderSource, String> {
    ProviderSource::parse(given, dialect).map_err(|e| format!("provider {given:?}: {e}"))
}

fn patterns(v: Option<&Value>, dialect: Dialect) -> Result<Vec<ProviderPattern>, String> {
    ProviderPattern::parse_all(&strings(v), dialect).map_err(|e| e.to_string())
}

fn mirror(i: usize, include: Vec<ProviderPattern>) -> InstallationMethod {
    InstallationMethod::new(
        MethodKind::FilesystemMirror {
            path: PathBuf::from(format!("s{i}")),
        },
        include,
        Vec::new(),
    )
}

#[test]
fn multi_source_selector() {
    for name in [
        "terraform_multi_source_selector",
        "opentofu_multi_source_selector",
    ] {
        let dialect = dialect_of(name);
        let t = table(TABLE);
        let mut results = Results::new(format!("provider_installation/{name}/").leak());
        for (i, case) in t[name].as_array().expect("a table").iter().enumerate() {
            let outcome = (|| {
                let method = InstallationMethod::new(
                    MethodKind::Direct {
                        download_retry_count: None,
                    },
                    patterns(case.get("include"), dialect)?,
                    patterns(case.get("exclude"), dialect)?,
                );
                let p = provider(case["provider"].as_str().expect("provider"), dialect)?;
                let want = case["want"].as_bool().expect("want");
                let got = method.can_handle(&p);
                if got != want {
                    return Err(format!("can_handle: got {got}, want {want}"));
                }
                Ok(())
            })();
            results.record(format!("provider_installation/{name}/{i}"), outcome);
        }
        results.finish();
    }
}

/// A mock source's packages: (provider, version, platform, filename).
type Packages = Vec<(ProviderSource, Version, String, String)>;

fn sources(case: &Value, dialect: Dialect) -> Vec<(Packages, BTreeMap<String, Vec<String>>)> {
    case["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .map(|s| {
            let packages = s["packages"]
                .as_array()
                .expect("packages")
                .iter()
                .map(|p| {
                    (
                        ProviderSource::parse(p["provider"].as_str().expect("provider"), dialect)
                            .expect("a provider"),
                        p["version"].as_str().expect("version").parse().expect("v"),
                        p["platform"].as_str().expect("platform").to_owned(),
                        p.get("filename")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    )
                })
                .collect();
            let warnings = s
                .get("warnings")
                .and_then(Value::as_object)
                .map(|w| {
                    w.iter()
                        .map(|(k, v)| (k.clone(), strings(Some(v))))
                        .collect()
                })
                .unwrap_or_default();
            (packages, warnings)
        })
        .collect()
}

fn installation(case: &Value, dialect: Dialect) -> ProviderInstallation {
    let methods = case["selectors"]
        .as_array()
        .expect("selectors")
        .iter()
        .map(|s| {
            let i = s["source"].as_u64().expect("source") as usize;
            mirror(i, patterns(s.get("include"), dialect).expect("valid"))
        })
        .collect();
    ProviderInstallation::new(methods)
}

fn source_index(method: &InstallationMethod) -> usize {
    let MethodKind::FilesystemMirror { path } = &method.kind else {
        panic!("a mock source")
    };
    path.to_string_lossy()[1..].parse().expect("s<i>")
}

#[test]
fn multi_source_available_versions() {
    for name in [
        "terraform_multi_source_available_versions",
        "opentofu_multi_source_available_versions",
    ] {
        let dialect = dialect_of(name);
        let t = table(TABLE);
        let mut results = Results::new(format!("provider_installation/{name}/").leak());
        for (i, case) in t[name].as_array().expect("a table").iter().enumerate() {
            let sources = sources(case, dialect);
            let installation = installation(case, dialect);
            for (q, query) in case["queries"]
                .as_array()
                .expect("queries")
                .iter()
                .enumerate()
            {
                let p = provider(query["provider"].as_str().expect("provider"), dialect)
                    .expect("a provider");
                let got = installation.available_versions(&p, |method| {
                    let (packages, warnings) = &sources[source_index(method)];
                    let mut versions: Vec<Version> = packages
                        .iter()
                        .filter(|(pp, ..)| *pp == p)
                        .map(|(_, v, ..)| v.clone())
                        .collect();
                    if versions.is_empty() {
                        return Err(MethodError::<String>::RegistryProviderNotKnown);
                    }
                    versions.sort();
                    let warnings = warnings.get(&p.to_string()).cloned().unwrap_or_default();
                    Ok((versions, warnings))
                });
                let outcome = match (got, query.get("want")) {
                    (Ok(got), Some(want)) => {
                        let got_versions: Vec<String> =
                            got.versions.iter().map(Version::to_string).collect();
                        let want_warnings = strings(query.get("want_warnings"));
                        if got_versions != strings(Some(want)) {
                            Err(format!("versions {got_versions:?}, want {want}"))
                        } else if got.warnings != want_warnings {
                            Err(format!(
                                "warnings {:?}, want {want_warnings:?}",
                                got.warnings
                            ))
                        } else {
                            Ok(())
                        }
                    }
                    (Err(e), None) => {
                        let kind = match &e {
                            MultiSourceError::RegistryProviderNotKnown { .. } => {
                                "ErrRegistryProviderNotKnown"
                            }
                            MultiSourceError::ProviderNotFound { .. } => "ErrProviderNotFound",
                            _ => "other",
                        };
                        match (query.get("error_type"), query.get("error")) {
                            (Some(t), _) if t != kind => Err(format!("error {kind}, want {t}")),
                            (_, Some(text)) if text != &e.to_string() => {
                                Err(format!("error {:?}, want {text}", e.to_string()))
                            }
                            _ => Ok(()),
                        }
                    }
                    (got, _) => Err(format!("got {got:?}, want {query}")),
                };
                results.record(format!("provider_installation/{name}/{i}/{q}"), outcome);
            }
        }
        results.finish();
    }
}

#[test]
fn multi_source_package_meta() {
    for name in [
        "terraform_multi_source_package_meta",
        "opentofu_multi_source_package_meta",
    ] {
        let dialect = dialect_of(name);
        let t = table(TABLE);
        let mut results = Results::new(format!("provider_installation/{name}/").leak());
        for (i, case) in t[name].as_array().expect("a table").iter().enumerate() {
            let sources = sources(case, dialect);
            let installation = installation(case, dialect);
            let query = &case["query"];
            let p = provider(query["provider"].as_str().expect("provider"), dialect)
                .expect("a provider");
            let version: Version = query["version"].as_str().expect("v").parse().expect("v");
            let platform = Platform::parse(query["platform"].as_str().expect("p")).expect("p");
            let got = installation.first_package(&p, &version, &platform, |method| {
                sources[source_index(method)]
                    .0
                    .iter()
                    .find(|(pp, v, os_arch, _)| {
                        *pp == p && *v == version && *os_arch == platform.to_string()
                    })
                    .cloned()
                    .ok_or(MethodError::<String>::PlatformNotSupported)
            });
            let outcome = match (got, query.get("want")) {
                (Ok((_, (pp, v, os_arch, filename))), Some(want)) => {
                    let got = (pp.to_string(), v.to_string(), os_arch, filename);
                    let want = (
                        want["provider"].as_str().expect("p").to_owned(),
                        want["version"].as_str().expect("v").to_owned(),
                        want["platform"].as_str().expect("p").to_owned(),
                        want["filename"].as_str().expect("f").to_owned(),
                    );
                    if got == want {
                        Ok(())
                    } else {
                        Err(format!("got {got:?}, want {want:?}"))
                    }
                }
                (Err(MultiSourceError::PlatformNotSupported { .. }), None)
                    if query["error_type"] == "ErrPlatformNotSupported" =>
                {
                    Ok(())
                }
                (got, _) => Err(format!("got {got:?}, want {query}")),
            };
            results.record(format!("provider_installation/{name}/{i}"), outcome);
        }
        results.finish();
    }
}

/// INST-4: the pattern errors, in Go's words (no upstream test has them),
/// except that the namespace error names the namespace.
#[test]
fn pattern_errors_have_gos_words() {
    let d = Dialect::Terraform;
    let err = |p: &str| {
        ProviderPattern::parse(p, d)
            .expect_err("refused")
            .to_string()
    };
    assert_eq!(
        err("a"),
        r#"invalid provider matching pattern "a": must have either two or three slash-separated segments"#
    );
    assert_eq!(
        err(""),
        r#"invalid provider matching pattern "": must have either two or three slash-separated segments"#
    );
    assert_eq!(
        err("a/b/c/d"),
        r#"invalid provider matching pattern "a/b/c/d": must have either two or three slash-separated segments"#
    );
    assert_eq!(
        err("bad host/ns/t"),
        r#"invalid hostname in provider matching pattern "bad host/ns/t": idna: disallowed rune U+0020"#
    );
    assert_eq!(
        err("hashicorp/aws*"),
        r#"invalid provider type "aws*" in provider matching pattern "hashicorp/aws*": must either be the wildcard * or a provider type name"#
    );
    // Go names "aws" here, the type segment: tfdisco names the namespace.
    assert_eq!(
        err("bad--ns/aws"),
        r#"invalid registry namespace "bad--ns" in provider matching pattern "bad--ns/aws": must either be the wildcard * or a literal namespace"#
    );
    // The type is checked before the namespace.
    assert_eq!(
        err("bad--ns/bad--type"),
        r#"invalid provider type "bad--type" in provider matching pattern "bad--ns/bad--type": must either be the wildcard * or a provider type name"#
    );
    assert_eq!(
        err("*/hashicorp/*"),
        r#"invalid provider matching pattern "*/hashicorp/*": hostname can be a wildcard only if both namespace and provider type are also wildcards"#
    );
    assert_eq!(
        err("*/*/aws"),
        r#"invalid provider matching pattern "*/*/aws": hostname can be a wildcard only if both namespace and provider type are also wildcards"#
    );
    assert_eq!(
        err("example.com/*/aws"),
        r#"invalid provider matching pattern "example.com/*/aws": namespace can be a wildcard only if the provider type is also a wildcard"#
    );
    assert_eq!(
        err("*/aws"),
        r#"invalid provider matching pattern "*/aws": namespace can be a wildcard only if the provider type is also a wildcard"#
    );
    assert_eq!(
        err("my_org/foo"),
        r#"invalid registry namespace "my_org" in provider matching pattern "my_org/foo": must either be the wildcard * or a literal namespace"#
    );
    // A list fails at its first bad pattern.
    let e = ProviderPattern::parse_all(&["hashicorp/*", "x", "y"], d).expect_err("refused");
    assert!(e.message().contains(r#""x""#), "{e}");
}

/// INST-3: the accepted shapes, normalized; two parts mean the dialect's
/// default registry, so `*/*` does not match other hosts.
#[test]
fn pattern_shapes_and_normal_forms() {
    let shown = |p: &str, d: Dialect| ProviderPattern::parse(p, d).expect("valid").to_string();
    assert_eq!(shown("*/*/*", Dialect::Terraform), "*/*/*");
    assert_eq!(
        shown("Example.COM:443/*/*", Dialect::Terraform),
        "example.com/*/*"
    );
    assert_eq!(
        shown("Example.COM:8443/Acme/*", Dialect::Terraform),
        "example.com:8443/acme/*"
    );
    assert_eq!(
        shown("*/*", Dialect::Terraform),
        "registry.terraform.io/*/*"
    );
    assert_eq!(shown("*/*", Dialect::OpenTofu), "registry.opentofu.org/*/*");
    assert_eq!(
        shown("HashiCorp/AWS", Dialect::OpenTofu),
        "registry.opentofu.org/hashicorp/aws"
    );
    let all = ProviderPattern::parse("*/*", Dialect::Terraform).expect("valid");
    let elsewhere =
        ProviderSource::parse("example.com/acme/widget", Dialect::Terraform).expect("valid");
    assert!(!all.matches(&elsewhere));
    let everything = ProviderPattern::parse("*/*/*", Dialect::Terraform).expect("valid");
    assert!(everything.matches(&elsewhere));
    let host = ProviderPattern::parse("EXAMPLE.com/*/*", Dialect::Terraform).expect("valid");
    assert!(host.matches(&elsewhere));
}

fn p(s: &str) -> ProviderPattern {
    ProviderPattern::parse(s, Dialect::Terraform).expect("valid")
}

fn src(s: &str) -> ProviderSource {
    ProviderSource::parse(s, Dialect::Terraform).expect("valid")
}

/// INST-6: every method in priority order, whether it may install the
/// provider and why; a development override first.
#[test]
fn methods_for_says_which_method_and_why() {
    let mut installation = ProviderInstallation::new(vec![
        InstallationMethod::new(
            MethodKind::FilesystemMirror {
                path: "/srv/mirror".into(),
            },
            vec![p("example.com/*/*"), p("hashicorp/*")],
            vec![p("hashicorp/null")],
        ),
        InstallationMethod::new(
            MethodKind::NetworkMirror {
                mirror: NetworkMirror::parse("https://mirror.example.com/").expect("a mirror"),
                download_retry_count: None,
                trust_all_hashes: None,
            },
            vec![],
            vec![],
        ),
        InstallationMethod::new(
            MethodKind::Direct {
                download_retry_count: None,
            },
            vec![],
            vec![p("example.com/*/*")],
        ),
    ]);
    let reasons = |installation: &ProviderInstallation, provider: &str| {
        installation
            .methods_for(&src(provider))
            .iter()
            .map(|c| (c.handles, c.reason.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        reasons(&installation, "hashicorp/aws"),
        [
            (true, r#"include pattern "hashicorp/*" matches"#.to_owned()),
            (true, "no include patterns".to_owned()),
            (true, "no include patterns".to_owned()),
        ]
    );
    assert_eq!(
        reasons(&installation, "hashicorp/null"),
        [
            (
                false,
                r#"exclude pattern "hashicorp/null" matches"#.to_owned()
            ),
            (true, "no include patterns".to_owned()),
            (true, "no include patterns".to_owned()),
        ]
    );
    assert_eq!(
        reasons(&installation, "example.com/acme/widget"),
        [
            (
                true,
                r#"include pattern "example.com/*/*" matches"#.to_owned()
            ),
            (true, "no include patterns".to_owned()),
            (
                false,
                r#"exclude pattern "example.com/*/*" matches"#.to_owned()
            ),
        ]
    );
    assert_eq!(
        reasons(&installation, "acme/other")[0],
        (false, "no include pattern matches".to_owned())
    );
    let handling: Vec<&str> = installation
        .handling(&src("example.com/acme/widget"))
        .map(|m| m.kind.name())
        .collect();
    assert_eq!(handling, ["filesystem_mirror", "network_mirror"]);

    installation.dev_overrides.push(DevOverride {
        provider: src("hashicorp/aws"),
        dir: "/home/dev/aws".into(),
    });
    let choices = installation.methods_for(&src("hashicorp/aws"));
    assert_eq!(choices.len(), 4);
    assert!(
        matches!(choices[0].choice, Choice::DevOverride(o) if o.dir == Path::new("/home/dev/aws"))
    );
    assert_eq!(
        choices[0].reason.to_string(),
        "dev_overrides: used from /home/dev/aws by every command but init, which ignores it"
    );
    assert!(matches!(choices[1].choice, Choice::Method(m) if m.kind.name() == "filesystem_mirror"));
    // The override is for that provider only.
    assert_eq!(installation.methods_for(&src("hashicorp/null")).len(), 3);
}

/// INST-9: the implied configuration: a mirror per directory found, then
/// `direct` without the providers found, each explained by its directory.
#[test]
fn the_implied_configuration_excludes_what_is_found_locally() {
    let installation = ProviderInstallation::implied(vec![
        (
            PathBuf::from("/work/terraform.d/plugins"),
            vec![src("hashicorp/null")],
        ),
        (
            PathBuf::from("/home/me/.terraform.d/plugins"),
            vec![src("hashicorp/null"), src("example.com/acme/widget")],
        ),
    ]);
    assert!(installation.implied);
    assert_eq!(installation.methods.len(), 3);
    let direct = &installation.methods[2];
    assert_eq!(
        direct
            .exclude
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>(),
        [
            "registry.terraform.io/hashicorp/null",
            "example.com/acme/widget"
        ]
    );
    let choices = installation.methods_for(&src("hashicorp/null"));
    assert!(choices[0].handles && choices[1].handles && !choices[2].handles);
    assert_eq!(
        choices[2].reason,
        Reason::FoundLocally {
            dir: "/work/terraform.d/plugins".into()
        }
    );
    assert_eq!(
        choices[2].reason.to_string(),
        "excluded: found in the local mirror /work/terraform.d/plugins"
    );
    let aws = installation.methods_for(&src("hashicorp/aws"));
    assert!(aws.iter().all(|c| c.handles));
    // Only exact addresses are excluded.
    assert!(direct.can_handle(&src("hashicorp/random")));

    // Nothing found: `direct` alone, excluding nothing.
    let bare = ProviderInstallation::implied(Vec::new());
    assert_eq!(bare.methods.len(), 1);
    assert!(bare.methods[0].can_handle(&src("hashicorp/null")));
}

/// INST-7: methods are not "first match wins": versions are the union of
/// every handling method's; a package comes from the first method that has
/// it; a failure other than "not found" ends the query.
#[test]
fn answers_combine_as_a_multi_source() {
    let installation = ProviderInstallation::new(vec![mirror(0, vec![]), mirror(1, vec![])]);
    let null = src("hashicorp/null");
    let v = |s: &str| s.parse::<Version>().expect("a version");
    let got = installation
        .available_versions(&null, |m| {
            Ok::<_, MethodError<String>>(match source_index(m) {
                0 => (vec![v("1.0.0"), v("2.0.0")], vec!["from 0".into()]),
                _ => (vec![v("1.5.0"), v("1.0.0")], vec![]),
            })
        })
        .expect("versions");
    assert_eq!(got.versions, [v("1.0.0"), v("1.5.0"), v("2.0.0")]);
    assert_eq!(got.warnings, ["from 0"]);

    let failed = installation.available_versions(&null, |m| match source_index(m) {
        0 => Err(MethodError::Other("mirror unreachable".to_owned())),
        _ => Ok((vec![v("1.0.0")], vec![])),
    });
    assert_eq!(
        failed,
        Err(MultiSourceError::Other("mirror unreachable".to_owned()))
    );

    let not_found = installation
        .available_versions(&null, |_| Err(MethodError::<String>::ProviderNotFound))
        .expect_err("none");
    assert_eq!(
        not_found.to_string(),
        "provider registry.terraform.io/hashicorp/null was not found in any of the search \
         locations\n\n- filesystem_mirror s0\n- filesystem_mirror s1"
    );

    // No methods at all: nothing, and no error.
    let empty = ProviderInstallation::default();
    let none = empty
        .available_versions(&null, |_| -> Result<_, MethodError<String>> {
            unreachable!("no method to ask")
        })
        .expect("no error");
    assert!(none.versions.is_empty());
    // ... and no package.
    let platform = Platform::new("linux", "amd64");
    assert!(matches!(
        empty.first_package(
            &null,
            &v("1.0.0"),
            &platform,
            |_| -> Result<(), MethodError<String>> { unreachable!() }
        ),
        Err(MultiSourceError::ProviderNotFound { .. })
    ));

    // The package: asked in order, no further than the first that has it.
    let mut asked = Vec::new();
    let (method, package) = installation
        .first_package(&null, &v("1.0.0"), &platform, |m| {
            asked.push(source_index(m));
            match source_index(m) {
                0 => Err(MethodError::<String>::PlatformNotSupported),
                _ => Ok("from s1"),
            }
        })
        .expect("a package");
    assert_eq!((source_index(method), package), (1, "from s1"));
    assert_eq!(asked, [0, 1]);
}
