// Lock files: `client.lock` against the signed provider registry
// `tfdisco-dev serve` serves next to its document (ns/alpha and ns/beta with
// real packages, each version's SHA256SUMS signed by a test key), the
// results byte-identical to the lock files Terraform wrote for it
// (testkit/fixtures/lock-goldens/); and `hashPackage`.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { REPO, hermeticEnv, tempDir } from './helpers/env.mjs';
import { AnyRegistry } from './helpers/any_registry.mjs';
import { REGISTRY, Served } from './helpers/serve.mjs';

const { Client, LockError } = tfdisco;
const FIXTURES = path.join(REPO, 'testkit', 'fixtures');
const GOLDENS = path.join(FIXTURES, 'lock-goldens');
const SIGNED = path.join(FIXTURES, 'signed-registry');
const LOCK_FILE = '.terraform.lock.hcl';
const ALL = ['linux_amd64', 'darwin_arm64', 'windows_amd64'];
const KEY_ID = '93BBAC3B9551CE46';

let served;

before(async () => {
  served = await Served.start(REGISTRY);
});

after(() => served.stop());

const hosted = (file, host) => fs.readFileSync(file, 'utf8').replaceAll('{HOST}', host);

/** Copies a golden case's `input/` (or `before/`) into a new directory, `{HOST}` replaced. */
function prepare(name, host, part = 'input', into = tempDir('tfdisco-lock-')) {
  const from = path.join(GOLDENS, name, part);
  for (const entry of fs.readdirSync(from, { recursive: true, withFileTypes: true })) {
    const source = path.join(entry.parentPath ?? entry.path, entry.name);
    const target = path.join(into, path.relative(from, source));
    if (entry.isDirectory()) fs.mkdirSync(target, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, hosted(source, host));
    }
  }
  return into;
}

const expected = (name, host) => hosted(path.join(GOLDENS, name, 'terraform.lock.hcl'), host);

/** The hashes of each provider block of a lock file. */
function goldenHashes(text) {
  const out = {};
  for (const [, address, body] of text.matchAll(/provider "([^"]+)" \{(.*?)\n\}/gs)) {
    out[address] = [...body.matchAll(/"((?:h1|zh):[^"]+)"/g)].map((m) => m[1]);
  }
  return out;
}

function client(options = {}) {
  return new Client({ dialect: 'terraform', caFiles: [served.ca], credentials: null, env: hermeticEnv(), ...options });
}

function checkFresh(report, dir, host) {
  assert.equal(report.lockFile, path.join(dir, LOCK_FILE));
  assert.equal(report.changed, true);
  assert.deepEqual(report.platforms, ALL);
  const golden = goldenHashes(expected('fresh', host));
  assert.deepEqual(report.providers, [
    {
      source: `${host}/ns/alpha`,
      version: '1.1.0',
      constraints: '~> 1.0',
      hashesAdded: golden[`${host}/ns/alpha`],
      trust: 'self-signed',
      keyId: KEY_ID,
    },
    {
      source: `${host}/ns/beta`,
      version: '0.10.0',
      constraints: '>= 0.9.0',
      hashesAdded: golden[`${host}/ns/beta`],
      trust: 'self-signed',
      keyId: KEY_ID,
    },
  ]);
}

describe('written as Terraform writes it', () => {
  test('fresh: the lock file is Terraform’s, byte for byte', async () => {
    const host = served.host;
    const dir = prepare('fresh', host);
    const c = client();
    const report = await c.lock(dir, { platforms: ALL });
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), expected('fresh', host));
    checkFresh(report, dir, host);

    // Again: nothing new, the file left alone.
    const before = fs.statSync(path.join(dir, LOCK_FILE)).mtimeMs;
    const again = await c.lock(pathToFileURL(dir), { platforms: ALL, jobs: 1 });
    assert.equal(again.changed, false);
    assert.deepEqual(again.providers.map((p) => [p.version, p.hashesAdded]), [['1.1.0', []], ['0.10.0', []]]);
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), expected('fresh', host));
    assert.equal(fs.statSync(path.join(dir, LOCK_FILE)).mtimeMs, before);
  });

  test('prerelease-named: a pre-release the constraint names, one provider named (as 127.0.0.1:PORT)', async () => {
    const host = served.registryHost;
    const dir = prepare('prerelease-named', host);
    const report = await client().lock(dir, { platforms: ['darwin_arm64'], providers: [`${host}/ns/beta`] });
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), expected('prerelease-named', host));
    assert.deepEqual(report.providers.map((p) => [p.source, p.version]), [[`${host}/ns/beta`, '0.10.0-beta1']]);
    assert.deepEqual(report.platforms, ['darwin_arm64']);
  });

  test('two runs at once on one client', async () => {
    const host = served.host;
    const dirs = [prepare('fresh', host), prepare('fresh', host)];
    const c = client();
    const reports = await Promise.all([c.lock(dirs[0], { platforms: ALL }), c.lock(dirs[1], { platforms: ALL, jobs: 2 })]);
    reports.forEach((report, i) => {
      assert.equal(fs.readFileSync(path.join(dirs[i], LOCK_FILE), 'utf8'), expected('fresh', host));
      checkFresh(report, dirs[i], host);
    });
  });
});

describe('refused: the lock file as it was', () => {
  async function lockError(promise) {
    const error = await promise.then(
      () => assert.fail('the lock run succeeded'),
      (e) => e,
    );
    assert.ok(error instanceof LockError, String(error));
    assert.ok(error instanceof tfdisco.TfdiscoError);
    return error;
  }

  test('no version matches', async () => {
    const host = served.host;
    const dir = prepare('no-match', host);
    const error = await lockError(client().lock(dir, { platforms: ['linux_amd64'] }));
    assert.deepEqual([error.kind, error.exitCode, error.name], ['failed', 3, 'LockError']);
    assert.ok(!fs.existsSync(path.join(dir, LOCK_FILE)));
    assert.equal(error.failures.length, 1);
    const [failure] = error.failures;
    assert.deepEqual(
      [failure.source, failure.version, failure.platform, failure.kind, failure.exitCode],
      [`${host}/ns/alpha`, null, null, 'version', 3],
    );
    assert.ok(failure.message.startsWith(`${host}/ns/alpha: `) && failure.message.includes('>= 3.0.0'));
    assert.ok(error.message.includes(failure.message));
  });

  test('a platform the registry does not offer', async () => {
    const host = served.host;
    const dir = prepare('unknown-platform', host, 'before');
    const c = client();
    await c.lock(dir, { platforms: ['linux_amd64'] });
    const locked = fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8');
    const error = await lockError(c.lock(dir, { platforms: ['linux_amd64', 'plan9_amd64'] }));
    assert.equal(error.exitCode, 3);
    assert.deepEqual(
      error.failures.map((f) => [f.kind, f.version, f.platform]),
      [['platform', '1.1.0', 'plan9_amd64']],
    );
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), locked);
  });

  test('a provider the configuration does not require', async () => {
    const host = served.host;
    const dir = prepare('no-match', host);
    const before = (await served.requests()).length;
    const error = await lockError(client().lock(dir, { platforms: ['linux_amd64'], providers: [`${host}/ns/gamma`] }));
    assert.deepEqual([error.kind, error.exitCode, error.failures], ['usage', 2, []]);
    assert.ok(error.message.includes(`${host}/ns/gamma`));
    assert.equal((await served.requests()).length, before, 'refused before any request');
  });

  test('a configuration that does not parse', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'main.tf'), 'terraform {\n');
    const error = await lockError(client().lock(dir, { platforms: ['linux_amd64'] }));
    assert.deepEqual([error.kind, error.exitCode], ['configuration', 2]);
    assert.ok(!fs.existsSync(path.join(dir, LOCK_FILE)));
  });

  test('a lock file that does not parse', async () => {
    const dir = prepare('fresh', served.host);
    fs.writeFileSync(path.join(dir, LOCK_FILE), 'provider "x" {\n');
    const error = await lockError(client().lock(dir, { platforms: ['linux_amd64'] }));
    assert.deepEqual([error.kind, error.exitCode], ['lock_file', 2]);
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), 'provider "x" {\n');
  });

  test('bad arguments reject before anything is read', async () => {
    const c = client();
    const missing = path.join(tempDir(), 'missing');
    for (const [cls, options] of [
      [tfdisco.InvalidArgumentError, { platforms: ['linux'] }],
      [tfdisco.InvalidArgumentError, { platforms: ['linux_amd64', 'Linux_AMD64'] }],
      [tfdisco.InvalidSourceError, { providers: ['aws'] }],
      [tfdisco.InvalidSourceError, { providers: ['not a source!'] }],
      [TypeError, { platforms: 'linux_amd64' }],
      [TypeError, { providers: 'example.com/ns/alpha' }],
      [TypeError, { platforms: [42] }],
      [TypeError, { netMirror: 42 }],
      [TypeError, 'linux_amd64'],
      [tfdisco.InvalidOptionError, { jobs: 0 }],
      [TypeError, { jobs: '8' }],
    ]) {
      await assert.rejects(c.lock(missing, options), cls, JSON.stringify(options));
    }
    await assert.rejects(c.lock(42), TypeError);
  });
});

describe('through the plugin cache (enablePluginCache, LOCKRUN-10)', () => {
  const TWO = ['linux_amd64', 'darwin_arm64'];

  /** The process umask, read without changing it: the mode a new folder gets. */
  function umask() {
    const probe = path.join(tempDir('tfdisco-umask-'), 'probe');
    fs.mkdirSync(probe);
    return ~fs.statSync(probe).mode & 0o777;
  }

  /**
   * What `cache` holds, one line per entry sorted by path, as the testkit's
   * `tree_manifest` writes it (testkit/src/install_goldens/tree.rs),
   * without the entries' lock files (`HOST/NS/TYPE/VERSION/OS_ARCH.lock`,
   * which Terraform does not write).
   */
  function cacheManifest(cache) {
    const lines = [];
    for (const relative of fs.readdirSync(cache, { recursive: true })) {
      const file = path.join(cache, relative);
      const rel = `{CACHE}/${relative.split(path.sep).join('/')}`;
      const stat = fs.lstatSync(file);
      const mode = (stat.mode & 0o7777).toString(8).padStart(4, '0');
      const parts = relative.split(path.sep);
      if (stat.isSymbolicLink()) lines.push([rel, `link ${mode} ${rel} -> ${fs.readlinkSync(file)}`]);
      else if (stat.isDirectory()) lines.push([rel, `dir ${mode} ${rel}`]);
      else if (stat.isFile()) {
        const name = parts.at(-1);
        if (parts.length === 5 && name.endsWith('.lock') && name.slice(0, -5).split('_').length === 2) continue;
        const sum = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
        lines.push([rel, `file ${mode} ${rel} ${sum}`]);
      } else lines.push([rel, `other ${mode} ${rel}`]);
    }
    lines.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return lines.map(([, line]) => `${line}\n`).join('');
  }

  /** A case's `cache.txt` (made under umask 022), its folders' modes as this process makes them. */
  function expectedCache(name, host) {
    const folder = `dir ${(0o755 & ~umask()).toString(8).padStart(4, '0')} `;
    return hosted(path.join(GOLDENS, name, 'cache.txt'), host)
      .split('\n')
      .filter(Boolean)
      .map((line) => `${line.startsWith('dir 0755 ') ? folder + line.slice('dir 0755 '.length) : line}\n`)
      .join('');
  }

  /** The archive downloads among request lines, sorted. */
  const downloads = (lines) =>
    lines
      .filter((line) => line.startsWith('GET ') && line.endsWith('.zip'))
      .map((line) => line.slice('GET '.length))
      .sort();
  const goldenDownloads = (name, host) => downloads(hosted(path.join(GOLDENS, name, 'requests.txt'), host).split('\n'));

  test('cache-fill, then cache-hit: Terraform’s lock file and cache, nothing downloaded again', async () => {
    const host = served.host;
    const cache = tempDir('tfdisco-cache-');
    const dir = prepare('cache-fill', host);
    let before = (await served.requests()).length;

    const report = await client().lock(dir, { platforms: TWO, enablePluginCache: true, pluginCache: cache });

    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), expected('cache-fill', host));
    assert.equal(report.changed, true);
    assert.deepEqual(report.providers.map((p) => [p.source, p.version]), [
      [`${host}/ns/alpha`, '1.1.0'],
      [`${host}/ns/beta`, '0.10.0'],
    ]);
    for (const [name, version] of [['alpha', '1.1.0'], ['beta', '0.10.0']]) {
      for (const platform of TWO) {
        assert.ok(fs.statSync(path.join(cache, host, 'ns', name, version, platform)).isDirectory(), `${name} ${platform}`);
      }
    }
    assert.equal(cacheManifest(cache), expectedCache('cache-fill', host));
    assert.deepEqual(downloads((await served.requests()).slice(before)), goldenDownloads('cache-fill', host));
    assert.ok(!fs.existsSync(path.join(dir, '.terraform')), 'only the lock file and the cache');

    // cache-hit: that cache (its cache-before.txt) and that lock file, the
    // folder from the client's TF_PLUGIN_CACHE_DIR.
    assert.equal(
      hosted(path.join(GOLDENS, 'cache-hit', 'cache-before.txt'), host),
      hosted(path.join(GOLDENS, 'cache-fill', 'cache.txt'), host),
    );
    const hit = prepare('cache-hit', host);
    const locked = fs.readFileSync(path.join(hit, LOCK_FILE), 'utf8');
    before = (await served.requests()).length;

    const again = await client({ env: hermeticEnv({ TF_PLUGIN_CACHE_DIR: cache }) }).lock(pathToFileURL(hit), {
      platforms: TWO,
      enablePluginCache: true,
    });

    assert.equal(again.changed, false);
    assert.deepEqual(again.providers.map((p) => p.hashesAdded), [[], []]);
    assert.equal(locked, expected('cache-hit', host));
    assert.equal(fs.readFileSync(path.join(hit, LOCK_FILE), 'utf8'), locked);
    assert.equal(cacheManifest(cache), expectedCache('cache-hit', host));
    const requests = (await served.requests()).slice(before);
    assert.deepEqual(downloads(requests), []);
    assert.deepEqual(goldenDownloads('cache-hit', host), []);
    assert.ok(requests.some((line) => line.endsWith('/versions')), requests.join('\n'));
  });

  test('cache-without-flag: the configured cache is not used without enablePluginCache', async () => {
    const host = served.host;
    const cache = tempDir('tfdisco-cache-');
    const dir = prepare('cache-without-flag', host);
    await client({ env: hermeticEnv({ TF_PLUGIN_CACHE_DIR: cache }) }).lock(dir, { platforms: TWO });
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), expected('cache-without-flag', host));
    assert.equal(cacheManifest(cache), expectedCache('cache-without-flag', host));
    assert.equal(cacheManifest(cache), '');
  });

  test('pluginCache without enablePluginCache: InvalidOptionError, as the CLI refuses it', async () => {
    const c = client();
    const missing = path.join(tempDir(), 'missing');
    const cache = path.join(tempDir(), 'cache');
    for (const options of [{ pluginCache: cache }, { pluginCache: pathToFileURL(cache), enablePluginCache: false }]) {
      const error = await c.lock(missing, options).then(
        () => assert.fail('the lock run succeeded'),
        (e) => e,
      );
      assert.ok(error instanceof tfdisco.InvalidOptionError, String(error));
      assert.equal(error.message, 'options.pluginCache requires options.enablePluginCache: true');
    }
    for (const options of [{ enablePluginCache: 'yes' }, { enablePluginCache: true, pluginCache: 42 }]) {
      await assert.rejects(c.lock(missing, options), TypeError, JSON.stringify(options));
    }
    assert.ok(!fs.existsSync(cache));
  });
});

describe('configurations read as Terraform reads them (TFCFG-8, LOCKRUN-9)', () => {
  const REAL = path.join(FIXTURES, 'real-configurations');
  /** The platforms of every run of the corpus (`real_configurations::PLATFORMS`). */
  const REAL_PLATFORMS = ['linux_amd64', 'darwin_arm64'];

  // Two edges of the corpus of real configurations
  // (testkit/src/real_configurations.rs), the ones the old
  // parser refused: a type 17 brackets deep and one resource of 250 dynamic
  // blocks with conditionals (96 kB). Locked in the Terraform dialect
  // against the registry that answers for any provider, which the client's
  // TF_CLI_CONFIG_FILE sends registry.terraform.io to with `host` blocks:
  // the lock file Terraform 1.11.4 wrote for the same configuration against
  // the same registry, byte for byte.
  test('deeper-types and long-conditionals: Terraform’s lock files, byte for byte', async (t) => {
    const any = await AnyRegistry.start();
    t.after(() => any.stop());
    const c = new Client({
      dialect: 'terraform',
      caFiles: [any.ca],
      credentials: null,
      env: hermeticEnv({ TF_CLI_CONFIG_FILE: any.cliConfig }),
    });
    for (const [name, source] of [
      ['deeper-types', 'registry.terraform.io/hashicorp/kubernetes'],
      ['long-conditionals', 'registry.terraform.io/hashicorp/google'],
    ]) {
      const dir = tempDir(`tfdisco-${name}-`);
      fs.cpSync(path.join(REAL, 'edges', name), dir, { recursive: true });
      const golden = fs.readFileSync(path.join(REAL, 'goldens', 'edges', name, 'terraform.lock.hcl'), 'utf8');

      const report = await c.lock(dir, { platforms: REAL_PLATFORMS });

      assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), golden, name);
      assert.equal(report.changed, true);
      assert.deepEqual(report.platforms, REAL_PLATFORMS);
      assert.deepEqual(
        report.providers.map((p) => [p.source, p.trust, p.keyId, p.hashesAdded]),
        [[source, 'self-signed', any.keyId, goldenHashes(golden)[source]]],
        name,
      );
    }
  });
});

describe('package hashes', () => {
  const pkg = (name, version, platform) =>
    path.join(SIGNED, 'ns', name, version, `terraform-provider-${name}_${version}_${platform}.zip`);

  function sha256sums(name, version) {
    const text = fs.readFileSync(path.join(SIGNED, 'ns', name, version, `terraform-provider-${name}_${version}_SHA256SUMS`), 'utf8');
    return Object.fromEntries(
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('  ').reverse()),
    );
  }

  test("Terraform's h1: and the SHA256SUMS zh:", async () => {
    const golden = goldenHashes(expected('fresh', 'HOST'))['HOST/ns/beta'];
    const sums = sha256sums('beta', '0.10.0');
    const h1s = [];
    for (const platform of ALL) {
      const file = pkg('beta', '0.10.0', platform);
      const { h1, zh } = await tfdisco.hashPackage(file);
      assert.ok(golden.includes(h1), `${platform} ${h1}`);
      assert.equal(zh, `zh:${sums[path.basename(file)]}`);
      assert.ok(golden.includes(zh));
      assert.deepEqual(tfdisco.hashPackageSync(file), { h1, zh });
      h1s.push(h1);
    }
    assert.deepEqual(h1s.sort(), golden.filter((h) => h.startsWith('h1:')));
    const linux = pkg('beta', '0.10.0', 'linux_amd64');
    assert.deepEqual(await tfdisco.hashPackage(pathToFileURL(linux)), await tfdisco.hashPackage(linux));
    assert.equal(
      (await tfdisco.hashPackage(linux)).zh,
      'zh:78168bef31eb30ec6398cf8a9da27e1f9c29b8b0778c268fb0af98f5886e8d80',
    );
  });

  test('what is no package: InvalidPackageError', async () => {
    const dir = tempDir();
    const garbage = path.join(dir, 'garbage.zip');
    fs.writeFileSync(garbage, 'this is not a zip file\n'.repeat(100));
    const error = await tfdisco.hashPackage(garbage).catch((e) => e);
    assert.ok(error instanceof tfdisco.InvalidPackageError, String(error));
    assert.deepEqual([error.kind, error.problem, error.path], ['invalid_package', 'not-a-zip', garbage]);
    assert.ok(error.message.includes(garbage) && error.message.includes('not a zip'));
    assert.throws(() => tfdisco.hashPackageSync(garbage), tfdisco.InvalidPackageError);

    const real = fs.readFileSync(pkg('beta', '0.10.0', 'linux_amd64'));
    const truncated = path.join(dir, 'truncated.zip');
    fs.writeFileSync(truncated, real.subarray(0, real.length / 2));
    assert.equal((await tfdisco.hashPackage(truncated).catch((e) => e)).problem, 'truncated');
    const empty = path.join(dir, 'empty.zip');
    fs.writeFileSync(empty, '');
    await assert.rejects(tfdisco.hashPackage(empty), tfdisco.InvalidPackageError);
  });

  test('a file that cannot be read: errors shaped as Node’s', async () => {
    const dir = tempDir();
    const missing = path.join(dir, 'missing.zip');
    const error = await tfdisco.hashPackage(missing).catch((e) => e);
    assert.deepEqual([error.code, error.errno, error.syscall, error.path], ['ENOENT', -2, 'open', missing]);
    assert.equal(error.message, `ENOENT: no such file or directory, open '${missing}'`);
    assert.throws(() => tfdisco.hashPackageSync(missing), { code: 'ENOENT' });
    await assert.rejects(tfdisco.hashPackage(dir), { code: 'EISDIR' });
    await assert.rejects(tfdisco.hashPackage(42), TypeError);
    assert.throws(() => tfdisco.hashPackageSync(42), TypeError);
  });
});
