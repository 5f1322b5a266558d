//! docs/cli.md is the long help of `tfdisco` and of every command it lists,
//! as `tfdisco help COMMAND…` prints it: rendered here from the built binary,
//! so the reference cannot drift from the CLI. With
//! `TFDISCO_WRITE_CLI_REFERENCE=1` the test rewrites the file instead.
//!
//! Also the shape of the help itself: one short line a command in every
//! command list, and no option that shows its default twice.

use std::path::Path;
use std::process::Command;

const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cli.md");
const WRITE_VAR: &str = "TFDISCO_WRITE_CLI_REFERENCE";
const REGENERATE: &str = "TFDISCO_WRITE_CLI_REFERENCE=1 cargo test -p tfdisco --test cli_reference";
/// The widest a line of a command list may be (`tfdisco --help`'s, and
/// those of the commands with commands of their own).
const COMMAND_LIST_WIDTH: usize = 80;

/// `tfdisco args…` with no environment but PATH (and a fixed width, should
/// clap ever wrap to the terminal's): nothing the machine sets (CA
/// variables, a home, TFDISCO_DIALECT) shapes the text; stdout is a pipe,
/// so no colour either.
fn tfdisco(args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tfdisco"))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("COLUMNS", "100")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

/// `tfdisco help path…`, as messages name it.
fn shown(path: &[String]) -> String {
    std::iter::once("tfdisco help")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `tfdisco help path…`.
fn help(path: &[String]) -> String {
    let args: Vec<String> = std::iter::once("help".to_owned())
        .chain(path.iter().cloned())
        .collect();
    let out = tfdisco(&args);
    let stdout = String::from_utf8(out.stdout).expect("the help is UTF-8");
    assert!(
        out.status.success(),
        "{}: {:?}\n{}",
        shown(path),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The lines of the help's `Commands:` list.
fn command_list(help: &str) -> Vec<&str> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect()
}

/// The commands the help lists, but `help`. Hidden ones are not listed.
fn commands(help: &str) -> Vec<String> {
    command_list(help)
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// `tfdisco` and every command under it, depth first in the order the
/// help lists them, with its long help.
fn every_help() -> Vec<(Vec<String>, String)> {
    fn walk(path: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
        let text = help(&path);
        let children = commands(&text);
        out.push((path.clone(), text));
        for name in children {
            let mut child = path.clone();
            child.push(name);
            walk(child, out);
        }
    }
    let mut out = Vec::new();
    walk(Vec::new(), &mut out);
    out
}

/// docs/cli.md as the binary's help makes it. Trailing spaces (clap leaves
/// some on blank lines) are trimmed.
fn render(helps: &[(Vec<String>, String)]) -> String {
    let mut doc = format!(
        "# tfdisco command-line reference\n\n\
         Generated from `tfdisco help COMMAND`: do not edit; regenerate with `{REGENERATE}`.\n"
    );
    for (path, text) in helps {
        assert!(
            !text.contains("```"),
            "the help of {path:?} holds a code fence"
        );
        let name = std::iter::once("tfdisco")
            .chain(path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let level = "#".repeat(2 + path.len().saturating_sub(1));
        let body: Vec<&str> = text.trim_end().lines().map(str::trim_end).collect();
        doc.push_str(&format!(
            "\n{level} {name}\n\n```text\n{}\n```\n",
            body.join("\n")
        ));
    }
    doc
}

#[test]
fn docs_cli_md_is_the_help_of_every_command() {
    let helps = every_help();
    let names: Vec<String> = helps.iter().map(|(p, _)| p.join(" ")).collect();
    // The walk found the commands and their subcommands, and no hidden one.
    for want in [
        "discover",
        "lock",
        "provider source",
        "module download",
        "oci push-provider",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    let want = render(&helps);
    let path = Path::new(REFERENCE);
    if std::env::var_os(WRITE_VAR).is_some_and(|v| !v.is_empty()) {
        std::fs::write(path, &want).expect("write docs/cli.md");
        return;
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    if have != want {
        let first = have
            .lines()
            .zip(want.lines())
            .position(|(h, w)| h != w)
            .unwrap_or_else(|| have.lines().count().min(want.lines().count()));
        panic!(
            "docs/cli.md is out of date: run `{REGENERATE}`\n\
             (first difference at line {}: {:?} in the file, {:?} in the help)",
            first + 1,
            have.lines().nth(first).unwrap_or(""),
            want.lines().nth(first).unwrap_or(""),
        );
    }
}

#[test]
fn every_command_list_is_one_short_line_a_command() {
    let mut checked = 0;
    for (path, text) in every_help() {
        for line in command_list(&text) {
            checked += 1;
            assert!(
                line.starts_with("  ") && line.trim_start().split_once("  ").is_some(),
                "{}: a command without its summary on its line: {line:?}",
                shown(&path)
            );
            assert!(
                line.chars().count() <= COMMAND_LIST_WIDTH,
                "{}: {} columns, more than {COMMAND_LIST_WIDTH}: the command's \
                 first paragraph should be one short line, its detail the paragraphs after:\n{line}",
                shown(&path),
                line.chars().count()
            );
        }
    }
    assert!(checked > 15, "only {checked} commands listed");
    // `tfdisco --help` is that summary, one line each, as `-h` prints it.
    let top = tfdisco(&["--help".to_owned()]);
    let top = String::from_utf8(top.stdout).expect("UTF-8");
    for line in top.lines() {
        assert!(
            line.chars().count() <= COMMAND_LIST_WIDTH,
            "tfdisco --help: {line:?} is wider than {COMMAND_LIST_WIDTH}\n{top}"
        );
    }
    assert_eq!(top, help(&[]), "tfdisco --help is not tfdisco help");
}

#[test]
fn no_option_shows_its_default_twice() {
    for (path, text) in every_help() {
        // An argument's block: its line (`  -v, --verbose`, `      --json`,
        // `  <HOST>`) and the deeper indented lines of its help.
        let mut block: Vec<&str> = Vec::new();
        let check = |block: &[&str]| {
            let joined = block.join("\n");
            assert!(
                joined.matches("[default:").count() <= 1,
                "{}: a default said twice (in the text and by clap?):\n{joined}",
                shown(&path)
            );
        };
        for line in text.lines() {
            let indent = line.len() - line.trim_start().len();
            let starts_arg =
                (2..=6).contains(&indent) && line.trim_start().starts_with(['-', '<', '[']);
            if starts_arg || indent == 0 && !line.is_empty() {
                check(&block);
                block.clear();
            }
            block.push(line);
        }
        check(&block);
    }
}
