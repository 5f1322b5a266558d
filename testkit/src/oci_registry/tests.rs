//! The fixture against the real `docker-registry`: each auth mode, the
//! challenges, a provider release and a module package pushed and read
//! back byte for byte, the token service's flows and refusals, and the
//! child gone after drop. Without `docker-registry` these fail, saying
//! what to install.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::Value;

use super::access::basic;
use super::*;
use crate::signed_registry::{file, package_file};

const USER: &str = "alice";
const PASSWORD: &str = "s3cret-pa55";

/// A real provider package (the signed registry's).
fn zip(platform: &str) -> &'static [u8] {
    file("alpha", "1.0.0", &package_file("alpha", "1.0.0", platform))
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("JSON")
}

/// Pushes `alpha` 1.0.0+build.1 for two platforms to `repo`.
fn push_alpha(registry: &OciRegistry, repo: &str) -> PushedProvider {
    registry.push_provider(
        repo,
        "1.0.0+build.1",
        &[
            ("linux", "amd64", zip("linux_amd64")),
            ("darwin", "arm64", zip("darwin_arm64")),
        ],
    )
}

/// What `push_alpha` pushed comes back byte for byte, with its media
/// types, laid out as OpenTofu reads it.
fn check_alpha(registry: &OciRegistry, repo: &str, pushed: &PushedProvider) {
    assert_eq!(pushed.tag, "1.0.0_build.1");
    assert_eq!(registry.tags(repo), vec![pushed.tag.clone()]);
    let (media_type, index) = registry.manifest(repo, &pushed.tag).expect("the index");
    assert_eq!(media_type, INDEX_MEDIA_TYPE);
    assert_eq!(index, pushed.index);
    assert_eq!(sha256_digest(&index), pushed.index_digest);
    let index = json(&index);
    assert_eq!(index["schemaVersion"], 2);
    assert_eq!(index["mediaType"], INDEX_MEDIA_TYPE);
    assert_eq!(index["artifactType"], PROVIDER_ARTIFACT_TYPE);
    let entries = index["manifests"].as_array().expect("manifests");
    assert_eq!(entries.len(), 2);
    for (entry, (platform, target)) in entries.iter().zip([
        ("linux_amd64", &pushed.targets[0]),
        ("darwin_arm64", &pushed.targets[1]),
    ]) {
        let (os, arch) = platform.split_once('_').expect("OS_ARCH");
        assert_eq!((target.os.as_str(), target.arch.as_str()), (os, arch));
        assert_eq!(entry["mediaType"], MANIFEST_MEDIA_TYPE);
        assert_eq!(entry["artifactType"], PROVIDER_TARGET_ARTIFACT_TYPE);
        assert_eq!(entry["platform"]["os"], os);
        assert_eq!(entry["platform"]["architecture"], arch);
        assert_eq!(entry["digest"], target.artifact.manifest_digest.as_str());
        assert_eq!(entry["size"], target.artifact.manifest.len());
        check_zip_artifact(
            registry,
            repo,
            &target.artifact.manifest_digest,
            &target.artifact,
            PROVIDER_TARGET_ARTIFACT_TYPE,
            zip(platform),
        );
    }
}

/// The image manifest at `reference`, its empty config and its one zip
/// layer, byte for byte.
fn check_zip_artifact(
    registry: &OciRegistry,
    repo: &str,
    reference: &str,
    pushed: &PushedArtifact,
    artifact_type: &str,
    zip: &[u8],
) {
    let (media_type, manifest) = registry.manifest(repo, reference).expect("the manifest");
    assert_eq!(media_type, MANIFEST_MEDIA_TYPE);
    assert_eq!(manifest, pushed.manifest);
    assert_eq!(sha256_digest(&manifest), pushed.manifest_digest);
    let manifest = json(&manifest);
    assert_eq!(manifest["schemaVersion"], 2);
    assert_eq!(manifest["mediaType"], MANIFEST_MEDIA_TYPE);
    assert_eq!(manifest["artifactType"], artifact_type);
    let config = &manifest["config"];
    assert_eq!(config["mediaType"], EMPTY_MEDIA_TYPE);
    assert_eq!(
        config["digest"],
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
    assert_eq!(config["size"], 2);
    let config_digest = config["digest"].as_str().expect("a digest");
    assert_eq!(registry.blob(repo, config_digest).expect("{}"), b"{}");
    let layers = manifest["layers"].as_array().expect("layers");
    assert_eq!(layers.len(), 1);
    assert_eq!(layers[0]["mediaType"], ZIP_MEDIA_TYPE);
    assert_eq!(layers[0]["size"], zip.len());
    let digest = layers[0]["digest"].as_str().expect("a digest");
    assert_eq!(digest, pushed.zip_digest);
    let blob = registry.blob(repo, digest).expect("the zip");
    assert_eq!(sha256_digest(&blob), digest);
    assert!(blob == zip, "the layer is the zip, byte for byte");
}

/// The header and claims of a JWT.
fn jwt_parts(token: &str) -> (Value, Value) {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "{token}");
    let decode = |part: &str| json(&URL_SAFE_NO_PAD.decode(part).expect("base64url"));
    assert_eq!(
        URL_SAFE_NO_PAD.decode(parts[2]).expect("base64url").len(),
        64
    );
    (decode(parts[0]), decode(parts[1]))
}

#[test]
fn oci_registry_anonymous_round_trip() {
    let registry = OciRegistry::start(OciAuth::Anonymous);
    assert_eq!(registry.host(), format!("127.0.0.1:{}", registry.port()));
    assert_eq!(registry.token_realm(), None);
    let answer = registry.request("GET", "/v2/", &[], b"");
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.header("www-authenticate"), None);

    let pushed = push_alpha(&registry, "providers/ns/alpha");
    check_alpha(&registry, "providers/ns/alpha", &pushed);
    assert!(registry.token_requests().is_empty());
    assert_eq!(registry.manifest("providers/ns/alpha", "9.9.9"), None);
    assert_eq!(registry.tags("providers/ns/none"), Vec::<String>::new());

    // Distribution 2.8 answers an OCI index or manifest only to a client
    // whose Accept names its type: without it, 404 MANIFEST_UNKNOWN.
    let index = format!("/v2/providers/ns/alpha/manifests/{}", pushed.tag);
    let answer = registry.request("GET", &index, &[], b"");
    assert_eq!(answer.status, 404, "{}", answer.text());
    assert!(
        answer.text().contains("MANIFEST_UNKNOWN"),
        "{}",
        answer.text()
    );
    let answer = registry.request("GET", &index, &[("Accept", INDEX_MEDIA_TYPE)], b"");
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.header("content-type"), Some(INDEX_MEDIA_TYPE));
    assert_eq!(
        answer.header("docker-content-digest"),
        Some(pushed.index_digest.as_str())
    );
}

#[test]
fn oci_registry_basic_auth() {
    let registry = OciRegistry::start(OciAuth::basic(USER, PASSWORD));
    let answer = registry.request("GET", "/v2/", &[], b"");
    assert_eq!(answer.status, 401, "{}", answer.text());
    assert_eq!(
        answer.header("www-authenticate"),
        Some(r#"Basic realm="tfdisco-test-registry""#)
    );
    let right = basic(USER, PASSWORD);
    let answer = registry.request("GET", "/v2/", &[("Authorization", &right)], b"");
    assert_eq!(answer.status, 200, "{}", answer.text());
    let wrong = basic(USER, "wrong");
    let answer = registry.request("GET", "/v2/", &[("Authorization", &wrong)], b"");
    assert_eq!(answer.status, 401, "{}", answer.text());

    let pushed = push_alpha(&registry, "mirror/alpha");
    check_alpha(&registry, "mirror/alpha", &pushed);
    let module_zip = zip("windows_amd64");
    let module = registry.push_module("modules/network", "latest", module_zip);
    check_zip_artifact(
        &registry,
        "modules/network",
        "latest",
        &module,
        MODULE_ARTIFACT_TYPE,
        module_zip,
    );
    assert_eq!(registry.tags("modules/network"), vec!["latest".to_owned()]);
    // Without credentials, nothing.
    let answer = registry.request("GET", "/v2/modules/network/tags/list", &[], b"");
    assert_eq!(answer.status, 401, "{}", answer.text());
}

#[test]
fn oci_registry_token_auth() {
    let registry = OciRegistry::start(OciAuth::token(USER, PASSWORD));
    let realm = registry.token_realm().expect("a token service");
    assert!(realm.starts_with("https://127.0.0.1:") && realm.ends_with("/token"));
    let answer = registry.request("GET", "/v2/", &[], b"");
    assert_eq!(answer.status, 401, "{}", answer.text());
    assert_eq!(
        answer.header("www-authenticate"),
        Some(format!(r#"Bearer realm="{realm}",service="tfdisco-test-registry""#).as_str())
    );
    // A repository's challenge names the scope.
    let answer = registry.request("GET", "/v2/ns/alpha/tags/list", &[], b"");
    assert_eq!(answer.status, 401, "{}", answer.text());
    assert_eq!(
        answer.header("www-authenticate"),
        Some(
            format!(
                r#"Bearer realm="{realm}",service="tfdisco-test-registry",scope="repository:ns/alpha:pull""#
            )
            .as_str()
        )
    );
    assert!(
        registry.token_requests().is_empty(),
        "starting asks no token"
    );

    // The Docker token flow, with the right credentials.
    let right = basic(USER, PASSWORD);
    let target = "/token?service=tfdisco-test-registry&scope=repository%3Ans%2Falpha%3Apull%2Cpush";
    let answer = registry.token_service_request("GET", target, &[("Authorization", &right)], b"");
    assert_eq!(answer.status, 200, "{}", answer.text());
    let body = json(&answer.body);
    let token = body["token"].as_str().expect("a token");
    assert_eq!(body["access_token"], token);
    assert_eq!(body["expires_in"], TOKEN_LIFETIME_SECS);
    let issued_at = body["issued_at"].as_str().expect("issued_at");
    assert!(
        issued_at.ends_with('Z') && issued_at.len() == 20,
        "{issued_at}"
    );
    assert_eq!(body.get("refresh_token"), None, "no offline_token asked");
    let (header, claims) = jwt_parts(token);
    assert_eq!(header["alg"], "ES256");
    assert_eq!(header["typ"], "JWT");
    assert!(
        STANDARD
            .decode(header["x5c"][0].as_str().expect("x5c"))
            .is_ok()
    );
    assert_eq!(claims["iss"], TOKEN_ISSUER);
    assert_eq!(claims["aud"], TOKEN_SERVICE);
    assert_eq!(claims["sub"], USER);
    let iat = claims["iat"].as_u64().expect("iat");
    assert_eq!(claims["nbf"], iat);
    assert_eq!(claims["exp"], iat + TOKEN_LIFETIME_SECS);
    assert!(claims["jti"].is_string());
    assert_eq!(
        claims["access"],
        serde_json::json!([{"type": "repository", "name": "ns/alpha", "actions": ["pull", "push"]}])
    );
    let bearer = format!("Bearer {token}");
    let answer = registry.request("GET", "/v2/", &[("Authorization", &bearer)], b"");
    assert_eq!(answer.status, 200, "{}", answer.text());
    // It is for ns/alpha alone.
    let answer = registry.request(
        "GET",
        "/v2/ns/beta/tags/list",
        &[("Authorization", &bearer)],
        b"",
    );
    assert_eq!(answer.status, 401, "{}", answer.text());
    assert!(
        answer
            .header("www-authenticate")
            .is_some_and(|c| c.contains(r#"error="insufficient_scope""#)),
        "{:?}",
        answer.header("www-authenticate")
    );

    // Wrong credentials, or none (no anonymous pulls here): 401.
    let wrong = basic(USER, "wrong");
    let answer = registry.token_service_request("GET", target, &[("Authorization", &wrong)], b"");
    assert_eq!(answer.status, 401, "{}", answer.text());
    let answer = registry.token_service_request("GET", target, &[], b"");
    assert_eq!(answer.status, 401, "{}", answer.text());
    // A token for another service: 400.
    let answer = registry.token_service_request(
        "GET",
        "/token?service=elsewhere&scope=repository%3Ans%2Falpha%3Apull",
        &[("Authorization", &right)],
        b"",
    );
    assert_eq!(answer.status, 400, "{}", answer.text());

    let seen = registry.take_token_requests();
    let summary: Vec<(&str, bool, u16)> = seen
        .iter()
        .map(|r| (r.method.as_str(), r.authorization, r.status))
        .collect();
    assert_eq!(
        summary,
        [
            ("GET", true, 200),
            ("GET", true, 401),
            ("GET", false, 401),
            ("GET", true, 400)
        ]
    );
    assert_eq!(seen[0].target, target);
    assert_eq!(seen[0].scopes, ["repository:ns/alpha:pull,push"]);
    assert_eq!(seen[0].grant_type, None);
    assert!(!format!("{seen:?}").contains(PASSWORD));

    // The fixture's pushes go through the same flow: one token a call.
    let pushed = push_alpha(&registry, "ns/alpha");
    let seen = registry.take_token_requests();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].scopes, ["repository:ns/alpha:pull,push"]);
    assert!(seen[0].authorization);
    check_alpha(&registry, "ns/alpha", &pushed);
}

#[test]
fn oci_registry_token_anonymous_pull() {
    let registry = OciRegistry::start(OciAuth::Token {
        username: USER.to_owned(),
        password: PASSWORD.to_owned(),
        anonymous_pull: true,
    });
    let module_zip = zip("linux_amd64");
    let module = registry.push_module("modules/vpc", "v1.2.0", module_zip);
    registry.take_token_requests();

    let target =
        "/token?service=tfdisco-test-registry&scope=repository%3Amodules%2Fvpc%3Apull%2Cpush";
    let answer = registry.token_service_request("GET", target, &[], b"");
    assert_eq!(answer.status, 200, "{}", answer.text());
    let token = json(&answer.body)["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    let (_, claims) = jwt_parts(&token);
    assert_eq!(claims["sub"], "");
    assert_eq!(
        claims["access"],
        serde_json::json!([{"type": "repository", "name": "modules/vpc", "actions": ["pull"]}])
    );
    let bearer = format!("Bearer {token}");
    let answer = registry.request(
        "GET",
        "/v2/modules/vpc/manifests/v1.2.0",
        &[("Authorization", &bearer), ("Accept", MANIFEST_MEDIA_TYPE)],
        b"",
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.body, module.manifest);
    // Pull only: an upload is refused.
    let answer = registry.request(
        "POST",
        "/v2/modules/vpc/blobs/uploads/",
        &[("Authorization", &bearer)],
        b"",
    );
    assert_eq!(answer.status, 401, "{}", answer.text());
    assert!(
        answer
            .header("www-authenticate")
            .is_some_and(|c| c.contains(r#"error="insufficient_scope""#)),
        "{:?}",
        answer.header("www-authenticate")
    );
    // Wrong credentials are still refused.
    let wrong = basic("mallory", PASSWORD);
    let answer = registry.token_service_request("GET", target, &[("Authorization", &wrong)], b"");
    assert_eq!(answer.status, 401, "{}", answer.text());
    let seen = registry.take_token_requests();
    assert_eq!(
        seen.iter()
            .map(|r| (r.authorization, r.status))
            .collect::<Vec<_>>(),
        [(false, 200), (true, 401)]
    );
}

#[test]
fn oci_token_service_oauth2_forms() {
    let registry = OciRegistry::start(OciAuth::token(USER, PASSWORD));
    let module_zip = zip("darwin_arm64");
    registry.push_module("m/oauth", "latest", module_zip);
    registry.take_token_requests();
    let form = [("Content-Type", "application/x-www-form-urlencoded")];
    let post =
        |body: &str| registry.token_service_request("POST", "/token", &form, body.as_bytes());

    let answer = post(&format!(
        "grant_type=password&username={USER}&password={PASSWORD}&service=tfdisco-test-registry\
         &scope=repository%3Am%2Foauth%3Apull&client_id=tfdisco&access_type=offline"
    ));
    assert_eq!(answer.status, 200, "{}", answer.text());
    let body = json(&answer.body);
    let access = body["access_token"].as_str().expect("an access token");
    let refresh = body["refresh_token"].as_str().expect("a refresh token");
    assert_eq!(body["scope"], "repository:m/oauth:pull");
    assert_eq!(body.get("token"), None, "OAuth2 answers carry access_token");
    let bearer = format!("Bearer {access}");
    let answer = registry.request(
        "GET",
        "/v2/m/oauth/tags/list",
        &[("Authorization", &bearer)],
        b"",
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(json(&answer.body)["tags"], serde_json::json!(["latest"]));

    let answer = post(&format!(
        "grant_type=refresh_token&refresh_token={refresh}&service=tfdisco-test-registry\
         &scope=repository%3Am%2Foauth%3Apull%2Cpush&client_id=tfdisco"
    ));
    assert_eq!(answer.status, 200, "{}", answer.text());
    let body = json(&answer.body);
    assert_eq!(body["refresh_token"], refresh);
    let (_, claims) = jwt_parts(body["access_token"].as_str().expect("an access token"));
    assert_eq!(claims["sub"], USER);
    assert_eq!(
        claims["access"][0]["actions"],
        serde_json::json!(["pull", "push"])
    );

    let answer = post(&format!(
        "grant_type=password&username={USER}&password=wrong&service=tfdisco-test-registry"
    ));
    assert_eq!(answer.status, 401, "{}", answer.text());
    let answer =
        post("grant_type=refresh_token&refresh_token=made-up&service=tfdisco-test-registry");
    assert_eq!(answer.status, 401, "{}", answer.text());
    let answer = post("grant_type=client_credentials&service=tfdisco-test-registry");
    assert_eq!(answer.status, 400, "{}", answer.text());

    let seen = registry.take_token_requests();
    assert_eq!(
        seen.iter()
            .map(|r| (
                r.method.as_str(),
                r.target.as_str(),
                r.grant_type.as_deref(),
                r.status
            ))
            .collect::<Vec<_>>(),
        [
            ("POST", "/token", Some("password"), 200),
            ("POST", "/token", Some("refresh_token"), 200),
            ("POST", "/token", Some("password"), 401),
            ("POST", "/token", Some("refresh_token"), 401),
            ("POST", "/token", Some("client_credentials"), 400),
        ]
    );
    assert!(seen.iter().all(|r| !r.authorization));
    let recorded = format!("{seen:?}");
    assert!(!recorded.contains(PASSWORD) && !recorded.contains(refresh));
}

#[test]
fn oci_registry_offline_token_gives_a_refresh_token() {
    let registry = OciRegistry::start(OciAuth::token(USER, PASSWORD));
    let right = basic(USER, PASSWORD);
    let answer = registry.token_service_request(
        "GET",
        "/token?service=tfdisco-test-registry&scope=repository%3Ax%3Apull&offline_token=true&client_id=t",
        &[("Authorization", &right)],
        b"",
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    let refresh = json(&answer.body)["refresh_token"]
        .as_str()
        .expect("a refresh token")
        .to_owned();
    let answer = registry.token_service_request(
        "POST",
        "/token",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        format!("grant_type=refresh_token&refresh_token={refresh}&service=tfdisco-test-registry&scope=repository%3Ax%3Apull").as_bytes(),
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
}

#[cfg(target_os = "linux")]
#[test]
fn oci_registry_child_is_gone_after_drop() {
    let registry = OciRegistry::start(OciAuth::basic(USER, PASSWORD));
    let pid = registry.pid();
    let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
    assert!(proc_dir.exists(), "the child runs");
    let dir = registry.dir().to_owned();
    assert!(
        registry.log().contains("listening on 127.0.0.1:"),
        "{}",
        registry.log()
    );
    drop(registry);
    assert!(
        !proc_dir.exists(),
        "process {pid} is still there after drop"
    );
    assert!(!dir.exists(), "the storage is removed");
}

#[test]
fn oci_layout_constants() {
    assert_eq!(
        sha256_digest(EMPTY_CONFIG),
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
    assert_eq!(version_tag("2.1.0-beta1+linux.5"), "2.1.0-beta1_linux.5");
    let manifest = json(&layout::zip_manifest(MODULE_ARTIFACT_TYPE, "sha256:00", 7));
    assert_eq!(manifest["layers"][0]["size"], 7);
    assert_eq!(manifest["artifactType"], MODULE_ARTIFACT_TYPE);
}
