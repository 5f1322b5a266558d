// The dialect a client follows when none is given (docs/behaviour.md
// CFG-14): the one `process.cwd()` and the client's `env` (else the
// process's) mean when it is made, in the CLI's order — TFDISCO_DIALECT,
// the folder's lock file, `.tofu` files, the one of `terraform` and `tofu`
// on the PATH — else OpenTofu; `client.dialectChoice` and the reports of
// `lock`, `install` and `mirror` say which and why. Every environment here
// names its own PATH (an empty folder, or one with stand-in programs), so
// that a `terraform` on the machine's PATH decides nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { after, before, describe, test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { REPO, tempDir } from './helpers/env.mjs';
import { Golden } from './helpers/golden.mjs';
import { REGISTRY, Served } from './helpers/serve.mjs';

const { Client, InvalidOptionError } = tfdisco;
const LOCK_FILE = '.terraform.lock.hcl';
const GOLDENS = path.join(REPO, 'testkit', 'fixtures', 'lock-goldens');
const TERRAFORM_HEADER =
  '# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n';
const TOFU_HEADER =
  '# This file is maintained automatically by "tofu init".\n# Manual edits may be lost in future updates.\n';

/** A new folder, by the name the operating system gives it (as `process.cwd()` does). */
const folder = (prefix = 'tfdisco-dialect-') => fs.realpathSync(tempDir(prefix));

/** A folder on the PATH holding stand-ins for `programs` (executable scripts). */
function binWith(...programs) {
  const bin = folder('tfdisco-bin-');
  for (const name of programs) {
    fs.writeFileSync(path.join(bin, name), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  }
  return bin;
}

/** A client's environment: an empty home, `PATH` an empty folder, and `extra`. */
const choiceEnv = (extra = {}) => ({ HOME: folder('tfdisco-home-'), PATH: binWith(), ...extra });

/** `fn()` with `dir` the current working directory, then the one before back. */
function inFolder(dir, fn) {
  const before = process.cwd();
  process.chdir(dir);
  try {
    return fn();
  } finally {
    process.chdir(before);
  }
}

/** A client made in `dir` with `options` (no credentials, `choiceEnv()` unless given). */
const clientIn = (dir, options = {}) => inFolder(dir, () => new Client({ credentials: null, env: choiceEnv(), ...options }));

const choice = (c) => ({ ...c.dialectChoice });

describe('the dialect a client detects', () => {
  test('a lock file terraform init wrote: terraform, chosen by lock_file', () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, LOCK_FILE), TERRAFORM_HEADER);
    const c = clientIn(dir);
    assert.equal(c.dialect, 'terraform');
    const lockFile = path.join(dir, LOCK_FILE);
    assert.deepEqual(choice(c), {
      name: 'terraform',
      chosenBy: 'lock_file',
      why: `the lock file ${lockFile} was written by terraform init`,
    });
    // Frozen, and the library's document (snake_case) for JSON.stringify.
    assert.ok(Object.isFrozen(c.dialectChoice));
    assert.equal(c.dialectChoice, c.dialectChoice);
    assert.deepEqual(JSON.parse(JSON.stringify(c.dialectChoice)), {
      name: 'terraform',
      chosen_by: 'lock_file',
      why: `the lock file ${lockFile} was written by terraform init`,
    });
    assert.match(util.inspect(c), /dialect: 'terraform'/);
    // tofu init's lock file: opentofu. The providers' registry, when the
    // first line names no CLI.
    fs.writeFileSync(path.join(dir, LOCK_FILE), TOFU_HEADER);
    assert.deepEqual([clientIn(dir).dialect, clientIn(dir).dialectChoice.chosenBy], ['opentofu', 'lock_file']);
    fs.writeFileSync(path.join(dir, LOCK_FILE), 'provider "registry.terraform.io/hashicorp/aws" {\n}\n');
    assert.deepEqual(choice(clientIn(dir)), {
      name: 'terraform',
      chosenBy: 'lock_file',
      why: `every provider of the lock file ${lockFile} is from registry.terraform.io`,
    });
  });

  test('TFDISCO_DIALECT in the env option: chosen by variable, before the lock file', () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, LOCK_FILE), TOFU_HEADER);
    const c = clientIn(dir, { env: choiceEnv({ TFDISCO_DIALECT: 'terraform' }) });
    assert.deepEqual(choice(c), { name: 'terraform', chosenBy: 'variable', why: 'TFDISCO_DIALECT names it' });
    assert.equal(clientIn(dir, { env: choiceEnv({ TFDISCO_DIALECT: 'Tofu' }) }).dialect, 'opentofu');
    // Empty is unset.
    assert.equal(clientIn(dir, { env: choiceEnv({ TFDISCO_DIALECT: '' }) }).dialectChoice.chosenBy, 'lock_file');
  });

  test('a TFDISCO_DIALECT that names no dialect: InvalidOptionError, as a bad dialect option', () => {
    const dir = folder();
    const refused = (options) =>
      assert.throws(
        () => clientIn(dir, options),
        (e) => e instanceof InvalidOptionError && e.kind === 'invalid_option' && e instanceof tfdisco.TfdiscoError,
      );
    refused({ env: choiceEnv({ TFDISCO_DIALECT: 'terraformish' }) });
    assert.throws(() => clientIn(dir, { env: choiceEnv({ TFDISCO_DIALECT: 'terraformish' }) }), {
      message: 'TFDISCO_DIALECT: unknown dialect "terraformish" (expected "opentofu", "tofu" or "terraform", in any case)',
    });
    refused({ dialect: 'pulumi' });
    // A dialect given does not read the variable.
    assert.equal(clientIn(dir, { dialect: 'terraform', env: choiceEnv({ TFDISCO_DIALECT: 'x' }) }).dialect, 'terraform');
  });

  test('a .tofu file in the folder: opentofu, chosen by tofu_file, before the PATH', () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, 'main.tofu'), '');
    fs.writeFileSync(path.join(dir, 'main.tf'), '');
    const c = clientIn(dir, { env: choiceEnv({ PATH: binWith('terraform') }) });
    assert.deepEqual(choice(c), {
      name: 'opentofu',
      chosenBy: 'tofu_file',
      why: `${path.join(dir, 'main.tofu')} is an OpenTofu file`,
    });
  });

  test('only one of terraform and tofu on the PATH: chosen by program; both or neither: the default', () => {
    const dir = folder();
    const terraform = binWith('terraform');
    assert.deepEqual(choice(clientIn(dir, { env: choiceEnv({ PATH: terraform }) })), {
      name: 'terraform',
      chosenBy: 'program',
      why: `${path.join(terraform, 'terraform')} is on the PATH, and tofu is not`,
    });
    const tofu = binWith('tofu');
    assert.deepEqual([clientIn(dir, { env: choiceEnv({ PATH: `${binWith()}:${tofu}` }) }).dialect], ['opentofu']);
    const both = clientIn(dir, { env: choiceEnv({ PATH: `${terraform}:${tofu}` }) });
    assert.deepEqual([both.dialect, both.dialectChoice.chosenBy], ['opentofu', 'default']);
    const neither = clientIn(dir);
    assert.deepEqual([neither.dialect, neither.dialectChoice.chosenBy], ['opentofu', 'default']);
    assert.match(neither.dialectChoice.why, /^nothing tells otherwise/);
    // No PATH at all in the env: no program.
    assert.equal(clientIn(dir, { env: { HOME: folder() } }).dialectChoice.chosenBy, 'default');
  });

  test('a dialect given is given, whatever the folder says', () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, LOCK_FILE), TERRAFORM_HEADER);
    for (const [given, name] of [['tofu', 'opentofu'], ['OpenTofu', 'opentofu'], ['terraform', 'terraform']]) {
      const c = clientIn(dir, { dialect: given });
      assert.deepEqual(choice(c), { name, chosenBy: 'given', why: 'given' });
    }
    // undefined and null are no dialect.
    assert.equal(clientIn(dir, { dialect: undefined }).dialectChoice.chosenBy, 'lock_file');
    assert.equal(clientIn(dir, { dialect: null }).dialectChoice.chosenBy, 'lock_file');
  });

  test("without env, the process's environment", () => {
    const dir = folder();
    const saved = { ...process.env };
    try {
      process.env.TFDISCO_DIALECT = 'terraform';
      const c = inFolder(dir, () => new Client({ credentials: null, cliConfig: false }));
      assert.deepEqual(choice(c), { name: 'terraform', chosenBy: 'variable', why: 'TFDISCO_DIALECT names it' });
      delete process.env.TFDISCO_DIALECT;
      process.env.PATH = binWith('tofu');
      const tofu = inFolder(dir, () => new Client({ credentials: null, cliConfig: false }));
      assert.deepEqual([tofu.dialect, tofu.dialectChoice.chosenBy], ['opentofu', 'program']);
      process.env.TFDISCO_DIALECT = 'nothing';
      assert.throws(() => inFolder(dir, () => new Client({ credentials: null, cliConfig: false })), InvalidOptionError);
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });

  test('the folder is read once, when the client is made', () => {
    const terraformDir = folder();
    fs.writeFileSync(path.join(terraformDir, LOCK_FILE), TERRAFORM_HEADER);
    const tofuDir = folder();
    fs.writeFileSync(path.join(tofuDir, 'main.tofu'), '');
    const c = clientIn(terraformDir);
    inFolder(tofuDir, () => {
      assert.equal(c.dialect, 'terraform');
      assert.equal(c.dialectChoice.why, `the lock file ${path.join(terraformDir, LOCK_FILE)} was written by terraform init`);
    });
  });
});

describe('the reports carry the choice', () => {
  let served;
  before(async () => {
    served = await Served.start(REGISTRY);
  });
  after(() => served.stop());

  /** A lock golden's `input/` in a new folder, `{HOST}` replaced. */
  function prepare(name) {
    const dir = folder('tfdisco-dialect-lock-');
    const from = path.join(GOLDENS, name, 'input');
    for (const file of fs.readdirSync(from)) {
      fs.writeFileSync(path.join(dir, file), fs.readFileSync(path.join(from, file), 'utf8').replaceAll('{HOST}', served.host));
    }
    return dir;
  }
  const expected = (name) => fs.readFileSync(path.join(GOLDENS, name, 'terraform.lock.hcl'), 'utf8').replaceAll('{HOST}', served.host);

  test('lock golden add-platform: a client made in its folder follows its lock file, as Terraform locks it', async () => {
    const dir = prepare('add-platform');
    const c = clientIn(dir, { caFiles: [served.ca] });

    const report = await c.lock(dir, { platforms: ['darwin_arm64'] });

    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), expected('add-platform'));
    // Terraform's word for the test key's signature (OpenTofu's is 'signed').
    assert.deepEqual([...new Set(report.providers.map((p) => p.trust))], ['self-signed']);
    const why = `the lock file ${path.join(dir, LOCK_FILE)} was written by terraform init`;
    assert.deepEqual(report.dialect, { name: 'terraform', chosenBy: 'lock_file', why });
    const document = JSON.parse(JSON.stringify(report));
    assert.deepEqual(Object.keys(document), ['lock_file', 'changed', 'platforms', 'providers', 'dialect']);
    assert.deepEqual(document.dialect, { name: 'terraform', chosen_by: 'lock_file', why });

    // The mirror of the same folder says the same.
    const mirrored = await c.mirror(dir, path.join(folder(), 'mirror'), { platforms: ['linux_amd64'] });
    assert.deepEqual(mirrored.dialect, report.dialect);
    assert.equal(JSON.parse(JSON.stringify(mirrored)).dialect.chosen_by, 'lock_file');

    // Given: 'given', whatever the folder.
    const given = await clientIn(dir, { caFiles: [served.ca], dialect: 'terraform' }).lock(dir, { platforms: ['darwin_arm64'] });
    assert.equal(given.changed, false);
    assert.deepEqual(JSON.parse(JSON.stringify(given)).dialect, { name: 'terraform', chosen_by: 'given', why: 'given' });
  });

  test('install golden upgrade: a client made in its folder follows its lock file, as terraform init installed', async (t) => {
    const g = await Golden.start('upgrade');
    t.after(() => g.stop());
    assert.match(g.lockBefore, /^# This file is maintained automatically by "terraform init"\./);
    // The case's environment with a PATH of no CLI.
    const c = clientIn(g.dir, { caFiles: [g.ca], env: { ...g.env, PATH: binWith() } });
    assert.equal(c.dialect, 'terraform');

    const report = await c.install(g.dir, { upgrade: g.upgrade });

    await g.check(0);
    const why = `the lock file ${path.join(fs.realpathSync(g.dir), LOCK_FILE)} was written by terraform init`;
    assert.deepEqual(report.dialect, { name: 'terraform', chosenBy: 'lock_file', why });
    const document = JSON.parse(JSON.stringify(report));
    assert.deepEqual(Object.keys(document), ['lock_file', 'changed', 'platform', 'providers', 'warnings', 'dialect', 'modules']);
    assert.deepEqual(document.dialect, { name: 'terraform', chosen_by: 'lock_file', why });
  });
});
