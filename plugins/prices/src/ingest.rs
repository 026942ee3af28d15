//! Parser of daily price files: Yahoo Finance's history download (`yahoo-csv`), Stooq's bulk text files
//! (`stooq-txt`) and Stooq's per-ticker download, which is what `datahost sync` fetches (`stooq-csv`).
//!
//! The format is told by the header line, never by the file name:
//! - `Date,Open,High,Low,Close,Adj Close,Volume`: Yahoo. `Close` is split-adjusted only, `Adj Close` is also
//!   dividend-adjusted; both are kept. The file names no ticker, so it comes from the file name (`SPY.csv`);
//!   a name that is not a ticker refuses the file.
//! - `<TICKER>,<PER>,<DATE>,<TIME>,<OPEN>,<HIGH>,<LOW>,<CLOSE>,<VOL>,<OPENINT>`: Stooq bulk. The ticker is in
//!   every row (`SPY.US`; the `.US` market suffix is dropped); closes are split- and dividend-adjusted.
//! - `Date,Open,High,Low,Close,Volume`: Stooq's download (`q/d/l/?s=spy.us&i=d`), adjusted, ticker from the
//!   file name (`spy.csv`, `spy.us.csv`).
//!
//! One record per row (collection `closes`, key `<source>:<TICKER>:<date>`, group `<source>:<TICKER>`): the
//! two sources adjust differently, so their rows never share a key and a series is served from one source.

use chrono::NaiveDate;
use datahost_plugin_api::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use serde::{Deserialize, Serialize};

pub const FORMATS: &[&str] = &["yahoo-csv", "stooq-txt", "stooq-csv"];
/// The collection every price row goes to.
pub const COLLECTION: &str = "closes";

const YAHOO_HEADER: &[&str] = &["Date", "Open", "High", "Low", "Close", "Adj Close", "Volume"];
const STOOQ_TXT_HEADER: &[&str] =
    &["<TICKER>", "<PER>", "<DATE>", "<TIME>", "<OPEN>", "<HIGH>", "<LOW>", "<CLOSE>", "<VOL>", "<OPENINT>"];
const STOOQ_CSV_HEADER: &[&str] = &["Date", "Open", "High", "Low", "Close", "Volume"];

/// Where a row came from; decides which close it holds and where its official page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PriceSource {
    Yahoo,
    Stooq,
}

impl PriceSource {
    pub fn as_str(self) -> &'static str {
        match self {
            PriceSource::Yahoo => "yahoo",
            PriceSource::Stooq => "stooq",
        }
    }

    /// Which close the series serves, said in every response (`closeBasis`).
    pub fn close_basis(self) -> &'static str {
        match self {
            PriceSource::Yahoo => {
                "Yahoo `Close`: adjusted for splits, not for dividends (the dividend-adjusted `Adj Close` is the \
                 additive `adjClose` of each point)"
            }
            PriceSource::Stooq => "Stooq `Close`: adjusted for splits and dividends",
        }
    }

    /// The official page of a ticker's daily history at this source.
    pub fn history_url(self, symbol: &str) -> String {
        match self {
            PriceSource::Yahoo => format!("https://finance.yahoo.com/quote/{symbol}/history/"),
            PriceSource::Stooq => format!("https://stooq.com/q/d/?s={}", symbol.to_ascii_lowercase()),
        }
    }
}

/// One stored row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseRow {
    /// Ticker as served (upper case, market suffix dropped), e.g. `SPY`.
    pub ticker: String,
    /// The source's own symbol, e.g. `SPY.US` at Stooq, `SPY` at Yahoo.
    pub symbol: String,
    pub source: PriceSource,
    pub date: NaiveDate,
    pub close: f64,
    /// Yahoo's `Adj Close` (splits and dividends); absent for Stooq, whose close is already adjusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adj_close: Option<f64>,
}

/// The layout of one detected format.
struct Layout {
    format: &'static str,
    source: PriceSource,
    columns: usize,
    date: usize,
    close: usize,
    adj_close: Option<usize>,
    /// Column holding the ticker, or `None` when the ticker comes from the file name.
    ticker: Option<usize>,
    /// Column holding the bar period (Stooq: `D` for daily).
    period: Option<usize>,
    date_format: &'static str,
}

fn detect(header: &[&str]) -> Option<Layout> {
    let base = |format, source, columns, date_format| Layout {
        format,
        source,
        columns,
        date: 0,
        close: 4,
        adj_close: None,
        ticker: None,
        period: None,
        date_format,
    };
    if header == YAHOO_HEADER {
        Some(Layout { adj_close: Some(5), ..base("yahoo-csv", PriceSource::Yahoo, 7, "%Y-%m-%d") })
    } else if header == STOOQ_TXT_HEADER {
        Some(Layout {
            date: 2,
            close: 7,
            ticker: Some(0),
            period: Some(1),
            ..base("stooq-txt", PriceSource::Stooq, 10, "%Y%m%d")
        })
    } else if header == STOOQ_CSV_HEADER {
        Some(base("stooq-csv", PriceSource::Stooq, 6, "%Y-%m-%d"))
    } else {
        None
    }
}

/// Detects the format and reads every row.
pub fn parse(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text = file.text()?;
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let Some((_, header_line)) = lines.next() else {
        return Err(Refusal::at("line 1", "the file is empty"));
    };
    let header: Vec<&str> = header_line.split(',').map(str::trim).collect();
    let layout = detect(&header).ok_or_else(|| {
        Refusal::at(
            "line 1",
            format!(
                "not a daily price file: the header `{}` is neither Yahoo's `{}`, Stooq's `{}` nor Stooq's `{}`",
                clip(header_line),
                YAHOO_HEADER.join(","),
                STOOQ_TXT_HEADER.join(","),
                STOOQ_CSV_HEADER.join(",")
            ),
        )
    })?;
    let named_ticker = match layout.ticker {
        Some(_) => None,
        None => Some(ticker_from_file_name(file.name, layout.source)?),
    };
    let rows: Vec<(usize, &str)> = lines.filter(|(_, l)| !l.trim().is_empty()).collect();
    if rows.is_empty() {
        return Err(Refusal::at("line 2", "the file has a header but no price rows"));
    }
    let mut batch = IngestBatch { format: layout.format.into(), ..Default::default() };
    let mut seen = std::collections::HashMap::new();
    let last_line = rows.last().map_or(0, |r| r.0);
    for (line, row) in rows {
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        if fields.len() != layout.columns && line == last_line {
            // A short last row is where a cut download ends: nothing of the file is trusted.
            return Err(Refusal::at(
                format!("line {line}"),
                format!("the file ends inside a row ({} of {} fields): truncated?", fields.len(), layout.columns),
            ));
        }
        let parsed = read_row(&layout, &fields, named_ticker.as_ref());
        match parsed {
            Ok(close) => {
                let key = format!("{}:{}:{}", close.source.as_str(), close.ticker, close.date);
                if let Some(first) = seen.insert(key.clone(), line) {
                    batch.problems.push(RowProblem::line(
                        line,
                        format!(
                            "{} {} appears again (first on line {first}); this row is not read",
                            close.ticker, close.date
                        ),
                    ));
                    continue;
                }
                let group = format!("{}:{}", close.source.as_str(), close.ticker);
                batch.records.push(IngestRecord::new(COLLECTION, key, group, &close)?);
            }
            Err(error) => batch.problems.push(RowProblem::line(line, error.to_string())),
        }
    }
    if let Some((ticker, symbol)) = &named_ticker {
        batch.notes.push(format!("ticker {ticker} taken from the file name (symbol {symbol})"));
    }
    batch.notes.push(format!("close basis: {}", layout.source.close_basis()));
    Ok(batch)
}

/// Reads one data row; the error names the column.
fn read_row(layout: &Layout, fields: &[&str], named: Option<&(String, String)>) -> Result<CloseRow, RowError> {
    if fields.len() != layout.columns {
        return Err(RowError::FieldCount { found: fields.len(), expected: layout.columns });
    }
    if let Some(p) = layout.period {
        if fields[p] != "D" {
            return Err(RowError::NotDaily(clip(fields[p])));
        }
    }
    let (ticker, symbol) = match (layout.ticker, named) {
        (Some(col), _) => {
            let symbol = fields[col];
            (ticker_of_symbol(symbol).ok_or_else(|| RowError::NotATicker(clip(symbol)))?, symbol.to_string())
        }
        (None, Some((ticker, symbol))) => (ticker.clone(), symbol.clone()),
        (None, None) => return Err(RowError::NoTicker),
    };
    let date_text = fields[layout.date];
    let date = NaiveDate::parse_from_str(date_text, layout.date_format)
        .map_err(|_| RowError::NotADate { value: clip(date_text), format: layout.date_format })?;
    let close = price(fields[layout.close], "close")?;
    let adj_close = layout.adj_close.map(|c| price(fields[c], "adj close")).transpose()?;
    Ok(CloseRow { ticker, symbol, source: layout.source, date, close, adj_close })
}

fn price(text: &str, column: &'static str) -> Result<f64, RowError> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(RowError::NotAPrice { column, value: clip(text) }),
    }
}

/// What is wrong with one data row (a row problem, with the row's line). `value` is the column's text, clipped.
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("{found} fields where the header has {expected}")]
    FieldCount { found: usize, expected: usize },
    #[error("column <PER> is `{0}`, not `D` (daily)")]
    NotDaily(String),
    #[error("column <TICKER> `{0}` is not a ticker")]
    NotATicker(String),
    /// The layout has no ticker column and the file name gave none.
    #[error("no ticker")]
    NoTicker,
    #[error("column date `{value}` is not a date ({format})")]
    NotADate { value: String, format: &'static str },
    #[error("column {column} `{value}` is not a positive number")]
    NotAPrice { column: &'static str, value: String },
}

/// `SPY.US` -> `SPY`; other markets keep their suffix (`VOD.UK`). `None` unless letters, digits and `.-^=`.
fn ticker_of_symbol(symbol: &str) -> Option<String> {
    let upper = symbol.trim().to_ascii_uppercase();
    let ticker = upper.strip_suffix(".US").unwrap_or(&upper);
    let valid = !ticker.is_empty()
        && ticker.len() <= 16
        && ticker.chars().all(|c| c.is_ascii_alphanumeric() || ".-^=".contains(c));
    valid.then(|| ticker.to_string())
}

/// The ticker and source symbol from a file name (`data/SPY.csv`, `spy.us.csv`), for formats whose rows name
/// none. The file is refused when its name is not a ticker: a series must never be filed under a guess.
fn ticker_from_file_name(name: &str, source: PriceSource) -> Result<(String, String), Refusal> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.strip_suffix(".csv").or_else(|| base.strip_suffix(".CSV")).unwrap_or(base);
    let ticker = ticker_of_symbol(stem).ok_or_else(|| {
        Refusal::new(format!(
            "this {} file names no ticker in its rows and its file name `{base}` is not one: name the file \
             after its ticker (for example SPY.csv)",
            source.as_str()
        ))
    })?;
    // Stooq's symbols carry the market (`spy.us`); `datahost sync` names its downloads without it.
    let symbol = match source {
        PriceSource::Yahoo => ticker.clone(),
        PriceSource::Stooq if stem.to_ascii_uppercase().ends_with(".US") => stem.to_ascii_uppercase(),
        PriceSource::Stooq => format!("{ticker}.US"),
    };
    Ok((ticker, symbol))
}

fn clip(text: &str) -> String {
    datahost_plugin_api::params::clip(text)
}
