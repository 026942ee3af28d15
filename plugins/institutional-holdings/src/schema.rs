//! The OpenAPI fragment of `/v1/institutional-holdings`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let voting = object(&[("sole", integer()), ("shared", integer()), ("none", integer())]);
    let issuer = object(&[
        ("cik", with(string(), "pattern", json!("^[0-9]{10}$"))),
        (
            "ticker",
            describe(string(), "The company's primary ticker (not necessarily this share class); may be empty."),
        ),
        ("name", describe(string(), "The SEC's conformed company name.")),
    ]);
    let holding = object_with_optional(&[
        ("nameOfIssuer", describe(string(), "Issuer name as reported on the 13F information table.")),
        ("cusip", with(describe(string(), "CUSIP of the security."), "pattern", json!("^[0-9A-Z]{9}$"))),
        ("valueUsd", describe(number(), "Reported market value at quarter end, USD.")),
        ("shares", describe(number(), "Shares or principal amount held (underlying shares for options).")),
        (
            "putCall",
            describe(
                nullable(reference("InstitutionalHoldingPutCall")),
                "`Put` or `Call` for an option position; null for the security itself.",
            ),
        ),
        ("titleOfClass", describe(string(), "Title of the class of security, e.g. `COM`.")),
    ], &[
        ("sharesType", describe(string_enum(&["SH", "PRN"]), "Ingested data: `shares` counts shares (SH) or a principal amount (PRN).")),
        ("investmentDiscretion", describe(string(), "Ingested data: SOLE, DFND (shared-defined) or OTR (shared-other).")),
        ("votingAuthority", describe(voting, "Ingested data: shares over which the manager has sole, shared or no voting authority.")),
        ("accession", describe(string(), "Ingested data: the filing the row comes from (a NEW HOLDINGS amendment's rows carry the amendment's).")),
        ("issuer", describe(issuer, "Ingested data: the issuing company as the SEC's company list names it, when the issuer name matches there; absent otherwise.")),
    ]);
    let amendment = object(&[
        ("accession", string()),
        ("form", string()),
        ("amendmentType", string_enum(&["NEW HOLDINGS"])),
        ("filedDate", date()),
        ("sourceUrl", uri()),
    ]);
    let meta = object_with_optional(
        &[
            ("generatedAt", datetime()),
            ("source", describe(string(), "Where the data comes from; says so when it is demo data.")),
            ("sourceUrl", uri()),
            ("caveat", string()),
        ],
        &[
            ("method", describe(string(), "Ingested data: how the official files were read.")),
            (
                "ingested",
                describe(
                    object(&[("rows", integer()), ("files", integer()), ("lastIngestAt", string())]),
                    "Ingested data: what the records engine holds.",
                ),
            ),
        ],
    );
    let body = object_with_optional(&[
        ("cik", with(describe(string(), "Filer CIK, 10 digits, zero-padded."), "pattern", json!("^[0-9]{10}$"))),
        ("filer", describe(string(), "Filer (investment manager) name.")),
        ("accession", describe(string(), "Accession number of the filing.")),
        ("form", describe(string(), "Form type: `13F-HR`, or `13F-HR/A` when a restatement is the filing served.")),
        ("filedDate", describe(date(), "Date the filing was made.")),
        ("periodOfReport", describe(date(), "Quarter end the holdings are reported for (the filer's latest).")),
        (
            "matchedBy",
            describe(
                string_enum(&["cik", "exact", "prefix", "contains"]),
                "How the filer was found: by `cik`, or by `q` as the exact name, a name prefix or a substring.",
            ),
        ),
        ("count", describe(integer(), "Number of holdings returned.")),
        ("totalHoldings", describe(integer(), "Number of holdings in the filing.")),
        (
            "totalValueUsd",
            describe(number(), "Sum of valueUsd over ALL holdings of the filing, also when the list is capped."),
        ),
        (
            "truncated",
            describe(boolean(), "True when this response holds only part of the holdings (count < totalHoldings): a page of `limit`; `next` continues it."),
        ),
        (
            "holdings",
            describe(array(reference("InstitutionalHolding")), "Holdings, largest valueUsd first (then CUSIP), at most `limit`."),
        ),
        ("next", datahost_plugin_api::paging::next_schema()),
        ("meta", reference("InstitutionalHoldingsMeta")),
    ], &[
        ("amendmentType", describe(string_enum(&["RESTATEMENT"]), "Ingested data: the filing served is a 13F-HR/A restating the quarter (it replaces the original).")),
        ("valueUnit", describe(string_enum(&["dollars", "thousands"]), "Ingested data: the unit the filing reported its values in; valueUsd is always dollars (thousands are multiplied by 1000).")),
        ("valueUnitReason", describe(string(), "Ingested data: the evidence for valueUnit (implied share prices, filing date against the SEC's 2023-01-03 switch to dollars).")),
        ("sourceUrl", describe(uri(), "The filing: for ingested data the submission in the EDGAR archive; for the demo seed an address under the reserved https://demo.invalid/ host.")),
        ("amendments", describe(array(reference("InstitutionalHoldingsAmendment")), "Ingested data: NEW HOLDINGS amendments whose rows are included.")),
        ("unreadRows", describe(integer(), "Ingested data: information-table rows that could not be read at ingest; the holdings list lacks them.")),
    ]);
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "Latest quarterly 13F holdings of an institutional filer",
        description: "The latest 13F-HR holdings (by period of report) of the filer matched by `cik` (preferred) or \
            by name `q`. One of the two is required: without both the answer is 400 saying that cik or q is \
            required. Holdings are sorted by value, largest first, and capped by `limit`; totalValueUsd always \
            covers every holding of the filing. An unknown filer is a 404.",
        response: reference("InstitutionalHoldingsResponse"),
        example: Some(example()),
        extra_statuses: &[(404, "No 13F filer matches the cik or q given.")],
    };
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![
            ("InstitutionalHolding", holding),
            ("InstitutionalHoldingPutCall", string_enum(&["Put", "Call"])),
            ("InstitutionalHoldingsMeta", meta),
            ("InstitutionalHoldingsAmendment", amendment),
            ("InstitutionalHoldingsResponse", body),
        ],
    )
}

/// The demo seed's answer for `q=Meridian Oak Capital (demo)&limit=2` (a unit test checks it).
pub fn example() -> Value {
    json!({
        "cik": "0009990303",
        "filer": "Meridian Oak Capital (demo)",
        "accession": "DEMO-13F-000006",
        "form": "13F-HR",
        "filedDate": "2026-08-05",
        "periodOfReport": "2026-06-30",
        "matchedBy": "exact",
        "count": 2,
        "totalHoldings": 22,
        "totalValueUsd": 189975745,
        "truncated": true,
        "next": "eyJ2IjoxLCJxIjoiNzA3MDExZWNhYTk1NTlkNCIsImsiOlsyMDkxNDgwNywiREVNTzAwMDIyIiwxXSwiZyI6IkRFTU8tMTNGLTAwMDAwNiJ9TmHs8ftCE-I",
        "holdings": [
            {"nameOfIssuer": "EYRIEBROOK INC (DEMO)", "cusip": "DEMO00046", "valueUsd": 30983979, "shares": 357370, "putCall": null, "titleOfClass": "COM"},
            {"nameOfIssuer": "LANTERNWICK BANK CORPORATION (DEMO)", "cusip": "DEMO00022", "valueUsd": 20914807, "shares": 402440, "putCall": null, "titleOfClass": "COM"}
        ],
        "sourceUrl": "https://demo.invalid/institutional-holdings/DEMO-13F-000006",
        "meta": {
            "generatedAt": "2026-11-01T06:00:00Z",
            "source": "DEMO seed of datahost: 13F-HR information tables of fictional fund managers holding fictional securities, generated for development (not SEC filings)",
            "sourceUrl": "https://demo.invalid/institutional-holdings",
            "caveat": "DEMO DATA: every filer and issuer is fictional (names end in \"(demo)\"/\"(DEMO)\"), filer CIKs 0009990301-0009990399 are not assigned by the SEC, CUSIPs (DEMO#####) and accession numbers (DEMO-13F-<sequence>) are invented and every sourceUrl is under https://demo.invalid/; do not rely on them. 13F reports are filed up to 45 days after quarter end and list long positions in 13(f) securities only (no shorts, cash or most non-U.S. holdings)."
        }
    })
}
