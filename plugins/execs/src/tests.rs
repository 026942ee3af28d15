//! Roster tests on the insiders plugin's shipped seed, served by the SDK's in-process test host.

use datahost_plugin_api::testing::{get, manifest_problems, TestHost};
use datahost_plugin_api::Plugin;
use serde_json::{json, Value};

use crate::{Execs, ROUTE};

const INSIDERS_SEED: &str = include_str!("../../insiders/seed/insiders.json");

fn plugin() -> Execs {
    let host = TestHost::new();
    host.set_dataset("insiders", INSIDERS_SEED);
    host.init::<Execs>().expect("init on the insiders seed")
}

fn roster(body: &Value) -> Vec<(String, String, u64, String, String)> {
    body["companies"][0]["execs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["titles"].as_str().unwrap().to_string(),
                e["filingCount"].as_u64().unwrap(),
                e["lastFilingDate"].as_str().unwrap().to_string(),
                e["lastCode"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn row(name: &str, titles: &str, count: u64, last: &str, code: &str) -> (String, String, u64, String, String) {
    (name.into(), titles.into(), count, last.into(), code.into())
}

#[test]
fn manifest_reads_insiders_and_ships_no_data() {
    assert_eq!(manifest_problems::<Execs>(), Vec::<String>::new());
    let m = Execs::manifest();
    assert_eq!(m.reads, ["insiders"]);
    assert!(m.datasets.is_empty());
    assert!(Execs::seeds().is_empty());
}

#[test]
fn init_fails_without_the_insiders_dataset() {
    let err = TestHost::new().init::<Execs>().err().unwrap().to_string();
    assert!(err.contains("insiders"), "{err}");
}

#[test]
fn orch_roster_hand_checked() {
    let (status, body) = get(&plugin(), ROUTE, &[("ticker", "orch")]);
    assert_eq!(status, 200);
    assert_eq!(body["count"], 1);
    let c = &body["companies"][0];
    assert_eq!((c["ticker"].as_str(), c["company"].as_str()), (Some("ORCH"), Some("Orchard Computing Inc. (demo)")));
    assert_eq!(c["ceo"], "Sebastian Kilbride");
    assert_eq!(
        roster(&body),
        [
            row("Anselm Underhill", "SVP and Chief People Officer", 1, "2026-10-20", "S"),
            row("Valentina Whitmore-Hale", "Director", 1, "2026-08-12", "S"),
            // Four Form 4s, three of them an exercise (M) and its sale (S) under one accession: the last row is S.
            row("Fitzgerald Lockwood-Avery", "Chief Operating Officer", 4, "2026-07-15", "S"),
            row("Elspeth Cheverell", "Director", 2, "2026-06-15", "P"),
            row("Sebastian Kilbride", "Chief Executive Officer, Director", 1, "2026-02-12", "A"),
        ]
    );
}

#[test]
fn blfn_roster_merges_titles_and_breaks_date_ties_by_name() {
    let (_, body) = get(&plugin(), ROUTE, &[("ticker", "BLFN")]);
    assert_eq!(
        roster(&body),
        [
            row("Bettina Abernethy-Vale", "Director", 1, "2026-08-25", "S"),
            row("Marisol Thistlewood", "EVP and General Counsel", 2, "2026-07-22", "S"),
            row("Percival Ingleby", "Chief Executive Officer, Director", 1, "2026-07-22", "S"),
            // Promoted mid-year: the current title first, the earlier one after it.
            row(
                "Genevieve Ormsby",
                "President and Chief Operating Officer, EVP and Chief Operating Officer",
                2,
                "2026-07-01",
                "S"
            ),
            row("Marisol Dunmore", "Director", 1, "2026-04-29", "P"),
            row("Ulysses Northcote", "Director", 1, "2026-04-28", "A"),
            row("Winifred Zellweger-Moss", "Chief Financial Officer", 1, "2026-03-02", "S"),
            row("Ophelia Lockwood-Avery", "EVP Global Sales", 1, "2025-12-08", "S"),
        ]
    );
}

#[test]
fn a_director_on_several_boards_is_listed_per_company() {
    let p = plugin();
    let entry = |ticker: &str| {
        let (_, body) = get(&p, ROUTE, &[("ticker", ticker)]);
        roster(&body).into_iter().find(|r| r.0 == "Cornelius Tredwell").unwrap()
    };
    assert_eq!(entry("LMCS"), row("Cornelius Tredwell", "Director", 2, "2026-01-12", "A"));
    assert_eq!(entry("WLHB"), row("Cornelius Tredwell", "Director", 1, "2026-06-18", "P"));
    assert_eq!(entry("FZWL"), row("Cornelius Tredwell", "Director", 1, "2025-11-26", "P"));
}

#[test]
fn all_companies_limit_default_and_clamp() {
    let p = plugin();
    let (_, all) = get(&p, ROUTE, &[]);
    assert_eq!(all["count"], 20);
    let people: usize = all["companies"].as_array().unwrap().iter().map(|c| c["execs"].as_array().unwrap().len()).sum();
    assert_eq!(people, 129);
    assert_eq!(all["meta"]["derivedFrom"], "insiders");
    assert!(all["meta"]["caveat"].as_str().unwrap().contains("DEMO DATA"));
    let (_, three) = get(&p, ROUTE, &[("limit", "3")]);
    assert_eq!(three["count"], 3);
    let tickers: Vec<&str> =
        three["companies"].as_array().unwrap().iter().map(|c| c["ticker"].as_str().unwrap()).collect();
    assert_eq!(tickers, ["BLFN", "BSOP", "BWRD"]);
    let (_, clamped) = get(&p, ROUTE, &[("limit", "99999")]);
    assert_eq!(clamped["count"], 20);
    let (_, one) = get(&p, ROUTE, &[("ticker", "BLFN"), ("limit", "1")]);
    assert_eq!(one["count"], 1);
}

#[test]
fn every_company_lists_its_ceo_once_and_orders_execs() {
    let (_, all) = get(&plugin(), ROUTE, &[]);
    for c in all["companies"].as_array().unwrap() {
        let execs = c["execs"].as_array().unwrap();
        let ceo: Vec<&Value> = execs.iter().filter(|e| e["name"] == c["ceo"]).collect();
        assert_eq!(ceo.len(), 1, "{}", c["ticker"]);
        assert!(ceo[0]["titles"].as_str().unwrap().contains("Chief Executive Officer"));
        let mut names: Vec<&str> = execs.iter().map(|e| e["name"].as_str().unwrap()).collect();
        let keys: Vec<(&str, &str)> =
            execs.iter().map(|e| (e["lastFilingDate"].as_str().unwrap(), e["name"].as_str().unwrap())).collect();
        assert!(keys.windows(2).all(|w| w[0].0 > w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1)), "{keys:?}");
        names.sort();
        names.dedup();
        assert_eq!(names.len(), execs.len(), "one entry per person");
    }
}

#[test]
fn shared_company_rules_and_400s() {
    // The SDK's companies::check_endpoint initialises on the plugin's own seeds, which execs has none of.
    let p = plugin();
    let (_, none) = get(&p, ROUTE, &[("ticker", "ZZZZ")]);
    assert_eq!((&none["count"], &none["companies"]), (&json!(0), &json!([])));
    for (query, message) in [
        (("limit", "0"), "limit must be a positive integer, got `0`"),
        (("limit", "many"), "limit must be a positive integer, got `many`"),
        (("ticker", "A B"), "ticker must be letters, digits, '.', '-', '/', '^' or '=', got `A B`"),
    ] {
        let (status, body) = get(&p, ROUTE, &[query]);
        assert_eq!(status, 400);
        assert_eq!(body["error"], message);
        assert_eq!(body["code"], 400);
    }
}

#[test]
fn a_record_without_filed_date_falls_back_to_its_transaction_date() {
    let host = TestHost::new();
    host.set_dataset(
        "insiders",
        r#"{"meta": {"source": "s", "sourceUrl": "u", "caveat": "c", "generatedAt": "g"},
            "companies": [{"ticker": "ABC", "company": "Abc Corp", "cik": "1", "ceo": "Pat Doe"}],
            "filings": [
              {"ticker": "abc", "owner": "Pat Doe", "titles": ["Director"], "code": "P", "date": "2026-01-02",
               "accessionNumber": "0000000001-26-000001"},
              {"ticker": "ABC", "owner": "Pat Doe", "titles": ["Chief Executive Officer", "Director"], "code": "S",
               "date": "2026-03-02", "filedDate": "2026-03-04", "accessionNumber": "0000000001-26-000002"}]}"#,
    );
    let (_, body) = get(&host.init::<Execs>().unwrap(), ROUTE, &[]);
    assert_eq!(roster(&body), [row("Pat Doe", "Chief Executive Officer, Director", 2, "2026-03-04", "S")]);
}

/// The Form 4 files of the shared corpus, parsed by the insiders parser (`None` when the corpus is absent).
fn ingested_corpus() -> Option<Vec<datahost_plugin_api::IngestBatch>> {
    const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/sec-form4/");
    let names = [
        "form4.snow.xml",
        "374WaterForm4.xml",
        "0001127602-25-001055.txt",
        "0001127602-25-004598.nc",
        "0000320193-22-000061.txt",
    ];
    let mut batches = Vec::new();
    for name in names {
        let Ok(bytes) = std::fs::read(format!("{CORPUS}{name}")) else {
            eprintln!("corpus absent: skipping");
            return None;
        };
        let file = datahost_plugin_api::SourceFile { name, bytes: &bytes };
        batches.push(crate::ingest::ingest(&file).unwrap_or_else(|r| panic!("{name} refused: {r}")));
    }
    Some(batches)
}

#[test]
fn rosters_from_ingested_form4_filings_hand_checked() {
    let Some(batches) = ingested_corpus() else { return };
    let host = TestHost::new();
    host.set_ingested("insiders", &batches);
    let p = host.init::<Execs>().unwrap();
    let (status, all) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200);
    let tickers: Vec<&str> =
        all["companies"].as_array().unwrap().iter().map(|c| c["ticker"].as_str().unwrap()).collect();
    assert_eq!(tickers, ["AAPL", "AIR", "ARW", "SCWO", "SNOW"]);
    assert!(!all["meta"]["caveat"].as_str().unwrap().contains("DEMO"));
    assert_eq!(all["meta"]["derivedFrom"], "insiders");
    let one = |ticker: &str| {
        let (_, body) = get(&p, ROUTE, &[("ticker", ticker)]);
        assert_eq!(body["companies"][0]["ceo"], "", "no owner of these filings is the CEO");
        roster(&body)
    };
    // Seven S rows of one filing, FILED AS OF DATE 20220506.
    assert_eq!(one("AAPL"), [row("Adams Katherine L.", "SVP, GC and Secretary", 1, "2022-05-06", "S")]);
    assert_eq!(one("AIR"), [row("Garascia Jessica A.", "Senior VP, GC, CAO & Secretary", 1, "2025-01-10", "S")]);
    // <FILING-DATE>20250213; the A row then the F row: the last row of the filing is F.
    assert_eq!(one("ARW"), [row("Jean-Claude Carine Lamercie", "SVP, CLO & Secretary", 1, "2025-02-13", "F")]);
    // Bare XML has no filed date: the transaction date (2025-04-30) stands in; the last row is the option grant.
    assert_eq!(one("SCWO"), [row("Melkote Rajesh Ramaswamy", "Chief Technology Officer", 1, "2025-04-30", "A")]);
    // The derivative M row follows the five S rows of the non-derivative table.
    assert_eq!(one("SNOW"), [row("Scarpelli Michael", "Chief Financial Officer", 1, "2022-12-13", "M")]);
}

#[test]
fn ingested_joint_filing_lists_each_owner_and_resolves_a_missing_ticker() {
    // A hand-written fixture: an issuer without trading symbol, a CEO and a 10% owner filing jointly.
    let owner = |cik: &str, name: &str, relationship: &str| {
        format!(
            "<reportingOwner><reportingOwnerId><rptOwnerCik>{cik}</rptOwnerCik><rptOwnerName>{name}</rptOwnerName>\
             </reportingOwnerId><reportingOwnerRelationship>{relationship}</reportingOwnerRelationship></reportingOwner>"
        )
    };
    let xml = format!(
        "<ownershipDocument><documentType>4</documentType><periodOfReport>2025-03-03</periodOfReport>\
         <issuer><issuerCik>42</issuerCik><issuerName>Fixture Corp</issuerName></issuer>{}{}\
         <nonDerivativeTable><nonDerivativeTransaction><transactionDate><value>2025-03-03</value></transactionDate>\
         <transactionCoding><transactionCode>P</transactionCode></transactionCoding><transactionAmounts>\
         <transactionShares><value>5</value></transactionShares><transactionAcquiredDisposedCode><value>A</value>\
         </transactionAcquiredDisposedCode></transactionAmounts></nonDerivativeTransaction></nonDerivativeTable>\
         </ownershipDocument>",
        owner("7", "Doe Pat", "<isOfficer>1</isOfficer><officerTitle>Chief Executive Officer</officerTitle>"),
        owner("8", "Doe Holdings LLC", "<isTenPercentOwner>true</isTenPercentOwner>"),
    );
    let file = datahost_plugin_api::SourceFile { name: "0000000042-25-000001.xml", bytes: xml.as_bytes() };
    let batch = crate::ingest::ingest(&file).unwrap();
    let host = TestHost::new();
    host.set_ingested("insiders", &[batch]);
    host.set_companies(vec![datahost_plugin_api::reference::CompanyRef {
        cik: "0000000042".into(),
        ticker: "FXTR".into(),
        name: "FIXTURE CORP".into(),
    }]);
    let (_, body) = get(&host.init::<Execs>().unwrap(), ROUTE, &[("ticker", "fxtr")]);
    assert_eq!(body["companies"][0]["ceo"], "Doe Pat");
    assert_eq!(
        roster(&body),
        [
            row("Doe Holdings LLC", "10% Owner", 1, "2025-03-03", "P"),
            row("Doe Pat", "Chief Executive Officer", 1, "2025-03-03", "P"),
        ]
    );
}
