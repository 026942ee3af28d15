//! Ingest then query, one dataset per test, each in its own embedded data folder and its own PostgreSQL
//! database: `datahost ingest` reads the real files of `../shared/corpus` for congress-trades (House Clerk index
//! XML and text, a PTR PDF), senate-trades (both Senate Stock Watcher files), donors (FEC bulk files), vin
//! (NHTSA FLAT_RCL / FLAT_CMPL and vPIC decodes), prices (Yahoo and Stooq files, then the predictions
//! recomputed from them) and property (New York City's PLUTO and assessment roll, real files kept in the
//! plugin's `tests/fixtures` with their SOURCES.md), and the real server serves what the documents say.
//!
//! Every dataset goes through the same steps:
//! 1. a fresh server serves the demo seed, labelled `demo`;
//! 2. a cut copy of one corpus file, with one value edited, is refused by name (exit 1) before anything is held;
//! 3. the real files apply (exit 0), and the report's counts (read by hand from the files) show that nothing of
//!    the refused copy was kept: every record is `added`, none `unchanged` or `replaced`;
//! 4. the API (owner key) answers `dataStatus: "ingested"` in the body and `X-Data-Status`, with values read by
//!    hand from the corpus file and line named beside each assertion, and no demo row beside them; `/health`
//!    reports the dataset ingested with its row count;
//! 5. the same files again change nothing (every file and record `unchanged`);
//! 6. the cut copy offered again is refused, and a server started afresh on the same store (so nothing depends
//!    on when a running server reloads) still serves the unedited value, with the same rows and last ingest time.

use std::path::{Path, PathBuf};

use datahost_tests::{corpus, pg::TestDb, workspace_root, Server, ServerOptions};
use serde_json::{json, Value};

/// Where one test's records live: its own embedded data folder, or its own PostgreSQL database.
enum Store {
    Embedded(tempfile::TempDir),
    Postgres(TestDb),
}

impl Store {
    fn embedded() -> Store {
        Store::Embedded(tempfile::tempdir().unwrap())
    }

    fn postgres(prefix: &str) -> Store {
        Store::Postgres(TestDb::create(prefix))
    }

    /// A server on this store (a new one each call, on the same records).
    fn start(&self) -> Server {
        match self {
            Store::Embedded(dir) => Server::start_with(ServerOptions {
                extra_toml: "[engine]\nreload_interval_secs = 1\n".into(),
                data_dir: Some(dir.path().to_path_buf()),
                ..Default::default()
            }),
            Store::Postgres(db) => {
                Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() })
            }
        }
    }

    fn is_postgres(&self) -> bool {
        matches!(self, Store::Postgres(_))
    }

    /// PostgreSQL: the document the host stored for `dataset` (the embedded store says `None`).
    fn document(&self, dataset: &str) -> Option<Value> {
        match self {
            Store::Embedded(_) => None,
            Store::Postgres(db) => {
                let doc: String = db
                    .client()
                    .query_one("SELECT snapshot FROM datahost.datasets WHERE name = $1", &[&dataset])
                    .unwrap()
                    .get(0);
                Some(serde_json::from_str(&doc).unwrap())
            }
        }
    }

    /// PostgreSQL: the records of `dataset`, counted in the database itself (the embedded store says `None`).
    fn records(&self, dataset: &str) -> Option<i64> {
        match self {
            Store::Embedded(_) => None,
            Store::Postgres(db) => Some(
                db.client()
                    .query_one("SELECT count(*) FROM datahost.records WHERE dataset = $1", &[&dataset])
                    .unwrap()
                    .get(0),
            ),
        }
    }
}

/// `datahost ingest <dataset> <files> --json`, which must exit 0; the JSON report.
fn ingest(server: &Server, dataset: &str, files: &[&Path]) -> Value {
    let (code, out, err) = server.ingest(dataset, files, &["--json"]);
    assert_eq!(code, 0, "{dataset}: {out}{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{dataset}: not a JSON report ({e}): {out}"))
}

/// Offers `file` alone, which must be refused by name with exit 1 and nothing added; the file's report.
fn refused(server: &Server, dataset: &str, file: &Path) -> Value {
    let (code, out, err) = server.ingest(dataset, &[file], &["--json"]);
    assert_eq!(code, 1, "{dataset}: a refused file exits 1: {out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((report["refused"].as_u64(), report["applied"].as_u64()), (Some(1), Some(0)), "{report}");
    let entry = &report["files"][0];
    assert_eq!(entry["status"], "refused", "{report}");
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(entry["file"].as_str().unwrap().ends_with(name), "the refusal names the file: {entry}");
    assert!(entry["reason"].as_str().is_some_and(|r| !r.is_empty()), "{entry}");
    assert_eq!(entry["counts"]["added"], 0, "{entry}");
    entry.clone()
}

/// The same files again: exit 0, every file and every record unchanged.
fn reingest_changes_nothing(server: &Server, dataset: &str, files: &[&Path], records: u64) {
    let report = ingest(server, dataset, files);
    assert_eq!(report["unchanged"].as_u64(), Some(files.len() as u64), "{dataset}: {report}");
    let totals = &report["totals"];
    assert_eq!(
        (totals["added"].as_u64(), totals["replaced"].as_u64(), totals["removed"].as_u64()),
        (Some(0), Some(0), Some(0)),
        "{dataset}: {totals}"
    );
    assert_eq!(totals["unchanged"].as_u64(), Some(records), "{dataset}: {totals}");
}

/// A copy of `source` named `name` in `dir`, with each `(from, to)` edit applied (each `from` must occur exactly
/// once) and its last `drop_last` bytes cut off, as a download that stopped early.
fn cut_copy(dir: &Path, source: &Path, name: &str, edits: &[(&str, &str)], drop_last: usize) -> PathBuf {
    let mut bytes = std::fs::read(source).unwrap();
    for (from, to) in edits {
        let text = String::from_utf8(bytes).expect("edits apply to text files");
        assert_eq!(text.matches(from).count(), 1, "`{from}` occurs once in {}", source.display());
        bytes = text.replacen(from, to, 1).into_bytes();
    }
    bytes.truncate(bytes.len() - drop_last);
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// GET with the owner key: 200, `dataStatus: "ingested"` in the body and in `X-Data-Status`, and the body in the
/// shape `/openapi.json` documents for the route.
fn served(server: &Server, path: &str) -> Value {
    let resp = server.request(path, &[("X-API-Key", &server.owner_key)]);
    let status = resp.status().as_u16();
    let header = resp.headers().get("x-data-status").map(|h| h.to_str().unwrap().to_string());
    let body: Value = resp.json().unwrap_or(Value::Null);
    assert_eq!(status, 200, "{path}: {body}");
    assert_eq!(header.as_deref(), Some("ingested"), "{path}");
    assert_eq!(body["dataStatus"], "ingested", "{path}: {body}");
    server.assert_answer_documented(path, &body);
    body
}

/// GET with the owner key on a server still serving its seed: 200 and labelled `demo`.
fn demo(server: &Server, path: &str) -> Value {
    let resp = server.request(path, &[("X-API-Key", &server.owner_key)]);
    assert_eq!(resp.status().as_u16(), 200, "{path}");
    assert_eq!(resp.headers()["x-data-status"], "demo", "{path}");
    let body: Value = resp.json().unwrap();
    assert_eq!(body["dataStatus"], "demo", "{path}: {body}");
    body
}

/// What `/health` says of `dataset`.
fn health(server: &Server, dataset: &str) -> Value {
    let (status, body) = server.get_with("/health", &[]);
    assert_eq!(status, 200, "{body}");
    body["data"][dataset].clone()
}

/// `/health` after an ingest: the dataset is served as ingested with `rows` records from `files` files (those
/// that changed something: an unchanged or refused file leaves no provenance).
fn check_health(server: &Server, dataset: &str, rows: u64, files: u64) -> Value {
    let status = health(server, dataset);
    assert_eq!(status["data"], "ingested", "{dataset}: {status}");
    assert_eq!(status["rows"].as_u64(), Some(rows), "{dataset}: {status}");
    assert_eq!(status["files"].as_u64(), Some(files), "{dataset}: {status}");
    assert!(status["lastIngestAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{status}");
    status
}

/// The cut copy is refused again once real records are held; a server started afresh on the same store serves
/// the same rows, files and last ingest time as before the refusal. Returns that new server.
fn refused_again_and_restarted(store: &Store, server: Server, dataset: &str, cut: &Path) -> Server {
    let before = health(&server, dataset);
    refused(&server, dataset, cut);
    drop(server);
    let again = store.start();
    let after = health(&again, dataset);
    for field in ["data", "rows", "files", "lastIngestAt"] {
        assert_eq!(after[field], before[field], "{dataset}.{field} after a refused file and a restart");
    }
    again
}

fn find<'a>(items: &'a Value, field: &str, value: &str) -> &'a Value {
    items
        .as_array()
        .and_then(|a| a.iter().find(|i| i[field] == value))
        .unwrap_or_else(|| panic!("no {field}={value} in {items}"))
}

fn strings<'a>(items: &'a Value, field: &str) -> Vec<&'a str> {
    items.as_array().unwrap().iter().map(|i| i[field].as_str().unwrap_or("<not a string>")).collect()
}

/// The SEC's company list, so tickers resolve to the SEC's names and CIKs (the seed list is fictional).
fn ingest_companies(server: &Server, tickers: &Path) {
    let report = ingest(server, "companies", &[tickers]);
    assert_eq!(report["totals"]["added"], 9610, "company_tickers.json holds 9,610 entries: {report}");
}

// ---------------------------------------------------------------------------------------------------------------
// congress-trades: House Clerk index (XML and text) and a PTR PDF.

/// `house-fd/2023FD.xml` lists 1,549 `<Member>`s; `20022260.pdf` gives one document and 13 transaction rows.
const HOUSE_ROWS: u64 = 1549 + 1 + 13;

fn congress_trades(store: &Store) {
    let (Some(tickers), Some(xml), Some(txt), Some(pdf)) = (
        corpus("sec-misc/company_tickers.json"),
        corpus("house-fd/2023FD.xml"),
        corpus("house-fd/2023FD.txt"),
        corpus("house-fd/20022260.pdf"),
    ) else {
        return;
    };
    let server = store.start();
    // The demo seed's fictional LMCS trades are served until real filings are held.
    let seed = demo(&server, "/v1/congress-trades?ticker=LMCS");
    assert!(seed["count"].as_u64().unwrap() > 0, "{seed}");
    ingest_companies(&server, &tickers);

    // Cut copies: the XML index with Pelosi's filing date of DocID 20022260 edited (2023FD.xml line 12859,
    // `<FilingDate>1/12/2023</FilingDate>`) and its last 201 bytes gone (it ends inside a <Member>, after
    // `<First>Lee Michael</First>`), and the PDF cut in half (its cross-reference table, read first, is gone).
    // Both are refused before anything is held.
    let tmp = tempfile::tempdir().unwrap();
    let cut_xml = cut_copy(
        tmp.path(),
        &xml,
        "2023FD.xml",
        &[(
            "<FilingDate>1/12/2023</FilingDate>\r\n    <DocID>20022260</DocID>",
            "<FilingDate>1/13/2023</FilingDate>\r\n    <DocID>20022260</DocID>",
        )],
        201,
    );
    let entry = refused(&server, "congress-trades", &cut_xml);
    assert!(entry["reason"].as_str().unwrap().contains("truncated"), "{entry}");
    let pdf_len = std::fs::metadata(&pdf).unwrap().len() as usize;
    let cut_pdf = cut_copy(tmp.path(), &pdf, "20022260.pdf", &[], pdf_len / 2);
    refused(&server, "congress-trades", &cut_pdf);

    // 2023FD.xml: 1,549 filings; 2023FD.txt is the same index (lines 2-1550), so whichever comes second adds
    // nothing (the XML first here in the embedded engine, the text first in PostgreSQL); the PDF: its document
    // and 13 rows (pages 1-2: Alliance Bernstein; GOOGL x3; NFLX x2; PYPL x2; REOF XX; RBLX; CRM; TSLA; DIS).
    // All added: nothing of the refused copies was kept.
    let files = if store.is_postgres() {
        [txt.as_path(), xml.as_path(), pdf.as_path()]
    } else {
        [xml.as_path(), txt.as_path(), pdf.as_path()]
    };
    let report = ingest(&server, "congress-trades", &files);
    assert_eq!(strings(&report["files"], "status"), ["applied", "unchanged", "applied"], "{report}");
    assert_eq!(report["files"][1]["counts"]["unchanged"], 1549, "{report}");
    let totals = &report["totals"];
    assert_eq!((totals["added"].as_u64(), totals["replaced"].as_u64()), (Some(HOUSE_ROWS), Some(0)), "{totals}");
    assert_eq!(totals["refused"], 0, "every index row and PDF row reads: {totals}");
    server.wait_for_data("congress-trades", |s| s["rows"] == HOUSE_ROWS);
    if let Some(doc) = store.document("congress-trades") {
        // The PTR's 13 trade rows are table-backed: counted, not in the document; requests read them by DocID
        // or ticker (checked below).
        assert!(doc.get("trades").is_none(), "the rows are not in the document");
        assert_eq!(doc["ingested"]["collections"], json!({"documents": 1, "filings": 1549, "trades": 13}));
    }

    // 2023FD.txt lines 1165-1170: Hon. Nancy Pelosi's six P filings of 2023 (CA11 x5 filed 1/25, 4/6, 6/6, 6/22
    // and 12/21/2023; CA12 DocID 20022260 filed 1/12/2023). Newest first; only 20022260's PDF was read, so the
    // other five are listed with no document and no trades (unknown, not none).
    let body = served(&server, "/v1/congress-trades?member=pelosi");
    assert_eq!(
        strings(&body["filings"], "docId"),
        ["20024186", "20023192", "20023080", "20022664", "20022320", "20022260"],
        "{body}"
    );
    for filing in &body["filings"].as_array().unwrap()[..5] {
        assert_eq!(
            (filing["parseStatus"].as_str(), filing["trades"].as_array().map(Vec::len)),
            (Some("no-document"), Some(0))
        );
        assert_eq!(filing["stateDistrict"], "CA11", "{filing}");
    }
    let ptr = &body["filings"][5];
    assert_eq!(
        (ptr["member"].as_str(), ptr["filedDate"].as_str(), ptr["year"].as_u64()),
        (Some("Nancy Pelosi"), Some("2023-01-12"), Some(2023))
    );
    assert_eq!((ptr["stateDistrict"].as_str(), ptr["parseStatus"].as_str()), (Some("CA12"), Some("parsed")));
    assert_eq!((ptr["tradesSource"].as_str(), ptr["amendment"].as_bool()), (Some("pdf"), Some(false)));
    assert_eq!(ptr["sourceUrl"], "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2023/20022260.pdf");
    assert_eq!(ptr["trades"].as_array().unwrap().len(), 13, "{ptr}");
    // PDF page 2: `SP | Roblox Corporation Class A (RBLX) [ST] | S (partial) | 12/28/2022 12/28/2022 | $100,001 -
    // $250,000`, the asset wrapped over two lines; F S: New; D: Sold 5,000 shares.; C: Sold 5,000 shares at an
    // average price of $26.05 for a total loss of $235,836.
    let rblx = find(&ptr["trades"], "ticker", "RBLX");
    assert_eq!(
        (rblx["asset"].as_str(), rblx["assetType"].as_str(), rblx["owner"].as_str()),
        (Some("Roblox Corporation Class A"), Some("ST"), Some("SP"))
    );
    assert_eq!((rblx["typeCode"].as_str(), rblx["type"].as_str()), (Some("S (partial)"), Some("sale (partial)")));
    assert_eq!((rblx["date"].as_str(), rblx["notificationDate"].as_str()), (Some("2022-12-28"), Some("2022-12-28")));
    assert_eq!(rblx["amountRange"], "$100,001 - $250,000");
    assert_eq!((rblx["amountMin"].as_f64(), rblx["amountMax"].as_f64()), (Some(100001.0), Some(250000.0)));
    assert_eq!(
        (rblx["filingStatus"].as_str(), rblx["description"].as_str()),
        (Some("New"), Some("Sold 5,000 shares."))
    );
    assert_eq!(rblx["comment"], "Sold 5,000 shares at an average price of $26.05 for a total loss of $235,836.");
    // PDF page 2: `SP | Salesforce, Inc. (CRM) [OP] | S | 12/20/2022 12/20/2022 | $9.00`: an option sale whose
    // amount is printed as one figure.
    let crm = find(&ptr["trades"], "ticker", "CRM");
    assert_eq!(
        (crm["assetType"].as_str(), crm["type"].as_str(), crm["date"].as_str()),
        (Some("OP"), Some("sale"), Some("2022-12-20"))
    );
    assert_eq!(
        (crm["amountRange"].as_str(), crm["amountMin"].as_f64(), crm["amountMax"].as_f64()),
        (Some("$9.00"), Some(9.0), Some(9.0))
    );

    // PDF page 1, rows 2-4: three GOOGL partial sales, 12/28, 12/20 and 12/21/2022, each $500,001 - $1,000,000;
    // company_tickers.json "3": GOOGL = CIK 1652044, Alphabet Inc.
    let body = served(&server, "/v1/congress-trades?ticker=googl");
    assert_eq!(strings(&body["filings"], "docId"), ["20022260"], "{body}");
    let googl = &body["filings"][0]["trades"];
    assert_eq!(strings(googl, "date"), ["2022-12-28", "2022-12-20", "2022-12-21"], "PDF row order");
    for t in googl.as_array().unwrap() {
        assert_eq!((t["ticker"].as_str(), t["amountRange"].as_str()), (Some("GOOGL"), Some("$500,001 - $1,000,000")));
        assert_eq!((t["cik"].as_str(), t["company"].as_str()), (Some("0001652044"), Some("Alphabet Inc.")));
    }
    // What the whole snapshot holds: 2023FD has 460 FilingType P rows (`awk -F'\t' '$5=="P"'`), one PDF read.
    let meta = &body["meta"];
    assert_eq!((meta["filingsListed"].as_u64(), meta["filingsNoDocument"].as_u64()), (Some(460), Some(459)), "{meta}");
    assert_eq!((meta["filingsScanned"].as_u64(), meta["filingsWithTrades"].as_u64()), (Some(1), Some(1)), "{meta}");
    assert_eq!(meta["filingsUnreadable"], 0, "{meta}");
    // Only P filings are served: Dr. Demetrick Tre Dr Pennie (2023FD.xml, right after Pelosi) filed a C report.
    assert_eq!(served(&server, "/v1/congress-trades?member=pennie")["count"], 0);
    // No demo row is served beside the real filings.
    assert_eq!(served(&server, "/v1/congress-trades?ticker=LMCS")["count"], 0);
    check_health(&server, "congress-trades", HOUSE_ROWS, 2);
    assert_eq!(store.records("congress-trades").map(|n| n as u64).unwrap_or(HOUSE_ROWS), HOUSE_ROWS);

    reingest_changes_nothing(&server, "congress-trades", &files, 1549 + 1549 + 14);
    let server = refused_again_and_restarted(store, server, "congress-trades", &cut_xml);
    let body = served(&server, "/v1/congress-trades?member=pelosi");
    assert_eq!(find(&body["filings"], "docId", "20022260")["filedDate"], "2023-01-12", "the edit was not kept");
}

#[test]
fn congress_trades_are_ingested_and_served_from_the_embedded_engine() {
    congress_trades(&Store::embedded());
}

#[test]
fn congress_trades_are_ingested_and_served_from_postgresql() {
    congress_trades(&Store::postgres("ingest_house"));
}

// ---------------------------------------------------------------------------------------------------------------
// senate-trades: the Senate Stock Watcher flat file and per-senator file.

/// all_transactions.json: 8,372 rows = 7,909 electronic trades (types Purchase 4,102, Sale (Full) 2,005, Sale
/// (Partial) 1,715, Exchange 87, all with `$a - $b` amounts and MM/DD/YYYY dates) + 463 placeholder rows of 463
/// distinct scanned paper reports (asset_type `PDF Disclosed Filing`, one filing record each), plus one report
/// record per electronic report with rows: 954 distinct /ptr/ links.
const SENATE_FLAT: u64 = 7909 + 463 + 954;
/// all_transactions_for_senators.json adds 143 trades (8,052 electronic rows, of which the 954 reports also in
/// the flat file hold the same 7,909 rows in the same order), the 53 filers' latest reports that are
/// electronic (68 filers, 15 of whose latest report is one of the 463 paper reports) and the report records of
/// the 986 - 954 = 32 electronic reports the flat file does not list.
const SENATE_ADDED: u64 = 143 + 53 + 32;
/// all_transactions_for_senators.json alone: 8,052 trades, 516 reports with a date received (68 filers'
/// latest reports and 463 scanned paper reports, 15 of them both) and 986 report records (/ptr/ links).
const SENATE_SENATORS: u64 = 8052 + 516 + 986;

fn senate_trades(store: &Store) {
    let (Some(flat), Some(senators)) = (
        corpus("senate-stock-watcher/all_transactions.json"),
        corpus("senate-stock-watcher/all_transactions_for_senators.json"),
    ) else {
        return;
    };
    let server = store.start();
    // The demo seed's four fictional BWRD filings.
    assert_eq!(demo(&server, "/v1/senate-trades?ticker=bwrd")["count"], 4);

    // all_transactions_for_senators.json [16] is Jacklyn S Rosen's filer record: report 3152e433-...,
    // `"date_recieved": "12/10/2020"`; the copy says 12/11/2020 and loses its last 1,000 bytes: not JSON.
    let tmp = tempfile::tempdir().unwrap();
    let rosen = "3152e433-26a5-4926-80af-3bb78ea21833/\", \"date_recieved\": \"12/1";
    let cut = cut_copy(
        tmp.path(),
        &senators,
        "all_transactions_for_senators.json",
        &[(&format!("{rosen}0/2020\""), &format!("{rosen}1/2020\""))],
        1000,
    );
    let entry = refused(&server, "senate-trades", &cut);
    assert!(entry["reason"].as_str().unwrap().contains("not JSON"), "{entry}");

    // Both files give a trade the same key and data, whichever comes first: the flat file first in the embedded
    // engine, the per-senator file first in PostgreSQL (where the flat file then adds nothing at all).
    let rows = SENATE_FLAT + SENATE_ADDED;
    assert_eq!(rows, SENATE_SENATORS, "the per-senator file holds everything the flat file holds");
    let files =
        if store.is_postgres() { [senators.as_path(), flat.as_path()] } else { [flat.as_path(), senators.as_path()] };
    let report = ingest(&server, "senate-trades", &files);
    let (first, second) = (&report["files"][0]["counts"], &report["files"][1]["counts"]);
    let (first_added, second_added) =
        if store.is_postgres() { (SENATE_SENATORS, 0) } else { (SENATE_FLAT, SENATE_ADDED) };
    assert_eq!((first["added"].as_u64(), first["refused"].as_u64()), (Some(first_added), Some(0)), "{first}");
    assert_eq!(
        (
            second["added"].as_u64(),
            second["unchanged"].as_u64(),
            second["replaced"].as_u64(),
            second["refused"].as_u64()
        ),
        (Some(second_added), Some(SENATE_FLAT), Some(0), Some(0)),
        "{second}"
    );
    let ingested_files = if store.is_postgres() { 1 } else { 2 };
    server.wait_for_data("senate-trades", |s| s["rows"] == rows);
    if let Some(doc) = store.document("senate-trades") {
        // Transaction rows are table-backed: counted (8,052 in the per-senator file, which holds the flat
        // file's rows), not in the document, which keeps one record per report.
        assert!(doc.get("transactions").is_none(), "the rows are not in the document");
        assert_eq!(doc["ingested"]["collections"], json!({"filings": 516, "reports": 986, "transactions": 8052}));
    }

    // all_transactions.json [0] and all_transactions_for_senators.json [16].transactions[0]: Jacklyn S Rosen,
    // 11/17/2020, Joint, PFE (the per-senator cell is `PFE <br> VTRS`), "Pfizer Inc. (Exchanged) <br> Viatris Inc.
    // (Received)", Stock, Exchange, $1,001 - $15,000, comment `--`; received 12/10/2020 (the filer record).
    let body = served(&server, "/v1/senate-trades?member=rosen&limit=1000");
    let report_3152 = find(&body["filings"], "docId", "3152e433-26a5-4926-80af-3bb78ea21833");
    assert_eq!(
        (report_3152["member"].as_str(), report_3152["chamber"].as_str()),
        (Some("Jacklyn S Rosen"), Some("senate"))
    );
    assert_eq!((report_3152["filedDate"].as_str(), report_3152["year"].as_u64()), (Some("2020-12-10"), Some(2020)));
    assert_eq!(report_3152["paper"], false);
    assert_eq!(
        report_3152["sourceUrl"],
        "https://efdsearch.senate.gov/search/view/ptr/3152e433-26a5-4926-80af-3bb78ea21833/"
    );
    assert_eq!(
        report_3152["trades"],
        json!([{"ticker": "PFE", "asset": "Pfizer Inc. (Exchanged) Viatris Inc. (Received)", "type": "exchange",
                "amountRange": "$1,001 - $15,000", "date": "2020-11-17", "owner": "Joint", "assetType": "Stock",
                "comment": "", "amountMin": 1001.0, "amountMax": 15000.0}]),
        "one row, stored once though both files list it"
    );
    // all_transactions_for_senators.json [18]: Richard Blumenthal's latest report is a scanned paper one,
    // .../view/paper/2a123633-.../, received 12/02/2020 (also all_transactions.json [37], the placeholder row).
    let body = served(&server, "/v1/senate-trades?member=blumenthal&limit=1000");
    let paper = find(&body["filings"], "docId", "2a123633-1454-49ff-8c3b-c4028372a119");
    assert_eq!((paper["paper"].as_bool(), paper["filedDate"].as_str()), (Some(true), Some("2020-12-02")));
    assert_eq!(paper["trades"], json!([]), "a paper report's trades are not machine-readable");
    assert_eq!(
        paper["sourceUrl"],
        "https://efdsearch.senate.gov/search/view/paper/2a123633-1454-49ff-8c3b-c4028372a119/"
    );
    // all_transactions.json [1]-[2]: Mark R Warner's report 8a358a66-...: no file states when it was received
    // (his filer record's latest report is 39693df5-...), so the filed date stays unknown. [1]: 11/20/2020, Self,
    // ticker `--`, Acumen Pharmaceuticals, Inc. (HTML company box), Non-Public Stock, Purchase, $50,001 - $100,000.
    let body = served(&server, "/v1/senate-trades?member=warner&limit=1000");
    let warner = find(&body["filings"], "docId", "8a358a66-5b4a-45b3-80af-97cfb2256d97");
    assert!(warner["filedDate"].is_null() && warner["year"].is_null(), "{warner}");
    assert_eq!(strings(&warner["trades"], "date"), ["2020-11-20", "2020-11-16"], "{warner}");
    let acumen = &warner["trades"][0];
    assert_eq!((acumen["ticker"].as_str(), acumen["type"].as_str()), (Some(""), Some("purchase")));
    assert_eq!((acumen["owner"].as_str(), acumen["assetType"].as_str()), (Some("Self"), Some("Non-Public Stock")));
    assert_eq!(acumen["amountRange"], "$50,001 - $100,000");
    let asset = acumen["asset"].as_str().unwrap();
    assert!(
        asset.starts_with("Acumen Pharmaceuticals, Inc.") && asset.ends_with("Drug Discovery") && !asset.contains('<'),
        "{asset}"
    );
    // No demo row beside the real reports.
    assert_eq!(served(&server, "/v1/senate-trades?ticker=bwrd")["count"], 0);
    check_health(&server, "senate-trades", rows, ingested_files);
    assert_eq!(store.records("senate-trades").map(|n| n as u64).unwrap_or(rows), rows);

    reingest_changes_nothing(&server, "senate-trades", &files, SENATE_FLAT + SENATE_SENATORS);
    let server = refused_again_and_restarted(store, server, "senate-trades", &cut);
    let body = served(&server, "/v1/senate-trades?member=rosen&limit=1000");
    assert_eq!(find(&body["filings"], "docId", "3152e433-26a5-4926-80af-3bb78ea21833")["filedDate"], "2020-12-10");
}

#[test]
fn senate_trades_are_ingested_and_served_from_the_embedded_engine() {
    senate_trades(&Store::embedded());
}

#[test]
fn senate_trades_are_ingested_and_served_from_postgresql() {
    senate_trades(&Store::postgres("ingest_senate"));
}

// ---------------------------------------------------------------------------------------------------------------
// donors: FEC bulk files.

/// itpas2.txt 1,947 rows (28 amendments, none of a row in the file), cm.txt 11,419, cn.txt 3,534, ccl.txt 3,923:
/// every id, date and amount well formed (checked with awk), so every row is a record.
const FEC_ROWS: u64 = 1947 + 11419 + 3534 + 3923;

fn donors(store: &Store) {
    let (Some(tickers), Some(pas2), Some(cm), Some(cn), Some(ccl)) = (
        corpus("sec-misc/company_tickers.json"),
        corpus("fec/itpas2.txt"),
        corpus("fec/cm.txt"),
        corpus("fec/cn.txt"),
        corpus("fec/ccl.txt"),
    ) else {
        return;
    };
    let server = store.start();
    // The demo seed's fictional Ravenmoor Corporation (demo) PAC.
    assert_eq!(demo(&server, "/v1/donors?ticker=rvmr")["count"], 1);
    ingest_companies(&server, &tickers);

    // cm.txt line 837 is Boeing's PAC; the copy renames it and loses its last 30 bytes (the last row ends
    // `...|REP|Q|||` with no newline): refused whole as truncated.
    let tmp = tempfile::tempdir().unwrap();
    let cut = cut_copy(
        tmp.path(),
        &cm,
        "cm.txt",
        &[("|THE BOEING COMPANY POLITICAL ACTION COMMITTEE|", "|THE BOEING COMPANY PAC, EDITED|")],
        30,
    );
    refused(&server, "donors", &cut);

    let files = [pas2.as_path(), cm.as_path(), cn.as_path(), ccl.as_path()];
    let report = ingest(&server, "donors", &files);
    assert_eq!(strings(&report["files"], "status"), ["applied"; 4], "{report}");
    let totals = &report["totals"];
    assert_eq!(
        (totals["added"].as_u64(), totals["unchanged"].as_u64(), totals["refused"].as_u64()),
        (Some(FEC_ROWS), Some(0), Some(0)),
        "{totals}"
    );
    server.wait_for_data("donors", |s| s["rows"] == FEC_ROWS);
    if let Some(doc) = store.document("donors") {
        // Contribution rows are table-backed: the document counts them (1,947 lines of itpas2.txt) and keeps
        // the masters and linkages; init reads only the corporate PACs' 24K rows by committee id.
        assert!(doc.get("contributions").is_none(), "the rows are not in the document");
        assert_eq!(doc["ingested"]["collections"]["contributions"], 1947, "{}", doc["ingested"]);
        assert_eq!(doc["committees"].as_array().map(Vec::len), Some(11419), "cm.txt lines");
    }

    // itpas2.txt rows with CMTE_ID C00142711 and TRANSACTION_TP 24K (awk '$1=="C00142711" && $6=="24K"'): 22 rows
    // in report FILE_NUM 993662, images 15970267511-15970267520 (received 2015: cycle 2016), summing to 28,500
    // with the -1,000 refund from MCHENRY FOR CONGRESS. Their CAND_IDs in cn.txt: DEM (Carson 1,500, Castro
    // 2,000, DelBene 1,000, Norcross 1,000) = 5,500 = 19.3 %; REP the other 23,000 = 80.7 %. cm.txt line 837:
    // THE BOEING COMPANY POLITICAL ACTION COMMITTEE, ORG_TP C, no connected organisation, so the company is the
    // name's company part, THE BOEING COMPANY = company_tickers.json "111" BOEING CO (BA, CIK 12927).
    let body = served(&server, "/v1/donors?ticker=ba");
    assert_eq!(body["count"], 1, "{body}");
    let boeing = &body["companies"][0];
    assert_eq!((boeing["ticker"].as_str(), boeing["name"].as_str()), (Some("BA"), Some("BOEING CO")));
    assert_eq!((boeing["committeeId"].as_str(), boeing["cycle"].as_str()), (Some("C00142711"), Some("2016")));
    assert_eq!(boeing["pacName"], "THE BOEING COMPANY POLITICAL ACTION COMMITTEE");
    assert_eq!((boeing["cik"].as_str(), boeing["matchedBy"].as_str()), (Some("0000012927"), Some("committeeName")));
    assert_eq!(boeing["totalContributionsUsd"].as_f64(), Some(28500.0));
    assert_eq!((boeing["demPct"].as_f64(), boeing["repPct"].as_f64()), (Some(19.3), Some(80.7)));
    assert_eq!((boeing["contributionCount"].as_u64(), boeing["unattributedUsd"].as_f64()), (Some(22), Some(0.0)));
    assert_eq!(boeing["sourceUrl"], "https://www.fec.gov/data/committee/C00142711/");
    assert_eq!(
        boeing["reports"],
        json!([{"fileNumber": "993662", "url": "https://docquery.fec.gov/cgi-bin/forms/C00142711/993662/"}])
    );
    // FedEx PAC C00068692 (cm.txt line 386, CONNECTED_ORG_NM FEDEX CORPORATION = FEDEX CORP, FDX): 21 rows of
    // 24K, 42,000; DEM Wyden 1,500 + Meeks 5,000 + Perlmutter 1,000 = 7,500 = 17.9 %, REP 34,500 = 82.1 %.
    let fedex = &served(&server, "/v1/donors?ticker=FDX")["companies"][0];
    assert_eq!(
        (fedex["committeeId"].as_str(), fedex["matchedBy"].as_str()),
        (Some("C00068692"), Some("connectedOrganization"))
    );
    assert_eq!(
        (fedex["totalContributionsUsd"].as_f64(), fedex["contributionCount"].as_u64()),
        (Some(42000.0), Some(21))
    );
    assert_eq!((fedex["demPct"].as_f64(), fedex["repPct"].as_f64()), (Some(17.9), Some(82.1)));
    // NELNET INC PAC C00370015 (cm.txt line 2612, NELNET, INC. = NELNET INC, NNI): three 24K rows, 9,000: Bennet
    // (S0CO00211, DEM) 2,000, Blunt (S0MO00183, REP) 2,000, and 5,000 to BRAD ASHFORD FOR CONGRESS naming no
    // candidate, only committee C00557181, which ccl.txt line 1936 links to H4NE02054 (Ashford, DEM in cn.txt):
    // DEM 7,000 = 77.8 %, REP 22.2 %, nothing unattributed.
    let nelnet = &served(&server, "/v1/donors?ticker=nni")["companies"][0];
    assert_eq!(
        (nelnet["committeeId"].as_str(), nelnet["totalContributionsUsd"].as_f64()),
        (Some("C00370015"), Some(9000.0))
    );
    assert_eq!((nelnet["demPct"].as_f64(), nelnet["repPct"].as_f64()), (Some(77.8), Some(22.2)));
    assert_eq!(nelnet["unattributedUsd"].as_f64(), Some(0.0));
    // One entry per corporate PAC with 24K rows: 213 distinct CMTE_IDs of itpas2 24K rows whose cm.txt ORG_TP is
    // C, all in cycle 2016 (every IMAGE_NUM starts 15); no demo PAC among them.
    let all = served(&server, "/v1/donors");
    assert_eq!(all["count"], 213, "{}", all["meta"]);
    assert!(all["companies"].as_array().unwrap().iter().all(|c| c["committeeId"].as_str().unwrap().starts_with('C')
        && !c["committeeId"].as_str().unwrap().starts_with("DEMO")
        && c["cycle"] == "2016"));
    assert_eq!(served(&server, "/v1/donors?ticker=rvmr")["count"], 0);
    check_health(&server, "donors", FEC_ROWS, 4);
    assert_eq!(store.records("donors").map(|n| n as u64).unwrap_or(FEC_ROWS), FEC_ROWS);

    reingest_changes_nothing(&server, "donors", &files, FEC_ROWS);
    let server = refused_again_and_restarted(store, server, "donors", &cut);
    let boeing = &served(&server, "/v1/donors?ticker=ba")["companies"][0];
    assert_eq!(boeing["pacName"], "THE BOEING COMPANY POLITICAL ACTION COMMITTEE", "the edit was not kept");
}

#[test]
fn donors_are_ingested_and_served_from_the_embedded_engine() {
    donors(&Store::embedded());
}

#[test]
fn donors_are_ingested_and_served_from_postgresql() {
    donors(&Store::postgres("ingest_fec"));
}

// ---------------------------------------------------------------------------------------------------------------
// vin: NHTSA flat files and vPIC decodes.

/// A vPIC DecodeVinValues answer (the flat shape) for a VIN of our choosing, made by hand: the corpus holds no
/// decode of a vehicle that recalls.txt or complaints.txt names. Make, model and model year are what the
/// lookups need; the VIN's check digit (position 9) is computed by 49 CFR 565.15.
fn handmade_decode(dir: &Path, vin: &str, make: &str, model: &str, year: &str) -> PathBuf {
    let body = json!({"Count": 1, "Message": "made by hand for a test", "SearchCriteria": format!("VIN:{vin}"),
        "Results": [{"VIN": vin, "Make": make, "Model": model, "ModelYear": year, "ErrorCode": "0",
                     "ErrorText": "0 - VIN decoded clean. Check Digit (9th position) is correct"}]});
    let path = dir.join(format!("decode-{vin}.json"));
    std::fs::write(&path, body.to_string()).unwrap();
    path
}

/// recalls.txt 100 rows, complaints.txt 100 rows, and four decodes (the Jetta of decodeVin.json, the F-150 of
/// the DecodeVinValuesExtended answer and the two handmade ones); the error decode and the batch patterns are
/// no vehicles.
const VIN_ROWS: u64 = 100 + 100 + 4;

fn vin(store: &Store) {
    let (Some(recalls), Some(complaints), Some(jetta), Some(error), Some(extended), Some(batch)) = (
        corpus("nhtsa/recalls.txt"),
        corpus("nhtsa/complaints.txt"),
        corpus("nhtsa/decodeVin.json"),
        corpus("nhtsa/DecodeVinError.json"),
        corpus("nhtsa/nhtsa_vpic_DecodeVinValuesExtended_1FTMW1T88MFA00001.extracted.json"),
        corpus("nhtsa/nhtsa_vpic_fixture_decode-vin-batch.json"),
    ) else {
        return;
    };
    let server = store.start();
    // The demo seed flags its fictional stolen Accord (serial DEM006) and lists demo recalls for it.
    let seed = demo(&server, "/v1/vin?vin=1HGCV1F17KADEM006");
    assert_eq!((seed["theftFlag"].as_bool(), seed["openRecalls"].as_array().map(Vec::len)), (Some(true), Some(2)));

    // recalls.txt line 68 is campaign 06V043000 (VOLKSWAGEN BEETLE 2006, EQUIPMENT:OTHER:LABELS); the copy edits
    // its component and loses the last 200 bytes, so its last row (line 100) has fewer than 24 fields.
    let tmp = tempfile::tempdir().unwrap();
    let cut = cut_copy(
        tmp.path(),
        &recalls,
        "recalls.txt",
        &[(
            "06V043000\tVOLKSWAGEN\tBEETLE\t2006\tM8\tEQUIPMENT:OTHER:LABELS\t",
            "06V043000\tVOLKSWAGEN\tBEETLE\t2006\tM8\tEQUIPMENT:EDITED\t",
        )],
        200,
    );
    let entry = refused(&server, "vin", &cut);
    assert!(entry["reason"].as_str().unwrap().contains("ends inside a row"), "{entry}");

    // A 2006 Volkswagen Beetle (WMI 3VW, position 10 `6` with a digit at position 7: 2006) and a 1993 Dodge Spirit
    // (position 10 `P`: 1993), check digits 3 and 1.
    let beetle = handmade_decode(tmp.path(), "3VWPW31C36M400001", "VOLKSWAGEN", "Beetle", "2006");
    let spirit = handmade_decode(tmp.path(), "1B3XA46K1PF100001", "DODGE", "Spirit", "1993");
    let files = [
        recalls.as_path(),
        complaints.as_path(),
        jetta.as_path(),
        error.as_path(),
        extended.as_path(),
        batch.as_path(),
        beetle.as_path(),
        spirit.as_path(),
    ];
    let report = ingest(&server, "vin", &files);
    assert_eq!(report["refused"], 0, "{report}");
    assert_eq!((report["totals"]["added"].as_u64(), report["totals"]["unchanged"].as_u64()), (Some(VIN_ROWS), Some(0)));
    // DecodeVinError.json: Results[VariableId=143] `1,11,14` for 3VW3564650M388202: a problem, no vehicle.
    let error_entry = &report["files"][3];
    assert_eq!(
        (error_entry["counts"]["added"].as_u64(), error_entry["counts"]["refused"].as_u64()),
        (Some(0), Some(1))
    );
    assert!(error_entry["problems"][0].as_str().unwrap().contains("1,11,14"), "{error_entry}");
    // The batch capture decodes two patterns (5UXWX7C5*BA, 5YJSA3DS*EF), no single vehicle.
    let batch_entry = &report["files"][5];
    assert_eq!(
        (batch_entry["counts"]["added"].as_u64(), batch_entry["counts"]["refused"].as_u64()),
        (Some(0), Some(2))
    );
    server.wait_for_data("vin", |s| s["rows"] == VIN_ROWS);

    // recalls.txt line 68: 06V043000 VOLKSWAGEN BEETLE 2006, component EQUIPMENT:OTHER:LABELS, RCDATE (field 16)
    // 20060209; summary "CERTAIN PASSENGER VEHICLES EQUIPPED WITH 17-INCH WHEELS ...", consequence "A MISPRINTED
    // LABEL COULD  LEAD TO FITMENT OF IMPROPERLY SIZED REPLACEMENT TIRES.", remedy "OWNERS WILL BE PROVIDED ...".
    let body = served(&server, "/v1/vin?vin=3VWPW31C36M400001");
    assert_eq!(
        (body["decode"]["make"].as_str(), body["decode"]["model"].as_str(), body["decode"]["year"].as_u64()),
        (Some("VOLKSWAGEN"), Some("Beetle"), Some(2006))
    );
    let recalls_served = body["openRecalls"].as_array().unwrap();
    assert_eq!(recalls_served.len(), 1, "{body}");
    let r = &recalls_served[0];
    assert_eq!(
        (r["campaignNumber"].as_str(), r["component"].as_str()),
        (Some("06V043000"), Some("EQUIPMENT:OTHER:LABELS"))
    );
    assert_eq!(r["reportDate"], "2006-02-09");
    assert!(
        r["summary"].as_str().unwrap().starts_with("CERTAIN PASSENGER VEHICLES EQUIPPED WITH 17-INCH WHEELS"),
        "{r}"
    );
    assert_eq!(r["consequence"], "A MISPRINTED LABEL COULD  LEAD TO FITMENT OF IMPROPERLY SIZED REPLACEMENT TIRES.");
    assert!(
        r["remedy"].as_str().unwrap().starts_with("OWNERS WILL BE PROVIDED WITH A NEW TIRE INFORMATION LABEL"),
        "{r}"
    );
    assert_eq!(r["sourceUrl"], "https://www.nhtsa.gov/recalls?nhtsaId=06V043000");
    assert_eq!(body["complaintsCount"], 0);
    assert_eq!((body["theftFlag"].as_bool(), body["theftChecked"].as_bool()), (Some(false), Some(false)));
    assert_eq!(body["sources"]["recalls"], "https://static.nhtsa.gov/odi/ffdd/rcl/FLAT_RCL.zip");
    // complaints.txt lines 53-54: ODI 958118, DODGE SPIRIT 1993, no VIN: one complaint counted by make, model and
    // year; recalls.txt has no Dodge.
    let body = served(&server, "/v1/vin?vin=1B3XA46K1PF100001");
    assert_eq!(
        (body["complaintsCount"].as_u64(), body["openRecalls"].as_array().map(Vec::len)),
        (Some(1), Some(0)),
        "{body}"
    );
    assert_eq!(body["sources"]["complaints"], "https://static.nhtsa.gov/odi/ffdd/cmpl/FLAT_CMPL.zip");
    // decodeVin.json (SearchCriteria VIN:3VWD07AJ5EM388202, Error Code 0): Make VOLKSWAGEN, Model Jetta, Model
    // Year 2014, Series SE (no Trim), Body Class Sedan/Saloon, Displacement (L) 1.798000, 4 cylinders, Fuel Type -
    // Primary Gasoline, Engine Brake (hp) 170, Plant City PUEBLA, Plant Country MEXICO, no GVWR.
    let body = served(&server, "/v1/vin?vin=3VWD07AJ5EM388202");
    assert_eq!(
        body["decode"],
        json!({"make": "VOLKSWAGEN", "model": "Jetta", "trim": "SE", "bodyClass": "Sedan/Saloon",
               "engine": "1.8L, 4 cylinders, Gasoline, 170 hp", "plant": "PUEBLA, MEXICO", "year": 2014, "gvwr": null})
    );
    assert_eq!((body["openRecalls"].as_array().map(Vec::len), body["complaintsCount"].as_u64()), (Some(0), Some(0)));
    assert_eq!(
        body["sources"]["decode"],
        "https://vpic.nhtsa.dot.gov/api/vehicles/DecodeVin/3VWD07AJ5EM388202?format=json"
    );
    // The demo theft reports, vehicle patterns and recalls are gone: the demo Accord is known by its WMI only.
    let body = served(&server, "/v1/vin?vin=1HGCV1F17KADEM006");
    assert_eq!(
        (body["theftFlag"].as_bool(), body["decodeLevel"].as_str()),
        (Some(false), Some("manufacturer")),
        "{body}"
    );
    assert_eq!((body["openRecalls"].as_array().map(Vec::len), body["complaintsCount"].as_u64()), (Some(0), Some(0)));
    // The error decode and the batch patterns changed nothing, so they are no ingested files.
    check_health(&server, "vin", VIN_ROWS, 6);
    assert_eq!(store.records("vin").map(|n| n as u64).unwrap_or(VIN_ROWS), VIN_ROWS);

    reingest_changes_nothing(&server, "vin", &files, VIN_ROWS);
    let server = refused_again_and_restarted(store, server, "vin", &cut);
    let body = served(&server, "/v1/vin?vin=3VWPW31C36M400001");
    assert_eq!(body["openRecalls"][0]["component"], "EQUIPMENT:OTHER:LABELS", "the edit was not kept");
}

#[test]
fn vin_records_are_ingested_and_served_from_the_embedded_engine() {
    vin(&Store::embedded());
}

#[test]
fn vin_records_are_ingested_and_served_from_postgresql() {
    vin(&Store::postgres("ingest_nhtsa"));
}

// ---------------------------------------------------------------------------------------------------------------
// prices (Yahoo CSV, Stooq text) and the predictions backtest recomputed from them.

/// Data rows: AAPL.csv 3,175, GOOG.csv 2,032, IBM.csv 3,175, SPY.csv 3,174 (no final newline), qqq.us.txt
/// 6,870, spy.us.txt 5,370, xlk.us.txt 5,370 (one header line each).
const PRICE_ROWS: u64 = 3175 + 2032 + 3175 + 3174 + 6870 + 5370 + 5370;

fn prices(store: &Store) {
    let (Some(tickers), Some(aapl), Some(goog), Some(ibm), Some(spy_yahoo), Some(qqq), Some(spy), Some(xlk)) = (
        corpus("sec-misc/company_tickers.json"),
        corpus("prices/AAPL.csv"),
        corpus("prices/GOOG.csv"),
        corpus("prices/IBM.csv"),
        corpus("prices/SPY.csv"),
        corpus("prices/qqq.us.txt"),
        corpus("prices/spy.us.txt"),
        corpus("prices/xlk.us.txt"),
    ) else {
        return;
    };
    let server = store.start();
    // The demo seed's synthetic BTC-USD series, and the demo backtest ending on its last day.
    assert!(demo(&server, "/v1/prices?ticker=btc-usd&from=2026-10-30")["note"].as_str().unwrap().contains("DEMO DATA"));
    ingest_companies(&server, &tickers);

    // GOOG.csv line 2032 `2012-09-11,...,344.802582,344.802582,3761647`: the copy sets that close to 999 and loses
    // its last 30 bytes, cutting line 2033 (2012-09-12) to four fields.
    let tmp = tempfile::tempdir().unwrap();
    let cut = cut_copy(
        tmp.path(),
        &goog,
        "GOOG.csv",
        &[(
            "2012-09-11,347.676819,349.016785,344.209808,344.802582,",
            "2012-09-11,347.676819,349.016785,344.209808,999.000000,",
        )],
        30,
    );
    refused(&server, "prices", &cut);

    let files = [
        aapl.as_path(),
        goog.as_path(),
        ibm.as_path(),
        spy_yahoo.as_path(),
        qqq.as_path(),
        spy.as_path(),
        xlk.as_path(),
    ];
    let report = ingest(&server, "prices", &files);
    assert_eq!(report["applied"], 7, "{report}");
    let totals = &report["totals"];
    assert_eq!(
        (totals["added"].as_u64(), totals["unchanged"].as_u64(), totals["refused"].as_u64()),
        (Some(PRICE_ROWS), Some(0), Some(0)),
        "{totals}"
    );
    server.wait_for_data("prices", |s| s["rows"] == PRICE_ROWS);

    // Only the ingested tickers, no demo one; per ticker the source with the latest close gives the five years
    // ending there. spy.us.txt ends 20260702 (line 5371), after SPY.csv's 2012-09-11, so SPY is Stooq's: 1,254
    // rows from 20210706 (the first after 2021-07-02). The Yahoo files end 2012-09-12: 1,261 rows from
    // 2007-09-13 (AAPL.csv line 1916, IBM.csv line 1916). company_tickers.json "1": AAPL = Apple Inc.
    let list = served(&server, "/v1/prices");
    assert_eq!(list["tickers"], json!(["AAPL", "GOOG", "IBM", "QQQ", "SPY", "XLK"]), "{list}");
    let spy_entry = find(&list["universe"], "ticker", "SPY");
    assert_eq!((spy_entry["source"].as_str(), spy_entry["count"].as_u64()), (Some("stooq"), Some(1254)), "{spy_entry}");
    assert_eq!(
        (spy_entry["firstDate"].as_str(), spy_entry["lastDate"].as_str()),
        (Some("2021-07-06"), Some("2026-07-02"))
    );
    let aapl_entry = find(&list["universe"], "ticker", "AAPL");
    assert_eq!(
        (aapl_entry["source"].as_str(), aapl_entry["count"].as_u64()),
        (Some("yahoo"), Some(1261)),
        "{aapl_entry}"
    );
    assert_eq!(
        (aapl_entry["firstDate"].as_str(), aapl_entry["lastDate"].as_str()),
        (Some("2007-09-13"), Some("2012-09-12"))
    );
    assert_eq!(aapl_entry["name"], "Apple Inc.");
    // spy.us.txt lines 5370-5371: 20260701 close 745.76, 20260702 close 744.78 (Stooq: no adjusted column).
    let body = served(&server, "/v1/prices?ticker=spy&from=2026-07-01");
    assert_eq!(
        body["series"],
        json!([{"date": "2026-07-01", "close": 745.76}, {"date": "2026-07-02", "close": 744.78}])
    );
    assert_eq!(body["sourceUrl"], "https://stooq.com/q/d/?s=spy.us");
    // SPY.csv's own last row (2012-09-11, Close 143.910004) is held but never mixed into Stooq's series.
    assert_eq!(served(&server, "/v1/prices?ticker=SPY&from=2012-09-11&to=2012-09-11")["count"], 0);
    // GOOG.csv line 2032: 2012-09-11 Close 344.802582, Adj Close 344.802582.
    let body = served(&server, "/v1/prices?ticker=GOOG&from=2012-09-11&to=2012-09-11");
    assert_eq!(body["series"], json!([{"date": "2012-09-11", "close": 344.802582, "adjClose": 344.802582}]));
    // IBM.csv lines 1916-1917: the window's first two closes, 2007-09-13 110.850861 (Adj 71.737999) and 2007-09-14
    // 110.066925 (Adj 71.230659); line 1915 (2007-09-12) is the day five years before the last close.
    // company_tickers.json "69": IBM = CIK 51143, INTERNATIONAL BUSINESS MACHINES CORP.
    let body = served(&server, "/v1/prices?ticker=IBM&to=2007-09-14");
    assert_eq!(
        body["series"],
        json!([{"date": "2007-09-13", "close": 110.850861, "adjClose": 71.737999},
               {"date": "2007-09-14", "close": 110.066925, "adjClose": 71.230659}])
    );
    assert_eq!(
        (body["name"].as_str(), body["cik"].as_str()),
        (Some("INTERNATIONAL BUSINESS MACHINES CORP"), Some("0000051143"))
    );
    // The demo universe is gone.
    let (status, _) = server.get("/v1/prices?ticker=BTC-USD");
    assert_eq!(status, 404);

    // predictions recomputes from the ingested closes (it reloads just after prices). SPY's 1,254 days (indexes
    // 0-1253); windows start at 60, 80, ..., 1240: 60 windows, 54 before 2026-01-02 (backfilled), 5 closed live,
    // 1 open. The pool is QQQ and XLK.
    // Open window, start index 1240 = 2026-06-12, lookback index 1180 = 2026-03-18:
    //   XLK xlk.us.txt line 5358 close 184.8 / line 5298 137.96 -> +33.9519 %; QQQ qqq.us.txt line 6858 721.34 /
    //   line 6798 594.9 -> +21.2540 %: XLK (not in the SEC's list, so labelled by its ticker). Returns to the last
    //   close 2026-07-02: XLK 180.59 / 184.8 -> -2.2781 %; SPY spy.us.txt line 5371 744.78 / line 5358 741.75 ->
    //   +0.4085 %. End index 1260 is 7 days past 1253: 7 weekdays after Thursday 2026-07-02 is 2026-07-13.
    let body = server.wait_for_route("/v1/predictions?open=true", |b| b["dataEnd"] == "2026-07-02");
    assert_eq!(body["asOf"], "2026-07-02");
    assert_eq!(
        body["rows"],
        json!([{"windowStart": "2026-06-12", "windowEnd": "2026-07-13", "firstLoggedAt": "2026-06-12",
                "chosenId": "XLK", "chosenLabel": "XLK", "pool": "trend-preferred", "trailingScore": 33.9519,
                "realizedReturnPct": -2.2781, "spyReturnPct": 0.4085, "predictedLong": true, "open": true,
                "backfilled": false, "realizedThrough": "2026-07-02"}])
    );
    let score = &body["score"];
    assert_eq!(
        [&score["totalWindows"], &score["backfilled"], &score["liveClosed"], &score["liveOpen"]],
        [&json!(60), &json!(54), &json!(5), &json!(1)],
        "{score}"
    );
    assert_eq!(body["strategy"]["members"], json!(["QQQ", "XLK"]));
    assert!(!body["note"].as_str().unwrap().contains("DEMO DATA"), "{}", body["note"]);
    // The newest closed window, 2026-05-14 (index 1220; lookback index 1160 = 2026-02-18) to 2026-06-12: XLK
    // 179.5 (line 5338) / 140.91 (line 5278) -> +27.3863 % beats QQQ 719.79 / 605.79 -> +18.82 %; realized XLK
    // 184.8 / 179.5 -> +2.9526 %, SPY 741.75 / 748.17 (line 5338) -> -0.8581 %.
    let (_, closed) = server.get("/v1/predictions?open=false&limit=1");
    let row = &closed["rows"][0];
    assert_eq!(
        (row["windowStart"].as_str(), row["windowEnd"].as_str(), row["chosenId"].as_str()),
        (Some("2026-05-14"), Some("2026-06-12"), Some("XLK"))
    );
    assert_eq!(
        (row["trailingScore"].as_f64(), row["realizedReturnPct"].as_f64(), row["spyReturnPct"].as_f64()),
        (Some(27.3863), Some(2.9526), Some(-0.8581))
    );
    check_health(&server, "prices", PRICE_ROWS, 7);
    assert_eq!(store.records("prices").map(|n| n as u64).unwrap_or(PRICE_ROWS), PRICE_ROWS);

    reingest_changes_nothing(&server, "prices", &files, PRICE_ROWS);
    let server = refused_again_and_restarted(store, server, "prices", &cut);
    let body = served(&server, "/v1/prices?ticker=GOOG&from=2012-09-11&to=2012-09-11");
    assert_eq!(body["series"][0]["close"], 344.802582, "the edit was not kept");
}

#[test]
fn prices_and_predictions_are_ingested_and_served_from_the_embedded_engine() {
    prices(&Store::embedded());
}

#[test]
fn prices_and_predictions_are_ingested_and_served_from_postgresql() {
    prices(&Store::postgres("ingest_prices"));
}

// ---------------------------------------------------------------------------------------------------------------
// property: New York City's PLUTO and Department of Finance assessment roll, read through the county column
// mappings in plugins/property/mappings.

/// pluto_latest.csv holds 5 Bronx lots, dof_property_valuation_and_assessments.csv 5 Manhattan lots.
const PROPERTY_ROWS: u64 = 5 + 5;

fn property(store: &Store) {
    let fixtures = workspace_root().join("plugins/property/tests/fixtures");
    let (pluto, roll) =
        (fixtures.join("pluto_latest.csv"), fixtures.join("dof_property_valuation_and_assessments.csv"));
    let server = store.start();
    let seed = demo(&server, "/v1/property?address=1204%20Cedar%20Bend%20Lane%2C%20Austin%2C%20TX&county=travis-tx");
    assert_eq!(seed["status"], "matched", "{seed}");

    // pluto_latest.csv line 2 is BBL 2054800111, owner "RODRIGUEZ, JOSE R"; the copy edits the owner and loses its
    // last 30 bytes, so its last row (line 6) stops short with no newline: a cut download.
    let tmp = tempfile::tempdir().unwrap();
    let cut = cut_copy(tmp.path(), &pluto, "pluto_latest.csv", &[("RODRIGUEZ, JOSE R", "EDITED OWNER")], 30);
    let entry = refused(&server, "property", &cut);
    assert!(entry["reason"].as_str().unwrap().contains("ends inside a row"), "{entry}");

    let files = [pluto.as_path(), roll.as_path()];
    let report = ingest(&server, "property", &files);
    assert_eq!(report["refused"], 0, "{report}");
    assert_eq!(
        (report["totals"]["added"].as_u64(), report["totals"]["unchanged"].as_u64()),
        (Some(PROPERTY_ROWS), Some(0)),
        "{report}"
    );
    assert_eq!(report["files"][0]["format"], "nyc-pluto", "{report}");
    assert_eq!(report["files"][1]["format"], "nyc-dof-assessment-roll", "{report}");
    server.wait_for_data("property", |s| s["rows"] == PROPERTY_ROWS);

    // pluto_latest.csv line 2: "BX","5480","111", ... "761 CLARENCE AVENUE", zonedist1 "R3A", bldgclass "A5",
    // ownername "RODRIGUEZ, JOSE R", lotarea "1,700", bldgarea "1,683", assessland "10080", assesstot "40140",
    // yearbuilt "1950", postcode "10465", BBL "2054800111".
    let body = served(&server, "/v1/property?address=761%20Clarence%20Ave%2C%20Bronx%2C%20NY%2010465");
    assert_eq!((body["status"].as_str(), body["county"].as_str()), (Some("matched"), Some("bronx-ny")), "{body}");
    let r = &body["record"];
    assert_eq!(r["ownerName"], "RODRIGUEZ, JOSE R");
    assert_eq!(r["assessorId"], "2054800111");
    assert_eq!(r["sourceId"], "NYC-PLUTO:2054800111");
    assert_eq!(r["sourceUrl"], "https://zola.planning.nyc.gov/l/lot/2/5480/111");
    assert_eq!((r["yearBuilt"].as_u64(), r["squareFootage"].as_u64()), (Some(1950), Some(1683)));
    assert_eq!((r["landValue"].as_f64(), r["improvementValue"].as_f64()), (Some(10080.0), Some(30060.0)));
    assert_eq!((r["zoning"].as_str(), r["propertyType"].as_str()), (Some("R3A"), Some("A5")));
    assert!(r["marketValue"].is_null() && r["bedrooms"].is_null(), "PLUTO publishes neither: {r}");
    assert_eq!(body["matchedAddress"], "761 CLARENCE AVENUE, BRONX, NY 10465");
    // dof_property_valuation_and_assessments.csv line 3: PARID 1000010101, HOUSENUM_LO 1, STREET_NAME "LIBERTY
    // ISLAND", OWNER "U S GOVT LAND & BLDGS", CURMKTTOT 30489000, YEAR 2024.
    let body = served(&server, "/v1/property?address=1%20Liberty%20Island&county=new-york-ny");
    assert_eq!(body["record"]["ownerName"], "U S GOVT LAND & BLDGS", "{body}");
    assert_eq!(body["record"]["marketValue"], 30489000.0);
    assert_eq!(body["record"]["sourceId"], "NYC-DOF:1000010101:2024");
    // No demo parcel beside the real ones: the demo counties are no longer onboarded.
    let body = served(&server, "/v1/property?address=1204%20Cedar%20Bend%20Lane%2C%20Austin%2C%20TX&county=travis-tx");
    assert_eq!(body["status"], "county-not-onboarded", "{body}");
    let status = check_health(&server, "property", PROPERTY_ROWS, 2);
    let body = served(&server, "/v1/property?address=761%20Clarence%20Avenue");
    assert_eq!(body["record"]["fetchedAt"], status["lastIngestAt"], "fetchedAt is the ingest time: {body}");
    if let Some(doc) = store.document("property") {
        // Table-backed: the document counts the parcels and holds none of them.
        assert_eq!(doc["ingested"]["collections"]["parcels"], PROPERTY_ROWS, "{doc}");
        assert!(doc.get("parcels").is_none(), "the parcels stay in the records table");
    }
    assert_eq!(store.records("property").map(|n| n as u64).unwrap_or(PROPERTY_ROWS), PROPERTY_ROWS);

    reingest_changes_nothing(&server, "property", &files, PROPERTY_ROWS);
    let server = refused_again_and_restarted(store, server, "property", &cut);
    let body = served(&server, "/v1/property?address=761%20Clarence%20Avenue&county=bronx-ny");
    assert_eq!(body["record"]["ownerName"], "RODRIGUEZ, JOSE R", "the edit was not kept");
}

#[test]
fn property_records_are_ingested_and_served_from_the_embedded_engine() {
    property(&Store::embedded());
}

#[test]
fn property_records_are_ingested_and_served_from_postgresql() {
    property(&Store::postgres("ingest_property"));
}

// ---------------------------------------------------------------------------------------------------------------
// deeds and liens: New York City's ACRIS tables (real property master, parties, parcels; personal property
// master with its federal tax liens), read through the clerk mapping in plugins/deeds/mappings, ingested into
// `deeds`; `liens` serves the liens among them.

/// Instrument rows: fitnr_real_property_master.csv 99, acris_real_property_master.csv 100,
/// acris_personal_property_master.csv 100.
const CLERK_INSTRUMENTS: u64 = 99 + 100 + 100;

fn clerk(store: &Store) {
    let fixtures = workspace_root().join("plugins/deeds/tests/fixtures");
    let file = |name: &str| fixtures.join(name);
    let files_owned = [
        file("fitnr_real_property_master.csv"),
        file("acris_real_property_master.csv"),
        file("acris_personal_property_master.csv"),
        file("acris_real_property_parties.csv"),
        file("fitnr_real_property_legals.csv"),
    ];
    let files: Vec<&Path> = files_owned.iter().map(PathBuf::as_path).collect();
    let server = store.start();
    demo(&server, "/v1/deeds?county=travis-tx&query=Smith");
    demo(&server, "/v1/liens?county=travis-tx&query=Smith");

    // acris_real_property_master.csv line 35 is the DEED 2014041100010001 recorded 04/17/2014; the copy edits its
    // recording date and loses its last 40 bytes, so its last row stops short with no newline.
    let tmp = tempfile::tempdir().unwrap();
    let cut = cut_copy(
        tmp.path(),
        &files_owned[1],
        "acris_real_property_master.csv",
        &[("DEED,04/04/2014,730000,04/17/2014", "DEED,04/04/2014,730000,04/18/2014")],
        40,
    );
    let entry = refused(&server, "deeds", &cut);
    assert!(entry["reason"].as_str().unwrap().contains("ends inside a row"), "{entry}");

    let report = ingest(&server, "deeds", &files);
    assert_eq!(report["refused"], 0, "{report}");
    let formats: Vec<&str> =
        report["files"].as_array().unwrap().iter().map(|f| f["format"].as_str().unwrap()).collect();
    assert_eq!(
        formats,
        [
            "nyc-acris-instruments",
            "nyc-acris-instruments",
            "nyc-acris-instruments",
            "nyc-acris-parties",
            "nyc-acris-legals"
        ]
    );
    assert_eq!(report["totals"]["unchanged"], 0, "{report}");
    let rows = report["totals"]["added"].as_u64().unwrap();
    server.wait_for_data("deeds", |s| s["rows"] == rows);

    // fitnr_real_property_master.csv line 14: 2017011101164001,A,2017000019549,1,DEED,01/09/2017,435000,
    // 01/13/2017: found by its CRFN; its parties are in none of these files.
    let body = served(&server, "/v1/deeds?county=new-york-ny&query=2017000019549");
    assert_eq!((body["count"].as_u64(), body["countyOnboarded"].as_bool()), (Some(1), Some(true)), "{body}");
    let deed = &body["deeds"][0];
    assert_eq!(deed["instrumentNumber"], "2017011101164001");
    assert_eq!((deed["docType"].as_str(), deed["recordedDate"].as_str()), (Some("DEED"), Some("2017-01-13")));
    assert_eq!(deed["county"], "new-york-ny");
    assert_eq!(
        deed["sourceUrl"],
        "https://a836-acris.nyc.gov/DS/DocumentSearch/DocumentDetail?doc_id=2017011101164001"
    );
    // Line 35 of the nycdb master, by document id: recorded 04/17/2014 (nothing of the refused copy was kept).
    let body = served(&server, "/v1/deeds?county=new-york-ny&query=2014041100010001");
    assert_eq!(body["deeds"][0]["recordedDate"], "2014-04-17", "{body}");
    // No demo deed beside the real ones.
    let body = served(&server, "/v1/deeds?county=travis-tx&query=Smith");
    assert_eq!((body["count"].as_u64(), body["countyOnboarded"].as_bool()), (Some(0), Some(false)), "{body}");

    // acris_personal_property_master.csv line 10: FT_1350006197535,A,,1,FL,706.89,01/10/1992, ... 92FL00037: a
    // federal (IRS) tax lien, served by /v1/liens from the deeds dataset's records.
    let body = served(&server, "/v1/liens?county=new-york-ny&query=92FL00037");
    assert_eq!(body["count"], 1, "{body}");
    let lien = &body["liens"][0];
    assert_eq!((lien["instrumentNumber"].as_str(), lien["lienType"].as_str()), (Some("FT_1350006197535"), Some("tax")));
    assert_eq!((lien["amount"].as_f64(), lien["filedDate"].as_str()), (Some(706.89), Some("1992-01-10")));
    assert_eq!(lien["released"], false);
    let body = served(&server, "/v1/liens?county=new-york-ny&query=92FL00037&lienType=judgment");
    assert_eq!(body["count"], 0, "{body}");
    // A deed is no lien, and a lien no deed.
    assert_eq!(served(&server, "/v1/liens?county=new-york-ny&query=2017000019549")["count"], 0);
    assert_eq!(served(&server, "/v1/deeds?county=new-york-ny&query=92FL00037")["count"], 0);

    check_health(&server, "deeds", rows, 5);
    if let Some(doc) = store.document("deeds") {
        let collections = &doc["ingested"]["collections"];
        assert_eq!(collections["instruments"], CLERK_INSTRUMENTS, "{collections}");
        assert_eq!((collections["parties"].as_u64(), collections["legals"].as_u64()), (Some(100), Some(99)));
        assert!(doc.get("instruments").is_none() && doc.get("terms").is_none(), "table-backed");
    }
    assert_eq!(store.records("deeds").map(|n| n as u64).unwrap_or(rows), rows);

    reingest_changes_nothing(&server, "deeds", &files, rows);
    let server = refused_again_and_restarted(store, server, "deeds", &cut);
    let body = served(&server, "/v1/deeds?county=new-york-ny&query=2014000131777");
    assert_eq!(body["deeds"][0]["instrumentNumber"], "2014041100010001", "{body}");
    assert_eq!(body["deeds"][0]["recordedDate"], "2014-04-17", "the edit was not kept");
    assert_eq!(served(&server, "/v1/liens?county=new-york-ny&query=92FL00037")["count"], 1);
}

#[test]
fn deeds_and_liens_are_ingested_and_served_from_the_embedded_engine() {
    clerk(&Store::embedded());
}

#[test]
fn deeds_and_liens_are_ingested_and_served_from_postgresql() {
    clerk(&Store::postgres("ingest_clerk"));
}

/// SYNTHETIC clerk tables (never real records: document ids `SYNCAP...`, invented names): `docs` deeds recorded on
/// distinct days, each with the grantor `SYNTHCAP, ALEX`; every second one also has the grantee `SYNTHHALF, DANA`,
/// and every third one a parcel (borough 3, block `i`, lot 7, `12 SYNTHLANE`). Master, parties and parcels files.
fn synthetic_clerk_tables(dir: &Path, docs: usize) -> [PathBuf; 3] {
    let (master, parties) = (dir.join("synthetic_master.csv"), dir.join("synthetic_parties.csv"));
    let legals = dir.join("synthetic_legals.csv");
    let mut m = String::from("DOCUMENT ID,RECORD TYPE,CRFN,BOROUGH,DOC. TYPE,DOC. DATE,DOC. AMOUNT,RECORDED / FILED\n");
    let mut p = String::from("DOCUMENT ID,RECORD TYPE,PARTY TYPE,NAME\n");
    let mut l = String::from("DOCUMENT ID,RECORD TYPE,BOROUGH,BLOCK,LOT,STREET NUMBER,STREET NAME,UNIT\n");
    let day = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).unwrap();
    for i in 0..docs {
        let date = (day + chrono::Duration::days(i as i64)).format("%m/%d/%Y");
        m.push_str(&format!("SYNCAP{i:010},A,,3,DEED,{date},1000,{date}\n"));
        p.push_str(&format!("SYNCAP{i:010},P,1,\"SYNTHCAP, ALEX\"\n"));
        if i % 2 == 0 {
            p.push_str(&format!("SYNCAP{i:010},P,2,\"SYNTHHALF, DANA\"\n"));
        }
        if i % 3 == 0 {
            l.push_str(&format!("SYNCAP{i:010},L,3,{i},7,12,SYNTHLANE,\n"));
        }
    }
    std::fs::write(&master, m).unwrap();
    std::fs::write(&parties, p).unwrap();
    std::fs::write(&legals, l).unwrap();
    [master, parties, legals]
}

/// The count of an ingested clerk search is capped: matches are counted among at most 1,000 documents of the
/// query's rarest word (its first 250 when it is on more than 2,000 and the query has other words: not here), and
/// `totalIsLowerBound` says when more were left uncounted; pages still reach every match.
fn clerk_capped_totals(store: &Store) {
    let tmp = tempfile::tempdir().unwrap();
    let docs = 1_205;
    let files = synthetic_clerk_tables(tmp.path(), docs);
    let server = store.start();
    let report = ingest(&server, "deeds", &[&files[0], &files[1], &files[2]]);
    let rows = report["totals"]["added"].as_u64().unwrap();
    server.wait_for_data("deeds", |s| s["rows"] == rows);
    // A page joins each document's instrument, parties and parcel (read at once on PostgreSQL): every third
    // document has the parcel `SYNCAP{i},L,3,{i},7,12,SYNTHLANE` (borough 3, block i, lot 7, 12 SYNTHLANE).
    let body = served(&server, "/v1/deeds?county=kings-ny&query=synthlane");
    assert_eq!((body["count"].as_u64(), body["total"].as_u64()), (Some(100), Some(402)), "{body}");
    for deed in body["deeds"].as_array().unwrap() {
        let i: u64 = deed["instrumentNumber"].as_str().unwrap().trim_start_matches("SYNCAP").parse().unwrap();
        assert!(i.is_multiple_of(3), "{deed}");
        assert_eq!(deed["propertyAddress"], "12 SYNTHLANE", "{deed}");
        assert_eq!(deed["legalDescription"], format!("Borough 3 Block {i} Lot 7"), "{deed}");
        let grantee = if i.is_multiple_of(2) { "SYNTHHALF, DANA" } else { "" };
        assert_eq!((deed["grantor"].as_str(), deed["grantee"].as_str()), (Some("SYNTHCAP, ALEX"), Some(grantee)));
    }
    let total = |query: &str| {
        let body = served(&server, &format!("/v1/deeds?county=kings-ny&query={query}"));
        (body["total"].as_u64().unwrap(), body["totalIsLowerBound"].as_bool().unwrap(), body["count"].as_u64().unwrap())
    };
    assert_eq!(total("synthcap"), (1_000, true, 100), "1,205 match; 1,000 counted");
    assert_eq!(total("alex%20synthcap"), (1_000, true, 100), "two words on every document");
    assert_eq!(total("synthhalf"), (603, false, 100), "a word on 603 documents is counted exactly");
    assert_eq!(total("synthcap%20dana%20synthhalf"), (603, false, 100), "the rarest word drives the count");
    assert_eq!(total("SYNCAP0000001204"), (1, false, 1));
    assert_eq!(total("synthcap%20nobody"), (0, false, 0));
    // Paging walks every match, newest first, whatever the count says.
    let mut seen = Vec::new();
    let mut path = "/v1/deeds?county=kings-ny&query=synthcap&limit=1000".to_string();
    loop {
        let body = served(&server, &path);
        for d in body["deeds"].as_array().unwrap() {
            seen.push(d["recordedDate"].as_str().unwrap().to_string());
        }
        match body["next"].as_str() {
            Some(cursor) => path = format!("/v1/deeds?county=kings-ny&query=synthcap&limit=1000&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(seen.len(), docs);
    assert!(seen.windows(2).all(|w| w[0] > w[1]), "newest first, no repeat");
}

#[test]
fn clerk_totals_are_capped_in_the_embedded_engine() {
    clerk_capped_totals(&Store::embedded());
}

#[test]
fn clerk_totals_are_capped_in_postgresql() {
    clerk_capped_totals(&Store::postgres("ingest_clerk_cap"));
}
