//! The donors snapshot (companies with their PAC's individual contributions) and the per-company totals
//! computed from it once at load.

use datahost_plugin_api::companies::{self, Dataset};
use serde::Deserialize;

/// One contribution from a company's PAC to a federal candidate: what the totals need. The snapshot also
/// holds each contribution's `recipient`, `office`, `state` and `date`, which the endpoint does not report.
#[derive(Debug, Clone, Deserialize)]
pub struct Contribution {
    /// `D`, `R`, `I` or `other`.
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
    pub fn new(company: Company) -> Result<Self, String> {
        if !is_committee_id(&company.committee_id) {
            let (ticker, id) = (&company.ticker, &company.committee_id);
            return Err(format!("{ticker}: committeeId `{id}` is not of the FEC form C00123456"));
        }
        Ok(Self { totals: Totals::of(&company.contributions), company })
    }
}

pub type Index = Dataset<Entry>;

pub fn index(snapshot: Snapshot) -> Result<Index, String> {
    Dataset::build(snapshot, Entry::new, |e| &e.company.ticker)
}

/// FEC committee ids are `C` followed by eight digits.
pub fn is_committee_id(id: &str) -> bool {
    id.len() == 9 && id.starts_with('C') && id[1..].bytes().all(|b| b.is_ascii_digit())
}
