//! The reports' JSON documents, byte for byte: the members and their
//! order are what the CLI's `--json`, the Python and Node reports and the
//! committed goldens read.

use std::path::PathBuf;

use tfdisco_config::DialectChoice;
use tfdisco_core::serde_json;
use tfdisco_core::{Dialect, Platform, ProviderSource, SigningKey, Version};
use tfdisco_provider::Trust;
use tfdisco_provider::plan::Installed;
use tfdisco_runs::{InstallEvent, InstallReport, InstalledProvider, LockReport, ProviderReport};

fn source() -> ProviderSource {
    ProviderSource::parse_argument("hashicorp/aws", Dialect::Terraform).expect("a source")
}

fn version() -> Version {
    Version::parse("5.0.0", Dialect::Terraform).expect("a version")
}

fn platform() -> Platform {
    Platform::parse("linux_amd64").expect("a platform")
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("JSON")
}

#[test]
fn a_lock_report() {
    let report = LockReport {
        path: PathBuf::from("/w/.terraform.lock.hcl"),
        changed: true,
        platforms: vec![
            platform(),
            Platform::parse("darwin_arm64").expect("a platform"),
        ],
        providers: vec![ProviderReport {
            source: source(),
            version: version(),
            constraints: "~> 5.0".to_owned(),
            hashes_added: vec!["h1:a".to_owned(), "zh:b".to_owned()],
            trust: Trust::Partner,
            key_id: None,
        }],
        dialect: DialectChoice::given(Dialect::Terraform),
    };
    assert_eq!(
        json(&report),
        concat!(
            r#"{"lock_file":"/w/.terraform.lock.hcl","changed":true,"#,
            r#""platforms":["linux_amd64","darwin_arm64"],"#,
            r#""providers":[{"source":"registry.terraform.io/hashicorp/aws","version":"5.0.0","#,
            r#""constraints":"~> 5.0","hashes_added":["h1:a","zh:b"],"#,
            r#""trust":"signed by a HashiCorp partner","key_id":null}],"#,
            r#""dialect":{"name":"terraform","chosen_by":"given","why":"given"}}"#,
        )
    );
}

#[test]
fn an_install_report() {
    let provider = |installed, bytes| InstalledProvider {
        source: source(),
        version: version(),
        installed,
        from: "registry".to_owned(),
        bytes,
        hashes_added: vec![],
        trust: Trust::Signed,
        key_id: Some("K1".to_owned()),
    };
    let report = InstallReport {
        path: PathBuf::from("/w/.terraform.lock.hcl"),
        changed: false,
        platform: platform(),
        providers: vec![
            provider(Installed::Fetched, 12),
            provider(Installed::Reused, 0),
            provider(Installed::FromCache, 0),
        ],
        warnings: vec!["w".to_owned()],
        dialect: DialectChoice::given(Dialect::OpenTofu),
        modules: vec![],
    };
    let one = |installed: &str, bytes: u64| {
        format!(
            r#"{{"source":"registry.terraform.io/hashicorp/aws","version":"5.0.0","installed":"{installed}","from":"registry","bytes":{bytes},"hashes_added":[],"trust":"signed","key_id":"K1"}}"#
        )
    };
    assert_eq!(
        json(&report),
        format!(
            r#"{{"lock_file":"/w/.terraform.lock.hcl","changed":false,"platform":"linux_amd64","providers":[{},{},{}],"warnings":["w"],"dialect":{{"name":"opentofu","chosen_by":"given","why":"given"}},"modules":[]}}"#,
            one("downloaded", 12),
            one("reused", 0),
            one("cached", 0),
        )
    );
}

#[test]
fn a_platform_and_a_signing_key() {
    assert_eq!(json(&platform()), r#"{"os":"linux","arch":"amd64"}"#);
    let key = SigningKey {
        key_id: "K".to_owned(),
        ascii_armor: "-----BEGIN".to_owned(),
        trust_signature: String::new(),
        source: "HashiCorp".to_owned(),
        source_url: None,
    };
    assert_eq!(
        json(&key),
        r#"{"key_id":"K","ascii_armor":"-----BEGIN","trust_signature":"","source":"HashiCorp","source_url":null}"#
    );
}

/// An install run's events as the CLI's `--json` lines and the language
/// packages' event objects give them.
#[test]
fn install_events() {
    let (source, version, platform) = (source(), version(), platform());
    assert_eq!(
        json(&InstallEvent::Downloading {
            source: &source,
            version: &version,
        }),
        r#"{"event":"downloading","source":"registry.terraform.io/hashicorp/aws","version":"5.0.0"}"#
    );
    assert_eq!(
        json(&InstallEvent::Downloaded {
            source: &source,
            version: &version,
            bytes: 42,
        }),
        r#"{"event":"downloaded","source":"registry.terraform.io/hashicorp/aws","version":"5.0.0","bytes":42}"#
    );
    assert_eq!(
        json(&InstallEvent::WaitingForCache {
            source: &source,
            version: &version,
            platform: &platform,
            lock_file: std::path::Path::new("/c/5.0.0/linux_amd64.lock"),
            waited: std::time::Duration::from_millis(1500),
        }),
        r#"{"event":"waiting_for_cache","source":"registry.terraform.io/hashicorp/aws","version":"5.0.0","platform":"linux_amd64","lock_file":"/c/5.0.0/linux_amd64.lock","waited_seconds":1.5}"#
    );
}
