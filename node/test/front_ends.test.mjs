// One report, one serialization: the same discovery, registry, lock,
// mirror, install and get calls (get: a local module and a Git repository
// made with the real `git`), and the OCI ones (a lock from an OCI mirror,
// an `oci://` module resolved, downloaded and got, the signed registry's
// providers copied with `mirror --to-oci` and a release pushed with `oci
// push-provider`, against `tfdisco-dev serve --oci-registry anonymous`), through the `tfdisco` CLI (`--json`), the
// Python package (`to_json()`) and this package (`JSON.stringify`) give
// equal JSON documents. The Python interpreter with the package installed is
// TFDISCO_PYTHON (scripts/test.sh sets it to the venv python/run-tests.sh
// made); without it the test is skipped, and says why. Without a dialect,
// each front end follows the one the folder means (its lock file), and says
// so alike in the report's `dialect`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { REPO, hermeticEnv, tempDir, tfdiscoBin } from './helpers/env.mjs';
import { HAS_GIT, repository } from './helpers/modules.mjs';
import { OciServed } from './helpers/oci.mjs';
import { REGISTRY, Served } from './helpers/serve.mjs';

const PYTHON = process.env.TFDISCO_PYTHON;
const FIXTURES = path.join(REPO, 'testkit', 'fixtures');
const ALL = ['linux_amd64', 'darwin_arm64', 'windows_amd64'];

let served;

before(async () => {
  served = await Served.start(REGISTRY);
});

after(() => served?.stop());

/**
 * A golden case's `input/` copied into `into` (emptied first, so an
 * install's `.terraform` goes too), `{HOST}` replaced.
 */
function prepare(golden, name, into) {
  fs.rmSync(into, { recursive: true, force: true });
  fs.mkdirSync(into, { recursive: true });
  const from = path.join(FIXTURES, golden, name, 'input');
  for (const file of fs.readdirSync(from)) {
    const text = fs.readFileSync(path.join(from, file), 'utf8').replaceAll('{HOST}', served.host);
    fs.writeFileSync(path.join(into, file), text);
  }
}

/**
 * A configuration in `into` (emptied first, `.terraform` and all) calling
 * each of `sources` (`name` → source) and a local module.
 */
function prepareModules(into, sources) {
  fs.rmSync(into, { recursive: true, force: true });
  fs.mkdirSync(path.join(into, 'modules', 'app'), { recursive: true });
  fs.writeFileSync(path.join(into, 'modules', 'app', 'main.tf'), '# app\n');
  const calls = Object.entries(sources).map(([name, source]) => `module "${name}" { source = "${source}" }\n`);
  fs.writeFileSync(path.join(into, 'main.tf'), ['module "local" { source = "./modules/app" }\n', ...calls].join(''));
}

/** The calls, each as the CLI's arguments, the Python call and the Node call. */
function calls(dirs) {
  const provider = `${served.registryHost}/hashicorp/random`;
  const module = `${served.registryHost}/hashicorp/consul/aws`;
  const platformArgs = ALL.flatMap((p) => ['--platform', p]);
  return [
    {
      name: 'discover',
      cli: ['discover', served.host],
      python: `c.discover(${JSON.stringify(served.host)})`,
      node: (c) => c.discover(served.host),
    },
    {
      name: 'provider versions',
      cli: ['provider', 'versions', provider],
      python: `c.provider_versions(${JSON.stringify(provider)})`,
      node: (c) => c.providerVersions(provider),
    },
    {
      name: 'provider package',
      cli: ['provider', 'package', provider, '3.6.0', 'linux_amd64'],
      python: `c.provider_package(${JSON.stringify(provider)}, "3.6.0", "linux_amd64")`,
      node: (c) => c.providerPackage(provider, '3.6.0', 'linux_amd64'),
    },
    {
      name: 'module versions',
      cli: ['module', 'versions', module],
      python: `c.module_versions(${JSON.stringify(module)})`,
      node: (c) => c.moduleVersions(module),
    },
    {
      name: 'module download',
      cli: ['module', 'download', module, '0.12.1'],
      python: `c.module_download(${JSON.stringify(module)}, "0.12.1")`,
      node: (c) => c.moduleDownload(module, '0.12.1'),
    },
    {
      name: 'lock',
      prepare: () => prepare('lock-goldens', 'fresh', dirs.lock),
      cli: ['lock', '--chdir', dirs.lock, ...platformArgs],
      python: `c.lock(${JSON.stringify(dirs.lock)}, ${JSON.stringify(ALL)})`,
      node: (c) => c.lock(dirs.lock, { platforms: ALL }),
    },
    {
      name: 'mirror',
      prepare: () => {
        prepare('mirror-goldens', 'mirror-fresh', dirs.config);
        fs.rmSync(dirs.folder, { recursive: true, force: true });
      },
      cli: ['mirror', dirs.folder, '--chdir', dirs.config, ...platformArgs],
      python: `c.mirror(${JSON.stringify(dirs.config)}, ${JSON.stringify(dirs.folder)}, ${JSON.stringify(ALL)})`,
      node: (c) => c.mirror(dirs.config, dirs.folder, { platforms: ALL }),
    },
    {
      name: 'install',
      prepare: () => prepare('install-goldens', 'fresh', dirs.install),
      cli: ['install', '--chdir', dirs.install],
      python: `c.install(${JSON.stringify(dirs.install)})`,
      node: (c) => c.install(dirs.install),
    },
    ...(dirs.repo
      ? [
          {
            name: 'get',
            prepare: () => prepareModules(dirs.get, { git: `git::file://${dirs.repo}?ref=v1.0.0` }),
            cli: ['get', '--chdir', dirs.get],
            python: `c.get(${JSON.stringify(dirs.get)})`,
            node: (c) => c.get(dirs.get),
          },
        ]
      : []),
  ];
}

/**
 * The OCI calls against `oci` (a registry `tfdisco-dev serve --oci-registry`
 * started). The publishing calls push once first (`warmUp`), as a second
 * run sends no blob: each front end then reports the same run.
 */
function ociCalls(oci, dirs) {
  const source = `${oci.module.source}//sub?tag=1.0.0`;
  const platformArgs = ALL.flatMap((p) => ['--platform', p]);
  const template = `${oci.host}/front-ends/{namespace}/{type}`;
  const repository = `${oci.host}/front-ends-pushed/ns/alpha`;
  return [
    {
      name: 'mirror --to-oci',
      warmUp: true,
      prepare: () => prepare('lock-goldens', 'fresh', dirs.copy),
      cli: ['mirror', '--chdir', dirs.copy, '--to-oci', template, ...platformArgs],
      python: `c.mirror_to_oci(${JSON.stringify(dirs.copy)}, ${JSON.stringify(template)}, ${JSON.stringify(ALL)})`,
      node: (c) => c.mirrorToOci(dirs.copy, template, { platforms: ALL }),
    },
    {
      name: 'oci push-provider',
      warmUp: true,
      cli: ['oci', 'push-provider', repository, '1.1.0', ...dirs.zips],
      python: `c.push_provider(${JSON.stringify(repository)}, "1.1.0", ${JSON.stringify(dirs.zips)})`,
      node: (c) => c.pushProvider(repository, '1.1.0', dirs.zips),
    },
    {
      name: 'module resolve (oci://)',
      cli: ['module', 'resolve', source],
      python: `c.module_resolve(${JSON.stringify(source)})`,
      node: (c) => c.moduleResolve(source),
    },
    {
      name: 'module download (oci://)',
      prepare: () => fs.rmSync(dirs.module, { recursive: true, force: true }),
      cli: ['module', 'download', source, '--into', dirs.module],
      python: `c.module_download(${JSON.stringify(source)}, into=${JSON.stringify(dirs.module)})`,
      node: (c) => c.moduleDownload(source, { into: dirs.module }),
    },
    {
      name: 'lock --oci-mirror',
      prepare: () => prepare('lock-goldens', 'fresh', dirs.lock),
      cli: ['lock', '--chdir', dirs.lock, '--oci-mirror', oci.mirrorTemplate, ...platformArgs],
      python: `c.lock(${JSON.stringify(dirs.lock)}, ${JSON.stringify(ALL)}, oci_mirror=${JSON.stringify(oci.mirrorTemplate)})`,
      node: (c) => c.lock(dirs.lock, { platforms: ALL, ociMirror: oci.mirrorTemplate }),
    },
    {
      name: 'get (oci://)',
      prepare: () => prepareModules(dirs.get, { app: source }),
      cli: ['get', '--chdir', dirs.get],
      python: `c.get(${JSON.stringify(dirs.get)})`,
      node: (c) => c.get(dirs.get),
    },
  ];
}

/**
 * alpha 1.1.0's zips from the signed registry `served` serves, as
 * registries name them: a mirror folder the CLI writes in `into`.
 */
function releaseZips(into) {
  const config = path.join(into, 'config');
  prepare('lock-goldens', 'fresh', config);
  const folder = path.join(into, 'folder');
  viaCli({ cli: ['mirror', folder, '--chdir', config, ...ALL.flatMap((p) => ['--platform', p])] }, hermeticEnv());
  const zips = ALL.map((p) => path.join(folder, served.host, 'ns', 'alpha', `terraform-provider-alpha_1.1.0_${p}.zip`));
  for (const zip of zips) assert.ok(fs.existsSync(zip), zip);
  return zips;
}

/** Where the calls go: the CA (or CAs) to trust and the dialect. */
const TERRAFORM = () => ({ ca: served.ca, dialect: 'terraform' });

function viaCli(call, env, { ca, dialect } = TERRAFORM()) {
  const trust = [ca].flat().flatMap((file) => ['--ca-file', file]);
  const args = [...call.cli, '--json', '--dialect', dialect, ...trust, '--no-credentials'];
  const run = spawnSync(tfdiscoBin(), args, { env, encoding: 'utf8' });
  assert.equal(run.status, 0, `tfdisco ${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

function viaPython(call, env, { ca, dialect } = TERRAFORM()) {
  const script = [
    'import tfdisco',
    `c = tfdisco.Client(dialect=${JSON.stringify(dialect)}, ca_files=${JSON.stringify([ca].flat())}, credentials=None)`,
    `print(${call.python}.to_json())`,
  ].join('\n');
  const run = spawnSync(PYTHON, ['-c', script], { env, encoding: 'utf8' });
  assert.equal(run.status, 0, `python: ${call.name}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

async function viaNode(call, env, { ca, dialect } = TERRAFORM()) {
  const c = new tfdisco.Client({ dialect, caFiles: [ca].flat(), credentials: null, env });
  return JSON.parse(JSON.stringify(await call.node(c)));
}

/** Each call through the three front ends: equal documents. */
async function compare(calls, env, where) {
  for (const call of calls) {
    if (call.warmUp) {
      call.prepare?.();
      viaCli(call, env, where);
    }
    call.prepare?.();
    const cli = viaCli(call, env, where);
    call.prepare?.();
    const python = viaPython(call, env, where);
    call.prepare?.();
    const node = await viaNode(call, env, where);
    assert.deepEqual(python, cli, `${call.name}: Python and the CLI`);
    assert.deepEqual(node, cli, `${call.name}: Node and the CLI`);
  }
}

test(
  'the CLI, Python and Node give the same JSON documents',
  { skip: !PYTHON && 'TFDISCO_PYTHON is not set (scripts/test.sh sets it to the Python venv)' },
  async () => {
    const scratch = tempDir('tfdisco-front-ends-');
    const dirs = {
      lock: path.join(scratch, 'lock'),
      config: path.join(scratch, 'config'),
      folder: path.join(scratch, 'folder'),
      install: path.join(scratch, 'install'),
      get: path.join(scratch, 'get'),
      // Without git, the get call is left out.
      repo: HAS_GIT ? repository(path.join(scratch, 'repo')) : undefined,
    };
    await compare(calls(dirs), hermeticEnv());
  },
);

test(
  'the CLI, Python and Node give the same JSON documents for the OCI calls',
  { skip: !PYTHON && 'TFDISCO_PYTHON is not set (scripts/test.sh sets it to the Python venv)' },
  async () => {
    const oci = await OciServed.start('anonymous');
    try {
      const scratch = tempDir('tfdisco-front-ends-oci-');
      const dirs = {
        lock: path.join(scratch, 'lock'),
        module: path.join(scratch, 'modules', 'app'),
        copy: path.join(scratch, 'copy'),
        get: path.join(scratch, 'get'),
        zips: releaseZips(path.join(scratch, 'zips')),
      };
      // The registry `served` serves is copied into the OCI registry: both CAs.
      await compare(ociCalls(oci, dirs), hermeticEnv(), { ca: [oci.ca, served.ca], dialect: 'opentofu' });
    } finally {
      await oci.stop();
    }
  },
);

test(
  'without a dialect, the CLI, Python and Node follow the lock file terraform init wrote, and say so alike',
  { skip: !PYTHON && 'TFDISCO_PYTHON is not set (scripts/test.sh sets it to the Python venv)' },
  async () => {
    // The folder by the name getcwd gives it: the clients look in their
    // current working directory, the CLI in its --chdir folder.
    const dir = fs.realpathSync(tempDir('tfdisco-front-ends-detect-'));
    const bin = tempDir('tfdisco-front-ends-bin-');
    // No TFDISCO_DIALECT, and a PATH of no CLI: only the lock file tells.
    const env = { HOME: tempDir('tfdisco-home-'), PATH: bin };
    const reset = () => prepare('lock-goldens', 'add-platform', dir);

    reset();
    const args = ['lock', '--chdir', dir, '--platform', 'darwin_arm64', '--json', '--ca-file', served.ca, '--no-credentials'];
    const run = spawnSync(tfdiscoBin(), args, { env, encoding: 'utf8' });
    assert.equal(run.status, 0, `tfdisco ${args.join(' ')}: ${run.stderr}`);
    const cli = JSON.parse(run.stdout);

    reset();
    const script = [
      'import tfdisco',
      `c = tfdisco.Client(ca_files=[${JSON.stringify(served.ca)}], credentials=None)`,
      `print(c.lock(${JSON.stringify(dir)}, ["darwin_arm64"]).to_json())`,
    ].join('\n');
    const py = spawnSync(PYTHON, ['-c', script], { env, cwd: dir, encoding: 'utf8' });
    assert.equal(py.status, 0, `python: ${py.stderr}`);
    const python = JSON.parse(py.stdout);

    reset();
    const before = process.cwd();
    process.chdir(dir);
    let c;
    try {
      c = new tfdisco.Client({ caFiles: [served.ca], credentials: null, env });
    } finally {
      process.chdir(before);
    }
    const node = JSON.parse(JSON.stringify(await c.lock(dir, { platforms: ['darwin_arm64'] })));

    assert.deepEqual(cli.dialect, {
      name: 'terraform',
      chosen_by: 'lock_file',
      why: `the lock file ${path.join(dir, '.terraform.lock.hcl')} was written by terraform init`,
    });
    assert.deepEqual(python, cli, 'Python and the CLI');
    assert.deepEqual(node, cli, 'Node and the CLI');
  },
);
