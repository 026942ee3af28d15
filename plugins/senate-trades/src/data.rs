//! The dataset's records as stored in the records engine. The index (newest first, match keys) is the SDK's
//! [`DisclosureIndex`](datahost_plugin_api::disclosure::DisclosureIndex), shared with the House dataset.

use datahost_plugin_api::disclosure::{Disclosure, DisclosureTrade};
use datahost_plugin_api::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

pub type Meta = SnapshotMeta;
/// Senate trades are exactly the shared disclosure trade: unlike the House's, they carry no `bundled` flag.
/// `type` is `purchase`, `sale` (full), `sale (partial)` or `exchange`.
pub type Trade = DisclosureTrade;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filing {
    pub member: String,
    pub chamber: String,
    pub doc_id: String,
    pub year: i32,
    pub filed_date: String,
    pub trades: Vec<Trade>,
}

impl Disclosure for Filing {
    type Trade = Trade;
    fn member(&self) -> &str {
        &self.member
    }
    fn doc_id(&self) -> &str {
        &self.doc_id
    }
    fn filed_date(&self) -> &str {
        &self.filed_date
    }
    fn trades(&self) -> &[Trade] {
        &self.trades
    }
    fn trade_ticker(trade: &Trade) -> &str {
        &trade.ticker
    }
}

/// The snapshot document: `{meta, filings}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub meta: Meta,
    pub filings: Vec<Filing>,
}
