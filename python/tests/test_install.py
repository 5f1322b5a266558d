"""Provider installation (issue 26): ``tfdisco.install``, ``Client.install``
and ``AsyncClient.install``, against every case of the install goldens
(transports/testkit/fixtures/install-goldens/, what the real ``terraform
init`` did with the same input): ``tfdisco serve --golden-install CASE``
sets each case up on its signed registry (or mirror) with the testkit's
own ``Case::setup`` and judges what the run left with its
``Expected::check``, as the Rust conformance suite judges the library
(conftest.Golden).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import pytest

import tfdisco
from conftest import REPO, Golden, Served
from test_lock import KEY_ID, LOCK_FILE, client_for, prepare

GOLDENS = REPO / "transports" / "testkit" / "fixtures" / "install-goldens"
SIGNED = REPO / "transports" / "testkit" / "fixtures" / "signed-registry"
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
    assert len(CASES) >= 23
    assert {"fresh", "kept", "cache-fill", "cache-hit", "corrupted-archive"} <= set(CASES)
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
    assert list(document) == ["lock_file", "changed", "platform", "providers", "warnings"]
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
