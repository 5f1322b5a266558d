// A loopback HTTPS server of the tests' own (certificate from pki.mjs) that
// records each request's host, path and headers and answers from routes:
// what `tfdisco serve` cannot show or do (headers, delays, bad answers).
import https from 'node:https';
import { pki } from './pki.mjs';

export const WELL_KNOWN = '/.well-known/terraform.json';

/** A reply: status, body, headers, and a delay in milliseconds. */
export function reply(body = '{"modules.v1": "/modules/"}', { status = 200, headers = {}, delay = 0 } = {}) {
  return { status, body: Buffer.from(body), headers: { 'Content-Type': 'application/json', ...headers }, delay };
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
    this.server = https.createServer({ cert, key }, (request, response) => {
      this.seen.push({ host: request.headers.host, path: request.url, headers: { ...request.headers } });
      let answer = this.routes.get(request.url) ?? reply('not found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
      if (typeof answer === 'function') answer = answer(request);
      const send = () => {
        response.writeHead(answer.status, { ...answer.headers, 'Content-Length': answer.body.length });
        response.end(answer.body);
      };
      if (answer.delay) setTimeout(send, answer.delay).unref();
      else send();
    });
  }

  /** The `Authorization` header of each request (undefined when none). */
  authorizations() {
    return this.seen.map((r) => r.headers.authorization);
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
