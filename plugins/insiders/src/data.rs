//! The dataset as the host serves it, and the per-company index built from it. Two documents, never mixed:
//! - the demo seed: `{meta, companies: [{ticker, company, cik, ceo}], filings: [...]}`, each filing record one
//!   transaction row with its reporting owner (`owner`, `titles`), `code`, `date`, `filedDate`,
//!   `accessionNumber` and `ticker`;
//! - once filings are ingested: `{ingested, forms: [...]}` (see `records.rs`); the companies are the issuers of
//!   those filings and `meta` names the real source. The transaction rows stay in the records engine's table
//!   and each request reads the served companies' rows by issuer CIK.
//!
//! The `execs` plugin reads these same records to build rosters.

use std::borrow::Cow;
use std::collections::HashMap;

use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::params::normalize_ticker;
use datahost_plugin_api::{BoxError, Host};
use datahost_plugin_kit::companies::Companies;
use datahost_plugin_kit::error::StoredError;
use datahost_plugin_kit::snapshot::SnapshotMeta;
use serde::Deserialize;

use crate::records::{self, FormSummary, TransactionRecord};

/// The shared company-dataset meta fields plus `method` (how the records were read).
pub type Meta = SnapshotMeta;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Company {
    pub ticker: String,
    pub company: String,
    /// The issuer's SEC CIK, 10 digits.
    pub cik: String,
    pub ceo: String,
}

/// One transaction row of a Form 4.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transaction {
    pub ticker: String,
    pub owner: String,
    /// The reporting owner's relationship to the issuer as filed (officer title, `Director`...).
    pub titles: Vec<String>,
    pub code: String,
    pub acquired_disposed: String,
    /// Null for an ingested bare XML whose accession number is unknown.
    pub accession_number: Option<String>,
    pub source_url: Option<String>,
    /// Transaction date.
    pub date: String,
    /// Null for an ingested bare XML (no EDGAR header).
    pub filed_date: Option<String>,
    pub shares: f64,
    /// Null when the filing gives the price only in a footnote.
    pub price: Option<f64>,
    /// Whether the filer checked the Rule 10b5-1(c) trading-plan box (or, ingested, a footnote says so).
    #[serde(default)]
    pub trading_plan: bool,
    /// The full ingested record (absent for the demo seed).
    #[serde(skip)]
    pub detail: Option<Box<TransactionRecord>>,
}

impl Transaction {
    /// Shares times price in USD, rounded to cents; null when the price is unknown. Computed, never stored, so
    /// it always agrees with its inputs.
    pub fn value(&self) -> Option<f64> {
        self.price.map(|price| (self.shares * price * 100.0).round() / 100.0)
    }

    /// The filing the row belongs to: the accession number, or the content-derived id of a bare XML.
    fn filing(&self) -> &str {
        match (&self.accession_number, &self.detail) {
            (Some(accession), _) => accession,
            (None, Some(detail)) => &detail.filing_id,
            (None, None) => "",
        }
    }

    fn from_record(record: TransactionRecord, ticker: &str) -> Self {
        Self {
            ticker: ticker.to_string(),
            owner: record.owner.clone(),
            titles: record.titles.clone(),
            code: record.code.clone(),
            acquired_disposed: record.acquired_disposed.clone(),
            accession_number: record.accession_number.clone(),
            source_url: record.source_url.clone(),
            date: record.date.clone(),
            filed_date: record.filed_date.clone(),
            shares: record.shares,
            price: record.price,
            trading_plan: record.trading_plan,
            detail: Some(Box::new(record)),
        }
    }
}

/// The demo seed document.
#[derive(Debug, Clone, Deserialize)]
struct SeedSnapshot {
    meta: Meta,
    companies: Vec<Company>,
    filings: Vec<Transaction>,
}

/// The document of an ingested dataset (the transaction rows are not in it: they stay in the table).
#[derive(Debug, Deserialize)]
struct IngestedSnapshot {
    ingested: IngestedInfo,
    #[serde(default)]
    forms: Vec<FormSummary>,
}

pub struct CompanyFilings {
    pub company: Company,
    /// Newest transaction first; rows of one filing keep their filed order. Empty for a table-backed index
    /// (see [`Index::filings`]).
    pub filings: Vec<Transaction>,
}

/// Companies in ticker order, each with its transactions.
pub struct Index {
    pub meta: Meta,
    pub companies: Companies<CompanyFilings>,
    /// Set for ingested data, whose rows stay in the records engine: each request reads the rows of the
    /// companies it serves.
    pub table: Option<Host>,
}

/// The index and how many records named no company entry (left out).
pub struct Loaded {
    pub index: Index,
    pub orphans: usize,
}

/// Loads the dataset from the host: the ingested records when there are any, else the demo seed.
pub fn load(host: &Host, dataset: &str) -> Result<Loaded, BoxError> {
    let doc: serde_json::Value = host.load_dataset(dataset)?;
    let schema_error = |e: serde_json::Error| format!("dataset `{dataset}` does not match its schema: {e}");
    if doc.get(INGESTED_KEY).is_some() {
        let ingested: IngestedSnapshot = serde_json::from_value(doc).map_err(schema_error)?;
        Ok(from_ingested(ingested, host))
    } else {
        let seed: SeedSnapshot = serde_json::from_value(doc).map_err(schema_error)?;
        let rows = seed.filings.into_iter().map(|t| (normalize_ticker(&t.ticker), t)).collect();
        let companies = seed.companies.into_iter().map(|c| (normalize_ticker(&c.ticker), c)).collect();
        Ok(Index::build(seed.meta, companies, rows))
    }
}

/// Companies are the issuers of the ingested filings, keyed by issuer CIK (an issuer with no known ticker
/// is still listed, under an empty ticker); their rows are read per request.
fn from_ingested(doc: IngestedSnapshot, host: &Host) -> Loaded {
    let meta = records::ingested_meta(&doc.ingested, &doc.forms);
    let companies = records::issuers(&doc.forms, host)
        .into_iter()
        .map(|i| (i.cik.clone(), Company { ticker: i.ticker, company: i.company, cik: i.cik, ceo: i.ceo }))
        .collect();
    let mut loaded = Index::build(meta, companies, Vec::new());
    loaded.index.table = Some(*host);
    loaded
}

/// Newest transaction first; a stable sort, so rows of one accession (an exercise and its sale) keep their
/// filed order.
fn sort_newest_first(rows: &mut [Transaction]) {
    rows.sort_by(|a, b| (&b.date, b.filing()).cmp(&(&a.date, a.filing())));
}

impl Index {
    /// Builds the index from companies and rows, each paired with the key that joins them (the normalised
    /// ticker for the seed, the issuer CIK for ingested records).
    fn build(meta: Meta, companies: Vec<(String, Company)>, rows: Vec<(String, Transaction)>) -> Loaded {
        let mut by_company: HashMap<String, Vec<Transaction>> = HashMap::new();
        for (key, t) in rows {
            by_company.entry(key).or_default().push(t);
        }
        let companies = companies
            .into_iter()
            .map(|(key, company)| {
                let mut filings = by_company.remove(&key).unwrap_or_default();
                sort_newest_first(&mut filings);
                CompanyFilings { company, filings }
            })
            .collect();
        let orphans = by_company.values().map(Vec::len).sum();
        let companies = Companies::new(companies, |c| &c.company.ticker);
        Loaded { index: Self { meta, companies, table: None }, orphans }
    }

    /// A company's transactions, newest first: from memory (the demo seed), or read from the records engine
    /// by issuer CIK (ingested filings).
    pub fn filings<'a>(&self, c: &'a CompanyFilings) -> Result<Cow<'a, [Transaction]>, StoredError> {
        let Some(host) = &self.table else { return Ok(Cow::Borrowed(&c.filings)) };
        let mut rows: Vec<Transaction> = records::issuer_transactions(host, &c.company.cik)?
            .into_iter()
            .map(|r| Transaction::from_record(r, &c.company.ticker))
            .collect();
        sort_newest_first(&mut rows);
        Ok(Cow::Owned(rows))
    }
}
