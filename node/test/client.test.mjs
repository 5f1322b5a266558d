// The client against real loopback HTTPS servers: `tfdisco-dev serve` and a
// recording server of the tests' own. Discovery, the cache, every error
// kind a discovery can end in, credentials, options, and many hosts at once.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import util from 'node:util';

import * as tfdisco from '../index.mjs';
import { NODE_DIR, hermeticEnv, tempDir } from './helpers/env.mjs';
import { Recorder, WELL_KNOWN, reply } from './helpers/recorder.mjs';
import { SAMPLE, Served } from './helpers/serve.mjs';

const { Client, Hostname, Services } = tfdisco;
const TOKEN = 'sekret-token-4711';
const PENDING = Symbol('pending');

/** Whether `promise` has already settled (its value, or PENDING). */
async function settledValue(promise) {
  return Promise.race([promise, Promise.resolve(PENDING)]);
}

/** The error `promise` rejects with. */
async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('the promise was fulfilled');
}

/** A loopback port nothing listens on. */
async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let served;
let recorder;

before(async () => {
  served = await Served.start();
  recorder = await Recorder.start();
});

after(async () => {
  served.stop();
  await recorder.stop();
});

/** A client trusting both test servers, with a hermetic environment. */
function client(options = {}) {
  return new Client({ caFiles: [served.ca, recorder.ca], env: hermeticEnv(), ...options });
}

/** Resets the recorder to its default routes and an empty log. */
function fresh() {
  recorder.release();
  recorder.routes = new Map([[WELL_KNOWN, reply()]]);
  recorder.seen = [];
  recorder.released = false;
}

describe('discovery', () => {
  test('discover gives Services', async () => {
    const c = client();
    const services = await c.discover(served.host);
    assert.ok(services instanceof Services);
    assert.ok(services.hostname instanceof Hostname);
    assert.equal(String(services.hostname), served.host);
    assert.equal(services.discoveryUrl, `https://localhost:${served.port}${WELL_KNOWN}`);
    assert.equal(services.dialect, 'opentofu');
    assert.equal(services.isForced, false);
    assert.equal(services.hasDocument, true);
    assert.equal(services.size, 3);
    assert.deepEqual(services.ids(), ['modules.v1', 'providers.v1', 'login.v1']);
    assert.deepEqual([...services.keys()], services.ids());
    assert.ok(services.has('login.v1') && !services.has('nope.v1') && !services.has(42));
    assert.deepEqual(services.get('login.v1'), SAMPLE['login.v1']);
    assert.equal(services.get('modules.v1'), '/api/modules/v1/');
    assert.equal(services.get('nope.v1'), undefined);
    // Values are parsed afresh: changing one changes nothing.
    services.get('login.v1').client = 'changed';
    assert.equal(services.get('login.v1').client, 'tfdisco-dev');
    assert.deepEqual(Object.fromEntries(services), SAMPLE);
    assert.deepEqual([...services.values()], Object.values(SAMPLE));
    const seen = [];
    services.forEach((value, id, s) => seen.push([id, value, s === services]));
    assert.deepEqual(seen.map((e) => e[0]), services.ids());
    assert.ok(seen.every((e) => e[2]));

    assert.equal(services.serviceUrl('modules.v1'), `https://localhost:${served.port}/api/modules/v1/`);
    assert.equal(services.serviceUrl('providers.v1'), 'https://providers.example.com/v1/');
    assert.deepEqual(services.oauthClient('login.v1'), {
      clientId: 'tfdisco-dev',
      authorizationUrl: `https://localhost:${served.port}/oauth/authorization`,
      tokenUrl: `https://localhost:${served.port}/oauth/token`,
      minPort: 10000,
      maxPort: 10010,
      grantTypes: ['authz_code'],
      scopes: [],
    });
    assert.deepEqual(services.resolve('login.v1'), services.oauthClient('login.v1'));
    assert.equal(services.resolve('modules.v1'), services.serviceUrl('modules.v1'));

    // The library's document, as `tfdisco discover --json` prints it.
    const json = JSON.parse(JSON.stringify(services));
    assert.deepEqual(Object.keys(json), ['hostname', 'display', 'discovery_url', 'services', 'resolved']);
    assert.equal(json.hostname, served.host);
    assert.equal(json.discovery_url, services.discoveryUrl);
    assert.deepEqual(json.services, SAMPLE);
    assert.equal(json.resolved['modules.v1'], services.serviceUrl('modules.v1'));
    assert.match(util.inspect(services), /^Services\(localhost:\d+\) \{\n {2}discoveryUrl: 'https:\/\/localhost/);
    assert.equal(Object.prototype.toString.call(services), '[object Services]');
    assert.throws(() => services.serviceUrl(1), TypeError);
  });

  test('serviceUrl and oauthClient of the client', async () => {
    const c = client({ dialect: 'terraform' });
    assert.equal(c.dialect, 'terraform');
    assert.equal(await c.serviceUrl(served.host, 'modules.v1'), `https://localhost:${served.port}/api/modules/v1/`);
    const oauth = await c.oauthClient(new Hostname(served.host), 'login.v1');
    assert.equal(oauth.clientId, 'tfdisco-dev');
    assert.equal((await c.discover(served.host)).dialect, 'terraform');
  });

  test('a cached host is answered by a promise already settled', async () => {
    fresh();
    const c = client();
    const first = c.discover(recorder.host);
    assert.equal(await settledValue(first), PENDING, 'the first discovery goes out');
    await first;
    const again = c.discover(recorder.host);
    const value = await settledValue(again);
    assert.ok(value instanceof Services, 'settled before any I/O');
    assert.equal(await settledValue(c.serviceUrl(recorder.host, 'modules.v1')), `https://${recorder.host}/modules/`);
    assert.equal(recorder.seen.length, 1);
    // An error from a cached document settles at once too.
    const failed = c.serviceUrl(recorder.host, 'providers.v1');
    await assert.rejects(settledValue(failed), tfdisco.ServiceNotProvidedError);

    c.forget(recorder.host);
    await c.discover(recorder.host);
    assert.equal(recorder.seen.length, 2);
    c.forgetAll();
    await c.discover(new Hostname(recorder.host));
    assert.equal(recorder.seen.length, 3);
    assert.throws(() => c.forget('a..b'), tfdisco.InvalidHostnameError);
  });

  test('concurrent discoveries of one host share one request', async () => {
    fresh();
    recorder.routes.set(WELL_KNOWN, reply(undefined, { hold: true }));
    const c = client();
    const calls = Promise.all(Array.from({ length: 20 }, () => c.discover(recorder.host)));
    // The discovery reached the server, which holds its answer while the
    // 20 calls wait for it.
    await recorder.arrived(1);
    recorder.release();
    const all = await calls;
    assert.equal(all.length, 20);
    assert.equal(recorder.seen.length, 1);
  });

  test('Promise.all over 100 hosts: one request per host', async () => {
    fresh();
    const hosts = Array.from({ length: 100 }, (_, i) => `h${i}.tfdisco.test:${recorder.port}`);
    const resolve = Object.fromEntries(hosts.map((h) => [h, '127.0.0.1']));
    const c = client({ resolve });
    // Three calls per host, interleaved, all at once.
    const calls = [...hosts, ...hosts, ...hosts].map((h) => c.serviceUrl(h, 'modules.v1'));
    const urls = await Promise.all(calls);
    assert.deepEqual(urls.slice(0, 100), hosts.map((h) => `https://${h}/modules/`));
    assert.deepEqual(urls.slice(100, 200), urls.slice(0, 100));
    const perHost = new Map();
    for (const { host, path: p } of recorder.seen) {
      assert.equal(p, WELL_KNOWN);
      perHost.set(host, (perHost.get(host) ?? 0) + 1);
    }
    assert.equal(perHost.size, 100);
    assert.deepEqual([...perHost.values()].filter((n) => n !== 1), []);
    assert.deepEqual([...perHost.keys()].sort(), [...hosts].sort());
  });

  test('a host block of the CLI configuration replaces discovery', async () => {
    const env = hermeticEnv();
    fs.writeFileSync(
      path.join(env.HOME, '.tofurc'),
      'host "forced.example.com" {\n  services = {\n    "modules.v1" = "https://modules.example.net/v1/"\n  }\n}\n',
    );
    const c = new Client({ env });
    const forced = await settledValue(c.discover('forced.example.com'));
    assert.ok(forced instanceof Services);
    assert.equal(forced.isForced, true);
    assert.equal(forced.serviceUrl('modules.v1'), 'https://modules.example.net/v1/');
  });
});

describe('every error kind of a discovery', () => {
  /** The error the discovery of the recorder ends in, with `doc` served. */
  async function failure(answer, options = {}, call = (c) => c.discover(recorder.host)) {
    fresh();
    if (answer !== undefined) recorder.routes.set(WELL_KNOWN, answer);
    return rejection(call(client(options)));
  }

  test('invalid_hostname', async () => {
    const error = await rejection(client().discover('a..b'));
    assert.ok(error instanceof tfdisco.InvalidHostnameError);
    assert.equal(error.kind, 'invalid_hostname');
  });

  test('tls: a CA the client does not trust', async () => {
    const error = await rejection(new Client({ env: hermeticEnv() }).discover(served.host));
    assert.ok(error instanceof tfdisco.TlsError, String(error));
    assert.equal(error.kind, 'tls');
    assert.match(error.message, /UnknownIssuer/);
    assert.equal(error.url, `https://localhost:${served.port}${WELL_KNOWN}`);
  });

  test('network: nothing listens', async () => {
    const port = await freePort();
    const error = await rejection(client().discover(`localhost:${port}`));
    assert.ok(error instanceof tfdisco.NetworkError, String(error));
    assert.equal(error.kind, 'network');
  });

  test('timeout', async () => {
    // The server holds its answer: only the 0.3 s deadline ends the call.
    const error = await failure(reply(undefined, { hold: true }), { timeout: 0.3 });
    assert.ok(error instanceof tfdisco.TimeoutError, String(error));
    assert.equal(error.kind, 'timeout');
  });

  test('status', async () => {
    const error = await failure(reply('{}', { status: 500 }));
    assert.ok(error instanceof tfdisco.StatusError, String(error));
    assert.equal(error.status, 500);
    assert.equal(error.url, `https://${recorder.host}${WELL_KNOWN}`);
  });

  test('content_type', async () => {
    const error = await failure(reply('{}', { headers: { 'Content-Type': 'text/html' } }));
    assert.ok(error instanceof tfdisco.ContentTypeError, String(error));
  });

  test('content_encoding', async () => {
    const error = await failure(reply('{}', { headers: { 'Content-Encoding': 'br' } }));
    assert.ok(error instanceof tfdisco.ContentEncodingError, String(error));
  });

  test('too_large', async () => {
    const error = await failure(undefined, { bodyLimit: 10 });
    assert.ok(error instanceof tfdisco.TooLargeError, String(error));
  });

  test('json', async () => {
    const error = await failure(reply('{"modules.v1": '));
    assert.ok(error instanceof tfdisco.JsonError, String(error));
  });

  test('redirect', async () => {
    const error = await failure(reply('', { status: 302 }));
    assert.ok(error instanceof tfdisco.RedirectError, String(error));
  });

  test('invalid_service_id, service_not_provided, version_not_supported', async () => {
    const id = await failure(undefined, {}, (c) => c.serviceUrl(recorder.host, 'modules'));
    assert.ok(id instanceof tfdisco.InvalidServiceIdError, String(id));
    const missing = await failure(undefined, {}, (c) => c.serviceUrl(recorder.host, 'providers.v1'));
    assert.ok(missing instanceof tfdisco.ServiceNotProvidedError, String(missing));
    const version = await failure(undefined, {}, (c) => c.serviceUrl(recorder.host, 'modules.v2'));
    assert.ok(version instanceof tfdisco.VersionNotSupportedError, String(version));
  });

  test('invalid_service_url and invalid_oauth_client', async () => {
    const doc = reply('{"modules.v1": "ftp://example.com/", "login.v1": {"client": "x", "grant_types": ["authz_code"]}}');
    const url = await failure(doc, {}, (c) => c.serviceUrl(recorder.host, 'modules.v1'));
    assert.ok(url instanceof tfdisco.InvalidServiceUrlError, String(url));
    const oauth = await failure(doc, {}, (c) => c.oauthClient(recorder.host, 'login.v1'));
    assert.ok(oauth instanceof tfdisco.InvalidOAuthClientError, String(oauth));
  });

  test('retries: the dialect decides, the option overrides', async () => {
    fresh();
    let calls = 0;
    recorder.routes.set(WELL_KNOWN, () => (++calls < 3 ? reply('{}', { status: 503 }) : reply()));
    await client({ retries: 2 }).discover(recorder.host);
    assert.equal(calls, 3);
  });
});

describe('credentials', () => {
  test('TF_TOKEN_* from the env option', async () => {
    fresh();
    const env = hermeticEnv({ [`TF_TOKEN_localhost:${recorder.port}`]: TOKEN, TF_APPEND_USER_AGENT: 'my-tool/1.0' });
    const c = new Client({ caFiles: [recorder.ca], env });
    assert.equal(await c.credentialsSource(recorder.host), `environment variable TF_TOKEN_localhost:${recorder.port}`);
    assert.equal(await c.credentialsSource('other.example.com'), null);
    await c.discover(recorder.host);
    assert.deepEqual(recorder.authorizations(), [`Bearer ${TOKEN}`]);
    assert.equal(recorder.seen[0].headers['user-agent'], 'OpenTofu/1.12.6 my-tool/1.0');
    assert.ok(!util.inspect(c).includes(TOKEN));
  });

  test('TF_TOKEN_* from the process environment, in a child process', async () => {
    fresh();
    const env = hermeticEnv({ [`TF_TOKEN_localhost:${recorder.port}`]: TOKEN });
    const code = `
      import { Client } from ${JSON.stringify(path.join(NODE_DIR, 'index.mjs'))};
      const c = new Client({ caFiles: [${JSON.stringify(recorder.ca)}] });
      const s = await c.discover('localhost:${recorder.port}');
      console.log(s.serviceUrl('modules.v1'));
      console.log(await c.credentialsSource('localhost:${recorder.port}'));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], { env });
    assert.deepEqual(stdout.trim().split('\n'), [
      `https://localhost:${recorder.port}/modules/`,
      `environment variable TF_TOKEN_localhost:${recorder.port}`,
    ]);
    assert.deepEqual(recorder.authorizations(), [`Bearer ${TOKEN}`]);
  });

  test('a credentials block in the CLI config file; each dialect its own file', async () => {
    fresh();
    const env = hermeticEnv();
    const rc = path.join(env.HOME, '.tofurc');
    fs.writeFileSync(rc, `credentials "localhost:${recorder.port}" {\n  token = "${TOKEN}"\n}\n`);
    const c = new Client({ caFiles: [recorder.ca], env });
    assert.equal(await c.credentialsSource(recorder.host), `credentials block in ${rc}`);
    await c.discover(recorder.host);
    assert.deepEqual(recorder.authorizations(), [`Bearer ${TOKEN}`]);
    // Terraform reads ~/.terraformrc, not ~/.tofurc.
    const terraform = new Client({ caFiles: [recorder.ca], env, dialect: 'terraform' });
    assert.equal(await terraform.credentialsSource(recorder.host), null);
  });

  test('TF_CLI_CONFIG_FILE names the file', async () => {
    fresh();
    const file = path.join(tempDir(), 'custom.tfrc');
    fs.writeFileSync(file, JSON.stringify({ credentials: { [`localhost:${recorder.port}`]: { token: TOKEN } } }));
    const c = new Client({ caFiles: [recorder.ca], env: hermeticEnv({ TF_CLI_CONFIG_FILE: file }), dialect: 'terraform' });
    await c.serviceUrl(recorder.host, 'modules.v1');
    assert.deepEqual(recorder.authorizations(), [`Bearer ${TOKEN}`]);
  });

  test('fixed tokens, and none', async () => {
    fresh();
    const env = hermeticEnv({ [`TF_TOKEN_localhost:${recorder.port}`]: 'from-env' });
    const fixed = new Client({ caFiles: [recorder.ca], env, credentials: { [recorder.host]: TOKEN } });
    assert.equal(await fixed.credentialsSource(recorder.host), 'credentials given to the Client');
    await fixed.discover(recorder.host);
    const none = new Client({ caFiles: [recorder.ca], env, credentials: null });
    assert.equal(await none.credentialsSource(recorder.host), null);
    await none.discover(recorder.host);
    assert.deepEqual(recorder.authorizations(), [`Bearer ${TOKEN}`, undefined]);
    assert.equal(
      util.inspect(fixed, { breakLength: Infinity }),
      `Client { dialect: 'opentofu', timeout: 11, credentials: { '${recorder.host}': '***' } }`,
    );
    assert.equal(util.inspect(none, { breakLength: Infinity }), "Client { dialect: 'opentofu', timeout: 11, credentials: null }");
  });

  test('a failing credentials helper: CredentialsError, and discovery goes without', async () => {
    fresh();
    const env = hermeticEnv();
    const plugins = path.join(env.HOME, '.terraform.d', 'plugins');
    fs.mkdirSync(plugins, { recursive: true });
    const helper = path.join(plugins, 'terraform-credentials-failing');
    fs.writeFileSync(helper, '#!/bin/sh\necho "helper failed" >&2\nexit 1\n', { mode: 0o755 });
    fs.writeFileSync(path.join(env.HOME, '.tofurc'), 'credentials_helper "failing" {}\n');
    const c = new Client({ caFiles: [recorder.ca], env });
    const error = await rejection(c.credentialsSource(recorder.host));
    assert.ok(error instanceof tfdisco.CredentialsError, String(error));
    assert.equal(error.kind, 'credentials');
    await c.discover(recorder.host);
    assert.deepEqual(recorder.authorizations(), [undefined]);
  });

  test('no token in any message or inspection', async () => {
    const port = await freePort();
    const env = hermeticEnv({ [`TF_TOKEN_localhost:${port}`]: TOKEN });
    const c = new Client({ env, credentials: { [`localhost:${port}`]: TOKEN } });
    const error = await rejection(c.discover(`localhost:${port}`));
    assert.ok(error instanceof tfdisco.NetworkError);
    for (const text of [error.message, error.stack, util.inspect(error), util.inspect(c), JSON.stringify(error)]) {
      assert.ok(!text.includes(TOKEN), text);
    }
    // A token that cannot be sent is refused without showing it.
    let bad;
    try {
      new Client({ env, credentials: { 'example.com': 'bad\ntoken' } });
    } catch (e) {
      bad = e;
    }
    assert.ok(bad instanceof tfdisco.InvalidOptionError, String(bad));
    assert.ok(bad.message.includes('example.com') && !bad.message.includes('bad\ntoken'));
    assert.throws(
      () => new Client({ env, credentials: { 'example.com': 4711 } }),
      (e) => e instanceof TypeError && !e.message.includes('4711'),
    );
  });
});

describe('options', () => {
  test('types, unknown options and unusable values', () => {
    const env = hermeticEnv();
    for (const options of [
      'terraform',
      { timeout: '5' },
      { caFiles: 'ca.pem' },
      { caFiles: [42] },
      { credentials: 42 },
      { credentials: ['x'] },
      { resolve: { 'a.test:443': 1 } },
      { env: { HOME: 1 } },
      { cliConfig: 'no' },
      { retries: '1' },
    ]) {
      assert.throws(() => new Client(options), TypeError, JSON.stringify(options));
    }
    assert.throws(() => new Client({ timeoutMs: 5000 }), /no option "timeoutMs"/);
    for (const options of [
      { env, timeout: 0 },
      { env, timeout: -1 },
      { env, registryTimeout: Number.NaN },
      { env, retries: 1.5 },
      { env, retries: -1 },
      { env, bodyLimit: 0.5 },
      { env, dialect: 'pulumi' },
      { env, credentials: 'env' },
      { env, caFiles: ['/nonexistent/ca.pem'] },
      { env, resolve: { 'a.test': '127.0.0.1' } },
      { env, resolve: { 'a.test:443': 'localhost' } },
      { env, cliVersion: 'eleven' },
      { env, userAgent: 'bad\nagent' },
      { env, cliConfig: false },
    ]) {
      assert.throws(() => new Client(options), tfdisco.InvalidOptionError, JSON.stringify(options));
    }
    assert.throws(() => new Client({ env, insecureHttpHosts: ['a..b'] }), tfdisco.InvalidHostnameError);
    new Client({ env, cliConfig: false, credentials: null, systemRoots: false, insecureHttpHosts: [new Hostname('dev.test')] });
  });

  test('the CLI configuration: problems are warnings, and the User-Agent options', async () => {
    fresh();
    const env = hermeticEnv();
    fs.writeFileSync(path.join(env.HOME, '.tofurc'), 'oops\n');
    const warnings = [];
    const listener = (w) => warnings.push(w);
    process.on('warning', listener);
    const c = new Client({ caFiles: [recorder.ca], env, userAgent: 'custom/2.0' });
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', listener);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0].name, 'TfdiscoConfigWarning');
    assert.ok(warnings[0].message.startsWith(path.join(env.HOME, '.tofurc')), warnings[0].message);
    await c.discover(recorder.host);
    assert.equal(recorder.seen[0].headers['user-agent'], 'custom/2.0');
    fresh();
    await new Client({ caFiles: [recorder.ca], env: hermeticEnv(), dialect: 'terraform', cliVersion: '1.11.4' }).discover(
      recorder.host,
    );
    assert.match(recorder.seen[0].headers['user-agent'], /^HashiCorp Terraform\/1\.11\.4 /);
  });

  test('bad arguments reject, they do not throw', async () => {
    const c = client();
    for (const call of [() => c.discover(42), () => c.serviceUrl(served.host, 1), () => c.discover()]) {
      const error = await rejection(call());
      assert.ok(error instanceof TypeError);
    }
  });
});
