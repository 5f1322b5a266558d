// The package: its CommonJS and ES module entry points give the same
// exports, index.d.ts declares every one of them, and the versions agree.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';

import * as esm from '../index.mjs';
import esmDefault from '../index.mjs';
import { NODE_DIR } from './helpers/env.mjs';

const require = createRequire(import.meta.url);
const cjs = require('../index.js');

test('the CommonJS and ES module entry points give the same exports', () => {
  const named = Object.keys(esm).filter((k) => k !== 'default').sort();
  assert.deepEqual(named, Object.keys(cjs).sort());
  for (const name of named) assert.equal(esm[name], cjs[name], name);
  assert.equal(esmDefault, cjs);
  // By the package's name too (its "exports" map).
  assert.equal(require('tfdisco'), cjs);
});

test('index.d.ts declares every export', () => {
  const dts = fs.readFileSync(path.join(NODE_DIR, 'index.d.ts'), 'utf8');
  const declared = new Set(
    [...dts.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1]),
  );
  assert.deepEqual([...declared].sort(), Object.keys(cjs).sort());
});

test('the versions agree', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(NODE_DIR, 'package.json'), 'utf8'));
  const cargo = fs.readFileSync(path.join(NODE_DIR, 'Cargo.toml'), 'utf8');
  assert.equal(cjs.version, pkg.version);
  assert.match(cargo, new RegExp(`^version = "${pkg.version.replaceAll('.', '\\.')}"$`, 'm'));
});
