//! `tfdisco discover HOST [SERVICE_ID...]`: the services of a host.

use tfdisco_core::{Error, ServiceId};
use tfdisco_transport::Event;

use crate::exit;
use crate::failure::{self, Failure, json_text};
use crate::net::{self, NetOpts};
use crate::report::Report;

/// Discovers `host` and shows its services (only `ids` when given). With
/// `json`, failures are reported on stdout as `{"error": {kind, message}}`
/// too; the exit code is the same either way.
pub(crate) fn run(host: &str, ids: &[String], json: bool, opts: &NetOpts) -> Result<u8, Failure> {
    failure::report(json, discover(host, ids, json, opts))
}

fn discover(host: &str, ids: &[String], json: bool, opts: &NetOpts) -> Result<u8, Failure> {
    let host = tfdisco_core::Hostname::parse(host).map_err(Error::from)?;
    // Bad service ids are usage errors: say so before touching the network.
    for id in ids {
        ServiceId::parse(id, opts.dialect()).map_err(Error::from)?;
    }
    let client = net::client(opts)?;
    let call = client.as_async().discover(&host);
    let services = client.wait(call.observe(&mut credentials_warnings()))?;
    let report = Report(services.report(ids));
    if json {
        println!("{}", json_text(&services.report(ids)));
    } else {
        print!("{}", report.human());
    }
    Ok(report
        .first_error()
        .map_or(exit::SUCCESS, |e| exit::for_kind(e.kind())))
}

/// A credentials lookup that failed does not stop discovery or a registry
/// request (as in Terraform), but people should know it went without. A
/// registry call looks the host up twice (for the discovery, then for the
/// request): one warning per host.
pub(crate) fn credentials_warnings() -> impl FnMut(&Event<'_>) + Send {
    let mut warned = Vec::new();
    move |event| {
        if let Event::CredentialsFailed { host, error } = event
            && !warned.contains(*host)
        {
            eprintln!(
                "tfdisco: warning: credentials for {}: {error}; sending no credentials",
                host.display()
            );
            warned.push((*host).clone());
        }
    }
}
