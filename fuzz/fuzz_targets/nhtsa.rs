//! The NHTSA parser (vin): tab-separated recall, complaint and investigation flat-file rows, and vPIC decode responses.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| datahost_fuzz::ingest(data, "recalls.txt", datahost_vin::ingest::parse));
