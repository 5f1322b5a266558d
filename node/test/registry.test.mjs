// The four registry calls against the sample registry `tfdisco-dev serve`
// serves next to its document (asked as 127.0.0.1:PORT: module registry
// hosts need a dot), compared with the `tfdisco` CLI's --json output for
// the same questions; and against the recording server for what the sample
// registry cannot show (404s, unusable answers, the Authorization header).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import * as tfdisco from '../index.mjs';
import { hermeticEnv, tfdiscoBin } from './helpers/env.mjs';
import { Recorder, WELL_KNOWN, reply } from './helpers/recorder.mjs';
import { REGISTRY, Served } from './helpers/serve.mjs';

const { Client } = tfdisco;
const TOKEN = 'registry-token-0815';

let served;
let recorder;

before(async () => {
  served = await Served.start(REGISTRY);
  recorder = await Recorder.start();
});

after(async () => {
  served.stop();
  await recorder.stop();
});

/** `snake_case` keys → `camelCase`, all the way down. */
function camel(value) {
  if (Array.isArray(value)) return value.map(camel);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), camel(v)]),
    );
  }
  return value;
}

/** What `tfdisco <args> --json` prints for the served registry. */
async function cli(...args) {
  const { stdout } = await promisify(execFile)(
    tfdiscoBin(),
    [...args, '--json', '--ca-file', served.ca, '--no-credentials', '--dialect', 'terraform'],
    { env: hermeticEnv() },
  );
  return JSON.parse(stdout);
}

function client(options = {}) {
  return new Client({ caFiles: [served.ca, recorder.ca], env: hermeticEnv(), dialect: 'terraform', credentials: null, ...options });
}

describe('the shapes of the CLI --json output, camelCase', () => {
  test('providerVersions', async () => {
    const source = `${served.registryHost}/hashicorp/random`;
    const answer = await client().providerVersions(source);
    assert.deepEqual(answer.warnings, []);
    assert.deepEqual(answer, camel(await cli('provider', 'versions', source)));
    assert.equal(answer.source, `${served.registryHost}/hashicorp/random`);
    assert.equal(answer.versionsUrl, `https://${served.registryHost}/v1/providers/hashicorp/random/versions`);
    assert.deepEqual(answer.versions.map((v) => v.version), ['3.5.1', '3.6.0']);
    assert.deepEqual(answer.versions[0].platforms[0], { os: 'linux', arch: 'amd64' });
  });

  test('providerPackage', async () => {
    const source = `${served.registryHost}/hashicorp/random`;
    const answer = await client().providerPackage(source, '3.6.0', 'linux_amd64');
    assert.deepEqual(answer, camel(await cli('provider', 'package', source, '3.6.0', 'linux_amd64')));
    assert.equal(answer.filename, 'terraform-provider-random_3.6.0_linux_amd64.zip');
    assert.match(answer.shasum, /^[0-9a-f]{64}$/);
    assert.deepEqual(Object.keys(answer.signingKeys[0]), ['keyId', 'asciiArmor', 'trustSignature', 'source', 'sourceUrl']);
  });

  test('moduleVersions', async () => {
    const source = `${served.registryHost}/hashicorp/consul/aws`;
    const answer = await client().moduleVersions(source);
    assert.deepEqual(answer, camel(await cli('module', 'versions', source)));
    assert.deepEqual(answer.versions, ['0.11.0', '0.12.0', '0.12.1']);
  });

  test('moduleDownload', async () => {
    const source = `${served.registryHost}/hashicorp/consul/aws`;
    const answer = await client().moduleDownload(source, '0.12.1');
    assert.equal(answer.useRegistryCredentials, null);
    assert.deepEqual(answer, camel(await cli('module', 'download', source, '0.12.1')));
    assert.equal(answer.location, 'git::https://github.com/hashicorp/terraform-aws-consul?ref=v0.12.1');
    assert.equal(answer.package.getter, 'git');
    assert.equal(answer.package.ref, 'v0.12.1');
    assert.equal(answer.moduleSubdir, '');
  });

  test('the source is parsed in the client dialect', async () => {
    // Without a hostname a source is on the dialect's default registry.
    const error = await client({ dialect: 'opentofu', resolve: { 'registry.opentofu.org:443': '127.0.0.1' } })
      .providerVersions('hashicorp/random')
      .catch((e) => e);
    assert.ok(error instanceof tfdisco.TfdiscoError);
    assert.ok(String(error.url).startsWith('https://registry.opentofu.org/'), String(error.url));
  });
});

describe('refused before any request', () => {
  test('bad sources, versions and platforms reject at once', async () => {
    const c = client();
    const host = served.registryHost;
    const before = (await served.requests()).length;
    await assert.rejects(c.providerVersions('aws'), tfdisco.InvalidSourceError);
    await assert.rejects(c.providerVersions('not a source!'), tfdisco.InvalidSourceError);
    await assert.rejects(c.providerPackage(`${host}/hashicorp/random`, 'v1', 'linux_amd64'), tfdisco.InvalidArgumentError);
    await assert.rejects(c.providerPackage(`${host}/hashicorp/random`, '3.6.0', 'linux'), tfdisco.InvalidArgumentError);
    await assert.rejects(c.moduleVersions('localhost:1/a/b'), tfdisco.InvalidSourceError);
    await assert.rejects(c.moduleDownload(`${host}/hashicorp/consul/aws`, 'latest'), tfdisco.InvalidArgumentError);
    await assert.rejects(c.providerVersions(42), TypeError);
    const error = await c.providerVersions('aws').catch((e) => e);
    assert.equal(error.kind, 'invalid_source');
    assert.equal((await served.requests()).length, before);
  });
});

describe('against the recording server', () => {
  const registryHost = () => `127.0.0.1:${recorder.port}`;

  function fresh(routes = {}) {
    recorder.routes = new Map([[WELL_KNOWN, reply('{"modules.v1": "/m/", "providers.v1": "/p/"}')]]);
    for (const [p, r] of Object.entries(routes)) recorder.routes.set(p, r);
    recorder.seen = [];
  }

  test('not_found: the registry answers 404', async () => {
    fresh();
    const error = await client().providerVersions(`${registryHost()}/acme/nothing`).catch((e) => e);
    assert.ok(error instanceof tfdisco.NotFoundError, String(error));
    assert.equal(error.kind, 'not_found');
    assert.equal(error.url, `https://${registryHost()}/p/acme/nothing/versions`);
  });

  test('invalid_response: a download without X-Terraform-Get', async () => {
    fresh({ '/m/acme/vpc/aws/1.0.0/download': reply('', { status: 204 }) });
    const error = await client().moduleDownload(`${registryHost()}/acme/vpc/aws`, '1.0.0').catch((e) => e);
    assert.ok(error instanceof tfdisco.InvalidResponseError, String(error));
  });

  test("the source host's token goes to the registry API", async () => {
    fresh({ '/m/acme/vpc/aws/versions': reply('{"modules": [{"versions": [{"version": "1.0.0"}]}]}') });
    const env = hermeticEnv({ [`TF_TOKEN_127.0.0.1:${recorder.port}`]: TOKEN });
    const c = new Client({ caFiles: [recorder.ca], env, dialect: 'terraform' });
    const answer = await c.moduleVersions(`${registryHost()}/acme/vpc/aws`);
    assert.deepEqual(answer.versions, ['1.0.0']);
    assert.deepEqual(
      recorder.seen.map((r) => [r.path, r.headers.authorization]),
      [
        [WELL_KNOWN, `Bearer ${TOKEN}`],
        ['/m/acme/vpc/aws/versions', `Bearer ${TOKEN}`],
      ],
    );
    assert.match(recorder.seen[1].headers['x-terraform-version'], /^\d+\.\d+\.\d+/);
  });
});
