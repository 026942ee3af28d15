//! The plugin's parser: reads the Senate Stock Watcher JSON files (transactions scraped from the Senate eFD
//! search, efdsearch.senate.gov) into records.
//!
//! Formats, told apart by the keys of the first list element:
//! - `senate-stock-watcher-flat` (`all_transactions.json`): a list of transactions, each with `senator` and
//!   `ptr_link` beside the trade fields.
//! - `senate-stock-watcher-senators` (`all_transactions_for_senators.json`): a list of filers
//!   `{first_name, last_name, office, ptr_link, date_recieved, transactions: [...]}`, where the ticker is an
//!   HTML `<a>` tag and a scanned paper report is an entry `{scanned_pdf, ptr_link, date_recieved}`.
//!
//! Records: `transactions`, one per trade row, key `<docId>/<row>` (the row's 1-based position within its
//! report, which both files list in the same order, so the same trade gets the same key from either file);
//! `filings`, key `<docId>`, only where the source states the date the report was received (the filer's
//! latest report, and paper reports) or that it is a paper report. Group = docId, the report id in the
//! eFD link. The source marks no amendments, so no record declares a lineage.

use std::collections::BTreeMap;

use datahost_plugin_api::ingest::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use datahost_plugin_kit::disclosure::DisclosureTrade;
use serde_json::{Map, Value};

use crate::data::{FilingRecord, ReportRecord, TransactionRecord};

pub const FLAT: &str = "senate-stock-watcher-flat";
pub const SENATORS: &str = "senate-stock-watcher-senators";
pub const FORMATS: &[&str] = &[FLAT, SENATORS];
pub use crate::data::TRANSACTIONS;
pub const FILINGS: &str = "filings";
/// One record per electronic report with transaction rows (key `<docId>`): what the served filing list needs
/// while the rows stay in the records engine's table.
pub const REPORTS: &str = "reports";

/// What the flat file puts in every field of the row that stands for a scanned paper report.
const PAPER_ASSET_TYPE: &str = "PDF Disclosed Filing";

/// Parses one source file (see the module documentation).
pub fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text = file.text()?;
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        Refusal::at(format!("line {}, column {}", e.line(), e.column()), format!("the file is not JSON: {e}"))
    })?;
    let Value::Array(items) = doc else {
        return Err(Refusal::at("$", "expected a JSON list of Senate Stock Watcher transactions or filers"));
    };
    let Some(first) = items.iter().find_map(Value::as_object) else {
        return Err(Refusal::at("$", "the list holds no JSON object: nothing to read"));
    };
    let mut reader = Reader::default();
    let format = if first.contains_key("transactions") && first.contains_key("last_name") {
        for (i, item) in items.iter().enumerate() {
            reader.filer(&format!("[{i}]"), item);
        }
        SENATORS
    } else if first.contains_key("senator") && first.contains_key("ptr_link") {
        for (i, item) in items.iter().enumerate() {
            let at = format!("[{i}]");
            match item.as_object() {
                Some(row) => match Fields::of(row, &at).text("senator") {
                    Ok(member) => reader.row(&at, row, &collapse_spaces(&member)),
                    Err(problem) => reader.problems.push(problem),
                },
                None => reader.problems.push(RowProblem::new(at, "not a JSON object")),
            }
        }
        FLAT
    } else {
        let keys: Vec<&str> = first.keys().map(String::as_str).collect();
        return Err(Refusal::at(
            "[0]",
            format!("neither a Senate Stock Watcher transaction nor a filer record (keys: {})", keys.join(", ")),
        ));
    };
    reader.finish(format)
}

/// Accumulates the records and problems of one file.
#[derive(Default)]
struct Reader {
    transactions: Vec<TransactionRecord>,
    /// By docId: a report stated twice must say the same thing.
    filings: BTreeMap<String, (String, FilingRecord)>,
    problems: Vec<RowProblem>,
    /// Rows seen so far per report, readable or not, so a row's position does not depend on its neighbours.
    rows_seen: BTreeMap<String, usize>,
    paper_reports: usize,
}

impl Reader {
    /// One filer of the per-senator file: its latest report's date received, then its rows.
    fn filer(&mut self, at: &str, item: &Value) {
        let Some(filer) = item.as_object() else {
            return self.problems.push(RowProblem::new(at, "not a JSON object"));
        };
        let fields = Fields::of(filer, at);
        let member = match (fields.text("first_name"), fields.text("last_name")) {
            (Ok(first), Ok(last)) => collapse_spaces(&format!("{first} {last}")),
            (Err(problem), _) | (_, Err(problem)) => return self.problems.push(problem),
        };
        match (fields.report("ptr_link"), fields.date("date_recieved")) {
            (Ok(link), Ok(filed)) => self.report(at, &member, link, filed),
            (Err(problem), _) | (_, Err(problem)) => self.problems.push(problem),
        }
        let Some(rows) = filer.get("transactions").and_then(Value::as_array) else {
            return self.problems.push(RowProblem::new(format!("{at}.transactions"), "missing or not a list"));
        };
        for (j, row) in rows.iter().enumerate() {
            let at = format!("{at}.transactions[{j}]");
            match row.as_object() {
                Some(row) if row.contains_key("scanned_pdf") => {
                    let fields = Fields::of(row, &at);
                    match (fields.report("ptr_link"), fields.date("date_recieved")) {
                        (Ok(link), Ok(filed)) => self.report(&at, &member, link, filed),
                        (Err(problem), _) | (_, Err(problem)) => self.problems.push(problem),
                    }
                }
                Some(row) => self.row(&at, row, &member),
                None => self.problems.push(RowProblem::new(at, "not a JSON object")),
            }
        }
    }

    /// One transaction row (either format). In the flat file a paper report is a placeholder row whose
    /// `transaction_date` is the date the report was received (it equals `date_recieved` of the same report
    /// in the per-senator file).
    fn row(&mut self, at: &str, row: &Map<String, Value>, member: &str) {
        let fields = Fields::of(row, at);
        let link = match fields.report("ptr_link") {
            Ok(link) => link,
            Err(problem) => return self.problems.push(problem),
        };
        if link.paper {
            return match (fields.text("asset_type"), fields.date("transaction_date")) {
                (Ok(kind), Ok(received)) if kind == PAPER_ASSET_TYPE => self.report(at, member, link, received),
                (Ok(kind), Ok(_)) => self.problems.push(RowProblem::new(
                    format!("{at}.asset_type"),
                    format!("a paper-report row should be the `{PAPER_ASSET_TYPE}` placeholder, found `{kind}`"),
                )),
                (Err(problem), _) | (_, Err(problem)) => self.problems.push(problem),
            };
        }
        let position = self.rows_seen.entry(link.doc_id.clone()).or_default();
        *position += 1;
        let row_number = *position;
        match trade(&fields) {
            Ok((trade, owner, asset_type, comment)) => self.transactions.push(TransactionRecord {
                doc_id: link.doc_id,
                member: member.to_string(),
                source_url: link.url,
                row: row_number,
                trade,
                owner,
                asset_type,
                comment,
            }),
            Err(problem) => self.problems.push(problem),
        }
    }

    /// What a source says about a report itself.
    fn report(&mut self, at: &str, member: &str, link: Link, filed_date: String) {
        let record = FilingRecord {
            doc_id: link.doc_id.clone(),
            member: member.to_string(),
            source_url: link.url,
            filed_date,
            paper: link.paper,
        };
        match self.filings.get(&link.doc_id) {
            Some((_, held)) if *held == record => {}
            Some((first_at, held)) => self.problems.push(RowProblem::new(
                at,
                format!(
                    "report {} is stated again with other facts (received {} by {} at {first_at})",
                    link.doc_id, held.filed_date, held.member
                ),
            )),
            None => {
                self.paper_reports += usize::from(link.paper);
                self.filings.insert(link.doc_id, (at.to_string(), record));
            }
        }
    }

    fn finish(self, format: &str) -> Result<IngestBatch, Refusal> {
        let mut records = Vec::with_capacity(self.transactions.len() + self.filings.len());
        let mut reports: BTreeMap<&str, ReportRecord> = BTreeMap::new();
        for t in &self.transactions {
            let report = reports.entry(&t.doc_id).or_insert_with(|| ReportRecord {
                doc_id: t.doc_id.clone(),
                member: t.member.clone(),
                source_url: t.source_url.clone(),
                latest_trade_date: String::new(),
                trade_rows: 0,
            });
            report.trade_rows += 1;
            if t.trade.date > report.latest_trade_date {
                report.latest_trade_date = t.trade.date.clone();
            }
        }
        for (doc_id, report) in reports {
            records.push(IngestRecord::new(REPORTS, doc_id, doc_id, report)?);
        }
        for t in self.transactions {
            let key = format!("{}/{}", t.doc_id, t.row);
            let group = t.doc_id.clone();
            records.push(IngestRecord::new(TRANSACTIONS, key, group, t)?);
        }
        let reports = self.filings.len();
        for (doc_id, (_, report)) in self.filings {
            records.push(IngestRecord::new(FILINGS, doc_id.clone(), doc_id, report)?);
        }
        let mut notes = vec![format!(
            "{reports} reports with a stated date received, of which {} scanned paper reports (listed with no \
             trades: their trades are not machine-readable)",
            self.paper_reports
        )];
        if format == FLAT {
            notes.push(
                "the flat list states no date received for electronic reports: their filedDate stays unknown \
                 unless the per-senator file states it"
                    .into(),
            );
        }
        Ok(IngestBatch { format: format.into(), records, problems: self.problems, notes })
    }
}

/// The trade fields of one row, or the first one that cannot be read.
fn trade(fields: &Fields<'_>) -> Result<(DisclosureTrade, String, String, String), RowProblem> {
    let kind = fields.text("type")?;
    let kind = match kind.as_str() {
        "Purchase" => "purchase",
        "Sale (Full)" => "sale",
        "Sale (Partial)" => "sale (partial)",
        "Exchange" => "exchange",
        other => return Err(fields.problem("type", format!("unknown transaction type `{other}`"))),
    };
    let amount_range = fields.text("amount")?;
    if !is_amount_range(&amount_range) {
        return Err(
            fields.problem("amount", format!("`{amount_range}` is not an amount range such as `$1,001 - $15,000`"))
        );
    }
    let trade = DisclosureTrade {
        ticker: ticker_symbol(&fields.text("ticker")?),
        asset: html_to_text(&fields.text("asset_description")?),
        kind: kind.into(),
        amount_range,
        date: fields.date("transaction_date")?,
    };
    let comment = html_to_text(&fields.text("comment")?);
    let comment = if comment == "--" { String::new() } else { comment };
    Ok((trade, fields.text("owner")?, fields.text("asset_type")?, comment))
}

/// The fields of one JSON object, with the path used in problems.
struct Fields<'a> {
    object: &'a Map<String, Value>,
    at: &'a str,
}

/// An eFD report link.
struct Link {
    doc_id: String,
    url: String,
    paper: bool,
}

impl<'a> Fields<'a> {
    fn of(object: &'a Map<String, Value>, at: &'a str) -> Self {
        Self { object, at }
    }

    fn problem(&self, field: &str, message: impl Into<String>) -> RowProblem {
        RowProblem::new(format!("{}.{field}", self.at), message)
    }

    fn text(&self, field: &str) -> Result<String, RowProblem> {
        match self.object.get(field) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.problem(field, format!("expected text, found {other}"))),
            None => Err(self.problem(field, "missing")),
        }
    }

    /// A `MM/DD/YYYY` date as `YYYY-MM-DD`.
    fn date(&self, field: &str) -> Result<String, RowProblem> {
        let text = self.text(field)?;
        chrono::NaiveDate::parse_from_str(&text, "%m/%d/%Y")
            .ok()
            .filter(|_| text.len() == 10)
            .map(|d| d.format("%Y-%m-%d").to_string())
            .ok_or_else(|| self.problem(field, format!("`{text}` is not a date MM/DD/YYYY")))
    }

    /// `https://efdsearch.senate.gov/search/view/<ptr|paper>/<report id>/`.
    fn report(&self, field: &str) -> Result<Link, RowProblem> {
        let url = self.text(field)?;
        let rest = url.strip_prefix("https://efdsearch.senate.gov/search/view/").unwrap_or_default();
        let mut parts = rest.trim_end_matches('/').split('/');
        let (kind, doc_id) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
        let id_ok = !doc_id.is_empty() && doc_id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if parts.next().is_some() || !id_ok || !(kind == "ptr" || kind == "paper") {
            return Err(self.problem(field, format!("`{url}` is not an eFD report link (.../search/view/ptr/<id>/)")));
        }
        Ok(Link { doc_id: doc_id.to_string(), paper: kind == "paper", url })
    }
}

/// `$1,001 - $15,000` or `Over $50,000,000`.
fn is_amount_range(text: &str) -> bool {
    let dollars = |s: &str| {
        s.strip_prefix('$').is_some_and(|n| {
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b',') && n.as_bytes()[0] != b','
        })
    };
    match text.split_once(" - ") {
        Some((low, high)) => dollars(low) && dollars(high),
        None => text.strip_prefix("Over ").is_some_and(dollars),
    }
}

/// The ticker as written, or the first symbol of an HTML cell such as `<a href=...>AMAT</a>` or
/// `-- <br> <a ...>DIS</a>` (an exchange: the flat file keeps the first symbol that is not `--`, and so do
/// we). `--` alone means the report gives no ticker: an empty string.
fn ticker_symbol(cell: &str) -> String {
    cell.split("<br>").map(html_to_text).find(|symbol| !symbol.is_empty() && symbol != "--").unwrap_or_default()
}

/// Text of an HTML fragment: tags become spaces, the few entities the source uses are decoded, runs of
/// white space become one space.
fn html_to_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let decoded = text
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    collapse_spaces(&decoded)
}

fn collapse_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_cells_become_text() {
        let cell = r#"<a href="https://finance.yahoo.com/q?s=AMAT" target="_blank">AMAT</a>"#;
        assert_eq!(ticker_symbol(cell), "AMAT");
        assert_eq!(ticker_symbol("--"), "");
        assert_eq!(ticker_symbol(r#"--    <br>    <a href="x">ENB</a>"#), "ENB");
        assert_eq!(ticker_symbol(r#"<a href="x">AET</a> <br> <a href="y">CVS</a>"#), "AET");
        assert_eq!(html_to_text("BB&amp;T CORP (Exchanged) <br> Truist"), "BB&T CORP (Exchanged) Truist");
    }

    #[test]
    fn amount_ranges_are_checked_strictly() {
        assert!(is_amount_range("$1,001 - $15,000"));
        assert!(is_amount_range("Over $50,000,000"));
        assert!(!is_amount_range("$1,001 -"));
        assert!(!is_amount_range("Unknown"));
        assert!(!is_amount_range("$ - $15,000"));
    }
}
