'use strict';
// Argument checks: the JavaScript syntax of the arguments (types, the
// shapes of option objects). What the values mean is the Rust crates'
// business: a value of the right type that they refuse comes back as a
// TfdiscoError (InvalidOptionError, InvalidHostnameError, …).

const { fileURLToPath } = require('node:url');
const { InvalidOptionError, typeError } = require('./errors.js');

/** Throws a TypeError unless `value` is a string. */
function string(value, what) {
  if (typeof value !== 'string') throw typeError(what, 'of type string', value);
  return value;
}

/** A path: a string, or a `file:` URL. */
function path(value, what) {
  if (value instanceof URL) return fileURLToPath(value);
  if (typeof value !== 'string') throw typeError(what, 'of type string or an instance of URL', value);
  return value;
}

/** A hostname: a string, or a Hostname (passed on as it is). */
function host(value, Hostname, what = 'The "host" argument') {
  if (typeof value === 'string' || value instanceof Hostname) return value;
  throw typeError(what, 'of type string or an instance of Hostname', value);
}

/** True for `{…}` (not an array, a Map, a class instance, null). */
function isPlainObject(value) {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Throws a TypeError unless `value` is a plain object. */
function object(value, what) {
  if (!isPlainObject(value)) throw typeError(what, 'a plain object', value);
  return value;
}

/** Throws a TypeError for a key of `given` not in `known`. */
function knownKeys(given, known, what) {
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) {
      const error = new TypeError(
        `${what} has no option ${JSON.stringify(key)} (known: ${known.join(', ')})`,
      );
      error.code = 'ERR_INVALID_ARG_VALUE';
      throw error;
    }
  }
}

/** An array of strings (not a single string). */
function strings(value, what, convert = string) {
  if (!Array.isArray(value)) throw typeError(what, 'an array', value);
  return value.map((item, i) => convert(item, `${what}[${i}]`));
}

/** A whole number in [min, 2^32 - 1]; InvalidOptionError for other numbers. */
function count(value, what, min = 0) {
  if (typeof value !== 'number') throw typeError(what, 'of type number', value);
  if (!Number.isInteger(value) || value < min || value > 0xffff_ffff) {
    throw new InvalidOptionError(`${what} must be a whole number of at least ${min}, not ${value}`);
  }
  return value;
}

/** A number (the Rust side says which numbers it takes). */
function number(value, what) {
  if (typeof value !== 'number') throw typeError(what, 'of type number', value);
  return value;
}

/** A boolean. */
function boolean(value, what) {
  if (typeof value !== 'boolean') throw typeError(what, 'of type boolean', value);
  return value;
}

/** An object of string to string. */
function record(value, what) {
  object(value, what);
  const out = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = string(item, `${what}[${JSON.stringify(key)}]`);
  }
  return out;
}

/** A function. */
function func(value, what) {
  if (typeof value !== 'function') throw typeError(what, 'of type function', value);
  return value;
}

/** An `AbortSignal`. */
function abortSignal(value, what) {
  if (!(value instanceof AbortSignal)) throw typeError(what, 'an instance of AbortSignal', value);
  return value;
}

/** `value` unless it is undefined or null, then `fallback`. */
function given(value, fallback) {
  return value === undefined || value === null ? fallback : value;
}

module.exports = {
  abortSignal,
  boolean,
  count,
  func,
  given,
  host,
  isPlainObject,
  knownKeys,
  number,
  object,
  path,
  record,
  string,
  strings,
};
