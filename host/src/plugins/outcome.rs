//! What one call of a plugin's `handle` produced (`HandleOutcome`), read the same way whether the plugin runs in
//! this process or in a child (`outcome_of`, `parse_headers`), and the short error text shown for a failure.

use std::collections::BTreeMap;

use datahost_plugin_api::abi::{OUTCOME_OK, OUTCOME_PANIC};

/// What one call to `handle` produced.
pub enum HandleOutcome {
    Response {
        status: u16,
        body: Vec<u8>,
        headers: Vec<(String, String)>,
    },
    /// The plugin reported a fault of its own (for example not initialised).
    Fault {
        status: u16,
        message: String,
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

/// Reads what a plugin's `handle` returned, in this process or relayed from its child.
pub fn outcome_of(outcome: u8, status: u16, body: Vec<u8>, headers: &[(String, String)]) -> HandleOutcome {
    match outcome {
        OUTCOME_OK => HandleOutcome::Response { status, body, headers: headers.to_vec() },
        OUTCOME_PANIC => HandleOutcome::Panic { message: String::from_utf8_lossy(&body).into_owned() },
        _ => HandleOutcome::Fault { status, message: String::from_utf8_lossy(&body).into_owned() },
    }
}

pub fn parse_headers(json: &str) -> Vec<(String, String)> {
    if json.is_empty() {
        return Vec::new();
    }
    serde_json::from_str::<BTreeMap<String, String>>(json).map(|m| m.into_iter().collect()).unwrap_or_default()
}

pub fn first_line(s: &str) -> String {
    first_lines(s, 1)
}

pub fn first_lines(s: &str, n: usize) -> String {
    s.lines().filter(|l| !l.trim().is_empty()).take(n).collect::<Vec<_>>().join(" ").chars().take(600).collect()
}
