//! `tfdisco normalize`: comparison form, display form, or the error, per input.

use std::io::{self, BufRead, Write};

use serde::Serialize;
use tfdisco_core::Hostname;
use tfdisco_core::hostname::for_display;

use crate::exit;

/// One input's result; the same fields as `core/examples/normalize.rs`.
#[derive(Serialize)]
struct Normalized<'a> {
    input: &'a str,
    comparison: Option<String>,
    error: Option<String>,
    /// The liberal display form (svchost `ForDisplay`), for valid and
    /// invalid inputs alike.
    display: String,
}

impl<'a> Normalized<'a> {
    fn of(input: &'a str) -> Normalized<'a> {
        let (comparison, error) = match Hostname::parse(input) {
            Ok(h) => (Some(h.as_str().to_owned()), None),
            Err(e) => (None, Some(e.kind().to_string())),
        };
        Normalized {
            input,
            comparison,
            error,
            display: for_display(input),
        }
    }
}

/// Normalizes `hosts`, or the lines of stdin when there are none. Exits 2 when
/// any input is invalid.
pub(crate) fn run(hosts: &[String], json: bool) -> io::Result<u8> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut any_invalid = false;
    let mut one = |input: &str, out: &mut dyn Write| -> io::Result<()> {
        let n = Normalized::of(input);
        any_invalid |= n.error.is_some();
        if json {
            serde_json::to_writer(&mut *out, &n)?;
            writeln!(out)
        } else {
            match Hostname::parse(input) {
                Ok(h) => writeln!(out, "{input}\t{h}\t{}", h.display()),
                Err(e) => writeln!(out, "{input}\terror: {}", e.kind()),
            }
        }
    };
    if hosts.is_empty() {
        for line in io::stdin().lock().split(b'\n') {
            let mut line = line?;
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            one(&String::from_utf8_lossy(&line), &mut out)?;
        }
    } else {
        for host in hosts {
            one(host, &mut out)?;
        }
    }
    out.flush()?;
    Ok(if any_invalid {
        exit::USAGE
    } else {
        exit::SUCCESS
    })
}
