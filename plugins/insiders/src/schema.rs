//! The OpenAPI fragment of `/v1/insiders`: full response schema, parameters, example.

use datahost_plugin_api::openapi::schema::*;
use datahost_plugin_kit::companies::{derived_company, CompaniesDoc};
use serde_json::{json, Value};

use crate::routes::{route_spec, CompanyOut, DIRECT_OR_INDIRECT, TRADING_PLAN_EVIDENCE};

pub fn fragment() -> Value {
    let (company, mut extra_schemas) = derived_company::<CompanyOut>("Insiders");
    extra_schemas.push(("InsidersTradingPlanEvidence".into(), string_enum(&TRADING_PLAN_EVIDENCE)));
    extra_schemas.push(("InsidersDirectOrIndirect".into(), string_enum(&DIRECT_OR_INDIRECT)));
    let route = route_spec();
    CompaniesDoc {
        route: &route,
        prefix: "Insiders",
        summary: "Form 4 insider transactions",
        description: "Form 4 transactions reported by officers and directors of each covered company, newest \
            first. Without `ticker`, every covered company is returned. Open-market sells (code S) are often \
            driven by pre-scheduled Rule 10b5-1 plans, tax withholding or diversification, not a bearish view.",
        generated_at: datetime(),
        caveat: "States that open-market sells (code S) are often driven by pre-scheduled plans (Rule 10b5-1), tax \
            withholding or diversification, not a bearish view.",
        extra_meta: vec![("method", describe(string(), "How the records were read from the source."))],
        company,
        extra_schemas,
        example: example(),
    }
    .fragment()
}

/// A real ingested row: the first sale of EDGAR filing 0000320193-22-000061 (Apple, Katherine L. Adams).
fn example() -> Value {
    let mut filing = json!({
        "owner": "Adams Katherine L.",
        "title": "SVP, GC and Secretary",
        "code": "S",
        "acquiredDisposed": "D",
        "accessionNumber": "0000320193-22-000061",
        "sourceUrl": "https://www.sec.gov/Archives/edgar/data/320193/000032019322000061/0000320193-22-000061.txt",
        "date": "2022-05-04",
        "filedDate": "2022-05-06",
        "shares": 9136.0,
        "price": 159.94,
        "value": 1461211.84,
        "tradingPlan": true
    });
    let ingested = json!({
        "filingId": "0000320193-22-000061",
        "accessionKnown": true,
        "documentType": "4",
        "amendment": false,
        "periodOfReport": "2022-05-04",
        "table": "non-derivative",
        "securityTitle": "Common Stock",
        "ownerCik": "0001462356",
        "isDirector": false,
        "isOfficer": true,
        "isTenPercentOwner": false,
        "isOther": false,
        "officerTitle": "SVP, GC and Secretary",
        "jointOwners": [],
        "aff10b5One": null,
        "tradingPlanEvidence": "footnote",
        "footnotes": [
            {"id": "F1", "text": "This transaction was made pursuant to a Rule 10b5-1 trading plan adopted by the \
                reporting person on August 16, 2021."},
            {"id": "F2", "text": "This transaction was executed in multiple trades at prices ranging from $159.42 to \
                $160.41; the price reported above reflects the weighted average sale price. ..."}
        ],
        "sharesOwnedFollowing": 468198.0,
        "directOrIndirect": "D",
        "exercisePrice": null,
        "underlyingSecurity": null,
        "underlyingShares": null
    });
    if let (Value::Object(all), Value::Object(extra)) = (&mut filing, ingested) {
        all.extend(extra);
    }
    json!({
        "meta": {
            "source": "SEC EDGAR Form 4 filings (Statement of Changes in Beneficial Ownership): 7 transaction rows \
                from 1 filings in 1 ingested files",
            "sourceUrl": "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent&type=4",
            "method": "Read from each filing's ownershipDocument XML (bare XML, EDGAR .txt submissions, EDGAR feed \
                .nc files): one record per non-derivative and derivative transaction row with its reporting owner.",
            "caveat": "Open-market sells (code S) are often driven by pre-scheduled Rule 10b5-1 trading plans, tax \
                withholding or diversification, not a bearish view on the company.",
            "generatedAt": "2026-11-01T06:00:00Z"
        },
        "count": 1,
        "companies": [{"ticker": "AAPL", "company": "Apple Inc.", "cik": "0000320193", "ceo": "", "filings": [filing]}]
    })
}
