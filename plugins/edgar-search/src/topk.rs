//! The ranked page of one search without scoring every match, and the capped count of matches.
//!
//! Top hits: an upper bound of the user's query's BM25 score is a sum over *clauses*, each a set of terms that
//! all occur in a filing the clause matches: a term alone, or the words of a phrase, each scaled by (the
//! phrase's summed idf / its own idf), since a phrase scores like one term with the summed idf and a frequency
//! no higher than any of its words' (so the least of its words' scaled scores bounds it). In a segment where
//! one clause can match, [`clause_pruned`] walks the documents holding all its terms with block-max pruning on
//! the least of their block maxima, leapfrogging the filters; otherwise block-max WAND (tantivy's pruned union)
//! runs over one term per clause. Each candidate the bound cannot rule out is checked against the user's query
//! (on that document only, `seek_danger`) and scored exactly. A query the bound does not cover (`*`, ranges,
//! regular expressions, sloppy phrases, ...) is scored exhaustively. The tests check the pruned ranking against
//! scoring every match, and the bound against every match's score.
//!
//! Filters: documents lie newest first, so a date range is one run of document ids per segment (found by
//! binary search on the `filed` fast field, checked at open), and a form is checked on its bits in the segment
//! (built on first use and kept, for a form in at least 1/32 of the segment's filings) or else its postings.
//!
//! Count: matches are counted up to [`TOTAL_CAP`]; beyond it the total is a lower bound, as counting every one
//! of hundreds of thousands of matches (phrases position by position) would cost more than the search itself.
//! The count intersects the user's query with the filters; where one clause (a phrase) can match and a filter
//! docset is there, the phrase's rarest word drives and the filters look first, so its positions are read only
//! where they agree. A query that is one exact phrase (on either text field) is counted by the plugin's own
//! check on its words' positions ([`crate::phrase`]) where the filters are bits or none.

use std::cell::{Cell, RefCell};
use std::collections::BinaryHeap;

use tantivy::columnar::ColumnValues;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{BlockSegmentPostings, SegmentPostings, TermInfo};
use tantivy::query::{
    intersect_scorers, AllScorer, Bm25StatisticsProvider, Bm25Weight, BooleanQuery, BoostQuery, EnableScoring, Occur,
    PhraseQuery, Query, Scorer, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{
    DocAddress, DocId, DocSet, Score, Searcher, SeekDangerResult, SegmentReader, Term, COLLECT_BLOCK_BUFFER_LEN,
    TERMINATED,
};

use crate::index::{hit_key, HitKey};
use crate::phrase::Phrase;

/// Counting stops after this many matches: `total` is then a lower bound (`totalIsLowerBound: true`).
pub const TOTAL_CAP: usize = 10_000;

/// How far below the current last hit a candidate's bound may lie and still be scored when ties must be scored
/// too (see [`Layout`]).
const BOUND_SLACK: Score = 1e-5;

/// Every bound is raised by this fraction: the bound and the exact score add the same numbers in another order
/// (a phrase: the idfs summed before or after weighting), so without it a float rounding could put a bound a
/// hair below its score.
const BOUND_INFLATION: Score = 1e-6;

/// When ties are settled by the visiting order, a candidate whose bound is within this fraction above the last
/// hit's score is taken for a tie and not scored (the bound of a filing tying with it is the same score, raised
/// by [`BOUND_INFLATION`]); without this every filing tying with the last hit would be scored. The cost: a
/// filing scoring less than two parts in a million above the last hit kept, and later in the index, is ranked
/// as a tie (after it).
const TIE_TOLERANCE: Score = 2e-6;

/// How the segments are visited, and whether that order settles ties without scoring them.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Segment ordinals in visiting order.
    segments: Vec<usize>,
    /// True when documents are visited in index order (places increase with the document id within each
    /// segment, and every place of a segment comes after the previous segment's): a later candidate then never
    /// wins a tie with the hits kept, so only a bound above the last hit's score needs a look. Otherwise every
    /// candidate within [`BOUND_SLACK`] of it is scored and its place decides.
    ties_settled: bool,
    /// Per segment ordinal whether its documents lie newest first (dates never increase with the document id):
    /// a date range there is one run of document ids.
    newest_first: Vec<bool>,
    /// Per segment ordinal, its fast fields of places and of filing dates, opened once (opening a column is a
    /// look-up by name that showed in a cold search's profile).
    columns: Vec<Columns>,
    /// The documents of each common form asked for so far, per segment, as bits ([`FormBits`]); shared by
    /// every search of this searcher.
    form_bits: std::sync::Arc<FormBitsCache>,
}

impl Layout {
    /// Reads the places and dates of every document once (at open).
    pub fn of(searcher: &Searcher, order_field: &str, date_field: &str) -> tantivy::Result<Self> {
        let readers = searcher.segment_readers();
        let columns: Vec<Columns> = readers
            .iter()
            .map(|segment| Columns { places: column(segment, order_field), dates: column(segment, date_field) })
            .collect();
        let mut newest_first = Vec::with_capacity(readers.len());
        for (segment, columns) in readers.iter().zip(&columns) {
            let descending = match &columns.dates {
                Some(dates) => (1..segment.max_doc()).all(|d| dates.get_val(d - 1) >= dates.get_val(d)),
                None => false,
            };
            newest_first.push(descending);
        }
        let natural = Self {
            segments: (0..readers.len()).collect(),
            ties_settled: false,
            newest_first: newest_first.clone(),
            columns,
            form_bits: Default::default(),
        };
        let mut ranges = Vec::with_capacity(readers.len());
        for (ord, segment) in readers.iter().enumerate() {
            let Some(places) = natural.places(ord) else { return Ok(natural) };
            let docs = segment.max_doc();
            if docs == 0 {
                continue;
            }
            if !(1..docs).all(|d| places.get_val(d - 1) < places.get_val(d)) {
                return Ok(natural);
            }
            ranges.push((places.get_val(0), places.get_val(docs - 1), ord));
        }
        ranges.sort();
        if ranges.windows(2).any(|w| w[0].1 >= w[1].0) {
            return Ok(natural);
        }
        let mut segments: Vec<usize> = ranges.iter().map(|r| r.2).collect();
        // Empty segments last (they hold no candidate).
        let empty: Vec<usize> = (0..readers.len()).filter(|o| !segments.contains(o)).collect();
        segments.extend(empty);
        Ok(Self { segments, ties_settled: true, ..natural })
    }

    pub fn ties_settled(&self) -> bool {
        self.ties_settled
    }

    /// The places of the segment `ord`'s documents, when it has the fast field.
    pub(crate) fn places(&self, ord: usize) -> Option<&Places> {
        self.columns.get(ord).and_then(|c| c.places.as_ref())
    }

    /// The filing dates (`YYYYMMDD`) of the segment `ord`'s documents, when it has the fast field.
    fn dates(&self, ord: usize) -> Option<&Places> {
        self.columns.get(ord).and_then(|c| c.dates.as_ref())
    }

    /// Takes no segment for newest first, so date ranges are checked document by document (tests).
    #[cfg(test)]
    pub(crate) fn forget_date_order(&mut self) {
        self.newest_first.iter_mut().for_each(|n| *n = false);
    }

    /// Starts over with no form bits, giving them to forms in at least 1/`min_share` of a segment's documents
    /// (tests: 0 gives none; the synthetic forms are all common enough for the default).
    #[cfg(test)]
    pub(crate) fn set_form_bits_share(&mut self, min_share: u32) {
        self.form_bits = std::sync::Arc::new(FormBitsCache { min_share, sets: Default::default() });
    }

    /// How many (segment, form) pairs have bits so far (tests).
    #[cfg(test)]
    pub(crate) fn form_bits_held(&self) -> usize {
        self.form_bits.len()
    }
}

/// What the threshold handed to the pruning is.
#[derive(Clone, Copy)]
enum Pruning {
    /// The last hit's score (ties are settled by the visiting order).
    TiesSettled,
    /// A little below it (ties are scored and their place decides).
    TiesScored,
    /// None: every match is scored (the tests' oracle).
    Off,
}

/// A ranked hit: its exact score, place in the index and address.
#[derive(Clone, Copy)]
pub struct Ranked {
    pub score: Score,
    pub place: u64,
    pub addr: DocAddress,
}

impl Ranked {
    /// Where it stands in the ranking.
    pub fn key(&self) -> HitKey {
        hit_key(self.score, self.place)
    }
}

/// The best `limit` hits seen so far, worst on top of the heap.
struct TopK {
    limit: usize,
    pruning: Pruning,
    after: Option<HitKey>,
    heap: BinaryHeap<Entry>,
}

struct Entry {
    key: HitKey,
    score: Score,
    addr: DocAddress,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// A larger key ranks lower, so the heap's top is the worst hit kept.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

impl TopK {
    fn new(limit: usize, after: Option<HitKey>, pruning: Pruning) -> Self {
        Self { limit: limit.max(1), pruning, after, heap: BinaryHeap::with_capacity(limit.max(1) + 1) }
    }

    fn offer(&mut self, score: Score, place: u64, addr: DocAddress) {
        let key = hit_key(score, place);
        // Hits at or before the cursor were served on earlier pages.
        if self.after.is_some_and(|after| key <= after) {
            return;
        }
        if self.heap.len() < self.limit {
            self.heap.push(Entry { key, score, addr });
        } else if self.heap.peek().is_some_and(|worst| key < worst.key) {
            self.heap.pop();
            self.heap.push(Entry { key, score, addr });
        }
    }

    /// The score a candidate's bound must exceed to possibly enter: the last hit's, or a little below it when
    /// a tie may still win on its place.
    fn threshold(&self) -> Score {
        match (self.heap.peek(), self.pruning) {
            (Some(worst), Pruning::TiesSettled) if self.heap.len() == self.limit => {
                worst.score + worst.score.abs() * TIE_TOLERANCE
            }
            (Some(worst), Pruning::TiesScored) if self.heap.len() == self.limit => {
                worst.score - (worst.score.abs() * BOUND_SLACK).max(Score::MIN_POSITIVE)
            }
            _ => Score::NEG_INFINITY,
        }
    }

    fn into_sorted(self) -> Vec<Ranked> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|e| Ranked { score: e.score, place: e.key.1, addr: e.addr })
            .collect()
    }
}

/// One search's BM25 statistics: the searcher's, each asked of it once. tantivy asks for the documents' count,
/// a field's tokens and a term's document frequency for every weight it makes, and a one-word search makes about
/// eight (the count's, the bound's, the union's, the exact scorer's, the snippets'), each a walk of every
/// segment and a look-up in the term dictionary; held for one search only, so nothing outlives the request.
pub struct Statistics<'s> {
    searcher: &'s Searcher,
    docs: Cell<Option<u64>>,
    tokens: RefCell<Vec<(Field, u64)>>,
    doc_freqs: RefCell<Vec<(Term, u64)>>,
}

impl<'s> Statistics<'s> {
    pub fn new(searcher: &'s Searcher) -> Self {
        Self { searcher, docs: Cell::new(None), tokens: RefCell::default(), doc_freqs: RefCell::default() }
    }

    pub fn searcher(&self) -> &'s Searcher {
        self.searcher
    }
}

impl Bm25StatisticsProvider for Statistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        if let Some((_, tokens)) = self.tokens.borrow().iter().find(|(f, _)| *f == field) {
            return Ok(*tokens);
        }
        let tokens = self.searcher.total_num_tokens(field)?;
        self.tokens.borrow_mut().push((field, tokens));
        Ok(tokens)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        if let Some(docs) = self.docs.get() {
            return Ok(docs);
        }
        let docs = Bm25StatisticsProvider::total_num_docs(self.searcher)?;
        self.docs.set(Some(docs));
        Ok(docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        if let Some((_, docs)) = self.doc_freqs.borrow().iter().find(|(t, _)| t == term) {
            return Ok(*docs);
        }
        let docs = self.searcher.doc_freq(term)?;
        self.doc_freqs.borrow_mut().push((term.clone(), docs));
        Ok(docs)
    }
}

/// BM25's idf, as tantivy computes it (`ln(1 + (N - n + 0.5) / (n + 0.5))`, `N` counting every document of
/// every segment).
fn idf(stats: &dyn Bm25StatisticsProvider, term: &Term) -> tantivy::Result<Score> {
    let docs = stats.total_num_docs()? as Score;
    let with_term = stats.doc_freq(term)? as Score;
    Ok((1.0 + (docs - with_term + 0.5) / (with_term + 0.5)).ln())
}

/// One clause of the bound: terms that all occur in every filing the clause matches, each with the factor that
/// makes its BM25 score a bound of the clause's score (1 for a term; for a phrase's, the phrase's summed idf
/// over its own). The clause's bound on a filing is the least of its terms' scaled scores.
type Clause = Vec<(Term, Score)>;

/// The clauses whose summed bounds bound the score of `query` on every filing it matches; false when the query
/// holds a clause the bound does not cover. Every filing the query matches holds all the terms of at least one
/// clause.
pub(crate) fn bound_clauses(
    stats: &dyn Bm25StatisticsProvider,
    query: &dyn Query,
    clauses: &mut Vec<Clause>,
) -> tantivy::Result<bool> {
    if let Some(term) = query.downcast_ref::<TermQuery>() {
        clauses.push(vec![(term.term().clone(), 1.0)]);
        return Ok(true);
    }
    if let Some(phrase) = query.downcast_ref::<PhraseQuery>() {
        // Only an exact phrase: its frequency is at most each of its terms' (a sloppy match may reuse a term's
        // position). tantivy exposes the slop only through Debug.
        if !format!("{phrase:?}").ends_with("slop: 0 }") {
            return Ok(false);
        }
        // A phrase scores like one term with the summed idf of all of them and the phrase's frequency, which
        // is at most each term's: so each term, its score scaled by (summed idf / its idf), bounds it.
        let mut idfs = Vec::new();
        for term in phrase.phrase_terms() {
            let idf = idf(stats, &term)?;
            if !(idf > 0.0 && idf.is_finite()) {
                return Ok(false);
            }
            idfs.push((term, idf));
        }
        let sum: Score = idfs.iter().map(|(_, idf)| idf).sum();
        clauses.push(idfs.into_iter().map(|(term, idf)| (term, sum / idf)).collect());
        return Ok(true);
    }
    if let Some(boolean) = query.downcast_ref::<BooleanQuery>() {
        let mut scored = false;
        for (occur, clause) in boolean.clauses() {
            // An excluded clause never adds to a score; the exact check applies it.
            if *occur == Occur::MustNot {
                continue;
            }
            if !bound_clauses(stats, clause.as_ref(), clauses)? {
                return Ok(false);
            }
            scored = true;
        }
        return Ok(scored);
    }
    Ok(false)
}

/// A u64 fast field of one segment (places, dates).
type Places = std::sync::Arc<dyn ColumnValues<u64>>;

fn column(segment: &SegmentReader, field: &str) -> Option<Places> {
    segment.fast_fields().u64(field).ok().map(|c| c.first_or_default_col(0))
}

/// One segment's fast fields, as [`Layout`] keeps them.
#[derive(Clone)]
struct Columns {
    places: Option<Places>,
    dates: Option<Places>,
}

impl std::fmt::Debug for Columns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Columns")
            .field("places", &self.places.as_ref().map(|c| c.num_vals()))
            .field("dates", &self.dates.as_ref().map(|c| c.num_vals()))
            .finish()
    }
}

/// What a search is restricted to besides the user's query.
pub struct Filters<'a> {
    /// The form types (any of them; none: every form).
    pub forms: &'a [Term],
    pub dates: Option<DateRange<'a>>,
}

/// Filing dates within `from..=to` (`YYYYMMDD` keys; `None`: unbounded).
pub struct DateRange<'a> {
    /// The same range as a query, for a segment whose documents are not newest first.
    pub query: &'a dyn Query,
    pub from: Option<u64>,
    pub to: Option<u64>,
}

/// The filters' weights, once per search.
pub(crate) struct FilterWeights {
    forms: Vec<Term>,
    dates: Option<DateWeight>,
}

/// A date range's weight (its query's), and its bounds.
struct DateWeight {
    weight: Box<dyn Weight>,
    from: Option<u64>,
    to: Option<u64>,
}

/// The filters in one segment: the run of documents they leave (a date range where documents lie newest
/// first), and a docset for the rest of them, if any.
pub(crate) struct SegmentFilter {
    pub(crate) docs: std::ops::Range<DocId>,
    pub(crate) docset: Option<Box<dyn Scorer>>,
}

impl FilterWeights {
    pub(crate) fn new(searcher: &Searcher, filters: &Filters) -> tantivy::Result<Self> {
        let unscored = || EnableScoring::disabled_from_searcher(searcher);
        Ok(Self {
            forms: filters.forms.to_vec(),
            dates: match &filters.dates {
                Some(d) => Some(DateWeight { weight: d.query.weight(unscored())?, from: d.from, to: d.to }),
                None => None,
            },
        })
    }

    pub(crate) fn segment(
        &self,
        layout: &Layout,
        ord: usize,
        segment: &SegmentReader,
    ) -> tantivy::Result<SegmentFilter> {
        let mut docs = 0..segment.max_doc();
        let mut docsets = Vec::new();
        if !self.forms.is_empty() {
            let (mut bits, mut postings) = (Vec::new(), Vec::new());
            for form in &self.forms {
                let index = segment.inverted_index(form.field())?;
                if let Some(form_postings) = index.read_postings(form, IndexRecordOption::Basic)? {
                    match layout.form_bits.get(segment, form, &form_postings) {
                        Some(set) => bits.push(set),
                        None => postings.push(form_postings),
                    }
                }
            }
            if bits.is_empty() && postings.is_empty() {
                // None of the forms is in this segment.
                return Ok(SegmentFilter { docs: 0..0, docset: None });
            }
            docsets.push(Box::new(AnyOf::new(bits, postings)) as Box<dyn Scorer>);
        }
        if let Some(DateWeight { weight, from, to }) = &self.dates {
            let ordered = layout.newest_first.get(ord).copied().unwrap_or(false);
            match layout.dates(ord).filter(|_| ordered) {
                Some(dates) => {
                    // Dates never increase with the document id: those after `to` come first, those before
                    // `from` last.
                    let start = to.map_or(0, |to| first_doc(docs.end, |d| dates.get_val(d) <= to));
                    let end = from.map_or(docs.end, |from| first_doc(docs.end, |d| dates.get_val(d) < from));
                    docs = start..end.max(start);
                }
                None => docsets.push(weight.scorer(segment, 1.0)?),
            }
        }
        let docset = match docsets.len() {
            0 => None,
            1 => docsets.pop(),
            _ => Some(intersect_scorers(docsets, segment.num_docs())),
        };
        Ok(SegmentFilter { docs, docset })
    }
}

/// The documents of one form in one segment, one bit each: checking a document is a bit test instead of a
/// postings seek (two per document for two forms, the larger part of counting a phrase's matches among
/// them).
struct FormBits {
    words: Box<[u64]>,
    /// Documents set (the form's document frequency).
    len: u32,
}

impl FormBits {
    fn of(mut postings: SegmentPostings, max_doc: DocId) -> Self {
        let mut words = vec![0u64; (max_doc as usize).div_ceil(64)].into_boxed_slice();
        let mut buffer = [0 as DocId; COLLECT_BLOCK_BUFFER_LEN];
        loop {
            let filled = postings.fill_buffer(&mut buffer);
            for &doc in &buffer[..filled] {
                words[doc as usize / 64] |= 1 << (doc % 64);
            }
            if filled < buffer.len() {
                break;
            }
        }
        Self { words, len: postings.doc_freq() }
    }
}

/// [`FormBits`] of the forms asked for, built on first use and kept for the searcher's life (its segments
/// never change). Only forms in at least 1/[`BITS_MIN_SHARE`] of a segment's documents get bits: a rarer form's
/// postings are short and skip well, and the bound keeps the memory at most `BITS_MIN_SHARE / 8` bytes per
/// document (each document has one form), 4 MB per million documents, whatever forms are asked for.
#[derive(Debug)]
struct FormBitsCache {
    /// A form gets bits in a segment where it is in at least 1/`min_share` of the documents.
    min_share: u32,
    sets: std::sync::RwLock<std::collections::HashMap<(tantivy::index::SegmentId, Term), std::sync::Arc<FormBits>>>,
}

impl Default for FormBitsCache {
    fn default() -> Self {
        Self { min_share: BITS_MIN_SHARE, sets: Default::default() }
    }
}

/// See [`FormBitsCache`].
const BITS_MIN_SHARE: u32 = 32;

impl std::fmt::Debug for FormBits {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "FormBits({} of {})", self.len, self.words.len() * 64)
    }
}

impl FormBitsCache {
    /// The bits of `form` in `segment` (`postings` its postings there); `None` when the form is too rare
    /// there for bits.
    fn get(
        &self,
        segment: &SegmentReader,
        form: &Term,
        postings: &SegmentPostings,
    ) -> Option<std::sync::Arc<FormBits>> {
        if u64::from(postings.doc_freq()) * u64::from(self.min_share) < u64::from(segment.max_doc()) {
            return None;
        }
        let key = (segment.segment_id(), form.clone());
        if let Some(set) = self.sets.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Some(set.clone());
        }
        // Built outside the lock; two searches building the same bits at once keep the first.
        let set = std::sync::Arc::new(FormBits::of(postings.clone(), segment.max_doc()));
        Some(self.sets.write().unwrap_or_else(|e| e.into_inner()).entry(key).or_insert(set).clone())
    }

    /// The (segment, form) pairs with bits (tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.sets.read().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// The documents of any of a few forms: the common ones as bits, the rare ones as postings seeked on their own
/// (tantivy's buffered union refills a window of 4,096 documents on a seek beyond it, and boxed term scorers
/// cost a virtual call per look).
struct AnyOf {
    bits: Vec<std::sync::Arc<FormBits>>,
    members: Vec<SegmentPostings>,
    doc: DocId,
}

impl AnyOf {
    fn new(bits: Vec<std::sync::Arc<FormBits>>, members: Vec<SegmentPostings>) -> Self {
        let mut any = Self { bits, members, doc: 0 };
        any.doc = any.members.iter().map(|m| m.doc()).min().unwrap_or(TERMINATED).min(any.next_bit(0));
        any
    }

    fn has_bit(&self, doc: DocId) -> Pass {
        let (word, bit) = (doc as usize / 64, doc % 64);
        match self.bits.iter().any(|bits| bits.words[word] >> bit & 1 != 0) {
            true => Pass::Yes,
            false => Pass::No,
        }
    }

    /// Whether `doc` is set in any of the bits, without a branch.
    fn covers(&self, doc: DocId) -> bool {
        let word = self.bits.iter().fold(0, |set, bits| set | bits.words[doc as usize / 64]);
        word >> (doc % 64) & 1 != 0
    }

    /// The first document at or after `target` set in any of the bits.
    fn next_bit(&self, target: DocId) -> DocId {
        let Some(first) = self.bits.first() else { return TERMINATED };
        let mut word = target as usize / 64;
        // Bits below the target cleared.
        let mut mask = u64::MAX.checked_shl(target % 64).unwrap_or(0);
        while word < first.words.len() {
            let set = self.bits.iter().fold(0, |set, bits| set | bits.words[word]) & mask;
            if set != 0 {
                return (word * 64) as DocId + set.trailing_zeros();
            }
            word += 1;
            mask = u64::MAX;
        }
        TERMINATED
    }
}

impl DocSet for AnyOf {
    fn advance(&mut self) -> DocId {
        match self.doc {
            TERMINATED => TERMINATED,
            doc => self.seek(doc + 1),
        }
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if target <= self.doc {
            return self.doc;
        }
        self.doc = self.next_bit(target);
        for member in &mut self.members {
            if member.doc() < target {
                member.seek(target);
            }
            self.doc = self.doc.min(member.doc());
        }
        self.doc
    }

    fn fill_buffer(&mut self, buffer: &mut [DocId; COLLECT_BLOCK_BUFFER_LEN]) -> usize {
        if let ([], [only]) = (self.bits.as_slice(), self.members.as_mut_slice()) {
            // One form: its postings' own loop, no pass over the members per document.
            let filled = only.fill_buffer(buffer);
            self.doc = only.doc();
            return filled;
        }
        if self.members.is_empty() {
            // Only bits: every set bit of a word at once.
            let mut filled = 0;
            while self.doc != TERMINATED && filled < buffer.len() {
                let word = self.doc as usize / 64;
                let mut set =
                    self.bits.iter().fold(0, |set, bits| set | bits.words[word]) & (u64::MAX << (self.doc % 64));
                while set != 0 && filled < buffer.len() {
                    buffer[filled] = (word * 64) as DocId + set.trailing_zeros();
                    filled += 1;
                    set &= set - 1;
                }
                self.doc = match set {
                    0 => self.next_bit((word as DocId + 1) * 64),
                    set => (word * 64) as DocId + set.trailing_zeros(),
                };
            }
            return filled;
        }
        if self.doc == TERMINATED {
            return 0;
        }
        for (i, slot) in buffer.iter_mut().enumerate() {
            *slot = self.doc;
            if self.advance() == TERMINATED {
                return i + 1;
            }
        }
        buffer.len()
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        let bits = self.bits.iter().map(|b| b.len);
        self.members.iter().map(|m| m.size_hint()).chain(bits).fold(0, u32::saturating_add)
    }

    fn cost(&self) -> u64 {
        self.members.iter().map(|m| m.cost()).chain(self.bits.iter().map(|b| b.len as u64)).sum()
    }
}

impl Scorer for AnyOf {
    fn score(&mut self) -> Score {
        0.0
    }
}

/// The first document of `0..n` for which `holds` is true, `holds` being false and then true (`n` if never).
fn first_doc(n: DocId, holds: impl Fn(DocId) -> bool) -> DocId {
    let (mut low, mut high) = (0, n);
    while low < high {
        let mid = low + (high - low) / 2;
        if holds(mid) {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    low
}

/// The top `limit` hits of `user` (the query, and its scoring weight) among the filings `filters` leave (ranked
/// by score, then place; those at or before `after` left out). `full` is the same request as one query (user
/// query and filters), scored exhaustively when the user's query has no term bound; `exhaustive` forces that (the
/// oracle of the tests).
#[allow(clippy::too_many_arguments)]
pub fn top_hits(
    stats: &Statistics,
    user: (&dyn Query, &dyn Weight),
    filters: &Filters,
    full: &dyn Query,
    layout: &Layout,
    limit: usize,
    after: Option<HitKey>,
    exhaustive: bool,
) -> tantivy::Result<Vec<Ranked>> {
    let pruning = match (exhaustive, layout.ties_settled) {
        (true, _) => Pruning::Off,
        (false, true) => Pruning::TiesSettled,
        (false, false) => Pruning::TiesScored,
    };
    let mut top = TopK::new(limit, after, pruning);
    let mut clauses = Vec::new();
    if !exhaustive && bound_clauses(stats, user.0, &mut clauses)? {
        pruned(stats, user, filters, clauses, layout, &mut top)?;
    } else {
        every_match(stats, full, layout, &mut top)?;
    }
    Ok(top.into_sorted())
}

/// The pruned ranking, segment by segment: when one clause of the bound can match there and it has several
/// terms (a phrase) or there is a filter, [`clause_pruned`]; otherwise block-max WAND (tantivy's) over the
/// union of one term per clause (its rarest), each candidate checked and scored exactly, or over the user's query
/// itself when it is its own union ([`is_own_union`]: one word).
fn pruned(
    stats: &Statistics,
    (user, user_weight): (&dyn Query, &dyn Weight),
    filters: &Filters,
    clauses: Vec<Clause>,
    layout: &Layout,
    top: &mut TopK,
) -> tantivy::Result<()> {
    let inflated = |scale: Score| scale * (1.0 + BOUND_INFLATION);
    let searcher = stats.searcher();
    let scoring = EnableScoring::enabled_from_statistics_provider(stats, searcher);
    // The union's weight and a clause's cursor weights are made when a segment first needs them: a segment walks
    // either one clause's cursors or the union, and a one-word search with a filter mostly walks only one of them
    // (the word in the text alone: its clause; in the text and the entity: the union).
    let union_of_rarest = || {
        let union = BooleanQuery::new(
            clauses
                .iter()
                .filter_map(|clause| clause.iter().min_by(|a, b| a.1.total_cmp(&b.1)))
                .map(|(term, scale)| {
                    let term = Box::new(TermQuery::new(term.clone(), IndexRecordOption::WithFreqs));
                    (Occur::Should, Box::new(BoostQuery::new(term, inflated(*scale))) as Box<dyn Query>)
                })
                .collect(),
        );
        union.weight(scoring)
    };
    let cursor_weights = |clause: &Clause| -> tantivy::Result<Vec<(Term, Bm25Weight)>> {
        let weigh = |(term, scale): &(Term, Score)| {
            let weight = Bm25Weight::for_terms(stats, std::slice::from_ref(term))?.boost_by(inflated(*scale));
            Ok((term.clone(), weight))
        };
        clause.iter().map(weigh).collect()
    };
    let mut union: Option<Box<dyn Weight>> = None;
    let mut clause_weights: Vec<Option<Vec<(Term, Bm25Weight)>>> = vec![None; clauses.len()];
    let phrase = clauses.iter().any(|c| c.len() > 1);
    let own_union = is_own_union(user, &clauses);
    let user = user_weight;
    let filters = FilterWeights::new(searcher, filters)?;
    for &ord in &layout.segments {
        let segment = searcher.segment_reader(ord as u32);
        let SegmentFilter { docs, docset: mut filter } = filters.segment(layout, ord, segment)?;
        if docs.is_empty() {
            continue;
        }
        let restricted = filter.is_some() || docs.len() < segment.max_doc() as usize;
        // The clauses whose terms all occur here, with the terms' places in the dictionary.
        let mut live = Vec::new();
        // Without a phrase or a filter the union runs whatever is live (and a term's lookup costs microseconds).
        if restricted || phrase {
            for (number, clause) in clauses.iter().enumerate() {
                if let Some(infos) = BoundCursor::look_up(segment, clause)? {
                    live.push((number, infos));
                }
            }
            // Every match holds all the terms of some clause: none here, no match here.
            if live.is_empty() {
                continue;
            }
        }
        let places = layout.places(ord);
        let alive = segment.alive_bitset();
        let start = top.threshold();
        let one_clause = matches!(live.as_slice(), [(number, _)] if clauses[*number].len() > 1 || restricted);
        if own_union && !one_clause {
            // Block-max WAND over the user's query itself: its candidates match and come with their exact scores.
            // The union's bounds would be these scores raised by the inflation, so the thresholds are lowered by it.
            let lowered = |threshold: Score| threshold / (1.0 + BOUND_INFLATION);
            let mut candidate = |doc: DocId, score: Score| -> Score {
                if passes_filters(&docs, filter.as_deref_mut(), doc) && alive.is_none_or(|a| a.is_alive(doc)) {
                    let place = places.as_ref().map_or(0, |p| p.get_val(doc));
                    top.offer(score, place, DocAddress::new(ord as u32, doc));
                }
                lowered(top.threshold())
            };
            user.for_each_pruning(lowered(start), segment, &mut candidate)?;
            continue;
        }
        let mut user = Matcher::new(user.scorer(segment, 1.0)?);
        // A candidate that passes the filter: checked against the user's query, scored and offered.
        let mut offer = |doc: DocId, passes_filter: bool| -> Score {
            if passes_filter && alive.is_none_or(|a| a.is_alive(doc)) && user.matches(doc) {
                let place = places.as_ref().map_or(0, |p| p.get_val(doc));
                top.offer(user.scorer.score(), place, DocAddress::new(ord as u32, doc));
            }
            top.threshold()
        };
        match live.as_slice() {
            [(number, infos)] if clauses[*number].len() > 1 || restricted => {
                let weights = match &mut clause_weights[*number] {
                    Some(weights) => weights,
                    empty => empty.insert(cursor_weights(&clauses[*number])?),
                };
                let mut terms = BoundCursor::open_all(segment, weights, infos)?;
                clause_pruned(&mut terms, docs, filter.as_deref_mut(), start, &mut |doc| offer(doc, true))
            }
            _ => {
                let union = match &union {
                    Some(union) => union,
                    None => union.insert(union_of_rarest()?),
                };
                let mut candidate = |doc: DocId, _bound: Score| -> Score {
                    offer(doc, passes_filters(&docs, filter.as_deref_mut(), doc))
                };
                union.for_each_pruning(start, segment, &mut candidate)?;
            }
        }
    }
    Ok(())
}

/// [`count_matches`] for a query that is its own bound's union ([`is_own_union`]: a word in the entity or the
/// text), where the filters are a run of documents in every segment and no segment has deleted documents
/// (`None` otherwise: the scorers count those): one term occurring in a whole segment counts its document
/// frequency from the dictionary, else the terms' postings are walked through the run (documents only: no
/// frequencies, norms or scores), counting each document once.
fn count_own_union(
    searcher: &Searcher,
    clauses: &[Clause],
    filters: &FilterWeights,
    layout: &Layout,
    cap: usize,
) -> tantivy::Result<Option<usize>> {
    let mut count = 0usize;
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let SegmentFilter { docs: run, docset } = filters.segment(layout, ord, segment)?;
        if docset.is_some() || segment.alive_bitset().is_some() {
            return Ok(None);
        }
        if run.is_empty() {
            continue;
        }
        let mut present = Vec::with_capacity(clauses.len());
        for (term, _) in clauses.iter().flatten() {
            let index = segment.inverted_index(term.field())?;
            if let Some(info) = index.get_term_info(term)? {
                present.push((index, info));
            }
        }
        count += match present.as_slice() {
            [] => 0,
            [(_, info)] if run.start == 0 && run.end >= segment.max_doc() => {
                (info.doc_freq as usize).min(cap - count + 1)
            }
            _ => {
                let mut postings = Vec::with_capacity(present.len());
                for (index, info) in &present {
                    postings.push(index.read_postings_from_terminfo(info, IndexRecordOption::Basic)?);
                }
                count_in_run(&mut postings, run, cap - count)
            }
        };
        if count > cap {
            break;
        }
    }
    Ok(Some(count))
}

/// How many documents of `run` hold at least one of `postings` (each counted once), counting at most
/// `budget + 1`.
fn count_in_run(postings: &mut [SegmentPostings], run: std::ops::Range<DocId>, budget: usize) -> usize {
    for list in postings.iter_mut() {
        if list.doc() < run.start {
            list.seek(run.start);
        }
    }
    let mut count = 0;
    while count <= budget {
        // `TERMINATED` lies past every run.
        let doc = postings.iter().map(|list| list.doc()).min().unwrap_or(TERMINATED);
        if doc >= run.end {
            break;
        }
        count += 1;
        for list in postings.iter_mut().filter(|list| list.doc() == doc) {
            list.advance();
        }
    }
    count
}

/// Whether `doc` lies in a segment's run of documents and, where there is one, on its filter docset (moved
/// forward to it: scorers only move forward, and candidates come in document order).
pub(crate) fn passes_filters(docs: &std::ops::Range<DocId>, filter: Option<&mut dyn Scorer>, doc: DocId) -> bool {
    docs.contains(&doc)
        && filter.is_none_or(|filter| {
            if filter.doc() < doc {
                filter.seek(doc);
            }
            filter.doc() == doc
        })
}

/// Whether `query` is its own bound's union: one term, or a disjunction of two (a word in the entity or in the
/// text), each a clause of the bound with scale 1. Block-max WAND over the query itself then visits the
/// candidates the union's would (the union's bounds are the query's scores raised by [`BOUND_INFLATION`]) and
/// gives their exact scores, so no second scorer checks and scores them. At most two terms: a sum of two scores
/// does not depend on the order they are added in (tantivy's WAND and its union scorer add in different orders).
fn is_own_union(query: &dyn Query, clauses: &[Clause]) -> bool {
    let terms_of_scale_one = clauses.iter().all(|clause| matches!(clause.as_slice(), [(_, scale)] if *scale == 1.0));
    if !terms_of_scale_one || clauses.is_empty() || clauses.len() > 2 {
        return false;
    }
    if query.downcast_ref::<TermQuery>().is_some() {
        return clauses.len() == 1;
    }
    query.downcast_ref::<BooleanQuery>().is_some_and(|boolean| {
        boolean.get_minimum_number_should_match() <= 1
            && boolean.clauses().len() == clauses.len()
            && boolean
                .clauses()
                .iter()
                .all(|(occur, q)| *occur == Occur::Should && q.downcast_ref::<TermQuery>().is_some())
    })
}

/// The postings of one term of a bound clause, read block by block, scored with a weight that makes its score
/// (and its block maxima) a bound of the clause's.
struct BoundCursor {
    postings: BlockSegmentPostings,
    /// Where the current document lies in the loaded block (past its end when the postings are exhausted).
    at: usize,
    weight: Bm25Weight,
    fieldnorms: FieldNormReader,
    /// Whether the term's field records frequencies. A field indexed without them (`form:`, `cik:`) scores
    /// every document with a frequency of 1 and has no frequencies to read a block's maximum from.
    has_freqs: bool,
}

impl BoundCursor {
    /// Where a clause's terms lie in `segment`'s dictionary; `None` when one of the terms does not occur there (no
    /// filing there matches the clause).
    fn look_up(segment: &SegmentReader, clause: &Clause) -> tantivy::Result<Option<Vec<TermInfo>>> {
        let mut infos = Vec::with_capacity(clause.len());
        for (term, _) in clause {
            match segment.inverted_index(term.field())?.get_term_info(term)? {
                Some(info) => infos.push(info),
                None => return Ok(None),
            }
        }
        Ok(Some(infos))
    }

    /// The cursors of a clause's terms in `segment` (`weights` and `infos` in the clause's order, the infos
    /// [`Self::look_up`]'s), on their first documents.
    fn open_all(
        segment: &SegmentReader,
        weights: &[(Term, Bm25Weight)],
        infos: &[TermInfo],
    ) -> tantivy::Result<Vec<Self>> {
        let mut cursors = Vec::with_capacity(weights.len());
        for ((term, weight), info) in weights.iter().zip(infos) {
            let index = segment.inverted_index(term.field())?;
            let mut postings = index.read_block_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?;
            let at = postings.seek(0);
            let fieldnorms = segment.get_fieldnorms_reader(term.field())?;
            let has_freqs = segment
                .schema()
                .get_field_entry(term.field())
                .field_type()
                .get_index_record_option()
                .is_some_and(|option| option.has_freq());
            cursors.push(Self { postings, at, weight: weight.clone(), fieldnorms, has_freqs });
        }
        Ok(cursors)
    }

    /// The current document; `TERMINATED` once the postings are exhausted (right after [`Self::seek`]).
    fn doc(&self) -> DocId {
        self.postings.docs().get(self.at).copied().unwrap_or(TERMINATED)
    }

    /// Moves to the first document at or after `target` (never back); also after `at` has run past the
    /// loaded block.
    fn seek(&mut self, target: DocId) {
        if self.postings.docs().get(self.at).is_none_or(|&doc| doc < target) {
            self.at = self.postings.seek(target);
        }
    }

    /// The last document of the loaded block: the block's maximum holds up to there.
    fn block_end(&self) -> DocId {
        self.postings.docs().last().copied().unwrap_or(TERMINATED)
    }

    fn block_max(&mut self) -> Score {
        if self.has_freqs {
            self.postings.block_max_score(&self.fieldnorms, &self.weight)
        } else {
            // tantivy computes a last block's maximum from its frequencies, which such a field does not have
            // (it would say 0): the weight's own maximum bounds every document.
            self.weight.max_score()
        }
    }

    /// The bound on the current document.
    fn score(&self) -> Score {
        let doc = self.doc();
        let freq = if self.has_freqs { self.postings.freqs()[self.at] } else { 1 };
        self.weight.score(self.fieldnorms.fieldnorm_id(doc), freq)
    }
}

/// Block-max pruning over the one clause that can match in a segment (a phrase, or a term with a filter):
/// every document holding all its terms, whose bound (the least of the terms' scaled scores: a phrase occurs at
/// most as often as each of its words) is above the threshold and which `filter` matches, goes to `candidate`,
/// which returns the new threshold. Where the terms' current blocks overlap (a window), the least of their
/// block maxima bounds every document, so a window whose least maximum is not above the threshold is skipped
/// whole; in the others the rarest term leads and the rest are looked up only for its documents scoring above
/// the threshold. The filter is leapfrogged with the terms: documents it excludes are skipped without a look.
fn clause_pruned(
    terms: &mut [BoundCursor],
    docs: std::ops::Range<DocId>,
    mut filter: Option<&mut dyn Scorer>,
    mut threshold: Score,
    candidate: &mut dyn FnMut(DocId) -> Score,
) {
    terms.sort_by_key(|term| term.postings.doc_freq());
    let mut target: DocId = docs.start;
    'windows: loop {
        // Every term on its first document at or after `target`: none before `first` holds them all. The
        // window is the leader's block; another term's block bounds it when it covers it, or when it rules out
        // what it does cover (the window then ends with it): cutting the window at every block end of a denser
        // term would cost more than its maxima save.
        let (leader, others) = terms.split_first_mut().expect("a clause has a term");
        leader.seek(target);
        let mut first = leader.doc();
        if first == TERMINATED {
            return;
        }
        let mut window_end = leader.block_end();
        let mut block_bound = leader.block_max();
        for other in others.iter_mut() {
            other.seek(target);
            let doc = other.doc();
            if doc == TERMINATED {
                return;
            }
            first = first.max(doc);
            let (end, max) = (other.block_end(), other.block_max());
            if end >= window_end || max <= threshold {
                window_end = window_end.min(end);
                block_bound = block_bound.min(max);
            }
        }
        if first >= docs.end {
            return;
        }
        if first > window_end {
            target = first;
            continue;
        }
        if block_bound > threshold {
            let block = leader.postings.docs();
            let last = window_end.min(docs.end - 1);
            while leader.at < block.len() && block[leader.at] <= last {
                let doc = block[leader.at];
                let mut bound = leader.score();
                if bound > threshold {
                    for other in others.iter_mut() {
                        other.seek(doc);
                        if other.doc() != doc {
                            bound = Score::NEG_INFINITY;
                            break;
                        }
                        bound = bound.min(other.score());
                    }
                }
                if bound > threshold {
                    if let Some(filter) = filter.as_deref_mut() {
                        if filter.doc() < doc {
                            filter.seek(doc);
                        }
                        match filter.doc() {
                            TERMINATED => return,
                            next if next > doc => {
                                target = next;
                                continue 'windows;
                            }
                            _ => {}
                        }
                    }
                    threshold = candidate(doc);
                    if block_bound <= threshold {
                        break;
                    }
                }
                leader.at += 1;
            }
        }
        // `window_end` is at least `target` (every term's block ends at or after its document).
        target = window_end + 1;
    }
}

/// Whether the user's query matches each candidate, candidates coming in increasing order. A miss does not
/// move the scorer on to its next match (`seek_danger`): a phrase checks positions on the candidate only.
struct Matcher {
    scorer: Box<dyn Scorer>,
    /// The scorer is on a match (its `doc()` is valid), else no document below `next_possible` matches.
    on_match: bool,
    next_possible: DocId,
}

impl Matcher {
    fn new(scorer: Box<dyn Scorer>) -> Self {
        Self { scorer, on_match: true, next_possible: 0 }
    }

    /// Whether `doc` matches (then the scorer is on it); `doc` must exceed every earlier one.
    fn matches(&mut self, doc: DocId) -> bool {
        if self.on_match {
            match self.scorer.doc() {
                at if at == doc => return true,
                at if at > doc => return false,
                _ => {}
            }
        } else if doc < self.next_possible {
            return false;
        }
        match self.scorer.seek_danger(doc) {
            SeekDangerResult::Found => {
                self.on_match = true;
                true
            }
            SeekDangerResult::SeekLowerBound(next) => {
                self.on_match = false;
                self.next_possible = next;
                false
            }
        }
    }
}

/// Scores every match of `full` (tantivy still prunes when the query alone allows it).
fn every_match(stats: &Statistics, full: &dyn Query, layout: &Layout, top: &mut TopK) -> tantivy::Result<()> {
    let searcher = stats.searcher();
    let full = full.weight(EnableScoring::enabled_from_statistics_provider(stats, searcher))?;
    for &ord in &layout.segments {
        let segment = searcher.segment_reader(ord as u32);
        let places = layout.places(ord);
        let alive = segment.alive_bitset();
        let start = top.threshold();
        let mut each = |doc: DocId, score: Score| -> Score {
            if alive.is_none_or(|a| a.is_alive(doc)) {
                let place = places.as_ref().map_or(0, |p| p.get_val(doc));
                top.offer(score, place, DocAddress::new(ord as u32, doc));
            }
            top.threshold()
        };
        full.for_each_pruning(start, segment, &mut each)?;
    }
    Ok(())
}

/// How many filings `query` matches, counting at most `cap + 1` (so a count above `cap` says there are more).
pub fn count_up_to(searcher: &Searcher, query: &dyn Query, cap: usize) -> tantivy::Result<usize> {
    let weight = query.weight(EnableScoring::disabled_from_searcher(searcher))?;
    let mut count = 0usize;
    let mut buffer = [0 as DocId; COLLECT_BLOCK_BUFFER_LEN];
    for segment in searcher.segment_readers() {
        let mut docs = weight.scorer(segment, 1.0)?;
        let alive = segment.alive_bitset();
        while count <= cap && docs.doc() != TERMINATED {
            let n = docs.fill_buffer(&mut buffer);
            count += match alive {
                None => n,
                Some(a) => buffer[..n].iter().filter(|&&d| a.is_alive(d)).count(),
            };
            if n < buffer.len() {
                break;
            }
        }
        if count > cap {
            break;
        }
    }
    Ok(count)
}

/// How many filings match `user` and `filters`, counting at most `cap + 1` (so a count above `cap` says there
/// are more); the same number as [`count_up_to`] over the whole request, found with less work: a date range is
/// a run of documents where they lie newest first, and when one clause of the bound can match in a segment
/// and a filter docset is there, the clause's rarest term (which every match holds) drives ([`count_driven`]),
/// so a phrase's positions are only read where the filters agree. A query that is one exact phrase is checked by
/// the plugin's own [`PhraseCheck`] (driven by its rarest word, the filters looking first), where its words'
/// densities make that pay ([`Phrase::worth_it`]).
pub fn count_matches(
    stats: &Statistics,
    user: &dyn Query,
    filters: &Filters,
    layout: &Layout,
    cap: usize,
) -> tantivy::Result<usize> {
    let searcher = stats.searcher();
    let filters = FilterWeights::new(searcher, filters)?;
    let mut clauses = Vec::new();
    let covered = bound_clauses(stats, user, &mut clauses)?;
    if covered && is_own_union(user, &clauses) {
        if let Some(count) = count_own_union(searcher, &clauses, &filters, layout, cap)? {
            return Ok(count);
        }
    }
    // The clauses matter only with a phrase among them (each term's dictionary lookup costs microseconds).
    let bounded = covered && clauses.iter().any(|c| c.len() > 1);
    let unscored = || EnableScoring::disabled_from_searcher(searcher);
    let user_weight = user.weight(unscored())?;
    let phrases = Phrase::union_of(searcher, user);
    let mut count = 0usize;
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let SegmentFilter { docs: run, docset } = filters.segment(layout, ord, segment)?;
        if run.is_empty() {
            continue;
        }
        // The own check tests no filter, or forms as bits, as its rarest word walks. Forms as postings skip ahead,
        // which its cursors do not (they walk block by block), and a date range as a docset is not bits: those
        // keep tantivy's scorer, driven below.
        let bits = docset.as_ref().map(|f| f.downcast_ref::<AnyOf>().filter(|any| any.members.is_empty()));
        let mut check = None;
        if let (Some(phrases), false) = (&phrases, matches!(bits, Some(None))) {
            // The phrases with all their words in this segment: only those can match here.
            let mut live = Vec::with_capacity(phrases.len());
            for phrase in phrases {
                if let Some(worth_it) = phrase.worth_it(segment, run.start)? {
                    live.push((phrase, worth_it));
                }
            }
            match live.as_slice() {
                [] => continue,
                [(phrase, true)] => match phrase.check(segment)? {
                    Some(own) => check = Some(own),
                    None => continue,
                },
                // Several phrases (no word all their matches hold), or one not worth it: tantivy's scorer.
                _ => {}
            }
        }
        if let Some(mut check) = check {
            let alive = segment.alive_bitset();
            let budget = cap - count;
            count += match (bits.flatten(), alive) {
                (None, None) => check.count(run, |_| true, budget),
                (Some(any), None) => check.count(run, |doc| any.covers(doc), budget),
                (None, Some(alive)) => check.count(run, |doc| alive.is_alive(doc), budget),
                (Some(any), Some(alive)) => check.count(run, |doc| any.covers(doc) & alive.is_alive(doc), budget),
            };
            if count > cap {
                break;
            }
            continue;
        }
        let user = user_weight.scorer(segment, 1.0)?;
        let alive = segment.alive_bitset();
        let docset = match docset {
            Some(mut filter) if bounded => {
                let mut live = Vec::new();
                'clauses: for clause in &clauses {
                    let mut terms = Vec::with_capacity(clause.len());
                    for (term, _) in clause {
                        let index = segment.inverted_index(term.field())?;
                        match index.read_block_postings(term, IndexRecordOption::Basic)? {
                            Some(postings) => terms.push(postings),
                            None => continue 'clauses,
                        }
                    }
                    live.push(terms);
                }
                // Every match holds all the terms of some clause. With one clause left, a phrase, and a filter
                // docset, the phrase's rarest term drives, so the filter looks before positions are read (the
                // phrase's own scorer would read them first).
                match live.as_mut_slice() {
                    [] => continue,
                    [terms] if terms.len() > 1 => {
                        let rarest = terms.iter().enumerate().min_by_key(|(_, t)| t.doc_freq()).map_or(0, |r| r.0);
                        let driver = terms.swap_remove(rarest);
                        let budget = cap - count;
                        count += match filter.downcast_ref::<AnyOf>().filter(|any| any.members.is_empty()) {
                            // Common forms only: a bit test per document, inlined.
                            Some(any) => count_driven(driver, run, |doc| any.has_bit(doc), user, alive, budget),
                            None => {
                                let filter = |doc| {
                                    if filter.doc() < doc {
                                        filter.seek(doc);
                                    }
                                    match filter.doc() {
                                        at if at == doc => Pass::Yes,
                                        at => Pass::From(at),
                                    }
                                };
                                count_driven(driver, run, filter, user, alive, budget)
                            }
                        };
                        if count > cap {
                            break;
                        }
                        continue;
                    }
                    _ => Some(filter),
                }
            }
            docset => docset,
        };
        let mut scorers = Vec::new();
        // Matching everything (`*`) restricts nothing the filters do not.
        if !(user.is::<AllScorer>() && docset.is_some()) {
            scorers.push(user);
        }
        scorers.extend(docset);
        let mut docs = intersect_scorers(scorers, segment.num_docs());
        if docs.doc() < run.start {
            docs.seek(run.start);
        }
        let mut buffer = [0 as DocId; COLLECT_BLOCK_BUFFER_LEN];
        while count <= cap && docs.doc() < run.end {
            let filled = docs.fill_buffer(&mut buffer);
            let within = buffer[..filled].partition_point(|&doc| doc < run.end);
            count += match alive {
                None => within,
                Some(a) => buffer[..within].iter().filter(|&&doc| a.is_alive(doc)).count(),
            };
            if within < filled || filled < buffer.len() {
                break;
            }
        }
        if count > cap {
            break;
        }
    }
    Ok(count)
}

/// Whether a document passes the filters, for [`count_driven`].
enum Pass {
    Yes,
    No,
    /// No, and none before this document does.
    From(DocId),
}

/// How many documents of `run` in `driver`'s postings `filter` and `user` match (alive ones), counting at most
/// `budget + 1`: the driver's documents are read block by block, `filter` looks at each and `user` checks the
/// ones it passes on that document only (`seek_danger`). Every match must be in the driver (a term all of the
/// user's matches hold). A block the filter has nothing in is skipped.
fn count_driven(
    mut driver: BlockSegmentPostings,
    run: std::ops::Range<DocId>,
    mut filter: impl FnMut(DocId) -> Pass,
    user: Box<dyn Scorer>,
    alive: Option<&tantivy::fastfield::AliveBitSet>,
    budget: usize,
) -> usize {
    let mut user = Matcher::new(user);
    let mut count = 0;
    let mut at = driver.seek(run.start);
    'blocks: loop {
        let docs = driver.docs();
        let Some(&last) = docs.last() else { return count };
        for &doc in docs.get(at..).unwrap_or_default() {
            if doc >= run.end {
                return count;
            }
            match filter(doc) {
                Pass::Yes => {
                    if alive.is_none_or(|a| a.is_alive(doc)) && user.matches(doc) {
                        count += 1;
                        if count > budget {
                            return count;
                        }
                    }
                }
                Pass::No => {}
                Pass::From(next) if next > last => {
                    if next >= run.end {
                        return count;
                    }
                    at = driver.seek(next);
                    continue 'blocks;
                }
                Pass::From(_) => {}
            }
        }
        driver.advance();
        at = 0;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    /// The words of a filing's text as the phrase tests build queries from them (lower case, alphanumeric runs).
    pub(crate) fn lowercase_words(text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
    }

    use std::sync::OnceLock;

    use super::TOTAL_CAP;
    use crate::corpus::{generate, GenOptions};
    use crate::index::{normalize_form, BuildOptions, SearchIndex, SearchRequest, SearchResult};

    /// More synthetic filings than the count cap, indexed once for every test here.
    fn index() -> &'static SearchIndex {
        static INDEX: OnceLock<SearchIndex> = OnceLock::new();
        INDEX.get_or_init(|| SearchIndex::build(generate(TOTAL_CAP + 2_000, 11, &GenOptions::large())).unwrap())
    }

    fn request(query: &str, forms: &[&str], from: Option<&str>, limit: usize) -> SearchRequest {
        let date = |d: &str| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap();
        SearchRequest {
            query: query.into(),
            forms: forms.iter().map(|f| normalize_form(f)).collect(),
            from: from.map(date),
            to: None,
            limit,
            after: None,
            snippets: false,
        }
    }

    fn ranking(result: &SearchResult) -> Vec<(u32, u64)> {
        result.hits.iter().map(|h| (h.score.to_bits(), h.key.1)).collect()
    }

    #[test]
    fn totals_are_exact_up_to_the_cap_and_a_lower_bound_beyond() {
        let index = index();
        let all = index.search(&request("*", &[], None, 10)).unwrap();
        assert_eq!((all.total, all.total_exact), (TOTAL_CAP, false), "{} filings match `*`", index.len());
        assert_eq!(all.hits.len(), 10, "the page is served whatever the count");
        let common = index.search(&request("report", &[], None, 10)).unwrap();
        assert!(common.total <= TOTAL_CAP);
        // Below the cap the count is exact: the filtered matches add up to the unfiltered ones.
        let forms = ["10-K", "10-Q", "8-K", "S-1", "DEF 14A", "13F-HR", "4", "SC 13G"];
        let per_form: Vec<SearchResult> =
            forms.iter().map(|f| index.search(&request("impairment", &[f], None, 1)).unwrap()).collect();
        let whole = index.search(&request("impairment", &[], None, 1)).unwrap();
        assert!(whole.total_exact && whole.total < TOTAL_CAP && whole.total > 0, "{}", whole.total);
        assert!(per_form.iter().all(|r| r.total_exact));
        assert_eq!(per_form.iter().map(|r| r.total).sum::<usize>(), whole.total);
    }

    #[test]
    fn pruned_ranking_equals_scoring_every_match() {
        let index = index();
        let queries = [
            "revenue",
            "hydrogen",
            "supply chain",
            "\"supply chain\"",
            "\"share repurchase program\"",
            "tariffs OR export",
            "dividend OR repurchase -quarter",
            "entity:orchard",
            "\"supply chain\" -tariffs",
            "(goodwill OR impairment) \"material weakness\"",
            "\"supply chain\"~2",
            "*",
            // Fields indexed without term frequencies, alone (under a filter: the pruned clause path) and beside text.
            "form:8-K",
            "form:10-K revenue",
        ];
        for query in queries {
            for (forms, from) in [(&[][..], None), (&["10-K", "8-K"][..], Some("2015-01-01"))] {
                for limit in [1, 10, 101] {
                    let req = request(query, forms, from, limit);
                    assert_page_and_next_equal_scoring_every_match(
                        index,
                        req,
                        &format!("{query} {forms:?} {from:?} limit {limit}"),
                    );
                }
            }
        }
    }

    /// Phrases whose words also occur apart (`impairment` twice in an 8-K's "Material Impairments ... goodwill
    /// impairment", `chain` in "Chain of custody ... supply"), so a phrase's frequency is below some of its
    /// words' and a bound taken from the wrong word, or too tight, would drop hits.
    const PHRASES: &[&str] = &[
        "\"supply chain\"",
        "\"goodwill impairment\"",
        "\"goodwill impairment charge\"",
        "\"cybersecurity incident\"",
        "\"material weakness\"",
        "\"share repurchase program\"",
        "\"chain of custody\"",
        "\"supply chain costs\"",
        "\"interest rates\"",
        "\"incident response plan\"",
        "\"material impairments\"",
        "\"reporting unit\"",
        "\"supply chain\" \"material weakness\"",
        "\"goodwill impairment\" OR \"cybersecurity incident\"",
        "\"supply chain\" -tariffs",
        "entity:\"orchard computing\"",
        "\"orchard computing\"",
        "\"no such phrase\"",
        "cybersecurity",
        "impairment",
        // Words (a query that is its own union: counted from the dictionary or the postings, ranked by WAND over
        // the query itself), in the text only, in the entity and the text, in the entity field alone, and words
        // in more filings than the count's cap.
        "revenue",
        "orchard",
        "entity:orchard",
        "the",
        "company",
        "inc",
    ];

    /// Form and date filters: none, forms, dates (bounded on either side or both), and both.
    const FILTERS: &[(&[&str], Option<&str>, Option<&str>)] = &[
        (&[], None, None),
        (&["10-K", "10-Q"], None, None),
        (&["8-K"], Some("2020-01-01"), Some("2024-12-31")),
        (&[], Some("2015-01-01"), Some("2019-12-31")),
        (&[], None, Some("2009-06-30")),
        (&["10-K", "8-K", "S-1"], Some("2021-03-01"), None),
        (&["DEF 14A"], Some("2030-01-01"), None),
    ];

    /// One request's page, its total (capped) and the page after its last hit, against scoring every match: by
    /// the pruned ranking, and by [`SearchIndex::search`] (from the matches kept in rank order where the text has
    /// few).
    fn assert_page_and_next_equal_scoring_every_match(index: &SearchIndex, mut req: SearchRequest, what: &str) {
        let exhaustive = index.search_exhaustive(&req).unwrap();
        let capped = (exhaustive.total.min(TOTAL_CAP), exhaustive.total <= TOTAL_CAP);
        for (how, searched) in [("pruned", index.search_pruned(&req).unwrap()), ("kept", index.search(&req).unwrap())] {
            assert_eq!(ranking(&searched), ranking(&exhaustive), "{what} ({how})");
            assert_eq!((searched.total, searched.total_exact), capped, "{what} ({how})");
        }
        if let Some(last) = exhaustive.hits.last() {
            req.after = Some(last.key);
            let exhaustive = index.search_exhaustive(&req).unwrap();
            for searched in [index.search_pruned(&req).unwrap(), index.search(&req).unwrap()] {
                assert_eq!(ranking(&searched), ranking(&exhaustive), "{what} after {:?}", last.key);
            }
        }
    }

    /// Every phrase and filter, two pages deep, against scoring every match.
    fn assert_rankings_equal_scoring_every_match(index: &SearchIndex) {
        for query in PHRASES {
            for &(forms, from, to) in FILTERS {
                for limit in [1, 10, 37] {
                    let mut req = request(query, forms, from, limit);
                    req.to = to.map(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap());
                    let what = format!("{query} {forms:?} {from:?}..{to:?} limit {limit}");
                    assert_page_and_next_equal_scoring_every_match(index, req, &what);
                }
            }
        }
    }

    #[test]
    fn phrase_rankings_and_totals_with_filters_equal_scoring_every_match() {
        assert_rankings_equal_scoring_every_match(index());
    }

    /// The same over several segments whose places interleave (ties then scored, not settled by the order),
    /// and with date ranges checked document by document instead of as runs of newest-first documents.
    #[test]
    fn phrase_rankings_equal_scoring_every_match_over_segments_and_unordered_dates() {
        let filings = generate(TOTAL_CAP + 2_000, 13, &GenOptions::large());
        let opts = BuildOptions { writer_heap_bytes: 30_000_000, threads: 2, merge: false };
        let mut index = SearchIndex::build_with(filings, opts).unwrap();
        assert!(index.segment_count() > 1, "{} segment(s)", index.segment_count());
        assert_rankings_equal_scoring_every_match(&index);
        index.forget_date_order();
        assert_rankings_equal_scoring_every_match(&index);
    }

    /// A search's statistics are the searcher's, asked once: over several segments, 400 words of generated
    /// filings' texts (lower-cased, not stemmed: some are terms, some are not), `a`, and a word no filing holds, on
    /// both text fields, asked twice in turn with the fields' tokens and the documents' count between.
    #[test]
    fn a_searchs_statistics_are_the_searchers() {
        use tantivy::query::Bm25StatisticsProvider;
        let filings = generate(3_000, 5, &GenOptions::large());
        let words: std::collections::BTreeSet<String> =
            filings.iter().flat_map(|f| f.text.split_whitespace().map(str::to_lowercase)).take(400).collect();
        let opts = BuildOptions { writer_heap_bytes: 30_000_000, threads: 2, merge: false };
        let index = SearchIndex::build_with(filings, opts).unwrap();
        assert!(index.segment_count() > 1, "{} segment(s)", index.segment_count());
        let searcher = index.searcher();
        let stats = super::Statistics::new(searcher);
        let schema = searcher.schema();
        let fields = [schema.get_field("entity").unwrap(), schema.get_field("text").unwrap()];
        let mut held = 0;
        for _ in 0..2 {
            for word in words.iter().map(String::as_str).chain(["zzzzqx", "a"]) {
                for field in fields {
                    let term = tantivy::Term::from_field_text(field, word);
                    let docs = stats.doc_freq(&term).unwrap();
                    assert_eq!(docs, searcher.doc_freq(&term).unwrap(), "{word} in {field:?}");
                    held += usize::from(docs > 0);
                    assert_eq!(stats.total_num_tokens(field).unwrap(), searcher.total_num_tokens(field).unwrap());
                }
                assert_eq!(stats.total_num_docs().unwrap(), searcher.num_docs());
            }
        }
        assert!(held > 100, "{held} terms found (twice each)");
    }

    /// Forms as postings (a share of 0: no form gets bits), as bits, and both in one filter (a share of 12
    /// leaves S-1, about 4% of the filings, and DEF 14A, 7%, to postings, and gives 10-K, 10-Q and 8-K bits),
    /// over several segments, the bits built once and reused by every later query: the same rankings and
    /// totals as scoring every match.
    #[test]
    fn form_bits_and_postings_equal_scoring_every_match_over_segments() {
        let filings = generate(TOTAL_CAP + 2_000, 17, &GenOptions::large());
        let opts = BuildOptions { writer_heap_bytes: 30_000_000, threads: 2, merge: false };
        let mut index = SearchIndex::build_with(filings, opts).unwrap();
        let segments = index.segment_count();
        assert!(segments > 1, "{segments} segment(s)");
        let forms = ["10-K", "10-Q", "8-K", "S-1", "DEF 14A"];
        for share in [0, 12, super::BITS_MIN_SHARE] {
            index.set_form_bits_share(share);
            assert_rankings_equal_scoring_every_match(&index);
            // A form gets bits in a segment where it covers at least the share of that segment's filings, and
            // which filings a segment holds depends on the writer's threads (a small last segment can be all one
            // form, or hold S-1 above 1/12, and 8-K fall under it): every query of FILTERS reaches every
            // segment, so the pairs built are exactly the pairs eligible, counted from the segments' postings.
            let held = index.form_bits_held();
            assert_eq!(held, index.form_bits_eligible(share, &forms), "share {share}: (segment, form) bits");
            assert_eq!(held == 0, share == 0, "share {share}: {held} over {segments} segments");
            // Again on the bits already built, with date ranges checked document by document: none built again.
            index.forget_date_order();
            assert_rankings_equal_scoring_every_match(&index);
            assert_eq!(index.form_bits_held(), held, "share {share}: the bits built are reused");
        }
    }

    /// A bare phrase's count goes through the plugin's own phrase check (`crate::phrase`): over the demo seed,
    /// phrases from its texts (consecutive words, and a word twice), with every filter of [`FILTERS`], the
    /// count and two pages equal scoring every match with tantivy's phrase query.
    #[test]
    fn seed_phrases_count_and_rank_as_scoring_every_match() {
        let filings = crate::corpus::seed_snapshot().filings;
        let index = SearchIndex::build(filings.clone()).unwrap();
        let mut phrases = std::collections::BTreeSet::new();
        for filing in &filings {
            let words = lowercase_words(&filing.text);
            for w in words.windows(2) {
                phrases.insert(format!("\"{} {}\"", w[0], w[1]));
                phrases.insert(format!("\"{} {}\"", w[0], w[0]));
            }
        }
        let mut matched = 0;
        // Every third phrase keeps the test short; the phrase module's tests check the phrase check on all.
        for query in phrases.iter().step_by(3) {
            for &(forms, from, to) in FILTERS {
                let mut req = request(query, forms, from, 10);
                req.to = to.map(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap());
                matched += index.search(&req).unwrap().total;
                assert_page_and_next_equal_scoring_every_match(
                    &index,
                    req,
                    &format!("{query} {forms:?} {from:?}..{to:?}"),
                );
            }
        }
        assert!(matched > 1_000, "{matched}");
    }

    /// The bound itself, filing by filing: the summed clause bounds (each the least of its terms' scaled
    /// scores) are never below the exact score of any filing the query matches, and every match holds all the
    /// terms of some clause. A bound a hair too tight would only rarely change a top 10; this sees it.
    #[test]
    fn clause_bounds_are_never_below_the_score() {
        use tantivy::query::EnableScoring;
        use tantivy::{DocSet, TERMINATED};

        let index = index();
        let searcher = index.searcher();
        for query in PHRASES {
            let user = index.parse(query).unwrap();
            let mut clauses = Vec::new();
            assert!(super::bound_clauses(searcher, &*user, &mut clauses).unwrap(), "{query}");
            let mut weights = Vec::new();
            for clause in clauses.iter().cloned() {
                let mut terms = Vec::new();
                for (term, scale) in clause {
                    let weight = tantivy::query::Bm25Weight::for_terms(searcher, std::slice::from_ref(&term))
                        .unwrap()
                        .boost_by(scale * (1.0 + super::BOUND_INFLATION));
                    terms.push((term, weight));
                }
                weights.push(terms);
            }
            let user = user.weight(EnableScoring::enabled_from_searcher(searcher)).unwrap();
            let mut checked = 0;
            for segment in searcher.segment_readers() {
                let mut cursors: Vec<_> = (weights.iter().zip(&clauses))
                    .filter_map(|(w, clause)| {
                        let infos = super::BoundCursor::look_up(segment, clause).unwrap()?;
                        Some(super::BoundCursor::open_all(segment, w, &infos).unwrap())
                    })
                    .collect();
                let mut scorer = user.scorer(segment, 1.0).unwrap();
                while scorer.doc() != TERMINATED {
                    let doc = scorer.doc();
                    let mut bound = 0.0;
                    let mut held = false;
                    for terms in cursors.iter_mut() {
                        terms.iter_mut().for_each(|t| t.seek(doc));
                        if terms.iter().all(|t| t.doc() == doc) {
                            held = true;
                            bound += terms.iter().map(super::BoundCursor::score).fold(f32::INFINITY, f32::min);
                        }
                    }
                    let score = scorer.score();
                    assert!(held, "{query}: doc {doc} matches without holding a clause's terms");
                    assert!(bound >= score, "{query}: doc {doc} bound {bound} below its score {score}");
                    checked += 1;
                    scorer.advance();
                }
            }
            assert!(checked > 0 || query.contains("no such"), "{query} matched nothing");
        }
    }
}
