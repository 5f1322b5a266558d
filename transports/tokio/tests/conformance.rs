//! The shared conformance suite, on tokio.

use std::sync::LazyLock;

use tfdisco_core::url::Url;
use tfdisco_core::{Discovery, Error, Hostname, Services};
use tfdisco_testkit::Transport;
use tfdisco_tokio::{Client, Observer, SharedRegistry};
use tokio::runtime::Runtime;

/// One multi-threaded runtime for every test; each test blocks on it from
/// its own thread (several at once in the coalescing scenarios).
static RUNTIME: LazyLock<Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
});

struct Tokio;

impl Transport for Tokio {
    const NAME: &'static str = "tokio";
    type Client = Client;

    fn discover(client: &Client, host: &Hostname) -> Result<Services, Error> {
        RUNTIME.block_on(client.discover(host))
    }

    fn service_url(client: &Client, host: &Hostname, id: &str) -> Result<Url, Error> {
        RUNTIME.block_on(client.service_url(host, id))
    }

    fn registry(client: &Client) -> &SharedRegistry {
        client.registry()
    }

    fn drive(
        client: &Client,
        discovery: &mut Discovery,
        observer: &mut dyn Observer,
    ) -> Result<Services, Error> {
        RUNTIME.block_on(client.drive(discovery, Some(observer)))
    }
}

tfdisco_testkit::conformance_suite!(Tokio);
