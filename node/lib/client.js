'use strict';
// `Client`: the JavaScript face of the native client (src/client.rs). It
// reads the options' JavaScript syntax into the native options object,
// emits the CLI configuration's problems as warnings, and turns every call
// into a promise: a cached discovery comes back as a promise already
// settled, without a trip through the tokio runtime; anything else is
// answered on the runtime, never blocking JavaScript.

const util = require('node:util');
const native = require('./native.js');
const args = require('./args.js');
const { InvalidOptionError, LockError, typeError } = require('./errors.js');
const { report } = require('./report.js');

const { Hostname } = native;

/** The options `new Client(options)` takes. */
const CLIENT_OPTIONS = [
  'dialect',
  'timeout',
  'retries',
  'caFiles',
  'credentials',
  'cliConfig',
  'userAgent',
  'maxRedirects',
  'bodyLimit',
  'registryRetries',
  'registryTimeout',
  'cliVersion',
  'insecureHttpHosts',
  'resolve',
  'systemRoots',
  'env',
];

/** The options `client.lock(dir, options)` takes. */
const LOCK_OPTIONS = [
  'platforms',
  'providers',
  'jobs',
  'netMirror',
  'fsMirror',
  'ociMirror',
  'enablePluginCache',
  'pluginCache',
];

/** The options `client.moduleDownload(source, options)` takes (an `oci://` source). */
const MODULE_DOWNLOAD_OPTIONS = ['into'];

/** The options `client.mirror(dir, folder, options)` takes. */
const MIRROR_OPTIONS = ['platforms', 'jobs', 'lockFile'];

/** The options `client.pushProvider(repository, version, zips, options)` takes. */
const PUSH_OPTIONS = ['mountFrom'];

/** The options `client.get(dir, options)` takes. */
const GET_OPTIONS = ['upgrade', 'jobs'];

/** The options `client.install(dir, options)` takes. */
const INSTALL_OPTIONS = ['providers', 'upgrade', 'lockfile', 'pluginCache', 'jobs', 'onEvent', 'signal'];

/**
 * The native options object for `options`, and what `util.inspect` shows
 * of them (tokens as '***').
 */
function readOptions(options) {
  const o = args.object(args.given(options, {}), 'The "options" argument');
  args.knownKeys(o, CLIENT_OPTIONS, 'new Client(options)');
  const opt = (name, check, ...rest) =>
    o[name] === undefined || o[name] === null ? undefined : check(o[name], `options.${name}`, ...rest);

  // None given: the native side detects it (the CLI's order), from the
  // current working directory and the client's environment.
  const dialect = opt('dialect', args.string);
  const cliConfig = opt('cliConfig', args.boolean) ?? true;
  let credentials = 'cli';
  let tokens;
  let shownCredentials = 'cli';
  if (o.credentials === null) {
    credentials = 'none';
    shownCredentials = null;
  } else if (typeof o.credentials === 'string') {
    if (o.credentials !== 'cli') {
      throw new InvalidOptionError(
        `options.credentials must be 'cli', null or an object of host to token, not ${JSON.stringify(o.credentials)}`,
      );
    }
  } else if (o.credentials !== undefined) {
    if (!args.isPlainObject(o.credentials)) {
      throw typeError(
        'options.credentials',
        "'cli', null or a plain object of host to token",
        o.credentials,
      );
    }
    credentials = 'static';
    tokens = {};
    shownCredentials = {};
    for (const [host, token] of Object.entries(o.credentials)) {
      if (typeof token !== 'string') {
        // Never show the value: it may be a token of another type.
        const error = new TypeError(`options.credentials: the token for ${JSON.stringify(host)} must be a string`);
        error.code = 'ERR_INVALID_ARG_TYPE';
        throw error;
      }
      tokens[host] = token;
      shownCredentials[host] = '***';
    }
  }

  const resolve = [];
  if (o.resolve !== undefined && o.resolve !== null) {
    args.object(o.resolve, 'options.resolve');
    for (const [key, value] of Object.entries(o.resolve)) {
      const what = `options.resolve[${JSON.stringify(key)}]`;
      const addresses = Array.isArray(value) ? args.strings(value, what) : [args.string(value, what)];
      for (const address of addresses) resolve.push([key, address]);
    }
  }

  const timeout = opt('timeout', args.number);
  const nativeOptions = {
    dialect,
    timeout,
    retries: opt('retries', args.count),
    maxRedirects: opt('maxRedirects', args.count),
    bodyLimit: opt('bodyLimit', args.number),
    registryRetries: opt('registryRetries', args.count),
    registryTimeout: opt('registryTimeout', args.number),
    cliVersion: opt('cliVersion', args.string),
    caFiles: opt('caFiles', args.strings, args.path) ?? [],
    systemRoots: opt('systemRoots', args.boolean) ?? true,
    credentials,
    tokens,
    cliConfig,
    userAgent: opt('userAgent', args.string),
    insecureHttpHosts:
      opt('insecureHttpHosts', args.strings, (h, what) => {
        const host = args.host(h, Hostname, what);
        // The display form parses back to an equal hostname.
        return typeof host === 'string' ? host : host.display;
      }) ?? [],
    resolve,
    env: opt('env', args.record),
  };
  // `dialect` is filled in once the native client has chosen it.
  const shown = { dialect: undefined, timeout: timeout ?? 11, credentials: shownCredentials };
  if (!cliConfig) shown.cliConfig = false;
  return { nativeOptions, shown };
}

/** The native lock options for `options`. */
function readLockOptions(options) {
  const o = args.object(args.given(options, {}), 'The "options" argument');
  args.knownKeys(o, LOCK_OPTIONS, 'client.lock(dir, options)');
  const opt = (name, check, ...rest) =>
    o[name] === undefined || o[name] === null ? undefined : check(o[name], `options.${name}`, ...rest);
  return {
    platforms: opt('platforms', args.strings) ?? [],
    providers: opt('providers', args.strings) ?? [],
    // The native side reads it by the rule every front end shares.
    jobs: opt('jobs', args.count),
    netMirror: opt('netMirror', args.string),
    fsMirror: opt('fsMirror', args.path),
    ociMirror: opt('ociMirror', args.string),
    enablePluginCache: opt('enablePluginCache', args.boolean) ?? false,
    // Without `enablePluginCache`, the native side refuses it (the CLI's rule).
    pluginCache: opt('pluginCache', args.path),
  };
}

/**
 * `moduleDownload`'s second argument: a registry module's version (a
 * string), or the options of an `oci://` source's download (`{ into }`).
 * Which a source takes is the native side's rule, the CLI's.
 */
function readModuleDownload(second) {
  if (second === undefined || second === null) return { version: undefined, into: undefined };
  if (typeof second === 'string') return { version: second, into: undefined };
  if (!args.isPlainObject(second)) {
    throw typeError('The "version" argument', 'of type string, or a plain object of options ({ into })', second);
  }
  args.knownKeys(second, MODULE_DOWNLOAD_OPTIONS, 'client.moduleDownload(source, options)');
  const into = second.into === undefined || second.into === null ? undefined : args.path(second.into, 'options.into');
  return { version: undefined, into };
}

/** The native mirror options for `options` (of `call`, named in errors). */
function readMirrorOptions(options, call = 'client.mirror(dir, folder, options)') {
  const o = args.object(args.given(options, {}), 'The "options" argument');
  args.knownKeys(o, MIRROR_OPTIONS, call);
  const opt = (name, check, ...rest) =>
    o[name] === undefined || o[name] === null ? undefined : check(o[name], `options.${name}`, ...rest);
  return {
    platforms: opt('platforms', args.strings) ?? [],
    jobs: opt('jobs', args.count),
    lockFile: opt('lockFile', args.boolean) ?? true,
  };
}

/** `pushProvider`'s `options.mountFrom`: a repository, or undefined. */
function readPushOptions(options) {
  const o = args.object(args.given(options, {}), 'The "options" argument');
  args.knownKeys(o, PUSH_OPTIONS, 'client.pushProvider(repository, version, zips, options)');
  return o.mountFrom === undefined || o.mountFrom === null ? undefined : args.string(o.mountFrom, 'options.mountFrom');
}

/** The native get options for `options`. */
function readGetOptions(options) {
  const o = args.object(args.given(options, {}), 'The "options" argument');
  args.knownKeys(o, GET_OPTIONS, 'client.get(dir, options)');
  const opt = (name, check, ...rest) =>
    o[name] === undefined || o[name] === null ? undefined : check(o[name], `options.${name}`, ...rest);
  return {
    upgrade: opt('upgrade', args.boolean) ?? false,
    // The native side reads it by the rule every front end shares.
    jobs: opt('jobs', args.count),
  };
}

/** The native install options for `options`, and its `onEvent` and `signal`. */
function readInstallOptions(options) {
  const o = args.object(args.given(options, {}), 'The "options" argument');
  args.knownKeys(o, INSTALL_OPTIONS, 'client.install(dir, options)');
  const opt = (name, check, ...rest) =>
    o[name] === undefined || o[name] === null ? undefined : check(o[name], `options.${name}`, ...rest);
  return {
    nativeOptions: {
      providers: opt('providers', args.strings) ?? [],
      upgrade: opt('upgrade', args.boolean) ?? false,
      // 'readonly' or nothing: the native side says which words it takes.
      lockfile: opt('lockfile', args.string),
      pluginCache: opt('pluginCache', args.path),
      jobs: opt('jobs', args.count),
    },
    onEvent: opt('onEvent', args.func),
    signal: opt('signal', args.abortSignal),
  };
}

/**
 * An install run of the native client: its promise of the report's text.
 *
 * `onEvent` is called on the JavaScript thread with each event's object,
 * in the order of the run: the native side queues each event's JSON line,
 * then `null` once the run is over (one queue, so after every event), and
 * the promise settles only after that `null`, so that no event comes after
 * it. When `onEvent` throws, the run is cancelled, `onEvent` is not called
 * again and the promise rejects with what it threw. `signal`'s abort
 * cancels the run (a `LockError` of kind `cancelled`, `cause` the signal's
 * reason); a signal already aborted refuses the run before anything is
 * read.
 */
function installRun(nativeClient, dir, nativeOptions, onEvent, signal) {
  const cancel = onEvent || signal ? new native.NativeCancel() : undefined;
  if (signal?.aborted) cancel.cancel();
  let threw = false;
  let thrown;
  let over;
  const ended = onEvent ? new Promise((resolve) => (over = resolve)) : undefined;
  const told = onEvent
    ? (line) => {
        if (line === null) {
          over();
        } else if (!threw) {
          try {
            onEvent(report(line));
          } catch (error) {
            threw = true;
            thrown = error;
            cancel.cancel();
          }
        }
      }
    : undefined;
  // A call refused at once (it throws: no run, no `null` to wait for).
  const running = nativeClient.install(dir, nativeOptions, told, cancel);
  const abort = () => cancel.cancel();
  signal?.addEventListener('abort', abort, { once: true });
  const settle = (outcome) => {
    const done = () => {
      signal?.removeEventListener('abort', abort);
      return outcome();
    };
    return ended ? ended.then(done) : done();
  };
  return running.then(
    (text) =>
      settle(() => {
        if (threw) throw thrown;
        return text;
      }),
    (error) =>
      settle(() => {
        if (threw) throw thrown;
        if (signal?.aborted && error instanceof LockError && error.kind === 'cancelled') {
          error.cause = signal.reason;
        }
        throw error;
      }),
  );
}

/** `call()`'s promise, or a promise rejected with what it threw. */
function promised(call) {
  try {
    return call();
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * A discovery and registry client: finds the services of Terraform/OpenTofu
 * hosts as `terraform init` / `tofu init` would, caches them per host, and
 * asks registries what `init` asks them.
 */
class Client {
  #native;
  #shown;
  #dialectChoice;

  /** @param {object} [options] see index.d.ts */
  constructor(options) {
    const { nativeOptions, shown } = readOptions(options);
    this.#native = new native.NativeClient(nativeOptions);
    shown.dialect = this.#native.dialect;
    this.#shown = shown;
    this.#dialectChoice = Object.freeze(report(this.#native._dialectChoice));
    for (const message of this.#native._diagnostics) {
      process.emitWarning(message, { type: 'TfdiscoConfigWarning', code: 'TFDISCO_CLI_CONFIG' });
    }
  }

  /** The client's dialect: 'opentofu' or 'terraform'. */
  get dialect() {
    return this.#native.dialect;
  }

  /**
   * The client's dialect and what chose it: `{ name, chosenBy, why }`
   * (`chosenBy` 'given', 'variable', 'lock_file', 'tofu_file', 'program' or
   * 'default'), frozen; `JSON.stringify` gives the library's document
   * `{"name", "chosen_by", "why"}`, a report's `dialect` member.
   */
  get dialectChoice() {
    return this.#dialectChoice;
  }

  /** The services `host` offers: a promise of `Services`. */
  discover(host) {
    return promised(() => this.#native.discover(args.host(host, Hostname)));
  }

  /** The base URL of service `id` (`'modules.v1'`) on `host`. */
  serviceUrl(host, id) {
    return promised(() =>
      this.#native.serviceUrl(args.host(host, Hostname), args.string(id, 'The "id" argument')),
    );
  }

  /** The OAuth client service `id` (`'login.v1'`) of `host` describes. */
  oauthClient(host, id) {
    return promised(() =>
      this.#native.oauthClient(args.host(host, Hostname), args.string(id, 'The "id" argument')),
    );
  }

  /** A provider's versions (`tfdisco provider versions --json`). */
  providerVersions(source) {
    return promised(() => this.#native.providerVersions(args.string(source, 'The "source" argument'))).then(
      report,
    );
  }

  /** Where to download a provider package (`tfdisco provider package --json`). */
  providerPackage(source, version, platform) {
    return promised(() =>
      this.#native.providerPackage(
        args.string(source, 'The "source" argument'),
        args.string(version, 'The "version" argument'),
        args.string(platform, 'The "platform" argument'),
      ),
    ).then(report);
  }

  /** A module's versions (`tfdisco module versions --json`). */
  moduleVersions(source) {
    return promised(() => this.#native.moduleVersions(args.string(source, 'The "source" argument'))).then(
      report,
    );
  }

  /**
   * Where to download a version of a registry module, or an `oci://`
   * source's package downloaded into `{ into }` (`tfdisco module download
   * --json`).
   */
  moduleDownload(source, versionOrOptions) {
    return promised(() => {
      const { version, into } = readModuleDownload(versionOrOptions);
      return this.#native.moduleDownload(args.string(source, 'The "source" argument'), version, into);
    }).then(report);
  }

  /** What an `oci://` module source selects (`tfdisco module resolve --json`). */
  moduleResolve(source) {
    return promised(() => this.#native.moduleResolve(args.string(source, 'The "source" argument'))).then(report);
  }

  /** `terraform providers lock` in `dir` (`tfdisco lock --json`). */
  lock(dir, options) {
    return promised(() =>
      this.#native.lock(args.path(dir, 'The "dir" argument'), readLockOptions(options)),
    ).then(report);
  }

  /** `terraform providers mirror folder` for `dir` (`tfdisco mirror --json`). */
  mirror(dir, folder, options) {
    return promised(() =>
      this.#native.mirror(
        args.path(dir, 'The "dir" argument'),
        args.path(folder, 'The "folder" argument'),
        readMirrorOptions(options),
      ),
    ).then(report);
  }

  /**
   * `terraform providers mirror` into the OCI repositories `template` names
   * (`tfdisco mirror --to-oci TEMPLATE --json`).
   */
  mirrorToOci(dir, template, options) {
    return promised(() =>
      this.#native.mirrorToOci(
        args.path(dir, 'The "dir" argument'),
        args.string(template, 'The "template" argument'),
        readMirrorOptions(options, 'client.mirrorToOci(dir, template, options)'),
      ),
    ).then(report);
  }

  /**
   * A provider release's zips published to an OCI repository (`tfdisco oci
   * push-provider --json`).
   */
  pushProvider(repository, version, zips, options) {
    return promised(() =>
      this.#native.pushProvider(
        args.string(repository, 'The "repository" argument'),
        args.string(version, 'The "version" argument'),
        args.strings(zips, 'The "zips" argument', args.path),
        readPushOptions(options),
      ),
    ).then(report);
  }

  /** `terraform init`'s provider installation in `dir` (`tfdisco install --json`). */
  install(dir, options) {
    return promised(() => {
      const path = args.path(dir, 'The "dir" argument');
      const { nativeOptions, onEvent, signal } = readInstallOptions(options);
      return installRun(this.#native, path, nativeOptions, onEvent, signal);
    }).then(report);
  }

  /** `terraform get` in `dir`: every module into `.terraform/modules` (`tfdisco get --json`). */
  get(dir, options) {
    return promised(() =>
      this.#native.get(args.path(dir, 'The "dir" argument'), readGetOptions(options)),
    ).then(report);
  }

  /** Where the token sent to `host` comes from, or null; never the token. */
  credentialsSource(host) {
    return promised(() => this.#native.credentialsSource(args.host(host, Hostname)));
  }

  /** Drops what the cache holds for `host`. */
  forget(host) {
    this.#native.forget(args.host(host, Hostname));
  }

  /** Drops the whole cache (`host` blocks stay). */
  forgetAll() {
    this.#native.forgetAll();
  }

  [util.inspect.custom](depth, options, inspect) {
    if (depth < 0) return options.stylize('[Client]', 'special');
    return `Client ${inspect(this.#shown, { ...options, depth: options.depth === null ? null : options.depth - 1 })}`;
  }
}

module.exports = { Client };
