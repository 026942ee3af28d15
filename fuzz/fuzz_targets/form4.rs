//! The Form 4 parser (insiders): EDGAR submission text (`.txt`/`.nc` envelopes) and bare ownershipDocument XML.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| datahost_fuzz::ingest(data, "0000320193-22-000061.txt", datahost_insiders::ingest::ingest));
