"""Type stubs of the native module ``tfdisco._tfdisco`` (PyO3)."""

import os
from collections.abc import ItemsView, Iterator, KeysView, Mapping, Sequence, ValuesView
from typing import Any, Awaitable, FrozenSet, Optional, Tuple, TypeVar, Union, final, overload

__version__: str

__all__ = [
    "Client",
    "Hostname",
    "OAuthClient",
    "Services",
    "for_display",
    "is_valid",
    "normalize",
    "__version__",
]

_HostLike = Union[str, "Hostname"]
#: A JSON value as Python objects (dict, list, str, int, float, bool, None).
_JSON = Any

_T = TypeVar("_T")

def normalize(name: str) -> str:
    """The comparison form of ``name`` (svchost ``ForComparison``): what
    ``str(Hostname(name))`` gives, faster. Raises :class:`InvalidHostname`."""

def for_display(name: str) -> str:
    """The liberal display form of any string (svchost's package-level
    ``ForDisplay``): never fails, returns what it cannot convert as given."""

def is_valid(name: str) -> bool:
    """True when ``Hostname(name)`` would succeed (svchost ``IsValid``)."""

@final
class Hostname:
    """A service hostname in comparison form (see the module docs)."""

    def __new__(cls, name: str) -> "Hostname": ...
    @classmethod
    def from_comparison(cls, value: str) -> "Hostname":
        """A hostname already in comparison form (accepts punycode, refuses
        anything parsing would change)."""
    @property
    def display(self) -> str:
        """The form to show people: punycode decoded, the port kept."""
    @property
    def host(self) -> str:
        """The host part of the comparison form, without the port."""
    @property
    def port(self) -> Optional[int]:
        """The port, or None when it is the default (443)."""
    def __str__(self) -> str: ...
    def __repr__(self) -> str: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __lt__(self, other: "Hostname", /) -> bool: ...
    def __le__(self, other: "Hostname", /) -> bool: ...
    def __gt__(self, other: "Hostname", /) -> bool: ...
    def __ge__(self, other: "Hostname", /) -> bool: ...

@final
class OAuthClient:
    """An OAuth client as a ``login.v1`` service describes it."""

    @property
    def client_id(self) -> str:
        """The client id (``client``)."""
    @property
    def authorization_url(self) -> Optional[str]:
        """The authorization endpoint (``authz``)."""
    @property
    def token_url(self) -> Optional[str]:
        """The token endpoint (``token``)."""
    @property
    def min_port(self) -> int:
        """The lowest local port for the redirect listener (default 1024)."""
    @property
    def max_port(self) -> int:
        """The highest local port for the redirect listener (default 65535)."""
    @property
    def grant_types(self) -> FrozenSet[str]:
        """The grant types (``authz_code`` when the document names none)."""
    @property
    def scopes(self) -> Tuple[str, ...]:
        """The scopes to request."""
    def supports_grant_type(self, grant_type: str) -> bool:
        """True when the client supports ``grant_type``."""
    def __eq__(self, other: object, /) -> bool: ...

@final
class Services(Mapping[str, _JSON]):
    """The services one host offers: a read-only mapping of service id to
    the document's value, in document order."""

    @property
    def hostname(self) -> Hostname:
        """The host these services belong to."""
    @property
    def discovery_url(self) -> str:
        """The URL the document came from, after redirects."""
    @property
    def dialect(self) -> str:
        """``"opentofu"`` or ``"terraform"``: whose rules read service ids."""
    @property
    def is_forced(self) -> bool:
        """True for services from a ``host`` block of the CLI configuration."""
    @property
    def has_document(self) -> bool:
        """False after a 404 or a ``null`` document."""
    def service_url(self, id: str) -> str:
        """The base URL of service ``id``."""
    def oauth_client(self, id: str) -> OAuthClient:
        """The OAuth client a ``login.v1``-style entry describes."""
    def resolve(self, id: str) -> Union[str, OAuthClient]:
        """An ``OAuthClient`` for a client definition, else the base URL."""
    @overload
    def get(self, id: str) -> Optional[_JSON]: ...
    @overload
    def get(self, id: str, default: _T) -> Union[_JSON, _T]: ...
    def __getitem__(self, id: str, /) -> _JSON: ...
    def __contains__(self, id: object, /) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def keys(self) -> KeysView[str]: ...
    def values(self) -> ValuesView[_JSON]: ...
    def items(self) -> ItemsView[str, _JSON]: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class Client:
    """A discovery client; blocking methods release the GIL. See the
    package documentation for every option."""

    def __new__(
        cls,
        *,
        dialect: str = "opentofu",
        timeout: float = 11.0,
        retries: Optional[int] = None,
        ca_files: Sequence[Union[str, "os.PathLike[str]"]] = (),
        credentials: Union[str, None, Mapping[_HostLike, str]] = "cli",
        cli_config: bool = True,
        user_agent: Optional[str] = None,
        max_redirects: Optional[int] = None,
        body_limit: Optional[int] = None,
        insecure_http_hosts: Sequence[_HostLike] = (),
        resolve: Optional[Mapping[str, Union[str, Sequence[str]]]] = None,
        system_roots: bool = True,
        env: Optional[Mapping[str, str]] = None,
    ) -> "Client": ...
    def discover(self, host: _HostLike) -> Services:
        """The services ``host`` offers (cached per host)."""
    def service_url(self, host: _HostLike, id: str) -> str:
        """The base URL of service ``id`` on ``host``."""
    def oauth_client(self, host: _HostLike, id: str) -> OAuthClient:
        """The OAuth client that service ``id`` of ``host`` describes."""
    def forget(self, host: _HostLike) -> None:
        """Drops the cached services of ``host``."""
    def forget_all(self) -> None:
        """Drops the whole cache (``host`` blocks stay)."""
    def credentials_source(self, host: _HostLike) -> Optional[str]:
        """Where the token sent to ``host`` comes from; never the token."""
    def _discover_async(self, host: _HostLike) -> Awaitable[Services]: ...
    def _service_url_async(self, host: _HostLike, id: str) -> Awaitable[str]: ...
    def _oauth_client_async(self, host: _HostLike, id: str) -> Awaitable[OAuthClient]: ...
