//! The contracts snapshot (companies with their award records) and the per-company figures computed from
//! it once at load: only awards inside SPEC's window count.

use chrono::NaiveDate;
use datahost_plugin_api::companies::{self, Dataset};
use datahost_plugin_api::params::parse_date;
use serde::{Deserialize, Serialize};

/// First day of fiscal year 2024 (U.S. federal fiscal years start on October 1 of the prior calendar year).
pub const WINDOW_START: &str = "2023-10-01";
pub const WINDOW_FISCAL_YEAR: i32 = 2024;
/// Contract award type codes SPEC counts: BPA call, purchase order, delivery order, definitive contract.
/// Indefinite-delivery vehicles (IDV_*) and assistance awards (grants, loans: numeric codes) are left out.
pub const AWARD_TYPES: [&str; 4] = ["A", "B", "C", "D"];
/// How many of the largest awards each company lists.
pub const TOP_AWARDS: usize = 5;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Award {
    pub award_id: String,
    pub award_type: String,
    pub amount: f64,
    pub agency: String,
    pub description: String,
    pub date: String,
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
pub fn in_window(award: &Award, start: NaiveDate) -> Result<bool, String> {
    let date =
        parse_date(&award.date).ok_or_else(|| format!("award {} has a bad date `{}`", award.award_id, award.date))?;
    Ok(date >= start && AWARD_TYPES.contains(&award.award_type.as_str()))
}

impl Entry {
    pub fn new(company: Company) -> Result<Self, String> {
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
            // Cents, so float summation noise never shows up in the JSON.
            total_obligated_usd: (total * 100.0).round() / 100.0,
            award_count,
            top_awards: awards,
        })
    }
}

pub type Index = Dataset<Entry>;

pub fn index(snapshot: Snapshot) -> Result<Index, String> {
    Dataset::build(snapshot, Entry::new, |e| &e.ticker)
}
