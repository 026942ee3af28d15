//! The one error type of the host and its code table. Every error status answers with the SPEC envelope
//! `{"error", "code", "docs"}` (429 adds `retryAfterSec`, 500 adds `requestId`).

use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// The code table: status, docs anchor and title of every error the API gives.
pub const ERROR_CODES: &[(u16, &str, &str)] = &[
    (400, "bad-request", "A query parameter is missing or malformed"),
    (401, "unauthorized", "API key missing, malformed, unknown, revoked or conflicting"),
    (403, "forbidden", "The key's tier may not use this endpoint"),
    (404, "not-found", "No such path, or the requested entity does not exist"),
    (405, "method-not-allowed", "Only GET (and HEAD) are supported"),
    (414, "uri-too-long", "The request target (path and query string) is longer than the server accepts"),
    (
        429,
        "rate-limited",
        "A per-minute limit is exceeded: the key's rate limit, or failed credentials from the address",
    ),
    (431, "headers-too-large", "The request's headers are larger than the server accepts"),
    (500, "internal", "An unexpected fault; quote the request id when reporting it"),
    (503, "unavailable", "A dependency (records engine, rate-limit store, dataset) is unavailable"),
];

fn anchor(status: u16) -> &'static str {
    ERROR_CODES.iter().find(|(s, _, _)| *s == status).map(|(_, a, _)| *a).unwrap_or("errors")
}

/// The `docs` link for a status.
pub fn docs_url(base_url: &str, status: u16) -> String {
    format!("{}/docs#{}", base_url.trim_end_matches('/'), anchor(status))
}

/// An error answer.
#[derive(Debug, Clone)]
pub struct AppError {
    pub status: StatusCode,
    pub message: String,
    pub docs: String,
    pub retry_after: Option<u64>,
    pub request_id: Option<String>,
    pub headers: HeaderMap,
}

impl AppError {
    pub fn new(base_url: &str, status: u16, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            message: message.into(),
            docs: docs_url(base_url, status),
            retry_after: None,
            request_id: None,
            headers: HeaderMap::new(),
        }
    }

    pub fn with_header(mut self, name: HeaderName, value: impl TryInto<HeaderValue>) -> Self {
        if let Ok(v) = value.try_into() {
            self.headers.insert(name, v);
        }
        self
    }

    pub fn with_request_id(mut self, request_id: Option<&str>) -> Self {
        self.request_id = request_id.map(str::to_string);
        self
    }

    pub fn body(&self) -> serde_json::Value {
        let mut body = json!({
            "error": self.message,
            "code": self.status.as_u16(),
            "docs": self.docs,
        });
        if let Some(secs) = self.retry_after {
            body["retryAfterSec"] = json!(secs);
        }
        if let Some(id) = &self.request_id {
            body["requestId"] = json!(id);
        }
        body
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let body = self.body().to_string();
        let mut resp = (self.status, body).into_response();
        resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        resp.headers_mut().extend(self.headers);
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_an_anchor() {
        for (status, _, _) in ERROR_CODES {
            assert_ne!(anchor(*status), "errors");
        }
        assert_eq!(docs_url("http://x/", 429), "http://x/docs#rate-limited");
    }

    #[test]
    fn retry_after_is_in_the_body() {
        let mut e = AppError::new("http://x", 429, "slow down");
        e.retry_after = Some(7);
        assert_eq!(e.body()["retryAfterSec"], 7);
        assert_eq!(e.body()["code"], 429);
    }
}
