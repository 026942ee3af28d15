//! The donors snapshot (companies with their PAC's individual contributions) and the per-company totals
//! computed from it once at load. The demo seed deserialises straight into [`Company`] (fictional companies
//! with `DEMO-C####` committee ids); ingested FEC records are turned into the same type by `pacs.rs`, with their
//! [`Provenance`].

use datahost_plugin_api::ApiSchema;
use datahost_plugin_kit::companies::{self, Dataset};
use serde::{Deserialize, Serialize};

use crate::error::LoadError;

/// One contribution from a company's PAC to a federal candidate: what the totals need. The snapshot also
/// holds each contribution's `recipient`, `office`, `state` and `date`, which the endpoint does not report.
#[derive(Debug, Clone, Deserialize)]
pub struct Contribution {
    /// `D`, `R`, `I` or `other`; for ingested records also `unknown` (the recipient's party could not be
    /// determined). Only `D` and `R` have a share.
    pub party: String,
    pub amount: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Company {
    pub name: String,
    pub ticker: String,
    pub pac_name: String,
    pub committee_id: String,
    pub cycle: String,
    pub note: String,
    pub contributions: Vec<Contribution>,
    /// Where the figures come from; ingested records only.
    #[serde(skip)]
    pub provenance: Option<Provenance>,
}

/// What an ingested company entry adds: how to check it at the FEC and how the company was matched.
#[derive(Debug, Clone, PartialEq, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "DonorsProvenance")]
pub struct Provenance {
    /// The committee's page on fec.gov (ingested data).
    #[schema(format = "uri")]
    pub source_url: String,
    /// CONNECTED_ORG_NM as filed; may be empty (ingested data).
    pub connected_organization: String,
    /// SEC CIK of the matched company, 10 digits; null when none matched.
    pub cik: Option<String>,
    /// Which filed name matched the company; null when none did.
    pub matched_by: Option<MatchedBy>,
    /// Contributions whose recipient's party could not be determined (in the total, in neither share).
    pub unattributed_usd: f64,
    /// The FEC reports the contributions were read from (ingested data).
    pub reports: Vec<ReportRef>,
}

/// Which of the committee's filed names matched the company.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "DonorsMatchedBy")]
pub enum MatchedBy {
    /// CONNECTED_ORG_NM, the connected organization.
    ConnectedOrganization,
    /// The committee's own name, less its PAC words.
    CommitteeName,
}

/// One FEC report the contributions were read from.
#[derive(Debug, Clone, PartialEq, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "DonorsReport")]
pub struct ReportRef {
    /// FEC FILE_NUM of the report.
    pub file_number: String,
    /// The report on docquery.fec.gov.
    #[schema(format = "uri")]
    pub url: String,
}

pub type Snapshot = companies::Snapshot<Company>;

/// What the endpoint reports about one company's contributions.
#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    pub total_usd: f64,
    pub dem_pct: f64,
    pub rep_pct: f64,
    pub count: usize,
}

impl Totals {
    /// Party shares are percentages of the total with one decimal; money to independents and other parties
    /// is in the total but in neither share, so the two need not add up to 100.
    pub fn of(contributions: &[Contribution]) -> Self {
        let total: f64 = contributions.iter().map(|c| c.amount).sum();
        let share = |party: &str| {
            let sum: f64 = contributions.iter().filter(|c| c.party.eq_ignore_ascii_case(party)).map(|c| c.amount).sum();
            if total > 0.0 {
                (sum / total * 1000.0).round() / 10.0
            } else {
                0.0
            }
        };
        Self { total_usd: total, dem_pct: share("D"), rep_pct: share("R"), count: contributions.len() }
    }
}

pub struct Entry {
    pub company: Company,
    pub totals: Totals,
}

impl Entry {
    /// An entry of ingested FEC records: its committee id must have the FEC form.
    pub fn new(company: Company) -> Result<Self, LoadError> {
        Self::checked(company, is_committee_id, "the FEC form C00123456")
    }

    /// An entry of the demo seed: its committee id must be a demo id, so a demo row can never pass for an FEC
    /// committee.
    fn demo(company: Company) -> Result<Self, LoadError> {
        Self::checked(company, is_demo_committee_id, "the demo form DEMO-C0001")
    }

    fn checked(company: Company, id_rule: fn(&str) -> bool, form: &'static str) -> Result<Self, LoadError> {
        if !id_rule(&company.committee_id) {
            let (ticker, id) = (company.ticker.clone(), company.committee_id.clone());
            return Err(LoadError::CommitteeId { ticker, id, form });
        }
        Ok(Self { totals: Totals::of(&company.contributions), company })
    }
}

pub type Index = Dataset<Entry>;

/// The index of the demo seed (ingested records go through `pacs::index`).
pub fn index(snapshot: Snapshot) -> Result<Index, LoadError> {
    Dataset::build(snapshot, Entry::demo, |e| &e.company.ticker)
}

/// Demo committee ids are `DEMO-C` and four digits: never of the FEC form (`C` and eight digits).
pub fn is_demo_committee_id(id: &str) -> bool {
    id.strip_prefix("DEMO-C").is_some_and(|n| n.len() == 4 && n.bytes().all(|b| b.is_ascii_digit()))
}

pub use crate::records::is_committee_id;
