//! The shared conformance suite, on libcurl.

use tfdisco_core::url::Url;
use tfdisco_curl::{Client, Discovery, Error, Hostname, Observer, Services, SharedRegistry};
use tfdisco_testkit::Transport;

struct Curl;

impl Transport for Curl {
    const NAME: &'static str = "curl";
    type Client = Client;

    fn discover(client: &Client, host: &Hostname) -> Result<Services, Error> {
        client.discover(host)
    }

    fn service_url(client: &Client, host: &Hostname, id: &str) -> Result<Url, Error> {
        client.service_url(host, id)
    }

    fn registry(client: &Client) -> &SharedRegistry {
        client.registry()
    }

    fn drive(
        client: &Client,
        discovery: &mut Discovery,
        observer: &mut dyn Observer,
    ) -> Result<Services, Error> {
        client.drive(discovery, Some(observer))
    }
}

tfdisco_testkit::conformance_suite!(Curl);
