//! One GET of an issuer's JWKS: HTTP/1.1 over TLS (or plain HTTP on loopback, which the
//! registry check allows for tests), no redirects, a size cap, JSON parsed into keys.
//! Asynchronous, so a slow issuer holds no thread; the caller bounds the time.

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::Request;
use hyper::header::{ACCEPT, CONNECTION, HOST};
use hyper_util::rt::TokioIo;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};

/// Time allowed for one fetch, connection included.
pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest JWKS document read.
const MAX_JWKS_BYTES: usize = 256 * 1024;
/// Most keys kept from one document.
const MAX_KEYS: usize = 32;

/// The keys published at `uri`; the error says why not, for the log.
pub(crate) async fn fetch_jwks(uri: &str) -> Result<Vec<Jwk>, String> {
    let uri: hyper::Uri = uri.parse().map_err(|e| format!("bad URL: {e}"))?;
    let https = match uri.scheme_str() {
        Some("https") => true,
        Some("http") => false,
        _ => return Err("the URL is neither https nor http".to_owned()),
    };
    let authority = uri
        .authority()
        .ok_or("the URL has no host")?
        .as_str()
        .to_owned();
    let host = uri.host().ok_or("the URL has no host")?;
    let bare_host = host.trim_start_matches('[').trim_end_matches(']');
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let stream = TcpStream::connect((bare_host, port))
        .await
        .map_err(|e| format!("cannot connect: {e}"))?;
    let request = Request::get(path)
        .header(HOST, authority)
        .header(ACCEPT, "application/json")
        .header(CONNECTION, "close")
        .body(Empty::<Bytes>::new())
        .map_err(|e| format!("cannot write the request: {e}"))?;
    let body = if https {
        let name = ServerName::try_from(bare_host.to_owned())
            .map_err(|e| format!("bad TLS server name: {e}"))?;
        let tls = TlsConnector::from(tls_config()?)
            .connect(name, stream)
            .await
            .map_err(|e| format!("TLS: {e}"))?;
        get(tls, request).await?
    } else {
        get(stream, request).await?
    };
    let set: JwkSet = serde_json::from_slice(&body).map_err(|e| format!("not a JWK set: {e}"))?;
    Ok(set.keys.into_iter().take(MAX_KEYS).collect())
}

/// Sends `request` on `io` and reads a 200 response's body within [`MAX_JWKS_BYTES`].
async fn get<T>(io: T, request: Request<Empty<Bytes>>) -> Result<Bytes, String>
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| format!("HTTP: {e}"))?;
    let exchange = async move {
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| format!("HTTP: {e}"))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(format!("answered {status}; redirects are not followed"));
        }
        if status != hyper::StatusCode::OK {
            return Err(format!("answered {status}"));
        }
        let body = Limited::new(response.into_body(), MAX_JWKS_BYTES)
            .collect()
            .await
            .map_err(|e| format!("body over {MAX_JWKS_BYTES} bytes or unreadable: {e}"))?;
        // Dropping the sender lets the connection finish.
        drop(sender);
        Ok(body.to_bytes())
    };
    // The connection is driven in this same future, so abandoning the fetch closes it.
    let (body, _) = tokio::join!(exchange, connection);
    body
}

/// The TLS client configuration: the Mozilla root store, ring's algorithms.
fn tls_config() -> Result<Arc<ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .map(|b| Arc::new(b.with_root_certificates(roots).with_no_client_auth()))
                .map_err(|e| format!("TLS configuration: {e}"))
        })
        .clone()
}
