//! The FEC bulk-file parser (donors): pipe-delimited lines of the committee, candidate, linkage and contribution files, and their header CSVs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| datahost_fuzz::ingest(data, "itpas2.txt", datahost_donors::ingest::ingest));
