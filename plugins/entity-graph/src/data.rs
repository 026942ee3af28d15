//! The slices of the eight source datasets the graph reads through the records engine, as lenient serde
//! structs: only the fields the graph uses, every one of them optional (absent, null or of another JSON type
//! reads as empty), and records that are not objects are skipped one by one. An additive field, or a change in
//! a field the graph does not read, never breaks the graph; a dataset that is missing or not a JSON document
//! with its record array is reported unavailable and left out (see `graph::build`).
//!
//! Snapshot formats read (owned by the plugins of the same slug, `plugins/<slug>/src/data.rs`):
//! - `congress-trades`, `senate-trades`: `{meta, filings: [{member, chamber?, docId, year, filedDate,
//!   trades: [{ticker, asset, type, amountRange, date, bundled?}]}]}`
//! - `insiders`: `{meta, companies: [{ticker, company, cik, ceo}], filings: [{ticker, owner, titles, code,
//!   accessionNumber, sourceUrl, date, filedDate}]}`
//! - `lobbying`: `{meta, companies: [{name, ticker, clientName, filings: [{filingUuid, registrant, year, quarter,
//!   amount, postedDate}]}]}`
//! - `contracts`: `{meta, companies: [{name, ticker, awards: [{awardId, awardType, amount, agency, description,
//!   date}]}]}`
//! - `donors`: `{meta, companies: [{name, ticker, pacName, committeeId, cycle, contributions: [{party, amount,
//!   date}]}]}`
//! - `patents`: `{meta, companies: [{name, ticker, assigneeMatched, grants: [{patentNumber, grantDate,
//!   firstApplicant}]}]}`
//! - `institutional-holdings`: `{meta, filings: [{cik, filer, accession, form, periodOfReport, filedDate,
//!   holdings: [{nameOfIssuer, titleOfClass, cusip, valueUsd, shares, putCall}]}]}`

use datahost_plugin_api::Host;
use serde::de::{DeserializeOwned, Deserializer};
use serde::Deserialize;
use serde_json::{Map, Value};

/// A field of any JSON type: the value when it has the expected type, else the default.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<T, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(T::deserialize(v).unwrap_or_default())
}

/// A nested list whose elements are kept when they read and skipped when they do not (a non-array is empty).
#[derive(Debug, Clone)]
pub struct List<T>(pub Vec<T>);

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
            Value::Array(values) => values.into_iter().filter_map(|v| serde_json::from_value(v).ok()).collect(),
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
    /// The `meta` fields every source snapshot carries.
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
    /// An issuer of the insiders dataset.
    InsiderCompany { ticker: String, company: String, cik: String, ceo: String }
);

lenient_struct!(
    /// One Form 4 transaction row, reduced to its reporting-owner metadata.
    InsiderRow {
        ticker: String,
        owner: String,
        titles: Vec<String>,
        code: String,
        accession_number: String,
        source_url: String,
        date: String,
        filed_date: String,
    }
);

lenient_struct!(
    /// A lobbying client company.
    LobbyingCompany {
        name: String,
        ticker: String,
        client_name: String,
        filings: List<LobbyingFiling>,
    }
);

lenient_struct!(
    /// One quarterly LD-2 report for the client.
    LobbyingFiling { filing_uuid: String, registrant: String, year: i64, quarter: i64, amount: f64, posted_date: String }
);

lenient_struct!(
    /// A federal contractor with its awards.
    ContractsCompany {
        name: String,
        ticker: String,
        awards: List<Award>,
    }
);

lenient_struct!(
    /// One contract award.
    Award { award_id: String, award_type: String, amount: f64, agency: String, description: String, date: String }
);

lenient_struct!(
    /// A company with its connected PAC.
    DonorsCompany {
        name: String,
        ticker: String,
        pac_name: String,
        committee_id: String,
        cycle: String,
        contributions: List<Contribution>,
    }
);

lenient_struct!(
    /// One PAC contribution to a federal candidate.
    Contribution { party: String, amount: f64, date: String }
);

lenient_struct!(
    /// A patent applicant company with its grants.
    PatentsCompany {
        name: String,
        ticker: String,
        assignee_matched: String,
        grants: List<Grant>,
    }
);

lenient_struct!(
    /// One granted patent.
    Grant { patent_number: String, grant_date: String, first_applicant: String }
);

lenient_struct!(
    /// One 13F-HR filing with its information table.
    HoldingsFiling {
        cik: String,
        filer: String,
        accession: String,
        form: String,
        period_of_report: String,
        filed_date: String,
        holdings: List<Holding>,
    }
);

lenient_struct!(
    /// One information-table row.
    Holding {
        name_of_issuer: String,
        title_of_class: String,
        cusip: String,
        value_usd: f64,
        shares: f64,
        put_call: Option<String>,
    }
);

/// A loaded snapshot: its meta and its top-level fields other than `meta`.
pub struct Doc {
    pub meta: Meta,
    body: Map<String, Value>,
    /// Records that were not objects and were skipped.
    pub skipped: usize,
}

impl Doc {
    /// Reads `dataset` from the records engine. Fails when it is missing or not a JSON object.
    pub fn load(host: &Host, dataset: &str) -> Result<Doc, String> {
        let raw = host.load_dataset_raw(dataset)?;
        Doc::parse(&raw)
    }

    pub fn parse(raw: &str) -> Result<Doc, String> {
        let Value::Object(mut body) = serde_json::from_str(raw).map_err(|e| format!("not a JSON document: {e}"))?
        else {
            return Err("not a JSON object".into());
        };
        let meta = body.remove("meta").and_then(|m| serde_json::from_value(m).ok()).unwrap_or_default();
        Ok(Doc { meta, body, skipped: 0 })
    }

    /// The records under `key`. A missing or non-array `key` makes the dataset unreadable.
    pub fn records<T: DeserializeOwned>(&mut self, key: &str) -> Result<Vec<T>, String> {
        let Some(Value::Array(values)) = self.body.remove(key) else {
            return Err(format!("the snapshot has no `{key}` array"));
        };
        let total = values.len();
        let records: Vec<T> = values.into_iter().filter_map(|v| serde_json::from_value(v).ok()).collect();
        self.skipped += total - records.len();
        Ok(records)
    }
}
