"""The asyncio client against real loopback HTTPS servers."""

from __future__ import annotations

import asyncio
import inspect
import sys
import threading
import time

import pytest

import tfdisco
from conftest import Recorder, Reply, Served, sample_services

WELL_KNOWN = "/.well-known/terraform.json"


def _stub_options() -> dict:
    """``Client``'s options as the stub declares them: name -> default."""
    import ast
    from pathlib import Path

    stub = Path(tfdisco._tfdisco.__file__).with_name("_tfdisco.pyi")
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    client = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Client")
    new = next(n for n in client.body if isinstance(n, ast.FunctionDef) and n.name == "__new__")
    assert not new.args.args[1:] and not new.args.posonlyargs
    return {
        a.arg: ast.literal_eval(d) for a, d in zip(new.args.kwonlyargs, new.args.kw_defaults)
    }


def test_same_options_as_the_blocking_client() -> None:
    coroutine = inspect.signature(tfdisco.AsyncClient)
    assert all(p.kind == inspect.Parameter.KEYWORD_ONLY for p in coroutine.parameters.values())
    async_options = {name: p.default for name, p in coroutine.parameters.items()}
    assert async_options == _stub_options()
    try:
        blocking = inspect.signature(tfdisco.Client)
    except ValueError:  # abi3 on Python 3.9: no text signatures for classes
        assert sys.version_info < (3, 10)
    else:
        assert all(p.kind == inspect.Parameter.KEYWORD_ONLY for p in blocking.parameters.values())
        assert {name: p.default for name, p in blocking.parameters.items()} == async_options
    for method in (
        "discover",
        "service_url",
        "oauth_client",
        "credentials_source",
        "provider_versions",
        "provider_package",
        "module_versions",
        "module_download",
    ):
        assert inspect.iscoroutinefunction(getattr(tfdisco.AsyncClient, method)), method
        assert hasattr(tfdisco.Client, method)


def test_discover_with_asyncio_run(served: Served) -> None:
    client = tfdisco.AsyncClient(ca_files=[str(served.ca)], credentials=None)
    services = asyncio.run(client.discover(served.host))
    assert dict(services) == sample_services()
    url = asyncio.run(client.service_url(served.host, "modules.v1"))
    assert url == f"https://localhost:{served.port}/api/modules/v1/"
    oauth = asyncio.run(client.oauth_client(tfdisco.Hostname(served.host), "login.v1"))
    assert oauth.client_id == "tfdisco-dev"
    assert asyncio.run(client.credentials_source(served.host)) is None
    assert served.requests() == [f"GET {WELL_KNOWN}"]  # cached across event loops
    assert repr(client).startswith("AsyncClient(dialect='opentofu'")


def test_gather_many_hosts(serve) -> None:
    servers = [serve() for _ in range(4)]
    client = tfdisco.AsyncClient(ca_files=[str(s.ca) for s in servers], credentials=None)
    hosts = [h for s in servers for h in (f"localhost:{s.port}", f"127.0.0.1:{s.port}")]

    async def main():
        # Each host five times, all at once.
        return await asyncio.gather(*(client.discover(h) for h in hosts * 5))

    results = asyncio.run(main())
    assert len(results) == 40
    assert [str(r.hostname) for r in results[:8]] == hosts
    for services in results:
        assert services.service_url("providers.v1") == "https://providers.example.com/v1/"
    for server in servers:
        assert server.requests() == [f"GET {WELL_KNOWN}"] * 2  # one per name


def test_concurrent_coroutines_share_one_request(recorder: Recorder) -> None:
    recorder.routes[WELL_KNOWN] = Reply(hold=True)
    client = tfdisco.AsyncClient(ca_files=[str(recorder.ca)], credentials=None)

    async def main():
        calls = asyncio.gather(*(client.service_url(recorder.host, "modules.v1") for _ in range(20)))
        # The discovery reached the server, which holds its answer, and the
        # event loop runs this coroutine meanwhile: it is free while the 20
        # calls wait.
        await asyncio.to_thread(recorder.wait_for_requests, 1)
        assert not calls.done()
        recorder.release()
        return await calls

    urls = asyncio.run(main())
    assert urls == [f"https://localhost:{recorder.port}/modules/"] * 20
    assert len(recorder.requests()) == 1


def test_errors(served: Served, free_port: int) -> None:
    client = tfdisco.AsyncClient(ca_files=[str(served.ca)], credentials=None)

    async def main():
        outcomes = await asyncio.gather(
            client.service_url(served.host, "tfe.v2"),
            client.service_url(served.host, "modules.v7"),
            client.discover(f"localhost:{free_port}"),
            client.discover("no such host!"),
            client.service_url(served.host, "modules"),
            return_exceptions=True,
        )
        return [type(o) for o in outcomes], [getattr(o, "kind", None) for o in outcomes]

    types, kinds = asyncio.run(main())
    assert types == [
        tfdisco.ServiceNotProvided,
        tfdisco.VersionNotSupported,
        tfdisco.NetworkError,
        tfdisco.InvalidHostname,
        tfdisco.InvalidServiceId,
    ]
    assert kinds == [
        "service_not_provided",
        "version_not_supported",
        "network",
        "invalid_hostname",
        "invalid_service_id",
    ]
    untrusted = tfdisco.AsyncClient(credentials=None)
    with pytest.raises(tfdisco.TlsError):
        asyncio.run(untrusted.discover(served.host))


def test_cancel_and_wait_for(recorder: Recorder) -> None:
    recorder.routes[WELL_KNOWN] = Reply(hold=True)
    client = tfdisco.AsyncClient(ca_files=[str(recorder.ca)], credentials=None)

    async def main():
        # The server holds its answer: only wait_for's 0.2 s ends the call.
        started = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.discover(recorder.host), 0.2)
        assert time.monotonic() - started < 5
        # Cancelled while its request is at the server.
        task = asyncio.ensure_future(client.discover(recorder.host))
        await asyncio.to_thread(recorder.wait_for_requests, 2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # Nothing was cached by the cancelled discoveries: this one goes out.
        recorder.routes[WELL_KNOWN] = Reply()
        recorder.release()
        url = await client.service_url(recorder.host, "modules.v1")
        return url, len(recorder.requests())

    assert asyncio.run(main()) == (f"https://localhost:{recorder.port}/modules/", 3)


def test_timeout_option(recorder: Recorder) -> None:
    recorder.routes[WELL_KNOWN] = Reply(hold=True)
    client = tfdisco.AsyncClient(ca_files=[str(recorder.ca)], credentials=None, timeout=0.3)
    with pytest.raises(tfdisco.Timeout) as caught:
        asyncio.run(client.discover(recorder.host))
    assert caught.value.kind == "timeout"


def test_shared_with_a_blocking_client_and_event_loops_in_threads(served: Served) -> None:
    blocking = tfdisco.Client(ca_files=[str(served.ca)], credentials=None)
    client = tfdisco.AsyncClient.from_client(blocking)
    assert client.client is blocking
    results = []

    def in_thread():
        results.append(asyncio.run(client.discover(served.host)))

    threads = [threading.Thread(target=in_thread) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results.append(blocking.discover(served.host))
    assert len(results) == 5 and all(r == results[0] for r in results)
    assert served.requests() == [f"GET {WELL_KNOWN}"]
    client.forget(served.host)
    asyncio.run(client.discover(served.host))
    client.forget_all()
    assert len(served.requests()) == 2


def answered_at_once(awaitable) -> tuple:
    """``(True, value)`` when the first step of awaiting ``awaitable`` ends
    it (nothing to wait for), else ``(False, None)``."""
    try:
        awaitable.__await__().send(None)
    except StopIteration as stop:
        return True, stop.value
    return False, None  # pragma: no cover (a failure of the caller's assert)


def test_cached_hosts_are_answered_at_once(served: Served, hermetic_env) -> None:
    """A host in the cache (discovered, or from a ``host`` block) is
    answered without the runtime: awaiting the call ends at its first step,
    with the same objects, and raising the same exceptions, as the calls
    that go out."""
    (hermetic_env / ".tofurc").write_text(
        'host "forced.example.com" {\n  services = { "modules.v1" = "/m/" }\n}\n',
        encoding="utf-8",
    )
    client = tfdisco.AsyncClient(ca_files=[str(served.ca)])
    native = client.client

    async def main():
        first = native._discover_async(served.host)
        # Not cached yet: an asyncio future of the discovery on the runtime.
        assert isinstance(first, asyncio.Future) and not first.done()
        discovered = await first
        answers = [
            answered_at_once(awaitable)
            for awaitable in (
                native._discover_async(served.host),
                native._discover_async(tfdisco.Hostname(served.host.upper())),
                native._service_url_async(served.host, "modules.v1"),
                native._oauth_client_async(served.host, "login.v1"),
                native._discover_async("forced.example.com"),
            )
        ]
        assert all(at_once for at_once, _ in answers)
        services, again, url, oauth, forced = [value for _, value in answers]
        assert type(services) is tfdisco.Services and services == discovered == again
        assert url == f"https://localhost:{served.port}/api/modules/v1/"
        assert type(oauth) is tfdisco.OAuthClient and oauth.client_id == "tfdisco-dev"
        assert forced.is_forced and forced.service_url("modules.v1") == (
            "https://forced.example.com/m/"
        )
        # The coroutines of the public API, on the cached host.
        assert await client.discover(served.host) == services
        assert await client.service_url(served.host, "modules.v1") == url
        assert await client.oauth_client(served.host, "login.v1") == oauth
        with pytest.raises(tfdisco.ServiceNotProvided):
            answered_at_once(native._service_url_async(served.host, "tfe.v2"))
        errors = await asyncio.gather(
            client.service_url(served.host, "tfe.v2"),
            client.service_url(served.host, "modules.v7"),
            client.service_url(served.host, "modules"),
            client.oauth_client(served.host, "modules.v1"),
            return_exceptions=True,
        )
        return errors

    errors = asyncio.run(main())
    assert [type(e) for e in errors] == [
        tfdisco.ServiceNotProvided,
        tfdisco.VersionNotSupported,
        tfdisco.InvalidServiceId,
        tfdisco.InvalidOAuthClient,
    ]
    assert str(errors[0]) == f"host {served.host} does not provide a tfe service"
    assert served.requests() == [f"GET {WELL_KNOWN}"]
    # Forgotten: it goes out again.
    client.forget(served.host)

    async def after_forget():
        future = native._discover_async(served.host)
        assert isinstance(future, asyncio.Future) and not future.done()
        return await future

    assert dict(asyncio.run(after_forget())) == sample_services()
    assert len(served.requests()) == 2


def test_a_cached_await_does_not_wait_for_the_event_loop(served: Served) -> None:
    """Awaiting a cached host does not give the event loop a turn: a task
    scheduled meanwhile does not run in between."""
    client = tfdisco.AsyncClient(ca_files=[str(served.ca)], credentials=None)

    async def main():
        await client.discover(served.host)
        turns = 0

        async def other():
            nonlocal turns
            turns += 1

        task = asyncio.ensure_future(other())
        for _ in range(100):
            await client.discover(served.host)
            await client.service_url(served.host, "modules.v1")
        ran_in_between = turns
        await task
        return ran_in_between

    assert asyncio.run(main()) == 0


def test_a_cached_answer_is_awaited_once(served: Served) -> None:
    client = tfdisco.Client(ca_files=[str(served.ca)], credentials=None)
    client.discover(served.host)

    async def main():
        answer = client._discover_async(served.host)
        assert isinstance(await answer, tfdisco.Services)
        with pytest.raises(RuntimeError):
            await answer
        # asyncio's helpers take it as any awaitable.
        (services,) = await asyncio.gather(client._discover_async(served.host))
        url = await asyncio.wait_for(client._service_url_async(served.host, "modules.v1"), 1)
        return services, url

    services, url = asyncio.run(main())
    assert type(services) is tfdisco.Services and url.endswith("/api/modules/v1/")
