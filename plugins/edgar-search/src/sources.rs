//! Filings the records engine holds in other datasets, made searchable here (`Manifest::also_serves`): the
//! Form 4 filings of `insiders` (one `forms` record each) and the 13F-HR covers of `institutional-holdings`.
//! They are read from those datasets' documents only once ingested (their demo seeds are never indexed).
//!
//! A hit needs the filing's accession number, address and filed date: a bare Form 4 XML ingested without
//! its EDGAR header has no filed date (and perhaps no accession), so it is left out and counted. The `text` of
//! such a filing is composed from the facts its records hold (who filed, for which issuer or period, how many
//! rows), not the document itself, which the engine does not keep.

use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::{Host, HostError};
use serde::Deserialize;

use crate::data::Filing;

pub const INSIDERS: &str = "insiders";
pub const THIRTEEN_F: &str = "institutional-holdings";
/// The datasets whose ingested filings are searchable here.
pub const ALSO_SERVES: &[&str] = &[INSIDERS, THIRTEEN_F];

/// The ingested documents of the other datasets (those that hold ingested records).
#[derive(Default)]
pub struct Others {
    pub docs: Vec<(&'static str, serde_json::Value)>,
    /// Each document's `ingested` block, read once at load (what identifies their data generation).
    generations: Vec<(&'static str, IngestedInfo)>,
}

/// Why the other datasets' filings could not be read at `init`.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Host(#[from] HostError),
    #[error("the `ingested` block of the {dataset} dataset is not readable: {source}")]
    IngestedBlock { dataset: &'static str, source: serde_json::Error },
}

impl Others {
    /// Reads each of [`ALSO_SERVES`] that holds ingested records. A dataset the host does not hold (its plugin is
    /// not loaded: the host refuses the call) or holds as its demo seed is skipped; any other failure is an
    /// error, since indexing without that dataset's filings would serve an answer that leaves them out unsaid.
    pub fn load(host: &Host) -> Result<Self, LoadError> {
        let mut docs = Vec::new();
        let mut generations = Vec::new();
        for &dataset in ALSO_SERVES {
            let doc: serde_json::Value = match host.load_dataset(dataset) {
                Ok(doc) => doc,
                Err(HostError::Refused(_)) => continue,
                Err(e) => return Err(e.into()),
            };
            let Some(block) = doc.get(INGESTED_KEY) else { continue };
            let info =
                serde_json::from_value(block.clone()).map_err(|source| LoadError::IngestedBlock { dataset, source })?;
            generations.push((dataset, info));
            docs.push((dataset, doc));
        }
        Ok(Self { docs, generations })
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// What identifies their data generation: each one's `ingested` block.
    pub fn generation(&self) -> &[(&'static str, IngestedInfo)] {
        &self.generations
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

#[cfg(test)]
mod tests {
    use super::*;
    use datahost_plugin_api::testing::TestHost;

    #[test]
    fn absent_and_seed_datasets_are_skipped_and_an_unreadable_ingested_block_is_an_error() {
        let host = TestHost::new();
        // Neither dataset in the engine (their plugins not loaded): nothing to index, no error.
        assert!(Others::load(&host.host()).unwrap().is_empty());
        host.set_dataset(INSIDERS, r#"{"meta": {}, "forms": []}"#);
        assert!(Others::load(&host.host()).unwrap().is_empty(), "a demo seed is not indexed");

        host.set_dataset(
            INSIDERS,
            r#"{"ingested": {"rows": 1, "files": 1, "lastIngestAt": "2026-11-27T00:00:00Z"}, "forms": []}"#,
        );
        let others = Others::load(&host.host()).unwrap();
        assert_eq!(others.generation().iter().map(|(d, info)| (*d, info.rows)).collect::<Vec<_>>(), [(INSIDERS, 1)]);

        host.set_dataset(THIRTEEN_F, r#"{"ingested": {"rows": "many"}, "filings": []}"#);
        let err = Others::load(&host.host()).err().expect("an ingested block that does not read");
        assert!(
            err.to_string().starts_with("the `ingested` block of the institutional-holdings dataset is not readable"),
            "{err}"
        );
    }
}
