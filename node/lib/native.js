'use strict';
// Loads the native addon built for this platform: the package ships it
// prebuilt (`tfdisco.<platform>-<arch>[-<abi>].node` next to package.json),
// so installing needs no build.

const path = require('node:path');

/** The napi-rs name of this platform: linux-x64-gnu, darwin-arm64, … */
function platformName() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
    const glibc = report?.header?.glibcVersionRuntime;
    return `${platform}-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `${platform}-${arch}-msvc`;
  return `${platform}-${arch}`;
}

function load() {
  const name = platformName();
  const file = path.join(__dirname, '..', `tfdisco.${name}.node`);
  try {
    return require(file);
  } catch (error) {
    if (error && error.code === 'MODULE_NOT_FOUND') {
      const hint = new Error(
        `tfdisco has no prebuilt native module for ${name} (looked for ${file}); ` +
          'build it from the repository: cd node && npm install && npm run build',
      );
      hint.code = 'ERR_TFDISCO_NO_NATIVE_MODULE';
      hint.cause = error;
      throw hint;
    }
    throw error;
  }
}

module.exports = load();
