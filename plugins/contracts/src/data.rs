//! The contracts dataset (companies with their award records), from the demo seed or from ingested
//! USAspending awards (never both), and the per-company figures computed from it once at load: only awards
//! inside SPEC's window count.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::params::parse_date;
use datahost_plugin_api::reference::CompanyQuery;
use datahost_plugin_api::{ApiSchema, Host, LogLevel};
use datahost_plugin_kit::companies::{self, CompaniesMeta, Dataset, Document};
use serde::{Deserialize, Serialize};

use crate::ingest::AwardRecord;

/// First day of fiscal year 2024 (U.S. federal fiscal years start on October 1 of the prior calendar year).
pub const WINDOW_START: &str = "2023-10-01";
pub const WINDOW_FISCAL_YEAR: i32 = 2024;
/// Contract award type codes SPEC counts: BPA call, purchase order, delivery order, definitive contract.
/// Indefinite-delivery vehicles (IDV_*) and assistance awards (grants, loans: numeric codes) are left out.
pub const AWARD_TYPES: [&str; 4] = ["A", "B", "C", "D"];
/// How many of the largest awards each company lists.
pub const TOP_AWARDS: usize = 5;

/// One award to a covered company.
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "ContractsAward")]
pub struct Award {
    /// Procurement instrument identifier (PIID); `DEMO-AWD-#####` in the demo seed, not a PIID.
    pub award_id: String,
    /// Contract award type code.
    #[schema(with = award_type_schema)]
    pub award_type: String,
    /// Obligated amount of the award, USD.
    pub amount: f64,
    /// Awarding agency.
    pub agency: String,
    /// Award description as reported.
    pub description: String,
    /// Action date of the award (ingested: its start date or date signed).
    #[schema(format = "date")]
    pub date: String,
    /// Ingested awards: the award's page on usaspending.gov.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub source_url: Option<String>,
    /// Ingested awards: the recipient as USAspending names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient: Option<String>,
}

/// The award type codes counted ([`AWARD_TYPES`]).
fn award_type_schema() -> serde_json::Value {
    datahost_plugin_api::openapi::schema::string_enum(&AWARD_TYPES)
}

#[derive(Debug, Clone, Deserialize)]
pub struct Company {
    pub name: String,
    pub ticker: String,
    pub awards: Vec<Award>,
}

pub type Snapshot = companies::Snapshot<Company>;

/// A company's figures over the in-window awards only.
pub struct Entry {
    pub name: String,
    pub ticker: String,
    pub total_obligated_usd: f64,
    pub award_count: usize,
    /// The largest in-window awards, amount descending, at most [`TOP_AWARDS`].
    pub top_awards: Vec<Award>,
}

/// Whether an award counts: an A-D type code and an action date in fiscal year 2024 or later.
pub fn in_window(award: &Award, start: NaiveDate) -> Result<bool, LoadError> {
    let date = parse_date(&award.date)
        .ok_or_else(|| LoadError::BadDate { award_id: award.award_id.clone(), date: award.date.clone() })?;
    Ok(date >= start && AWARD_TYPES.contains(&award.award_type.as_str()))
}

impl Entry {
    pub fn new(company: Company) -> Result<Self, LoadError> {
        let start = parse_date(WINDOW_START).expect("constant date");
        let mut awards = Vec::new();
        for award in company.awards {
            if in_window(&award, start)? {
                awards.push(award);
            }
        }
        let total: f64 = awards.iter().map(|a| a.amount).sum();
        awards.sort_by(|a, b| {
            b.amount.total_cmp(&a.amount).then_with(|| b.date.cmp(&a.date)).then_with(|| a.award_id.cmp(&b.award_id))
        });
        let award_count = awards.len();
        awards.truncate(TOP_AWARDS);
        Ok(Self {
            name: company.name,
            ticker: company.ticker,
            // Cents, so float summation noise never shows up in the JSON; `+ 0.0` because the sum of no
            // amounts is -0.0, which would be served as `-0.0`.
            total_obligated_usd: (total * 100.0).round() / 100.0 + 0.0,
            award_count,
            top_awards: awards,
        })
    }
}

pub type Index = Dataset<Entry>;

pub fn index(snapshot: Snapshot) -> Result<Index, LoadError> {
    Dataset::build(snapshot, Entry::new, |e| &e.ticker)
}

/// The ingested document: `{ingested, awards: [AwardRecord]}`.
#[derive(Deserialize)]
struct IngestedDoc {
    ingested: IngestedInfo,
    #[serde(default)]
    awards: Vec<AwardRecord>,
}

/// Reads the host's document: the ingested awards once there are any, else the demo seed.
pub fn load(host: &Host) -> Result<Index, LoadError> {
    match companies::read_document::<Company, IngestedDoc>(host, crate::SLUG, "contract awards")? {
        Document::Seed(snapshot) => index(snapshot),
        Document::Ingested(doc) => {
            index(Snapshot { meta: ingested_meta(&doc.ingested), companies: companies_of(doc.awards, host) })
        }
    }
}

/// Why the contracts dataset cannot be loaded (which fails `init`).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Document(#[from] companies::DocumentError),
    /// An award whose action date does not parse, so the window cannot place it.
    #[error("award {award_id} has a bad date `{date}`")]
    BadDate { award_id: String, date: String },
}

/// Awards grouped by the company their recipient (or its parent) is: by the recipient's UEI or its parent's
/// UEI when another award ties that UEI to a company, else by the recipient's or parent's name through the
/// host's company list; a recipient no company matches is listed under its own name, without a ticker.
fn companies_of(awards: Vec<AwardRecord>, host: &Host) -> Vec<Company> {
    let mut names: Vec<String> =
        awards.iter().flat_map(|a| [Some(a.recipient_name.clone()), a.parent_name.clone()]).flatten().collect();
    names.sort();
    names.dedup();
    let queries: Vec<CompanyQuery> = names.iter().cloned().map(CompanyQuery::Name).collect();
    let resolved: BTreeMap<String, datahost_plugin_api::reference::CompanyRef> = match host.resolve_companies(&queries)
    {
        Ok(answers) => names.into_iter().zip(answers).filter_map(|(n, a)| Some((n, a?))).collect(),
        Err(e) => {
            host.log(LogLevel::Warn, &format!("contracts: recipients not resolved to companies: {e}"));
            BTreeMap::new()
        }
    };
    // What each UEI is, learned from the awards whose recipient or parent name resolved: a recipient whose
    // own name matches no company is still that company's when its UEI or its parent's UEI is known to be.
    let by_name = |a: &AwardRecord| {
        resolved.get(&a.recipient_name).or_else(|| a.parent_name.as_ref().and_then(|p| resolved.get(p)))
    };
    let mut by_uei: BTreeMap<&str, &datahost_plugin_api::reference::CompanyRef> = BTreeMap::new();
    for a in &awards {
        if let Some(c) = resolved.get(&a.recipient_name) {
            by_uei.entry(a.recipient_uei.as_str()).or_insert(c);
        }
        if let (Some(uei), Some(c)) = (&a.parent_uei, a.parent_name.as_ref().and_then(|p| resolved.get(p))) {
            by_uei.entry(uei.as_str()).or_insert(c);
        }
    }
    by_uei.remove("");
    let by_uei: BTreeMap<String, datahost_plugin_api::reference::CompanyRef> =
        by_uei.into_iter().map(|(u, c)| (u.to_string(), c.clone())).collect();
    let of = |a: &AwardRecord| {
        by_uei
            .get(&a.recipient_uei)
            .or_else(|| a.parent_uei.as_ref().and_then(|u| by_uei.get(u)))
            .or_else(|| by_name(a))
            .cloned()
    };
    // Keyed by ticker for a resolved company, else by the recipient's UEI (or name).
    let mut by_company: BTreeMap<String, Company> = BTreeMap::new();
    for a in awards {
        let company = of(&a);
        let company = company.as_ref();
        let (key, name, ticker) = match company {
            Some(c) if !c.ticker.is_empty() => (format!("ticker:{}", c.ticker), c.name.clone(), c.ticker.clone()),
            _ => {
                let id = if a.recipient_uei.is_empty() { a.recipient_name.clone() } else { a.recipient_uei.clone() };
                (format!("recipient:{id}"), a.recipient_name.clone(), String::new())
            }
        };
        let entry = by_company.entry(key).or_insert_with(|| Company { name, ticker, awards: Vec::new() });
        entry.awards.push(Award {
            award_id: a.award_id,
            award_type: a.award_type,
            amount: a.amount,
            agency: a.agency,
            description: a.description,
            date: a.date,
            source_url: Some(a.source_url),
            recipient: Some(a.recipient_name),
        });
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
        source: "USAspending.gov prime contract awards (spending_by_award search results and award details), \
                 ingested from the official API responses"
            .into(),
        source_url: "https://www.usaspending.gov/search".into(),
        caveat: "Figures cover fiscal year 2024 to present (award start dates from 2023-10-01) for contract award \
                 type codes A, B, C and D; IDVs, assistance awards and earlier awards are held but not counted. \
                 Amounts are the award's total obligations as USAspending reports them. Recipients are matched to a \
                 company by their UEI or their parent's UEI when another award ties that UEI to a company, else by \
                 their own or their parent's name through the SEC company list; a recipient no company \
                 matches is listed under its own name without a ticker, and subsidiaries filing under other names \
                 may be missed."
            .into(),
    }
}
