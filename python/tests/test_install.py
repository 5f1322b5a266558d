"""Provider installation: ``tfdisco.install``, ``Client.install``
and ``AsyncClient.install``, against every case of the install goldens
(testkit/fixtures/install-goldens/, what the real ``terraform
init`` did with the same input): ``tfdisco-dev serve --golden-install CASE``
sets each case up on its signed registry (or mirror) with the testkit's
own ``Case::setup`` and judges what the run left with its
``Expected::check``, as the Rust conformance suite judges the library
(conftest.Golden).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import tfdisco
from conftest import REPO, AnyRegistry, Golden, Served
from test_lock import KEY_ID, LOCK_FILE, client_for, prepare

GOLDENS = REPO / "testkit" / "fixtures" / "install-goldens"
SIGNED = REPO / "testkit" / "fixtures" / "signed-registry"
#: Every case, by its folder (the testkit checks the folders are its cases).
CASES = sorted(p.name for p in GOLDENS.iterdir() if p.is_dir())
PLATFORM = "linux_amd64"
#: The ``golden`` fixture: ``golden("fresh")`` sets a case up.
GoldenFactory = Callable[[str], Golden]

#: Why each failing case fails: the error's kind and its failures' kinds (a
#: hostile archive is no package that can be unpacked: "package").
ERRORS: Dict[str, Tuple[str, List[str]]] = {
    "corrupted-archive": ("failed", ["checksum"]),
    "bad-signature": ("failed", ["signature"]),
    "readonly-new-provider": ("readonly", []),
    "readonly-hash-change": ("readonly", []),
    "locked-outside": ("failed", ["version"]),
    "zip-symlink": ("failed", ["package"]),
    "zip-absolute": ("failed", ["package"]),
    "zip-duplicate": ("failed", ["package"]),
    "zip-dotdot": ("failed", ["package"]),
    # A method's failed query fails the provider; no other method is asked.
    "net-mirror-older": ("failed", ["request"]),
    "net-mirror-500": ("failed", ["request"]),
    "net-mirror-unknown-provider": ("failed", ["request"]),
}


def golden_client(case: Golden, **options: object) -> tfdisco.Client:
    """A client for the case: its CA, no token, and exactly the case's
    environment (its CLI configuration, home folder and plugin cache)."""
    env = options.pop("env", case.env)
    return tfdisco.Client(
        dialect="terraform", ca_files=[case.ca], credentials=None, env=env, **options  # type: ignore[arg-type]
    )


def run(case: Golden, client: tfdisco.Client) -> Tuple[int, Optional[tfdisco.InstallReport], Optional[tfdisco.LockError]]:
    """``client.install`` with the case's arguments: its exit code, and the
    report or the error."""
    try:
        report = client.install(
            case.dir, upgrade=case.upgrade, lockfile="readonly" if case.readonly else None
        )
    except tfdisco.LockError as error:
        return error.exit_code, None, error
    return 0, report, None


def locked_versions(text: Optional[str]) -> Dict[str, str]:
    """Each provider of a lock file and its version."""
    return dict(re.findall(r'provider "([^"]+)" \{\n  version\s*= "([^"]+)"', text or ""))


def locked_hashes(text: str) -> Dict[str, List[str]]:
    blocks = re.findall(r'provider "([^"]+)" \{(.*?)\n\}', text, re.S)
    return {address: re.findall(r'"((?:h1|zh):[^"]+)"', body) for address, body in blocks}


def archive_size(source: str, version: str) -> int:
    name = source.rsplit("/", 1)[1]
    return (SIGNED / "ns" / name / version / f"terraform-provider-{name}_{version}_{PLATFORM}.zip").stat().st_size


# --- Every golden ------------------------------------------------------------------


def test_every_case_is_known() -> None:
    assert len(CASES) >= 27
    assert {"fresh", "kept", "cache-fill", "cache-hit", "corrupted-archive"} <= set(CASES)
    # A plugin cache entry tampered with: replaced by the verified package.
    assert {"cache-tampered", "cache-tampered-new-provider", "cache-tampered-locked", "cache-extra-file"} <= set(CASES)
    assert set(ERRORS) <= set(CASES)


@pytest.mark.parametrize("name", CASES)
def test_install_golden(golden: GoldenFactory, name: str) -> None:
    case = golden(name)

    exit, report, error = run(case, golden_client(case))

    case.check(exit)  # what `terraform init` left (or the documented difference)
    assert exit == case.exit
    if error is not None:
        assert (error.kind, [f.kind for f in error.failures]) == ERRORS[name], str(error)
        assert all(f.exit_code == error.exit_code for f in error.failures)
        return
    assert name not in ERRORS
    assert report is not None
    assert report.path == case.dir / LOCK_FILE
    assert report.changed == (case.lock != case.lock_before)
    assert report.platform == tfdisco.Platform(PLATFORM)
    assert {str(p.source): p.version for p in report.providers} == locked_versions(case.lock)
    for provider in report.providers:
        assert provider.installed in ("reused", "cached", "downloaded")
        if provider.installed == "downloaded" and not name.startswith(("fs-mirror", "zip-")):
            assert provider.bytes == archive_size(str(provider.source), provider.version), provider
        if provider.installed != "downloaded":
            assert provider.bytes == 0, provider
    assert json.loads(report.to_json())["providers"][0]["from"] == report.providers[0].from_


# --- What the report says -------------------------------------------------------------


def test_fresh_then_kept(golden: GoldenFactory) -> None:
    case = golden("fresh")
    client = golden_client(case)

    report = client.install(case.dir)

    case.check(0)
    assert case.lock is not None
    hashes = locked_hashes(case.lock)
    alpha, beta = report.providers
    got = [
        (str(p.source), p.version, p.installed, p.from_, p.bytes, p.hashes_added, p.trust, p.key_id)
        for p in report.providers
    ]
    assert got == [
        (
            f"{case.host}/ns/alpha",
            "1.1.0",
            "downloaded",
            "registry",
            archive_size("ns/alpha", "1.1.0"),
            hashes[f"{case.host}/ns/alpha"],
            "self-signed",
            KEY_ID,
        ),
        (
            f"{case.host}/ns/beta",
            "0.10.0",
            "downloaded",
            "registry",
            archive_size("ns/beta", "0.10.0"),
            hashes[f"{case.host}/ns/beta"],
            "self-signed",
            KEY_ID,
        ),
    ]
    assert (report.changed, report.warnings) == (True, [])
    assert repr(alpha).startswith(
        f"InstalledProvider(source=ProviderSource('{case.host}/ns/alpha', dialect='terraform'), "
        "version='1.1.0', installed='downloaded', from_='registry', bytes="
    )
    assert repr(report).startswith(f"InstallReport(path={case.dir / LOCK_FILE!r}, changed=True, ")
    with pytest.raises(AttributeError):
        beta.version = "9.9.9"  # type: ignore[misc]
    document = json.loads(report.to_json())
    assert list(document) == ["lock_file", "changed", "platform", "providers", "warnings", "dialect", "modules"]
    # The root module calls no module: none installed first, none reported.
    assert report.modules == [] and document["modules"] == []
    # The client's dialect was given.
    assert document["dialect"] == {"name": "terraform", "chosen_by": "given", "why": "given"}
    assert report.dialect == client.dialect_choice
    assert repr(report.dialect) == "DialectChoice(name='terraform', chosen_by='given', why='given')"
    assert document["lock_file"] == str(case.dir / LOCK_FILE)
    assert document["platform"] == PLATFORM
    assert document["providers"][1] == {
        "source": f"{case.host}/ns/beta",
        "version": "0.10.0",
        "installed": "downloaded",
        "from": "registry",
        "bytes": beta.bytes,
        "hashes_added": beta.hashes_added,
        "trust": "self-signed",
        "key_id": KEY_ID,
    }

    # Again: everything kept, without a request (the check counts the
    # server's requests: still the first run's downloads alone).
    again = client.install(str(case.dir), jobs=1)

    case.check(0)
    assert again.changed is False
    assert [(p.installed, p.bytes, p.hashes_added) for p in again.providers] == [("reused", 0, [])] * 2


def test_cache_fill_then_hit(golden: GoldenFactory) -> None:
    fill = golden("cache-fill")
    report = golden_client(fill).install(fill.dir)
    fill.check(0)
    assert [p.installed for p in report.providers] == ["downloaded", "downloaded"]

    hit = golden("cache-hit")
    report = golden_client(hit).install(hit.dir)
    hit.check(0)
    assert [(p.installed, p.bytes) for p in report.providers] == [("cached", 0), ("cached", 0)]
    assert report.changed is False


def test_plugin_cache_argument(golden: GoldenFactory) -> None:
    """``plugin_cache=`` instead of ``TF_PLUGIN_CACHE_DIR``: the same tree;
    through the module function, with the client options beside it."""
    case = golden("cache-fill")
    env = {k: v for k, v in case.env.items() if k != "TF_PLUGIN_CACHE_DIR"}
    assert case.cache is not None and env != case.env

    report = tfdisco.install(
        case.dir,
        plugin_cache=case.cache,
        jobs=2,
        dialect="terraform",
        ca_files=[case.ca],
        credentials=None,
        env=env,
    )

    case.check(0)
    assert [p.installed for p in report.providers] == ["downloaded", "downloaded"]


def test_readonly_refuses_a_change(golden: GoldenFactory) -> None:
    case = golden("readonly-new-provider")

    with pytest.raises(tfdisco.LockError) as raised:
        golden_client(case).install(case.dir, lockfile="readonly")

    case.check(3)
    error = raised.value
    assert (error.kind, error.exit_code, error.failures) == ("readonly", 3, [])
    assert "read-only" in str(error) and str(case.dir / LOCK_FILE) in str(error)


def test_network_mirror(golden: GoldenFactory) -> None:
    case = golden("net-mirror")
    report = golden_client(case).install(case.dir)
    case.check(0)
    assert {p.trust for p in report.providers} == {"verified checksum"}
    assert {p.from_ for p in report.providers} == {f"https://{case.server_host}/mirror/"}


def test_filesystem_mirror(golden: GoldenFactory) -> None:
    case = golden("fs-mirror")
    report = golden_client(case).install(case.dir)
    case.check(0)
    assert {(p.trust, p.key_id, p.from_) for p in report.providers} == {
        ("unauthenticated", None, str(case.dir / "fs-mirror"))
    }


def test_trust_all_hashes_records_every_platforms_listed_hashes(any_registry: AnyRegistry, tmp_path: Path) -> None:
    """OpenTofu's ``network_mirror { trust_all_hashes = true }``
    (MIRROR-14), from the mirror ``tfdisco-dev serve --any-registry`` serves
    (the tree Terraform's ``providers mirror`` wrote): for a provider of
    ``registry.opentofu.org`` the lock file records the hashes the mirror
    lists for every platform; without the setting only the installed
    platform's; for a provider of another host, with the setting, only the
    installed platform's too (no signature vouches for the others)."""
    document = json.loads((any_registry.mirror_tree / "{HOST}" / "ns" / "alpha" / "1.1.0.json").read_text())
    listed = {platform: entry["hashes"] for platform, entry in document["archives"].items()}
    assert len(listed) == 3

    def install(name: str, source: str, trusted: bool) -> Tuple[tfdisco.InstallReport, str]:
        rc = tmp_path / f"{name}.tofurc"
        trust = "\n    trust_all_hashes = true" if trusted else ""
        rc.write_text(
            f'provider_installation {{\n  network_mirror {{\n    url = "{any_registry.mirror}"{trust}\n  }}\n}}\n',
            encoding="utf-8",
        )
        directory = tmp_path / name
        directory.mkdir()
        (directory / "main.tf").write_text(
            f'terraform {{\n  required_providers {{\n    alpha = {{\n      source  = "{source}"\n'
            '      version = "~> 1.0"\n    }\n  }\n}\n',
            encoding="utf-8",
        )
        client = tfdisco.Client(
            dialect="opentofu",
            ca_files=[any_registry.ca],
            credentials=None,
            env={"HOME": str(tmp_path / "home"), "TF_CLI_CONFIG_FILE": str(rc)},
        )
        report = client.install(directory)
        return report, (directory / LOCK_FILE).read_text(encoding="utf-8")

    for name, source, address, trusted, every_platform in [
        ("trusted", "ns/alpha", "registry.opentofu.org/ns/alpha", True, True),
        ("plain", "ns/alpha", "registry.opentofu.org/ns/alpha", False, False),
        ("other-host", "registry.terraform.io/ns/alpha", "registry.terraform.io/ns/alpha", True, False),
    ]:
        report, lock = install(name, source, trusted)
        this_platform = listed[str(report.platform)]
        hashes = sorted(h for hs in listed.values() for h in hs) if every_platform else this_platform
        assert locked_hashes(lock) == {address: hashes}, name
        assert locked_versions(lock) == {address: "1.1.0"}, name
        assert [(str(p.source), p.installed, p.from_, p.trust, p.hashes_added) for p in report.providers] == [
            (address, "downloaded", any_registry.mirror, "verified checksum", hashes)
        ], name
        assert (tmp_path / name / ".terraform" / "providers" / address / "1.1.0" / str(report.platform)).is_dir()


def test_async_client_installs_two_cases_at_once(golden: GoldenFactory) -> None:
    cases = [golden("fresh"), golden("cache-fill")]
    clients = [
        tfdisco.AsyncClient(dialect="terraform", ca_files=[c.ca], credentials=None, env=c.env) for c in cases
    ]

    async def main() -> List[tfdisco.InstallReport]:
        return list(await asyncio.gather(*(cl.install(c.dir, jobs=2) for cl, c in zip(clients, cases))))

    reports = asyncio.run(main())

    for case, report in zip(cases, reports):
        case.check(0)
        assert [p.installed for p in report.providers] == ["downloaded", "downloaded"]


def test_async_client_raises_lock_error(golden: GoldenFactory) -> None:
    case = golden("corrupted-archive")
    client = tfdisco.AsyncClient.from_client(golden_client(case))

    with pytest.raises(tfdisco.LockError) as raised:
        asyncio.run(client.install(case.dir))

    case.check(1)
    error = raised.value
    assert (error.kind, error.exit_code) == ("failed", 1)
    [failure] = error.failures
    assert (str(failure.source), failure.version, str(failure.platform), failure.kind) == (
        f"{case.host}/ns/alpha",
        "1.1.0",
        PLATFORM,
        "checksum",
    )


# --- Refused before anything is installed ------------------------------------------


def test_one_provider_named(golden: GoldenFactory) -> None:
    case = golden("fresh")

    report = golden_client(case).install(case.dir, [f"{case.host}/ns/alpha"])

    assert [(str(p.source), p.installed) for p in report.providers] == [(f"{case.host}/ns/alpha", "downloaded")]
    providers = case.dir / ".terraform" / "providers" / case.host / "ns"
    assert sorted(p.name for p in providers.iterdir()) == ["alpha"]
    assert list(locked_versions((case.dir / LOCK_FILE).read_text())) == [f"{case.host}/ns/alpha"]


def test_a_provider_the_configuration_does_not_require(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    directory = prepare("fresh", tmp_path / "case", host)

    with pytest.raises(tfdisco.LockError) as raised:
        client_for(registry_served).install(directory, [f"{host}/ns/gamma"])

    assert (raised.value.exit_code, raised.value.kind, raised.value.failures) == (2, "usage", [])
    assert f"{host}/ns/gamma" in str(raised.value)
    assert registry_served.requests() == []  # refused before any request
    assert not (directory / LOCK_FILE).exists() and not (directory / ".terraform").exists()


def test_upgrade_conflicts_with_readonly(registry_served: Served, tmp_path: Path) -> None:
    directory = prepare("fresh", tmp_path / "case", registry_served.host)

    with pytest.raises(tfdisco.LockError) as raised:
        client_for(registry_served).install(directory, upgrade=True, lockfile="readonly")

    assert (raised.value.exit_code, raised.value.kind) == (2, "usage")
    assert registry_served.requests() == []


def test_a_configuration_that_does_not_parse(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text("terraform {\n", encoding="utf-8")

    with pytest.raises(tfdisco.LockError) as raised:
        tfdisco.install(tmp_path, dialect="terraform", credentials=None)

    assert (raised.value.exit_code, raised.value.kind) == (2, "configuration")
    assert not (tmp_path / LOCK_FILE).exists() and not (tmp_path / ".terraform").exists()


def test_bad_arguments_raise_before_anything_is_read(tmp_path: Path) -> None:
    client = tfdisco.Client(dialect="terraform", credentials=None)
    async_client = tfdisco.AsyncClient.from_client(client)
    cases = [
        (tfdisco.InvalidSource, dict(providers=["aws"])),  # no namespace
        (tfdisco.InvalidSource, dict(providers=["not a source!"])),
        (TypeError, dict(providers="example.com/ns/alpha")),  # a str, not a list
        (TypeError, dict(providers=[42])),
        (tfdisco.InvalidOption, dict(lockfile="read-only")),
        (tfdisco.InvalidOption, dict(lockfile="")),
        (TypeError, dict(lockfile=True)),
        (ValueError, dict(jobs=0)),
        (TypeError, dict(plugin_cache=42)),
        (TypeError, dict(on_event=42)),
        (TypeError, dict(on_event="print")),
    ]
    for exception, arguments in cases:
        with pytest.raises(exception):
            client.install(tmp_path / "missing", **arguments)  # type: ignore[arg-type]
        with pytest.raises(exception):
            tfdisco.install(tmp_path / "missing", **arguments)  # type: ignore[arg-type]
        with pytest.raises(exception):
            asyncio.run(async_client.install(tmp_path / "missing", **arguments))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lockfile must be None or 'readonly'"):
        client.install(tmp_path, lockfile="yes")
    assert not (tmp_path / LOCK_FILE).exists() and not (tmp_path / ".terraform").exists()


# --- Events, and runs stopped -------------------------------------------------------

#: Holds a plugin cache entry's lock in another process, as another
#: tfdisco run (or ``tofu``) would: the folders made, the lock file locked
#: whole with ``fcntl.lockf`` (the POSIX record lock tfdisco and OpenTofu
#: take), ``locked`` printed, held until stdin closes.
HOLD_LOCK = """
import fcntl, os, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "a+") as f:
    fcntl.lockf(f, fcntl.LOCK_EX)
    print("locked", flush=True)
    sys.stdin.read()
"""

#: The keys of each event's dict, in order.
EVENT_KEYS = {
    "downloading": ["event", "source", "version"],
    "downloaded": ["event", "source", "version", "bytes"],
    "waiting_for_cache": ["event", "source", "version", "platform", "lock_file", "waited_seconds"],
}


@contextlib.contextmanager
def held_lock(path: Path) -> Iterator[None]:
    """``path`` locked by a child process while the block runs. Not by this
    process: a POSIX record lock belongs to a process, so this one's would
    not stop its own runs (and their closing the file would drop it)."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        ready, _, _ = select.select([child.stdout], [], [], 30)
        assert ready and child.stdout.readline() == "locked\n", "the child did not take the lock"
        yield
    finally:
        child.stdin.close()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def entry_lock(case: Golden, name: str, version: str) -> Path:
    """The lock file of a provider's plugin cache entry."""
    assert case.cache is not None
    return case.cache / case.host / "ns" / name / version / f"{PLATFORM}.lock"


def assert_nothing_placed(case: Golden) -> None:
    """No ``.terraform``, no lock file, no staging folder left. (A package
    verified before the run stopped may be in the plugin cache: each entry
    is placed, under its lock, once its package passed.)"""
    assert not (case.dir / ".terraform").exists()
    assert not (case.dir / LOCK_FILE).exists()
    for root in [case.dir] + ([case.cache] if case.cache else []):
        assert [p for p in root.rglob("*") if p.name.startswith(".tfdisco-staging-")] == []


def test_on_event_tells_each_download(golden: GoldenFactory) -> None:
    case = golden("fresh")
    events: List[Dict[str, Any]] = []
    threads = set()

    def on_event(event: Dict[str, Any]) -> None:
        events.append(event)
        threads.add(threading.get_ident())

    report = golden_client(case).install(case.dir, on_event=on_event)

    case.check(0)
    assert threads == {threading.get_ident()}  # the thread blocked in install
    for provider in report.providers:
        told = [e for e in events if e["source"] == str(provider.source)]
        assert told == [
            {"event": "downloading", "source": str(provider.source), "version": provider.version},
            {"event": "downloaded", "source": str(provider.source), "version": provider.version, "bytes": provider.bytes},
        ]
    assert len(events) == 4
    assert all(list(e) == EVENT_KEYS[e["event"]] for e in events)
    assert json.loads(json.dumps(events)) == events  # the CLI's JSON lines' values

    # Nothing downloaded, nothing told.
    hit = golden("cache-hit")
    quiet: List[Dict[str, Any]] = []
    golden_client(hit).install(hit.dir, on_event=quiet.append)
    hit.check(0)
    assert quiet == []


def test_async_on_event_from_the_runtime(golden: GoldenFactory) -> None:
    case = golden("cache-fill")
    events: List[Tuple[str, str]] = []
    threads = set()

    def on_event(event: Dict[str, Any]) -> None:
        events.append((event["event"], event["source"].rsplit("/", 1)[1]))
        threads.add(threading.get_ident())

    async def main() -> tfdisco.InstallReport:
        client = tfdisco.AsyncClient.from_client(golden_client(case))
        return await client.install(case.dir, on_event=on_event)

    report = asyncio.run(main())

    case.check(0)
    assert [p.installed for p in report.providers] == ["downloaded", "downloaded"]
    assert sorted(events) == [("downloaded", "alpha"), ("downloaded", "beta"), ("downloading", "alpha"), ("downloading", "beta")]
    assert threading.get_ident() not in threads  # a thread of the runtime, not the loop's


class Stop(Exception):
    """What the tests' ``on_event`` raises."""


@pytest.mark.parametrize("client_kind", ["blocking", "async"])
def test_an_on_event_that_raises_cancels_the_run(golden: GoldenFactory, client_kind: str) -> None:
    case = golden("cache-fill")
    calls: List[Dict[str, Any]] = []

    def on_event(event: Dict[str, Any]) -> None:
        calls.append(event)
        raise Stop(event["source"])

    client = golden_client(case)
    with pytest.raises(Stop) as raised:
        if client_kind == "blocking":
            client.install(case.dir, on_event=on_event)
        else:
            asyncio.run(tfdisco.AsyncClient.from_client(client).install(case.dir, on_event=on_event))

    assert [c["event"] for c in calls] == ["downloading"]  # not called again
    assert raised.value.args == (calls[0]["source"],)
    assert raised.value.__traceback__ is not None
    assert "on_event" in [frame.name for frame in traceback.extract_tb(raised.value.__traceback__)]
    assert_nothing_placed(case)


def test_async_install_cancelled_while_it_waits_for_a_cache_entry(golden: GoldenFactory) -> None:
    """Another process holds alpha's plugin cache entry: after 5 s the run
    says it waits (beta downloaded meanwhile); cancelling the task stops it,
    and by the time ``CancelledError`` is raised nothing is left."""
    case = golden("cache-fill")
    lock_file = entry_lock(case, "alpha", "1.1.0")
    client = tfdisco.AsyncClient.from_client(golden_client(case))
    events: List[Dict[str, Any]] = []

    async def main() -> float:
        loop = asyncio.get_running_loop()
        waiting = asyncio.Event()

        def on_event(event: Dict[str, Any]) -> None:
            events.append(event)
            if event["event"] == "waiting_for_cache":
                loop.call_soon_threadsafe(waiting.set)

        started = time.monotonic()
        task = asyncio.create_task(client.install(case.dir, on_event=on_event))
        await asyncio.wait_for(waiting.wait(), 30)
        told_after = time.monotonic() - started
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return told_after

    with held_lock(lock_file):
        told_after = asyncio.run(main())
        assert_nothing_placed(case)  # the lock still held by the other process
        assert sorted(p.name for p in lock_file.parent.iterdir()) == [lock_file.name]

    [waiting] = [e for e in events if e["event"] == "waiting_for_cache"]
    assert list(waiting) == EVENT_KEYS["waiting_for_cache"]
    assert {k: v for k, v in waiting.items() if k != "waited_seconds"} == {
        "event": "waiting_for_cache",
        "source": f"{case.host}/ns/alpha",
        "version": "1.1.0",
        "platform": PLATFORM,
        "lock_file": str(lock_file),
    }
    assert 5.0 <= waiting["waited_seconds"] <= told_after < 30
    beta = f"{case.host}/ns/beta"
    assert [(e["event"], e["source"]) for e in events if e["event"] != "waiting_for_cache"] == [
        ("downloading", beta),
        ("downloaded", beta),
    ]
    assert_nothing_placed(case)


def test_cancelled_mid_download_nothing_is_left_once_cancelled_error_is_raised(golden: GoldenFactory) -> None:
    """The task cancelled as the first package downloads (no plugin cache:
    the packages are staged under ``.terraform/providers`` until every one
    passed): the run's future is dropped on a thread of the runtime, and
    ``AsyncClient.install`` waits for that before it raises, so the staging
    folders are already removed when ``CancelledError`` arrives."""
    case = golden("fresh")
    client = tfdisco.AsyncClient.from_client(golden_client(case))
    told: List[str] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        tasks: List["asyncio.Task[tfdisco.InstallReport]"] = []

        def on_event(event: Dict[str, Any]) -> None:
            told.append(event["event"])
            if len(told) == 1:
                loop.call_soon_threadsafe(tasks[0].cancel)
                time.sleep(0.5)  # the GIL released: the loop cancels the task meanwhile

        tasks.append(asyncio.create_task(client.install(case.dir, on_event=on_event)))
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(tasks[0]), 30)

    asyncio.run(main())

    assert told[0] == "downloading" and len(told) < 4  # stopped before the end
    assert_nothing_placed(case)


def test_ctrl_c_stops_a_blocking_install_waiting_for_a_cache_entry(golden: GoldenFactory) -> None:
    case = golden("cache-fill")
    lock_file = entry_lock(case, "beta", "0.10.0")
    told: List[str] = []

    def on_event(event: Dict[str, Any]) -> None:
        told.append(event["event"])
        if event["event"] == "waiting_for_cache":
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C

    with held_lock(lock_file):
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            golden_client(case).install(case.dir, on_event=on_event)
        assert time.monotonic() - started < 30
        assert_nothing_placed(case)
        assert sorted(p.name for p in lock_file.parent.iterdir()) == [lock_file.name]

    assert told.count("waiting_for_cache") == 1
    assert told[:2] == ["downloading", "downloaded"]  # alpha, meanwhile


def test_a_cancelled_run_is_a_lock_error_of_kind_cancelled() -> None:
    """What the native module gives for ``LockError::Cancelled``: a
    ``LockError`` (kinds are not subclasses), exit code 130."""
    from tfdisco._errors import _make_lock

    error = _make_lock("the install was cancelled: nothing was placed, and the lock file is as it was", "cancelled", 130, [])
    assert type(error) is tfdisco.LockError
    assert (error.kind, error.exit_code, error.failures) == ("cancelled", 130, [])
