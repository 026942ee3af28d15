//! The part of the `insiders` dataset this plugin reads, and the rosters derived from it. Two documents:
//! - the demo seed `{meta, companies, filings}` (record fields `ticker`, `owner`, `titles`, `code`, `date`,
//!   `filedDate`, `accessionNumber`; everything else is ignored);
//! - ingested filings `{ingested, forms}` (`records.rs` of the insiders plugin): companies are the issuers
//!   (keyed by CIK, ticker and CEO derived the same way `/v1/insiders` does); a company's transaction rows are
//!   read from the records engine's table when its roster is first served, and every reporting owner of a joint
//!   filing is a person of the roster.
//!
//! Roster rules, per company and person (the owner name as filed):
//! - `titles`: the person's distinct titles, newest filing first, joined with `, ` (a promoted officer lists the
//!   current title before the earlier one);
//! - `filingCount`: distinct accession numbers (one Form 4 may hold several transaction rows);
//! - `lastFilingDate`: the latest filing date; `lastCode`: the code of the person's latest transaction row
//!   (latest filing, then latest transaction date, then the last row of that filing);
//! - people ordered by `lastFilingDate` descending, then name.

use std::collections::HashMap;
use std::sync::OnceLock;

use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::params::normalize_ticker;
use datahost_plugin_api::{ApiSchema, Host};
use datahost_plugin_kit::companies::{Companies, CompaniesMeta};
use datahost_plugin_kit::error::StoredError;
use serde::{Deserialize, Serialize};

use crate::records::{self, FormSummary, TransactionRecord};

#[derive(Debug, Clone, Deserialize)]
pub struct SourceCompany {
    pub ticker: String,
    pub company: String,
    pub ceo: String,
    /// What joins the company to its records: the issuer CIK for ingested data (an issuer may have no known
    /// ticker), the normalised ticker when absent (the seed).
    #[serde(skip)]
    pub key: Option<String>,
}

/// A Form 4 transaction row, reduced to its reporting-owner metadata.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerRecord {
    pub ticker: String,
    pub owner: String,
    pub titles: Vec<String>,
    pub code: String,
    pub date: String,
    /// Older ingests may lack it; the transaction date stands in.
    #[serde(default)]
    pub filed_date: Option<String>,
    pub accession_number: String,
    /// See [`SourceCompany::key`].
    #[serde(skip)]
    pub key: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct InsidersSnapshot {
    pub meta: CompaniesMeta,
    pub companies: Vec<SourceCompany>,
    pub filings: Vec<OwnerRecord>,
}

/// The insiders dataset once filings are ingested: the filings (issuers, CEOs); the transaction rows stay in
/// the records engine's table and are read per company when its roster is first asked for.
#[derive(Debug, Deserialize)]
pub struct IngestedInsiders {
    pub ingested: IngestedInfo,
    #[serde(default)]
    pub forms: Vec<FormSummary>,
}

/// One owner record per reporting owner of each transaction row (a filing whose accession number is unknown
/// counts by its filing id).
fn owner_records(rows: &[TransactionRecord]) -> Vec<OwnerRecord> {
    rows.iter()
        .flat_map(|r| {
            r.owners.iter().map(|owner| OwnerRecord {
                ticker: r.ticker.clone(),
                owner: owner.name.clone(),
                titles: owner.titles(),
                code: r.code.clone(),
                date: r.date.clone(),
                filed_date: r.filed_date.clone(),
                accession_number: r.accession_number.clone().unwrap_or_else(|| r.filing_id.clone()),
                key: Some(r.issuer_cik.clone()),
            })
        })
        .collect()
}

fn company_key(key: &Option<String>, ticker: &str) -> String {
    key.clone().unwrap_or_else(|| normalize_ticker(ticker))
}

/// One person on a company's roster: a reporting owner of its Form 4 filings.
#[derive(Debug, Clone, PartialEq, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "ExecsPerson")]
pub struct Exec {
    /// Reporting owner's name as filed on Form 4.
    pub name: String,
    /// The person's distinct titles across their filings, comma-separated, most recent filing first (for example
    /// `Chief Executive Officer, Director`).
    pub titles: String,
    /// Number of distinct Form 4 filings (accession numbers) by the person.
    pub filing_count: u64,
    /// Filing date of the person's latest Form 4.
    #[schema(format = "date")]
    pub last_filing_date: String,
    /// Form 4 transaction code of the person's latest transaction (for example S, P, A).
    pub last_code: String,
}

/// One covered company and its roster of officers and directors.
#[derive(Debug, Clone, Serialize, ApiSchema)]
#[schema(name = "ExecsCompany")]
pub struct CompanyRoster<'a> {
    /// Stock ticker.
    pub ticker: &'a str,
    /// Issuer name.
    pub company: &'a str,
    /// The issuer's chief executive officer.
    pub ceo: &'a str,
    /// One entry per person, latest filing first (ties by name).
    pub execs: &'a [Exec],
}

/// A covered company and its roster: built at load from the demo seed, or, for ingested filings, from the
/// company's rows read from the records engine on the first request that serves it (then kept: a roster is a
/// small per-company aggregate; the plugin is re-initialised when the data changes).
#[derive(Debug)]
pub struct Company {
    pub ticker: String,
    pub company: String,
    pub ceo: String,
    /// The issuer CIK of an ingested company (what its rows are read by).
    issuer_cik: Option<String>,
    execs: OnceLock<Vec<Exec>>,
}

/// The shared company-dataset meta, plus the dataset the rosters are derived from.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    #[serde(flatten)]
    pub common: CompaniesMeta,
    pub derived_from: &'static str,
}

/// Every company's roster, in ticker order.
pub struct Rosters {
    pub meta: Meta,
    pub companies: Companies<Company>,
    /// Set for ingested data: where the companies' rows are read from.
    table: Option<Host>,
}

impl Rosters {
    /// Rosters of the demo seed, all built at once.
    pub fn new(snapshot: InsidersSnapshot) -> Self {
        let mut by_company: HashMap<String, Vec<OwnerRecord>> = HashMap::new();
        for r in snapshot.filings {
            by_company.entry(company_key(&r.key, &r.ticker)).or_default().push(r);
        }
        let companies = snapshot
            .companies
            .into_iter()
            .map(|c| {
                let rows = by_company.remove(&company_key(&c.key, &c.ticker)).unwrap_or_default();
                Company {
                    ticker: c.ticker,
                    company: c.company,
                    ceo: c.ceo,
                    issuer_cik: None,
                    execs: OnceLock::from(roster(&rows)),
                }
            })
            .collect();
        Self { meta: derived_meta(snapshot.meta), companies: Companies::new(companies, |c| &c.ticker), table: None }
    }

    /// Rosters of ingested filings: the companies are the issuers of the filings (ticker and CEO derived the
    /// way `/v1/insiders` derives them); each roster is built when first served.
    pub fn ingested(doc: IngestedInsiders, host: &Host) -> Self {
        let meta = records::ingested_meta(&doc.ingested, &doc.forms);
        let companies = records::issuers(&doc.forms, host)
            .into_iter()
            .map(|i| Company {
                ticker: i.ticker,
                company: i.company,
                ceo: i.ceo,
                issuer_cik: Some(i.cik),
                execs: OnceLock::new(),
            })
            .collect();
        let meta = CompaniesMeta {
            generated_at: meta.generated_at,
            source: meta.source,
            source_url: meta.source_url,
            caveat: meta.caveat,
        };
        Self { meta: derived_meta(meta), companies: Companies::new(companies, |c| &c.ticker), table: Some(*host) }
    }

    /// The company's roster, reading its rows from the records engine the first time it is served.
    pub fn roster<'a>(&self, c: &'a Company) -> Result<CompanyRoster<'a>, StoredError> {
        let execs = match (c.execs.get(), &self.table, &c.issuer_cik) {
            (Some(execs), _, _) => execs,
            (None, Some(host), Some(cik)) => {
                let rows = records::issuer_transactions(host, cik)?;
                // Two requests may build the same roster at once; both build the same value.
                let _ = c.execs.set(roster(&owner_records(&rows)));
                c.execs.get().map(Vec::as_slice).unwrap_or_default()
            }
            (None, _, _) => &[],
        };
        Ok(CompanyRoster { ticker: &c.ticker, company: &c.company, ceo: &c.ceo, execs })
    }
}

fn derived_meta(source: CompaniesMeta) -> Meta {
    Meta {
        common: CompaniesMeta {
            source: format!("Derived from the insiders dataset ({})", source.source),
            caveat: format!(
                "Rosters list the reporting owners of Form 4 filings in the insiders dataset, so people who filed \
                 no Form 4 in its window are missing. {}",
                source.caveat
            ),
            ..source
        },
        derived_from: crate::SOURCE_DATASET,
    }
}

/// One company's roster from its owner records: one entry per person (the owner name as filed), ordered by
/// `lastFilingDate` descending, then name.
fn roster(rows: &[OwnerRecord]) -> Vec<Exec> {
    // Rows per person, remembering each row's position so rows of one filing keep their order.
    let mut by_person: HashMap<&str, Vec<(usize, &OwnerRecord)>> = HashMap::new();
    for (pos, r) in rows.iter().enumerate() {
        by_person.entry(r.owner.as_str()).or_default().push((pos, r));
    }
    let mut execs: Vec<Exec> = by_person
        .into_iter()
        .map(|(name, mut person_rows)| {
            person_rows.sort_by(|(pa, a), (pb, b)| {
                (filed(b), &b.date, &b.accession_number, pb).cmp(&(filed(a), &a.date, &a.accession_number, pa))
            });
            exec(name, &person_rows)
        })
        .collect();
    execs.sort_by(|a, b| b.last_filing_date.cmp(&a.last_filing_date).then_with(|| a.name.cmp(&b.name)));
    execs
}

fn filed(r: &OwnerRecord) -> &str {
    r.filed_date.as_deref().unwrap_or(&r.date)
}

/// One person's roster entry from their rows, newest first.
fn exec(name: &str, newest_first: &[(usize, &OwnerRecord)]) -> Exec {
    let mut titles: Vec<&str> = Vec::new();
    let mut accessions: Vec<&str> = Vec::new();
    for (_, r) in newest_first {
        for t in &r.titles {
            if !titles.contains(&t.as_str()) {
                titles.push(t);
            }
        }
        if !accessions.contains(&r.accession_number.as_str()) {
            accessions.push(&r.accession_number);
        }
    }
    let latest = newest_first[0].1;
    Exec {
        name: name.to_string(),
        titles: titles.join(", "),
        filing_count: accessions.len() as u64,
        last_filing_date: filed(latest).to_string(),
        last_code: latest.code.clone(),
    }
}
