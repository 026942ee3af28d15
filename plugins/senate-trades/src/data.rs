//! The dataset's records and how `init` turns them into filings. The index (newest first, match keys) is the
//! SDK's [`DisclosureIndex`](datahost_plugin_api::disclosure::DisclosureIndex), shared with the House dataset.
//!
//! The host serves either the demo seed `{meta, filings}` or, once files are ingested,
//! `{ingested, transactions: [TransactionRecord], filings: [FilingRecord]}` (see `ingest.rs`). Ingested
//! transactions are grouped back into filings by `docId`; seed rows and ingested rows are never mixed.

use std::collections::BTreeMap;

use datahost_plugin_api::disclosure::{Disclosure, DisclosureTrade};
use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

pub type Meta = SnapshotMeta;

/// The official search the filings come from.
pub const EFD_SEARCH_URL: &str = "https://efdsearch.senate.gov/search/";

/// One trade as served: the shared disclosure trade (no `bundled` flag, unlike the House's) plus what an
/// ingested report also says. `type` is `purchase`, `sale` (full), `sale (partial)` or `exchange`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trade {
    #[serde(flatten)]
    pub base: DisclosureTrade,
    /// `Self`, `Spouse`, `Joint` or `Child`; absent in the demo seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// As disclosed (`Stock`, `Municipal Security`, ...; empty when the report leaves it blank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_type: Option<String>,
    /// The filer's comment; empty when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filing {
    pub member: String,
    pub chamber: String,
    pub doc_id: String,
    /// Year of `filedDate`; null when the filed date is not known.
    pub year: Option<i32>,
    /// Null when the source does not state when the report was received.
    pub filed_date: Option<String>,
    pub trades: Vec<Trade>,
    /// The report on efdsearch.senate.gov (ingested filings only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// A scanned paper report: its trades are not machine-readable, so `trades` is empty by construction,
    /// not because the report has none (ingested filings only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<bool>,
    /// What orders the filings: `filedDate`, or the latest trade date when the filed date is unknown (a lower
    /// bound of it).
    #[serde(skip)]
    pub sort_date: String,
}

impl Disclosure for Filing {
    type Trade = Trade;
    fn member(&self) -> &str {
        &self.member
    }
    fn doc_id(&self) -> &str {
        &self.doc_id
    }
    fn filed_date(&self) -> &str {
        &self.sort_date
    }
    fn trades(&self) -> &[Trade] {
        &self.trades
    }
    fn trade_ticker(trade: &Trade) -> &str {
        &trade.base.ticker
    }
}

/// The demo seed document: `{meta, filings}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub meta: Meta,
    pub filings: Vec<Filing>,
}

/// One ingested transaction row (collection `transactions`, key `<docId>/<row>`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionRecord {
    pub doc_id: String,
    pub member: String,
    pub source_url: String,
    /// 1-based position of the row within its report, as the source lists it.
    pub row: usize,
    #[serde(flatten)]
    pub trade: DisclosureTrade,
    pub owner: String,
    pub asset_type: String,
    pub comment: String,
}

/// What a source says about a report itself (collection `filings`, key `<docId>`): written only when it
/// states the date the report was received, or that it is a scanned paper report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilingRecord {
    pub doc_id: String,
    pub member: String,
    pub source_url: String,
    pub filed_date: String,
    pub paper: bool,
}

/// The document the host serves once files are ingested.
#[derive(Debug, Clone, Deserialize)]
pub struct IngestedDoc {
    pub ingested: IngestedInfo,
    #[serde(default)]
    pub transactions: Vec<TransactionRecord>,
    #[serde(default)]
    pub filings: Vec<FilingRecord>,
}

/// Reads the host's document: the ingested records when there are any, else the demo seed.
pub fn load(doc: serde_json::Value) -> Result<(Meta, Vec<Filing>), String> {
    let unreadable = |e: serde_json::Error| format!("senate-trades dataset is not readable: {e}");
    if doc.get(INGESTED_KEY).is_some() {
        let ingested: IngestedDoc = serde_json::from_value(doc).map_err(unreadable)?;
        let filings = filings_from_records(ingested.transactions, ingested.filings);
        Ok((ingested_meta(&ingested.ingested, &filings), filings))
    } else {
        let mut seed: Snapshot = serde_json::from_value(doc).map_err(unreadable)?;
        for filing in &mut seed.filings {
            filing.sort_date = filing.filed_date.clone().unwrap_or_default();
        }
        Ok((seed.meta, seed.filings))
    }
}

/// Groups transaction rows into their reports (in row order) and adds what the filing records state.
pub fn filings_from_records(transactions: Vec<TransactionRecord>, reports: Vec<FilingRecord>) -> Vec<Filing> {
    let mut rows: BTreeMap<String, Vec<TransactionRecord>> = BTreeMap::new();
    for t in transactions {
        rows.entry(t.doc_id.clone()).or_default().push(t);
    }
    let mut reports: BTreeMap<String, FilingRecord> = reports.into_iter().map(|r| (r.doc_id.clone(), r)).collect();
    let mut filings = Vec::with_capacity(rows.len() + reports.len());
    for (doc_id, mut trades) in rows {
        trades.sort_by_key(|t| t.row);
        let report = reports.remove(&doc_id);
        let first = &trades[0];
        let (member, source_url) = (first.member.clone(), first.source_url.clone());
        let trades: Vec<Trade> = trades
            .into_iter()
            .map(|t| Trade {
                base: t.trade,
                owner: Some(t.owner),
                asset_type: Some(t.asset_type),
                comment: Some(t.comment),
            })
            .collect();
        filings.push(filing(doc_id, member, source_url, report.as_ref(), trades));
    }
    // Reports with no readable transaction row: scanned paper reports (and a received date with no rows).
    for (doc_id, report) in reports {
        let (member, url) = (report.member.clone(), report.source_url.clone());
        filings.push(filing(doc_id, member, url, Some(&report), Vec::new()));
    }
    filings
}

fn filing(
    doc_id: String,
    member: String,
    source_url: String,
    report: Option<&FilingRecord>,
    trades: Vec<Trade>,
) -> Filing {
    let filed_date = report.map(|r| r.filed_date.clone());
    let latest_trade = trades.iter().map(|t| t.base.date.as_str()).max().unwrap_or_default().to_string();
    Filing {
        member,
        chamber: "senate".into(),
        year: filed_date.as_deref().and_then(|d| d.get(..4)).and_then(|y| y.parse().ok()),
        sort_date: filed_date.clone().unwrap_or(latest_trade),
        filed_date,
        doc_id,
        trades,
        source_url: Some(source_url),
        paper: Some(report.is_some_and(|r| r.paper)),
    }
}

/// The `meta` of ingested data: the official source, what was read and what it does not say.
fn ingested_meta(info: &IngestedInfo, filings: &[Filing]) -> Meta {
    let trades: usize = filings.iter().map(|f| f.trades.len()).sum();
    let paper = filings.iter().filter(|f| f.paper == Some(true)).count();
    let dated = filings.iter().filter(|f| f.filed_date.is_some()).count();
    Meta {
        source: format!(
            "U.S. Senate Periodic Transaction Reports from the Senate eFD system, as collected by Senate Stock \
             Watcher: {trades} transactions in {} reports ({paper} scanned paper reports) from {} ingested files",
            filings.len(),
            info.files
        ),
        source_url: EFD_SEARCH_URL.into(),
        method: "Each transaction row of the Senate Stock Watcher JSON (flat list or per-senator form) is read \
                 as written and grouped into its report by the eFD link (docId = the report id in the link). \
                 Dates are converted from MM/DD/YYYY; amount ranges are kept as disclosed with numeric \
                 amountMin/amountMax; a ticker `--` is served as an empty string. filedDate is the eFD date \
                 received where the source states it (paper reports, and each senator's latest report in the \
                 per-senator file); otherwise it is null and the report is ordered by its latest trade date."
            .into(),
        caveat: format!(
            "BETA: coverage and field accuracy of Senate disclosures are still being validated. {dated} of {} \
             reports have a known filed date. Scanned paper reports are listed with paper: true and no trades: \
             their trades are not machine-readable. Reports are disclosed up to 45 days after the trade; \
             amounts are bucketed ranges, not exact values. Amended reports are not marked in this source. \
             These are stock-trade disclosures, not voting records or policy positions.",
            filings.len()
        ),
        generated_at: if info.last_ingest_at.is_empty() {
            chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
        } else {
            info.last_ingest_at.clone()
        },
    }
}
