// OCI registries as OpenTofu uses them (issue 27): `lock({ ociMirror })`,
// `moduleResolve(source)` and `moduleDownload(source, { into })` for
// `oci://` sources, against a real registry (`tfdisco serve --oci-registry
// MODE`: Debian's `docker-registry`, anonymous or with Basic credentials,
// holding a module package and the signed registry's providers as an OCI
// mirror), with the OCI credentials of the CLI configuration
// (`oci_credentials` blocks, TF_CLI_CONFIG_FILE in the client's `env`).
// What they give is what the `tfdisco` CLI prints with `--json` (the
// library's one serialization, camelCase keys); what they reject with is
// the library's error kinds, and never a secret.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { REPO, hermeticEnv, tempDir, tfdiscoBin } from './helpers/env.mjs';
import { OciServed } from './helpers/oci.mjs';

const {
  Client,
  InvalidArgumentError,
  InvalidResponseError,
  LocalFileError,
  LockError,
  NotFoundError,
  StatusError,
} = tfdisco;
const GOLDENS = path.join(REPO, 'transports', 'testkit', 'fixtures', 'lock-goldens');
const LOCK_FILE = '.terraform.lock.hcl';
const ALL = ['linux_amd64', 'darwin_arm64', 'windows_amd64'];
/** The providers' host in the configuration: never asked, the mirror has them. */
const PROVIDERS_HOST = 'registry.example.test';
const WRONG = 'not-the-oci-secret';

let anonymous;
let basic;
/** One hermetic environment (an empty home) for every client and CLI run. */
const ENV = hermeticEnv({ NO_COLOR: '1' });

before(async () => {
  [anonymous, basic] = await Promise.all([OciServed.start('anonymous'), OciServed.start('basic')]);
});

after(async () => {
  await Promise.all([anonymous?.stop(), basic?.stop()]);
});

function client(server, { config, ...options } = {}) {
  const env = { ...ENV, ...(config ? { TF_CLI_CONFIG_FILE: config } : {}) };
  return new Client({ dialect: 'opentofu', caFiles: [server.ca], credentials: null, env, ...options });
}

function cli(server, args, config) {
  const env = { ...ENV, ...(config ? { TF_CLI_CONFIG_FILE: config } : {}) };
  return spawnSync(tfdiscoBin(), [...args, '--ca-file', server.ca, '--no-credentials'], { env, encoding: 'utf8' });
}

/** The `fresh` lock golden's configuration in `into` (emptied). */
function prepare(into) {
  fs.rmSync(into, { recursive: true, force: true });
  fs.mkdirSync(into, { recursive: true });
  const from = path.join(GOLDENS, 'fresh', 'input');
  for (const file of fs.readdirSync(from)) {
    const text = fs.readFileSync(path.join(from, file), 'utf8').replaceAll('{HOST}', PROVIDERS_HOST);
    fs.writeFileSync(path.join(into, file), text);
  }
  return into;
}

/** A lock file without its first line (`terraform init` or `tofu init`). */
const body = (text) => text.split('\n').slice(1).join('\n');
const golden = () =>
  fs.readFileSync(path.join(GOLDENS, 'fresh', 'terraform.lock.hcl'), 'utf8').replaceAll('{HOST}', PROVIDERS_HOST);

/** Every file under `dir`, by its path relative to it, with its text. */
function files(dir) {
  const out = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = path.join(entry.parentPath ?? entry.path, entry.name);
      out[path.relative(dir, file)] = fs.readFileSync(file, 'utf8');
    }
  }
  return out;
}

function noSecret(server, ...texts) {
  for (const text of texts) {
    assert.ok(!text.includes(WRONG), text);
    assert.ok(server.password === null || !text.includes(server.password), text);
  }
}

describe('lock from an OCI mirror', () => {
  test('the lock file is the golden, the report the CLI document', async () => {
    const scratch = tempDir('tfdisco-oci-lock-');
    const config = basic.cliConfig(scratch);
    const dir = prepare(path.join(scratch, 'run'));
    const report = await client(basic, { config }).lock(dir, { platforms: ALL, ociMirror: basic.mirrorTemplate });
    const written = fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8');
    assert.ok(written.startsWith('# This file is maintained automatically by "tofu init".'), written);
    assert.equal(body(written), body(golden()));
    assert.equal(report.changed, true);
    assert.equal(report.lockFile, path.join(dir, LOCK_FILE));
    assert.deepEqual(
      report.providers.map((p) => [p.source, p.version, p.keyId]),
      [
        [`${PROVIDERS_HOST}/ns/alpha`, '1.1.0', null],
        [`${PROVIDERS_HOST}/ns/beta`, '0.10.0', null],
      ],
    );

    // The CLI, in the same place from scratch: the same document.
    prepare(dir);
    const args = ['lock', '--dialect', 'opentofu', '--chdir', dir, '--oci-mirror', basic.mirrorTemplate, '--json'];
    const run = cli(basic, [...args, ...ALL.flatMap((p) => ['--platform', p])], config);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), JSON.parse(JSON.stringify(report)));
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'), written);
    noSecret(basic, run.stdout, run.stderr, JSON.stringify(report));

    // Anonymously too; and again: nothing to change.
    const again = prepare(path.join(scratch, 'again'));
    const c = client(anonymous);
    assert.equal((await c.lock(again, { platforms: ALL, ociMirror: anonymous.mirrorTemplate, jobs: 2 })).changed, true);
    assert.equal(body(fs.readFileSync(path.join(again, LOCK_FILE), 'utf8')), body(golden()));
    assert.equal((await c.lock(again, { platforms: ALL, ociMirror: anonymous.mirrorTemplate })).changed, false);
  });

  test('one mirror at most, and a template that parses', async () => {
    const dir = tempDir('tfdisco-oci-usage-');
    const c = new Client({ credentials: null, env: ENV });
    const template = 'ghcr.io/acme/{namespace}/{type}';
    for (const mirrors of [
      { ociMirror: template, netMirror: 'https://m.example/' },
      { ociMirror: template, fsMirror: dir },
      { ociMirror: template, fsMirror: pathToFileURL(dir), netMirror: 'https://m.example/' },
    ]) {
      await assert.rejects(c.lock(dir, mirrors), (e) => {
        assert.ok(e instanceof InvalidArgumentError, e);
        assert.equal(e.kind, 'invalid_argument');
        assert.match(e.message, /mutually exclusive/);
        return true;
      });
    }
    await assert.rejects(c.lock(dir, { ociMirror: 'ghcr.io/{+type}' }), (e) => {
      assert.ok(e instanceof InvalidArgumentError, e);
      assert.match(e.message, /not a valid URI template/);
      return true;
    });
    await assert.rejects(c.lock(dir, { ociMirror: 42 }), TypeError);
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing was read or written');
  });

  test('wrong credentials fail the run with the request kind, and no secret', async () => {
    const scratch = tempDir('tfdisco-oci-wrong-');
    const config = basic.cliConfig(scratch, WRONG);
    const dir = prepare(path.join(scratch, 'run'));
    await assert.rejects(client(basic, { config }).lock(dir, { platforms: ALL, ociMirror: basic.mirrorTemplate }), (e) => {
      assert.ok(e instanceof LockError, e);
      assert.equal(e.kind, 'failed');
      assert.equal(e.exitCode, 1);
      assert.ok(e.failures.length > 0);
      assert.deepEqual([...new Set(e.failures.map((f) => f.kind))], ['request']);
      assert.match(e.message, /401/);
      noSecret(basic, e.message, ...e.failures.map((f) => f.message), JSON.stringify(e.failures));
      return true;
    });
    assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), false);
  });
});

describe('oci:// module sources', () => {
  test('moduleResolve gives the digest, and the CLI document', async () => {
    const c = client(anonymous);
    const { digest } = anonymous.module;
    const source = anonymous.source('//sub?tag=1.0.0');
    const resolved = await c.moduleResolve(source);
    assert.deepEqual(resolved, {
      source,
      address: source,
      registry: anonymous.host,
      repository: 'modules/app',
      tag: '1.0.0',
      digest,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      size: anonymous.module.size,
      subdir: 'sub',
      pinned: anonymous.source(`//sub?digest=${digest}`),
      package: { mediaType: 'archive/zip', digest: anonymous.module.packageDigest, size: anonymous.module.packageSize },
    });
    const run = cli(anonymous, ['module', 'resolve', source, '--json']);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), JSON.parse(JSON.stringify(resolved)));
    assert.equal(JSON.parse(JSON.stringify(resolved)).media_type, resolved.mediaType);

    // `latest` by default; by the digest, no tag.
    const latest = await c.moduleResolve(anonymous.source());
    assert.deepEqual([latest.tag, latest.digest], ['latest', digest]);
    const pinned = await c.moduleResolve(resolved.pinned);
    assert.deepEqual([pinned.tag, pinned.digest], [null, digest]);
  });

  test('moduleDownload writes the files, as the CLI does', async () => {
    const c = client(anonymous);
    const scratch = tempDir('tfdisco-oci-download-');
    const into = path.join(scratch, 'work', '.terraform', 'modules', 'app');
    const source = anonymous.source('//sub?tag=1.0.0');
    const module = await c.moduleDownload(source, { into });
    assert.deepEqual(files(into), anonymous.module.files);
    assert.equal(module.into, into);
    assert.equal(module.moduleDir, path.join(into, 'sub'));
    assert.equal(module.files, 2);
    assert.equal(
      module.bytes,
      Object.values(anonymous.module.files).reduce((n, t) => n + Buffer.byteLength(t), 0),
    );
    assert.equal(module.digest, anonymous.module.digest);
    assert.equal(module.pinned, anonymous.source(`//sub?digest=${anonymous.module.digest}`));
    const document = JSON.parse(JSON.stringify(module));

    // The CLI into the same place: the same document.
    fs.rmSync(into, { recursive: true });
    const run = cli(anonymous, ['module', 'download', source, '--into', into, '--json']);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), document);

    // By the pinned digest, into an empty folder given as a URL.
    const empty = path.join(scratch, 'empty');
    fs.mkdirSync(empty);
    const again = await c.moduleDownload(module.pinned, { into: pathToFileURL(empty) });
    assert.equal(again.moduleDir, path.join(empty, 'sub'));
    assert.deepEqual(files(empty), anonymous.module.files);

    // Not empty now: refused, and left as it is.
    await assert.rejects(c.moduleDownload(module.pinned, { into: empty }), (e) => {
      assert.ok(e instanceof LocalFileError, e);
      assert.equal(e.kind, 'local_file');
      assert.match(e.message, /not empty/);
      return true;
    });
    assert.deepEqual(files(empty), anonymous.module.files);
  });

  test('unknown and refused sources reject with their kinds', async () => {
    const c = client(anonymous);
    const scratch = tempDir('tfdisco-oci-refused-');
    const into = path.join(scratch, 'into');

    await assert.rejects(c.moduleDownload(anonymous.source('?tag=9.9.9'), { into }), (e) => {
      assert.ok(e instanceof NotFoundError, e);
      assert.equal(e.kind, 'not_found');
      assert.ok(e.message.startsWith(`resolving tag: ${anonymous.host}/modules/app:9.9.9: not found`), e.message);
      return true;
    });
    for (const call of [() => c.moduleResolve(anonymous.notAModule), () => c.moduleDownload(anonymous.notAModule, { into })]) {
      await assert.rejects(call(), (e) => {
        assert.ok(e instanceof InvalidResponseError, e);
        assert.equal(e.kind, 'invalid_response');
        assert.match(e.message, /selected object is not an OCI image manifest/);
        return true;
      });
    }
    assert.deepEqual(fs.readdirSync(scratch), [], 'nothing left behind');

    // Refused before anything is asked: InvalidArgumentError, as the CLI's
    // usage errors.
    const terraform = client(anonymous, { dialect: 'terraform' });
    for (const [call, words] of [
      [() => c.moduleResolve('oci://h.example/app?tag='), /tag argument must not be empty/],
      [() => c.moduleResolve('hashicorp/consul/aws'), /invalid OCI module source/],
      [() => terraform.moduleResolve(anonymous.source()), /OpenTofu's only/],
      [() => terraform.moduleDownload(anonymous.source(), { into }), /OpenTofu's only/],
      [() => c.moduleDownload(anonymous.source(), '1.0.0'), /takes no version/],
      [() => c.moduleDownload(anonymous.source()), /give \{ into: DIR \}/],
      [() => c.moduleDownload(anonymous.source(), {}), /give \{ into: DIR \}/],
      [() => c.moduleDownload('hashicorp/consul/aws', { into }), /into is for oci:\/\/ sources/],
      [() => c.moduleDownload('hashicorp/consul/aws'), /needs a version/],
    ]) {
      await assert.rejects(call(), (e) => {
        assert.ok(e instanceof InvalidArgumentError, `${words}: ${e}`);
        assert.equal(e.kind, 'invalid_argument');
        assert.match(e.message, words);
        return true;
      });
    }
    await assert.rejects(c.moduleDownload(anonymous.source(), { into, version: '1.0.0' }), TypeError);
    await assert.rejects(c.moduleDownload(anonymous.source(), 42), TypeError);
    await assert.rejects(c.moduleResolve(42), TypeError);
    assert.deepEqual(fs.readdirSync(scratch), []);
  });

  test('wrong or no credentials reject with the status kind, and no secret', async () => {
    const scratch = tempDir('tfdisco-oci-creds-');
    const good = client(basic, { config: basic.cliConfig(scratch) });
    assert.equal((await good.moduleResolve(basic.source())).digest, basic.module.digest);

    const wrong = client(basic, { config: basic.cliConfig(scratch, WRONG) });
    const into = path.join(scratch, 'into');
    for (const call of [
      () => wrong.moduleResolve(basic.source('?tag=1.0.0')),
      () => wrong.moduleDownload(basic.source(), { into }),
      () => client(basic).moduleResolve(basic.source()),
    ]) {
      await assert.rejects(call(), (e) => {
        assert.ok(e instanceof StatusError, e);
        assert.equal(e.kind, 'status');
        assert.equal(e.status, 401);
        assert.ok(e.url.startsWith(`https://${basic.host}/v2/modules/app/`), e.url);
        noSecret(basic, e.message, e.url, e.stack ?? '');
        return true;
      });
    }
    assert.equal(fs.existsSync(into), false);
  });
});
