//! The host's cache of finished dataset answers. A plugin's 2xx answer is validated (unless the SDK vouches that
//! serde_json wrote it: `OUTCOME_OK_WRITTEN_JSON`), labelled (`dataStatus`) and hashed once, when it is produced;
//! the entry then holds its bytes (`Bytes`, shared, never copied per request), its headers, a strong `ETag` and,
//! computed on first demand, its gzip and brotli variants. A request that finds its entry skips the request
//! envelope, the plugin call and the validation; auth, the rate limit, the tier check and the parameter checks run
//! before the lookup exactly as for any other request.
//!
//! Keys: the data generation, the plugin, the route, the tier and the canonical query (decoded pairs without
//! `api_key`, in name order: the host admits each name once and plugins read parameters by name). The data
//! generation is one counter for the whole process, moved on whenever any plugin publishes a new instance
//! (`plugins::served::publish`, under the lock that publishes what the instance serves: whoever sees the new data
//! status finds no older answer), so an answer that reads other plugins through `route.get` (entity-graph) is
//! left behind when any of them changes. A request that read the old generation may still store its answer,
//! under a key no later request builds. `lifecycle/watch.rs` also empties the cache after each re-init, for the
//! memory.
//!
//! Not cached: errors (only 2xx answers are kept), answers a plugin marks as uncacheable (`Cache-Control:
//! no-store`, or the SDK's `x-datahost-cache: off` for an instance that reads live tables:
//! `Plugin::cache_responses`), bodies over `cache.max_entry_bytes`, and everything while `cache.max_bytes` is 0.
//! Entries also expire after `cache.ttl_secs` (0: only data changes and eviction end them).

use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use datahost_plugin_api::Tier;
use quick_cache::sync::Cache;
use quick_cache::{DefaultHashBuilder, Lifecycle, Weighter};

use crate::config::CacheConfig;
use crate::http::negotiate::{self, Coding};

/// The plugin header by which the SDK says an instance's answers must not be reused (stripped from responses).
pub const NO_CACHE_HEADER: &str = datahost_plugin_api::request::NO_HOST_CACHE_HEADER;

/// What dataset answers say about caching unless the plugin says otherwise: a client may keep the answer but
/// revalidates it (`If-None-Match`) before reuse, and shared caches keep none (answers depend on the key).
const DEFAULT_CACHE_CONTROL: HeaderValue = HeaderValue::from_static("private, no-cache");
const VARY_ENCODING: HeaderValue = HeaderValue::from_static("accept-encoding");
/// The most headers added to a stored answer on its way out: coding, vary (twice), three rate-limit headers,
/// request id, link.
const ADDED_HEADERS: usize = 8;
/// Room an entry's headers need besides the plugin's: `Cache-Control`, `ETag`, `Content-Length` and
/// [`ADDED_HEADERS`]. A map of a plugin's answer made with this room becomes the entry's without growing.
pub const ENTRY_HEADERS_ROOM: usize = 3 + ADDED_HEADERS;

/// A cached answer: the identity body and what is needed to send it, or a variant of it.
pub struct Entry {
    body: Bytes,
    /// Content type, `X-Data-Status`, the plugin's own headers (`X-Next-Cursor`...), `Cache-Control`, `ETag` and
    /// the identity body's `Content-Length` (axum would format it for every response): the headers of a 200 in
    /// the identity coding. Made with room for the headers the host adds on the way out, so an answer's map is
    /// a clone of this one (no header name hashed again) whose index is not rebuilt as they are added (`respond`).
    headers: HeaderMap,
    /// The opaque tag of the identity body (hex text); the variants' tags add `-gzip` / `-br`, written only when
    /// a variant is sent.
    tag: [u8; TAG_LEN],
    /// Whether compressed variants are offered at all (body at least `compress_min_bytes`, and cacheable).
    compressible: bool,
    gzip: OnceLock<Option<Bytes>>,
    br: OnceLock<Option<Bytes>>,
    created: Instant,
    /// The `Link` to the next page (when the answer names a next cursor) and the query it was made for: a
    /// repeat of that query reuses it instead of encoding the URL again (6,000 instructions on a search page).
    next_link: OnceLock<MadeLink>,
    /// Whether a later request can find this entry (the cache keeps it, or its owner does): only then is its
    /// `Link` worth keeping with the query it was made for.
    reused: bool,
}

/// A `Link` header (or none: no next page) and the query it was made for.
type MadeLink = (Vec<(String, String)>, Option<HeaderValue>);

/// Compressing takes longer than answering: above this size a variant is made off the async workers.
const INLINE_COMPRESS_MAX: usize = 64 << 10;

/// The length of an entity tag's hex text.
const TAG_LEN: usize = 32;

/// The strong entity tag of a body: its 128-bit XXH3 hash in hex, written without the formatter (an answer made
/// per request pays for it). The same bytes give the same tag on every replica and every run; the tag only tells
/// versions of an answer apart (nothing here is a secret or needs collision resistance against an attacker, who
/// does not choose the bodies), and XXH3 costs a small fraction of the SHA-256 it replaced, which was 3-4% of the
/// host's CPU on answers computed for each request. `twox-hash` picks AVX2 when the CPU has it (checked once, at
/// run time): half the time of the SSE2-only `xxhash-rust` it replaced on a 48 KB body, the same hash (xxHash's
/// XXH3-128), so a tag a client kept from an earlier release still matches.
fn tag_of(body: &[u8]) -> [u8; TAG_LEN] {
    let mut hex = [0u8; TAG_LEN];
    let written = hex::encode_to_slice(twox_hash::XxHash3_128::oneshot(body).to_be_bytes(), &mut hex);
    debug_assert!(written.is_ok(), "16 bytes are 32 hex digits");
    hex
}

fn tag_text(tag: &[u8; TAG_LEN]) -> &str {
    // Hex digits only (`tag_of`), so always UTF-8.
    std::str::from_utf8(tag).unwrap_or_default()
}

/// The `ETag` header of a tag and coding suffix (`""`, `-gzip`, `-br`): the tag quoted.
fn etag_value(tag: &[u8; TAG_LEN], suffix: &str) -> Option<HeaderValue> {
    let mut quoted = Vec::with_capacity(TAG_LEN + suffix.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(tag);
    quoted.extend_from_slice(suffix.as_bytes());
    quoted.push(b'"');
    HeaderValue::from_maybe_shared(Bytes::from(quoted)).ok()
}

/// The header naming the next page's cursor, as the plugins send it (names arrive lower-cased).
const NEXT_CURSOR: header::HeaderName = header::HeaderName::from_static("x-next-cursor");

impl Entry {
    /// An entry for `body` (already validated and labelled) with the headers the plugin's answer carries.
    /// `compressible`: offer gzip and brotli variants.
    pub fn new(body: Bytes, plugin_headers: HeaderMap, compressible: bool) -> Self {
        let tag = tag_of(&body);
        // The plugin's headers and the three below, with room for the ones added on the way out. The map is the
        // plugin's own when it was made with that room (`ENTRY_HEADERS_ROOM`): no header name hashed again.
        let mut headers = plugin_headers;
        headers.reserve(ENTRY_HEADERS_ROOM);
        if !headers.contains_key(header::CACHE_CONTROL) {
            headers.insert(header::CACHE_CONTROL, DEFAULT_CACHE_CONTROL);
        }
        if let Some(etag) = etag_value(&tag, "") {
            headers.insert(header::ETAG, etag);
        }
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        Self {
            body,
            headers,
            tag,
            compressible,
            gzip: OnceLock::new(),
            br: OnceLock::new(),
            created: Instant::now(),
            next_link: OnceLock::new(),
            reused: true,
        }
    }

    /// The `Link` header of this answer for a request with `query`: `build` makes it from the next page's cursor
    /// (`X-Next-Cursor`); `None` when the answer has no next page.
    pub fn next_link<K: AsRef<str>, V: AsRef<str>>(
        &self,
        query: &[(K, V)],
        build: impl FnOnce(&str) -> Option<HeaderValue>,
    ) -> Option<HeaderValue> {
        let cursor = || self.headers.get(NEXT_CURSOR).and_then(|v| v.to_str().ok());
        if !self.reused {
            return cursor().and_then(build);
        }
        if let Some((made_for, link)) = self.next_link.get() {
            let same = made_for.len() == query.len()
                && made_for.iter().zip(query).all(|((a, b), (k, v))| a == k.as_ref() && b == v.as_ref());
            if same {
                return link.clone();
            }
            return cursor().and_then(build);
        }
        let link = cursor().and_then(build);
        // The first query made for is kept; a concurrent first request may have set it already (same answer).
        let made_for = query.iter().map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string())).collect();
        let _ = self.next_link.set((made_for, link.clone()));
        link
    }

    /// Bytes the entry may come to hold: the body and room for its two variants (each kept only when at most
    /// half the body, see [`compress`]).
    fn weight(&self) -> u64 {
        let variants = if self.compressible { self.body.len() } else { 0 };
        (self.body.len() + variants + 256) as u64
    }

    /// The suffix of a coding's tag.
    fn tag_suffix(coding: Coding) -> &'static str {
        match coding {
            Coding::Identity => "",
            Coding::Gzip => "-gzip",
            Coding::Br => "-br",
        }
    }

    /// Whether `tag` (an opaque tag without quotes) names this entry in any coding.
    fn names(&self, tag: &str) -> bool {
        tag.strip_prefix(tag_text(&self.tag)).is_some_and(|suffix| {
            [Coding::Identity, Coding::Gzip, Coding::Br].iter().any(|c| Self::tag_suffix(*c) == suffix)
        })
    }

    /// The body in `coding`, compressing it on first demand; `None` when that coding is not offered.
    async fn variant(self: &Arc<Self>, coding: Coding) -> Option<Bytes> {
        let cell = match coding {
            Coding::Identity => return Some(self.body.clone()),
            _ if !self.compressible => return None,
            Coding::Gzip => &self.gzip,
            Coding::Br => &self.br,
        };
        if let Some(done) = cell.get() {
            return done.clone();
        }
        if self.body.len() <= INLINE_COMPRESS_MAX {
            return cell.get_or_init(|| compress(&self.body, coding)).clone();
        }
        let entry = self.clone();
        tokio::task::spawn_blocking(move || {
            let cell = if coding == Coding::Gzip { &entry.gzip } else { &entry.br };
            cell.get_or_init(|| compress(&entry.body, coding)).clone()
        })
        .await
        .unwrap_or_else(|e| {
            // The identity body is still served; the failed compression is said.
            tracing::warn!(error = %e, "compressing a cached answer failed: sent uncompressed");
            None
        })
    }

    /// [`Entry::respond`] by the entry's last holder: when no one else holds it (an answer that is not kept) and
    /// it is a 200 in the identity coding, its header map and body move into the answer instead of being copied,
    /// and the headers added on the way out fit in the room the map was made with (a clone has none: its first
    /// insert grows it).
    pub async fn respond_owned(mut self: Arc<Self>, request: &HeaderMap) -> Response {
        if let Some(entry) = Arc::get_mut(&mut self) {
            if !entry.compressible && !negotiate::none_match(request, |tag| entry.names(tag)) {
                let mut resp = Response::new(Body::from(entry.body.clone()));
                *resp.headers_mut() = std::mem::take(&mut entry.headers);
                return resp;
            }
        }
        self.respond(request).await
    }

    /// The answer to a request with these headers: 304 when its `If-None-Match` names this entry (in any
    /// coding), else 200 in the best coding the request accepts. Rate-limit and credential headers are added by
    /// the caller, as for every answer.
    pub async fn respond(self: &Arc<Self>, request: &HeaderMap) -> Response {
        let mut chosen = (Coding::Identity, None);
        let accepted = self.compressible.then(|| negotiate::accepted(request));
        if let Some(accepted) = accepted.filter(|a| a.any_compressed()) {
            for coding in accepted.preference() {
                if let Some(body) = self.variant(coding).await {
                    chosen = (coding, Some(body));
                    break;
                }
            }
        }
        let (coding, body) = chosen;
        let not_modified = negotiate::none_match(request, |tag| self.names(tag));
        let mut resp = if not_modified {
            // RFC 9110 section 15.4.5: a 304 carries the validators and caching headers of the 200 it stands for.
            let mut resp = Response::new(Body::empty());
            *resp.status_mut() = StatusCode::NOT_MODIFIED;
            for name in [header::CACHE_CONTROL, header::ETAG] {
                if let Some(v) = self.headers.get(&name) {
                    resp.headers_mut().insert(name, v.clone());
                }
            }
            resp
        } else {
            let mut resp = Response::new(Body::empty());
            *resp.headers_mut() = self.headers.clone();
            if let (Some(variant), Some(token)) = (&body, coding.token()) {
                let headers = resp.headers_mut();
                headers.insert(header::CONTENT_LENGTH, HeaderValue::from(variant.len()));
                headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
            }
            *resp.body_mut() = Body::from(body.unwrap_or_else(|| self.body.clone()));
            resp
        };
        if coding != Coding::Identity {
            if let Some(etag) = etag_value(&self.tag, Self::tag_suffix(coding)) {
                resp.headers_mut().insert(header::ETAG, etag);
            }
        }
        if self.compressible {
            resp.headers_mut().append(header::VARY, VARY_ENCODING);
        }
        resp
    }
}

/// `body` in `coding`, kept only when it is at most half the size (else the identity body is sent).
fn compress(body: &[u8], coding: Coding) -> Option<Bytes> {
    let out = match coding {
        Coding::Identity => return None,
        Coding::Gzip => {
            let mut enc =
                flate2::write::GzEncoder::new(Vec::with_capacity(body.len() / 4), flate2::Compression::new(6));
            enc.write_all(body).ok()?;
            enc.finish().ok()?
        }
        Coding::Br => {
            let mut out = Vec::with_capacity(body.len() / 4);
            {
                // Quality 5 of 11: most of brotli's gain over gzip at a fraction of the time of 11.
                let mut enc = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
                enc.write_all(body).ok()?;
                enc.flush().ok()?;
            }
            out
        }
    };
    (out.len() <= body.len() / 2).then(|| Bytes::from(out))
}

#[derive(Clone)]
struct EntryWeight;

impl Weighter<Box<[u8]>, Arc<Entry>> for EntryWeight {
    fn weight(&self, key: &Box<[u8]>, entry: &Arc<Entry>) -> u64 {
        key.len() as u64 + entry.weight()
    }
}

/// Counts entries evicted to stay within `cache.max_bytes`.
#[derive(Clone, Default)]
struct CountEvictions(Arc<AtomicU64>);

impl Lifecycle<Box<[u8]>, Arc<Entry>> for CountEvictions {
    type RequestState = ();
    fn begin_request(&self) -> Self::RequestState {}
    fn on_evict(&self, _: &mut (), _: Box<[u8]>, _: Arc<Entry>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

type Entries = Cache<Key, Arc<Entry>, EntryWeight, DefaultHashBuilder, CountEvictions>;

/// The cache of one host.
pub struct ResponseCache {
    entries: Option<Entries>,
    evictions: Arc<AtomicU64>,
    ttl: Option<Duration>,
    max_entry_bytes: usize,
    compress_min_bytes: usize,
}

/// A lookup key: see the module documentation.
pub type Key = Box<[u8]>;

impl ResponseCache {
    pub fn new(config: &CacheConfig) -> Self {
        let evictions = Arc::new(AtomicU64::new(0));
        let entries = (config.max_bytes > 0).then(|| {
            // Few shards: each holds an equal part of the budget, and an entry must fit in one part.
            let options = quick_cache::OptionsBuilder::new()
                .estimated_items_capacity(4096)
                .weight_capacity(config.max_bytes)
                .shards(4)
                .build()
                .expect("valid cache options");
            Cache::with_options(options, EntryWeight, DefaultHashBuilder::default(), CountEvictions(evictions.clone()))
        });
        Self {
            entries,
            evictions,
            ttl: (config.ttl_secs > 0).then(|| Duration::from_secs(config.ttl_secs)),
            max_entry_bytes: config.max_entry_bytes,
            compress_min_bytes: config.compress_min_bytes,
        }
    }

    pub fn enabled(&self) -> bool {
        self.entries.is_some()
    }

    /// The key of one request (`query` without `api_key`).
    pub fn key<K: AsRef<str>, V: AsRef<str>>(&self, plugin: &str, route: &str, tier: Tier, query: &[(K, V)]) -> Key {
        key(crate::plugins::served::data_generation(), plugin, route, tier, query)
    }

    pub fn get(&self, key: &Key) -> Option<Arc<Entry>> {
        let entry = self.entries.as_ref()?.get(key)?;
        match self.ttl {
            Some(ttl) if entry.created.elapsed() >= ttl => None,
            _ => Some(entry),
        }
    }

    /// An entry for a fresh plugin answer, kept under `key` when `cacheable` and within the size limits.
    /// Compressed variants are offered only for kept entries of at least `cache.compress_min_bytes`: an answer
    /// that is not kept would pay for its compression on every request.
    pub fn admit(&self, key: Option<Key>, body: Bytes, headers: HeaderMap, cacheable: bool) -> Arc<Entry> {
        let kept = match (&self.entries, key) {
            (Some(entries), Some(key)) if cacheable && body.len() <= self.max_entry_bytes => Some((entries, key)),
            _ => None,
        };
        let compressible = kept.is_some() && body.len() >= self.compress_min_bytes;
        let mut entry = Entry::new(body, headers, compressible);
        entry.reused = kept.is_some();
        let entry = Arc::new(entry);
        if let Some((entries, key)) = kept {
            entries.insert(key, entry.clone());
        }
        entry
    }

    /// After a data change: drops every entry (those of earlier generations are unreachable already).
    pub fn invalidate(&self) {
        crate::plugins::served::next_generation();
        if let Some(entries) = &self.entries {
            entries.clear();
        }
    }

    /// Entries, accounted bytes and evictions so far, for `/metrics`.
    pub fn stats(&self) -> (usize, u64, u64) {
        let (len, weight) = self.entries.as_ref().map_or((0, 0), |c| (c.len(), c.weight()));
        (len, weight, self.evictions.load(Ordering::Relaxed))
    }
}

/// Length-prefixed fields, so no value can imitate a separator; pairs in name order. Made in one allocation of
/// its exact size (a boxed slice of a larger buffer is a second one); a query already in name order (one
/// parameter, the common case) is not copied to be sorted.
fn key<K: AsRef<str>, V: AsRef<str>>(generation: u64, plugin: &str, route: &str, tier: Tier, query: &[(K, V)]) -> Key {
    const PREFIX: usize = std::mem::size_of::<u32>();
    let fields = |len: usize| PREFIX + len;
    let size = std::mem::size_of::<u64>()
        + fields(plugin.len())
        + fields(route.len())
        + fields(tier.as_str().len())
        + query.iter().map(|(k, v)| fields(k.as_ref().len()) + fields(v.as_ref().len())).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&generation.to_le_bytes());
    let mut field = |bytes: &[u8]| {
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(bytes);
    };
    field(plugin.as_bytes());
    field(route.as_bytes());
    field(tier.as_str().as_bytes());
    let pair = |(k, v): &(K, V)| {
        field(k.as_ref().as_bytes());
        field(v.as_ref().as_bytes());
    };
    if query.windows(2).all(|w| w[0].0.as_ref() <= w[1].0.as_ref()) {
        query.iter().for_each(pair);
    } else {
        let mut sorted: Vec<&(K, V)> = query.iter().collect();
        sorted.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        sorted.into_iter().for_each(pair);
    }
    debug_assert_eq!(out.len(), size);
    out.into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    /// A body's tag as text.
    fn entity_tag(body: &[u8]) -> String {
        tag_text(&tag_of(body)).to_string()
    }

    /// The tag is XXH3-128 in hex: the reference value of the empty input (xxHash's test vectors), the same tag for
    /// the same bytes, another for one byte more.
    #[test]
    fn entity_tags_are_xxh3_128_of_the_body() {
        assert_eq!(entity_tag(b""), "99aa06d3014798d86001c324468d497f");
        let body = br#"{"count":1}"#;
        let copy = body.to_vec();
        assert_eq!(entity_tag(body), entity_tag(&copy), "a tag depends on the bytes only");
        assert_ne!(entity_tag(body), entity_tag(br#"{"count":1} "#));
        assert_eq!(entity_tag(body).len(), 32);
        // A body long enough for the hash's vector loop (the AVX2 or SSE2 path, whichever the CPU has): the value of
        // xxHash's own command line (`xxhsum -H2`, 0.8.1) on the bytes `i * 131 % 251` for i in 0..48,544.
        let long: Vec<u8> = (0..48_544_u32).map(|i| (i * 131 % 251) as u8).collect();
        assert_eq!(entity_tag(&long), "76535d9d9962723934d71f66fe8c12f6");
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn keys_are_canonical_and_keep_every_difference() {
        let k = |tier, q: &[(&str, &str)]| key(7, "prices", "/v1/prices", tier, &pairs(q));
        let base = k(Tier::Pro, &[("ticker", "SPY"), ("from", "2026-01-02")]);
        assert_eq!(
            base,
            k(Tier::Pro, &[("from", "2026-01-02"), ("ticker", "SPY")]),
            "parameter order is not part of it"
        );
        assert_ne!(base, k(Tier::Owner, &[("ticker", "SPY"), ("from", "2026-01-02")]), "the tier is");
        assert_ne!(base, k(Tier::Pro, &[("ticker", "SPY"), ("from", "2026-01-03")]), "every value is");
        assert_ne!(base, k(Tier::Pro, &[("ticker", "SPY")]), "every parameter is");
        assert_ne!(
            base,
            key(8, "prices", "/v1/prices", Tier::Pro, &pairs(&[("ticker", "SPY"), ("from", "2026-01-02")]))
        );
        assert_ne!(k(Tier::Pro, &[("ticker", "")]), k(Tier::Pro, &[]), "an empty value is still given");
        // Length prefixes: no value can imitate the boundary between two fields.
        assert_ne!(k(Tier::Pro, &[("a", "b"), ("c", "d")]), k(Tier::Pro, &[("a", "b\u{1}\0\0\0c"), ("", "d")]));
        let none: &[(&str, &str)] = &[];
        assert_ne!(key(0, "ab", "/c", Tier::Pro, none), key(0, "a", "b/c", Tier::Pro, none));
    }

    /// The next page's `Link` is made once for a repeated query and kept with the answer; another query (another
    /// parameter order or value) gets its own; an answer without a next cursor has none; a 200 carries the
    /// identity body's length.
    #[tokio::test]
    async fn the_next_link_is_made_once_per_query_and_the_length_is_set() {
        let mut headers = HeaderMap::new();
        headers.insert(datahost_plugin_api::paging::NEXT_HEADER, HeaderValue::from_static("c2"));
        let entry = Arc::new(Entry::new(Bytes::from_static(br#"{"rows":[]}"#), headers, false));
        let made = std::sync::atomic::AtomicUsize::new(0);
        let build = |cursor: &str| {
            made.fetch_add(1, Ordering::SeqCst);
            HeaderValue::try_from(format!("<next?cursor={cursor}>")).ok()
        };
        let q = pairs(&[("q", "revenue"), ("limit", "20")]);
        assert_eq!(entry.next_link(&q, build).unwrap(), "<next?cursor=c2>");
        assert_eq!(entry.next_link(&q, build).unwrap(), "<next?cursor=c2>");
        assert_eq!(made.load(Ordering::SeqCst), 1, "the repeat reused the first link");
        let other = pairs(&[("limit", "20"), ("q", "revenue")]);
        assert_eq!(entry.next_link(&other, build).unwrap(), "<next?cursor=c2>");
        assert_eq!(made.load(Ordering::SeqCst), 2, "another query string is built for itself");
        let last = Entry::new(Bytes::from_static(b"{}"), HeaderMap::new(), false);
        assert!(last.next_link(&q, |_| panic!("no cursor, nothing to build")).is_none());
        let resp = entry.respond(&HeaderMap::new()).await;
        assert_eq!(resp.headers()[header::CONTENT_LENGTH], "11");
    }

    fn big_body() -> Bytes {
        let rows: Vec<String> =
            (0..400).map(|i| format!("{{\"date\":\"2026-01-{:02}\",\"close\":{i}.5}}", i % 28 + 1)).collect();
        Bytes::from(format!("{{\"dataStatus\":\"demo\",\"rows\":[{}]}}", rows.join(",")))
    }

    fn request(list: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in list {
            h.append(axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    async fn body_of(resp: Response) -> Vec<u8> {
        axum::body::to_bytes(resp.into_body(), usize::MAX).await.unwrap().to_vec()
    }

    #[tokio::test]
    async fn entries_negotiate_codings_and_answer_304() {
        let body = big_body();
        let entry = Arc::new(Entry::new(body.clone(), HeaderMap::new(), true));
        let plain = entry.respond(&request(&[])).await;
        assert_eq!(plain.status(), StatusCode::OK);
        let etag = plain.headers()[header::ETAG].to_str().unwrap().to_string();
        assert_eq!(etag, format!("\"{}\"", entity_tag(&body)));
        assert_eq!(plain.headers()[header::CACHE_CONTROL], "private, no-cache");
        assert_eq!(plain.headers()[header::VARY], "accept-encoding");
        assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(body_of(plain).await, body);

        let gz = entry.respond(&request(&[("accept-encoding", "gzip")])).await;
        assert_eq!(gz.headers()[header::CONTENT_ENCODING], "gzip");
        let gz_tag = gz.headers()[header::ETAG].to_str().unwrap().to_string();
        assert_eq!(gz_tag, format!("\"{}-gzip\"", entity_tag(&body)), "each coding has its own strong tag");
        let mut decoded = Vec::new();
        flate2::read::GzDecoder::new(&body_of(gz).await[..]).read_to_end(&mut decoded).unwrap();
        assert_eq!(decoded, body);

        let br = entry.respond(&request(&[("accept-encoding", "gzip, deflate, br")])).await;
        assert_eq!(br.headers()[header::CONTENT_ENCODING], "br");
        let br_tag = br.headers()[header::ETAG].to_str().unwrap().to_string();
        assert_eq!(br_tag, format!("\"{}-br\"", entity_tag(&body)));
        let mut decoded = Vec::new();
        brotli::Decompressor::new(&body_of(br).await[..], 4096).read_to_end(&mut decoded).unwrap();
        assert_eq!(decoded, body);

        for tag in [etag.as_str(), &gz_tag, &br_tag, "W/\"nope\", *", &format!("W/{etag}"), &format!("\"x\", {br_tag}")]
        {
            let resp = entry.respond(&request(&[("if-none-match", tag)])).await;
            assert_eq!(resp.status(), StatusCode::NOT_MODIFIED, "{tag}");
            assert_eq!(resp.headers()[header::ETAG], etag.as_str());
            assert!(body_of(resp).await.is_empty());
        }
        // Only the tag and its two coding variants name the entry: not a longer tag that begins or ends with it, nor
        // a shorter one it begins with.
        let hex = entity_tag(&body);
        let near = [
            format!("\"{hex}-deflate\""),
            format!("\"{hex}-gzip-br\""),
            format!("\"{hex}x\""),
            format!("\"{}\"", &hex[..31]),
            format!("\"x{hex}\""),
            "\"0000\"".to_string(),
        ];
        for tag in near {
            let other = entry.respond(&request(&[("if-none-match", &tag)])).await;
            assert_eq!(other.status(), StatusCode::OK, "{tag}");
        }
    }

    /// An entry answered by its last holder gives the answer `respond` gives (200 or 304, in any coding), moving
    /// its map only when no one else holds it; a shared entry keeps its map for the next request.
    #[tokio::test]
    async fn entries_answered_by_their_last_holder_answer_as_any_other() {
        async fn parts(resp: Response) -> (StatusCode, HeaderMap, Vec<u8>) {
            let (status, headers) = (resp.status(), resp.headers().clone());
            (status, headers, body_of(resp).await)
        }
        let requests = [
            request(&[]),
            request(&[("accept-encoding", "gzip, br")]),
            request(&[("if-none-match", &format!("\"{}\"", entity_tag(&big_body())))]),
            request(&[("if-none-match", "\"other\""), ("accept-encoding", "br")]),
        ];
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert("x-data-status", HeaderValue::from_static("demo"));
        for compressible in [false, true] {
            let entry = || Arc::new(Entry::new(big_body(), headers.clone(), compressible));
            for request in &requests {
                let expected = parts(entry().respond(request).await).await;
                assert_eq!(parts(entry().respond_owned(request).await).await, expected, "alone");
                let shared = entry();
                let kept = shared.clone();
                assert_eq!(parts(shared.respond_owned(request).await).await, expected, "shared");
                assert_eq!(parts(kept.respond(request).await).await, expected, "the holder left answers the same");
            }
        }
    }

    #[tokio::test]
    async fn small_or_unkept_answers_are_sent_as_they_are() {
        let entry = Arc::new(Entry::new(Bytes::from_static(b"{\"a\":1}"), HeaderMap::new(), false));
        let resp = entry.respond(&request(&[("accept-encoding", "br, gzip")])).await;
        assert!(resp.headers().get(header::CONTENT_ENCODING).is_none());
        assert!(resp.headers().get(header::VARY).is_none(), "it does not vary by coding");
        assert_eq!(body_of(resp).await, b"{\"a\":1}");
    }

    #[test]
    fn the_cache_keeps_only_what_it_may() {
        let config = CacheConfig { max_bytes: 1 << 20, max_entry_bytes: 4096, ttl_secs: 0, compress_min_bytes: 1024 };
        let cache = ResponseCache::new(&config);
        let k = |q: &str| cache.key("p", "/v1/p", Tier::Pro, &pairs(&[("q", q)]));
        let (a, b, c) = (k("a"), k("b"), k("c"));
        cache.admit(Some(a.clone()), Bytes::from_static(b"{}"), HeaderMap::new(), true);
        assert!(cache.get(&a).is_some());
        cache.admit(Some(b.clone()), Bytes::from_static(b"{}"), HeaderMap::new(), false);
        assert!(cache.get(&b).is_none(), "marked uncacheable");
        cache.admit(Some(c.clone()), Bytes::from(vec![b' '; 5000]), HeaderMap::new(), true);
        assert!(cache.get(&c).is_none(), "over max_entry_bytes");
        cache.invalidate();
        assert!(cache.get(&a).is_none(), "a data change empties it");
        assert_ne!(k("a"), a, "and moves the generation on");
        let off = ResponseCache::new(&CacheConfig { max_bytes: 0, ..config });
        assert!(!off.enabled());
    }

    /// An answer no later request can find (the cache is off, or it is not kept) makes its `Link` for its own
    /// request and keeps no copy of that request's query; a kept one makes it once per query.
    #[test]
    fn only_kept_answers_keep_their_next_link() {
        let config = CacheConfig { max_bytes: 1 << 20, max_entry_bytes: 4096, ttl_secs: 0, compress_min_bytes: 1024 };
        let mut headers = HeaderMap::new();
        headers.insert(datahost_plugin_api::paging::NEXT_HEADER, HeaderValue::from_static("c2"));
        let q = pairs(&[("q", "revenue")]);
        let made = std::sync::atomic::AtomicUsize::new(0);
        let build = |cursor: &str| {
            made.fetch_add(1, Ordering::SeqCst);
            HeaderValue::try_from(format!("<next?cursor={cursor}>")).ok()
        };
        let links_made = |cache: &ResponseCache, key: Option<Key>| {
            made.store(0, Ordering::SeqCst);
            let entry = cache.admit(key, Bytes::from_static(b"{}"), headers.clone(), true);
            for _ in 0..3 {
                assert_eq!(entry.next_link(&q, build).unwrap(), "<next?cursor=c2>");
            }
            (made.load(Ordering::SeqCst), entry.next_link.get().is_some())
        };
        let on = ResponseCache::new(&config);
        assert_eq!(links_made(&on, Some(on.key("p", "/v1/p", Tier::Pro, &q))), (1, true), "kept");
        assert_eq!(links_made(&on, None), (3, false), "not kept");
        let off = ResponseCache::new(&CacheConfig { max_bytes: 0, ..config });
        assert_eq!(links_made(&off, Some(off.key("p", "/v1/p", Tier::Pro, &q))), (3, false), "cache off");
    }
}
