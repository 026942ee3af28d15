//! The lobbying snapshot (companies with every quarterly LD-2 filing found for them as a client) and the
//! per-company spend computed from it once at load: only filing years 2025 and 2026 count.

use datahost_plugin_api::companies::{self, Dataset};
use serde::{Deserialize, Serialize};

/// Filing years whose quarterly reports are summed (SPEC).
pub const FILING_YEARS: [i32; 2] = [2025, 2026];

/// One quarterly report, by the company itself or by an outside firm it retained. The snapshot also holds
/// each filing's `registrant` and `postedDate`, which the endpoint does not report.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filing {
    pub filing_uuid: String,
    pub year: i32,
    pub quarter: u8,
    pub amount: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Company {
    pub name: String,
    pub ticker: String,
    pub client_name: String,
    pub filings: Vec<Filing>,
}

pub type Snapshot = companies::Snapshot<Company>;

/// Spend in one quarter: the sum of every filing for the client in that period.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Quarter {
    /// `<year>-Q<n>`.
    pub period: String,
    pub amount: f64,
    pub filing_count: usize,
}

pub struct Entry {
    pub name: String,
    pub ticker: String,
    pub client_name: String,
    /// The latest filing year among the counted filings.
    pub year: i32,
    pub total_spend_usd: f64,
    pub filing_count: usize,
    /// Sorted by period, oldest first.
    pub quarters: Vec<Quarter>,
}

impl Entry {
    /// `fallback_year` names the year of a company with no counted filing (the snapshot's year).
    pub fn new(company: Company, fallback_year: i32) -> Result<Self, String> {
        if let Some(bad) = company.filings.iter().find(|f| !(1..=4).contains(&f.quarter)) {
            return Err(format!("{}: filing {} has quarter {}", company.ticker, bad.filing_uuid, bad.quarter));
        }
        let counted: Vec<&Filing> = company.filings.iter().filter(|f| FILING_YEARS.contains(&f.year)).collect();
        let mut by_period = std::collections::BTreeMap::<(i32, u8), (f64, usize)>::new();
        for f in &counted {
            let slot = by_period.entry((f.year, f.quarter)).or_default();
            slot.0 += f.amount;
            slot.1 += 1;
        }
        let quarters: Vec<Quarter> = by_period
            .into_iter()
            .map(|((y, q), (amount, filing_count))| Quarter { period: format!("{y}-Q{q}"), amount, filing_count })
            .collect();
        Ok(Self {
            year: counted.iter().map(|f| f.year).max().unwrap_or(fallback_year),
            total_spend_usd: quarters.iter().map(|q| q.amount).sum(),
            filing_count: counted.len(),
            quarters,
            name: company.name,
            ticker: company.ticker,
            client_name: company.client_name,
        })
    }
}

pub type Index = Dataset<Entry>;

pub fn index(snapshot: Snapshot) -> Result<Index, String> {
    let year = snapshot
        .meta
        .generated_date()
        .map(|d| chrono::Datelike::year(&d))
        .ok_or_else(|| format!("meta.generatedAt `{}` is not a date", snapshot.meta.generated_at))?;
    Dataset::build(snapshot, |c| Entry::new(c, year), |e| &e.ticker)
}
