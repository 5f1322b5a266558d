// Medians of tfdisco's Node package against what a Node program would do
// without it:
//
// - normalize the benchmarks' 10 000-name corpus: tfdisco.normalize against
//   url.domainToASCII (WHATWG/UTS #46 in Node's ICU);
// - one discovery against a loopback `tfdisco-dev serve`: client.discover
//   (after forgetAll, on the reused connection) against a bare fetch() +
//   JSON.parse of the well-known URL (undici's pool, reused connection);
//   and a new Client (new connection) each time;
// - a host already in the cache: await client.discover / serviceUrl.
//
//   node bench.mjs [--runs N] [--serve-bin PATH]
//
// The fetch() baseline needs the server's CA at startup
// (NODE_EXTRA_CA_CERTS), so the measurements run in a child process.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import url from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const RUNS = Number(option('--runs', '21'));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The median of `runs` timings of `body` (ms), each after a warm-up. */
async function time(runs, body) {
  await body();
  const out = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await body();
    out.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(out);
}

const fmt = (ms) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`);

async function child() {
  const tfdisco = await import(path.join(here, 'index.mjs'));
  const { corpus } = await import(path.join(here, 'test', 'helpers', 'corpus.mjs'));
  const host = process.env.BENCH_HOST;
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const env = { HOME: os.tmpdir(), PATH: process.env.PATH ?? '' };
  const rows = [];

  const names = corpus(10_000);
  const valid = names.filter((n) => tfdisco.isValid(n));
  const normalizeAll = (list) => () => {
    for (const name of list) {
      try {
        tfdisco.normalize(name);
      } catch {
        // the invalid ones
      }
    }
  };
  const ascii = (list) => () => {
    for (const name of list) url.domainToASCII(name);
  };
  const n1 = await time(RUNS, normalizeAll(names));
  const a1 = await time(RUNS, ascii(names));
  rows.push([`normalize ${names.length} names (the corpus, ${names.length - valid.length} invalid)`, n1, a1, 'url.domainToASCII']);
  const n2 = await time(RUNS, normalizeAll(valid));
  const a2 = await time(RUNS, ascii(valid));
  rows.push([`normalize the ${valid.length} valid names`, n2, a2, 'url.domainToASCII']);
  rows.push([`isValid, ${names.length} names`, await time(RUNS, () => names.forEach((n) => tfdisco.isValid(n))), null, '']);

  const client = new tfdisco.Client({ caFiles: [ca], env, credentials: null });
  const wellKnown = `https://${host}/.well-known/terraform.json`;
  const reps = 50;
  const discoverWarm = await time(RUNS, async () => {
    for (let i = 0; i < reps; i++) {
      client.forgetAll();
      await client.discover(host);
    }
  });
  const fetchWarm = await time(RUNS, async () => {
    for (let i = 0; i < reps; i++) JSON.parse(await (await fetch(wellKnown)).text());
  });
  rows.push(['one discovery, reused connection', discoverWarm / reps, fetchWarm / reps, 'fetch() + JSON.parse']);
  const discoverCold = await time(RUNS, async () => {
    for (let i = 0; i < 10; i++) await new tfdisco.Client({ caFiles: [ca], env, credentials: null, systemRoots: false }).discover(host);
  });
  rows.push(['one discovery, new Client and connection (only the test CA trusted)', discoverCold / 10, null, '']);

  await client.discover(host);
  const cachedReps = 10_000;
  const cached = await time(RUNS, async () => {
    for (let i = 0; i < cachedReps; i++) await client.discover(host);
  });
  const cachedUrl = await time(RUNS, async () => {
    for (let i = 0; i < cachedReps; i++) await client.serviceUrl(host, 'modules.v1');
  });
  rows.push(['a host already in the cache: await client.discover', cached / cachedReps, null, '']);
  rows.push(['a host already in the cache: await client.serviceUrl', cachedUrl / cachedReps, null, '']);

  console.log(`node ${process.version}, ${RUNS} runs, medians`);
  console.log('| what (median) | tfdisco | the alternative |');
  console.log('|---|---|---|');
  for (const [what, ours, theirs, alt] of rows) {
    const other = theirs === null ? '' : `${alt}: ${fmt(theirs)} (${(theirs / ours).toFixed(1)}× tfdisco's time)`;
    console.log(`| ${what} | ${fmt(ours)} | ${other} |`);
  }
}

async function parent() {
  const defaultBin = path.join(process.env.CARGO_TARGET_DIR ?? path.join(here, '..', 'target'), 'release', 'tfdisco-dev');
  const bin = option('--serve-bin', defaultBin);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfdisco-bench-'));
  const ca = path.join(dir, 'ca.pem');
  const server = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--ca-out', ca], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let found;
    readline.createInterface({ input: server.stdout }).on('line', (line) => {
      const m = /^serving https:\/\/127\.0\.0\.1:(\d+)\//.exec(line);
      if (m) found = Number(m[1]);
      if (line.startsWith('press Ctrl-C')) resolve(found);
    });
    server.once('exit', () => reject(new Error(`${bin} serve exited`)));
  });
  try {
    const run = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', ...argv], {
      stdio: 'inherit',
      env: { ...process.env, NODE_EXTRA_CA_CERTS: ca, BENCH_HOST: `localhost:${port}` },
    });
    const code = await new Promise((resolve) => run.once('exit', resolve));
    process.exitCode = code;
  } finally {
    server.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (argv.includes('--child')) await child();
else await parent();
