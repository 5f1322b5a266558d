//! The per-host cache, aliases and forced services (docs/behaviour.md,
//! CACHE-1 to CACHE-5).

use std::collections::HashMap;
use std::time::Instant;

use serde_json::Value;
use tracing::debug;

use crate::{Config, Credentials, Discovery, Error, Hostname, Services, StartError, Transfer};

/// What discovering a host takes, without any I/O: a cache of results,
/// aliases and caller-given (forced) services.
///
/// Successful discoveries are cached under the name they were requested
/// with; errors are never cached. Transports drive it like this:
///
/// ```
/// use std::time::Instant;
/// use tfdisco_core::{Config, Hostname, Lookup, DiscoveryCache};
///
/// let mut cache = DiscoveryCache::new(Config::default());
/// let host = Hostname::parse("example.com")?;
/// let ticket = match cache.lookup(&host) {
///     Lookup::Cached(services) => return Ok(()),
///     Lookup::Discover(ticket) => ticket,
/// };
/// let mut discovery = cache.start(&ticket, None, Instant::now())?;
/// // ... drive `discovery` to its result (see `Discovery`), then:
/// # let result = Err(tfdisco_core::Error::ServiceNotProvided { host: "".into(), service: "".into() });
/// let result = cache.complete(ticket, result);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A transport that coalesces concurrent discoveries of one host (D7) keys
/// its in-flight table by [`Ticket::key`]. Anything that changes the cache
/// or the aliases while a discovery is under way (`forget`, `alias`, `force`)
/// keeps that discovery's result out of the cache, so it cannot bring back
/// something forgotten.
#[derive(Debug, Default)]
pub struct DiscoveryCache {
    config: Config,
    cache: HashMap<Hostname, Services>,
    aliases: HashMap<Hostname, Hostname>,
    generation: u64,
}

/// The answer of [`DiscoveryCache::lookup`].
#[derive(Debug)]
pub enum Lookup {
    /// A cached (or forced) result.
    Cached(Services),
    /// The host must be discovered: start with [`DiscoveryCache::start`] and hand
    /// the result to [`DiscoveryCache::complete`].
    Discover(Ticket),
}

/// A discovery the cache expects to be completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    key: Hostname,
    target: Hostname,
    generation: u64,
}

impl Ticket {
    /// The name the discovery was requested for; its result is cached under it.
    pub fn key(&self) -> &Hostname {
        &self.key
    }

    /// The host actually contacted: the alias target, or the key itself. Use
    /// its credentials.
    pub fn target(&self) -> &Hostname {
        &self.target
    }
}

impl DiscoveryCache {
    /// An empty cache whose discoveries use `config`.
    pub fn new(config: Config) -> DiscoveryCache {
        DiscoveryCache {
            config,
            ..DiscoveryCache::default()
        }
    }

    /// The configuration discoveries start with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Looks `host` up in the cache; on a miss, says which host to contact.
    pub fn lookup(&self, host: &Hostname) -> Lookup {
        if let Some(services) = self.cache.get(host) {
            debug!(target: "tfdisco", host = %host, "discovery result cached");
            return Lookup::Cached(services.clone());
        }
        Lookup::Discover(Ticket {
            key: host.clone(),
            target: self.credentials_host(host).clone(),
            generation: self.generation,
        })
    }

    /// Starts the discovery a ticket asks for, with the credentials of
    /// [`Ticket::target`] (see [`credentials_for`](crate::credentials_for)).
    pub fn start(
        &self,
        ticket: &Ticket,
        credentials: Option<Credentials>,
        now: Instant,
    ) -> Result<Discovery, StartError> {
        Transfer::discovery(ticket.target.clone(), &self.config, credentials, now)
    }

    /// Records the result of a ticket's discovery and returns it. A success is
    /// cached under [`Ticket::key`] unless the cache changed meanwhile.
    pub fn complete(
        &mut self,
        ticket: Ticket,
        result: Result<Services, Error>,
    ) -> Result<Services, Error> {
        if let Ok(services) = &result
            && ticket.generation == self.generation
        {
            self.cache.insert(ticket.key, services.clone());
        }
        result
    }

    /// The cached result for `host`, if any.
    pub fn cached(&self, host: &Hostname) -> Option<&Services> {
        self.cache.get(host)
    }

    /// Uses `services` for `host` instead of discovering it (a `host` block).
    /// Relative URLs resolve against `https://<host>/.well-known/terraform.json`.
    pub fn force(
        &mut self,
        host: Hostname,
        services: impl IntoIterator<Item = (String, Value)>,
    ) -> Result<(), Error> {
        let services = Services::forced(host, self.config.dialect(), services)?;
        self.force_services(services);
        Ok(())
    }

    /// Uses `services` (made with [`Services::forced`]) for their host
    /// instead of discovering it.
    pub fn force_services(&mut self, services: Services) {
        self.cache.insert(services.host().clone(), services);
        self.generation += 1;
    }

    /// Makes discoveries of `alias` fetch `target`'s document (one level; the
    /// result is cached under `alias`).
    pub fn alias(&mut self, alias: Hostname, target: Hostname) {
        self.aliases.insert(alias, target);
        self.generation += 1;
    }

    /// The host whose document and credentials a discovery of `host` uses:
    /// its alias target, or `host` itself.
    pub fn credentials_host<'a>(&'a self, host: &'a Hostname) -> &'a Hostname {
        self.aliases.get(host).unwrap_or(host)
    }

    /// Removes the cached (or forced) result for `host`.
    pub fn forget(&mut self, host: &Hostname) {
        self.cache.remove(host);
        self.generation += 1;
    }

    /// Removes every cached and forced result; aliases stay.
    pub fn forget_all(&mut self) {
        self.cache.clear();
        self.generation += 1;
    }

    /// Removes an alias and the result cached under it.
    pub fn forget_alias(&mut self, alias: &Hostname) {
        self.aliases.remove(alias);
        self.cache.remove(alias);
        self.generation += 1;
    }
}
