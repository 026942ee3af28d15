//! Cursor pagination, shared by every list endpoint: the `cursor` query parameter, the `next` field and the
//! `X-Next-Cursor` header the host turns into `Link: <...>; rel="next"`.
//!
//! Each list has a deterministic total order, given by a sort key that ends in a unique tie-breaker (a ticker,
//! a document id, an accession...). A page is the first `limit` items whose key comes strictly after the key in
//! the cursor, so a walk stays exact while records are ingested: an item inserted before the position is not
//! served (it was not there when the walk began), one inserted after it is, and none is repeated or skipped.
//! Lists whose order cannot be resumed by a key across a data change (relevance-ranked search, whose scores
//! move when the corpus does; one filing's holdings, when a newer filing replaces it) also pin their data
//! generation: the cursor then answers 400 once that generation is gone instead of a silently different list.
//!
//! A cursor is opaque: URL-safe base64 (no padding) of the version byte (2), an 8-byte fingerprint of the route
//! and every query parameter but `cursor` and `limit`, the JSON text of the sort key of the last item served,
//! then, when the list pins a generation, a zero byte and the generation (JSON text never holds a zero byte), and
//! last an 8-byte checksum. The checksum catches a cursor that was cut short or altered; it is not a secret (a
//! forged cursor can only pick a position inside the same public list). A cursor used with other filters, or
//! anything that is not a cursor, is a 400 naming `cursor`. `limit` stays out of the fingerprint: the page size
//! may change from page to page.
//!
//! Version 1 cursors (a JSON document `{"v":1,"q":"<fingerprint in hex>","k":<key>,"g":"<generation>"}` and the
//! checksum, about twice as long: a cursor is sent three times in every page that has one, in `next`,
//! `X-Next-Cursor` and `Link`) are still read, so a walk begun before an upgrade continues after it.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::openapi::schema;
use crate::{ApiError, ParamSpec, RequestEnvelope, Response};

/// The query parameter that carries a cursor.
pub const PARAM: &str = "cursor";
/// The response header a plugin sets to the next page's cursor; the host adds the `Link` header from it.
pub const NEXT_HEADER: &str = "X-Next-Cursor";
/// Longest cursor accepted (the longest sort keys, names of a few hundred characters, fit several times).
pub const MAX_CURSOR_CHARS: usize = 2048;
/// The version byte of the cursors issued: the binary format above.
const VERSION: u8 = 2;
/// The JSON cursors of earlier releases (their first byte is `{`), still read.
const JSON_VERSION: u32 = 1;
const FINGERPRINT_BYTES: usize = 8;
const CHECKSUM_BYTES: usize = 8;
/// Between the key's JSON text and the generation (a byte JSON text never holds).
const GENERATION_MARK: u8 = 0;
/// Mixed into the checksum so that base64 of arbitrary JSON plus its bare FNV hash is not taken for a cursor.
const CHECKSUM_SALT: &[u8] = b"datahost-cursor-v1\0";

/// The `cursor` parameter of a list route.
pub fn cursor_param() -> ParamSpec {
    ParamSpec::string(
        PARAM,
        "Opaque position in the list: the `next` value of the previous page (also in its `Link: rel=\"next\"` \
         header), passed unchanged with the same other parameters (`limit` may change). Omit it for the first \
         page. A cursor that was altered, or used with other filters, is a 400.",
    )
    .schema(serde_json::json!({ "maxLength": MAX_CURSOR_CHARS }))
}

/// The `limit` of a list served whole when `limit` is omitted (SPEC's company datasets and price lists): a page
/// size of `of` (for example "companies") up to `max`; `whole` says what an omitted limit returns (for example
/// "every covered company is returned").
pub fn limit_or_all_param(of: &str, whole: &str, max: usize) -> ParamSpec {
    ParamSpec::integer(
        "limit",
        &format!(
            "Page size: caps the number of {of} returned, the rest following through `next`. When omitted, {whole}; \
             values above {max} are clamped to {max}."
        ),
    )
    .schema(serde_json::json!({ "maximum": max }))
}

/// The schema of the `next` response field, for a list response's required fields.
pub fn next_schema() -> Value {
    schema::describe(
        schema::nullable(schema::string()),
        "Cursor of the following page (pass it as `cursor`), or null on the last page.",
    )
}

/// A list response's example with its `next` field: the example's own, else null (an example of a last page).
pub fn example_with_next(mut example: Value) -> Value {
    if let Some(body) = example.as_object_mut() {
        body.entry("next").or_insert(Value::Null);
    }
    example
}

/// The OpenAPI headers of a paged 200 response: `Link` and `X-Next-Cursor`, both only when `next` is not null.
pub fn response_headers() -> Value {
    serde_json::json!({
        "Link": {
            "description": "`<absolute URL of the next page>; rel=\"next\"`: this request's own parameters with \
                            `cursor` set to `next` (never the `api_key` parameter). Absent on the last page.",
            "schema": {"type": "string"},
        },
        "X-Next-Cursor": {
            "description": "The `next` cursor again, for clients that read headers. Absent on the last page.",
            "schema": {"type": "string"},
        },
    })
}

/// What a cursor holds.
#[derive(Debug)]
struct Payload {
    /// Fingerprint of the query (see [`fingerprint`]).
    fingerprint: u64,
    /// JSON text of the sort key of the last item served.
    key: String,
    /// The data generation the walk is pinned to, if any.
    generation: Option<String>,
}

/// A version 1 cursor's JSON document.
#[derive(Debug, Deserialize)]
struct JsonPayload {
    v: u32,
    /// Fingerprint of the query, as 16 hex digits.
    q: String,
    /// Sort key of the last item served.
    k: Value,
    #[serde(default)]
    g: Option<String>,
}

/// One request's page: its size and where it starts. Parse it once per request with [`PageRequest::parse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// The page size (the request's `limit`, with its SPEC default and maximum).
    pub limit: usize,
    fingerprint: u64,
    /// JSON text of the sort key of the last item the previous page served; `None` on the first page.
    after: Option<String>,
    /// The data generation the cursor was issued for, when it pins one.
    generation: Option<String>,
}

impl PageRequest {
    /// Reads `limit` (absent: `default_limit`; above `max_limit`: clamped) and `cursor`.
    pub fn parse(request: &RequestEnvelope, default_limit: usize, max_limit: usize) -> Result<Self, ApiError> {
        Self::parse_normalized(request, default_limit, max_limit, &[])
    }

    /// [`Self::parse`] where some parameters have several spellings of one value (`cik=9990307` and
    /// `cik=0009990307`): `normalized` gives their canonical values, which the cursor is bound to instead, so
    /// every spelling gives the same cursors.
    pub fn parse_normalized(
        request: &RequestEnvelope,
        default_limit: usize,
        max_limit: usize,
        normalized: &[(&str, &str)],
    ) -> Result<Self, ApiError> {
        let limit = request.params().limit(default_limit, max_limit)?;
        Self::with_limit(request, limit, normalized)
    }

    /// For lists that SPEC serves whole when no `limit` is given (the company datasets, the price ticker list
    /// and series): absent `limit` is one page of everything; a given one is clamped to `max_limit`.
    pub fn parse_or_all(request: &RequestEnvelope, max_limit: usize) -> Result<Self, ApiError> {
        let limit = match request.params().positive_int("limit")? {
            None => usize::MAX,
            Some(n) => n.min(max_limit as u64) as usize,
        };
        Self::with_limit(request, limit, &[])
    }

    fn with_limit(request: &RequestEnvelope, limit: usize, normalized: &[(&str, &str)]) -> Result<Self, ApiError> {
        let query = request.query.iter().map(|(k, v)| match normalized.iter().find(|(name, _)| name == k) {
            Some((_, canonical)) => (k.as_str(), *canonical),
            None => (k.as_str(), v.as_str()),
        });
        let fingerprint = fingerprint(&request.route, query);
        let mut page = PageRequest { limit, fingerprint, after: None, generation: None };
        if let Some(text) = request.params().raw(PARAM).filter(|v| !v.trim().is_empty()) {
            let payload = decode(text)?;
            if payload.fingerprint != page.fingerprint {
                return Err(ApiError::bad_request(
                    "cursor belongs to a different query: pass it with the same parameters as the request that \
                     returned it (only limit may change), or omit cursor to start from the first page",
                ));
            }
            page.after = Some(payload.key);
            page.generation = payload.generation;
        }
        Ok(page)
    }

    /// Ties the walk to one data generation (an index fingerprint, a filing's accession): a cursor issued for
    /// another generation is a 400, and every cursor this request issues carries `generation`.
    pub fn pinned_to(mut self, generation: &str) -> Result<Self, ApiError> {
        if self.after.is_some() && self.generation.as_deref() != Some(generation) {
            return Err(ApiError::bad_request(
                "cursor was issued for data that has changed since (newer records were ingested) and this list \
                 cannot resume across the change; omit cursor to walk the current list from its first page",
            ));
        }
        self.generation = Some(generation.to_string());
        Ok(self)
    }

    /// Whether this is the first page (no cursor).
    pub fn is_first(&self) -> bool {
        self.after.is_none()
    }

    /// The sort key of the last item the previous page served, as the list's key type.
    pub fn after<K: DeserializeOwned>(&self) -> Result<Option<K>, ApiError> {
        match &self.after {
            None => Ok(None),
            Some(text) => serde_json::from_str(text).map(Some).map_err(|_| not_a_cursor()),
        }
    }

    /// The cursor of the page that follows the item whose sort key is `key`.
    pub fn cursor_after<K: Serialize>(&self, key: &K) -> String {
        encode(self.fingerprint, key, self.generation.as_deref())
    }

    /// The page of `items`, which come in ascending `key` order (use [`std::cmp::Reverse`] parts for a
    /// descending list): the first `limit` items whose key is after the cursor's, and the cursor of the page
    /// after them when any item remains. A cursor whose key is not a `K` is a 400.
    pub fn page<T, K>(&self, items: impl IntoIterator<Item = T>, key: impl Fn(&T) -> K) -> Result<Page<T>, ApiError>
    where
        K: Ord + Serialize + DeserializeOwned,
    {
        Ok(self.clone().keyed::<K>()?.page(items, key))
    }

    /// The request with its cursor's key decoded as the list's key type, for code that parses a request
    /// before it pages (so that paging itself cannot fail).
    pub fn keyed<K: DeserializeOwned>(self) -> Result<KeyedPage<K>, ApiError> {
        Ok(KeyedPage { after: self.after()?, request: self })
    }
}

/// The most items a page makes room for before it is collected (more grow as they come).
const PAGE_ROOM: usize = 1024;

/// A [`PageRequest`] whose cursor key is decoded (see [`PageRequest::keyed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyedPage<K> {
    /// The page size and cursor fingerprint, as parsed.
    pub request: PageRequest,
    /// Sort key of the last item the previous page served; `None` on the first page (no cursor).
    pub after: Option<K>,
}

impl<K: Ord + Serialize> KeyedPage<K> {
    /// See [`PageRequest::page`].
    pub fn page<T>(&self, items: impl IntoIterator<Item = T>, key: impl Fn(&T) -> K) -> Page<T> {
        let after = self.after.as_ref();
        self.page_after_cursor(items.into_iter().filter(|item| after.is_none_or(|a| key(item) > *a)), &key)
    }

    /// [`Self::page`] for items that all come after the cursor's key (the caller skipped the others, say by a
    /// binary search of its sorted list): no key is made but the last served item's, for the next page's cursor.
    pub fn page_after_cursor<T>(&self, items: impl IntoIterator<Item = T>, key: impl Fn(&T) -> K) -> Page<T> {
        let mut items = items.into_iter();
        // Room for the page at once where the items say how many they are at most (a filtered slice does): a
        // page collected from a filter otherwise grows from four items by doubling, a copy each time.
        let room = items.size_hint().1.unwrap_or(0).min(self.request.limit).min(PAGE_ROOM);
        let mut served = Vec::with_capacity(room);
        served.extend(items.by_ref().take(self.request.limit));
        let more = items.next().is_some();
        debug_assert!(
            served.windows(2).all(|w| key(&w[0]) < key(&w[1])),
            "page: items must come in strictly ascending key order"
        );
        debug_assert!(
            served.first().is_none_or(|first| self.after.as_ref().is_none_or(|a| key(first) > *a)),
            "page_after_cursor: an item at or before the cursor"
        );
        let next = match (more, served.last()) {
            (true, Some(last)) => Some(self.request.cursor_after(&key(last))),
            _ => None,
        };
        Page { items: served, next }
    }
}

/// One page of a list and the cursor of the page after it (`None`: this is the last page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    /// The items of this page, in list order: at most the request's `limit`.
    pub items: Vec<T>,
    /// Cursor of the next page (the response's `next`; [`respond`] also sends it as [`NEXT_HEADER`]); `None` on
    /// the last page.
    pub next: Option<String>,
}

/// A 200 with `body` (which carries `next` itself) and, when there is a next page, the `X-Next-Cursor` header.
pub fn respond<B: Serialize + ?Sized>(body: &B, next: Option<&str>) -> Result<Response, ApiError> {
    let response = Response::json(body)?;
    Ok(match next {
        Some(cursor) => response.with_header(NEXT_HEADER, cursor),
        None => response,
    })
}

fn not_a_cursor() -> ApiError {
    ApiError::bad_request(
        "cursor is not a cursor this API issued (it was cut short or altered): pass the `next` value of the \
         previous page unchanged, or omit cursor to start from the first page",
    )
}

/// The route and every parameter but `cursor` and `limit`, trimmed, blank ones dropped (a blank parameter
/// counts as absent everywhere), in name order.
fn fingerprint<'a>(route: &str, query: impl IntoIterator<Item = (&'a str, &'a str)>) -> u64 {
    let mut pairs: Vec<(&str, &str)> = query
        .into_iter()
        .filter(|(k, _)| *k != PARAM && *k != "limit")
        .map(|(k, v)| (k, v.trim()))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    pairs.sort_unstable();
    // Separators that cannot occur in a decoded name, so `a=b&c` and `a=b c` differ.
    let mut h = fnv1a(FNV_OFFSET, route.as_bytes());
    for (k, v) in pairs {
        for part in [&[0u8][..], k.as_bytes(), &[1u8][..], v.as_bytes()] {
            h = fnv1a(h, part);
        }
    }
    h
}

/// FNV-1a's starting value (64 bits).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64 bits, of `bytes` continuing from `h` (start with [`FNV_OFFSET`]): stable across builds, processes
/// and replicas (std's hashers promise none of that). Continuing over parts hashes their concatenation.
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn checksum(bytes: &[u8]) -> [u8; CHECKSUM_BYTES] {
    fnv1a(fnv1a(FNV_OFFSET, CHECKSUM_SALT), bytes).to_be_bytes()
}

fn encode<K: Serialize + ?Sized>(fingerprint: u64, key: &K, generation: Option<&str>) -> String {
    let mut bytes = Vec::with_capacity(64);
    bytes.push(VERSION);
    bytes.extend_from_slice(&fingerprint.to_be_bytes());
    // A key that cannot be written as JSON (a map with non-string keys) is a null, as before: the next page then
    // refuses the cursor as not of the list's key type instead of serving a wrong page.
    if serde_json::to_writer(&mut bytes, key).is_err() {
        bytes.truncate(1 + FINGERPRINT_BYTES);
        bytes.extend_from_slice(b"null");
    }
    if let Some(generation) = generation {
        bytes.push(GENERATION_MARK);
        bytes.extend_from_slice(generation.as_bytes());
    }
    let sum = checksum(&bytes);
    bytes.extend_from_slice(&sum);
    URL_SAFE_NO_PAD.encode(bytes)
}

fn decode(text: &str) -> Result<Payload, ApiError> {
    if text.len() > MAX_CURSOR_CHARS {
        return Err(not_a_cursor());
    }
    let bytes = URL_SAFE_NO_PAD.decode(text.trim()).map_err(|_| not_a_cursor())?;
    if bytes.len() <= CHECKSUM_BYTES {
        return Err(not_a_cursor());
    }
    let (content, sum) = bytes.split_at(bytes.len() - CHECKSUM_BYTES);
    if checksum(content) != sum {
        return Err(not_a_cursor());
    }
    match content[0] {
        VERSION => decode_binary(&content[1..]),
        b'{' => decode_json(content),
        _ => Err(incompatible_version()),
    }
}

fn decode_binary(content: &[u8]) -> Result<Payload, ApiError> {
    if content.len() <= FINGERPRINT_BYTES {
        return Err(not_a_cursor());
    }
    let (fingerprint, rest) = content.split_at(FINGERPRINT_BYTES);
    let fingerprint = u64::from_be_bytes(fingerprint.try_into().map_err(|_| not_a_cursor())?);
    let (key, generation) = match rest.iter().position(|b| *b == GENERATION_MARK) {
        Some(mark) => (&rest[..mark], Some(&rest[mark + 1..])),
        None => (rest, None),
    };
    let text = |bytes: &[u8]| String::from_utf8(bytes.to_vec()).map_err(|_| not_a_cursor());
    Ok(Payload { fingerprint, key: text(key)?, generation: generation.map(text).transpose()? })
}

fn decode_json(content: &[u8]) -> Result<Payload, ApiError> {
    let payload: JsonPayload = serde_json::from_slice(content).map_err(|_| not_a_cursor())?;
    if payload.v != JSON_VERSION {
        return Err(incompatible_version());
    }
    let fingerprint = match payload.q.len() {
        16 => u64::from_str_radix(&payload.q, 16).map_err(|_| not_a_cursor())?,
        _ => return Err(not_a_cursor()),
    };
    Ok(Payload { fingerprint, key: payload.k.to_string(), generation: payload.g })
}

fn incompatible_version() -> ApiError {
    ApiError::bad_request(
        "cursor comes from an incompatible version of this API; omit cursor to start from the first page",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;

    fn request(query: &[(&str, &str)]) -> RequestEnvelope {
        RequestEnvelope::new("/v1/things", query)
    }

    /// Walks `items` (ascending) with page size `limit`, passing each `next` on with `query`.
    fn walk(items: &[u32], query: &[(&str, &str)], limit: &str) -> Vec<Vec<u32>> {
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut q: Vec<(&str, &str)> = query.to_vec();
            q.push(("limit", limit));
            if let Some(c) = &cursor {
                q.push(("cursor", c));
            }
            let page = PageRequest::parse(&request(&q), 10, 100).unwrap().page(items.iter().copied(), |i| *i).unwrap();
            pages.push(page.items);
            match page.next {
                Some(next) => cursor = Some(next),
                None => return pages,
            }
            assert!(pages.len() < 100, "the walk ends");
        }
    }

    #[test]
    fn a_walk_serves_every_item_once_and_ends_with_no_next() {
        let items: Vec<u32> = (1..=7).collect();
        assert_eq!(walk(&items, &[], "3"), vec![vec![1, 2, 3], vec![4, 5, 6], vec![7]]);
        // A last page that is exactly full still says there is nothing after it.
        assert_eq!(walk(&items[..6], &[], "3"), vec![vec![1, 2, 3], vec![4, 5, 6]]);
        assert_eq!(walk(&[], &[], "3"), vec![Vec::<u32>::new()]);
        let one = PageRequest::parse(&request(&[]), 10, 100).unwrap().page(items.clone(), |i| *i).unwrap();
        assert_eq!((one.items.len(), one.next), (7, None), "the default limit covers the whole list");
    }

    #[test]
    fn inserts_before_and_after_the_position_neither_repeat_nor_skip() {
        let first = PageRequest::parse(&request(&[("limit", "2")]), 10, 100).unwrap();
        let page = first.page(vec![10, 20, 30, 40], |i| *i).unwrap();
        assert_eq!(page.items, vec![10, 20]);
        let cursor = page.next.unwrap();
        // Between the pages, 15 (before the position), 35 (after it) arrive and 30 (the next item) goes.
        let second = PageRequest::parse(&request(&[("limit", "2"), ("cursor", &cursor)]), 10, 100).unwrap();
        let page = second.page(vec![10, 15, 20, 35, 40], |i| *i).unwrap();
        assert_eq!(page.items, vec![35, 40], "15 is behind the position; 35 is served; nothing repeats");
        assert_eq!(page.next, None);
    }

    #[test]
    fn a_page_of_items_past_the_cursor_makes_only_the_last_key() {
        let first = PageRequest::parse(&request(&[("limit", "2")]), 10, 100).unwrap().keyed::<u32>().unwrap();
        let cursor = first.page(vec![10, 20, 30, 40, 50], |i| *i).next.unwrap();
        let second = PageRequest::parse(&request(&[("limit", "2"), ("cursor", &cursor)]), 10, 100).unwrap();
        let second = second.keyed::<u32>().unwrap();
        let keys = std::cell::Cell::new(0);
        let counted = |i: &u32| {
            keys.set(keys.get() + 1);
            *i
        };
        // The caller skipped 10 and 20 itself: the page is the one `page` serves from the whole list.
        let past = second.page_after_cursor(vec![30, 40, 50], counted);
        assert_eq!(past, second.page(vec![10, 20, 30, 40, 50], |i| *i));
        assert_eq!(past.items, vec![30, 40]);
        // One key, for the next page's cursor (debug builds also check the order: two keys per neighbouring pair
        // served and one for the first item against the cursor).
        assert_eq!(keys.get(), if cfg!(debug_assertions) { 1 + 2 + 1 } else { 1 });
        // The next cursor continues after 40 whichever way the page was made.
        let third = PageRequest::parse(&request(&[("limit", "2"), ("cursor", past.next.as_deref().unwrap())]), 10, 100);
        assert_eq!(third.unwrap().page(vec![10, 20, 30, 40, 50], |i| *i).unwrap().items, vec![50]);
        // No next page: no key at all.
        keys.set(0);
        let last = second.page_after_cursor(vec![30], counted);
        assert_eq!((last.items, last.next), (vec![30], None));
        assert_eq!(keys.get(), if cfg!(debug_assertions) { 1 } else { 0 });
    }

    #[test]
    fn the_fingerprint_of_a_query_stays_what_cursors_already_issued_hold() {
        // FNV-1a of `/v1/things\0a\x01b\0ticker\x01NVDA`, computed outside this code: a cursor handed out by an
        // earlier release must still continue its walk.
        let query = [("ticker", "NVDA"), ("limit", "5"), ("a", " b "), ("cursor", "x"), ("blank", " ")];
        assert_eq!(fingerprint("/v1/things", query), 0x158c_197d_4584_14cb);
    }

    #[test]
    fn cursors_of_the_earlier_json_format_continue_their_walks() {
        // Issued by the release before the binary format (paging.rs at cdc5546) for `/v1/things?ticker=NVDA&limit=2`:
        // after the item 20, and after ("2026-01-01", "a") of a descending list pinned to generation `gen-a`.
        let plain = "eyJ2IjoxLCJxIjoiMzhiM2Y3YmUxN2QzNTUzZiIsImsiOjIwfdMgrm2zdVNj";
        let pinned =
            "eyJ2IjoxLCJxIjoiMzhiM2Y3YmUxN2QzNTUzZiIsImsiOlsiMjAyNi0wMS0wMSIsImEiXSwiZyI6Imdlbi1hIn0FxCiczYALQQ";
        let page = |cursor: &str| {
            PageRequest::parse(&request(&[("ticker", "NVDA"), ("limit", "2"), ("cursor", cursor)]), 10, 100).unwrap()
        };
        assert_eq!(page(plain).page(vec![10u32, 20, 30, 40], |i| *i).unwrap().items, vec![30, 40]);
        let dated = vec![("2026-03-01", "b"), ("2026-01-01", "a"), ("2025-01-01", "z")];
        let key = |d: &(&str, &str)| (Reverse(d.0.to_string()), d.1.to_string());
        let pinned = page(pinned).pinned_to("gen-a").unwrap();
        let rest = pinned.page(dated, key).unwrap();
        assert_eq!(rest.items, vec![("2025-01-01", "z")]);
        assert!(page(plain).pinned_to("gen-a").is_err(), "an unpinned cursor of a list now pinned");
        let other = PageRequest::parse(&request(&[("ticker", "AAPL"), ("cursor", plain)]), 10, 100).unwrap_err();
        assert!(other.message.starts_with("cursor belongs to a different query"), "{}", other.message);
    }

    #[test]
    fn a_cursor_is_its_version_fingerprint_key_generation_and_checksum() {
        // A full-text search's key (a score's bits and a filing) pinned to its index: 1 + 8 + 16 (`[3213570374,239]`)
        // + 1 + 8 (`seed-300`) + 8 bytes = 42, in 56 characters (the JSON format wrote the same in 107).
        let first = PageRequest::parse(&request(&[("q", "revenue")]), 20, 100).unwrap().pinned_to("seed-300").unwrap();
        let cursor = first.cursor_after(&(3_213_570_374u64, 239u32));
        assert_eq!(cursor.len(), 56, "{cursor}");
        let bytes = URL_SAFE_NO_PAD.decode(&cursor).unwrap();
        assert_eq!(bytes[0], VERSION);
        assert_eq!(&bytes[1..9], &fingerprint("/v1/things", [("q", "revenue")]).to_be_bytes());
        assert_eq!(&bytes[9..34], b"[3213570374,239]\0seed-300");
        let next = PageRequest::parse(&request(&[("q", "revenue"), ("cursor", &cursor)]), 20, 100).unwrap();
        assert_eq!(next.after::<(u64, u32)>().unwrap(), Some((3_213_570_374, 239)));
        assert!(next.pinned_to("seed-300").is_ok());
        // Any generation text, a zero byte in it too, and keys with every JSON escape come back as they went.
        for generation in ["", "a\0b", "DEMO-13F-000006", "ü\n\""] {
            let first = PageRequest::parse(&request(&[]), 10, 100).unwrap().pinned_to(generation).unwrap();
            let key = ("a\"\\\u{1}é\u{0}".to_string(), -7i64, 0.5f64);
            let cursor = first.cursor_after(&key);
            let next = PageRequest::parse(&request(&[("cursor", &cursor)]), 10, 100).unwrap();
            assert_eq!(next.after::<(String, i64, f64)>().unwrap(), Some(key), "{generation:?}");
            assert!(next.clone().pinned_to(generation).is_ok(), "{generation:?}");
            assert!(next.pinned_to("other").is_err(), "{generation:?}");
        }
        // Without a generation: no mark, nothing after the key.
        let unpinned = PageRequest::parse(&request(&[]), 10, 100).unwrap().cursor_after(&20u32);
        let bytes = URL_SAFE_NO_PAD.decode(&unpinned).unwrap();
        assert_eq!(&bytes[9..bytes.len() - CHECKSUM_BYTES], b"20");
    }

    #[test]
    fn every_altered_character_of_a_cursor_is_refused() {
        let first = PageRequest::parse(&request(&[("limit", "1")]), 10, 100).unwrap().pinned_to("gen-a").unwrap();
        let cursor = first.cursor_after(&("2026-01-01", "a"));
        for at in 0..cursor.len() {
            for replacement in ['A', 'z', '-', '_', '0'] {
                let mut altered: Vec<char> = cursor.chars().collect();
                if altered[at] == replacement {
                    continue;
                }
                altered[at] = replacement;
                let altered: String = altered.into_iter().collect();
                let err = PageRequest::parse(&request(&[("limit", "1"), ("cursor", &altered)]), 10, 100).unwrap_err();
                assert_eq!(err.status, 400, "{altered}");
            }
        }
        // A version this release does not know, its checksum right: named as a version, not as an alteration.
        let mut bytes = URL_SAFE_NO_PAD.decode(&cursor).unwrap();
        bytes.truncate(bytes.len() - CHECKSUM_BYTES);
        bytes[0] = VERSION + 1;
        let sum = checksum(&bytes);
        bytes.extend_from_slice(&sum);
        let newer = URL_SAFE_NO_PAD.encode(&bytes);
        let err = PageRequest::parse(&request(&[("limit", "1"), ("cursor", &newer)]), 10, 100).unwrap_err();
        assert!(err.message.starts_with("cursor comes from an incompatible version"), "{}", err.message);
    }

    #[test]
    fn descending_lists_use_reverse_keys() {
        let dated = vec![("2026-03-01", "b"), ("2026-03-01", "a"), ("2026-01-05", "z")];
        let key = |d: &(&str, &str)| (Reverse(d.0.to_string()), Reverse(d.1.to_string()));
        let p = PageRequest::parse(&request(&[("limit", "1")]), 10, 100).unwrap().page(dated.clone(), key).unwrap();
        assert_eq!(p.items, vec![("2026-03-01", "b")]);
        let q = [("limit", "5"), ("cursor", p.next.as_deref().unwrap())];
        let p = PageRequest::parse(&request(&q), 10, 100).unwrap().page(dated, key).unwrap();
        assert_eq!(p.items, vec![("2026-03-01", "a"), ("2026-01-05", "z")], "limit may change between pages");
    }

    #[test]
    fn a_cursor_continues_only_its_own_query() {
        let page = PageRequest::parse(&request(&[("ticker", "NVDA"), ("limit", "1")]), 10, 100)
            .unwrap()
            .page(vec![1, 2], |i| *i)
            .unwrap();
        let cursor = page.next.unwrap();
        // The same filters in another order, with blanks around them, are the same query.
        let same = [("cursor", cursor.as_str()), ("member", " "), ("ticker", " NVDA ")];
        assert!(PageRequest::parse(&request(&same), 10, 100).is_ok());
        for other in [vec![("ticker", "AAPL")], vec![], vec![("ticker", "NVDA"), ("member", "lee")]] {
            let mut q = other.clone();
            q.push(("cursor", &cursor));
            let err = PageRequest::parse(&request(&q), 10, 100).unwrap_err();
            assert_eq!(err.status, 400);
            assert!(err.message.starts_with("cursor belongs to a different query"), "{}", err.message);
        }
        let normalized = |cik: &str| {
            let q = [("cik", cik), ("limit", "1")];
            let page = PageRequest::parse_normalized(&request(&q), 10, 100, &[("cik", "0000000042")]).unwrap();
            page.page(vec![1, 2], |i| *i).unwrap().next
        };
        assert_eq!(normalized("42"), normalized("0000000042"), "one canonical value, one cursor");
        let elsewhere = RequestEnvelope::new("/v1/other", &[("ticker", "NVDA"), ("cursor", &cursor)]);
        assert!(PageRequest::parse(&elsewhere, 10, 100).is_err(), "a cursor is bound to its route");
    }

    #[test]
    fn tampered_or_garbage_cursors_are_refused_naming_cursor() {
        let page = PageRequest::parse(&request(&[("limit", "1")]), 10, 100).unwrap().page(vec![1, 2], |i| *i).unwrap();
        let cursor = page.next.unwrap();
        let mut tampered: Vec<char> = cursor.chars().collect();
        let mid = tampered.len() / 2;
        tampered[mid] = if tampered[mid] == 'A' { 'B' } else { 'A' };
        let tampered: String = tampered.into_iter().collect();
        // A hand-made cursor without the checksum: the JSON of an offset the user wished to jump to.
        let forged = URL_SAFE_NO_PAD.encode(br#"{"v":1,"q":"0000000000000000","k":500}"#);
        let cut = &cursor[..cursor.len() - 3];
        let too_long = "A".repeat(MAX_CURSOR_CHARS + 1);
        for bad in [tampered.as_str(), forged.as_str(), cut, "garbage!", "42", too_long.as_str()] {
            let err = PageRequest::parse(&request(&[("cursor", bad)]), 10, 100).unwrap_err();
            assert_eq!(err.status, 400, "{bad}");
            assert!(err.message.starts_with("cursor is not a cursor this API issued"), "{bad}: {}", err.message);
        }
        // A well-formed cursor whose key is not of the list's key type.
        let wrong_key = PageRequest::parse(&request(&[]), 10, 100).unwrap().cursor_after(&"text");
        let page = PageRequest::parse(&request(&[("cursor", &wrong_key)]), 10, 100).unwrap();
        assert_eq!(page.page(vec![1u32], |i| *i).unwrap_err().status, 400);
        // A blank cursor is the first page, like any blank parameter.
        assert!(PageRequest::parse(&request(&[("cursor", " ")]), 10, 100).unwrap().is_first());
    }

    #[test]
    fn pinned_generations_refuse_cursors_of_another() {
        let first = PageRequest::parse(&request(&[("limit", "1")]), 10, 100).unwrap().pinned_to("gen-a").unwrap();
        let cursor = first.page(vec![1, 2], |i| *i).unwrap().next.unwrap();
        let again = PageRequest::parse(&request(&[("limit", "1"), ("cursor", &cursor)]), 10, 100).unwrap();
        assert!(again.clone().pinned_to("gen-a").is_ok());
        let err = again.pinned_to("gen-b").unwrap_err();
        assert!(err.message.starts_with("cursor was issued for data that has changed"), "{}", err.message);
    }

    #[test]
    fn parse_or_all_serves_everything_without_a_limit() {
        let all = PageRequest::parse_or_all(&request(&[]), 1000).unwrap();
        assert_eq!(all.limit, usize::MAX);
        assert_eq!(PageRequest::parse_or_all(&request(&[("limit", "5000")]), 1000).unwrap().limit, 1000);
        assert_eq!(PageRequest::parse_or_all(&request(&[("limit", "0")]), 1000).unwrap_err().status, 400);
    }

    #[test]
    fn respond_sets_the_next_header_only_when_there_is_a_next_page() {
        let r = respond(&serde_json::json!({"next": "abc"}), Some("abc")).unwrap();
        assert_eq!(r.headers, vec![(NEXT_HEADER.to_string(), "abc".to_string())]);
        assert!(respond(&serde_json::json!({"next": null}), None).unwrap().headers.is_empty());
    }
}
