//! The full-text engine: a tantivy index over the filings, and the search that turns a request into one
//! tantivy query (user query AND forms AND date range): `total` counts its matches (up to [`TOTAL_CAP`]) and the
//! top hits come out in BM25 order, found without scoring every match ([`crate::topk`]), or read off the
//! text's matches kept in rank order when it has few ([`crate::ranked`]).
//!
//! Equal scores rank by the filing's place in the index (newest filing first, then accession descending),
//! stored as the fast field `order`, so the ranking is a total order the same on every replica that indexed the
//! same filings: a page of hits resumes after the (score, order) of the last hit served ([`HitKey`]).
//!
//! The index holds everything a hit returns (stored fields: the filing's form as filed, entity, CIK, accession,
//! address, filed date and text for the snippet), so nothing else needs to be held in memory; the filings read
//! for hits are kept up to a bound ([`READ_FILINGS_BYTES`]), each with its text analysed for snippets and its hit
//! written as JSON but for the score and the snippet (`routes::HitFrame`). The demo
//! seed is indexed in RAM; ingested filings are indexed on disk ([`SearchIndex::build_in`],
//! [`SearchIndex::open`]) under the plugin's own directory, so at national scale the index is memory-mapped
//! rather than held, and a restart opens it instead of rebuilding it.

use std::cmp::Reverse;
use std::ops::{Bound, Range};

use crate::ranked::{RankedMatches, RANKED_CAP};
use crate::snippet::{AnalyzedText, Snippets};
use chrono::NaiveDate;
use tantivy::query::{
    BooleanQuery, ConstScoreQuery, EnableScoring, Occur, Query, QueryParser, RangeQuery, TermQuery, Weight,
};
use tantivy::schema::{
    Field, IndexRecordOption, OwnedValue, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{doc, DocAddress, Index, IndexReader, ReloadPolicy, Score, Searcher, TantivyDocument, Term};

use crate::data::Filing;
use crate::routes::HitFrame;
use crate::topk;
pub use crate::topk::TOTAL_CAP;

/// The tokenizer of the text fields: lower-cased words with English stemming, so `impairments` finds
/// `impairment`. Phrases keep working because positions are indexed.
const TOKENIZER: &str = "en_stem";

/// Longest snippet, in characters.
pub const SNIPPET_CHARS: usize = 160;

/// Most bytes the filings read for hits may hold in memory ([`ReadFilings`]): every filing of the demo seed (300
/// filings, about 1 MB read and analysed) and tens of thousands of an ingested index's.
pub const READ_FILINGS_BYTES: u64 = 64 << 20;

/// Most bytes the prepared query texts ([`Prepared`]) may hold in memory: a one-word query weighs about 3.5 KB
/// (each of its two terms' weights holds BM25's 256-entry table), a 500-character query of a hundred words about
/// 300 KB, so thousands of everyday queries and some fifty of the longest.
pub(crate) const PREPARED_BYTES: u64 = 16 << 20;

/// What a prepared query's weight is taken to hold per term (BM25's table of 256 floats, the term and its
/// explanation), and besides its terms.
const PREPARED_TERM_BYTES: u64 = 1_536;
const PREPARED_BASE_BYTES: u64 = 512;

/// How the index is built. The defaults suit the seed; load tests raise the heap.
#[derive(Debug, Clone, Copy)]
pub struct BuildOptions {
    pub writer_heap_bytes: usize,
    pub threads: usize,
    /// Merge all segments into one after indexing (fewer segments, faster queries).
    pub merge: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self { writer_heap_bytes: 50_000_000, threads: 1, merge: true }
    }
}

/// The layout of the index on disk: a directory built with another layout is rebuilt, never opened.
/// 2: the `order` fast field (the tie-break of equal scores, for paging).
pub const LAYOUT_VERSION: u32 = 2;

/// The name of the fast field holding a filing's place in the index.
const ORDER: &str = "order";

/// The name of the field holding a filing's date (`YYYYMMDD`).
const FILED: &str = "filed";

/// Where a hit stands in a ranking: its score (higher first, as order-preserving bits) and its place in the
/// index (lower first). Unique within one index, and equal on every index built from the same filings.
pub type HitKey = (Reverse<u32>, u64);

/// The bits of a score, ordered like the scores themselves (negative scores below positive ones).
fn score_bits(score: Score) -> u32 {
    let bits = score.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | (1 << 31)
    }
}

/// The [`HitKey`] of a document with this score and place.
pub fn hit_key(score: Score, order: u64) -> HitKey {
    (Reverse(score_bits(score)), order)
}

#[derive(Clone, Copy)]
struct Fields {
    entity: Field,
    text: Field,
    /// Normalised form type (see [`normalize_form`]): what the `forms` filter and `form:` match.
    form: Field,
    cik: Field,
    filed: Field,
    /// Stored only: what a hit returns as filed.
    form_as_filed: Field,
    accession: Field,
    url: Field,
    filed_date: Field,
    /// Fast only: the filing's place in the index (see [`HitKey`]).
    order: Field,
}

impl Fields {
    fn schema() -> (Schema, Self) {
        let mut builder = Schema::builder();
        let text_opts = TextOptions::default()
            .set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(TOKENIZER)
                    .set_index_option(IndexRecordOption::WithFreqsAndPositions),
            )
            .set_stored();
        let fields = Self {
            entity: builder.add_text_field("entity", text_opts.clone()),
            text: builder.add_text_field("text", text_opts),
            form: builder.add_text_field("form", STRING),
            cik: builder.add_text_field("cik", STRING | STORED),
            filed: builder.add_u64_field(FILED, INDEXED | FAST),
            form_as_filed: builder.add_text_field("formAsFiled", STORED),
            accession: builder.add_text_field("accession", STORED),
            url: builder.add_text_field("url", STORED),
            filed_date: builder.add_text_field("filedDate", STORED),
            order: builder.add_u64_field(ORDER, FAST),
        };
        (builder.build(), fields)
    }

    /// The fields of an index opened from disk, by name.
    fn of(schema: &Schema) -> Result<Self, IndexError> {
        let field =
            |name: &'static str| schema.get_field(name).map_err(|source| IndexError::MissingField { name, source });
        Ok(Self {
            entity: field("entity")?,
            text: field("text")?,
            form: field("form")?,
            cik: field("cik")?,
            filed: field(FILED)?,
            form_as_filed: field("formAsFiled")?,
            accession: field("accession")?,
            url: field("url")?,
            filed_date: field("filedDate")?,
            order: field(ORDER)?,
        })
    }

    /// The filing a stored document describes.
    fn filing(&self, doc: &TantivyDocument) -> Filing {
        let text = |field: Field| match doc.get_first(field).map(OwnedValue::from) {
            Some(OwnedValue::Str(s)) => s,
            _ => String::new(),
        };
        Filing {
            form: text(self.form_as_filed),
            entity: text(self.entity),
            cik: text(self.cik),
            accession: text(self.accession),
            url: text(self.url),
            filed_date: text(self.filed_date),
            text: text(self.text),
        }
    }
}

/// The searchable filings.
pub struct SearchIndex {
    /// Kept so the searcher's segments stay alive; reloads never happen (the index is immutable).
    _reader: IndexReader,
    searcher: Searcher,
    fields: Fields,
    parser: QueryParser,
    /// The analyser of both text fields, for queries of plain words ([`SearchIndex::plain_words`]).
    analyzer: TextAnalyzer,
    /// How the pruned ranking visits the segments ([`topk::Layout`]).
    layout: topk::Layout,
    read: ReadFilings,
    prepared: quick_cache::sync::Cache<String, std::sync::Arc<Prepared>, PreparedWeight>,
    /// Most matches a prepared text keeps in rank order ([`RANKED_CAP`]; 0 in tests of the pruned search).
    ranked_cap: usize,
}

/// A query text as a search runs it: the query parsed and its scoring weight made (the BM25 statistics of its
/// terms looked up and their tables computed), its snippets' term weights, and its matches in rank order when they
/// are few ([`crate::ranked`]). Kept per text, weighed by its terms and matches ([`PREPARED_BYTES`]): the
/// index never changes under a [`SearchIndex`] (a new data generation is a new one), so a text seen before, with
/// any limit, dates, forms or cursor, skips its parse and its weights.
pub(crate) struct Prepared {
    pub query: Box<dyn Query>,
    pub weight: Box<dyn Weight>,
    /// Its terms' weights for the snippets.
    snippets: Snippets,
    /// Every match in rank order, when there are few ([`crate::ranked`]).
    ranked: Option<RankedMatches>,
    /// What it is taken to hold in memory, its text included.
    bytes: u64,
}

#[derive(Clone)]
struct PreparedWeight;

impl quick_cache::Weighter<String, std::sync::Arc<Prepared>> for PreparedWeight {
    fn weight(&self, _: &String, prepared: &std::sync::Arc<Prepared>) -> u64 {
        prepared.bytes
    }
}

/// What a caller may ask.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub query: String,
    /// Normalised form types (see [`normalize_form`]); empty means every form.
    pub forms: Vec<String>,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    pub limit: usize,
    /// Only the hits ranked after this one (the last hit of the previous page).
    pub after: Option<HitKey>,
    pub snippets: bool,
}

/// A filing as its hits return it: its stored fields, read from the index once, its text analysed for
/// snippets, and its hit written but for the score and the snippet.
pub struct ReadFiling {
    pub filing: Filing,
    pub analyzed: AnalyzedText,
    pub(crate) hit: HitFrame,
}

impl ReadFiling {
    fn of(filing: Filing) -> Result<Self, serde_json::Error> {
        let analyzed = AnalyzedText::new(&filing.text, SNIPPET_CHARS);
        let hit = crate::routes::hit_frame(&filing)?;
        Ok(Self { filing, analyzed, hit })
    }

    /// Bytes held (what the cache weighs it by).
    fn weight(&self) -> u64 {
        let f = &self.filing;
        let strings = [&f.form, &f.entity, &f.cik, &f.accession, &f.url, &f.filed_date, &f.text];
        let bytes = std::mem::size_of::<Self>()
            + strings.iter().map(|s| s.capacity()).sum::<usize>()
            + self.analyzed.heap_bytes()
            + self.hit.heap_bytes();
        bytes as u64
    }
}

/// The filings read for hits, by their place in the index, up to [`READ_FILINGS_BYTES`] (beyond it quick_cache
/// evicts by its policy of recency and frequency: a filing hit once and not again goes first). Why: reading a hit's stored fields (a block decompressed, a document decoded into owned strings)
/// and cutting its text into stemmed words for the snippet were most of a cold search's time, and both depend
/// on the filing alone. The index never changes (a new data generation is a new [`SearchIndex`]), so an entry
/// is never stale.
type ReadFilings = quick_cache::sync::Cache<DocAddress, std::sync::Arc<ReadFiling>, ReadFilingWeight>;

#[derive(Clone)]
struct ReadFilingWeight;

impl quick_cache::Weighter<DocAddress, std::sync::Arc<ReadFiling>> for ReadFilingWeight {
    fn weight(&self, _: &DocAddress, read: &std::sync::Arc<ReadFiling>) -> u64 {
        read.weight()
    }
}

pub struct Hit {
    /// Shared with the index's cache of read filings ([`Hit::filing`]).
    pub read: std::sync::Arc<ReadFiling>,
    pub score: f32,
    /// The snippet ([`Hit::snippet`]), `None` when none was asked for.
    snippet: Option<Snippet>,
    /// Where the hit stands in the ranking.
    pub key: HitKey,
}

/// A hit's snippet: a fragment of its filing's text, borrowed from the filing when the hit is served (no copy per
/// hit), or the start of the text cut at a word and marked as cut.
enum Snippet {
    Fragment(Range<usize>),
    Start(String),
}

impl Hit {
    pub fn filing(&self) -> &Filing {
        &self.read.filing
    }

    /// The snippet of the filing's text for the query, when snippets were asked for.
    pub fn snippet(&self) -> Option<&str> {
        self.snippet.as_ref().map(|snippet| match snippet {
            Snippet::Fragment(range) => &self.read.filing.text[range.clone()],
            Snippet::Start(start) => start.as_str(),
        })
    }
}

pub struct SearchResult {
    /// Matching filings, counted up to [`TOTAL_CAP`].
    pub total: usize,
    /// Whether `total` is every match (else there are more than [`TOTAL_CAP`]).
    pub total_exact: bool,
    pub hits: Vec<Hit>,
}

/// Why the search index cannot be built or opened (which fails `init`, or, for an index already on disk, has
/// it rebuilt).
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// An index opened from disk lacks a field this layout has.
    #[error("the search index lacks `{name}`: {source}")]
    MissingField { name: &'static str, source: tantivy::TantivyError },
    #[error("creating {}: {source}", .dir.display())]
    CreateDir { dir: std::path::PathBuf, source: std::io::Error },
    #[error("creating the search index: {0}")]
    Create(tantivy::TantivyError),
    #[error("opening the search index {}: {source}", .dir.display())]
    OpenDir { dir: std::path::PathBuf, source: tantivy::TantivyError },
    #[error("building the search index: {0}")]
    Build(tantivy::TantivyError),
    #[error("filing {accession} has filedDate `{filed_date}`, not YYYY-MM-DD")]
    FiledDate { accession: String, filed_date: String },
    #[error("opening the search index: {0}")]
    Open(tantivy::TantivyError),
}

#[derive(Debug, Clone, PartialEq)]
pub enum SearchError {
    /// The query text is not valid query syntax (a client error).
    Syntax(String),
    /// The engine failed (a server fault).
    Engine(String),
}

/// Canonical form type: upper-case with single spaces (`def  14a` is `DEF 14A`).
pub fn normalize_form(form: &str) -> String {
    form.split_whitespace().collect::<Vec<_>>().join(" ").to_uppercase()
}

/// `YYYYMMDD` as a number: orders like the date and makes inclusive range bounds trivial.
fn date_key(d: NaiveDate) -> u64 {
    use chrono::Datelike;
    d.year() as u64 * 10_000 + d.month() as u64 * 100 + d.day() as u64
}

impl SearchIndex {
    /// An index in RAM (the demo seed, tests).
    pub fn build(filings: Vec<Filing>) -> Result<Self, IndexError> {
        Self::build_with(filings, BuildOptions::default())
    }

    pub fn build_with(filings: Vec<Filing>, opts: BuildOptions) -> Result<Self, IndexError> {
        let (schema, _) = Fields::schema();
        Self::fill(Index::create_in_ram(schema), filings, opts)
    }

    /// An index on disk in `dir` (created; it must be empty), opened memory-mapped once written.
    pub fn build_in(dir: &std::path::Path, filings: Vec<Filing>, opts: BuildOptions) -> Result<Self, IndexError> {
        std::fs::create_dir_all(dir).map_err(|source| IndexError::CreateDir { dir: dir.to_path_buf(), source })?;
        let (schema, _) = Fields::schema();
        let index = Index::create_in_dir(dir, schema).map_err(IndexError::Create)?;
        Self::fill(index, filings, opts)
    }

    /// Opens an index [`Self::build_in`] wrote.
    pub fn open(dir: &std::path::Path) -> Result<Self, IndexError> {
        let index = Index::open_in_dir(dir).map_err(|source| IndexError::OpenDir { dir: dir.to_path_buf(), source })?;
        Self::ready(index)
    }

    fn fill(index: Index, mut filings: Vec<Filing>, opts: BuildOptions) -> Result<Self, IndexError> {
        // Newest first: documents are added in this order, so equal scores rank the newer filing first.
        filings.sort_by(|a, b| (&b.filed_date, &b.accession).cmp(&(&a.filed_date, &a.accession)));
        let fields = Fields::of(&index.schema())?;
        let engine = IndexError::Build;
        let mut writer = index
            .writer_with_num_threads::<TantivyDocument>(opts.threads.max(1), opts.writer_heap_bytes)
            .map_err(engine)?;
        for (order, f) in filings.iter().enumerate() {
            let date = chrono::NaiveDate::parse_from_str(&f.filed_date, "%Y-%m-%d").map_err(|_| {
                IndexError::FiledDate { accession: f.accession.clone(), filed_date: f.filed_date.clone() }
            })?;
            writer
                .add_document(doc!(
                    fields.entity => f.entity.as_str(),
                    fields.text => f.text.as_str(),
                    fields.form => normalize_form(&f.form),
                    fields.cik => f.cik.as_str(),
                    fields.filed => date_key(date),
                    fields.form_as_filed => f.form.as_str(),
                    fields.accession => f.accession.as_str(),
                    fields.url => f.url.as_str(),
                    fields.filed_date => f.filed_date.as_str(),
                    fields.order => order as u64,
                ))
                .map_err(engine)?;
        }
        drop(filings);
        writer.commit().map_err(engine)?;
        if opts.merge {
            let segments = index.searchable_segment_ids().map_err(engine)?;
            if segments.len() > 1 {
                writer.merge(&segments).wait().map_err(engine)?;
            }
        }
        writer.wait_merging_threads().map_err(engine)?;
        Self::ready(index)
    }

    fn ready(index: Index) -> Result<Self, IndexError> {
        let engine = IndexError::Open;
        let fields = Fields::of(&index.schema())?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(engine)?;
        let searcher = reader.searcher();
        let mut parser = QueryParser::for_index(&index, vec![fields.entity, fields.text]);
        // Every word must match, as in EDGAR's own full-text search; `OR` is still available explicitly.
        parser.set_conjunction_by_default();
        let analyzer = index.tokenizer_for_field(fields.text).map_err(engine)?;
        let layout = topk::Layout::of(&searcher, ORDER, FILED).map_err(engine)?;
        // About 2.5 KB per filing of the demo seed's length: the number only sizes the cache's tables.
        let read =
            ReadFilings::with_weighter((READ_FILINGS_BYTES / 2_500) as usize, READ_FILINGS_BYTES, ReadFilingWeight);
        let prepared =
            quick_cache::sync::Cache::with_weighter((PREPARED_BYTES / 3_500) as usize, PREPARED_BYTES, PreparedWeight);
        Ok(Self { _reader: reader, searcher, fields, parser, analyzer, layout, read, prepared, ranked_cap: RANKED_CAP })
    }

    /// How many filings the index holds.
    pub fn len(&self) -> u64 {
        self.searcher.num_docs()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the index occupies (tantivy's own accounting of its segments).
    pub fn index_bytes(&self) -> u64 {
        self.searcher.space_usage().map(|u| u.total().get_bytes()).unwrap_or(0)
    }

    /// Whether documents lie in index order, so the ranking never scores a tie with the last hit it keeps.
    pub fn ties_settled_by_layout(&self) -> bool {
        self.layout.ties_settled()
    }

    pub fn segment_count(&self) -> usize {
        self.searcher.segment_readers().len()
    }

    /// Parses the user's query text with the index's syntax (terms, `"phrases"`, `AND`/`OR`/`-`, `field:`),
    /// reading stray punctuation as a search box does (see [`query_text`]).
    #[cfg(test)]
    pub(crate) fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    #[cfg(test)]
    pub(crate) fn text_field(&self) -> Field {
        self.fields.text
    }

    /// See [`topk::Layout::forget_date_order`].
    #[cfg(test)]
    pub(crate) fn forget_date_order(&mut self) {
        self.layout.forget_date_order();
    }

    /// See [`topk::Layout::set_form_bits_share`].
    #[cfg(test)]
    pub(crate) fn set_form_bits_share(&mut self, min_share: u32) {
        self.layout.set_form_bits_share(min_share);
    }

    #[cfg(test)]
    pub(crate) fn form_bits_held(&self) -> usize {
        self.layout.form_bits_held()
    }

    /// How many (segment, form) pairs of `forms` may get bits at `min_share`: the form is in at least
    /// 1/`min_share` of that segment's documents (tests; which documents a segment holds depends on the
    /// writer's threads, so a test cannot name the pairs in advance).
    #[cfg(test)]
    pub(crate) fn form_bits_eligible(&self, min_share: u32, forms: &[&str]) -> usize {
        let mut eligible = 0;
        for segment in self.searcher.segment_readers() {
            let inverted = segment.inverted_index(self.fields.form).unwrap();
            for form in forms {
                let docs = inverted.doc_freq(&Term::from_field_text(self.fields.form, form)).unwrap();
                if u64::from(docs) * u64::from(min_share) >= u64::from(segment.max_doc()) {
                    eligible += 1;
                }
            }
        }
        eligible
    }

    /// The filing at `addr`, from the cache of read filings or read (and analysed) now.
    fn read(&self, addr: DocAddress) -> tantivy::Result<std::sync::Arc<ReadFiling>> {
        self.read.get_or_insert_with(&addr, || {
            let doc: TantivyDocument = self.searcher.doc(addr)?;
            let read = ReadFiling::of(self.fields.filing(&doc))
                .map_err(|e| tantivy::TantivyError::InternalError(format!("writing a hit: {e}")))?;
            Ok(std::sync::Arc::new(read))
        })
    }

    /// Query texts held prepared, and the bytes they are taken to weigh (tests).
    #[cfg(test)]
    pub(crate) fn prepared_held(&self) -> (usize, u64) {
        (self.prepared.len(), self.prepared.weight())
    }

    /// How many matches `text`'s prepared form keeps in rank order; `None` when it keeps none (tests).
    #[cfg(test)]
    pub(crate) fn kept_matches(&self, text: &str) -> Option<usize> {
        self.prepare(text).unwrap().ranked.as_ref().map(RankedMatches::len)
    }

    /// Keeps the matches of texts on at most `cap` filings (0: none; 1,024 by default), forgetting every
    /// prepared text (tests, and `examples/bench.rs`, which times searches of texts as if new).
    pub fn set_ranked_cap(&mut self, cap: usize) {
        self.ranked_cap = cap;
        self.prepared.clear();
    }

    /// Filings held by the cache of read filings, and the bytes they weigh (tests).
    #[cfg(test)]
    pub(crate) fn read_filings_held(&self) -> (usize, u64) {
        (self.read.len(), self.read.weight())
    }

    /// The prepared form of `text`, kept or made now.
    pub(crate) fn prepare(&self, text: &str) -> Result<std::sync::Arc<Prepared>, SearchError> {
        self.prepared.get_or_insert_with(text, || {
            let query = self.parse(text)?;
            let stats = topk::Statistics::new(&self.searcher);
            let scoring = EnableScoring::enabled_from_statistics_provider(&stats, &self.searcher);
            let engine = |e: tantivy::TantivyError| SearchError::Engine(e.to_string());
            let weight = query.weight(scoring).map_err(engine)?;
            let snippets = Snippets::new(&stats, &*query, self.fields.text).map_err(engine)?;
            let ranked = RankedMatches::of(&stats, &self.searcher, (&*query, &*weight), &self.layout, self.ranked_cap)
                .map_err(engine)?;
            let mut terms = 0;
            query.query_terms(&mut |_, _| terms += 1);
            let bytes = text.len() as u64
                + PREPARED_BASE_BYTES
                + terms * PREPARED_TERM_BYTES
                + snippets.heap_bytes()
                + ranked.as_ref().map_or(0, RankedMatches::heap_bytes);
            Ok(std::sync::Arc::new(Prepared { query, weight, snippets, ranked, bytes }))
        })
    }

    pub fn parse(&self, text: &str) -> Result<Box<dyn Query>, SearchError> {
        if let Some(query) = self.plain_words(text) {
            return Ok(query);
        }
        self.parse_by_grammar(text)
    }

    /// [`Self::parse`] by tantivy's parser alone (and the tests' oracle of [`Self::plain_words`]).
    pub(crate) fn parse_by_grammar(&self, text: &str) -> Result<Box<dyn Query>, SearchError> {
        let syntax = |e: tantivy::query::QueryParserError| SearchError::Syntax(e.to_string());
        // The parser reads the grammar first and fails with `SyntaxError` exactly when `query_text` would clean
        // the text: a query valid as typed (most) is parsed once, not checked against the grammar first.
        match self.parser.parse_query(text) {
            Err(tantivy::query::QueryParserError::SyntaxError(_)) => {
                self.parser.parse_query(&query_text(text)).map_err(syntax)
            }
            parsed => parsed.map_err(syntax),
        }
    }

    /// Words the query grammar reads as operators (upper case only; `and` is a word).
    pub(crate) const OPERATOR_WORDS: [&str; 5] = ["AND", "OR", "NOT", "IN", "TO"];

    /// The query tantivy's parser makes of `text` when it is plain words (ASCII letters and digits, separated by
    /// white space, none an operator's name), made without the parser: every word, analysed as the fields are,
    /// must be in the entity or the text (`Must` of a `Should` pair; one word is the pair alone; a word typed
    /// again is dropped). The parser's grammar, its per-field analysis and its tree cost a one-word search about
    /// an eighth of its instructions.
    /// `None` for anything else, which the parser reads (a word the analyser does not make exactly one term of,
    /// such as one of 40 bytes or more, which it drops, included).
    pub(crate) fn plain_words(&self, text: &str) -> Option<Box<dyn Query>> {
        let plain =
            |word: &str| word.bytes().all(|b| b.is_ascii_alphanumeric()) && !Self::OPERATOR_WORDS.contains(&word);
        let mut analyzer = self.analyzer.clone();
        let mut words: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for word in text.split_ascii_whitespace() {
            if !plain(word) {
                return None;
            }
            // The grammar drops a word typed again (as typed: `Supply supply` keeps both).
            if seen.contains(&word) {
                continue;
            }
            seen.push(word);
            let mut stream = analyzer.token_stream(word);
            let analysed = stream.next()?.text.clone();
            if stream.advance() {
                return None;
            }
            let in_field = |field: Field| -> (Occur, Box<dyn Query>) {
                let term = Term::from_field_text(field, &analysed);
                (Occur::Should, Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs)))
            };
            let either = BooleanQuery::new(vec![in_field(self.fields.entity), in_field(self.fields.text)]);
            words.push((Occur::Must, Box::new(either)));
        }
        match words.len() {
            0 => None,
            1 => words.pop().map(|(_, either)| either),
            _ => Some(Box::new(BooleanQuery::new(words))),
        }
    }

    pub fn search(&self, req: &SearchRequest) -> Result<SearchResult, SearchError> {
        self.search_with(req, Ranking::Kept)
    }

    /// [`Self::search`] as it was before the pruned ranking: every match counted (`total` exact, never capped) and
    /// scored. The oracle the pruned ranking and the kept matches are tested against, and the baseline of
    /// `examples/bench.rs`.
    pub fn search_exhaustive(&self, req: &SearchRequest) -> Result<SearchResult, SearchError> {
        self.search_with(req, Ranking::Exhaustive)
    }

    /// [`Self::search`] by the pruned ranking and the capped count, whether or not the text's matches are kept in
    /// rank order (tests).
    #[cfg(test)]
    pub(crate) fn search_pruned(&self, req: &SearchRequest) -> Result<SearchResult, SearchError> {
        self.search_with(req, Ranking::Pruned)
    }

    fn search_with(&self, req: &SearchRequest, ranking: Ranking) -> Result<SearchResult, SearchError> {
        let prepared = self.prepare(&req.query)?;
        let user: &dyn Query = &*prepared.query;
        let engine = |e: tantivy::TantivyError| SearchError::Engine(e.to_string());
        let forms: Vec<Term> = req.forms.iter().map(|f| Term::from_field_text(self.fields.form, f)).collect();
        let dates: Option<Box<dyn Query>> = (req.from.is_some() || req.to.is_some()).then(|| {
            let bound = |d: Option<NaiveDate>| match d {
                Some(d) => Bound::Included(Term::from_field_u64(self.fields.filed, date_key(d))),
                None => Bound::Unbounded,
            };
            Box::new(RangeQuery::new(bound(req.from), bound(req.to))) as Box<dyn Query>
        });
        let filters = topk::Filters {
            forms: &forms,
            dates: dates.as_deref().map(|query| topk::DateRange {
                query,
                from: req.from.map(date_key),
                to: req.to.map(date_key),
            }),
        };
        let limit = req.limit.max(1);
        let kept = prepared.ranked.as_ref().filter(|_| matches!(ranking, Ranking::Kept));
        let (top, cap, counted) = match kept {
            // Every match is on the list: the total is exact, far under the cap.
            Some(ranked) => {
                let (top, total) =
                    ranked.page(&self.searcher, &filters, &self.layout, limit, req.after).map_err(engine)?;
                (top, TOTAL_CAP, total)
            }
            None => self.rank(user, &*prepared.weight, &forms, &filters, limit, req.after, ranking).map_err(engine)?,
        };
        let snippets = req.snippets.then_some(&prepared.snippets);
        let mut hits = Vec::with_capacity(top.len());
        for ranked in top {
            let read = self.read(ranked.addr).map_err(engine)?;
            let snippet = snippets.map(|s| snippet_of(s, &read));
            hits.push(Hit { read, score: ranked.score, snippet, key: ranked.key() });
        }
        Ok(SearchResult { total: counted.min(cap), total_exact: counted <= cap, hits })
    }

    /// The top `limit` hits after `after` and the count of matches (up to the returned cap) by walking the
    /// postings: pruned (and the count capped), or every match scored and counted.
    #[allow(clippy::too_many_arguments)]
    fn rank(
        &self,
        user: &dyn Query,
        user_weight: &dyn Weight,
        forms: &[Term],
        filters: &topk::Filters,
        limit: usize,
        after: Option<HitKey>,
        ranking: Ranking,
    ) -> tantivy::Result<(Vec<topk::Ranked>, usize, usize)> {
        let exhaustive = matches!(ranking, Ranking::Exhaustive);
        // The filters as clauses of the full query with a constant zero score (so they never change the relevance
        // order), for the exhaustive count and ranking.
        let any_form: Option<Box<dyn Query>> = (!forms.is_empty()).then(|| {
            let any: Vec<(Occur, Box<dyn Query>)> = forms
                .iter()
                .map(|term| {
                    let query = TermQuery::new(term.clone(), IndexRecordOption::Basic);
                    (Occur::Should, Box::new(query) as Box<dyn Query>)
                })
                .collect();
            Box::new(BooleanQuery::new(any)) as Box<dyn Query>
        });
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, user.box_clone())];
        for filter in any_form.as_deref().into_iter().chain(filters.dates.as_ref().map(|d| d.query)) {
            clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(filter.box_clone(), 0.0))));
        }
        let full = BooleanQuery::new(clauses);
        let stats = topk::Statistics::new(&self.searcher);
        // The exhaustive search counts the full query as it always did (the tests' oracle of the count too).
        let (cap, counted) = if exhaustive {
            let cap = usize::MAX - 1;
            (cap, topk::count_up_to(&self.searcher, &full, cap)?)
        } else {
            (TOTAL_CAP, topk::count_matches(&stats, user, filters, &self.layout, TOTAL_CAP)?)
        };
        let top = topk::top_hits(&stats, (user, user_weight), filters, &full, &self.layout, limit, after, exhaustive)?;
        Ok((top, cap, counted))
    }
}

/// How a search ranks and counts.
#[derive(Clone, Copy)]
enum Ranking {
    /// From the text's matches kept in rank order where there are few ([`crate::ranked`]), else pruned.
    Kept,
    /// By the pruned ranking and the capped count ([`crate::topk`]).
    #[cfg_attr(not(test), allow(dead_code))]
    Pruned,
    /// Every match scored and counted (the tests' oracle).
    Exhaustive,
}

/// The best fragment of `text` for the query; when no query term falls in the body (the match was on the
/// entity name), the start of the body instead, so every hit has some context.
fn snippet_of(snippets: &Snippets, read: &ReadFiling) -> Snippet {
    let text = read.filing.text.as_str();
    if let Some(fragment) = snippets.best(&read.analyzed, text).map(str::trim).filter(|f| !f.is_empty()) {
        // `fragment` is a part of `text`: its place there.
        let start = fragment.as_ptr() as usize - text.as_ptr() as usize;
        return Snippet::Fragment(start..start + fragment.len());
    }
    match text.char_indices().nth(SNIPPET_CHARS) {
        None => Snippet::Fragment(0..text.len()),
        Some((cut, _)) => {
            // End on a word boundary when there is one in the window.
            let head = &text[..cut];
            let head = head.rfind(' ').map_or(head, |space| &head[..space]);
            Snippet::Start(format!("{head}…"))
        }
    }
}

/// Characters of the query syntax itself: phrases, grouping, required/excluded terms, fields, wildcards,
/// ranges, boosts and slop.
const SYNTAX: &[char] = &['"', '(', ')', '+', '-', ':', '*', '.', '_', '/', '~', '^', '[', ']', '{', '}'];

/// The text the query parser reads: the user's text when the query grammar accepts it, else the same text with
/// stray punctuation (`what's new?`: the apostrophe and question mark) read as spaces, as a search box does.
/// Only a query malformed in the syntax itself (an unclosed parenthesis or quote) still fails to parse.
pub fn query_text(text: &str) -> std::borrow::Cow<'_, str> {
    if tantivy::query_grammar::parse_query(text).is_ok() {
        return std::borrow::Cow::Borrowed(text);
    }
    let cleaned =
        text.chars().map(|c| if c.is_alphanumeric() || c.is_whitespace() || SYNTAX.contains(&c) { c } else { ' ' });
    std::borrow::Cow::Owned(cleaned.collect())
}
