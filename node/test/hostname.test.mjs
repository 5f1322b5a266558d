// Hostnames: the functions, the class, and parity with the Rust core over
// the benchmarks' 10 000-name corpus.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import util from 'node:util';

import * as tfdisco from '../index.mjs';
import { corpus } from './helpers/corpus.mjs';
import { REPO, normalizeBin } from './helpers/env.mjs';

const { Hostname, InvalidHostnameError, TfdiscoError } = tfdisco;

test('comparison and display forms', () => {
  const h = new Hostname('Испытание.COM:443');
  assert.equal(String(h), 'xn--80akhbyknj4f.com');
  assert.equal(h.display, 'испытание.com');
  assert.equal(h.host, 'xn--80akhbyknj4f.com');
  assert.equal(h.port, null);
  const m = new Hostname('München.DE:08443');
  assert.deepEqual([String(m), m.display, m.host, m.port], [
    'xn--mnchen-3ya.de:8443',
    'münchen.de:8443',
    'xn--mnchen-3ya.de',
    8443,
  ]);
  assert.equal(`${m}`, 'xn--mnchen-3ya.de:8443');
  assert.equal(JSON.stringify({ m }), '{"m":"xn--mnchen-3ya.de:8443"}');
  assert.equal(util.inspect(m), "Hostname('münchen.de:8443')");
});

test('equality and fromComparison', () => {
  const a = new Hostname('Example.COM:443');
  assert.ok(a.equals(new Hostname('example.com')));
  assert.ok(a.equals('EXAMPLE.com'));
  assert.ok(!a.equals('example.net'));
  assert.ok(!a.equals('a..b'));
  const h = Hostname.fromComparison('xn--mnchen-3ya.de:8443');
  assert.ok(h instanceof Hostname);
  assert.equal(h.display, 'münchen.de:8443');
  assert.ok(h.equals(new Hostname('münchen.de:8443')));
  assert.throws(() => Hostname.fromComparison('Example.com'), InvalidHostnameError);
  // Punycode input is refused, as in Terraform and OpenTofu.
  assert.throws(() => new Hostname('xn--mnchen-3ya.de'), InvalidHostnameError);
});

test('the functions', () => {
  assert.equal(tfdisco.normalize('Registry.Terraform.IO:443'), 'registry.terraform.io');
  assert.equal(tfdisco.forDisplay('xn--80akhbyknj4f.com'), 'испытание.com');
  assert.equal(tfdisco.forDisplay('example.com:boo'), 'example.com:boo');
  assert.ok(tfdisco.isValid('example.com:8443'));
  assert.ok(!tfdisco.isValid('example.com:0'));
  assert.ok(!tfdisco.isValid('under_score.com'));
  assert.ok(!tfdisco.isValid(42));
});

test('invalid hostnames throw InvalidHostnameError', () => {
  for (const [name, fragment] of [
    ['a..b', 'empty label'],
    ['', ''],
    ['example.com:99999', ''],
    ['https://example.com', ''],
    ['xn--mnchen-3ya.de', ''],
  ]) {
    let caught;
    try {
      tfdisco.normalize(name);
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof InvalidHostnameError, name);
    assert.ok(caught instanceof TfdiscoError && caught instanceof Error);
    assert.equal(caught.kind, 'invalid_hostname');
    assert.equal(caught.name, 'InvalidHostnameError');
    assert.ok(caught.message.startsWith('invalid hostname'), caught.message);
    assert.ok(caught.message.includes(fragment));
    assert.ok(caught.stack.includes('hostname.test.mjs'), 'the stack starts at the caller');
    assert.throws(() => new Hostname(name), InvalidHostnameError);
  }
});

test('arguments of the wrong type throw TypeError', () => {
  for (const call of [
    () => tfdisco.normalize(42),
    () => tfdisco.forDisplay(null),
    () => new Hostname(42),
    () => new Hostname(),
    () => Hostname.fromComparison({}),
  ]) {
    assert.throws(call, (error) => error instanceof TypeError && error.code === 'ERR_INVALID_ARG_TYPE');
  }
  assert.throws(() => tfdisco.normalize(42), /The "name" argument must be of type string\. Received type number \(42\)/);
  assert.throws(() => new Hostname(42), /The "name" argument must be of type string\. Received type number/);
  assert.throws(() => new tfdisco.Services(), Error);
});

function conformanceNames() {
  const file = path.join(REPO, 'conformance', 'hostnames.json');
  if (!fs.existsSync(file)) return [];
  const found = [];
  const walk = (node) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if ((key === 'input' || key === 'given') && typeof value === 'string') found.push(value);
        else walk(value);
      }
    }
  };
  walk(JSON.parse(fs.readFileSync(file, 'utf8')));
  return found.filter((n) => !n.includes('\n') && !n.includes('\r'));
}

test('parity with the Rust normalize example over the 10 000-name corpus', () => {
  const names = corpus(10_000);
  assert.equal(names.length, 10_000);
  assert.ok(new Set(names).size > 1_000);
  const rust = (input) =>
    execFileSync(normalizeBin(), { input: `${input.join('\n')}\n`, maxBuffer: 64 << 20 }).toString('utf8');

  // The corpus is the Rust benchmarks' own: the example's output over it
  // has the hash benches/README.md records (benches/normalize-corpus.sh).
  const output = rust(names);
  const digest = createHash('sha256').update(output).digest('hex');
  assert.ok(digest.startsWith('69d352ffc27dd28a') && digest.endsWith('ea349159'), digest);

  const all = [...names, ...conformanceNames()];
  const lines = rust(all).split('\n').filter((line) => line !== '');
  assert.equal(lines.length, all.length);
  let valid = 0;
  all.forEach((name, i) => {
    const expected = JSON.parse(lines[i]);
    assert.equal(expected.input, name);
    let ours;
    try {
      ours = tfdisco.normalize(name);
    } catch (error) {
      assert.ok(error instanceof InvalidHostnameError, name);
      assert.equal(expected.comparison, null, name);
      // The message names the input, then gives the Rust text.
      assert.ok(error.message.endsWith(`: ${expected.error}`), `${name}: ${error.message} / ${expected.error}`);
    }
    if (ours !== undefined) {
      valid += 1;
      assert.equal(ours, expected.comparison, name);
      assert.equal(expected.error, null);
      assert.equal(String(new Hostname(name)), ours);
    }
    assert.equal(tfdisco.isValid(name), expected.comparison !== null, name);
    assert.equal(tfdisco.forDisplay(name), expected.display, name);
  });
  assert.ok(valid >= 7_500 && valid <= all.length, String(valid));
});

test('one error class per Rust error kind', () => {
  const source = fs.readFileSync(path.join(REPO, 'core', 'src', 'error.rs'), 'utf8');
  const kinds = new Set([...source.matchAll(/ErrorKind::\w+ => "(\w+)"/g)].map((m) => m[1]));
  assert.ok(kinds.has('invalid_hostname') && kinds.has('tls') && kinds.size >= 19);
  for (const kind of kinds) {
    const cls = tfdisco.ERROR_CLASSES[kind];
    assert.ok(cls, `no error class for kind ${kind}`);
    assert.equal(cls.kind, kind);
    assert.ok(cls.prototype instanceof TfdiscoError);
    assert.equal(tfdisco[cls.name], cls, `${cls.name} is exported`);
    assert.ok(cls.name.endsWith('Error'));
    const error = new cls('message');
    assert.equal(error.kind, kind);
    assert.equal(error.name, cls.name);
    assert.equal(util.inspect(error).split('\n')[0], `${cls.name}: message`);
  }
});
