//! One request to a repository, authorized (OCI-5): sent with what the
//! [`AuthCache`] knows; on a 401, the challenge answered (the token
//! service asked, or `Basic` learned) and the request sent once more. A
//! second 401 is the answer. No I/O: a driver runs the transfers each
//! [`Step`] hands out.

use std::time::Instant;

use tfdisco_core::{Config, Error, Goal, Hostname, Transfer};
use url::Url;

use crate::auth::{AfterChallenge, TokenService};
use crate::goals::{Answer, Challenged, TokenRequest};
use crate::{AuthCache, OciCredentials, RepositoryAddress, Scope, TokenAnswer};

/// What the driver of an [`Authorized`] request does next.
#[derive(Debug)]
pub enum Step<G: Goal> {
    /// Run this transfer and report it with [`Authorized::answered`].
    Request(Transfer<Challenged<G>>),
    /// Run this token request and report it with [`Authorized::token`].
    Token(Transfer<TokenRequest>),
    /// The request is over.
    Done(Result<G::Output, Error>),
}

/// A request to an OCI repository, with the registry's authentication.
///
/// ```text
///   next ─▶ Request ─ answered: Done ─────────────────────────▶ Done
///                      │ 401 (first)                       ▲
///                      ├─ Basic learned / access token ─▶ next ─▶ Request
///                      ├─ Bearer: Token ─ token ──────────▶ next ─▶ Request
///                      └─ 401 again, or unanswerable ──────────────┘
/// ```
#[derive(Debug)]
pub struct Authorized<G: Goal> {
    host: Hostname,
    address: RepositoryAddress,
    scope: Scope,
    credentials: Option<OciCredentials>,
    url: Url,
    goal: Option<G>,
    challenged: bool,
    token: Option<TokenService>,
    done: Option<Result<G::Output, Error>>,
}

impl<G: Goal> Authorized<G> {
    /// A request for `goal` to `url` in the repository at `address`,
    /// needing `scope`, with the `credentials` configured for it.
    pub fn new(
        goal: G,
        url: Url,
        address: &RepositoryAddress,
        scope: Scope,
        credentials: Option<OciCredentials>,
    ) -> Authorized<G> {
        Authorized {
            host: goal.host().clone(),
            address: address.clone(),
            scope,
            credentials,
            url,
            goal: Some(goal),
            challenged: false,
            token: None,
            done: None,
        }
    }

    /// What to do next, at `now`, with what `cache` knows.
    pub fn next(&mut self, cache: &AuthCache, config: &Config, now: Instant) -> Step<G> {
        if let Some(done) = self.done.take() {
            return Step::Done(done);
        }
        if let Some(request) = self.token.take() {
            let goal = TokenRequest::new(self.host.clone());
            return match Transfer::get(goal, request.url, config, request.credentials, now) {
                Ok(transfer) => Step::Token(transfer),
                Err(e) => Step::Done(Err(e.into())),
            };
        }
        let Some(goal) = self.goal.take() else {
            return Step::Done(Err(Error::InvalidArgument {
                message: "an OCI request was asked for its next step after it ended".to_owned(),
            }));
        };
        let authorization = cache.authorization(
            self.address.registry(),
            &self.scope,
            self.credentials.as_ref(),
            now,
        );
        match Transfer::get(
            Challenged(goal),
            self.url.clone(),
            config,
            authorization,
            now,
        ) {
            Ok(transfer) => Step::Request(transfer),
            Err(e) => Step::Done(Err(e.into())),
        }
    }

    /// The outcome of the [`Step::Request`] transfer, which is handed back.
    pub fn answered(
        &mut self,
        transfer: Transfer<Challenged<G>>,
        result: Result<Answer<G::Output>, Error>,
        cache: &mut AuthCache,
    ) {
        let challenge = match result {
            Ok(Answer::Done(output)) => return self.done = Some(Ok(output)),
            Err(e) => return self.done = Some(Err(e)),
            Ok(Answer::Challenged(challenge)) => challenge,
        };
        let url = transfer.url().clone();
        if self.challenged {
            let refused = Error::Status {
                url: url.into(),
                status: tfdisco_core::http::StatusCode::UNAUTHORIZED,
            };
            return self.done = Some(Err(transfer.goal().present_error(refused)));
        }
        self.challenged = true;
        let goal = transfer.into_goal().0;
        match cache.challenged(
            self.address.registry(),
            challenge.as_ref(),
            &self.scope,
            self.credentials.as_ref(),
            &url,
        ) {
            Ok(AfterChallenge::Retry) => {}
            Ok(AfterChallenge::Token(request)) => self.token = Some(request),
            Err(e) => self.done = Some(Err(goal.present_error(e))),
        }
        self.goal = Some(goal);
    }

    /// The outcome of the [`Step::Token`] transfer, at `now`.
    pub fn token(
        &mut self,
        result: Result<TokenAnswer, Error>,
        cache: &mut AuthCache,
        now: Instant,
    ) {
        match result {
            Ok(answer) => cache.token_received(self.address.registry(), &self.scope, answer, now),
            Err(e) => self.done = Some(Err(e)),
        }
    }
}
