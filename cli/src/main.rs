//! `tfdisco`: Terraform/OpenTofu remote service discovery from the command line.

#![forbid(unsafe_code)]

mod browser;
mod check;
mod credentials;
mod discover;
mod get;
mod install;
mod interrupt;
mod lock;
mod login;
mod mirror;
mod net;
mod normalize;
mod oci_module;
mod oci_push;
mod provider_source;
mod registry;
mod setup;

use std::process::ExitCode;

use clap::{ArgAction, CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use tfdisco_cli_common::{exit, failure, report, verbose};
use tfdisco_core::Dialect;

use failure::Failure;
use net::NetOpts;
use registry::{ModuleCommand, ProviderCommand};

/// Terraform/OpenTofu service discovery, registries, lock files and mirrors.
// No long text here, nor on a global option: then `tfdisco --help` is the
// summary `-h` prints, one line a command, as cargo's.
#[derive(Parser)]
#[command(
    name = "tfdisco",
    version,
    propagate_version = true,
    after_help = "See 'tfdisco help COMMAND' for a command's options and exit codes."
)]
struct Cli {
    /// Show what happens (-v: discovery steps, -vv: transport too).
    #[arg(short, long, global = true, action = ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Discover a host's services and show their URLs.
    ///
    /// Exit codes: 0 success; 1 discovery failed; 2 bad usage or invalid
    /// hostname; 3 a requested service is not provided or not in that version.
    Discover {
        /// The host, as users write it (`registry.example.com`, `Example.COM:8443`).
        host: String,
        /// Only these services (`modules.v1`, `providers.v1`, …).
        service_ids: Vec<String>,
        /// JSON output: hostname, display, discovery_url, services, resolved.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        net: NetOpts,
    },
    /// Check a host's discovery as a registry operator would.
    ///
    /// Shows each request, its redirects, content type and size, each
    /// service, and the verdict under the Terraform and OpenTofu rules.
    /// Exits 1 when either would fail.
    Check {
        /// The host, as users write it.
        host: String,
        #[command(flatten)]
        net: NetOpts,
    },
    /// Ask a provider registry, or say how a provider would be installed.
    ///
    /// As `init` does: a provider's versions (versions) or where to download
    /// a package (package); or which installation methods of the CLI
    /// configuration would install it (source).
    ///
    /// Exit codes as for discover; 3 also when the registry has no such
    /// provider, version or platform (404), or no installation method may
    /// install it.
    #[command(subcommand)]
    Provider(ProviderCommand),
    /// Ask a module registry, or resolve and download `oci://` modules.
    ///
    /// As `init` does: a module's versions (versions) or a version's
    /// download location (download); or, for OpenTofu's `oci://` module
    /// packages, the manifest a tag names (resolve) and the package itself
    /// (download --into).
    ///
    /// Exit codes as for discover; 3 also when the registry has no such
    /// module or version (404), or the OCI repository no such tag or
    /// digest.
    #[command(subcommand)]
    Module(ModuleCommand),
    /// Install the modules the configuration calls (`terraform get`).
    ///
    /// Every module call, recursively, into .terraform/modules with its
    /// modules.json, as the dialect's CLI writes them: registry modules at
    /// the newest version their constraint allows, https archives (.zip,
    /// .tar.gz, .tar.bz2, .tar.xz; a ?checksum= checked), git repositories
    /// (through the system git), oci:// packages (OpenTofu), local paths.
    /// What modules.json lists is kept
    /// unless --upgrade; --lock writes tfdisco's module lock.
    ///
    /// Exit codes: 0 success; 1 a request, download or clone failed; 2 a
    /// configuration that does not parse or a source that is no module
    /// address; 3 no version meets a constraint. On failure nothing is
    /// placed and modules.json is left as it was.
    Get(get::GetOpts),
    /// Write or update .terraform.lock.hcl (`terraform providers lock`).
    ///
    /// For each provider the configuration requires: the version its
    /// constraints select (the locked one while it still fits), every
    /// package verified (signature, SHA256SUMS, archive checksum) and its
    /// hashes recorded for each platform.
    ///
    /// Exit codes: 0 success; 1 a request, verification or checksum failed;
    /// 2 bad usage or a configuration or lock file that does not parse; 3 no
    /// version meets the constraints, the locked one no longer does, or a
    /// platform is not offered. On failure the lock file is left as it was.
    Lock(lock::LockOpts),
    /// Install providers into .terraform/providers (`terraform init`).
    ///
    /// Each provider the configuration requires, at the lock file's version
    /// (or the newest the constraints allow), verified as `lock` verifies.
    /// With a plugin cache (TF_PLUGIN_CACHE_DIR, plugin_cache_dir or
    /// --plugin-cache) they go into the cache and are linked, one process at
    /// a time per package (OpenTofu's lock). An install already there that
    /// the lock file vouches for is kept without a request.
    ///
    /// Exit codes as for lock, and 3 when the lock file would change under
    /// --lockfile readonly. On failure nothing is placed and the lock file
    /// is left as it was.
    Install(install::InstallOpts),
    /// Write a provider mirror folder (`terraform providers mirror`).
    ///
    /// Each provider the configuration requires, at the version its lock
    /// file holds (or the newest its constraints allow), downloaded from its
    /// registry, verified as `lock` verifies, and indexed
    /// (`HOST/NS/TYPE/index.json`, `<version>.json`) for use as a network or
    /// filesystem mirror.
    ///
    /// With --to-oci TEMPLATE instead of DIR, each provider's release is
    /// pushed to the OCI repository the template names for it, in the
    /// layout OpenTofu's `oci_mirror` reads.
    ///
    /// Exit codes as for lock. Nothing gets its final name (or is pushed)
    /// before every package passed: on failure the folder is left as it
    /// was.
    Mirror(mirror::MirrorOpts),
    /// Publish to OCI registries (OpenTofu's `oci_mirror` layout).
    ///
    /// Exit codes: 0 success; 1 a request failed; 2 bad usage.
    #[command(subcommand)]
    Oci(oci_push::OciCommand),
    /// Obtain and save credentials for a host (`terraform login`).
    ///
    /// With the host's login.v1 OAuth client: a browser opens its login
    /// page and comes back to a temporary server on 127.0.0.1; or, with
    /// tfe.v2 only, a token made on its tokens page is pasted. The token
    /// goes into credentials.tfrc.json in the CLI configuration folder, or
    /// to the configured credentials_helper.
    ///
    /// Exit codes: 0 success; 1 the login failed or was cancelled (nothing
    /// is written); 2 bad usage or an invalid hostname; 130 interrupted.
    Login(login::LoginOpts),
    /// Remove the stored credentials for a host (`terraform logout`).
    ///
    /// From credentials.tfrc.json or the credentials_helper; the token is
    /// not revoked on the host. A host with nothing stored is not an error.
    ///
    /// Exit codes: 0 success; 1 the credentials are set in another CLI
    /// configuration file or could not be removed; 2 an invalid hostname.
    Logout(login::LogoutOpts),
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: Shell,
    },
    /// Print the comparison and display forms of hostnames.
    Normalize {
        /// Hostnames as users write them [default: the lines of stdin].
        hosts: Vec<String>,
        /// One JSON object per input: input, comparison, error, display.
        #[arg(long)]
        json: bool,
    },
    /// Say which source supplies credentials for a host.
    ///
    /// The sources: TF_TOKEN_* variables, CLI config files,
    /// credentials.tfrc.json and the credentials helper.
    Credentials {
        /// The host, as users write it.
        host: String,
        /// Which CLI's configuration files to read (terraform, opentofu).
        ///
        /// The names are read in any case, and tofu is opentofu too.
        ///
        /// [default: as for discover]
        #[arg(long, value_parser = net::parse_dialect)]
        dialect: Option<Dialect>,
        /// Print the token itself.
        #[arg(long)]
        show_token: bool,
        /// One JSON object: hostname, display, source, has_token, token.
        ///
        /// token only with --show-token.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    verbose::init(cli.verbose);
    if let Some(value) = std::env::var_os(tfdisco_config::DIALECT_VAR).filter(|v| !v.is_empty())
        && let Err(e) = value.to_string_lossy().parse::<tfdisco_core::Dialect>()
    {
        eprintln!("tfdisco: {}: {e}", tfdisco_config::DIALECT_VAR);
        return ExitCode::from(exit::USAGE);
    }
    let result = match &cli.command {
        Command::Discover {
            host,
            service_ids,
            json,
            net,
        } => discover::run(host, service_ids, *json, net),
        Command::Check { host, net } => check::run(host, net),
        Command::Provider(command) => registry::run_provider(command),
        Command::Module(command) => registry::run_module(command),
        Command::Get(opts) => get::run(opts),
        Command::Lock(opts) => lock::run(opts),
        Command::Install(opts) => install::run(opts),
        Command::Mirror(opts) => mirror::run(opts),
        Command::Oci(command) => oci_push::run(command),
        Command::Login(opts) => login::login(opts),
        Command::Logout(opts) => login::logout(opts),
        Command::Completions { shell } => {
            clap_complete::generate(
                *shell,
                &mut Cli::command(),
                "tfdisco",
                &mut std::io::stdout(),
            );
            Ok(exit::SUCCESS)
        }
        Command::Normalize { hosts, json } => normalize::run(hosts, *json).map_err(Failure::from),
        Command::Credentials {
            host,
            dialect,
            show_token,
            json,
        } => credentials::run(
            host,
            net::choose_dialect(*dialect, std::path::Path::new(".")).dialect(),
            *show_token,
            *json,
        ),
    };
    failure::exit_code("tfdisco", result)
}
