"""Module installation: ``tfdisco.get``, ``Client.get`` and
``AsyncClient.get`` (and the modules ``install`` gets first), against a
module registry on loopback (the recording server of conftest, serving the
versions, the download location and a zip built here), a Git repository
the test makes with the real ``git`` and a local module: ``modules.json``
byte for byte, the folders, a re-run that keeps everything without a
request, ``upgrade``, the same document as ``tfdisco get --json`` (the same
bytes), and a failure that raises ``LockError`` of kind ``"modules"`` and
places nothing.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import stat
import subprocess
import zipfile
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

import tfdisco
from conftest import Recorder, Reply

MANIFEST = Path(".terraform") / "modules" / "modules.json"
VERSIONS = ["1.0.0", "1.1.0"]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the Git modules need the system git")


def package(version: str) -> bytes:
    """The registry module's package: a zip whose module is one folder down
    (``net/``), calling a sibling folder (``shared/``), with Unix modes."""
    files = [
        ("net/main.tf", 0o100644, f'# net {version}\nmodule "shared" {{ source = "../shared" }}\n'),
        ("net/run.sh", 0o100755, "#!/bin/sh\n"),
        ("shared/main.tf", 0o100600, "# shared\n"),
    ]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, mode, text in files:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.create_system = 3  # Unix: the modes below are read
            info.external_attr = mode << 16
            archive.writestr(info, text)
    return out.getvalue()


def registry(recorder: Recorder, versions: List[str] = VERSIONS) -> str:
    """``acme/net/aws`` with ``versions`` on the recording server, each
    downloading from ``./pkg.zip//net`` (relative to the download URL);
    returns the module's source address."""
    base = "/v1/modules/acme/net/aws"
    recorder.routes["/.well-known/terraform.json"] = Reply(body='{"modules.v1": "/v1/modules/"}')
    listed = json.dumps({"modules": [{"versions": [{"version": v} for v in versions]}]})
    recorder.routes[f"{base}/versions"] = Reply(body=listed)
    for version in versions:
        recorder.routes[f"{base}/{version}/download"] = Reply(204, b"", {"X-Terraform-Get": "./pkg.zip//net"})
        recorder.routes[f"{base}/{version}/pkg.zip"] = Reply(
            body=package(version), headers={"Content-Type": "application/zip"}
        )
    return f"127.0.0.1:{recorder.port}/acme/net/aws"


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
    )


def repository(repo: Path) -> Path:
    """A Git repository with one commit, tagged ``v1.0.0``."""
    (repo / "sub").mkdir(parents=True)
    (repo / "main.tf").write_text("# git root\n", encoding="utf-8")
    (repo / "sub" / "main.tf").write_text("# git sub\n", encoding="utf-8")
    (repo / ".gitignore").write_text("*.tfstate\n", encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    git(repo, "tag", "v1.0.0")
    return repo


def configuration(directory: Path, net: str, repo: Path, version: str = "~> 1.0") -> Path:
    """A root module calling the registry module, a local one and the Git
    repository twice (the second time a subfolder of it)."""
    (directory / "modules" / "app").mkdir(parents=True, exist_ok=True)
    (directory / "modules" / "app" / "main.tf").write_text("# app\n", encoding="utf-8")
    (directory / "main.tf").write_text(
        f'module "net" {{\n  source  = "{net}"\n  version = "{version}"\n}}\n'
        'module "app" { source = "./modules/app" }\n'
        f'module "git" {{ source = "git::file://{repo}?ref=v1.0.0" }}\n'
        f'module "again" {{ source = "git::file://{repo}//sub?ref=v1.0.0" }}\n',
        encoding="utf-8",
    )
    return directory


def expected_manifest(net: str, repo: Path) -> str:
    return (
        '{"Modules":[{"Key":"","Source":"","Dir":"."},'
        f'{{"Key":"again","Source":"git::file://{repo}//sub?ref=v1.0.0","Dir":".terraform/modules/again/sub"}},'
        '{"Key":"app","Source":"./modules/app","Dir":"modules/app"},'
        f'{{"Key":"git","Source":"git::file://{repo}?ref=v1.0.0","Dir":".terraform/modules/git"}},'
        f'{{"Key":"net","Source":"{net}","Version":"1.1.0","Dir":".terraform/modules/net/net"}},'
        '{"Key":"net.shared","Source":"../shared","Dir":".terraform/modules/net/shared"}]}'
    )


def modules_of(report: tfdisco.GetReport) -> List[Tuple[str, str, Optional[str], str, str]]:
    return [(m.key, m.source, m.version, m.dir, m.installed) for m in report.modules]


def client_for(recorder: Recorder, home: Path, **options: object) -> tfdisco.Client:
    return tfdisco.Client(  # type: ignore[arg-type]
        dialect="terraform",
        ca_files=[recorder.ca],
        credentials=None,
        env={"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        **options,
    )


def cli(binary: Path, recorder: Recorder, home: Path, directory: Path, *extra: str) -> subprocess.CompletedProcess:
    """``tfdisco get --json`` in ``directory``, as the client is set up."""
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "NO_COLOR": "1"}
    args = [str(binary), "get", "--chdir", str(directory), "--dialect", "terraform"]
    args += ["--ca-file", str(recorder.ca), "--no-credentials", "--json", *extra]
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)


def leftovers(directory: Path) -> List[str]:
    """What a run left in ``.terraform/modules`` besides the modules (its
    staging folder, say)."""
    modules = directory / ".terraform" / "modules"
    return sorted(p.name for p in modules.iterdir() if p.name.startswith(".")) if modules.is_dir() else []


def test_get_installs_every_module_keeps_them_and_gives_the_clis_document(
    recorder: Recorder, tfdisco_bin: Path, tmp_path: Path, hermetic_env: Path
) -> None:
    net = registry(recorder)
    repo = repository(tmp_path / "repo")
    directory = configuration(tmp_path / "work", net, repo)
    client = client_for(recorder, hermetic_env)

    report = client.get(directory)

    assert (directory / MANIFEST).read_bytes() == expected_manifest(net, repo).encode()
    assert report.manifest == directory / MANIFEST
    assert report.changed is True
    assert modules_of(report) == [
        ("again", f"git::file://{repo}//sub?ref=v1.0.0", None, ".terraform/modules/again/sub", "fetched"),
        ("app", "./modules/app", None, "modules/app", "local"),
        ("git", f"git::file://{repo}?ref=v1.0.0", None, ".terraform/modules/git", "fetched"),
        ("net", net, "1.1.0", ".terraform/modules/net/net", "fetched"),
        ("net.shared", "../shared", None, ".terraform/modules/net/shared", "local"),
    ]
    modules = directory / ".terraform" / "modules"
    assert (modules / "net" / "net" / "main.tf").read_text(encoding="utf-8").startswith("# net 1.1.0\n")
    assert stat.S_IMODE((modules / "net" / "net" / "run.sh").stat().st_mode) == 0o755
    # `again` is walked first: it keeps the clone, `.git` and all; `git`
    # gets a copy without dot files.
    assert (modules / "again" / ".git").is_dir()
    assert not (modules / "git" / ".git").exists()
    assert (modules / "git" / "sub" / "main.tf").read_text(encoding="utf-8") == "# git sub\n"
    assert leftovers(directory) == []
    document = json.loads(report.to_json())
    assert list(document) == ["manifest", "changed", "modules"]
    assert document["modules"][3] == {
        "key": "net",
        "source": net,
        "version": "1.1.0",
        "dir": ".terraform/modules/net/net",
        "installed": "fetched",
    }
    assert repr(report.modules[1]) == (
        "InstalledModule(key='app', source='./modules/app', version=None, dir='modules/app', installed='local')"
    )
    paths = [path for path, _ in recorder.requests()]
    assert "/v1/modules/acme/net/aws/1.1.0/pkg.zip" in paths

    # Again: everything kept, nothing asked, the manifest as it was.
    asked = len(recorder.requests())
    again = client.get(directory)
    assert len(recorder.requests()) == asked
    assert again.changed is False
    assert {m.installed for m in again.modules} == {"kept"}
    assert [m.key for m in again.modules] == [m.key for m in report.modules]
    assert (directory / MANIFEST).read_bytes() == expected_manifest(net, repo).encode()

    # The CLI, in the same place from scratch, then again: the same bytes.
    shutil.rmtree(directory / ".terraform")
    run = cli(tfdisco_bin, recorder, hermetic_env, directory)
    assert run.returncode == 0, run.stderr
    assert run.stdout == report.to_json() + "\n"
    assert (directory / MANIFEST).read_bytes() == expected_manifest(net, repo).encode()
    run = cli(tfdisco_bin, recorder, hermetic_env, directory)
    assert run.returncode == 0, run.stderr
    assert run.stdout == again.to_json() + "\n"


def test_the_async_client_and_the_function_get_and_upgrade(
    recorder: Recorder, tmp_path: Path, hermetic_env: Path
) -> None:
    net = registry(recorder, ["1.0.0"])
    repo = repository(tmp_path / "repo")
    directory = configuration(tmp_path / "work", net, repo)
    client = tfdisco.AsyncClient.from_client(client_for(recorder, hermetic_env))

    report = asyncio.run(client.get(directory, jobs=1))
    assert report.changed is True
    assert [(m.key, m.version) for m in report.modules if m.key == "net"] == [("net", "1.0.0")]

    # A new version: kept at 1.0.0 without `upgrade`, 1.1.0 with it.
    registry(recorder)
    kept = tfdisco.get(
        directory,
        dialect="terraform",
        ca_files=[recorder.ca],
        credentials=None,
        env={"HOME": str(hermetic_env), "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    assert kept.changed is False
    assert {m.installed for m in kept.modules} == {"kept"}
    upgraded = asyncio.run(client.get(directory, upgrade=True))
    assert upgraded.changed is True
    assert (directory / MANIFEST).read_bytes() == expected_manifest(net, repo).encode()
    assert [m.key for m in upgraded.modules if m.installed == "fetched"] == ["again", "git", "net"]
    assert [m.version for m in upgraded.modules if m.key == "net"] == ["1.1.0"]


def test_a_git_ref_that_does_not_exist_raises_and_places_nothing(
    recorder: Recorder, tfdisco_bin: Path, tmp_path: Path, hermetic_env: Path
) -> None:
    net = registry(recorder)
    repo = repository(tmp_path / "repo")
    directory = configuration(tmp_path / "work", net, repo)
    client = client_for(recorder, hermetic_env)
    client.get(directory)
    before = (directory / MANIFEST).read_bytes()

    text = (directory / "main.tf").read_text(encoding="utf-8")
    (directory / "main.tf").write_text(
        text + f'module "bad" {{ source = "git::file://{repo}?ref=no-such-ref" }}\n', encoding="utf-8"
    )
    for get in (
        lambda: client.get(directory),
        lambda: asyncio.run(tfdisco.AsyncClient.from_client(client).get(directory, upgrade=True)),
    ):
        with pytest.raises(tfdisco.LockError) as raised:
            get()
        error = raised.value
        assert error.kind == "modules"
        assert error.exit_code == 1
        assert len(error.failures) == 1
        failure = error.failures[0]
        assert isinstance(failure, tfdisco.ModuleFailure)
        assert (failure.key, failure.kind, failure.exit_code) == ("bad", "download", 1)
        assert "no-such-ref" in failure.message
        assert "some modules could not be installed" in str(error)
        assert repr(failure).startswith("ModuleFailure(key='bad', kind='download', exit_code=1, message=")
        assert not (directory / ".terraform" / "modules" / "bad").exists()
        assert (directory / MANIFEST).read_bytes() == before
        assert leftovers(directory) == []

    # The CLI says the same: the error document's failures are the
    # exception's.
    run = cli(tfdisco_bin, recorder, hermetic_env, directory)
    assert run.returncode == 1, run.stderr
    document = json.loads(run.stdout)
    assert document["error"]["kind"] == error.kind
    assert document["error"]["exit_code"] == error.exit_code
    assert [{k: v for k, v in f.items() if k != "message"} for f in document["failures"]] == [
        {"key": "bad", "kind": "download", "exit_code": 1}
    ]
    assert not (directory / ".terraform" / "modules" / "bad").exists()
    assert (directory / MANIFEST).read_bytes() == before


def test_a_first_failure_writes_no_manifest(recorder: Recorder, tmp_path: Path, hermetic_env: Path) -> None:
    repo = repository(tmp_path / "repo")
    directory = tmp_path / "work"
    directory.mkdir()
    (directory / "main.tf").write_text(
        f'module "bad" {{ source = "git::file://{repo}?ref=no-such-ref" }}\n', encoding="utf-8"
    )
    with pytest.raises(tfdisco.LockError) as raised:
        client_for(recorder, hermetic_env).get(directory)
    assert (raised.value.kind, raised.value.exit_code) == ("modules", 1)
    assert [(f.key, f.kind) for f in raised.value.failures] == [("bad", "download")]
    assert not (directory / MANIFEST).exists()
    assert not (directory / ".terraform" / "modules" / "bad").exists()
    assert leftovers(directory) == []


def test_jobs_zero_is_refused_before_anything_is_read(recorder: Recorder, tmp_path: Path, hermetic_env: Path) -> None:
    directory = tmp_path / "work"
    directory.mkdir()
    client = client_for(recorder, hermetic_env)
    with pytest.raises(tfdisco.InvalidOption):
        client.get(directory, jobs=0)
    with pytest.raises(tfdisco.InvalidOption):
        asyncio.run(tfdisco.AsyncClient.from_client(client).get(directory, jobs=0))
    with pytest.raises(TypeError):
        client.get(directory, providers=["hashicorp/aws"])  # type: ignore[call-arg]
    assert list(directory.iterdir()) == [], "nothing was read or written"
    assert recorder.requests() == []


def test_install_gets_the_modules_first(recorder: Recorder, tmp_path: Path, hermetic_env: Path) -> None:
    repo = repository(tmp_path / "repo")
    directory = tmp_path / "work"
    (directory / "modules" / "app").mkdir(parents=True)
    (directory / "modules" / "app" / "main.tf").write_text("# app\n", encoding="utf-8")
    (directory / "main.tf").write_text(
        'module "app" { source = "./modules/app" }\n'
        f'module "git" {{ source = "git::file://{repo}?ref=v1.0.0" }}\n',
        encoding="utf-8",
    )
    client = client_for(recorder, hermetic_env)

    report = client.install(directory)

    assert [(m.key, m.installed) for m in report.modules] == [("app", "local"), ("git", "fetched")]
    assert report.providers == []
    assert json.loads(report.to_json())["modules"] == [
        {"key": "app", "source": "./modules/app", "version": None, "dir": "modules/app", "installed": "local"},
        {
            "key": "git",
            "source": f"git::file://{repo}?ref=v1.0.0",
            "version": None,
            "dir": ".terraform/modules/git",
            "installed": "fetched",
        },
    ]
    assert (directory / ".terraform" / "modules" / "git" / "main.tf").is_file()
    # What `get` then says of them: the same modules, kept.
    got = client.get(directory)
    assert [(m.key, m.installed) for m in got.modules] == [("app", "kept"), ("git", "kept")]


def test_install_without_module_calls_reports_none(recorder: Recorder, tmp_path: Path, hermetic_env: Path) -> None:
    directory = tmp_path / "work"
    directory.mkdir()
    (directory / "main.tf").write_text("# nothing\n", encoding="utf-8")
    report = client_for(recorder, hermetic_env).install(directory)
    assert report.modules == []
    assert json.loads(report.to_json())["modules"] == []
    assert not (directory / MANIFEST).exists()
