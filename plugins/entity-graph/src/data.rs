//! The slices of the eight source datasets the graph reads, as lenient serde structs over the bodies their
//! public routes answer (fetched with `route.get`, the answer an owner key gets): only the fields the graph
//! uses, every one of them optional (absent, null or of another JSON type reads as empty), and records (or elements
//! of their nested lists) that are not objects are skipped one by one, counted, and logged. An additive field, or a change in a field the graph does not read, never
//! breaks the graph; a route that fails or answers no record array is reported unavailable and left out (see
//! `graph::build`). Reading the routes, not the stored records, means the graph sees exactly what clients see:
//! the demo seed or the ingested records, whichever the owning plugin serves.
//!
//! Bodies read (SPEC.md shapes plus the additive fields named here):
//! - `/v1/congress-trades?limit=1000`, `/v1/senate-trades?limit=1000`: `{meta, filings: [{member, chamber?,
//!   docId, year, filedDate, sourceUrl?, trades: [{ticker, asset, type, amountRange, date, bundled?}]}]}`
//! - `/v1/insiders`: `{meta, companies: [{ticker, company, cik?, ceo, filings: [{owner, title, code,
//!   accessionNumber, sourceUrl, date, filedDate?}]}]}`
//! - `/v1/lobbying`: `{meta, companies: [{name, ticker, clientName?, year, totalSpendUsd, filingCount,
//!   quarters: [{period, amount}]}]}`
//! - `/v1/contracts`: `{meta, companies: [{name, ticker, totalObligatedUsd, awardCount, topAwards: [{awardId?,
//!   awardType?, amount, agency, description, date}]}]}`
//! - `/v1/donors`: `{meta, companies: [{name, ticker, pacName, committeeId, cycle, totalContributionsUsd, demPct,
//!   repPct, contributionCount?, provenance?: {sourceUrl}}]}`
//! - `/v1/patents`: `{meta, companies: [{name, ticker, assigneeMatched, grantedLast12mo, grantedPrior12mo,
//!   ingested?: {recentGrants: [{patentNumber, grantDate, sourceUrl}]}}]}`
//! - `/internal/institutional-holdings/latest-filings`: `{meta, filings: [{cik, filer, accession, form,
//!   periodOfReport, filedDate, sourceUrl?, holdings: [{nameOfIssuer, titleOfClass, cusip, valueUsd, shares,
//!   putCall, issuer?: {ticker}}]}]}` (each filer's latest filing, whole)

use datahost_plugin_api::Host;
use serde::de::{DeserializeOwned, Deserializer};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::SourceError;

/// A field of any JSON type: the value when it has the expected type, else the default.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<T, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(T::deserialize(v).unwrap_or_default())
}

/// A nested list whose elements are kept when they read and skipped when they do not (a non-array is empty).
/// Skipped elements are counted for [`Doc::records`], which reports them with the records it skipped.
#[derive(Debug, Clone)]
pub struct List<T>(pub Vec<T>);

thread_local! {
    /// Elements of nested lists skipped while this thread reads records: serde gives a `Deserialize` impl no
    /// context to report into, and one [`Doc::records`] call reads its records on one thread.
    static NESTED_SKIPPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<T> std::ops::Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(List(match Value::deserialize(d)? {
            Value::Array(values) => {
                let total = values.len();
                let read: Vec<T> = values.into_iter().filter_map(|v| serde_json::from_value(v).ok()).collect();
                NESTED_SKIPPED.with(|n| n.set(n.get() + total - read.len()));
                read
            }
            _ => Vec::new(),
        }))
    }
}

/// Declares a lenient record struct: every field defaults when absent and reads through [`lenient`].
macro_rules! lenient_struct {
    ($(#[doc = $doc:literal])* $name:ident { $($(#[serde($($attr:tt)*)])? $field:ident : $ty:ty),* $(,)? }) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(default, rename_all = "camelCase")]
        pub struct $name {
            $(
                #[serde(deserialize_with = "lenient")]
                $(#[serde($($attr)*)])?
                pub $field: $ty,
            )*
        }
    };
}

lenient_struct!(
    /// The `meta` fields every source body carries.
    Meta { generated_at: String, source: String, source_url: String, caveat: String }
);

lenient_struct!(
    /// A House or Senate Periodic Transaction Report.
    PtrFiling {
        member: String,
        chamber: String,
        doc_id: String,
        year: i64,
        filed_date: String,
        source_url: String,
        trades: List<PtrTrade>,
    }
);

lenient_struct!(
    /// One transaction line of a PTR. `bundled` exists on House lines only.
    PtrTrade {
        ticker: String,
        asset: String,
        #[serde(rename = "type")]
        kind: String,
        amount_range: String,
        date: String,
        bundled: Option<bool>,
    }
);

lenient_struct!(
    /// An issuer of the insiders dataset with its Form 4 rows.
    InsiderCompany { ticker: String, company: String, cik: String, ceo: String, filings: List<InsiderRow> }
);

lenient_struct!(
    /// One Form 4 transaction row, reduced to its reporting-owner metadata. `title` is comma-separated.
    InsiderRow {
        owner: String,
        title: String,
        code: String,
        accession_number: String,
        source_url: String,
        date: String,
        filed_date: String,
    }
);

lenient_struct!(
    /// A lobbying client company and one filing year's totals.
    LobbyingCompany {
        name: String,
        ticker: String,
        client_name: String,
        year: i64,
        total_spend_usd: f64,
        filing_count: i64,
        quarters: List<Quarter>,
    }
);

lenient_struct!(
    /// One quarter of a lobbying year.
    Quarter { period: String, amount: f64 }
);

lenient_struct!(
    /// A federal contractor with its largest awards in SPEC's window.
    ContractsCompany {
        name: String,
        ticker: String,
        total_obligated_usd: f64,
        award_count: i64,
        top_awards: List<Award>,
    }
);

lenient_struct!(
    /// One contract award.
    Award { award_id: String, award_type: String, amount: f64, agency: String, description: String, date: String }
);

lenient_struct!(
    /// A company with its connected PAC and the cycle's totals.
    DonorsCompany {
        name: String,
        ticker: String,
        pac_name: String,
        committee_id: String,
        cycle: String,
        total_contributions_usd: f64,
        dem_pct: f64,
        rep_pct: f64,
        contribution_count: Option<i64>,
        provenance: SourceRef,
    }
);

lenient_struct!(
    /// Where a record comes from, when its body says.
    SourceRef { source_url: String }
);

lenient_struct!(
    /// A patent applicant company with its grant counts.
    PatentsCompany {
        name: String,
        ticker: String,
        assignee_matched: String,
        granted_last12mo: i64,
        granted_prior12mo: i64,
        ingested: PatentsIngested,
    }
);

lenient_struct!(
    /// What ingested patent data adds to a company.
    PatentsIngested { recent_grants: List<Grant> }
);

lenient_struct!(
    /// One granted patent.
    Grant { patent_number: String, grant_date: String, source_url: String }
);

lenient_struct!(
    /// One filer's latest 13F-HR filing with its information table.
    HoldingsFiling {
        cik: String,
        filer: String,
        accession: String,
        form: String,
        period_of_report: String,
        filed_date: String,
        source_url: String,
        holdings: List<Holding>,
    }
);

lenient_struct!(
    /// One information-table row; `issuer` is the company the holdings plugin resolved it to, if any.
    Holding {
        name_of_issuer: String,
        title_of_class: String,
        cusip: String,
        value_usd: f64,
        shares: f64,
        put_call: Option<String>,
        issuer: Option<IssuerRef>,
    }
);

lenient_struct!(
    /// The resolved issuer of a holding.
    IssuerRef { ticker: String }
);

/// A source body: its meta, whether it is demo data, and its top-level fields other than `meta`.
pub struct Doc {
    pub meta: Meta,
    /// `dataStatus` of the body: `demo` or `ingested` (empty when the body does not say).
    pub data_status: String,
    body: Map<String, Value>,
    /// Records that were not objects and were skipped.
    pub skipped: usize,
    /// Elements of the records' nested lists (trades, filings, quarters, awards, grants, holdings) that were not
    /// objects and were skipped.
    pub skipped_nested: usize,
    /// Top-level fields present but of another JSON type (`meta` not an object, `dataStatus` not text), read
    /// as empty and reported with the skipped records.
    pub unreadable: Vec<&'static str>,
}

impl Doc {
    /// Reads a source through its route. Fails when the route fails or answers something other than an object.
    pub fn fetch(host: &Host, route: &str, query: &[(&str, &str)]) -> Result<Doc, SourceError> {
        Doc::from_value(host.get_route(route, query)?)
    }

    pub fn from_value(value: Value) -> Result<Doc, SourceError> {
        let Value::Object(mut body) = value else {
            return Err(SourceError::NotAnObject);
        };
        let mut unreadable = Vec::new();
        let meta = match body.remove("meta") {
            None | Some(Value::Null) => Meta::default(),
            Some(meta) => serde_json::from_value(meta).unwrap_or_else(|_| {
                unreadable.push("meta");
                Meta::default()
            }),
        };
        let data_status = match body.get("dataStatus") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(status)) => status.clone(),
            Some(_) => {
                unreadable.push("dataStatus");
                String::new()
            }
        };
        Ok(Doc { meta, data_status, body, skipped: 0, skipped_nested: 0, unreadable })
    }

    /// The records under `key`. A missing or non-array `key` makes the dataset unreadable.
    pub fn records<T: DeserializeOwned>(&mut self, key: &'static str) -> Result<Vec<T>, SourceError> {
        let Some(Value::Array(values)) = self.body.remove(key) else {
            return Err(SourceError::NoArray(key));
        };
        let total = values.len();
        NESTED_SKIPPED.with(|n| n.set(0));
        let records: Vec<T> = values.into_iter().filter_map(|v| serde_json::from_value(v).ok()).collect();
        self.skipped += total - records.len();
        self.skipped_nested += NESTED_SKIPPED.with(|n| n.replace(0));
        Ok(records)
    }
}
