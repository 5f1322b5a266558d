//! Retries: which failures are retried, how long to wait before the next
//! attempt, and `Retry-After` (docs/behaviour.md, RETRY-1 to RETRY-7).

use std::time::Duration;

use http::header::{DATE, RETRY_AFTER};
use http::{HeaderMap, StatusCode};

use crate::{Error, TransportErrorKind};

/// How a transfer retries a failed attempt, and how long each attempt may take.
///
/// An attempt is retried when it failed before a response head arrived
/// (the connection was refused, reset or closed: [`TransportErrorKind::Connect`],
/// [`TransportErrorKind::Io`], [`TransportErrorKind::Proxy`]; with
/// [`RetryPolicy::with_tls_retried`], a TLS failure other than a refused
/// certificate; with an [attempt timeout](RetryPolicy::with_attempt_timeout),
/// an attempt that ran out of time before its head), or when the final
/// response was 429 or a 5xx other than 501. A retry starts over from the
/// first URL, with the same credentials decision. Refused certificates,
/// other statuses, failures while the body is read, bad documents, the
/// transfer's deadline and redirect loops are never retried (D8).
///
/// The wait before retry *n* (1-based) is `first_wait × factor^(n-1)`, at
/// most `max_wait`; a `Retry-After` on 429 or 503, in seconds or as an HTTP
/// date, replaces it. No wait ever ends past the transfer's deadline: a retry
/// that cannot start in time ends the transfer with [`Error::GaveUp`].
///
/// Discovery and registry requests have policies of their own
/// ([`Config::retry_policy`](crate::Config::retry_policy),
/// [`Config::registry_retry_policy`](crate::Config::registry_retry_policy)).
///
/// ```
/// use std::time::Duration;
/// use tfdisco_core::{Dialect, RetryPolicy};
///
/// let terraform = RetryPolicy::for_dialect(Dialect::Terraform);
/// assert_eq!(terraform.attempts(), 4);
/// assert_eq!(terraform.wait(1), Duration::from_millis(100));
/// assert_eq!(terraform.wait(3), Duration::from_millis(400));
/// assert_eq!(RetryPolicy::for_dialect(Dialect::OpenTofu).attempts(), 1);
/// assert_eq!(RetryPolicy::none().with_retries(2).attempts(), 3);
///
/// // Both CLIs' registry clients: 2 attempts of at most 10 s, 1 s apart.
/// let registry = RetryPolicy::registry();
/// assert_eq!(registry.attempts(), 2);
/// assert_eq!(registry.wait(1), Duration::from_secs(1));
/// assert_eq!(registry.attempt_timeout(), Some(Duration::from_secs(10)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    attempts: u32,
    first_wait: Duration,
    factor: u32,
    max_wait: Duration,
    retry_after: bool,
    attempt_timeout: Option<Duration>,
    tls_retried: bool,
}

/// How long one attempt of a registry request may take, body included: both
/// CLIs' registry clients' `http.Client` timeout (`TF_REGISTRY_CLIENT_TIMEOUT`).
pub const DEFAULT_REGISTRY_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

impl RetryPolicy {
    /// One attempt, no retries: what OpenTofu does for discovery.
    pub const fn none() -> RetryPolicy {
        RetryPolicy {
            attempts: 1,
            first_wait: Duration::from_millis(100),
            factor: 2,
            max_wait: Duration::from_secs(30),
            retry_after: true,
            attempt_timeout: None,
            tls_retried: false,
        }
    }

    /// What both CLIs' registry clients do (go-retryablehttp, with one
    /// retry): 2 attempts, each of at most 10 s (the body included), waits
    /// of 1 s, 2 s, 4 s, … (at most 30 s), `Retry-After` honoured; an
    /// attempt that timed out before its head, and a TLS failure other than
    /// a refused certificate, are retried (RETRY-8).
    pub const fn registry() -> RetryPolicy {
        RetryPolicy {
            attempts: 2,
            first_wait: Duration::from_secs(1),
            factor: 2,
            max_wait: Duration::from_secs(30),
            retry_after: true,
            attempt_timeout: Some(DEFAULT_REGISTRY_ATTEMPT_TIMEOUT),
            tls_retried: true,
        }
    }

    /// OCI registry requests (OpenTofu's ORAS client retries nothing): one
    /// attempt of at most 10 s, the registry requests' attempt timeout.
    pub const fn oci() -> RetryPolicy {
        RetryPolicy {
            attempt_timeout: Some(DEFAULT_REGISTRY_ATTEMPT_TIMEOUT),
            ..RetryPolicy::none()
        }
    }

    /// What Terraform 1.15 does for discovery: 4 attempts, waits of 100 ms,
    /// 200 ms and 400 ms (doubling, at most 30 s), `Retry-After` honoured.
    pub const fn terraform() -> RetryPolicy {
        RetryPolicy {
            attempts: 4,
            ..RetryPolicy::none()
        }
    }

    /// The dialect's own: [`RetryPolicy::terraform`] or
    /// [`RetryPolicy::none`] (OpenTofu).
    pub const fn for_dialect(dialect: crate::Dialect) -> RetryPolicy {
        match dialect {
            crate::Dialect::Terraform => RetryPolicy::terraform(),
            crate::Dialect::OpenTofu => RetryPolicy::none(),
        }
    }

    /// At most `attempts` attempts in all (0 counts as 1).
    pub fn with_attempts(mut self, attempts: u32) -> RetryPolicy {
        self.attempts = attempts.max(1);
        self
    }

    /// At most `retries` retries: `retries + 1` attempts.
    pub fn with_retries(self, retries: u32) -> RetryPolicy {
        self.with_attempts(retries.saturating_add(1))
    }

    /// The wait before the first retry (default 100 ms).
    pub fn with_first_wait(mut self, wait: Duration) -> RetryPolicy {
        self.first_wait = wait;
        self
    }

    /// What each wait is multiplied by for the next (default 2).
    pub fn with_factor(mut self, factor: u32) -> RetryPolicy {
        self.factor = factor;
        self
    }

    /// The longest computed wait (default 30 s; `Retry-After` may ask for
    /// more, within the deadline).
    pub fn with_max_wait(mut self, wait: Duration) -> RetryPolicy {
        self.max_wait = wait;
        self
    }

    /// Whether a `Retry-After` on 429 and 503 replaces the computed wait
    /// (default true).
    pub fn with_retry_after(mut self, honoured: bool) -> RetryPolicy {
        self.retry_after = honoured;
        self
    }

    /// How long each attempt may take, from its first request to the end of
    /// its body, redirects included (`None`: only the transfer's deadline
    /// applies). An attempt that runs out of time before its response head
    /// is retried; one that runs out while its body is read is not.
    pub fn with_attempt_timeout(mut self, timeout: Option<Duration>) -> RetryPolicy {
        self.attempt_timeout = timeout;
        self
    }

    /// Whether a TLS failure other than a refused certificate
    /// ([`TransportErrorKind::Tls`], not [`TransportErrorKind::Certificate`])
    /// is retried (the registry policy's default; not discovery's).
    pub fn with_tls_retried(mut self, retried: bool) -> RetryPolicy {
        self.tls_retried = retried;
        self
    }

    /// How many attempts at most.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The computed wait before retry `n` (1 for the first retry).
    pub fn wait(&self, n: u32) -> Duration {
        let factor = self.factor.saturating_pow(n.saturating_sub(1));
        self.first_wait
            .checked_mul(factor)
            .map_or(self.max_wait, |w| w.min(self.max_wait))
    }

    /// True when `Retry-After` is honoured.
    pub fn honours_retry_after(&self) -> bool {
        self.retry_after
    }

    /// How long each attempt may take, if the policy bounds attempts.
    pub fn attempt_timeout(&self) -> Option<Duration> {
        self.attempt_timeout
    }

    /// The longest a transfer under this policy can take when no
    /// `Retry-After` lengthens a wait: every attempt at its timeout and
    /// every computed wait; `None` without an attempt timeout.
    pub fn longest(&self) -> Option<Duration> {
        let per_attempt = self.attempt_timeout?;
        let mut total = per_attempt.checked_mul(self.attempts)?;
        for n in 1..self.attempts {
            total = total.checked_add(self.wait(n))?;
        }
        Some(total)
    }

    /// True when a transport failure of `kind` before a response head is
    /// retried: the connection was refused, reset or closed, directly or at
    /// the proxy; and, if the policy says so, a TLS failure other than a
    /// refused certificate.
    pub(crate) fn retries_failure(&self, kind: TransportErrorKind) -> bool {
        match kind {
            TransportErrorKind::Connect | TransportErrorKind::Io | TransportErrorKind::Proxy => {
                true
            }
            TransportErrorKind::Tls => self.tls_retried,
            _ => false,
        }
    }
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy::none()
    }
}

/// A retry a transfer is waiting to make ([`Transfer::retry`](crate::Transfer::retry)).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Retry {
    /// The attempt about to start (2 for the first retry).
    pub attempt: u32,
    /// How many attempts the policy allows.
    pub attempts: u32,
    /// How long the transfer waits before it.
    pub wait: Duration,
    /// True when the wait is the server's `Retry-After`.
    pub from_retry_after: bool,
    /// Why the previous attempt failed.
    pub cause: Error,
}

/// True for a final status that is retried: 429 and 5xx but 501.
pub(crate) fn is_retried_status(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS
        || (status.is_server_error() && status != StatusCode::NOT_IMPLEMENTED)
}

/// What `Retry-After` says about when to retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RetryAfter {
    /// No usable value (none, garbage, a date without the server's `Date`):
    /// the computed wait applies.
    Unusable,
    /// Wait this long.
    Wait(Duration),
    /// A wait too long for any clock (a date or a number of seconds past
    /// what `Duration` holds).
    Forever,
}

/// Reads `Retry-After` on a 429 or 503: whole seconds, or an HTTP date
/// measured against the response's own `Date` (the core reads no clock; a
/// date without a `Date` header is unusable). A date in the past means now.
pub(crate) fn retry_after(status: StatusCode, headers: &HeaderMap) -> RetryAfter {
    if status != StatusCode::TOO_MANY_REQUESTS && status != StatusCode::SERVICE_UNAVAILABLE {
        return RetryAfter::Unusable;
    }
    let Some(value) = headers.get(RETRY_AFTER).and_then(|v| v.to_str().ok()) else {
        return RetryAfter::Unusable;
    };
    // Whole seconds, with an optional `+`, as Go's `strconv.ParseInt` reads
    // them (RETRY-5).
    let value = value.trim();
    let value = value.strip_prefix('+').unwrap_or(value);
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return match value.parse::<u64>() {
            Ok(secs) => RetryAfter::Wait(Duration::from_secs(secs)),
            Err(_) => RetryAfter::Forever,
        };
    }
    let Ok(at) = httpdate::parse_http_date(value) else {
        return RetryAfter::Unusable;
    };
    let Some(date) = headers
        .get(DATE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v.trim()).ok())
    else {
        return RetryAfter::Unusable;
    };
    RetryAfter::Wait(at.duration_since(date).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;
    use std::time::SystemTime;

    fn http_date(t: SystemTime) -> String {
        httpdate::fmt_http_date(t)
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| {
                (
                    http::header::HeaderName::from_static(k),
                    HeaderValue::from_str(v).expect("valid"),
                )
            })
            .collect()
    }

    const UNAVAILABLE: StatusCode = StatusCode::SERVICE_UNAVAILABLE;

    #[test]
    fn seconds_dates_and_garbage() {
        fn h(pairs: &[(&'static str, &str)]) -> RetryAfter {
            retry_after(UNAVAILABLE, &headers(pairs))
        }
        assert_eq!(
            h(&[("retry-after", "3")]),
            RetryAfter::Wait(Duration::from_secs(3))
        );
        assert_eq!(
            h(&[("retry-after", " 0 ")]),
            RetryAfter::Wait(Duration::ZERO)
        );
        assert_eq!(
            h(&[("retry-after", "99999999999999999999999")]),
            RetryAfter::Forever
        );
        assert_eq!(
            h(&[("retry-after", "+3")]),
            RetryAfter::Wait(Duration::from_secs(3)),
            "Go's ParseInt reads a plus sign"
        );
        for garbage in ["-1", "1.5", "soon", "", "+", "++3", "+-3"] {
            assert_eq!(
                h(&[("retry-after", garbage)]),
                RetryAfter::Unusable,
                "{garbage}"
            );
        }
        let date = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let later = http_date(date + Duration::from_secs(120));
        assert_eq!(
            h(&[("retry-after", &later), ("date", &http_date(date))]),
            RetryAfter::Wait(Duration::from_secs(120))
        );
        assert_eq!(
            h(&[("retry-after", &http_date(date)), ("date", &later)]),
            RetryAfter::Wait(Duration::ZERO),
            "a date in the past means now"
        );
        assert_eq!(
            h(&[("retry-after", &later)]),
            RetryAfter::Unusable,
            "a date needs the server's Date to measure against"
        );
        assert_eq!(
            retry_after(StatusCode::BAD_GATEWAY, &headers(&[("retry-after", "3")])),
            RetryAfter::Unusable,
            "only 429 and 503 carry a Retry-After that counts"
        );
    }

    #[test]
    fn which_failures_are_retried() {
        for code in [429, 500, 502, 503, 504, 599] {
            assert!(is_retried_status(
                StatusCode::from_u16(code).expect("valid")
            ));
        }
        for code in [200, 301, 400, 401, 403, 404, 501] {
            assert!(!is_retried_status(
                StatusCode::from_u16(code).expect("valid")
            ));
        }
        let discovery = RetryPolicy::terraform();
        let registry = RetryPolicy::registry();
        for policy in [&discovery, &registry] {
            assert!(policy.retries_failure(TransportErrorKind::Connect));
            assert!(policy.retries_failure(TransportErrorKind::Io));
            assert!(policy.retries_failure(TransportErrorKind::Proxy));
            assert!(!policy.retries_failure(TransportErrorKind::Certificate));
            assert!(!policy.retries_failure(TransportErrorKind::Timeout));
            assert!(!policy.retries_failure(TransportErrorKind::Other));
        }
        assert!(!discovery.retries_failure(TransportErrorKind::Tls));
        assert!(registry.retries_failure(TransportErrorKind::Tls));
    }

    #[test]
    fn waits_double_up_to_the_cap() {
        let p = RetryPolicy::terraform();
        let waits: Vec<_> = (1..=3).map(|n| p.wait(n).as_millis()).collect();
        assert_eq!(waits, [100, 200, 400]);
        assert_eq!(p.wait(20), Duration::from_secs(30));
        assert_eq!(p.clone().with_factor(1).wait(5), Duration::from_millis(100));
        assert_eq!(RetryPolicy::none().with_attempts(0).attempts(), 1);
        assert_eq!(
            RetryPolicy::none().with_retries(u32::MAX).attempts(),
            u32::MAX
        );
        let registry = RetryPolicy::registry();
        let waits: Vec<_> = (1..=6).map(|n| registry.wait(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 30]);
        assert_eq!(registry.longest(), Some(Duration::from_secs(21)));
        let four = registry.clone().with_retries(3);
        assert_eq!(four.longest(), Some(Duration::from_secs(47)));
        assert_eq!(RetryPolicy::terraform().longest(), None);
        assert_eq!(
            registry.with_attempt_timeout(Some(Duration::MAX)).longest(),
            None,
            "too long to count"
        );
    }
}
