//! Public disclosures and markets end to end: `datahost ingest` reads the real House, Senate, FEC and price
//! files of `../shared/corpus`, then the real server serves them, in the embedded engine and in PostgreSQL,
//! never beside demo rows. Re-ingesting changes nothing; a cut file is refused by name and changes nothing.
//! Every value asserted was read by hand from the corpus file and line named beside it.

use std::path::PathBuf;

use datahost_tests::{corpus, pg::TestDb, Server, ServerOptions};
use serde_json::Value;

/// The corpus files of each dataset, or `None` (with a note) when the corpus is absent.
fn sources() -> Option<Vec<(&'static str, Vec<PathBuf>)>> {
    Some(vec![
        ("companies", vec![corpus("sec-misc/company_tickers.json")?]),
        (
            "congress-trades",
            vec![
                corpus("house-fd/2023FD.xml")?,
                corpus("house-fd/20022260.pdf")?,
                corpus("house-stock-watcher/all_transactions.csv")?,
            ],
        ),
        ("senate-trades", vec![corpus("senate-stock-watcher/all_transactions_for_senators.json")?]),
        (
            "donors",
            vec![corpus("fec/itpas2.txt")?, corpus("fec/cm.txt")?, corpus("fec/cn.txt")?, corpus("fec/ccl.txt")?],
        ),
        ("prices", vec![corpus("prices/SPY.csv")?, corpus("prices/spy.us.txt")?, corpus("prices/AAPL.csv")?]),
        (
            "contracts",
            vec![
                corpus("usaspending/usaspending_api_spending_by_award_contracts.json")?,
                corpus("usaspending/usaspending_api_award_detail_contract_80GSFC18C0008.json")?,
            ],
        ),
        ("edgar-search", vec![corpus("sec-misc/company_submission.json")?, corpus("sec-misc/CIK0001462356.json")?]),
        (
            "lobbying",
            vec![
                corpus("lda/lda_api_v1_filings_list_registrant401104726.extracted.json")?,
                corpus("lda/lda_api_v1_filing_retrieve.extracted.json")?,
            ],
        ),
    ])
}

fn ingest(server: &Server, dataset: &str, files: &[PathBuf]) -> Value {
    let paths: Vec<&std::path::Path> = files.iter().map(PathBuf::as_path).collect();
    let (code, out, err) = server.ingest(dataset, &paths, &["--json"]);
    assert_eq!(code, 0, "{dataset}: {out}{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{dataset}: not a JSON report ({e}): {out}"))
}

fn find<'a>(items: &'a Value, field: &str, value: &str) -> &'a Value {
    items
        .as_array()
        .and_then(|a| a.iter().find(|i| i[field] == value))
        .unwrap_or_else(|| panic!("no {field}={value} in {items}"))
}

/// Ingests everything, checks what is served, then re-ingests (unchanged) and offers a cut file (refused).
fn ingest_and_check(server: &Server) {
    let Some(sources) = sources() else { return };
    for (dataset, files) in &sources {
        let report = ingest(server, dataset, files);
        // Every file applies, or holds only records another file already gave (the LDA single filing is also
        // on the page of filings).
        let (applied, unchanged) = (report["applied"].as_u64().unwrap(), report["unchanged"].as_u64().unwrap());
        assert_eq!(
            (applied + unchanged, report["refused"].as_u64()),
            (files.len() as u64, Some(0)),
            "{dataset}: {report}"
        );
    }
    for (dataset, _) in &sources[1..] {
        server.wait_for_data(dataset, |_| true);
    }

    // House: 2023FD.xml lists DocID 20022260 (Hon. Nancy Pelosi, CA12, filed 1/12/2023); its PDF's first GOOGL
    // row (page 1): SP, Alphabet Inc. - Class A (GOOGL) [ST], S (partial), 12/28/2022, $500,001 - $1,000,000.
    let (status, body) = server.get("/v1/congress-trades?ticker=GOOGL&limit=1000");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested");
    let pelosi = find(&body["filings"], "docId", "20022260");
    assert_eq!((pelosi["member"].as_str(), pelosi["filedDate"].as_str()), (Some("Nancy Pelosi"), Some("2023-01-12")));
    assert_eq!((pelosi["parseStatus"].as_str(), pelosi["tradesSource"].as_str()), (Some("parsed"), Some("pdf")));
    assert_eq!(pelosi["sourceUrl"], "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2023/20022260.pdf");
    let googl = &pelosi["trades"][0];
    assert_eq!(
        (googl["type"].as_str(), googl["date"].as_str(), googl["amountRange"].as_str()),
        (Some("sale (partial)"), Some("2022-12-28"), Some("$500,001 - $1,000,000"))
    );
    // House Stock Watcher line 2: Hon. Virginia Foxx (NC05) bought BP plc, joint, 2021-09-27, disclosed
    // 10/04/2021 in PTR 20019557 (not in the 2023 index, PDF not ingested): served from the export, saying so.
    let (_, foxx) = server.get("/v1/congress-trades?member=Virginia%20Foxx&limit=1000");
    let ptr = find(&foxx["filings"], "docId", "20019557");
    assert_eq!(
        (ptr["parseStatus"].as_str(), ptr["tradesSource"].as_str()),
        (Some("no-document"), Some("house-stock-watcher"))
    );
    assert_eq!(
        (ptr["trades"][0]["ticker"].as_str(), ptr["trades"][0]["date"].as_str()),
        (Some("BP"), Some("2021-09-27"))
    );
    // The demo universe is gone: no demo ticker is served beside the real filings.
    let (_, demo) = server.get("/v1/congress-trades?ticker=LMCS");
    assert_eq!(demo["count"], 0, "{demo}");

    // Senate, all_transactions_for_senators.json [0]: Ron L Wyden, report c4771ad7-..., received 04/09/2021, 8
    // rows, the first 04/06/2021 Spouse AMAT "Applied Materials, Inc." Sale (Partial) $100,001 - $250,000.
    let (status, body) = server.get("/v1/senate-trades?member=wyden&ticker=AMAT&limit=1000");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested");
    let wyden = find(&body["filings"], "docId", "c4771ad7-1434-4eb6-a5b8-d53fa8f70249");
    assert_eq!((wyden["member"].as_str(), wyden["filedDate"].as_str()), (Some("Ron L Wyden"), Some("2021-04-09")));
    let amat = &wyden["trades"][0];
    assert_eq!(
        (amat["type"].as_str(), amat["date"].as_str(), amat["amountRange"].as_str()),
        (Some("sale (partial)"), Some("2021-04-06"), Some("$100,001 - $250,000"))
    );
    assert_eq!(
        wyden["sourceUrl"],
        "https://efdsearch.senate.gov/search/view/ptr/c4771ad7-1434-4eb6-a5b8-d53fa8f70249/"
    );

    // FEC: awk over itpas2 ($1=="C00096156" && $6=="24K"): 39 rows summing to 90000; joined with cn on CAND_ID:
    // REP 62500, DEM 27500 -> 69.4 % / 30.6 %. cm: CONNECTED_ORG_NM "HONEYWELL INTERNATIONAL" -> HON.
    let (status, body) = server.get("/v1/donors?ticker=HON");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested");
    let hon = &body["companies"][0];
    assert_eq!((hon["committeeId"].as_str(), hon["cycle"].as_str()), (Some("C00096156"), Some("2016")));
    assert_eq!((hon["totalContributionsUsd"].as_f64(), hon["demPct"].as_f64()), (Some(90000.0), Some(30.6)));
    assert_eq!(hon["repPct"], 69.4);

    // Prices: spy.us.txt line 5371 `SPY.US,D,20260702,000000,747.4,751.31,740.03,744.78,...` is the latest close
    // held (Stooq's, later than SPY.csv's 2012-09-11), so the SPY series is Stooq's; AAPL.csv line 2497
    // `2010-01-04,...,7.643214,6.553025,...` (Close, Adj Close).
    let (status, spy) = server.get("/v1/prices?ticker=SPY&from=2026-07-02");
    assert_eq!(status, 200, "{spy}");
    assert_eq!(spy["dataStatus"], "ingested");
    assert_eq!(spy["series"], serde_json::json!([{"date": "2026-07-02", "close": 744.78}]));
    let (_, day) = server.get("/v1/prices?ticker=AAPL&from=2010-01-04&to=2010-01-04");
    assert_eq!(day["series"][0]["close"], 7.643214);

    // USAspending: the search response's results[1] is award 80NM0018F0615 to CALIFORNIA INSTITUTE OF
    // TECHNOLOGY, a DELIVERY ORDER starting 2018-10-01: held, but before fiscal year 2024, so not counted.
    let (status, body) = server.get("/v1/contracts");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested");
    let caltech = find(&body["companies"], "name", "CALIFORNIA INSTITUTE OF TECHNOLOGY");
    assert_eq!((caltech["ticker"].as_str(), caltech["awardCount"].as_u64()), (Some(""), Some(0)));
    assert_eq!(body["count"], 3, "three recipients, no demo contractor: {body}");

    // LDA: client MICROSOFT CORPORATION (results[9], [12], [15], [18]: Q1-Q3 2018 income 20000.00 each, Q4
    // 60000.00) is the SEC's MICROSOFT CORP (MSFT); its 2018 reports are held but outside filing years 2025-2026.
    let (status, body) = server.get("/v1/lobbying?ticker=MSFT");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested");
    let msft = &body["companies"][0];
    assert_eq!(
        (msft["name"].as_str(), msft["clientName"].as_str()),
        (Some("MICROSOFT CORP"), Some("MICROSOFT CORPORATION"))
    );
    assert_eq!(msft["totalSpendUsd"], 0.0);
    // Two amendments on the page replace Medtronic's (client 202510) reports: results[5] (4A, posted 2018-01-23)
    // its Q4 2017 report results[2], and results[21] (4AY, posted 2019-01-25) its Q4 2018 report results[19].
    let (_, health) = server.get("/health");
    assert_eq!(health["data"]["lobbying"]["rows"], 23, "25 filings on the page, two replaced by amendments");

    // EDGAR submissions: Tesla's 10-K filed 2022-02-07 (0000950170-22-000796, tsla-20211231.htm) is found by its
    // metadata; the document text itself is not held.
    let (status, body) = server.get("/v1/edgar-search?q=tesla&forms=10-K&limit=100");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested");
    let k = find(&body["hits"], "accession", "0000950170-22-000796");
    assert_eq!((k["filedDate"].as_str(), k["cik"].as_str()), (Some("2022-02-07"), Some("0001318605")));
    assert_eq!(k["url"], "https://www.sec.gov/Archives/edgar/data/1318605/000095017022000796/tsla-20211231.htm");

    let (_, health) = server.get("/health");
    for (dataset, _) in &sources[1..] {
        let data = &health["data"][dataset];
        assert_eq!(data["data"], "ingested", "{dataset}: {data}");
        assert!(data["rows"].as_u64().unwrap() > 0, "{dataset}: {data}");
    }

    // The same files again change nothing.
    for (dataset, files) in &sources[1..] {
        let report = ingest(server, dataset, files);
        assert_eq!(report["unchanged"].as_u64(), Some(files.len() as u64), "{dataset}: {report}");
        assert_eq!((report["totals"]["added"].as_u64(), report["totals"]["replaced"].as_u64()), (Some(0), Some(0)));
    }

    // A download cut inside its last row is refused by name, and the served data stays as it was.
    let cut_dir = tempfile::tempdir().unwrap();
    let cut = cut_dir.path().join("itpas2.txt");
    let bytes = std::fs::read(&sources[3].1[0]).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() - 40]).unwrap();
    let (code, out, _) = server.ingest("donors", &[cut.as_path()], &["--json"]);
    assert_eq!(code, 1, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["files"][0]["status"], "refused", "{report}");
    assert!(report["files"][0]["file"].as_str().unwrap().ends_with("itpas2.txt"));
    let (_, again) = server.get("/v1/donors?ticker=HON");
    assert_eq!(again["companies"][0]["totalContributionsUsd"], 90000.0);

    // Ingested records are served in the shapes /openapi.json documents, their additive fields included.
    server.assert_documented(&[
        "/v1/congress-trades?ticker=GOOGL&limit=1000",
        "/v1/senate-trades?member=wyden&ticker=AMAT&limit=1000",
        "/v1/donors?ticker=HON",
        "/v1/prices",
        "/v1/prices?ticker=SPY&from=2026-07-02",
        "/v1/contracts",
        "/v1/lobbying?ticker=MSFT",
        "/v1/edgar-search?q=tesla&forms=10-K&limit=100",
    ]);
}

/// The search index of the ingested filings under `<data_dir>/plugins/edgar-search`: one complete `index-*`
/// directory (the demo seed is indexed in RAM, so none exists before an ingest).
fn edgar_index_dirs(data_dir: &std::path::Path) -> Vec<PathBuf> {
    let dir = data_dir.join("plugins").join("edgar-search");
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("index-") && p.join("ready").is_file())
        .collect()
}

#[test]
fn public_disclosures_and_prices_are_served_from_the_embedded_engine() {
    let data = tempfile::tempdir().unwrap();
    let options = || ServerOptions { data_dir: Some(data.path().to_path_buf()), ..Default::default() };
    let server = Server::start_with(options());
    ingest_and_check(&server);
    let index = edgar_index_dirs(data.path());
    assert_eq!(index.len(), 1, "{index:?}");
    let built_at = |dir: &PathBuf| std::fs::metadata(dir.join("ready")).unwrap().modified().unwrap();
    let before = built_at(&index[0]);
    drop(server);
    // A restart on the same data opens that index instead of rebuilding it, and answers the same.
    let server = Server::start_with(options());
    let (status, body) = server.get("/v1/edgar-search?q=tesla&forms=10-K&limit=100");
    assert_eq!(status, 200, "{body}");
    assert!(body["hits"].as_array().unwrap().iter().any(|h| h["accession"] == "0000950170-22-000796"), "{body}");
    assert_eq!(edgar_index_dirs(data.path()), index);
    assert_eq!(built_at(&index[0]), before, "the same index, not a rebuild");
}

#[test]
fn public_disclosures_and_prices_are_served_from_postgresql() {
    let db = TestDb::create("ingest_public");
    let server = Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() });
    ingest_and_check(&server);
    // Each replica indexes the shared records into its own directory.
    assert_eq!(edgar_index_dirs(&server.data_dir).len(), 1);
}
