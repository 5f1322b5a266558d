"""The stubs match the native module, and typed code using the API checks
under ``mypy --strict``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = '''
import asyncio
import pathlib
from typing import Any, Dict, List, Optional, Tuple, Union
import tfdisco

def blocking() -> str:
    client = tfdisco.Client(ca_files=["ca.pem"], credentials={"example.com": "t"},
                            resolve={"example.com:443": "127.0.0.1"}, timeout=5.0)
    services: tfdisco.Services = client.discover(tfdisco.Hostname("example.com"))
    url: str = services.service_url("modules.v1")
    oauth: tfdisco.OAuthClient = client.oauth_client("example.com", "login.v1")
    ports: int = oauth.max_port - oauth.min_port
    source: Optional[str] = client.credentials_source("example.com")
    for id, value in services.items():
        print(id, value, ports, source)
    try:
        tfdisco.normalize("x")
    except tfdisco.InvalidHostname as e:
        print(e.kind, e.url, e.status)
    return url + client.service_url("example.com", "providers.v1")

def registry(client: tfdisco.Client) -> List[str]:
    source = tfdisco.ProviderSource("hashicorp/aws", dialect="opentofu")
    versions: tfdisco.ProviderVersions = client.provider_versions(source)
    first: tfdisco.ProviderVersion = versions.versions[0]
    platforms: List[tfdisco.Platform] = first.platforms
    package: tfdisco.ProviderPackage = client.provider_package(
        "hashicorp/aws", first.version, platforms[0]
    )
    package = client.provider_package(source, "5.0.0", "linux_amd64")
    keys: List[tfdisco.SigningKey] = package.signing_keys
    armor: Optional[str] = keys[0].source_url if keys else None
    module = tfdisco.ModuleSource("hashicorp/consul/aws")
    modules: tfdisco.ModuleVersions = client.module_versions(module)
    location: tfdisco.ModuleLocation = client.module_download("hashicorp/consul/aws", "0.1.0")
    direct: Optional[bool] = location.use_registry_credentials
    host: tfdisco.Hostname = source.host
    print(armor, direct, host.port, module.subdir, source.type, source.for_display())
    try:
        client.module_download(module, "1.0")
    except (tfdisco.InvalidArgument, tfdisco.InvalidSource, tfdisco.NotFound) as e:
        print(e.kind)
    return modules.versions + [package.download_url, package.shasum, versions.url]

def locking(client: tfdisco.Client) -> List[str]:
    report: tfdisco.LockReport = client.lock(
        "infra", ["linux_amd64", tfdisco.Platform("darwin_arm64")], jobs=2
    )
    path: pathlib.Path = report.path
    changed: bool = report.changed
    platforms: List[tfdisco.Platform] = report.platforms
    for provider in report.providers:
        locked: tfdisco.LockedProvider = provider
        key_id: Optional[str] = locked.key_id
        added: List[str] = locked.hashes_added
        print(locked.source.for_display(), locked.version, locked.constraints, locked.trust,
              key_id, added)
    followed: tfdisco.DialectChoice = report.dialect
    chosen: tfdisco.DialectChoice = client.dialect_choice
    words: List[str] = [client.dialect, followed.name, followed.chosen_by, followed.why, chosen.to_json()]
    print(words, followed == chosen)
    detected = tfdisco.Client(dialect=None, env={"PATH": "/usr/bin"})
    print(detected.dialect_choice.why, tfdisco.AsyncClient().dialect_choice.name)
    try:
        tfdisco.lock(pathlib.Path("infra"), providers=["hashicorp/aws"], dialect="terraform",
                     ca_files=["ca.pem"], credentials=None, registry_retries=0)
    except tfdisco.LockError as e:
        code: int = e.exit_code
        failures: List[Union[tfdisco.LockFailure, tfdisco.ModuleFailure]] = e.failures
        for failure in failures:
            if isinstance(failure, tfdisco.ModuleFailure):
                print(failure.key, failure.kind, failure.exit_code, failure.message)
                continue
            version: Optional[str] = failure.version
            platform: Optional[tfdisco.Platform] = failure.platform
            print(code, e.kind, failure.kind, failure.exit_code, failure.message, version,
                  platform, failure.source)
    try:
        h1, zh = tfdisco.hash_package(pathlib.Path("terraform-provider-x_1.0.0_linux_amd64.zip"))
    except tfdisco.InvalidPackage as e:
        problem: str = e.problem
        return [problem]
    return [str(path), h1, zh, str(changed), str(len(platforms))]

def installing(client: tfdisco.Client) -> List[str]:
    events: List[Dict[str, Any]] = []
    report: tfdisco.InstallReport = client.install(
        "infra", ["hashicorp/aws"], upgrade=False, plugin_cache=pathlib.Path("cache"), jobs=2,
        on_event=events.append,
    )
    waited: List[float] = [e["waited_seconds"] for e in events if e["event"] == "waiting_for_cache"]
    platform: tfdisco.Platform = report.platform
    warnings: List[str] = report.warnings
    for provider in report.providers:
        installed: tfdisco.InstalledProvider = provider
        key_id: Optional[str] = installed.key_id
        size: int = installed.bytes
        print(installed.source, installed.version, installed.installed, installed.from_, size,
              installed.hashes_added, installed.trust, key_id)
    try:
        tfdisco.install("infra", lockfile="readonly", dialect="terraform", credentials=None,
                        on_event=lambda event: print(event["event"], waited))
    except tfdisco.LockError as e:
        print(e.kind, e.exit_code)
    return [str(report.path), str(report.changed), str(platform), report.to_json(),
            report.dialect.chosen_by] + warnings

def getting(client: tfdisco.Client) -> List[str]:
    report: tfdisco.GetReport = client.get(pathlib.Path("infra"), upgrade=True, jobs=2)
    manifest: pathlib.Path = report.manifest
    for module in report.modules:
        installed: tfdisco.InstalledModule = module
        version: Optional[str] = installed.version
        print(installed.key, installed.source, version, installed.dir, installed.installed,
              installed == module)
    modules: List[tfdisco.InstalledModule] = client.install("infra").modules
    try:
        tfdisco.get("infra", dialect="terraform", credentials=None)
    except tfdisco.LockError as e:
        for failure in e.failures:
            if isinstance(failure, tfdisco.ModuleFailure):
                print(failure.key, failure.kind, failure.exit_code, failure.message)
    return [str(manifest), str(report.changed), report.to_json(), str(len(modules))]

def credentials() -> List[str]:
    try:
        where: str = tfdisco.store_credentials("app.terraform.io", "a-token", dialect="terraform")
        gone: str = tfdisco.forget_credentials(tfdisco.Hostname("app.terraform.io"), env={"HOME": "/home/me"})
    except tfdisco.CredentialsUnwritable as e:
        kind: str = e.kind
        return [kind]
    return [where, gone]

def oci(client: tfdisco.Client) -> List[str]:
    resolved: tfdisco.ResolvedModule = client.module_resolve("oci://ghcr.io/acme/vpc?tag=1.2.0")
    tag: Optional[str] = resolved.tag
    layer: tfdisco.OciDescriptor = resolved.package
    module: tfdisco.DownloadedModule = client.module_download(
        resolved.pinned, into=pathlib.Path("modules/vpc")
    )
    folder: pathlib.Path = module.module_dir
    count: int = module.files + module.bytes + layer.size + resolved.size
    again: tfdisco.ResolvedModule = module.resolved
    report: tfdisco.LockReport = client.lock(
        "infra", oci_mirror="ghcr.io/acme/{namespace}/{type}"
    )
    cached: tfdisco.LockReport = client.lock(
        "infra", ["linux_amd64"], enable_plugin_cache=True, plugin_cache=pathlib.Path("cache")
    )
    print(cached.changed, tfdisco.lock("infra", enable_plugin_cache=True).changed)
    print(tag, folder, count, again.digest, layer.digest, module.into, report.changed)
    return [resolved.to_json(), module.to_json(), module.pinned, module.digest]

def publishing(client: tfdisco.Client) -> List[str]:
    report: tfdisco.OciMirrorReport = client.mirror_to_oci(
        pathlib.Path("infra"), "ghcr.io/acme/{namespace}/{type}", ["linux_amd64"], jobs=2,
        lock_file=False,
    )
    platforms: List[tfdisco.Platform] = report.platforms
    for provider in report.providers:
        mirrored: tfdisco.OciMirroredProvider = provider
        release: tfdisco.PushedRelease = mirrored.release
        packages: List[Tuple[tfdisco.Platform, str]] = release.packages
        count: int = release.blobs_sent + release.blobs_mounted
        key_id: Optional[str] = mirrored.key_id
        print(mirrored.source, mirrored.version, mirrored.locked, mirrored.trust, key_id,
              release.repository, release.tag, release.index, packages, count, platforms)
    pushed: tfdisco.PushedRelease = client.push_provider(
        "ghcr.io/acme/providers/aws", "5.31.0",
        [pathlib.Path("terraform-provider-aws_5.31.0_linux_amd64.zip"),
         "terraform-provider-aws_5.31.0_darwin_arm64.zip"],
        mount_from="ghcr.io/acme/staging/aws",
    )
    same: bool = pushed == pushed
    return [report.to_json(), report.template, pushed.to_json(), str(same)]

async def coroutine() -> tfdisco.Services:
    client = tfdisco.AsyncClient(timeout=5.0, credentials=None)
    url: str = await client.service_url("example.com", "modules.v1")
    versions: tfdisco.ProviderVersions = await client.provider_versions("hashicorp/aws")
    package: tfdisco.ProviderPackage = await client.provider_package(
        versions.source, "1.0.0", tfdisco.Platform("linux_amd64")
    )
    modules: tfdisco.ModuleVersions = await client.module_versions("hashicorp/consul/aws")
    location: tfdisco.ModuleLocation = await client.module_download(modules.source, "0.1.0")
    report: tfdisco.LockReport = await client.lock("infra", providers=[versions.source])
    installed: tfdisco.InstallReport = await client.install("infra", lockfile="readonly", on_event=print)
    got: tfdisco.GetReport = await client.get("infra", upgrade=False, jobs=1)
    print(got.changed, [m.key for m in got.modules])
    resolved: tfdisco.ResolvedModule = await client.module_resolve("oci://ghcr.io/acme/vpc")
    module: tfdisco.DownloadedModule = await client.module_download(resolved.pinned, into="vpc")
    mirrored: tfdisco.LockReport = await client.lock("infra", oci_mirror="ghcr.io/m/{type}")
    filled: tfdisco.LockReport = await client.lock("infra", enable_plugin_cache=True, plugin_cache="cache")
    copied: tfdisco.OciMirrorReport = await client.mirror_to_oci("infra", "ghcr.io/m/{type}", jobs=2)
    released: tfdisco.PushedRelease = await client.push_provider(
        "ghcr.io/m/aws", "1.0.0", ["terraform-provider-aws_1.0.0_linux_amd64.zip"],
        mount_from=copied.providers[0].release.repository,
    )
    print(released.index)
    print(url, package.filename, location.location, report.changed, installed.changed,
          module.files, mirrored.changed, filled.changed)
    return await client.discover("example.com")
'''


def mypy(cache: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MYPY_CACHE_DIR": str(cache)},
        cwd=str(cache.parent),  # stubtest keeps its cache in the working directory
    )


def test_stubs_match_the_native_module(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    result = mypy(tmp_path, "mypy.stubtest", "tfdisco")
    assert result.returncode == 0, result.stdout + result.stderr


def test_typed_use_passes_mypy_strict(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    example = tmp_path / "example.py"
    example.write_text(EXAMPLE, encoding="utf-8")
    result = mypy(tmp_path / "cache", "mypy", "--strict", str(example))
    assert result.returncode == 0, result.stdout + result.stderr


def test_everything_public_has_a_docstring() -> None:
    import inspect

    import tfdisco

    assert tfdisco.__doc__ and tfdisco._tfdisco.__doc__
    missing = []
    for name in tfdisco.__all__:
        obj = getattr(tfdisco, name)
        if name == "__version__":
            continue
        if not (getattr(obj, "__doc__", None) or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if not attr.startswith("_") and not (getattr(value, "__doc__", None) or "").strip():
                    missing.append(f"{name}.{attr}")
    assert missing == []
