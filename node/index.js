'use strict';
// tfdisco: Terraform/OpenTofu remote service discovery, registry calls and
// lock files, from the tfdisco Rust crates (a native module built with
// napi-rs). The types and documentation are in index.d.ts.

const native = require('./lib/native.js');
const errors = require('./lib/errors.js');
const args = require('./lib/args.js');
const { Hostname, Services } = require('./lib/classes.js');
const { Client } = require('./lib/client.js');
const { report } = require('./lib/report.js');

native._setErrorFactory(errors.makeError);

/** The comparison form of `name` (svchost `ForComparison`). */
function normalize(name) {
  return native.normalize(args.string(name, 'The "name" argument'));
}

/** The liberal display form of any string (svchost `ForDisplay`). */
function forDisplay(name) {
  return native.forDisplay(args.string(name, 'The "name" argument'));
}

/** True when `new Hostname(name)` would succeed (svchost `IsValid`). */
function isValid(name) {
  return typeof name === 'string' && native.isValid(name);
}

/** The lock file hashes `{ h1, zh }` of a provider package (a zip file). */
function hashPackage(path) {
  try {
    return native.hashPackage(args.path(path, 'The "path" argument'));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Which installation methods of the CLI configuration would install
 * `source`, in priority order, and why (the `methods` of `tfdisco provider
 * source --json`). The configuration's problems and what the implied
 * mirrors' scans found are emitted as warnings, as the CLI prints them.
 */
function installationMethods(source, options) {
  const o = args.object(args.given(options, {}), 'The "options" argument');
  args.knownKeys(o, ['dialect', 'cwd', 'env'], 'installationMethods(source, options)');
  const opt = (name, check) =>
    o[name] === undefined || o[name] === null ? undefined : check(o[name], `options.${name}`);
  const answer = native._installationReport(args.string(source, 'The "source" argument'), {
    dialect: opt('dialect', args.string) ?? 'opentofu',
    cwd: opt('cwd', args.path),
    env: opt('env', args.record),
  });
  for (const message of answer.warnings) {
    process.emitWarning(message, { type: 'TfdiscoConfigWarning', code: 'TFDISCO_CLI_CONFIG' });
  }
  return report(answer.report).methods;
}

/** The options of `storeCredentials` / `forgetCredentials`, for the native call. */
function storeOptions(options, what) {
  const o = args.object(args.given(options, {}), 'The "options" argument');
  args.knownKeys(o, ['dialect', 'env'], what);
  const opt = (name, check) =>
    o[name] === undefined || o[name] === null ? undefined : check(o[name], `options.${name}`);
  return { dialect: opt('dialect', args.string) ?? 'opentofu', env: opt('env', args.record) };
}

/** Where a store or forget went, its configuration's warnings emitted. */
function stored(answer) {
  for (const message of answer.warnings) {
    process.emitWarning(message, { type: 'TfdiscoConfigWarning', code: 'TFDISCO_CLI_CONFIG' });
  }
  return answer.location;
}

/**
 * Saves `token` for `host` exactly as `terraform login` does: in
 * `credentials.tfrc.json` (or through the `credentials_helper`). Returns
 * where. Blocks while it writes the file or runs the helper.
 */
function storeCredentials(host, token, options) {
  const what = 'storeCredentials(host, token, options)';
  const h = args.host(host, Hostname);
  const t = args.string(token, 'The "token" argument');
  return stored(native._storeCredentials(h, t, storeOptions(options, what)));
}

/** Removes what is saved for `host` exactly as `terraform logout` does. Returns where. */
function forgetCredentials(host, options) {
  const what = 'forgetCredentials(host, options)';
  const h = args.host(host, Hostname);
  return stored(native._forgetCredentials(h, storeOptions(options, what)));
}

/** `hashPackage`, blocking the calling thread while it reads the file. */
function hashPackageSync(path) {
  return native.hashPackageSync(args.path(path, 'The "path" argument'));
}

module.exports = {
  version: native._version(),
  normalize,
  forDisplay,
  isValid,
  Hostname,
  Services,
  Client,
  hashPackage,
  hashPackageSync,
  installationMethods,
  storeCredentials,
  forgetCredentials,
  ...errors.CLASSES,
  ERROR_CLASSES: errors.ERROR_CLASSES,
};
