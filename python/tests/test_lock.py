"""Lock files: ``tfdisco.lock``, ``Client.lock``,
``AsyncClient.lock`` and ``tfdisco.hash_package``, against the signed
provider registry ``tfdisco-dev serve`` serves next to its document
(testkit/src/signed_registry.rs: ``ns/alpha`` and ``ns/beta``
with real packages, each version's ``SHA256SUMS`` signed by a test key),
compared with the lock files real Terraform wrote for the same registry
(testkit/fixtures/lock-goldens/, testkit/src/lock_goldens.rs).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import os
import re
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Dict, List

import pytest

import tfdisco
from conftest import REPO, AnyRegistry, Served

FIXTURES = REPO / "testkit" / "fixtures"
GOLDENS = FIXTURES / "lock-goldens"
SIGNED = FIXTURES / "signed-registry"
LOCK_FILE = ".terraform.lock.hcl"
ALL = ["linux_amd64", "darwin_arm64", "windows_amd64"]
KEY_ID = "93BBAC3B9551CE46"


def hosted(path: Path, host: str) -> str:
    return path.read_text(encoding="utf-8").replace("{HOST}", host)


def prepare(case: str, into: Path, host: str, part: str = "input") -> Path:
    """Copies a golden case's ``input/`` (or ``before/``) into ``into`` with
    ``{HOST}`` replaced, as ``Case::prepare`` does."""
    into.mkdir(parents=True, exist_ok=True)
    for source in (GOLDENS / case / part).rglob("*"):
        target = into / source.relative_to(GOLDENS / case / part)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.write_text(hosted(source, host), encoding="utf-8")
    return into


def expected(case: str, host: str) -> bytes:
    return hosted(GOLDENS / case / "terraform.lock.hcl", host).encode("utf-8")


def golden_hashes(text: str) -> Dict[str, List[str]]:
    """The hashes of each provider block of a lock file."""
    blocks = re.findall(r'provider "([^"]+)" \{(.*?)\n\}', text, re.S)
    return {address: re.findall(r'"((?:h1|zh):[^"]+)"', body) for address, body in blocks}


def client_for(server: Served, **options: object) -> tfdisco.Client:
    options.setdefault("dialect", "terraform")
    return tfdisco.Client(ca_files=[str(server.ca)], credentials=None, **options)  # type: ignore[arg-type]


def check_fresh_report(report: tfdisco.LockReport, directory: Path, host: str) -> None:
    assert report.path == directory / LOCK_FILE
    assert report.changed is True
    assert report.platforms == [tfdisco.Platform(p) for p in ALL]
    golden = golden_hashes(expected("fresh", host).decode())
    got = [
        (str(p.source), p.version, p.constraints, p.trust, p.key_id, p.hashes_added)
        for p in report.providers
    ]
    assert got == [
        (f"{host}/ns/alpha", "1.1.0", "~> 1.0", "self-signed", KEY_ID, golden[f"{host}/ns/alpha"]),
        (f"{host}/ns/beta", "0.10.0", ">= 0.9.0", "self-signed", KEY_ID, golden[f"{host}/ns/beta"]),
    ]


# --- Written as Terraform writes it ---------------------------------------------


def test_fresh_lock_file_is_terraforms_byte_for_byte(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    directory = prepare("fresh", tmp_path / "fresh", host)
    client = client_for(registry_served)

    report = client.lock(directory, ALL)

    assert (directory / LOCK_FILE).read_bytes() == expected("fresh", host)
    check_fresh_report(report, directory, host)
    alpha = report.providers[0]
    assert repr(alpha).startswith(
        f"LockedProvider(source=ProviderSource('{host}/ns/alpha', dialect='terraform'), "
        "version='1.1.0', constraints='~> 1.0', hashes_added=['h1:"
    )
    assert repr(alpha).endswith(f"trust='self-signed', key_id='{KEY_ID}')")
    with pytest.raises(AttributeError):
        alpha.version = "9.9.9"  # type: ignore[misc]

    # Again: nothing new, the file left alone.
    before = (directory / LOCK_FILE).stat().st_mtime_ns
    again = client.lock(str(directory), ALL, jobs=1)
    assert again.changed is False
    assert [p.hashes_added for p in again.providers] == [[], []]
    assert [p.version for p in again.providers] == ["1.1.0", "0.10.0"]
    assert (directory / LOCK_FILE).read_bytes() == expected("fresh", host)
    assert (directory / LOCK_FILE).stat().st_mtime_ns == before


def test_module_function_takes_the_client_options(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    directory = prepare("fresh", tmp_path / "fresh", host)

    report = tfdisco.lock(
        directory,
        (tfdisco.Platform(p) for p in ALL),  # any iterable of Platforms or strs
        [f"{host}/ns/alpha", tfdisco.ProviderSource(f"{host}/NS/Beta", dialect="terraform")],
        jobs=3,
        dialect="terraform",
        ca_files=[registry_served.ca],
        credentials=None,
        timeout=30.0,
        registry_retries=0,
    )

    assert (directory / LOCK_FILE).read_bytes() == expected("fresh", host)
    check_fresh_report(report, directory, host)


def test_one_provider_named(registry_served: Served, tmp_path: Path) -> None:
    """The `prerelease-named` case: a pre-release the constraint names, one
    provider named."""
    host = registry_served.host
    directory = prepare("prerelease-named", tmp_path / "case", host)

    report = client_for(registry_served).lock(directory, ["darwin_arm64"], [f"{host}/ns/beta"])

    assert (directory / LOCK_FILE).read_bytes() == expected("prerelease-named", host)
    assert [(str(p.source), p.version) for p in report.providers] == [
        (f"{host}/ns/beta", "0.10.0-beta1")
    ]


def test_async_client_writes_the_same_file(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    first = prepare("fresh", tmp_path / "one", host)
    second = prepare("fresh", tmp_path / "two", host)
    client = tfdisco.AsyncClient(dialect="terraform", ca_files=[registry_served.ca], credentials=None)

    async def main() -> List[tfdisco.LockReport]:
        return list(
            await asyncio.gather(
                client.lock(first, ALL),
                client.lock(second, ALL, jobs=2),
            )
        )

    reports = asyncio.run(main())

    for directory, report in zip((first, second), reports):
        assert (directory / LOCK_FILE).read_bytes() == expected("fresh", host)
        check_fresh_report(report, directory, host)


def test_threads_share_one_client(registry_served: Served, tmp_path: Path) -> None:
    """Blocking runs release the GIL: four threads lock four configurations
    with one client at once."""
    host = registry_served.host
    client = client_for(registry_served)
    directories = [prepare("fresh", tmp_path / f"config{i}", host) for i in range(4)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        reports = list(pool.map(lambda d: client.lock(d, ALL, jobs=4), directories))
    for directory, report in zip(directories, reports):
        assert (directory / LOCK_FILE).read_bytes() == expected("fresh", host)
        check_fresh_report(report, directory, host)


# --- Refused: the lock file as it was ----------------------------------------------


def lock_error(call) -> tfdisco.LockError:  # type: ignore[no-untyped-def]
    with pytest.raises(tfdisco.LockError) as raised:
        call()
    return raised.value


def test_no_version_matches(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    directory = prepare("no-match", tmp_path / "case", host)

    error = lock_error(lambda: client_for(registry_served).lock(directory, ["linux_amd64"]))

    assert isinstance(error, tfdisco.Error)
    assert (error.exit_code, error.kind) == (3, "failed")
    assert not (directory / LOCK_FILE).exists()
    [failure] = error.failures
    assert isinstance(failure, tfdisco.LockFailure)
    assert (str(failure.source), failure.version, failure.platform) == (f"{host}/ns/alpha", None, None)
    assert (failure.kind, failure.exit_code) == ("version", 3)
    assert failure.message.startswith(f"{host}/ns/alpha: ")
    assert ">= 3.0.0" in failure.message and failure.message in str(error)


def test_no_version_matches_async(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    directory = prepare("no-match", tmp_path / "case", host)
    client = tfdisco.AsyncClient(dialect="terraform", ca_files=[registry_served.ca], credentials=None)

    error = lock_error(lambda: asyncio.run(client.lock(directory, ["linux_amd64"])))

    assert error.exit_code == 3 and [f.kind for f in error.failures] == ["version"]
    assert not (directory / LOCK_FILE).exists()


def test_locked_version_outside_the_constraints(registry_served: Served, tmp_path: Path) -> None:
    """The `locked-outside` case: the lock file made from `before/` (1.0.0
    pinned), then the constraint moved to `~> 2.0`."""
    host = registry_served.host
    directory = prepare("locked-outside", tmp_path / "case", host, part="before")
    client = client_for(registry_served)
    client.lock(directory, ["linux_amd64"])
    locked = (directory / LOCK_FILE).read_bytes()
    assert b'version     = "1.0.0"' in locked
    prepare("locked-outside", directory, host)

    error = lock_error(lambda: client.lock(directory, ["linux_amd64"]))

    assert error.exit_code == 3
    assert [(f.kind, str(f.source)) for f in error.failures] == [("version", f"{host}/ns/alpha")]
    assert "1.0.0" in str(error) and "~> 2.0" in str(error)
    assert (directory / LOCK_FILE).read_bytes() == locked


def test_platform_the_registry_does_not_offer(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    directory = prepare("unknown-platform", tmp_path / "case", host, part="before")
    client = client_for(registry_served)
    client.lock(directory, ["linux_amd64"])
    locked = (directory / LOCK_FILE).read_bytes()

    error = lock_error(lambda: client.lock(directory, ["linux_amd64", "plan9_amd64"]))

    assert error.exit_code == 3
    [failure] = error.failures
    assert (failure.kind, failure.version, failure.platform) == (
        "platform",
        "1.1.0",
        tfdisco.Platform("plan9_amd64"),
    )
    assert "plan9_amd64" in failure.message
    assert (directory / LOCK_FILE).read_bytes() == locked


def test_a_provider_the_configuration_does_not_require(registry_served: Served, tmp_path: Path) -> None:
    host = registry_served.host
    directory = prepare("no-match", tmp_path / "case", host)

    error = lock_error(
        lambda: client_for(registry_served).lock(directory, ["linux_amd64"], [f"{host}/ns/gamma"])
    )

    assert (error.exit_code, error.kind, error.failures) == (2, "usage", [])
    assert f"{host}/ns/gamma" in str(error)
    assert registry_served.requests() == []  # refused before any request
    assert not (directory / LOCK_FILE).exists()


def test_a_configuration_that_does_not_parse(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text("terraform {\n", encoding="utf-8")

    error = lock_error(lambda: tfdisco.lock(tmp_path, ["linux_amd64"], dialect="terraform"))

    assert (error.exit_code, error.kind) == (2, "configuration")
    assert not (tmp_path / LOCK_FILE).exists()


def test_bad_arguments_raise_before_anything_is_read(tmp_path: Path) -> None:
    """Nothing listens and no configuration exists: the arguments are
    refused first, by both clients."""
    client = tfdisco.Client(dialect="terraform", credentials=None)
    async_client = tfdisco.AsyncClient.from_client(client)
    cases = [
        (tfdisco.InvalidArgument, dict(platforms=["linux"])),
        (tfdisco.InvalidArgument, dict(platforms=["linux_amd64", "Linux_AMD64"])),
        (tfdisco.InvalidSource, dict(providers=["aws"])),  # no namespace
        (tfdisco.InvalidSource, dict(providers=["not a source!"])),
        (TypeError, dict(platforms="linux_amd64")),  # a str, not a list
        (TypeError, dict(providers="example.com/ns/alpha")),
        (TypeError, dict(platforms=[42])),
        (TypeError, dict(platforms=7)),
        (ValueError, dict(jobs=0)),
    ]
    for exception, arguments in cases:
        with pytest.raises(exception):
            client.lock(tmp_path / "missing", **arguments)  # type: ignore[arg-type]
        with pytest.raises(exception):
            tfdisco.lock(tmp_path / "missing", **arguments)  # type: ignore[arg-type]
        with pytest.raises(exception):
            asyncio.run(async_client.lock(tmp_path / "missing", **arguments))  # type: ignore[arg-type]
    with pytest.raises(tfdisco.InvalidArgument, match="linux"):
        client.lock(tmp_path, ["linux"])
    with pytest.raises(TypeError, match="not a str"):
        client.lock(tmp_path, "linux_amd64")  # type: ignore[arg-type]
    assert not (tmp_path / LOCK_FILE).exists()


# --- Through the plugin cache (-enable-plugin-cache, LOCKRUN-10) ---------------------

TWO = ["linux_amd64", "darwin_arm64"]


def umask() -> int:
    """The process umask, read without changing it: the mode a new folder
    gets (as the testkit's ``process_umask``)."""
    with tempfile.TemporaryDirectory() as scratch:
        probe = Path(scratch) / "probe"
        probe.mkdir()
        return ~probe.stat().st_mode & 0o777


def cache_manifest(cache: Path) -> str:
    """What ``cache`` holds, one line per entry sorted by path, as the
    testkit's ``tree_manifest`` writes it (testkit/src/
    install_goldens/tree.rs), without the entries' lock files
    (``HOST/NS/TYPE/VERSION/OS_ARCH.lock``, which Terraform does not write)."""
    lines = []
    for path in cache.rglob("*"):
        relative = path.relative_to(cache).as_posix()
        rel = "{CACHE}/" + relative
        mode = path.lstat().st_mode & 0o7777
        if path.is_symlink():
            line = f"link {mode:04o} {rel} -> {os.readlink(path)}"
        elif path.is_dir():
            line = f"dir {mode:04o} {rel}"
        elif path.is_file():
            parts = relative.split("/")
            if len(parts) == 5 and parts[4].endswith(".lock") and parts[4][: -len(".lock")].count("_") == 1:
                continue
            line = f"file {mode:04o} {rel} {hashlib.sha256(path.read_bytes()).hexdigest()}"
        else:
            line = f"other {mode:04o} {rel}"
        lines.append((rel, line))
    return "".join(line + "\n" for _, line in sorted(lines))


def expected_cache(case: str, host: str) -> str:
    """A case's ``cache.txt`` (the cache Terraform left, made under umask
    022), its folders' modes as this process's umask makes them."""
    folder = f"dir {0o755 & ~umask():04o} "
    lines = hosted(GOLDENS / case / "cache.txt", host).splitlines()
    return "".join(
        (folder + line[len("dir 0755 ") :] if line.startswith("dir 0755 ") else line) + "\n" for line in lines
    )


def downloads(requests: List[str]) -> List[str]:
    """The archive downloads among request lines, sorted."""
    return sorted(line[len("GET ") :] for line in requests if line.startswith("GET ") and line.endswith(".zip"))


def test_the_plugin_cache_filled_then_hit(registry_served: Served, tmp_path: Path) -> None:
    """The `cache-fill` case (an empty cache, no lock file): Terraform's lock
    file, every package unpacked into the cache as Terraform unpacked it,
    the archives it downloaded. Then `cache-hit` (that cache and that lock
    file), with the folder from the client's ``TF_PLUGIN_CACHE_DIR``:
    nothing downloaded, nothing changed."""
    host = registry_served.host
    cache = tmp_path / "cache"
    cache.mkdir()
    directory = prepare("cache-fill", tmp_path / "fill", host)
    before = len(registry_served.requests())

    report = client_for(registry_served).lock(directory, TWO, enable_plugin_cache=True, plugin_cache=cache)

    assert (directory / LOCK_FILE).read_bytes() == expected("cache-fill", host)
    assert report.changed is True
    assert [(str(p.source), p.version) for p in report.providers] == [
        (f"{host}/ns/alpha", "1.1.0"),
        (f"{host}/ns/beta", "0.10.0"),
    ]
    for name, version in [("alpha", "1.1.0"), ("beta", "0.10.0")]:
        for platform in TWO:
            assert (cache / host / "ns" / name / version / platform).is_dir(), (name, platform)
    assert cache_manifest(cache) == expected_cache("cache-fill", host)
    fill_requests = registry_served.requests()[before:]
    assert downloads(fill_requests) == downloads(hosted(GOLDENS / "cache-fill" / "requests.txt", host).splitlines())
    assert not (directory / ".terraform").exists()  # only the lock file and the cache

    # cache-hit: the lock file vouches for every entry.
    assert hosted(GOLDENS / "cache-hit" / "cache-before.txt", host) == hosted(
        GOLDENS / "cache-fill" / "cache.txt", host
    )
    directory = prepare("cache-hit", tmp_path / "hit", host)
    locked = (directory / LOCK_FILE).read_bytes()
    client = tfdisco.AsyncClient(
        dialect="terraform",
        ca_files=[registry_served.ca],
        credentials=None,
        env={"HOME": str(tmp_path / "home"), "TF_PLUGIN_CACHE_DIR": str(cache)},
    )
    before = len(registry_served.requests())

    report = asyncio.run(client.lock(directory, TWO, enable_plugin_cache=True))

    assert report.changed is False
    assert [p.hashes_added for p in report.providers] == [[], []]
    assert (directory / LOCK_FILE).read_bytes() == locked == expected("cache-hit", host)
    assert cache_manifest(cache) == expected_cache("cache-hit", host)
    hit_requests = registry_served.requests()[before:]
    assert downloads(hit_requests) == [] == downloads(
        hosted(GOLDENS / "cache-hit" / "requests.txt", host).splitlines()
    )
    assert any(line.endswith("/versions") for line in hit_requests)


def test_without_enable_plugin_cache_the_cache_is_not_used(registry_served: Served, tmp_path: Path) -> None:
    """The client's ``TF_PLUGIN_CACHE_DIR`` is read only with
    ``enable_plugin_cache=True`` (the `cache-without-flag` case)."""
    host = registry_served.host
    cache = tmp_path / "cache"
    cache.mkdir()
    directory = prepare("cache-without-flag", tmp_path / "case", host)
    client = client_for(registry_served, env={"HOME": str(tmp_path / "home"), "TF_PLUGIN_CACHE_DIR": str(cache)})

    client.lock(directory, TWO)

    assert (directory / LOCK_FILE).read_bytes() == expected("cache-without-flag", host)
    assert cache_manifest(cache) == expected_cache("cache-without-flag", host) == ""


def test_plugin_cache_without_enable_plugin_cache_is_refused(tmp_path: Path) -> None:
    """As the CLI refuses ``--plugin-cache`` without
    ``--enable-plugin-cache``: ``InvalidOption`` (a ``ValueError``) from
    every lock call, before anything is read."""
    client = tfdisco.Client(dialect="terraform", credentials=None)
    async_client = tfdisco.AsyncClient.from_client(client)
    cache = tmp_path / "cache"
    for arguments in [dict(plugin_cache=cache), dict(plugin_cache=str(cache), enable_plugin_cache=False)]:
        calls = [
            lambda: client.lock(tmp_path / "missing", **arguments),  # type: ignore[arg-type]
            lambda: tfdisco.lock(tmp_path / "missing", dialect="terraform", **arguments),  # type: ignore[arg-type]
            lambda: asyncio.run(async_client.lock(tmp_path / "missing", **arguments)),  # type: ignore[arg-type]
        ]
        for call in calls:
            with pytest.raises(tfdisco.InvalidOption, match="plugin_cache requires enable_plugin_cache=True") as raised:
                call()
            assert isinstance(raised.value, ValueError)
    with pytest.raises(TypeError):
        client.lock(tmp_path, enable_plugin_cache=True, plugin_cache=42)  # type: ignore[arg-type]
    assert not cache.exists()


# --- Configurations read as Terraform reads them (TFCFG-8, LOCKRUN-9) ---------------

REAL = FIXTURES / "real-configurations"
#: The platforms of every run of the corpus (``real_configurations::PLATFORMS``).
REAL_PLATFORMS = ["linux_amd64", "darwin_arm64"]


def test_real_configurations_lock_as_terraform_locks_them(any_registry: AnyRegistry, tmp_path: Path) -> None:
    """Two edges of the corpus of real configurations
    (testkit/src/real_configurations.rs), the ones the old
    parser refused: a type 17 brackets deep and one resource of 250
    dynamic blocks with conditionals (96 kB). Locked in the Terraform
    dialect against the registry that answers for any provider, which the
    client's ``TF_CLI_CONFIG_FILE`` sends ``registry.terraform.io`` to with
    ``host`` blocks: the lock file Terraform 1.11.4 wrote for the same
    configuration against the same registry, byte for byte."""
    client = tfdisco.Client(
        dialect="terraform",
        ca_files=[any_registry.ca],
        credentials=None,
        env={"HOME": str(tmp_path / "home"), "TF_CLI_CONFIG_FILE": str(any_registry.cli_config)},
    )
    for name, source in [
        ("deeper-types", "registry.terraform.io/hashicorp/kubernetes"),
        ("long-conditionals", "registry.terraform.io/hashicorp/google"),
    ]:
        directory = tmp_path / name
        shutil.copytree(REAL / "edges" / name, directory)
        golden = (REAL / "goldens" / "edges" / name / "terraform.lock.hcl").read_bytes()

        report = client.lock(directory, REAL_PLATFORMS)

        assert (directory / LOCK_FILE).read_bytes() == golden, name
        assert report.changed is True
        assert report.platforms == [tfdisco.Platform(p) for p in REAL_PLATFORMS]
        assert [(str(p.source), p.trust, p.key_id) for p in report.providers] == [
            (source, "self-signed", any_registry.key_id)
        ], name
        assert report.providers[0].hashes_added == golden_hashes(golden.decode())[source], name


# --- Package hashes -----------------------------------------------------------------


def sha256sums(name: str, version: str) -> Dict[str, str]:
    """File name → SHA-256 from a version's SHA256SUMS."""
    text = (SIGNED / "ns" / name / version / f"terraform-provider-{name}_{version}_SHA256SUMS").read_text()
    return {file: digest for digest, file in (line.split("  ") for line in text.splitlines() if line)}


def package(name: str, version: str, platform: str) -> Path:
    return SIGNED / "ns" / name / version / f"terraform-provider-{name}_{version}_{platform}.zip"


def test_hash_package_gives_terraforms_h1_and_the_sha256sums_zh() -> None:
    golden = golden_hashes(hosted(GOLDENS / "fresh" / "terraform.lock.hcl", "HOST"))["HOST/ns/beta"]
    sums = sha256sums("beta", "0.10.0")
    h1s = []
    for platform in ALL:
        path = package("beta", "0.10.0", platform)
        h1, zh = tfdisco.hash_package(path)
        assert h1.startswith("h1:") and h1 in golden, (platform, h1)
        assert zh == "zh:" + sums[path.name]
        assert zh in golden
        h1s.append(h1)
    assert sorted(h1s) == [h for h in golden if h.startswith("h1:")]  # one each, all three

    linux = package("beta", "0.10.0", "linux_amd64")
    assert tfdisco.hash_package(str(linux)) == tfdisco.hash_package(linux)
    assert tfdisco.hash_package(linux)[1] == (
        "zh:78168bef31eb30ec6398cf8a9da27e1f9c29b8b0778c268fb0af98f5886e8d80"
    )


def test_hash_package_refuses_what_is_no_package(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"this is not a zip file\n" * 100)
    with pytest.raises(tfdisco.InvalidPackage) as raised:
        tfdisco.hash_package(garbage)
    error = raised.value
    assert isinstance(error, ValueError) and isinstance(error, tfdisco.Error)
    assert (error.kind, error.problem) == ("invalid_package", "not-a-zip")
    assert str(garbage) in str(error) and "not a zip" in str(error)

    real = package("beta", "0.10.0", "linux_amd64").read_bytes()
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(real[: len(real) // 2])
    with pytest.raises(tfdisco.InvalidPackage) as raised:
        tfdisco.hash_package(truncated)
    assert raised.value.problem == "truncated"

    # A byte in the middle of the first file's deflated data: the stream
    # or its CRC-32 no longer holds.
    with zipfile.ZipFile(package("beta", "0.10.0", "linux_amd64")) as archive:
        entry = next(e for e in archive.infolist() if e.compress_size > 0)
    start = entry.header_offset + 30 + len(entry.filename.encode()) + len(entry.extra)
    spoiled = bytearray(real)
    spoiled[start + entry.compress_size // 2] ^= 0xFF
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(bytes(spoiled))
    with pytest.raises(tfdisco.InvalidPackage) as raised:
        tfdisco.hash_package(damaged)
    assert raised.value.problem == "corrupt"

    empty = tmp_path / "empty.zip"
    empty.write_bytes(b"")
    with pytest.raises(tfdisco.InvalidPackage):
        tfdisco.hash_package(empty)


def test_hash_package_of_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    missing = tmp_path / "missing.zip"
    with pytest.raises(FileNotFoundError) as raised:
        tfdisco.hash_package(missing)
    assert raised.value.filename == str(missing)
    with pytest.raises(IsADirectoryError):
        tfdisco.hash_package(tmp_path)
    with pytest.raises(TypeError):
        tfdisco.hash_package(42)  # type: ignore[arg-type]


def test_hash_package_of_a_copy_is_the_same(tmp_path: Path) -> None:
    source = package("alpha", "1.1.0", "darwin_arm64")
    copy = tmp_path / "renamed.zip"
    shutil.copyfile(source, copy)
    h1, zh = tfdisco.hash_package(copy)
    assert (h1, zh) == tfdisco.hash_package(source)
    golden = golden_hashes(hosted(GOLDENS / "fresh" / "terraform.lock.hcl", "HOST"))["HOST/ns/alpha"]
    assert h1 in golden and zh in golden
