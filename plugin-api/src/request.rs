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
    pub tier: Tier,
    #[serde(default)]
    pub request_id: String,
}

impl RequestEnvelope {
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
        Query::new(&self.query)
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
    pub status: u16,
    pub body: Vec<u8>,
    pub headers: Vec<(String, String)>,
}

impl Response {
    /// 200 with `value` serialised as JSON.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Response, ApiError> {
        let body =
            serde_json::to_vec(value).map_err(|e| ApiError::internal(format!("serialising the response: {e}")))?;
        Ok(Response { status: 200, body, headers: Vec::new() })
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// An error answer. The host turns it into the SPEC error envelope (`error`, `code`, `docs`).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(404, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, message)
    }
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
