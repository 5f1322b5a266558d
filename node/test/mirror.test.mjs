// Mirrors: `client.mirror`, `client.lock({ netMirror | fsMirror })` and
// `installationMethods`, compared with what Terraform 1.11.4 wrote for the
// same input (testkit/fixtures/mirror-goldens/ and lock-goldens/):
// the folder `providers mirror` wrote, and the lock files `providers lock
// -net-mirror` / `-fs-mirror` wrote.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { REPO, hermeticEnv, tempDir } from './helpers/env.mjs';
import { Recorder } from './helpers/recorder.mjs';
import { REGISTRY, Served } from './helpers/serve.mjs';

const { Client, LockError } = tfdisco;
const FIXTURES = path.join(REPO, 'testkit', 'fixtures');
const MIRRORS = path.join(FIXTURES, 'mirror-goldens');
const GOLDENS = path.join(FIXTURES, 'lock-goldens');
const LOCK_FILE = '.terraform.lock.hcl';
const ALL = ['linux_amd64', 'darwin_arm64', 'windows_amd64'];
const MIRROR_HOST = 'registry.example.test';

/** Every file under `root` by its `/`-separated relative path. */
function tree(root) {
  const out = {};
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    out[path.relative(root, file).split(path.sep).join('/')] = fs.readFileSync(file);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const goldenTree = (name, host) =>
  Object.fromEntries(Object.entries(tree(path.join(MIRRORS, name, 'tree'))).map(([p, b]) => [p.replaceAll('{HOST}', host), b]));

function copyTree(name, host, into = tempDir('tfdisco-mirror-')) {
  for (const [file, bytes] of Object.entries(goldenTree(name, host))) {
    fs.mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    fs.writeFileSync(path.join(into, file), bytes);
  }
  return into;
}

/** A case's `input/` (of mirror-goldens or lock-goldens), `{HOST}` replaced. */
function prepare(root, name, host) {
  const into = tempDir('tfdisco-config-');
  const from = path.join(root, name, 'input');
  for (const file of fs.readdirSync(from)) {
    fs.writeFileSync(path.join(into, file), fs.readFileSync(path.join(from, file), 'utf8').replaceAll('{HOST}', host));
  }
  return into;
}

const expectedLock = (name, host) => fs.readFileSync(path.join(GOLDENS, name, 'terraform.lock.hcl'), 'utf8').replaceAll('{HOST}', host);

describe('against tfdisco-dev serve', () => {
  let served;
  before(async () => {
    served = await Served.start(REGISTRY);
  });
  after(() => served.stop());
  const client = () => new Client({ dialect: 'terraform', caFiles: [served.ca], credentials: null, env: hermeticEnv() });

  test('mirror writes the folder Terraform wrote, byte for byte', async () => {
    const host = served.host;
    const dir = prepare(MIRRORS, 'mirror-fresh', host);
    const folder = path.join(tempDir('tfdisco-out-'), 'mirror');
    const report = await client().mirror(dir, folder, { platforms: ALL });
    assert.deepEqual(tree(folder), goldenTree('mirror-fresh', host));
    assert.equal(report.folder, folder);
    assert.deepEqual(
      report.providers.map((p) => [p.source, p.version, p.locked, p.trust]),
      [
        [`${host}/ns/alpha`, '1.1.0', false, 'self-signed'],
        [`${host}/ns/beta`, '0.10.0', false, 'self-signed'],
      ],
    );
    assert.equal(report.indexes.length, 4);
    assert.deepEqual(report.skipped, []);
  });

  test('the locked version into a folder that holds another', async () => {
    const host = served.host;
    const dir = prepare(MIRRORS, 'mirror-locked', host);
    const folder = copyTree('mirror-fresh', host);
    const report = await client().mirror(new URL(`file://${dir}`), folder, { platforms: ['linux_amd64'], jobs: 2 });
    assert.deepEqual(tree(folder), goldenTree('mirror-locked', host));
    assert.deepEqual(report.providers.map((p) => [p.version, p.locked]), [['1.0.0', true], ['0.10.0', true]]);
  });

  test('lock from a filesystem mirror, packed and unpacked', async () => {
    const host = served.host;
    for (const [name, source] of [['fs-mirror', 'mirror-fresh'], ['fs-mirror-unpacked', 'unpacked']]) {
      const dir = prepare(GOLDENS, name, host);
      const report = await client().lock(dir, { platforms: ['linux_amd64', 'darwin_arm64'], fsMirror: copyTree(source, host) });
      assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), expectedLock(name, host), name);
      assert.deepEqual(report.providers.map((p) => [p.trust, p.keyId]), [['unauthenticated', null], ['unauthenticated', null]]);
    }
  });
});

describe('against a network mirror', () => {
  let recorder;
  before(async () => {
    recorder = await Recorder.start();
    for (const [file, body] of Object.entries(goldenTree('mirror-fresh', MIRROR_HOST))) {
      const type = file.endsWith('.json') ? 'application/json' : 'application/zip';
      recorder.routes.set(`/mirror/${file}`, { status: 200, body, headers: { 'Content-Type': type } });
    }
  });
  after(() => recorder.stop());

  test('lock writes the lock file Terraform wrote; the token goes with the documents only', async () => {
    const dir = prepare(GOLDENS, 'net-mirror', MIRROR_HOST);
    const client = new Client({
      dialect: 'terraform',
      caFiles: [recorder.ca],
      credentials: { [recorder.host]: 's3cret' },
      env: hermeticEnv(),
    });
    const report = await client.lock(dir, { platforms: ALL, netMirror: `https://${recorder.host}/mirror/` });
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), expectedLock('net-mirror', MIRROR_HOST));
    assert.deepEqual([...new Set(report.providers.map((p) => p.trust))], ['verified checksum']);
    for (const seen of recorder.seen) {
      assert.equal(seen.headers.authorization !== undefined, seen.path.endsWith('.json'), seen.path);
    }
  });

  test('bad mirror options reject before anything is asked', async () => {
    const client = new Client({ credentials: null, env: hermeticEnv() });
    const dir = tempDir();
    await assert.rejects(client.lock(dir, { netMirror: 'http://m.example/' }), tfdisco.InvalidArgumentError);
    await assert.rejects(client.lock(dir, { netMirror: 'https://m.example/', fsMirror: dir }), /mutually exclusive/);
    await assert.rejects(client.lock(dir, { netMirror: 42 }), TypeError);
    await assert.rejects(client.mirror(dir, path.join(dir, 'out'), { jobs: 0 }), tfdisco.InvalidOptionError);
    await assert.rejects(client.mirror(dir, path.join(dir, 'out'), { lockfile: false }), TypeError);
    assert.equal(fs.existsSync(path.join(dir, 'out')), false);
  });

  test('a mirror failure rejects with LockError and changes nothing', async () => {
    const dir = prepare(GOLDENS, 'net-mirror', MIRROR_HOST);
    const client = new Client({ dialect: 'terraform', caFiles: [recorder.ca], credentials: null, env: hermeticEnv() });
    await assert.rejects(
      client.lock(dir, { platforms: ['plan9_amd64'], netMirror: `https://${recorder.host}/mirror/` }),
      (error) => {
        assert.ok(error instanceof LockError);
        assert.equal(error.exitCode, 3);
        assert.equal(error.failures[0].kind, 'platform');
        return true;
      },
    );
    assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), false);
  });
});

test('installationMethods says which method installs a provider, and why', () => {
  const home = tempDir('tfdisco-home-');
  const rc = path.join(home, 'terraformrc');
  fs.writeFileSync(
    rc,
    'provider_installation {\n  filesystem_mirror {\n    path    = "/srv/mirror"\n    include = ["example.com/*/*"]\n  }\n  direct {\n    exclude = ["example.com/*/*"]\n  }\n}\n',
  );
  const env = { HOME: home, TF_CLI_CONFIG_FILE: rc };
  assert.deepEqual(tfdisco.installationMethods('example.com/acme/widget', { dialect: 'terraform', cwd: home, env }), [
    { method: 'filesystem_mirror', location: '/srv/mirror', priority: 1, mayInstall: true, reason: 'include pattern "example.com/*/*" matches', supported: true },
    { method: 'direct', location: 'example.com', priority: 2, mayInstall: false, reason: 'exclude pattern "example.com/*/*" matches', supported: true },
  ]);
  const aws = tfdisco.installationMethods('hashicorp/aws', { dialect: 'terraform', cwd: home, env });
  assert.deepEqual(aws.map((m) => [m.method, m.location, m.mayInstall]), [
    ['filesystem_mirror', '/srv/mirror', false],
    ['direct', 'registry.terraform.io', true],
  ]);
  assert.throws(() => tfdisco.installationMethods('aws', { dialect: 'terraform', env }), tfdisco.InvalidSourceError);
  assert.throws(() => tfdisco.installationMethods('hashicorp/aws', { dialect: 'pulumi', env }), tfdisco.InvalidOptionError);
  assert.throws(() => tfdisco.installationMethods('hashicorp/aws', { shell: 'bash' }), TypeError);
});
