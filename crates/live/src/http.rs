//! The HTTP edge every live service shares: who may call it and how much a caller may ask of
//! it.
//!
//! - **Access**: on a loopback address a service may run open; on any other it needs a
//!   [`BearerToken`] and refuses to start without one ([`check_exposure`]). With a token,
//!   every route, `/metrics` included, answers `401` (with `WWW-Authenticate: Bearer`) to a
//!   call without `Authorization: Bearer <token>`. The comparison is constant-time over the
//!   SHA-256 digests of the two tokens, so neither the token's bytes nor its length leak
//!   through timing; the service keeps only the digest.
//! - **Bounds** ([`Limits`]): a body larger than `max_body_bytes` is a `413`
//!   (tower-http's `RequestBodyLimitLayer`, declared or streamed), a body not received
//!   within `body_timeout` a `408` (`RequestBodyTimeoutLayer`); request headers over
//!   `max_header_bytes` are a `431` and headers not received within `header_timeout` close
//!   the connection (hyper's HTTP/1 limits); at most `max_connections` connections are served
//!   at once, further ones wait in the listener's backlog until one closes (so a caller that
//!   holds connections open cannot grow the service's memory).
//!
//! ```
//! use cosched_live::http::{BearerToken, check_exposure};
//!
//! let token = BearerToken::new("c0ffee00c0ffee00c0ffee00c0ffee00")?;
//! assert!(check_exposure(&"127.0.0.1:8642".parse()?, None).is_ok());
//! assert!(check_exposure(&"0.0.0.0:8642".parse()?, None).is_err());
//! assert!(check_exposure(&"0.0.0.0:8642".parse()?, Some(&token)).is_ok());
//! assert!(token.matches(b"c0ffee00c0ffee00c0ffee00c0ffee00"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use thiserror::Error;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;

/// The environment variable a service's token is read from when no token file is given.
pub const TOKEN_ENV: &str = "COSCHED_TOKEN";

/// The shortest token accepted, in bytes (128 bits of hex).
pub const MIN_TOKEN_BYTES: usize = 32;

/// Why a token could not be had.
#[derive(Debug, Error)]
pub enum TokenError {
    /// The token file could not be read.
    #[error("cannot read the token file `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The reader's error.
        source: std::io::Error,
    },
    /// The token is too short to resist guessing.
    #[error(
        "the token has {len} bytes; at least {MIN_TOKEN_BYTES} are needed (e.g. `openssl rand -hex 32`)"
    )]
    TooShort {
        /// Its length.
        len: usize,
    },
    /// The token has a byte a bearer token cannot carry in a header.
    #[error("the token may hold only visible ASCII characters (no spaces or control characters)")]
    Invalid,
    /// The environment variable holds no Unicode text.
    #[error("{TOKEN_ENV} is not valid Unicode")]
    NotUnicode,
    /// The token file may be read by others than its owner (as ssh refuses such a key).
    #[error(
        "the token file `{path}` is readable by group or others (mode {mode:o}); `chmod 600` it"
    )]
    Exposed {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
}

/// A bearer token, kept as its SHA-256 digest only; its `Debug` shows nothing of it.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken {
    digest: [u8; 32],
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(..)")
    }
}

impl BearerToken {
    /// The token `secret`: at least [`MIN_TOKEN_BYTES`] visible ASCII characters.
    pub fn new(secret: &str) -> Result<BearerToken, TokenError> {
        if !secret.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(TokenError::Invalid);
        }
        if secret.len() < MIN_TOKEN_BYTES {
            return Err(TokenError::TooShort { len: secret.len() });
        }
        Ok(BearerToken {
            digest: Sha256::digest(secret.as_bytes()).into(),
        })
    }

    /// The token of [`secret`]`(file)`, if there is one.
    pub fn configured(file: Option<&Path>) -> Result<Option<BearerToken>, TokenError> {
        secret(file)?.map(|s| BearerToken::new(&s)).transpose()
    }

    /// Whether `presented` is the token, in time independent of both.
    pub fn matches(&self, presented: &[u8]) -> bool {
        let digest: [u8; 32] = Sha256::digest(presented).into();
        self.digest.ct_eq(&digest).into()
    }

    /// Whether a request's `Authorization` header carries the token (`Bearer <token>`, the
    /// scheme in any case, RFC 7235 §2.1).
    fn admits(&self, authorization: Option<&HeaderValue>) -> bool {
        let Some(value) = authorization.map(HeaderValue::as_bytes) else {
            return false;
        };
        match value.split_at_checked(7) {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case(b"bearer ") => self.matches(token),
            _ => false,
        }
    }
}

/// The secret an operator configured, for a service or its clients: the file's content if
/// `file` is given, else [`TOKEN_ENV`]'s if it is set; less trailing line breaks and blanks.
/// On Unix a token file readable or writable by group or others is refused
/// ([`TokenError::Exposed`]), as ssh refuses such a private key.
pub fn secret(file: Option<&Path>) -> Result<Option<String>, TokenError> {
    let text = match file {
        Some(path) => read_private(path)?,
        None => match std::env::var(TOKEN_ENV) {
            Ok(text) => text,
            Err(std::env::VarError::NotPresent) => return Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => return Err(TokenError::NotUnicode),
        },
    };
    Ok(Some(text.trim_end().to_owned()))
}

/// The text of `path`, a file only its owner may read (checked on the opened file).
fn read_private(path: &Path) -> Result<String, TokenError> {
    use std::io::Read;
    let read_error = |source| TokenError::Read {
        path: path.to_owned(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(read_error)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = file.metadata().map_err(read_error)?.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(TokenError::Exposed {
                path: path.to_owned(),
                mode,
            });
        }
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(read_error)?;
    Ok(text)
}

/// A service was to listen beyond loopback without a token.
#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "refusing to serve on {addr} without a bearer token: beyond loopback every caller must present one (give --token-file or set {TOKEN_ENV})"
)]
pub struct Unprotected {
    /// The address.
    pub addr: SocketAddr,
}

/// Whether `addr` is reachable from this machine only.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    match addr.ip() {
        IpAddr::V4(ip) => ip.is_loopback(),
        IpAddr::V6(ip) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// Refuses an address beyond loopback (`0.0.0.0` included) without a token.
pub fn check_exposure(addr: &SocketAddr, token: Option<&BearerToken>) -> Result<(), Unprotected> {
    if token.is_some() || is_loopback(addr) {
        Ok(())
    } else {
        Err(Unprotected { addr: *addr })
    }
}

/// How much a caller may ask of a service; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A request body's largest size, bytes (default 256 KiB: a release of some 20,000 node
    /// names).
    pub max_body_bytes: usize,
    /// The request line and headers' largest size, bytes (default 16 KiB).
    pub max_header_bytes: usize,
    /// Connections served at once (default 256; 0 counts as 1).
    pub max_connections: usize,
    /// How long a caller may take to send its headers (default 10 s).
    pub header_timeout: std::time::Duration,
    /// How long a caller may take to send its body (default 10 s).
    pub body_timeout: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 256 * 1024,
            max_header_bytes: 16 * 1024,
            max_connections: 256,
            header_timeout: std::time::Duration::from_secs(10),
            body_timeout: std::time::Duration::from_secs(10),
        }
    }
}

/// How a service answers a refusal: its status and text as the service's own error body.
pub type Refuse = fn(StatusCode, String) -> Response;

/// `router` behind the token (if any) and the body limits, each refusal answered by `refused`.
pub fn protect(
    router: Router,
    token: Option<BearerToken>,
    limits: &Limits,
    refused: Refuse,
) -> Router {
    let router = router
        .layer(RequestBodyTimeoutLayer::new(limits.body_timeout))
        .layer(RequestBodyLimitLayer::new(limits.max_body_bytes))
        .layer(middleware::map_response_with_state(refused, explain_limit));
    match token {
        Some(token) => router.layer(middleware::from_fn_with_state(
            (Arc::new(token), refused),
            authorize,
        )),
        None => router,
    }
}

/// The body limit's own `413` (plain text, for a declared length over the limit) as the
/// service's error answer; a streamed body over the limit or one that times out is refused by
/// the route's extractor ([`rejection_status`]).
async fn explain_limit(State(refused): State<Refuse>, response: Response) -> Response {
    let plain = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_none_or(|t| t.as_bytes().starts_with(b"text/plain"));
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE && plain {
        refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is too large".into(),
        )
    } else {
        response
    }
}

async fn authorize(
    State((token, refused)): State<(Arc<BearerToken>, Refuse)>,
    request: Request,
    next: Next,
) -> Response {
    if token.admits(request.headers().get(header::AUTHORIZATION)) {
        return next.run(request).await;
    }
    let mut response = refused(
        StatusCode::UNAUTHORIZED,
        "this service needs `Authorization: Bearer <token>`".into(),
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response.into_response()
}

/// The status of a refused JSON body: `408` for one the body timeout cut short, `413` for
/// one over the body limit, the extractor's own (`400`, `415`, `422`) otherwise.
pub fn rejection_status(rejection: &axum::extract::rejection::JsonRejection) -> StatusCode {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(rejection);
    while let Some(e) = cause {
        if e.is::<tower_http::timeout::TimeoutError>() {
            return StatusCode::REQUEST_TIMEOUT;
        }
        if e.is::<http_body_util::LengthLimitError>() {
            return StatusCode::PAYLOAD_TOO_LARGE;
        }
        cause = e.source();
    }
    rejection.status()
}

/// Resolves when the process is asked to stop: SIGINT (Ctrl-C) or, on Unix, SIGTERM (what a
/// service manager sends).
pub async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Serves `router` on `listener` over HTTP/1.1 within `limits` until `shutdown` resolves,
/// then lets the open calls finish.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: &Limits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(
        listener,
        router,
        limits,
        Arc::new(|_, _: &str| {}),
        shutdown,
    )
    .await
}

/// Told of each refusal HTTP itself answers before the router sees a request: its status
/// and why (headers over [`Limits::max_header_bytes`]: `431`).
pub type EdgeRefusal = Arc<dyn Fn(StatusCode, &str) + Send + Sync>;

/// As [`serve`], telling `refused` of the refusals answered before the router (which the
/// router's own layers never see, so a service counts and logs them here).
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: &Limits,
    refused: EdgeRefusal,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_header_size(limits.max_header_bytes);
    let permits = limits
        .max_connections
        .clamp(1, tokio::sync::Semaphore::MAX_PERMITS);
    let connections = Arc::new(tokio::sync::Semaphore::new(permits));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = connections.clone().acquire_owned() => permit,
        };
        let Ok(permit) = permit else { break };
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // A connection that failed before it was accepted (reset by its peer), or the
                // process out of file descriptors: wait a little, the next may succeed.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let service = TowerToHyperService::new(router.clone());
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        let refused = refused.clone();
        tokio::spawn(async move {
            // A connection's own failure (its peer gone, a malformed request) ends it alone;
            // headers over the limit were answered `431` by hyper first.
            if let Err(e) = connection.await
                && e.is_parse_too_large()
            {
                refused(
                    StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                    "the request headers are too large",
                );
            }
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn a_token_is_matched_exactly() {
        let token = BearerToken::new(SECRET).unwrap();
        assert!(token.matches(SECRET.as_bytes()));
        assert!(!token.matches(&SECRET.as_bytes()[1..]));
        assert!(!token.matches(b""));
        let header = |v: &str| HeaderValue::from_str(v).unwrap();
        assert!(token.admits(Some(&header(&format!("Bearer {SECRET}")))));
        assert!(token.admits(Some(&header(&format!("bearer {SECRET}")))));
        assert!(!token.admits(Some(&header(&format!("Basic {SECRET}")))));
        assert!(!token.admits(Some(&header(&format!("Bearer  {SECRET}")))));
        assert!(!token.admits(Some(&header("Bearer"))));
        assert!(!token.admits(None));
        assert_eq!(format!("{token:?}"), "BearerToken(..)");
    }

    #[test]
    fn a_weak_or_unprintable_token_is_refused() {
        assert!(matches!(
            BearerToken::new("short"),
            Err(TokenError::TooShort { len: 5 })
        ));
        assert!(matches!(
            BearerToken::new(&format!("{SECRET} x")),
            Err(TokenError::Invalid)
        ));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, format!("{SECRET}\n")).unwrap();
        private(&path, 0o600);
        assert_eq!(
            BearerToken::configured(Some(&path)).unwrap(),
            Some(BearerToken::new(SECRET).unwrap())
        );
        assert!(matches!(
            BearerToken::configured(Some(&dir.path().join("absent"))),
            Err(TokenError::Read { .. })
        ));
    }

    #[cfg(unix)]
    fn private(path: &Path, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[cfg(not(unix))]
    fn private(_: &Path, _: u32) {}

    /// A token file group or others may read or write is refused, as ssh refuses such a key;
    /// the owner's own bits are free.
    #[cfg(unix)]
    #[test]
    fn a_token_file_others_may_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, SECRET).unwrap();
        for mode in [0o644, 0o640, 0o604, 0o620, 0o602] {
            private(&path, mode);
            match secret(Some(&path)) {
                Err(TokenError::Exposed { mode: m, .. }) => assert_eq!(m, mode),
                other => panic!("{mode:o}: {other:?}"),
            }
        }
        let text = BearerToken::configured(Some(&path))
            .unwrap_err()
            .to_string();
        assert!(text.contains("chmod 600") && text.contains("602"), "{text}");
        for mode in [0o600, 0o400, 0o700] {
            private(&path, mode);
            assert_eq!(
                secret(Some(&path)).unwrap().as_deref(),
                Some(SECRET),
                "{mode:o}"
            );
        }
    }

    #[test]
    fn beyond_loopback_a_token_is_required() {
        let token = BearerToken::new(SECRET).unwrap();
        for open in [
            "127.0.0.1:80",
            "127.8.0.1:80",
            "[::1]:80",
            "[::ffff:127.0.0.1]:80",
        ] {
            let addr: SocketAddr = open.parse().unwrap();
            assert_eq!(check_exposure(&addr, None), Ok(()), "{open}");
        }
        for exposed in [
            "0.0.0.0:80",
            "[::]:80",
            "10.1.2.3:80",
            "[::ffff:10.0.0.1]:80",
        ] {
            let addr: SocketAddr = exposed.parse().unwrap();
            assert_eq!(check_exposure(&addr, None), Err(Unprotected { addr }));
            assert_eq!(check_exposure(&addr, Some(&token)), Ok(()));
        }
    }
}
