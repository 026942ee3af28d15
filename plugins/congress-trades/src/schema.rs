//! The OpenAPI fragment of `/v1/congress-trades`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use datahost_plugin_kit::disclosure::{amount_bound_schemas, meta_schemas, trade_schemas};
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let mut trade_fields =
        trade_schemas("Transaction type; observed values: purchase, sale, sale (partial), exchange.");
    trade_fields
        .push(("bundled", describe(boolean(), "True when the filer reported several transactions as one line.")));
    let trade = object_with_optional(&trade_fields, &trade_details());
    let filing = object_with_optional(
        &[
            ("member", describe(string(), "House member who filed the report.")),
            ("docId", describe(string(), "Report identifier in the House Clerk's financial-disclosure system.")),
            ("year", describe(integer(), "Filing year of the report in the Clerk's index.")),
            ("filedDate", describe(date(), "Date the report was filed.")),
            ("trades", array(reference("CongressTrade"))),
        ],
        &filing_details(),
    );
    let mut meta_fields = meta_schemas();
    meta_fields.push((
        "filingsScanned",
        describe(
            integer(),
            "Periodic Transaction Reports whose document was read, including those with no trade rows.",
        ),
    ));
    meta_fields.push(("filingsWithTrades", describe(integer(), "Filings in the snapshot holding at least one trade.")));
    let meta = object_with_optional(&meta_fields, &coverage());
    let body = object(&[
        ("meta", reference("CongressTradesMeta")),
        ("count", describe(integer(), "Number of filings returned.")),
        ("filings", array(reference("CongressFiling"))),
        ("next", datahost_plugin_api::paging::next_schema()),
    ]);
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
        response: reference("CongressTradesResponse"),
        example: Some(example()),
        extra_statuses: &[],
    };
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![
            ("CongressTrade", trade),
            ("CongressFiling", filing),
            ("CongressTradesMeta", meta),
            ("CongressTradesResponse", body),
        ],
    )
}

/// The additive fields of an ingested trade (absent from the demo seed).
fn trade_details() -> Vec<(&'static str, Value)> {
    let mut fields: Vec<(&'static str, Value)> = amount_bound_schemas().into_iter().collect();
    fields.extend([
        ("owner", describe(string_enum(&["SP", "JT", "DC", "self"]), "Spouse, joint, dependent child or the member.")),
        (
            "assetType",
            describe(nullable(string()), "The Clerk's asset type code as printed (`ST` stock, `OP` option...)."),
        ),
        ("typeCode", describe(string(), "Transaction type as printed: P, S, S (partial), E.")),
        (
            "notificationDate",
            describe(date(), "Date the member was notified of the transaction (absent for House Stock Watcher rows)."),
        ),
        ("description", describe(string(), "The row's Description line, as printed.")),
        ("comment", describe(string(), "The row's Comments line, as printed.")),
        ("location", describe(string(), "The row's Location line, as printed.")),
        ("subholdingOf", describe(string(), "The row's Subholding Of line, as printed.")),
        ("filingStatus", describe(string(), "The row's Filing Status as printed (New, Amended).")),
        ("transactionId", describe(string(), "The Clerk's transaction id (ID column), printed on amended rows.")),
        ("cik", describe(string(), "SEC CIK of the ticker's company, when the companies list knows it.")),
        ("company", describe(string(), "SEC conformed name of the ticker's company.")),
    ]);
    fields
}

/// The additive fields of an ingested filing (absent from the demo seed).
fn filing_details() -> Vec<(&'static str, Value)> {
    vec![
        ("sourceUrl", describe(uri(), "The official PTR document on disclosures-clerk.house.gov.")),
        (
            "parseStatus",
            describe(
                string_enum(&["parsed", "no-document", "unreadable"]),
                "parsed: trades read from the PDF; no-document: listed in the index, PDF not ingested (trades \
                 unknown, not none); unreadable: the PDF was ingested but its trades could not be read.",
            ),
        ),
        ("parseProblem", describe(string(), "Why the document is unreadable.")),
        ("stateDistrict", describe(string(), "State and district, e.g. CA12.")),
        ("amendment", describe(boolean(), "The report amends an earlier PTR (rows marked Amended or Deleted).")),
        (
            "unreadRows",
            describe(integer(), "Transaction rows of the PDF that could not be read: trades are incomplete."),
        ),
        ("withdrawnTrades", describe(integer(), "Rows marked Deleted: trades of an earlier PTR this one withdraws.")),
        (
            "tradesSource",
            describe(
                string_enum(&["pdf", "house-stock-watcher"]),
                "Where the trades come from: pdf (the parsed PTR document) or house-stock-watcher (the House Stock \
                 Watcher export's transcription, served only when the PDF was not read). Absent: no trades known.",
            ),
        ),
    ]
}

/// The additive `meta` fields of ingested data.
fn coverage() -> Vec<(&'static str, Value)> {
    vec![
        ("filingsListed", describe(integer(), "PTR filings listed (index rows of FilingType P and ingested PDFs).")),
        ("filingsNoDocument", describe(integer(), "Listed filings whose PDF is not ingested.")),
        ("filingsUnreadable", describe(integer(), "Listed filings whose PDF could not be read.")),
        ("filingsUndated", describe(integer(), "PTRs not listed because no filing date is known.")),
        (
            "filingsSecondSource",
            describe(integer(), "Filings whose PDF was not read, served from the House Stock Watcher export."),
        ),
    ]
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
