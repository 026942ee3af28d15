//! `GET /v1/insiders`: every covered company with its Form 4 transactions, or one company with `ticker`.

use datahost_plugin_api::companies::{self, respond};
use datahost_plugin_api::{ApiError, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;

use crate::data::{CompanyFilings, Index, Transaction};

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
    accession_number: &'a str,
    source_url: &'a str,
    date: &'a str,
    filed_date: &'a str,
    shares: f64,
    price: f64,
    value: f64,
    trading_plan: bool,
}

impl<'a> From<&'a Transaction> for FilingOut<'a> {
    fn from(t: &'a Transaction) -> Self {
        FilingOut {
            owner: &t.owner,
            title: t.titles.join(", "),
            code: &t.code,
            acquired_disposed: &t.acquired_disposed,
            accession_number: &t.accession_number,
            source_url: &t.source_url,
            date: &t.date,
            filed_date: &t.filed_date,
            shares: t.shares,
            price: t.price,
            value: t.value(),
            trading_plan: t.trading_plan,
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
    respond(&index.companies, &index.meta, request, |c: &CompanyFilings| CompanyOut {
        ticker: &c.company.ticker,
        company: &c.company.company,
        cik: &c.company.cik,
        ceo: &c.company.ceo,
        filings: c.filings.iter().map(FilingOut::from).collect(),
    })
}
