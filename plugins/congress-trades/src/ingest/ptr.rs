//! An e-filed House Periodic Transaction Report PDF, read from its text layer (pure Rust: `pdf-extract` on
//! `lopdf`, which decrypts the Clerk's RC4-protected files with the empty user password).
//!
//! The text of such a PDF, as extracted, reads (small-caps labels lose their lower-case letters, which come
//! out as NUL characters and are dropped here: `Filing Status` becomes `F S`):
//!
//! ```text
//! Name: Hon. Nancy Pelosi            <- filer block
//! State/District: CA12
//! ID Owner Asset Transaction          <- table header, repeated on every page
//! Type Date Notification ... $200?
//! SP Alphabet Inc. - Class A (GOOGL) [ST] S (partial) 12/28/2022 12/28/2022 $500,001 -
//! $1,000,000                          <- a row: [ID] [owner] asset (TICKER) [code] type date date amount
//!
//! F S: New                            <- the row's detail lines, up to the next blank line
//! D: Sold 10,000 shares.
//! Filing ID #20022260                 <- once, at the foot of page 1
//! * For the complete list of asset type abbreviations ...   <- end of the table
//! Digitally Signed: Hon. Nancy Pelosi , 01/12/2023
//! ```
//!
//! A row's cells may wrap over several lines (asset before the dates, amount after them); detail values may
//! wrap too. A page break may fall between a row and its details.

use std::fmt;

use datahost_plugin_api::ingest::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use datahost_plugin_kit::text::amount_range_bounds;

use super::{us_date, DOCUMENTS, PTR_PDF, TRADES};
use crate::data::{member_from_filer_name, DocumentRecord, TradeRecord, PARSED, UNREADABLE};

const TABLE_HEADER: &str = "ID Owner Asset";
/// Words of the table header's wrapped lines (`Type Date Notification`, `Gains >`, `$200?`...).
const HEADER_WORDS: &[&str] = &["Transaction", "Type", "Date", "Notification", "Amount", "Cap.", "Gains", ">", "$200?"];
/// Lines that end the transaction table.
const TABLE_END: &[&str] = &["* For the complete list of asset type", "I CERTIFY", "Digitally Signed:"];
const FILING_ID: &str = "Filing ID #";
const OWNER_CODES: &[&str] = &["SP", "JT", "DC"];
/// The Clerk's transaction id printed in the ID column (on rows involved in an amendment).
const TRANSACTION_ID_DIGITS: usize = 10;

/// A line of the extracted text: 1-based page and line within that page's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct At {
    page: usize,
    line: usize,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "page {}, line {}", self.page, self.line)
    }
}

/// Reads one PTR PDF. Refused when the PDF cannot be opened, when it cannot be tied to a DocID, or when its
/// text holds no transaction table; a PDF without a text layer is a document record marked unreadable.
pub fn read(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let pages = extract_pages(file.bytes)?;
    parse_pages(&pages, file.name)
}

/// The text of each page, or a refusal saying why the PDF cannot be read.
pub(super) fn extract_pages(bytes: &[u8]) -> Result<Vec<String>, Refusal> {
    // pdf-extract panics on some malformed files instead of returning an error: a bad file must be refused,
    // not take the ingest down.
    let outcome = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem_by_pages(bytes));
    let end = format!("byte {} (end of file)", bytes.len());
    match outcome {
        Ok(Ok(pages)) => Ok(pages.into_iter().map(|p| p.replace('\0', "")).collect()),
        // lopdf starts at the cross-reference table at the end of the file: a truncated PDF fails there.
        Ok(Err(e)) => Err(Refusal::at(end, format!("the PDF cannot be read (truncated or damaged?): {e}"))),
        Err(_) => Err(Refusal::at(end, "the PDF reader failed on this file: it is damaged or not a PDF")),
    }
}

/// Parses the extracted text of a PTR (one string per page); `file_name` gives the DocID when the text does
/// not.
pub(super) fn parse_pages(pages: &[String], file_name: &str) -> Result<IngestBatch, Refusal> {
    let lines: Vec<(At, &str)> = pages
        .iter()
        .enumerate()
        .flat_map(|(p, text)| {
            text.lines().enumerate().map(move |(l, line)| (At { page: p + 1, line: l + 1 }, line.trim()))
        })
        .collect();
    let mut notes = Vec::new();
    let (doc_id, doc_id_from) = doc_id_of(&lines, file_name, &mut notes)?;
    if lines.iter().all(|(_, l)| l.is_empty()) {
        let reason = "the PDF has no text layer (a scanned paper filing): its trades are not machine-readable";
        return unreadable(doc_id, doc_id_from, file_name, reason);
    }
    let Some(table_start) = lines.iter().position(|(_, l)| l.starts_with(TABLE_HEADER)) else {
        return Err(Refusal::at(
            "page 1",
            format!(
                "no transaction table (`{TABLE_HEADER} ...` header): not an e-filed House Periodic Transaction Report"
            ),
        ));
    };
    let filer = Filer::read(&lines);
    let table_end = lines[table_start..]
        .iter()
        .position(|(_, l)| TABLE_END.iter().any(|end| l.starts_with(end)))
        .map_or(lines.len(), |i| table_start + i);
    let (raw_rows, mut problems) = split_rows(&lines[table_start..table_end]);

    // A report that marks any row Amended or Deleted amends an earlier PTR; its other rows restate trades.
    let amendment = raw_rows
        .iter()
        .any(|r| r.status().is_some_and(|s| s.eq_ignore_ascii_case("amended") || s.eq_ignore_ascii_case("deleted")));
    let revision = format!("{}/{doc_id}", filer.signed_date.clone().unwrap_or_default());
    if filer.signed_date.is_none() {
        notes.push("no `Digitally Signed` date: the filing date comes from the index only".into());
    }
    let mut records = Vec::new();
    let (mut trade_rows, mut deleted_rows) = (0, 0);
    for (i, raw) in raw_rows.iter().enumerate() {
        let row = i as u64 + 1;
        let trade = match raw.parse(&doc_id, row) {
            Ok(trade) => trade,
            Err(error) => {
                problems.push(RowProblem::new(raw.at.to_string(), error.to_string()));
                continue;
            }
        };
        trade_rows += 1;
        deleted_rows += u64::from(trade.is_deletion());
        let lineage = filer.lineage(&trade);
        let key = format!("{doc_id}:{row}");
        let record = IngestRecord::new(TRADES, key, doc_id.clone(), &trade)?.amending(lineage, &revision, amendment);
        records.push(record);
    }
    let unread_rows = problems.len() as u64;
    notes.push(format!(
        "DocID {doc_id} (from the {doc_id_from}): {trade_rows} transaction rows read, {unread_rows} not read{}",
        if amendment { "; the report amends an earlier PTR (rows marked Amended or Deleted)" } else { "" }
    ));
    let document = DocumentRecord {
        doc_id: doc_id.clone(),
        doc_id_from: doc_id_from.into(),
        file_name: file_name.into(),
        parse_status: PARSED.into(),
        reason: None,
        filer_name: filer.name,
        filer_status: filer.status,
        state_district: filer.state_district,
        signed_date: filer.signed_date,
        trade_rows,
        unread_rows,
        deleted_rows,
        amendment,
    };
    records.insert(0, IngestRecord::new(DOCUMENTS, doc_id.clone(), doc_id, &document)?);
    Ok(IngestBatch { format: PTR_PDF.into(), records, problems, notes })
}

/// The DocID from the document's `Filing ID #`, else from a file name such as `20022260.pdf`.
fn doc_id_of(
    lines: &[(At, &str)],
    file_name: &str,
    notes: &mut Vec<String>,
) -> Result<(String, &'static str), Refusal> {
    let from_content = lines.iter().find_map(|(_, l)| {
        let id = l.strip_prefix(FILING_ID)?.trim();
        (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then(|| id.to_string())
    });
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name).trim();
    let stem = base.strip_suffix(".pdf").or_else(|| base.strip_suffix(".PDF")).unwrap_or(base).trim();
    let from_name = (!stem.is_empty() && stem.bytes().all(|b| b.is_ascii_digit())).then(|| stem.to_string());
    match (from_content, from_name) {
        (Some(id), name) => {
            if let Some(other) = name.filter(|n| *n != id) {
                notes.push(format!("the file name says DocID {other}, the document says {id}: {id} is used"));
            }
            Ok((id, "content"))
        }
        (None, Some(id)) => Ok((id, "file name")),
        (None, None) => Err(Refusal::at(
            "page 1",
            format!("the document prints no `{FILING_ID}` and the file name `{file_name}` is not a DocID: the PDF cannot be tied to a filing"),
        )),
    }
}

/// A document record for a PDF whose trades cannot be read, with the reason.
fn unreadable(doc_id: String, doc_id_from: &str, file_name: &str, reason: &str) -> Result<IngestBatch, Refusal> {
    let document = DocumentRecord {
        doc_id: doc_id.clone(),
        doc_id_from: doc_id_from.into(),
        file_name: file_name.into(),
        parse_status: UNREADABLE.into(),
        reason: Some(reason.into()),
        filer_name: String::new(),
        filer_status: String::new(),
        state_district: String::new(),
        signed_date: None,
        trade_rows: 0,
        unread_rows: 0,
        deleted_rows: 0,
        amendment: false,
    };
    Ok(IngestBatch {
        format: PTR_PDF.into(),
        records: vec![IngestRecord::new(DOCUMENTS, doc_id.clone(), doc_id.clone(), &document)?],
        problems: Vec::new(),
        notes: vec![format!("DocID {doc_id}: {reason}")],
    })
}

/// The filer block and the signature.
struct Filer {
    name: String,
    status: String,
    state_district: String,
    signed_date: Option<String>,
}

impl Filer {
    fn read(lines: &[(At, &str)]) -> Self {
        let field = |label: &str| {
            lines.iter().find_map(|(_, l)| l.strip_prefix(label)).map(|v| v.trim().to_string()).unwrap_or_default()
        };
        // `Digitally Signed: Hon. Nancy Pelosi , 01/12/2023`: the date follows the last comma.
        let signed = field("Digitally Signed:");
        Self {
            name: field("Name:"),
            status: field("Status:"),
            state_district: field("State/District:"),
            signed_date: signed.rsplit(',').next().and_then(us_date),
        }
    }

    /// What identifies a trade across a PTR and the PTRs amending it: the filer (name and state: the district
    /// may change with redistricting between a report and its amendment), the owner, the security and the
    /// transaction date (the amount, type and notes are what an amendment typically corrects).
    fn lineage(&self, trade: &TradeRecord) -> String {
        let security = if trade.ticker.is_empty() { trade.asset.to_lowercase() } else { trade.ticker.to_uppercase() };
        let state = self.state_district.get(..2).unwrap_or_default().to_uppercase();
        let member = member_from_filer_name(&self.name).to_lowercase();
        format!("house-ptr|{state}|{member}|{}|{security}|{}", trade.owner, trade.date)
    }
}

/// A detail line's label (`F S: New`, `D: ...`; older files print `FILING STATUS:`, `DESCRIPTION:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    FilingStatus,
    Location,
    Description,
    Comment,
    SubholdingOf,
}

impl Label {
    /// The label a line opens with, and the text after its colon.
    fn split(line: &str) -> Option<(Self, &str)> {
        let (label, value) = line.split_once(':')?;
        if label.len() > 20 || !label.chars().all(|c| c.is_ascii_alphabetic() || c == ' ') {
            return None;
        }
        let key: String = label.chars().filter(|c| *c != ' ').collect::<String>().to_ascii_uppercase();
        let label = match key.as_str() {
            "FS" | "FILINGSTATUS" => Self::FilingStatus,
            "L" | "LOCATION" => Self::Location,
            "D" | "DESCRIPTION" => Self::Description,
            "C" | "COMMENT" | "COMMENTS" => Self::Comment,
            "SO" | "SUBHOLDINGOF" => Self::SubholdingOf,
            _ => return None,
        };
        Some((label, value.trim()))
    }
}

/// One table row as extracted: its cell text (asset to amount) and its detail lines.
#[derive(Debug)]
struct RawRow {
    at: At,
    cells: String,
    details: Vec<(Label, String)>,
}

/// Splits the table into rows: cell lines until the details start, detail lines until a blank line. Header
/// repeats and the `Filing ID` line are skipped wherever a page break puts them.
fn split_rows(table: &[(At, &str)]) -> (Vec<RawRow>, Vec<RowProblem>) {
    let mut rows: Vec<RawRow> = Vec::new();
    let mut problems = Vec::new();
    let mut pending: Option<(At, Vec<&str>)> = None;
    let mut in_details = false;
    let mut in_header = false;
    for &(at, line) in table {
        if line.starts_with(TABLE_HEADER) {
            in_header = true;
            continue;
        }
        if in_header && !line.is_empty() && line.split_whitespace().all(|w| HEADER_WORDS.contains(&w)) {
            continue;
        }
        in_header = false;
        if line.starts_with(FILING_ID) {
            continue;
        }
        if line.is_empty() {
            in_details = false;
            continue;
        }
        if let Some((label, value)) = Label::split(line) {
            if let Some((start, cells)) = pending.take() {
                rows.push(RawRow { at: start, cells: cells.join(" "), details: Vec::new() });
            }
            match rows.last_mut() {
                Some(row) => row.details.push((label, value.to_string())),
                None => problems.push(RowProblem::new(
                    at.to_string(),
                    format!("a detail line before any transaction row: `{line}`"),
                )),
            }
            in_details = true;
        } else if in_details {
            // A wrapped detail value.
            if let Some((_, value)) = rows.last_mut().and_then(|r| r.details.last_mut()) {
                value.push(' ');
                value.push_str(line);
            }
        } else {
            match pending.as_mut() {
                // A row whose cells are complete and which had no details: this line starts the next row.
                Some((start, cells)) if cells_complete(cells) && !line.starts_with('$') => {
                    rows.push(RawRow { at: *start, cells: cells.join(" "), details: Vec::new() });
                    pending = Some((at, vec![line]));
                }
                Some((_, cells)) => cells.push(line),
                None => pending = Some((at, vec![line])),
            }
        }
    }
    if let Some((start, cells)) = pending {
        rows.push(RawRow { at: start, cells: cells.join(" "), details: Vec::new() });
    }
    (rows, problems)
}

/// Whether cell lines hold the two dates and an amount that does not end in a dangling `-`.
fn cells_complete(cells: &[&str]) -> bool {
    let text = cells.join(" ");
    let words: Vec<&str> = text.split_whitespace().collect();
    match dates_at(&words) {
        Some(i) => words.len() > i + 2 && words.last().is_some_and(|w| *w != "-"),
        None => false,
    }
}

/// Index of the first of two consecutive `MM/DD/YYYY` words (transaction date, notification date).
fn dates_at(words: &[&str]) -> Option<usize> {
    words.windows(2).position(|w| us_date(w[0]).is_some() && us_date(w[1]).is_some())
}

impl RawRow {
    fn detail(&self, label: Label) -> Option<String> {
        let values: Vec<&str> = self
            .details
            .iter()
            .filter(|(l, _)| *l == label)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
            .collect();
        (!values.is_empty()).then(|| values.join(" "))
    }

    fn status(&self) -> Option<String> {
        self.detail(Label::FilingStatus)
    }

    /// Reads the cells: `[ID] [owner] asset [(TICKER)] [[CODE]] type date date amount`.
    fn parse(&self, doc_id: &str, row: u64) -> Result<TradeRecord, RowError> {
        let words: Vec<&str> = self.cells.split_whitespace().collect();
        let cells = || self.cells.clone();
        let dates = dates_at(&words).ok_or_else(|| RowError::NoDates(cells()))?;
        let (type_code, kind, type_start) = match &words[..dates] {
            [.., "S", "(partial)"] => ("S (partial)", "sale (partial)", dates - 2),
            [.., "P"] => ("P", "purchase", dates - 1),
            [.., "S"] => ("S", "sale", dates - 1),
            [.., "E"] => ("E", "exchange", dates - 1),
            _ => return Err(RowError::NoType(cells())),
        };
        let (asset_type, asset_end) = match words[..type_start].last() {
            Some(w) if w.len() > 2 && w.starts_with('[') && w.ends_with(']') => {
                (Some(w[1..w.len() - 1].to_string()), type_start - 1)
            }
            _ => (None, type_start),
        };
        let (transaction_id, owner, asset_words) = lead_columns(&words[..asset_end]);
        if asset_words.is_empty() {
            return Err(RowError::NoAsset(cells()));
        }
        let (asset, ticker) = split_ticker(&asset_words.join(" "));
        let amount_range = words[dates + 2..].join(" ");
        if amount_range.is_empty() || amount_range.ends_with('-') || amount_range_bounds(&amount_range).0.is_none() {
            return Err(RowError::Amount { amount: amount_range, cells: cells() });
        }
        // `dates_at` found both words to be dates, so `us_date` cannot fail here.
        let date_of = |w: &str| us_date(w).unwrap_or_default();
        Ok(TradeRecord {
            doc_id: doc_id.into(),
            row,
            transaction_id,
            owner,
            asset,
            ticker,
            asset_type,
            kind: kind.into(),
            type_code: type_code.into(),
            date: date_of(words[dates]),
            notification_date: date_of(words[dates + 1]),
            amount_range,
            filing_status: self.status(),
            description: self.detail(Label::Description),
            comment: self.detail(Label::Comment),
            location: self.detail(Label::Location),
            subholding_of: self.detail(Label::SubholdingOf),
        })
    }
}

/// What is wrong with one transaction row (a row problem, at the row); each names the row's cells as read.
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("no transaction and notification dates in `{0}`")]
    NoDates(String),
    #[error("no transaction type (P, S, S (partial), E) before the dates in `{0}`")]
    NoType(String),
    #[error("no asset in `{0}`")]
    NoAsset(String),
    #[error("amount `{amount}` is not a readable amount range in `{cells}`")]
    Amount { amount: String, cells: String },
}

/// The ID and Owner columns in front of the asset: an optional 10-digit Clerk transaction id (sometimes
/// glued to the owner code, `2000166568SP`), then an optional owner code; a blank owner is the filer.
fn lead_columns<'a>(words: &[&'a str]) -> (Option<String>, String, Vec<&'a str>) {
    let mut rest: Vec<&'a str> = words.to_vec();
    let mut transaction_id = None;
    if let Some(first) = rest.first().copied() {
        let digits = first.bytes().take_while(u8::is_ascii_digit).count();
        if digits == TRANSACTION_ID_DIGITS {
            transaction_id = Some(first[..digits].to_string());
            let glued = &first[digits..];
            if glued.is_empty() {
                rest.remove(0);
            } else {
                rest[0] = glued;
            }
        }
    }
    let owner = match rest.first() {
        Some(code) if OWNER_CODES.contains(code) => rest.remove(0).to_string(),
        _ => "self".to_string(),
    };
    (transaction_id, owner, rest)
}

/// `Alphabet Inc. - Class A (GOOGL)` -> (`Alphabet Inc. - Class A`, `GOOGL`); no ticker when the last
/// parenthesis is not one (`Holding L.P. Units`, `(The)`).
fn split_ticker(asset: &str) -> (String, String) {
    let candidate = asset.strip_suffix(')').and_then(|s| s.rsplit_once(" (")).filter(|(_, t)| {
        (1..=8).contains(&t.len())
            && t.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '.' || c == '-')
            && t.chars().next().is_some_and(|c| c.is_ascii_uppercase())
    });
    match candidate {
        Some((name, ticker)) => (name.trim().to_string(), ticker.to_string()),
        None => (asset.to_string(), String::new()),
    }
}
