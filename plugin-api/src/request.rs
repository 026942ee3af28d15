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

    /// Reads an envelope from its JSON text, as serde_json would. The host's own writing (its fields in
    /// declaration order, no whitespace, no escaped character) is read directly, without serde's field matching
    /// and sequence visitors (a tenth of a cold answer's instructions in the plugin went to reading it); any
    /// other JSON text is read by serde_json.
    pub fn from_json(text: &str) -> serde_json::Result<Self> {
        match Self::from_host_json(text) {
            Some(envelope) => Ok(envelope),
            None => serde_json::from_str(text),
        }
    }

    /// `text` when it is exactly `{"route":S,"query":[[S,S],...],"tier":S,"requestId":S}` and no string `S` holds
    /// an escape or a control character; `None` for anything else, valid or not.
    fn from_host_json(text: &str) -> Option<Self> {
        let mut rest = text.strip_prefix("{\"route\":")?;
        let route = plain_string(&mut rest)?;
        rest = rest.strip_prefix(",\"query\":[")?;
        let mut query = Vec::new();
        if let Some(after) = rest.strip_prefix(']') {
            rest = after;
        } else {
            loop {
                rest = rest.strip_prefix('[')?;
                let name = plain_string(&mut rest)?;
                rest = rest.strip_prefix(',')?;
                let value = plain_string(&mut rest)?;
                rest = rest.strip_prefix(']')?;
                query.push((name.to_owned(), value.to_owned()));
                match rest.strip_prefix(',') {
                    Some(after) => rest = after,
                    None => break,
                }
            }
            rest = rest.strip_prefix(']')?;
        }
        rest = rest.strip_prefix(",\"tier\":")?;
        let tier = Tier::parse(plain_string(&mut rest)?)?;
        rest = rest.strip_prefix(",\"requestId\":")?;
        let request_id = plain_string(&mut rest)?;
        (rest == "}").then(|| Self { route: route.to_owned(), query, tier, request_id: request_id.to_owned() })
    }
}

/// The JSON string `rest` starts with when it holds no escape and no control character (which JSON does not
/// allow unescaped), `rest` moved past it. (A string with an escaped quote holds a backslash before the first
/// quote found, so it is refused, never cut there.)
fn plain_string<'a>(rest: &mut &'a str) -> Option<&'a str> {
    let text = rest.strip_prefix('"')?;
    let end = memchr::memchr(b'"', text.as_bytes())?;
    let string = &text[..end];
    if crate::rows::holds_escaped_byte(string.as_bytes()) {
        return None;
    }
    *rest = &text[end + 1..];
    Some(string)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde_json reads from `text`, as comparable JSON (or its refusal).
    fn by_serde(text: &str) -> Option<serde_json::Value> {
        serde_json::from_str::<RequestEnvelope>(text).ok().map(|e| serde_json::to_value(e).unwrap())
    }

    fn by_sdk(text: &str) -> Option<serde_json::Value> {
        RequestEnvelope::from_json(text).ok().map(|e| serde_json::to_value(e).unwrap())
    }

    #[test]
    fn envelopes_read_as_serde_json_reads_them() {
        // Texts that need escapes, look like the envelope's syntax, or are not ASCII.
        let texts = [
            "",
            "NVDA",
            "a b",
            "q\"uote",
            "back\\slash",
            "tab\there",
            "line\nbreak",
            "\u{1}",
            "é€😀",
            "],[",
            "\"}",
            "/",
        ];
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let mut read_directly = 0;
        for _ in 0..2000 {
            let pairs: Vec<(String, String)> = (0..next(4))
                .map(|_| (texts[next(texts.len())].to_string(), texts[next(texts.len())].to_string()))
                .collect();
            let envelope = RequestEnvelope {
                route: ["/v1/x", "/v1/edgar-search", "/v1/\"odd"][next(3)].to_string(),
                query: pairs,
                tier: Tier::ALL[next(4)],
                request_id: ["", "01J9Z3", "internal:deeds", "a\\b"][next(4)].to_string(),
            };
            let written = serde_json::to_string(&envelope).unwrap();
            assert_eq!(by_sdk(&written), by_serde(&written), "{written}");
            assert!(by_sdk(&written).is_some(), "{written}");
            read_directly += usize::from(RequestEnvelope::from_host_json(&written).is_some());
            // The same envelope written another way, and broken texts near it: read (or refused) as serde_json does.
            let pretty = serde_json::to_string_pretty(&envelope).unwrap();
            let mut end = written.len() - 1 - next(written.len() - 1);
            while !written.is_char_boundary(end) {
                end -= 1;
            }
            let cut = &written[..end];
            let tail = format!("{written} x");
            let swapped = written.replacen("\"route\"", "\"requestId\"", 1).replacen(",\"requestId\"", ",\"route\"", 1);
            let unknown_tier = written.replace(&format!("\"{}\"", envelope.tier.as_str()), "\"gold\"");
            for other in [pretty, cut.to_string(), tail, swapped, unknown_tier] {
                assert_eq!(by_sdk(&other), by_serde(&other), "{other}");
            }
        }
        assert!(read_directly > 200, "the host's plain envelopes are read without serde ({read_directly})");
        let minimal = r#"{"route":"/v1/x","tier":"pro"}"#;
        assert_eq!(by_sdk(minimal), by_serde(minimal), "defaults as serde fills them");
        assert!(by_sdk(minimal).is_some());
    }

    #[test]
    fn a_plain_envelope_is_read_field_by_field() {
        let text = r#"{"route":"/v1/edgar-search","query":[["q","revenue growth"],["limit","20"]],"tier":"owner","requestId":"r1"}"#;
        let read = RequestEnvelope::from_host_json(text).expect("read directly");
        assert_eq!(read.route, "/v1/edgar-search");
        assert_eq!(read.query, [("q".to_string(), "revenue growth".to_string()), ("limit".into(), "20".into())]);
        assert_eq!(read.tier, Tier::Owner);
        assert_eq!(read.request_id, "r1");
        let empty = r#"{"route":"/v1/x","query":[],"tier":"free","requestId":""}"#;
        assert!(RequestEnvelope::from_host_json(empty).is_some_and(|e| e.query.is_empty()));
        for not_plain in [
            r#"{"route":"/v1/\"x","query":[],"tier":"free","requestId":""}"#,
            r#"{"route":"/v1/x","query":[],"tier":"free","requestId":""} "#,
        ] {
            assert!(RequestEnvelope::from_host_json(not_plain).is_none(), "{not_plain}");
        }
    }
}
