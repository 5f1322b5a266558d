// A loopback HTTPS server of the tests' own (certificate from pki.mjs) that
// records each request's host, path and headers and answers from routes:
// what `tfdisco-dev serve` cannot show or do (headers, held answers, bad answers).
import { EventEmitter } from 'node:events';
import https from 'node:https';
import { pki } from './pki.mjs';

export const WELL_KNOWN = '/.well-known/terraform.json';

/**
 * A reply: status, body, headers. A held reply is sent only once the test
 * calls `recorder.release()` (or stops the recorder): the call waiting for
 * it is in flight for as long as the test needs, with no timer to race.
 */
export function reply(body = '{"modules.v1": "/modules/"}', { status = 200, headers = {}, hold = false } = {}) {
  return { status, body: Buffer.from(body), headers: { 'Content-Type': 'application/json', ...headers }, hold };
}

export class Recorder {
  /** Starts the server on 127.0.0.1 and a free port. */
  static async start() {
    const recorder = new Recorder();
    await new Promise((resolve) => recorder.server.listen(0, '127.0.0.1', resolve));
    recorder.port = recorder.server.address().port;
    recorder.host = `localhost:${recorder.port}`;
    return recorder;
  }

  constructor() {
    const { cert, key, ca } = pki();
    this.ca = ca;
    /** path → reply, or a function of the request giving one. */
    this.routes = new Map([[WELL_KNOWN, reply()]]);
    /** `{ host, path, headers }` of every request, in arrival order. */
    this.seen = [];
    /** Emits `request` as each request arrives, `release` for held replies. */
    this.events = new EventEmitter();
    this.events.setMaxListeners(0);
    this.released = false;
    this.server = https.createServer({ cert, key }, (request, response) => {
      this.seen.push({ host: request.headers.host, path: request.url, headers: { ...request.headers } });
      this.events.emit('request');
      let answer = this.routes.get(request.url) ?? reply('not found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
      if (typeof answer === 'function') answer = answer(request);
      const send = () => {
        if (response.destroyed) return;
        response.writeHead(answer.status, { ...answer.headers, 'Content-Length': answer.body.length });
        response.end(answer.body);
      };
      if (answer.hold && !this.released) this.events.once('release', send);
      else send();
    });
  }

  /** Settles once `count` requests have arrived (rejects after 30 s). */
  arrived(count = 1) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${count} request(s) expected, ${this.seen.length} arrived`)), 30_000);
      const check = () => {
        if (this.seen.length < count) return;
        clearTimeout(timer);
        this.events.off('request', check);
        resolve(this.seen);
      };
      this.events.on('request', check);
      check();
    });
  }

  /** Sends every held reply, and every later one at once. */
  release() {
    this.released = true;
    this.events.emit('release');
  }

  /** The `Authorization` header of each request (undefined when none). */
  authorizations() {
    return this.seen.map((r) => r.headers.authorization);
  }

  async stop() {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
