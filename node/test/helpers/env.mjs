// Where the tests find the repository, the `tfdisco` CLI, the development
// server `tfdisco-dev` and the core's `normalize` example, and the hermetic
// environment every client gets.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REPO = path.dirname(NODE_DIR);

/**
 * A binary the tests run: from `variable` (TFDISCO_BIN, TFDISCO_DEV_BIN,
 * TFDISCO_NORMALIZE_BIN), else under $CARGO_TARGET_DIR or the repository's
 * target/, debug then release. run-tests.sh builds all three.
 */
export function binary(variable, relative) {
  const given = process.env[variable];
  if (given) return given;
  const roots = [process.env.CARGO_TARGET_DIR, path.join(REPO, 'target')].filter(Boolean);
  for (const root of roots) {
    for (const profile of ['debug', 'release']) {
      const candidate = path.join(root, profile, relative);
      if (fs.existsSync(candidate)) return candidate;
    }
  }
  throw new Error(`${relative} not found: build it (node/run-tests.sh does) or set ${variable}`);
}

export const tfdiscoBin = () => binary('TFDISCO_BIN', 'tfdisco');
export const tfdiscoDevBin = () => binary('TFDISCO_DEV_BIN', 'tfdisco-dev');
export const normalizeBin = () => binary('TFDISCO_NORMALIZE_BIN', path.join('examples', 'normalize'));

/** A fresh temporary directory, removed when the process exits. */
export function tempDir(prefix = 'tfdisco-node-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A hermetic environment for a client's `env` option or a child process:
 * an empty home directory, PATH, and `extra`; no CLI configuration, token,
 * proxy or User-Agent variable from the machine. TFDISCO_DIALECT names the
 * dialect the tests that give none were written for (OpenTofu, the default
 * with nothing to tell), so that a `terraform` or `tofu` on the machine's
 * PATH does not choose it; the tests of that choice make their own
 * environments (`choiceEnv` in client.test.mjs).
 */
export function hermeticEnv(extra = {}) {
  const home = tempDir('tfdisco-home-');
  return { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', TFDISCO_DIALECT: 'opentofu', ...extra };
}
