// The README's examples, type-checked by `tsc -p test/types` (npm run
// typecheck): index.d.ts describes every export, as ES module imports.
import tfdisco, {
  Client,
  CredentialsUnwritableError,
  ERROR_CLASSES,
  Hostname,
  InvalidHostnameError,
  LockError,
  NotFoundError,
  Services,
  TfdiscoError,
  forDisplay,
  forgetCredentials,
  hashPackage,
  hashPackageSync,
  installationMethods,
  isValid,
  normalize,
  storeCredentials,
  version,
  type ClientOptions,
  type DialectChoice,
  type DialectChosenBy,
  type DownloadedModule,
  type ErrorKind,
  type InstallationMethod,
  type InstallEvent,
  type GetReport,
  type InstallReport,
  type InstalledModule,
  type InstalledProvider,
  type LockFailure,
  type ModuleFailure,
  type LockReport,
  type MirrorReport,
  type ModuleDownload,
  type OAuthClient,
  type OciDescriptor,
  type OciMirroredProvider,
  type OciMirrorReport,
  type PackageHashes,
  type ProviderPackage,
  type ProviderVersions,
  type PushedRelease,
  type ResolvedModule,
} from 'tfdisco';

const v: string = version;
const comparison: string = normalize('Испытание.COM:443');
const shown: string = forDisplay('xn--80akhbyknj4f.com');
const ok: boolean = isValid('example.com:8443');
const host = new Hostname('münchen.de:8443');
const port: number | null = host.port;
const same: boolean = host.equals('MÜNCHEN.de:8443') && Hostname.fromComparison(String(host)).equals(host);

const options: ClientOptions = {
  dialect: 'terraform',
  timeout: 5,
  retries: 2,
  caFiles: ['ca.pem', new URL('file:///etc/ssl/ca.pem')],
  credentials: { 'app.terraform.io': 'token' },
  resolve: { 'registry.example.test:443': '127.0.0.1', 'other.test:8443': ['127.0.0.1', '::1'] },
  env: { HOME: '/home/me' },
  registryRetries: 0,
  registryTimeout: 30,
  cliVersion: '1.11.4',
  userAgent: 'my-tool/1.0',
  insecureHttpHosts: ['dev.test', host],
};
const client = new Client(options);
const none = new Client({ credentials: null });
const cli = new Client({ credentials: 'cli' });
const dialect: 'opentofu' | 'terraform' = client.dialect;
// No dialect: the one the current folder and the environment mean.
const detected = new Client({ env: { HOME: '/home/me', PATH: '/usr/bin' }, dialect: null });
const choice: Readonly<DialectChoice> = detected.dialectChoice;
const chosenBy: DialectChosenBy | (string & {}) = choice.chosenBy;
const choiceDocument: string = JSON.stringify(choice);
console.log(choice.name, chosenBy, choice.why, choiceDocument);

async function main(): Promise<void> {
  const services: Services = await client.discover('registry.terraform.io');
  const url: string = services.serviceUrl('modules.v1');
  const oauth: OAuthClient = services.oauthClient('login.v1');
  const minPort: number = oauth.minPort;
  const raw: unknown = services.get('login.v1');
  for (const [id, value] of services) console.log(id, value);
  const ids: string[] = services.ids();
  const resolved: string | OAuthClient = services.resolve('modules.v1');
  const json = JSON.stringify(services.toJSON());
  const fromClient: string = await client.serviceUrl(host, 'providers.v1');
  const source: string | null = await client.credentialsSource('app.terraform.io');

  const versions: ProviderVersions = await client.providerVersions('hashicorp/aws');
  const newest: string | undefined = versions.versions.at(-1)?.version;
  const pkg: ProviderPackage = await client.providerPackage('hashicorp/aws', '5.31.0', 'linux_amd64');
  const keyIds: string[] = pkg.signingKeys.map((k) => k.keyId);
  const modules = await client.moduleVersions('hashicorp/consul/aws');
  const download: ModuleDownload = await client.moduleDownload('hashicorp/consul/aws', '0.12.1');
  const ref: string | null | undefined = download.package?.ref;
  const oci: ResolvedModule = await client.moduleResolve('oci://ghcr.io/acme/vpc//subnet?tag=1.2.0');
  const tag: string | null = oci.tag;
  const layer: OciDescriptor = oci.package;
  const unpacked: DownloadedModule = await client.moduleDownload(oci.pinned, { into: '.terraform/modules/vpc' });
  await client.moduleDownload(oci.pinned, { into: new URL('file:///srv/modules/vpc') });
  console.log(tag, layer.digest, layer.size, unpacked.moduleDir, unpacked.files, unpacked.bytes, unpacked.digest);
  await client.lock('infra', { ociMirror: 'ghcr.io/acme/{namespace}/{type}' });

  const report: LockReport = await client.lock('infra', { platforms: ['linux_amd64', 'darwin_arm64'], jobs: 4 });
  for (const p of report.providers) console.log(p.source, p.version, p.trust, p.keyId, p.hashesAdded.length);
  const followed: DialectChoice = report.dialect;
  console.log(followed.name, followed.chosenBy, followed.why);
  await client.lock('infra', { platforms: ['linux_amd64'], netMirror: 'https://mirror.example.com/providers/' });
  await client.lock('infra', { platforms: ['linux_amd64'], enablePluginCache: true, pluginCache: new URL('file:///var/cache/tf') });
  await client.lock('infra', { fsMirror: new URL('file:///srv/mirror') });
  const mirrored: MirrorReport = await client.mirror('infra', '/srv/mirror', { platforms: ['linux_amd64'], lockFile: false });
  for (const p of mirrored.providers) console.log(p.source, p.version, p.locked, p.archives.length);
  const mirroredIn: 'opentofu' | 'terraform' = mirrored.dialect.name;
  const copied: OciMirrorReport = await client.mirrorToOci('infra', 'ghcr.io/acme/{namespace}/{type}', {
    platforms: ['linux_amd64'],
    jobs: 2,
  });
  for (const p of copied.providers) {
    const provider: OciMirroredProvider = p;
    const digests: string[] = provider.packages.map((z) => `${z.platform} ${z.digest}`);
    console.log(copied.template, provider.source, provider.keyId, provider.repository, provider.tag, provider.index, digests);
  }
  const zips = ['dist/terraform-provider-widget_1.2.0_linux_amd64.zip', new URL('file:///dist/terraform-provider-widget_1.2.0_darwin_arm64.zip')];
  const pushed: PushedRelease = await client.pushProvider('ghcr.io/acme/providers/widget', '1.2.0', zips);
  const promoted: PushedRelease = await client.pushProvider('ghcr.io/acme/stable/widget', '1.2.0', zips, {
    mountFrom: pushed.repository,
  });
  const counts: number = promoted.blobsSent + promoted.blobsMounted;
  const installed: InstallReport = await client.install('infra', { lockfile: 'readonly', pluginCache: '/var/cache/tf', jobs: 4 });
  for (const p of installed.providers) {
    const how: 'reused' | 'cached' | 'downloaded' = p.installed;
    console.log(p.source, p.version, how, p.from, p.bytes, p.hashesAdded.length, p.trust, p.keyId);
  }
  const first_: InstalledProvider | undefined = installed.providers[0];
  await client.install(new URL('file:///srv/infra'), { providers: ['hashicorp/aws'], upgrade: true });
  const controller = new AbortController();
  const told: InstallEvent[] = [];
  await client.install('infra', {
    signal: controller.signal,
    onEvent: (event) => {
      told.push(event);
      if (event.event === 'waiting_for_cache') {
        const waited: number = event.waitedSeconds;
        console.error(`waiting for ${event.lockFile} (${waited} s, ${event.platform})`);
        controller.abort();
      } else if (event.event === 'downloaded') {
        const size: number = event.bytes;
        console.log(event.source, event.version, size);
      }
    },
  });
  await client.install('infra', { signal: AbortSignal.timeout(60_000), onEvent: null });
  console.log(installed.lockFile, installed.changed, installed.platform, installed.warnings, first_, installed.dialect.why);
  const got: GetReport = await client.get('infra', { upgrade: true, jobs: 2 });
  for (const m of got.modules) {
    const how: 'kept' | 'local' | 'fetched' = m.installed;
    const at: string | null = m.version;
    console.log(m.key, m.source, at, m.dir, how);
  }
  const firstModule: InstalledModule | undefined = installed.modules[0];
  await client.get(new URL('file:///srv/infra'));
  console.log(got.manifest, got.changed, firstModule);
  const methods: InstallationMethod[] = installationMethods('hashicorp/aws', { dialect: 'terraform' });
  const first: number | null = methods[0]?.priority ?? null;
  try {
    const where: string = storeCredentials('app.terraform.io', 'a-token', { dialect: 'terraform' });
    const removed: string = forgetCredentials(new Hostname('app.terraform.io'), { env: { HOME: '/home/me' } });
    console.log(where, removed);
  } catch (error) {
    if (error instanceof CredentialsUnwritableError) {
      const unwritable: 'credentials_unwritable' = error.kind;
      console.log(unwritable);
    }
  }
  const hashes: PackageHashes = await hashPackage('terraform-provider-x_1.0.0_linux_amd64.zip');
  const { h1, zh } = hashPackageSync(new URL('file:///tmp/p.zip'));

  try {
    await client.providerVersions('hashicorp/nothing');
  } catch (error) {
    if (error instanceof NotFoundError) {
      const kind: 'not_found' = error.kind;
      const at: string | null = error.url;
    } else if (error instanceof LockError) {
      const failures: Array<LockFailure | ModuleFailure> = error.failures;
      for (const f of failures) {
        if ('key' in f) console.log(f.key, f.kind, f.exitCode, f.message);
        else console.log(f.source, f.version, f.platform, f.kind);
      }
      const modulesFailed: boolean = error.kind === 'modules';
      const exit: number = error.exitCode;
      const readonly: boolean = error.kind === 'readonly';
      const cancelled: boolean = error.kind === 'cancelled' && error.exitCode === 130;
    } else if (error instanceof TfdiscoError) {
      const kind: string = error.kind;
      const status: number | null = error.status;
    }
  }
  const cls: typeof InvalidHostnameError = ERROR_CLASSES.invalid_hostname;
  const kind: ErrorKind = 'tls';
  client.forget('registry.terraform.io');
  client.forgetAll();
  void [url, minPort, raw, ids, resolved, json, fromClient, source, newest, keyIds, modules, ref, hashes, h1, zh, cls, kind, first, counts, mirroredIn];
}

void [v, comparison, shown, ok, port, same, none, cli, dialect, main, tfdisco.Client];

// What must not type-check.
// @ts-expect-error: the timeout is a number of seconds
new Client({ timeout: '5s' });
// @ts-expect-error: credentials are 'cli', null or an object
new Client({ credentials: 'env' });
// @ts-expect-error: there is no such option
new Client({ timeoutMs: 5000 });
// @ts-expect-error: Services are made by discover, never by new
new Services();
// @ts-expect-error: get takes no providers
void client.get('.', { providers: ['hashicorp/aws'] });
// @ts-expect-error: platforms is a list
void client.lock('.', { platforms: 'linux_amd64' });
// @ts-expect-error: a mirror folder is a path, not a number
void client.mirror('.', 42);
// @ts-expect-error: the zips are a list of paths
void client.pushProvider('ghcr.io/acme/widget', '1.0.0', 'terraform-provider-widget_1.0.0_linux_amd64.zip');
// @ts-expect-error: mountFrom is a repository, not a folder option
void client.mirrorToOci('.', 'ghcr.io/acme/{type}', { mountFrom: 'ghcr.io/x' });
// @ts-expect-error: lockfile takes Terraform's word, not a boolean
void client.install('.', { lockfile: true });
// @ts-expect-error: signal is an AbortSignal, not its controller
void client.install('.', { signal: new AbortController() });
// @ts-expect-error: a downloading event has no size
void client.install('.', { onEvent: (e) => e.event === 'downloading' && e.bytes });
// @ts-expect-error: an oci:// package is downloaded into a folder
void client.moduleDownload('oci://ghcr.io/acme/vpc', { version: '1.0.0' });
// @ts-expect-error: a client's dialect choice is read-only
detected.dialectChoice.name = 'terraform';
