//! The full-text engine: an in-RAM tantivy index over the filings, built once in `init`, and the search that
//! turns a request into one tantivy query (user query AND forms AND date range) so that `total` counts every
//! match and the top hits come out in BM25 order.
//!
//! Only the search fields live in tantivy (nothing is stored there); a hit maps back to the filing through the
//! `ord` fast field, an index into [`SearchIndex::filings`].

use std::ops::Bound;

use chrono::NaiveDate;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STRING};
use tantivy::snippet::SnippetGenerator;
use tantivy::{doc, Index, IndexReader, ReloadPolicy, Searcher, TantivyDocument, Term};

use crate::data::Filing;

/// The tokenizer of the text fields: lower-cased words with English stemming, so `impairments` finds
/// `impairment`. Phrases keep working because positions are indexed.
const TOKENIZER: &str = "en_stem";

/// Longest snippet, in characters.
pub const SNIPPET_CHARS: usize = 160;

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

#[derive(Clone, Copy)]
struct Fields {
    entity: Field,
    text: Field,
    form: Field,
    cik: Field,
    filed: Field,
    ord: Field,
}

/// The searchable filings.
pub struct SearchIndex {
    /// Filings newest first; `ord` in the index points here.
    pub filings: Vec<Filing>,
    index: Index,
    /// Kept so the searcher's segments stay alive; reloads never happen (the index is immutable).
    _reader: IndexReader,
    searcher: Searcher,
    fields: Fields,
    parser: QueryParser,
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
    pub snippets: bool,
}

pub struct Hit<'a> {
    pub filing: &'a Filing,
    pub score: f32,
    pub snippet: Option<String>,
}

pub struct SearchResult<'a> {
    pub total: usize,
    pub hits: Vec<Hit<'a>>,
}

/// The fields a query term can target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    Entity,
    Text,
    Form,
    Cik,
    Filed,
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
    pub fn build(filings: Vec<Filing>) -> Result<Self, String> {
        Self::build_with(filings, BuildOptions::default())
    }

    pub fn build_with(mut filings: Vec<Filing>, opts: BuildOptions) -> Result<Self, String> {
        // Newest first: documents are added in this order, so equal scores rank the newer filing first.
        filings.sort_by(|a, b| (&b.filed_date, &b.accession).cmp(&(&a.filed_date, &a.accession)));

        let mut builder = Schema::builder();
        let text_opts = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let fields = Fields {
            entity: builder.add_text_field("entity", text_opts.clone()),
            text: builder.add_text_field("text", text_opts),
            form: builder.add_text_field("form", STRING),
            cik: builder.add_text_field("cik", STRING),
            filed: builder.add_u64_field("filed", INDEXED | FAST),
            ord: builder.add_u64_field("ord", FAST),
        };
        let index = Index::create_in_ram(builder.build());
        let engine = |e: tantivy::TantivyError| format!("building the search index: {e}");
        let mut writer = index
            .writer_with_num_threads::<TantivyDocument>(opts.threads.max(1), opts.writer_heap_bytes)
            .map_err(engine)?;
        for (ord, f) in filings.iter().enumerate() {
            let date = chrono::NaiveDate::parse_from_str(&f.filed_date, "%Y-%m-%d")
                .map_err(|_| format!("filing {} has filedDate `{}`, not YYYY-MM-DD", f.accession, f.filed_date))?;
            writer
                .add_document(doc!(
                    fields.entity => f.entity.as_str(),
                    fields.text => f.text.as_str(),
                    fields.form => normalize_form(&f.form),
                    fields.cik => f.cik.as_str(),
                    fields.filed => date_key(date),
                    fields.ord => ord as u64,
                ))
                .map_err(engine)?;
        }
        writer.commit().map_err(engine)?;
        if opts.merge {
            let segments = index.searchable_segment_ids().map_err(engine)?;
            if segments.len() > 1 {
                writer.merge(&segments).wait().map_err(engine)?;
            }
        }
        writer.wait_merging_threads().map_err(engine)?;

        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(engine)?;
        let searcher = reader.searcher();
        let mut parser = QueryParser::for_index(&index, vec![fields.entity, fields.text]);
        // Every word must match, as in EDGAR's own full-text search; `OR` is still available explicitly.
        parser.set_conjunction_by_default();
        Ok(Self { filings, index, _reader: reader, searcher, fields, parser })
    }

    /// Bytes the index occupies (tantivy's own accounting of its segments).
    pub fn index_bytes(&self) -> u64 {
        self.searcher.space_usage().map(|u| u.total().get_bytes()).unwrap_or(0)
    }

    pub fn segment_count(&self) -> usize {
        self.searcher.segment_readers().len()
    }

    /// Parses the user's query text with the index's syntax (terms, `"phrases"`, `AND`/`OR`/`-`, `field:`),
    /// reading stray punctuation as a search box does (see [`query_text`]).
    pub fn parse(&self, text: &str) -> Result<Box<dyn Query>, SearchError> {
        self.parser.parse_query(&query_text(text)).map_err(|e| SearchError::Syntax(e.to_string()))
    }

    /// Builds a query from an already parsed (and possibly rewritten) query AST, like [`Self::parse`].
    pub fn build_query(&self, ast: tantivy::query_grammar::UserInputAst) -> Result<Box<dyn Query>, SearchError> {
        self.parser.build_query_from_user_input_ast(ast).map_err(|e| SearchError::Syntax(e.to_string()))
    }

    /// Which of the searchable fields `field` is.
    pub fn field_kind(&self, field: Field) -> Option<FieldKind> {
        let f = &self.fields;
        [
            (f.entity, FieldKind::Entity),
            (f.text, FieldKind::Text),
            (f.form, FieldKind::Form),
            (f.cik, FieldKind::Cik),
            (f.filed, FieldKind::Filed),
        ]
        .into_iter()
        .find(|(candidate, _)| *candidate == field)
        .map(|(_, kind)| kind)
    }

    /// The tokens (position, text) of `text` as the index analyses the entity or text field: the same
    /// lower-cased, stemmed words the query parser looks up.
    pub fn analyze(&self, kind: FieldKind, text: &str) -> Vec<(usize, String)> {
        let field = if kind == FieldKind::Entity { self.fields.entity } else { self.fields.text };
        let Ok(mut analyzer) = self.index.tokenizer_for_field(field) else { return Vec::new() };
        let mut out = Vec::new();
        analyzer.token_stream(text).process(&mut |t| out.push((t.position, t.text.clone())));
        out
    }

    /// The snippets of filing texts for a parsed user query, cut as [`Self::search`] cuts them (query terms
    /// weigh by their rarity in this index).
    pub fn snippets<'t>(
        &self,
        user: &dyn Query,
        texts: impl Iterator<Item = &'t str>,
    ) -> Result<Vec<String>, SearchError> {
        let engine = |e: tantivy::TantivyError| SearchError::Engine(e.to_string());
        let mut g = SnippetGenerator::create(&self.searcher, user, self.fields.text).map_err(engine)?;
        g.set_max_num_chars(SNIPPET_CHARS);
        Ok(texts.map(|text| snippet_text(&g, text)).collect())
    }

    pub fn search(&self, req: &SearchRequest) -> Result<SearchResult<'_>, SearchError> {
        let user = self.parse(&req.query)?;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, user.box_clone())];
        // Filters are clauses of the same query (so `total` counts exactly the filtered matches) with a
        // constant zero score (so they never change the relevance order).
        if !req.forms.is_empty() {
            let any_form: Vec<(Occur, Box<dyn Query>)> = req
                .forms
                .iter()
                .map(|f| {
                    let term = Term::from_field_text(self.fields.form, f);
                    (Occur::Should, Box::new(TermQuery::new(term, IndexRecordOption::Basic)) as Box<dyn Query>)
                })
                .collect();
            clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(Box::new(BooleanQuery::new(any_form)), 0.0))));
        }
        if req.from.is_some() || req.to.is_some() {
            let bound = |d: Option<NaiveDate>| match d {
                Some(d) => Bound::Included(Term::from_field_u64(self.fields.filed, date_key(d))),
                None => Bound::Unbounded,
            };
            let range = RangeQuery::new(bound(req.from), bound(req.to));
            clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(Box::new(range), 0.0))));
        }
        let query = BooleanQuery::new(clauses);

        let engine = |e: tantivy::TantivyError| SearchError::Engine(e.to_string());
        let limit = req.limit.max(1);
        let (total, top) =
            self.searcher.search(&query, &(Count, TopDocs::with_limit(limit).order_by_score())).map_err(engine)?;

        let snippets = if req.snippets {
            let mut g = SnippetGenerator::create(&self.searcher, &*user, self.fields.text).map_err(engine)?;
            g.set_max_num_chars(SNIPPET_CHARS);
            Some(g)
        } else {
            None
        };
        let mut hits = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let column = self.searcher.segment_reader(addr.segment_ord).fast_fields().u64("ord").map_err(engine)?;
            let ord = column
                .first(addr.doc_id)
                .ok_or_else(|| SearchError::Engine(format!("document {addr:?} has no ord")))?;
            let filing = self
                .filings
                .get(ord as usize)
                .ok_or_else(|| SearchError::Engine(format!("ord {ord} is out of range")))?;
            let snippet = snippets.as_ref().map(|g| snippet_text(g, &filing.text));
            hits.push(Hit { filing, score, snippet });
        }
        Ok(SearchResult { total, hits })
    }
}

/// The best fragment of `text` for the query; when no query term falls in the body (the match was on the
/// entity name), the start of the body instead, so every hit has some context.
fn snippet_text(generator: &SnippetGenerator, text: &str) -> String {
    let snippet = generator.snippet(text);
    if !snippet.is_empty() && !snippet.fragment().trim().is_empty() {
        return snippet.fragment().trim().to_string();
    }
    match text.char_indices().nth(SNIPPET_CHARS) {
        None => text.to_string(),
        Some((cut, _)) => {
            // End on a word boundary when there is one in the window.
            let head = &text[..cut];
            let head = head.rfind(' ').map_or(head, |space| &head[..space]);
            format!("{head}…")
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
