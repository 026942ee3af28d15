//! `GET /v1/insiders`: every covered company with its Form 4 transactions, or one company with `ticker`.

use datahost_plugin_api::{ApiError, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, Envelope};
use serde::Serialize;

use crate::data::{CompanyFilings, Index, Transaction};
use crate::records::{Footnote, Owner, TransactionRecord};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FilingOut<'a> {
    owner: &'a str,
    title: String,
    code: &'a str,
    acquired_disposed: &'a str,
    accession_number: Option<&'a str>,
    source_url: Option<&'a str>,
    date: &'a str,
    filed_date: Option<&'a str>,
    shares: f64,
    price: Option<f64>,
    value: Option<f64>,
    trading_plan: bool,
    /// Ingested rows only: everything else the filing says about the row.
    #[serde(flatten)]
    detail: Option<DetailOut<'a>>,
}

/// The additive fields of an ingested row.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DetailOut<'a> {
    filing_id: &'a str,
    accession_known: bool,
    document_type: &'a str,
    amendment: bool,
    period_of_report: &'a str,
    table: &'a str,
    security_title: Option<&'a str>,
    owner_cik: &'a str,
    is_director: bool,
    is_officer: bool,
    is_ten_percent_owner: bool,
    is_other: bool,
    officer_title: Option<&'a str>,
    /// The other reporting owners of a joint filing.
    joint_owners: Vec<JointOwnerOut<'a>>,
    aff10b5_one: Option<bool>,
    trading_plan_evidence: Option<&'a str>,
    footnotes: &'a [Footnote],
    shares_owned_following: Option<f64>,
    direct_or_indirect: Option<&'a str>,
    exercise_price: Option<f64>,
    underlying_security: Option<&'a str>,
    underlying_shares: Option<f64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JointOwnerOut<'a> {
    name: &'a str,
    cik: &'a str,
    title: String,
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompanyOut<'a> {
    ticker: &'a str,
    company: &'a str,
    cik: &'a str,
    ceo: &'a str,
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
