//! Reads hostnames, one per line, on stdin and prints one JSON object per line:
//!
//! ```text
//! {"input": "Example.COM:443", "comparison": "example.com", "error": null, "display": "example.com"}
//! ```
//!
//! `comparison` and `error` come from `Hostname::parse` (svchost
//! `ForComparison`); `display` is the liberal package-level display form
//! (svchost `ForDisplay`). The format is fixed: it is used to compare this
//! crate with the Go implementation on large corpora.
//!
//! Lines end at `\n` (a `\r` before it is dropped, like Go's `bufio.Scanner`);
//! bytes that are not UTF-8 are replaced with U+FFFD.
//!
//! ```text
//! cargo run -p tfdisco-core --example normalize < hostnames.txt
//! ```

use std::io::{self, BufRead, BufWriter, Write};

use tfdisco_core::Hostname;
use tfdisco_core::hostname::for_display;

fn json(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

fn main() -> io::Result<()> {
    let stdin = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.split(b'\n') {
        let mut line = line?;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let input = String::from_utf8_lossy(&line);
        let (comparison, error) = match Hostname::parse(&input) {
            Ok(h) => (json(h.as_str()), "null".to_owned()),
            Err(e) => ("null".to_owned(), json(&e.kind().to_string())),
        };
        let written = writeln!(
            out,
            "{{\"input\": {}, \"comparison\": {comparison}, \"error\": {error}, \"display\": {}}}",
            json(&input),
            json(&for_display(&input)),
        );
        match written {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
            other => other?,
        }
    }
    match out.flush() {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
