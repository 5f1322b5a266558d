"""OCI registries as OpenTofu uses them: ``lock(oci_mirror=…)``,
``module_resolve`` and ``module_download(source, into=…)`` for ``oci://``
sources, and publishing to them (``mirror_to_oci``, ``push_provider``), on
``Client`` and ``AsyncClient``, against a real registry
(``tfdisco-dev serve --oci-registry MODE``: Debian's ``docker-registry``,
anonymous or with Basic credentials, holding a module package and the
signed registry's providers as an OCI mirror), with the OCI credentials of
the CLI configuration (``oci_credentials`` blocks, ``TF_CLI_CONFIG_FILE``
in the client's ``env``). What they give is what the ``tfdisco`` CLI prints
with ``--json``: the library's one serialization; what they raise is the
library's error kinds, and never a secret.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence

import pytest

import tfdisco
from conftest import REPO, OciServed, Served

GOLDENS = REPO / "testkit" / "fixtures" / "lock-goldens"
LOCK_FILE = ".terraform.lock.hcl"
ALL = ["linux_amd64", "darwin_arm64", "windows_amd64"]
#: The providers' host in the configuration: never asked, the mirror has them.
PROVIDERS_HOST = "registry.example.test"
WRONG = "not-the-oci-secret"


@pytest.fixture(scope="module")
def anonymous(tfdisco_dev_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OciServed]:
    server = OciServed(tfdisco_dev_bin, "anonymous", tmp_path_factory.mktemp("oci-anonymous"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def basic(tfdisco_dev_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OciServed]:
    server = OciServed(tfdisco_dev_bin, "basic", tmp_path_factory.mktemp("oci-basic"))
    yield server
    server.stop()


def env_for(home: Path, config: Optional[Path] = None) -> Dict[str, str]:
    env = {"HOME": str(home)}
    if config is not None:
        env["TF_CLI_CONFIG_FILE"] = str(config)
    return env


def client_for(
    server: OciServed,
    home: Path,
    config: Optional[Path] = None,
    also_trust: Sequence[Path] = (),
    **options: object,
) -> tfdisco.Client:
    """A client of ``server`` (and of the servers whose CA files
    ``also_trust`` gives), its CLI configuration ``config``."""
    options.setdefault("dialect", "opentofu")
    return tfdisco.Client(  # type: ignore[arg-type]
        ca_files=[str(server.ca), *map(str, also_trust)],
        credentials=None,
        env=env_for(home, config),
        **options,
    )


def cli(
    binary: Path,
    server: OciServed,
    home: Path,
    args: List[str],
    config: Optional[Path] = None,
    also_trust: Sequence[Path] = (),
) -> subprocess.CompletedProcess:
    env = {**env_for(home, config), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    trust = [arg for ca in also_trust for arg in ("--ca-file", str(ca))]
    return subprocess.run(
        [str(binary), *args, "--ca-file", str(server.ca), *trust, "--no-credentials"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def prepare(into: Path, host: str = PROVIDERS_HOST) -> Path:
    """The ``fresh`` lock golden's configuration in ``into`` (emptied), its
    providers on ``host``."""
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    for source in (GOLDENS / "fresh" / "input").iterdir():
        text = source.read_text(encoding="utf-8").replace("{HOST}", host)
        (into / source.name).write_text(text, encoding="utf-8")
    return into


def body(text: str) -> str:
    """A lock file without its first line (``terraform init`` or ``tofu
    init``)."""
    return "\n".join(text.splitlines()[1:])


def golden_lock(host: str = PROVIDERS_HOST) -> str:
    return (GOLDENS / "fresh" / "terraform.lock.hcl").read_text(encoding="utf-8").replace("{HOST}", host)


def files(folder: Path) -> Dict[str, str]:
    return {
        str(p.relative_to(folder)): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def no_secret(server: OciServed, *texts: str) -> None:
    for text in texts:
        assert WRONG not in text, text
        assert server.password is None or server.password not in text, text


# --- lock from an OCI mirror -------------------------------------------------------


def test_lock_from_the_oci_mirror_is_the_golden_and_the_clis(
    basic: OciServed, tfdisco_bin: Path, tmp_path: Path, hermetic_env: Path
) -> None:
    config = basic.cli_config(tmp_path / "tofu.rc")
    directory = prepare(tmp_path / "run")
    client = client_for(basic, hermetic_env, config)
    report = client.lock(directory, ALL, oci_mirror=basic.mirror_template)

    written = (directory / LOCK_FILE).read_text(encoding="utf-8")
    assert written.startswith('# This file is maintained automatically by "tofu init".')
    assert body(written) == body(golden_lock())
    assert report.changed is True
    assert report.path == directory / LOCK_FILE
    assert [(str(p.source), p.version) for p in report.providers] == [
        (f"{PROVIDERS_HOST}/ns/alpha", "1.1.0"),
        (f"{PROVIDERS_HOST}/ns/beta", "0.10.0"),
    ]
    assert all(p.key_id is None for p in report.providers)

    # The CLI, in the same place from scratch: the same document.
    prepare(directory)
    args = ["lock", "--dialect", "opentofu", "--chdir", str(directory), "--oci-mirror", basic.mirror_template]
    for platform in ALL:
        args += ["--platform", platform]
    run = cli(tfdisco_bin, basic, hermetic_env, [*args, "--json"], config)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == json.loads(report.to_json())
    assert (directory / LOCK_FILE).read_text(encoding="utf-8") == written
    no_secret(basic, run.stdout, run.stderr, report.to_json())


def test_the_async_client_and_the_function_lock_from_the_oci_mirror(
    anonymous: OciServed, tmp_path: Path, hermetic_env: Path
) -> None:
    directory = prepare(tmp_path / "run")
    client = tfdisco.AsyncClient.from_client(client_for(anonymous, hermetic_env))
    report = asyncio.run(client.lock(directory, ALL, oci_mirror=anonymous.mirror_template, jobs=2))
    assert body((directory / LOCK_FILE).read_text(encoding="utf-8")) == body(golden_lock())
    assert report.changed is True

    # Again, through `tfdisco.lock`: nothing to change.
    again = tfdisco.lock(
        directory,
        ALL,
        oci_mirror=anonymous.mirror_template,
        dialect="opentofu",
        ca_files=[str(anonymous.ca)],
        credentials=None,
        env=env_for(hermetic_env),
    )
    assert again.changed is False


def test_one_mirror_at_most_and_a_template_that_parses(tmp_path: Path, hermetic_env: Path) -> None:
    client = tfdisco.Client(credentials=None, env=env_for(hermetic_env))
    tmp_path = tmp_path / "work"
    tmp_path.mkdir()
    template = "ghcr.io/acme/{namespace}/{type}"
    for mirrors in (
        {"oci_mirror": template, "net_mirror": "https://m.example/"},
        {"oci_mirror": template, "fs_mirror": str(tmp_path)},
    ):
        with pytest.raises(tfdisco.InvalidArgument, match="mutually exclusive") as raised:
            client.lock(tmp_path, **mirrors)  # type: ignore[arg-type]
        assert raised.value.kind == "invalid_argument"
    with pytest.raises(tfdisco.InvalidArgument, match="not a valid URI template"):
        client.lock(tmp_path, oci_mirror="ghcr.io/{+type}")
    with pytest.raises(tfdisco.InvalidArgument, match="mutually exclusive"):
        asyncio.run(tfdisco.AsyncClient.from_client(client).lock(tmp_path, oci_mirror=template, fs_mirror=tmp_path))
    assert list(tmp_path.iterdir()) == [], "nothing was read or written"


def test_wrong_oci_credentials_fail_the_lock_run_with_the_request_kind(
    basic: OciServed, tmp_path: Path, hermetic_env: Path
) -> None:
    config = basic.cli_config(tmp_path / "tofu.rc", password=WRONG)
    directory = prepare(tmp_path / "run")
    client = client_for(basic, hermetic_env, config)
    with pytest.raises(tfdisco.LockError) as raised:
        client.lock(directory, ALL, oci_mirror=basic.mirror_template)
    error = raised.value
    assert error.kind == "failed"
    assert error.exit_code == 1
    assert error.failures and {f.kind for f in error.failures} == {"request"}
    assert "401" in str(error)
    no_secret(basic, str(error), *(f.message for f in error.failures))
    assert not (directory / LOCK_FILE).exists()


# --- oci:// module sources -----------------------------------------------------------


def test_module_resolve_gives_the_digest_and_the_clis_document(
    anonymous: OciServed, tfdisco_bin: Path, hermetic_env: Path
) -> None:
    client = client_for(anonymous, hermetic_env)
    digest = anonymous.module["digest"]
    source = anonymous.source("//sub?tag=1.0.0")
    resolved = client.module_resolve(source)
    assert isinstance(resolved, tfdisco.ResolvedModule)
    assert resolved.source == source
    assert resolved.registry == anonymous.host
    assert resolved.repository == "modules/app"
    assert resolved.tag == "1.0.0"
    assert resolved.digest == digest
    assert resolved.media_type == "application/vnd.oci.image.manifest.v1+json"
    assert resolved.size == anonymous.module["size"]
    assert resolved.subdir == "sub"
    assert resolved.pinned == anonymous.source(f"//sub?digest={digest}")
    assert resolved.package == resolved.package
    assert (resolved.package.media_type, resolved.package.digest, resolved.package.size) == (
        "archive/zip",
        anonymous.module["package_digest"],
        anonymous.module["package_size"],
    )
    assert "ResolvedModule(source=" in repr(resolved) and "OciDescriptor(" in repr(resolved)

    run = cli(tfdisco_bin, anonymous, hermetic_env, ["module", "resolve", source, "--json"])
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == json.loads(resolved.to_json())

    # `latest` by default; by the digest, no tag.
    assert client.module_resolve(anonymous.source()).tag == "latest"
    assert client.module_resolve(anonymous.source()).digest == digest
    pinned = client.module_resolve(resolved.pinned)
    assert (pinned.tag, pinned.digest) == (None, digest)

    async def resolve() -> tfdisco.ResolvedModule:
        return await tfdisco.AsyncClient.from_client(client).module_resolve(source)

    assert asyncio.run(resolve()) == resolved


def test_get_installs_an_oci_module_as_the_cli_does(
    anonymous: OciServed, tfdisco_bin: Path, tmp_path: Path, hermetic_env: Path
) -> None:
    source = anonymous.source("//sub?tag=1.0.0")
    directory = tmp_path / "work"
    directory.mkdir()
    (directory / "main.tf").write_text(f'module "app" {{ source = "{source}" }}\n', encoding="utf-8")
    client = client_for(anonymous, hermetic_env)

    report = client.get(directory)

    manifest = directory / ".terraform" / "modules" / "modules.json"
    assert manifest.read_text(encoding="utf-8") == (
        '{"Modules":[{"Key":"","Source":"","Dir":"."},'
        f'{{"Key":"app","Source":"{source}","Dir":".terraform/modules/app/sub"}}]}}'
    )
    assert [(m.key, m.source, m.version, m.dir, m.installed) for m in report.modules] == [
        ("app", source, None, ".terraform/modules/app/sub", "fetched")
    ]
    assert files(directory / ".terraform" / "modules" / "app") == anonymous.module["files"]
    again = asyncio.run(tfdisco.AsyncClient.from_client(client).get(directory))
    assert [m.installed for m in again.modules] == ["kept"]

    # The CLI, in the same place from scratch: the same bytes.
    shutil.rmtree(directory / ".terraform")
    run = cli(tfdisco_bin, anonymous, hermetic_env, ["get", "--dialect", "opentofu", "--chdir", str(directory), "--json"])
    assert run.returncode == 0, run.stderr
    assert run.stdout == report.to_json() + "\n"

    # A tag the repository does not have: kind "modules", nothing placed.
    (directory / "main.tf").write_text(
        f'module "app" {{ source = "{anonymous.source("//sub?tag=9.9.9")}" }}\n', encoding="utf-8"
    )
    before = manifest.read_bytes()
    with pytest.raises(tfdisco.LockError) as raised:
        client.get(directory)
    assert raised.value.kind == "modules"
    assert [(f.key, f.kind) for f in raised.value.failures] == [("app", "download")]  # type: ignore[union-attr]
    assert manifest.read_bytes() == before
    assert files(directory / ".terraform" / "modules" / "app") == anonymous.module["files"]


def test_module_download_writes_the_files(
    anonymous: OciServed, tfdisco_bin: Path, tmp_path: Path, hermetic_env: Path
) -> None:
    client = client_for(anonymous, hermetic_env)
    into = tmp_path / "work" / ".terraform" / "modules" / "app"
    source = anonymous.source("//sub?tag=1.0.0")
    module = client.module_download(source, into=into)
    assert isinstance(module, tfdisco.DownloadedModule)
    assert files(into) == anonymous.module["files"]
    assert module.into == into
    assert module.module_dir == into / "sub"
    assert module.files == 2
    assert module.bytes == sum(len(t.encode()) for t in anonymous.module["files"].values())  # type: ignore[attr-defined]
    assert module.digest == anonymous.module["digest"]
    assert module.pinned == anonymous.source(f"//sub?digest={anonymous.module['digest']}")
    assert module.resolved == client.module_resolve(source)
    document = json.loads(module.to_json())
    assert document["into"] == str(into) and document["files"] == 2

    # The CLI into the same place: the same document.
    shutil.rmtree(into)
    run = cli(tfdisco_bin, anonymous, hermetic_env, ["module", "download", source, "--into", str(into), "--json"])
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == document

    # Asynchronously, by the pinned digest, into an empty folder.
    empty = tmp_path / "empty"
    empty.mkdir()

    async def download() -> tfdisco.DownloadedModule:
        return await tfdisco.AsyncClient.from_client(client).module_download(module.pinned, into=str(empty))

    again = asyncio.run(download())
    assert again.module_dir == empty / "sub"
    assert files(empty) == anonymous.module["files"]

    # Not empty now: refused, and left as it is.
    with pytest.raises(tfdisco.LocalFileError, match="not empty") as raised:
        client.module_download(module.pinned, into=empty)
    assert raised.value.kind == "local_file"
    assert files(empty) == anonymous.module["files"]


def test_unknown_and_refused_sources_raise_their_kinds(
    anonymous: OciServed, tmp_path: Path, hermetic_env: Path
) -> None:
    client = client_for(anonymous, hermetic_env)
    tmp_path = tmp_path / "work"
    tmp_path.mkdir()
    into = tmp_path / "into"

    with pytest.raises(tfdisco.NotFound) as not_found:
        client.module_download(anonymous.source("?tag=9.9.9"), into=into)
    assert not_found.value.kind == "not_found"
    assert str(not_found.value).startswith(f"resolving tag: {anonymous.host}/modules/app:9.9.9: not found")

    with pytest.raises(tfdisco.InvalidResponse, match="selected object is not an OCI image manifest") as refused:
        client.module_resolve(anonymous.not_a_module)
    assert refused.value.kind == "invalid_response"
    with pytest.raises(tfdisco.InvalidResponse):
        client.module_download(anonymous.not_a_module, into=into)
    assert list(tmp_path.iterdir()) == [], "nothing left behind"

    async def resolve(source: str) -> tfdisco.ResolvedModule:
        return await tfdisco.AsyncClient.from_client(client).module_resolve(source)

    with pytest.raises(tfdisco.NotFound):
        asyncio.run(resolve(anonymous.source("?tag=9.9.9")))

    # Sources and arguments refused before anything is asked: InvalidArgument,
    # as the CLI's usage errors.
    for call, words in [
        (lambda: client.module_resolve("oci://h.example/app?tag="), "tag argument must not be empty"),
        (lambda: client.module_resolve("hashicorp/consul/aws"), "invalid OCI module source"),
        (
            lambda: client_for(anonymous, hermetic_env, dialect="terraform").module_resolve(anonymous.source()),
            "OpenTofu's only",
        ),
        (lambda: client.module_download(anonymous.source(), "1.0.0", into=into), "takes no version"),
        (lambda: client.module_download(anonymous.source()), "give into=DIR"),
        (lambda: client.module_download("hashicorp/consul/aws", "1.0.0", into=into), "into is for oci://"),
        (lambda: client.module_download("hashicorp/consul/aws"), "needs a version"),
        (lambda: asyncio.run(resolve("oci://h.example/app?digest=sha256:00")), "invalid OCI module source"),
    ]:
        with pytest.raises(tfdisco.InvalidArgument, match=words) as raised:
            call()
        assert raised.value.kind == "invalid_argument"
        assert isinstance(raised.value, ValueError)
    assert list(tmp_path.iterdir()) == []


def test_wrong_or_no_oci_credentials_give_the_status_kind_and_no_secret(
    basic: OciServed, tmp_path: Path, hermetic_env: Path
) -> None:
    # The right ones first.
    good = client_for(basic, hermetic_env, basic.cli_config(tmp_path / "good.rc"))
    assert good.module_resolve(basic.source()).digest == basic.module["digest"]

    wrong = client_for(basic, hermetic_env, basic.cli_config(tmp_path / "wrong.rc", password=WRONG))
    into = tmp_path / "into"
    for call in (
        lambda: wrong.module_resolve(basic.source("?tag=1.0.0")),
        lambda: wrong.module_download(basic.source(), into=into),
        lambda: client_for(basic, hermetic_env).module_resolve(basic.source()),
    ):
        with pytest.raises(tfdisco.StatusError) as raised:
            call()
        error = raised.value
        assert error.kind == "status"
        assert error.status == 401
        assert error.url is not None and error.url.startswith(f"https://{basic.host}/v2/modules/app/")
        no_secret(basic, str(error), repr(error), error.url)
    assert not into.exists()


# --- publishing: mirror_to_oci and push_provider -------------------------------------
#
# The signed registry `tfdisco-dev serve` serves next to its document (the
# `registry_served` fixture: the providers' host) is copied into the real OCI
# registry (`basic`, its own CA): the client trusts both.

PLATFORMS = [tfdisco.Platform(p) for p in ALL]


def platform_args() -> List[str]:
    return [arg for p in ALL for arg in ("--platform", p)]


def sha256(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def release_zips(client: tfdisco.Client, host: str, into: Path) -> Dict[str, List[Path]]:
    """The releases the ``fresh`` configuration selects on the signed
    registry at ``host`` (alpha 1.1.0, beta 0.10.0), as registries name
    their zips: a mirror folder's archives, one per platform of ``ALL``."""
    report = client.mirror(prepare(into / "config", host), into / "folder", ALL)
    assert [p.version for p in report.providers] == ["1.1.0", "0.10.0"]
    return {p.source.type: p.archives for p in report.providers}


def test_mirror_to_oci_then_lock_from_the_copy_gives_the_registrys_lock_file(
    basic: OciServed, registry_served: Served, tfdisco_bin: Path, tmp_path: Path, hermetic_env: Path
) -> None:
    config = basic.cli_config(tmp_path / "tofu.rc")
    host = registry_served.host
    client = client_for(basic, hermetic_env, config, also_trust=[registry_served.ca])
    template = f"{basic.host}/copy/{{namespace}}/{{type}}"
    directory = prepare(tmp_path / "run", host)

    report = client.mirror_to_oci(directory, template, ALL)
    assert isinstance(report, tfdisco.OciMirrorReport)
    assert report.template == template
    assert report.platforms == PLATFORMS
    assert [(str(p.source), p.version, p.locked, p.constraints) for p in report.providers] == [
        (f"{host}/ns/alpha", "1.1.0", False, "~> 1.0"),
        (f"{host}/ns/beta", "0.10.0", False, ">= 0.9.0"),
    ]
    # alpha's config and zips sent; beta's config mounted from alpha's
    # repository, its zips sent.
    assert [(p.release.blobs_sent, p.release.blobs_mounted) for p in report.providers] == [(4, 0), (3, 1)]
    for provider in report.providers:
        release = provider.release
        assert isinstance(release, tfdisco.PushedRelease)
        assert release.repository == f"{basic.host}/copy/ns/{provider.source.type}"
        assert release.tag == provider.version
        assert release.index.startswith("sha256:") and len(release.index) == 71
        # Each zip is the registry's package, byte for byte.
        assert release.packages == [
            (p, "sha256:" + client.provider_package(provider.source, provider.version, p).shasum)
            for p in PLATFORMS
        ]
    assert repr(report.providers[0]).startswith("OciMirroredProvider(source=ProviderSource(")
    assert "release=PushedRelease(repository=" in repr(report.providers[0])
    assert not (directory / LOCK_FILE).exists(), "a mirror run writes no lock file"

    # Again, asynchronously: every blob is there, none is sent; the same
    # releases.
    async def mirror_again() -> tfdisco.OciMirrorReport:
        return await tfdisco.AsyncClient.from_client(client).mirror_to_oci(directory, template, ALL, jobs=2)

    again = asyncio.run(mirror_again())
    assert [(p.release.blobs_sent, p.release.blobs_mounted) for p in again.providers] == [(0, 0), (0, 0)]
    assert [(p.release.index, p.release.packages) for p in again.providers] == [
        (p.release.index, p.release.packages) for p in report.providers
    ]

    # The CLI, a third time: the document Python's second run gives.
    args = ["mirror", "--dialect", "opentofu", "--chdir", str(directory), "--to-oci", template]
    run = cli(tfdisco_bin, basic, hermetic_env, [*args, *platform_args(), "--json"], config, [registry_served.ca])
    assert run.returncode == 0, run.stderr
    document = json.loads(again.to_json())
    assert json.loads(run.stdout) == document
    assert list(document) == ["template", "platforms", "providers"]
    assert list(document["providers"][0]) == [
        "source",
        "version",
        "constraints",
        "locked",
        "trust",
        "key_id",
        "repository",
        "tag",
        "index",
        "packages",
        "blobs_sent",
        "blobs_mounted",
    ]
    assert document["providers"][1]["packages"][0] == {
        "platform": "linux_amd64",
        "digest": again.providers[1].release.packages[0][1],
    }
    no_secret(basic, run.stdout, run.stderr, again.to_json())

    # The copy locks as the registry locks: the same lock file, Terraform's.
    from_copy = client.lock(prepare(tmp_path / "from-copy", host), ALL, oci_mirror=template)
    from_registry = client.lock(prepare(tmp_path / "from-registry", host), ALL)
    written = (tmp_path / "from-copy" / LOCK_FILE).read_text(encoding="utf-8")
    assert written == (tmp_path / "from-registry" / LOCK_FILE).read_text(encoding="utf-8")
    assert body(written) == body(golden_lock(host))
    assert [(p.version, p.hashes_added) for p in from_copy.providers] == [
        (p.version, p.hashes_added) for p in from_registry.providers
    ]
    # The mirror run verified the packages as the registry lock did.
    assert [(p.trust, p.key_id) for p in report.providers] == [
        (p.trust, p.key_id) for p in from_registry.providers
    ]
    assert all(p.key_id for p in report.providers)


def test_push_provider_sends_each_blob_once_and_mounts_from_another_repository(
    basic: OciServed, registry_served: Served, tfdisco_bin: Path, tmp_path: Path, hermetic_env: Path
) -> None:
    config = basic.cli_config(tmp_path / "tofu.rc")
    host = registry_served.host
    client = client_for(basic, hermetic_env, config, also_trust=[registry_served.ca])
    zips = release_zips(client, host, tmp_path / "zips")
    repository = f"{basic.host}/pushed/ns/alpha"

    first = client.push_provider(repository, "1.1.0", zips["alpha"])
    assert isinstance(first, tfdisco.PushedRelease)
    assert (first.repository, first.tag) == (repository, "1.1.0")
    assert first.packages == [(p, sha256(z)) for p, z in zip(PLATFORMS, zips["alpha"])]
    assert (first.blobs_sent, first.blobs_mounted) == (len(ALL) + 1, 0)
    assert repr(first).startswith(f"PushedRelease(repository='{repository}', tag='1.1.0', index='sha256:")

    # Again (the zips as strs): the repository has every blob.
    again = client.push_provider(repository, "1.1.0", [str(z) for z in zips["alpha"]])
    assert (again.blobs_sent, again.blobs_mounted) == (0, 0)
    assert (again.index, again.packages) == (first.index, first.packages)
    assert again != first  # the counts differ

    # The CLI, a third time: the same document.
    args = ["oci", "push-provider", repository, "1.1.0", *map(str, zips["alpha"]), "--json"]
    run = cli(tfdisco_bin, basic, hermetic_env, args, config)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == json.loads(again.to_json())
    assert json.loads(again.to_json()) == {
        "repository": repository,
        "tag": "1.1.0",
        "index": first.index,
        "packages": [{"platform": str(p), "digest": d} for p, d in first.packages],
        "blobs_sent": 0,
        "blobs_mounted": 0,
    }

    # Promoted to another repository of the registry, asynchronously:
    # every blob mounted, none sent.
    async def promote() -> tfdisco.PushedRelease:
        return await tfdisco.AsyncClient.from_client(client).push_provider(
            f"{basic.host}/promoted/ns/alpha", "1.1.0", zips["alpha"], mount_from=repository
        )

    promoted = asyncio.run(promote())
    assert (promoted.blobs_sent, promoted.blobs_mounted) == (0, len(ALL) + 1)
    assert (promoted.repository, promoted.index) == (f"{basic.host}/promoted/ns/alpha", first.index)

    # beta too; then the pushed releases lock as the registry locks.
    beta = client.push_provider(f"{basic.host}/pushed/ns/beta", "0.10.0", zips["beta"])
    assert (beta.blobs_sent, beta.tag) == (len(ALL) + 1, "0.10.0")
    client.lock(prepare(tmp_path / "run", host), ALL, oci_mirror=f"{basic.host}/pushed/{{namespace}}/{{type}}")
    assert body((tmp_path / "run" / LOCK_FILE).read_text(encoding="utf-8")) == body(golden_lock(host))


def test_push_provider_refuses_what_the_cli_refuses_before_anything_is_sent(
    basic: OciServed, tfdisco_bin: Path, tmp_path: Path, hermetic_env: Path
) -> None:
    config = basic.cli_config(tmp_path / "tofu.rc")
    client = client_for(basic, hermetic_env, config)
    good = tmp_path / "terraform-provider-alpha_1.0.0_linux_amd64.zip"
    good.write_bytes(b"PK\x05\x06" + bytes(18))
    repository = f"{basic.host}/refused/ns/alpha"
    for given, version, zips, mount_from, kind, words in [
        ("/ns/alpha", "1.0.0", [good], None, "invalid_argument", "missing registry"),
        (f"{basic.host}/a:1", "1.0.0", [good], None, "invalid_argument", "tag or digest not allowed"),
        (repository, "one", [good], None, "invalid_argument", '"one" is no version'),
        (repository, "2.0.0", [good], None, "invalid_argument", "not a zip of version 2.0.0"),
        (repository, "1.0.0", [tmp_path / "alpha.zip"], None, "invalid_argument", "not named terraform-provider-"),
        (repository, "1.0.0", [good], "/nowhere", "invalid_argument", "missing registry"),
        (repository, "1.0.0", [good], "elsewhere.example/ns/alpha", "invalid_argument", "same registry"),
        (repository, "1.0.0", [tmp_path / "gone" / good.name], None, "local_file", "gone"),
    ]:
        options = {} if mount_from is None else {"mount_from": mount_from}
        with pytest.raises(tfdisco.Error, match=words) as raised:
            client.push_provider(given, version, zips, **options)  # type: ignore[arg-type]
        error = raised.value
        assert error.kind == kind, error
        assert isinstance(error, tfdisco.InvalidArgument if kind == "invalid_argument" else tfdisco.LocalFileError)
        # The CLI's error, word for word.
        args = ["oci", "push-provider", given, version, *map(str, zips), "--json"]
        args += ["--mount-from", mount_from] if mount_from else []
        run = cli(tfdisco_bin, basic, hermetic_env, args, config)
        assert run.returncode == (2 if kind == "invalid_argument" else 1), run.stderr
        assert json.loads(run.stdout)["error"]["message"] == str(error)
        assert json.loads(run.stdout)["error"]["kind"] == kind

    with pytest.raises(TypeError, match="not a str"):
        client.push_provider(repository, "1.0.0", str(good))  # type: ignore[arg-type]
    with pytest.raises(tfdisco.InvalidArgument, match="give the release's zips"):
        client.push_provider(repository, "1.0.0", [])

    async def push() -> tfdisco.PushedRelease:
        return await tfdisco.AsyncClient.from_client(client).push_provider(repository, "2.0.0", [good])

    with pytest.raises(tfdisco.InvalidArgument, match="not a zip of version 2.0.0"):
        asyncio.run(push())
    # Nothing reached the registry: no tag.
    with pytest.raises(tfdisco.LockError) as nothing:
        client.lock(prepare(tmp_path / "run"), ["linux_amd64"], oci_mirror=f"{basic.host}/refused/{{namespace}}/{{type}}")
    assert nothing.value.failures[0].kind == "provider"


def test_mirror_to_oci_refuses_a_template_that_does_not_parse(tmp_path: Path, hermetic_env: Path) -> None:
    client = tfdisco.Client(credentials=None, env=env_for(hermetic_env))
    with pytest.raises(tfdisco.InvalidArgument, match="not a valid URI template") as raised:
        client.mirror_to_oci(tmp_path / "nowhere", "ghcr.io/{+type}")
    assert raised.value.kind == "invalid_argument"
    with pytest.raises(tfdisco.InvalidOption, match="jobs"):
        client.mirror_to_oci(tmp_path / "nowhere", "ghcr.io/{type}", jobs=0)
    with pytest.raises(TypeError):
        client.mirror_to_oci(tmp_path / "nowhere", "ghcr.io/{type}", "linux_amd64")  # type: ignore[arg-type]

    async def mirror() -> tfdisco.OciMirrorReport:
        return await tfdisco.AsyncClient.from_client(client).mirror_to_oci(tmp_path, "ghcr.io/{+type}")

    with pytest.raises(tfdisco.InvalidArgument, match="not a valid URI template"):
        asyncio.run(mirror())
    assert list(tmp_path.iterdir()) == [hermetic_env], "nothing was read or written"


def test_wrong_oci_credentials_fail_the_pushes_with_their_kinds_and_no_secret(
    basic: OciServed, registry_served: Served, tmp_path: Path, hermetic_env: Path
) -> None:
    host = registry_served.host
    good = client_for(basic, hermetic_env, basic.cli_config(tmp_path / "good.rc"), [registry_served.ca])
    zips = release_zips(good, host, tmp_path / "zips")
    wrong_config = basic.cli_config(tmp_path / "wrong.rc", password=WRONG)
    wrong = client_for(basic, hermetic_env, wrong_config, [registry_served.ca])
    template = f"{basic.host}/denied/{{namespace}}/{{type}}"
    directory = prepare(tmp_path / "run", host)

    # mirror_to_oci: a LockError as lock's, a failure of kind "request".
    async def mirror() -> tfdisco.OciMirrorReport:
        return await tfdisco.AsyncClient.from_client(wrong).mirror_to_oci(directory, template, ALL)

    for call in (lambda: wrong.mirror_to_oci(directory, template, ALL), lambda: asyncio.run(mirror())):
        with pytest.raises(tfdisco.LockError) as raised:
            call()
        error = raised.value
        assert (error.kind, error.exit_code) == ("failed", 1)
        assert [(str(f.source), f.version, f.kind, f.exit_code) for f in error.failures] == [
            (f"{host}/ns/alpha", "1.1.0", "request", 1)
        ]
        assert "401" in str(error)
        no_secret(basic, str(error), repr(error), *(f.message for f in error.failures), *map(repr, error.failures))
    assert not (directory / LOCK_FILE).exists()

    # push_provider: a StatusError as module_resolve's; with no credentials too.
    for client in (wrong, client_for(basic, hermetic_env, also_trust=[registry_served.ca])):
        with pytest.raises(tfdisco.StatusError) as refused:
            client.push_provider(f"{basic.host}/denied/ns/alpha", "1.1.0", zips["alpha"])
        status = refused.value
        assert (status.kind, status.status) == ("status", 401)
        assert status.url is not None and status.url.startswith(f"https://{basic.host}/v2/denied/ns/alpha/")
        no_secret(basic, str(status), repr(status), status.url)

    # Nothing was pushed: the right credentials find no release there.
    with pytest.raises(tfdisco.LockError) as nothing:
        good.lock(prepare(tmp_path / "again", host), ALL, oci_mirror=template)
    assert {f.kind for f in nothing.value.failures} == {"provider"}
