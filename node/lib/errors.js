'use strict';
// The errors of tfdisco: one class per kind of error of the Rust crates,
// each a TfdiscoError whose `kind` is the name the `tfdisco` CLI prints
// with --json (`invalid_hostname`, `network`, `tls`, …) and whose message is
// the Rust message, which never contains credentials. The native module
// makes them through `makeError` (registered by index.js).

const util = require('node:util');

/** Any tfdisco error. */
class TfdiscoError extends Error {
  /**
   * @param {string} message
   * @param {{ kind?: string, url?: string | null, status?: number | null, cause?: unknown }} [details]
   */
  constructor(message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    /** The kind, as the CLI names it in --json output. */
    this.kind = details.kind ?? new.target.kind;
    /** The request URL at fault, or null. */
    this.url = details.url ?? null;
    /** The HTTP status at fault, or null. */
    this.status = details.status ?? null;
  }
}
TfdiscoError.kind = 'error';
named(TfdiscoError);

/**
 * Defines `class <name> extends <base>` for `kind`.
 * @param {string} name
 * @param {string} kind
 * @param {typeof TfdiscoError} [base]
 */
function define(name, kind, base = TfdiscoError) {
  const cls = { [name]: class extends base {} }[name];
  cls.kind = kind;
  named(cls);
  return cls;
}

/** `error.name` is the class's name (`InvalidHostnameError: …`). */
function named(cls) {
  Object.defineProperty(cls.prototype, 'name', {
    value: cls.name,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

/** The name of the class of each kind that adds nothing to TfdiscoError. */
const PLAIN_KINDS = {
  invalid_hostname: 'InvalidHostnameError',
  invalid_service_id: 'InvalidServiceIdError',
  service_not_provided: 'ServiceNotProvidedError',
  version_not_supported: 'VersionNotSupportedError',
  invalid_service_url: 'InvalidServiceUrlError',
  invalid_oauth_client: 'InvalidOAuthClientError',
  tls: 'TlsError',
  network: 'NetworkError',
  timeout: 'TimeoutError',
  status: 'StatusError',
  content_type: 'ContentTypeError',
  content_encoding: 'ContentEncodingError',
  too_large: 'TooLargeError',
  json: 'JsonError',
  redirect: 'RedirectError',
  invalid_source: 'InvalidSourceError',
  invalid_argument: 'InvalidArgumentError',
  local_file: 'LocalFileError',
  not_found: 'NotFoundError',
  invalid_response: 'InvalidResponseError',
  invalid_option: 'InvalidOptionError',
  credentials: 'CredentialsError',
};

/**
 * A lock, mirror, install or get run that failed; the lock file (the mirror
 * folder, `.terraform/providers`, `.terraform/modules`) is then as it was.
 * `kind` is `configuration`, `lock_file`, `usage`, `failed` (then
 * `failures` lists every provider that could not be locked), `readonly`
 * (an install run whose read-only lock file would change), `folder` (a
 * folder that could not be read or written, a package not placed) or
 * `modules` (then `failures` lists every module that could not be
 * installed: `key`, `kind`, `exitCode`, `message`).
 */
class LockError extends TfdiscoError {
  /**
   * @param {string} message
   * @param {{ kind?: string, exitCode?: number, failures?: object[] }} [details]
   */
  constructor(message, details = {}) {
    super(message, { kind: details.kind ?? 'lock' });
    /** `tfdisco lock`'s (and `install`'s) exit code: 1, 2, 3, or 130 (cancelled). */
    this.exitCode = details.exitCode ?? 1;
    /** One entry per provider (and platform) that could not be locked, or per module not installed. */
    this.failures = details.failures ?? [];
  }
}
LockError.kind = 'lock';
named(LockError);

/** A file `hashPackage` cannot hash: not a zip, truncated, damaged, … */
class InvalidPackageError extends TfdiscoError {
  /**
   * @param {string} message
   * @param {{ problem?: string, path?: string }} [details]
   */
  constructor(message, details = {}) {
    super(message, { kind: 'invalid_package' });
    /** What is wrong, in a word: `not-a-zip`, `truncated`, `corrupt`, … */
    this.problem = details.problem ?? 'corrupt';
    /** The file. */
    this.path = details.path ?? null;
  }
}
InvalidPackageError.kind = 'invalid_package';
named(InvalidPackageError);

const PLAIN_CLASSES = Object.fromEntries(
  Object.entries(PLAIN_KINDS).map(([kind, name]) => [kind, define(name, kind)]),
);

/**
 * `storeCredentials` or `forgetCredentials` for a host whose credentials are
 * a `credentials` block of a CLI configuration file other than
 * `credentials.tfrc.json`: as `terraform login` refuses, nothing is changed.
 */
const CredentialsUnwritableError = define('CredentialsUnwritableError', 'credentials_unwritable', PLAIN_CLASSES.credentials);

/** The class of each kind the native module reports. */
const ERROR_CLASSES = Object.freeze({
  ...PLAIN_CLASSES,
  [CredentialsUnwritableError.kind]: CredentialsUnwritableError,
  [InvalidPackageError.kind]: InvalidPackageError,
});

/** The kinds of a failed lock, mirror, install or get run. */
const LOCK_KINDS = new Set(['configuration', 'lock_file', 'usage', 'failed', 'readonly', 'folder', 'cancelled', 'modules', 'lock']);

/**
 * The error for what the native module reports (called by it): a
 * TfdiscoError subclass; a LockError; an error shaped as Node's own file
 * system errors for a file that cannot be read; a TypeError for an
 * argument of the wrong type. A kind this version does not know yet gives a
 * plain TfdiscoError with that kind.
 * @param {{ kind: string, message: string, url?: string, status?: number,
 *   exitCode?: number, failures?: object[], problem?: string, errno?: number,
 *   syscall?: string, path?: string }} spec
 * @returns {Error}
 */
function makeError(spec) {
  // One stack trace, captured below (from the caller of the native call),
  // rather than two: the constructor's is switched off.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let error;
  try {
    error = construct(spec);
  } finally {
    Error.stackTraceLimit = limit;
  }
  Error.captureStackTrace(error, makeError);
  return error;
}

/** The error object for `spec`, without its stack trace. */
function construct(spec) {
  let error;
  if (spec.kind === 'type') {
    error = new TypeError(spec.message);
    error.code = 'ERR_INVALID_ARG_TYPE';
  } else if (spec.kind === 'os') {
    error = systemError(spec);
  } else if (LOCK_KINDS.has(spec.kind) || (spec.exitCode !== undefined && spec.exitCode !== null)) {
    // Only a lock, mirror, install or get run's errors carry an exit code: a
    // kind this version does not know yet is still a LockError.
    error = new LockError(spec.message, spec);
  } else if (spec.kind === 'invalid_package') {
    error = new InvalidPackageError(spec.message, spec);
  } else {
    const cls = Object.prototype.hasOwnProperty.call(ERROR_CLASSES, spec.kind)
      ? ERROR_CLASSES[spec.kind]
      : TfdiscoError;
    error = new cls(spec.message, spec);
  }
  return error;
}

/**
 * An error as Node's `fs` makes them: `code` (`ENOENT`), negative `errno`,
 * `syscall`, `path`.
 */
function systemError(spec) {
  const errno = spec.errno ?? 0;
  let code = 'EIO';
  if (errno > 0) {
    try {
      code = util.getSystemErrorName(-errno);
    } catch {
      // An errno Node does not know: keep EIO.
    }
  }
  const error = new Error(
    `${code}: ${spec.message.charAt(0).toLowerCase()}${spec.message.slice(1)}, ${spec.syscall ?? 'open'} '${spec.path}'`,
  );
  error.errno = -errno;
  error.code = code;
  error.syscall = spec.syscall ?? 'open';
  error.path = spec.path;
  return error;
}

/**
 * A TypeError as Node's own argument checks throw them.
 * @param {string} what e.g. `The "name" argument`
 * @param {string} expected e.g. `of type string`
 * @param {unknown} value
 */
function typeError(what, expected, value) {
  const error = new TypeError(`${what} must be ${expected}. Received ${describe(value)}`);
  error.code = 'ERR_INVALID_ARG_TYPE';
  Error.captureStackTrace(error, typeError);
  return error;
}

/** How Node's ERR_INVALID_ARG_TYPE messages show a value. */
function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return `function ${value.name || '<anonymous>'}`;
  if (typeof value === 'object') {
    const name = value.constructor && value.constructor.name;
    return name ? `an instance of ${name}` : util.inspect(value, { depth: -1 });
  }
  let shown = util.inspect(value, { colors: false });
  if (shown.length > 28) shown = `${shown.slice(0, 25)}...`;
  return `type ${typeof value} (${shown})`;
}

/** Every error class by its name (the per-kind ones, the base, LockError). */
const CLASSES = Object.fromEntries(
  [TfdiscoError, ...Object.values(ERROR_CLASSES), LockError].map((cls) => [cls.name, cls]),
);

module.exports = {
  ...CLASSES,
  CLASSES,
  ERROR_CLASSES,
  makeError,
  typeError,
};
