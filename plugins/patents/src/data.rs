//! The patents snapshot (companies with their grant records) and the per-company counts computed from it
//! once at load, relative to the snapshot's `generatedAt`.

use chrono::{Months, NaiveDate};
use datahost_plugin_api::companies::{self, Dataset};
use datahost_plugin_api::params::parse_date;
use serde::{Deserialize, Serialize};

/// One granted patent. The snapshot also holds each grant's `title`, which the endpoint does not report.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    pub patent_number: String,
    pub grant_date: String,
    pub first_applicant: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Company {
    pub name: String,
    pub ticker: String,
    pub assignee_matched: String,
    pub note: String,
    pub grants: Vec<Grant>,
}

pub type Snapshot = companies::Snapshot<Company>;

/// An inclusive range of calendar days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Period {
    pub start: NaiveDate,
    pub end: NaiveDate,
}

impl Period {
    pub fn contains(&self, day: NaiveDate) -> bool {
        self.start <= day && day <= self.end
    }
}

/// The two counting windows: last 12 months = (asOf - 12 months, asOf], prior = the 12 months before that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Windows {
    #[serde(rename = "last12mo")]
    pub last: Period,
    #[serde(rename = "prior12mo")]
    pub prior: Period,
}

impl Windows {
    pub fn ending(as_of: NaiveDate) -> Option<Self> {
        let year_ago = as_of.checked_sub_months(Months::new(12))?;
        let two_years_ago = as_of.checked_sub_months(Months::new(24))?;
        Some(Self {
            last: Period { start: year_ago.succ_opt()?, end: as_of },
            prior: Period { start: two_years_ago.succ_opt()?, end: year_ago },
        })
    }
}

/// First-applicant matching: the same name as a single entity, ignoring case and runs of whitespace.
/// Subsidiaries and affiliates filing under their own names deliberately do not match.
pub fn same_applicant(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    norm(a) == norm(b)
}

pub struct Entry {
    pub company: Company,
    pub granted_last_12mo: usize,
    pub granted_prior_12mo: usize,
}

impl Entry {
    pub fn new(company: Company, windows: &Windows) -> Result<Self, String> {
        let (mut last, mut prior) = (0, 0);
        for g in &company.grants {
            let day = parse_date(&g.grant_date)
                .ok_or_else(|| format!("grant {} has a bad grantDate `{}`", g.patent_number, g.grant_date))?;
            if !same_applicant(&g.first_applicant, &company.assignee_matched) {
                continue;
            }
            if windows.last.contains(day) {
                last += 1;
            } else if windows.prior.contains(day) {
                prior += 1;
            }
        }
        Ok(Self { company, granted_last_12mo: last, granted_prior_12mo: prior })
    }
}

pub struct Index {
    pub dataset: Dataset<Entry>,
    pub windows: Windows,
}

pub fn index(snapshot: Snapshot) -> Result<Index, String> {
    let windows = snapshot
        .meta
        .generated_date()
        .and_then(Windows::ending)
        .ok_or_else(|| format!("meta.generatedAt `{}` is not a date", snapshot.meta.generated_at))?;
    let dataset = Dataset::build(snapshot, |c| Entry::new(c, &windows), |e| &e.company.ticker)?;
    Ok(Index { dataset, windows })
}
