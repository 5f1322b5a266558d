//! The shared conformance suite, under async-std's executor.

use tfdisco_async_std::{Client, Discovery, Error, Hostname, Observer, Services, SharedRegistry};
use tfdisco_core::url::Url;
use tfdisco_testkit::Transport;

struct AsyncStd;

impl Transport for AsyncStd {
    const NAME: &'static str = "async-std";
    type Client = Client;

    fn discover(client: &Client, host: &Hostname) -> Result<Services, Error> {
        async_std::task::block_on(client.discover(host))
    }

    fn service_url(client: &Client, host: &Hostname, id: &str) -> Result<Url, Error> {
        async_std::task::block_on(client.service_url(host, id))
    }

    fn registry(client: &Client) -> &SharedRegistry {
        client.registry()
    }

    fn drive(
        client: &Client,
        discovery: &mut Discovery,
        observer: &mut dyn Observer,
    ) -> Result<Services, Error> {
        async_std::task::block_on(client.drive(discovery, Some(observer)))
    }
}

tfdisco_testkit::conformance_suite!(AsyncStd);
