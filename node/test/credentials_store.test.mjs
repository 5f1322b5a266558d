// Saving and removing a token as `terraform login` / `logout` do:
// `storeCredentials` and `forgetCredentials`, on temporary home folders
// given through `env` (and a child process's own HOME):
// `credentials.tfrc.json` byte for byte (sorted keys, two-space indent, no
// final newline), mode 0600 in a 0700 folder, the other hosts kept,
// TF_CLI_CONFIG_FILE, a credentials_helper, a host configured in another CLI
// configuration file refused with `CredentialsUnwritableError`, and the
// token in no message (docs/behaviour.md, CRED-7, CRED-8).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { NODE_DIR, tempDir } from './helpers/env.mjs';

const { storeCredentials, forgetCredentials, CredentialsError, CredentialsUnwritableError, Hostname } = tfdisco;
const FILE = path.join('.terraform.d', 'credentials.tfrc.json');
const SECRET = 's3cret-token-value';

function home() {
  return tempDir('tfdisco-store-');
}

function envFor(dir, extra = {}) {
  return { HOME: dir, PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra };
}

const mode = (p) => fs.statSync(p).mode & 0o777;

test('store writes the file as terraform login does; forget keeps the other hosts', () => {
  const dir = home();
  const env = envFor(dir);
  const file = path.join(dir, FILE);
  const where = storeCredentials('App.Example.COM:443', 'tok-a', { dialect: 'terraform', env });
  assert.equal(where, `credentials file ${file}`);
  assert.equal(fs.readFileSync(file, 'utf8'), '{\n  "credentials": {\n    "app.example.com": {\n      "token": "tok-a"\n    }\n  }\n}');
  assert.equal(mode(file), 0o600);
  assert.equal(mode(path.dirname(file)), 0o700);

  storeCredentials(new Hostname('b.example.com'), 'tok-b', { dialect: 'terraform', env });
  storeCredentials('app.example.com', 'tok-a2', { dialect: 'terraform', env });
  assert.equal(
    fs.readFileSync(file, 'utf8'),
    '{\n  "credentials": {\n    "app.example.com": {\n      "token": "tok-a2"\n    },\n    "b.example.com": {\n      "token": "tok-b"\n    }\n  }\n}',
  );
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['credentials.tfrc.json'], 'no temporary file left');

  assert.equal(forgetCredentials('APP.example.com', { dialect: 'terraform', env }), where);
  assert.equal(fs.readFileSync(file, 'utf8'), '{\n  "credentials": {\n    "b.example.com": {\n      "token": "tok-b"\n    }\n  }\n}');
  assert.equal(mode(file), 0o600);
  forgetCredentials('app.example.com', { dialect: 'terraform', env }); // nothing there: no error
});

test('a client of the same configuration then finds the token there', async () => {
  const dir = home();
  const env = envFor(dir);
  storeCredentials('app.example.com', 'tok', { env });
  const client = new tfdisco.Client({ env });
  assert.equal(await client.credentialsSource('app.example.com'), `credentials file ${path.join(dir, FILE)}`);
});

test('a host in another CLI configuration file is refused, with no token in the error', () => {
  const dir = home();
  const rc = path.join(dir, '.terraformrc');
  fs.writeFileSync(rc, 'credentials "app.example.com" {\n  token = "hand-written"\n}\n');
  const env = envFor(dir);
  for (const call of [
    () => storeCredentials('app.example.com', SECRET, { dialect: 'terraform', env }),
    () => forgetCredentials('app.example.com', { dialect: 'terraform', env }),
  ]) {
    assert.throws(call, (error) => {
      assert.ok(error instanceof CredentialsUnwritableError);
      assert.ok(error instanceof CredentialsError);
      assert.equal(error.kind, 'credentials_unwritable');
      assert.equal(error.name, 'CredentialsUnwritableError');
      assert.equal(
        error.message,
        'cannot change credentials for app.example.com: existing manually-configured credentials in a CLI config file',
      );
      assert.ok(!util.inspect(error).includes(SECRET));
      return true;
    });
  }
  assert.ok(!fs.existsSync(path.join(dir, FILE)));
  assert.match(fs.readFileSync(rc, 'utf8'), /hand-written/);
  assert.equal(tfdisco.ERROR_CLASSES.credentials_unwritable, CredentialsUnwritableError);
});

test('TF_CLI_CONFIG_FILE: its blocks are refused, other hosts still go to credentials.tfrc.json', () => {
  const dir = home();
  const config = path.join(dir, 'override.tfrc');
  fs.writeFileSync(config, 'credentials "app.example.com" { token = "t" }\n');
  const env = envFor(dir, { TF_CLI_CONFIG_FILE: config });
  assert.throws(() => storeCredentials('app.example.com', SECRET, { dialect: 'terraform', env }), CredentialsUnwritableError);
  assert.equal(storeCredentials('b.example.com', 'b', { dialect: 'terraform', env }), `credentials file ${path.join(dir, FILE)}`);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, FILE), 'utf8')), { credentials: { 'b.example.com': { token: 'b' } } });
});

/** The credentials helper `log`, appending its arguments and input to `log`. */
function helper(dir, log, fail = false) {
  const plugins = path.join(dir, '.terraform.d', 'plugins');
  fs.mkdirSync(plugins, { recursive: true });
  const program = path.join(plugins, 'terraform-credentials-log');
  const body = fail
    ? "echo 'helper says no' >&2\nexit 1\n"
    : `printf "%s %s " "$1" "$2" >> ${log}\ncat >> ${log}\necho >> ${log}\n`;
  fs.writeFileSync(program, `#!/bin/sh\n${body}`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, '.terraformrc'), 'credentials_helper "log" {}\n');
  return program;
}

test('a credentials helper takes the store and the forget', () => {
  const dir = home();
  const log = path.join(dir, 'helper.log');
  const program = helper(dir, log);
  const env = envFor(dir);
  const where = storeCredentials('App.example.com', 'tok', { dialect: 'terraform', env });
  assert.equal(where, `credentials helper "log" (${program})`);
  assert.equal(forgetCredentials('app.example.com', { dialect: 'terraform', env }), where);
  assert.equal(fs.readFileSync(log, 'utf8'), 'store app.example.com {"token":"tok"}\nforget app.example.com \n');
  assert.ok(!fs.existsSync(path.join(dir, FILE)));
});

test('the token is in no error; bad arguments', () => {
  const dir = home();
  helper(dir, path.join(dir, 'log'), true);
  const env = envFor(dir);
  assert.throws(
    () => storeCredentials('app.example.com', SECRET, { dialect: 'terraform', env }),
    (error) => {
      assert.equal(error.constructor, CredentialsError);
      assert.match(error.message, /helper says no/);
      assert.ok(!util.inspect(error).includes(SECRET));
      return true;
    },
  );
  assert.throws(
    () => storeCredentials('app.example.com', `${SECRET}\n`, { env }),
    (error) => error instanceof tfdisco.InvalidArgumentError && !util.inspect(error).includes(SECRET),
  );
  assert.throws(() => storeCredentials('not a host', SECRET, { env }), tfdisco.InvalidHostnameError);
  assert.throws(() => storeCredentials('app.example.com', 42, { env }), TypeError);
  assert.throws(() => storeCredentials('app.example.com', 't', { env, tokenFile: 'x' }), TypeError);
  assert.throws(() => storeCredentials('app.example.com', 't', { dialect: 'pulumi', env }), tfdisco.InvalidOptionError);
  assert.throws(() => storeCredentials('app.example.com', SECRET, { env: {} }), (error) => {
    assert.ok(error instanceof CredentialsError);
    assert.equal(error.message, 'no credentials store is available');
    return true;
  });
});

test('the process environment by default: a child process with its own HOME', () => {
  const dir = home();
  const code = `
    const t = require(${JSON.stringify(NODE_DIR)});
    console.log(t.storeCredentials('app.example.com', 'child', { dialect: 'terraform' }));
    console.log(t.forgetCredentials('other.example.com', { dialect: 'terraform' }));
  `;
  const env = { ...process.env, HOME: dir };
  delete env.TF_CLI_CONFIG_FILE;
  const child = spawnSync(process.execPath, ['-e', code], { env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  const file = path.join(dir, FILE);
  assert.deepEqual(child.stdout.trim().split('\n'), [`credentials file ${file}`, `credentials file ${file}`]);
  assert.equal(fs.readFileSync(file, 'utf8'), '{\n  "credentials": {\n    "app.example.com": {\n      "token": "child"\n    }\n  }\n}');
});
