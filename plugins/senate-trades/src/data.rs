//! The dataset's records and how `init` turns them into filings. The index (newest first, match keys) is the
//! SDK's [`DisclosureIndex`](datahost_plugin_kit::disclosure::DisclosureIndex), shared with the House dataset.
//!
//! The host serves either the demo seed `{meta, filings}` or, once files are ingested,
//! `{ingested, reports: [ReportRecord], filings: [FilingRecord]}` (see `ingest.rs`). The transaction rows
//! (`transactions`, [`TransactionRecord`]) are table-backed: they stay in the records engine's table, indexed by
//! `docId` and by ticker, and [`StoredTransactions`] reads the rows of the filings a request serves. Seed rows
//! and ingested rows are never mixed.

use std::collections::{BTreeMap, HashMap, HashSet};

use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::{ApiSchema, Host};
use datahost_plugin_kit::disclosure::{self, Disclosure, DisclosureTrade, TradeStore};
use datahost_plugin_kit::error::StoredError;
use datahost_plugin_kit::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

pub type Meta = SnapshotMeta;

/// The official search the filings come from.
pub const EFD_SEARCH_URL: &str = "https://efdsearch.senate.gov/search/";

/// One trade as served: the shared disclosure trade (no `bundled` flag, unlike the House's) plus what an
/// ingested report also says. The field docs are the OpenAPI descriptions.
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trade {
    #[serde(flatten)]
    pub base: DisclosureTrade,
    /// Whose account: `Self`, `Spouse`, `Joint` or `Child` (ingested reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Asset type as disclosed (`Stock`, `Municipal Security`...); may be empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_type: Option<String>,
    /// The filer's comment; empty when none (ingested reports).
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

/// An electronic report with transaction rows, as one file lists it (collection `reports`, key `<docId>`):
/// what the filing list needs while the rows stay in the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportRecord {
    pub doc_id: String,
    pub member: String,
    pub source_url: String,
    /// `YYYY-MM-DD`: orders the report when its filed date is unknown.
    pub latest_trade_date: String,
    pub trade_rows: u64,
}

/// The document the host serves once files are ingested.
#[derive(Debug, Clone, Deserialize)]
pub struct IngestedDoc {
    pub ingested: IngestedInfo,
    #[serde(default)]
    pub reports: Vec<ReportRecord>,
    #[serde(default)]
    pub filings: Vec<FilingRecord>,
}

/// The dataset as `init` loads it.
pub struct Loaded {
    pub meta: Meta,
    pub filings: Vec<Filing>,
    /// Ingested data: where the reports' transaction rows are read from.
    pub stored: Option<StoredTransactions>,
}

/// Reads the host's document: the ingested records when there are any, else the demo seed.
pub fn load(doc: serde_json::Value, host: &Host) -> Result<Loaded, Unreadable> {
    if doc.get(INGESTED_KEY).is_some() {
        let ingested: IngestedDoc = serde_json::from_value(doc).map_err(Unreadable)?;
        let filings = filings_from_records(&ingested.reports, ingested.filings);
        let held = ingested.reports.iter().map(|r| r.doc_id.clone()).collect();
        let trades = ingested.ingested.collections.get(TRANSACTIONS).copied().unwrap_or_default();
        Ok(Loaded {
            meta: ingested_meta(&ingested.ingested, &filings, trades),
            filings,
            stored: Some(StoredTransactions { host: *host, held }),
        })
    } else {
        let mut seed: Snapshot = serde_json::from_value(doc).map_err(Unreadable)?;
        for filing in &mut seed.filings {
            filing.sort_date = filing.filed_date.clone().unwrap_or_default();
        }
        Ok(Loaded { meta: seed.meta, filings: seed.filings, stored: None })
    }
}

/// The host's document (seed or ingested records) does not read as the dataset, which fails `init`.
#[derive(Debug, thiserror::Error)]
#[error("senate-trades dataset is not readable: {0}")]
pub struct Unreadable(serde_json::Error);

/// The collection of transaction rows, and the fields they are looked up by (declared in the manifest).
pub const TRANSACTIONS: &str = "transactions";
pub const DOC_ID_FIELD: &str = "docId";
pub const TICKER_FIELD: &str = "ticker";

/// The reports' transaction rows, read from the records engine's table per request (not held in memory).
pub struct StoredTransactions {
    host: Host,
    /// Reports with stored rows.
    held: HashSet<String>,
}

impl StoredTransactions {
    /// The served trades among `rows`, by DocID, in row order.
    fn served(rows: Vec<serde_json::Value>) -> Result<HashMap<String, Vec<Trade>>, StoredError> {
        let mut records: Vec<TransactionRecord> = rows
            .into_iter()
            .map(|r| {
                serde_json::from_value(r)
                    .map_err(|source| StoredError::Unreadable { what: "Senate transaction row", source })
            })
            .collect::<Result<_, _>>()?;
        records.sort_by(|a, b| (&a.doc_id, a.row).cmp(&(&b.doc_id, b.row)));
        let mut by_doc: HashMap<String, Vec<Trade>> = HashMap::new();
        for t in records {
            by_doc.entry(t.doc_id).or_default().push(Trade {
                base: t.trade,
                owner: Some(t.owner),
                asset_type: Some(t.asset_type),
                comment: Some(t.comment),
            });
        }
        Ok(by_doc)
    }
}

impl TradeStore for StoredTransactions {
    type Trade = Trade;

    fn holds(&self, doc_id: &str) -> bool {
        self.held.contains(doc_id)
    }

    fn trading(&self, ticker: &str) -> Result<HashMap<String, Vec<Trade>>, StoredError> {
        Self::served(disclosure::stored_rows_trading(&self.host, crate::SLUG, TRANSACTIONS, TICKER_FIELD, ticker)?)
    }

    fn of(&self, doc_ids: &[&str]) -> Result<HashMap<String, Vec<Trade>>, StoredError> {
        Self::served(disclosure::stored_rows_of(&self.host, crate::SLUG, TRANSACTIONS, DOC_ID_FIELD, doc_ids)?)
    }
}

/// One filing per report with rows (their trades read per request) and per report a source dates without
/// rows (scanned paper reports), with what the filing records state.
pub fn filings_from_records(with_rows: &[ReportRecord], dated: Vec<FilingRecord>) -> Vec<Filing> {
    let mut dated: BTreeMap<String, FilingRecord> = dated.into_iter().map(|r| (r.doc_id.clone(), r)).collect();
    let mut filings = Vec::with_capacity(with_rows.len() + dated.len());
    for r in with_rows {
        let report = dated.remove(&r.doc_id);
        let (member, url) = (r.member.clone(), r.source_url.clone());
        filings.push(filing(r.doc_id.clone(), member, url, report.as_ref(), &r.latest_trade_date));
    }
    // Reports with no readable transaction row: scanned paper reports (and a received date with no rows).
    for (doc_id, report) in dated {
        let (member, url) = (report.member.clone(), report.source_url.clone());
        filings.push(filing(doc_id, member, url, Some(&report), ""));
    }
    filings
}

fn filing(
    doc_id: String,
    member: String,
    source_url: String,
    report: Option<&FilingRecord>,
    latest_trade: &str,
) -> Filing {
    let filed_date = report.map(|r| r.filed_date.clone());
    let latest_trade = latest_trade.to_string();
    Filing {
        member,
        chamber: "senate".into(),
        year: filed_date.as_deref().and_then(|d| d.get(..4)).and_then(|y| y.parse().ok()),
        sort_date: filed_date.clone().unwrap_or(latest_trade),
        filed_date,
        doc_id,
        trades: Vec::new(),
        source_url: Some(source_url),
        paper: Some(report.is_some_and(|r| r.paper)),
    }
}

/// The `meta` of ingested data: the official source, what was read and what it does not say.
fn ingested_meta(info: &IngestedInfo, filings: &[Filing], trades: u64) -> Meta {
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
