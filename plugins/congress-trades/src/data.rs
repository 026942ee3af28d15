//! The dataset's records and how `init` turns them into filings. The index (newest first, match keys) is the
//! SDK's [`DisclosureIndex`](datahost_plugin_kit::disclosure::DisclosureIndex), shared with the Senate dataset;
//! only what the House discloses beyond it lives here (`bundled` trades, `filingsScanned`).
//!
//! The host serves either the demo seed `{meta, filings}` or, once files are ingested,
//! `{ingested, filings: [IndexFilingRecord], documents: [DocumentRecord], watcher-trades: [...]}` (see
//! `ingest.rs`). The PTR documents' trade rows (`trades`, [`TradeRecord`]) are table-backed: they stay in the
//! records engine's table, indexed by DocID and by ticker, and [`PdfTrades`] reads the rows of the filings a
//! request serves. Ingested records are joined by DocID into the same [`Filing`]s the seed holds; seed rows and
//! ingested rows are never mixed.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::openapi::schema;
use datahost_plugin_api::reference::{CompanyQuery, CompanyRef};
use datahost_plugin_api::{ApiSchema, BoxError, Host, HostError};
use datahost_plugin_kit::disclosure::{self, Disclosure, DisclosureTrade, TradeStore};
use datahost_plugin_kit::error::StoredError;
use datahost_plugin_kit::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

use crate::ingest::watcher::WatcherTradeRecord;

/// The Clerk's financial-disclosure search, the public home of the index and the PTR documents.
pub const CLERK_FD_URL: &str = "https://disclosures-clerk.house.gov/FinancialDisclosure";
/// The index's FilingType of a Periodic Transaction Report.
pub const PTR_FILING_TYPE: &str = "P";

/// The official address of a PTR document (`year` is the index's filing year, the folder the Clerk files it in).
pub fn ptr_pdf_url(year: i32, doc_id: &str) -> String {
    format!("https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/{year}/{doc_id}.pdf")
}

/// The official address of any other financial-disclosure document listed in the index.
pub fn fd_pdf_url(year: i32, doc_id: &str) -> String {
    format!("https://disclosures-clerk.house.gov/public_disc/financial-pdfs/{year}/{doc_id}.pdf")
}

/// The dataset's `meta` (field docs are the OpenAPI descriptions; served inside `routes::ResponseMeta`).
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    #[serde(flatten)]
    pub snapshot: SnapshotMeta,
    /// Periodic Transaction Reports whose document was read, including those with no trade rows.
    pub filings_scanned: u64,
    /// What an ingested snapshot adds: how the listed filings split by document status.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
}

/// How the PTR filings of an ingested snapshot split by document status (additive `meta` fields of ingested
/// data). The field docs are the OpenAPI descriptions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    /// PTR filings listed (index rows of FilingType P, plus PDFs ingested without their index row).
    pub filings_listed: u64,
    /// Listed filings whose PDF is not ingested: their trades are unknown, not absent.
    pub filings_no_document: u64,
    /// Listed filings whose PDF could not be read (scanned paper filing, contradiction...).
    pub filings_unreadable: u64,
    /// PTRs not listed because no filing date is known (neither in the index nor signed in the document).
    pub filings_undated: u64,
    /// Filings whose PDF was not read, served with the trades the House Stock Watcher export transcribed from
    /// it (`tradesSource: house-stock-watcher`).
    #[serde(default)]
    pub filings_second_source: u64,
}

/// A House trade line: the shared disclosure trade plus the House-only `bundled` flag, and for ingested data
/// what the PTR row says beyond SPEC's fields. The field docs are the OpenAPI descriptions.
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
pub struct Trade {
    #[serde(flatten)]
    pub base: DisclosureTrade,
    /// True when the filer reported several transactions as one line.
    pub bundled: bool,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub details: Option<TradeDetails>,
}

/// The additive fields of an ingested trade (absent from the demo seed). The field docs are the OpenAPI
/// descriptions.
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct TradeDetails {
    /// Whose account: `SP` (spouse), `JT` (joint), `DC` (dependent child) or `self` (the column left blank).
    #[schema(with = owner_schema)]
    pub owner: String,
    /// The Clerk's asset type code as printed in brackets (`ST` stock, `OP` option...); null when the row has none.
    pub asset_type: Option<String>,
    /// Transaction type as printed: `P`, `S`, `S (partial)`, `E`.
    pub type_code: String,
    /// Date the member was notified of the transaction (absent for House Stock Watcher rows, which do not
    /// transcribe it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "date")]
    pub notification_date: Option<String>,
    /// The row's Description line, as printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The row's Comments line, as printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// The row's Location line, as printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The row's Subholding Of line, as printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subholding_of: Option<String>,
    /// The row's Filing Status as printed (`New`, `Amended`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filing_status: Option<String>,
    /// The Clerk's transaction id (the form's ID column), printed on rows involved in an amendment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_id: Option<String>,
    /// SEC CIK of the ticker's company, when the host's company list knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cik: Option<String>,
    /// SEC conformed name of the ticker's company.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub company: Option<String>,
}

fn owner_schema() -> serde_json::Value {
    schema::string_enum(&["SP", "JT", "DC", "self"])
}

/// A filing: its header, then its trade lines. The header is its own type so a response can re-serialise it
/// unchanged beside the trades a request keeps.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Filing {
    #[serde(flatten)]
    pub head: FilingHead,
    pub trades: Vec<Trade>,
}

/// A filing's header as served (field docs are the OpenAPI descriptions).
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct FilingHead {
    /// House member who filed the report.
    pub member: String,
    /// Report identifier in the House Clerk's financial-disclosure system.
    pub doc_id: String,
    /// Filing year of the report in the Clerk's index.
    pub year: i32,
    /// Date the report was filed.
    #[schema(format = "date")]
    pub filed_date: String,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub details: Option<FilingDetails>,
}

/// The additive fields of an ingested filing (absent from the demo seed): where it comes from and whether its
/// document was read. The field docs are the OpenAPI descriptions.
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct FilingDetails {
    /// The official PTR document on disclosures-clerk.house.gov.
    #[schema(format = "uri")]
    pub source_url: String,
    /// parsed: trades read from the PDF; no-document: listed in the index, PDF not ingested (trades unknown, not
    /// none); unreadable: the PDF was ingested but its trades could not be read.
    #[schema(with = parse_status_schema)]
    pub parse_status: String,
    /// Why the document is unreadable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parse_problem: Option<String>,
    /// State and district, e.g. CA12.
    pub state_district: String,
    /// The report amends an earlier PTR (rows marked Amended or Deleted), whose matching trades it replaces.
    pub amendment: bool,
    /// Transaction rows of the PDF that could not be read: trades are incomplete.
    #[serde(skip_serializing_if = "is_zero")]
    pub unread_rows: u64,
    /// Rows marked Deleted: trades of an earlier PTR this one withdraws (not listed).
    #[serde(skip_serializing_if = "is_zero")]
    pub withdrawn_trades: u64,
    /// Where the trades come from: pdf (the parsed PTR document) or house-stock-watcher (the House Stock Watcher
    /// export's transcription, served only when the PDF was not read). Absent: no trades known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(with = trades_source_schema)]
    pub trades_source: Option<String>,
}

fn parse_status_schema() -> serde_json::Value {
    schema::string_enum(&["parsed", "no-document", "unreadable"])
}

fn trades_source_schema() -> serde_json::Value {
    schema::string_enum(&["pdf", "house-stock-watcher"])
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Disclosure for Filing {
    type Trade = Trade;
    fn member(&self) -> &str {
        &self.head.member
    }
    fn doc_id(&self) -> &str {
        &self.head.doc_id
    }
    fn filed_date(&self) -> &str {
        &self.head.filed_date
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

/// One row of the Clerk's yearly index (collection `filings`, key = DocID): every filing type, as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexFilingRecord {
    pub doc_id: String,
    /// `First Last Suffix`, the way the filings are served.
    pub member: String,
    pub prefix: String,
    pub first: String,
    pub last: String,
    pub suffix: String,
    /// The index's one-letter FilingType (`P` = Periodic Transaction Report; see the README for the others).
    pub filing_type: String,
    /// Empty where the index leaves it blank.
    pub state_district: String,
    pub year: i32,
    /// `YYYY-MM-DD`; null where the index leaves it blank (some FilingType W rows).
    pub filed_date: Option<String>,
    pub source_url: String,
}

/// `parsed` or `unreadable`: what became of an ingested PTR document.
pub const PARSED: &str = "parsed";
pub const UNREADABLE: &str = "unreadable";
pub const NO_DOCUMENT: &str = "no-document";

/// What a PTR document says about itself (collection `documents`, key = DocID).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentRecord {
    pub doc_id: String,
    /// Where the DocID was read: `content` (the document's `Filing ID #`) or `file name`.
    pub doc_id_from: String,
    /// The file name given to `datahost ingest`.
    pub file_name: String,
    /// `parsed` or `unreadable`.
    pub parse_status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The `Name:` line as printed (`Hon. Nancy Pelosi`); empty when unreadable.
    pub filer_name: String,
    pub filer_status: String,
    pub state_district: String,
    /// The `Digitally Signed` date (`YYYY-MM-DD`), the day the report was filed.
    pub signed_date: Option<String>,
    pub trade_rows: u64,
    pub unread_rows: u64,
    pub deleted_rows: u64,
    pub amendment: bool,
}

/// One transaction row of a PTR document (collection `trades`, key `<DocID>:<row>`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TradeRecord {
    pub doc_id: String,
    /// 1-based position of the row in the document's transaction table.
    pub row: u64,
    pub transaction_id: Option<String>,
    /// `SP`, `JT`, `DC` or `self`.
    pub owner: String,
    /// The asset as printed, without its `(TICKER)` and `[CODE]`.
    pub asset: String,
    /// The ticker printed in parentheses at the end of the asset; empty when there is none.
    pub ticker: String,
    pub asset_type: Option<String>,
    /// `purchase`, `sale`, `sale (partial)` or `exchange`.
    #[serde(rename = "type")]
    pub kind: String,
    pub type_code: String,
    pub date: String,
    pub notification_date: String,
    /// As printed (`$500,001 - $1,000,000`).
    pub amount_range: String,
    pub filing_status: Option<String>,
    pub description: Option<String>,
    pub comment: Option<String>,
    pub location: Option<String>,
    pub subholding_of: Option<String>,
}

impl TradeRecord {
    /// A `Deleted` row withdraws a trade of an earlier report; it is not a trade itself.
    pub fn is_deletion(&self) -> bool {
        self.filing_status.as_deref().is_some_and(|s| s.eq_ignore_ascii_case("deleted"))
    }
}

/// The document the host serves once files are ingested.
#[derive(Debug, Clone, Deserialize)]
pub struct IngestedDoc {
    pub ingested: IngestedInfo,
    #[serde(default)]
    pub filings: Vec<IndexFilingRecord>,
    #[serde(default)]
    pub documents: Vec<DocumentRecord>,
    #[serde(default, rename = "watcher-trades")]
    pub watcher_trades: Vec<WatcherTradeRecord>,
}

/// Company identity by ticker, answered by the host (`companies.resolve`); unknown tickers are absent.
pub type Resolver<'a> = &'a dyn Fn(&[String]) -> HashMap<String, CompanyRef>;

/// The dataset as `init` loads it.
pub struct Loaded {
    pub meta: Meta,
    pub filings: Vec<Filing>,
    /// Ingested data: where the parsed PTR documents' trades are read from.
    pub pdf_trades: Option<PdfTrades>,
    /// Filings with at least one served trade.
    pub filings_with_trades: usize,
}

/// Reads the host's document: the ingested records when there are any, else the demo seed.
pub fn load(doc: serde_json::Value, host: &Host) -> Result<Loaded, BoxError> {
    let unreadable = |e: serde_json::Error| format!("congress-trades dataset is not readable: {e}");
    if doc.get(INGESTED_KEY).is_some() {
        let ingested: IngestedDoc = serde_json::from_value(doc).map_err(unreadable)?;
        let resolve = |tickers: &[String]| resolve_with_host(host, tickers);
        let (filings, coverage) =
            filings_from_records(ingested.filings, &ingested.documents, ingested.watcher_trades, &resolve);
        let pdf_trades = PdfTrades::new(*host, &filings);
        // A parsed document counts when the table holds a row of it that is a trade (not only `Deleted` rows).
        let with_rows = pdf_trades.docs_with_rows()?;
        let only_deletions: HashSet<&str> =
            ingested.documents.iter().filter(|d| d.trade_rows <= d.deleted_rows).map(|d| d.doc_id.as_str()).collect();
        let filings_with_trades = filings
            .iter()
            .filter(|f| match pdf_trades.holds(&f.head.doc_id) {
                true => with_rows.contains(&f.head.doc_id) && !only_deletions.contains(f.head.doc_id.as_str()),
                false => !f.trades.is_empty(),
            })
            .count();
        Ok(Loaded {
            meta: ingested_meta(&ingested.ingested, coverage),
            filings,
            pdf_trades: Some(pdf_trades),
            filings_with_trades,
        })
    } else {
        let seed: Snapshot = serde_json::from_value(doc).map_err(unreadable)?;
        let filings_with_trades = seed.filings.iter().filter(|f| !f.trades.is_empty()).count();
        Ok(Loaded { meta: seed.meta, filings: seed.filings, pdf_trades: None, filings_with_trades })
    }
}

/// The parsed PTR documents' trade rows, read from the records engine's table per request (national scale:
/// they are not held in memory): by DocID for the filings a request serves, by ticker for a ticker filter.
pub struct PdfTrades {
    host: Host,
    /// DocIDs of the filings whose trades come from their parsed PDF (`tradesSource: pdf`).
    parsed: HashSet<String>,
}

impl PdfTrades {
    fn new(host: Host, filings: &[Filing]) -> Self {
        let parsed = filings
            .iter()
            .filter(|f| f.head.details.as_ref().is_some_and(|d| d.trades_source.as_deref() == Some("pdf")))
            .map(|f| f.head.doc_id.clone())
            .collect();
        Self { host, parsed }
    }

    /// DocIDs that have at least one stored row.
    fn docs_with_rows(&self) -> Result<HashSet<String>, HostError> {
        disclosure::stored_doc_ids(&self.host, crate::SLUG, crate::ingest::TRADES, DOC_ID_FIELD)
    }

    /// The served trades (no `Deleted` rows) of parsed filings among `rows`, by DocID, in row order, with
    /// each ticker's company resolved through the host.
    fn served(&self, rows: Vec<serde_json::Value>) -> Result<HashMap<String, Vec<Trade>>, StoredError> {
        let mut records: Vec<TradeRecord> = rows
            .into_iter()
            .map(|r| {
                serde_json::from_value(r).map_err(|source| StoredError::Unreadable { what: "PTR trade row", source })
            })
            .collect::<Result<_, _>>()?;
        records.retain(|t| self.holds(&t.doc_id) && !t.is_deletion());
        records.sort_by(|a, b| (&a.doc_id, a.row).cmp(&(&b.doc_id, b.row)));
        let tickers: Vec<String> = records
            .iter()
            .map(|t| t.ticker.clone())
            .filter(|t| !t.is_empty())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let companies = if tickers.is_empty() { HashMap::new() } else { resolve_with_host(&self.host, &tickers) };
        let mut by_doc: HashMap<String, Vec<Trade>> = HashMap::new();
        for t in &records {
            by_doc.entry(t.doc_id.clone()).or_default().push(served_trade(t, &companies));
        }
        Ok(by_doc)
    }
}

impl TradeStore for PdfTrades {
    type Trade = Trade;

    fn holds(&self, doc_id: &str) -> bool {
        self.parsed.contains(doc_id)
    }

    fn trading(&self, ticker: &str) -> Result<HashMap<String, Vec<Trade>>, StoredError> {
        self.served(disclosure::stored_rows_trading(
            &self.host,
            crate::SLUG,
            crate::ingest::TRADES,
            TICKER_FIELD,
            ticker,
        )?)
    }

    fn of(&self, doc_ids: &[&str]) -> Result<HashMap<String, Vec<Trade>>, StoredError> {
        self.served(disclosure::stored_rows_of(&self.host, crate::SLUG, crate::ingest::TRADES, DOC_ID_FIELD, doc_ids)?)
    }
}

/// The fields the table-backed `trades` rows are looked up by (declared in the manifest).
pub const DOC_ID_FIELD: &str = "docId";
pub const TICKER_FIELD: &str = "ticker";

/// What the index, a document and the House Stock Watcher export say about one DocID.
struct Listing<'a> {
    index: Option<&'a IndexFilingRecord>,
    document: Option<&'a DocumentRecord>,
    /// The export's first row of the DocID, when it has any.
    watcher: Option<&'a WatcherTradeRecord>,
}

/// Joins index rows (FilingType P), documents and the export's trades by DocID into served filings. A filing
/// whose PDF was parsed gets its trades from the table per request ([`PdfTrades`]): here its list is empty.
fn filings_from_records(
    index: Vec<IndexFilingRecord>,
    documents: &[DocumentRecord],
    watcher: Vec<WatcherTradeRecord>,
    resolve: Resolver<'_>,
) -> (Vec<Filing>, Coverage) {
    let empty = || Listing { index: None, document: None, watcher: None };
    let mut listings: BTreeMap<&str, Listing> = BTreeMap::new();
    for row in index.iter().filter(|r| r.filing_type == PTR_FILING_TYPE) {
        listings.insert(&row.doc_id, Listing { index: Some(row), document: None, watcher: None });
    }
    for doc in documents {
        listings.entry(&doc.doc_id).or_insert_with(empty).document = Some(doc);
    }
    let mut watcher_by_doc: HashMap<&str, Vec<&WatcherTradeRecord>> = HashMap::new();
    for w in &watcher {
        watcher_by_doc.entry(&w.doc_id).or_default().push(w);
        listings.entry(&w.doc_id).or_insert_with(empty).watcher.get_or_insert(w);
    }
    let tickers: Vec<String> = watcher
        .iter()
        .map(|w| w.ticker.clone())
        .filter(|t| !t.is_empty())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let companies = if tickers.is_empty() { HashMap::new() } else { resolve(&tickers) };

    let mut coverage = Coverage::default();
    let mut filings = Vec::with_capacity(listings.len());
    for (doc_id, listing) in listings {
        let Some(head) = head_of(doc_id, &listing) else {
            coverage.filings_undated += 1;
            continue;
        };
        let status = head.details.as_ref().map(|d| d.parse_status.clone()).unwrap_or_default();
        let status = status.as_str();
        match status {
            NO_DOCUMENT => coverage.filings_no_document += 1,
            UNREADABLE => coverage.filings_unreadable += 1,
            _ => {}
        }
        coverage.filings_listed += 1;
        // An unreadable document lists no trades: whatever rows it gave cannot be trusted. A PDF that was not
        // read falls back to the export's transcription, saying so; the PDF always wins when it was parsed.
        let mut head = head;
        let transcribed = watcher_by_doc.remove(doc_id).unwrap_or_default();
        let (trades, source) = if status == PARSED {
            (Vec::new(), Some("pdf"))
        } else if !transcribed.is_empty() {
            coverage.filings_second_source += 1;
            let mut rows = transcribed;
            rows.sort_by_key(|w| w.row);
            (rows.into_iter().map(|w| served_watcher_trade(w, &companies)).collect(), Some("house-stock-watcher"))
        } else {
            (Vec::new(), None)
        };
        if let Some(details) = head.details.as_mut() {
            details.trades_source = source.map(str::to_string);
        }
        filings.push(Filing { head, trades });
    }
    (filings, coverage)
}

/// The served header of a DocID: the index row when there is one (it is the Clerk's own listing), else what
/// the document says. `None` for a document with neither an index row nor a signature date.
fn head_of(doc_id: &str, listing: &Listing) -> Option<FilingHead> {
    let doc = listing.document;
    let (member, year, filed_date, state_district) = match (listing.index, doc, listing.watcher) {
        (Some(row), _, _) => (row.member.clone(), row.year, row.filed_date.clone()?, row.state_district.clone()),
        (None, Some(doc), _) if doc.signed_date.is_some() => {
            let signed = doc.signed_date.clone()?;
            let year = signed.get(..4)?.parse().ok()?;
            (member_from_filer_name(&doc.filer_name), year, signed, doc.state_district.clone())
        }
        // Known from the export only: its disclosure date and the year of its PTR address.
        (None, _, Some(w)) => (w.member.clone(), w.year, w.disclosure_date.clone(), w.state_district.clone()),
        (None, _, None) => return None,
    };
    let (parse_status, parse_problem) = match doc {
        None => (NO_DOCUMENT, None),
        Some(d) if d.parse_status != PARSED => (UNREADABLE, d.reason.clone()),
        Some(d) => match contradiction(listing.index, d) {
            Some(problem) => (UNREADABLE, Some(problem)),
            None => (PARSED, None),
        },
    };
    Some(FilingHead {
        details: Some(FilingDetails {
            source_url: ptr_pdf_url(year, doc_id),
            parse_status: parse_status.into(),
            parse_problem,
            state_district,
            amendment: doc.is_some_and(|d| d.amendment),
            unread_rows: doc.map_or(0, |d| d.unread_rows),
            withdrawn_trades: doc.map_or(0, |d| d.deleted_rows),
            trades_source: None,
        }),
        member,
        doc_id: doc_id.into(),
        year,
        filed_date,
    })
}

/// A document tied to its DocID only by its file name must agree with the index row of that DocID; otherwise
/// it is the wrong document (its trades are not served).
fn contradiction(index: Option<&IndexFilingRecord>, doc: &DocumentRecord) -> Option<String> {
    let row = index?;
    let differs = !doc.state_district.is_empty() && !doc.state_district.eq_ignore_ascii_case(&row.state_district);
    (doc.doc_id_from != "content" && differs).then(|| {
        format!(
            "the document `{}` (DocID from its file name) is for {}, but the index lists DocID {} for {}",
            doc.file_name, doc.state_district, row.doc_id, row.state_district
        )
    })
}

/// `Hon. Nancy Pelosi` -> `Nancy Pelosi`: the document's name without the honorific the index keeps apart.
pub fn member_from_filer_name(name: &str) -> String {
    const HONORIFICS: &[&str] = &["Hon.", "Mr.", "Mrs.", "Ms.", "Dr."];
    let name = name.trim();
    HONORIFICS
        .iter()
        .find_map(|h| name.strip_prefix(h).filter(|rest| rest.starts_with(' ')))
        .unwrap_or(name)
        .trim()
        .to_string()
}

fn served_trade(t: &TradeRecord, companies: &HashMap<String, CompanyRef>) -> Trade {
    let company = companies.get(&t.ticker);
    Trade {
        base: DisclosureTrade {
            ticker: t.ticker.clone(),
            asset: t.asset.clone(),
            kind: t.kind.clone(),
            amount_range: t.amount_range.clone(),
            date: t.date.clone(),
        },
        // The House form has no field for several transactions reported as one line.
        bundled: false,
        details: Some(TradeDetails {
            owner: t.owner.clone(),
            asset_type: t.asset_type.clone(),
            type_code: t.type_code.clone(),
            notification_date: Some(t.notification_date.clone()),
            description: t.description.clone(),
            comment: t.comment.clone(),
            location: t.location.clone(),
            subholding_of: t.subholding_of.clone(),
            filing_status: t.filing_status.clone(),
            transaction_id: t.transaction_id.clone(),
            cik: company.map(|c| c.cik.clone()),
            company: company.map(|c| c.name.clone()),
        }),
    }
}

/// A trade as the House Stock Watcher export transcribed it (no asset type, notification date or details).
fn served_watcher_trade(w: &WatcherTradeRecord, companies: &HashMap<String, CompanyRef>) -> Trade {
    let company = companies.get(&w.ticker);
    let type_code = match w.kind.as_str() {
        "purchase" => "P",
        "sale" => "S",
        "sale (partial)" => "S (partial)",
        _ => "E",
    };
    Trade {
        base: DisclosureTrade {
            ticker: w.ticker.clone(),
            asset: w.asset.clone(),
            kind: w.kind.clone(),
            amount_range: w.amount_range.clone(),
            date: w.date.clone(),
        },
        bundled: false,
        details: Some(TradeDetails {
            owner: w.owner.clone(),
            asset_type: None,
            type_code: type_code.into(),
            notification_date: None,
            description: None,
            comment: None,
            location: None,
            subholding_of: None,
            filing_status: None,
            transaction_id: None,
            cik: company.map(|c| c.cik.clone()),
            company: company.map(|c| c.name.clone()),
        }),
    }
}

/// Asks the host who each ticker is; an unknown ticker (or no company list) is simply left unresolved.
pub fn resolve_with_host(host: &Host, tickers: &[String]) -> HashMap<String, CompanyRef> {
    let queries: Vec<CompanyQuery> = tickers.iter().map(|t| CompanyQuery::Ticker(t.clone())).collect();
    match host.resolve_companies(&queries) {
        Ok(answers) => {
            tickers.iter().zip(answers).filter_map(|(ticker, found)| Some((ticker.clone(), found?))).collect()
        }
        Err(e) => {
            host.log(
                datahost_plugin_api::LogLevel::Warn,
                &format!("congress-trades: company resolution unavailable, tickers served as printed: {e}"),
            );
            HashMap::new()
        }
    }
}

/// The `meta` of ingested data: the official source, how it was read and what it does not say.
fn ingested_meta(info: &IngestedInfo, coverage: Coverage) -> Meta {
    let scanned = coverage.filings_listed - coverage.filings_no_document - coverage.filings_unreadable;
    Meta {
        snapshot: SnapshotMeta {
            source: "U.S. House of Representatives, Office of the Clerk: the yearly Financial Disclosure index \
                     (FilingType P, Periodic Transaction Reports) and the e-filed PTR documents"
                .into(),
            source_url: CLERK_FD_URL.into(),
            method: "Every Periodic Transaction Report listed in the Clerk's index (XML or tab-separated text) is a \
                     filing; its PTR PDF, when ingested, is read row by row from its text layer: owner, asset, \
                     ticker and asset type code as printed, transaction type (P purchase, S sale, S (partial) \
                     partial sale, E exchange), transaction and notification dates, amount range as printed with \
                     numeric amountMin/amountMax, and the row's filing status, description and comments. Rows of \
                     an amending PTR replace the same member's matching rows (owner, asset, transaction date) of \
                     earlier PTRs; rows it marks Deleted withdraw them. Tickers are resolved to the SEC's CIK and \
                     name through the companies reference list when it is loaded."
                .into(),
            caveat: "Reports are disclosed up to 45 days after the trade; amounts are bucketed ranges, not exact \
                     values. A filing with parseStatus no-document is listed in the index but its PDF has not been \
                     read: its empty trades mean unknown, not none; unreadable means the PDF was read but its \
                     trades could not be (scanned paper filings have no text layer). The House form has no field \
                     for bundled lines, so bundled is false, and its capital-gains checkbox is not read. These are \
                     stock-trade disclosures, not voting records or policy positions."
                .into(),
            generated_at: if info.last_ingest_at.is_empty() {
                chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
            } else {
                info.last_ingest_at.clone()
            },
        },
        filings_scanned: scanned,
        coverage: Some(coverage),
    }
}
