//! The 13F snapshot (every filing of every filer, with its information table) and the index built from it
//! once at load: each filer's latest filing, holdings sorted by value, the total over all of them, and the
//! lookups by CIK and by name.

use datahost_plugin_api::companies::CompaniesMeta;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Holding {
    pub name_of_issuer: String,
    pub title_of_class: String,
    pub cusip: String,
    pub value_usd: u64,
    pub shares: u64,
    /// `Put`, `Call`, or null for a plain position.
    pub put_call: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filing {
    pub cik: String,
    pub filer: String,
    pub accession: String,
    pub form: String,
    pub period_of_report: String,
    pub filed_date: String,
    pub holdings: Vec<Holding>,
}

/// The snapshot document: `{meta, filings}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub meta: CompaniesMeta,
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
    pub meta: CompaniesMeta,
    /// Sorted by CIK.
    pub filers: Vec<Filer>,
}

impl Index {
    pub fn new(snapshot: Snapshot) -> Result<Self, String> {
        let mut latest: std::collections::BTreeMap<String, Filing> = Default::default();
        for filing in snapshot.filings {
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
                Filer {
                    name_lower: f.filer.to_lowercase(),
                    total_value_usd: f.holdings.iter().map(|h| h.value_usd).sum(),
                    latest: f,
                }
            })
            .collect();
        Ok(Self { meta: snapshot.meta, filers })
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

fn validate(f: &Filing) -> Result<(), String> {
    if f.cik.len() != 10 || !f.cik.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("filing {}: cik `{}` is not 10 digits", f.accession, f.cik));
    }
    if let Some(h) = f.holdings.iter().find(|h| !matches!(h.put_call.as_deref(), None | Some("Put" | "Call"))) {
        return Err(format!("filing {}: {} has putCall {:?}", f.accession, h.cusip, h.put_call));
    }
    Ok(())
}
