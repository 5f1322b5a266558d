//! The shared conformance suite, under smol's executor (`async_io::block_on` is `smol::block_on`).

use tfdisco_async_std::{Client, Discovery, Error, Hostname, Observer, Services, SharedRegistry};
use tfdisco_core::url::Url;
use tfdisco_testkit::Transport;

struct Smol;

impl Transport for Smol {
    const NAME: &'static str = "smol";
    type Client = Client;

    fn discover(client: &Client, host: &Hostname) -> Result<Services, Error> {
        async_io::block_on(client.discover(host))
    }

    fn service_url(client: &Client, host: &Hostname, id: &str) -> Result<Url, Error> {
        async_io::block_on(client.service_url(host, id))
    }

    fn registry(client: &Client) -> &SharedRegistry {
        client.registry()
    }

    fn drive(
        client: &Client,
        discovery: &mut Discovery,
        observer: &mut dyn Observer,
    ) -> Result<Services, Error> {
        async_io::block_on(client.drive(discovery, Some(observer)))
    }
}

tfdisco_testkit::conformance_suite!(Smol);
