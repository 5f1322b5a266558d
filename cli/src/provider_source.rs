//! `tfdisco provider source SOURCE`: which installation methods of the CLI
//! configuration would install a provider, in priority order, and why
//! (docs/behaviour.md, INST-1 to INST-12).

use std::path::Path;

use serde_json::{Value, json};
use tfdisco_config::{
    Diagnostic, Severity, implied_mirror_diagnostics, implied_provider_installation, oci_repository,
};
use tfdisco_core::{Dialect, ProviderSource};
use tfdisco_provider::{Choice, InstallationMethod, MethodChoice, MethodKind, MethodSummary};

use crate::exit;
use crate::failure::{self, Failure};
use crate::setup;

/// What tfdisco says of a method it does not use itself.
const OCI_UNSUPPORTED: &str =
    "not supported by tfdisco, which does not install from OCI registries";

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
    let mut diagnostics: Vec<Diagnostic> = config.diagnostics().to_vec();
    let (installation, block) = match config.explicit_provider_installation() {
        Some(explicit) => {
            let first = &config.provider_installation_blocks()[0];
            (
                explicit.clone(),
                Some((first.file().to_owned(), first.line())),
            )
        }
        None => {
            let (implied, mirrors) = implied_provider_installation(dialect, setup.env(), &cwd);
            let scanned = implied_mirror_diagnostics(&mirrors);
            for d in &scanned {
                eprintln!("tfdisco: warning: {}", d.located());
            }
            diagnostics.extend(scanned);
            (implied, None)
        }
    };
    let lines: Vec<Line> = installation
        .summary(&source)
        .into_iter()
        .zip(installation.methods_for(&source))
        .map(|(summary, choice)| Line::new(summary, &choice, &source))
        .collect();
    let installs = lines
        .iter()
        .any(|l| l.summary.may_install && l.summary.priority.is_some());
    if json {
        let out = json!({
            "source": source.to_string(),
            "dialect": dialect.name(),
            "configuration": {
                "implied": installation.implied,
                "file": block.as_ref().map(|(f, _)| f.display().to_string()),
                "line": block.as_ref().map(|(_, l)| *l),
                "working_directory": cwd.display().to_string(),
            },
            "methods": lines.iter().map(Line::json).collect::<Vec<_>>(),
            "diagnostics": diagnostics.iter().map(diagnostic_json).collect::<Vec<_>>(),
        });
        println!("{out}");
    } else {
        println!("provider  {source}");
        match &block {
            Some((file, line)) => println!(
                "config    the provider_installation block at {}:{line}",
                file.display()
            ),
            None => println!(
                "config    implied (no provider_installation block), from {}",
                cwd.display()
            ),
        }
        for line in &lines {
            print!("{}", line.human());
        }
        if installs {
            println!(
                "versions come from every method that may install it; a version's package from \
                 the first of them that has it"
            );
        } else {
            println!("no installation method may install it");
        }
    }
    Ok(if installs {
        exit::SUCCESS
    } else {
        exit::NOT_PROVIDED
    })
}

/// One method (or the development override), ready to print: its
/// summary, and for an `oci_mirror` the repository it maps the provider to.
struct Line {
    summary: MethodSummary,
    oci: Option<Result<(String, String), String>>,
}

impl Line {
    fn new(summary: MethodSummary, choice: &MethodChoice<'_>, source: &ProviderSource) -> Line {
        let oci = match choice.choice {
            Choice::Method(InstallationMethod {
                kind:
                    MethodKind::OciMirror {
                        repository_template,
                    },
                ..
            }) => Some(oci_repository(repository_template, source)),
            _ => None,
        };
        Line { summary, oci }
    }

    fn human(&self) -> String {
        let s = &self.summary;
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
        match &self.oci {
            Some(Ok((registry, repository))) => text.push_str(&format!(
                "   OCI registry {registry}, repository {repository}: {OCI_UNSUPPORTED}\n"
            )),
            Some(Err(e)) => {
                text.push_str(&format!("   no OCI repository: {e}; {OCI_UNSUPPORTED}\n"))
            }
            None => {}
        }
        text
    }

    fn json(&self) -> Value {
        let s = &self.summary;
        let mut out = json!({
            "priority": s.priority,
            "method": s.method,
            "location": s.location,
            "may_install": s.may_install,
            "reason": s.reason,
            "supported": s.supported,
        });
        match &self.oci {
            Some(Ok((registry, repository))) => {
                out["oci"] = json!({ "registry": registry, "repository": repository });
            }
            Some(Err(e)) => out["oci"] = json!({ "error": e }),
            None => {}
        }
        out
    }
}

fn diagnostic_json(d: &Diagnostic) -> Value {
    json!({
        "severity": match d.severity() {
            Severity::Error => "error",
            _ => "warning",
        },
        "message": d.to_string(),
        "file": d.file().map(|f| f.display().to_string()),
        "line": d.line(),
    })
}
