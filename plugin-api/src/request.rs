//! The request a plugin receives and the response or error it returns, as plain JSON-friendly values
//! (transport-neutral, so an out-of-process transport can carry them unchanged).

use serde::{Deserialize, Serialize};

use crate::params::Query;
use crate::Tier;

/// One request as the host hands it to a plugin.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestEnvelope {
    /// The matched route template, for example `/v1/congress-trades`.
    pub route: String,
    /// Query parameters in the order received, percent-decoded.
    #[serde(default)]
    pub query: Vec<(String, String)>,
    /// Tier of the calling key, already checked against the route's `min_tier` by the host; [`Tier::Owner`] for
    /// calls from other plugins (`route.get`).
    pub tier: Tier,
    /// The host's request id (JSON `requestId`, also the `X-Request-Id` header); `internal:<slug>` for a call from
    /// another plugin, empty when unknown. Quote it in logs.
    #[serde(default)]
    pub request_id: String,
}

impl RequestEnvelope {
    /// A request for `route` with these query parameters, as the owner tier and without a request id (for tests and
    /// tools).
    pub fn new(route: &str, query: &[(&str, &str)]) -> Self {
        Self {
            route: route.into(),
            query: query.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            tier: Tier::Owner,
            request_id: String::new(),
        }
    }

    /// Typed access to the query parameters with SPEC's rules.
    pub fn params(&self) -> Query<'_> {
        Query::of_request(self)
    }
}

/// A response header by which a plugin tells the host not to keep this answer in its response cache (value
/// `off`); the host removes it before the answer leaves. The SDK sets it on every answer of an instance whose
/// `Plugin::cache_responses` is false. A plugin may instead set `Cache-Control: no-store`, which the client
/// sees too. (A header, not an ABI field: the response layout is frozen.)
pub const NO_HOST_CACHE_HEADER: &str = "x-datahost-cache";

/// A successful (or deliberately non-200) JSON response.
#[derive(Debug, Clone)]
pub struct Response {
    /// HTTP status: 200 for a normal answer; an error status (400-599) needs a JSON body with an `error` string.
    pub status: u16,
    /// Response body; a 2xx body must be JSON (the host answers 500 otherwise).
    pub body: Vec<u8>,
    /// Extra response headers as `(name, value)`; the host passes on only `Cache-Control` and `X-*` headers (not
    /// `X-RateLimit-*` or `X-Request-Id`).
    pub headers: Vec<(String, String)>,
}

/// The least and most room [`Response::json`] starts a body with.
const MIN_BODY_ROOM: usize = 128;
const MAX_BODY_ROOM: usize = 1 << 20;

thread_local! {
    /// Room for the next body [`Response::json`] writes on this thread, from the sizes of the last ones: a body
    /// grown from 128 bytes by doubling is moved about log2(size / 128) times (seven for a 10 KB answer).
    static BODY_ROOM: std::cell::Cell<usize> = const { std::cell::Cell::new(MIN_BODY_ROOM) };
}

impl Response {
    /// 200 with `value` serialised as JSON.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Response, ApiError> {
        let mut body = Vec::with_capacity(BODY_ROOM.get());
        serde_json::to_writer(&mut body, value)
            .map_err(|e| ApiError::internal(format!("serialising the response: {e}")))?;
        // The next body's room: this one's size, or what is left of a larger one's (an eighth less per body).
        BODY_ROOM.set(body.len().max(BODY_ROOM.get() - BODY_ROOM.get() / 8).clamp(MIN_BODY_ROOM, MAX_BODY_ROOM));
        crate::export::note_written_json(&body);
        Ok(Response { status: 200, body, headers: Vec::new() })
    }

    /// Adds a response header (see [`Response::headers`](#structfield.headers) for which ones reach the client).
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// An error answer. The host turns it into the SPEC error envelope (`error`, `code`, `docs`).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status the client gets: 400-599 (the body is `{"error": message, "code": status}`).
    pub status: u16,
    /// Human-readable message, served as the error body's `error` field.
    pub message: String,
}

impl ApiError {
    /// An error with any `status`.
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }
    /// A 400: the request is malformed (name the parameter and the rule in `message`).
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, message)
    }
    /// A 404: the requested thing does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(404, message)
    }
    /// A 500: the plugin failed; the host adds the request id to the answer.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, message)
    }
    /// A 503: a dependency (the records engine) is unavailable; the client may retry.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(503, message)
    }
    /// SPEC wording for a missing required parameter: "the vin query parameter is required".
    pub fn missing(param: &str) -> Self {
        Self::bad_request(format!("the {param} query parameter is required"))
    }

    /// The JSON body `{"error": ..., "code": ...}`; the host adds `docs`.
    pub fn to_body(&self) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({ "error": self.message, "code": self.status }))
            .unwrap_or_else(|_| b"{}".to_vec())
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.message)
    }
}

impl std::error::Error for ApiError {}
