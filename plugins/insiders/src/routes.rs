//! `GET /v1/insiders`: every covered company with its Form 4 transactions, or one company with `ticker`.

use datahost_plugin_api::openapi::schema;
use datahost_plugin_api::{ApiError, ApiSchema, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, Envelope};
use serde::Serialize;

use crate::data::{CompanyFilings, Index, Transaction};
use crate::form4::FORM4_CODES;
use crate::records::{Footnote, Owner, TransactionRecord};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

/// One Form 4 transaction.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "InsidersFiling")]
struct FilingOut<'a> {
    /// Reporting owner's name.
    owner: &'a str,
    /// Reporting owner's relationship to the issuer as filed; several titles are comma-separated (for example
    /// `Chief Executive Officer, Director`).
    title: String,
    /// Form 4 transaction code: P open-market purchase, S open-market sale, A grant or award, M option exercise, F
    /// shares withheld for tax, G gift, D disposition to the issuer, and so on.
    #[schema(with = code_schema)]
    code: &'a str,
    /// A acquired, D disposed.
    #[schema(with = acquired_disposed_schema)]
    acquired_disposed: &'a str,
    /// SEC accession number of the Form 4, `0001234567-25-000123`; null for a filing ingested as bare XML whose
    /// accession number is unknown (see `accessionKnown`, `filingId`).
    accession_number: Option<&'a str>,
    /// The filing in the SEC EDGAR archives (`.../Archives/edgar/data/<cik>/<accession>/...`); null when the
    /// accession number is unknown.
    #[schema(format = "uri")]
    source_url: Option<&'a str>,
    /// Transaction date.
    #[schema(format = "date")]
    date: &'a str,
    /// Date the Form 4 was filed with the SEC (EDGAR header); null for bare XML, which has none.
    #[schema(optional, format = "date")]
    filed_date: Option<&'a str>,
    /// Number of shares (or underlying units) in the transaction.
    shares: f64,
    /// Price per share in USD as filed (0 for grants and gifts); null when the filing gives the price only in a
    /// footnote.
    price: Option<f64>,
    /// shares × price in USD, rounded to cents; null when price is.
    value: Option<f64>,
    /// True when the filer checked the Rule 10b5-1(c) trading-plan box or (ingested filings) a footnote of the row
    /// says the trade was made under a 10b5-1 plan.
    #[schema(optional)]
    trading_plan: bool,
    /// Ingested rows only: everything else the filing says about the row.
    #[serde(flatten)]
    detail: Option<DetailOut<'a>>,
}

/// The additive fields of an ingested row.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "InsidersDetail")]
struct DetailOut<'a> {
    /// Ingested: the accession number, or `xml-sha256-<hex>` of the content.
    filing_id: &'a str,
    /// Ingested: false when the accession number is unknown.
    accession_known: bool,
    /// Ingested: `4/A` for an amendment.
    #[schema(with = document_type_schema)]
    document_type: &'a str,
    amendment: bool,
    #[schema(format = "date")]
    period_of_report: &'a str,
    /// Ingested: the Form 4 table.
    #[schema(with = table_schema)]
    table: &'a str,
    security_title: Option<&'a str>,
    /// The reporting owner's CIK, 10 digits.
    owner_cik: &'a str,
    is_director: bool,
    is_officer: bool,
    is_ten_percent_owner: bool,
    is_other: bool,
    officer_title: Option<&'a str>,
    /// The other reporting owners of a joint filing.
    joint_owners: Vec<JointOwnerOut<'a>>,
    /// The Rule 10b5-1 checkbox as filed; null on forms that predate it (2023).
    aff10b5_one: Option<bool>,
    /// What made `tradingPlan` true.
    #[schema(with = trading_plan_evidence_schema)]
    trading_plan_evidence: Option<&'a str>,
    /// The footnotes the row refers to, with their text.
    footnotes: &'a [Footnote],
    shares_owned_following: Option<f64>,
    /// Ownership form: direct (D) or indirect (I).
    #[schema(with = direct_or_indirect_schema)]
    direct_or_indirect: Option<&'a str>,
    /// Derivative rows: exercise or conversion price.
    exercise_price: Option<f64>,
    underlying_security: Option<&'a str>,
    underlying_shares: Option<f64>,
}

/// Another reporting owner of a joint filing.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "InsidersJointOwner")]
struct JointOwnerOut<'a> {
    name: &'a str,
    cik: &'a str,
    title: String,
}

/// The enums documented as components of their own (`InsidersTradingPlanEvidence`, `InsidersDirectOrIndirect`).
pub const TRADING_PLAN_EVIDENCE: [&str; 2] = ["checkbox", "footnote"];
pub const DIRECT_OR_INDIRECT: [&str; 2] = ["D", "I"];

fn code_schema() -> serde_json::Value {
    schema::string_enum(FORM4_CODES)
}

fn acquired_disposed_schema() -> serde_json::Value {
    schema::string_enum(&["A", "D"])
}

fn document_type_schema() -> serde_json::Value {
    schema::string_enum(&["4", "4/A"])
}

fn table_schema() -> serde_json::Value {
    schema::string_enum(&["non-derivative", "derivative"])
}

fn trading_plan_evidence_schema() -> serde_json::Value {
    schema::nullable(schema::reference("InsidersTradingPlanEvidence"))
}

fn direct_or_indirect_schema() -> serde_json::Value {
    schema::nullable(schema::reference("InsidersDirectOrIndirect"))
}

impl<'a> From<&'a TransactionRecord> for DetailOut<'a> {
    fn from(r: &'a TransactionRecord) -> Self {
        let filer = r.owners.first();
        let flag = |f: fn(&Owner) -> bool| filer.is_some_and(f);
        DetailOut {
            filing_id: &r.filing_id,
            accession_known: r.accession_known,
            document_type: &r.document_type,
            amendment: r.amendment,
            period_of_report: &r.period_of_report,
            table: &r.table,
            security_title: r.security_title.as_deref(),
            owner_cik: &r.owner_cik,
            is_director: flag(|o| o.is_director),
            is_officer: flag(|o| o.is_officer),
            is_ten_percent_owner: flag(|o| o.is_ten_percent_owner),
            is_other: flag(|o| o.is_other),
            officer_title: filer.and_then(|o| o.officer_title.as_deref()),
            joint_owners: r
                .owners
                .iter()
                .skip(1)
                .map(|o| JointOwnerOut { name: &o.name, cik: &o.cik, title: o.titles().join(", ") })
                .collect(),
            aff10b5_one: r.aff10b5_one,
            trading_plan_evidence: r.trading_plan_evidence.as_deref(),
            footnotes: &r.footnotes,
            shares_owned_following: r.shares_owned_following,
            direct_or_indirect: r.direct_or_indirect.as_deref(),
            exercise_price: r.exercise_price,
            underlying_security: r.underlying_security.as_deref(),
            underlying_shares: r.underlying_shares,
        }
    }
}

impl<'a> From<&'a Transaction> for FilingOut<'a> {
    fn from(t: &'a Transaction) -> Self {
        FilingOut {
            owner: &t.owner,
            title: t.titles.join(", "),
            code: &t.code,
            acquired_disposed: &t.acquired_disposed,
            accession_number: t.accession_number.as_deref(),
            source_url: t.source_url.as_deref(),
            date: &t.date,
            filed_date: t.filed_date.as_deref(),
            shares: t.shares,
            price: t.price,
            value: t.value(),
            trading_plan: t.trading_plan,
            detail: t.detail.as_deref().map(DetailOut::from),
        }
    }
}

/// One covered company and its insiders' Form 4 transactions.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "InsidersCompany")]
pub struct CompanyOut<'a> {
    ticker: &'a str,
    /// Issuer name.
    company: &'a str,
    /// The issuer's SEC CIK, 10 digits.
    #[schema(optional)]
    cik: &'a str,
    /// The issuer's chief executive officer among its reporting owners.
    ceo: &'a str,
    /// Transactions, newest first.
    filings: Vec<FilingOut<'a>>,
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let page = index.companies.select(request)?;
    let selected = page.items;
    let rows = selected
        .iter()
        .map(|c| index.filings(c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ApiError::unavailable(format!("the Form 4 transactions could not be read: {e}")))?;
    let companies: Vec<CompanyOut> = selected
        .iter()
        .zip(&rows)
        .map(|(c, filings): (&&CompanyFilings, _)| CompanyOut {
            ticker: &c.company.ticker,
            company: &c.company.company,
            cik: &c.company.cik,
            ceo: &c.company.ceo,
            filings: filings.iter().map(FilingOut::from).collect(),
        })
        .collect();
    Envelope::new(&index.meta, companies, page.next).respond()
}
