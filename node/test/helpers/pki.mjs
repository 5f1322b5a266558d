// A test PKI made with the openssl command line: a CA and a leaf for
// localhost, 127.0.0.1 and *.tfdisco.test (the hosts the tests reach
// through the client's `resolve` option). Made once per test process.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './env.mjs';

let made;

function openssl(args, cwd) {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** `{ ca, cert, key }`: the CA file's path, the leaf's PEM and key PEM. */
export function pki() {
  if (made) return made;
  const dir = tempDir('tfdisco-pki-');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2',
      '-subj', '/CN=tfdisco node tests CA',
      '-addext', 'basicConstraints=critical,CA:TRUE',
      '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    dir,
  );
  fs.writeFileSync(
    path.join(dir, 'leaf.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:*.tfdisco.test\n' +
      'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  openssl(['req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost'], dir);
  openssl(
    ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
      '-out', 'leaf.pem', '-days', '2', '-extfile', 'leaf.ext'],
    dir,
  );
  made = {
    ca: path.join(dir, 'ca.pem'),
    cert: fs.readFileSync(path.join(dir, 'leaf.pem')),
    key: fs.readFileSync(path.join(dir, 'leaf.key')),
  };
  return made;
}
