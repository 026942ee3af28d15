//! The dataset as the host serves it, and the per-company counts computed from it once at load. Two documents,
//! never mixed:
//! - the demo seed: `{meta, companies: [{name, ticker, assigneeMatched, note, grants: [...]}]}`, counted
//!   relative to `meta.generatedAt`;
//! - once PatentsView files are ingested: `{ingested, patents: [PatentRecord], assignees: [AssigneeRecord]}`
//!   (see `records.rs`). Grants are counted per first assignee (`sequence` 0), relative to the latest grant
//!   date held, and each first-assignee organization is resolved to a listed company through the host.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{Months, NaiveDate};
use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::params::parse_date;
use datahost_plugin_api::reference::{CompanyQuery, CompanyRef};
use datahost_plugin_api::{ApiSchema, Host, HostError, LogLevel};
use datahost_plugin_kit::companies::{Companies, CompaniesMeta};
use serde::{Deserialize, Serialize};

use crate::records::{AssigneeRecord, PatentRecord, SOURCE_URL};

/// One granted patent of the demo seed. The seed also holds each grant's `title`, which is not reported.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    pub patent_number: String,
    pub grant_date: String,
    pub first_applicant: String,
}

/// One company of the demo seed.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Company {
    pub name: String,
    pub ticker: String,
    pub assignee_matched: String,
    pub note: String,
    pub grants: Vec<Grant>,
}

#[derive(Debug, Clone, Deserialize)]
struct SeedSnapshot {
    meta: CompaniesMeta,
    companies: Vec<Company>,
}

#[derive(Debug, Deserialize)]
struct IngestedSnapshot {
    ingested: IngestedInfo,
    #[serde(default)]
    patents: Vec<PatentRecord>,
    #[serde(default)]
    assignees: Vec<AssigneeRecord>,
}

/// An inclusive range of calendar days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ApiSchema)]
#[schema(name = "PatentsPeriod")]
pub struct Period {
    /// First day counted.
    pub start: NaiveDate,
    /// Last day counted.
    pub end: NaiveDate,
}

impl Period {
    pub fn contains(&self, day: NaiveDate) -> bool {
        self.start <= day && day <= self.end
    }
}

/// The two counting windows: last 12 months = (asOf - 12 months, asOf], prior = the 12 months before that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PatentsWindows")]
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

    /// Adds one grant of `day` to the window counts it falls in.
    fn tally(&self, day: NaiveDate, counts: &mut (usize, usize)) {
        if self.last.contains(day) {
            counts.0 += 1;
        } else if self.prior.contains(day) {
            counts.1 += 1;
        }
    }
}

/// First-applicant matching of the seed: the same name as a single entity, ignoring case and runs of
/// whitespace. Subsidiaries and affiliates filing under their own names deliberately do not match.
pub fn same_applicant(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    norm(a) == norm(b)
}

/// A grant behind a company's counts, with its public page (ingested data only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PatentsGrant")]
pub struct GrantRef {
    /// USPTO patent number as PatentsView writes it.
    pub patent_number: String,
    /// Grant date.
    #[schema(format = "date")]
    pub grant_date: String,
    /// Patent title; null when the source file does not give it.
    pub title: Option<String>,
    /// The patent's public page.
    #[schema(format = "uri")]
    pub source_url: String,
}

/// What ingested data adds to a company.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestedDetail {
    /// The SEC CIK of the resolved company; `None` when no listed company matched the assignee name.
    pub cik: Option<String>,
    /// Every first-assignee name counted for the company, most grants first.
    pub assignee_names: Vec<String>,
    /// Every counted grant held, whatever its date.
    pub grants_held: usize,
    /// The newest counted grants (at most [`RECENT_GRANTS`]).
    pub recent_grants: Vec<GrantRef>,
    /// Patents first-assigned to these names whose grant record (`g_patent` row) is not ingested yet.
    pub awaiting_grant_record: usize,
}

/// How many of a company's newest grants are served as evidence.
pub const RECENT_GRANTS: usize = 10;

/// One company as served.
pub struct Entry {
    pub name: String,
    pub ticker: String,
    pub assignee_matched: String,
    pub note: String,
    pub granted_last_12mo: usize,
    pub granted_prior_12mo: usize,
    pub ingested: Option<IngestedDetail>,
}

impl Entry {
    fn from_seed(company: Company, windows: &Windows) -> Result<Self, LoadError> {
        let mut counts = (0, 0);
        for g in &company.grants {
            let day = parse_date(&g.grant_date).ok_or_else(|| LoadError::BadGrantDate {
                patent_number: g.patent_number.clone(),
                grant_date: g.grant_date.clone(),
            })?;
            if same_applicant(&g.first_applicant, &company.assignee_matched) {
                windows.tally(day, &mut counts);
            }
        }
        Ok(Self {
            name: company.name,
            ticker: company.ticker,
            assignee_matched: company.assignee_matched,
            note: company.note,
            granted_last_12mo: counts.0,
            granted_prior_12mo: counts.1,
            ingested: None,
        })
    }
}

/// What the ingested records cover, served as `meta.coverage`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    /// Grant records held (`g_patent` rows or API patents with a grant date).
    pub patents: usize,
    /// Assignee rows held (`g_assignee_disambiguated` rows or API assignees).
    pub assignee_rows: usize,
    /// Grants counted for some first-assignee organization.
    pub counted_grants: usize,
    /// Patents the source marks withdrawn: never counted.
    pub withdrawn: usize,
    /// Grants whose first assignee is an individual, not an organization: not counted.
    pub first_assignee_individual: usize,
    /// Grants with no assignee row at all: unassigned grants, or grants whose assignee rows are not ingested.
    pub without_assignee_rows: usize,
    /// Grants with assignee rows but none with sequence 0.
    pub without_first_assignee: usize,
    /// Patents with assignee rows but no grant record yet (their `g_patent` rows are not ingested): waiting,
    /// not counted.
    pub awaiting_grant_record: usize,
    /// First-assignee organizations that no listed company matched: left out of `companies`, unless none
    /// matched at all (then every organization is served under its own name).
    pub unmatched_assignees: usize,
}

/// The `meta` block: the shared company-dataset fields, the counting windows, and for ingested data how the
/// counts were made and what they cover.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    #[serde(flatten)]
    pub base: CompaniesMeta,
    pub windows: Windows,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The day the windows end at: the latest grant date held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<NaiveDate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
}

pub struct Index {
    pub meta: Meta,
    pub companies: Companies<Entry>,
}

/// Loads the dataset from the host: the ingested records when there are any, else the demo seed.
pub fn load(host: &Host, dataset: &str) -> Result<Index, LoadError> {
    let doc: serde_json::Value = host.load_dataset(dataset)?;
    let schema_error = |source| LoadError::Schema { dataset: dataset.to_string(), source };
    if doc.get(INGESTED_KEY).is_some() {
        let ingested: IngestedSnapshot = serde_json::from_value(doc).map_err(schema_error)?;
        Ok(from_ingested(ingested, host))
    } else {
        from_seed(serde_json::from_value(doc).map_err(schema_error)?)
    }
}

/// Why the patents dataset cannot be loaded (which fails `init`).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Host(#[from] HostError),
    /// The document (seed or ingested records) does not read as the dataset.
    #[error("dataset `{dataset}` does not match its schema: {source}")]
    Schema { dataset: String, source: serde_json::Error },
    /// The seed's date ends the counting windows.
    #[error("meta.generatedAt `{0}` is not a date")]
    BadGeneratedAt(String),
    #[error("grant {patent_number} has a bad grantDate `{grant_date}`")]
    BadGrantDate { patent_number: String, grant_date: String },
}

fn from_seed(seed: SeedSnapshot) -> Result<Index, LoadError> {
    let windows = seed
        .meta
        .generated_date()
        .and_then(Windows::ending)
        .ok_or_else(|| LoadError::BadGeneratedAt(seed.meta.generated_at.clone()))?;
    let entries = seed.companies.into_iter().map(|c| Entry::from_seed(c, &windows)).collect::<Result<Vec<_>, _>>()?;
    Ok(Index {
        meta: Meta { base: seed.meta, windows, method: None, as_of: None, coverage: None },
        companies: Companies::new(entries, |e| &e.ticker),
    })
}

/// The grants counted for one first-assignee organization name, and its patents still waiting for their
/// grant record.
#[derive(Default)]
struct OrgGrants<'a> {
    counts: (usize, usize),
    grants: Vec<&'a PatentRecord>,
    awaiting: usize,
}

/// An organization name with its grants.
type NamedGrants<'a> = (&'a str, OrgGrants<'a>);

fn from_ingested(doc: IngestedSnapshot, host: &Host) -> Index {
    let mut coverage =
        Coverage { patents: doc.patents.len(), assignee_rows: doc.assignees.len(), ..Default::default() };
    let patent_ids: HashSet<&str> = doc.patents.iter().map(|p| p.patent_id.as_str()).collect();
    let mut rows_by_patent: HashMap<&str, Vec<&AssigneeRecord>> = HashMap::new();
    for row in &doc.assignees {
        rows_by_patent.entry(row.patent_id.as_str()).or_default().push(row);
    }
    let mut by_org: BTreeMap<&str, OrgGrants<'_>> = BTreeMap::new();
    for (_, rows) in rows_by_patent.iter().filter(|(id, _)| !patent_ids.contains(*id)) {
        coverage.awaiting_grant_record += 1;
        if let Some(org) = rows.iter().find(|r| r.sequence == 0).and_then(|r| r.organization.as_deref()) {
            by_org.entry(org).or_default().awaiting += 1;
        }
    }

    // The parser stores only valid dates; a record that does not parse (edited by hand) is left out, and said.
    let granted = doc.patents.iter().filter(|p| p.withdrawn != Some(true));
    let dated: Vec<(NaiveDate, &PatentRecord)> =
        granted.clone().filter_map(|p| parse_date(&p.patent_date).map(|d| (d, p))).collect();
    let undated = granted.count() - dated.len();
    if undated > 0 {
        host.log(
            LogLevel::Warn,
            &format!("patents: {undated} stored grant record(s) with a patent_date that is not YYYY-MM-DD left out"),
        );
    }
    coverage.withdrawn = doc.patents.iter().filter(|p| p.withdrawn == Some(true)).count();
    let as_of = dated.iter().map(|(d, _)| *d).max();
    // With no dated grant held (only assignee rows so far) every count is zero whatever the windows; they
    // then end at the last ingest, or today.
    let end = as_of
        .or_else(|| doc.ingested.last_ingest_at.get(..10).and_then(parse_date))
        .unwrap_or_else(|| chrono::Utc::now().date_naive());
    // Month arithmetic fails only some 262,000 years from now; a one-day window then keeps init alive.
    let windows =
        Windows::ending(end).unwrap_or(Windows { last: Period { start: end, end }, prior: Period { start: end, end } });

    for (day, patent) in &dated {
        let rows = rows_by_patent.get(patent.patent_id.as_str());
        let first = rows.and_then(|rows| rows.iter().find(|r| r.sequence == 0));
        match (rows, first) {
            (None, _) => coverage.without_assignee_rows += 1,
            (Some(_), None) => coverage.without_first_assignee += 1,
            (Some(_), Some(row)) => match &row.organization {
                None => coverage.first_assignee_individual += 1,
                Some(org) => {
                    coverage.counted_grants += 1;
                    let entry = by_org.entry(org.as_str()).or_default();
                    windows.tally(*day, &mut entry.counts);
                    entry.grants.push(patent);
                }
            },
        }
    }

    let orgs: Vec<NamedGrants<'_>> = by_org.into_iter().collect();
    let resolved = resolve(host, orgs.iter().map(|(name, _)| *name));
    let any_resolved = resolved.iter().any(Option::is_some);
    let mut companies: BTreeMap<String, (CompanyRef, Vec<NamedGrants<'_>>)> = BTreeMap::new();
    let mut unmatched = Vec::new();
    for ((name, grants), company) in orgs.into_iter().zip(resolved) {
        match company {
            Some(company) => {
                companies.entry(company.cik.clone()).or_insert_with(|| (company, Vec::new())).1.push((name, grants))
            }
            None => unmatched.push((name, grants)),
        }
    }
    coverage.unmatched_assignees = unmatched.len();
    let mut entries: Vec<Entry> =
        companies.into_values().map(|(company, names)| ingested_entry(Some(company), names)).collect();
    if !any_resolved {
        // No listed company matched any name (typically: the companies reference is not ingested). Serve what
        // the records themselves say, each organization under its own name with no ticker.
        entries = unmatched.into_iter().map(|org| ingested_entry(None, vec![org])).collect();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
    }
    let meta = ingested_meta(&doc.ingested, windows, as_of, coverage, any_resolved);
    Index { meta, companies: Companies::new(entries, |e| &e.ticker) }
}

/// Resolves organization names to listed companies through the host, one answer per name (all `None` when
/// the host cannot answer).
fn resolve<'a>(host: &Host, names: impl Iterator<Item = &'a str>) -> Vec<Option<CompanyRef>> {
    let queries: Vec<CompanyQuery> = names.map(|n| CompanyQuery::Name(n.to_string())).collect();
    if queries.is_empty() {
        return Vec::new();
    }
    match host.resolve_companies(&queries) {
        Ok(answers) if answers.len() == queries.len() => answers,
        Ok(answers) => {
            host.log(
                LogLevel::Warn,
                &format!("patents: the company resolver gave {} answers to {} names", answers.len(), queries.len()),
            );
            vec![None; queries.len()]
        }
        Err(e) => {
            host.log(LogLevel::Warn, &format!("patents: the company resolver did not answer: {e}"));
            vec![None; queries.len()]
        }
    }
}

/// One served company from the organization names counted for it (`company` is `None` for an organization
/// no listed company matched).
fn ingested_entry(company: Option<CompanyRef>, mut names: Vec<NamedGrants<'_>>) -> Entry {
    names.sort_by(|a, b| (b.1.grants.len(), b.1.awaiting).cmp(&(a.1.grants.len(), a.1.awaiting)).then(a.0.cmp(b.0)));
    let matched = names.first().map(|(n, _)| n.to_string()).unwrap_or_default();
    let mut grants: Vec<&PatentRecord> = names.iter().flat_map(|(_, g)| g.grants.iter().copied()).collect();
    grants.sort_by(|a, b| (&b.patent_date, &b.patent_id).cmp(&(&a.patent_date, &a.patent_id)));
    let counts = names.iter().fold((0, 0), |acc, (_, g)| (acc.0 + g.counts.0, acc.1 + g.counts.1));
    let awaiting: usize = names.iter().map(|(_, g)| g.awaiting).sum();
    let others: Vec<String> = names.iter().skip(1).map(|(n, _)| format!("`{n}`")).collect();
    let mut note =
        format!("Counted on first-assignee name `{matched}` (PatentsView organization, assignee_sequence 0)");
    if !others.is_empty() {
        note.push_str(&format!(", also spelled {}", others.join(", ")));
    }
    match &company {
        Some(c) => note.push_str(&format!(
            ", matched by name to {} (CIK {}). Grants first-assigned under other names (subsidiaries) are not counted.",
            c.name, c.cik
        )),
        None => note.push_str(". No listed company matched this name, so the ticker is empty."),
    }
    if awaiting > 0 {
        note.push_str(&format!(
            " {awaiting} more patents first-assigned to this name wait for their grant record (g_patent row) and \
             are not counted yet."
        ));
    }
    Entry {
        name: company.as_ref().map(|c| c.name.clone()).unwrap_or_else(|| matched.clone()),
        ticker: company.as_ref().map(|c| c.ticker.clone()).unwrap_or_default(),
        assignee_matched: matched,
        note,
        granted_last_12mo: counts.0,
        granted_prior_12mo: counts.1,
        ingested: Some(IngestedDetail {
            cik: company.map(|c| c.cik),
            assignee_names: names.iter().map(|(n, _)| n.to_string()).collect(),
            grants_held: grants.len(),
            recent_grants: grants
                .iter()
                .take(RECENT_GRANTS)
                .map(|p| GrantRef {
                    patent_number: p.patent_id.clone(),
                    grant_date: p.patent_date.clone(),
                    title: p.patent_title.clone(),
                    source_url: p.source_url.clone(),
                })
                .collect(),
            awaiting_grant_record: awaiting,
        }),
    }
}

fn ingested_meta(
    info: &IngestedInfo,
    windows: Windows,
    as_of: Option<NaiveDate>,
    coverage: Coverage,
    any_resolved: bool,
) -> Meta {
    let generated_at = if info.last_ingest_at.is_empty() {
        as_of.map(|d| d.to_string()).unwrap_or_default()
    } else {
        info.last_ingest_at.clone()
    };
    let listing = if any_resolved {
        "Companies are the listed companies (SEC company list, through the host's companies reference) whose \
         name matches a first-assignee organization; organizations no listed company matched are left out and \
         counted in meta.coverage.unmatchedAssignees."
    } else {
        "No first-assignee organization matched a listed company (is the companies reference ingested?), so \
         every organization is listed under its own name with an empty ticker."
    };
    Meta {
        base: CompaniesMeta {
            generated_at,
            source: format!(
                "PatentsView (USPTO) granted-patent data: {} grant records and {} assignee rows from {} ingested \
                 files",
                coverage.patents, coverage.assignee_rows, info.files
            ),
            source_url: SOURCE_URL.to_string(),
            caveat: format!(
                "Counts match on first-applicant name as a single entity (the first assignee, assignee_sequence 0, \
                 as PatentsView disambiguated it), so subsidiaries filing under other names may be undercounted. \
                 The 12-month windows end at asOf, the latest grant date held ({}), not at today: with historic \
                 files today's windows would be empty. Grants are counted only when both the patent (g_patent) and \
                 its assignees (g_assignee_disambiguated) are ingested; meta.coverage says how many wait for the \
                 other table. {listing}",
                as_of.map(|d| d.to_string()).unwrap_or_else(|| "none".to_string())
            ),
        },
        windows,
        method: Some(
            "Grant records from PatentsView g_patent.tsv or PatentSearch API patents (patent_date as filed); \
             assignee rows from g_assignee_disambiguated.tsv or the API's assignees. Each grant not marked \
             withdrawn is counted once, for the organization named by its first assignee (assignee_sequence 0), \
             in the last 12 months (asOf - 12 months, asOf] or the 12 months before. Organization names are \
             resolved to companies by the host's name match (legal-form words, case and punctuation ignored); \
             spellings that resolve to the same company are summed."
                .to_string(),
        ),
        as_of,
        coverage: Some(coverage),
    }
}
