//! The lobbying dataset (companies with every quarterly LD-2 filing found for them as a client), from the demo
//! seed or from ingested LDA filings (never both), and the per-company spend computed from it once at load:
//! only filing years 2025 and 2026 count.

use std::collections::BTreeMap;

use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::reference::{CompanyQuery, CompanyRef};
use datahost_plugin_api::{ApiSchema, Host, LogLevel};
use datahost_plugin_kit::companies::{self, CompaniesMeta, Dataset, Document};
use serde::{Deserialize, Serialize};

use crate::ingest::LdaFilingRecord;

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
#[derive(Debug, Clone, PartialEq, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "LobbyingQuarter")]
pub struct Quarter {
    /// Reporting quarter, `<year>-Q<n>`.
    #[schema(pattern = "^[0-9]{4}-Q[1-4]$")]
    pub period: String,
    /// Sum of every filing for the client in this quarter, USD.
    pub amount: f64,
    /// Filings behind the amount (the company's own and outside firms').
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
    pub fn new(company: Company, fallback_year: i32) -> Result<Self, LoadError> {
        if let Some(bad) = company.filings.iter().find(|f| !(1..=4).contains(&f.quarter)) {
            return Err(LoadError::BadQuarter {
                ticker: company.ticker.clone(),
                filing_uuid: bad.filing_uuid.clone(),
                quarter: bad.quarter,
            });
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
            // `+ 0.0`: the sum of no quarters is -0.0, which would be served as `-0.0`.
            total_spend_usd: quarters.iter().map(|q| q.amount).sum::<f64>() + 0.0,
            filing_count: counted.len(),
            quarters,
            name: company.name,
            ticker: company.ticker,
            client_name: company.client_name,
        })
    }
}

pub type Index = Dataset<Entry>;

pub fn index(snapshot: Snapshot) -> Result<Index, LoadError> {
    let year = snapshot
        .meta
        .generated_date()
        .map(|d| chrono::Datelike::year(&d))
        .ok_or_else(|| LoadError::BadGeneratedAt(snapshot.meta.generated_at.clone()))?;
    Dataset::build(snapshot, |c| Entry::new(c, year), |e| &e.ticker)
}

/// The ingested document: `{ingested, filings: [LdaFilingRecord]}`.
#[derive(Deserialize)]
struct IngestedDoc {
    ingested: IngestedInfo,
    #[serde(default)]
    filings: Vec<LdaFilingRecord>,
}

/// Reads the host's document: the ingested LDA filings once there are any, else the demo seed.
pub fn load(host: &Host) -> Result<Index, LoadError> {
    match companies::read_document::<Company, IngestedDoc>(host, crate::SLUG, "LDA filings")? {
        Document::Seed(snapshot) => index(snapshot),
        Document::Ingested(doc) => {
            index(Snapshot { meta: ingested_meta(&doc.ingested), companies: clients(doc.filings, host) })
        }
    }
}

/// Why the lobbying dataset cannot be loaded (which fails `init`).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Document(#[from] companies::DocumentError),
    /// The snapshot's date names the year of a company with no counted filing.
    #[error("meta.generatedAt `{0}` is not a date")]
    BadGeneratedAt(String),
    #[error("{ticker}: filing {filing_uuid} has quarter {quarter}")]
    BadQuarter { ticker: String, filing_uuid: String, quarter: u8 },
}

/// One company per client: the SEC company its name matches through the host's company list, else the client
/// under its own name without a ticker. Only quarterly reports with an amount are summed.
fn clients(filings: Vec<LdaFilingRecord>, host: &Host) -> Vec<Company> {
    let mut names: Vec<String> = filings.iter().map(|f| f.client.clone()).collect();
    names.sort();
    names.dedup();
    let queries: Vec<CompanyQuery> = names.iter().cloned().map(CompanyQuery::Name).collect();
    let resolved: BTreeMap<String, CompanyRef> = match host.resolve_companies(&queries) {
        Ok(answers) => names.into_iter().zip(answers).filter_map(|(n, a)| Some((n, a?))).collect(),
        Err(e) => {
            host.log(LogLevel::Warn, &format!("lobbying: clients not resolved to companies: {e}"));
            BTreeMap::new()
        }
    };
    let mut by_company: BTreeMap<String, Company> = BTreeMap::new();
    for f in filings {
        let (key, name, ticker) = match resolved.get(&f.client) {
            Some(c) if !c.ticker.is_empty() => (format!("ticker:{}", c.ticker), c.name.clone(), c.ticker.clone()),
            _ => (format!("client:{}", f.client_id), f.client.clone(), String::new()),
        };
        let company = by_company.entry(key).or_insert_with(|| Company {
            name,
            ticker,
            client_name: f.client.clone(),
            filings: Vec::new(),
        });
        if let (Some(quarter), Some(amount)) = (f.quarter, f.amount) {
            company.filings.push(Filing { filing_uuid: f.filing_uuid, year: f.year, quarter, amount });
        }
    }
    by_company.into_values().collect()
}

fn ingested_meta(info: &IngestedInfo) -> CompaniesMeta {
    CompaniesMeta {
        generated_at: if info.last_ingest_at.is_empty() {
            chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
        } else {
            info.last_ingest_at.clone()
        },
        source: "U.S. Senate Lobbying Disclosure Act filings (LD-1 registrations and LD-2 quarterly reports), \
                 ingested from the LDA REST API"
            .into(),
        source_url: "https://lda.senate.gov/filings/public/filing/search/".into(),
        caveat: "Totals sum every quarterly report found for the client in filing years 2025 and 2026, whether filed \
                 by the company itself (expenses) or by outside firms it retained (income); earlier years are held \
                 but not counted, and an amended report replaces the one it amends. Filers report amounts rounded \
                 to the nearest $10,000, and none below $5,000. Clients are matched to a company by name through \
                 the SEC company list; a client no company matches is listed under its own name without a ticker."
            .into(),
    }
}
