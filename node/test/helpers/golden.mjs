// `tfdisco-dev serve --golden-install CASE`: a case of the install goldens
// (testkit/src/install_goldens.rs, what the real `terraform
// init` did) set up on the server by the testkit's own `Case::setup`, and a
// run judged by its `Expected::check` (the exit code, `.terraform/providers`
// and the plugin cache byte for byte, the lock file, the downloads), as the
// Rust conformance suite judges the library's install.
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
    const dir = tempDir(`tfdisco-golden-${name}-`);
    const ca = path.join(dir, 'ca.pem');
    const child = spawn(
      tfdiscoDevBin(),
      ['serve', '--listen', '127.0.0.1:0', '--ca-out', ca, '--golden-install', name, '--golden-scratch', path.join(dir, 'scratch')],
      { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, NO_COLOR: '1' } },
    );
    const golden = new Golden(name, child, ca);
    await golden.ready;
    return golden;
  }

  constructor(name, child, ca) {
    this.name = name;
    this.child = child;
    this.ca = ca;
    this.answers = [];
    this.waiting = [];
    const lines = readline.createInterface({ input: child.stdout });
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`tfdisco-dev serve did not set up ${name}`)), 30_000);
      lines.on('line', (line) => {
        if (line.startsWith('golden-install ')) {
          const d = JSON.parse(line.slice('golden-install '.length));
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
