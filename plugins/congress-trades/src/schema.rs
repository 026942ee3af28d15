//! The OpenAPI fragment of `/v1/congress-trades`: the response schema derived from the served types
//! (`routes::Body`), the parameters, an example.

use datahost_plugin_api::openapi::{components_of, fragment_with, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::routes::{route_spec, Body};

pub fn fragment() -> Value {
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "House member stock-trade disclosures",
        description: "Periodic Transaction Reports filed by members of the U.S. House, newest filing first. \
            With `ticker`, only filings with a trade in that ticker are returned, each holding only those trades. \
            Filings are disclosed on a delay of up to 45 days. With ingested data, every PTR of the Clerk's \
            index is listed; one whose PDF has not been read has `parseStatus` `no-document` and empty trades \
            (unknown, not none), and can never match a `ticker` filter. These are trade disclosures, not voting \
            records or policy positions.",
        response: Body::schema(),
        example: Some(example()),
        extra_statuses: &[],
    };
    fragment_with(vec![(crate::ROUTE, op.path_item())], components_of::<Body>())
}

/// A real response on ingested data: the 2023 index plus the PTR of DocID 20022260 (`?ticker=googl&limit=1`,
/// first of its three GOOGL rows, as printed on page 1 of the PDF).
fn example() -> Value {
    json!({
        "meta": {
            "source": "U.S. House of Representatives, Office of the Clerk: the yearly Financial Disclosure index \
                       (FilingType P, Periodic Transaction Reports) and the e-filed PTR documents",
            "sourceUrl": "https://disclosures-clerk.house.gov/FinancialDisclosure",
            "method": "Every PTR listed in the Clerk's index is a filing; its PDF, when ingested, is read row by row.",
            "caveat": "Reports are disclosed up to 45 days after the trade; amounts are bucketed ranges.",
            "generatedAt": "2026-11-01T06:00:00Z",
            "filingsScanned": 1,
            "filingsWithTrades": 1,
            "filingsListed": 460,
            "filingsNoDocument": 459,
            "filingsUnreadable": 0,
            "filingsUndated": 0,
            "filingsSecondSource": 0
        },
        "count": 1,
        "filings": [{
            "member": "Nancy Pelosi",
            "docId": "20022260",
            "year": 2023,
            "filedDate": "2023-01-12",
            "sourceUrl": "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2023/20022260.pdf",
            "parseStatus": "parsed",
            "stateDistrict": "CA12",
            "amendment": false,
            "tradesSource": "pdf",
            "trades": [{
                "ticker": "GOOGL",
                "asset": "Alphabet Inc. - Class A",
                "type": "sale (partial)",
                "amountRange": "$500,001 - $1,000,000",
                "date": "2022-12-28",
                "bundled": false,
                "amountMin": 500001.0,
                "amountMax": 1000000.0,
                "owner": "SP",
                "assetType": "ST",
                "typeCode": "S (partial)",
                "notificationDate": "2022-12-28",
                "description": "Sold 10,000 shares.",
                "filingStatus": "New",
                "cik": "0001652044",
                "company": "Alphabet Inc."
            }]
        }]
    })
}
