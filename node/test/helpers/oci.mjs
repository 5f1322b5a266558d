// `tfdisco-dev serve --oci-registry MODE` (`anonymous` or `basic`): a real OCI
// registry (the testkit's OciRegistry: Debian's `docker-registry` as a
// child of the serve process) holding a module package and the signed
// registry's providers as an OCI mirror (dev-server/src/serve/oci.rs). Closing
// the serve process's stdin stops it, and the registry with it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { tempDir, tfdiscoDevBin } from './env.mjs';

export class OciServed {
  /**
   * Starts the registry in `mode`. Its members: `mode`, `host`
   * (`127.0.0.1:PORT`), `ca` (the CA file to trust), `username` and
   * `password` (null when anonymous), `module` (`repository`, `source`,
   * `tags`, `digest`, `size`, `packageDigest`, `packageSize`, `files`:
   * name to text), `notAModule` (a source whose tag names a provider's
   * index) and `mirrorTemplate` (the mirror's `-oci-mirror` template).
   */
  static async start(mode) {
    const dir = tempDir(`tfdisco-oci-${mode}-`);
    const child = spawn(
      tfdiscoDevBin(),
      ['serve', '--listen', '127.0.0.1:0', '--ca-out', path.join(dir, 'serve-ca.pem'), '--oci-registry', mode],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    const served = new OciServed(mode, child);
    await served.ready;
    return served;
  }

  constructor(mode, child) {
    this.child = child;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const lines = readline.createInterface({ input: child.stdout });
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`tfdisco-dev serve --oci-registry ${mode} did not start`)), 120_000);
      lines.on('line', (line) => {
        if (line.startsWith('oci-registry ')) {
          const d = JSON.parse(line.slice('oci-registry '.length));
          Object.assign(this, {
            mode: d.mode,
            host: d.host,
            ca: d.ca_file,
            username: d.username,
            password: d.password,
            module: {
              repository: d.module.repository,
              source: d.module.source,
              tags: d.module.tags,
              digest: d.module.digest,
              size: d.module.size,
              packageDigest: d.module.package_digest,
              packageSize: d.module.package_size,
              files: d.module.files,
            },
            notAModule: d.not_a_module,
            mirrorTemplate: d.mirror_template,
          });
        } else if (line.startsWith('press Ctrl-C')) {
          clearTimeout(timer);
          if (this.host === undefined) reject(new Error(`tfdisco-dev serve did not describe its registry: ${stderr}`));
          else resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`tfdisco-dev serve --oci-registry ${mode} exited (${code}): ${stderr}`));
      });
    });
    // Unhandled once started: the exit that `stop` causes is no failure.
    this.ready.catch(() => {});
  }

  /** The module's `oci://` source, `rest` (`?tag=1.0.0`, `//sub`) after it. */
  source(rest = '') {
    return `${this.module.source}${rest}`;
  }

  /**
   * Writes a CLI configuration file in `dir` with an `oci_credentials`
   * block for the registry: the user and `password` (default: the right
   * one). Returns its path.
   */
  cliConfig(dir, password = this.password) {
    const file = path.join(dir, `tofu-${Math.random().toString(36).slice(2)}.rc`);
    fs.writeFileSync(
      file,
      `oci_credentials "${this.host}" {\n  username = "${this.username ?? 'ci'}"\n  password = "${password}"\n}\n`,
    );
    return file;
  }

  /** Stops the serve process (its stdin closed), the registry with it. */
  async stop() {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill(), 15_000);
    await exited;
    clearTimeout(timer);
  }
}
