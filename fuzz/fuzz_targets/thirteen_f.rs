//! The 13F-HR parser (institutional-holdings): submissions with the cover page (primary document) and the information table, and the bare XML documents.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| datahost_fuzz::ingest(data, "13F.txt", datahost_institutional_holdings::ingest::ingest));
