"""Terraform/OpenTofu remote service discovery, from the tfdisco Rust crates.

Given a hostname such as ``registry.terraform.io`` or ``Example.COM:8443``,
tfdisco finds the base URLs of the services that host offers
(``modules.v1``, ``providers.v1``, ``login.v1``, …) exactly as
``terraform init`` / ``tofu init`` would: the same hostname rules, the same
discovery document rules, the same CLI configuration and credentials.

>>> import tfdisco
>>> tfdisco.normalize("Испытание.COM:443")
'xn--80akhbyknj4f.com'
>>> client = tfdisco.Client()                                   # doctest: +SKIP
>>> client.service_url("registry.example.com", "modules.v1")   # doctest: +SKIP
'https://registry.example.com/v1/modules/'
>>> client.module_download("hashicorp/consul/aws", "0.12.1").location  # doctest: +SKIP
'git::https://github.com/hashicorp/terraform-aws-consul?ref=v0.12.1'

- :class:`Hostname`, :func:`normalize`, :func:`for_display`,
  :func:`is_valid`: hostnames in comparison and display forms.
- :class:`Client`: blocking discovery (the GIL released; share one client
  between threads); :class:`AsyncClient`: the same as coroutines for asyncio.
  Without a ``dialect``, a client follows the one its working directory and
  environment mean (``TFDISCO_DIALECT``, the lock file, ``.tofu`` files,
  ``terraform`` or ``tofu`` on the ``PATH``), as the ``tfdisco`` CLI does:
  ``client.dialect_choice`` (a :class:`DialectChoice`) says which and why.
- :class:`Services`: a host's discovery document, a read-only mapping.
- The registry calls of both clients: ``provider_versions``,
  ``provider_package``, ``module_versions``, ``module_download``, with
  :class:`ProviderSource`, :class:`ModuleSource`, :class:`Platform` and the
  answers :class:`ProviderVersions` (of :class:`ProviderVersion`),
  :class:`ProviderPackage` (with :class:`SigningKey`),
  :class:`ModuleVersions` and :class:`ModuleLocation`.
- Lock files: :func:`lock` (and ``Client.lock`` / ``AsyncClient.lock``)
  does what ``terraform providers lock`` does to a configuration's
  ``.terraform.lock.hcl``, giving a :class:`LockReport` (of
  :class:`LockedProvider`) or raising :class:`LockError` (with its
  :class:`LockFailure` list), through the plugin cache with
  ``lock(enable_plugin_cache=True)`` (``-enable-plugin-cache``);
  :func:`hash_package` gives the ``h1:`` and
  ``zh:`` hashes of a provider package on disk.
- Modules: :func:`get` (and ``Client.get`` / ``AsyncClient.get``) installs
  every module a configuration calls into ``.terraform/modules`` with its
  ``modules.json`` as ``terraform get`` does, giving a :class:`GetReport`
  (of :class:`InstalledModule`) or raising :class:`LockError` of kind
  ``"modules"`` (with its :class:`ModuleFailure` list).
- Installation: :func:`install` (and ``Client.install`` /
  ``AsyncClient.install``) installs a configuration's modules, then its
  providers into ``.terraform/providers`` (and the plugin cache) as
  ``terraform init`` does, giving an :class:`InstallReport` (of
  :class:`InstalledProvider`, and its ``modules``) or raising
  :class:`LockError`.
- Mirrors: :func:`mirror` (and ``Client.mirror`` / ``AsyncClient.mirror``)
  writes a provider mirror folder as ``terraform providers mirror`` does;
  ``lock(net_mirror=…)`` / ``lock(fs_mirror=…)`` / ``lock(oci_mirror=…)``
  lock from a mirror (an OCI registry's with OpenTofu's ``-oci-mirror``
  template);
  :func:`installation_methods` says which method of the CLI configuration's
  ``provider_installation`` would install a provider, and why.
- Credentials: :func:`store_credentials` saves a token the tool obtained
  its own way exactly as ``terraform login`` does (``credentials.tfrc.json``
  or the ``credentials_helper``), :func:`forget_credentials` removes it as
  ``terraform logout`` does; a host configured in another CLI configuration
  file raises :class:`CredentialsUnwritable`.
- Publishing to OCI registries, in the layout OpenTofu's ``oci_mirror``
  reads: ``Client.mirror_to_oci`` (and ``AsyncClient.mirror_to_oci``)
  copies a configuration's providers, verified against their registries'
  signatures, into the repositories a template names, giving an
  :class:`OciMirrorReport` (of :class:`OciMirroredProvider`) or raising
  :class:`LockError`; ``Client.push_provider`` (and
  ``AsyncClient.push_provider``) publishes a release's zips to one
  repository, giving a :class:`PushedRelease`.
- OpenTofu's ``oci://`` module sources: ``module_resolve`` gives a
  :class:`ResolvedModule` (the manifest's digest, the source pinned to it,
  the package layer as an :class:`OciDescriptor`);
  ``module_download(source, into=DIR)`` downloads, verifies and unpacks the
  package, giving a :class:`DownloadedModule`. OCI credentials come from the
  CLI configuration (``oci_credentials`` blocks, Docker-style credential
  files and helpers), for these and for OCI mirrors.
- :class:`Error` and one subclass per kind of failure.

>>> report = tfdisco.lock("infra", ["linux_amd64"], dialect="terraform")  # doctest: +SKIP
>>> report.changed, [(p.version, p.trust) for p in report.providers]      # doctest: +SKIP
(True, [('5.31.0', 'signed by HashiCorp')])
"""

from __future__ import annotations

import asyncio
import collections.abc as _abc
import inspect
import os
import textwrap
from typing import (
    TYPE_CHECKING,
    Any,
    Awaitable,
    Callable,
    Coroutine,
    Dict,
    Iterable,
    Mapping,
    Optional,
    Sequence,
    TypeVar,
    Union,
    overload,
)

from ._errors import (
    ConfigWarning,
    ContentEncodingError,
    ContentTypeError,
    CredentialsError,
    CredentialsUnwritable,
    Error,
    InvalidHostname,
    InvalidOAuthClient,
    InvalidArgument,
    InvalidOption,
    InvalidPackage,
    InvalidResponse,
    InvalidServiceId,
    InvalidServiceUrl,
    InvalidSource,
    JsonError,
    LocalFileError,
    LockError,
    NetworkError,
    NotFound,
    RedirectError,
    ServiceNotProvided,
    StatusError,
    Timeout,
    TlsError,
    TooLarge,
    VersionNotSupported,
)
from ._tfdisco import (
    Client,
    DialectChoice,
    DownloadedModule,
    GetReport,
    Hostname,
    InstallationMethod,
    InstalledModule,
    InstalledProvider,
    InstallReport,
    LockedProvider,
    LockFailure,
    LockReport,
    MirroredProvider,
    MirrorReport,
    ModuleFailure,
    ModuleLocation,
    ModuleSource,
    ModuleVersions,
    OAuthClient,
    OciDescriptor,
    OciMirroredProvider,
    OciMirrorReport,
    Platform,
    ProviderPackage,
    ProviderSource,
    ProviderVersion,
    ProviderVersions,
    PushedRelease,
    ResolvedModule,
    Services,
    SigningKey,
    __version__,
    for_display,
    forget_credentials,
    hash_package,
    installation_methods,
    is_valid,
    normalize,
    store_credentials,
)

__all__ = [
    "AsyncClient",
    "Client",
    "ConfigWarning",
    "ContentEncodingError",
    "ContentTypeError",
    "CredentialsError",
    "CredentialsUnwritable",
    "DialectChoice",
    "DownloadedModule",
    "Error",
    "GetReport",
    "Hostname",
    "InstallReport",
    "InstallationMethod",
    "InstalledModule",
    "InstalledProvider",
    "InvalidHostname",
    "InvalidOAuthClient",
    "InvalidArgument",
    "InvalidOption",
    "InvalidPackage",
    "InvalidResponse",
    "InvalidServiceId",
    "InvalidServiceUrl",
    "InvalidSource",
    "JsonError",
    "LocalFileError",
    "LockError",
    "LockFailure",
    "LockReport",
    "LockedProvider",
    "MirrorReport",
    "MirroredProvider",
    "ModuleFailure",
    "ModuleLocation",
    "ModuleSource",
    "ModuleVersions",
    "NetworkError",
    "NotFound",
    "OAuthClient",
    "OciDescriptor",
    "OciMirrorReport",
    "OciMirroredProvider",
    "Platform",
    "ProviderPackage",
    "ProviderSource",
    "ProviderVersion",
    "ProviderVersions",
    "PushedRelease",
    "RedirectError",
    "ResolvedModule",
    "ServiceNotProvided",
    "Services",
    "SigningKey",
    "StatusError",
    "Timeout",
    "TlsError",
    "TooLarge",
    "VersionNotSupported",
    "__version__",
    "for_display",
    "forget_credentials",
    "get",
    "hash_package",
    "install",
    "installation_methods",
    "is_valid",
    "lock",
    "mirror",
    "normalize",
    "store_credentials",
]

# Services implements the whole Mapping protocol natively.
_abc.Mapping.register(Services)

#: A hostname argument: a ``str`` as users type it, or a :class:`Hostname`.
HostLike = Union[str, Hostname]
#: A provider source argument: a ``str`` (parsed in the client's dialect) or
#: a :class:`ProviderSource`.
ProviderSourceLike = Union[str, ProviderSource]
#: A module source argument: a ``str`` (parsed in the client's dialect) or a
#: :class:`ModuleSource`.
ModuleSourceLike = Union[str, ModuleSource]
#: A platform argument: a ``str`` such as ``"linux_amd64"`` or a
#: :class:`Platform`.
PlatformLike = Union[str, Platform]
#: A path argument: a ``str`` or an ``os.PathLike`` (``pathlib.Path``).
PathLike = Union[str, "os.PathLike[str]"]

if TYPE_CHECKING:
    # Only for type checkers (typing has them from Python 3.10).
    from typing_extensions import Concatenate, ParamSpec

    _P = ParamSpec("_P")
_R = TypeVar("_R")
_F = TypeVar("_F", bound=Callable[..., Any])


def _coroutine(
    method: Callable[Concatenate[Client, _P], _R],
    doc: str,
    *,
    until_stopped: bool = False,
) -> Callable[Concatenate[AsyncClient, _P], Coroutine[Any, Any, _R]]:
    """The :class:`AsyncClient` method of ``method``, a :class:`Client` method
    ``NAME``: a coroutine function with ``method``'s signature (for type
    checkers, and for ``inspect`` and ``help()``) that awaits
    ``Client._NAME_async``, the awaitable of the same call: its arguments
    are checked by the native code that checks ``method``'s, when the
    coroutine is awaited, and the call runs on the module's runtime. Its
    documentation is ``doc``, what is particular to the coroutine, then
    ``method``'s.

    ``until_stopped``: the awaitable is given ``_stopped``, a callable the
    runtime calls once the call's future is gone; when the awaiting task is
    cancelled, the coroutine waits for that before it raises
    ``CancelledError`` (``install``: so that the run's staging folders are
    removed and its plugin cache locks released by then).
    """
    name = method.__name__
    later = getattr(Client, f"_{name}_async")

    if until_stopped:

        async def call(self: AsyncClient, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            answer: _R = await _until_stopped(later, self._client, *args, **kwargs)
            return answer

    else:

        async def call(self: AsyncClient, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            answer: _R = await later(self._client, *args, **kwargs)
            return answer

    call.__name__ = name
    call.__qualname__ = f"AsyncClient.{name}"
    call.__doc__ = _documented(
        doc,
        "The arguments (checked when the coroutine is awaited, before anything is"
        f" asked), the answer and the errors are those of :meth:`Client.{name}`,"
        " awaited where it blocks:",
        method,
    )
    try:
        setattr(call, "__signature__", inspect.signature(method))
    except ValueError:  # no text signature: help() shows (*args, **kwargs)
        pass
    return call


def _adds_to(method: Callable[..., Any]) -> Callable[[_F], _F]:
    """Appends the documentation of the :class:`Client` method ``method`` to
    the decorated function's, which says what the function adds to it."""

    def decorate(function: _F) -> _F:
        function.__doc__ = _documented(
            function.__doc__ or "",
            "The other arguments, the answer and the errors are those of"
            f" :meth:`Client.{method.__name__}`:",
            method,
        )
        return function

    return decorate


def _documented(doc: str, then: str, method: Callable[..., Any]) -> str:
    """``doc``, then the sentence ``then`` and the documentation of the
    :class:`Client` method ``method``, which ``doc`` adds to."""
    then = textwrap.fill(then, 72)
    return f"{inspect.cleandoc(doc)}\n\n{then}\n\n{inspect.cleandoc(method.__doc__ or '')}"


async def _until_stopped(later: Callable[..., Awaitable[Any]], /, *args: Any, **kwargs: Any) -> Any:
    """Awaits ``later(*args, **kwargs, _stopped=...)`` and, when the awaiting
    task is cancelled, waits until ``_stopped`` was called (the call's
    future dropped, on a thread of the runtime) before it raises
    ``CancelledError``."""
    loop = asyncio.get_running_loop()
    stopped: "asyncio.Future[None]" = loop.create_future()

    def told() -> None:
        # Called from a thread of the runtime once the call's future is
        # gone: ended, or dropped as the awaiting task was cancelled.
        try:
            loop.call_soon_threadsafe(_set_done, stopped)
        except RuntimeError:  # the loop is closed: nobody waits
            pass

    running = later(*args, _stopped=told, **kwargs)
    try:
        return await running
    except asyncio.CancelledError:
        await _wait_uncancellable(stopped)
        raise


def _set_done(future: "asyncio.Future[None]") -> None:
    if not future.done():
        future.set_result(None)


async def _wait_uncancellable(future: "asyncio.Future[None]") -> None:
    """Waits for ``future``, even when the awaiting task is cancelled again
    meanwhile (the cancellation is then raised once it is done)."""
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


class AsyncClient:
    """:class:`Client` for asyncio: the same options and the same methods
    (discovery and the registry calls), as coroutines. ``dialect`` is
    ``"opentofu"`` (or ``"tofu"``) or ``"terraform"``, in any case; None
    (the default): the one the current working directory and the client's
    environment mean, as for :class:`Client`.

    The calls run on the module's tokio runtime (pyo3-async-runtimes), not in
    a thread pool: awaiting one holds no thread, and cancelling the awaiting
    task cancels the discovery. A host already in the cache is answered at
    once, without the runtime (``discover``, ``service_url`` and
    ``oauth_client`` then cost about what the blocking calls do).
    Concurrent discoveries of one host share one request. Use one client
    from any number of tasks, event loops or threads.

    Each coroutine method is the :class:`Client` method of its name, awaited:
    the same signature, the arguments checked by the same code (when the
    coroutine is awaited, before anything is asked), the same answers and
    errors.

    >>> async def main():                                        # doctest: +SKIP
    ...     client = tfdisco.AsyncClient()
    ...     hosts = ["registry.terraform.io", "app.terraform.io"]
    ...     return await asyncio.gather(*(client.discover(h) for h in hosts))
    """

    __slots__ = ("_client",)

    def __init__(
        self,
        *,
        dialect: Optional[str] = None,
        timeout: float = 11.0,
        retries: Optional[int] = None,
        ca_files: Sequence[Union[str, "os.PathLike[str]"]] = (),
        credentials: Union[str, None, Mapping[HostLike, str]] = "cli",
        cli_config: bool = True,
        user_agent: Optional[str] = None,
        max_redirects: Optional[int] = None,
        body_limit: Optional[int] = None,
        registry_retries: Optional[int] = None,
        registry_timeout: Optional[float] = None,
        cli_version: Optional[str] = None,
        insecure_http_hosts: Sequence[HostLike] = (),
        resolve: Optional[Mapping[str, Union[str, Sequence[str]]]] = None,
        system_roots: bool = True,
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Builds the client; see :class:`Client` for the options.

        Problems in the CLI configuration files are
        :class:`ConfigWarning` warnings pointing at the line that made the
        client."""
        self._client = Client(
            dialect=dialect,
            timeout=timeout,
            retries=retries,
            ca_files=ca_files,
            credentials=credentials,
            cli_config=cli_config,
            user_agent=user_agent,
            max_redirects=max_redirects,
            body_limit=body_limit,
            registry_retries=registry_retries,
            registry_timeout=registry_timeout,
            cli_version=cli_version,
            insecure_http_hosts=insecure_http_hosts,
            resolve=resolve,
            system_roots=system_roots,
            env=env,
        )

    @classmethod
    def from_client(cls, client: Client) -> "AsyncClient":
        """An async client sharing ``client``'s cache and connections."""
        self = cls.__new__(cls)
        self._client = client
        return self

    @property
    def client(self) -> Client:
        """The blocking :class:`Client` with the same cache and connections."""
        return self._client

    @property
    def dialect(self) -> str:
        """The client's dialect: ``"opentofu"`` or ``"terraform"``."""
        return self._client.dialect

    @property
    def dialect_choice(self) -> DialectChoice:
        """The client's dialect and what chose it (see
        :attr:`Client.dialect_choice`)."""
        return self._client.dialect_choice

    # The calls, each the coroutine of the Client method of that name, with
    # its signature (see _coroutine): what is said here is what the
    # coroutine adds to the method's documentation.
    discover = _coroutine(Client.discover, "The services ``host`` offers.")
    service_url = _coroutine(Client.service_url, "The base URL of service ``id`` on ``host``.")
    oauth_client = _coroutine(
        Client.oauth_client, "The OAuth client that service ``id`` of ``host`` describes."
    )
    provider_versions = _coroutine(
        Client.provider_versions, "The versions of a provider, from its registry."
    )
    provider_package = _coroutine(
        Client.provider_package,
        """Where to download ``version`` of a provider for ``platform`` and how
        to check it.""",
    )
    module_versions = _coroutine(
        Client.module_versions, "The versions of a module package, from its registry."
    )
    if TYPE_CHECKING:
        # Through a ParamSpec, type checkers keep one signature of an
        # overloaded method, or not all: module_download's two are spelled
        # out for them.
        @overload
        async def module_download(
            self, source: ModuleSourceLike, version: str, *, into: None = None
        ) -> ModuleLocation: ...

        @overload
        async def module_download(
            self, source: str, version: None = None, *, into: PathLike
        ) -> DownloadedModule: ...

        async def module_download(self, *args: Any, **kwargs: Any) -> Any: ...

    else:
        module_download = _coroutine(
            Client.module_download,
            """Where to download ``version`` of a registry module package from; or,
            for an ``oci://`` source, its package downloaded, verified and unpacked
            into the folder ``into``. Cancelling the awaiting task cancels the
            download and leaves nothing behind.

            >>> m = await client.module_download("oci://ghcr.io/acme/vpc", into="vpc")  # doctest: +SKIP
            """,
        )

    module_resolve = _coroutine(
        Client.module_resolve,
        """What an ``oci://`` module source's tag (``latest`` by default) or
        digest selects: the manifest, checked as OpenTofu checks it, and the
        source pinned to its digest.""",
    )
    lock = _coroutine(
        Client.lock,
        """``terraform providers lock`` in ``dir``: the jobs run as concurrent
        futures on the module's runtime, at most ``jobs`` at once; cancelling
        the awaiting task cancels the run, and the lock file is then as it
        was.

        >>> report = await client.lock("infra", ["linux_amd64"])  # doctest: +SKIP
        """,
    )
    mirror = _coroutine(
        Client.mirror,
        """``terraform providers mirror folder`` for the configuration in
        ``dir``; cancelling the awaiting task cancels the run, and the folder
        is then as it was.

        >>> report = await client.mirror("infra", "/srv/mirror", ["linux_amd64"])  # doctest: +SKIP
        """,
    )
    mirror_to_oci = _coroutine(
        Client.mirror_to_oci,
        """``terraform providers mirror`` into the OCI repositories
        ``template`` names, for the configuration in ``dir``: the downloads
        run as concurrent futures on the module's runtime, at most ``jobs`` at
        once, then the pushes; cancelling the awaiting task cancels the run (a
        release's tag is written last: a cancelled push tags nothing).

        >>> report = await client.mirror_to_oci("infra", "ghcr.io/acme/{namespace}/{type}")  # doctest: +SKIP
        """,
    )
    push_provider = _coroutine(
        Client.push_provider,
        """Publishes a provider release's zips to the OCI repository
        ``repository`` (``REGISTRY/NAME``), tagged ``version``, in the layout
        OpenTofu's ``oci_mirror`` reads: the zips are read and sent on the
        module's runtime.

        >>> pushed = await client.push_provider("ghcr.io/acme/providers/aws", "5.31.0", zips)  # doctest: +SKIP
        """,
    )
    get = _coroutine(
        Client.get,
        """``terraform get`` in ``dir``: the registry requests and downloads
        run as concurrent futures on the module's runtime, the ``git``
        clones on threads of their own, at most ``jobs`` at once; cancelling
        the awaiting task cancels the run, and the module folders and
        ``modules.json`` are then as they were.

        >>> report = await client.get("infra", upgrade=True)  # doctest: +SKIP
        """,
    )
    install = _coroutine(
        Client.install,
        """``terraform init``'s provider installation in ``dir``: the jobs run
        as concurrent futures on the module's runtime, at most ``jobs``
        requests at once; cancelling the awaiting task cancels the run
        (``asyncio.CancelledError``, raised once the run has removed what it
        staged and released its plugin cache locks), and the lock file and
        ``.terraform/providers`` are then as they were.

        ``on_event`` is called with the GIL taken from a thread of the
        module's runtime, not the event loop's: it must not touch the loop's
        objects but through ``loop.call_soon_threadsafe``. When it raises,
        the run is cancelled and the coroutine raises that exception.

        >>> report = await client.install("infra", lockfile="readonly")  # doctest: +SKIP
        """,
        until_stopped=True,
    )

    async def credentials_source(self, host: HostLike) -> Optional[str]:
        """Where the token for ``host`` comes from (see
        :meth:`Client.credentials_source`); runs in the default executor, as
        it may run a credentials helper."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self._client.credentials_source, host)

    def forget(self, host: HostLike) -> None:
        """Drops the cached services of ``host`` (see :meth:`Client.forget`)."""
        self._client.forget(host)

    def forget_all(self) -> None:
        """Drops the whole cache (see :meth:`Client.forget_all`)."""
        self._client.forget_all()

    def __repr__(self) -> str:
        return "Async" + repr(self._client)


@_adds_to(Client.lock)
def lock(
    dir: PathLike,
    platforms: Optional[Iterable[PlatformLike]] = None,
    providers: Optional[Iterable[ProviderSourceLike]] = None,
    *,
    jobs: int = 8,
    net_mirror: Optional[str] = None,
    fs_mirror: Optional[PathLike] = None,
    oci_mirror: Optional[str] = None,
    enable_plugin_cache: bool = False,
    plugin_cache: Optional[PathLike] = None,
    **options: Any,
) -> LockReport:
    """``terraform providers lock`` / ``tofu providers lock`` in ``dir``,
    with a :class:`Client` made of the other keyword ``options``
    (``dialect``, ``ca_files``, ``credentials``, …: those of :class:`Client`;
    ``dialect`` decides whose rules apply; without it, the dialect ``dir``
    and the environment mean, as ``tfdisco lock --chdir DIR`` chooses it).
    Use a client's ``lock`` to lock several configurations with one cache
    and one set of connections.

    >>> report = tfdisco.lock(                                   # doctest: +SKIP
    ...     "infra", ["linux_amd64", "darwin_arm64"], dialect="terraform")
    >>> print(report.path, report.changed)                        # doctest: +SKIP
    infra/.terraform.lock.hcl True
    >>> for p in report.providers:                               # doctest: +SKIP
    ...     print(p.source, p.version, p.trust, p.key_id, len(p.hashes_added))
    registry.terraform.io/hashicorp/aws 5.31.0 signed by HashiCorp 34365D9472D7468F 16
    """
    return _client_in(dir, options).lock(
        dir,
        platforms,
        providers,
        jobs=jobs,
        net_mirror=net_mirror,
        fs_mirror=fs_mirror,
        oci_mirror=oci_mirror,
        enable_plugin_cache=enable_plugin_cache,
        plugin_cache=plugin_cache,
    )


@_adds_to(Client.mirror)
def mirror(
    dir: PathLike,
    folder: PathLike,
    platforms: Optional[Iterable[PlatformLike]] = None,
    *,
    jobs: int = 8,
    lock_file: bool = True,
    **options: Any,
) -> MirrorReport:
    """``terraform providers mirror folder`` / ``tofu providers mirror`` for
    the configuration in ``dir``, with a :class:`Client` made of the other
    keyword ``options`` (``dialect``, ``ca_files``, ``credentials``, …: those
    of :class:`Client`; without ``dialect``, the one ``dir`` and the
    environment mean).

    >>> report = tfdisco.mirror(                                  # doctest: +SKIP
    ...     "infra", "/srv/mirror", ["linux_amd64"], dialect="terraform")
    >>> [str(p) for p in report.indexes]                          # doctest: +SKIP
    ['/srv/mirror/registry.terraform.io/hashicorp/aws/index.json', ...]
    """
    return _client_in(dir, options).mirror(dir, folder, platforms, jobs=jobs, lock_file=lock_file)


@_adds_to(Client.get)
def get(
    dir: PathLike,
    *,
    upgrade: bool = False,
    jobs: int = 8,
    **options: Any,
) -> GetReport:
    """``terraform get`` / ``tofu get`` in ``dir``, as ``tfdisco get``
    does it, with a :class:`Client` made of the other keyword ``options``
    (``dialect``, ``ca_files``, ``credentials``, …: those of
    :class:`Client`; without ``dialect``, the one ``dir`` and the
    environment mean, as ``tfdisco get --chdir DIR`` chooses it).

    >>> report = tfdisco.get("infra", dialect="terraform")        # doctest: +SKIP
    >>> for m in report.modules:                                  # doctest: +SKIP
    ...     print(m.key, m.source, m.version, m.dir, m.installed)
    vpc terraform-aws-modules/vpc/aws 5.8.1 .terraform/modules/vpc fetched
    """
    return _client_in(dir, options).get(dir, upgrade=upgrade, jobs=jobs)


@_adds_to(Client.install)
def install(
    dir: PathLike,
    providers: Optional[Iterable[ProviderSourceLike]] = None,
    *,
    upgrade: bool = False,
    lockfile: Optional[str] = None,
    plugin_cache: Optional[PathLike] = None,
    jobs: int = 8,
    on_event: Optional[Callable[[Dict[str, Any]], object]] = None,
    **options: Any,
) -> InstallReport:
    """``terraform init`` / ``tofu init``'s provider installation in
    ``dir``, as ``tfdisco install`` does it, with a :class:`Client` made of
    the other keyword ``options`` (``dialect``, ``ca_files``, ``env``, …:
    those of :class:`Client`; without ``dialect``, the one ``dir`` and the
    environment mean, as ``tfdisco install --chdir DIR`` chooses it; its
    CLI configuration gives the installation methods and the plugin cache).

    >>> report = tfdisco.install("infra", dialect="terraform")    # doctest: +SKIP
    >>> for p in report.providers:                                # doctest: +SKIP
    ...     print(p.source, p.version, p.installed, p.from_, p.bytes)
    registry.terraform.io/hashicorp/aws 5.31.0 downloaded registry 151305938
    """
    return _client_in(dir, options).install(
        dir,
        providers,
        upgrade=upgrade,
        lockfile=lockfile,
        plugin_cache=plugin_cache,
        jobs=jobs,
        on_event=on_event,
    )


def _client_in(dir: PathLike, options: Dict[str, Any]) -> Client:
    """The :class:`Client` of ``options`` for work in ``dir``: without a
    ``dialect``, it follows the one ``dir`` means (as the CLI looks in its
    ``--chdir`` folder), not the current working directory's."""
    made: Dict[str, Any] = {**options, "_dialect_dir": dir}
    return Client(**made)
