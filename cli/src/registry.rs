//! `tfdisco provider …` and `tfdisco module …`: from a source address to the
//! registry's answer, as `init` asks it.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde::Serialize;
use tfdisco_core::{Dialect, Error, ModuleSource, Platform, ProviderSource, check_version};
use tfdisco_transport::reexports::tfdisco_oci::OciModuleSource;

use crate::discover::credentials_warnings;
use crate::exit;
use crate::failure::{self, Failure, json_text};
use crate::net::{self, Client, NetOpts};
use crate::oci_module;

/// `tfdisco provider …`
#[derive(Subcommand)]
pub(crate) enum ProviderCommand {
    /// Say which installation methods would install a provider, and why.
    ///
    /// The methods of the CLI configuration, in priority order: the
    /// provider_installation block's methods and their include/exclude
    /// patterns, or the implied configuration (local mirror directories,
    /// then the registry without the providers found in them), and
    /// dev_overrides. Reads files only; no network.
    ///
    /// Exit codes: 0 some method may install it; 2 an invalid source; 3 no
    /// method may install it.
    Source {
        /// The provider's source address (`hashicorp/aws`, `registry.example.com/acme/widgets`).
        source: String,
        /// Which CLI's configuration and rules (terraform, opentofu).
        ///
        /// The names are read in any case, and tofu is opentofu too.
        ///
        /// [default: as for discover, in DIR]
        #[arg(long, value_parser = net::parse_dialect)]
        dialect: Option<Dialect>,
        /// The working directory, whose terraform.d/plugins is an implied mirror.
        ///
        /// [default: the current directory]
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// JSON output.
        ///
        /// One object: source, dialect, configuration, methods (priority,
        /// method, location, may_install, reason, supported, oci),
        /// diagnostics.
        #[arg(long)]
        json: bool,
    },
    /// List a provider's versions, with their protocols and platforms.
    Versions {
        /// The provider's source address (`hashicorp/aws`, `registry.example.com/acme/widgets`).
        source: String,
        /// JSON output: source, versions_url, versions, warnings.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        net: NetOpts,
    },
    /// Show where to download a provider package and how to check it.
    Package {
        /// The provider's source address.
        source: String,
        /// The version (`5.31.0`).
        #[arg(value_name = "VERSION")]
        package_version: String,
        /// The platform, as `OS_ARCH` (`linux_amd64`).
        os_arch: String,
        /// JSON output.
        ///
        /// One object: source, version, os, arch, filename, download_url,
        /// shasums_url, shasums_signature_url, shasum, protocols, signing_keys.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        net: NetOpts,
    },
}

/// `tfdisco module …`
#[derive(Subcommand)]
pub(crate) enum ModuleCommand {
    /// List a module's versions.
    Versions {
        /// The module's registry source address (`hashicorp/consul/aws`).
        source: String,
        /// JSON output: source, versions_url, versions.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        net: NetOpts,
    },
    /// Pin an `oci://` module source to the digest its tag names now.
    ///
    /// The source (OpenTofu's module packages in OCI registries) is resolved
    /// to the manifest its tag (`latest` by default) names now, checked as
    /// OpenTofu checks it, and printed pinned to that manifest's digest.
    ///
    /// Exit codes: 0 resolved; 1 the registry failed or its manifest is not
    /// a module package; 2 an invalid source (or --dialect terraform, which
    /// has no OCI sources); 3 no such repository, tag or digest.
    Resolve {
        /// The source: `oci://REGISTRY[:PORT]/REPOSITORY[//SUBDIR][?tag=TAG|?digest=DIGEST]`.
        source: String,
        /// JSON output.
        ///
        /// One object: source, address, registry, repository, tag, digest,
        /// media_type, size, subdir, pinned, package (media_type, digest,
        /// size).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        net: NetOpts,
    },
    /// Locate a registry module's download, or download an `oci://` one.
    ///
    /// For a registry source, where to download a version from. For an
    /// `oci://` source (OpenTofu), its package is downloaded into a folder:
    /// verified against its digest, unpacked, and put in place only when
    /// whole.
    ///
    /// A registry source needs VERSION and takes no --into; an `oci://`
    /// source takes no VERSION (its ?tag= or ?digest= selects) and needs
    /// --into. Exit codes as for resolve.
    Download {
        /// The module's registry source address, or an `oci://` source.
        source: String,
        /// The version (`1.2.0`), for a registry source.
        #[arg(value_name = "VERSION")]
        module_version: Option<String>,
        /// The folder to unpack an `oci://` source's package into.
        ///
        /// It must be new or empty; its missing parents are made.
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
        /// JSON output.
        ///
        /// One object: source, version, location, package (the location as
        /// init parses it: getter, address, url, subdir, ref, depth, sshkey,
        /// archive, checksum; null for OpenTofu's direct packages),
        /// module_subdir (where in the package the module is) and
        /// use_registry_credentials (OpenTofu's direct packages; else null).
        /// For an `oci://` source: as resolve's, and into, module_dir, files,
        /// bytes.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        net: NetOpts,
    },
}

pub(crate) fn run_provider(command: &ProviderCommand) -> Result<u8, Failure> {
    match command {
        ProviderCommand::Source {
            source,
            dialect,
            dir,
            json,
        } => {
            let choice = net::choose_dialect(
                *dialect,
                dir.as_deref().unwrap_or(std::path::Path::new(".")),
            );
            crate::provider_source::run(source, choice.dialect(), dir.as_deref(), *json)
        }
        ProviderCommand::Versions { source, json, net } => {
            failure::report(*json, provider_versions(source, *json, net))
        }
        ProviderCommand::Package {
            source,
            package_version,
            os_arch,
            json,
            net,
        } => failure::report(
            *json,
            provider_package(source, package_version, os_arch, *json, net),
        ),
    }
}

pub(crate) fn run_module(command: &ModuleCommand) -> Result<u8, Failure> {
    match command {
        ModuleCommand::Versions { source, json, net } => {
            failure::report(*json, module_versions(source, *json, net))
        }
        ModuleCommand::Resolve { source, json, net } => {
            failure::report(*json, oci_module::resolve(source, *json, net))
        }
        ModuleCommand::Download {
            source,
            module_version,
            into,
            json,
            net,
        } => failure::report(
            *json,
            download(
                source,
                module_version.as_deref(),
                into.as_deref(),
                *json,
                net,
            ),
        ),
    }
}

/// `module download`: a registry source's location, or an `oci://`
/// source's package.
fn download(
    given: &str,
    version: Option<&str>,
    into: Option<&Path>,
    json: bool,
    opts: &NetOpts,
) -> Result<u8, Failure> {
    let usage = |message: &str| {
        Failure::from(Error::InvalidArgument {
            message: format!("module download {given}: {message}"),
        })
    };
    if OciModuleSource::is_oci(given) {
        if let Some(version) = version {
            return Err(usage(&format!(
                "an oci:// source takes no VERSION ({version}): its ?tag= or ?digest= selects \
                 the package"
            )));
        }
        let Some(into) = into else {
            return Err(usage(
                "an oci:// source is downloaded into a folder: give --into DIR",
            ));
        };
        return oci_module::download(given, into, json, opts);
    }
    if into.is_some() {
        return Err(usage(
            "--into is for oci:// sources; a registry source's download shows where its \
             package is",
        ));
    }
    let Some(version) = version else {
        return Err(usage("a registry source needs a VERSION (`1.2.0`)"));
    };
    module_download(given, version, json, opts)
}

fn module_source(given: &str, opts: &NetOpts) -> Result<ModuleSource, Error> {
    ModuleSource::parse(given, opts.dialect()).map_err(|error| Error::InvalidSource {
        input: given.to_owned(),
        error,
    })
}

fn client(opts: &NetOpts) -> Result<Client, Failure> {
    net::client(opts)
}

/// The answer as the library's JSON document, or for people.
fn print(json: bool, answer: &impl Serialize, human: impl FnOnce() -> String) {
    if json {
        println!("{}", json_text(answer));
    } else {
        print!("{}", human());
    }
}

fn provider_versions(given: &str, json: bool, opts: &NetOpts) -> Result<u8, Failure> {
    let source = ProviderSource::parse_argument(given, opts.dialect())?;
    let client = client(opts)?;
    let call = client.as_async().provider_versions(&source);
    let answer = client.wait(call.observe(&mut credentials_warnings()))?;
    for warning in &answer.warnings {
        eprintln!("tfdisco: warning from the registry: {warning}");
    }
    print(json, &answer, || {
        let mut out = format!(
            "{source}: {} versions (from {})\n",
            answer.versions.len(),
            answer.url
        );
        for v in &answer.versions {
            let platforms: Vec<String> = v.platforms.iter().map(Platform::to_string).collect();
            out.push_str(&format!(
                "  {:<14} protocols {:<10} {}\n",
                v.version,
                v.protocols.join(","),
                platforms.join(" ")
            ));
        }
        out
    });
    Ok(exit::SUCCESS)
}

fn provider_package(
    given: &str,
    version: &str,
    os_arch: &str,
    json: bool,
    opts: &NetOpts,
) -> Result<u8, Failure> {
    let source = ProviderSource::parse_argument(given, opts.dialect())?;
    check_version(version)?;
    let platform = Platform::parse(os_arch)?;
    let client = client(opts)?;
    let call = client
        .as_async()
        .provider_package(&source, version, &platform);
    let package = client.wait(call.observe(&mut credentials_warnings()))?;
    print(json, &package, || {
        let keys: Vec<&str> = package
            .signing_keys
            .iter()
            .map(|k| k.key_id.as_str())
            .collect();
        format!(
            "{source} {version} for {platform}\n  filename   {}\n  download   {}\n  \
             shasums    {}\n  signature  {}\n  sha256     {}\n  protocols  {}\n  keys       {}\n",
            package.filename,
            package.download_url,
            package.shasums_url,
            package.shasums_signature_url,
            package.shasum,
            package.protocols.join(","),
            keys.join(" "),
        )
    });
    Ok(exit::SUCCESS)
}

fn module_versions(given: &str, json: bool, opts: &NetOpts) -> Result<u8, Failure> {
    let source = module_source(given, opts)?;
    let client = client(opts)?;
    let call = client.as_async().module_versions(&source);
    let answer = client.wait(call.observe(&mut credentials_warnings()))?;
    print(json, &answer, || {
        let mut out = format!(
            "{source}: {} versions (from {})\n",
            answer.versions.len(),
            answer.url
        );
        for v in &answer.versions {
            out.push_str(&format!("  {v}\n"));
        }
        out
    });
    Ok(exit::SUCCESS)
}

fn module_download(given: &str, version: &str, json: bool, opts: &NetOpts) -> Result<u8, Failure> {
    let source = module_source(given, opts)?;
    check_version(version)?;
    let client = client(opts)?;
    let call = client.as_async().module_download(&source, version);
    let location = client.wait(call.observe(&mut credentials_warnings()))?;
    let module_subdir = location.module_subdir();
    print(json, &location, || {
        let mut out = format!("{source} {version}: {}\n", location.location);
        if let Some(package) = &location.package {
            out.push_str(&format!(
                "  {} {}",
                package.getter_name(),
                package.address()
            ));
            for (name, part) in [
                ("ref", package.revision().map(str::to_owned)),
                ("depth", package.depth().map(|d| d.to_string())),
                ("archive", package.archive().map(str::to_owned)),
                (
                    "subdir",
                    Some(module_subdir.clone()).filter(|s| !s.is_empty()),
                ),
            ] {
                if let Some(part) = part {
                    out.push_str(&format!(", {name} {part}"));
                }
            }
            out.push('\n');
        }
        out
    });
    Ok(exit::SUCCESS)
}
