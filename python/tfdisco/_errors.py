"""The exceptions of tfdisco: one class per kind of error of the Rust crates.

Every exception is a :class:`tfdisco.Error`; its ``kind`` is the Rust
``ErrorKind`` name the ``tfdisco`` CLI prints with ``--json``
(``invalid_hostname``, ``network``, ``tls``, …), and its message is the
Rust message, which never contains credentials.
"""

from __future__ import annotations

import sys
import types
import warnings
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Type, Union

if TYPE_CHECKING:
    from ._tfdisco import LockFailure, ModuleFailure

__all__ = [
    "Error",
    "InvalidHostname",
    "InvalidServiceId",
    "ServiceNotProvided",
    "VersionNotSupported",
    "InvalidServiceUrl",
    "InvalidOAuthClient",
    "TlsError",
    "NetworkError",
    "Timeout",
    "StatusError",
    "ContentTypeError",
    "ContentEncodingError",
    "TooLarge",
    "JsonError",
    "RedirectError",
    "InvalidSource",
    "InvalidArgument",
    "LocalFileError",
    "NotFound",
    "InvalidResponse",
    "InvalidOption",
    "CredentialsError",
    "CredentialsUnwritable",
    "LockError",
    "InvalidPackage",
    "ConfigWarning",
]


class Error(Exception):
    """Any tfdisco error.

    Attributes:
        kind: the error's kind, as the ``tfdisco`` CLI names it in ``--json``
            output (``"network"``, ``"service_not_provided"``, …).
        url: the request URL at fault, for errors that happened while
            talking to a server; otherwise None.
        status: the HTTP status at fault (``Status`` errors and redirects
            without a ``Location``); otherwise None.
    """

    kind: str = "error"
    url: Optional[str]
    status: Optional[int]

    def __init__(
        self,
        message: str,
        kind: Optional[str] = None,
        url: Optional[str] = None,
        status: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind
        self.url = url
        self.status = status

    @property
    def message(self) -> str:
        """The message, as ``str(error)`` gives it."""
        return str(self.args[0]) if self.args else ""


class InvalidHostname(Error, ValueError):
    """A hostname that does not parse (also ``ValueError``)."""

    kind = "invalid_hostname"


class InvalidServiceId(Error, ValueError):
    """A service id that does not parse, such as ``"modules"`` without a
    version (also ``ValueError``)."""

    kind = "invalid_service_id"


class ServiceNotProvided(Error, LookupError):
    """The host offers no service of that name (also ``LookupError``)."""

    kind = "service_not_provided"


class VersionNotSupported(Error, LookupError):
    """The host offers the service, but not in the requested version (also
    ``LookupError``)."""

    kind = "version_not_supported"


class InvalidServiceUrl(Error):
    """The document's URL for a service is unusable."""

    kind = "invalid_service_url"


class InvalidOAuthClient(Error):
    """The document's ``login.v1``-style client definition is unusable."""

    kind = "invalid_oauth_client"


class TlsError(Error):
    """The TLS handshake failed: an untrusted or wrong certificate, say
    (trust a private CA with ``ca_files``)."""

    kind = "tls"


class NetworkError(Error):
    """DNS, connection, proxy or I/O failure."""

    kind = "network"


class Timeout(Error):
    """The discovery did not finish within the client's ``timeout``."""

    kind = "timeout"


class StatusError(Error):
    """The server answered with a status other than 200, 404 or a redirect."""

    kind = "status"


class ContentTypeError(Error):
    """The ``Content-Type`` is missing, malformed or not JSON."""

    kind = "content_type"


class ContentEncodingError(Error):
    """An unsupported ``Content-Encoding``, or gzip that does not decode."""

    kind = "content_encoding"


class TooLarge(Error):
    """The document is larger than the client's ``body_limit``."""

    kind = "too_large"


class JsonError(Error):
    """The document is not a JSON object (nor ``null``)."""

    kind = "json"


class RedirectError(Error):
    """A redirect that cannot be followed: no or a bad ``Location``, https to
    http, or too many."""

    kind = "redirect"


class InvalidSource(Error, ValueError):
    """A provider or module source address that does not parse, or that a
    registry request cannot use (also ``ValueError``)."""

    kind = "invalid_source"


class InvalidArgument(Error, ValueError):
    """An argument of a registry request that cannot be used: a version or
    platform that does not parse (also ``ValueError``)."""

    kind = "invalid_argument"


class LocalFileError(Error, OSError):
    """A local file that could not be read or written: a filesystem
    mirror's package, a mirror folder's staging file (also ``OSError``)."""

    kind = "local_file"


class NotFound(Error, LookupError):
    """The registry has no such provider, module, version or platform (it
    answered 404; also ``LookupError``)."""

    kind = "not_found"


class InvalidResponse(Error):
    """A registry response that parses but cannot be used (a missing
    ``X-Terraform-Get``, a bad checksum, another platform, …)."""

    kind = "invalid_response"


class InvalidOption(Error, ValueError):
    """An unusable client option: a CA file that cannot be read, a
    User-Agent or token that cannot be sent in a header, … (also
    ``ValueError``)."""

    kind = "invalid_option"


class CredentialsError(Error):
    """A credentials source failed (a credentials helper, say)."""

    kind = "credentials"


class CredentialsUnwritable(CredentialsError):
    """``store_credentials`` or ``forget_credentials`` for a host whose
    credentials are a ``credentials`` block of a CLI configuration file
    other than ``credentials.tfrc.json``: as ``terraform login`` refuses,
    nothing is changed."""

    kind = "credentials_unwritable"


class LockError(Error):
    """A lock, mirror, install or get run (``Client.lock``, ``Client.mirror``,
    ``Client.install``, ``Client.get``, ``tfdisco.lock``, …) that failed; the
    lock file (and the mirror folder, ``.terraform/providers``,
    ``.terraform/modules``) is then as it was.

    ``kind`` says what failed, in the words of ``tfdisco lock --json``:
    ``"configuration"`` (it does not parse, or has modules not installed),
    ``"lock_file"`` (it cannot be read, or not written), ``"usage"`` (a
    provider named that the configuration does not require, a constraint
    that does not parse, options that conflict), ``"failed"`` (providers
    that could not be locked: ``failures`` lists every one), ``"readonly"``
    (an install run with ``lockfile="readonly"`` whose lock file would
    change: nothing was installed), ``"folder"`` (a mirror folder that
    could not be read or written, a package not placed), ``"modules"``
    (modules that could not be installed, by ``get`` or before an
    install, lock or mirror run: ``failures`` lists every one, as
    :class:`tfdisco.ModuleFailure` records; nothing was placed and
    ``modules.json`` is as it was) or
    ``"cancelled"`` (the library's kind for a cancelled install run:
    nothing was placed, and the lock file is as it was; exit code 130, a
    shell's code for Ctrl-C; ``install`` itself raises
    ``KeyboardInterrupt``, ``asyncio.CancelledError`` or what its
    ``on_event`` raised).
    A kind of a later version is given as it comes, with its exit code.

    Attributes:
        exit_code: ``tfdisco lock``'s (and ``install``'s, ``get``'s) exit
            code: 1 for a failed request, verification, download or write; 2
            for the configuration, the lock file's contents or the
            arguments; 3 when no version or platform fits, or when a
            read-only lock file would change; 130 for a cancelled install
            run.
        failures: for ``kind`` ``"failed"``, one
            :class:`tfdisco.LockFailure` per provider (and platform) that
            could not be locked (``source``, ``version``, ``platform``,
            ``kind``, ``exit_code``, ``message``); for ``kind``
            ``"modules"``, one :class:`tfdisco.ModuleFailure` per module
            that could not be installed (``key``, ``kind``, ``exit_code``,
            ``message``); otherwise empty. The same members as the
            ``failures`` of the ``--json`` document.

    >>> try:                                                     # doctest: +SKIP
    ...     tfdisco.lock("infra", ["linux_amd64"])
    ... except tfdisco.LockError as e:
    ...     print(e.exit_code, [(str(f.source), f.kind) for f in e.failures])
    3 [('registry.opentofu.org/hashicorp/aws', 'version')]
    """

    kind = "lock"
    exit_code: int
    failures: List[Union["LockFailure", "ModuleFailure"]]

    def __init__(
        self,
        message: str,
        kind: Optional[str] = None,
        exit_code: int = 1,
        failures: Sequence[Union["LockFailure", "ModuleFailure"]] = (),
    ) -> None:
        super().__init__(message, kind)
        self.exit_code = exit_code
        self.failures = list(failures)


class InvalidPackage(Error, ValueError):
    """A file :func:`tfdisco.hash_package` cannot hash: not a zip file,
    truncated, damaged, encrypted, with unsafe or duplicate names, … (also
    ``ValueError``).

    Attributes:
        problem: what is wrong, in a word: ``"not-a-zip"``, ``"truncated"``,
            ``"trailing-data"``, ``"unsupported"``, ``"corrupt"``,
            ``"central-directory"``, ``"newline-in-name"``,
            ``"unsafe-name"``, ``"duplicate-name"`` or ``"name-conflict"``.
    """

    kind = "invalid_package"
    problem: str

    def __init__(self, message: str, problem: str = "corrupt") -> None:
        super().__init__(message)
        self.problem = problem


class ConfigWarning(UserWarning):
    """A problem in the Terraform/OpenTofu CLI configuration files, reported
    as the CLIs do: a warning, and the faulty part is skipped. The message is
    ``file:line: problem``; the warning points at the line that made the
    client."""


#: The class of each kind :func:`_make` makes: every class above but those
#: with a maker of their own (:func:`_make_lock`, :func:`_make_package`).
_BY_KIND: Dict[str, Type[Error]] = {
    cls.kind: cls for cls in Error.__subclasses__() if cls not in (LockError, InvalidPackage)
}
_BY_KIND[CredentialsUnwritable.kind] = CredentialsUnwritable


def _make(
    kind: str, message: str, url: Optional[str], status: Optional[int]
) -> Error:
    """The exception for an error of ``kind`` (called by the native module).

    A kind this version does not know yet gives a plain :class:`Error` with
    that ``kind``.
    """
    cls = _BY_KIND.get(kind, Error)
    return cls(message, kind, url, status)


def _make_lock(
    message: str, kind: str, exit_code: int, failures: List[Union["LockFailure", "ModuleFailure"]]
) -> LockError:
    """The :class:`LockError` of a failed lock run (called by the native
    module)."""
    return LockError(message, kind, exit_code, failures)


def _make_package(message: str, problem: str) -> InvalidPackage:
    """The :class:`InvalidPackage` of a package that cannot be hashed
    (called by the native module)."""
    return InvalidPackage(message, problem)


def _warn_config(messages: List[str]) -> None:
    """Issues a :class:`ConfigWarning` per message (called by the native
    module while it makes a client), pointing at the line that made the
    client: the first frame outside the tfdisco package.

    ``tfdisco.Client`` is the native class, which has no frame of its own:
    the frame below this function's is the one that called ``Client(...)``.
    ``tfdisco.AsyncClient`` is a Python class whose ``__init__`` makes a
    ``Client``: the caller is one frame further out.
    """
    level = 2  # 1 is this function; 2 the frame that made the native Client
    frame: Optional[types.FrameType] = sys._getframe(1)
    while frame is not None and _in_this_package(frame.f_globals.get("__name__")):
        frame = frame.f_back
        level += 1
    for message in messages:
        warnings.warn(message, ConfigWarning, stacklevel=level)


def _in_this_package(module: object) -> bool:
    return isinstance(module, str) and (module == "tfdisco" or module.startswith("tfdisco."))
