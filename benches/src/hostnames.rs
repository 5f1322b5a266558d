//! Hostnames to normalize: single inputs per case and a mixed corpus.

use crate::rng::Rng;

/// An already-normalized ASCII hostname.
pub const ASCII_NORMALIZED: &str = "registry.terraform.io";

/// The same name in mixed case with the default port, which is dropped.
pub const MIXED_CASE_PORT_443: &str = "Registry.Terraform.IO:443";

/// International names, each with a short ASCII label for benchmark ids.
pub const IDN: [(&str, &str); 2] = [("muenchen", "münchen.de"), ("cyrillic", "Испытание.com")];

const WORDS: [&str; 16] = [
    "registry",
    "terraform",
    "opentofu",
    "app",
    "tfe",
    "internal",
    "example",
    "corp",
    "platform",
    "mirror",
    "eu-west-1",
    "prod",
    "build",
    "modules",
    "cdn",
    "int",
];
const GOOD_PORTS: [&str; 4] = [":443", ":8443", ":081", ":65535"];
const BAD_PORTS: [&str; 4] = [":0", ":+80", ":99999", ":http"];
const TLDS: [&str; 6] = ["com", "io", "org", "net", "de", "co.uk"];
const UNICODE_WORDS: [&str; 8] = [
    "münchen",
    "испытание",
    "bücher",
    "faß",
    "例え",
    "δοκιμή",
    "ÉCOLE",
    "ｅｘａｍｐｌｅ",
];

/// A deterministic corpus of `n` hostnames as users type them: about half
/// already normalized, a fifth in mixed case or with ports, a sixth
/// international, and the rest invalid (underscores, empty labels, punycode
/// input, bad ports).
pub fn corpus(n: usize) -> Vec<String> {
    let mut rng = Rng::new(0x7f4a_7c15);
    (0..n).map(|_| one(&mut rng)).collect()
}

fn one(rng: &mut Rng) -> String {
    let labels = 1 + rng.below(3);
    let mut name: Vec<String> = (0..labels).map(|_| rng.pick(&WORDS).to_owned()).collect();
    name.push(rng.pick(&TLDS).to_owned());
    let kind = rng.below(100);
    match kind {
        0..50 => {}
        50..60 => name.iter_mut().for_each(|l| *l = capitalize(l)),
        60..70 => {
            let last = name.len() - 1;
            name[last].push_str(rng.pick(&GOOD_PORTS));
        }
        70..86 => name[0] = rng.pick(&UNICODE_WORDS).to_owned(),
        86..90 => name[0].push('_'),
        90..94 => name.insert(1, String::new()),
        94..97 => name[0] = "xn--mnchen-3ya".to_owned(),
        _ => {
            let last = name.len() - 1;
            name[last].push_str(rng.pick(&BAD_PORTS));
        }
    }
    name.join(".")
}

const EDGE_LABELS: [&str; 20] = [
    "a",
    "Ab",
    "registry",
    "TERRAFORM",
    "x1",
    "eu-west-1",
    "b-c",
    "0",
    "xn--p1ai",
    "a--b",
    "-a",
    "a-",
    "",
    "ü",
    "a_b",
    "a b",
    "platform",
    "Corp",
    "example",
    "IO",
];
const EDGE_SEPARATORS: [&str; 6] = [".", ".", ".", ".", "-", "\u{3002}"];
const EDGE_PORTS: [&str; 12] = [
    "", "", "", ":443", ":8443", ":081", ":0", ":65535", ":65536", ":", ":4a", ":443:1",
];

/// A deterministic corpus of `n` names near the edges of the ASCII fast
/// path of `Hostname::parse`: lengths around 16, 32, 48 and 62 bytes, case,
/// ports it takes and ports it leaves, `-` and `.` in every position, `--`,
/// and a few bytes no hostname has. Most are invalid.
pub fn edge_corpus(n: usize) -> Vec<String> {
    let mut rng = Rng::new(0x1357_9bdf);
    (0..n)
        .map(|_| {
            let mut name = String::new();
            for i in 0..1 + rng.below(12) {
                if i > 0 {
                    name.push_str(rng.pick(&EDGE_SEPARATORS));
                }
                name.push_str(rng.pick(&EDGE_LABELS));
            }
            if rng.below(8) == 0 {
                name.push('.');
            }
            name.push_str(rng.pick(&EDGE_PORTS));
            name
        })
        .collect()
}

fn capitalize(label: &str) -> String {
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use tfdisco_core::Hostname;

    #[test]
    fn the_corpus_is_mixed_and_deterministic() {
        let names = super::corpus(10_000);
        assert_eq!(names, super::corpus(10_000));
        let valid = names.iter().filter(|n| Hostname::parse(n).is_ok()).count();
        let unicode = names.iter().filter(|n| !n.is_ascii()).count();
        assert!((7_500..9_000).contains(&valid), "{valid} valid");
        assert!((1_200..2_000).contains(&unicode), "{unicode} international");
    }
}
