//! The dataset's records as stored in the records engine, and the per-company index built from them.
//!
//! Snapshot document: `{meta, companies: [{ticker, company, cik, ceo}], filings: [...]}` where each filing
//! record is one Form 4 transaction row with its reporting owner (`owner`, `titles`), `code`, `date`,
//! `filedDate`, `accessionNumber` and `ticker`. The `execs` plugin reads these same records to build rosters.

use std::collections::HashMap;

use datahost_plugin_api::companies::Companies;
use datahost_plugin_api::params::normalize_ticker;
use datahost_plugin_api::snapshot::SnapshotMeta;
use serde::Deserialize;

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

/// One non-derivative transaction row of a Form 4.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transaction {
    pub ticker: String,
    pub owner: String,
    /// The reporting owner's relationship to the issuer as filed (officer title, `Director`...).
    pub titles: Vec<String>,
    pub code: String,
    pub acquired_disposed: String,
    pub accession_number: String,
    pub source_url: String,
    /// Transaction date.
    pub date: String,
    pub filed_date: String,
    pub shares: f64,
    pub price: f64,
    /// Whether the filer checked the Rule 10b5-1(c) trading-plan box.
    #[serde(default)]
    pub trading_plan: bool,
}

impl Transaction {
    /// Shares times price in USD, rounded to cents. Computed, never stored, so it always agrees with its inputs.
    pub fn value(&self) -> f64 {
        (self.shares * self.price * 100.0).round() / 100.0
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub meta: Meta,
    pub companies: Vec<Company>,
    pub filings: Vec<Transaction>,
}

pub struct CompanyFilings {
    pub company: Company,
    /// Newest transaction first; rows of one filing keep their filed order.
    pub filings: Vec<Transaction>,
}

/// Companies in ticker order, each with its transactions.
pub struct Index {
    pub meta: Meta,
    pub companies: Companies<CompanyFilings>,
}

impl Index {
    /// Builds the index; also returns how many records named a ticker with no company entry (left out).
    pub fn new(snapshot: Snapshot) -> (Self, usize) {
        let mut by_ticker: HashMap<String, Vec<Transaction>> = HashMap::new();
        for t in snapshot.filings {
            by_ticker.entry(normalize_ticker(&t.ticker)).or_default().push(t);
        }
        let companies = snapshot
            .companies
            .into_iter()
            .map(|company| {
                let mut filings = by_ticker.remove(&normalize_ticker(&company.ticker)).unwrap_or_default();
                // Stable sort: rows of one accession (an exercise and its sale) stay in filed order.
                filings.sort_by(|a, b| (&b.date, &b.accession_number).cmp(&(&a.date, &a.accession_number)));
                CompanyFilings { company, filings }
            })
            .collect();
        let orphans = by_ticker.values().map(Vec::len).sum();
        (Self { meta: snapshot.meta, companies: Companies::new(companies, |c| &c.company.ticker) }, orphans)
    }
}
