//! What the fuzz targets share: how an input names its file, and the checks every parser's answer must pass
//! for any input (beyond not panicking, hanging or overflowing, which libFuzzer and debug assertions catch).

use datahost_plugin_api::ingest::{IngestBatch, Refusal, SourceFile};

/// Inputs that start with this carry their file name up to the first newline (`\0name:AAPL.csv\n...`):
/// some parsers read a ticker or DocID from the name. `tests/tools/fuzz.sh` seeds real files this way.
const NAME_PREFIX: &[u8] = b"\0name:";

/// Splits an input into the file name (or `default`) and the file's bytes.
pub fn named<'a>(data: &'a [u8], default: &'a str) -> (&'a str, &'a [u8]) {
    if let Some(rest) = data.strip_prefix(NAME_PREFIX) {
        let end = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
        if let Ok(name) = std::str::from_utf8(&rest[..end]) {
            return (name, rest.get(end + 1..).unwrap_or_default());
        }
    }
    (default, data)
}

/// Runs `parse` on the input as a named source file and checks its answer.
pub fn ingest(data: &[u8], default_name: &str, parse: fn(&SourceFile<'_>) -> Result<IngestBatch, Refusal>) {
    let (name, bytes) = named(data, default_name);
    check_ingest(parse(&SourceFile { name, bytes }));
}

/// A parser answers any input with a refusal that says why, or with a batch the host applies as it is (a
/// batch the host's own checks reject refuses the whole file for a reason the operator cannot act on).
pub fn check_ingest(outcome: Result<IngestBatch, Refusal>) {
    match outcome {
        Err(refusal) => assert!(!refusal.reason.trim().is_empty(), "a refusal without a reason: {refusal:?}"),
        Ok(mut batch) => {
            // What the SDK's export does to every batch before the host sees it.
            batch.keep_one_per_key();
            if let Err(e) = datahost::records::validate(&batch) {
                panic!("the host refuses the parser's batch: {e}");
            }
            for problem in &batch.problems {
                assert!(!problem.message.trim().is_empty(), "a row problem without a message: {problem:?}");
            }
            serde_json::to_string(&batch).expect("a batch serialises to JSON");
        }
    }
}
