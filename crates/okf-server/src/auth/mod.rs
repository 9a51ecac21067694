//! Restricted bundles for authorised callers: the registry's access policies, the callers
//! bearer tokens make, and the OAuth 2.0 protected-resource side of the MCP authorization
//! specification (docs/deploy.md "Restricted bundles").
//!
//! This server is a resource server, never an authorization server: it validates signed JWT
//! access tokens against the JWKS of an issuer the registry allow-lists (fetched from the
//! registry's URL only, never from a request or a token), and a restricted bundle, corpus or
//! workbench is visible only to a caller whose token satisfies its policy. To anyone else it
//! does not exist: absent from every listing and enum, 404 on every route.
//!
//! One room per job: `policy` what the registry declares and who may see what, `token` the
//! checks of one token, `jwks` the issuers' key caches, `fetch` one
//! asynchronous GET of a key set.

mod fetch;
mod jwks;
mod policy;
mod token;

pub use policy::{Access, AuthConfig, AuthDecl, Caller, Grant, IssuerDecl, Policy};
pub use token::{Failure, Verifier};
