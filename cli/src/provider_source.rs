//! `tfdisco provider source SOURCE`: which installation methods of the CLI
//! configuration would install a provider, in priority order, and why
//! (docs/behaviour.md, INST-1 to INST-12).

use std::path::Path;

use tfdisco_config::{InstallationReport, MethodReport};
use tfdisco_core::{Dialect, ProviderSource};

use crate::exit;
use crate::failure::{self, Failure, json_text};
use crate::setup;

pub(crate) fn run(
    given: &str,
    dialect: Dialect,
    dir: Option<&Path>,
    json: bool,
) -> Result<u8, Failure> {
    failure::report(json, answer(given, dialect, dir, json))
}

fn answer(given: &str, dialect: Dialect, dir: Option<&Path>, json: bool) -> Result<u8, Failure> {
    let source = ProviderSource::parse_argument(given, dialect)?;
    let setup = setup::load_dialect(dialect)?;
    let config = setup
        .cli_config()
        .expect("the CLI configuration is read by default");
    let cwd = match dir {
        Some(dir) => dir.to_owned(),
        None => std::env::current_dir().map_err(Failure::from)?,
    };
    let report = config.installation_report(&source, &cwd);
    // The configuration's own problems were printed when it was read.
    for d in &report.choice.warnings {
        eprintln!("tfdisco: warning: {}", d.located());
    }
    if json {
        println!("{}", json_text(&report));
    } else {
        print!("{}", human(&report));
    }
    Ok(if report.may_install() {
        exit::SUCCESS
    } else {
        exit::NOT_PROVIDED
    })
}

/// The report for people.
fn human(report: &InstallationReport) -> String {
    let mut out = format!("provider  {}\n", report.source);
    match &report.choice.block {
        Some((file, line)) => out.push_str(&format!(
            "config    the provider_installation block at {}:{line}\n",
            file.display()
        )),
        None => out.push_str(&format!(
            "config    implied (no provider_installation block), from {}\n",
            report.choice.working_directory.display()
        )),
    }
    for method in &report.methods {
        out.push_str(&line(method));
    }
    out.push_str(if report.may_install() {
        "versions come from every method that may install it; a version's package from the \
         first of them that has it\n"
    } else {
        "no installation method may install it\n"
    });
    out
}

/// One method (or the development override), for people.
fn line(method: &MethodReport) -> String {
    let s = &method.summary;
    let number = s
        .priority
        .map_or_else(|| "-".to_owned(), |n| format!("{n}."));
    let verdict = if s.may_install {
        "may install it"
    } else {
        "skipped"
    };
    let mut text = format!(
        "{number} {} {}\n   {verdict}: {}\n",
        s.method, s.location, s.reason
    );
    match &method.oci {
        Some(Ok((registry, repository))) => text.push_str(&format!(
            "   OCI registry {registry}, repository {repository}\n"
        )),
        Some(Err(e)) => text.push_str(&format!("   no OCI repository: {e}\n")),
        None => {}
    }
    text
}
