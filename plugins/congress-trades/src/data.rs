//! The dataset's records as stored in the records engine, and the in-memory index built from them.

use datahost_plugin_api::params::normalize_ticker;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub source: String,
    pub source_url: String,
    pub method: String,
    pub caveat: String,
    pub filings_scanned: u64,
    pub generated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trade {
    pub ticker: String,
    pub asset: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub amount_range: String,
    pub date: String,
    pub bundled: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filing {
    pub member: String,
    pub doc_id: String,
    pub year: i32,
    pub filed_date: String,
    pub trades: Vec<Trade>,
}

/// The snapshot document: `{meta, filings}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub meta: Meta,
    pub filings: Vec<Filing>,
}

/// Filings newest first, with match keys computed once at load instead of on every request.
pub struct Index {
    pub meta: Meta,
    pub filings: Vec<IndexedFiling>,
    pub filings_with_trades: usize,
}

pub struct IndexedFiling {
    pub filing: Filing,
    pub member_lower: String,
    pub tickers: Vec<String>,
}

impl Index {
    pub fn new(snapshot: Snapshot) -> Self {
        let mut filings: Vec<IndexedFiling> = snapshot
            .filings
            .into_iter()
            .map(|filing| IndexedFiling {
                member_lower: filing.member.to_lowercase(),
                tickers: filing.trades.iter().map(|t| normalize_ticker(&t.ticker)).collect(),
                filing,
            })
            .collect();
        filings.sort_by(|a, b| (&b.filing.filed_date, &b.filing.doc_id).cmp(&(&a.filing.filed_date, &a.filing.doc_id)));
        let filings_with_trades = filings.iter().filter(|f| !f.filing.trades.is_empty()).count();
        Self { meta: snapshot.meta, filings, filings_with_trades }
    }
}
