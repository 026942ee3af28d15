//! What one call of a plugin's `handle` produced (`HandleOutcome`), read the same way whether the plugin runs in
//! this process or in a child (`outcome_of`), and the short error text shown for a failure.

use std::collections::BTreeMap;

use axum::http::{HeaderName, HeaderValue};
use datahost_plugin_api::abi::{OUTCOME_API_ERROR, OUTCOME_OK, OUTCOME_OK_WRITTEN_JSON, OUTCOME_PANIC};

/// What one call to `handle` produced.
#[derive(Debug)]
pub enum HandleOutcome {
    Response {
        status: u16,
        /// A 2xx body carries `"dataStatus"` first (`labelled`), put there as it was copied out of the plugin.
        body: Vec<u8>,
        /// The label given, for the `X-Data-Status` header beside it.
        data_status: &'static str,
        /// In the plugin's order, each already checked to be a header HTTP can carry.
        headers: Vec<(HeaderName, HeaderValue)>,
        /// The SDK wrote the body with serde_json and vouches that it is unchanged since
        /// (`OUTCOME_OK_WRITTEN_JSON`): JSON by construction, not read through again. False: the host checks it.
        written_json: bool,
    },
    /// An API error the plugin chose (a 404, a 400 naming a parameter, a 503 while the engine is down): its
    /// status and message, served in the host's error envelope as they are.
    ApiError {
        status: u16,
        message: String,
    },
    /// The plugin reported a fault of its own (for example not initialised).
    Fault {
        status: u16,
        message: String,
    },
    /// The plugin answered something the host cannot read (a plugin fault): `kind` is the fault's metric label
    /// (`invalid-answer`, `invalid-error`), `what` names the problem.
    Malformed {
        kind: &'static str,
        what: String,
    },
    Panic {
        message: String,
    },
    /// The plugin's process is not running (`crashed: false`), or died or broke off while answering.
    Unavailable {
        message: String,
        crashed: bool,
    },
}

/// Reads what a plugin's `handle` returned, in this process or relayed from its child. `headers_json` is read
/// only for an answer: an answer whose headers cannot be read is `Malformed`, never served without them. A 2xx
/// body is labelled with `data_status` in the one copy that takes it out of the plugin's memory or frame.
pub fn outcome_of(
    outcome: u8,
    status: u16,
    body: &[u8],
    headers_json: &str,
    data_status: &'static str,
) -> HandleOutcome {
    let text = |body: &[u8]| String::from_utf8_lossy(body).into_owned();
    let (outcome, written_json) = match outcome {
        OUTCOME_OK_WRITTEN_JSON => (OUTCOME_OK, true),
        other => (other, false),
    };
    match outcome {
        // SDK 1.0 answers an API error this way: its status and a JSON body `{"error": message}`.
        OUTCOME_OK if (400..600).contains(&status) => match serde_json::from_slice::<LegacyError>(body) {
            Ok(e) => HandleOutcome::ApiError { status, message: e.error },
            Err(_) => HandleOutcome::Malformed {
                kind: "invalid-error",
                what: format!("a {status} answer without an `error` string"),
            },
        },
        OUTCOME_OK => match parse_headers(headers_json) {
            Ok(headers) => {
                let body = if (200..300).contains(&status) { labelled(body, data_status) } else { body.to_vec() };
                HandleOutcome::Response { status, body, data_status, headers, written_json }
            }
            Err(bad) => HandleOutcome::Malformed { kind: "invalid-answer", what: bad.to_string() },
        },
        OUTCOME_API_ERROR => HandleOutcome::ApiError { status, message: text(body) },
        OUTCOME_PANIC => HandleOutcome::Panic { message: text(body) },
        _ => HandleOutcome::Fault { status, message: text(body) },
    }
}

#[derive(serde::Deserialize)]
struct LegacyError {
    error: String,
}

/// A copy of `body` with `"dataStatus"` first when it is a JSON object, the same place for every dataset (other
/// bodies are copied as they are).
fn labelled(body: &[u8], status: &str) -> Vec<u8> {
    let Some(open) = body.iter().position(|b| !b.is_ascii_whitespace()).filter(|&open| body[open] == b'{') else {
        return body.to_vec();
    };
    let empty = body[open + 1..].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'}');
    let (key, comma) = (b"\"dataStatus\":\"", if empty { "\"" } else { "\"," });
    let mut out = Vec::with_capacity(body.len() + key.len() + status.len() + comma.len());
    out.extend_from_slice(&body[..=open]);
    out.extend_from_slice(key);
    out.extend_from_slice(status.as_bytes());
    out.extend_from_slice(comma.as_bytes());
    out.extend_from_slice(&body[open + 1..]);
    out
}

/// The answer's headers: `[name, value]` pairs in order (SDK 2.1 on, to a host announcing `headers:pairs`), a JSON
/// object of names to values (older SDKs), or nothing (the empty string). Each must be a header HTTP can carry:
/// one that cannot is the plugin's fault, never left out of the answer.
fn parse_headers(json: &str) -> Result<Vec<(HeaderName, HeaderValue)>, BadHeaders> {
    if json.is_empty() {
        return Ok(Vec::new());
    }
    let headers: Vec<(String, String)> = if json.trim_start().starts_with('[') {
        serde_json::from_str(json).map_err(BadHeaders::NotPairs)?
    } else {
        serde_json::from_str::<BTreeMap<String, String>>(json)
            .map(|m| m.into_iter().collect())
            .map_err(BadHeaders::NotAnObject)?
    };
    headers
        .into_iter()
        .map(|(name, value)| match (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(&value)) {
            (Ok(name), Ok(value)) => Ok((name, value)),
            _ => Err(BadHeaders::Unsendable(first_line(&name))),
        })
        .collect()
}

/// Why an answer's headers cannot be served; completes "the plugin answered ...".
#[derive(Debug, thiserror::Error)]
enum BadHeaders {
    #[error("headers that are not [name, value] pairs of strings ({0})")]
    NotPairs(#[source] serde_json::Error),
    #[error("headers that are not a JSON object of strings ({0})")]
    NotAnObject(#[source] serde_json::Error),
    #[error("a header HTTP cannot carry: `{0}`")]
    Unsendable(String),
}

pub fn first_line(s: &str) -> String {
    first_lines(s, 1)
}

pub fn first_lines(s: &str, n: usize) -> String {
    s.lines().filter(|l| !l.trim().is_empty()).take(n).collect::<Vec<_>>().join(" ").chars().take(600).collect()
}

#[cfg(test)]
mod tests {
    use datahost_plugin_api::abi::OUTCOME_ERR;

    use super::*;

    fn texts(headers: &[(HeaderName, HeaderValue)]) -> Vec<(&str, &str)> {
        headers.iter().map(|(n, v)| (n.as_str(), v.to_str().unwrap())).collect()
    }

    #[test]
    fn each_outcome_code_is_read_as_its_kind() {
        let answer = outcome_of(OUTCOME_OK, 200, b"{}", r#"{"x-next-cursor":"abc"}"#, "demo");
        assert!(
            matches!(&answer, HandleOutcome::Response { status: 200, headers, written_json: false, .. }
                if texts(headers) == [("x-next-cursor", "abc")]),
            "{answer:?}"
        );
        // The same answer with a body the SDK wrote with serde_json: read alike, and not to be checked again.
        let written = outcome_of(OUTCOME_OK_WRITTEN_JSON, 200, b"{}", r#"{"x-next-cursor":"abc"}"#, "demo");
        assert!(
            matches!(&written, HandleOutcome::Response { status: 200, body, headers, written_json: true, .. }
                if texts(headers) == [("x-next-cursor", "abc")] && body == br#"{"dataStatus":"demo"}"#),
            "{written:?}"
        );
        // Pairs (SDK 2.1 on): a repeated name keeps every value, in order.
        let pairs = outcome_of(OUTCOME_OK, 200, b"{}", r#"[["x-source","a"],["x-source","b"]]"#, "demo");
        assert!(
            matches!(&pairs, HandleOutcome::Response { headers, .. }
                if texts(headers) == [("x-source", "a"), ("x-source", "b")]),
            "{pairs:?}"
        );
        // A name is case-insensitive in HTTP: it is kept in the lower case the host filters on.
        let upper = outcome_of(OUTCOME_OK, 200, b"{}", r#"[["X-Source","A"]]"#, "demo");
        assert!(
            matches!(&upper, HandleOutcome::Response { headers, .. } if texts(headers) == [("x-source", "A")]),
            "{upper:?}"
        );
        let error = outcome_of(OUTCOME_API_ERROR, 404, b"no company with CIK 1", "", "demo");
        assert!(
            matches!(&error, HandleOutcome::ApiError { status: 404, message } if message == "no company with CIK 1"),
            "{error:?}"
        );
        let fault = outcome_of(OUTCOME_ERR, 503, b"the dataset is not initialised", "", "demo");
        assert!(matches!(fault, HandleOutcome::Fault { status: 503, .. }), "{fault:?}");
        let panic = outcome_of(OUTCOME_PANIC, 500, b"boom", "", "demo");
        assert!(matches!(&panic, HandleOutcome::Panic { message } if message == "boom"), "{panic:?}");
        // An outcome code from a later SDK is the plugin's own error, with its status: never a success.
        let later = outcome_of(9, 409, b"later", "", "demo");
        assert!(matches!(later, HandleOutcome::Fault { status: 409, .. }), "{later:?}");
    }

    #[test]
    fn an_answer_with_unreadable_headers_is_malformed_not_served_without_them() {
        for headers in [r#"{"x-a": 1}"#, r#"[["x-a"]]"#, r#"[["x-a", 1]]"#, "{", "null"] {
            let out = outcome_of(OUTCOME_OK, 200, b"{}", headers, "demo");
            assert!(
                matches!(&out, HandleOutcome::Malformed { kind: "invalid-answer", what }
                    if what.starts_with("headers that are not")),
                "{headers}: {out:?}"
            );
        }
        for headers in [r#"{"x a": "1"}"#, r#"[["x-a", "line\nbreak"]]"#] {
            let out = outcome_of(OUTCOME_OK, 200, b"{}", headers, "demo");
            assert!(
                matches!(&out, HandleOutcome::Malformed { kind: "invalid-answer", what }
                    if what.starts_with("a header HTTP cannot carry")),
                "{headers}: {out:?}"
            );
        }
        // Headers of an error are not read: an error carries none.
        assert!(matches!(outcome_of(OUTCOME_API_ERROR, 400, b"m", "{", "demo"), HandleOutcome::ApiError { .. }));
    }

    #[test]
    fn an_sdk_1_0_error_answer_is_read_as_the_same_api_error() {
        let old = outcome_of(OUTCOME_OK, 404, br#"{"error":"no company with CIK 1","code":404}"#, "", "demo");
        assert!(
            matches!(&old, HandleOutcome::ApiError { status: 404, message } if message == "no company with CIK 1"),
            "{old:?}"
        );
        for body in [&b"not json"[..], br#"{"code":500}"#, br#"{"error":5}"#] {
            let out = outcome_of(OUTCOME_OK, 500, body, "", "demo");
            assert!(matches!(out, HandleOutcome::Malformed { kind: "invalid-error", .. }), "{out:?}");
        }
    }

    #[test]
    fn the_data_status_goes_first_in_every_object_body() {
        assert_eq!(labelled(br#"{"a":1}"#, "demo"), br#"{"dataStatus":"demo","a":1}"#.to_vec());
        assert_eq!(labelled(b" { }", "ingested"), br#" {"dataStatus":"ingested" }"#.to_vec());
        assert_eq!(labelled(b"[1]", "demo"), b"[1]".to_vec(), "arrays are left alone");
        let object = labelled(br#"{"x":{"y":[1,2]}}"#, "demo");
        let v: serde_json::Value = serde_json::from_slice(&object).unwrap();
        assert_eq!(v["dataStatus"], "demo");
        assert_eq!(v["x"]["y"][1], 2);
    }

    /// A 2xx answer comes out of `outcome_of` labelled, with its label beside it for the header; an error body
    /// is read as it was sent.
    #[test]
    fn answers_are_labelled_as_they_are_read() {
        match outcome_of(OUTCOME_OK, 200, br#"{"rows":[]}"#, "", "ingested") {
            HandleOutcome::Response { status: 200, body, data_status: "ingested", .. } => {
                assert_eq!(body, br#"{"dataStatus":"ingested","rows":[]}"#)
            }
            other => panic!("{other:?}"),
        }
        match outcome_of(OUTCOME_OK, 302, b"{}", "", "demo") {
            HandleOutcome::Response { status: 302, body, .. } => {
                assert_eq!(body, b"{}", "only 2xx bodies are labelled")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(outcome_of(OUTCOME_API_ERROR, 404, b"{x", "", "demo"),
            HandleOutcome::ApiError { message, .. } if message == "{x"));
    }
}
