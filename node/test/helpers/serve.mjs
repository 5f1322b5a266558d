// `tfdisco-dev serve` on a free loopback port, with a CA of its own: the
// document given (or the tests' sample), the sample registry and the
// signed registry it serves next to any document.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import readline from 'node:readline';
import { tempDir, tfdiscoDevBin } from './env.mjs';

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

/** A document pointing at the sample registry `tfdisco-dev serve` serves. */
export const REGISTRY = { 'modules.v1': '/v1/modules/', 'providers.v1': '/v1/providers/' };

/** The path of the marker requests `Served.requests` makes. */
const MARK = '/.tfdisco-test-marker/';

export class Served {
  /** Starts `tfdisco-dev serve` with `doc` (an object or JSON text). */
  static async start(doc = SAMPLE) {
    const dir = tempDir('tfdisco-serve-');
    const ca = path.join(dir, 'ca.pem');
    const docFile = path.join(dir, 'doc.json');
    fs.writeFileSync(docFile, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
    const child = spawn(tfdiscoDevBin(), ['serve', '--listen', '127.0.0.1:0', '--ca-out', ca, '--doc', docFile], {
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
    this.events = new EventEmitter();
    const lines = readline.createInterface({ input: child.stdout });
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('tfdisco-dev serve did not start')), 30_000);
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
        if (line.startsWith('GET ')) {
          this.lines.push(line);
          this.events.emit('line');
        }
      });
      child.once('exit', () => reject(new Error('tfdisco-dev serve exited')));
    });
  }

  /**
   * Every request line logged so far (`GET /path`, with ` (with
   * credentials)` when a token was sent), exactly. `tfdisco-dev serve` prints
   * the requests it received every 100 ms, in arrival order: rather than
   * sleep and hope, this makes a request of its own (a marker path) and
   * waits for its line; every request made before it (by every call that
   * has settled) is logged before it. Marker lines are left out.
   */
  async requests() {
    this.marks = (this.marks ?? 0) + 1;
    const mark = `${MARK}${this.marks}`;
    const logged = this.logged(`GET ${mark}`);
    await new Promise((resolve, reject) => {
      const request = https.get(
        { host: '127.0.0.1', servername: 'localhost', port: this.port, path: mark, ca: fs.readFileSync(this.ca) },
        (response) => response.resume().on('end', resolve).on('error', reject),
      );
      request.on('error', reject);
    });
    await logged;
    const lines = this.lines.slice(0, this.lines.indexOf(`GET ${mark}`));
    return lines.filter((line) => !line.startsWith(`GET ${MARK}`));
  }

  /** Settles once `line` is logged (rejects after 30 s). */
  logged(line) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`tfdisco-dev serve did not log ${line}`)), 30_000);
      const check = () => {
        if (!this.lines.includes(line)) return;
        clearTimeout(timer);
        this.events.off('line', check);
        resolve();
      };
      this.events.on('line', check);
      check();
    });
  }

  stop() {
    this.child.kill();
  }
}
