// Module installation: `client.get` (`client.install` where Terraform ran
// `init`) against every case of the module goldens
// (testkit/fixtures/module-goldens/, what the real `terraform get` did with
// the same input): `tfdisco-dev serve --golden-module CASE` sets each case
// up (its registry, archives and git repository) with the testkit's own
// `Case::setup` and judges what the run left with its `Expected::check`:
// the exit code, `modules.json` byte for byte, the tree of
// `.terraform/modules` (paths, bytes, modes, each `.git` by its HEAD) and
// the downloads, as the CLI's test judges `tfdisco get`
// (helpers/golden.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';

import * as tfdisco from '../index.mjs';
import { MODULE_CASES, ModuleGolden } from './helpers/golden.mjs';

const { Client, LockError } = tfdisco;

/** The failing cases: each failed call and why (`[key, kind]`); the error's kind is `modules`. */
const FAILURES = {
  'archive-404': [['missing', 'download']],
  'archive-dotdot': [['dotdot', 'download']],
  'checksum-mismatch': [['wrong', 'download']],
  'download-404': [['gone', 'registry']],
  'git-bad-ref': [['nope', 'download']],
  'init-partial': [['gone', 'registry']],
  'no-version-matches': [['net', 'no_version']],
  'page-hop-limit': [['loop', 'download']],
  'zip-link-named-tf': [['linked', 'configuration']],
};

function hasGit() {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('every module golden', { skip: hasGit() ? false : 'the cases need the system git' }, () => {
  test('the cases', () => {
    assert.equal(MODULE_CASES.length, 27);
    for (const name of Object.keys(FAILURES)) assert.ok(MODULE_CASES.includes(name), name);
  });

  for (const name of MODULE_CASES) {
    test(name, async (t) => {
      const g = await ModuleGolden.start(name);
      t.after(() => g.stop());
      // git reads its own settings (GIT_SSL_CAINFO, GIT_SSH_COMMAND) from
      // the process's environment, not from the client's `env`; the tests
      // of this suite run one at a time.
      for (const [key, value] of Object.entries(g.env)) {
        if (!key.startsWith('GIT_')) continue;
        const before = process.env[key];
        process.env[key] = value;
        t.after(() => {
          if (before === undefined) delete process.env[key];
          else process.env[key] = before;
        });
      }
      const client = new Client({
        dialect: 'terraform',
        caFiles: [g.ca],
        credentials: null,
        env: { ...g.env, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      let exit = 0;
      let failures;
      try {
        if (g.command === 'install') await client.install(g.dir, { upgrade: g.upgrade });
        else await client.get(g.dir, { upgrade: g.upgrade });
      } catch (error) {
        if (!(error instanceof LockError)) throw error;
        assert.equal(error.kind, 'modules', error.message);
        exit = error.exitCode;
        failures = error.failures.map((f) => [f.key, f.kind]);
      }
      await g.check(exit); // what `terraform get` left (or the documented difference)
      assert.equal(exit, g.exit);
      assert.deepEqual(failures, FAILURES[name]);
    });
  }
});
