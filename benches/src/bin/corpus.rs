//! Prints the benchmarks' deterministic corpus of hostnames, one per line, so
//! the `normalize` example's output on it can be compared across builds:
//!
//! ```text
//! cargo run --release -p tfdisco-benches --bin corpus > corpus.txt
//! cargo run --release -p tfdisco-core --example normalize < corpus.txt | sha256sum
//! ```
//!
//! The optional argument is the number of names (10 000 by default); with
//! `--edges` first, it prints the corpus of names near the edges of the
//! ASCII fast path instead (`hostnames::edge_corpus`).

use std::io::{self, BufWriter, Write};

use tfdisco_benches::hostnames::{corpus, edge_corpus};

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1).peekable();
    let edges = args.next_if(|a| a == "--edges").is_some();
    let n = match args.next() {
        Some(n) => n
            .parse()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?,
        None => 10_000,
    };
    let names = if edges { edge_corpus(n) } else { corpus(n) };
    let mut out = BufWriter::new(io::stdout().lock());
    for name in names {
        writeln!(out, "{name}")?;
    }
    out.flush()
}
