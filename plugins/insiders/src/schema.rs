//! The OpenAPI fragment of `/v1/insiders`: full response schema, parameters, example.

use datahost_plugin_api::companies::CompaniesDoc;
use datahost_plugin_api::openapi::schema::*;
use serde_json::{json, Value};

use crate::routes::route_spec;

/// Every Form 4 transaction code (SEC Form 4 General Instructions, section 8).
const FORM4_CODES: &[&str] =
    &["P", "S", "V", "A", "D", "F", "I", "M", "C", "E", "H", "O", "X", "G", "L", "W", "Z", "J", "K", "U"];

pub fn fragment() -> Value {
    let filing = object_with_optional(
        &[
            ("owner", describe(string(), "Reporting owner's name.")),
            (
                "title",
                describe(
                    string(),
                    "Reporting owner's relationship to the issuer as filed; several titles are comma-separated \
                     (for example `Chief Executive Officer, Director`).",
                ),
            ),
            (
                "code",
                describe(
                    string_enum(FORM4_CODES),
                    "Form 4 transaction code: P open-market purchase, S open-market sale, A grant or award, \
                     M option exercise, F shares withheld for tax, G gift, D disposition to the issuer, and so on.",
                ),
            ),
            ("acquiredDisposed", describe(string_enum(&["A", "D"]), "A acquired, D disposed.")),
            ("accessionNumber", describe(string(), "SEC accession number of the Form 4, `0001234567-25-000123`.")),
            ("sourceUrl", describe(uri(), "The filing's index page in the SEC EDGAR archives.")),
            ("date", describe(date(), "Transaction date.")),
            ("shares", describe(number(), "Number of shares in the transaction.")),
            ("price", describe(number(), "Price per share in USD (0 for grants and gifts).")),
            ("value", describe(number(), "shares × price in USD, rounded to cents.")),
        ],
        &[
            ("filedDate", describe(date(), "Date the Form 4 was filed with the SEC.")),
            ("tradingPlan", describe(boolean(), "True when the filer checked the Rule 10b5-1(c) trading-plan box.")),
        ],
    );
    let company = object_with_optional(
        &[
            ("ticker", string()),
            ("company", describe(string(), "Issuer name.")),
            ("ceo", describe(string(), "The issuer's chief executive officer among its reporting owners.")),
            ("filings", describe(array(reference("InsidersFiling")), "Transactions, newest first.")),
        ],
        &[("cik", describe(string(), "The issuer's SEC CIK, 10 digits."))],
    );
    let route = route_spec();
    CompaniesDoc {
        route: &route,
        prefix: "Insiders",
        operation_id: "getInsiders",
        summary: "Form 4 insider transactions",
        description: "Form 4 transactions reported by officers and directors of each covered company, newest \
            first. Without `ticker`, every covered company is returned. Open-market sells (code S) are often \
            driven by pre-scheduled Rule 10b5-1 plans, tax withholding or diversification, not a bearish view.",
        generated_at: datetime(),
        caveat: "States that open-market sells (code S) are often driven by pre-scheduled plans (Rule 10b5-1), tax \
            withholding or diversification, not a bearish view.",
        extra_meta: vec![("method", describe(string(), "How the records were read from the source."))],
        company,
        extra_schemas: vec![("InsidersFiling", filing)],
        example: example(),
    }
    .fragment()
}

fn example() -> Value {
    json!({
        "meta": {
            "source": "datahost demo seed: fictional insiders at real issuers, generated for development (not real \
                Form 4 filings)",
            "sourceUrl": "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent&type=4",
            "method": "SEC Form 4 non-derivative table rows, one record per transaction row.",
            "caveat": "DEMO DATA: insider names and transactions are fictional. Open-market sells (code S) are \
                often driven by pre-scheduled Rule 10b5-1 trading plans, tax withholding or diversification, \
                not a bearish view on the company.",
            "generatedAt": "2026-11-01T06:00:00Z"
        },
        "count": 1,
        "companies": [{
            "ticker": "AAPL",
            "company": "Apple Inc.",
            "cik": "0000320193",
            "ceo": "Sebastian Kilbride",
            "filings": [{
                "owner": "Anselm Underhill",
                "title": "SVP and Chief People Officer",
                "code": "S",
                "acquiredDisposed": "D",
                "accessionNumber": "0000320193-26-040369",
                "sourceUrl": "https://www.sec.gov/Archives/edgar/data/320193/000032019326040369/0000320193-26-040369-index.htm",
                "date": "2026-10-19",
                "filedDate": "2026-10-20",
                "shares": 26550.0,
                "price": 249.04,
                "value": 6612012.0,
                "tradingPlan": true
            }]
        }]
    })
}
