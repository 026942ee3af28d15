//! The House Clerk's financial-disclosure parsers (congress-trades) on text: the yearly index as XML and as
//! tab-separated text, and the House Stock Watcher CSV. PDFs go to the `ptr_text` target instead (their
//! decoding is the PDF library's; what this project parses is the text it extracts).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.windows(5).any(|w| w == b"%PDF-") {
        return;
    }
    datahost_fuzz::ingest(data, "2023FD.txt", datahost_congress_trades::ingest::ingest);
});
