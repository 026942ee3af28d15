//! Cross-origin requests from web pages (CORS), off unless `server.cors_allowed_origins` names origins. When on,
//! tower-http's `CorsLayer` adds the `Access-Control-*` headers (and `Vary: Origin`, since the answer then
//! depends on the caller's origin) to every response, and this module decides how `OPTIONS` fits the rule that
//! anything but GET and HEAD is a 405:
//! - a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed origin that
//!   asks for GET or HEAD is answered by the layer (200, empty body, `Access-Control-Allow-*`);
//! - a preflight from an origin not allowed is a 403 envelope, one asking for another method a 405 envelope;
//! - every other `OPTIONS`, and every `OPTIONS` while CORS is off, stays a 405 with `Allow: GET, HEAD`.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue, Method};
use axum::response::{IntoResponse, Response};
use tower::{Layer, Service, ServiceExt};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::http::error::AppError;

/// Response headers a page may read: the rate-limit state, the request id and the data label.
const EXPOSED: [&str; 6] =
    ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after", "x-request-id", "x-data-status"];

/// How long a browser may reuse a preflight answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(3600);

/// The configured policy.
#[derive(Clone)]
pub struct Cors {
    layer: CorsLayer,
    /// `None`: every origin (`["*"]`).
    origins: Option<Vec<HeaderValue>>,
}

impl Cors {
    /// The policy for `server.cors_allowed_origins`; `None` (CORS off) when the list is empty. The entries were
    /// checked by `check_origins` when the configuration loaded.
    pub fn from_config(allowed: &[String]) -> Option<Cors> {
        if allowed.is_empty() {
            return None;
        }
        let origins: Option<Vec<HeaderValue>> = if allowed.iter().any(|o| o == "*") {
            None
        } else {
            Some(allowed.iter().filter_map(|o| HeaderValue::from_str(o).ok()).collect())
        };
        let allow_origin = match &origins {
            None => AllowOrigin::any(),
            Some(list) => AllowOrigin::list(list.clone()),
        };
        let layer = CorsLayer::new()
            .allow_origin(allow_origin)
            .allow_methods([Method::GET, Method::HEAD])
            .allow_headers([header::AUTHORIZATION, HeaderName::from_static("x-api-key")])
            .expose_headers(EXPOSED.map(HeaderName::from_static))
            .max_age(PREFLIGHT_MAX_AGE);
        Some(Cors { layer, origins })
    }

    fn allows(&self, origin: &HeaderValue) -> bool {
        self.origins.as_ref().is_none_or(|list| list.contains(origin))
    }
}

/// The work while CORS is on, around `inner` (the rest of the request's handling): CORS headers on every
/// response, and the `OPTIONS` rules above (`base_url` for the error envelopes). The router's front middleware
/// (`app.rs`) runs it when `AppState::cors` is set.
pub async fn apply<S>(cors: &Cors, base_url: &str, request: Request, inner: S) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    if request.method() == Method::OPTIONS {
        let headers = request.headers();
        let (Some(origin), Some(asked)) =
            (headers.get(header::ORIGIN), headers.get(header::ACCESS_CONTROL_REQUEST_METHOD))
        else {
            // Not a preflight: the router's 405.
            return run(inner, request).await;
        };
        let vary = (header::VARY, HeaderValue::from_static("origin"));
        if !cors.allows(origin) {
            let shown: String = origin.to_str().unwrap_or("?").chars().take(100).collect();
            return AppError::new(
                base_url,
                403,
                format!("cross-origin requests from {shown} are not allowed by this server"),
            )
            .with_header(vary.0, vary.1)
            .into_response();
        }
        if asked != "GET" && asked != "HEAD" {
            return AppError::new(
                base_url,
                405,
                "this API is read-only: a cross-origin page may use GET and HEAD only",
            )
            .with_header(header::ALLOW, HeaderValue::from_static("GET, HEAD"))
            .with_header(vary.0, vary.1)
            .into_response();
        }
    }
    match cors.layer.layer(inner).oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    }
}

async fn run<S>(inner: S, request: Request) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    match inner.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}
