// `tfdisco serve` on a free loopback port, with a CA of its own: the
// document given (or the tests' sample), the sample registry and the
// signed registry it serves next to any document.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { tempDir, tfdiscoBin } from './env.mjs';

export const SAMPLE = {
  'modules.v1': '/api/modules/v1/',
  'providers.v1': 'https://providers.example.com/v1/',
  'login.v1': {
    client: 'tfdisco-dev',
    grant_types: ['authz_code'],
    authz: '/oauth/authorization',
    token: '/oauth/token',
    ports: [10000, 10010],
  },
};

/** A document pointing at the sample registry `tfdisco serve` serves. */
export const REGISTRY = { 'modules.v1': '/v1/modules/', 'providers.v1': '/v1/providers/' };

export class Served {
  /** Starts `tfdisco serve` with `doc` (an object or JSON text). */
  static async start(doc = SAMPLE) {
    const dir = tempDir('tfdisco-serve-');
    const ca = path.join(dir, 'ca.pem');
    const docFile = path.join(dir, 'doc.json');
    fs.writeFileSync(docFile, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
    const child = spawn(tfdiscoBin(), ['serve', '--listen', '127.0.0.1:0', '--ca-out', ca, '--doc', docFile], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    const served = new Served(child, ca);
    await served.ready;
    return served;
  }

  constructor(child, ca) {
    this.child = child;
    this.ca = ca;
    this.lines = [];
    const lines = readline.createInterface({ input: child.stdout });
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('tfdisco serve did not start')), 30_000);
      lines.on('line', (line) => {
        const found = /^serving https:\/\/127\.0\.0\.1:(\d+)\//.exec(line);
        if (found) this.port = Number(found[1]);
        if (line.startsWith('press Ctrl-C')) {
          clearTimeout(timer);
          this.host = `localhost:${this.port}`;
          /** The host the sample registry is asked as (module hosts need a dot). */
          this.registryHost = `127.0.0.1:${this.port}`;
          resolve();
        }
        if (line.startsWith('GET ')) this.lines.push(line);
      });
      child.once('exit', () => reject(new Error('tfdisco serve exited')));
    });
  }

  /**
   * The request lines logged so far (`GET /path`, with ` (with
   * credentials)` when a token was sent): the server logs every 100 ms, so
   * this waits for `atLeast` lines (5 s at most), then `settle` ms more.
   */
  async requests(atLeast = 0, settle = 350) {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && this.lines.length < atLeast) await sleep(50);
    await sleep(settle);
    return [...this.lines];
  }

  stop() {
    this.child.kill();
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
