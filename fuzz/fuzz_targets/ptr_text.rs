//! The Periodic Transaction Report parser (congress-trades) on extracted page text: the input is the pages
//! separated by form feeds (`\x0c`), optionally named (`\0name:20022260.pdf\n`, the DocID fallback).
//!
//! Seeds: with `DATAHOST_FUZZ_PTR_SEEDS=<pdf dir>:<corpus dir>` set, the target first writes the page text of
//! every PDF in the first directory into the second, as the PDF reader extracts it (`tests/tools/fuzz.sh`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: {
        if let Some((pdfs, corpus)) = std::env::var("DATAHOST_FUZZ_PTR_SEEDS").ok().as_deref().and_then(|v| v.split_once(':')) {
            for entry in std::fs::read_dir(pdfs).expect("the PDF seed directory") {
                let path = entry.unwrap().path();
                let Ok(pages) = datahost_congress_trades::ingest::ptr_pdf_pages(&std::fs::read(&path).unwrap()) else { continue };
                let name = path.file_name().unwrap().to_string_lossy();
                let seed = format!("\0name:{name}\n{}", pages.join("\x0c"));
                std::fs::write(std::path::Path::new(corpus).join(format!("{name}.txt")), seed).unwrap();
            }
        }
    },
    |data: &[u8]| {
        let (name, bytes) = datahost_fuzz::named(data, "20022260.pdf");
        let Ok(text) = std::str::from_utf8(bytes) else { return };
        let pages: Vec<String> = text.split('\x0c').map(str::to_string).collect();
        datahost_fuzz::check_ingest(datahost_congress_trades::ingest::parse_ptr_pages(&pages, name));
    }
);
