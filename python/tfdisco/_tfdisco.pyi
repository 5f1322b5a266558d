"""Type stubs of the native module ``tfdisco._tfdisco`` (PyO3)."""

import os
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, ValuesView
from pathlib import Path
from typing import (
    Any,
    Callable,
    Dict,
    FrozenSet,
    List,
    Optional,
    Tuple,
    TypeVar,
    Union,
    final,
    overload,
)

__version__: str

__all__ = [
    "Client",
    "DialectChoice",
    "DownloadedModule",
    "GetReport",
    "Hostname",
    "InstallReport",
    "InstalledModule",
    "InstalledProvider",
    "LockFailure",
    "LockReport",
    "InstallationMethod",
    "LockedProvider",
    "MirrorReport",
    "MirroredProvider",
    "ModuleFailure",
    "ModuleLocation",
    "ModuleSource",
    "ModuleVersions",
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
    "ResolvedModule",
    "Services",
    "SigningKey",
    "for_display",
    "forget_credentials",
    "hash_package",
    "installation_methods",
    "is_valid",
    "normalize",
    "store_credentials",
    "__version__",
]

_HostLike = Union[str, "Hostname"]
_ProviderSourceLike = Union[str, "ProviderSource"]
_ModuleSourceLike = Union[str, "ModuleSource"]
_PlatformLike = Union[str, "Platform"]
_PathLike = Union[str, "os.PathLike[str]"]
#: ``install``'s ``on_event``: given a dict per event of the run
#: (``"event"``: ``"downloading"``, ``"downloaded"``, ``"waiting_for_cache"``).
_OnEvent = Callable[[Dict[str, Any]], object]
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
    def to_json(self) -> str:
        """The services as one JSON document: what ``tfdisco discover HOST
        --json`` prints."""
    def __eq__(self, other: object, /) -> bool: ...

@final
class ProviderSource:
    """A provider source address (``hashicorp/aws``,
    ``registry.example.com/acme/widgets``), parsed as Terraform and OpenTofu
    parse ``required_providers``. ``dialect`` is ``"opentofu"`` (or
    ``"tofu"``) or ``"terraform"``, in any case. Raises
    :class:`InvalidSource`."""

    def __new__(cls, source: str, *, dialect: str = "opentofu") -> "ProviderSource": ...
    @property
    def host(self) -> Hostname:
        """The registry host."""
    @property
    def namespace(self) -> str:
        """The namespace, normalized; ``?`` when none was given, ``-`` for a
        legacy address."""
    @property
    def type(self) -> str:
        """The provider type, normalized."""
    @property
    def dialect(self) -> str:
        """The dialect that parsed it: ``"opentofu"`` or ``"terraform"``."""
    @property
    def has_known_namespace(self) -> bool:
        """True when a namespace was given."""
    @property
    def is_legacy(self) -> bool:
        """True for a legacy address (namespace ``-``)."""
    @property
    def is_builtin(self) -> bool:
        """True for a provider built into the CLI."""
    def for_display(self) -> str:
        """The short form for people (Go's ``ForDisplay``)."""
    def validate(self) -> None:
        """Raises :class:`InvalidSource` unless a registry request can use
        the source (it needs a namespace)."""
    def __str__(self) -> str: ...
    def __repr__(self) -> str: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __lt__(self, other: "ProviderSource", /) -> bool: ...
    def __le__(self, other: "ProviderSource", /) -> bool: ...
    def __gt__(self, other: "ProviderSource", /) -> bool: ...
    def __ge__(self, other: "ProviderSource", /) -> bool: ...

@final
class ModuleSource:
    """A module registry source address (``hashicorp/consul/aws``,
    ``app.terraform.io/acme/vpc/aws//modules/subnet``). ``dialect`` is
    ``"opentofu"`` (or ``"tofu"``) or ``"terraform"``, in any case. Raises
    :class:`InvalidSource`."""

    def __new__(cls, source: str, *, dialect: str = "opentofu") -> "ModuleSource": ...
    @property
    def host(self) -> Hostname:
        """The registry host."""
    @property
    def namespace(self) -> str:
        """The namespace, as written."""
    @property
    def name(self) -> str:
        """The module name, as written."""
    @property
    def target_system(self) -> str:
        """The target system (``aws``, ``azurerm``, …)."""
    @property
    def subdir(self) -> str:
        """The subdirectory inside the package; empty when there is none."""
    @property
    def package_path(self) -> str:
        """``namespace/name/system``."""
    @property
    def dialect(self) -> str:
        """The dialect that parsed it: ``"opentofu"`` or ``"terraform"``."""
    def for_display(self) -> str:
        """The short form for people (Go's ``ForDisplay``)."""
    def __str__(self) -> str: ...
    def __repr__(self) -> str: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __lt__(self, other: "ModuleSource", /) -> bool: ...
    def __le__(self, other: "ModuleSource", /) -> bool: ...
    def __gt__(self, other: "ModuleSource", /) -> bool: ...
    def __ge__(self, other: "ModuleSource", /) -> bool: ...

@final
class Platform:
    """An operating system and architecture (``Platform("linux_amd64")``).
    Raises :class:`InvalidArgument`."""

    def __new__(cls, platform: str) -> "Platform": ...
    @property
    def os(self) -> str:
        """The operating system (``linux``)."""
    @property
    def arch(self) -> str:
        """The architecture (``amd64``)."""
    def __str__(self) -> str: ...
    def __repr__(self) -> str: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class ProviderVersion:
    """One version of a provider, as its registry lists it."""

    @property
    def version(self) -> str:
        """The version (``3.6.0``)."""
    @property
    def protocols(self) -> List[str]:
        """The plugin protocol versions it speaks (``["5.0"]``)."""
    @property
    def platforms(self) -> List[Platform]:
        """The platforms it has packages for."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class ProviderVersions:
    """The versions of a provider (``Client.provider_versions``)."""

    @property
    def source(self) -> ProviderSource:
        """The provider asked about."""
    @property
    def url(self) -> str:
        """The URL the versions were read from, after redirects."""
    @property
    def versions(self) -> List[ProviderVersion]:
        """The versions, in the registry's order."""
    @property
    def warnings(self) -> List[str]:
        """Warnings the registry gives about this provider."""
    def to_json(self) -> str:
        """The answer as one JSON document: what ``tfdisco provider versions
        --json`` prints."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class SigningKey:
    """One GPG key that may have signed a provider's ``SHA256SUMS``."""

    @property
    def key_id(self) -> str:
        """The key id."""
    @property
    def ascii_armor(self) -> str:
        """The public key, ASCII-armored."""
    @property
    def trust_signature(self) -> str:
        """A signature by a trusted key over this key; may be empty."""
    @property
    def source(self) -> str:
        """Who the key belongs to; may be empty."""
    @property
    def source_url(self) -> Optional[str]:
        """Where to read more about the key."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class ProviderPackage:
    """Where to download one version of a provider for one platform, and how
    to check it (``Client.provider_package``)."""

    @property
    def source(self) -> ProviderSource:
        """The provider asked about."""
    @property
    def version(self) -> str:
        """The version asked about."""
    @property
    def platform(self) -> Platform:
        """The platform asked about."""
    @property
    def filename(self) -> str:
        """The package's file name."""
    @property
    def download_url(self) -> str:
        """The package."""
    @property
    def shasums_url(self) -> str:
        """The ``SHA256SUMS`` file."""
    @property
    def shasums_signature_url(self) -> str:
        """The detached signature of ``SHA256SUMS``."""
    @property
    def shasum(self) -> str:
        """The package's SHA-256 (64 lower-case hex digits)."""
    @property
    def protocols(self) -> List[str]:
        """The plugin protocol versions it speaks."""
    @property
    def signing_keys(self) -> List[SigningKey]:
        """The keys that may have signed ``SHA256SUMS``."""
    def to_json(self) -> str:
        """The answer as one JSON document: what ``tfdisco provider package
        --json`` prints."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class ModuleVersions:
    """The versions of a module package (``Client.module_versions``)."""

    @property
    def source(self) -> ModuleSource:
        """The module asked about."""
    @property
    def url(self) -> str:
        """The URL the versions were read from, after redirects."""
    @property
    def versions(self) -> List[str]:
        """The versions, in the registry's order."""
    def to_json(self) -> str:
        """The answer as one JSON document: what ``tfdisco module versions
        --json`` prints."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class ModuleLocation:
    """Where to download one version of a module package from
    (``Client.module_download``)."""

    @property
    def source(self) -> ModuleSource:
        """The module asked about."""
    @property
    def version(self) -> str:
        """The version asked about."""
    @property
    def location(self) -> str:
        """A go-getter address, or a plain http(s) URL for OpenTofu's direct
        packages."""
    @property
    def use_registry_credentials(self) -> Optional[bool]:
        """Whether the registry's credentials go with a direct package
        download; None for a go-getter address."""
    def to_json(self) -> str:
        """The answer as one JSON document: what ``tfdisco module download
        --json`` prints."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class OciDescriptor:
    """A blob an OCI manifest points to: a module's package layer
    (``ResolvedModule.package``)."""

    @property
    def media_type(self) -> str:
        """Its media type (``"archive/zip"``)."""
    @property
    def digest(self) -> str:
        """Its digest (``"sha256:…"``): what the download is checked against."""
    @property
    def size(self) -> int:
        """Its size in bytes."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class ResolvedModule:
    """What an ``oci://`` module source selects (``Client.module_resolve``):
    the manifest its tag or digest names, checked as OpenTofu checks it."""

    @property
    def source(self) -> str:
        """The source, as given."""
    @property
    def address(self) -> str:
        """The source, normalized."""
    @property
    def registry(self) -> str:
        """The registry (``ghcr.io``, ``127.0.0.1:5000``)."""
    @property
    def repository(self) -> str:
        """The repository (``acme/vpc``)."""
    @property
    def tag(self) -> Optional[str]:
        """The tag resolved (``latest`` when the source names neither a tag
        nor a digest); None for a digest."""
    @property
    def digest(self) -> str:
        """The manifest's digest (``sha256:…``)."""
    @property
    def media_type(self) -> str:
        """The manifest's media type."""
    @property
    def size(self) -> int:
        """The manifest's size in bytes."""
    @property
    def subdir(self) -> str:
        """The source's subdirectory (``sub`` for ``//sub``), or ``""``."""
    @property
    def pinned(self) -> str:
        """The source pinned to the manifest's digest
        (``oci://REGISTRY/REPOSITORY[//SUBDIR]?digest=DIGEST``)."""
    @property
    def package(self) -> OciDescriptor:
        """The package: the manifest's ``archive/zip`` layer."""
    def to_json(self) -> str:
        """The answer as one JSON document: what ``tfdisco module resolve
        --json`` prints."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class DownloadedModule:
    """An ``oci://`` module package downloaded, verified and unpacked
    (``Client.module_download(source, into=DIR)``)."""

    @property
    def resolved(self) -> ResolvedModule:
        """What the source selected."""
    @property
    def pinned(self) -> str:
        """The source pinned to the manifest's digest."""
    @property
    def digest(self) -> str:
        """The manifest's digest."""
    @property
    def into(self) -> Path:
        """The package's folder, the ``into`` given."""
    @property
    def module_dir(self) -> Path:
        """The module's folder: ``into``, or the source's ``//subdir`` in it."""
    @property
    def files(self) -> int:
        """How many files the package has."""
    @property
    def bytes(self) -> int:
        """How many bytes they hold together."""
    def to_json(self) -> str:
        """The report as one JSON document: what ``tfdisco module download
        SOURCE --into DIR --json`` prints."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class DialectChoice:
    """The dialect a client follows and what chose it
    (``Client.dialect_choice``, the reports' ``dialect``)."""

    @property
    def name(self) -> str:
        """``"opentofu"`` or ``"terraform"``."""
    @property
    def chosen_by(self) -> str:
        """``"given"``, ``"variable"`` (``TFDISCO_DIALECT``),
        ``"lock_file"``, ``"tofu_file"``, ``"program"`` (only one of
        ``terraform`` and ``tofu`` on the ``PATH``) or ``"default"``."""
    @property
    def why(self) -> str:
        """Why, in words."""
    def to_json(self) -> str:
        """``{"name", "chosen_by", "why"}``: a report's ``"dialect"``
        member."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

def hash_package(path: _PathLike) -> Tuple[str, str]:
    """``(h1, zh)``: the lock file hashes of a provider package (a zip
    file), read once in constant memory. Raises ``OSError``
    (``FileNotFoundError``, …) and :class:`tfdisco.InvalidPackage`."""

@final
class LockedProvider:
    """One provider of a :class:`LockReport`."""

    @property
    def source(self) -> ProviderSource:
        """The provider."""
    @property
    def version(self) -> str:
        """The version locked."""
    @property
    def constraints(self) -> str:
        """Its constraints as the lock file writes them; may be empty."""
    @property
    def hashes_added(self) -> List[str]:
        """The hashes the lock file did not hold before, sorted."""
    @property
    def trust(self) -> str:
        """How the signing key is trusted (``"self-signed"``, …)."""
    @property
    def key_id(self) -> Optional[str]:
        """The signing key's id; None when the signature was skipped."""

@final
class InstallationMethod:
    """One installation method and what it says of a provider
    (:func:`installation_methods`)."""

    @property
    def method(self) -> str:
        """``"direct"``, ``"network_mirror"``, ``"filesystem_mirror"``,
        ``"oci_mirror"`` or ``"dev_overrides"``."""
    @property
    def location(self) -> str:
        """The registry host, URL, directory or repository template."""
    @property
    def priority(self) -> Optional[int]:
        """Its place, from 1; None for a development override."""
    @property
    def may_install(self) -> bool:
        """Whether it may install the provider."""
    @property
    def reason(self) -> str:
        """Why, in words."""
    @property
    def supported(self) -> bool:
        """Whether tfdisco installs with the method: True for every method
        since ``oci_mirror`` is installed from (it was False for it
        before)."""
    @property
    def oci(self) -> Optional[Dict[str, str]]:
        """For an ``oci_mirror``: ``{"registry", "repository"}`` where its
        template puts the provider, or ``{"error"}``; else None."""

def installation_methods(
    source: _ProviderSourceLike,
    *,
    dialect: str = "opentofu",
    cwd: Optional[_PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
) -> List[InstallationMethod]:
    """Which installation methods of the CLI configuration would install
    ``source``, in priority order, and why."""

def store_credentials(
    host: _HostLike,
    token: str,
    *,
    dialect: str = "opentofu",
    env: Optional[Mapping[str, str]] = None,
) -> str:
    """Saves ``token`` for ``host`` where ``terraform login`` would
    (``credentials.tfrc.json``, or the ``credentials_helper``); returns
    where. Raises :class:`tfdisco.CredentialsUnwritable` for a host
    configured in another CLI configuration file."""

def forget_credentials(
    host: _HostLike,
    *,
    dialect: str = "opentofu",
    env: Optional[Mapping[str, str]] = None,
) -> str:
    """Removes what is saved for ``host`` where ``terraform logout`` would;
    returns where."""

@final
class MirroredProvider:
    """One provider of a :class:`MirrorReport`."""

    @property
    def source(self) -> ProviderSource:
        """The provider."""
    @property
    def version(self) -> str:
        """The version mirrored."""
    @property
    def constraints(self) -> str:
        """Its constraints as the lock file writes them; may be empty."""
    @property
    def locked(self) -> bool:
        """True when the lock file decided the version."""
    @property
    def trust(self) -> str:
        """How the signing key is trusted (``"self-signed"``, …)."""
    @property
    def key_id(self) -> Optional[str]:
        """The signing key's id; None when the signature was skipped."""
    @property
    def archives(self) -> List[Path]:
        """The archives written, one per platform."""

@final
class MirrorReport:
    """What a mirror run did (``Client.mirror``)."""

    @property
    def folder(self) -> Path:
        """The mirror folder."""
    @property
    def platforms(self) -> List[Platform]:
        """The platforms mirrored."""
    @property
    def providers(self) -> List[MirroredProvider]:
        """Each provider mirrored, in address order."""
    @property
    def indexes(self) -> List[Path]:
        """Every ``index.json`` and ``<version>.json`` written."""
    @property
    def skipped(self) -> List[Tuple[Path, str]]:
        """Archives left out of the indexes, and why."""
    @property
    def warnings(self) -> List[str]:
        """What the folder's scan said about paths that are no package."""
    @property
    def dialect(self) -> DialectChoice:
        """The dialect the run followed, and what chose it."""
    def to_json(self) -> str:
        """The report as one JSON document: what ``tfdisco mirror --json``
        prints."""

@final
class PushedRelease:
    """What pushing a provider release to an OCI repository did
    (``Client.push_provider``, ``OciMirroredProvider.release``)."""

    @property
    def repository(self) -> str:
        """The repository, ``REGISTRY/NAME``."""
    @property
    def tag(self) -> str:
        """The tag written: the version, its ``+`` as ``_``."""
    @property
    def index(self) -> str:
        """The digest of the release's index (``sha256:…``)."""
    @property
    def packages(self) -> List[Tuple[Platform, str]]:
        """Each platform's zip digest, in the order given."""
    @property
    def blobs_sent(self) -> int:
        """How many blobs were sent."""
    @property
    def blobs_mounted(self) -> int:
        """How many blobs the registry mounted from ``mount_from``."""
    def to_json(self) -> str:
        """The report as one JSON document: what ``tfdisco oci
        push-provider --json`` prints."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class OciMirroredProvider:
    """One provider of an :class:`OciMirrorReport`."""

    @property
    def source(self) -> ProviderSource:
        """The provider."""
    @property
    def version(self) -> str:
        """The version mirrored."""
    @property
    def constraints(self) -> str:
        """Its constraints as the lock file writes them; may be empty."""
    @property
    def locked(self) -> bool:
        """True when the lock file decided the version."""
    @property
    def trust(self) -> str:
        """How the signing key is trusted (``"self-signed"``, …)."""
    @property
    def key_id(self) -> Optional[str]:
        """The signing key's id; None when the signature was skipped."""
    @property
    def release(self) -> PushedRelease:
        """What was pushed, to the repository the template names."""

@final
class OciMirrorReport:
    """What a mirror run into OCI repositories did
    (``Client.mirror_to_oci``)."""

    @property
    def template(self) -> str:
        """The repository template."""
    @property
    def platforms(self) -> List[Platform]:
        """The platforms mirrored."""
    @property
    def providers(self) -> List[OciMirroredProvider]:
        """Each provider pushed, in address order."""
    def to_json(self) -> str:
        """The report as one JSON document: what ``tfdisco mirror --to-oci
        TEMPLATE --json`` prints."""

@final
class LockReport:
    """What a lock run did (``Client.lock``)."""

    @property
    def path(self) -> Path:
        """The lock file."""
    @property
    def changed(self) -> bool:
        """True when its bytes changed (and it was written)."""
    @property
    def platforms(self) -> List[Platform]:
        """The platforms locked."""
    @property
    def providers(self) -> List[LockedProvider]:
        """Each provider locked, in address order."""
    @property
    def dialect(self) -> DialectChoice:
        """The dialect the run followed, and what chose it."""
    def to_json(self) -> str:
        """The report as one JSON document: what ``tfdisco lock --json``
        prints."""

@final
class InstalledProvider:
    """One provider of an :class:`InstallReport`."""

    @property
    def source(self) -> ProviderSource:
        """The provider."""
    @property
    def version(self) -> str:
        """The version installed."""
    @property
    def installed(self) -> str:
        """``"reused"`` (already in place, matching the lock file),
        ``"cached"`` (linked from the plugin cache) or ``"downloaded"``."""
    @property
    def from_(self) -> str:
        """The installation method it comes from (the JSON's ``from``):
        ``"registry"``, a network mirror's URL or a filesystem mirror's
        folder."""
    @property
    def bytes(self) -> int:
        """Bytes downloaded (0 when nothing was)."""
    @property
    def hashes_added(self) -> List[str]:
        """The hashes the lock file did not hold before, sorted."""
    @property
    def trust(self) -> str:
        """How the package is trusted (``"self-signed"``, ``"unauthenticated"``, …)."""
    @property
    def key_id(self) -> Optional[str]:
        """The signing key's id; None when no key signed it."""

@final
class InstallReport:
    """What an install run did (``Client.install``)."""

    @property
    def path(self) -> Path:
        """The lock file."""
    @property
    def changed(self) -> bool:
        """True when its bytes changed (and it was written)."""
    @property
    def platform(self) -> Platform:
        """The platform installed for: the one this program runs on."""
    @property
    def providers(self) -> List[InstalledProvider]:
        """Each provider installed, in address order."""
    @property
    def warnings(self) -> List[str]:
        """Providers left to a development override, what the implied
        mirrors' scans said."""
    @property
    def dialect(self) -> DialectChoice:
        """The dialect the run followed, and what chose it."""
    @property
    def modules(self) -> List[InstalledModule]:
        """The modules installed first, as ``init`` installs them, by key;
        empty when the root module calls none."""
    def to_json(self) -> str:
        """The report as one JSON document: what ``tfdisco install --json``
        prints."""

@final
class InstalledModule:
    """One module of a :class:`GetReport` (and of an :class:`InstallReport`)."""

    @property
    def key(self) -> str:
        """Its key (``vpc``, ``vpc.subnets``)."""
    @property
    def source(self) -> str:
        """Its source, as ``modules.json`` records it."""
    @property
    def version(self) -> Optional[str]:
        """The version installed, for a registry module; else None."""
    @property
    def dir(self) -> str:
        """Its folder, relative to the configuration's, ``/``-separated."""
    @property
    def installed(self) -> str:
        """``"kept"`` (as installed before: no request), ``"local"`` (a
        path: nothing installed) or ``"fetched"``."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

@final
class GetReport:
    """What a get run did (``Client.get``)."""

    @property
    def manifest(self) -> Path:
        """The module manifest, ``.terraform/modules/modules.json``."""
    @property
    def changed(self) -> bool:
        """True when its bytes changed (and it was written)."""
    @property
    def modules(self) -> List[InstalledModule]:
        """Every module of the configuration but the root, by key."""
    def to_json(self) -> str:
        """The report as one JSON document: what ``tfdisco get --json``
        prints."""

@final
class ModuleFailure:
    """Why one module could not be installed (``LockError.failures`` of a
    :class:`tfdisco.LockError` of kind ``"modules"``)."""

    @property
    def key(self) -> str:
        """The module's key (``""`` for the root module)."""
    @property
    def kind(self) -> str:
        """``"configuration"``, ``"invalid_source"``, ``"no_version"``,
        ``"registry"`` or ``"download"``."""
    @property
    def exit_code(self) -> int:
        """3 for ``"no_version"``, 2 for ``"configuration"`` and
        ``"invalid_source"``, else 1."""
    @property
    def message(self) -> str:
        """What ``init`` would say, with the call's file and line."""

@final
class LockFailure:
    """Why one provider could not be locked (``LockError.failures``)."""

    @property
    def source(self) -> ProviderSource:
        """The provider."""
    @property
    def version(self) -> Optional[str]:
        """The version, once selected."""
    @property
    def platform(self) -> Optional[Platform]:
        """The platform, for a platform's package."""
    @property
    def kind(self) -> str:
        """``"version"``, ``"provider"``, ``"platform"``, ``"request"``,
        ``"checksum"``, ``"signature"`` or ``"package"``."""
    @property
    def exit_code(self) -> int:
        """3 for ``"version"``, ``"provider"`` and ``"platform"``, else 1."""
    @property
    def message(self) -> str:
        """The whole message."""

@final
class Client:
    """A discovery client; blocking methods release the GIL. See the
    package documentation for every option. ``dialect`` is ``"opentofu"``
    (or ``"tofu"``) or ``"terraform"``, in any case; None (the default):
    the one the current working directory and the environment mean
    (``dialect_choice`` says which and why). Problems in the CLI
    configuration files are :class:`tfdisco.ConfigWarning` warnings
    (``file:line: problem``) pointing at the line that made the client."""

    def __new__(
        cls,
        *,
        dialect: Optional[str] = None,
        timeout: float = 11.0,
        retries: Optional[int] = None,
        ca_files: Sequence[Union[str, "os.PathLike[str]"]] = (),
        credentials: Union[str, None, Mapping[_HostLike, str]] = "cli",
        cli_config: bool = True,
        user_agent: Optional[str] = None,
        max_redirects: Optional[int] = None,
        body_limit: Optional[int] = None,
        registry_retries: Optional[int] = None,
        registry_timeout: Optional[float] = None,
        cli_version: Optional[str] = None,
        insecure_http_hosts: Sequence[_HostLike] = (),
        resolve: Optional[Mapping[str, Union[str, Sequence[str]]]] = None,
        system_roots: bool = True,
        env: Optional[Mapping[str, str]] = None,
    ) -> "Client": ...
    @property
    def dialect(self) -> str:
        """The client's dialect: ``"opentofu"`` or ``"terraform"``."""
    @property
    def dialect_choice(self) -> DialectChoice:
        """The client's dialect and what chose it."""
    def discover(self, host: _HostLike) -> Services:
        """The services ``host`` offers (cached per host)."""
    def service_url(self, host: _HostLike, id: str) -> str:
        """The base URL of service ``id`` on ``host``."""
    def oauth_client(self, host: _HostLike, id: str) -> OAuthClient:
        """The OAuth client that service ``id`` of ``host`` describes."""
    def provider_versions(self, source: _ProviderSourceLike) -> ProviderVersions:
        """The versions of a provider, from its registry."""
    def provider_package(
        self, source: _ProviderSourceLike, version: str, platform: _PlatformLike
    ) -> ProviderPackage:
        """Where to download ``version`` of a provider for ``platform``."""
    def module_versions(self, source: _ModuleSourceLike) -> ModuleVersions:
        """The versions of a module package, from its registry."""
    @overload
    def module_download(
        self, source: _ModuleSourceLike, version: str, *, into: None = None
    ) -> ModuleLocation:
        """Where to download ``version`` of a module package from."""
    @overload
    def module_download(
        self, source: str, version: None = None, *, into: _PathLike
    ) -> DownloadedModule:
        """An ``oci://`` source's package, downloaded into ``into``."""
    def module_resolve(self, source: str) -> ResolvedModule:
        """What an ``oci://`` module source's tag or digest selects."""
    def lock(
        self,
        dir: _PathLike,
        platforms: Optional[Iterable[_PlatformLike]] = None,
        providers: Optional[Iterable[_ProviderSourceLike]] = None,
        *,
        jobs: int = 8,
        net_mirror: Optional[str] = None,
        fs_mirror: Optional[_PathLike] = None,
        oci_mirror: Optional[str] = None,
        enable_plugin_cache: bool = False,
        plugin_cache: Optional[_PathLike] = None,
    ) -> LockReport:
        """``terraform providers lock`` in ``dir`` (from its registries, a
        network mirror, a filesystem mirror or an OCI mirror; with
        ``enable_plugin_cache=True``, through the plugin cache, the CLI
        configuration's or ``plugin_cache``); raises
        :class:`tfdisco.LockError`."""
    def mirror(
        self,
        dir: _PathLike,
        folder: _PathLike,
        platforms: Optional[Iterable[_PlatformLike]] = None,
        *,
        jobs: int = 8,
        lock_file: bool = True,
    ) -> MirrorReport:
        """``terraform providers mirror folder`` for the configuration in
        ``dir``; raises :class:`tfdisco.LockError`."""
    def mirror_to_oci(
        self,
        dir: _PathLike,
        template: str,
        platforms: Optional[Iterable[_PlatformLike]] = None,
        *,
        jobs: int = 8,
        lock_file: bool = True,
    ) -> OciMirrorReport:
        """``terraform providers mirror`` into the OCI repositories
        ``template`` names; raises :class:`tfdisco.LockError`."""
    def push_provider(
        self,
        repository: str,
        version: str,
        zips: Sequence[_PathLike],
        *,
        mount_from: Optional[str] = None,
    ) -> PushedRelease:
        """Publishes a provider release's zips to an OCI repository."""
    def install(
        self,
        dir: _PathLike,
        providers: Optional[Iterable[_ProviderSourceLike]] = None,
        *,
        upgrade: bool = False,
        lockfile: Optional[str] = None,
        plugin_cache: Optional[_PathLike] = None,
        jobs: int = 8,
        on_event: Optional[_OnEvent] = None,
    ) -> InstallReport:
        """``terraform init``'s module and provider installation in ``dir``
        (``lockfile="readonly"``: the lock file must not change); raises
        :class:`tfdisco.LockError`.

        ``on_event`` is given a dict per event, with the keys of
        ``tfdisco install --json``'s event lines:
        ``{"event": "downloading", "source", "version"}``,
        ``{"event": "downloaded", "source", "version", "bytes"}`` and
        ``{"event": "waiting_for_cache", "source", "version", "platform",
        "lock_file", "waited_seconds"}`` (once per plugin cache entry whose
        lock another process has held for 5 seconds). It is called with the
        GIL taken, from the thread that runs the job, before ``install``
        returns. When it raises, the run is cancelled (nothing placed, the
        lock file as it was) and ``install`` raises that exception."""
    def get(self, dir: _PathLike, *, upgrade: bool = False, jobs: int = 8) -> GetReport:
        """``terraform get`` in ``dir``: every module the configuration
        calls, into ``.terraform/modules`` with ``modules.json``
        (``upgrade``: every one again); raises :class:`tfdisco.LockError`
        (kind ``"modules"``, ``failures`` of :class:`ModuleFailure`)."""
    def forget(self, host: _HostLike) -> None:
        """Drops the cached services of ``host``."""
    def forget_all(self) -> None:
        """Drops the whole cache (``host`` blocks stay)."""
    def credentials_source(self, host: _HostLike) -> Optional[str]:
        """Where the token sent to ``host`` comes from; never the token."""
    # Each method NAME above also has its private twin _NAME_async, the
    # awaitable of the same call (an asyncio future, or one already done when
    # the host is in the cache): tfdisco.AsyncClient.NAME awaits it, typed from
    # NAME's signature here.
