//! The House Stock Watcher export (`all_transactions.csv`): one row per transaction that volunteers transcribed
//! from the Clerk's PTR PDFs, with the PDF's address in `ptr_link`. It is a second source: its rows are tied to
//! the Clerk's filings by the DocID in `ptr_link` (`.../ptr-pdfs/2021/20019557.pdf`), and a filing whose PDF
//! was parsed is served from the PDF, not from here.
//!
//! Columns: `disclosure_year, disclosure_date, transaction_date, owner, ticker, asset_description, type,
//! amount, representative, district, ptr_link, cap_gains_over_200_usd`. The export has real faults (a
//! transaction date `0009-06-09` or `20221-11-18`, an amount cut to `$1,001 -`): such a row is a problem at its
//! line, naming the column, and never guessed into a value.

use datahost_plugin_api::ingest::{IngestBatch, IngestRecord, Refusal, RowProblem};
use datahost_plugin_kit::text::amount_range_bounds;
use serde::{Deserialize, Serialize};

use super::{us_date, WATCHER_CSV, WATCHER_TRADES};
use crate::data::member_from_filer_name;

/// The header the export starts with (the columns are read by name, so their order may change).
pub const COLUMNS: [&str; 12] = [
    "disclosure_year",
    "disclosure_date",
    "transaction_date",
    "owner",
    "ticker",
    "asset_description",
    "type",
    "amount",
    "representative",
    "district",
    "ptr_link",
    "cap_gains_over_200_usd",
];

/// Transactions before this year are typing errors (the STOCK Act's PTRs start in 2012; the export's dates
/// are 2019 on): `0009-06-09` is not a date anyone traded on.
const EARLIEST_YEAR: i32 = 2000;

/// One transcribed transaction (collection `watcher-trades`, key `<DocID>:<n>`, the n-th row of that DocID
/// in the file; group = DocID).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatcherTradeRecord {
    pub doc_id: String,
    /// The PTR's year, from its address.
    pub year: i32,
    /// Position of the row among the DocID's rows in the file (1-based).
    pub row: u64,
    /// `Virginia Foxx` (the export's `Hon. Virginia Foxx`, honorific dropped as for PDF filers).
    pub member: String,
    pub state_district: String,
    /// `disclosure_date` as `YYYY-MM-DD`.
    pub disclosure_date: String,
    /// `SP`, `JT`, `DC` or `self` (the export's `self`, or its blank owner cell: the member).
    pub owner: String,
    /// Empty when the export has `--` (no ticker).
    pub ticker: String,
    pub asset: String,
    /// `purchase`, `sale`, `sale (partial)` or `exchange` (the PDF parser's words for the same codes).
    #[serde(rename = "type")]
    pub kind: String,
    pub date: String,
    pub amount_range: String,
    pub cap_gains_over_200_usd: Option<bool>,
    /// `ptr_link`: the Clerk's PDF.
    pub source_url: String,
}

/// Whether `first_line` is the export's header.
pub fn is_header(first_line: &str) -> bool {
    let names: Vec<&str> = first_line.trim().split(',').map(str::trim).collect();
    COLUMNS.iter().all(|c| names.contains(c))
}

/// Reads the export. Refused when a column is missing or the CSV cannot be read at all (cut inside a quoted
/// field); a row that cannot be read is a problem at its line.
pub fn read(text: &str) -> Result<IngestBatch, Refusal> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| Refusal::at("line 1", format!("the CSV header cannot be read: {e}")))?;
    let column = |name: &str| header.iter().position(|h| h.trim() == name);
    let mut at = [0usize; 12];
    for (slot, name) in at.iter_mut().zip(COLUMNS) {
        *slot = column(name).ok_or_else(|| {
            Refusal::at("line 1", format!("not a House Stock Watcher export: the header has no `{name}` column"))
        })?;
    }
    let mut batch = IngestBatch { format: WATCHER_CSV.into(), ..Default::default() };
    let mut rows_per_doc: std::collections::HashMap<String, u64> = Default::default();
    let width = header.len();
    let mut records = reader.records().peekable();
    while let Some(result) = records.next() {
        let record = match result {
            Ok(record) => record,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                return Err(Refusal::at(format!("line {line}"), format!("the CSV cannot be read past here: {e}")));
            }
        };
        let line = record.position().map_or(0, |p| p.line());
        if record.len() < width {
            let message = format!("{} columns where the header has {width}", record.len());
            if records.peek().is_none() {
                // A short last row is where a cut download ends: nothing of the file is trusted.
                return Err(Refusal::at(format!("line {line}"), format!("the file ends inside a row: {message}")));
            }
            batch.problems.push(RowProblem::line(line as usize, message));
            continue;
        }
        let fields: [&str; 12] = std::array::from_fn(|i| record.get(at[i]).unwrap_or_default().trim());
        match row(&fields) {
            Ok(mut trade) => {
                let n = rows_per_doc.entry(trade.doc_id.clone()).or_default();
                *n += 1;
                trade.row = *n;
                let key = format!("{}:{}", trade.doc_id, trade.row);
                match IngestRecord::new(WATCHER_TRADES, key, trade.doc_id.clone(), &trade) {
                    Ok(r) => batch.records.push(r),
                    Err(refusal) => batch.problems.push(RowProblem::line(line as usize, refusal.reason)),
                }
            }
            Err(error) => batch.problems.push(RowProblem::line(line as usize, error.to_string())),
        }
    }
    batch.notes.push(format!(
        "{} transactions of {} PTRs read; rows that cannot be read are listed, never guessed",
        batch.records.len(),
        rows_per_doc.len()
    ));
    Ok(batch)
}

/// What is wrong with one row of the export (a row problem, at its line), naming the column; the value is
/// clipped.
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("ptr_link `{0}` is not a Clerk PTR address (`.../ptr-pdfs/<year>/<DocID>.pdf`)")]
    PtrLink(String),
    #[error("disclosure_date `{0}` is not a MM/DD/YYYY date")]
    DisclosureDate(String),
    #[error("transaction_date `{0}` is not a plausible YYYY-MM-DD date")]
    TransactionDate(String),
    #[error("amount `{0}` is not a disclosed range (`$1,001 - $15,000`, `Over $50,000,000`)")]
    Amount(String),
    #[error("owner `{0}` is not joint, spouse, dependent or self")]
    Owner(String),
    #[error("type `{0}` is not purchase, sale_full, sale_partial or exchange")]
    Type(String),
    #[error("representative is empty")]
    NoRepresentative,
}

/// One row, or what is wrong with it (naming the column). `f` holds the columns in [`COLUMNS`] order.
fn row(f: &[&str; 12]) -> Result<WatcherTradeRecord, RowError> {
    let [_, disclosure_date, transaction_date, owner, ticker, asset, kind, amount, representative, district, link, gains] =
        *f;
    let (year, doc_id) = ptr_address(link).ok_or_else(|| RowError::PtrLink(clip(link)))?;
    let disclosure_date = us_date(disclosure_date).ok_or_else(|| RowError::DisclosureDate(clip(disclosure_date)))?;
    let date = chrono::NaiveDate::parse_from_str(transaction_date, "%Y-%m-%d")
        .ok()
        .filter(|d| transaction_date.len() == 10 && chrono::Datelike::year(d) >= EARLIEST_YEAR)
        .ok_or_else(|| RowError::TransactionDate(clip(transaction_date)))?;
    // `$1,001 -` is a range cut off in the export: its upper bound is unknown, not `$1,001`.
    let cut = amount.trim_end().ends_with('-');
    let (low, high) = amount_range_bounds(amount);
    let open_ended = amount.to_ascii_lowercase().contains("over");
    if cut || low.is_none() || (high.is_none() && !open_ended) {
        return Err(RowError::Amount(clip(amount)));
    }
    let owner = match owner.to_ascii_lowercase().as_str() {
        "joint" => "JT",
        "spouse" => "SP",
        "dependent" => "DC",
        // The form's owner column left blank means the member (as the PDF parser reads it); the export writes
        // that blank as empty or as `--`, its mark for an empty cell.
        "self" | "" | "--" => "self",
        other => return Err(RowError::Owner(clip(other))),
    };
    let kind = match kind {
        "purchase" => "purchase",
        "sale_full" | "sale" => "sale",
        "sale_partial" => "sale (partial)",
        "exchange" => "exchange",
        other => return Err(RowError::Type(clip(other))),
    };
    let member = member_from_filer_name(representative);
    if member.is_empty() {
        return Err(RowError::NoRepresentative);
    }
    let cap_gains_over_200_usd = match gains.to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    };
    Ok(WatcherTradeRecord {
        doc_id,
        year,
        row: 0,
        member,
        state_district: district.to_string(),
        disclosure_date,
        owner: owner.to_string(),
        ticker: if ticker == "--" { String::new() } else { ticker.to_ascii_uppercase() },
        asset: asset.to_string(),
        kind: kind.to_string(),
        date: date.format("%Y-%m-%d").to_string(),
        amount_range: amount.to_string(),
        cap_gains_over_200_usd,
        source_url: link.to_string(),
    })
}

/// `https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2021/20019557.pdf` -> (2021, `20019557`).
fn ptr_address(link: &str) -> Option<(i32, String)> {
    let rest = link.strip_prefix("https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/")?;
    let (year, file) = rest.split_once('/')?;
    let doc_id = file.strip_suffix(".pdf")?;
    let valid = !doc_id.is_empty() && doc_id.bytes().all(|b| b.is_ascii_digit()) && year.len() == 4;
    valid.then(|| Some((year.parse().ok()?, doc_id.to_string()))).flatten()
}

/// A value as quoted in a problem message: at most 40 characters.
fn clip(text: &str) -> String {
    let clipped: String = text.chars().take(40).collect();
    if clipped.len() < text.len() {
        format!("{clipped}...")
    } else {
        clipped
    }
}
