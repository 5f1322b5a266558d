// The deterministic hostname corpus of the Rust benchmarks
// (benches/src/hostnames.rs, `corpus(n)`), generated the same way:
// about half already normalized, a fifth in mixed case or with ports, a
// sixth international, the rest invalid. The parity test checks that the
// Rust `normalize` example's output over it has the hash benches/README.md
// records, which pins this generator to the Rust one.

const MASK = (1n << 64n) - 1n;

const WORDS = [
  'registry', 'terraform', 'opentofu', 'app', 'tfe', 'internal', 'example', 'corp',
  'platform', 'mirror', 'eu-west-1', 'prod', 'build', 'modules', 'cdn', 'int',
];
const GOOD_PORTS = [':443', ':8443', ':081', ':65535'];
const BAD_PORTS = [':0', ':+80', ':99999', ':http'];
const TLDS = ['com', 'io', 'org', 'net', 'de', 'co.uk'];
const UNICODE_WORDS = ['münchen', 'испытание', 'bücher', 'faß', '例え', 'δοκιμή', 'ÉCOLE', 'ｅｘａｍｐｌｅ'];

/** xorshift64*, as benches/src/rng.rs. */
class Rng {
  constructor(seed) {
    this.state = (BigInt(seed) | 1n) & MASK;
  }

  next() {
    let x = this.state;
    x ^= x >> 12n;
    x ^= (x << 25n) & MASK;
    x ^= x >> 27n;
    this.state = x;
    return (x * 0x2545f4914f6cdd1dn) & MASK;
  }

  below(n) {
    return Number(this.next() % BigInt(n));
  }

  pick(items) {
    return items[this.below(items.length)];
  }
}

function capitalize(label) {
  const [first, ...rest] = [...label];
  if (first === undefined) return label;
  return (/^[a-z]$/.test(first) ? first.toUpperCase() : first) + rest.join('');
}

function one(rng) {
  const labels = 1 + rng.below(3);
  let name = [];
  for (let i = 0; i < labels; i++) name.push(rng.pick(WORDS));
  name.push(rng.pick(TLDS));
  const kind = rng.below(100);
  if (kind < 50) {
    // already normalized
  } else if (kind < 60) {
    name = name.map(capitalize);
  } else if (kind < 70) {
    name[name.length - 1] += rng.pick(GOOD_PORTS);
  } else if (kind < 86) {
    name[0] = rng.pick(UNICODE_WORDS);
  } else if (kind < 90) {
    name[0] += '_';
  } else if (kind < 94) {
    name.splice(1, 0, '');
  } else if (kind < 97) {
    name[0] = 'xn--mnchen-3ya';
  } else {
    name[name.length - 1] += rng.pick(BAD_PORTS);
  }
  return name.join('.');
}

/** `n` hostnames as users type them, the same on every run. */
export function corpus(n = 10_000) {
  const rng = new Rng(0x7f4a7c15);
  return Array.from({ length: n }, () => one(rng));
}
