//! SEC filings end to end: `datahost ingest` reads the real Form 4 and 13F files of `../shared/corpus`, and
//! the real server then serves them (embedded and PostgreSQL mode), with provenance, never beside demo rows.
//! Every value asserted here was read by hand from the corpus file named beside it.

use datahost_tests::{corpus, pg::TestDb, Server, ServerOptions};
use serde_json::Value;

fn find<'a>(items: &'a Value, field: &str, value: Value) -> &'a Value {
    items
        .as_array()
        .and_then(|a| a.iter().find(|i| i[field] == value))
        .unwrap_or_else(|| panic!("no {field}={value} in {items}"))
}

/// Ingests companies, Form 4 and 13F into `server` and checks what it serves.
fn ingest_and_check(server: &Server) {
    let (Some(tickers), Some(form4), Some(thirteen_f)) =
        (corpus("sec-misc/company_tickers.json"), corpus("sec-form4"), corpus("sec-13f"))
    else {
        return;
    };
    let (code, out, err) = server.ingest("companies", &[&tickers], &[]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = server.ingest("insiders", &[&form4], &["--json"]);
    assert_eq!(code, 0, "every Form 4 of the corpus applies: {out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["applied"], 5);
    // 13F: the bare information table (no filer) and the bare cover page (no table) are refused by name.
    let (code, out, _) = server.ingest("institutional-holdings", &[&thirteen_f], &["--json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&out).unwrap();
    let refused: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "refused")
        .map(|f| f["file"].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    assert_eq!(refused, ["13F-HR.infotable.xml", "abacus.13F-HR.primarydoc.xml"]);
    assert_eq!(report["applied"], 5);

    server.wait_for_data("insiders", |_| true);
    server.wait_for_data("institutional-holdings", |_| true);

    // 0000320193-22-000061.txt: Apple, Adams Katherine L., S 9136 shares at 159.94 on 2022-05-04, filed 2022-05-06.
    let (status, body) = server.get("/v1/insiders?ticker=AAPL");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested");
    assert!(!body["meta"]["source"].as_str().unwrap().to_ascii_lowercase().contains("demo"), "{}", body["meta"]);
    let apple = &body["companies"][0];
    assert_eq!(apple["cik"], "0000320193");
    let first = find(&apple["filings"], "shares", 9136.0.into());
    assert_eq!(first["owner"], "Adams Katherine L.");
    assert_eq!(first["code"], "S");
    assert_eq!(first["price"], 159.94);
    assert_eq!(first["value"], 1_461_211.84);
    assert_eq!(first["date"], "2022-05-04");
    assert_eq!(first["filedDate"], "2022-05-06");
    assert_eq!(first["accessionNumber"], "0000320193-22-000061");
    assert_eq!(
        first["sourceUrl"],
        "https://www.sec.gov/Archives/edgar/data/320193/000032019322000061/0000320193-22-000061.txt"
    );
    assert_eq!(apple["filings"].as_array().unwrap().len(), 7, "7 S rows in the Apple filing");
    // The demo insiders (fictional people at NVDA) are gone once real filings are held.
    let (status, body) = server.get("/v1/insiders?ticker=NVDA");
    assert_eq!((status, body["count"].as_u64()), (200, Some(0)), "{body}");
    let (_, all) = server.get("/v1/insiders");
    let tickers: Vec<&str> =
        all["companies"].as_array().unwrap().iter().map(|c| c["ticker"].as_str().unwrap()).collect();
    assert_eq!(tickers, ["AAPL", "AIR", "ARW", "SCWO", "SNOW"], "only the issuers of the ingested filings");

    // The rosters derive from the same real filings (execs reloads just after the insiders it reads).
    let body = server.wait_for_route("/v1/execs?ticker=AAPL", |b| b["dataStatus"] == "ingested");
    assert_eq!(body["companies"][0]["execs"][0]["name"], "Adams Katherine L.");

    // 0001140361-23-013281.txt: filed by agent 0001140361 for METLIFE INC (CIK 0001099219), period 2021-12-31;
    // SPDR S&P ETF TRUST 78462F103: value 4245201 (dollars), 9866 shares.
    let (status, body) = server.get("/v1/institutional-holdings?cik=0001099219");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested");
    assert_eq!(body["filer"], "METLIFE INC");
    assert_eq!(body["accession"], "0001140361-23-013281");
    assert_eq!(body["filedDate"], "2023-03-23");
    assert_eq!(body["count"], 6);
    let spy = find(&body["holdings"], "cusip", "78462F103".into());
    assert_eq!(spy["valueUsd"], 4245201);
    assert_eq!(spy["shares"], 9866);
    // The filing agent's CIK is not a filer.
    let (status, _) = server.get("/v1/institutional-holdings?cik=0001140361");
    assert_eq!(status, 404);

    // Every filing the engine holds is searchable, although no EDGAR file was ingested into edgar-search itself:
    // its demo seed gives way to the real Form 4 and 13F filings (and the response says so).
    let body = server.wait_for_route("/v1/edgar-search?q=%22Adams%20Katherine%22", |b| {
        b["dataStatus"] == "ingested" && b["total"] == 1
    });
    let hit = &body["hits"][0];
    assert_eq!((hit["form"].as_str(), hit["entity"].as_str()), (Some("4"), Some("Apple Inc.")), "{hit}");
    assert_eq!(
        (hit["accession"].as_str(), hit["filedDate"].as_str()),
        (Some("0000320193-22-000061"), Some("2022-05-06"))
    );
    assert_eq!(hit["cik"], "0000320193");
    assert_eq!(
        hit["url"],
        "https://www.sec.gov/Archives/edgar/data/320193/000032019322000061/0000320193-22-000061.txt"
    );
    // 0001951757-25-000093.nc: ACORN CREEK CAPITAL LLC (CIK 0001994827), 13F-HR for 12-31-2024, FILING-DATE
    // 20250122, tableEntryTotal 77.
    let (_, body) = server.get("/v1/edgar-search?q=acorn%20creek&forms=13F-HR");
    assert_eq!(body["total"], 1, "{body}");
    let hit = &body["hits"][0];
    assert_eq!(
        (hit["accession"].as_str(), hit["filedDate"].as_str()),
        (Some("0001951757-25-000093"), Some("2025-01-22"))
    );
    assert_eq!((hit["cik"].as_str(), hit["entity"].as_str()), (Some("0001994827"), Some("ACORN CREEK CAPITAL LLC")));
    assert!(hit["snippet"].as_str().unwrap().contains("77 holdings"), "{hit}");
    // No demo filing is served beside them.
    let (_, body) = server.get("/v1/edgar-search?q=demo");
    assert_eq!(body["total"], 0, "{body}");
    // The two bare Form 4 XMLs (no EDGAR header, so no filed date) are not searchable; the three others are.
    let (_, body) = server.get("/v1/edgar-search?q=*&forms=4&limit=100");
    assert_eq!(body["total"], 3, "{body}");
    // Ingested records are served in the shapes /openapi.json documents, their additive fields included (the
    // demo seed's shapes are held to it in host_surface).
    server.assert_documented(&[
        "/v1/insiders?ticker=AAPL",
        "/v1/insiders?ticker=NVDA",
        "/v1/execs?ticker=AAPL",
        "/v1/institutional-holdings?cik=0001099219",
        "/v1/edgar-search?q=acorn%20creek&forms=13F-HR",
    ]);
}

#[test]
fn sec_filings_are_ingested_and_served_on_the_embedded_engine() {
    let server = Server::start_with(ServerOptions {
        extra_toml: "[engine]\nreload_interval_secs = 1\n".into(),
        ..Default::default()
    });
    ingest_and_check(&server);
}

#[test]
fn sec_filings_are_ingested_and_served_on_postgres() {
    let db = TestDb::create("ingest_sec");
    let server = Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() });
    ingest_and_check(&server);
    if corpus("sec-13f").is_none() {
        return;
    }
    // 13F holdings are table-backed: the stored document lists the filings' covers and only counts the
    // information-table rows, which each request reads by accession.
    let doc: String = db
        .client()
        .query_one("SELECT snapshot FROM datahost.datasets WHERE name = 'institutional-holdings'", &[])
        .unwrap()
        .get(0);
    let doc: Value = serde_json::from_str(&doc).unwrap();
    assert!(doc.get("holdings").is_none(), "the rows are not in the document");
    assert_eq!(doc["filings"].as_array().map(Vec::len), Some(5), "the five applied filings' covers");
    assert!(doc["ingested"]["collections"]["holdings"].as_u64().unwrap() > 0, "{}", doc["ingested"]);
    // Form 4 transaction rows are table-backed too: the document holds one `forms` record per filing and
    // counts the rows, which `/v1/insiders` and `/v1/execs` read per issuer (checked above).
    let doc: String =
        db.client().query_one("SELECT snapshot FROM datahost.datasets WHERE name = 'insiders'", &[]).unwrap().get(0);
    let doc: Value = serde_json::from_str(&doc).unwrap();
    assert!(doc.get("transactions").is_none(), "the rows are not in the document");
    assert_eq!(doc["forms"].as_array().map(Vec::len), Some(5), "one record per filing");
    // Transaction rows counted by hand (<nonDerivativeTransaction> + <derivativeTransaction> per file): Snowflake
    // 6 + 1, 374Water 1 + 1, AAR 1, Arrow 2, Apple 7.
    assert_eq!(doc["ingested"]["collections"]["transactions"], 19, "{}", doc["ingested"]);
}
