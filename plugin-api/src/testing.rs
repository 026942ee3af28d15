//! An in-process stand-in for the host, for plugin unit tests: it serves datasets from seed snapshots the
//! test provides (usually the plugin's own [`Plugin::seeds`]) and records log lines. The real host is tested
//! black-box in the workspace's `tests` crate; this lets a plugin test its handlers without building a `.so`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use abi_stable::std_types::RStr;

use crate::abi::{FfiReply, HostServices};
use crate::{Host, InitContext, Plugin, RequestEnvelope, Seed};

struct TestHostData {
    datasets: HashMap<String, String>,
    logs: Vec<String>,
    companies: Vec<crate::reference::CompanyRef>,
    routes: HashMap<String, serde_json::Value>,
    /// What it answers to `host.capabilities` (`None`: a host older than SDK 2.1, which does not know the call).
    capabilities: Option<Vec<&'static str>>,
    /// The name of every named call made, in order.
    calls: Vec<String>,
}

static HOSTS: Mutex<Option<HashMap<u64, TestHostData>>> = Mutex::new(None);
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

fn with_host<R>(token: u64, f: impl FnOnce(&mut TestHostData) -> R) -> Option<R> {
    let mut guard = HOSTS.lock().unwrap_or_else(|e| e.into_inner());
    guard.get_or_insert_with(HashMap::new).get_mut(&token).map(f)
}

extern "C" fn log(token: u64, level: u8, message: RStr<'_>) {
    with_host(token, |h| h.logs.push(format!("{level}: {message}")));
}
extern "C" fn metric(_token: u64, _kind: u8, _name: RStr<'_>, _value: f64, _labels: RStr<'_>) {}
extern "C" fn load_dataset(token: u64, dataset: RStr<'_>) -> FfiReply {
    match with_host(token, |h| h.datasets.get(dataset.as_str()).cloned()).flatten() {
        Some(json) => FfiReply::ok(json),
        None => FfiReply::err(format!("dataset `{dataset}` is not in the records engine")),
    }
}
extern "C" fn query(_token: u64, _request: RStr<'_>) -> FfiReply {
    FfiReply::err("the test host has no SQL engine")
}
extern "C" fn call(token: u64, name: RStr<'_>, input: RStr<'_>) -> FfiReply {
    with_host(token, |h| h.calls.push(name.to_string()));
    match name.as_str() {
        "engine.kind" => FfiReply::ok("\"embedded\""),
        crate::host::CAPABILITIES_CALL => match with_host(token, |h| h.capabilities.clone()).flatten() {
            Some(names) => FfiReply::ok(serde_json::json!(names).to_string()),
            None => FfiReply::err(format!("unknown host call `{name}`")),
        },
        crate::reference::RESOLVE_CALL => {
            let queries: Vec<crate::reference::CompanyQuery> = match serde_json::from_str(input.as_str()) {
                Ok(q) => q,
                Err(e) => return FfiReply::err(format!("companies.resolve: {e}")),
            };
            let companies = with_host(token, |h| h.companies.clone()).unwrap_or_default();
            let answers: Vec<_> = queries.iter().map(|q| resolve(&companies, q)).collect();
            FfiReply::ok(serde_json::to_string(&answers).unwrap_or_default())
        }
        "route.get" => {
            let route = serde_json::from_str::<serde_json::Value>(input.as_str())
                .ok()
                .and_then(|v| v["route"].as_str().map(str::to_string))
                .unwrap_or_default();
            match with_host(token, |h| h.routes.get(&route).cloned()).flatten() {
                Some(body) => FfiReply::ok(body.to_string()),
                None => FfiReply::err(format!("no loaded plugin serves {route}")),
            }
        }
        crate::query::QUERY_CALL => {
            let q: crate::query::RecordsQuery = match serde_json::from_str(input.as_str()) {
                Ok(q) => q,
                Err(e) => return FfiReply::err(format!("records.query: {e}")),
            };
            match with_host(token, |h| h.datasets.get(&q.dataset).cloned()).flatten() {
                Some(doc) => match query_document(&doc, &q) {
                    Ok(page) => FfiReply::ok(serde_json::to_string(&page).unwrap_or_default()),
                    Err(e) => FfiReply::err(e),
                },
                None => FfiReply::err(format!("dataset `{}` is not in the records engine", q.dataset)),
            }
        }
        crate::words::WORDS_CALL | crate::words::WORD_PAGE_CALL => {
            let q: crate::words::WordSearch = match serde_json::from_str(input.as_str()) {
                Ok(q) => q,
                Err(e) => return FfiReply::err(format!("{name}: {e}")),
            };
            let Some(doc) = with_host(token, |h| h.datasets.get(&q.dataset).cloned()).flatten() else {
                return FfiReply::err(format!("dataset `{}` is not in the records engine", q.dataset));
            };
            let doc: serde_json::Value = serde_json::from_str(&doc).unwrap_or_default();
            let list = |c: &str| doc.get(c).and_then(|v| v.as_array()).cloned().unwrap_or_default();
            let hits = crate::words::search_in(&q, &list(&q.index.words), &list(&q.index.docs));
            if name.as_str() == crate::words::WORDS_CALL {
                return FfiReply::ok(serde_json::to_string(&hits).unwrap_or_default());
            }
            let records = hits.docs.iter().map(|key| document_records(&doc, &q.index, key)).collect();
            let page = crate::words::WordPage { hits, records };
            FfiReply::ok(serde_json::to_string(&page).unwrap_or_default())
        }
        crate::host::PLUGIN_DIR_CALL => {
            let dir = test_host_dir(token);
            match std::fs::create_dir_all(&dir) {
                Ok(()) => FfiReply::ok(serde_json::to_string(&dir.to_string_lossy()).unwrap_or_default()),
                Err(e) => FfiReply::err(format!("creating {}: {e}", dir.display())),
            }
        }
        other => FfiReply::err(format!("unknown host call `{other}`")),
    }
}

/// A document's records as the host keeps them in one row, from an assembled document that has no groups: the
/// records of every collection but the words whose document key (`key_field` in the document collection,
/// `doc_field` in the others) is `key`, in document order.
fn document_records(doc: &serde_json::Value, ix: &crate::words::WordIndex, key: &str) -> crate::words::DocumentRecords {
    let mut records = serde_json::Map::new();
    for (collection, list) in doc.as_object().into_iter().flatten() {
        let Some(list) = list.as_array().filter(|_| *collection != ix.words) else { continue };
        let field = if *collection == ix.docs { &ix.key_field } else { &ix.doc_field };
        let of: Vec<serde_json::Value> =
            list.iter().filter(|r| r.get(field).and_then(|v| v.as_str()) == Some(key)).cloned().collect();
        if !of.is_empty() {
            records.insert(collection.clone(), serde_json::Value::Array(of));
        }
    }
    crate::words::DocumentRecords::from_json(serde_json::Value::Object(records).to_string())
        .expect("a JSON object reads as JSON")
}

/// The test host's answer to `plugin.dir`: a directory of its own under the system's temporary directory,
/// removed when the test host is dropped.
fn test_host_dir(token: u64) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("datahost-test-host-{}-{token}", std::process::id()))
}

/// `records.query` over an assembled document (`{ingested, <collection>: [records]}`), as the host answers it
/// from its tables: every filter must match a string or integer field, records in document order.
fn query_document(doc: &str, q: &crate::query::RecordsQuery) -> Result<crate::query::RecordsPage, String> {
    let doc: serde_json::Value = serde_json::from_str(doc).map_err(|e| format!("records.query: {e}"))?;
    let matching: Vec<serde_json::Value> = doc
        .get(&q.collection)
        .and_then(|c| c.as_array())
        .into_iter()
        .flatten()
        .filter(|r| {
            q.filters.iter().all(|f| crate::query::field_value(r, &f.field).is_some_and(|v| f.any_of.contains(v)))
        })
        .cloned()
        .collect();
    let matching: Vec<serde_json::Value> = match &q.distinct {
        None => matching.into_iter().skip(q.skip()).collect(),
        // Ordered by JSON text, as the embedded engine orders them.
        Some(field) => {
            let values: std::collections::BTreeMap<String, serde_json::Value> = matching
                .iter()
                .filter_map(|r| r.get(field).filter(|v| !v.is_null()))
                .map(|v| (v.to_string(), v.clone()))
                .collect();
            values.into_values().skip(q.skip()).collect()
        }
    };
    let max = q.max_records();
    Ok(crate::query::RecordsPage { truncated: matching.len() > max, records: matching.into_iter().take(max).collect() })
}

/// The same matching rules as the host's resolver, over a list the test supplies.
fn resolve(
    companies: &[crate::reference::CompanyRef],
    query: &crate::reference::CompanyQuery,
) -> Option<crate::reference::CompanyRef> {
    use crate::reference::{cik10, normalize_company_name, CompanyQuery};
    let found = match query {
        CompanyQuery::Ticker(t) => {
            let wanted = crate::params::normalize_ticker(t);
            companies.iter().find(|c| crate::params::normalize_ticker(&c.ticker) == wanted)
        }
        CompanyQuery::Cik(k) => cik10(k).and_then(|k| companies.iter().find(|c| c.cik == k)),
        CompanyQuery::Name(n) => {
            let n = normalize_company_name(n);
            companies.iter().find(|c| normalize_company_name(&c.name) == n)
        }
    };
    found.cloned()
}

/// A test host holding datasets in memory.
pub struct TestHost {
    token: u64,
}

impl Drop for TestHost {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(test_host_dir(self.token));
    }
}

impl Default for TestHost {
    fn default() -> Self {
        Self::new()
    }
}

impl TestHost {
    /// An empty test host: no datasets, companies or routes; each has its own token, so tests may run in parallel.
    pub fn new() -> Self {
        let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        let mut guard = HOSTS.lock().unwrap_or_else(|e| e.into_inner());
        guard.get_or_insert_with(HashMap::new).insert(
            token,
            TestHostData {
                datasets: HashMap::new(),
                logs: Vec::new(),
                companies: Vec::new(),
                routes: HashMap::new(),
                capabilities: Some(vec![
                    crate::host::HEADER_PAIRS,
                    crate::host::ANSWER_CACHE,
                    crate::host::WRITTEN_JSON,
                    crate::words::WORD_PAGE_RECORDS,
                ]),
                calls: Vec::new(),
            },
        );
        Self { token }
    }

    /// A host as released before SDK 2.1: it answers `host.capabilities` as an unknown call (it announces
    /// nothing), for tests of what a plugin does on older hosts.
    pub fn predating_capabilities(self) -> Self {
        with_host(self.token, |h| h.capabilities = None);
        self
    }

    /// A host that announces every capability of this SDK's but `name` (for example
    /// [`crate::host::ANSWER_CACHE`]: a host that keeps no answers itself, so the SDK keeps them).
    pub fn without_capability(self, name: &str) -> Self {
        with_host(self.token, |h| {
            if let Some(names) = h.capabilities.as_mut() {
                names.retain(|n| *n != name);
            }
        });
        self
    }

    /// Adds seed snapshots (for example `OtherPlugin::seeds()`) as datasets.
    pub fn with_seeds(self, seeds: Vec<Seed>) -> Self {
        for seed in seeds {
            self.set_dataset(&seed.dataset, &seed.snapshot_json);
        }
        self
    }

    /// Stores `snapshot_json` as dataset `name`, replacing any earlier one; `load_dataset(name)` then returns it.
    pub fn set_dataset(&self, name: &str, snapshot_json: &str) {
        with_host(self.token, |h| h.datasets.insert(name.to_string(), snapshot_json.to_string()));
    }

    /// Serves `datasets` as the host would after ingesting `batches` (see [`crate::ingest::assemble`]).
    pub fn set_ingested(&self, name: &str, batches: &[crate::IngestBatch]) {
        self.set_dataset(name, &crate::ingest::assemble(batches).to_string());
    }

    /// The company list `companies.resolve` answers from (the host's `companies` reference dataset).
    pub fn set_companies(&self, companies: Vec<crate::reference::CompanyRef>) {
        with_host(self.token, |h| h.companies = companies);
    }

    /// What `route.get` answers for `route` (whatever the query), standing in for another plugin's API.
    pub fn set_route(&self, route: &str, body: serde_json::Value) {
        with_host(self.token, |h| h.routes.insert(route.to_string(), body));
    }

    /// Every line the plugin logged so far, in order, as `<level number>: <message>` (for example `0: failed`).
    pub fn logs(&self) -> Vec<String> {
        with_host(self.token, |h| h.logs.clone()).unwrap_or_default()
    }

    /// The name of every named host call made so far (`records.query`, `records.words`...), in order.
    pub fn calls(&self) -> Vec<String> {
        with_host(self.token, |h| h.calls.clone()).unwrap_or_default()
    }

    /// A [`Host`] on this test host, as the plugin receives it in [`InitContext::host`].
    pub fn host(&self) -> Host {
        Host::from_services(self.services())
    }

    /// The raw services table, as the real host passes it to a plugin's `init`.
    pub fn services(&self) -> HostServices {
        HostServices { token: self.token, log, metric, load_dataset, query, call }
    }

    /// Initialises `P` against this host with an empty config.
    pub fn init<P: Plugin>(&self) -> Result<P, crate::BoxError> {
        P::init(InitContext { host: self.host(), config: serde_json::json!({}) })
    }
}

/// A plugin initialised on its own seeds, for the common test case.
pub fn plugin_with_own_seeds<P: Plugin>() -> P {
    TestHost::new().with_seeds(P::seeds()).init::<P>().expect("plugin init on its own seeds")
}

/// Calls `route` with `query` and returns the status and parsed JSON body (errors included).
pub fn get<P: Plugin>(plugin: &P, route: &str, query: &[(&str, &str)]) -> (u16, serde_json::Value) {
    let request = RequestEnvelope::new(route, query);
    match plugin.handle(&request) {
        Ok(resp) => (resp.status, serde_json::from_slice(&resp.body).expect("plugin returned invalid JSON")),
        Err(e) => (e.status, serde_json::from_slice(&e.to_body()).expect("error body")),
    }
}

/// Checks a manifest the way the host will: slug form, routes under `/v1/`, and every route documented
/// with a `get` operation in the fragment. Returns the list of problems (empty when valid).
pub fn manifest_problems<P: Plugin>() -> Vec<String> {
    crate::manifest::validate(&crate::export::full_manifest::<P>())
}

/// The tickers (upper case) and the highest CIK the SEC lists in `company_tickers.json`, read from the corpus
/// copy (`../shared/corpus/sec-misc/company_tickers.json`), for tests that prove a demo seed names no real
/// company; `None` (with a note) when the corpus is absent.
pub fn listed_companies() -> Option<(std::collections::HashSet<String>, u64)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/sec-misc/company_tickers.json");
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("corpus absent: skipping");
        return None;
    };
    let doc: serde_json::Value = serde_json::from_str(&text).expect("company_tickers.json is JSON");
    let entries = doc.as_object().expect("an object of entries").values();
    let tickers = entries.clone().map(|c| c["ticker"].as_str().expect("ticker").to_uppercase()).collect();
    let max_cik = entries.map(|c| c["cik_str"].as_u64().expect("cik_str")).max().unwrap_or_default();
    Some((tickers, max_cik))
}

// ---- demo seeds name nothing real: the check every company dataset's seed test makes ----

/// Tickers of the real companies the demo universe stands in for (`AAPL` became `ORCH`, `LMT` became `BWRD`...):
/// no demo row may carry one.
pub const REAL_TICKERS: [&str; 54] = [
    "AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "GOOG", "META", "TSLA", "JPM", "XOM", "JNJ", "WMT", "PG", "V", "UNH",
    "HD", "KO", "PFE", "INTC", "CRM", "LMT", "BA", "RTX", "GD", "NOC", "T", "VZ", "CMCSA", "GS", "CVX", "AMD", "BRK.B",
    "CAT", "DE", "DIS", "ORCL", "AVGO", "COST", "CRWD", "PLTR", "LLY", "GE", "IBM", "QCOM", "ACN", "BAH", "CACI",
    "HII", "KBR", "LDOS", "SAIC", "MA", "NEE", "SPY",
];

/// Their names (fragments separated by `|`, matched case-insensitively): no demo row may name one.
pub const REAL_NAMES: &str =
    "apple inc|microsoft|nvidia|amazon|alphabet|google|meta platforms|facebook|tesla|jpmorgan|\
    exxon|johnson & johnson|walmart|procter|unitedhealth|home depot|coca-cola|pfizer|intel corp|salesforce|lockheed|\
    boeing|raytheon|rtx corp|general dynamics|northrop|at&t|verizon|comcast|goldman|chevron|broadcom|costco|\
    crowdstrike|palantir|eli lilly|general electric|international business machines|qualcomm|accenture|booz allen|\
    caci inc|huntington ingalls|kbr|leidos|science applications|berkshire|oracle|disney|caterpillar|deere|\
    advanced micro|mastercard|nextera|spdr|visa inc";

/// Hosts of the official sources: a demo row cites none (its addresses are under the reserved `demo.invalid`).
pub const OFFICIAL_HOSTS: [&str; 8] =
    ["sec.gov", "house.gov", "senate.gov", "lda.senate.gov", "fec.gov", "usaspending.gov", "patentsview", "nhtsa.gov"];

/// Fails when the seed text names a real company or cites an official host, or `ticker` is a real company's
/// (also, when the shared corpus is present, any ticker the SEC lists in `company_tickers.json`).
pub fn assert_no_real_identifier(seed_text: &str, tickers: &[&str]) {
    let text = seed_text.to_lowercase();
    for name in REAL_NAMES.split('|') {
        assert!(!text.contains(name), "the demo seed names `{name}`");
    }
    for host in OFFICIAL_HOSTS {
        assert!(!text.contains(host), "the demo seed cites {host}");
    }
    let listed = listed_companies().map(|(listed, _)| listed);
    if let Some(listed) = &listed {
        assert!(listed.contains("AAPL") && listed.contains("LMT"), "the corpus copy lists real companies");
    }
    for ticker in tickers {
        assert!(!REAL_TICKERS.contains(ticker), "{ticker} is a real company's ticker");
        if let Some(listed) = &listed {
            assert!(!listed.contains(*ticker) && !listed.contains(&ticker.replace('.', "-")), "{ticker} is listed");
        }
    }
}

/// A file of the shared corpus of official files (`../shared/corpus/<relative>`), or `None` (with a note) when the
/// corpus is not on this machine: parser tests read real files from there, never from a copy in the repository.
pub fn corpus_file(relative: &str) -> Option<Vec<u8>> {
    let path = format!("{}/../../shared/corpus/{relative}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).map_err(|_| eprintln!("corpus absent: skipping ({path})")).ok()
}

/// Runs `parse` on a fuzz crash input (`fuzz/regressions/<name>`: a `\0name:<file>` line, then the bytes; fuzzer
/// output, not data) as the file it names.
pub fn parse_fuzz_regression(
    regression: &str,
    parse: fn(&crate::ingest::SourceFile<'_>) -> Result<crate::ingest::IngestBatch, crate::ingest::Refusal>,
) -> Result<crate::ingest::IngestBatch, crate::ingest::Refusal> {
    let path = format!("{}/../fuzz/regressions/{regression}", env!("CARGO_MANIFEST_DIR"));
    let input = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let rest = input.strip_prefix(b"\0name:").expect("a fuzz input naming its file");
    let end = rest.iter().position(|b| *b == b'\n').expect("the name line");
    let name = std::str::from_utf8(&rest[..end]).expect("a UTF-8 file name");
    parse(&crate::ingest::SourceFile { name, bytes: &rest[end + 1..] })
}

/// Regression check on a fuzz crash input (`fuzz/regressions/<name>`: a `\0name:<file>` line, then the bytes;
/// fuzzer output, not data) whose file repeats a row: `parse` alone gives `collection`/`key` more than once, and
/// the batch after [`crate::ingest::IngestBatch::keep_one_per_key`] (what the SDK hands the host) holds every key once.
pub fn assert_repeated_row_kept_once(
    regression: &str,
    parse: fn(&crate::ingest::SourceFile<'_>) -> Result<crate::ingest::IngestBatch, crate::ingest::Refusal>,
    collection: &str,
    key: &str,
) {
    let mut batch = parse_fuzz_regression(regression, parse).expect("the file is read");
    let count = |b: &crate::ingest::IngestBatch| {
        b.records.iter().filter(|r| r.collection == collection && r.key == key).count()
    };
    assert!(count(&batch) > 1, "the parser alone gives {collection}/{key} more than once");
    batch.keep_one_per_key();
    assert_eq!(count(&batch), 1);
    let mut seen = std::collections::HashSet::new();
    assert!(batch.records.iter().all(|r| seen.insert((r.collection.clone(), r.key.clone()))));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{RecordsQuery, MAX_QUERY_LIMIT};

    #[test]
    fn query_all_records_reads_every_page_in_order() {
        // Two and a half pages of rows for one issuer, interleaved with rows of another.
        let rows: Vec<serde_json::Value> = (0..MAX_QUERY_LIMIT * 5 / 2)
            .flat_map(|i| {
                [serde_json::json!({"issuerCik": "1", "n": i}), serde_json::json!({"issuerCik": "2", "n": i})]
            })
            .collect();
        let host = TestHost::new();
        host.set_dataset("insiders", &serde_json::json!({ "ingested": {}, "transactions": rows }).to_string());
        let q = RecordsQuery::new("insiders", "transactions").eq("issuerCik", "1");
        let all = host.host().query_all_records(&q).unwrap();
        assert_eq!(all.len(), MAX_QUERY_LIMIT * 5 / 2);
        assert!(all.iter().enumerate().all(|(i, r)| r["n"] == i && r["issuerCik"] == "1"));
        let first = host.host().query_records(&q).unwrap();
        assert_eq!((first.records.len(), first.truncated), (MAX_QUERY_LIMIT, true), "one page is capped");
    }
}
