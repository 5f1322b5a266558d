// Type definitions for tfdisco: Terraform/OpenTofu remote service discovery,
// registry calls and lock files, from the tfdisco Rust crates.

/** The package's version (`0.2.0`). */
export declare const version: string;

// --- Hostnames ------------------------------------------------------------

/**
 * The comparison form of `name`, as a user types it (svchost's
 * `ForComparison`): UTS #46 lookup for international names, lower case,
 * punycode, `:443` dropped (`'Испытание.COM:443'` → `'xn--80akhbyknj4f.com'`).
 * Punycode input is refused, as in Terraform and OpenTofu.
 *
 * @throws {InvalidHostnameError} for a name that does not parse.
 * @throws {TypeError} for a value that is not a string.
 */
export declare function normalize(name: string): string;

/**
 * The liberal display form of any string (svchost's `ForDisplay`): never
 * fails, returns what it cannot convert as given, accepts punycode
 * (`'xn--80akhbyknj4f.com'` → `'испытание.com'`).
 */
export declare function forDisplay(name: string): string;

/** True when `new Hostname(name)` would succeed (svchost's `IsValid`). */
export declare function isValid(name: unknown): boolean;

/**
 * A Terraform/OpenTofu service hostname in comparison form. Immutable.
 *
 * `String(h)` and `JSON.stringify(h)` give the comparison form
 * (`xn--mnchen-3ya.de:8443`); `h.display` the form for people
 * (`münchen.de:8443`).
 */
export declare class Hostname {
  /**
   * Parses `name` as a user types it (see {@link normalize}).
   * @throws {InvalidHostnameError} for a name that does not parse.
   */
  constructor(name: string);
  /**
   * A hostname already in comparison form, such as one read back from
   * storage: unlike the constructor it accepts punycode, and it refuses
   * anything parsing would have changed (upper case, `:443`, Unicode).
   * @throws {InvalidHostnameError}
   */
  static fromComparison(value: string): Hostname;
  /** The form to show people: punycode labels decoded, the port kept. */
  get display(): string;
  /** The host part of the comparison form, without the port. */
  get host(): string;
  /** The port, or null when it is the default (443). */
  get port(): number | null;
  /** The comparison form. */
  toString(): string;
  /** The comparison form. */
  toJSON(): string;
  /**
   * True when `other` (a Hostname, or a string parsed as one) names the same
   * host; false for a string that does not parse.
   */
  equals(other: string | Hostname): boolean;
}

/** A hostname argument: a string parsed as one, or a {@link Hostname}. */
export type HostArg = string | Hostname;

// --- Services -------------------------------------------------------------

/** The dialects: Terraform's rules or OpenTofu's. */
export type Dialect = 'opentofu' | 'terraform';

/**
 * What chose a client's dialect: `'given'` (the `dialect` option),
 * `'variable'` (`TFDISCO_DIALECT`), `'lock_file'` (the CLI the lock file's
 * first line names, else the registry all its providers are from),
 * `'tofu_file'` (a `.tofu` or `.tofu.json` file in the folder), `'program'`
 * (only one of `terraform` and `tofu` on the `PATH`) or `'default'`
 * (nothing told: OpenTofu).
 */
export type DialectChosenBy = 'given' | 'variable' | 'lock_file' | 'tofu_file' | 'program' | 'default';

/**
 * A client's dialect and what chose it ({@link Client.dialectChoice}, the
 * `dialect` of {@link LockReport}, {@link InstallReport} and
 * {@link MirrorReport}). `JSON.stringify` writes the library's document,
 * `{"name", "chosen_by", "why"}`.
 */
export interface DialectChoice {
  /** The dialect. */
  name: Dialect;
  /** What chose it, in a word. */
  chosenBy: DialectChosenBy | (string & {});
  /** Why, in words: `the lock file /src/infra/.terraform.lock.hcl was written by terraform init`. */
  why: string;
}

/**
 * An OAuth client as a `login.v1` service describes it (a public client
 * using the authorization-code flow with PKCE and a loopback redirect),
 * its endpoints resolved against the discovery URL.
 */
export interface OAuthClient {
  /** The client id (`client`). */
  clientId: string;
  /** The authorization endpoint (`authz`), or null. */
  authorizationUrl: string | null;
  /** The token endpoint (`token`), or null. */
  tokenUrl: string | null;
  /** The lowest local port for the redirect listener (default 1024). */
  minPort: number;
  /** The highest local port for the redirect listener (default 65535). */
  maxPort: number;
  /** The grant types (`authz_code` when the document names none), sorted. */
  grantTypes: string[];
  /** The scopes to request; empty when none are given. */
  scopes: string[];
}

/**
 * What `JSON.stringify(services)` writes: the library's document, the one
 * `tfdisco discover HOST --json` prints and Python's `Services.to_json()`
 * gives (its keys as the CLI writes them).
 */
export interface ServicesJSON {
  hostname: string;
  display: string;
  discovery_url: string;
  /** The document's entries in document order; null without a document. */
  services: Record<string, unknown> | null;
  /** Each id: its URL, `{ oauth_client: {…} }`, or `{ error: { kind, message } }`. */
  resolved: Record<string, unknown>;
}

/**
 * The services one host offers: its discovery document, read under
 * Terraform's rules. A read-only, Map-like view of service id → the
 * document's value, in document order; values are parsed afresh on each
 * access. Made by {@link Client.discover}, never by `new`.
 */
export declare class Services implements Iterable<[string, unknown]> {
  private constructor();
  /** The host these services belong to (for an alias, its target). */
  get hostname(): Hostname;
  /**
   * The URL the document came from, after redirects: the base of relative
   * service URLs.
   */
  get discoveryUrl(): string;
  /** The dialect whose rules read service ids. */
  get dialect(): Dialect;
  /** True for services a `host` block of the CLI configuration gave. */
  get isForced(): boolean;
  /** True when the host had a document; false after a 404 or `null`. */
  get hasDocument(): boolean;
  /** How many entries the document has. */
  get size(): number;
  /** The service ids, in document order. */
  ids(): string[];
  /** True when the document lists `id`. */
  has(id: string): boolean;
  /**
   * The document's value for `id` (a URL string, an object for `login.v1`,
   * whatever JSON the document has), or undefined.
   */
  get(id: string): unknown;
  /**
   * The base URL of service `id` (svchost's `ServiceURL`), relative URLs
   * resolved against {@link discoveryUrl}.
   * @throws {ServiceNotProvidedError | VersionNotSupportedError | InvalidServiceIdError | InvalidServiceUrlError}
   */
  serviceUrl(id: string): string;
  /**
   * The OAuth client a `login.v1`-style entry describes, with every default
   * and check of Terraform.
   * @throws {ServiceNotProvidedError | VersionNotSupportedError | InvalidServiceIdError | InvalidOAuthClientError}
   */
  oauthClient(id: string): OAuthClient;
  /**
   * What entry `id` is for a client: an OAuth client for a client
   * definition (an object, as `login.v1` has), else its base URL.
   */
  resolve(id: string): string | OAuthClient;
  /** The service ids, in document order. */
  keys(): IterableIterator<string>;
  /** The values, in document order. */
  values(): IterableIterator<unknown>;
  /** `[id, value]` pairs, in document order. */
  entries(): IterableIterator<[string, unknown]>;
  /** Calls `callback` for each entry, in document order. */
  forEach(callback: (value: unknown, id: string, services: Services) => void, thisArg?: unknown): void;
  [Symbol.iterator](): IterableIterator<[string, unknown]>;
  toJSON(): ServicesJSON;
}

// --- The client -----------------------------------------------------------

/** The options of `new Client(options)`; every one may be left out. */
export interface ClientOptions {
  /**
   * `'opentofu'` (also `'tofu'`) or `'terraform'`, in any case: service-id
   * rules, the default registry and User-Agent, which CLI configuration is
   * read, the rules of `lock`, `install` and `mirror`. Left out (or null):
   * the one `process.cwd()` and the client's `env` (else the process's)
   * mean when the client is made, as the `tfdisco` CLI chooses it without
   * `--dialect`: `TFDISCO_DIALECT`; else the CLI the folder's
   * `.terraform.lock.hcl` names in its first line, or the registry all its
   * providers are from; else OpenTofu when the folder holds `.tofu` or
   * `.tofu.json` files; else the one of `terraform` and `tofu` on the
   * `PATH`, when only one is; else OpenTofu ({@link Client.dialectChoice}).
   */
  dialect?: Dialect | 'tofu' | (string & {}) | null;
  /**
   * Seconds (not milliseconds) allowed for one whole discovery, redirects
   * and body included: a positive number (default 11).
   */
  timeout?: number | null;
  /**
   * How often a failed discovery attempt (connection error, 429, 5xx other
   * than 501) is retried within `timeout` (default: the dialect's, 3 for
   * Terraform, 0 for OpenTofu).
   */
  retries?: number | null;
  /** PEM files of CA certificates to trust on top of the system roots. */
  caFiles?: ReadonlyArray<string | URL> | null;
  /**
   * Where tokens come from: `'cli'` (the default) reads them as the CLI
   * does (`TF_TOKEN_*`, the dialect's CLI config files, the credentials
   * helper); `null` sends none; `{ host: token }` gives fixed tokens.
   */
  credentials?: 'cli' | null | Readonly<Record<string, string>>;
  /**
   * Whether to apply the dialect's CLI configuration (default true): `host`
   * blocks, `TF_APPEND_USER_AGENT`, and with `credentials: 'cli'` its
   * credentials. Its problems are emitted as `TfdiscoConfigWarning`
   * process warnings, never thrown.
   */
  cliConfig?: boolean | null;
  /** Replaces the User-Agent header. */
  userAgent?: string | null;
  /** The CLI version announced in `User-Agent` and `X-Terraform-Version`. */
  cliVersion?: string | null;
  /** Redirects a discovery follows (default 3; registry requests follow 9). */
  maxRedirects?: number | null;
  /** The largest discovery document accepted, in bytes (default 1 MiB). */
  bodyLimit?: number | null;
  /**
   * How often a failed registry request is retried, 1 s, 2 s, 4 s … apart
   * (default: `TF_REGISTRY_DISCOVERY_RETRY` when over 0, else 1).
   */
  registryRetries?: number | null;
  /**
   * Seconds each attempt of a registry request may take, its body included
   * (default: `TF_REGISTRY_CLIENT_TIMEOUT` when over 0, or OpenTofu's
   * `registry_protocols` block, else 10).
   */
  registryTimeout?: number | null;
  /** Development hosts that may be reached over plain http (never with a token). */
  insecureHttpHosts?: ReadonlyArray<HostArg> | null;
  /**
   * Address overrides, like `curl --resolve`: `{ 'host:port': 'ip' }` (or
   * `'ip:port'` with the same port, or a list of them).
   */
  resolve?: Readonly<Record<string, string | ReadonlyArray<string>>> | null;
  /**
   * Whether to trust the system's CA certificates (`SSL_CERT_FILE` /
   * `SSL_CERT_DIR` when set; default true).
   */
  systemRoots?: boolean | null;
  /**
   * The environment variables to read (`TF_TOKEN_*`, `HOME`,
   * `TF_CLI_CONFIG_FILE`, proxies, …) instead of `process.env`.
   */
  env?: Readonly<Record<string, string>> | null;
}

/** `{ os, arch }`. */
export interface PlatformInfo {
  os: string;
  arch: string;
}

/** One version of a provider. */
export interface ProviderVersion {
  /** The version (`5.31.0`). */
  version: string;
  /** The plugin protocols it speaks (`['5.0']`). */
  protocols: string[];
  /** The platforms it is built for. */
  platforms: PlatformInfo[];
}

/** {@link Client.providerVersions}: `tfdisco provider versions --json`. */
export interface ProviderVersions {
  /** The provider's full address (`registry.terraform.io/hashicorp/aws`). */
  source: string;
  /** The URL the versions were read from, after redirects. */
  versionsUrl: string;
  /** The versions, in the registry's order. */
  versions: ProviderVersion[];
  /** Warnings the registry gave with them (the CLI prints them on stderr). */
  warnings: string[];
}

/** A key that may have signed a provider's `SHA256SUMS`. */
export interface SigningKey {
  /** The key id (`34365D9472D7468F`); empty when the registry gives none. */
  keyId: string;
  /** The public key, ASCII-armored. */
  asciiArmor: string;
  /** A signature by a trusted key over this key; may be empty. */
  trustSignature: string;
  /** Who the key belongs to; may be empty. */
  source: string;
  /** Where to read more about the key, or null. */
  sourceUrl: string | null;
}

/** {@link Client.providerPackage}: `tfdisco provider package --json`. */
export interface ProviderPackage {
  source: string;
  version: string;
  os: string;
  arch: string;
  /** The package's file name. */
  filename: string;
  /** The package (a zip file); absolute. */
  downloadUrl: string;
  /** The `SHA256SUMS` file; absolute. */
  shasumsUrl: string;
  /** The detached signature of `SHA256SUMS`; absolute. */
  shasumsSignatureUrl: string;
  /** The package's SHA-256: 64 lower-case hex digits. */
  shasum: string;
  /** The plugin protocols it speaks. */
  protocols: string[];
  /** The keys that may have signed `SHA256SUMS`. */
  signingKeys: SigningKey[];
}

/** {@link Client.moduleVersions}: `tfdisco module versions --json`. */
export interface ModuleVersions {
  /** The module's full address (`registry.terraform.io/hashicorp/consul/aws`). */
  source: string;
  /** The URL the versions were read from, after redirects. */
  versionsUrl: string;
  /** The versions, in the registry's order. */
  versions: string[];
}

/** A go-getter address as `init` parses it. */
export interface ModulePackage {
  /** The getter: `git`, `hg`, `http`, `s3`, `gcs`, `file`, … */
  getter: string;
  /** The package address, without subdirectory and getter prefix. */
  address: string;
  /** The URL the getter fetches. */
  url: string;
  /** The subdirectory of the address (`//sub`), or empty. */
  subdir: string;
  /** The `ref` query argument, or null. */
  ref: string | null;
  /** The `depth` query argument, or null. */
  depth: number | null;
  /** True when the address carries an `sshkey`. */
  sshkey: boolean;
  /** The `archive` query argument, or null. */
  archive: string | null;
  /** The `checksum` query argument, or null. */
  checksum: string | null;
}

/** {@link Client.moduleDownload}: `tfdisco module download --json`. */
export interface ModuleDownload {
  source: string;
  version: string;
  /**
   * The location: a go-getter address (`git::https://…?ref=v1.2.0`), or
   * OpenTofu's direct URL. A location relative to the registry is resolved.
   */
  location: string;
  /** The location as `init` parses it; null for OpenTofu's direct packages. */
  package: ModulePackage | null;
  /** Where in the package the module is. */
  moduleSubdir: string;
  /**
   * OpenTofu's direct packages: whether the registry's credentials go with
   * the download; null for a go-getter address.
   */
  useRegistryCredentials: boolean | null;
}

/** A blob an OCI manifest points to: a module's package layer. */
export interface OciDescriptor {
  /** Its media type (`archive/zip`). */
  mediaType: string;
  /** Its digest (`sha256:…`): what the download is checked against. */
  digest: string;
  /** Its size in bytes. */
  size: number;
}

/** {@link Client.moduleResolve}: `tfdisco module resolve --json`. */
export interface ResolvedModule {
  /** The source, as given (`oci://ghcr.io/acme/vpc//subnet?tag=1.2.0`). */
  source: string;
  /** The source, normalized. */
  address: string;
  /** The registry (`ghcr.io`, `127.0.0.1:5000`). */
  registry: string;
  /** The repository (`acme/vpc`). */
  repository: string;
  /** The tag resolved (`latest` when the source names neither a tag nor a digest); null for a digest. */
  tag: string | null;
  /** The manifest's digest (`sha256:…`): what a tag names now. */
  digest: string;
  /** The manifest's media type (`application/vnd.oci.image.manifest.v1+json`). */
  mediaType: string;
  /** The manifest's size in bytes. */
  size: number;
  /** The source's subdirectory (`sub` for `//sub`), or empty. */
  subdir: string;
  /** The source pinned to the manifest's digest: `oci://REGISTRY/REPOSITORY[//SUBDIR]?digest=DIGEST`. */
  pinned: string;
  /** The package: the manifest's `archive/zip` layer. */
  package: OciDescriptor;
}

/**
 * {@link Client.moduleDownload} of an `oci://` source: `tfdisco module
 * download SOURCE --into DIR --json`, the resolved module's members and
 * what was written.
 */
export interface DownloadedModule extends ResolvedModule {
  /** The package's folder: the `into` given. */
  into: string;
  /** The module's folder: `into`, or the source's `//subdir` in it. */
  moduleDir: string;
  /** How many files the package has. */
  files: number;
  /** How many bytes they hold together. */
  bytes: number;
}

/** The options of {@link Client.moduleDownload} for an `oci://` source. */
export interface ModuleDownloadOptions {
  /**
   * The folder the package is unpacked into: new, or an empty folder (its
   * missing parents are made).
   */
  into: string | URL;
}

/** The options of {@link Client.lock}. */
export interface LockOptions {
  /**
   * `OS_ARCH` platforms to lock for (`['linux_amd64', 'darwin_arm64']`);
   * default: the platform this program runs on.
   */
  platforms?: ReadonlyArray<string> | null;
  /**
   * Lock only these providers (source addresses, parsed in the client's
   * dialect), each one the configuration requires; default: all.
   */
  providers?: ReadonlyArray<string> | null;
  /** Requests at once (default 8, at least 1). */
  jobs?: number | null;
  /**
   * Take every provider from this network mirror, an `https:` URL
   * (`-net-mirror`): each archive must match a hash the mirror lists.
   */
  netMirror?: string | null;
  /**
   * Take every provider from this filesystem mirror folder, packed or
   * unpacked layout (`-fs-mirror`).
   */
  fsMirror?: string | URL | null;
  /**
   * Take every provider from an OCI registry mirror (OpenTofu's
   * `-oci-mirror`): a repository template naming each provider's
   * repository with `{hostname}`, `{namespace}` and `{type}`
   * (`'ghcr.io/acme/{namespace}/{type}'`); each archive is checked against
   * its layer's digest, with the OCI credentials of the client's CLI
   * configuration. At most one of `netMirror`, `fsMirror` and `ociMirror`.
   */
  ociMirror?: string | null;
  /**
   * Use the plugin cache, as `providers lock -enable-plugin-cache`
   * (`tfdisco lock --enable-plugin-cache`): for each platform, a cache
   * entry the lock file vouches for (or any, with
   * `plugin_cache_may_break_dependency_lock_file`) is used without a
   * download; every other package is downloaded, verified and unpacked
   * into the cache. The cache is the client's CLI configuration's
   * (`plugin_cache_dir`, `TF_PLUGIN_CACHE_DIR` from the client's `env`), as
   * for {@link Client.install}; with none configured, or a folder that does
   * not exist, the run is as without it. Default false: no cache.
   */
  enablePluginCache?: boolean | null;
  /**
   * With `enablePluginCache: true`, this plugin cache folder instead of the
   * configuration's (`--plugin-cache`); without it, an
   * `InvalidOptionError`, as the CLI refuses `--plugin-cache` without
   * `--enable-plugin-cache`.
   */
  pluginCache?: string | URL | null;
}

/** The options of {@link Client.mirror}. */
export interface MirrorOptions {
  /** `OS_ARCH` platforms to mirror for; default: this program's platform. */
  platforms?: ReadonlyArray<string> | null;
  /** Requests at once (default 8, at least 1). */
  jobs?: number | null;
  /** Whether the lock file decides the versions (default true). */
  lockFile?: boolean | null;
}

/** One provider a mirror run mirrored. */
export interface MirroredProvider {
  /** The provider's full address. */
  source: string;
  /** The version mirrored. */
  version: string;
  /** Its constraints as the lock file writes them; empty for none. */
  constraints: string;
  /** True when the lock file decided the version. */
  locked: boolean;
  /** How the signing key is trusted, in the CLI's words. */
  trust: string;
  /** That key's id, or null when OpenTofu skipped the signature. */
  keyId: string | null;
  /** The archives written, one per platform. */
  archives: string[];
}

/** {@link Client.mirror}: `tfdisco mirror --json`. */
export interface MirrorReport {
  /** The mirror folder. */
  folder: string;
  /** The platforms mirrored (`OS_ARCH`). */
  platforms: string[];
  /** Every `index.json` and `<version>.json` written. */
  indexes: string[];
  /** Each provider mirrored, in address order. */
  providers: MirroredProvider[];
  /** Archives of the folder left out of the indexes, and why. */
  skipped: Array<{ path: string; why: string }>;
  /** What the folder's scan said about paths that are no package. */
  warnings: string[];
  /** The dialect the run followed, and what chose it (the client's). */
  dialect: DialectChoice;
}

/** The options of {@link Client.mirrorToOci}: those of {@link Client.mirror}. */
export type OciMirrorOptions = MirrorOptions;

/**
 * {@link Client.pushProvider}: `tfdisco oci push-provider --json`, what
 * pushing a provider release to an OCI repository did.
 */
export interface PushedRelease {
  /** The repository, `REGISTRY/NAME` (`ghcr.io/acme/providers/aws`). */
  repository: string;
  /** The tag written: the version, its `+` as `_`. */
  tag: string;
  /** The digest of the release's index (`sha256:…`), the manifest the tag names. */
  index: string;
  /** Each platform's zip digest, in the order given. */
  packages: Array<{ platform: string; digest: string }>;
  /** How many blobs were sent (the others the repository had, or the registry mounted). */
  blobsSent: number;
  /** How many blobs the registry mounted from `mountFrom`. */
  blobsMounted: number;
}

/**
 * One provider a mirror run into OCI repositories pushed: the version
 * selected, as {@link MirroredProvider} says it, and the release pushed to
 * the repository the template names.
 */
export interface OciMirroredProvider extends PushedRelease, Omit<MirroredProvider, 'archives'> {}

/** {@link Client.mirrorToOci}: `tfdisco mirror --to-oci TEMPLATE --json`. */
export interface OciMirrorReport {
  /** The repository template, as given. */
  template: string;
  /** The platforms mirrored (`OS_ARCH`). */
  platforms: string[];
  /** Each provider pushed, in address order. */
  providers: OciMirroredProvider[];
}

/** The options of {@link Client.pushProvider}. */
export interface PushProviderOptions {
  /**
   * Another repository of the same registry (`REGISTRY/NAME`) that may
   * hold these zips (a release promoted from staging, say): the registry
   * is asked to mount each blob from it before any is sent.
   */
  mountFrom?: string | null;
}

/** The options of {@link Client.install}. */
export interface InstallOptions {
  /**
   * Install only these providers (source addresses, parsed in the client's
   * dialect), each one the configuration requires; default: all.
   */
  providers?: ReadonlyArray<string> | null;
  /** Re-select every version within the constraints, ignoring the locked ones (`-upgrade`). */
  upgrade?: boolean | null;
  /**
   * `'readonly'`: the lock file must not change (`-lockfile=readonly`); a
   * run that would change it installs nothing and rejects with a
   * `LockError` of kind `readonly` (exit code 3). Not with `upgrade`.
   */
  lockfile?: 'readonly' | null;
  /**
   * This plugin cache folder instead of the CLI configuration's
   * `plugin_cache_dir` and `TF_PLUGIN_CACHE_DIR` (one that does not exist
   * is not used).
   */
  pluginCache?: string | URL | null;
  /** Requests at once (default 8, at least 1). */
  jobs?: number | null;
  /**
   * Told what the run does, as it does it: called on the JavaScript thread
   * with each {@link InstallEvent}, in the order of the run, always before
   * the promise settles (the run does not wait for it: the events queue up
   * for the JavaScript thread). When it throws, the run is cancelled (as by
   * `signal`), it is not called again, and the promise rejects with what it
   * threw.
   */
  onEvent?: ((event: InstallEvent) => void) | null;
  /**
   * Stops the run when it aborts: no new request, the downloads and the
   * waits for plugin cache entries stopped, nothing placed in the working
   * directory, the lock file as it was, what was staged removed; the
   * promise rejects with a `LockError` of kind `cancelled` (exit code 130,
   * `cause` the signal's `reason`). A signal already aborted rejects at
   * once, before anything is read.
   */
  signal?: AbortSignal | null;
}

/** {@link InstallOptions.onEvent}: a package's download starts. */
export interface InstallDownloadingEvent {
  event: 'downloading';
  /** The provider's full address. */
  source: string;
  /** Its version. */
  version: string;
  /** The event's line of `tfdisco install --json` (snake_case keys). */
  toJSON(): object;
}

/**
 * {@link InstallOptions.onEvent}: a package was downloaded and unpacked (it
 * is placed once every package passed).
 */
export interface InstallDownloadedEvent {
  event: 'downloaded';
  /** The provider's full address. */
  source: string;
  /** Its version. */
  version: string;
  /** Bytes downloaded. */
  bytes: number;
  /** The event's line of `tfdisco install --json` (snake_case keys). */
  toJSON(): object;
}

/**
 * {@link InstallOptions.onEvent}: another run (another process: tfdisco,
 * `tofu`) has held the plugin cache entry's lock for 5 seconds, and this
 * run waits for it; told once per entry. Abort the `signal` to stop
 * waiting.
 */
export interface InstallWaitingForCacheEvent {
  event: 'waiting_for_cache';
  /** The provider's full address. */
  source: string;
  /** Its version. */
  version: string;
  /** The entry's platform (`OS_ARCH`). */
  platform: string;
  /** The entry's lock file (`…/VERSION/OS_ARCH.lock`). */
  lockFile: string;
  /** How long the run has waited, in seconds. */
  waitedSeconds: number;
  /** The line `tfdisco install --json` prints on stderr (snake_case keys). */
  toJSON(): object;
}

/**
 * What {@link InstallOptions.onEvent} is given: the events of
 * `tfdisco install --json`, with camelCase keys (`event` keeps the
 * library's word). A later version may add events of other kinds.
 */
export type InstallEvent = InstallDownloadingEvent | InstallDownloadedEvent | InstallWaitingForCacheEvent;

/** One provider an install run installed. */
export interface InstalledProvider {
  /** The provider's full address. */
  source: string;
  /** The version installed. */
  version: string;
  /**
   * How its package was got: `reused` (already in `.terraform/providers`
   * and matching the lock file: no request), `cached` (linked from the
   * plugin cache) or `downloaded`.
   */
  installed: 'reused' | 'cached' | 'downloaded';
  /** The installation method it comes from: `registry`, the network mirror, or the filesystem mirror's folder. */
  from: string;
  /** Bytes downloaded (0 when nothing was). */
  bytes: number;
  /** The hashes (`h1:…`, `zh:…`) the lock file did not hold before, sorted. */
  hashesAdded: string[];
  /**
   * How the package is trusted, in the CLI's words: as {@link LockedProvider.trust},
   * or `verified checksum`, `unauthenticated` (from a mirror).
   */
  trust: string;
  /** The id of the key that signed its checksums, or null when none did. */
  keyId: string | null;
}

/** {@link Client.install}: `tfdisco install --json`. */
export interface InstallReport {
  /** The lock file (`<dir>/.terraform.lock.hcl`). */
  lockFile: string;
  /** True when its bytes changed (and it was written). */
  changed: boolean;
  /** The platform installed for (`OS_ARCH`): the one this program runs on. */
  platform: string;
  /** Each provider installed, in address order. */
  providers: InstalledProvider[];
  /** Providers left to a development override, what the implied mirrors' scans said. */
  warnings: string[];
  /** The dialect the run followed, and what chose it (the client's). */
  dialect: DialectChoice;
  /**
   * The modules installed first, as `init` installs them (as
   * {@link Client.get} does), by key; empty when the root module calls none.
   */
  modules: InstalledModule[];
}

/** The options of {@link Client.get}. */
export interface GetOptions {
  /**
   * Install every module again, the registry modules at the newest version
   * their constraints allow (`get -update`, `init -upgrade`), instead of
   * keeping what `modules.json` lists.
   */
  upgrade?: boolean | null;
  /** Requests, downloads and clones at once (default 8, at least 1). */
  jobs?: number | null;
}

/** One module of a {@link GetReport} (and of an {@link InstallReport}). */
export interface InstalledModule {
  /** Its key: the call's name, under a parent the parent's key and a dot (`vpc`, `vpc.subnets`). */
  key: string;
  /** Its source, as `modules.json` records it (`./modules/app`, `hashicorp/consul/aws`, `git::https://…`). */
  source: string;
  /** The version installed, for a registry module; else null. */
  version: string | null;
  /** Its folder, relative to the configuration's, `/`-separated (`modules/app`, `.terraform/modules/vpc`). */
  dir: string;
  /**
   * How it got there: `kept` (as installed before: no request), `local` (a
   * path: nothing installed) or `fetched`.
   */
  installed: 'kept' | 'local' | 'fetched';
}

/** {@link Client.get}: `tfdisco get --json`. */
export interface GetReport {
  /** The module manifest (`<dir>/.terraform/modules/modules.json`). */
  manifest: string;
  /** True when its bytes changed (and it was written). */
  changed: boolean;
  /** Every module of the configuration but the root, by key. */
  modules: InstalledModule[];
}

/** One module a get run (or the modules an install, lock or mirror run gets first) could not install. */
export interface ModuleFailure {
  /** The module's key (`vpc`, `vpc.subnets`; empty for the root module). */
  key: string;
  /**
   * What failed: `configuration` (a module's files, a call not well formed),
   * `invalid_source`, `no_version`, `registry` or `download` (a package not
   * downloaded, unpacked or checked out).
   */
  kind: 'configuration' | 'invalid_source' | 'no_version' | 'registry' | 'download' | (string & {});
  /** `tfdisco get`'s exit code for it: 3 for `no_version`, 2 for `configuration` and `invalid_source`, else 1. */
  exitCode: number;
  /** What `init` would say, with the call's file and line. */
  message: string;
}

/** One installation method and what it says of a provider. */
export interface InstallationMethod {
  /** `'direct'`, `'network_mirror'`, `'filesystem_mirror'`, `'oci_mirror'` or `'dev_overrides'`. */
  method: string;
  /** The registry host, URL, folder, repository template or override folder. */
  location: string;
  /** Its place, from 1; null for a development override (which comes first). */
  priority: number | null;
  /** Whether it may install the provider. */
  mayInstall: boolean;
  /** Why, in words. */
  reason: string;
  /**
   * Whether tfdisco installs with the method: true for every method since
   * `oci_mirror` is installed from (it was false for it before).
   */
  supported: boolean;
  /**
   * For an `oci_mirror` only: where its template puts the provider, or why
   * it puts it nowhere.
   */
  oci?: { registry: string; repository: string } | { error: string };
}

/** The options of {@link installationMethods}. */
export interface InstallationOptions {
  /** `'opentofu'` (the default, also `'tofu'`) or `'terraform'`: whose CLI configuration. */
  dialect?: string | null;
  /** The working directory (its `terraform.d/plugins`); default the current one. */
  cwd?: string | URL | null;
  /** The environment to read (`HOME`, `TF_CLI_CONFIG_FILE`, …); default the process's. */
  env?: Readonly<Record<string, string>> | null;
}

/**
 * Which installation methods of the CLI configuration (its first
 * `provider_installation` block, or the implied configuration) would install
 * `source`, in priority order, and why: `tfdisco provider source --json`.
 * Reads the configuration files and local mirror folders on the calling
 * thread.
 */
export declare function installationMethods(source: string, options?: InstallationOptions): InstallationMethod[];

/** The options of {@link storeCredentials} and {@link forgetCredentials}. */
export interface StoreCredentialsOptions {
  /** `'opentofu'` (the default, also `'tofu'`) or `'terraform'`: whose CLI configuration. */
  dialect?: string | null;
  /**
   * The environment to read (`HOME`, `TF_CLI_CONFIG_FILE`, …); default the
   * process's.
   */
  env?: Readonly<Record<string, string>> | null;
}

/**
 * Saves `token` for `host` exactly where and as `terraform login` (`tofu
 * login`) would: in `credentials.tfrc.json` of the CLI configuration
 * directory (sorted keys, two-space indent, mode 0600, written to a
 * temporary file and renamed) when the host is already there or no
 * `credentials_helper` is configured, else through the helper (`store
 * HOST`). Returns where it went (`'credentials file
 * /home/me/.terraform.d/credentials.tfrc.json'`, `'credentials helper
 * "NAME" (PATH)'`). Blocks the calling thread while it writes the file or
 * runs the helper. The token is in no message.
 * @throws {CredentialsUnwritableError} for a host with a `credentials`
 *   block in another CLI configuration file (nothing is changed).
 * @throws {CredentialsError} when the store fails (no home directory, a
 *   file that does not parse, a failing helper).
 * @throws {InvalidArgumentError} for a token that cannot be sent in a header.
 * @throws {InvalidHostnameError} for a host that is not one.
 */
export declare function storeCredentials(host: HostArg, token: string, options?: StoreCredentialsOptions): string;

/**
 * Removes what is saved for `host` exactly as `terraform logout` (`tofu
 * logout`) would: its entries of `credentials.tfrc.json` (every spelling of
 * the host; the rest of the file kept) or the helper's (`forget HOST`).
 * Returns where, as {@link storeCredentials}; a host with nothing saved is
 * no error. Throws as {@link storeCredentials}.
 */
export declare function forgetCredentials(host: HostArg, options?: StoreCredentialsOptions): string;

/** One provider a lock run locked. */
export interface LockedProvider {
  /** The provider's full address. */
  source: string;
  /** The version locked. */
  version: string;
  /** Its constraints as the lock file writes them (`~> 1.0`); empty for none. */
  constraints: string;
  /** The hashes (`h1:…`, `zh:…`) the lock file did not hold before, sorted. */
  hashesAdded: string[];
  /**
   * How the key that signed its checksums is trusted, in the CLI's words:
   * `signed by HashiCorp`, `signed by a HashiCorp partner`, `self-signed`
   * (Terraform); `signed`, `signing skipped` (OpenTofu).
   */
  trust: string;
  /** That key's id (16 hex digits), or null when OpenTofu skipped it. */
  keyId: string | null;
}

/** {@link Client.lock}: `tfdisco lock --json`. */
export interface LockReport {
  /** The lock file (`<dir>/.terraform.lock.hcl`). */
  lockFile: string;
  /** True when its bytes changed (and it was written). */
  changed: boolean;
  /** The platforms locked (`OS_ARCH`). */
  platforms: string[];
  /** Each provider locked, in address order. */
  providers: LockedProvider[];
  /** The dialect the run followed, and what chose it (the client's). */
  dialect: DialectChoice;
}

/** One provider (and platform) a lock run could not lock. */
export interface LockFailure {
  /** The provider's full address. */
  source: string;
  /** The version, once one was selected; else null. */
  version: string | null;
  /** The platform (`OS_ARCH`) of a platform's package; else null. */
  platform: string | null;
  /**
   * What failed: `version` (no version meets the constraints), `platform`
   * (none for that platform), `request`, `checksum`, `signature`, `package`.
   */
  kind: 'version' | 'platform' | 'request' | 'checksum' | 'signature' | 'package' | (string & {});
  /** `tfdisco lock`'s exit code for it: 3 for version and platform, else 1. */
  exitCode: number;
  /** The whole message: provider, version, platform and problem. */
  message: string;
}

/** The lock file hashes of a provider package. */
export interface PackageHashes {
  /** `h1:` and the base64 SHA-256 of its files (Go's `dirhash.Hash1`). */
  h1: string;
  /** `zh:` and the hex SHA-256 of the zip file, as `SHA256SUMS` lists it. */
  zh: string;
}

/**
 * A discovery and registry client: finds the services of Terraform/OpenTofu
 * hosts as `terraform init` / `tofu init` would, caches them per host, and
 * asks registries what `init` asks them. The environment and the CLI
 * configuration are read once, by the constructor, as the `tfdisco` CLI
 * reads its own.
 *
 * Every call returns a promise and runs on one shared tokio runtime:
 * JavaScript never waits for the network. A host already in the cache (or
 * in a `host` block) is answered with a promise already settled. Concurrent
 * discoveries of one host share one request. Bad arguments reject the
 * promise before any request.
 *
 * The registry calls, `moduleResolve`, `lock`, `mirror`, `mirrorToOci`,
 * `pushProvider` and `install` resolve to the library's report,
 * the document the CLI prints with `--json`, with camelCase keys;
 * `JSON.stringify` of one writes that document as the CLI and Python's
 * `to_json()` write it.
 */
export declare class Client {
  /**
   * @throws {InvalidOptionError} for an unusable option (a CA file that
   *   cannot be read, a token that cannot be sent, a timeout of 0, a
   *   dialect that is none, a `TFDISCO_DIALECT` that names none, …).
   * @throws {InvalidHostnameError} for a host in `credentials`,
   *   `insecureHttpHosts` that does not parse.
   * @throws {TypeError} for an option of the wrong type, or an unknown one.
   */
  constructor(options?: ClientOptions);
  /** The client's dialect. */
  get dialect(): Dialect;
  /**
   * The client's dialect and what chose it (frozen): `chosenBy` is
   * `'given'` when the `dialect` option was, else what the detection found.
   * The reports of `lock`, `install` and `mirror` carry it as `dialect`.
   */
  get dialectChoice(): Readonly<DialectChoice>;
  /**
   * The services `host` offers: from the cache (or a `host` block), from a
   * discovery another call has under way, or discovered now.
   */
  discover(host: HostArg): Promise<Services>;
  /** The base URL of service `id` (`'modules.v1'`) on `host`. */
  serviceUrl(host: HostArg, id: string): Promise<string>;
  /** The OAuth client service `id` (`'login.v1'`) of `host` describes. */
  oauthClient(host: HostArg, id: string): Promise<OAuthClient>;
  /**
   * A provider's versions, from its registry's `providers.v1` API. `source`
   * (`'hashicorp/aws'`, `'registry.example.com/acme/widgets'`) is parsed in
   * the client's dialect and needs a namespace. The source host's token goes
   * with the request, over https only.
   * @throws {InvalidSourceError | NotFoundError | InvalidResponseError} and any discovery error (rejections).
   */
  providerVersions(source: string): Promise<ProviderVersions>;
  /**
   * Where to download `version` of a provider for `platform`
   * (`'linux_amd64'`), and how to check it.
   * @throws {InvalidSourceError | InvalidArgumentError | NotFoundError | InvalidResponseError} (rejections).
   */
  providerPackage(source: string, version: string, platform: string): Promise<ProviderPackage>;
  /**
   * A module's versions, from its registry's `modules.v1` API (module
   * registry hosts need a dot: `127.0.0.1:8443`, not `localhost:8443`).
   */
  moduleVersions(source: string): Promise<ModuleVersions>;
  /** Where to download `version` of a registry module from. */
  moduleDownload(source: string, version: string): Promise<ModuleDownload>;
  /**
   * An `oci://` module source's package (OpenTofu's
   * `oci://REGISTRY[:PORT]/REPOSITORY[//SUBDIR][?tag=TAG|?digest=DIGEST]`),
   * as `tfdisco module download SOURCE --into DIR` downloads it: the
   * manifest resolved as {@link Client.moduleResolve} resolves it, the zip
   * layer streamed through its size and digest check into the unpacker,
   * written to a staging folder beside `into` that takes its name only once
   * whole. Any failure leaves nothing behind. An `oci://` source takes no
   * version (its `?tag=` or `?digest=` selects) and needs `into`; a
   * registry source needs a version and takes no `into`: an
   * `InvalidArgumentError` (a rejection) otherwise.
   * @throws {NotFoundError | InvalidResponseError | StatusError | LocalFileError | InvalidArgumentError} (rejections).
   */
  moduleDownload(source: string, options: ModuleDownloadOptions): Promise<DownloadedModule>;
  /**
   * What an `oci://` module source's tag (`latest` by default) or digest
   * selects, as `tfdisco module resolve` resolves it: the manifest, with
   * the registry's OCI credentials from the client's CLI configuration if
   * it asks, checked as OpenTofu checks it (an image manifest of artifact
   * type `application/vnd.opentofu.modulepkg` with one `archive/zip`
   * layer), and the source pinned to its digest. Nothing is written.
   * `oci://` sources are OpenTofu's: in the `terraform` dialect, or for a
   * source that does not parse, an `InvalidArgumentError` before anything
   * is asked.
   * @throws {NotFoundError | InvalidResponseError | StatusError | InvalidArgumentError} (rejections): no such repository, tag or digest; a manifest OpenTofu refuses; credentials refused (401).
   */
  moduleResolve(source: string): Promise<ResolvedModule>;
  /**
   * What `terraform providers lock` (or `tofu providers lock`) does to the
   * configuration in `dir`: selects each provider's version as `init` does,
   * downloads and verifies every platform's package, and replaces
   * `.terraform.lock.hcl` atomically, only when its bytes change.
   * @throws {LockError} (a rejection) when anything fails; the lock file is
   *   then as it was. Bad options reject with `InvalidArgumentError`
   *   (a platform, two mirrors, a template that does not parse),
   *   `InvalidSourceError`, `InvalidOptionError` (`jobs: 0`) or `TypeError`
   *   before anything is read.
   */
  lock(dir: string | URL, options?: LockOptions): Promise<LockReport>;
  /**
   * What `terraform providers mirror folder` (or `tofu providers mirror`)
   * does for the configuration in `dir`: each provider at its locked version
   * (or the newest its constraints allow), verified as `lock` verifies, written
   * into `folder` with each provider's `index.json` and `<version>.json`, byte
   * for byte as the CLI writes them. Nothing gets its final name until every
   * package passed.
   * @throws {LockError} (a rejection) when anything fails; the folder is then
   *   as it was.
   */
  mirror(dir: string | URL, folder: string | URL, options?: MirrorOptions): Promise<MirrorReport>;
  /**
   * What `tfdisco mirror --to-oci TEMPLATE` does for the configuration in
   * `dir`: each provider at its locked version (or the newest its
   * constraints allow), downloaded from its registry and verified as
   * {@link Client.mirror} verifies, into a private temporary folder; then,
   * once every package passed, each provider's release pushed to the
   * repository `template` names for it (`{hostname}`, `{namespace}`,
   * `{type}`: OpenTofu's `-oci-mirror` template,
   * `'ghcr.io/acme/{namespace}/{type}'`) in the layout OpenTofu's
   * `oci_mirror` reads (each zip the layer of its platform's manifest, the
   * index tagged with the version, last), with the OCI credentials of the
   * client's CLI configuration. `lock(dir, { ociMirror: template })` then
   * locks what the registries would lock. Blobs a repository has are not
   * sent again; a package that fails its checks pushes nothing at all.
   * @throws {LockError} (a rejection) as {@link Client.mirror} rejects: a
   *   push that fails (credentials refused, say) is a failure of kind
   *   `request`, exit code 1. A template that does not parse rejects with
   *   `InvalidArgumentError`, bad options with `InvalidArgumentError`,
   *   `InvalidOptionError` (`jobs: 0`) or `TypeError`, before anything is
   *   read.
   */
  mirrorToOci(dir: string | URL, template: string, options?: OciMirrorOptions): Promise<OciMirrorReport>;
  /**
   * What `tfdisco oci push-provider REPOSITORY VERSION ZIP…` does: a
   * provider release published to the OCI repository `repository`
   * (`REGISTRY/NAME`) in the layout OpenTofu's `oci_mirror` reads. Each
   * zip (named `terraform-provider-TYPE_VERSION_OS_ARCH.zip`, as
   * registries name them; its platform comes from its name) is the layer
   * of its platform's image manifest, sent a chunk at a time as it is read
   * from its file; the index, tagged with `version` (its `+` as `_`), goes
   * last. Blobs the repository has are not sent again. With the OCI
   * credentials of the client's CLI configuration.
   * @throws {InvalidArgumentError} (a rejection, with the CLI's message,
   *   before anything is read or sent) for a repository or `mountFrom`
   *   that does not parse, a version that is not one, a zip whose name does
   *   not say a platform of that version, or no zip; `mountFrom` on another
   *   registry too. `LocalFileError` for a zip that cannot be read;
   *   `StatusError` (`status` 401) for credentials refused, and the other
   *   errors {@link Client.moduleResolve} rejects with; `TypeError` for an
   *   argument of the wrong type.
   */
  pushProvider(
    repository: string,
    version: string,
    zips: ReadonlyArray<string | URL>,
    options?: PushProviderOptions,
  ): Promise<PushedRelease>;
  /**
   * What `terraform init` (or `tofu init`) does to install the providers of
   * the configuration in `dir`, as `tfdisco install` does: selects each
   * provider's version as `init` does (the locked one kept while the
   * constraints allow it), keeps what is already installed and matches the
   * lock file (no request), fetches and verifies the rest for the platform
   * this program runs on (the signed `SHA256SUMS` or the mirror's hashes,
   * the lock file's `zh:` and the unpacked `h1:`) and unpacks it into
   * `.terraform/providers/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH` (or the
   * plugin cache, linked from there) once every package passed; then
   * replaces `.terraform.lock.hcl` atomically when its bytes change. The
   * installation methods (`provider_installation`, or the implied ones with
   * `dir`'s `terraform.d/plugins`) and the plugin cache (`plugin_cache_dir`,
   * `TF_PLUGIN_CACHE_DIR`) are the client's CLI configuration's, read from
   * its `env`, as for the CLI.
   * `options.onEvent` is told of each download and of each wait for a
   * plugin cache entry another process holds; `options.signal` stops the
   * run.
   * @throws {LockError} (a rejection) when anything fails; the lock file and
   *   `.terraform/providers` are then as they were. `kind` is `readonly` when
   *   `lockfile: 'readonly'` kept the lock file from changing (exit code 3),
   *   `cancelled` when `signal` aborted (exit code 130). What `onEvent`
   *   threw, when it threw. Bad options reject with `InvalidSourceError`,
   *   `InvalidOptionError` (`jobs: 0`, a `lockfile` other than
   *   `'readonly'`) or `TypeError` before anything is read.
   */
  install(dir: string | URL, options?: InstallOptions): Promise<InstallReport>;
  /**
   * `terraform get` in `dir`, as `tfdisco get` does it: every module the
   * configuration calls, recursively (local paths, registry modules,
   * `git::` sources through the system `git`, https zip archives,
   * OpenTofu's `oci://`), installed into `.terraform/modules` with
   * `modules.json` byte for byte as the dialect's CLI writes it. A module
   * `modules.json` lists with the same source, a version its constraint
   * still allows and its folder still there is kept without a request.
   * Resolves to `tfdisco get --json`'s document.
   * @throws {LockError} (a rejection) of kind `modules` when a module cannot
   *   be installed: `failures` lists every one ({@link ModuleFailure}), and
   *   `exitCode` is `tfdisco get`'s (2 for the configuration, 1 for the
   *   registry and downloads, 3 only when every failure is a version that
   *   does not fit); nothing is placed and `modules.json` is as it was. Bad
   *   options reject with `InvalidOptionError` (`jobs: 0`) or `TypeError`
   *   before anything is read.
   */
  get(dir: string | URL, options?: GetOptions): Promise<GetReport>;
  /**
   * Where the token this client would send to `host` comes from
   * (`'environment variable TF_TOKEN_example_com'`), or null when none would
   * be sent. Never the token itself. May run the credentials helper.
   * @throws {CredentialsError} (a rejection) when a source fails.
   */
  credentialsSource(host: HostArg): Promise<string | null>;
  /** Drops what the cache holds for `host`: the next call discovers it again. */
  forget(host: HostArg): void;
  /** Drops the whole cache (`host` blocks stay). */
  forgetAll(): void;
}

// --- Package hashes -------------------------------------------------------

/**
 * The lock file hashes of a provider package (a zip file) on disk, read in
 * 64 KiB chunks on a thread of the runtime's blocking pool.
 * @throws (rejections) an `Error` with `code` (`ENOENT`, `EISDIR`, …),
 *   `errno`, `syscall` and `path` when the file cannot be read;
 *   {@link InvalidPackageError} when it is no package that can be hashed.
 */
export declare function hashPackage(path: string | URL): Promise<PackageHashes>;

/** {@link hashPackage}, blocking the calling thread while it reads. */
export declare function hashPackageSync(path: string | URL): PackageHashes;

// --- Errors ---------------------------------------------------------------

/** The kinds of the Rust crates' errors, as the CLI names them with --json. */
export type ErrorKind =
  | 'invalid_hostname'
  | 'invalid_service_id'
  | 'service_not_provided'
  | 'version_not_supported'
  | 'invalid_service_url'
  | 'invalid_oauth_client'
  | 'tls'
  | 'network'
  | 'timeout'
  | 'status'
  | 'content_type'
  | 'content_encoding'
  | 'too_large'
  | 'json'
  | 'redirect'
  | 'invalid_source'
  | 'invalid_argument'
  | 'not_found'
  | 'invalid_response'
  | 'invalid_option'
  | 'credentials'
  | 'credentials_unwritable'
  | 'invalid_package';

/** The kinds of a failed lock, mirror, install or get run, as `tfdisco lock --json` names them. */
export type LockErrorKind = 'configuration' | 'lock_file' | 'usage' | 'failed' | 'readonly' | 'folder' | 'cancelled' | 'modules';

/**
 * Any tfdisco error. Its message is the Rust message, which never contains
 * credentials. A kind added to the Rust crates later comes as a plain
 * TfdiscoError with that kind until it has a class.
 */
export declare class TfdiscoError extends Error {
  constructor(message: string, details?: { kind?: string; url?: string | null; status?: number | null; cause?: unknown });
  /** The kind of this class. */
  static readonly kind: string;
  /** The kind, as the `tfdisco` CLI names it with --json. */
  readonly kind: ErrorKind | LockErrorKind | (string & {});
  /** The request URL at fault, or null. */
  readonly url: string | null;
  /** The HTTP status at fault, or null. */
  readonly status: number | null;
}

/** A hostname that does not parse. */
export declare class InvalidHostnameError extends TfdiscoError {
  readonly kind: 'invalid_hostname';
}
/** A service id that does not parse, such as `'modules'` without a version. */
export declare class InvalidServiceIdError extends TfdiscoError {
  readonly kind: 'invalid_service_id';
}
/** The host offers no service of that name. */
export declare class ServiceNotProvidedError extends TfdiscoError {
  readonly kind: 'service_not_provided';
}
/** The host offers the service, but not in the version asked for. */
export declare class VersionNotSupportedError extends TfdiscoError {
  readonly kind: 'version_not_supported';
}
/** The document's URL for a service is unusable. */
export declare class InvalidServiceUrlError extends TfdiscoError {
  readonly kind: 'invalid_service_url';
}
/** The document's `login.v1`-style client definition is unusable. */
export declare class InvalidOAuthClientError extends TfdiscoError {
  readonly kind: 'invalid_oauth_client';
}
/** The TLS handshake failed: an untrusted or wrong certificate (see `caFiles`). */
export declare class TlsError extends TfdiscoError {
  readonly kind: 'tls';
}
/** DNS, connection, proxy or I/O failure. */
export declare class NetworkError extends TfdiscoError {
  readonly kind: 'network';
}
/** The request did not finish within the client's `timeout`. */
export declare class TimeoutError extends TfdiscoError {
  readonly kind: 'timeout';
}
/** The server answered with a status other than 200, 404 or a redirect. */
export declare class StatusError extends TfdiscoError {
  readonly kind: 'status';
}
/** The `Content-Type` is missing, malformed or not JSON. */
export declare class ContentTypeError extends TfdiscoError {
  readonly kind: 'content_type';
}
/** An unsupported `Content-Encoding`, or gzip that does not decode. */
export declare class ContentEncodingError extends TfdiscoError {
  readonly kind: 'content_encoding';
}
/** The document is larger than the client's `bodyLimit`. */
export declare class TooLargeError extends TfdiscoError {
  readonly kind: 'too_large';
}
/** The document is not a JSON object (nor `null`). */
export declare class JsonError extends TfdiscoError {
  readonly kind: 'json';
}
/** A redirect that cannot be followed: no or a bad `Location`, https to http, too many. */
export declare class RedirectError extends TfdiscoError {
  readonly kind: 'redirect';
}
/** A provider or module source address that does not parse, or that a registry request cannot use. */
export declare class InvalidSourceError extends TfdiscoError {
  readonly kind: 'invalid_source';
}
/** A registry request's version or platform that does not parse. */
export declare class InvalidArgumentError extends TfdiscoError {
  readonly kind: 'invalid_argument';
}
/** A local file that could not be read or written (a filesystem mirror's package, a staging file). */
export declare class LocalFileError extends TfdiscoError {
  readonly kind: 'local_file';
}
/** The registry has no such provider, module, version or platform (it answered 404). */
export declare class NotFoundError extends TfdiscoError {
  readonly kind: 'not_found';
}
/** A registry answer that parses but cannot be used. */
export declare class InvalidResponseError extends TfdiscoError {
  readonly kind: 'invalid_response';
}
/** An unusable client option: a CA file that cannot be read, a token that cannot be sent, … */
export declare class InvalidOptionError extends TfdiscoError {
  readonly kind: 'invalid_option';
}
/**
 * A credentials source failed (a credentials helper, say), or a store or
 * forget did (`credentials_unwritable`: {@link CredentialsUnwritableError}).
 */
export declare class CredentialsError extends TfdiscoError {
  readonly kind: 'credentials' | 'credentials_unwritable';
}

/**
 * `storeCredentials` or `forgetCredentials` for a host whose credentials are
 * a `credentials` block of a CLI configuration file other than
 * `credentials.tfrc.json`: as `terraform login` refuses, nothing is changed.
 */
export declare class CredentialsUnwritableError extends CredentialsError {
  readonly kind: 'credentials_unwritable';
}

/**
 * A lock, mirror (into a folder or OCI repositories), install or get run
 * that failed; the lock file (and `.terraform/modules`) is then as it was.
 */
export declare class LockError extends TfdiscoError {
  constructor(message: string, details?: { kind?: string; exitCode?: number; failures?: Array<LockFailure | ModuleFailure> });
  /**
   * `configuration` (it does not parse, or has modules not installed),
   * `lock_file` (it cannot be read or written), `usage` (a provider the
   * configuration does not require, a constraint that does not parse,
   * options that conflict), `failed` (see `failures`), `readonly` (an
   * install run whose read-only lock file would change: nothing was
   * installed), `folder` (a folder that could not be read or written, a
   * package not placed), `modules` (modules that could not be installed,
   * by `get` or before an install, lock or mirror run: see `failures`) or
   * `cancelled` (an install run whose `signal` aborted: nothing was placed,
   * the lock file is as it was).
   */
  readonly kind: LockErrorKind;
  /** `tfdisco lock`'s (and `install`'s, `get`'s) exit code: 1 (a request, a verification or a write), 2 (the configuration, the lock file's contents, the arguments), 3 (no version or platform fits, or a read-only lock file would change), 130 (cancelled). */
  readonly exitCode: number;
  /**
   * For `kind` `failed`, every provider (and platform) that could not be
   * locked ({@link LockFailure}); for `kind` `modules`, every module that
   * could not be installed ({@link ModuleFailure}); else empty. The
   * `failures` of the `--json` document, camelCase.
   */
  readonly failures: Array<LockFailure | ModuleFailure>;
}

/** A file {@link hashPackage} cannot hash. */
export declare class InvalidPackageError extends TfdiscoError {
  constructor(message: string, details?: { problem?: string; path?: string });
  readonly kind: 'invalid_package';
  /**
   * What is wrong, in a word: `not-a-zip`, `truncated`, `trailing-data`,
   * `unsupported`, `corrupt`, `central-directory`, `newline-in-name`,
   * `unsafe-name`, `duplicate-name` or `name-conflict`.
   */
  readonly problem: string;
  /** The file. */
  readonly path: string | null;
}

/** The class of each error kind the native module reports. */
export declare const ERROR_CLASSES: Readonly<{
  invalid_hostname: typeof InvalidHostnameError;
  invalid_service_id: typeof InvalidServiceIdError;
  service_not_provided: typeof ServiceNotProvidedError;
  version_not_supported: typeof VersionNotSupportedError;
  invalid_service_url: typeof InvalidServiceUrlError;
  invalid_oauth_client: typeof InvalidOAuthClientError;
  tls: typeof TlsError;
  network: typeof NetworkError;
  timeout: typeof TimeoutError;
  status: typeof StatusError;
  content_type: typeof ContentTypeError;
  content_encoding: typeof ContentEncodingError;
  too_large: typeof TooLargeError;
  json: typeof JsonError;
  redirect: typeof RedirectError;
  invalid_source: typeof InvalidSourceError;
  invalid_argument: typeof InvalidArgumentError;
  local_file: typeof LocalFileError;
  not_found: typeof NotFoundError;
  invalid_response: typeof InvalidResponseError;
  invalid_option: typeof InvalidOptionError;
  credentials: typeof CredentialsError;
  credentials_unwritable: typeof CredentialsUnwritableError;
  invalid_package: typeof InvalidPackageError;
}>;
