// OCI registries as OpenTofu uses them: `lock({ ociMirror })`,
// `moduleResolve(source)` and `moduleDownload(source, { into })` for
// `oci://` sources, and publishing to them (`mirrorToOci`, `pushProvider`),
// against a real registry (`tfdisco-dev serve --oci-registry
// MODE`: Debian's `docker-registry`, anonymous or with Basic credentials,
// holding a module package and the signed registry's providers as an OCI
// mirror), with the OCI credentials of the CLI configuration
// (`oci_credentials` blocks, TF_CLI_CONFIG_FILE in the client's `env`).
// What they give is what the `tfdisco` CLI prints with `--json` (the
// library's one serialization, camelCase keys); what they reject with is
// the library's error kinds, and never a secret.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { REPO, hermeticEnv, tempDir, tfdiscoBin } from './helpers/env.mjs';
import { OciServed } from './helpers/oci.mjs';
import { REGISTRY, Served } from './helpers/serve.mjs';

const {
  Client,
  InvalidArgumentError,
  InvalidResponseError,
  LocalFileError,
  LockError,
  NotFoundError,
  StatusError,
} = tfdisco;
const GOLDENS = path.join(REPO, 'testkit', 'fixtures', 'lock-goldens');
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

/**
 * A client of `server` (and of the servers whose CA files `alsoTrust`
 * gives), its CLI configuration `config`.
 */
function client(server, { config, alsoTrust = [], ...options } = {}) {
  const env = { ...ENV, ...(config ? { TF_CLI_CONFIG_FILE: config } : {}) };
  return new Client({ dialect: 'opentofu', caFiles: [server.ca, ...alsoTrust], credentials: null, env, ...options });
}

function cli(server, args, config, alsoTrust = []) {
  const env = { ...ENV, ...(config ? { TF_CLI_CONFIG_FILE: config } : {}) };
  const trust = alsoTrust.flatMap((ca) => ['--ca-file', ca]);
  return spawnSync(tfdiscoBin(), [...args, '--ca-file', server.ca, ...trust, '--no-credentials'], { env, encoding: 'utf8' });
}

/** The `fresh` lock golden's configuration in `into` (emptied), its providers on `host`. */
function prepare(into, host = PROVIDERS_HOST) {
  fs.rmSync(into, { recursive: true, force: true });
  fs.mkdirSync(into, { recursive: true });
  const from = path.join(GOLDENS, 'fresh', 'input');
  for (const file of fs.readdirSync(from)) {
    const text = fs.readFileSync(path.join(from, file), 'utf8').replaceAll('{HOST}', host);
    fs.writeFileSync(path.join(into, file), text);
  }
  return into;
}

/** A lock file without its first line (`terraform init` or `tofu init`). */
const body = (text) => text.split('\n').slice(1).join('\n');
const golden = (host = PROVIDERS_HOST) =>
  fs.readFileSync(path.join(GOLDENS, 'fresh', 'terraform.lock.hcl'), 'utf8').replaceAll('{HOST}', host);

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

// --- Publishing: mirrorToOci and pushProvider ----------------------------------
//
// The signed registry `tfdisco-dev serve` serves next to its document (the
// providers' host) is copied into the real OCI registry (`basic`, its own
// CA): the clients trust both.

describe('publishing to an OCI registry', () => {
  let served;
  before(async () => {
    served = await Served.start(REGISTRY);
  });
  after(() => served?.stop());

  const platformArgs = () => ALL.flatMap((p) => ['--platform', p]);
  const sha256 = (file) => `sha256:${createHash('sha256').update(fs.readFileSync(file)).digest('hex')}`;

  /**
   * The releases the `fresh` configuration selects on the signed registry
   * (alpha 1.1.0, beta 0.10.0), as registries name their zips: a mirror
   * folder's archives, one per platform of ALL, by provider type.
   */
  async function releaseZips(c, into) {
    const report = await c.mirror(prepare(path.join(into, 'config'), served.host), path.join(into, 'folder'), {
      platforms: ALL,
    });
    assert.deepEqual(report.providers.map((p) => p.version), ['1.1.0', '0.10.0']);
    return Object.fromEntries(report.providers.map((p) => [p.source.split('/').at(-1), p.archives]));
  }

  test('mirrorToOci, then a lock from the copy gives the registry\'s lock file', async () => {
    const scratch = tempDir('tfdisco-oci-copy-');
    const config = basic.cliConfig(scratch);
    const host = served.host;
    const c = client(basic, { config, alsoTrust: [served.ca] });
    const template = `${basic.host}/copy/{namespace}/{type}`;
    const dir = prepare(path.join(scratch, 'run'), host);

    const report = await c.mirrorToOci(dir, template, { platforms: ALL });
    assert.equal(report.template, template);
    assert.deepEqual(report.platforms, ALL);
    assert.deepEqual(
      report.providers.map((p) => [p.source, p.version, p.locked, p.constraints, p.repository, p.tag]),
      [
        [`${host}/ns/alpha`, '1.1.0', false, '~> 1.0', `${basic.host}/copy/ns/alpha`, '1.1.0'],
        [`${host}/ns/beta`, '0.10.0', false, '>= 0.9.0', `${basic.host}/copy/ns/beta`, '0.10.0'],
      ],
    );
    // alpha's config and zips sent; beta's config mounted from alpha's
    // repository, its zips sent.
    assert.deepEqual(report.providers.map((p) => [p.blobsSent, p.blobsMounted]), [[4, 0], [3, 1]]);
    for (const p of report.providers) {
      assert.match(p.index, /^sha256:[0-9a-f]{64}$/);
      // Each zip is the registry's package, byte for byte.
      const shasums = await Promise.all(ALL.map((platform) => c.providerPackage(p.source, p.version, platform)));
      assert.deepEqual(p.packages, ALL.map((platform, i) => ({ platform, digest: `sha256:${shasums[i].shasum}` })));
    }
    assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), false, 'a mirror run writes no lock file');

    // Again: every blob is there, none is sent; the same releases.
    const again = await c.mirrorToOci(pathToFileURL(dir), template, { platforms: ALL, jobs: 2 });
    assert.deepEqual(again.providers.map((p) => [p.blobsSent, p.blobsMounted]), [[0, 0], [0, 0]]);
    assert.deepEqual(again.providers.map((p) => [p.index, p.packages]), report.providers.map((p) => [p.index, p.packages]));

    // The CLI, a third time: the document of Node's second run.
    const args = ['mirror', '--dialect', 'opentofu', '--chdir', dir, '--to-oci', template, ...platformArgs(), '--json'];
    const run = cli(basic, args, config, [served.ca]);
    assert.equal(run.status, 0, run.stderr);
    const document = JSON.parse(JSON.stringify(again));
    assert.deepEqual(JSON.parse(run.stdout), document);
    assert.deepEqual(Object.keys(document.providers[0]), [
      'source', 'version', 'constraints', 'locked', 'trust', 'key_id',
      'repository', 'tag', 'index', 'packages', 'blobs_sent', 'blobs_mounted',
    ]);
    noSecret(basic, run.stdout, run.stderr, JSON.stringify(again));

    // The copy locks as the registry locks: the same lock file, Terraform's.
    const copyDir = prepare(path.join(scratch, 'from-copy'), host);
    const registryDir = prepare(path.join(scratch, 'from-registry'), host);
    const fromCopy = await c.lock(copyDir, { platforms: ALL, ociMirror: template });
    const fromRegistry = await c.lock(registryDir, { platforms: ALL });
    const written = fs.readFileSync(path.join(copyDir, LOCK_FILE), 'utf8');
    assert.equal(written, fs.readFileSync(path.join(registryDir, LOCK_FILE), 'utf8'));
    assert.equal(body(written), body(golden(host)));
    assert.deepEqual(fromCopy.providers.map((p) => [p.version, p.hashesAdded]), fromRegistry.providers.map((p) => [p.version, p.hashesAdded]));
    // The mirror run verified the packages as the registry lock did.
    assert.deepEqual(report.providers.map((p) => [p.trust, p.keyId]), fromRegistry.providers.map((p) => [p.trust, p.keyId]));
    assert.ok(report.providers.every((p) => typeof p.keyId === 'string'));
  });

  test('pushProvider sends each blob once, and mounts from another repository', async () => {
    const scratch = tempDir('tfdisco-oci-push-');
    const config = basic.cliConfig(scratch);
    const c = client(basic, { config, alsoTrust: [served.ca] });
    const zips = await releaseZips(c, path.join(scratch, 'zips'));
    const repository = `${basic.host}/pushed/ns/alpha`;

    const first = await c.pushProvider(repository, '1.1.0', zips.alpha);
    assert.deepEqual(first, {
      repository,
      tag: '1.1.0',
      index: first.index,
      packages: ALL.map((platform, i) => ({ platform, digest: sha256(zips.alpha[i]) })),
      blobsSent: ALL.length + 1,
      blobsMounted: 0,
    });
    assert.match(first.index, /^sha256:[0-9a-f]{64}$/);

    // Again (the zips as file: URLs): the repository has every blob.
    const again = await c.pushProvider(repository, '1.1.0', zips.alpha.map((z) => pathToFileURL(z)));
    assert.deepEqual([again.blobsSent, again.blobsMounted, again.index], [0, 0, first.index]);
    assert.deepEqual(again.packages, first.packages);

    // The CLI, a third time: the same document.
    const run = cli(basic, ['oci', 'push-provider', repository, '1.1.0', ...zips.alpha, '--json'], config);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), JSON.parse(JSON.stringify(again)));
    assert.equal(JSON.parse(JSON.stringify(again)).blobs_sent, 0);

    // Promoted to another repository of the registry: every blob mounted, none sent.
    const promoted = await c.pushProvider(`${basic.host}/promoted/ns/alpha`, '1.1.0', zips.alpha, { mountFrom: repository });
    assert.deepEqual([promoted.blobsSent, promoted.blobsMounted], [0, ALL.length + 1]);
    assert.deepEqual([promoted.repository, promoted.index], [`${basic.host}/promoted/ns/alpha`, first.index]);

    // beta too; then the pushed releases lock as the registry locks.
    const beta = await c.pushProvider(`${basic.host}/pushed/ns/beta`, '0.10.0', zips.beta, { mountFrom: null });
    assert.deepEqual([beta.blobsSent, beta.tag], [ALL.length + 1, '0.10.0']);
    const dir = prepare(path.join(scratch, 'run'), served.host);
    await c.lock(dir, { platforms: ALL, ociMirror: `${basic.host}/pushed/{namespace}/{type}` });
    assert.equal(body(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')), body(golden(served.host)));
  });

  test('pushProvider refuses what the CLI refuses, before anything is sent', async () => {
    const scratch = tempDir('tfdisco-oci-push-refused-');
    const config = basic.cliConfig(scratch);
    const c = client(basic, { config });
    const good = path.join(scratch, 'terraform-provider-alpha_1.0.0_linux_amd64.zip');
    fs.writeFileSync(good, Buffer.concat([Buffer.from('PK\x05\x06'), Buffer.alloc(18)]));
    const repository = `${basic.host}/refused/ns/alpha`;
    for (const [given, version, zips, mountFrom, kind, words] of [
      ['/ns/alpha', '1.0.0', [good], null, 'invalid_argument', /missing registry/],
      [`${basic.host}/a:1`, '1.0.0', [good], null, 'invalid_argument', /tag or digest not allowed/],
      [repository, 'one', [good], null, 'invalid_argument', /"one" is no version/],
      [repository, '2.0.0', [good], null, 'invalid_argument', /not a zip of version 2\.0\.0/],
      [repository, '1.0.0', [path.join(scratch, 'alpha.zip')], null, 'invalid_argument', /not named terraform-provider-/],
      [repository, '1.0.0', [good], '/nowhere', 'invalid_argument', /missing registry/],
      [repository, '1.0.0', [good], 'elsewhere.example/ns/alpha', 'invalid_argument', /same registry/],
      [repository, '1.0.0', [path.join(scratch, 'gone', path.basename(good))], null, 'local_file', /gone/],
    ]) {
      let message;
      await assert.rejects(c.pushProvider(given, version, zips, { mountFrom }), (e) => {
        assert.ok(e instanceof (kind === 'invalid_argument' ? InvalidArgumentError : LocalFileError), `${words}: ${e}`);
        assert.equal(e.kind, kind);
        assert.match(e.message, words);
        message = e.message;
        return true;
      });
      // The CLI's error, word for word.
      const args = ['oci', 'push-provider', given, version, ...zips, '--json', ...(mountFrom ? ['--mount-from', mountFrom] : [])];
      const run = cli(basic, args, config);
      assert.equal(run.status, kind === 'invalid_argument' ? 2 : 1, run.stderr);
      assert.deepEqual([JSON.parse(run.stdout).error.kind, JSON.parse(run.stdout).error.message], [kind, message]);
    }
    await assert.rejects(c.pushProvider(repository, '1.0.0', []), (e) => {
      assert.ok(e instanceof InvalidArgumentError, e);
      assert.match(e.message, /give the release's zips/);
      return true;
    });
    await assert.rejects(c.pushProvider(repository, '1.0.0', good), TypeError);
    await assert.rejects(c.pushProvider(repository, '1.0.0', [42]), TypeError);
    await assert.rejects(c.pushProvider(repository, '1.0.0', [good], { mount: repository }), TypeError);
    await assert.rejects(c.pushProvider(repository, '1.0.0', [good], { mountFrom: 42 }), TypeError);
    // Nothing reached the registry: no release to lock from.
    await assert.rejects(
      c.lock(prepare(path.join(scratch, 'run')), { platforms: ['linux_amd64'], ociMirror: `${basic.host}/refused/{namespace}/{type}` }),
      (e) => {
        assert.ok(e instanceof LockError, e);
        assert.equal(e.failures[0].kind, 'provider');
        return true;
      },
    );
  });

  test('mirrorToOci refuses a template that does not parse, before anything is read', async () => {
    const dir = tempDir('tfdisco-oci-copy-usage-');
    const c = new Client({ credentials: null, env: ENV });
    await assert.rejects(c.mirrorToOci(path.join(dir, 'nowhere'), 'ghcr.io/{+type}'), (e) => {
      assert.ok(e instanceof InvalidArgumentError, e);
      assert.equal(e.kind, 'invalid_argument');
      assert.match(e.message, /not a valid URI template/);
      return true;
    });
    await assert.rejects(c.mirrorToOci(dir, 'ghcr.io/{type}', { jobs: 0 }), tfdisco.InvalidOptionError);
    await assert.rejects(c.mirrorToOci(dir, 'ghcr.io/{type}', { platforms: 'linux_amd64' }), TypeError);
    await assert.rejects(c.mirrorToOci(dir, 'ghcr.io/{type}', { folder: dir }), /client\.mirrorToOci\(dir, template, options\) has no option "folder"/);
    await assert.rejects(c.mirrorToOci(dir, 42), TypeError);
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing was read or written');
  });

  test('wrong or no credentials fail the pushes with their kinds, and no secret', async () => {
    const scratch = tempDir('tfdisco-oci-push-wrong-');
    const good = client(basic, { config: basic.cliConfig(scratch), alsoTrust: [served.ca] });
    const zips = await releaseZips(good, path.join(scratch, 'zips'));
    const wrong = client(basic, { config: basic.cliConfig(scratch, WRONG), alsoTrust: [served.ca] });
    const template = `${basic.host}/denied/{namespace}/{type}`;
    const dir = prepare(path.join(scratch, 'run'), served.host);

    // mirrorToOci: a LockError as lock's, a failure of kind `request`.
    await assert.rejects(wrong.mirrorToOci(dir, template, { platforms: ALL }), (e) => {
      assert.ok(e instanceof LockError, e);
      assert.deepEqual([e.kind, e.exitCode], ['failed', 1]);
      assert.deepEqual(
        e.failures.map((f) => [f.source, f.version, f.kind, f.exitCode]),
        [[`${served.host}/ns/alpha`, '1.1.0', 'request', 1]],
      );
      assert.match(e.message, /401/);
      noSecret(basic, e.message, e.stack ?? '', JSON.stringify(e.failures));
      return true;
    });
    assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), false);

    // pushProvider: a StatusError as moduleResolve's; with no credentials too.
    for (const c of [wrong, client(basic, { alsoTrust: [served.ca] })]) {
      await assert.rejects(c.pushProvider(`${basic.host}/denied/ns/alpha`, '1.1.0', zips.alpha), (e) => {
        assert.ok(e instanceof StatusError, e);
        assert.deepEqual([e.kind, e.status], ['status', 401]);
        assert.ok(e.url.startsWith(`https://${basic.host}/v2/denied/ns/alpha/`), e.url);
        noSecret(basic, e.message, e.url, e.stack ?? '');
        return true;
      });
    }

    // Nothing was pushed: the right credentials find no release there.
    await assert.rejects(good.lock(prepare(path.join(scratch, 'again'), served.host), { platforms: ALL, ociMirror: template }), (e) => {
      assert.ok(e instanceof LockError, e);
      assert.deepEqual([...new Set(e.failures.map((f) => f.kind))], ['provider']);
      return true;
    });
  });
});
