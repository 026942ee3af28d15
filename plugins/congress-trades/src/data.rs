//! The dataset's records as stored in the records engine. The index (newest first, match keys) is the SDK's
//! [`DisclosureIndex`](datahost_plugin_api::disclosure::DisclosureIndex), shared with the Senate dataset; only
//! what the House discloses beyond it lives here (`bundled` trades, `filingsScanned`).

use datahost_plugin_api::disclosure::{Disclosure, DisclosureTrade};
use datahost_plugin_api::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    #[serde(flatten)]
    pub snapshot: SnapshotMeta,
    /// Periodic Transaction Reports read from the Clerk's index, including those that yielded no trade rows.
    pub filings_scanned: u64,
}

/// A House trade line: the shared disclosure trade plus the House-only `bundled` flag.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Trade {
    #[serde(flatten)]
    pub base: DisclosureTrade,
    /// The filer reported several transactions as one line.
    pub bundled: bool,
}

/// A filing: its header, then its trade lines. The header is its own type so a response can re-serialise it
/// unchanged beside the trades a request keeps.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Filing {
    #[serde(flatten)]
    pub head: FilingHead,
    pub trades: Vec<Trade>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilingHead {
    pub member: String,
    pub doc_id: String,
    pub year: i32,
    /// `YYYY-MM-DD`.
    pub filed_date: String,
}

impl Disclosure for Filing {
    type Trade = Trade;
    fn member(&self) -> &str {
        &self.head.member
    }
    fn doc_id(&self) -> &str {
        &self.head.doc_id
    }
    fn filed_date(&self) -> &str {
        &self.head.filed_date
    }
    fn trades(&self) -> &[Trade] {
        &self.trades
    }
    fn trade_ticker(trade: &Trade) -> &str {
        &trade.base.ticker
    }
}

/// The snapshot document: `{meta, filings}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub meta: Meta,
    pub filings: Vec<Filing>,
}
