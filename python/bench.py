#!/usr/bin/env python3
"""Benchmarks of the tfdisco Python package against the usual alternatives.

1. Hostname normalization: ``tfdisco.normalize`` against the ``idna``
   package's ``idna.encode(name, uts46=True)`` over the same 10 000 names
   (the Rust benchmarks' corpus, ``tests/corpus.py``). Neither result is
   checked here (the parity test does that for tfdisco); ``idna`` refuses
   names with ports, which tfdisco accepts.
2. One discovery against a loopback ``tfdisco-dev serve``: ``Client.discover``
   against ``requests`` (or ``urllib`` without it) + ``json`` doing the bare
   ``GET /.well-known/terraform.json``, on a reused connection ("warm") and
   with a new client and connection each time ("cold").
3. A discovery already in the cache: ``Client.discover`` and one ``await``
   of ``AsyncClient.discover`` / ``service_url`` / ``oauth_client`` inside
   a running event loop (per call, over batches of 100).

Prints the median of each. Usage::

    python bench.py [--runs N] [--serve-bin PATH]

``--serve-bin`` (default ``$TFDISCO_DEV_BIN``, else ``target/release`` or
``target/debug`` of the repository or ``$CARGO_TARGET_DIR``) is the
development server ``tfdisco-dev`` whose ``serve`` command is the server.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Optional

HERE = Path(__file__).resolve().parent
# Import the installed package, not the sources next to this script (they
# lack the native module).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE / "tests"))

import tfdisco  # noqa: E402
from corpus import corpus  # noqa: E402


def median_seconds(run: Callable[[], object], runs: int, warmup: int = 2) -> float:
    """The median wall time of ``runs`` calls of ``run``."""
    for _ in range(warmup):
        run()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def fmt(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds * 1e6:8.1f} µs"


def bench_normalize(runs: int) -> None:
    names = corpus(10_000)

    def with_tfdisco() -> None:
        normalize = tfdisco.normalize
        error = tfdisco.InvalidHostname
        for name in names:
            try:
                normalize(name)
            except error:
                pass

    valid_names = [n for n in names if tfdisco.is_valid(n)]

    def with_tfdisco_valid_only() -> None:
        normalize = tfdisco.normalize
        for name in valid_names:
            normalize(name)

    def with_is_valid() -> None:
        is_valid = tfdisco.is_valid
        for name in names:
            is_valid(name)

    print(f"normalization of {len(names)} names (median of {runs} runs)")
    ours = median_seconds(with_tfdisco, runs)
    print(f"  tfdisco.normalize            {fmt(ours)}   {ours / len(names) * 1e9:7.0f} ns/name")
    only = median_seconds(with_tfdisco_valid_only, runs)
    print(
        f"  tfdisco.normalize, the {len(valid_names)} valid ones {fmt(only)}"
        f"   {only / len(valid_names) * 1e9:7.0f} ns/name"
    )
    valid = median_seconds(with_is_valid, runs)
    print(f"  tfdisco.is_valid             {fmt(valid)}   {valid / len(names) * 1e9:7.0f} ns/name")
    try:
        import idna
    except ImportError:
        print("  idna: not installed (pip install idna)")
        return

    def with_idna() -> None:
        encode = idna.encode
        for name in names:
            try:
                encode(name, uts46=True)
            except (idna.IDNAError, UnicodeError, ValueError):
                pass

    theirs = median_seconds(with_idna, runs)
    print(f"  idna.encode(uts46=True)      {fmt(theirs)}   {theirs / len(names) * 1e9:7.0f} ns/name")
    print(f"  tfdisco is {theirs / ours:.1f}x faster")


def find_serve_binary(given: Optional[str]) -> Path:
    if given:
        return Path(given)
    if os.environ.get("TFDISCO_DEV_BIN"):
        return Path(os.environ["TFDISCO_DEV_BIN"])
    roots = [Path(os.environ["CARGO_TARGET_DIR"])] if os.environ.get("CARGO_TARGET_DIR") else []
    roots.append(HERE.parent / "target")
    for profile in ("release", "debug"):
        for root in roots:
            if (root / profile / "tfdisco-dev").exists():
                return root / profile / "tfdisco-dev"
    sys.exit("tfdisco-dev not found: build it (cargo build --release -p tfdisco-dev-server) or pass --serve-bin")


def bench_discovery(runs: int, binary: Path) -> None:
    with tempfile.TemporaryDirectory() as directory:
        ca = Path(directory) / "ca.pem"
        server = subprocess.Popen(
            [str(binary), "serve", "--listen", "127.0.0.1:0", "--ca-out", str(ca)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert server.stdout is not None
            port = None
            for line in server.stdout:
                found = re.match(r"serving https://(?:localhost|127\.0\.0\.1):(\d+)/", line)
                if found:
                    port = int(found.group(1))
                if line.startswith("press Ctrl-C"):
                    break
            assert port is not None, "tfdisco-dev serve did not start"
            # Keep the server's request log from filling the pipe.
            import threading

            threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
            run_discovery(runs, port, ca, binary)
        finally:
            server.terminate()
            server.wait()


def run_discovery(runs: int, port: int, ca: Path, binary: Path) -> None:
    host = f"localhost:{port}"
    url = f"https://{host}/.well-known/terraform.json"
    options = dict(ca_files=[str(ca)], system_roots=False, credentials=None, cli_config=False)
    client = tfdisco.Client(**options)

    def warm_tfdisco() -> None:
        client.forget_all()
        client.discover(host)

    def cold_tfdisco() -> None:
        tfdisco.Client(**options).discover(host)

    print(f"one discovery of {host} over loopback HTTPS ({binary.parent.name} tfdisco-dev serve; median of {runs} runs)")
    results = {
        "tfdisco Client.discover, warm": median_seconds(warm_tfdisco, runs, warmup=5),
        "tfdisco Client.discover, cold": median_seconds(cold_tfdisco, max(runs // 4, 5)),
    }
    try:
        import requests

        def new_session() -> "requests.Session":
            # trust_env=False: REQUESTS_CA_BUNDLE and proxies from the
            # environment would override `verify`.
            session = requests.Session()
            session.trust_env = False
            session.verify = str(ca)
            return session

        session = new_session()

        def warm_requests() -> None:
            response = session.get(url, headers={"Accept": "application/json"}, timeout=11)
            response.raise_for_status()
            json.loads(response.content)

        def cold_requests() -> None:
            with new_session() as fresh:
                response = fresh.get(url, headers={"Accept": "application/json"}, timeout=11)
            response.raise_for_status()
            json.loads(response.content)

        results["requests + json, warm"] = median_seconds(warm_requests, runs, warmup=5)
        results["requests + json, cold"] = median_seconds(cold_requests, max(runs // 4, 5))
    except ImportError:
        import ssl
        import urllib.request

        context = ssl.create_default_context(cafile=str(ca))

        def cold_urllib() -> None:
            request = urllib.request.Request(url, headers={"Accept": "application/json"})
            with urllib.request.urlopen(request, context=context, timeout=11) as response:
                json.loads(response.read())

        results["urllib + json, cold"] = median_seconds(cold_urllib, max(runs // 4, 5))
    for name, seconds in results.items():
        print(f"  {name:32} {fmt(seconds)}")
    run_cached(runs, host, options)


def run_cached(runs: int, host: str, options: dict) -> None:
    """A discovery already in the cache, blocking and awaited."""
    import asyncio

    batch = 100
    client = tfdisco.Client(**options)
    client.discover(host)
    aclient = tfdisco.AsyncClient.from_client(client)

    def blocking() -> None:
        discover = client.discover
        for _ in range(batch):
            discover(host)

    async def awaits(call: Callable[[], "object"]) -> None:
        for _ in range(batch):
            await call()  # type: ignore[misc]

    loop = asyncio.new_event_loop()
    calls = {
        "AsyncClient.discover": lambda: aclient.discover(host),
        "AsyncClient.service_url": lambda: aclient.service_url(host, "modules.v1"),
        "AsyncClient.oauth_client": lambda: aclient.oauth_client(host, "login.v1"),
    }
    print(f"a discovery already in the cache (per call; median of {runs} batches of {batch})")
    try:
        results = {"Client.discover": median_seconds(blocking, runs) / batch}
        for name, call in calls.items():
            run = lambda call=call: loop.run_until_complete(awaits(call))  # noqa: E731
            results[f"await {name}"] = median_seconds(run, runs) / batch
    finally:
        loop.close()
    for name, seconds in results.items():
        print(f"  {name:32} {fmt(seconds)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="timed runs of each (default 21)")
    parser.add_argument("--serve-bin", help="the tfdisco-dev server to serve with")
    parser.add_argument("--skip-discovery", action="store_true")
    args = parser.parse_args()
    print(f"tfdisco {tfdisco.__version__}, Python {sys.version.split()[0]}")
    bench_normalize(args.runs)
    if not args.skip_discovery:
        bench_discovery(args.runs * 10, find_serve_binary(args.serve_bin))


if __name__ == "__main__":
    main()
