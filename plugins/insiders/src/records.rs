//! The ingested `insiders` dataset as its readers see it: the shape of one transaction record (written by
//! `ingest.rs`, read back by `data.rs` here and by the `execs` plugin, which includes this file with
//! `#[path]` so both readers agree on one definition), the issuers derived from the records (ticker through
//! the host's company resolver when the filing names none, and the CEO among the reporting owners), and the
//! `meta` block served for real data.
//!
//! The host keeps the transaction rows in its records table (declared indexed by `issuerCik`; read per issuer
//! with `records.query`) and serves the rest as `{"ingested": {rows, files, lastIngestAt, collections},
//! "forms": [...]}`: issuers and CEOs come from the forms, one per filing.

use std::collections::BTreeMap;

use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::query::RecordsQuery;
use datahost_plugin_api::reference::CompanyQuery;
use datahost_plugin_api::{Host, LogLevel};
use datahost_plugin_kit::error::StoredError;
use datahost_plugin_kit::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

/// A reporting owner of a Form 4 and their relationship to the issuer as filed (an absent relationship
/// element is `false`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Owner {
    /// 10 digits, zero-padded.
    pub cik: String,
    /// As filed (EDGAR writes `Last First Middle`).
    pub name: String,
    pub is_director: bool,
    pub is_officer: bool,
    pub is_ten_percent_owner: bool,
    pub is_other: bool,
    pub officer_title: Option<String>,
    pub other_text: Option<String>,
}

impl Owner {
    /// The relationship as titles, officer title first: `["Chief Financial Officer", "Director"]`.
    pub fn titles(&self) -> Vec<String> {
        let mut titles = Vec::new();
        match &self.officer_title {
            Some(title) => titles.push(title.clone()),
            None if self.is_officer => titles.push("Officer".to_string()),
            None => {}
        }
        if self.is_director {
            titles.push("Director".to_string());
        }
        if self.is_ten_percent_owner {
            titles.push("10% Owner".to_string());
        }
        if self.is_other {
            titles.push(self.other_text.clone().unwrap_or_else(|| "Other".to_string()));
        }
        titles
    }

    /// Whether the officer title names the chief executive (`Chief Executive Officer`, `President and CEO`).
    pub fn is_ceo(&self) -> bool {
        let Some(title) = &self.officer_title else { return false };
        let upper = title.to_ascii_uppercase();
        upper.contains("CHIEF EXECUTIVE") || upper.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == "CEO")
    }
}

/// A footnote a transaction row refers to. `text` is null when the filing refers to a footnote it does not
/// contain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, datahost_plugin_api::ApiSchema)]
#[schema(name = "InsidersFootnote")]
pub struct Footnote {
    pub id: String,
    pub text: Option<String>,
}

/// One transaction row of a Form 4 (non-derivative or derivative table), with its filing's provenance.
/// Its first fields have the names and meaning of the demo seed's records (`ticker`, `owner`, `titles`,
/// `code`, `date`, `filedDate`, `accessionNumber`...), so readers of either shape agree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionRecord {
    /// The issuer's trading symbol as filed, upper case; empty when the filing names none (`NONE`, `N/A`).
    pub ticker: String,
    pub issuer_cik: String,
    pub issuer_name: String,
    /// The first reporting owner (the filer); the others of a joint filing are in `owners`.
    pub owner: String,
    pub owner_cik: String,
    /// The first reporting owner's relationship titles.
    pub titles: Vec<String>,
    /// Every reporting owner of the filing, the filer first.
    pub owners: Vec<Owner>,
    pub code: String,
    pub acquired_disposed: String,
    /// Null when the accession number is unknown (bare XML without one in its file name).
    pub accession_number: Option<String>,
    /// Whether `accessionNumber` is known; when it is not, `filingId` is derived from the file content.
    pub accession_known: bool,
    /// The accession number, or `xml-sha256-<hex>` for a bare XML whose accession is unknown.
    pub filing_id: String,
    /// The filing in the EDGAR archives; null when the accession number is unknown.
    pub source_url: Option<String>,
    /// Transaction date.
    pub date: String,
    /// From the EDGAR header; null for bare XML, which carries none.
    pub filed_date: Option<String>,
    pub period_of_report: String,
    /// `4` or `4/A`.
    pub document_type: String,
    pub amendment: bool,
    /// `non-derivative` or `derivative`.
    pub table: String,
    /// 1-based position of the row in its table.
    pub row: usize,
    pub security_title: Option<String>,
    pub shares: f64,
    /// Null when the filing gives no price (for example only a footnote).
    pub price: Option<f64>,
    /// The Rule 10b5-1 checkbox as filed; null on forms that predate the checkbox (added in
    /// April 2023; schema X0306 has no such element).
    pub aff10b5_one: Option<bool>,
    /// True when the checkbox is checked or a footnote of the row says the trade was made under a Rule
    /// 10b5-1 plan (`tradingPlanEvidence` says which).
    pub trading_plan: bool,
    pub trading_plan_evidence: Option<String>,
    pub footnotes: Vec<Footnote>,
    pub shares_owned_following: Option<f64>,
    /// `D` direct or `I` indirect.
    pub direct_or_indirect: Option<String>,
    /// Derivative rows: the option's exercise or conversion price, and the underlying security.
    pub exercise_price: Option<f64>,
    pub underlying_security: Option<String>,
    pub underlying_shares: Option<f64>,
}

/// The collection of transaction rows: table-backed (declared indexed by `issuerCik`), read per issuer.
pub const TRANSACTIONS: &str = "transactions";
/// The field transaction rows are looked up by.
pub const ISSUER_FIELD: &str = "issuerCik";

/// What a `forms` record (one per filing, written by the insiders parser) tells its readers: the issuer, the
/// reporting owners and when it was filed. Issuers and CEOs are derived from these, never from the rows.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormSummary {
    pub filing_id: String,
    pub filed_date: Option<String>,
    pub period_of_report: String,
    pub issuer_cik: String,
    pub issuer_name: String,
    /// As filed; empty when the filing names none.
    #[serde(default)]
    pub ticker: String,
    pub owners: Vec<Owner>,
}

impl FormSummary {
    /// The date that orders filings: the filed date, or the period of report when it is unknown (bare XML).
    pub fn filed_or_period(&self) -> &str {
        self.filed_date.as_deref().unwrap_or(&self.period_of_report)
    }
}

/// An issuer of the ingested filings, as served.
#[derive(Debug, Clone, PartialEq)]
pub struct Issuer {
    pub cik: String,
    /// The symbol of the newest filing that names one, else the host's resolver; empty when neither knows.
    pub ticker: String,
    pub company: String,
    /// The newest reporting owner whose officer title names the chief executive; empty when none is known.
    pub ceo: String,
}

/// Derives the issuers (ordered by CIK) from the filings. Issuers whose filings name no ticker are looked
/// up by CIK through the host; when the host cannot answer, their ticker stays empty and a warning is logged.
pub fn issuers(forms: &[FormSummary], host: &Host) -> Vec<Issuer> {
    let mut by_cik: BTreeMap<&str, Vec<&FormSummary>> = BTreeMap::new();
    for f in forms {
        by_cik.entry(&f.issuer_cik).or_default().push(f);
    }
    let mut issuers: Vec<Issuer> = by_cik
        .into_iter()
        .map(|(cik, mut filings)| {
            filings.sort_by(|a, b| (b.filed_or_period(), &b.filing_id).cmp(&(a.filed_or_period(), &a.filing_id)));
            let ticker = filings.iter().map(|f| f.ticker.trim()).find(|t| !t.is_empty()).unwrap_or_default();
            let ceo = filings.iter().flat_map(|f| &f.owners).find(|o| o.is_ceo()).map(|o| o.name.clone());
            Issuer {
                cik: cik.to_string(),
                ticker: ticker.to_ascii_uppercase(),
                company: filings[0].issuer_name.clone(),
                ceo: ceo.unwrap_or_default(),
            }
        })
        .collect();
    let unresolved: Vec<usize> = (0..issuers.len()).filter(|&i| issuers[i].ticker.is_empty()).collect();
    if unresolved.is_empty() {
        return issuers;
    }
    let queries: Vec<CompanyQuery> = unresolved.iter().map(|&i| CompanyQuery::Cik(issuers[i].cik.clone())).collect();
    match host.resolve_companies(&queries) {
        Ok(answers) => {
            for (&i, answer) in unresolved.iter().zip(answers) {
                if let Some(company) = answer.filter(|c| !c.ticker.is_empty()) {
                    issuers[i].ticker = company.ticker;
                }
            }
        }
        Err(e) => host.log(LogLevel::Warn, &format!("insiders: the company resolver did not answer: {e}")),
    }
    let still: Vec<&str> = issuers.iter().filter(|i| i.ticker.is_empty()).map(|i| i.cik.as_str()).collect();
    if !still.is_empty() {
        host.log(LogLevel::Warn, &format!("insiders: no ticker known for issuer CIK(s) {}", still.join(", ")));
    }
    issuers
}

/// Every transaction row of one issuer, read from the records engine (the rows stay in its table: at
/// national scale they do not fit in a plugin's memory), in ingest order.
pub fn issuer_transactions(host: &Host, issuer_cik: &str) -> Result<Vec<TransactionRecord>, StoredError> {
    let query = RecordsQuery::new(DATASET, TRANSACTIONS).eq(ISSUER_FIELD, issuer_cik);
    host.query_all_records(&query)?
        .into_iter()
        .map(|r| serde_json::from_value(r).map_err(|source| StoredError::Unreadable { what: "Form 4 row", source }))
        .collect()
}

/// The dataset these records belong to.
pub const DATASET: &str = "insiders";

/// The official source the records come from.
pub const SOURCE_URL: &str = "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent&type=4";

/// The `meta` block for ingested data (`filings`: how many filings were read, including those that report
/// holdings only). `generatedAt` is the time of the last ingest, or the newest filed or transaction date when
/// the host gave none.
pub fn ingested_meta(info: &IngestedInfo, forms: &[FormSummary]) -> SnapshotMeta {
    let generated_at = if info.last_ingest_at.is_empty() {
        forms.iter().map(FormSummary::filed_or_period).max().unwrap_or_default().to_string()
    } else {
        info.last_ingest_at.clone()
    };
    let rows = info.collections.get(TRANSACTIONS).copied().unwrap_or_default();
    let filings = forms.len();
    SnapshotMeta {
        source: format!(
            "SEC EDGAR Form 4 filings (Statement of Changes in Beneficial Ownership): {} transaction rows from {} \
             filings in {} ingested files",
            rows, filings, info.files
        ),
        source_url: SOURCE_URL.to_string(),
        method: "Read from each filing's ownershipDocument XML (bare XML, EDGAR .txt submissions, EDGAR feed .nc \
                 files): one record per non-derivative and derivative transaction row with its reporting owner; \
                 shares and price as filed; value = shares x price rounded to cents. A Form 4/A replaces the \
                 filing it amends (same issuer, reporting owners and period of report)."
            .to_string(),
        caveat: "Open-market sells (code S) are often driven by pre-scheduled Rule 10b5-1 trading plans, tax \
                 withholding or diversification, not a bearish view on the company. price and value are null when \
                 the filing gives the price only in a footnote. tradingPlan is true when the Rule 10b5-1 box \
                 (aff10b5One, on forms since 2023) is checked or a footnote of the row says the trade was made \
                 under a 10b5-1 plan. Rows read from bare XML without an EDGAR header have a null filedDate (and a \
                 null accessionNumber unless the file name carries it). ceo is empty when no reporting owner's \
                 officer title names the chief executive."
            .to_string(),
        generated_at,
    }
}
