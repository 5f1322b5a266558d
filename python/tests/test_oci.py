"""OCI registries as OpenTofu uses them (issue 27): ``lock(oci_mirror=…)``,
``module_resolve`` and ``module_download(source, into=…)`` for ``oci://``
sources, on ``Client`` and ``AsyncClient``, against a real registry
(``tfdisco serve --oci-registry MODE``: Debian's ``docker-registry``,
anonymous or with Basic credentials, holding a module package and the
signed registry's providers as an OCI mirror), with the OCI credentials of
the CLI configuration (``oci_credentials`` blocks, ``TF_CLI_CONFIG_FILE``
in the client's ``env``). What they give is what the ``tfdisco`` CLI prints
with ``--json``: the library's one serialization; what they raise is the
library's error kinds, and never a secret.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

import tfdisco
from conftest import REPO, OciServed

GOLDENS = REPO / "transports" / "testkit" / "fixtures" / "lock-goldens"
LOCK_FILE = ".terraform.lock.hcl"
ALL = ["linux_amd64", "darwin_arm64", "windows_amd64"]
#: The providers' host in the configuration: never asked, the mirror has them.
PROVIDERS_HOST = "registry.example.test"
WRONG = "not-the-oci-secret"


@pytest.fixture(scope="module")
def anonymous(tfdisco_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OciServed]:
    server = OciServed(tfdisco_bin, "anonymous", tmp_path_factory.mktemp("oci-anonymous"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def basic(tfdisco_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OciServed]:
    server = OciServed(tfdisco_bin, "basic", tmp_path_factory.mktemp("oci-basic"))
    yield server
    server.stop()


def env_for(home: Path, config: Optional[Path] = None) -> Dict[str, str]:
    env = {"HOME": str(home)}
    if config is not None:
        env["TF_CLI_CONFIG_FILE"] = str(config)
    return env


def client_for(
    server: OciServed, home: Path, config: Optional[Path] = None, **options: object
) -> tfdisco.Client:
    options.setdefault("dialect", "opentofu")
    return tfdisco.Client(  # type: ignore[arg-type]
        ca_files=[str(server.ca)], credentials=None, env=env_for(home, config), **options
    )


def cli(
    binary: Path, server: OciServed, home: Path, args: List[str], config: Optional[Path] = None
) -> subprocess.CompletedProcess:
    env = {**env_for(home, config), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    return subprocess.run(
        [str(binary), *args, "--ca-file", str(server.ca), "--no-credentials"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def prepare(into: Path) -> Path:
    """The ``fresh`` lock golden's configuration in ``into`` (emptied)."""
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    for source in (GOLDENS / "fresh" / "input").iterdir():
        text = source.read_text(encoding="utf-8").replace("{HOST}", PROVIDERS_HOST)
        (into / source.name).write_text(text, encoding="utf-8")
    return into


def body(text: str) -> str:
    """A lock file without its first line (``terraform init`` or ``tofu
    init``)."""
    return "\n".join(text.splitlines()[1:])


def golden_lock() -> str:
    return (GOLDENS / "fresh" / "terraform.lock.hcl").read_text(encoding="utf-8").replace("{HOST}", PROVIDERS_HOST)


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
