// Module installation: `client.get` (and the modules `install` gets
// first), against a module registry on loopback (the recording server,
// serving the versions, the download location and a zip built here), a Git
// repository the test makes with the real `git`, and a local module:
// `modules.json` byte for byte, the folders, a re-run that keeps everything
// without a request, `upgrade`, the same document as `tfdisco get --json`
// (the same bytes through `JSON.stringify`), and a failure that rejects
// with a `LockError` of kind `modules` and places nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { hermeticEnv, tempDir, tfdiscoBin } from './helpers/env.mjs';
import { HAS_GIT, repository, zip } from './helpers/modules.mjs';
import { Recorder, WELL_KNOWN, reply } from './helpers/recorder.mjs';

const { Client, LockError, InvalidOptionError } = tfdisco;
const MANIFEST = path.join('.terraform', 'modules', 'modules.json');
const BASE = '/v1/modules/acme/net/aws';

// --- The registry, the repository and the configuration ---------------------------

let recorder;

before(async () => {
  recorder = await Recorder.start();
});

after(() => recorder?.stop());

/**
 * `acme/net/aws` with `versions` on the recording server, each downloading
 * from `./pkg.zip//net` (relative to the download URL): a zip whose module
 * is one folder down, calling a sibling folder. Returns its source address.
 */
function registry(versions = ['1.0.0', '1.1.0']) {
  recorder.routes.set(WELL_KNOWN, reply('{"modules.v1": "/v1/modules/"}'));
  const listed = { modules: [{ versions: versions.map((version) => ({ version })) }] };
  recorder.routes.set(`${BASE}/versions`, reply(JSON.stringify(listed)));
  for (const version of versions) {
    recorder.routes.set(`${BASE}/${version}/download`, reply('', { status: 204, headers: { 'X-Terraform-Get': './pkg.zip//net' } }));
    const body = zip([
      ['net/main.tf', 0o100644, `# net ${version}\nmodule "shared" { source = "../shared" }\n`],
      ['net/run.sh', 0o100755, '#!/bin/sh\n'],
      ['shared/main.tf', 0o100600, '# shared\n'],
    ]);
    recorder.routes.set(`${BASE}/${version}/pkg.zip`, reply(body, { headers: { 'Content-Type': 'application/zip' } }));
  }
  return `127.0.0.1:${recorder.port}/acme/net/aws`;
}

/** A scratch folder with the repository and a configuration calling the registry module, a local one and the repository twice. */
function setup(net) {
  const scratch = tempDir('tfdisco-get-');
  const repo = repository(path.join(scratch, 'repo'));
  const dir = path.join(scratch, 'work');
  fs.mkdirSync(path.join(dir, 'modules', 'app'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'modules', 'app', 'main.tf'), '# app\n');
  fs.writeFileSync(
    path.join(dir, 'main.tf'),
    `module "net" {\n  source  = "${net}"\n  version = "~> 1.0"\n}\n` +
      'module "app" { source = "./modules/app" }\n' +
      `module "git" { source = "git::file://${repo}?ref=v1.0.0" }\n` +
      `module "again" { source = "git::file://${repo}//sub?ref=v1.0.0" }\n`,
  );
  return { scratch, repo, dir };
}

function expectedManifest(net, repo) {
  return (
    '{"Modules":[{"Key":"","Source":"","Dir":"."},' +
    `{"Key":"again","Source":"git::file://${repo}//sub?ref=v1.0.0","Dir":".terraform/modules/again/sub"},` +
    '{"Key":"app","Source":"./modules/app","Dir":"modules/app"},' +
    `{"Key":"git","Source":"git::file://${repo}?ref=v1.0.0","Dir":".terraform/modules/git"},` +
    `{"Key":"net","Source":"${net}","Version":"1.1.0","Dir":".terraform/modules/net/net"},` +
    '{"Key":"net.shared","Source":"../shared","Dir":".terraform/modules/net/shared"}]}'
  );
}

function environment() {
  return hermeticEnv();
}

function clientFor(env) {
  return new Client({ dialect: 'terraform', caFiles: [recorder.ca], credentials: null, env });
}

/**
 * `tfdisco get --json` in `dir`, as the client is set up: `{ status,
 * stdout, stderr }`. A child of its own, not `spawnSync`: the recording
 * server answers on this process's event loop.
 */
function cli(env, dir, ...extra) {
  const args = ['get', '--chdir', dir, '--dialect', 'terraform', '--ca-file', recorder.ca, '--no-credentials', '--json', ...extra];
  return new Promise((resolve, reject) => {
    const child = spawn(tfdiscoBin(), args, { env: { ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** What a run left in `.terraform/modules` besides the modules (a staging folder, say). */
function leftovers(dir) {
  const modules = path.join(dir, '.terraform', 'modules');
  return fs.existsSync(modules) ? fs.readdirSync(modules).filter((n) => n.startsWith('.')) : [];
}

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('the promise resolved');
}

describe('client.get', { skip: HAS_GIT ? false : 'the Git modules need the system git' }, () => {
  test('installs every module, keeps them, and gives the CLI’s document', async () => {
    const net = registry();
    const { repo, dir } = setup(net);
    const env = environment();
    const client = clientFor(env);

    const report = await client.get(dir);

    assert.equal(fs.readFileSync(path.join(dir, MANIFEST), 'utf8'), expectedManifest(net, repo));
    assert.equal(report.manifest, path.join(dir, MANIFEST));
    assert.equal(report.changed, true);
    assert.deepEqual(
      report.modules.map((m) => [m.key, m.source, m.version, m.dir, m.installed]),
      [
        ['again', `git::file://${repo}//sub?ref=v1.0.0`, null, '.terraform/modules/again/sub', 'fetched'],
        ['app', './modules/app', null, 'modules/app', 'local'],
        ['git', `git::file://${repo}?ref=v1.0.0`, null, '.terraform/modules/git', 'fetched'],
        ['net', net, '1.1.0', '.terraform/modules/net/net', 'fetched'],
        ['net.shared', '../shared', null, '.terraform/modules/net/shared', 'local'],
      ],
    );
    const modules = path.join(dir, '.terraform', 'modules');
    assert.match(fs.readFileSync(path.join(modules, 'net', 'net', 'main.tf'), 'utf8'), /^# net 1\.1\.0\n/);
    assert.equal(fs.statSync(path.join(modules, 'net', 'net', 'run.sh')).mode & 0o777, 0o755);
    // `again` is walked first: it keeps the clone, `.git` and all; `git`
    // gets a copy without dot files.
    assert.ok(fs.statSync(path.join(modules, 'again', '.git')).isDirectory());
    assert.ok(!fs.existsSync(path.join(modules, 'git', '.git')));
    assert.equal(fs.readFileSync(path.join(modules, 'git', 'sub', 'main.tf'), 'utf8'), '# git sub\n');
    assert.deepEqual(leftovers(dir), []);
    assert.deepEqual(Object.keys(report.toJSON()), ['manifest', 'changed', 'modules']);
    assert.ok(recorder.seen.some((r) => r.path === `${BASE}/1.1.0/pkg.zip`));

    // Again: everything kept, nothing asked, the manifest as it was.
    const asked = recorder.seen.length;
    const again = await client.get(pathToFileURL(dir));
    assert.equal(recorder.seen.length, asked);
    assert.equal(again.changed, false);
    assert.deepEqual([...new Set(again.modules.map((m) => m.installed))], ['kept']);
    assert.equal(fs.readFileSync(path.join(dir, MANIFEST), 'utf8'), expectedManifest(net, repo));

    // The CLI, in the same place from scratch, then again: the same bytes.
    fs.rmSync(path.join(dir, '.terraform'), { recursive: true });
    let run = await cli(env, dir);
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    assert.equal(run.stdout, `${JSON.stringify(report)}\n`);
    assert.equal(fs.readFileSync(path.join(dir, MANIFEST), 'utf8'), expectedManifest(net, repo));
    run = await cli(env, dir);
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    assert.equal(run.stdout, `${JSON.stringify(again)}\n`);
  });

  test('upgrade installs every module again, at the newest version', async () => {
    const net = registry(['1.0.0']);
    const { repo, dir } = setup(net);
    const client = clientFor(environment());
    const first = await client.get(dir, { jobs: 1 });
    assert.deepEqual(first.modules.filter((m) => m.key === 'net').map((m) => m.version), ['1.0.0']);

    registry();
    const kept = await client.get(dir);
    assert.equal(kept.changed, false);
    assert.deepEqual([...new Set(kept.modules.map((m) => m.installed))], ['kept']);
    const upgraded = await client.get(dir, { upgrade: true });
    assert.equal(upgraded.changed, true);
    assert.deepEqual(upgraded.modules.filter((m) => m.installed === 'fetched').map((m) => m.key), ['again', 'git', 'net']);
    assert.equal(fs.readFileSync(path.join(dir, MANIFEST), 'utf8'), expectedManifest(net, repo));
  });

  test('a Git ref that does not exist rejects with kind modules and places nothing', async () => {
    const net = registry();
    const { repo, dir } = setup(net);
    const env = environment();
    const client = clientFor(env);
    await client.get(dir);
    const before = fs.readFileSync(path.join(dir, MANIFEST));
    fs.appendFileSync(path.join(dir, 'main.tf'), `module "bad" { source = "git::file://${repo}?ref=no-such-ref" }\n`);

    for (const options of [{}, { upgrade: true }]) {
      const error = await rejection(client.get(dir, options));
      assert.ok(error instanceof LockError, String(error));
      assert.equal(error.kind, 'modules');
      assert.equal(error.exitCode, 1);
      assert.match(error.message, /some modules could not be installed/);
      assert.equal(error.failures.length, 1);
      const [failure] = error.failures;
      assert.deepEqual(Object.keys(failure).sort(), ['exitCode', 'key', 'kind', 'message']);
      assert.deepEqual([failure.key, failure.kind, failure.exitCode], ['bad', 'download', 1]);
      assert.match(failure.message, /no-such-ref/);
      assert.ok(!fs.existsSync(path.join(dir, '.terraform', 'modules', 'bad')));
      assert.deepEqual(fs.readFileSync(path.join(dir, MANIFEST)), before);
      assert.deepEqual(leftovers(dir), []);
    }

    // The CLI says the same: its error document's failures are the error's.
    const run = await cli(env, dir);
    assert.equal(run.status, 1, `${run.stdout}${run.stderr}`);
    const document = JSON.parse(run.stdout);
    assert.equal(document.error.kind, 'modules');
    assert.equal(document.error.exit_code, 1);
    assert.deepEqual(
      document.failures.map(({ key, kind, exit_code }) => ({ key, kind, exitCode: exit_code })),
      [{ key: 'bad', kind: 'download', exitCode: 1 }],
    );
    assert.ok(!fs.existsSync(path.join(dir, '.terraform', 'modules', 'bad')));
    assert.deepEqual(fs.readFileSync(path.join(dir, MANIFEST)), before);
  });

  test('a first failure writes no manifest', async () => {
    const scratch = tempDir('tfdisco-get-');
    const repo = repository(path.join(scratch, 'repo'));
    const dir = path.join(scratch, 'work');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'main.tf'), `module "bad" { source = "git::file://${repo}?ref=no-such-ref" }\n`);
    const error = await rejection(clientFor(environment()).get(dir));
    assert.ok(error instanceof LockError);
    assert.deepEqual([error.kind, error.exitCode], ['modules', 1]);
    assert.deepEqual(error.failures.map((f) => [f.key, f.kind]), [['bad', 'download']]);
    assert.ok(!fs.existsSync(path.join(dir, MANIFEST)));
    assert.ok(!fs.existsSync(path.join(dir, '.terraform', 'modules', 'bad')));
    assert.deepEqual(leftovers(dir), []);
  });

  test('install gets the modules first and reports them', async () => {
    const scratch = tempDir('tfdisco-get-');
    const repo = repository(path.join(scratch, 'repo'));
    const dir = path.join(scratch, 'work');
    fs.mkdirSync(path.join(dir, 'modules', 'app'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'modules', 'app', 'main.tf'), '# app\n');
    fs.writeFileSync(
      path.join(dir, 'main.tf'),
      'module "app" { source = "./modules/app" }\n' + `module "git" { source = "git::file://${repo}?ref=v1.0.0" }\n`,
    );
    const client = clientFor(environment());
    const report = await client.install(dir);
    assert.deepEqual(report.modules, [
      { key: 'app', source: './modules/app', version: null, dir: 'modules/app', installed: 'local' },
      { key: 'git', source: `git::file://${repo}?ref=v1.0.0`, version: null, dir: '.terraform/modules/git', installed: 'fetched' },
    ]);
    assert.deepEqual(report.providers, []);
    assert.ok(fs.existsSync(path.join(dir, '.terraform', 'modules', 'git', 'main.tf')));
    const got = await client.get(dir);
    assert.deepEqual(got.modules.map((m) => [m.key, m.installed]), [['app', 'kept'], ['git', 'kept']]);
  });
});

test('bad get options reject before anything is read', async () => {
  const dir = tempDir('tfdisco-get-');
  const client = clientFor(environment());
  const asked = recorder.seen.length;
  assert.ok((await rejection(client.get(dir, { jobs: 0 }))) instanceof InvalidOptionError);
  assert.ok((await rejection(client.get(dir, { providers: ['hashicorp/aws'] }))) instanceof TypeError);
  assert.ok((await rejection(client.get(dir, { upgrade: 'yes' }))) instanceof TypeError);
  assert.ok((await rejection(client.get(42))) instanceof TypeError);
  assert.deepEqual(fs.readdirSync(dir), []);
  assert.equal(recorder.seen.length, asked);
});
