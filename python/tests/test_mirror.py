"""Mirrors: ``tfdisco.mirror``, ``Client.mirror``,
``AsyncClient.mirror`` and ``lock(net_mirror=…, fs_mirror=…)``, compared
with what real Terraform 1.11.4 wrote for the same input
(testkit/fixtures/mirror-goldens/ and lock-goldens/,
testkit/src/mirror_goldens.rs): the mirror folder
``providers mirror`` wrote, and the lock files ``providers lock
-net-mirror`` / ``-fs-mirror`` wrote.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Dict

import pytest

import tfdisco
from conftest import REPO, Recorder, Reply, Served
from test_lock import ALL, KEY_ID, LOCK_FILE, client_for, expected, prepare

MIRRORS = REPO / "testkit" / "fixtures" / "mirror-goldens"
MIRROR_HOST = "registry.example.test"


def tree(root: Path) -> Dict[str, bytes]:
    """Every file under ``root`` by its ``/``-separated relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def golden_tree(case: str, host: str) -> Dict[str, bytes]:
    return {path.replace("{HOST}", host): data for path, data in tree(MIRRORS / case / "tree").items()}


def copy_tree(case: str, into: Path, host: str) -> Path:
    """A golden tree copied into ``into``, its ``{HOST}`` folder named ``host``."""
    for path, data in golden_tree(case, host).items():
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return into


def prepare_mirror(case: str, into: Path, host: str) -> Path:
    """A mirror golden case's ``input/`` with ``{HOST}`` replaced."""
    into.mkdir(parents=True, exist_ok=True)
    for source in (MIRRORS / case / "input").iterdir():
        text = source.read_text(encoding="utf-8").replace("{HOST}", host)
        (into / source.name).write_text(text, encoding="utf-8")
    return into


def test_mirror_folder_is_terraforms_byte_for_byte(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    directory = prepare_mirror("mirror-fresh", tmp_path / "config", host)
    folder = tmp_path / "mirror"

    report = tfdisco.mirror(
        directory, folder, ALL, dialect="terraform", ca_files=[registry_served.ca], credentials=None
    )

    assert tree(folder) == golden_tree("mirror-fresh", host)
    assert report.folder == folder
    assert [(str(p.source), p.version, p.locked, p.trust, p.key_id) for p in report.providers] == [
        (f"{host}/ns/alpha", "1.1.0", False, "self-signed", KEY_ID),
        (f"{host}/ns/beta", "0.10.0", False, "self-signed", KEY_ID),
    ]
    assert report.providers[0].archives == [
        folder / host / "ns" / "alpha" / f"terraform-provider-alpha_1.1.0_{p}.zip" for p in ALL
    ]
    assert sorted(p.name for p in report.indexes) == ["0.10.0.json", "1.1.0.json", "index.json", "index.json"]
    assert repr(report.providers[0]).startswith("MirroredProvider(source=ProviderSource(")


def test_async_mirror_of_the_locked_version(registry_served: Served, tmp_path: Path) -> None:
    """The `mirror-locked` case: the lock file's version, into a folder that
    already holds mirror-fresh's tree; both versions indexed."""
    host = registry_served.host
    directory = prepare_mirror("mirror-locked", tmp_path / "config", host)
    folder = copy_tree("mirror-fresh", tmp_path / "mirror", host)

    async def run() -> tfdisco.MirrorReport:
        client = tfdisco.AsyncClient(dialect="terraform", ca_files=[registry_served.ca], credentials=None)
        return await client.mirror(directory, folder, ["linux_amd64"], jobs=2)

    report = asyncio.run(run())
    assert tree(folder) == golden_tree("mirror-locked", host)
    assert [(p.version, p.locked) for p in report.providers] == [("1.0.0", True), ("0.10.0", True)]


def test_lock_from_a_filesystem_mirror(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    for case, source in [("fs-mirror", "mirror-fresh"), ("fs-mirror-unpacked", "unpacked")]:
        directory = prepare(case, tmp_path / case, host)
        folder = copy_tree(source, tmp_path / f"{case}-mirror", host)
        report = client_for(registry_served).lock(directory, ["linux_amd64", "darwin_arm64"], fs_mirror=folder)
        assert (directory / LOCK_FILE).read_bytes() == expected(case, host), case
        assert {p.trust for p in report.providers} == {"unauthenticated"}
        assert {p.key_id for p in report.providers} == {None}


def serve_mirror(recorder: Recorder, case: str, host: str) -> str:
    for path, data in golden_tree(case, host).items():
        kind = "application/json" if path.endswith(".json") else "application/zip"
        recorder.routes[f"/mirror/{path}"] = Reply(body=data, headers={"Content-Type": kind})
    return f"https://{recorder.host}/mirror/"


def test_lock_from_a_network_mirror(recorder: Recorder, tmp_path: Path) -> None:
    url = serve_mirror(recorder, "mirror-fresh", MIRROR_HOST)
    directory = prepare("net-mirror", tmp_path / "net", MIRROR_HOST)
    client = tfdisco.Client(dialect="terraform", ca_files=[recorder.ca], credentials={recorder.host: "s3cret"})

    report = client.lock(directory, ALL, net_mirror=url)

    assert (directory / LOCK_FILE).read_bytes() == expected("net-mirror", MIRROR_HOST)
    assert {p.trust for p in report.providers} == {"verified checksum"}
    seen = recorder.requests()
    assert sorted(path for path, _ in seen if path.endswith(".json")) == [
        f"/mirror/{MIRROR_HOST}/ns/alpha/1.1.0.json",
        f"/mirror/{MIRROR_HOST}/ns/alpha/index.json",
        f"/mirror/{MIRROR_HOST}/ns/beta/0.10.0.json",
        f"/mirror/{MIRROR_HOST}/ns/beta/index.json",
    ]
    # The mirror host's token goes with the documents, never the archives.
    for path, headers in seen:
        assert ("authorization" in headers) == path.endswith(".json"), path


def test_a_wrong_listed_hash_leaves_the_lock_file_alone(recorder: Recorder, tmp_path: Path) -> None:
    url = serve_mirror(recorder, "mirror-fresh", MIRROR_HOST)
    listed = f"/mirror/{MIRROR_HOST}/ns/alpha/1.1.0.json"
    text = recorder.routes[listed].body.decode()
    at = text.index("h1:", text.index("linux_amd64")) + 3
    recorder.routes[listed] = Reply(body=text[:at] + "AAAA" + text[at + 4 :])
    directory = prepare("net-mirror", tmp_path / "net", MIRROR_HOST)

    with pytest.raises(tfdisco.LockError) as raised:
        tfdisco.Client(dialect="terraform", ca_files=[recorder.ca]).lock(
            directory, ["linux_amd64"], net_mirror=url
        )

    assert raised.value.exit_code == 1
    failure = raised.value.failures[0]
    assert (failure.kind, failure.version, str(failure.platform)) == ("checksum", "1.1.0", "linux_amd64")
    assert "doesn't match the expected checksum" in failure.message
    assert not (directory / LOCK_FILE).exists()


def test_bad_mirror_arguments(tmp_path: Path) -> None:
    client = tfdisco.Client(credentials=None)
    with pytest.raises(ValueError, match="mutually exclusive"):
        client.lock(tmp_path, net_mirror="https://m.example/", fs_mirror=tmp_path)
    with pytest.raises(ValueError, match="https: URL"):
        client.lock(tmp_path, net_mirror="http://m.example/")
    with pytest.raises(ValueError, match="jobs"):
        client.mirror(tmp_path, tmp_path / "out", jobs=0)
    with pytest.raises(TypeError):
        client.mirror(tmp_path, tmp_path / "out", "linux_amd64")  # a str, not a list
    assert not (tmp_path / "out").exists()
