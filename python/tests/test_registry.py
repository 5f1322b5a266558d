"""The registry calls (``provider_versions``, ``provider_package``,
``module_versions``, ``module_download``) of both clients, and the source,
platform and answer classes, against real loopback HTTPS servers: the
sample registry ``tfdisco-dev serve`` serves (testkit/src/sample.rs)
and the tests' recording server.

Module registry hostnames must contain a dot, so the servers are addressed
as ``127.0.0.1:PORT`` (both certificates name 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
import pickle
from pathlib import Path

import pytest

import tfdisco
from conftest import Recorder, Reply, Served, registry_services

TOKEN = "s3cret-registry-token-5678"
WELL_KNOWN = "/.well-known/terraform.json"

# The sample registry of `tfdisco-dev serve` (testkit/src/sample.rs).
PROVIDER = "hashicorp/random"
PROVIDER_VERSIONS = ["3.5.1", "3.6.0"]
PLATFORMS = ["linux_amd64", "darwin_arm64", "windows_amd64"]
SHASUM = "5f9c7aa76b7c34d722fc9123208e26b22d60440cb47150dd04733b9b94f4541a"
MODULE = "hashicorp/consul/aws"
MODULE_VERSIONS = ["0.11.0", "0.12.0", "0.12.1"]
LOCATION = "git::https://github.com/hashicorp/terraform-aws-consul?ref=v{version}"


def ip_host(server) -> str:
    """The server as a registry host with a dot in it."""
    return f"127.0.0.1:{server.port}"


def client_for(server, **options) -> tfdisco.Client:
    options.setdefault("credentials", None)
    return tfdisco.Client(ca_files=[str(server.ca)], **options)


def registry_lines(server: Served) -> list:
    """The logged requests but the discovery."""
    return [line for line in server.requests() if WELL_KNOWN not in line]


# --- Sources and platforms, no network ---------------------------------------


def test_provider_source() -> None:
    aws = tfdisco.ProviderSource("HashiCorp/AWS")
    assert aws.host == tfdisco.Hostname("registry.opentofu.org")
    assert (aws.namespace, aws.type, aws.dialect) == ("hashicorp", "aws", "opentofu")
    assert str(aws) == "registry.opentofu.org/hashicorp/aws"
    assert aws.for_display() == "hashicorp/aws"
    assert repr(aws) == "ProviderSource('registry.opentofu.org/hashicorp/aws', dialect='opentofu')"
    assert aws.has_known_namespace and not aws.is_legacy and not aws.is_builtin
    aws.validate()

    terraform = tfdisco.ProviderSource("hashicorp/aws", dialect="terraform")
    assert str(terraform) == "registry.terraform.io/hashicorp/aws"
    assert terraform.for_display() == "hashicorp/aws" and terraform.dialect == "terraform"
    assert terraform != aws  # another registry

    # Equal whatever dialect parsed them; hashable, ordered, picklable.
    full = tfdisco.ProviderSource("registry.opentofu.org/hashicorp/aws", dialect="terraform")
    assert full == aws and hash(full) == hash(aws) and len({full, aws}) == 1
    assert full.for_display() == "registry.opentofu.org/hashicorp/aws"
    widgets = tfdisco.ProviderSource("Registry.Example.COM:8443/acme/widgets")
    assert str(widgets) == "registry.example.com:8443/acme/widgets"
    assert widgets.host.port == 8443
    assert sorted([aws, widgets]) == [widgets, aws]
    for source in (aws, widgets, terraform):
        back = pickle.loads(pickle.dumps(source))
        assert back == source and back.dialect == source.dialect

    builtin = tfdisco.ProviderSource("terraform.io/builtin/terraform")
    assert builtin.is_builtin

    # A bare type parses (as Go's ParseProviderSource), but a registry
    # request cannot use it.
    bare = tfdisco.ProviderSource("aws")
    assert bare.namespace == "?" and not bare.has_known_namespace
    with pytest.raises(tfdisco.InvalidSource) as caught:
        bare.validate()
    assert caught.value.kind == "invalid_source" and isinstance(caught.value, ValueError)
    assert pickle.loads(pickle.dumps(bare)) == bare
    legacy = tfdisco.ProviderSource("-/aws")
    assert legacy.is_legacy
    with pytest.raises(tfdisco.InvalidSource):
        legacy.validate()


def test_provider_source_errors() -> None:
    for bad in ("a/b/c/d", "hashicorp/a.b", "", "bad host!/acme/x", "hashicorp/terraform-provider-aws"):
        with pytest.raises(tfdisco.InvalidSource) as caught:
            tfdisco.ProviderSource(bad)
        assert caught.value.kind == "invalid_source"
        assert str(caught.value).startswith(f"invalid source address {json.dumps(bad)}: ")
    with pytest.raises(ValueError):
        tfdisco.ProviderSource("hashicorp/aws", dialect="vault")
    with pytest.raises(TypeError):
        tfdisco.ProviderSource(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tfdisco.ProviderSource("hashicorp/aws", "terraform")  # type: ignore[misc]


def test_module_source() -> None:
    consul = tfdisco.ModuleSource("hashicorp/consul/aws")
    assert consul.host == tfdisco.Hostname("registry.opentofu.org")
    assert (consul.namespace, consul.name, consul.target_system, consul.subdir) == (
        "hashicorp",
        "consul",
        "aws",
        "",
    )
    assert consul.package_path == "hashicorp/consul/aws"
    assert str(consul) == "registry.opentofu.org/hashicorp/consul/aws"
    assert consul.for_display() == "hashicorp/consul/aws"
    assert repr(consul) == (
        "ModuleSource('registry.opentofu.org/hashicorp/consul/aws', dialect='opentofu')"
    )
    terraform = tfdisco.ModuleSource("hashicorp/consul/aws", dialect="terraform")
    assert str(terraform) == "registry.terraform.io/hashicorp/consul/aws"

    vpc = tfdisco.ModuleSource("App.Terraform.io/Acme/vpc/aws//modules/./subnet/")
    assert vpc.host == tfdisco.Hostname("app.terraform.io")
    assert (vpc.namespace, vpc.name, vpc.subdir) == ("Acme", "vpc", "modules/subnet")
    assert str(vpc) == vpc.for_display() == "app.terraform.io/Acme/vpc/aws//modules/subnet"
    # Equal whatever dialect parsed them; the case of the namespace counts.
    again = tfdisco.ModuleSource("app.terraform.io/Acme/vpc/aws//modules/subnet", dialect="terraform")
    assert again == vpc and hash(again) == hash(vpc)
    assert tfdisco.ModuleSource("app.terraform.io/acme/vpc/aws//modules/subnet") != vpc
    assert sorted([consul, vpc]) == [vpc, consul]
    for source in (consul, vpc, terraform):
        back = pickle.loads(pickle.dumps(source))
        assert back == source and back.dialect == source.dialect


def test_module_source_errors() -> None:
    for bad in (
        "github.com/a/b/c",  # version control, not a registry
        "localhost:8443/a/b/c",  # a registry hostname needs a dot
        "a/b",
        "a/b/AWS",
        "a/b/c?ref=1",
        "a/b/c//../x",
    ):
        with pytest.raises(tfdisco.InvalidSource) as caught:
            tfdisco.ModuleSource(bad)
        assert caught.value.kind == "invalid_source" and isinstance(caught.value, ValueError)
        assert json.dumps(bad) in str(caught.value)
    with pytest.raises(TypeError):
        tfdisco.ModuleSource(None)  # type: ignore[arg-type]


def test_platform() -> None:
    linux = tfdisco.Platform("linux_amd64")
    assert (linux.os, linux.arch) == ("linux", "amd64")
    assert str(linux) == "linux_amd64" and repr(linux) == "Platform('linux_amd64')"
    assert linux == tfdisco.Platform("linux_amd64") != tfdisco.Platform("linux_arm64")
    assert len({linux, tfdisco.Platform("linux_amd64")}) == 1
    assert pickle.loads(pickle.dumps(linux)) == linux
    for bad in ("linux", "Linux_amd64", "linux_", "_amd64", "linux_amd64_v2", "linux/amd64"):
        with pytest.raises(tfdisco.InvalidArgument) as caught:
            tfdisco.Platform(bad)
        assert caught.value.kind == "invalid_argument" and isinstance(caught.value, ValueError)
        assert "such as linux_amd64" in str(caught.value)


# --- Providers -----------------------------------------------------------------


def test_provider_versions(registry_served: Served) -> None:
    host = ip_host(registry_served)
    client = client_for(registry_served)
    answer = client.provider_versions(f"{host}/{PROVIDER}")
    assert isinstance(answer, tfdisco.ProviderVersions)
    assert answer.source == tfdisco.ProviderSource(f"{host}/{PROVIDER}")
    assert answer.url == f"https://{host}/v1/providers/{PROVIDER}/versions"
    assert [v.version for v in answer.versions] == PROVIDER_VERSIONS
    for version in answer.versions:
        assert isinstance(version, tfdisco.ProviderVersion)
        assert version.protocols == ["5.0"]
        assert [str(p) for p in version.platforms] == PLATFORMS
        assert version.platforms[0] == tfdisco.Platform("linux_amd64")
    assert answer.warnings == []
    # The object form gives the same answer; the discovery is cached.
    again = client.provider_versions(tfdisco.ProviderSource(f"{host}/HashiCorp/Random"))
    assert again == answer
    assert again.versions is not again.versions  # a new list each time
    assert "ProviderVersions(source=ProviderSource(" in repr(answer)
    assert "ProviderVersion(version='3.5.1', protocols=['5.0'], platforms=[Platform(" in repr(answer)
    assert registry_served.requests() == [f"GET {WELL_KNOWN}"] + [
        f"GET /v1/providers/{PROVIDER}/versions"
    ] * 2


def test_provider_package(registry_served: Served) -> None:
    host = ip_host(registry_served)
    client = client_for(registry_served)
    package = client.provider_package(f"{host}/{PROVIDER}", "3.6.0", "linux_amd64")
    assert isinstance(package, tfdisco.ProviderPackage)
    assert package.source == tfdisco.ProviderSource(f"{host}/{PROVIDER}")
    assert package.version == "3.6.0"
    assert package.platform == tfdisco.Platform("linux_amd64")
    filename = "terraform-provider-random_3.6.0_linux_amd64.zip"
    assert package.filename == filename
    # Relative URLs in the answer, resolved against it.
    base = f"https://{host}/downloads/random/3.6.0"
    assert package.download_url == f"{base}/{filename}"
    assert package.shasums_url == f"{base}/SHA256SUMS"
    assert package.shasums_signature_url == f"{base}/SHA256SUMS.sig"
    assert package.shasum == SHASUM
    assert package.protocols == ["5.0"]
    (key,) = package.signing_keys
    assert isinstance(key, tfdisco.SigningKey)
    assert key.key_id == "34365D9472D7468F"
    assert key.ascii_armor.startswith("-----BEGIN PGP PUBLIC KEY BLOCK-----\n")
    assert key.trust_signature == ""
    assert key.source == "HashiCorp"
    assert key.source_url == "https://www.hashicorp.com/security.html"
    assert "BEGIN PGP" not in repr(key) and "key_id='34365D9472D7468F'" in repr(key)
    assert "download_url=" in repr(package)

    # Object forms.
    other = client.provider_package(
        tfdisco.ProviderSource(f"{host}/{PROVIDER}"), "3.5.1", tfdisco.Platform("darwin_arm64")
    )
    assert other.filename == "terraform-provider-random_3.5.1_darwin_arm64.zip"
    assert other != package
    assert registry_lines(registry_served) == [
        f"GET /v1/providers/{PROVIDER}/3.6.0/download/linux/amd64",
        f"GET /v1/providers/{PROVIDER}/3.5.1/download/darwin/arm64",
    ]


# --- Modules -------------------------------------------------------------------


@pytest.mark.parametrize("dialect", ["opentofu", "terraform"])
def test_module_versions_and_download(registry_served: Served, dialect: str) -> None:
    host = ip_host(registry_served)
    client = client_for(registry_served, dialect=dialect)
    answer = client.module_versions(f"{host}/{MODULE}")
    assert isinstance(answer, tfdisco.ModuleVersions)
    assert answer.source == tfdisco.ModuleSource(f"{host}/{MODULE}")
    assert answer.source.dialect == dialect
    assert answer.url == f"https://{host}/v1/modules/{MODULE}/versions"
    assert answer.versions == MODULE_VERSIONS
    assert repr(answer).startswith("ModuleVersions(source=ModuleSource(")

    for version in MODULE_VERSIONS:
        location = client.module_download(f"{host}/{MODULE}", version)
        assert isinstance(location, tfdisco.ModuleLocation)
        assert location.version == version
        assert location.location == LOCATION.format(version=version)
        assert location.use_registry_credentials is None
    # A subdirectory applies inside the package: same request, same location.
    source = tfdisco.ModuleSource(f"{host}/{MODULE}//modules/consul-cluster", dialect=dialect)
    location = client.module_download(source, "0.12.1")
    assert location.source == source and location.source.subdir == "modules/consul-cluster"
    assert location.location == LOCATION.format(version="0.12.1")
    assert client.module_versions(source).versions == MODULE_VERSIONS
    assert registry_lines(registry_served) == [
        f"GET /v1/modules/{MODULE}/versions",
        *(f"GET /v1/modules/{MODULE}/{v}/download" for v in MODULE_VERSIONS),
        f"GET /v1/modules/{MODULE}/0.12.1/download",
        f"GET /v1/modules/{MODULE}/versions",
    ]


@pytest.mark.parametrize(
    ("dialect", "rc", "default_host"),
    [("opentofu", ".tofurc", "registry.opentofu.org"), ("terraform", ".terraformrc", "registry.terraform.io")],
)
def test_str_sources_use_the_dialects_default_registry(
    registry_served: Served, hermetic_env: Path, dialect: str, rc: str, default_host: str
) -> None:
    """A source without a hostname is on the client's dialect's registry: a
    ``host`` block sends that registry's services to the loopback server."""
    base = f"https://{ip_host(registry_served)}"
    (hermetic_env / rc).write_text(
        f'host "{default_host}" {{\n  services = {{\n'
        f'    "modules.v1" = "{base}/v1/modules/"\n'
        f'    "providers.v1" = "{base}/v1/providers/"\n  }}\n}}\n',
        encoding="utf-8",
    )
    client = tfdisco.Client(dialect=dialect, ca_files=[str(registry_served.ca)])
    versions = client.provider_versions(PROVIDER)
    assert versions.source.host == tfdisco.Hostname(default_host)
    assert str(versions.source) == f"{default_host}/{PROVIDER}"
    assert versions.source.for_display() == PROVIDER
    assert versions.url == f"{base}/v1/providers/{PROVIDER}/versions"
    package = client.provider_package(PROVIDER, "3.5.1", "windows_amd64")
    assert package.filename == "terraform-provider-random_3.5.1_windows_amd64.zip"
    modules = client.module_versions(MODULE)
    assert str(modules.source) == f"{default_host}/{MODULE}"
    assert modules.versions == MODULE_VERSIONS
    assert client.module_download(MODULE, "0.11.0").location == LOCATION.format(version="0.11.0")
    # Nothing was discovered: the host block gave the services.
    assert WELL_KNOWN not in " ".join(registry_served.requests())


# --- Errors --------------------------------------------------------------------


def test_bad_arguments_raise_before_any_request(registry_served: Served) -> None:
    host = ip_host(registry_served)
    client = client_for(registry_served)
    cases = [
        (tfdisco.InvalidSource, lambda: client.provider_versions("aws")),
        (tfdisco.InvalidSource, lambda: client.provider_versions(tfdisco.ProviderSource("aws"))),
        (tfdisco.InvalidSource, lambda: client.provider_versions(f"{host}/-/random")),
        (tfdisco.InvalidSource, lambda: client.provider_versions("a/b/c/d")),
        (tfdisco.InvalidSource, lambda: client.provider_package("aws", "1.0.0", "linux_amd64")),
        (tfdisco.InvalidSource, lambda: client.module_versions("github.com/a/b/c")),
        (tfdisco.InvalidSource, lambda: client.module_download(f"localhost:{registry_served.port}/a/b/c", "1.0.0")),
        (tfdisco.InvalidArgument, lambda: client.provider_package(f"{host}/{PROVIDER}", "1.0", "linux_amd64")),
        (tfdisco.InvalidArgument, lambda: client.provider_package(f"{host}/{PROVIDER}", "3.6.0", "linux")),
        (tfdisco.InvalidArgument, lambda: client.module_download(f"{host}/{MODULE}", "1.0")),
        (tfdisco.InvalidArgument, lambda: client.module_download(f"{host}/{MODULE}", "v1.0.0")),
    ]
    for cls, call in cases:
        with pytest.raises(cls) as caught:
            call()
        assert type(caught.value) is cls and isinstance(caught.value, ValueError)
        assert caught.value.url is None and caught.value.status is None
    with pytest.raises(tfdisco.InvalidSource) as caught_source:
        client.provider_versions("aws")
    assert str(caught_source.value) == (
        'invalid source address "aws": Unknown provider namespace: '
        'Expected FQN in the format "hostname/namespace/name"'
    )
    with pytest.raises(tfdisco.InvalidArgument) as caught_version:
        client.module_download(f"{host}/{MODULE}", "1.0")
    assert str(caught_version.value).startswith('invalid version "1.0": expected MAJOR.MINOR.PATCH')
    with pytest.raises(tfdisco.InvalidArgument) as caught_platform:
        client.provider_package(f"{host}/{PROVIDER}", "3.6.0", "linux")
    assert str(caught_platform.value).startswith('invalid platform "linux": ')
    for call in (
        lambda: client.provider_versions(42),  # type: ignore[arg-type]
        lambda: client.module_versions(tfdisco.ProviderSource("hashicorp/aws")),  # type: ignore[arg-type]
        lambda: client.provider_package(f"{host}/{PROVIDER}", "3.6.0", ("linux", "amd64")),  # type: ignore[arg-type]
        lambda: client.module_download(f"{host}/{MODULE}", 1),  # type: ignore[arg-type]
    ):
        with pytest.raises(TypeError):
            call()
    assert registry_served.requests() == []


def registry_recorder(recorder: Recorder) -> str:
    """Points the recorder's document at its own registry paths; every
    registry path not routed answers 404."""
    recorder.routes[WELL_KNOWN] = Reply(body=json.dumps(registry_services()))
    return ip_host(recorder)


def test_not_found(recorder: Recorder) -> None:
    host = registry_recorder(recorder)
    client = client_for(recorder)
    with pytest.raises(tfdisco.NotFound) as caught:
        client.provider_versions(f"{host}/hashicorp/nothing")
    error = caught.value
    assert error.kind == "not_found" and isinstance(error, LookupError)
    assert error.url == f"https://{host}/v1/providers/hashicorp/nothing/versions"
    assert str(error) == (
        f"provider registry {host} does not have a provider named {host}/hashicorp/nothing"
        f" (GET {error.url})"
    )
    with pytest.raises(tfdisco.NotFound) as caught_package:
        client.provider_package(f"{host}/{PROVIDER}", "9.9.9", "linux_amd64")
    assert caught_package.value.url == (
        f"https://{host}/v1/providers/{PROVIDER}/9.9.9/download/linux/amd64"
    )
    with pytest.raises(tfdisco.NotFound) as caught_module:
        client.module_versions(f"{host}/hashicorp/nothing/aws")
    assert str(caught_module.value).startswith(f"module {host}/hashicorp/nothing/aws not found")
    with pytest.raises(tfdisco.NotFound):
        client.module_download(f"{host}/{MODULE}", "9.9.9")
    # A discovery failure stays a discovery failure.
    recorder.routes[WELL_KNOWN] = Reply(body=json.dumps({"login.v1": {"client": "x"}}))
    client.forget_all()
    with pytest.raises(tfdisco.ServiceNotProvided):
        client.module_versions(f"{host}/{MODULE}")


def test_invalid_responses_and_direct_packages(recorder: Recorder) -> None:
    host = registry_recorder(recorder)
    download = f"/v1/modules/{MODULE}/1.0.0/download"
    # No X-Terraform-Get.
    recorder.routes[download] = Reply(204, "")
    with pytest.raises(tfdisco.InvalidResponse) as caught:
        client_for(recorder).module_download(f"{host}/{MODULE}", "1.0.0")
    assert caught.value.kind == "invalid_response"
    assert caught.value.url == f"https://{host}{download}"
    # OpenTofu reads a 200's JSON body: a direct package, relative location.
    recorder.routes[download] = Reply(
        body=json.dumps({"location": "/packages/consul-1.0.0.zip", "use_registry_credentials": True})
    )
    location = client_for(recorder).module_download(f"{host}/{MODULE}", "1.0.0")
    assert location.location == f"https://{host}/packages/consul-1.0.0.zip"
    assert location.use_registry_credentials is True
    assert "use_registry_credentials=True" in repr(location)
    # A package for another platform than the one asked for.
    recorder.routes[f"/v1/providers/{PROVIDER}/1.0.0/download/linux/amd64"] = Reply(
        body=json.dumps(
            {
                "protocols": ["5.0"],
                "os": "darwin",
                "arch": "arm64",
                "filename": "p.zip",
                "download_url": "p.zip",
                "shasums_url": "s",
                "shasums_signature_url": "s.sig",
                "shasum": SHASUM,
            }
        )
    )
    with pytest.raises(tfdisco.InvalidResponse) as caught_platform:
        client_for(recorder).provider_package(f"{host}/{PROVIDER}", "1.0.0", "linux_amd64")
    assert "darwin_arm64" in str(caught_platform.value)


# --- Credentials -----------------------------------------------------------------


def test_the_source_hosts_token_goes_with_registry_requests(recorder: Recorder) -> None:
    host = registry_recorder(recorder)
    recorder.routes[f"/v1/modules/{MODULE}/versions"] = Reply(
        body=json.dumps({"modules": [{"versions": [{"version": "1.0.0"}]}]})
    )
    client = client_for(recorder, credentials={host: TOKEN})
    assert client.module_versions(f"{host}/{MODULE}").versions == ["1.0.0"]
    with pytest.raises(tfdisco.NotFound) as caught:
        client.provider_versions(f"{host}/hashicorp/nothing")
    assert TOKEN not in str(caught.value) and TOKEN not in repr(caught.value)
    seen = recorder.requests()
    assert [path for path, _ in seen] == [
        WELL_KNOWN,
        f"/v1/modules/{MODULE}/versions",
        "/v1/providers/hashicorp/nothing/versions",
    ]
    assert all(headers.get("authorization") == f"Bearer {TOKEN}" for _, headers in seen)
    # Registry requests carry the CLI's headers (API-2).
    for _, headers in seen[1:]:
        assert headers["user-agent"].startswith("OpenTofu/")
        assert headers.get("x-terraform-version")
    # No token for another host.
    other = client_for(recorder, credentials={"registry.example.com": TOKEN})
    other.module_versions(f"{host}/{MODULE}")
    assert [h.get("authorization") for _, h in recorder.requests()[3:]] == [None, None]


def test_tf_token_variable_for_an_ip_host(registry_served: Served) -> None:
    host = ip_host(registry_served)
    client = tfdisco.Client(
        ca_files=[str(registry_served.ca)],
        env={"HOME": "/nonexistent", f"TF_TOKEN_127_0_0_1:{registry_served.port}": TOKEN},
    )
    assert client.credentials_source(host) == (
        f"environment variable TF_TOKEN_127_0_0_1:{registry_served.port}"
    )
    client.provider_versions(f"{host}/{PROVIDER}")
    client.module_download(f"{host}/{MODULE}", "0.12.0")
    assert registry_served.requests() == [
        f"GET {WELL_KNOWN} (with credentials)",
        f"GET /v1/providers/{PROVIDER}/versions (with credentials)",
        f"GET /v1/modules/{MODULE}/0.12.0/download (with credentials)",
    ]


# --- asyncio -----------------------------------------------------------------------


def test_async_registry_calls(registry_served: Served) -> None:
    host = ip_host(registry_served)
    client = tfdisco.AsyncClient(ca_files=[str(registry_served.ca)], credentials=None)

    async def main():
        return await asyncio.gather(
            client.provider_versions(f"{host}/{PROVIDER}"),
            client.provider_versions(tfdisco.ProviderSource(f"{host}/{PROVIDER}")),
            client.provider_package(f"{host}/{PROVIDER}", "3.6.0", "windows_amd64"),
            client.provider_package(
                tfdisco.ProviderSource(f"{host}/{PROVIDER}"), "3.5.1", tfdisco.Platform("linux_amd64")
            ),
            client.module_versions(f"{host}/{MODULE}"),
            client.module_versions(tfdisco.ModuleSource(f"{host}/{MODULE}")),
            client.module_download(f"{host}/{MODULE}", "0.12.0"),
            client.module_download(tfdisco.ModuleSource(f"{host}/{MODULE}"), "0.11.0"),
        )

    pv1, pv2, pkg1, pkg2, mv1, mv2, loc1, loc2 = asyncio.run(main())
    assert pv1 == pv2 and [v.version for v in pv1.versions] == PROVIDER_VERSIONS
    assert pkg1.filename == "terraform-provider-random_3.6.0_windows_amd64.zip"
    assert pkg2.platform == tfdisco.Platform("linux_amd64") and pkg2.version == "3.5.1"
    assert mv1 == mv2 and mv1.versions == MODULE_VERSIONS
    assert loc1.location == LOCATION.format(version="0.12.0")
    assert loc2.location == LOCATION.format(version="0.11.0")
    lines = registry_served.requests()
    assert lines.count(f"GET {WELL_KNOWN}") == 1  # eight calls, one discovery
    assert len(lines) == 9


def test_async_registry_errors(registry_served: Served, recorder: Recorder) -> None:
    host = ip_host(registry_served)
    recorder_host = registry_recorder(recorder)
    client = tfdisco.AsyncClient(
        ca_files=[str(registry_served.ca), str(recorder.ca)], credentials=None
    )

    async def main():
        outcomes = await asyncio.gather(
            client.provider_versions("aws"),
            client.module_versions("github.com/a/b/c"),
            client.provider_package(f"{host}/{PROVIDER}", "1.0", "linux_amd64"),
            client.provider_package(f"{host}/{PROVIDER}", "3.6.0", "linux"),
            client.module_download(f"{host}/{MODULE}", "1.0"),
            client.provider_versions(f"{recorder_host}/hashicorp/nothing"),
            client.module_download(f"{recorder_host}/{MODULE}", "1.0.0"),
            client.module_versions(42),  # type: ignore[arg-type]
            return_exceptions=True,
        )
        return [type(o) for o in outcomes]

    assert asyncio.run(main()) == [
        tfdisco.InvalidSource,
        tfdisco.InvalidSource,
        tfdisco.InvalidArgument,
        tfdisco.InvalidArgument,
        tfdisco.InvalidArgument,
        tfdisco.NotFound,
        tfdisco.NotFound,
        TypeError,
    ]
    assert registry_served.requests() == []


def test_answer_reprs_show_every_field_in_order(registry_served: Served) -> None:
    """Each answer shows itself as a dataclass does, field by field, in the
    order of its attributes; a signing key's armored key shows as its
    length."""
    host = ip_host(registry_served)
    client = client_for(registry_served)
    source = f"ProviderSource('{host}/{PROVIDER}', dialect='opentofu')"
    base = f"https://{host}/downloads/random/3.6.0"
    package = client.provider_package(f"{host}/{PROVIDER}", "3.6.0", "linux_amd64")
    key = (
        "SigningKey(key_id='34365D9472D7468F', ascii_armor=<80 characters>, trust_signature='', "
        "source='HashiCorp', source_url='https://www.hashicorp.com/security.html')"
    )
    assert repr(package.signing_keys[0]) == key
    assert repr(package) == (
        f"ProviderPackage(source={source}, version='3.6.0', platform=Platform('linux_amd64'), "
        f"filename='terraform-provider-random_3.6.0_linux_amd64.zip', "
        f"download_url='{base}/terraform-provider-random_3.6.0_linux_amd64.zip', "
        f"shasums_url='{base}/SHA256SUMS', shasums_signature_url='{base}/SHA256SUMS.sig', "
        f"shasum='{SHASUM}', protocols=['5.0'], signing_keys=[{key}])"
    )
    versions = client.provider_versions(f"{host}/{PROVIDER}")
    assert repr(versions).startswith(
        f"ProviderVersions(source={source}, "
        f"url='https://{host}/v1/providers/{PROVIDER}/versions', versions=[ProviderVersion("
        "version='3.5.1', protocols=['5.0'], platforms=[Platform('linux_amd64'), "
    )
    assert repr(versions).endswith("], warnings=[])")
    module = f"ModuleSource('{host}/{MODULE}', dialect='opentofu')"
    assert repr(client.module_versions(f"{host}/{MODULE}")) == (
        f"ModuleVersions(source={module}, url='https://{host}/v1/modules/{MODULE}/versions', "
        "versions=['0.11.0', '0.12.0', '0.12.1'])"
    )
    assert repr(client.module_download(f"{host}/{MODULE}", "0.12.1")) == (
        f"ModuleLocation(source={module}, version='0.12.1', "
        f"location='{LOCATION.format(version='0.12.1')}', use_registry_credentials=None)"
    )
