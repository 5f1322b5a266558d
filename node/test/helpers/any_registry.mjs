// `tfdisco-dev serve --any-registry DIR`: the registry that answers for any
// provider (testkit/src/any_registry.rs: every namespace and
// type, a long list of versions, signed packages for five platforms) on a
// loopback port of its own, and beside it a network mirror of the tree
// Terraform's `providers mirror` wrote for the signed registry
// (`mirror-fresh`: ns/alpha 1.1.0 and ns/beta 0.10.0), under
// registry.terraform.io and registry.opentofu.org
// (dev-server/src/serve/any_registry.rs).
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { tempDir, tfdiscoDevBin } from './env.mjs';

export class AnyRegistry {
  /**
   * Starts it. Its members: `host` (`localhost:PORT`), `ca` (the CA file
   * to trust), `cliConfig` (a CLI configuration whose `host` blocks send
   * registry.terraform.io and registry.opentofu.org to the registry, for
   * `TF_CLI_CONFIG_FILE`), `hosts`, `platforms`, `keyId` (the key that
   * signs every SHA256SUMS), `mirror` (the mirror's URL) and `mirrorTree`
   * (the folder of the tree it serves, the providers' host's folder named
   * `{HOST}`).
   */
  static async start() {
    const dir = tempDir('tfdisco-any-registry-');
    const child = spawn(
      tfdiscoDevBin(),
      ['serve', '--listen', '127.0.0.1:0', '--ca-out', path.join(dir, 'ca.pem'), '--any-registry', path.join(dir, 'config')],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    const served = new AnyRegistry(child);
    await served.ready;
    return served;
  }

  constructor(child) {
    this.child = child;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const lines = readline.createInterface({ input: child.stdout });
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('tfdisco-dev serve --any-registry did not start')), 30_000);
      lines.on('line', (line) => {
        if (line.startsWith('any-registry ')) {
          const d = JSON.parse(line.slice('any-registry '.length));
          Object.assign(this, {
            host: d.host,
            ca: d.ca_file,
            cliConfig: d.cli_config,
            hosts: d.hosts,
            platforms: d.platforms,
            keyId: d.key_id,
            mirror: d.mirror,
            mirrorTree: d.mirror_tree,
          });
        } else if (line.startsWith('press Ctrl-C')) {
          clearTimeout(timer);
          if (this.host === undefined) reject(new Error(`tfdisco-dev serve did not describe the any registry: ${stderr}`));
          else resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`tfdisco-dev serve --any-registry exited (${code}): ${stderr}`));
      });
    });
    // Unhandled once started: the exit that `stop` causes is no failure.
    this.ready.catch(() => {});
  }

  stop() {
    this.child.kill();
  }
}
