//! The access log: one line per request (method, route template, status, latency, request id, tier, key id),
//! in the same text or JSON shape as the server's other log lines, formatted here by hand and written to
//! stderr in batches.
//!
//! Why not a `tracing` event per request: on a cached answer the event's formatting (field visitors, dynamic
//! dispatch, a timestamp formatted per line) and a `write` system call per line were about a third of the
//! request's cost (BENCHMARKS.md). Here a line is a few byte copies into one shared buffer, written when it
//! holds [`FLUSH_BYTES`] or every [`FLUSH_EVERY`], and at shutdown. A crash loses at most that much.
//!
//! Only bounded values are written: the route template (never the path or the query, which may hold a key),
//! the key id (never the key), and a request id of at most 64 characters. Values a client chose (the request
//! id) are quoted in the text form when they hold a space, a quote or `=`, so they cannot forge a field.

use std::cell::RefCell;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use crate::config::LogFormat;

/// A batch this large is written at once by the request that filled it.
pub const FLUSH_BYTES: usize = 32 * 1024;
/// The longest a line waits in the buffer on a quiet server.
pub const FLUSH_EVERY: Duration = Duration::from_millis(100);

/// One request, as the access log writes it.
pub struct AccessRecord<'a> {
    pub method: &'a str,
    pub route: &'a str,
    pub status: u16,
    pub latency: Duration,
    pub request_id: &'a str,
    pub tier: &'a str,
    pub key_id: &'a str,
}

/// Where the lines go: stderr in the server, a buffer in tests.
type Sink = Box<dyn Write + Send>;

pub struct AccessLog {
    format: LogFormat,
    /// Colour the level as `tracing`'s text format does, only for a person at a terminal.
    ansi: bool,
    /// Lines not yet written.
    pending: Mutex<Vec<u8>>,
    /// Held while a batch is written, so batches keep their order.
    sink: Mutex<Sink>,
}

impl AccessLog {
    /// The server's access log on stderr, flushed every [`FLUSH_EVERY`] by a thread of its own; `None` when
    /// `server.access_log` is off or the `datahost::access` target is filtered out (e.g. `RUST_LOG=warn`).
    pub fn stderr(enabled: bool, format: LogFormat) -> Option<Arc<Self>> {
        let wanted = enabled && tracing::enabled!(target: "datahost::access", tracing::Level::INFO);
        if !wanted {
            return None;
        }
        let ansi = format == LogFormat::Text && std::io::IsTerminal::is_terminal(&std::io::stderr());
        let log = Arc::new(Self::new(format, ansi, Box::new(std::io::stderr())));
        let weak = Arc::downgrade(&log);
        let started = std::thread::Builder::new().name("access-log".into()).spawn(move || flush_until_dropped(weak));
        if let Err(e) = started {
            // Lines are still written whenever a batch fills, and at shutdown.
            tracing::warn!(error = %e, "no access-log flusher thread; lines are written in full batches only");
        }
        Some(log)
    }

    pub fn new(format: LogFormat, ansi: bool, sink: Sink) -> Self {
        Self { format, ansi, pending: Mutex::new(Vec::with_capacity(FLUSH_BYTES * 2)), sink: Mutex::new(sink) }
    }

    /// Adds one line; writes the batch when it is full.
    pub fn record(&self, record: &AccessRecord<'_>) {
        let full = {
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            match self.format {
                LogFormat::Text => write_text(&mut pending, record, self.ansi),
                LogFormat::Json => write_json(&mut pending, record),
            }
            pending.len() >= FLUSH_BYTES
        };
        if full {
            self.flush();
        }
    }

    /// Writes every pending line.
    pub fn flush(&self) {
        let mut sink = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
        // Swapped out under the short lock, written under the sink's: requests keep adding lines meanwhile.
        let batch = {
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            if pending.is_empty() {
                return;
            }
            std::mem::replace(&mut *pending, Vec::with_capacity(FLUSH_BYTES * 2))
        };
        // Nowhere to report a failed write of the log itself; the next batch tries again.
        let _ = sink.write_all(&batch).and_then(|()| sink.flush());
    }
}

impl Drop for AccessLog {
    fn drop(&mut self) {
        self.flush();
    }
}

fn flush_until_dropped(log: Weak<AccessLog>) {
    loop {
        std::thread::sleep(FLUSH_EVERY);
        match log.upgrade() {
            Some(log) => log.flush(),
            None => return,
        }
    }
}

thread_local! {
    /// The timestamp up to the second (`2026-11-27T08:39:07`) and the second it is for: formatted once a second
    /// per thread rather than once a line.
    static SECOND: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
}

/// `2026-11-27T08:39:07.123456Z`, as `tracing`'s formatter writes it.
fn write_timestamp(out: &mut Vec<u8>) {
    let now = chrono::Utc::now();
    let second = now.timestamp();
    SECOND.with_borrow_mut(|(cached, text)| {
        if *cached != second {
            *cached = second;
            *text = now.format("%Y-%m-%dT%H:%M:%S").to_string();
        }
        out.extend_from_slice(text.as_bytes());
    });
    out.push(b'.');
    let micros = now.timestamp_subsec_micros().min(999_999);
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(micros);
    out.extend(std::iter::repeat_n(b'0', 6 - digits.len()));
    out.extend_from_slice(digits.as_bytes());
    out.push(b'Z');
}

/// Milliseconds with three decimals (`0.042`, `12.500`).
fn write_latency(out: &mut Vec<u8>, latency: Duration) {
    let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(digits.format(micros / 1000).as_bytes());
    out.push(b'.');
    let fraction = micros % 1000;
    out.extend(std::iter::repeat_n(
        b'0',
        if fraction < 10 {
            2
        } else if fraction < 100 {
            1
        } else {
            0
        },
    ));
    out.extend_from_slice(digits.format(fraction).as_bytes());
}

/// `2026-11-27T08:39:07.123456Z  INFO datahost::access: request method=GET route=/v1/vin status=200 ...`
fn write_text(out: &mut Vec<u8>, r: &AccessRecord<'_>, ansi: bool) {
    write_timestamp(out);
    out.extend_from_slice(if ansi { b" \x1b[32m INFO\x1b[0m " } else { b"  INFO " });
    out.extend_from_slice(if ansi { b"\x1b[2mdatahost::access\x1b[0m: request" } else { b"datahost::access: request" });
    let field = |out: &mut Vec<u8>, name: &str, value: &str| {
        out.push(b' ');
        out.extend_from_slice(name.as_bytes());
        out.push(b'=');
        if value.bytes().any(|b| matches!(b, b' ' | b'"' | b'=' | b'\\') || b.is_ascii_control()) {
            out.extend_from_slice(format!("{value:?}").as_bytes());
        } else {
            out.extend_from_slice(value.as_bytes());
        }
    };
    field(out, "method", r.method);
    field(out, "route", r.route);
    out.extend_from_slice(b" status=");
    out.extend_from_slice(itoa::Buffer::new().format(r.status).as_bytes());
    out.extend_from_slice(b" latency_ms=");
    write_latency(out, r.latency);
    field(out, "request_id", r.request_id);
    field(out, "tier", r.tier);
    field(out, "key_id", r.key_id);
    out.push(b'\n');
}

/// The shape of `tracing`'s JSON lines: `{"timestamp":..,"level":"INFO","fields":{"message":"request",..},
/// "target":"datahost::access"}`.
fn write_json(out: &mut Vec<u8>, r: &AccessRecord<'_>) {
    out.extend_from_slice(b"{\"timestamp\":\"");
    write_timestamp(out);
    out.extend_from_slice(b"\",\"level\":\"INFO\",\"fields\":{\"message\":\"request\",\"method\":");
    json_string(out, r.method);
    out.extend_from_slice(b",\"route\":");
    json_string(out, r.route);
    out.extend_from_slice(b",\"status\":");
    out.extend_from_slice(itoa::Buffer::new().format(r.status).as_bytes());
    out.extend_from_slice(b",\"latency_ms\":");
    write_latency(out, r.latency);
    out.extend_from_slice(b",\"request_id\":");
    json_string(out, r.request_id);
    out.extend_from_slice(b",\"tier\":");
    json_string(out, r.tier);
    out.extend_from_slice(b",\"key_id\":");
    json_string(out, r.key_id);
    out.extend_from_slice(b"},\"target\":\"datahost::access\"}\n");
}

fn json_string(out: &mut Vec<u8>, value: &str) {
    // Writing a `str` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink the test can read after the log wrote to it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    fn record(request_id: &str, latency: Duration) -> AccessRecord<'_> {
        AccessRecord {
            method: "GET",
            route: "/v1/vin",
            status: 200,
            latency,
            request_id,
            tier: "pro",
            key_id: "key_abc",
        }
    }

    #[test]
    fn a_text_line_has_tracing_s_shape_and_every_field() {
        let sink = Shared::default();
        let log = AccessLog::new(LogFormat::Text, false, Box::new(sink.clone()));
        log.record(&record("r-1", Duration::from_micros(1_042)));
        assert_eq!(sink.text(), "", "nothing is written before a flush or a full batch");
        log.flush();
        let line = sink.text();
        let (timestamp, rest) = line.split_once(' ').unwrap();
        assert_eq!(timestamp.len(), "2026-11-27T08:39:07.123456Z".len(), "{timestamp}");
        assert!(chrono::DateTime::parse_from_rfc3339(timestamp).is_ok(), "{timestamp}");
        assert_eq!(
            rest,
            " INFO datahost::access: request method=GET route=/v1/vin status=200 latency_ms=1.042 request_id=r-1 \
             tier=pro key_id=key_abc\n"
        );
    }

    #[test]
    fn a_request_id_that_could_forge_a_field_is_quoted() {
        let sink = Shared::default();
        let log = AccessLog::new(LogFormat::Text, false, Box::new(sink.clone()));
        log.record(&record("x status=500", Duration::ZERO));
        log.flush();
        let line = sink.text();
        assert!(line.contains(r#"request_id="x status=500" tier=pro"#), "{line}");
        assert_eq!(line.matches("status=").count(), 2, "{line}");
    }

    #[test]
    fn a_json_line_is_one_object_with_tracing_s_field_names() {
        let sink = Shared::default();
        let log = AccessLog::new(LogFormat::Json, false, Box::new(sink.clone()));
        log.record(&record("a\"b", Duration::from_micros(7)));
        log.record(&record("r-2", Duration::from_millis(12)));
        log.flush();
        let text = sink.text();
        let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(lines[0]["target"], "datahost::access");
        assert_eq!(lines[0]["level"], "INFO");
        let fields = &lines[0]["fields"];
        assert_eq!(fields["message"], "request");
        assert_eq!(fields["request_id"], "a\"b");
        assert_eq!(fields["status"], 200);
        assert_eq!(fields["latency_ms"].as_f64(), Some(0.007));
        assert_eq!(lines[1]["fields"]["latency_ms"].as_f64(), Some(12.0));
        assert_eq!((fields["route"].as_str(), fields["tier"].as_str()), (Some("/v1/vin"), Some("pro")));
    }

    #[test]
    fn a_full_batch_is_written_by_the_request_that_filled_it_and_the_rest_at_drop() {
        let sink = Shared::default();
        let log = AccessLog::new(LogFormat::Text, false, Box::new(sink.clone()));
        let mut added = 0;
        while sink.text().is_empty() {
            log.record(&record("r", Duration::ZERO));
            added += 1;
            assert!(added < 10_000, "no batch written after {added} lines");
        }
        let written = sink.text().lines().count();
        assert_eq!(written, added, "the batch holds every line up to the one that filled it");
        log.record(&record("last", Duration::ZERO));
        drop(log);
        assert!(sink.text().ends_with("request_id=last tier=pro key_id=key_abc\n"), "the last line is written at drop");
    }
}
