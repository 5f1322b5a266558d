//! What an [`OAuthServer`](super::OAuthServer) saw: each request to its
//! authorization and token endpoints (every field, as sent), and the
//! `Authorization` header of each request to its other services. Their
//! `Debug` names the fields, never the values (codes, verifiers, passwords
//! and tokens are secrets).

use std::fmt;

/// One request to `/authz`.
#[derive(Clone, Default)]
pub struct AuthzRequest {
    /// The query's fields, in order, decoded.
    pub fields: Vec<(String, String)>,
    /// What the server found wrong with it (empty: well formed).
    pub problems: Vec<String>,
    /// The code the redirect carried, if any.
    pub code: Option<String>,
    /// Where it redirected to, if it did.
    pub location: Option<String>,
}

/// One request to `/token`.
#[derive(Clone, Default)]
pub struct TokenRequest {
    /// The `Authorization` header, exactly as sent.
    pub authorization: Option<String>,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The form's fields, in order, decoded.
    pub fields: Vec<(String, String)>,
    /// The client id the request named, and where: `basic` (the
    /// `Authorization` header's user) or `form` (`client_id`).
    pub client: Option<(String, &'static str)>,
    /// What the server found wrong with it (empty: it passed).
    pub problems: Vec<String>,
    /// The status it was answered.
    pub status: u16,
}

/// A request to another service (`tfe.v2`, `providers.v1`).
#[derive(Clone, Default)]
pub struct ServiceRequest {
    /// `GET`, normally.
    pub method: String,
    /// The path.
    pub path: String,
    /// The `Authorization` header, exactly as sent.
    pub authorization: Option<String>,
    /// The status it was answered.
    pub status: u16,
}

/// The first value of field `name`.
pub(crate) fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

impl AuthzRequest {
    /// The first value of field `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        field(&self.fields, name)
    }
}

impl TokenRequest {
    /// The first value of field `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        field(&self.fields, name)
    }
}

fn names(fields: &[(String, String)]) -> Vec<&str> {
    fields.iter().map(|(n, _)| n.as_str()).collect()
}

impl fmt::Debug for AuthzRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthzRequest")
            .field("fields", &names(&self.fields))
            .field("problems", &self.problems)
            .field("code", &self.code.as_ref().map(|_| "…"))
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for TokenRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRequest")
            .field("authorization", &self.authorization.as_ref().map(|_| "…"))
            .field("content_type", &self.content_type)
            .field("fields", &names(&self.fields))
            .field("problems", &self.problems)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for ServiceRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServiceRequest")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("authorization", &self.authorization.as_ref().map(|_| "…"))
            .field("status", &self.status)
            .finish()
    }
}
