"""The blocking client against real loopback HTTPS servers: ``tfdisco-dev serve``
and a recording server of our own."""

from __future__ import annotations

import collections.abc
import inspect
import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import tfdisco
from conftest import EVENT_LIMIT, Recorder, Reply, Served, run_python, sample_services

TOKEN = "s3cret-token-value-1234"
WELL_KNOWN = "/.well-known/terraform.json"


def client_for(server, **options) -> tfdisco.Client:
    options.setdefault("credentials", None)
    return tfdisco.Client(ca_files=[str(server.ca)], **options)


# --- Discovery and Services -------------------------------------------------


def test_discover_the_sample_document(served: Served) -> None:
    client = client_for(served)
    services = client.discover(served.host)
    assert isinstance(services, tfdisco.Services)
    assert isinstance(services, collections.abc.Mapping)
    assert services.hostname == tfdisco.Hostname(served.host)
    assert services.discovery_url == served.url
    assert services.dialect == "opentofu"
    assert services.has_document and not services.is_forced
    # Document order, raw JSON values as Python objects.
    assert list(services) == ["modules.v1", "providers.v1", "login.v1"]
    assert dict(services) == sample_services()
    assert services == sample_services()
    assert services["login.v1"]["ports"] == [10000, 10010]
    assert "modules.v1" in services and "nope.v1" not in services and 42 not in services
    assert len(services) == 3
    assert services.get("nope.v1") is None and services.get("nope.v1", "x") == "x"
    assert list(services.keys()) == list(services)
    assert [k for k, _ in services.items()] == list(services)
    assert list(services.values())[0] == "/api/modules/v1/"
    with pytest.raises(KeyError):
        services["nope.v1"]
    # Values are copies: changing one changes nothing.
    services["login.v1"]["client"] = "changed"
    assert services["login.v1"]["client"] == "tfdisco-dev"
    with pytest.raises(TypeError):
        services["x"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        hash(services)
    assert "modules.v1" in repr(services) and served.host in repr(services)


def test_service_urls_and_oauth_client(served: Served) -> None:
    client = client_for(served)
    base = f"https://localhost:{served.port}"
    assert client.service_url(served.host, "modules.v1") == f"{base}/api/modules/v1/"
    assert client.service_url(tfdisco.Hostname(served.host), "providers.v1") == (
        "https://providers.example.com/v1/"
    )
    services = client.discover(served.host)
    assert services.service_url("modules.v1") == f"{base}/api/modules/v1/"
    assert services.resolve("modules.v1") == f"{base}/api/modules/v1/"
    oauth = client.oauth_client(served.host, "login.v1")
    assert isinstance(oauth, tfdisco.OAuthClient)
    assert oauth == services.oauth_client("login.v1") == services.resolve("login.v1")
    assert oauth.client_id == "tfdisco-dev"
    assert oauth.authorization_url == f"{base}/oauth/authorization"
    assert oauth.token_url == f"{base}/oauth/token"
    assert (oauth.min_port, oauth.max_port) == (10000, 10010)
    assert oauth.grant_types == frozenset({"authz_code"})
    assert oauth.scopes == ()
    assert oauth.supports_grant_type("authz_code") and not oauth.supports_grant_type("password")
    assert repr(oauth) == (
        f"OAuthClient(client_id='tfdisco-dev', authorization_url='{base}/oauth/authorization', "
        f"token_url='{base}/oauth/token', min_port=10000, max_port=10010, "
        "grant_types=frozenset({'authz_code'}), scopes=())"
    )


def test_cache_forget_and_forget_all(served: Served) -> None:
    client = client_for(served)
    client.discover(served.host)
    client.discover(served.host.upper())
    assert len(served.requests()) == 1
    client.forget(served.host)
    client.discover(served.host)
    assert len(served.requests()) == 2
    client.forget_all()
    client.service_url(served.host, "modules.v1")
    assert len(served.requests()) == 3


def test_another_document_and_terraform_dialect(serve) -> None:
    server = serve(doc='{"modules.v1": "https://m.example.com/", "tfe.v2.1": "/api/v2/"}')
    services = client_for(server, dialect="terraform").discover(server.host)
    assert services.dialect == "terraform"
    assert services.service_url("tfe.v2.1").endswith("/api/v2/")


# --- Exceptions -------------------------------------------------------------


def test_service_not_provided_and_version_not_supported(served: Served) -> None:
    client = client_for(served)
    with pytest.raises(tfdisco.ServiceNotProvided) as caught:
        client.service_url(served.host, "tfe.v2")
    assert caught.value.kind == "service_not_provided"
    assert str(caught.value) == f"host {served.host} does not provide a tfe service"
    assert isinstance(caught.value, LookupError)
    with pytest.raises(tfdisco.VersionNotSupported) as caught2:
        client.service_url(served.host, "modules.v2")
    assert caught2.value.kind == "version_not_supported"
    assert str(caught2.value) == f"host {served.host} does not support modules version 2"
    services = client.discover(served.host)
    with pytest.raises(tfdisco.VersionNotSupported):
        services.service_url("providers.v9")
    with pytest.raises(tfdisco.ServiceNotProvided):
        client.oauth_client(served.host, "nothing.v1")


def test_invalid_service_id_and_hostname(served: Served) -> None:
    client = client_for(served)
    with pytest.raises(tfdisco.InvalidServiceId) as caught:
        client.service_url(served.host, "modules")
    assert caught.value.kind == "invalid_service_id" and isinstance(caught.value, ValueError)
    with pytest.raises(tfdisco.InvalidHostname) as caught2:
        client.discover("bad host!")
    assert caught2.value.kind == "invalid_hostname"
    assert '"bad host!"' in str(caught2.value)
    with pytest.raises(TypeError):
        client.discover(42)  # type: ignore[arg-type]


def test_invalid_service_url_and_oauth_client(serve) -> None:
    server = serve(doc='{"modules.v1": "ftp://example.com/", "login.v1": {"grant_types": 7}}')
    services = client_for(server).discover(server.host)
    with pytest.raises(tfdisco.InvalidServiceUrl) as caught:
        services.service_url("modules.v1")
    assert caught.value.kind == "invalid_service_url"
    assert "unsupported scheme ftp" in str(caught.value)
    with pytest.raises(tfdisco.InvalidOAuthClient) as caught2:
        services.oauth_client("login.v1")
    assert caught2.value.kind == "invalid_oauth_client"


def test_not_json(serve) -> None:
    server = serve(doc="[1, 2]")
    with pytest.raises(tfdisco.JsonError) as caught:
        client_for(server).discover(server.host)
    assert caught.value.kind == "json"
    assert caught.value.url == server.url


def test_unreachable_port_is_a_network_error(free_port: int, tmp_path: Path) -> None:
    client = tfdisco.Client(credentials={f"localhost:{free_port}": TOKEN}, cli_config=False)
    with pytest.raises(tfdisco.NetworkError) as caught:
        client.discover(f"localhost:{free_port}")
    error = caught.value
    assert error.kind == "network"
    assert error.url == f"https://localhost:{free_port}/.well-known/terraform.json"
    assert str(error).startswith("failed to request discovery document")
    assert TOKEN not in str(error) and TOKEN not in repr(error)


def test_untrusted_ca_is_a_tls_error(served: Served) -> None:
    client = tfdisco.Client(credentials=None)  # the system roots only
    with pytest.raises(tfdisco.TlsError) as caught:
        client.discover(served.host)
    assert caught.value.kind == "tls"
    no_roots = tfdisco.Client(credentials=None, system_roots=False)
    with pytest.raises(tfdisco.TlsError):
        no_roots.discover(served.host)
    assert served.requests() == []


def test_status_content_type_size_redirect_timeout(recorder: Recorder) -> None:
    client = client_for(recorder)
    recorder.routes[WELL_KNOWN] = Reply(500, "oops", {"Content-Type": "text/plain"})
    with pytest.raises(tfdisco.StatusError) as caught:
        client.discover(recorder.host)
    assert caught.value.kind == "status" and caught.value.status == 500
    assert "500 Internal Server Error" in str(caught.value)

    recorder.routes[WELL_KNOWN] = Reply(200, "<html></html>", {"Content-Type": "text/html"})
    with pytest.raises(tfdisco.ContentTypeError) as caught_ct:
        client.discover(recorder.host)
    assert caught_ct.value.kind == "content_type"

    recorder.routes[WELL_KNOWN] = Reply(200, json.dumps({"modules.v1": "x" * 100}))
    with pytest.raises(tfdisco.TooLarge) as caught_large:
        client_for(recorder, body_limit=32).discover(recorder.host)
    assert caught_large.value.kind == "too_large"

    recorder.routes[WELL_KNOWN] = Reply(302, "", {"Location": "http://localhost:1/"})
    with pytest.raises(tfdisco.RedirectError) as caught_redirect:
        client.discover(recorder.host)
    assert caught_redirect.value.kind == "redirect"

    # The server holds its answer until the test ends: only the 0.3 s
    # deadline can end the call (well before the 10 s default).
    recorder.routes[WELL_KNOWN] = Reply(hold=True)
    started = time.monotonic()
    with pytest.raises(tfdisco.Timeout) as caught_timeout:
        client_for(recorder, timeout=0.3).discover(recorder.host)
    assert caught_timeout.value.kind == "timeout"
    assert time.monotonic() - started < 5


def test_redirects_are_followed(recorder: Recorder) -> None:
    recorder.routes[WELL_KNOWN] = Reply(301, "", {"Location": "/disco/v1.json"})
    recorder.routes["/disco/v1.json"] = Reply(body='{"modules.v1": "m/"}')
    services = client_for(recorder).discover(recorder.host)
    assert services.discovery_url == f"https://localhost:{recorder.port}/disco/v1.json"
    assert services.service_url("modules.v1") == f"https://localhost:{recorder.port}/disco/m/"
    with pytest.raises(tfdisco.RedirectError):
        client_for(recorder, max_redirects=0).discover(recorder.host)


def test_retries(recorder: Recorder) -> None:
    recorder.routes[WELL_KNOWN] = Reply(503, "busy", {"Content-Type": "text/plain"})
    with pytest.raises(tfdisco.StatusError) as caught:
        client_for(recorder, retries=2).discover(recorder.host)
    assert caught.value.status == 503
    assert len(recorder.requests()) == 3


def test_invalid_options(tmp_path: Path) -> None:
    with pytest.raises(tfdisco.InvalidOption) as caught:
        tfdisco.Client(ca_files=[str(tmp_path / "missing.pem")])
    assert caught.value.kind == "invalid_option" and isinstance(caught.value, ValueError)
    with pytest.raises(tfdisco.InvalidOption):
        tfdisco.Client(user_agent="bad\nagent")
    with pytest.raises(ValueError):
        tfdisco.Client(dialect="vault")
    with pytest.raises(ValueError):
        tfdisco.Client(timeout=0)
    with pytest.raises(ValueError):
        tfdisco.Client(credentials="env")
    with pytest.raises(TypeError):
        tfdisco.Client(credentials=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        tfdisco.Client(credentials="cli", cli_config=False)
    with pytest.raises(ValueError):
        tfdisco.Client(resolve={"no-port": "127.0.0.1"})
    with pytest.raises(ValueError):
        tfdisco.Client(resolve={"h:443": "127.0.0.1:80"})
    with pytest.raises(TypeError):
        tfdisco.Client("opentofu")  # type: ignore[misc]  # options are keyword-only
    with pytest.raises(tfdisco.InvalidOption) as caught_token:
        tfdisco.Client(credentials={"example.com": "line\nbreak-" + TOKEN})
    assert TOKEN not in str(caught_token.value)
    with pytest.raises(TypeError) as caught_type:
        tfdisco.Client(credentials={"example.com": 12345})  # type: ignore[dict-item]
    assert "12345" not in str(caught_type.value)


def test_resolve_and_insecure_http(served: Served, recorder: Recorder) -> None:
    # "registry.test" does not exist: resolve sends it to the loopback
    # server, whose certificate does not name it.
    client = client_for(served, resolve={f"registry.test:{served.port}": "127.0.0.1"})
    with pytest.raises(tfdisco.TlsError):
        client.discover(f"registry.test:{served.port}")
    # 127.0.0.1 is in the certificate; "localhost" goes to it too.
    client = client_for(served, resolve={f"localhost:{served.port}": [f"127.0.0.1:{served.port}"]})
    assert "modules.v1" in client.discover(served.host)


# --- Credentials ------------------------------------------------------------


def authorization(recorder: Recorder) -> list:
    return [headers.get("authorization") for _, headers in recorder.requests()]


def test_tf_token_variable_from_the_process_environment(
    recorder: Recorder, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"TF_TOKEN_localhost:{recorder.port}", TOKEN)
    monkeypatch.setenv(f"TF_TOKEN_localhost:{served.port}", TOKEN)
    client = tfdisco.Client(ca_files=[str(recorder.ca), str(served.ca)])
    assert repr(client) == "Client(dialect='opentofu', timeout=11.0, credentials='cli')"
    assert client.credentials_source(recorder.host) == (
        f"environment variable TF_TOKEN_localhost:{recorder.port}"
    )
    assert client.credentials_source("other.example.com") is None
    client.discover(recorder.host)
    assert authorization(recorder) == [f"Bearer {TOKEN}"]
    client.discover(served.host)
    assert served.requests() == [f"GET {WELL_KNOWN} (with credentials)"]
    # The environment is read when the client is built, not later.
    monkeypatch.delenv(f"TF_TOKEN_localhost:{recorder.port}")
    client.forget_all()
    client.discover(recorder.host)
    assert authorization(recorder) == [f"Bearer {TOKEN}"] * 2
    assert TOKEN not in repr(client)


def test_tf_token_variable_in_a_fresh_interpreter(recorder: Recorder) -> None:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ["HOME"],
        f"TF_TOKEN_localhost:{recorder.port}": TOKEN,
    }
    code = (
        "import tfdisco\n"
        f"c = tfdisco.Client(ca_files=[{str(recorder.ca)!r}])\n"
        f"print(c.discover('localhost:{recorder.port}').service_url('modules.v1'))\n"
        f"print(c.credentials_source('localhost:{recorder.port}'))\n"
    )
    result = run_python(code, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"https://localhost:{recorder.port}/modules/",
        f"environment variable TF_TOKEN_localhost:{recorder.port}",
    ]
    assert authorization(recorder) == [f"Bearer {TOKEN}"]


def test_env_parameter_replaces_the_process_environment(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"TF_TOKEN_localhost:{recorder.port}", "from-process")
    client = tfdisco.Client(
        ca_files=[str(recorder.ca)],
        env={f"TF_TOKEN_localhost:{recorder.port}": TOKEN, "TF_APPEND_USER_AGENT": "my-tool/1.0"},
    )
    client.discover(recorder.host)
    (_, headers), = recorder.requests()
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["user-agent"] == "OpenTofu/1.12.6 my-tool/1.0"


def test_cli_config_file_credentials_and_host_blocks(
    recorder: Recorder, hermetic_env: Path
) -> None:
    (hermetic_env / ".tofurc").write_text(
        f'credentials "localhost:{recorder.port}" {{\n  token = "{TOKEN}"\n}}\n'
        'host "forced.example.com" {\n'
        '  services = {\n    "modules.v1" = "https://modules.example.net/v1/"\n  }\n}\n',
        encoding="utf-8",
    )
    client = tfdisco.Client(ca_files=[str(recorder.ca)])
    assert client.credentials_source(recorder.host) == (
        f"credentials block in {hermetic_env / '.tofurc'}"
    )
    client.discover(recorder.host)
    assert authorization(recorder) == [f"Bearer {TOKEN}"]
    forced = client.discover("forced.example.com")
    assert forced.is_forced
    assert forced.service_url("modules.v1") == "https://modules.example.net/v1/"
    # Terraform reads ~/.terraformrc, not ~/.tofurc.
    terraform = tfdisco.Client(ca_files=[str(recorder.ca)], dialect="terraform")
    assert terraform.credentials_source(recorder.host) is None


def test_cli_config_file_named_by_tf_cli_config_file(
    recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "custom.tfrc"
    config.write_text(
        json.dumps({"credentials": {f"localhost:{recorder.port}": {"token": TOKEN}}}),
        encoding="utf-8",
    )
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(config))
    client = tfdisco.Client(ca_files=[str(recorder.ca)], dialect="terraform")
    client.service_url(recorder.host, "modules.v1")
    assert authorization(recorder) == [f"Bearer {TOKEN}"]


def test_config_problems_are_warnings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.tfrc"
    bad.write_text('credentials "bad host!" { token = "x" }\n', encoding="utf-8")
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(bad))
    with pytest.warns(tfdisco.ConfigWarning, match="bad.tfrc"):
        tfdisco.Client()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tfdisco.Client(credentials=None, cli_config=False)


def test_config_warnings_point_at_the_line_that_made_the_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Client`` is the native class and ``AsyncClient`` a Python class
    around it: either way the warning names this file and the line of the
    call, and its message is ``file:line: problem`` with no ``warning:``
    prefix (the category says it)."""
    bad = tmp_path / "bad.tfrc"
    bad.write_text('\ncredentials "bad host!" { token = "x" }\n', encoding="utf-8")
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(bad))
    for make in (tfdisco.Client, tfdisco.AsyncClient):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
            make()
        assert [w.category for w in caught] == [tfdisco.ConfigWarning], make
        (w,) = caught
        assert (w.filename, w.lineno) == (__file__, line), make
        message = str(w.message)
        assert message.startswith(f"{bad}:2: "), message
        assert "bad host!" in message
        assert not message.startswith(("warning:", "error:")), message


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("opentofu", "opentofu"),
        ("tofu", "opentofu"),
        ("TOFU", "opentofu"),
        ("OpenTofu", "opentofu"),
        ("terraform", "terraform"),
        ("Terraform", "terraform"),
        ("TERRAFORM", "terraform"),
    ],
)
def test_dialect_spellings(spelling: str, name: str) -> None:
    client = tfdisco.Client(dialect=spelling, credentials=None)
    assert repr(client).startswith(f"Client(dialect='{name}', ")
    assert repr(tfdisco.AsyncClient(dialect=spelling, credentials=None)).startswith(
        f"AsyncClient(dialect='{name}', "
    )
    assert tfdisco.ProviderSource("hashicorp/aws", dialect=spelling).dialect == name
    assert tfdisco.ModuleSource("hashicorp/consul/aws", dialect=spelling).dialect == name


def test_dialect_spellings_are_documented() -> None:
    with pytest.raises(ValueError) as caught:
        tfdisco.Client(dialect="opentofu-1.9")
    assert '"opentofu", "tofu" or "terraform", in any case' in str(caught.value)
    for documented in (
        tfdisco.Client,
        tfdisco.AsyncClient,
        tfdisco.ProviderSource,
        tfdisco.ModuleSource,
    ):
        text = " ".join((documented.__doc__ or "").split())
        assert '"tofu"' in text and "in any case" in text, documented
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert '`"opentofu"` (or `"tofu"`)' in readme and "any case" in readme


def test_no_credentials_and_static_credentials(
    recorder: Recorder, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"TF_TOKEN_localhost:{recorder.port}", "from-process")
    tfdisco.Client(ca_files=[str(recorder.ca)], credentials=None).discover(recorder.host)
    assert authorization(recorder) == [None]
    static = tfdisco.Client(
        ca_files=[str(recorder.ca), str(served.ca)],
        credentials={tfdisco.Hostname(recorder.host): TOKEN},
    )
    assert repr(static) == (
        f"Client(dialect='opentofu', timeout=11.0, credentials={{'{recorder.host}': '***'}})"
    )
    assert static.credentials_source(recorder.host) == "credentials given to the Client"
    assert static.credentials_source(served.host) is None
    static.discover(recorder.host)
    assert authorization(recorder) == [None, f"Bearer {TOKEN}"]
    static.discover(served.host)
    assert served.requests() == [f"GET {WELL_KNOWN}"]


def test_user_agent_option(recorder: Recorder) -> None:
    client_for(recorder, user_agent="tfdisco-tests/1.0").discover(recorder.host)
    client_for(recorder, dialect="terraform").discover(recorder.host)
    agents = [headers.get("user-agent") for _, headers in recorder.requests()]
    assert agents == ["tfdisco-tests/1.0", "HashiCorp Terraform/1.15.9 (+https://www.terraform.io)"]


def test_registry_settings_and_cli_version(recorder: Recorder) -> None:
    # Registry requests as `init` makes them: the registry clients' headers
    # for the CLI version asked for, and their retries (one by default; none
    # with registry_retries=0).
    recorder.routes["/.well-known/terraform.json"] = Reply(
        body='{"providers.v1": "/v1/providers/"}'
    )
    recorder.routes["/v1/providers/ns/type/versions"] = Reply(503, "busy", {"Content-Type": "text/plain"})
    client = client_for(recorder, dialect="terraform", cli_version="1.11.4", registry_retries=0)
    with pytest.raises(tfdisco.StatusError):
        client.provider_versions(f"{recorder.host}/ns/type")
    seen = recorder.requests()
    assert [path for path, _ in seen] == ["/.well-known/terraform.json", "/v1/providers/ns/type/versions"]
    discovery, versions = (headers for _, headers in seen)
    assert discovery["user-agent"] == "HashiCorp Terraform/1.11.4 (+https://www.terraform.io)"
    assert versions["user-agent"] == "Terraform/1.11.4"
    assert versions["x-terraform-version"] == "1.11.4"
    assert "accept" not in versions
    # Served as text/plain: read all the same, as the CLIs read it.
    recorder.routes["/v1/providers/ns/type/versions"] = Reply(
        body='{"versions": [{"version": "1.0.0"}]}', headers={"Content-Type": "text/plain"}
    )
    assert [v.version for v in client.provider_versions(f"{recorder.host}/ns/type").versions] == ["1.0.0"]
    with pytest.raises(tfdisco.InvalidOption, match='invalid CLI version "eleven"'):
        client_for(recorder, cli_version="eleven")
    with pytest.raises(ValueError, match="positive number of seconds"):
        client_for(recorder, registry_timeout=0)


def test_tokens_never_in_messages_or_reprs(
    recorder: Recorder, free_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"TF_TOKEN_localhost:{free_port}", TOKEN)
    clients = [
        tfdisco.Client(ca_files=[str(recorder.ca)], credentials={recorder.host: TOKEN}),
        tfdisco.Client(ca_files=[str(recorder.ca)]),
        tfdisco.AsyncClient(ca_files=[str(recorder.ca)], credentials={recorder.host: TOKEN}),
    ]
    texts = [repr(c) for c in clients]
    for client in clients[:2]:
        texts.append(str(client.credentials_source(f"localhost:{free_port}")))
        for failing in (
            lambda: client.discover(f"localhost:{free_port}"),
            lambda: client.service_url(recorder.host, "nope.v1"),
        ):
            with pytest.raises(tfdisco.Error) as caught:
                failing()
            texts += [str(caught.value), repr(caught.value), repr(caught.value.__dict__)]
        services = client.discover(recorder.host)
        texts += [repr(services), str(dict(services))]
    recorder.routes[WELL_KNOWN] = Reply(401, "no", {"Content-Type": "text/plain"})
    with pytest.raises(tfdisco.StatusError) as caught_status:
        clients[0].forget_all()
        clients[0].discover(recorder.host)
    texts.append(str(caught_status.value))
    assert all(TOKEN not in text for text in texts), texts
    assert any(f"Bearer {TOKEN}" == a for a in authorization(recorder))


# --- Threads ----------------------------------------------------------------


def test_threads_share_a_client_and_one_request(served: Served) -> None:
    client = client_for(served)
    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(lambda _: client.discover(served.host), range(64)))
    assert all(r == results[0] for r in results)
    assert [r.service_url("modules.v1") for r in results[:3]] == [
        f"https://localhost:{served.port}/api/modules/v1/"
    ] * 3
    assert served.requests() == [f"GET {WELL_KNOWN}"]


def test_concurrent_threads_wait_for_the_same_request(recorder: Recorder) -> None:
    """16 threads ask for one host while its discovery is under way: one
    request, and the GIL is released while they wait (the main thread
    runs Python code, and releases the server's answer, while they wait)."""
    recorder.routes[WELL_KNOWN] = Reply(hold=True)
    client = client_for(recorder)
    barrier = threading.Barrier(16)

    def discover(_: int) -> str:
        barrier.wait()
        return client.service_url(recorder.host, "modules.v1")

    with ThreadPoolExecutor(max_workers=16) as pool:
        futures = [pool.submit(discover, i) for i in range(16)]
        # The discovery reached the server, which holds its answer: this
        # thread runs while 16 others wait in the call (were the GIL held by
        # a waiting thread, it would never get here to release the answer).
        recorder.wait_for_requests(1)
        assert not any(f.done() for f in futures)
        recorder.release()
        urls = [f.result(timeout=EVENT_LIMIT) for f in futures]
    assert urls == [f"https://localhost:{recorder.port}/modules/"] * 16
    assert len(recorder.requests()) == 1


def test_different_hosts_in_parallel(serve) -> None:
    servers = [serve() for _ in range(3)]
    client = tfdisco.Client(ca_files=[str(s.ca) for s in servers], credentials=None)
    hosts = [h for s in servers for h in (f"localhost:{s.port}", f"127.0.0.1:{s.port}")]
    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(client.discover, hosts * 4))
    assert [str(r.hostname) for r in results[: len(hosts)]] == hosts
    for server in servers:
        assert len(server.requests()) == 2  # one per name


def test_ctrl_c_interrupts_a_blocking_call(recorder: Recorder) -> None:
    """A blocking call waits with the GIL released but still answers Ctrl-C
    (KeyboardInterrupt) within a fraction of a second of the signal.

    The child installs Python's own SIGINT handler first: a process started
    as a background job of a non-interactive shell inherits SIGINT ignored,
    and Python then installs no handler (this test failed that way when the
    test command ran in the background). The signal is sent once the
    request has reached the server, which holds its answer: the call is
    certainly waiting on it."""
    recorder.routes[WELL_KNOWN] = Reply(hold=True)
    code = (
        "import signal, time, tfdisco\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        f"c = tfdisco.Client(ca_files=[{str(recorder.ca)!r}], credentials=None, timeout=60)\n"
        "try:\n"
        f"    c.discover('localhost:{recorder.port}')\n"
        "    print('returned', time.monotonic())\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', time.monotonic())\n"
    )
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ["HOME"]}
    child = subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        recorder.wait_for_requests(1)
        sent = time.monotonic()  # CLOCK_MONOTONIC: the child's clock too
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=EVENT_LIMIT)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    seen = f"the child printed {out!r}, exit {child.returncode}, stderr {err!r}"
    assert child.returncode == 0, seen
    word, at = out.split()
    assert word == "interrupted", seen
    assert 0 <= float(at) - sent < 1.0, seen


def test_no_document_means_no_services(recorder: Recorder) -> None:
    recorder.routes[WELL_KNOWN] = Reply(404, "missing", {"Content-Type": "text/plain"})
    services = client_for(recorder).discover(recorder.host)
    assert not services.has_document and len(services) == 0 and dict(services) == {}
    with pytest.raises(tfdisco.ServiceNotProvided):
        services.service_url("modules.v1")
    recorder.routes[WELL_KNOWN] = Reply(body="null")
    services = client_for(recorder).discover(recorder.host)
    assert not services.has_document and list(services) == []


def test_values_keep_json_types_order_and_depth(recorder: Recorder) -> None:
    deep = "[" * 300 + "]" * 300
    body = (
        '{"b.v1": {"z": 1, "a": [true, false, null, 1.5, -7, 18446744073709551615], "z": 2},'
        ' "a.v1": "\\u00fcber/\\ud83d\\ude00", "deep.v1": ' + deep + "}"
    )
    recorder.routes[WELL_KNOWN] = Reply(body=body)
    services = client_for(recorder).discover(recorder.host)
    assert list(services) == ["b.v1", "a.v1", "deep.v1"]
    assert services["b.v1"] == json.loads(body)["b.v1"] == {
        "z": 2,
        "a": [True, False, None, 1.5, -7, 18446744073709551615],
    }
    assert list(services["b.v1"]) == ["z", "a"]  # first place, last value
    assert services["a.v1"] == "über/😀"
    value = services["deep.v1"]
    for _ in range(299):
        (value,) = value
    assert value == []
