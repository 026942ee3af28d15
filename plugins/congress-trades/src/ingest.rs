//! The plugin's parser: reads the House Clerk's financial-disclosure files into records.
//!
//! Formats, detected from the content (never the file name):
//! - `house-fd-xml`: the yearly index `<FinancialDisclosure><Member>...` (`2023FD.xml`), see `index.rs`;
//! - `house-fd-txt`: the same index as tab-separated text with a header row (`2023FD.txt`), see `index.rs`;
//! - `house-ptr-pdf`: an e-filed Periodic Transaction Report PDF (`<DocID>.pdf`), see `ptr.rs`;
//! - `house-stock-watcher-csv`: the House Stock Watcher export (`all_transactions.csv`), a second source
//!   transcribed from the PDFs, see `watcher.rs`.
//!
//! Records (group = the DocID of the filing each comes from):
//! - `filings`, key DocID: one per index row, every FilingType (the API serves the P rows); the XML and the
//!   text index give the same record for the same row, so ingesting both changes nothing the second time.
//! - `documents`, key DocID: what a PTR PDF says about itself (filer, signature date, parse status).
//! - `trades`, key `<DocID>:<row>`: one per transaction row of a PTR PDF. Every trade declares a lineage
//!   (member, owner, asset, transaction date) and the revision `<signature date>/<DocID>`; the trades of a PTR
//!   that marks rows `Amended` or `Deleted` are amendments, so they replace the matching trades of the same
//!   member's earlier PTRs, whatever order the files arrive in.
//! - `watcher-trades`, key `<DocID>:<n>`: one per row of the House Stock Watcher export, tied to its filing by
//!   the DocID of `ptr_link`.

mod index;
mod ptr;
#[cfg(test)]
pub(crate) mod tests;
pub mod watcher;
#[cfg(test)]
mod watcher_tests;

use datahost_plugin_api::ingest::{IngestBatch, Refusal, SourceFile};

pub const INDEX_XML: &str = "house-fd-xml";
pub const INDEX_TXT: &str = "house-fd-txt";
pub const PTR_PDF: &str = "house-ptr-pdf";
pub const WATCHER_CSV: &str = "house-stock-watcher-csv";
pub const FORMATS: &[&str] = &[INDEX_XML, INDEX_TXT, PTR_PDF, WATCHER_CSV];

pub const FILINGS: &str = "filings";
pub const DOCUMENTS: &str = "documents";
pub const TRADES: &str = "trades";
pub const WATCHER_TRADES: &str = "watcher-trades";

/// A PDF may carry a few bytes before its `%PDF-` header; readers look for it within the first kilobyte.
const PDF_HEADER_WINDOW: usize = 1024;

/// Parses one source file (see the module documentation).
pub fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let head = &file.bytes[..file.bytes.len().min(PDF_HEADER_WINDOW)];
    if head.windows(5).any(|w| w == b"%PDF-") {
        return ptr::read(file);
    }
    let text = file.text()?;
    let start = text.trim_start();
    if start.starts_with('<') {
        return index::read_xml(text);
    }
    let first_line = start.lines().next().unwrap_or_default();
    if watcher::is_header(first_line) {
        return watcher::read(start);
    }
    // A tab-separated header naming the index's columns: read_txt then says which column is missing, if any.
    if first_line.contains('\t') && (first_line.contains("DocID") || first_line.contains("FilingType")) {
        return index::read_txt(text);
    }
    Err(Refusal::at(
        "line 1",
        "not a House financial-disclosure file: expected the Clerk's index (XML `<FinancialDisclosure>` or \
         tab-separated text with `FilingType` and `DocID` columns), a Periodic Transaction Report PDF, or the \
         House Stock Watcher CSV export",
    ))
}

/// `1/12/2023` or `01/12/2023` as `2023-01-12`; `None` unless it is a real calendar date.
fn us_date(text: &str) -> Option<String> {
    let mut parts = text.trim().split('/');
    let (month, day, year) = (parts.next()?, parts.next()?, parts.next()?);
    let valid = |s: &str, max_len: usize| !s.is_empty() && s.len() <= max_len && s.bytes().all(|b| b.is_ascii_digit());
    if parts.next().is_some() || !valid(month, 2) || !valid(day, 2) || year.len() != 4 || !valid(year, 4) {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?)?;
    Some(date.format("%Y-%m-%d").to_string())
}

/// The PTR parser on already extracted page text (one string per page): the serving tests' hand-written
/// fixtures and the `ptr_text` fuzz target (`fuzz/`) start here.
pub fn parse_ptr_pages(pages: &[String], file_name: &str) -> Result<IngestBatch, Refusal> {
    ptr::parse_pages(pages, file_name)
}

/// The text of each page of a PTR PDF, as the parser sees it (the fuzz target's seeds are made with it).
pub fn ptr_pdf_pages(bytes: &[u8]) -> Result<Vec<String>, Refusal> {
    ptr::extract_pages(bytes)
}
