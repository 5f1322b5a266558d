//! `tfdisco discover HOST [SERVICE_ID...]`: the services of a host.

use tfdisco_core::{Error, ServiceId};
use tfdisco_transport::Event;

use crate::exit;
use crate::failure::{self, Fail, Failure};
use crate::net::{self, NetOpts};
use crate::report::Report;
use crate::setup::Setup;

/// Discovers `host` and shows its services (only `ids` when given). With
/// `json`, failures are reported on stdout as `{"error": {kind, message}}`
/// too; the exit code is the same either way.
pub(crate) fn run(host: &str, ids: &[String], json: bool, opts: &NetOpts) -> Result<u8, Failure> {
    failure::report(json, discover(host, ids, json, opts))
}

fn discover(host: &str, ids: &[String], json: bool, opts: &NetOpts) -> Result<u8, Fail> {
    let host = tfdisco_core::Hostname::parse(host).map_err(|error| {
        Fail::Core(Error::InvalidHostname {
            input: host.to_owned(),
            error,
        })
    })?;
    // Bad service ids are usage errors: say so before touching the network.
    for id in ids {
        ServiceId::parse(id, opts.dialect).map_err(|e| Fail::Core(e.into()))?;
    }
    let setup = Setup::load(opts.dialect);
    let client = net::client(opts, &setup)?;
    let services = client
        .discover_observed(&host, Some(&mut warn_on_credentials_failure))
        .map_err(Fail::Core)?;
    let report = Report {
        services: &services,
        ids,
    };
    if json {
        println!("{}", report.json());
    } else {
        print!("{}", report.human());
    }
    Ok(report
        .first_error()
        .map_or(exit::SUCCESS, |e| exit::for_kind(e.kind())))
}

/// A credentials lookup that failed does not stop discovery (as in
/// Terraform), but people should know the request went without.
pub(crate) fn warn_on_credentials_failure(event: &Event<'_>) {
    if let Event::CredentialsFailed { host, error } = event {
        eprintln!(
            "tfdisco: warning: credentials for {}: {error}; discovering without credentials",
            host.display()
        );
    }
}
