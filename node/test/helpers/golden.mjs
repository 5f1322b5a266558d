// `tfdisco-dev serve --golden-install CASE`: a case of the install goldens
// (testkit/src/install_goldens.rs, what the real `terraform
// init` did) set up on the server by the testkit's own `Case::setup`, and a
// run judged by its `Expected::check` (the exit code, `.terraform/providers`
// and the plugin cache byte for byte, the lock file, the downloads), as the
// Rust conformance suite judges the library's install. `ModuleGolden`: the
// same for a case of the module goldens (`--golden-module CASE`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { REPO, tempDir, tfdiscoDevBin } from './env.mjs';

export const GOLDENS = path.join(REPO, 'testkit', 'fixtures', 'install-goldens');

/** Every case, by its folder (the testkit checks the folders are its cases). */
export const CASES = fs
  .readdirSync(GOLDENS, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

export class Golden {
  /**
   * Starts `tfdisco-dev serve` with case `name` set up. The case's members:
   * `dir` (the working directory), `cache` (the plugin cache or null),
   * `host` (the providers'), `serverHost` (`localhost:PORT`), `env` (the
   * variables of the run: the CLI configuration, the home folder,
   * `TF_PLUGIN_CACHE_DIR`), `upgrade`, `readonly` (the case's `init`
   * arguments), `exit` (the exit code tfdisco must give), `lockBefore`,
   * `lock` (the lock file before, and the one tfdisco must leave; null for
   * none).
   */
  static async start(name) {
    return Golden.launch(Golden, 'install', name);
  }

  /** Starts `tfdisco-dev serve --golden-KIND name` as a `Class`. */
  static async launch(Class, kind, name) {
    const dir = tempDir(`tfdisco-golden-${name}-`);
    const ca = path.join(dir, 'ca.pem');
    const child = spawn(
      tfdiscoDevBin(),
      ['serve', '--listen', '127.0.0.1:0', '--ca-out', ca, `--golden-${kind}`, name, '--golden-scratch', path.join(dir, 'scratch')],
      { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, NO_COLOR: '1' } },
    );
    const golden = new Class(name, child, ca, kind);
    await golden.ready;
    return golden;
  }

  /** Takes the members of the case from its `golden-install` line's JSON. */
  describe(d) {
    Object.assign(this, {
      dir: d.dir,
      cache: d.cache,
      host: d.host,
      serverHost: d.server_host,
      env: d.env,
      upgrade: d.upgrade,
      readonly: d.readonly,
      exit: d.exit,
      lockBefore: d.lock_before,
      lock: d.lock,
    });
  }

  constructor(name, child, ca, kind = 'install') {
    this.name = name;
    this.child = child;
    this.ca = ca;
    this.answers = [];
    this.waiting = [];
    const prefix = `golden-${kind} `;
    const lines = readline.createInterface({ input: child.stdout });
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`tfdisco-dev serve did not set up ${name}`)), 30_000);
      lines.on('line', (line) => {
        if (line.startsWith(prefix)) {
          this.describe(JSON.parse(line.slice(prefix.length)));
        } else if (line.startsWith('press Ctrl-C')) {
          clearTimeout(timer);
          if (this.dir === undefined) reject(new Error(`tfdisco-dev serve did not describe ${name}`));
          else resolve();
        } else if (line.startsWith('golden-check ')) {
          const answer = JSON.parse(line.slice('golden-check '.length));
          const waiter = this.waiting.shift();
          if (waiter) waiter(answer);
          else this.answers.push(answer);
        }
      });
      child.once('exit', () => reject(new Error('tfdisco-dev serve exited')));
    });
  }

  /**
   * Asks the server to judge what a run that gave `exit` left: resolves
   * with `{ ok: true }` or `{ ok: false, problems }`, every difference
   * between what the case expects of tfdisco and what is there.
   */
  judge(exit) {
    const answer = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: no judgement`)), 30_000);
      const done = (a) => {
        clearTimeout(timer);
        resolve(a);
      };
      if (this.answers.length > 0) done(this.answers.shift());
      else this.waiting.push(done);
    });
    this.child.stdin.write(`check ${exit}\n`);
    return answer;
  }

  /** Throws every difference `judge(exit)` finds. */
  async check(exit) {
    const answer = await this.judge(exit);
    if (!answer.ok) throw new Error(`${this.name}: ${answer.problems}`);
  }

  stop() {
    this.child.kill();
  }
}

export const MODULE_GOLDENS = path.join(REPO, 'testkit', 'fixtures', 'module-goldens');

/** Every case of the module goldens, by its folder. */
export const MODULE_CASES = fs
  .readdirSync(MODULE_GOLDENS, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/**
 * `tfdisco-dev serve --golden-module CASE`: a case of the module goldens
 * (testkit/src/module_goldens.rs, what the real `terraform get` or
 * `terraform init` did) set up by the testkit's own `Case::setup` (its
 * registry, archives and git repository), and a run judged by its
 * `Expected::check` (the exit code, `modules.json` byte for byte, the tree
 * of `.terraform/modules`: paths, bytes, modes, each `.git` by its HEAD;
 * the downloads), as the CLI's test judges `tfdisco get`.
 */
export class ModuleGolden extends Golden {
  /**
   * Starts case `name`. Its members: `dir`, `host` (the registry's),
   * `serverHost`, `env` (the CLI configuration, the home folder,
   * `GIT_CONFIG_NOSYSTEM`), `command` (`get` or `install`), `upgrade`,
   * `exit` (the exit code tfdisco must give), `terraformExit`.
   */
  static async start(name) {
    return Golden.launch(ModuleGolden, 'module', name);
  }

  /** Takes the members of the case from its `golden-module` line's JSON. */
  describe(d) {
    Object.assign(this, {
      dir: d.dir,
      host: d.host,
      serverHost: d.server_host,
      env: d.env,
      command: d.command,
      upgrade: d.upgrade,
      exit: d.exit,
      terraformExit: d.terraform_exit,
    });
  }
}
