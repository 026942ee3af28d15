//! The OpenAPI fragment of `/v1/institutional-holdings`: full response schema, parameters, example.

use datahost_plugin_api::openapi::{components_of, fragment_with, schema::string_enum, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::routes::{route_spec, Body, PUT_CALL};

pub fn fragment() -> Value {
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "Latest quarterly 13F holdings of an institutional filer",
        description: "The latest 13F-HR holdings (by period of report) of the filer matched by `cik` (preferred) or \
            by name `q`. One of the two is required: without both the answer is 400 saying that cik or q is \
            required. Holdings are sorted by value, largest first, and capped by `limit`; totalValueUsd always \
            covers every holding of the filing. An unknown filer is a 404.",
        response: Body::schema(),
        example: Some(example()),
        extra_statuses: &[(404, "No 13F filer matches the cik or q given.")],
    };
    let mut components = components_of::<Body>();
    components.insert("InstitutionalHoldingPutCall".into(), string_enum(&PUT_CALL));
    fragment_with(vec![(crate::ROUTE, op.path_item())], components)
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
        "next": "AnBwEeyqlVnUWzIwOTE0ODA3LCJERU1PMDAwMjIiLDFdAERFTU8tMTNGLTAwMDAwNoKtY1ICLofD",
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
