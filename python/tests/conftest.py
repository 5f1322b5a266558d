"""Fixtures: the ``tfdisco-dev serve`` loopback HTTPS server, a recording HTTPS
server of our own, and a hermetic environment.

The ``tfdisco`` CLI binary, the development server ``tfdisco-dev`` and the
core's ``normalize`` example are found through ``TFDISCO_BIN`` /
``TFDISCO_DEV_BIN`` / ``TFDISCO_NORMALIZE_BIN``, else under
``$CARGO_TARGET_DIR`` (or the repository's ``target/``) ``/debug``.
``run-tests.sh`` builds all three.
"""

from __future__ import annotations

import faulthandler
import http.client
import http.server
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

#: Variables that would make a test depend on the machine it runs on.
_MACHINE_VARS = (
    "TF_CLI_CONFIG_FILE",
    "TERRAFORM_CONFIG",
    "TF_APPEND_USER_AGENT",
    "XDG_CONFIG_HOME",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "ALL_PROXY",
    "all_proxy",
)


def _binary(variable: str, relative: str) -> Path:
    given = os.environ.get(variable)
    if given:
        return Path(given)
    roots = []
    if os.environ.get("CARGO_TARGET_DIR"):
        roots.append(Path(os.environ["CARGO_TARGET_DIR"]))
    roots.append(REPO / "target")
    for root in roots:
        candidate = root / "debug" / relative
        if candidate.exists():
            return candidate
    pytest.fail(
        f"{relative} not found: build it (python/run-tests.sh does) or set {variable}",
        pytrace=False,
    )


@pytest.fixture(scope="session")
def tfdisco_bin() -> Path:
    """The ``tfdisco`` CLI."""
    return _binary("TFDISCO_BIN", "tfdisco")


@pytest.fixture(scope="session")
def tfdisco_dev_bin() -> Path:
    """The development server ``tfdisco-dev`` (``tfdisco-dev serve``)."""
    return _binary("TFDISCO_DEV_BIN", "tfdisco-dev")


@pytest.fixture(scope="session")
def normalize_bin() -> Path:
    """The core's ``normalize`` example."""
    return _binary("TFDISCO_NORMALIZE_BIN", "examples/normalize")


#: A test that runs this long has hung: its threads' stacks are printed and
#: the run ends, rather than waiting for CI's limit.
TEST_LIMIT = 300.0


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    """Ends the run with every thread's stack if a test hangs (a native call
    that kept the GIL, a server answer never released)."""
    faulthandler.dump_traceback_later(TEST_LIMIT, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(autouse=True)
def hermetic_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty home directory and no CLI configuration, token, proxy or
    User-Agent variables from the machine. Returns the home directory.

    ``TFDISCO_DIALECT`` names the dialect the tests that give none were
    written for (OpenTofu, the default with nothing to tell), so that a
    ``terraform`` or ``tofu`` on the machine's ``PATH`` does not choose it
    for a client made without ``env=``; the tests of that choice
    (test_dialect.py) give their own environments."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TFDISCO_DIALECT", "opentofu")
    for name in list(os.environ):
        if name in _MACHINE_VARS or name.startswith("TF_TOKEN_"):
            monkeypatch.delenv(name)
    return home


#: The path of the marker requests ``Served.requests`` makes.
_MARK = "/.tfdisco-test-marker/"


class Served:
    """A running ``tfdisco-dev serve``: its port, CA file and request log."""

    def __init__(self, process: subprocess.Popen, port: int, ca: Path) -> None:
        self.process = process
        self.port = port
        self.ca = ca
        self.host = f"localhost:{port}"
        self.url = f"https://localhost:{port}/.well-known/terraform.json"
        self._lines: List[str] = []
        self._changed = threading.Condition()
        self._marks = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._changed:
                self._lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def requests(self) -> List[str]:
        """Every request line logged so far (``GET /path``, with
        `` (with credentials)`` when a token was sent), exactly.

        ``tfdisco-dev serve`` prints the requests it received every 100 ms, in
        the order they arrived. Rather than sleep and hope, this makes a
        request of its own (a marker path) and waits for its line: every
        request made before it (by every call that has returned) is logged
        before it. Marker lines are left out."""
        self._marks += 1
        mark = f"{_MARK}{self._marks}"
        context = ssl.create_default_context(cafile=str(self.ca))
        connection = http.client.HTTPSConnection("localhost", self.port, context=context, timeout=30)
        try:
            connection.request("GET", mark)
            connection.getresponse().read()
        finally:
            connection.close()
        with self._changed:
            if not self._changed.wait_for(lambda: f"GET {mark}" in self._lines, timeout=30):
                pytest.fail(f"tfdisco-dev serve did not log the marker request {mark}", pytrace=False)
            lines = self._lines[: self._lines.index(f"GET {mark}")]
        return [line for line in lines if line.startswith("GET ") and not line.startswith(f"GET {_MARK}")]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_serve(binary: Path, directory: Path, doc: Optional[str] = None) -> Served:
    """Starts ``tfdisco-dev serve`` on a free loopback port."""
    directory.mkdir(parents=True, exist_ok=True)
    ca = directory / "ca.pem"
    args = [str(binary), "serve", "--listen", "127.0.0.1:0", "--ca-out", str(ca)]
    path = directory / "doc.json"
    path.write_text(json.dumps(sample_services(), indent=2) if doc is None else doc, encoding="utf-8")
    args += ["--doc", str(path)]
    process = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert process.stdout is not None
    port = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        found = re.match(r"serving https://127\.0\.0\.1:(\d+)/", line)
        if found:
            port = int(found.group(1))
        if line.startswith("press Ctrl-C"):
            break
    if port is None:
        process.kill()
        pytest.fail("tfdisco-dev serve did not start", pytrace=False)
    return Served(process, port, ca)


@pytest.fixture
def serve(tfdisco_dev_bin: Path, tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """Starts ``tfdisco-dev serve`` servers: ``serve()`` for the tests' sample
    document (``sample_services()``), ``serve(doc=text)`` for another one."""
    started: List[Served] = []

    def start(doc: Optional[str] = None) -> Served:
        server = start_serve(tfdisco_dev_bin, tmp_path / f"serve{len(started)}", doc)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def served(serve: Callable[..., Served]) -> Served:
    """One ``tfdisco-dev serve`` with the tests' sample document."""
    return serve()


@pytest.fixture
def registry_served(serve: Callable[..., Served]) -> Served:
    """One ``tfdisco-dev serve`` whose document points at the sample registry
    it serves next to it (``registry_services()``)."""
    return serve(doc=json.dumps(registry_services()))


# --- A case of the install goldens, set up and judged by `tfdisco-dev serve` ---


class _GoldenServer:
    """``tfdisco-dev serve --golden-install CASE`` or ``--golden-module
    CASE``: a case of the testkit's goldens set up on the server, described
    on one ``golden-install {json}`` or ``golden-module {json}`` line, and
    each run judged on a ``check EXIT`` line by the testkit's own
    ``Expected::check``."""

    #: ``install`` or ``module``: which goldens.
    goldens = ""

    def __init__(self, binary: Path, case: str, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.case = case
        self.ca = directory / "ca.pem"
        args = [str(binary), "serve", "--listen", "127.0.0.1:0", "--ca-out", str(self.ca)]
        args += [f"--golden-{self.goldens}", case, "--golden-scratch", str(directory / "scratch")]
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "NO_COLOR": "1"},
        )
        assert self.process.stdout is not None
        described = None
        prefix = f"golden-{self.goldens} "
        for line in self.process.stdout:
            if line.startswith(prefix):
                described = json.loads(line[len(prefix) :])
            if line.startswith("press Ctrl-C"):
                break
        if described is None:
            self.stop()
            pytest.fail(f"tfdisco-dev serve did not set up the {self.goldens} golden {case}", pytrace=False)
        self.described: Dict[str, object] = described

    def check(self, exit: int) -> None:
        """Fails the test with every difference between what the case
        expects of tfdisco and what the run that gave ``exit`` left."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"check {exit}\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith("golden-check "):
                answer = json.loads(line[len("golden-check ") :])
                if not answer["ok"]:
                    pytest.fail(f"{self.case}: {answer['problems']}", pytrace=False)
                return
        pytest.fail(f"{self.case}: tfdisco-dev serve ended without judging the run", pytrace=False)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Golden(_GoldenServer):
    """``tfdisco-dev serve --golden-install CASE``: a case of the install
    goldens (testkit/src/install_goldens.rs, what the real
    ``terraform init`` did) set up on the server by the testkit's own
    ``Case::setup``, and the run judged by its ``Expected::check`` (the exit
    code, ``.terraform/providers`` and the plugin cache byte for byte, the
    lock file, the downloads), as the Rust conformance suite judges the
    library's ``install``.

    Attributes: ``case``, ``ca`` (the server's CA file), ``dir`` (the working
    directory), ``cache`` (the plugin cache or None), ``host`` (the
    providers' host), ``server_host`` (the server's, ``localhost:PORT``), ``env`` (the variables of the run: the CLI
    configuration, the home folder, ``TF_PLUGIN_CACHE_DIR``), ``upgrade``
    and ``readonly`` (the case's ``init`` arguments), ``exit`` (the exit code
    tfdisco must give), ``lock_before`` and ``lock`` (the lock file before,
    and the one tfdisco must leave; None for none)."""

    goldens = "install"

    def __init__(self, binary: Path, case: str, directory: Path) -> None:
        super().__init__(binary, case, directory)
        described: Dict[str, Any] = self.described
        self.dir = Path(described["dir"])
        self.cache = Path(described["cache"]) if described["cache"] else None
        self.host: str = described["host"]
        self.server_host: str = described["server_host"]
        self.env: Dict[str, str] = described["env"]
        self.upgrade: bool = described["upgrade"]
        self.readonly: bool = described["readonly"]
        self.exit: int = described["exit"]
        self.lock_before: Optional[str] = described["lock_before"]
        self.lock: Optional[str] = described["lock"]


class ModuleGolden(_GoldenServer):
    """``tfdisco-dev serve --golden-module CASE``: a case of the module
    goldens (testkit/src/module_goldens.rs, what the real ``terraform get``
    or ``terraform init`` did) set up on the server by the testkit's own
    ``Case::setup`` (its registry, archives and git repository), and the run
    judged by its ``Expected::check`` (the exit code, ``modules.json`` byte
    for byte, the tree of ``.terraform/modules``: paths, bytes, modes, each
    ``.git`` by its HEAD; the downloads), as the CLI's test judges ``tfdisco
    get``.

    Attributes: ``case``, ``ca``, ``dir`` (the working directory),
    ``host`` (the registry's), ``server_host``, ``env`` (the variables of
    the run: the CLI configuration, the home folder,
    ``GIT_CONFIG_NOSYSTEM``), ``command`` (``"get"`` or ``"install"``),
    ``upgrade``, ``exit`` (the exit code tfdisco must give) and
    ``terraform_exit``."""

    goldens = "module"

    def __init__(self, binary: Path, case: str, directory: Path) -> None:
        super().__init__(binary, case, directory)
        described: Dict[str, Any] = self.described
        self.dir = Path(described["dir"])
        self.host = described["host"]
        self.server_host = described["server_host"]
        self.env = described["env"]
        self.command: str = described["command"]
        self.upgrade: bool = described["upgrade"]
        self.exit: int = described["exit"]
        self.terraform_exit: int = described["terraform_exit"]


@pytest.fixture
def golden(tfdisco_dev_bin: Path, tmp_path: Path) -> Iterator[Callable[[str], Golden]]:
    """Sets up cases of the install goldens: ``golden("fresh")``, each on a
    ``tfdisco-dev serve`` of its own."""
    started: List[Golden] = []

    def start(case: str) -> Golden:
        server = Golden(tfdisco_dev_bin, case, tmp_path / f"golden{len(started)}-{case}")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def module_golden(tfdisco_dev_bin: Path, tmp_path: Path) -> Iterator[Callable[[str], ModuleGolden]]:
    """Sets up cases of the module goldens: ``module_golden("git-refs")``,
    each on a ``tfdisco-dev serve`` of its own."""
    started: List[ModuleGolden] = []

    def start(case: str) -> ModuleGolden:
        server = ModuleGolden(tfdisco_dev_bin, case, tmp_path / f"module-golden{len(started)}-{case}")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


# --- A real OCI registry, started by `tfdisco-dev serve --oci-registry MODE` ---


class OciServed:
    """``tfdisco-dev serve --oci-registry MODE`` (``anonymous`` or ``basic``): a
    real OCI registry (the testkit's ``OciRegistry``: Debian's
    ``docker-registry`` as a child of the serve process), holding a module
    package and the signed registry's providers as an OCI mirror
    (dev-server/src/serve/oci.rs).

    Attributes: ``mode``, ``host`` (``127.0.0.1:PORT``), ``ca`` (the CA file
    to trust), ``username`` and ``password`` (None when anonymous),
    ``module`` (``repository``, ``source``, ``tags``, ``digest``, ``size``,
    ``package_digest``, ``package_size``, ``files``: name to text),
    ``not_a_module`` (a source whose tag names a provider's index) and
    ``mirror_template`` (the mirror's ``-oci-mirror`` template).

    ``stop()`` ends the serve process by closing its stdin: the registry,
    its storage and the CA file go with it."""

    def __init__(self, binary: Path, mode: str, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        args = [str(binary), "serve", "--listen", "127.0.0.1:0", "--ca-out", str(directory / "serve-ca.pem")]
        args += ["--oci-registry", mode]
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "NO_COLOR": "1"},
        )
        assert self.process.stdout is not None
        described = None
        for line in self.process.stdout:
            if line.startswith("oci-registry "):
                described = json.loads(line[len("oci-registry ") :])
            if line.startswith("press Ctrl-C"):
                break
        if described is None:
            self.stop()
            assert self.process.stderr is not None
            pytest.fail(f"tfdisco-dev serve --oci-registry {mode} did not start: {self.process.stderr.read()}", pytrace=False)
        # Nothing more is read from it: its request lines must not fill the pipe.
        threading.Thread(target=self.process.stdout.read, daemon=True).start()
        self.mode: str = described["mode"]
        self.host: str = described["host"]
        self.ca = Path(described["ca_file"])
        self.username: Optional[str] = described["username"]
        self.password: Optional[str] = described["password"]
        self.module: Dict[str, object] = described["module"]
        self.not_a_module: str = described["not_a_module"]
        self.mirror_template: str = described["mirror_template"]

    def source(self, rest: str = "") -> str:
        """The module's ``oci://`` source, ``rest`` (``?tag=1.0.0``,
        ``//sub``) after it."""
        return f"{self.module['source']}{rest}"

    def cli_config(self, path: Path, password: Optional[str] = None) -> Path:
        """Writes a CLI configuration at ``path`` with an
        ``oci_credentials`` block for the registry: the user, and
        ``password`` (default: the right one)."""
        path.write_text(
            f'oci_credentials "{self.host}" {{\n'
            f'  username = "{self.username or "ci"}"\n'
            f'  password = "{password if password is not None else self.password}"\n'
            "}\n",
            encoding="utf-8",
        )
        return path

    def stop(self) -> None:
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# --- The registry that answers for any provider, `tfdisco-dev serve --any-registry` ---


class AnyRegistry:
    """``tfdisco-dev serve --any-registry DIR``: the registry that answers for
    any provider (testkit/src/any_registry.rs: every namespace
    and type, a long list of versions, signed packages for five platforms),
    on a loopback port of its own, and beside it a network mirror of the
    tree Terraform's ``providers mirror`` wrote for the signed registry
    (``mirror-fresh``: ``ns/alpha`` 1.1.0 and ``ns/beta`` 0.10.0), under
    ``registry.terraform.io`` and ``registry.opentofu.org``
    (dev-server/src/serve/any_registry.rs).

    Attributes: ``host`` (``localhost:PORT``), ``ca`` (the CA file to
    trust), ``cli_config`` (a CLI configuration whose ``host`` blocks send
    ``registry.terraform.io`` and ``registry.opentofu.org`` to the
    registry, for ``TF_CLI_CONFIG_FILE``), ``hosts``, ``platforms``,
    ``key_id`` (the key that signs every ``SHA256SUMS``), ``mirror`` (the
    mirror's URL) and ``mirror_tree`` (the folder of the tree it serves, the
    providers' host's folder named ``{HOST}``)."""

    def __init__(self, binary: Path, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        args = [str(binary), "serve", "--listen", "127.0.0.1:0", "--ca-out", str(directory / "ca.pem")]
        args += ["--any-registry", str(directory / "config")]
        self.process = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "NO_COLOR": "1"},
        )
        assert self.process.stdout is not None
        described = None
        for line in self.process.stdout:
            if line.startswith("any-registry "):
                described = json.loads(line[len("any-registry ") :])
            if line.startswith("press Ctrl-C"):
                break
        if described is None:
            self.stop()
            assert self.process.stderr is not None
            pytest.fail(f"tfdisco-dev serve --any-registry did not start: {self.process.stderr.read()}", pytrace=False)
        # Nothing more is read from it: its request lines must not fill the pipe.
        threading.Thread(target=self.process.stdout.read, daemon=True).start()
        self.host: str = described["host"]
        self.ca = Path(described["ca_file"])
        self.cli_config = Path(described["cli_config"])
        self.hosts: List[str] = described["hosts"]
        self.platforms: List[str] = described["platforms"]
        self.key_id: str = described["key_id"]
        self.mirror: str = described["mirror"]
        self.mirror_tree = Path(described["mirror_tree"])

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def any_registry(tfdisco_dev_bin: Path, tmp_path: Path) -> Iterator[AnyRegistry]:
    """One ``tfdisco-dev serve --any-registry``."""
    server = AnyRegistry(tfdisco_dev_bin, tmp_path / "any-registry")
    yield server
    server.stop()


# --- A recording HTTPS server of our own, for what `serve` cannot show ---


class Reply:
    """What the recording server answers for a path. A held reply is sent
    only once the test calls ``Recorder.release()`` (or the test ends): the
    call waiting for it is in flight for as long as the test needs, with no
    timer to race."""

    def __init__(
        self,
        status: int = 200,
        body: Union[str, bytes] = '{"modules.v1": "/modules/"}',
        headers: Optional[Dict[str, str]] = None,
        hold: bool = False,
    ) -> None:
        self.status = status
        self.body = body.encode("utf-8") if isinstance(body, str) else body
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        self.hold = hold


#: How long a held reply waits for ``Recorder.release()`` at most: a bound
#: for a test that forgot to release, far beyond any test's own waits.
HOLD_LIMIT = 120.0

#: How long a test waits for an event (a request reaching a server) at most.
EVENT_LIMIT = 30.0


class Recorder:
    """A loopback HTTPS server (certificate from trustme) that records each
    request's path and headers and answers from ``routes``."""

    def __init__(self, directory: Path) -> None:
        import trustme

        authority = trustme.CA()
        cert = authority.issue_cert("localhost", "127.0.0.1")
        self.ca = directory / "recorder-ca.pem"
        authority.cert_pem.write_to_path(str(self.ca))
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(context)
        self.routes: Dict[str, Reply] = {"/.well-known/terraform.json": Reply()}
        self.seen: List[Tuple[str, Dict[str, str]]] = []
        self._changed = threading.Condition()
        self._released = threading.Event()
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                with recorder._changed:
                    recorder.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                    recorder._changed.notify_all()
                reply = recorder.routes.get(self.path, Reply(404, "not found", {"Content-Type": "text/plain"}))
                if reply.hold:
                    recorder._released.wait(HOLD_LIMIT)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.host = f"localhost:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def requests(self) -> List[Tuple[str, Dict[str, str]]]:
        """Every request received so far (recorded as it arrives, before it
        is answered: a call that has returned has been recorded)."""
        with self._changed:
            return list(self.seen)

    def wait_for_requests(self, count: int = 1) -> List[Tuple[str, Dict[str, str]]]:
        """Waits until ``count`` requests have arrived (a held reply's call
        is then in flight) and returns them; fails the test after
        ``EVENT_LIMIT`` seconds."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.seen) >= count, timeout=EVENT_LIMIT):
                pytest.fail(f"{count} request(s) expected, {len(self.seen)} arrived", pytrace=False)
            return list(self.seen)

    def release(self) -> None:
        """Sends every held reply, and every later one at once."""
        self._released.set()

    def stop(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[Recorder]:
    """A recording HTTPS server on loopback."""
    server = Recorder(tmp_path)
    yield server
    server.stop()


@pytest.fixture
def free_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_python(code: str, env: Dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs ``code`` in a fresh interpreter (this one's) with exactly ``env``."""
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def sample_services() -> Dict[str, object]:
    """The document the ``serve`` fixture serves unless told otherwise:
    relative and absolute URLs and a ``login.v1`` client."""
    return {
        "modules.v1": "/api/modules/v1/",
        "providers.v1": "https://providers.example.com/v1/",
        "login.v1": {
            "client": "tfdisco-dev",
            "grant_types": ["authz_code"],
            "authz": "/oauth/authorization",
            "token": "/oauth/token",
            "ports": [10000, 10010],
        },
    }


def registry_services() -> Dict[str, object]:
    """A document pointing at the sample registry ``tfdisco-dev serve`` serves
    next to any document (testkit/src/sample.rs): modules under
    ``/v1/modules/``, providers under ``/v1/providers/``."""
    return {"modules.v1": "/v1/modules/", "providers.v1": "/v1/providers/"}


__all__ = [
    "AnyRegistry",
    "EVENT_LIMIT",
    "Golden",
    "ModuleGolden",
    "OciServed",
    "Recorder",
    "Reply",
    "Served",
    "json",
    "registry_services",
    "run_python",
    "sample_services",
]
