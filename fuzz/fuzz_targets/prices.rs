//! The daily price-file parser (prices): the vendors' CSV and Stooq text layouts; the ticker comes from the file name.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| datahost_fuzz::ingest(data, "AAPL.csv", datahost_prices::ingest::parse));
