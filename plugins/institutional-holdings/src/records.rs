//! The records the parser writes (`ingest.rs`) and `init` reads back from the records engine, and how the
//! records of one filer and quarter are combined into the filing that is served:
//! - collection `filings`: one cover record per filing, key = accession number;
//! - collection `holdings`: one record per information-table row, key = `<accession>/<row position>`;
//! - both with group = accession, lineage = `<filer CIK>/<period>`, revision = `<filed date>/<accession>`,
//!   amendment = true only for a 13F-HR/A RESTATEMENT (a NEW HOLDINGS amendment adds rows, it replaces none).
//!
//! The host applies the lineage rule when it stores records; [`combine`] applies the same rule again when
//! serving, so that a restated original or a stray duplicate is never counted twice whatever reached us.

use std::collections::{BTreeMap, HashMap};

use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::reference::{CompanyQuery, CompanyRef};
use datahost_plugin_api::{Host, LogLevel};
use serde::{Deserialize, Serialize};

use crate::data::{AmendmentRef, Filing, Holding, Index, Meta};
use crate::error::LoadError;

pub const FILINGS: &str = "filings";
pub const HOLDINGS: &str = "holdings";
pub const RESTATEMENT: &str = "RESTATEMENT";
pub const NEW_HOLDINGS: &str = "NEW HOLDINGS";

/// The cover of one filing as the parser read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilingRecord {
    /// The filer (the manager on the cover page), 10 digits; not the accession prefix, which may be a
    /// filing agent's.
    pub cik: String,
    pub filer: String,
    pub accession: String,
    /// `13F-HR` or `13F-HR/A`.
    pub form: String,
    /// `RESTATEMENT` or `NEW HOLDINGS` for an amendment.
    pub amendment_type: Option<String>,
    pub period_of_report: String,
    pub filed_date: String,
    /// `dollars` or `thousands`: the unit the filing's values were reported in.
    pub value_unit: String,
    pub value_unit_reason: String,
    /// The submission in the EDGAR archive.
    pub source_url: String,
    pub table_entry_total: Option<u64>,
    pub table_value_total: Option<u64>,
    /// Information-table rows that could not be read (reported as row problems at ingest).
    pub unread_rows: usize,
}

impl FilingRecord {
    pub fn lineage(&self) -> String {
        format!("{}/{}", self.cik, self.period_of_report)
    }

    pub fn revision(&self) -> String {
        format!("{}/{}", self.filed_date, self.accession)
    }

    pub fn is_restatement(&self) -> bool {
        self.amendment_type.as_deref() == Some(RESTATEMENT)
    }

    pub fn adds_holdings(&self) -> bool {
        self.amendment_type.as_deref() == Some(NEW_HOLDINGS)
    }

    fn amendment_ref(&self) -> AmendmentRef {
        AmendmentRef {
            accession: self.accession.clone(),
            form: self.form.clone(),
            amendment_type: self.amendment_type.clone().unwrap_or_default(),
            filed_date: self.filed_date.clone(),
            source_url: self.source_url.clone(),
        }
    }
}

/// Shares over which the manager has sole, shared or no voting authority.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, datahost_plugin_api::ApiSchema)]
#[schema(name = "InstitutionalHoldingVotingAuthority")]
pub struct VotingAuthority {
    pub sole: u64,
    pub shared: u64,
    pub none: u64,
}

/// One information-table row as the parser read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HoldingRecord {
    pub accession: String,
    /// 1-based position of the row in the information table.
    pub row: usize,
    pub name_of_issuer: String,
    pub title_of_class: String,
    pub cusip: String,
    /// The reported value converted to dollars with the filing's unit.
    pub value_usd: u64,
    /// The value as the filing reports it (in the filing's `valueUnit`).
    pub value_reported: u64,
    pub shares: u64,
    /// `SH` (shares) or `PRN` (principal amount).
    pub shares_type: String,
    pub put_call: Option<String>,
    pub investment_discretion: Option<String>,
    pub other_manager: Option<String>,
    pub voting_authority: Option<VotingAuthority>,
}

impl HoldingRecord {
    pub fn into_holding(self) -> Holding {
        Holding {
            name_of_issuer: self.name_of_issuer,
            title_of_class: self.title_of_class,
            cusip: self.cusip,
            value_usd: self.value_usd,
            shares: self.shares,
            put_call: self.put_call,
            shares_type: Some(self.shares_type),
            investment_discretion: self.investment_discretion,
            voting_authority: self.voting_authority,
            accession: Some(self.accession),
            issuer: None,
        }
    }
}

/// What [`combine`] set aside, for the host log (nothing is dropped without a word).
#[derive(Debug, Default)]
pub struct Combined {
    pub filings: Vec<Filing>,
    /// Filer/period lineages made only of NEW HOLDINGS amendments (their original is not ingested).
    pub additions_without_original: Vec<String>,
    /// Holding rows whose filing record is absent.
    pub orphan_holdings: usize,
}

/// One served filing per filer and period: the latest RESTATEMENT, else the latest original, plus every
/// NEW HOLDINGS amendment filed after it.
pub fn combine(filings: Vec<FilingRecord>, holdings: Vec<HoldingRecord>) -> Combined {
    let mut rows_by_accession: HashMap<String, Vec<HoldingRecord>> = HashMap::new();
    for h in holdings {
        rows_by_accession.entry(h.accession.clone()).or_default().push(h);
    }
    let mut lineages: BTreeMap<String, Vec<FilingRecord>> = BTreeMap::new();
    for f in filings {
        lineages.entry(f.lineage()).or_default().push(f);
    }
    let mut out = Combined::default();
    for (lineage, mut members) in lineages {
        members.sort_by_key(FilingRecord::revision);
        match served_filing(&members, &mut rows_by_accession) {
            Some(filing) => out.filings.push(filing),
            None => out.additions_without_original.push(lineage),
        }
        // The rows of this lineage's filings that are not served (superseded) go with it.
        for f in &members {
            rows_by_accession.remove(&f.accession);
        }
    }
    out.orphan_holdings = rows_by_accession.values().map(Vec::len).sum();
    out
}

/// The filing served for one lineage (`members` sorted by revision), taking its rows out of
/// `rows_by_accession`; None when the lineage has only NEW HOLDINGS amendments.
fn served_filing(
    members: &[FilingRecord],
    rows_by_accession: &mut HashMap<String, Vec<HoldingRecord>>,
) -> Option<Filing> {
    let base = members
        .iter()
        .rposition(FilingRecord::is_restatement)
        .or_else(|| members.iter().rposition(|f| f.amendment_type.is_none()))?;
    let head = &members[base];
    let additions: Vec<&FilingRecord> =
        members.iter().filter(|f| f.adds_holdings() && f.revision() > head.revision()).collect();
    let included = || std::iter::once(head).chain(additions.iter().copied());
    let mut rows: Vec<HoldingRecord> =
        included().flat_map(|f| rows_by_accession.remove(&f.accession).unwrap_or_default()).collect();
    rows.sort_by(|a, b| (&a.accession, a.row).cmp(&(&b.accession, b.row)));
    let unread: usize = included().map(|f| f.unread_rows).sum();
    let reported = included()
        .map(|f| f.table_value_total.map(|v| if f.value_unit == "thousands" { v.saturating_mul(1000) } else { v }))
        .sum::<Option<u64>>();
    Some(Filing {
        cik: head.cik.clone(),
        filer: head.filer.clone(),
        accession: head.accession.clone(),
        form: head.form.clone(),
        period_of_report: head.period_of_report.clone(),
        filed_date: head.filed_date.clone(),
        holdings: rows.into_iter().map(HoldingRecord::into_holding).collect(),
        amendment_type: head.amendment_type.clone(),
        value_unit: Some(head.value_unit.clone()),
        value_unit_reason: Some(head.value_unit_reason.clone()),
        source_url: Some(head.source_url.clone()),
        amendments: additions.iter().map(|f| f.amendment_ref()).collect(),
        unread_rows: (unread > 0).then_some(unread),
        reported_total_usd: reported,
    })
}

/// The dataset document once records are ingested: `{"ingested": {...}, "filings": [...], "holdings": [...]}`.
#[derive(Debug, Deserialize)]
struct IngestedDocument {
    ingested: IngestedInfo,
    #[serde(default)]
    filings: Vec<FilingRecord>,
    #[serde(default)]
    holdings: Vec<HoldingRecord>,
}

/// Builds the index from ingested records, with a real `meta`, and names each latest filing's issuers
/// through the host's company list (absent when the list is not ingested: the filing's own names stand).
pub fn index_from_ingested(document: serde_json::Value, host: &Host) -> Result<Index, LoadError> {
    let document: IngestedDocument = serde_json::from_value(document).map_err(LoadError::Ingested)?;
    // Table-backed (holdings declared as indexed): the document lists the covers and counts the rows.
    let table_backed = document.ingested.collections.contains_key(HOLDINGS) && document.holdings.is_empty();
    let combined = combine(document.filings, document.holdings);
    for lineage in &combined.additions_without_original {
        host.log(
            LogLevel::Warn,
            &format!(
                "13F {lineage}: only NEW HOLDINGS amendments are ingested, not the filing they add to; not served"
            ),
        );
    }
    if !table_backed && combined.orphan_holdings > 0 {
        let n = combined.orphan_holdings;
        host.log(LogLevel::Warn, &format!("{n} ingested 13F holding rows have no filing record; not served"));
    }
    // The host stamps the last ingest time; a document without one is dated by its latest filing.
    let generated_at = Some(document.ingested.last_ingest_at.clone())
        .filter(|at| !at.is_empty())
        .or_else(|| combined.filings.iter().map(|f| f.filed_date.clone()).max().map(|d| format!("{d}T00:00:00Z")))
        .unwrap_or_default();
    let meta = Meta {
        generated_at,
        source: "SEC EDGAR Form 13F-HR filings (cover page and information table), ingested from the official \
                 EDGAR submission files"
            .into(),
        source_url: "https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&type=13F-HR".into(),
        method: Some(
            "Parsed from EDGAR full submissions (.txt) and feed files (.nc). Each filing's values are converted to \
             dollars with the unit it reported in (valueUnit, decided per filing from its prices and filing date); \
             a 13F-HR/A RESTATEMENT replaces the quarter's filing and a NEW HOLDINGS amendment adds its rows."
                .into(),
        ),
        caveat: "13F reports are filed up to 45 days after quarter end and list long positions in 13(f) securities \
                 only (no shorts, cash or most non-U.S. holdings). The SEC does not check them: values are as filed."
            .into(),
        ingested: Some(document.ingested),
    };
    let mut index = Index::new(meta, combined.filings)?;
    if table_backed {
        // The rows stay in the records engine's table; each request reads (and names) the ones it serves.
        index.table = Some(*host);
    } else {
        name_holdings(&mut index.filers.iter_mut().map(|f| &mut f.latest).collect::<Vec<_>>(), host);
    }
    Ok(index)
}

/// Resolves the issuer names of `filings` in one host call; a failed call only logs.
pub fn name_holdings<F: std::borrow::BorrowMut<Filing>>(filings: &mut [F], host: &Host) {
    let mut names: Vec<String> =
        filings.iter().flat_map(|f| f.borrow().holdings.iter().map(|h| h.name_of_issuer.clone())).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return;
    }
    let queries: Vec<CompanyQuery> = names.iter().cloned().map(CompanyQuery::Name).collect();
    let answers = match host.resolve_companies(&queries) {
        Ok(answers) => answers,
        Err(e) => {
            host.log(LogLevel::Warn, &format!("issuer names not resolved through the host: {e}"));
            return;
        }
    };
    let by_name: HashMap<String, CompanyRef> =
        names.into_iter().zip(answers).filter_map(|(name, answer)| Some((name, answer?))).collect();
    for h in filings.iter_mut().flat_map(|f| f.borrow_mut().holdings.iter_mut()) {
        h.issuer = by_name.get(&h.name_of_issuer).cloned();
    }
}
