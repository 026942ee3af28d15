//! The 13F filings served (from the demo seed, or built from ingested records by `records.rs`) and the
//! index built from them once at load: each filer's latest filing, holdings sorted by value, the total over
//! all of them, and the lookups by CIK and by name.

use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::openapi::schema;
use datahost_plugin_api::reference::CompanyRef;
use datahost_plugin_api::{ApiSchema, BoxError};
use serde::{Deserialize, Serialize};

use crate::error::LoadError;
use crate::records::VotingAuthority;

/// One position. The optional fields exist for ingested filings only (the seed has none of them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Holding {
    pub name_of_issuer: String,
    pub title_of_class: String,
    pub cusip: String,
    pub value_usd: u64,
    pub shares: u64,
    /// `Put`, `Call`, or null for a plain position.
    pub put_call: Option<String>,
    /// `SH` or `PRN`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shares_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub investment_discretion: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voting_authority: Option<VotingAuthority>,
    /// The filing the row comes from (differs from the served filing's for a NEW HOLDINGS amendment's rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accession: Option<String>,
    /// The issuing company as the host's company list names it, when the issuer name resolves there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<CompanyRef>,
}

/// A NEW HOLDINGS amendment whose rows are merged into the served filing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "InstitutionalHoldingsAmendment")]
pub struct AmendmentRef {
    pub accession: String,
    pub form: String,
    #[schema(with = new_holdings_schema)]
    pub amendment_type: String,
    #[schema(format = "date")]
    pub filed_date: String,
    #[schema(format = "uri")]
    pub source_url: String,
}

fn new_holdings_schema() -> serde_json::Value {
    schema::string_enum(&["NEW HOLDINGS"])
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filing {
    pub cik: String,
    pub filer: String,
    pub accession: String,
    pub form: String,
    pub period_of_report: String,
    pub filed_date: String,
    pub holdings: Vec<Holding>,
    /// `RESTATEMENT` when the served filing is a 13F-HR/A restating the quarter.
    #[serde(default)]
    pub amendment_type: Option<String>,
    /// `dollars` or `thousands`: the unit the filing reported its values in (valueUsd is always dollars).
    #[serde(default)]
    pub value_unit: Option<String>,
    #[serde(default)]
    pub value_unit_reason: Option<String>,
    #[serde(default)]
    pub source_url: Option<String>,
    #[serde(default)]
    pub amendments: Vec<AmendmentRef>,
    /// Rows of the information table that could not be read at ingest (so the list is incomplete).
    #[serde(default)]
    pub unread_rows: Option<usize>,
    /// The information tables' total as their summary pages report it, in dollars (ingested covers only):
    /// what ranks filers of equal name match while their rows stay in the records engine's table.
    #[serde(skip)]
    pub reported_total_usd: Option<u64>,
}

/// Where the served data comes from.
// `method` and `ingested` are present for ingested data only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "InstitutionalHoldingsMeta")]
pub struct Meta {
    #[schema(format = "date-time")]
    pub generated_at: String,
    /// Where the data comes from; says so when it is demo data.
    pub source: String,
    #[schema(format = "uri")]
    pub source_url: String,
    /// Ingested data: how the official files were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub caveat: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(with = ingested_schema)]
    pub ingested: Option<IngestedInfo>,
}

fn ingested_schema() -> serde_json::Value {
    use schema::{describe, integer, object, string};
    describe(
        object(&[("rows", integer()), ("files", integer()), ("lastIngestAt", string())]),
        "Ingested data: what the records engine holds.",
    )
}

/// The seed document: `{meta, filings}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub meta: Meta,
    pub filings: Vec<Filing>,
}

/// A filer and its latest filing (by period of report, then filing date).
pub struct Filer {
    pub name_lower: String,
    /// Holdings sorted by value, largest first.
    pub latest: Filing,
    /// Sum of `valueUsd` over every holding of the latest filing, however many a response lists.
    pub total_value_usd: u64,
}

/// How a `q` matched a filer name, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NameMatch {
    Exact,
    Prefix,
    Contains,
}

pub struct Index {
    pub meta: Meta,
    /// Sorted by CIK.
    pub filers: Vec<Filer>,
    /// Set when the holdings stay in the records engine's table (ingested data): each request reads the rows
    /// of the filing it serves (`records.query` by accession) instead of holding them all in memory.
    pub table: Option<datahost_plugin_api::Host>,
}

impl Index {
    pub fn new(meta: Meta, filings: Vec<Filing>) -> Result<Self, LoadError> {
        let mut latest: std::collections::BTreeMap<String, Filing> = Default::default();
        for filing in filings {
            validate(&filing)?;
            let key = |f: &Filing| (f.period_of_report.clone(), f.filed_date.clone(), f.accession.clone());
            match latest.get(&filing.cik) {
                Some(seen) if key(seen) >= key(&filing) => {}
                _ => {
                    latest.insert(filing.cik.clone(), filing);
                }
            }
        }
        let filers = latest
            .into_values()
            .map(|mut f| {
                f.holdings.sort_by(|a, b| b.value_usd.cmp(&a.value_usd).then_with(|| a.cusip.cmp(&b.cusip)));
                let total = if f.holdings.is_empty() {
                    f.reported_total_usd.unwrap_or_default()
                } else {
                    f.holdings.iter().map(|h| h.value_usd).sum()
                };
                Filer { name_lower: f.filer.to_lowercase(), total_value_usd: total, latest: f }
            })
            .collect();
        Ok(Self { meta, filers, table: None })
    }

    /// The filer's latest filing with its holdings (largest first) and their total: from memory, or, for a
    /// table-backed index, read from the records engine (the served filing and the NEW HOLDINGS amendments
    /// merged into it) with each issuer named through the host's company list.
    pub fn with_holdings<'a>(&self, filer: &'a Filer) -> Result<(std::borrow::Cow<'a, Filing>, u64), BoxError> {
        let Some(host) = self.table.as_ref() else {
            return Ok((std::borrow::Cow::Borrowed(&filer.latest), filer.total_value_usd));
        };
        let f = &filer.latest;
        let accessions: Vec<serde_json::Value> = std::iter::once(f.accession.clone())
            .chain(f.amendments.iter().map(|a| a.accession.clone()))
            .map(serde_json::Value::from)
            .collect();
        let query = datahost_plugin_api::query::RecordsQuery::new(crate::SLUG, crate::records::HOLDINGS)
            .any_of("accession", accessions);
        let page = host.query_records(&query)?;
        if page.truncated {
            return Err(format!("filing {} has more information-table rows than one read returns", f.accession).into());
        }
        let mut rows: Vec<crate::records::HoldingRecord> = page
            .records
            .into_iter()
            .map(serde_json::from_value)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("a stored 13F holding is not readable: {e}"))?;
        rows.sort_by(|a, b| (&a.accession, a.row).cmp(&(&b.accession, b.row)));
        let mut filing = f.clone();
        filing.holdings = rows.into_iter().map(crate::records::HoldingRecord::into_holding).collect();
        filing.holdings.sort_by(|a, b| b.value_usd.cmp(&a.value_usd).then_with(|| a.cusip.cmp(&b.cusip)));
        crate::records::name_holdings(std::slice::from_mut(&mut filing), host);
        let total = filing.holdings.iter().map(|h| h.value_usd).sum();
        Ok((std::borrow::Cow::Owned(filing), total))
    }

    /// The filer with this 10-digit CIK.
    pub fn by_cik(&self, cik: &str) -> Option<&Filer> {
        self.filers.binary_search_by(|f| f.latest.cik.as_str().cmp(cik)).ok().map(|i| &self.filers[i])
    }

    /// The best name match for `q` (case-insensitive): an exact name, else a prefix, else a substring;
    /// among equally good matches the largest filer by total value wins.
    pub fn by_name(&self, q: &str) -> Option<(&Filer, NameMatch)> {
        let q = q.to_lowercase();
        self.filers
            .iter()
            .filter_map(|f| {
                let how = if f.name_lower == q {
                    NameMatch::Exact
                } else if f.name_lower.starts_with(&q) {
                    NameMatch::Prefix
                } else if f.name_lower.contains(&q) {
                    NameMatch::Contains
                } else {
                    return None;
                };
                Some((f, how))
            })
            .min_by(|(a, ha), (b, hb)| ha.cmp(hb).then_with(|| b.total_value_usd.cmp(&a.total_value_usd)))
    }
}

fn validate(f: &Filing) -> Result<(), LoadError> {
    if f.cik.len() != 10 || !f.cik.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LoadError::BadCik { accession: f.accession.clone(), cik: f.cik.clone() });
    }
    if let Some(h) = f.holdings.iter().find(|h| !matches!(h.put_call.as_deref(), None | Some("Put" | "Call"))) {
        let (accession, cusip, put_call) = (f.accession.clone(), h.cusip.clone(), h.put_call.clone());
        return Err(LoadError::BadPutCall { accession, cusip, put_call });
    }
    Ok(())
}
