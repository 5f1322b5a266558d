'use strict';
// The JavaScript protocols of the native classes: `util.inspect`, `toJSON`,
// iteration, and argument checks in front of the native methods (a
// TypeError for an argument of the wrong type, as Node's own APIs throw).

const util = require('node:util');
const native = require('./native.js');
const args = require('./args.js');

const { Hostname, Services } = native;

// --- Hostname ---------------------------------------------------------------

Object.defineProperty(Hostname.prototype, util.inspect.custom, {
  value: function inspectHostname(depth, options, inspect) {
    return `Hostname(${inspect(this.display, options)})`;
  },
});

// --- Services ---------------------------------------------------------------

const nativeServices = {
  has: Services.prototype.has,
  serviceUrl: Services.prototype.serviceUrl,
  oauthClient: Services.prototype.oauthClient,
  resolve: Services.prototype.resolve,
};

/** Adds methods to `Services.prototype`, not enumerable as a class's. */
function define(methods) {
  for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(methods))) {
    Object.defineProperty(Services.prototype, name, { ...descriptor, enumerable: false });
  }
  for (const symbol of Object.getOwnPropertySymbols(methods)) {
    const descriptor = Object.getOwnPropertyDescriptor(methods, symbol);
    Object.defineProperty(Services.prototype, symbol, { ...descriptor, enumerable: false });
  }
}

define({
  /** True when the document lists `id`. */
  has(id) {
    return typeof id === 'string' && nativeServices.has.call(this, id);
  },
  /**
   * The document's value for `id` (a URL string, an object for `login.v1`,
   * whatever JSON the document has), parsed afresh on each call; undefined
   * when the document does not list it.
   */
  get(id) {
    if (typeof id !== 'string') return undefined;
    const raw = this._raw(id);
    return raw === undefined || raw === null ? undefined : JSON.parse(raw);
  },
  /** The base URL of service `id`, relative URLs resolved. */
  serviceUrl(id) {
    return nativeServices.serviceUrl.call(this, args.string(id, 'The "id" argument'));
  },
  /** The OAuth client a `login.v1`-style entry describes. */
  oauthClient(id) {
    return nativeServices.oauthClient.call(this, args.string(id, 'The "id" argument'));
  },
  /** An OAuth client for a client definition, else the base URL. */
  resolve(id) {
    return nativeServices.resolve.call(this, args.string(id, 'The "id" argument'));
  },
  /** The service ids, in document order (as `ids()`). */
  keys() {
    return this.ids()[Symbol.iterator]();
  },
  /** The values, in document order. */
  *values() {
    for (const id of this.ids()) yield this.get(id);
  },
  /** `[id, value]` pairs, in document order. */
  *entries() {
    for (const id of this.ids()) yield [id, this.get(id)];
  },
  /** Calls `callback(value, id, services)` for each entry. */
  forEach(callback, thisArg) {
    if (typeof callback !== 'function') {
      throw require('./errors.js').typeError('The "callback" argument', 'of type function', callback);
    }
    for (const [id, value] of this.entries()) callback.call(thisArg, value, id, this);
  },
  [Symbol.iterator]() {
    return this.entries();
  },
  /**
   * What `JSON.stringify` writes: the library's document, as `tfdisco
   * discover HOST --json` prints it (hostname, display, discovery_url,
   * services in document order, resolved).
   */
  toJSON() {
    return JSON.parse(this._json());
  },
  [util.inspect.custom](depth, options, inspect) {
    const name = `Services(${this.hostname.display})`;
    if (depth < 0) return options.stylize(`[${name}]`, 'special');
    const shown = { discoveryUrl: this.discoveryUrl, services: Object.fromEntries(this.entries()) };
    return `${name} ${inspect(shown, { ...options, depth: options.depth === null ? null : options.depth - 1 })}`;
  },
});

Object.defineProperty(Services.prototype, Symbol.toStringTag, { value: 'Services', configurable: true });

module.exports = { Hostname, Services };
