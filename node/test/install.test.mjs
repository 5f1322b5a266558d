// Provider installation: `client.install` against every case of the install
// goldens (testkit/fixtures/install-goldens/, what the real
// `terraform init` did with the same input): `tfdisco-dev serve
// --golden-install CASE` sets each case up on its signed registry (or
// mirror) with the testkit's own `Case::setup` and judges what the run left
// with its `Expected::check`, as the Rust conformance suite judges the
// library (helpers/golden.mjs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { REPO, hermeticEnv, tempDir } from './helpers/env.mjs';
import { AnyRegistry } from './helpers/any_registry.mjs';
import { CASES, Golden } from './helpers/golden.mjs';
import { REGISTRY, Served } from './helpers/serve.mjs';

const { Client, LockError, InvalidOptionError, InvalidSourceError, TfdiscoError } = tfdisco;
const FIXTURES = path.join(REPO, 'testkit', 'fixtures');
const SIGNED = path.join(FIXTURES, 'signed-registry');
const LOCK_FILE = '.terraform.lock.hcl';
const PLATFORM = 'linux_amd64';
const KEY_ID = '93BBAC3B9551CE46';

/**
 * Why each failing case fails: the error's kind and its failures' kinds (a
 * hostile archive is no package that can be unpacked: `package`).
 */
const ERRORS = {
  'corrupted-archive': ['failed', ['checksum']],
  'bad-signature': ['failed', ['signature']],
  'readonly-new-provider': ['readonly', []],
  'readonly-hash-change': ['readonly', []],
  'locked-outside': ['failed', ['version']],
  'zip-symlink': ['failed', ['package']],
  'zip-absolute': ['failed', ['package']],
  'zip-duplicate': ['failed', ['package']],
  'zip-dotdot': ['failed', ['package']],
  // A method's failed query fails the provider; no other method is asked.
  'net-mirror-older': ['failed', ['request']],
  'net-mirror-500': ['failed', ['request']],
  'net-mirror-unknown-provider': ['failed', ['request']],
};

/** Starts case `name`, stopped when the test ends. */
async function golden(t, name) {
  const g = await Golden.start(name);
  t.after(() => g.stop());
  return g;
}

/** A client for the case: its CA, no token, exactly the case's environment. */
function clientFor(g, options = {}) {
  return new Client({ dialect: 'terraform', caFiles: [g.ca], credentials: null, env: g.env, ...options });
}

/** `client.install` with the case's arguments: `{ exit, report, error }`. */
async function run(g, client) {
  try {
    const report = await client.install(g.dir, { upgrade: g.upgrade, lockfile: g.readonly ? 'readonly' : null });
    return { exit: 0, report };
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    return { exit: error.exitCode, error };
  }
}

/** Each provider of a lock file and its version. */
function lockedVersions(text) {
  return Object.fromEntries([...(text ?? '').matchAll(/provider "([^"]+)" \{\n {2}version\s*= "([^"]+)"/g)].map((m) => [m[1], m[2]]));
}

/** The hashes of each provider block of a lock file. */
function lockedHashes(text) {
  const out = {};
  for (const [, address, body] of text.matchAll(/provider "([^"]+)" \{(.*?)\n\}/gs)) {
    out[address] = [...body.matchAll(/"((?:h1|zh):[^"]+)"/g)].map((m) => m[1]);
  }
  return out;
}

function archiveSize(name, version) {
  return fs.statSync(path.join(SIGNED, 'ns', name, version, `terraform-provider-${name}_${version}_${PLATFORM}.zip`)).size;
}

describe('every install golden', () => {
  test('the cases', () => {
    assert.ok(CASES.length >= 27, `${CASES.length} cases`);
    const tampered = ['cache-tampered', 'cache-tampered-new-provider', 'cache-tampered-locked', 'cache-extra-file'];
    for (const name of ['fresh', 'kept', 'cache-fill', 'cache-hit', 'corrupted-archive', ...tampered, ...Object.keys(ERRORS)]) {
      assert.ok(CASES.includes(name), name);
    }
  });

  for (const name of CASES) {
    test(name, async (t) => {
      const g = await golden(t, name);
      const { exit, report, error } = await run(g, clientFor(g));

      await g.check(exit); // what `terraform init` left (or the documented difference)
      assert.equal(exit, g.exit);
      if (error) {
        assert.deepEqual([error.kind, error.failures.map((f) => f.kind)], ERRORS[name], error.message);
        assert.ok(error instanceof TfdiscoError);
        for (const f of error.failures) assert.equal(f.exitCode, error.exitCode);
        return;
      }
      assert.ok(!(name in ERRORS));
      assert.equal(report.lockFile, path.join(g.dir, LOCK_FILE));
      assert.equal(report.changed, g.lock !== g.lockBefore);
      assert.equal(report.platform, PLATFORM);
      assert.deepEqual(Object.fromEntries(report.providers.map((p) => [p.source, p.version])), lockedVersions(g.lock));
      for (const p of report.providers) {
        assert.ok(['reused', 'cached', 'downloaded'].includes(p.installed), p.installed);
        if (p.installed === 'downloaded' && !name.startsWith('fs-mirror') && !name.startsWith('zip-')) {
          assert.equal(p.bytes, archiveSize(p.source.split('/').at(-1), p.version));
        }
        if (p.installed !== 'downloaded') assert.equal(p.bytes, 0);
      }
    });
  }
});

describe('what the report says', () => {
  test('fresh, then kept without a request', async (t) => {
    const g = await golden(t, 'fresh');
    const c = clientFor(g);

    const report = await c.install(g.dir);

    await g.check(0);
    const hashes = lockedHashes(g.lock);
    const provider = (name, version) => ({
      source: `${g.host}/ns/${name}`,
      version,
      installed: 'downloaded',
      from: 'registry',
      bytes: archiveSize(name, version),
      hashesAdded: hashes[`${g.host}/ns/${name}`],
      trust: 'self-signed',
      keyId: KEY_ID,
    });
    assert.deepEqual({ ...report }, {
      lockFile: path.join(g.dir, LOCK_FILE),
      changed: true,
      platform: PLATFORM,
      providers: [provider('alpha', '1.1.0'), provider('beta', '0.10.0')],
      warnings: [],
      // The client's dialect was given.
      dialect: { name: 'terraform', chosenBy: 'given', why: 'given' },
      // The root module calls no module: none installed first.
      modules: [],
    });
    // JSON.stringify gives the library's document (snake_case).
    const document = JSON.parse(JSON.stringify(report));
    assert.deepEqual(Object.keys(document), ['lock_file', 'changed', 'platform', 'providers', 'warnings', 'dialect', 'modules']);
    assert.deepEqual(document.dialect, { name: 'terraform', chosen_by: 'given', why: 'given' });
    assert.equal(document.providers[0].hashes_added.length, report.providers[0].hashesAdded.length);
    assert.equal(document.providers[0].key_id, KEY_ID);

    // Again: everything kept, no request (the check counts the server's
    // requests: still the first run's downloads alone).
    const again = await c.install(pathToFileURL(g.dir), { jobs: 1 });
    await g.check(0);
    assert.equal(again.changed, false);
    assert.deepEqual(again.providers.map((p) => [p.installed, p.bytes, p.hashesAdded]), [['reused', 0, []], ['reused', 0, []]]);
  });

  test('cache-fill, then cache-hit', async (t) => {
    const fill = await golden(t, 'cache-fill');
    const filled = await clientFor(fill).install(fill.dir);
    await fill.check(0);
    assert.deepEqual(filled.providers.map((p) => p.installed), ['downloaded', 'downloaded']);

    const hit = await golden(t, 'cache-hit');
    const report = await clientFor(hit).install(hit.dir);
    await hit.check(0);
    assert.deepEqual(report.providers.map((p) => [p.installed, p.bytes]), [['cached', 0], ['cached', 0]]);
    assert.equal(report.changed, false);
  });

  test('pluginCache instead of TF_PLUGIN_CACHE_DIR: the same tree', async (t) => {
    const g = await golden(t, 'cache-fill');
    const env = { ...g.env };
    delete env.TF_PLUGIN_CACHE_DIR;
    assert.ok(g.cache);

    const report = await clientFor(g, { env }).install(g.dir, { pluginCache: g.cache, jobs: 2 });

    await g.check(0);
    assert.deepEqual(report.providers.map((p) => p.installed), ['downloaded', 'downloaded']);
  });

  test('lockfile: readonly refuses a change (exit 3, nothing placed)', async (t) => {
    const g = await golden(t, 'readonly-new-provider');
    const error = await clientFor(g).install(g.dir, { lockfile: 'readonly' }).then(
      () => assert.fail('resolved'),
      (e) => e,
    );
    await g.check(3);
    assert.ok(error instanceof LockError);
    assert.deepEqual([error.kind, error.exitCode, error.failures], ['readonly', 3, []]);
    assert.match(error.message, /read-only/);
  });

  test('a corrupted archive: failed, with the failure', async (t) => {
    const g = await golden(t, 'corrupted-archive');
    await assert.rejects(clientFor(g).install(g.dir), (error) => {
      assert.ok(error instanceof LockError);
      assert.deepEqual([error.kind, error.exitCode], ['failed', 1]);
      assert.deepEqual(
        error.failures.map((f) => [f.source, f.version, f.platform, f.kind, f.exitCode]),
        [[`${g.host}/ns/alpha`, '1.1.0', PLATFORM, 'checksum', 1]],
      );
      return true;
    });
    await g.check(1);
  });

  test('mirrors: where each provider came from', async (t) => {
    const net = await golden(t, 'net-mirror');
    const fromNet = await clientFor(net).install(net.dir);
    await net.check(0);
    assert.deepEqual([...new Set(fromNet.providers.map((p) => p.trust))], ['verified checksum']);
    assert.deepEqual([...new Set(fromNet.providers.map((p) => p.from))], [`https://${net.serverHost}/mirror/`]);

    const fs_ = await golden(t, 'fs-mirror');
    const fromFs = await clientFor(fs_).install(fs_.dir);
    await fs_.check(0);
    assert.deepEqual(
      [...new Set(fromFs.providers.map((p) => JSON.stringify([p.trust, p.keyId, p.from])))],
      [JSON.stringify(['unauthenticated', null, path.join(fs_.dir, 'fs-mirror')])],
    );
  });

  // OpenTofu's `network_mirror { trust_all_hashes = true }` (MIRROR-14),
  // from the mirror `tfdisco-dev serve --any-registry` serves (the tree
  // Terraform's `providers mirror` wrote): for a provider of
  // registry.opentofu.org the lock file records the hashes the mirror lists
  // for every platform; without the setting only the installed platform's;
  // for a provider of another host, with the setting, only the installed
  // platform's too (no signature vouches for the others).
  test('trust_all_hashes: every platform’s listed hashes, for registry.opentofu.org only', async (t) => {
    const any = await AnyRegistry.start();
    t.after(() => any.stop());
    const document = JSON.parse(fs.readFileSync(path.join(any.mirrorTree, '{HOST}', 'ns', 'alpha', '1.1.0.json'), 'utf8'));
    const listed = Object.fromEntries(Object.entries(document.archives).map(([platform, entry]) => [platform, entry.hashes]));
    assert.equal(Object.keys(listed).length, 3);

    async function install(source, trusted) {
      const scratch = tempDir('tfdisco-trust-');
      const rc = path.join(scratch, 'tofurc');
      const trust = trusted ? '\n    trust_all_hashes = true' : '';
      fs.writeFileSync(rc, `provider_installation {\n  network_mirror {\n    url = "${any.mirror}"${trust}\n  }\n}\n`);
      const dir = path.join(scratch, 'dir');
      fs.mkdirSync(dir);
      fs.writeFileSync(
        path.join(dir, 'main.tf'),
        `terraform {\n  required_providers {\n    alpha = {\n      source  = "${source}"\n      version = "~> 1.0"\n    }\n  }\n}\n`,
      );
      const c = new Client({ dialect: 'opentofu', caFiles: [any.ca], credentials: null, env: hermeticEnv({ TF_CLI_CONFIG_FILE: rc }) });
      const report = await c.install(dir);
      return { dir, report, lock: fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8') };
    }

    for (const [name, source, address, trusted, everyPlatform] of [
      ['trusted', 'ns/alpha', 'registry.opentofu.org/ns/alpha', true, true],
      ['plain', 'ns/alpha', 'registry.opentofu.org/ns/alpha', false, false],
      ['other host', 'registry.terraform.io/ns/alpha', 'registry.terraform.io/ns/alpha', true, false],
    ]) {
      const { dir, report, lock } = await install(source, trusted);
      const hashes = everyPlatform ? Object.values(listed).flat().sort() : listed[report.platform];
      assert.deepEqual(lockedHashes(lock), { [address]: hashes }, name);
      assert.deepEqual(lockedVersions(lock), { [address]: '1.1.0' }, name);
      assert.deepEqual(
        report.providers.map((p) => [p.source, p.installed, p.from, p.trust, p.hashesAdded]),
        [[address, 'downloaded', any.mirror, 'verified checksum', hashes]],
        name,
      );
      assert.ok(fs.statSync(path.join(dir, '.terraform', 'providers', address, '1.1.0', report.platform)).isDirectory(), name);
    }
  });

  test('two runs at once', async (t) => {
    const cases = [await golden(t, 'fresh'), await golden(t, 'cache-fill')];
    const reports = await Promise.all(cases.map((g) => clientFor(g).install(g.dir, { jobs: 2 })));
    for (const [i, g] of cases.entries()) {
      await g.check(0);
      assert.deepEqual(reports[i].providers.map((p) => p.installed), ['downloaded', 'downloaded']);
    }
  });

  test('one provider named', async (t) => {
    const g = await golden(t, 'fresh');
    const report = await clientFor(g).install(g.dir, { providers: [`${g.host}/ns/alpha`] });
    assert.deepEqual(report.providers.map((p) => [p.source, p.installed]), [[`${g.host}/ns/alpha`, 'downloaded']]);
    assert.deepEqual(fs.readdirSync(path.join(g.dir, '.terraform', 'providers', g.host, 'ns')), ['alpha']);
    assert.deepEqual(Object.keys(lockedVersions(fs.readFileSync(path.join(g.dir, LOCK_FILE), 'utf8'))), [`${g.host}/ns/alpha`]);
  });
});

describe('refused before anything is installed', () => {
  let served;
  before(async () => {
    served = await Served.start(REGISTRY);
  });
  after(() => served.stop());

  /** The lock goldens' `fresh` configuration in a new directory. */
  function configuration() {
    const dir = tempDir('tfdisco-install-');
    const text = fs.readFileSync(path.join(FIXTURES, 'lock-goldens', 'fresh', 'input', 'main.tf'), 'utf8');
    fs.writeFileSync(path.join(dir, 'main.tf'), text.replaceAll('{HOST}', served.host));
    return dir;
  }

  function client() {
    return new Client({ dialect: 'terraform', caFiles: [served.ca], credentials: null, env: hermeticEnv() });
  }

  test('a provider the configuration does not require: usage, exit 2, no request', async () => {
    const dir = configuration();
    await assert.rejects(client().install(dir, { providers: [`${served.host}/ns/gamma`] }), (error) => {
      assert.ok(error instanceof LockError);
      assert.deepEqual([error.kind, error.exitCode, error.failures], ['usage', 2, []]);
      assert.match(error.message, /ns\/gamma/);
      return true;
    });
    assert.deepEqual(await served.requests(), []);
    assert.ok(!fs.existsSync(path.join(dir, LOCK_FILE)) && !fs.existsSync(path.join(dir, '.terraform')));
  });

  test('upgrade with lockfile readonly: usage, exit 2', async () => {
    const dir = configuration();
    await assert.rejects(client().install(dir, { upgrade: true, lockfile: 'readonly' }), (error) => {
      assert.deepEqual([error.constructor, error.kind, error.exitCode], [LockError, 'usage', 2]);
      return true;
    });
    assert.deepEqual(await served.requests(), []);
  });

  test('a configuration that does not parse: configuration, exit 2', async () => {
    const dir = tempDir('tfdisco-install-');
    fs.writeFileSync(path.join(dir, 'main.tf'), 'terraform {\n');
    await assert.rejects(client().install(dir), (error) => {
      assert.deepEqual([error.constructor, error.kind, error.exitCode], [LockError, 'configuration', 2]);
      return true;
    });
    assert.ok(!fs.existsSync(path.join(dir, LOCK_FILE)) && !fs.existsSync(path.join(dir, '.terraform')));
  });

  test('bad options reject before anything is read', async () => {
    const c = new Client({ dialect: 'terraform', credentials: null, env: hermeticEnv() });
    const missing = path.join(tempDir('tfdisco-install-'), 'missing');
    const cases = [
      [InvalidSourceError, { providers: ['aws'] }],
      [InvalidSourceError, { providers: ['not a source!'] }],
      [TypeError, { providers: 'example.com/ns/alpha' }],
      [TypeError, { providers: [42] }],
      [InvalidOptionError, { lockfile: 'read-only' }],
      [InvalidOptionError, { lockfile: '' }],
      [TypeError, { lockfile: true }],
      [TypeError, { upgrade: 'yes' }],
      [InvalidOptionError, { jobs: 0 }],
      [InvalidOptionError, { jobs: 1.5 }],
      [TypeError, { pluginCache: 42 }],
      [TypeError, { lockFile: 'readonly' }], // mirror's option, not install's
      [TypeError, { onEvent: 'console.log' }],
      [TypeError, { signal: new AbortController() }],
      [TypeError, { signal: {} }],
      [InvalidOptionError, { jobs: 0, onEvent: () => assert.fail('told'), signal: new AbortController().signal }],
      [InvalidSourceError, { providers: ['aws'], onEvent: () => assert.fail('told') }],
    ];
    for (const [cls, options] of cases) {
      await assert.rejects(c.install(missing, options), cls, JSON.stringify(options));
    }
    await assert.rejects(c.install(42), TypeError);
    await assert.rejects(c.install(missing, { lockfile: 'yes' }), /options\.lockfile must be 'readonly' or null, not "yes"/);
    assert.ok(!fs.existsSync(missing));
  });
});

// --- Events, and runs stopped ---

/**
 * Holds a plugin cache entry's lock in another process, as another tfdisco
 * run (or `tofu`) would: the folders made, the lock file locked whole with
 * `fcntl.lockf` (the POSIX record lock tfdisco and OpenTofu take; Node has
 * no fcntl), `locked` printed, held until stdin closes.
 */
const HOLD_LOCK = `
import fcntl, os, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "a+") as f:
    fcntl.lockf(f, fcntl.LOCK_EX)
    print("locked", flush=True)
    sys.stdin.read()
`;

/** `file` locked by a child process until the test ends (then killed). */
async function holdLock(t, file) {
  const child = spawn(process.env.TFDISCO_PYTHON ?? 'python3', ['-c', HOLD_LOCK, file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  t.after(() => {
    child.stdin.end();
    child.kill();
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the child did not take the lock')), 30_000);
    child.stdout.once('data', (data) => {
      clearTimeout(timer);
      if (String(data).startsWith('locked')) resolve();
      else reject(new Error(`the child said ${data}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the child exited (${code}) before it took the lock`));
    });
  });
  return child;
}

/** Every path under `dir` whose name is a staging folder's. */
function staging(dir) {
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((p) => path.basename(p).startsWith('.tfdisco-staging-'));
}

/** No `.terraform`, no lock file, no staging folder left. */
function assertNothingPlaced(g) {
  assert.ok(!fs.existsSync(path.join(g.dir, '.terraform')), '.terraform');
  assert.ok(!fs.existsSync(path.join(g.dir, LOCK_FILE)), LOCK_FILE);
  assert.deepEqual(staging(g.dir), []);
  if (g.cache) assert.deepEqual(staging(g.cache), []);
}

/** The keys of each event's object, in order. */
const EVENT_KEYS = {
  downloading: ['event', 'source', 'version'],
  downloaded: ['event', 'source', 'version', 'bytes'],
  waiting_for_cache: ['event', 'source', 'version', 'platform', 'lockFile', 'waitedSeconds'],
};

describe('events, and runs stopped', () => {
  test('onEvent: each download, in order, all before the promise settles', async (t) => {
    const g = await golden(t, 'fresh');
    const events = [];
    let settled = false;
    const late = [];

    const report = await clientFor(g).install(g.dir, {
      onEvent: (event) => (settled ? late : events).push(event),
    });
    settled = true;

    await g.check(0);
    for (const p of report.providers) {
      assert.deepEqual(
        events.filter((e) => e.source === p.source).map((e) => ({ ...e })),
        [
          { event: 'downloading', source: p.source, version: p.version },
          { event: 'downloaded', source: p.source, version: p.version, bytes: p.bytes },
        ],
      );
    }
    assert.equal(events.length, 4);
    for (const e of events) assert.deepEqual(Object.keys(e), EVENT_KEYS[e.event]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(late, []);

    // Nothing downloaded, nothing told.
    const hit = await golden(t, 'cache-hit');
    const quiet = [];
    await clientFor(hit).install(hit.dir, { onEvent: (e) => quiet.push(e) });
    await hit.check(0);
    assert.deepEqual(quiet, []);
  });

  test('an onEvent that throws cancels the run and rejects with what it threw', async (t) => {
    const g = await golden(t, 'cache-fill');
    const calls = [];
    const stop = new Error('stop');

    const error = await clientFor(g)
      .install(g.dir, {
        onEvent: (event) => {
          calls.push(event.event);
          throw stop;
        },
      })
      .then(
        () => assert.fail('resolved'),
        (e) => e,
      );

    assert.equal(error, stop);
    assert.deepEqual(calls, ['downloading']); // not called again
    assertNothingPlaced(g);
  });

  test('signal: a run waiting for a cache entry another process holds, aborted', { timeout: 60_000 }, async (t) => {
    const g = await golden(t, 'cache-fill');
    const lockFile = path.join(g.cache, g.host, 'ns', 'alpha', '1.1.0', `${PLATFORM}.lock`);
    await holdLock(t, lockFile);
    const controller = new AbortController();
    const events = [];
    const started = Date.now();
    let toldAfter;

    const error = await clientFor(g)
      .install(g.dir, {
        signal: controller.signal,
        onEvent: (event) => {
          events.push(event);
          if (event.event === 'waiting_for_cache') {
            toldAfter = (Date.now() - started) / 1000;
            controller.abort();
          }
        },
      })
      .then(
        () => assert.fail('resolved'),
        (e) => e,
      );

    assert.ok(error instanceof LockError, String(error));
    assert.deepEqual([error.kind, error.exitCode, error.failures], ['cancelled', 130, []]);
    assert.equal(error.message, 'the install was cancelled: nothing was placed, and the lock file is as it was');
    assert.equal(error.cause, controller.signal.reason);
    assert.ok((Date.now() - started) / 1000 < 30);

    const waiting = events.filter((e) => e.event === 'waiting_for_cache');
    assert.equal(waiting.length, 1);
    assert.deepEqual(Object.keys(waiting[0]), EVENT_KEYS.waiting_for_cache);
    const { waitedSeconds, ...rest } = waiting[0];
    assert.deepEqual(rest, {
      event: 'waiting_for_cache',
      source: `${g.host}/ns/alpha`,
      version: '1.1.0',
      platform: PLATFORM,
      lockFile,
    });
    assert.ok(waitedSeconds >= 5 && waitedSeconds <= toldAfter, `${waitedSeconds} s, told after ${toldAfter} s`);
    // JSON.stringify gives the line `tfdisco install --json` prints.
    assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(waiting[0]))), [
      'event',
      'source',
      'version',
      'platform',
      'lock_file',
      'waited_seconds',
    ]);
    // The other provider meanwhile: downloaded (and verified, into the cache).
    const beta = `${g.host}/ns/beta`;
    assert.deepEqual(
      events.filter((e) => e.event !== 'waiting_for_cache').map((e) => [e.event, e.source]),
      [
        ['downloading', beta],
        ['downloaded', beta],
      ],
    );
    assert.equal(events.find((e) => e.event === 'downloaded').bytes, archiveSize('beta', '0.10.0'));
    assertNothingPlaced(g);
    assert.deepEqual(fs.readdirSync(path.dirname(lockFile)), [path.basename(lockFile)]);
  });
});

describe('a signal already aborted', () => {
  let served;
  before(async () => {
    served = await Served.start(REGISTRY);
  });
  after(() => served.stop());

  test('rejects at once, before anything is read or asked', async () => {
    const dir = tempDir('tfdisco-install-');
    const text = fs.readFileSync(path.join(FIXTURES, 'lock-goldens', 'fresh', 'input', 'main.tf'), 'utf8');
    fs.writeFileSync(path.join(dir, 'main.tf'), text.replaceAll('{HOST}', served.host));
    const c = new Client({ dialect: 'terraform', caFiles: [served.ca], credentials: null, env: hermeticEnv() });
    const reason = new Error('gave up');
    const events = [];

    for (const target of [dir, path.join(dir, 'missing')]) {
      await assert.rejects(c.install(target, { signal: AbortSignal.abort(reason), onEvent: (e) => events.push(e) }), (error) => {
        assert.ok(error instanceof LockError);
        assert.deepEqual([error.kind, error.exitCode], ['cancelled', 130]);
        assert.equal(error.cause, reason);
        return true;
      });
    }

    assert.deepEqual(events, []);
    assert.deepEqual(await served.requests(), []);
    assert.deepEqual(fs.readdirSync(dir), ['main.tf']);
  });
});
