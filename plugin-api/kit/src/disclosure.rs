//! Trade-disclosure filings (House and Senate Periodic Transaction Reports): the shared request rules and
//! selection logic of `/v1/congress-trades` and `/v1/senate-trades`.
//!
//! A plugin implements [`Disclosure`] for its filing record, builds a [`DisclosureIndex`] and its [`Written`] answer
//! parts once in `init`, parses each request's parameters into a [`DisclosureQuery`] and serves the selected
//! filings as [`Written::filing`] writes them (or maps the [`Selected`] filings to its own response type).
//! The rules live here once: `member` is a case-insensitive substring of the member's name; `ticker` keeps only
//! filings with a trade in that ticker and, inside each, only those trades; filings come newest first
//! (`filedDate`, then `docId`, descending); `limit` caps the number of filings on a page and `cursor` continues
//! after the last filing served (see [`datahost_plugin_api::paging`]; the sort key is `(filedDate, docId)`).

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::StoredError;
use crate::text::amount_range_bounds;
use datahost_plugin_api::paging::{KeyedPage, Page, PageRequest};
use datahost_plugin_api::params::{normalize_ticker, ticker_spellings, TickerFilter};
use datahost_plugin_api::query::RecordsQuery;
use datahost_plugin_api::rows::{JsonArray, JsonFrame, JsonRow, JsonRows, JsonText, JsonValue};
use datahost_plugin_api::{ApiError, ApiSchema, Host, HostError};

/// Longest `member` pattern accepted, so a client cannot make the server scan with a huge needle.
pub const MEMBER_MAX_CHARS: usize = 100;

/// One transaction line of a report, as both chambers disclose it; each chamber's trade type flattens it beside
/// what only that chamber says. The `ticker` parameter matches `ticker` after [`normalize_ticker`]. The field docs
/// are the OpenAPI descriptions (`ApiSchema`); the type is never a component of its own, only flattened.
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct DisclosureTrade {
    /// Ticker of the traded security as disclosed (share classes as `BRK.B`); empty when the report gives none.
    pub ticker: String,
    /// Asset name as disclosed.
    pub asset: String,
    /// Transaction type as disclosed: `purchase`, `sale` (full sale), `sale (partial)` or `exchange`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Bucketed amount range as disclosed (`$1,001 - $15,000`), not an exact amount.
    pub amount_range: String,
    /// Transaction date.
    #[schema(format = "date")]
    pub date: String,
}

/// A disclosure filing: one report by one member, holding its trade lines.
pub trait Disclosure {
    /// The filing's trade line type (usually [`DisclosureTrade`] or a type flattening it).
    type Trade;
    /// The member's name as filed; the `member` parameter matches a case-insensitive substring of it.
    fn member(&self) -> &str;
    /// The filing's document id, unique in the dataset: the tie-break of the sort and part of the cursor.
    fn doc_id(&self) -> &str;
    /// `YYYY-MM-DD`, so text order is date order.
    fn filed_date(&self) -> &str;
    /// The filing's trade lines, in report order (empty for a table-backed filing whose trades are stored elsewhere).
    fn trades(&self) -> &[Self::Trade];
    /// The ticker of one trade line as disclosed; the SDK normalises it before matching the `ticker` parameter.
    fn trade_ticker(trade: &Self::Trade) -> &str;
}

/// The sort key of a filing in the list: newest `filedDate` first, then `docId` descending.
pub type FilingKey = (Reverse<String>, Reverse<String>);

fn filing_key<F: Disclosure>(f: &F) -> FilingKey {
    (Reverse(f.filed_date().to_string()), Reverse(f.doc_id().to_string()))
}

/// A parsed disclosure request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisclosureQuery {
    /// The `ticker` parameter, normalised; unset when absent or blank.
    pub ticker: TickerFilter,
    /// Lower-cased member pattern.
    pub member: Option<String>,
    /// `limit` (the page size) and `cursor`.
    pub page: KeyedPage<FilingKey>,
}

impl DisclosureQuery {
    /// The selection a route's parameters ask for (each chamber declares `ticker`, `member` of at most
    /// [`MEMBER_MAX_CHARS`] characters and its page in a [`datahost_plugin_api::Params`] struct, with its own
    /// example); a cursor that is not one of this list's is a 400.
    pub fn new(ticker: TickerFilter, member: Option<String>, page: PageRequest) -> Result<Self, ApiError> {
        Ok(Self { ticker, member: member.map(|m| m.to_lowercase()), page: page.keyed()? })
    }
}

struct Entry<F> {
    filing: F,
    member_lower: String,
    /// Normalised ticker of each trade, parallel to `filing.trades()`.
    tickers: Vec<String>,
}

/// Filings newest first, with match keys computed once at load instead of on every request: a request reads
/// the filings its ticker or member names, not every filing.
pub struct DisclosureIndex<F> {
    entries: Vec<Entry<F>>,
    /// Every position, in order (the candidates of a request without filters).
    all: Vec<usize>,
    /// The positions of the filings with a trade in each normalised ticker, in order.
    by_ticker: HashMap<String, Vec<usize>>,
    /// Each lowercased member name and the positions of their filings, in order.
    by_member: Vec<(String, Vec<usize>)>,
}

/// One filing chosen by a request, with the trades the request keeps (all of them without a ticker filter).
pub struct Selected<'a, F: Disclosure> {
    /// The filing, borrowed from the index (newest first across the page).
    pub filing: &'a F,
    /// Where the filing is in the index (its place in [`DisclosureIndex::filings`]).
    pub position: usize,
    /// Its trades the request keeps: all of them without a `ticker` filter, else only those in that ticker.
    pub trades: Vec<&'a F::Trade>,
}

impl<F: Disclosure> DisclosureIndex<F> {
    /// Indexes `filings` (any order): sorts them newest first and precomputes the lowercased member and normalised
    /// tickers.
    pub fn new(filings: Vec<F>) -> Self {
        let mut entries: Vec<Entry<F>> = filings
            .into_iter()
            .map(|filing| Entry {
                member_lower: filing.member().to_lowercase(),
                tickers: filing.trades().iter().map(|t| normalize_ticker(F::trade_ticker(t))).collect(),
                filing,
            })
            .collect();
        entries.sort_by(|a, b| {
            (b.filing.filed_date(), b.filing.doc_id()).cmp(&(a.filing.filed_date(), a.filing.doc_id()))
        });
        let mut by_ticker: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_member: HashMap<&str, Vec<usize>> = HashMap::new();
        for (at, entry) in entries.iter().enumerate() {
            for ticker in &entry.tickers {
                let positions = by_ticker.entry(ticker.clone()).or_default();
                // A filing trading the ticker twice is listed once: its position is then the last one pushed.
                if positions.last() != Some(&at) {
                    positions.push(at);
                }
            }
            by_member.entry(&entry.member_lower).or_default().push(at);
        }
        let mut by_member: Vec<(String, Vec<usize>)> =
            by_member.into_iter().map(|(name, at)| (name.to_string(), at)).collect();
        by_member.sort();
        Self { all: (0..entries.len()).collect(), by_ticker, by_member, entries }
    }

    /// Every filing, newest first.
    pub fn filings(&self) -> impl Iterator<Item = &F> {
        self.entries.iter().map(|e| &e.filing)
    }

    /// Number of filings held, with or without trades.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no filing is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many filings hold at least one trade.
    pub fn with_trades(&self) -> usize {
        self.entries.iter().filter(|e| !e.filing.trades().is_empty()).count()
    }

    /// The page of filings a request asks for, newest first.
    pub fn select(&self, query: &DisclosureQuery) -> Page<Selected<'_, F>> {
        self.select_in(query, None)
    }

    /// [`Self::select`] for an index whose filings may keep their trades elsewhere (a table-backed dataset:
    /// the rows stay in the records engine): a filing also matches the ticker filter when `trades_elsewhere`
    /// says its stored trades include the ticker. Such a filing's in-memory trades are empty, so the plugin
    /// reads its trades for the selected filings only.
    pub fn select_with(&self, query: &DisclosureQuery, trades_elsewhere: impl Fn(&F) -> bool) -> Page<Selected<'_, F>> {
        self.select_in(query, Some(&trades_elsewhere))
    }

    fn select_in(
        &self,
        query: &DisclosureQuery,
        trades_elsewhere: Option<&dyn Fn(&F) -> bool>,
    ) -> Page<Selected<'_, F>> {
        let page = self.positions(query, trades_elsewhere);
        let want = query.ticker.value();
        let items = page
            .items
            .into_iter()
            .map(|position| Selected {
                filing: &self.entries[position].filing,
                position,
                trades: self.trades_in(position, want).collect(),
            })
            .collect();
        Page { items, next: page.next }
    }

    /// The page of filing positions a selection serves ([`Self::select_in`], [`Self::select_served`]).
    fn positions(&self, query: &DisclosureQuery, trades_elsewhere: Option<&dyn Fn(&F) -> bool>) -> Page<usize> {
        let candidates = self.candidates(query.ticker.value(), query.member.as_deref(), trades_elsewhere);
        // Positions are in key order: the filings at or before the cursor are a prefix, found by a binary search.
        let start = match &query.page.after {
            Some((Reverse(date), Reverse(doc_id))) => candidates.partition_point(|&at| {
                let filing = &self.entries[at].filing;
                (filing.filed_date(), filing.doc_id()) >= (date.as_str(), doc_id.as_str())
            }),
            None => 0,
        };
        query.page.page_after_cursor(candidates[start..].iter().copied(), |&at| filing_key(&self.entries[at].filing))
    }

    /// The in-memory trades of the filing at `position`, those in ticker `want` when given.
    fn trades_in<'s, 'w>(
        &'s self,
        position: usize,
        want: Option<&'w str>,
    ) -> impl Iterator<Item = &'s F::Trade> + use<'s, 'w, F> {
        let trades = self.entries[position].filing.trades();
        self.places(position, want).filter_map(|at| trades.get(at))
    }

    /// The places in its trades of those [`Self::trades_in`] gives, as a [`Served`] filing names them.
    fn places_in(&self, position: usize, want: Option<&str>) -> ServedTrades<F::Trade> {
        match want {
            None => ServedTrades::Every,
            Some(_) => ServedTrades::Picked(self.places(position, want).collect()),
        }
    }

    /// The places of the filing's trades in ticker `want` (every trade when `None`), in order.
    fn places<'s, 'w>(
        &'s self,
        position: usize,
        want: Option<&'w str>,
    ) -> impl Iterator<Item = usize> + use<'s, 'w, F> {
        let e = &self.entries[position];
        let trades = e.filing.trades().len();
        e.tickers
            .iter()
            .take(trades)
            .enumerate()
            .filter(move |(_, t)| want.is_none_or(|w| t.as_str() == w))
            .map(|(at, _)| at)
    }

    /// The positions of the filings matching the ticker and member filters, in order.
    fn candidates(
        &self,
        ticker: Option<&str>,
        member: Option<&str>,
        trades_elsewhere: Option<&dyn Fn(&F) -> bool>,
    ) -> Cow<'_, [usize]> {
        let named = |at: &usize| member.is_none_or(|m| self.entries[*at].member_lower.contains(m));
        match (ticker, trades_elsewhere) {
            (Some(ticker), None) => {
                let trading = self.by_ticker.get(ticker).map_or(&[][..], Vec::as_slice);
                match member {
                    Some(_) => Cow::Owned(trading.iter().copied().filter(named).collect()),
                    None => Cow::Borrowed(trading),
                }
            }
            // The stored trades are not indexed here: every filing is asked.
            (Some(ticker), Some(elsewhere)) => Cow::Owned(
                self.all
                    .iter()
                    .copied()
                    .filter(named)
                    .filter(|&at| {
                        let e = &self.entries[at];
                        e.tickers.iter().any(|t| t == ticker) || elsewhere(&e.filing)
                    })
                    .collect(),
            ),
            (None, _) => match member {
                Some(m) => {
                    let mut named: Vec<usize> = self
                        .by_member
                        .iter()
                        .filter(|(name, _)| name.contains(m))
                        .flat_map(|(_, at)| at.iter().copied())
                        .collect();
                    named.sort_unstable();
                    Cow::Owned(named)
                }
                None => Cow::Borrowed(&self.all),
            },
        }
    }
}

/// Where a table-backed disclosure dataset keeps its trades (the records engine's table, national scale): read
/// per request for the filings it serves. See [`DisclosureIndex::select_served`].
pub trait TradeStore {
    /// The trade type of the store, the filing's [`Disclosure::Trade`].
    type Trade;
    /// Whether the filing's trades are in the store (else the filing's in-memory trades are served).
    fn holds(&self, doc_id: &str) -> bool;
    /// The stored trades in `ticker` (normalised), by DocID: which held filings trade it, and those trades.
    fn trading(&self, ticker: &str) -> Result<HashMap<String, Vec<Self::Trade>>, StoredError>;
    /// Every stored trade of these held filings, by DocID.
    fn of(&self, doc_ids: &[&str]) -> Result<HashMap<String, Vec<Self::Trade>>, StoredError>;
}

/// A filing as a request serves it: with trades of the filing held in memory, or trades read from a
/// [`TradeStore`].
pub struct Served<'a, F: Disclosure> {
    /// The filing, borrowed from the index.
    pub filing: &'a F,
    /// Where the filing is in the index (its place in [`DisclosureIndex::filings`]).
    pub position: usize,
    /// Its trades to serve (only those in the `ticker` filter when one is set).
    pub trades: ServedTrades<F::Trade>,
}

/// The trades a [`Served`] filing serves. The filing's own (held in memory) are named by their places in its
/// [`Disclosure::trades`], not collected: a page of filings once collected a vector of borrowed trades per filing
/// and then found each trade's row written at `init` again by address (a tenth of a cold congress-trades answer).
#[derive(Debug, Clone, PartialEq)]
pub enum ServedTrades<T> {
    /// Every trade of the filing, in order.
    Every,
    /// The filing's trades at these places of its trades, in this order.
    Picked(Vec<usize>),
    /// Trades read from a [`TradeStore`], written for each answer.
    Stored(Vec<T>),
}

impl<F: Disclosure> Served<'_, F> {
    /// The trades served, in order.
    pub fn trades(&self) -> impl Iterator<Item = &F::Trade> {
        let held = self.filing.trades();
        let (every, picked, stored): (&[F::Trade], &[usize], &[F::Trade]) = match &self.trades {
            ServedTrades::Every => (held, &[], &[]),
            ServedTrades::Picked(places) => (&[], places, &[]),
            ServedTrades::Stored(trades) => (&[], &[], trades),
        };
        every.iter().chain(picked.iter().filter_map(|&at| held.get(at))).chain(stored)
    }
}

impl<F: Disclosure> DisclosureIndex<F> {
    /// [`Self::select`] where the held filings' trades come from `store` (when there is one): with a ticker
    /// filter the store says which of them match (and their trades in that ticker); without one it reads the
    /// trades of the selected held filings only.
    pub fn select_served<S: TradeStore<Trade = F::Trade>>(
        &self,
        query: &DisclosureQuery,
        store: Option<&S>,
    ) -> Result<Page<Served<'_, F>>, StoredError> {
        let trading = match (store, query.ticker.value()) {
            (Some(store), Some(ticker)) => Some(store.trading(ticker)?),
            _ => None,
        };
        // Without stored trades in the ticker the index's own look-ups answer; with them every filing is asked.
        let elsewhere = |f: &F| trading.as_ref().is_some_and(|t| t.contains_key(f.doc_id()));
        // Positions, not `select_in`'s pages: a filing's borrowed trades are collected once, as they are served.
        let page = self.positions(query, trading.as_ref().map(|_| &elsewhere as &dyn Fn(&F) -> bool));
        let filing = |position: usize| &self.entries[position].filing;
        let held = |f: &F| store.is_some_and(|s| s.holds(f.doc_id()));
        let mut stored = match (store, trading) {
            (Some(_), Some(trading)) => trading,
            (Some(store), None) => {
                let ids: Vec<&str> =
                    page.items.iter().map(|&at| filing(at)).filter(|f| held(f)).map(|f| f.doc_id()).collect();
                if ids.is_empty() {
                    HashMap::new()
                } else {
                    store.of(&ids)?
                }
            }
            (None, _) => HashMap::new(),
        };
        let want = query.ticker.value();
        let items = page
            .items
            .into_iter()
            .map(|position| {
                let filing = filing(position);
                Served {
                    trades: match held(filing) {
                        true => ServedTrades::Stored(stored.remove(filing.doc_id()).unwrap_or_default()),
                        false => self.places_in(position, want),
                    },
                    filing,
                    position,
                }
            })
            .collect();
        Ok(Page { items, next: page.next })
    }
}

/// What every answer of a chamber's instance writes alike, written once at `init` (the SDK's `rows`) so that an
/// answer copies it instead of writing it again: the dataset's meta (as `M`), each filing of the index as the
/// chamber serves it (as `Fi`) with its trades left open (a [`Slot`]), and the trades of the index's filings with
/// what the chamber adds to each (as `T`). An answer's filing is its frame filled with the kept trades' rows.
///
/// [`Slot`]: datahost_plugin_api::rows::Slot
pub struct Written<M, Fi, T> {
    meta: JsonValue<M>,
    /// Each filing of the index, by position.
    filings: Vec<WrittenFiling<Fi>>,
    rows: JsonRows<T>,
}

/// One filing of the index as [`Written`] keeps it.
struct WrittenFiling<Fi> {
    /// The filing's address, to tell the index it was written from.
    address: usize,
    /// The filing as served, its trades left open.
    frame: JsonFrame<Fi>,
    /// The row of its first trade in [`Written`]'s rows.
    first_row: usize,
}

impl<M, Fi, T> Written<M, Fi, T> {
    /// Writes `meta`, `filing(f)` for every filing of `index` (holding one [`Slot`], for its trades), and
    /// `trade(t)` for every trade of those filings, in index order.
    ///
    /// [`Slot`]: datahost_plugin_api::rows::Slot
    pub fn new<'i, F: Disclosure, Fo: Serialize, R: Serialize>(
        meta: &impl Serialize,
        index: &'i DisclosureIndex<F>,
        filing: impl Fn(&'i F) -> Fo,
        trade: impl Fn(&'i F::Trade) -> R,
    ) -> Result<Self, serde_json::Error> {
        let mut filings = Vec::with_capacity(index.len());
        let mut row = 0;
        for f in index.filings() {
            filings.push(WrittenFiling {
                address: f as *const F as usize,
                frame: JsonFrame::new(&filing(f))?,
                first_row: row,
            });
            row += f.trades().len();
        }
        Ok(Self {
            meta: JsonValue::new(meta)?,
            filings,
            rows: JsonRows::new(index.filings().flat_map(|f| f.trades()).map(trade))?,
        })
    }

    /// The meta as an answer field.
    pub fn meta(&self) -> JsonRow<'_, M> {
        self.meta.get()
    }

    /// `served` as an answer's filing: its frame filled with its trades' rows when every one is a trade of the
    /// filing held in memory (found by address, in order), else with `now(trade)` for each (trades read from the
    /// records engine). A filing of another index than this one was written from is an internal error.
    pub fn filing<'a, F: Disclosure, N: Serialize>(
        &self,
        served: &'a Served<'a, F>,
        now: impl Fn(&'a F::Trade) -> N,
    ) -> Result<JsonText<Fi>, ApiError> {
        let (frame, trades) = self.frame_of(served, &now)?;
        frame.fill(&trades).map_err(written_error)
    }

    /// A page's filings as [`Written::filing`] writes each, as the JSON array of them in one text: one
    /// allocation for the page, where a text per filing was one per filing and a copy of each into the answer
    /// (a profile of cold congress-trades answers: BENCHMARKS.md).
    pub fn filings<'a, F: Disclosure, N: Serialize>(
        &self,
        served: &'a [Served<'a, F>],
        now: impl Fn(&'a F::Trade) -> N,
    ) -> Result<JsonText<Vec<Fi>>, ApiError> {
        let filled = served.iter().map(|s| self.frame_of(s, &now)).collect::<Result<Vec<_>, _>>()?;
        JsonFrame::fill_array(filled.iter().map(|(frame, trades)| (*frame, trades))).map_err(written_error)
    }

    /// `served`'s frame, and what fills its slot: its held trades' rows, or `now(trade)` for each.
    fn frame_of<'a, F: Disclosure, N: Serialize>(
        &self,
        served: &'a Served<'a, F>,
        now: &impl Fn(&'a F::Trade) -> N,
    ) -> Result<(&JsonFrame<Fi>, TradesOf<'_, T, N>), ApiError> {
        let written = match self.filings.get(served.position) {
            Some(written) if written.address == served.filing as *const F as usize => written,
            _ => return Err(ApiError::internal("a filing of another index than the one written at init")),
        };
        let trades = match self.rows_of(served, written.first_row) {
            Some(rows) => TradesOf::Held(rows),
            None => TradesOf::Now(served.trades().map(now).collect()),
        };
        Ok((&written.frame, trades))
    }

    /// The rows of `served`'s trades, when they are the held filing's (whose first trade is row `first`): a run of
    /// rows when they follow each other (every trade of a filing, or a ticker's one), else the rows picked; `None`
    /// for trades read from a store (or a place past the filing's trades).
    fn rows_of<F: Disclosure>(&self, served: &Served<'_, F>, first: usize) -> Option<JsonArray<'_, T>> {
        let held = served.filing.trades().len();
        match &served.trades {
            ServedTrades::Every => Some(self.rows.slice(first..first + held)),
            ServedTrades::Picked(places) if places.iter().any(|&at| at >= held) => None,
            ServedTrades::Picked(places) => match places.first() {
                Some(&start) if places.iter().enumerate().all(|(i, &at)| at == start + i) => {
                    Some(self.rows.slice(first + start..first + start + places.len()))
                }
                _ => self.rows.pick(places.iter().map(|&at| first + at).collect()),
            },
            ServedTrades::Stored(_) => None,
        }
    }
}

/// What fills a filing's trades slot: rows written at `init`, or trades written now.
enum TradesOf<'r, T, N> {
    Held(JsonArray<'r, T>),
    Now(Vec<N>),
}

impl<T, N: Serialize> Serialize for TradesOf<'_, T, N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            TradesOf::Held(rows) => rows.serialize(serializer),
            TradesOf::Now(trades) => trades.serialize(serializer),
        }
    }
}

fn written_error(e: serde_json::Error) -> ApiError {
    ApiError::internal(format!("writing a filing of the answer: {e}"))
}

/// Stored trade rows (JSON) of `collection` whose `ticker_field` is any spelling of `ticker` (normalised), for
/// a [`TradeStore`]: the field must be declared indexed.
pub fn stored_rows_trading(
    host: &Host,
    dataset: &str,
    collection: &str,
    ticker_field: &str,
    ticker: &str,
) -> Result<Vec<Value>, HostError> {
    let spellings = ticker_spellings(ticker).into_iter().map(Value::from).collect();
    let rows = host.query_all_records(&RecordsQuery::new(dataset, collection).any_of(ticker_field, spellings))?;
    // A spelling the normaliser does not equate (none today) would be dropped here rather than served.
    Ok(rows.into_iter().filter(|r| r[ticker_field].as_str().is_some_and(|t| normalize_ticker(t) == ticker)).collect())
}

/// Stored trade rows (JSON) of `collection` whose `doc_field` is one of `doc_ids` (500 per query), for a
/// [`TradeStore`]: the field must be declared indexed.
pub fn stored_rows_of(
    host: &Host,
    dataset: &str,
    collection: &str,
    doc_field: &str,
    doc_ids: &[&str],
) -> Result<Vec<Value>, HostError> {
    let ids: Vec<Value> = doc_ids.iter().map(|id| Value::from(*id)).collect();
    let mut rows = Vec::new();
    for chunk in ids.chunks(500) {
        rows.extend(host.query_all_records(&RecordsQuery::new(dataset, collection).any_of(doc_field, chunk.to_vec()))?);
    }
    Ok(rows)
}

/// The DocIDs that have at least one stored row (read from the declared `doc_field` index, not the rows).
pub fn stored_doc_ids(
    host: &Host,
    dataset: &str,
    collection: &str,
    doc_field: &str,
) -> Result<HashSet<String>, HostError> {
    let values = host.query_all_records(&RecordsQuery::new(dataset, collection).distinct(doc_field))?;
    Ok(values.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
}

/// A trade serialised with its fields (flattened) plus the numeric bounds of its amount bucket. Documented by
/// flattening it into a chamber's named trade type (the name is the dataset's, so this is never a component).
#[derive(Debug, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct WithAmountBounds<'a, T: Serialize> {
    /// The trade itself, its fields serialised inline.
    #[serde(flatten)]
    pub trade: &'a T,
    /// Lower bound of amountRange in USD; null when the range text cannot be read.
    pub amount_min: Option<f64>,
    /// Upper bound of amountRange in USD; null when open-ended (`Over $50,000,000`) or unreadable.
    pub amount_max: Option<f64>,
}

impl<'a, T: Serialize> WithAmountBounds<'a, T> {
    /// Wraps `trade`, computing the bounds from its `amount_range` text (see [`crate::text::amount_range_bounds`]).
    pub fn new(trade: &'a T, amount_range: &str) -> Self {
        let (amount_min, amount_max) = amount_range_bounds(amount_range);
        Self { trade, amount_min, amount_max }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datahost_plugin_api::rows::Slot;
    use datahost_plugin_api::{Params, RequestEnvelope};

    struct F(&'static str, &'static str, &'static str, Vec<&'static str>);

    impl Disclosure for F {
        type Trade = &'static str;
        fn member(&self) -> &str {
            self.0
        }
        fn doc_id(&self) -> &str {
            self.1
        }
        fn filed_date(&self) -> &str {
            self.2
        }
        fn trades(&self) -> &[&'static str] {
            &self.3
        }
        fn trade_ticker<'a>(trade: &'a &'static str) -> &'a str {
            trade
        }
    }

    fn index() -> DisclosureIndex<F> {
        DisclosureIndex::new(vec![
            F("Ann Lee", "1", "2026-01-05", vec!["AAPL", "brk-b"]),
            F("Bo Lee", "2", "2026-03-01", vec!["MSFT"]),
            F("Cy Ray", "3", "2026-03-01", vec!["AAPL", "MSFT"]),
            F("Di Ray", "4", "2025-12-01", vec![]),
        ])
    }

    /// A chamber's parameters, declared as congress-trades and senate-trades declare theirs.
    #[derive(Params)]
    struct Selection {
        /// Ticker.
        ticker: TickerFilter,
        /// Member.
        #[param(max_chars = MEMBER_MAX_CHARS)]
        member: Option<String>,
        #[param(page(default = 10, max = 1000, of = "filings"))]
        page: PageRequest,
    }

    fn parse(request: &RequestEnvelope) -> Result<DisclosureQuery, ApiError> {
        let Selection { ticker, member, page } = Selection::parse(request.params())?;
        DisclosureQuery::new(ticker, member, page)
    }

    fn run(pairs: &[(&str, &str)]) -> Vec<(String, Vec<&'static str>)> {
        let query = parse(&RequestEnvelope::new("/v1/x", pairs)).unwrap();
        index()
            .select(&query)
            .items
            .into_iter()
            .map(|s| (s.filing.1.to_string(), s.trades.into_iter().copied().collect()))
            .collect()
    }

    /// How a chamber writes a trade: with something of its own beside it.
    fn trade_out(trade: &&'static str) -> Value {
        serde_json::json!({"ticker": trade, "len": trade.len()})
    }

    /// How a chamber writes a filing: fields around its trades.
    #[derive(Serialize)]
    struct FilingOut<'a, S> {
        doc: &'a str,
        trades: S,
        filed: &'a str,
    }

    fn filing_out(f: &F) -> FilingOut<'_, Slot<()>> {
        FilingOut { doc: f.1, trades: Slot::new(), filed: f.2 }
    }

    type TestWritten = Written<Value, (), Value>;

    fn written(index: &DisclosureIndex<F>) -> TestWritten {
        Written::new(&serde_json::json!({"source": "x"}), index, filing_out, trade_out).unwrap()
    }

    /// What `Written::filing` serves for `served`, and whether it copied the trades' rows written at `init`.
    fn served(written: &TestWritten, served: &Served<'_, F>) -> (String, bool) {
        let filing = written.filing(served, trade_out).unwrap();
        let copied = written.rows_of(served, written.filings[served.position].first_row).is_some();
        (serde_json::to_string(&filing).unwrap(), copied)
    }

    /// The filing as a chamber would write it whole, with `trades` written now.
    fn whole(filing: &F, trades: &[&&'static str]) -> String {
        let trades: Vec<Value> = trades.iter().map(|t| trade_out(t)).collect();
        serde_json::to_string(&FilingOut { doc: filing.1, trades, filed: filing.2 }).unwrap()
    }

    fn held<'a>(index: &'a DisclosureIndex<F>, doc: &str) -> (usize, &'a F) {
        index.filings().enumerate().find(|(_, f)| f.1 == doc).unwrap()
    }

    #[test]
    fn written_filings_are_the_filings_written_now() {
        let index = index();
        let written = written(&index);
        assert_eq!(serde_json::to_string(&written.meta()).unwrap(), r#"{"source":"x"}"#);
        for pairs in [&[][..], &[("ticker", "aapl")], &[("ticker", "msft")], &[("member", "lee")], &[("member", "ray")]]
        {
            let query = parse(&RequestEnvelope::new("/v1/x", pairs)).unwrap();
            let page = index.select_served::<NoStore>(&query, None).unwrap();
            // The trades each filing keeps, as `select` collects them.
            let selected = index.select(&query).items;
            assert!(!page.items.is_empty(), "{pairs:?}");
            assert_eq!(page.items.len(), selected.len(), "{pairs:?}");
            for (s, kept) in page.items.iter().zip(&selected) {
                assert_eq!(s.trades().collect::<Vec<_>>(), kept.trades, "{pairs:?}");
                assert_eq!(served(&written, s), (whole(s.filing, &kept.trades), true), "{pairs:?}");
            }
        }
        // Trades read from the store are written now.
        let (position, filing) = held(&index, "3");
        let stored = Served { filing, position, trades: ServedTrades::Stored(vec!["AAPL", "NVDA"]) };
        assert_eq!(
            served(&written, &stored),
            (
                r#"{"doc":"3","trades":[{"len":4,"ticker":"AAPL"},{"len":4,"ticker":"NVDA"}],"filed":"2026-03-01"}"#
                    .into(),
                false
            )
        );
        // Trades picked out of the filing's order are its rows in that order.
        let reversed = Served { filing, position, trades: ServedTrades::Picked(vec![1, 0]) };
        assert_eq!(served(&written, &reversed), (whole(filing, &[&filing.3[1], &filing.3[0]]), true));
    }

    /// A page written as one text is the JSON array of its filings as each is written alone, whichever way a
    /// filing's trades are found: a run of the rows written at `init`, rows picked out of them, or trades written
    /// now.
    #[test]
    fn a_page_of_filings_is_the_array_of_its_filings_written_alone() {
        let index = DisclosureIndex::new(vec![
            F("Ann Lee", "1", "2026-01-05", vec!["AAPL", "brk-b"]),
            F("Ed Fox", "5", "2026-02-01", vec!["AAPL", "MSFT", "AAPL"]),
            F("Di Ray", "4", "2025-12-01", vec![]),
        ]);
        let written = written(&index);
        let array =
            |items: &[Served<'_, F>]| serde_json::to_string(&written.filings(items, trade_out).unwrap()).unwrap();
        let alone = |items: &[Served<'_, F>]| {
            format!("[{}]", items.iter().map(|s| served(&written, s).0).collect::<Vec<_>>().join(","))
        };
        for pairs in [&[][..], &[("ticker", "aapl")], &[("ticker", "msft")], &[("ticker", "nvda")]] {
            let query = parse(&RequestEnvelope::new("/v1/x", pairs)).unwrap();
            let page = index.select_served::<NoStore>(&query, None).unwrap();
            assert_eq!(array(&page.items), alone(&page.items), "{pairs:?}");
        }
        // Ed Fox's two AAPL trades are rows 0 and 2 of the filing: picked, not a run, and still the rows written.
        let (position, filing) = held(&index, "5");
        let picked = Served { filing, position, trades: ServedTrades::Picked(vec![0, 2]) };
        assert_eq!(served(&written, &picked), (whole(filing, &[&filing.3[0], &filing.3[2]]), true));
        let run = Served { filing, position, trades: ServedTrades::Picked(vec![1, 2]) };
        assert_eq!(served(&written, &run), (whole(filing, &[&filing.3[1], &filing.3[2]]), true));
        let now = Served { filing, position, trades: ServedTrades::Stored(vec!["AAPL", "NVDA"]) };
        let page = [picked, run, now];
        assert_eq!(array(&page), alone(&page));
        assert_eq!(array(&[]), "[]");
        // A filing of another index in the page refuses the page.
        let other = super::tests::index();
        let (_, stranger) = held(&other, "3");
        let foreign = Served { filing: stranger, position, trades: ServedTrades::Every };
        assert!(written.filings(&[foreign], trade_out).is_err());
    }

    #[test]
    fn a_filing_of_another_index_is_refused() {
        let index = index();
        let written = written(&index);
        let (position, filing) = held(&index, "3");
        let trades = || ServedTrades::Every;
        assert!(written.filing(&Served { filing, position, trades: trades() }, trade_out).is_ok());
        // The same filing at another position, and an equal filing of another index at the right one.
        assert!(written.filing(&Served { filing, position: position + 1, trades: trades() }, trade_out).is_err());
        assert!(written.filing(&Served { filing, position: 99, trades: trades() }, trade_out).is_err());
        let copy = super::tests::index();
        let (_, twin) = held(&copy, "3");
        let served = Served { filing: twin, position, trades: ServedTrades::Every };
        assert!(written.filing(&served, trade_out).is_err());
    }

    #[test]
    fn a_repeated_doc_id_is_written_by_position() {
        let index = DisclosureIndex::new(vec![
            F("Ann Lee", "1", "2026-01-05", vec!["AAPL"]),
            F("Bo Lee", "1", "2026-03-01", vec!["MSFT", "IBM"]),
        ]);
        let written = written(&index);
        for (position, filing) in index.filings().enumerate() {
            let s = Served { filing, position, trades: ServedTrades::Every };
            let all: Vec<&&'static str> = filing.3.iter().collect();
            assert_eq!(served(&written, &s), (whole(filing, &all), true));
        }
    }

    /// No store: every filing's trades are in memory.
    struct NoStore;

    impl TradeStore for NoStore {
        type Trade = &'static str;
        fn holds(&self, _: &str) -> bool {
            false
        }
        fn trading(&self, _: &str) -> Result<HashMap<String, Vec<Self::Trade>>, StoredError> {
            Ok(HashMap::new())
        }
        fn of(&self, _: &[&str]) -> Result<HashMap<String, Vec<Self::Trade>>, StoredError> {
            Ok(HashMap::new())
        }
    }

    #[test]
    fn every_walk_of_the_index_serves_what_a_scan_of_every_filing_would() {
        let members = ["Ann Lee", "Bo Lee", "Cy Ray", "Di Ray", "Ed Ng"];
        let tickers = ["AAPL", "MSFT", "brk-b", "BRK.B", "NVDA"];
        let dates = ["2026-01-05", "2026-03-01", "2025-12-01"];
        // Leaked so the filings can hold `&'static str`s like the other tests' (a test's few bytes).
        let filings: Vec<F> = (0..40usize)
            .map(|i| {
                let doc: &'static str = Box::leak(format!("{:02}", (i * 7) % 40).into_boxed_str());
                let trades = (0..i % 4).map(|t| tickers[(i + t * 3) % tickers.len()]).collect();
                F(members[i % members.len()], doc, dates[i % dates.len()], trades)
            })
            .collect();
        let index = DisclosureIndex::new(filings);
        let mut by_key: Vec<&F> = index.filings().collect();
        by_key.sort_by(|a, b| (b.2, b.1).cmp(&(a.2, a.1)));
        for ticker in [None, Some("aapl"), Some("BRK-B"), Some("nvda"), Some("ZZZ")] {
            for member in [None, Some("lee"), Some("RAY"), Some("e"), Some("nobody")] {
                // The filings and trades a scan keeps, in order.
                let expected: Vec<(&str, Vec<&str>)> = by_key
                    .iter()
                    .filter(|f| member.is_none_or(|m| f.0.to_lowercase().contains(&m.to_lowercase())))
                    .map(|f| {
                        let kept =
                            f.3.iter().filter(|t| ticker.is_none_or(|w| normalize_ticker(t) == normalize_ticker(w)));
                        (f.1, kept.copied().collect::<Vec<_>>())
                    })
                    .filter(|(_, kept)| ticker.is_none() || !kept.is_empty())
                    .collect();
                for limit in ["1", "3", "100"] {
                    let mut got = Vec::new();
                    let mut cursor: Option<String> = None;
                    loop {
                        let mut q = vec![("limit", limit)];
                        q.extend(ticker.map(|t| ("ticker", t)));
                        q.extend(member.map(|m| ("member", m)));
                        q.extend(cursor.as_deref().map(|c| ("cursor", c)));
                        let page = index.select(&parse(&RequestEnvelope::new("/v1/x", &q)).unwrap());
                        for s in &page.items {
                            assert!(std::ptr::eq(index.filings().nth(s.position).unwrap(), s.filing));
                        }
                        got.extend(
                            page.items.into_iter().map(|s| (s.filing.1, s.trades.into_iter().copied().collect())),
                        );
                        match page.next {
                            Some(next) => cursor = Some(next),
                            None => break,
                        }
                        assert!(got.len() <= 40, "the walk ends");
                    }
                    assert_eq!(got, expected, "ticker {ticker:?} member {member:?} limit {limit}");
                }
            }
        }
    }

    #[test]
    fn newest_first_then_doc_id() {
        let ids: Vec<String> = run(&[]).into_iter().map(|(id, _)| id).collect();
        assert_eq!(ids, ["3", "2", "1", "4"]);
        assert_eq!(index().with_trades(), 3);
    }

    #[test]
    fn ticker_keeps_matching_filings_and_trims_their_trades() {
        assert_eq!(run(&[("ticker", "aapl")]), vec![("3".into(), vec!["AAPL"]), ("1".into(), vec!["AAPL"])]);
        assert_eq!(run(&[("ticker", "BRK.B")]), vec![("1".into(), vec!["brk-b"])]);
    }

    #[test]
    fn trades_held_elsewhere_match_the_ticker_filter() {
        let query = parse(&RequestEnvelope::new("/v1/x", &[("ticker", "nvda")])).unwrap();
        let index = index();
        let ids: Vec<&str> = index.select_with(&query, |f| f.1 == "4").items.iter().map(|s| s.filing.1).collect();
        assert_eq!(ids, ["4"], "no in-memory trade is NVDA; filing 4's stored trades are");
    }

    #[test]
    fn pages_continue_after_the_last_filing_served() {
        let index = index();
        let first = parse(&RequestEnvelope::new("/v1/x", &[("limit", "2")])).unwrap();
        let page = index.select(&first);
        assert_eq!(page.items.iter().map(|s| s.filing.1).collect::<Vec<_>>(), ["3", "2"]);
        let next = page.next.expect("two more filings");
        let q = [("limit", "2"), ("cursor", next.as_str())];
        let second = parse(&RequestEnvelope::new("/v1/x", &q)).unwrap();
        let page = index.select(&second);
        assert_eq!(page.items.iter().map(|s| s.filing.1).collect::<Vec<_>>(), ["1", "4"]);
        assert_eq!(page.next, None);
    }

    #[test]
    fn member_substring_and_limit() {
        assert_eq!(run(&[("member", "LEE")]).len(), 2);
        assert_eq!(run(&[("member", "ray"), ("ticker", "MSFT")]), vec![("3".into(), vec!["MSFT"])]);
        assert_eq!(run(&[("limit", "1")]).len(), 1);
        let long = "x".repeat(101);
        let err = parse(&RequestEnvelope::new("/v1/x", &[("member", &long)])).unwrap_err();
        assert_eq!(err.message, "member must be at most 100 characters");
    }

    #[test]
    fn amount_bounds_flatten_beside_the_trade() {
        #[derive(Serialize)]
        struct T {
            ticker: &'static str,
        }
        let v = serde_json::to_value(WithAmountBounds::new(&T { ticker: "X" }, "Over $50,000,000")).unwrap();
        assert_eq!(v, serde_json::json!({"ticker": "X", "amountMin": 50_000_000.0, "amountMax": null}));
    }

    #[test]
    fn house_trades_extend_the_shared_trade_by_flattening() {
        #[derive(Serialize, Deserialize)]
        struct HouseTrade {
            #[serde(flatten)]
            base: DisclosureTrade,
            bundled: bool,
        }
        let text = serde_json::json!({"ticker": "NVDA", "asset": "NVIDIA Corporation", "type": "purchase",
            "amountRange": "$1,001 - $15,000", "date": "2026-09-12", "bundled": true});
        let trade: HouseTrade = serde_json::from_value(text.clone()).unwrap();
        assert_eq!((trade.base.kind.as_str(), trade.bundled), ("purchase", true));
        let out = serde_json::to_value(WithAmountBounds::new(&trade, &trade.base.amount_range)).unwrap();
        assert_eq!(out["bundled"], true);
        assert_eq!(out["type"], "purchase");
        assert_eq!(out["amountMax"], 15000.0);
    }
}
