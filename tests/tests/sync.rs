//! `datahost sync` black-box: a local HTTP server started by the test (port 0, no internet) serves files of
//! `../shared/corpus` under the official addresses (zips built here from corpus files), with injected faults:
//! 429 with Retry-After, 503, a connection cut mid-body, a slow answer, a corrupt zip. The real binary syncs
//! from it into the records engine while a real server runs; the test asserts what the server saw (User-Agent,
//! request rate, retries, resumed ranges, conditional requests) and what the API then serves.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Datelike;
use datahost_tests::{corpus, datahost_bin, eventually, pg::TestDb, until, Server, ServerOptions};
use serde_json::Value;

const UA: &str = "datahost-tests ops@example.com";

/// A fault the mirror injects into the next answer for a path.
#[derive(Clone)]
enum Fault {
    /// 429 with `Retry-After: <secs>`.
    TooMany(u64),
    /// 503.
    Unavailable,
    /// 200 with the full `Content-Length`, then the connection closes after this many bytes.
    Cut(usize),
    /// Says nothing for this long, then closes (the client's timeout must fire first).
    Slow(Duration),
    /// Answers these bytes (a corrupt file) instead of the real ones.
    Body(Vec<u8>),
}

/// One request as the mirror saw it.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    user_agent: String,
    at: Instant,
    range: Option<String>,
    if_none_match: Option<String>,
    status: u16,
}

struct Route {
    body: Vec<u8>,
    faults: VecDeque<Fault>,
}

/// The test's stand-in for the official servers.
struct Mirror {
    base: String,
    routes: Arc<Mutex<HashMap<String, Route>>>,
    log: Arc<Mutex<Vec<Seen>>>,
}

impl Mirror {
    fn start() -> Mirror {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let routes: Arc<Mutex<HashMap<String, Route>>> = Arc::default();
        let log: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let (r, l) = (routes.clone(), log.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let (r, l) = (r.clone(), l.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, &r, &l);
                });
            }
        });
        Mirror { base, routes, log }
    }

    fn put(&self, path: &str, body: Vec<u8>) {
        self.routes.lock().unwrap().insert(path.to_string(), Route { body, faults: VecDeque::new() });
    }

    fn fault(&self, path: &str, fault: Fault) {
        self.routes.lock().unwrap().get_mut(path).expect("route").faults.push_back(fault);
    }

    fn seen(&self) -> Vec<Seen> {
        self.log.lock().unwrap().clone()
    }

    fn requests_to(&self, path: &str) -> Vec<Seen> {
        self.seen().into_iter().filter(|s| s.path == path).collect()
    }
}

fn etag_of(body: &[u8]) -> String {
    format!("\"{:x}-{}\"", body.iter().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(*b as u64)), body.len())
}

fn serve(mut stream: TcpStream, routes: &Mutex<HashMap<String, Route>>, log: &Mutex<Vec<Seen>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let at = Instant::now();
    let (body, fault) = {
        let mut routes = routes.lock().unwrap();
        match routes.get_mut(&path) {
            Some(route) => (Some(route.body.clone()), route.faults.pop_front()),
            None => (None, None),
        }
    };
    let record = |status: u16| {
        log.lock().unwrap().push(Seen {
            path: path.clone(),
            user_agent: headers.get("user-agent").cloned().unwrap_or_default(),
            at,
            range: headers.get("range").cloned(),
            if_none_match: headers.get("if-none-match").cloned(),
            status,
        })
    };
    let Some(mut body) = body else {
        record(404);
        return stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    };
    let mut etag = etag_of(&body);
    match fault {
        Some(Fault::TooMany(secs)) => {
            record(429);
            let head = format!(
                "HTTP/1.1 429 Too Many Requests\r\nRetry-After: {secs}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            return stream.write_all(head.as_bytes());
        }
        Some(Fault::Unavailable) => {
            record(503);
            return stream
                .write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
        Some(Fault::Cut(n)) => {
            record(200);
            let head = format!(
                "HTTP/1.1 200 OK\r\nETag: {etag}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes())?;
            stream.write_all(&body[..n.min(body.len())])?;
            stream.flush()?;
            return stream.shutdown(std::net::Shutdown::Both);
        }
        Some(Fault::Slow(d)) => {
            // Counted when it arrives; by the time it would answer the client has given up.
            record(0);
            std::thread::sleep(d);
            return Ok(());
        }
        Some(Fault::Body(bytes)) => {
            body = bytes;
            etag = etag_of(&body);
        }
        None => {}
    }
    if headers.get("if-none-match") == Some(&etag) {
        record(304);
        let head = format!("HTTP/1.1 304 Not Modified\r\nETag: {etag}\r\nConnection: close\r\n\r\n");
        return stream.write_all(head.as_bytes());
    }
    let range_start = headers
        .get("range")
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.trim_end_matches('-').parse::<usize>().ok())
        .filter(|_| headers.get("if-range").is_none_or(|v| *v == etag))
        .filter(|s| *s < body.len());
    let head = match range_start {
        Some(start) => {
            record(206);
            let head = format!(
                "HTTP/1.1 206 Partial Content\r\nETag: {etag}\r\nContent-Range: bytes {start}-{}/{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len() - 1,
                body.len(),
                body.len() - start
            );
            body.drain(..start);
            head
        }
        None => {
            record(200);
            format!(
                "HTTP/1.1 200 OK\r\nETag: {etag}\r\nLast-Modified: Mon, 06 Jan 2025 10:00:00 GMT\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )
        }
    };
    stream.write_all(head.as_bytes())?;
    stream.write_all(&body)?;
    // Drain anything left so the client never sees a reset before reading the answer.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let _ = stream.read(&mut [0u8; 64]);
    Ok(())
}

/// A zip of `(name, bytes)` members, deflated like the official bulk files.
fn zip_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut w = zip::ZipWriter::new(&mut buf);
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in files {
            w.start_file(*name, options).unwrap();
            w.write_all(bytes).unwrap();
        }
        w.finish().unwrap();
    }
    buf.into_inner()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// Runs `datahost sync <args>` with `config`: (exit code, stdout, stderr).
fn sync(config: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(datahost_bin()).arg("sync").args(args).env("DATAHOST_CONFIG", config).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn report(out: &str, err: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("no JSON report ({e}):\n{out}\n{err}"))
}

fn source<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["sources"].as_array().unwrap().iter().find(|s| s["source"] == name).unwrap_or_else(|| panic!("{report}"))
}

fn ingest_of<'a>(source: &'a Value, dataset: &str) -> &'a Value {
    source["ingest"].as_array().unwrap().iter().find(|d| d["dataset"] == dataset).unwrap_or_else(|| panic!("{source}"))
}

/// The most requests the mirror saw in any one-second window.
fn busiest_second(seen: &[Seen]) -> usize {
    seen.iter()
        .map(|a| seen.iter().filter(|b| b.at >= a.at && b.at < a.at + Duration::from_secs(1)).count())
        .max()
        .unwrap_or(0)
}

/// Files under `dir` whose name ends with `suffix` (left-overs of interrupted downloads, for example).
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_ending(&p, suffix));
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out
}

/// A weekday a few days back, so the run reads one published index and then reaches "today".
fn recent_weekday() -> chrono::NaiveDate {
    let mut d = chrono::Utc::now().date_naive() - chrono::Duration::days(3);
    while matches!(d.weekday(), chrono::Weekday::Sat | chrono::Weekday::Sun) {
        d -= chrono::Duration::days(1);
    }
    d
}

fn index_row(form: &str, company: &str, cik: &str, date: &str, file: &str) -> String {
    format!("{form:<12}{company:<62}{cik:<12}{date:<12}{file}\n")
}

#[test]
fn sec_sync_is_polite_survives_faults_and_a_second_run_fetches_nothing_new() {
    let (Some(form4_a), Some(form4_b), Some(holdings), Some(tickers)) = (
        corpus("sec-form4/0000320193-22-000061.txt"),
        corpus("sec-form4/0001127602-25-001055.txt"),
        corpus("sec-13f/0001140361-23-013281.txt"),
        corpus("sec-misc/company_tickers.json"),
    ) else {
        return;
    };
    let mirror = Mirror::start();
    let day = recent_weekday();
    let ymd = day.format("%Y%m%d").to_string();
    let index_path =
        format!("/Archives/edgar/daily-index/{}/QTR{}/form.{ymd}.idx", day.year(), (day.month() - 1) / 3 + 1);
    let a = "/Archives/edgar/data/320193/0000320193-22-000061.txt";
    let b = "/Archives/edgar/data/1127602/0001127602-25-001055.txt";
    let h = "/Archives/edgar/data/1140361/0001140361-23-013281.txt";
    let mut index = String::from(
        "Description:           Daily Index of EDGAR Dissemination Feed by Form Type\n\n\
         Form Type   Company Name                                                  CIK         Date Filed  File Name\n",
    );
    index.push_str(&"-".repeat(141));
    index.push('\n');
    index.push_str(&index_row("4", "Apple Inc.", "320193", &ymd, &a[10..]));
    index.push_str(&index_row("8-K", "Not Wanted Corp", "1", &ymd, "edgar/data/1/0000000001-25-000001.txt"));
    index.push_str(&index_row("4/A", "Some Filer", "1127602", &ymd, &b[10..]));
    index.push_str(&index_row("13F-HR", "Some Manager LLC", "1140361", &ymd, &h[10..]));
    mirror.put(&index_path, index.into_bytes());
    mirror.put(a, read(&form4_a));
    mirror.put(b, read(&form4_b));
    mirror.put(h, read(&holdings));
    mirror.put("/files/company_tickers.json", read(&tickers));
    mirror.fault(&index_path, Fault::Unavailable);
    mirror.fault(a, Fault::TooMany(1));
    mirror.fault(b, Fault::Cut(3000));
    mirror.fault(h, Fault::Slow(Duration::from_millis(4000)));

    let rate = 4.0;
    let server = Server::start_with(ServerOptions {
        extra_toml: format!(
            "[engine]\nreload_interval_secs = 1\n\n[sync]\nuser_agent = \"{UA}\"\n\n[sync.sources.sec]\n\
             base_url = \"{}\"\nrequests_per_second = {rate}\ntimeout_secs = 2\nretries = 3\nbackoff_ms = 50\n\
             start_date = \"{}\"\n",
            mirror.base,
            day.format("%Y-%m-%d")
        ),
        ..Default::default()
    });
    let (_, health) = server.get_with("/health", &[]);
    assert_eq!(health["data"]["insiders"]["lastSyncAt"], Value::Null, "never synced yet: {health}");
    assert_eq!(health["data"]["insiders"]["syncAgeSecs"], Value::Null);

    let (code, out, err) = sync(&server.config_file, &["insiders", "institutional-holdings", "companies", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let r = report(&out, &err);
    let sec = source(&r, "sec");
    assert_eq!(sec["errors"], serde_json::json!([]), "{sec}");
    assert_eq!(sec["fetched"], 5, "tickers, the index and three submissions: {sec}");
    assert!(sec["retries"].as_u64().unwrap() >= 4, "503, 429, cut, timeout: {sec}");
    assert_eq!(
        sec["cursor"]["index_date:insiders"].as_str().map(|d| d >= day.format("%Y-%m-%d").to_string().as_str()),
        Some(true),
        "{sec}"
    );
    let insiders = &ingest_of(sec, "insiders")["report"];
    assert_eq!((insiders["applied"].as_u64(), insiders["refused"].as_u64()), (Some(2), Some(0)), "{insiders}");
    assert_eq!(ingest_of(sec, "institutional-holdings")["report"]["applied"], 1);
    assert_eq!(ingest_of(sec, "companies")["report"]["applied"], 1);

    // What the server saw: our User-Agent on every request, the rate cap, Retry-After honoured, a resumed
    // range after the cut, and only the wanted forms.
    let seen = mirror.seen();
    assert!(seen.iter().all(|s| s.user_agent == UA), "{seen:?}");
    let busiest = busiest_second(&seen);
    assert!(busiest <= rate as usize + 1, "{busiest} requests in one second with a cap of {rate}/s");
    let after_429 = mirror.requests_to(a);
    assert_eq!(after_429.iter().map(|s| s.status).collect::<Vec<_>>(), [429, 200]);
    let waited = after_429[1].at - after_429[0].at;
    assert!(waited >= Duration::from_millis(950), "Retry-After: 1 honoured, waited {waited:?}");
    let cut = mirror.requests_to(b);
    assert_eq!(cut.iter().map(|s| s.status).collect::<Vec<_>>(), [200, 206], "{cut:?}");
    assert_eq!(cut[1].range.as_deref(), Some("bytes=3000-"), "resumed where the cut left off");
    assert_eq!(mirror.requests_to(h).len(), 2, "the slow answer timed out and was retried");
    assert_eq!(mirror.requests_to(&index_path).iter().map(|s| s.status).collect::<Vec<_>>(), [503, 200]);
    assert!(mirror.requests_to("/Archives/edgar/data/1/0000000001-25-000001.txt").is_empty(), "8-K not fetched");
    println!(
        "sec sync: {} requests, busiest second {busiest}, retries {}, UA {UA:?}, waited {waited:?} after 429",
        seen.len(),
        sec["retries"]
    );

    // Raw files kept whole, byte for byte, with nothing partial left behind.
    let raw = server.data_dir.join("raw");
    assert_eq!(read(&raw.join(format!("sec{b}"))), read(&form4_b), "the resumed file is whole");
    assert!(files_ending(&raw, ".part").is_empty() && files_ending(&raw, ".part.json").is_empty());

    // The running server serves the synced records and says how fresh they are.
    server.wait_for_data("insiders", |s| s["files"] == 2);
    server.wait_for_data("institutional-holdings", |s| s["files"] == 1);
    let (status, body) = server.get("/v1/insiders?ticker=AAPL");
    assert_eq!((status, &body["dataStatus"]), (200, &Value::from("ingested")), "{body}");
    let fresh = eventually("lastSyncAt for insiders", || {
        let (_, health) = server.get_with("/health", &[]);
        let d = health["data"]["insiders"].clone();
        if d["lastSyncAt"].is_string() {
            Ok(d)
        } else {
            Err(health.to_string())
        }
    });
    assert!(fresh["syncAgeSecs"].as_i64().is_some_and(|a| (0..600).contains(&a)), "{fresh}");

    // A second run: nothing new. Submissions are not requested again; the ticker list is asked conditionally.
    let before = mirror.seen().len();
    let (code, out, err) = sync(&server.config_file, &["insiders", "institutional-holdings", "companies", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let sec = source(&report(&out, &err), "sec").clone();
    assert_eq!(sec["fetched"], 0, "{sec}");
    let again: Vec<Seen> = mirror.seen().into_iter().skip(before).collect();
    assert!(again.iter().all(|s| !s.path.starts_with("/Archives/edgar/data/")), "{again:?}");
    let tickers_again: Vec<&Seen> = again.iter().filter(|s| s.path == "/files/company_tickers.json").collect();
    assert_eq!(tickers_again.len(), 1);
    assert_eq!(tickers_again[0].status, 304);
    assert!(tickers_again[0].if_none_match.is_some());
    for d in sec["ingest"].as_array().unwrap() {
        assert_eq!(d["files"], 0, "nothing left to ingest: {d}");
    }

    // Without a declared User-Agent the SEC is not asked at all: a configuration error, exit 2.
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("bare.toml");
    std::fs::write(
        &bare,
        format!(
            "[engine]\ndata_dir = {:?}\n\n[sync.sources.sec]\nbase_url = \"{}\"\n",
            dir.path().join("data").display().to_string(),
            mirror.base
        ),
    )
    .unwrap();
    let before = mirror.seen().len();
    let (code, _, err) = sync(&bare, &["insiders"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sync.user_agent"), "{err}");
    assert_eq!(mirror.seen().len(), before);
    let (code, _, err) = sync(&bare, &["patents"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no sync source feeds a dataset `patents`"), "{err}");
}

/// A trimmed House index: the first members of the real 2023 file plus the PTR whose PDF the corpus holds.
fn trimmed_house_index(xml: &str) -> String {
    let blocks: Vec<&str> = xml.split("<Member>").skip(1).map(|b| b.split("</Member>").next().unwrap()).collect();
    let mut keep: Vec<&str> = blocks.iter().take(3).copied().collect();
    keep.extend(blocks.iter().find(|b| b.contains("<DocID>20022260</DocID>")));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<FinancialDisclosure>\n");
    for b in keep {
        out.push_str("  <Member>");
        out.push_str(b);
        out.push_str("</Member>\n");
    }
    out.push_str("</FinancialDisclosure>\n");
    out
}

#[test]
fn bulk_zips_are_fetched_conditionally_and_a_corrupt_zip_is_never_ingested() {
    let files = [
        "fec/itpas2.txt",
        "fec/cm.txt",
        "fec/cn.txt",
        "fec/ccl.txt",
        "house-fd/2023FD.xml",
        "house-fd/2023FD.txt",
        "house-fd/20022260.pdf",
        "nhtsa/recalls.txt",
        "nhtsa/complaints.txt",
        "senate-stock-watcher/all_transactions.json",
    ];
    let Some(paths) = files.iter().map(|f| corpus(f)).collect::<Option<Vec<PathBuf>>>() else { return };
    let c = |name: &str| read(&paths[files.iter().position(|f| f.ends_with(name)).unwrap()]);
    let mirror = Mirror::start();
    for (kind, member) in [("pas2", "itpas2.txt"), ("cm", "cm.txt"), ("cn", "cn.txt"), ("ccl", "ccl.txt")] {
        mirror.put(&format!("/2024/{kind}24.zip"), zip_of(&[(member, c(member))]));
    }
    let house_xml = trimmed_house_index(&String::from_utf8_lossy(&c("2023FD.xml")));
    mirror.put(
        "/public_disc/financial-pdfs/2023FD.zip",
        zip_of(&[("2023FD.xml", house_xml.into_bytes()), ("2023FD.txt", c("2023FD.txt"))]),
    );
    mirror.put("/public_disc/ptr-pdfs/2023/20022260.pdf", c("20022260.pdf"));
    mirror.put("/odi/ffdd/rcl/FLAT_RCL.zip", zip_of(&[("FLAT_RCL.txt", c("recalls.txt"))]));
    let cmpl = zip_of(&[("FLAT_CMPL.txt", c("complaints.txt"))]);
    mirror.put("/odi/ffdd/cmpl/FLAT_CMPL.zip", cmpl.clone());
    mirror.put("/aggregate/all_transactions.json", c("all_transactions.json"));
    // Faults: a corrupt zip once (cut in the middle of its data), a 503, a cut mid-body.
    mirror.fault("/odi/ffdd/cmpl/FLAT_CMPL.zip", Fault::Body(cmpl[..cmpl.len() / 2].to_vec()));
    mirror.fault("/2024/pas224.zip", Fault::Unavailable);
    mirror.fault("/aggregate/all_transactions.json", Fault::Cut(100_000));

    let section = |name: &str, extra: &str| {
        format!(
            "[sync.sources.{name}]\nbase_url = \"{}\"\nrequests_per_second = 20.0\ntimeout_secs = 5\nretries = 3\n\
             backoff_ms = 50\n{extra}\n",
            mirror.base
        )
    };
    let server = Server::start_with(ServerOptions {
        extra_toml: format!(
            "[engine]\nreload_interval_secs = 1\n\n[sync]\nuser_agent = \"{UA}\"\n\n{}{}{}{}",
            section("fec", "cycles = [2024]"),
            section("house", "years = [2023]"),
            section("nhtsa", ""),
            section("senate", "")
        ),
        ..Default::default()
    });
    let args = ["donors", "congress-trades", "vin", "senate-trades", "--json"];

    let (code, out, err) = sync(&server.config_file, &args);
    assert_eq!(code, 1, "the corrupt zip is an error: {out}\n{err}");
    let r = report(&out, &err);
    let nhtsa = source(&r, "nhtsa");
    let errors = nhtsa["errors"].to_string();
    assert!(errors.contains("FLAT_CMPL.zip") && errors.contains("corrupt"), "{errors}");
    let raw = server.data_dir.join("raw");
    assert!(!raw.join("nhtsa/odi/ffdd/cmpl/FLAT_CMPL.zip.d").exists(), "nothing of the corrupt zip is kept");
    assert!(!raw.join("nhtsa/odi/ffdd/cmpl/FLAT_CMPL.zip").exists());
    assert_eq!(nhtsa["fetched"], 1, "only the good recall zip counts as kept: {nhtsa}");
    let vin = ingest_of(nhtsa, "vin");
    assert_eq!(vin["files"], 1, "only the good recall file: {vin}");
    if vin["report"].is_null() {
        assert_eq!(vin["status"], "not ingested: no parser");
        assert!(raw.join("nhtsa/odi/ffdd/rcl/FLAT_RCL.zip.d/FLAT_RCL.txt").exists(), "raw file kept for later");
    }
    let fec = source(&r, "fec");
    assert_eq!((fec["fetched"].as_u64(), fec["errors"].as_array().map(Vec::len)), (Some(4), Some(0)), "{fec}");
    assert_eq!(ingest_of(fec, "donors")["report"]["applied"], 4, "{fec}");
    let senate = source(&r, "senate");
    assert_eq!(senate["errors"], serde_json::json!([]), "the cut download was resumed: {senate}");
    assert_eq!(ingest_of(senate, "senate-trades")["report"]["applied"], 1);
    let house = source(&r, "house");
    assert_eq!(house["fetched"], 2, "the yearly zip and one PTR PDF: {house}");
    assert_eq!(ingest_of(house, "congress-trades")["files"], 2, "the XML index and the PDF: {house}");
    assert_eq!(mirror.requests_to("/aggregate/all_transactions.json")[1].range.as_deref(), Some("bytes=100000-"));
    assert!(mirror.seen().iter().all(|s| s.user_agent == UA));
    assert!(files_ending(&raw, ".part").is_empty());
    for s in r["sources"].as_array().unwrap() {
        let ingest: Vec<String> =
            s["ingest"].as_array().unwrap().iter().map(|d| format!("{}: {}", d["dataset"], d["status"])).collect();
        println!(
            "bulk sync {}: {} requests, {} retries, {} fetched, {} bytes, ingest {ingest:?}",
            s["source"], s["requests"], s["retries"], s["fetched"], s["bytes"]
        );
    }
    server.wait_for_data("donors", |s| s["files"] == 4);
    server.wait_for_data("senate-trades", |s| s["files"] == 1);

    // Second run: the complaint zip is good now and is the only new file; the rest answers 304.
    let before = mirror.seen().len();
    let (code, out, err) = sync(&server.config_file, &args);
    assert_eq!(code, 0, "{out}\n{err}");
    let r = report(&out, &err);
    let fetched: Vec<(String, u64)> = r["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["source"].as_str().unwrap().to_string(), s["fetched"].as_u64().unwrap()))
        .collect();
    assert_eq!(fetched, [("house".to_string(), 0), ("senate".into(), 0), ("fec".into(), 0), ("nhtsa".into(), 1)]);
    let again: Vec<Seen> = mirror.seen().into_iter().skip(before).collect();
    assert!(again.iter().filter(|s| s.path != "/odi/ffdd/cmpl/FLAT_CMPL.zip").all(|s| s.status == 304), "{again:?}");
    assert!(again.iter().all(|s| !s.path.ends_with(".pdf")), "a kept PTR PDF is not requested again");

    // Third run: nothing new anywhere.
    let (code, out, err) = sync(&server.config_file, &args);
    assert_eq!(code, 0, "{out}\n{err}");
    let r = report(&out, &err);
    assert!(r["sources"].as_array().unwrap().iter().all(|s| s["fetched"] == 0), "{r}");
}

#[test]
fn serve_runs_the_schedule_in_the_background_and_reports_metrics() {
    let Some(senate) = corpus("senate-stock-watcher/all_transactions.json") else { return };
    let mirror = Mirror::start();
    mirror.put("/aggregate/all_transactions.json", read(&senate));
    let server = Server::start_with(ServerOptions {
        extra_toml: format!(
            "[engine]\nreload_interval_secs = 1\n\n[sync]\nuser_agent = \"{UA}\"\n\n\
             [sync.schedule]\nsenate-trades = \"1h\"\n\n[sync.sources.senate]\nbase_url = \"{}\"\n",
            mirror.base
        ),
        ..Default::default()
    });
    server.wait_for_data("senate-trades", |s| s["files"] == 1);
    until("lastSyncAt for senate-trades", || {
        server.get_with("/health", &[]).1["data"]["senate-trades"]["lastSyncAt"].is_string()
    });
    // The child has written its state and its records; the server counts its report once it has exited.
    server.wait_for_output("scheduled sync finished");
    let metrics = server.metrics_text();
    assert!(metrics.contains("datahost_sync_files_total{source=\"senate\"} 1"), "{metrics}");
    assert!(metrics.contains("datahost_sync_dataset_last_success_timestamp_seconds{dataset=\"senate-trades\"}"));
    // Once per interval, not once per pass of the scheduler: two more passes fetch nothing.
    let passes = || server.metric("datahost_sync_schedule_checks_total").unwrap_or(0.0);
    let after_sync = passes();
    until("two more scheduler passes", || passes() >= after_sync + 2.0);
    assert_eq!(mirror.seen().len(), 1, "{:?}", mirror.seen());
    assert_eq!(mirror.seen()[0].user_agent, UA);
}

#[test]
fn in_postgres_one_sync_runs_at_a_time_and_its_state_is_shared() {
    let Some(senate) = corpus("senate-stock-watcher/all_transactions.json") else { return };
    let mirror = Mirror::start();
    mirror.put("/aggregate/all_transactions.json", read(&senate));
    let db = TestDb::create("sync");
    let server = Server::start_with(ServerOptions {
        extra_toml: format!(
            "{}\n[sync]\nuser_agent = \"{UA}\"\n\n[sync.sources.senate]\nbase_url = \"{}\"\n",
            db.engine_toml(),
            mirror.base
        ),
        ..Default::default()
    });
    // Another replica's sync holds the lock: this run does nothing and says so.
    let mut holder = db.client();
    holder.execute("SELECT pg_advisory_lock(727175)", &[]).unwrap();
    let (code, out, err) = sync(&server.config_file, &["senate-trades", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(report(&out, &err)["skipped"].as_str().is_some_and(|s| s.contains("lock")), "{out}");
    assert!(mirror.seen().is_empty());
    holder.execute("SELECT pg_advisory_unlock(727175)", &[]).unwrap();

    let (code, out, err) = sync(&server.config_file, &["senate-trades", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    server.wait_for_data("senate-trades", |s| s["files"] == 1);
    let kept: i64 = db
        .client()
        .query_one("SELECT count(*) FROM datahost.sync_files WHERE source = 'senate' AND status = 'applied'", &[])
        .unwrap()
        .get(0);
    assert_eq!(kept, 1);
    // The validators live in the engine: a run from anywhere sends a conditional request and gets a 304.
    let (code, out, err) = sync(&server.config_file, &["senate-trades", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(mirror.seen().last().map(|s| s.status), Some(304));
}
