//! Parser of the SEC's company lists: `company_tickers.json` (`{"0": {"cik_str", "ticker", "title"}, ...}`,
//! in the SEC's order, which lists a company's primary ticker first) and `company_tickers_exchange.json`
//! (`{"fields": ["cik", "name", "ticker", "exchange"], "data": [[...], ...]}`).
//!
//! One record per ticker (collection `companies`, key = ticker): `{cik (10 digits), ticker, name}`, plus the
//! exchange when the file has one.

use datahost_plugin_api::reference::cik10;
use datahost_plugin_api::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use serde::Serialize;
use serde_json::Value;

pub const FORMATS: &[&str] = &["sec-company-tickers", "sec-company-tickers-exchange"];

/// Every record of a company list belongs to this group: the list is one document, replaced entry by entry.
const GROUP: &str = "sec-company-tickers";

#[derive(Debug, Serialize)]
struct CompanyRecord {
    cik: String,
    ticker: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    exchange: Option<String>,
}

pub fn parse(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text = file.text()?;
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        Refusal::at(format!("line {}", e.line()), format!("not a SEC company list: the JSON does not parse: {e}"))
    })?;
    let Value::Object(map) = doc else {
        return Err(Refusal::new("not a SEC company list: the document is not a JSON object"));
    };
    if let (Some(Value::Array(fields)), Some(Value::Array(data))) = (map.get("fields"), map.get("data")) {
        return exchange_list(fields, data);
    }
    // company_tickers.json: keys are the positions "0", "1", ...; keep the SEC's order.
    let mut entries: Vec<(usize, &String, &Value)> = Vec::with_capacity(map.len());
    for (key, value) in &map {
        let position = key.parse::<usize>().map_err(|_| {
            Refusal::at(format!("/{key}"), "not a SEC company list: keys must be positions such as \"0\"")
        })?;
        entries.push((position, key, value));
    }
    entries.sort_by_key(|e| e.0);
    let mut batch = IngestBatch { format: FORMATS[0].into(), ..Default::default() };
    for (_, key, value) in entries {
        let cik = value.get("cik_str").map(cik_text);
        let ticker = value.get("ticker").and_then(Value::as_str);
        let name = value.get("title").and_then(Value::as_str);
        push(&mut batch, &format!("/{key}"), cik.flatten(), ticker, name, None)?;
    }
    finish(batch)
}

fn exchange_list(fields: &[Value], data: &[Value]) -> Result<IngestBatch, Refusal> {
    let column = |name: &str| {
        fields
            .iter()
            .position(|f| f.as_str() == Some(name))
            .ok_or_else(|| Refusal::at("/fields", format!("the company list has no `{name}` field")))
    };
    let (cik_at, name_at, ticker_at) = (column("cik")?, column("name")?, column("ticker")?);
    let exchange_at = fields.iter().position(|f| f.as_str() == Some("exchange"));
    let mut batch = IngestBatch { format: FORMATS[1].into(), ..Default::default() };
    for (i, row) in data.iter().enumerate() {
        let cell = |at: usize| row.get(at);
        let exchange = exchange_at.and_then(cell).and_then(Value::as_str).map(str::to_string);
        push(
            &mut batch,
            &format!("/data/{i}"),
            cell(cik_at).and_then(cik_text),
            cell(ticker_at).and_then(Value::as_str),
            cell(name_at).and_then(Value::as_str),
            exchange,
        )?;
    }
    finish(batch)
}

fn cik_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|n| cik10(&n.to_string())),
        Value::String(s) => cik10(s),
        _ => None,
    }
}

fn push(
    batch: &mut IngestBatch,
    at: &str,
    cik: Option<String>,
    ticker: Option<&str>,
    name: Option<&str>,
    exchange: Option<String>,
) -> Result<(), Refusal> {
    let (Some(cik), Some(ticker), Some(name)) = (cik, ticker.map(str::trim), name.map(str::trim)) else {
        batch.problems.push(RowProblem::new(at, "an entry needs a CIK of 1-10 digits, a ticker and a name"));
        return Ok(());
    };
    if ticker.is_empty() || name.is_empty() {
        batch.problems.push(RowProblem::new(at, "an entry has an empty ticker or name"));
        return Ok(());
    }
    let ticker = ticker.to_ascii_uppercase();
    if batch.records.iter().any(|r| r.key == ticker) {
        batch.problems.push(RowProblem::new(at, format!("ticker {ticker} is listed twice; the first entry is kept")));
        return Ok(());
    }
    let record = CompanyRecord { cik, ticker: ticker.clone(), name: name.to_string(), exchange };
    batch.records.push(IngestRecord::new("companies", ticker, GROUP, record)?);
    Ok(())
}

fn finish(batch: IngestBatch) -> Result<IngestBatch, Refusal> {
    if batch.records.is_empty() {
        return Err(Refusal::new("not a SEC company list: no entry with a CIK, ticker and name"));
    }
    Ok(batch)
}
