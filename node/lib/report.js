'use strict';
// The library's JSON documents as JavaScript objects: what the native calls
// give is the document `tfdisco … --json` prints (its text), one
// serialization for the CLI, Python and Node. The object has the
// document's members with camelCase keys, JavaScript's idiom, and
// `toJSON()` gives the document itself, so `JSON.stringify(report)` is
// what the CLI prints.

/** `versions_url` → `versionsUrl`. */
function camelKey(key) {
  return key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
}

/**
 * `value` with every object key in camelCase. The reports' keys are member
 * names, never data (no report has a map keyed by ids or paths).
 */
function camel(value) {
  if (Array.isArray(value)) return value.map(camel);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelKey(k), camel(v)]));
  }
  return value;
}

/** The JavaScript object of the JSON document `text`. */
function report(text) {
  const object = camel(JSON.parse(text));
  Object.defineProperty(object, 'toJSON', {
    value: () => JSON.parse(text),
    enumerable: false,
    configurable: true,
    writable: true,
  });
  return object;
}

module.exports = { camel, report };
