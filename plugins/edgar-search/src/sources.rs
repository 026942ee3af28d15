//! Filings the records engine holds in other datasets, made searchable here (`Manifest::also_serves`): the
//! Form 4 filings of `insiders` (one `forms` record each) and the 13F-HR covers of `institutional-holdings`.
//! They are read from those datasets' documents only once ingested (their demo seeds are never indexed).
//!
//! A hit needs the filing's accession number, address and filed date: a bare Form 4 XML ingested without
//! its EDGAR header has no filed date (and perhaps no accession), so it is left out and counted. The `text` of
//! such a filing is composed from the facts its records hold (who filed, for which issuer or period, how many
//! rows), not the document itself, which the engine does not keep.

use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::Host;
use serde::Deserialize;

use crate::data::Filing;

pub const INSIDERS: &str = "insiders";
pub const THIRTEEN_F: &str = "institutional-holdings";
/// The datasets whose ingested filings are searchable here.
pub const ALSO_SERVES: &[&str] = &[INSIDERS, THIRTEEN_F];

/// The ingested documents of the other datasets (those that hold ingested records).
pub struct Others {
    pub docs: Vec<(&'static str, serde_json::Value)>,
}

impl Others {
    /// Reads each of [`ALSO_SERVES`] that holds ingested records (a dataset the host does not hold, or holds
    /// as its demo seed, is skipped).
    pub fn load(host: &Host) -> Self {
        let docs = ALSO_SERVES
            .iter()
            .filter_map(|d| host.load_dataset::<serde_json::Value>(d).ok().map(|doc| (*d, doc)))
            .filter(|(_, doc)| doc.get(INGESTED_KEY).is_some())
            .collect();
        Self { docs }
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// What identifies their data generation: each one's `ingested` block.
    pub fn generation(&self) -> Vec<(&'static str, IngestedInfo)> {
        self.docs
            .iter()
            .map(|(d, doc)| (*d, serde_json::from_value(doc[INGESTED_KEY].clone()).unwrap_or_default()))
            .collect()
    }

    /// Their filings as search documents, and how many could not be (no accession or filed date).
    pub fn filings(&self) -> Result<(Vec<Filing>, usize), Unreadable> {
        let mut out = Vec::new();
        let mut left_out = 0;
        for (dataset, doc) in &self.docs {
            let unreadable = |source| Unreadable { dataset, source };
            match *dataset {
                INSIDERS => {
                    let forms: Vec<Form4> = serde_json::from_value(doc["forms"].clone()).map_err(unreadable)?;
                    for form in forms {
                        match form.filing() {
                            Some(f) => out.push(f),
                            None => left_out += 1,
                        }
                    }
                }
                _ => {
                    let covers: Vec<Cover13F> = serde_json::from_value(doc["filings"].clone()).map_err(unreadable)?;
                    out.extend(covers.into_iter().map(Cover13F::filing));
                }
            }
        }
        Ok((out, left_out))
    }
}

/// Another dataset's ingested filings do not read as the records this plugin expects of it.
#[derive(Debug, thiserror::Error)]
#[error("the ingested `{dataset}` filings are not readable: {source}")]
pub struct Unreadable {
    pub dataset: &'static str,
    pub source: serde_json::Error,
}

/// What a Form 4 `forms` record of `insiders` says (the fields used here).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Form4 {
    accession_number: Option<String>,
    source_url: Option<String>,
    document_type: String,
    filed_date: Option<String>,
    period_of_report: String,
    issuer_cik: String,
    issuer_name: String,
    #[serde(default)]
    ticker: String,
    owners: Vec<Form4Owner>,
    transaction_rows: usize,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Form4Owner {
    name: String,
    officer_title: Option<String>,
    #[serde(default)]
    is_director: bool,
    #[serde(default)]
    is_ten_percent_owner: bool,
}

impl Form4 {
    fn filing(self) -> Option<Filing> {
        let (accession, url, filed) = (self.accession_number?, self.source_url?, self.filed_date?);
        let owners: Vec<String> = self
            .owners
            .iter()
            .map(|o| {
                let mut roles: Vec<&str> = o.officer_title.iter().map(String::as_str).collect();
                if o.is_director {
                    roles.push("Director");
                }
                if o.is_ten_percent_owner {
                    roles.push("10% Owner");
                }
                if roles.is_empty() {
                    o.name.clone()
                } else {
                    format!("{} ({})", o.name, roles.join(", "))
                }
            })
            .collect();
        let ticker = if self.ticker.is_empty() { String::new() } else { format!(" ({})", self.ticker) };
        let text = format!(
            "Statement of changes in beneficial ownership (Form {}) of {}{ticker}, reported by {}; period of \
             report {}; {} transaction rows.",
            self.document_type,
            self.issuer_name,
            owners.join("; "),
            self.period_of_report,
            self.transaction_rows
        );
        Some(Filing {
            form: self.document_type,
            entity: self.issuer_name,
            cik: self.issuer_cik,
            accession,
            url,
            filed_date: filed,
            text,
        })
    }
}

/// What a 13F cover of `institutional-holdings` says (the fields used here).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cover13F {
    cik: String,
    filer: String,
    accession: String,
    form: String,
    period_of_report: String,
    filed_date: String,
    source_url: String,
    table_entry_total: Option<u64>,
}

impl Cover13F {
    fn filing(self) -> Filing {
        let entries = self.table_entry_total.map(|n| format!("; {n} holdings")).unwrap_or_default();
        let text = format!(
            "Institutional investment manager holdings report (Form {}) of {} for the period {}{entries}.",
            self.form, self.filer, self.period_of_report
        );
        Filing {
            form: self.form,
            entity: self.filer,
            cik: self.cik,
            accession: self.accession,
            url: self.source_url,
            filed_date: self.filed_date,
            text,
        }
    }
}
