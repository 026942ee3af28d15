//! The OpenAPI fragment of `/v1/insiders`: full response schema, parameters, example.

use datahost_plugin_api::openapi::schema::*;
use datahost_plugin_kit::companies::CompaniesDoc;
use serde_json::{json, Value};

use crate::form4::FORM4_CODES;
use crate::routes::route_spec;

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
            (
                "accessionNumber",
                describe(
                    nullable(string()),
                    "SEC accession number of the Form 4, `0001234567-25-000123`; null for a filing ingested as \
                     bare XML whose accession number is unknown (see `accessionKnown`, `filingId`).",
                ),
            ),
            (
                "sourceUrl",
                describe(
                    nullable(uri()),
                    "The filing in the SEC EDGAR archives (`.../Archives/edgar/data/<cik>/<accession>/...`); null \
                     when the accession number is unknown.",
                ),
            ),
            ("date", describe(date(), "Transaction date.")),
            ("shares", describe(number(), "Number of shares (or underlying units) in the transaction.")),
            (
                "price",
                describe(
                    nullable(number()),
                    "Price per share in USD as filed (0 for grants and gifts); null when the filing gives the \
                     price only in a footnote.",
                ),
            ),
            ("value", describe(nullable(number()), "shares × price in USD, rounded to cents; null when price is.")),
        ],
        &[
            (
                "filedDate",
                describe(
                    nullable(date()),
                    "Date the Form 4 was filed with the SEC (EDGAR header); null for bare XML, which has none.",
                ),
            ),
            (
                "tradingPlan",
                describe(
                    boolean(),
                    "True when the filer checked the Rule 10b5-1(c) trading-plan box or (ingested filings) a \
                     footnote of the row says the trade was made under a 10b5-1 plan.",
                ),
            ),
            ("filingId", describe(string(), "Ingested: the accession number, or `xml-sha256-<hex>` of the content.")),
            ("accessionKnown", describe(boolean(), "Ingested: false when the accession number is unknown.")),
            ("documentType", describe(string_enum(&["4", "4/A"]), "Ingested: `4/A` for an amendment.")),
            ("amendment", boolean()),
            ("periodOfReport", date()),
            ("table", describe(string_enum(&["non-derivative", "derivative"]), "Ingested: the Form 4 table.")),
            ("securityTitle", nullable(string())),
            ("ownerCik", describe(string(), "The reporting owner's CIK, 10 digits.")),
            ("isDirector", boolean()),
            ("isOfficer", boolean()),
            ("isTenPercentOwner", boolean()),
            ("isOther", boolean()),
            ("officerTitle", nullable(string())),
            (
                "jointOwners",
                describe(array(reference("InsidersJointOwner")), "The other reporting owners of a joint filing."),
            ),
            (
                "aff10b5One",
                describe(
                    nullable(boolean()),
                    "The Rule 10b5-1 checkbox as filed; null on forms that predate it (2023).",
                ),
            ),
            (
                "tradingPlanEvidence",
                describe(nullable(reference("InsidersTradingPlanEvidence")), "What made `tradingPlan` true."),
            ),
            (
                "footnotes",
                describe(array(reference("InsidersFootnote")), "The footnotes the row refers to, with their text."),
            ),
            ("sharesOwnedFollowing", nullable(number())),
            (
                "directOrIndirect",
                describe(
                    nullable(reference("InsidersDirectOrIndirect")),
                    "Ownership form: direct (D) or indirect (I).",
                ),
            ),
            ("exercisePrice", describe(nullable(number()), "Derivative rows: exercise or conversion price.")),
            ("underlyingSecurity", nullable(string())),
            ("underlyingShares", nullable(number())),
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
        summary: "Form 4 insider transactions",
        description: "Form 4 transactions reported by officers and directors of each covered company, newest \
            first. Without `ticker`, every covered company is returned. Open-market sells (code S) are often \
            driven by pre-scheduled Rule 10b5-1 plans, tax withholding or diversification, not a bearish view.",
        generated_at: datetime(),
        caveat: "States that open-market sells (code S) are often driven by pre-scheduled plans (Rule 10b5-1), tax \
            withholding or diversification, not a bearish view.",
        extra_meta: vec![("method", describe(string(), "How the records were read from the source."))],
        company,
        extra_schemas: vec![
            ("InsidersFiling".into(), filing),
            ("InsidersTradingPlanEvidence".into(), string_enum(&["checkbox", "footnote"])),
            ("InsidersDirectOrIndirect".into(), string_enum(&["D", "I"])),
            ("InsidersJointOwner".into(), object(&[("name", string()), ("cik", string()), ("title", string())])),
            ("InsidersFootnote".into(), object(&[("id", string()), ("text", nullable(string()))])),
        ],
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
