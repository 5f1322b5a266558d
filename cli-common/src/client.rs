//! The one client type, over whichever transport was chosen.

use clap::ValueEnum;
use tfdisco_runs::ClientSetup;
use tfdisco_transport::{
    AnyTransport, Blocking, BlockingClient, BuildError, ClientBuilder, FromSettings, Settings,
    Transport,
};

use crate::failure::{Failure, option_failure};

/// Which transport moves the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TransportKind {
    /// tokio + hyper + rustls
    Tokio,
    /// async-std (futures-io, async-io, futures-rustls, hyper)
    AsyncStd,
    /// the system libcurl
    Curl,
}

impl TransportKind {
    /// Every transport, tokio's first.
    pub const ALL: [TransportKind; 3] = [
        TransportKind::Tokio,
        TransportKind::AsyncStd,
        TransportKind::Curl,
    ];

    /// The name `--transport` takes.
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Tokio => "tokio",
            TransportKind::AsyncStd => "async-std",
            TransportKind::Curl => "curl",
        }
    }
}

/// The CLI's one client type, whichever transport moves the bytes.
pub type Client = BlockingClient<AnyTransport>;

/// A client over the transport `kind` for what `setup` read, with extra
/// builder settings.
pub fn client_with(
    kind: TransportKind,
    setup: &ClientSetup,
    extra: impl FnOnce(ClientBuilder<Settings>) -> ClientBuilder<Settings>,
) -> Result<Client, Failure> {
    let settings = extra(setup.builder()).build().map_err(option_failure)?;
    let transport = match kind {
        TransportKind::Tokio => any(tfdisco_tokio::Http::from_settings(settings.clone())),
        TransportKind::AsyncStd => any(tfdisco_async_std::Http::from_settings(settings.clone())),
        TransportKind::Curl => any(Blocking::<tfdisco_curl::Http>::from_settings(
            settings.clone(),
        )),
    }?;
    Ok(Client::new(settings.new_cache(), transport))
}

fn any<T: Transport>(built: Result<T, BuildError>) -> Result<AnyTransport, Failure> {
    built.map(AnyTransport::new).map_err(option_failure)
}
