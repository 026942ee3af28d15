//! The ranked page of one search without scoring every match, and the capped count of matches.
//!
//! Top hits: block-max WAND (tantivy's pruned union) runs over an *upper-bound query*, a union of terms whose
//! summed BM25 scores are never below the user's query's score on a filing it matches: every term the query
//! scores, and for a phrase its rarest term, boosted by (the phrase's summed idf / that term's idf), since a
//! phrase scores like one term with the summed idf and a frequency no higher than any of its terms'. Each
//! candidate the union cannot rule out is checked against the filters and the user's query (seeking their
//! scorers to it) and scored exactly; the union skips every block whose best possible score is not above the
//! current last hit. A query the bound does not cover (`*`, ranges, regular expressions, sloppy phrases, ...)
//! is scored exhaustively. The tests check the pruned ranking against scoring every match.
//!
//! Count: matches are counted up to [`TOTAL_CAP`]; beyond it the total is a lower bound, as counting every one
//! of hundreds of thousands of matches (phrases position by position) would cost more than the search itself.

use std::collections::BinaryHeap;

use tantivy::columnar::ColumnValues;
use tantivy::query::{BooleanQuery, BoostQuery, EnableScoring, Occur, PhraseQuery, Query, Scorer, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, DocSet, Score, Searcher, SegmentReader, Term, COLLECT_BLOCK_BUFFER_LEN, TERMINATED};

use crate::index::{hit_key, HitKey};

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
}

impl Layout {
    /// Reads the places of every document once (at open).
    pub fn of(searcher: &Searcher, order_field: &str) -> tantivy::Result<Self> {
        let readers = searcher.segment_readers();
        let natural = Self { segments: (0..readers.len()).collect(), ties_settled: false };
        let mut ranges = Vec::with_capacity(readers.len());
        for (ord, segment) in readers.iter().enumerate() {
            let Some(places) = places(segment, order_field)? else { return Ok(natural) };
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
        Ok(Self { segments, ties_settled: true })
    }

    pub fn ties_settled(&self) -> bool {
        self.ties_settled
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
pub struct Ranked {
    pub score: Score,
    pub place: u64,
    pub addr: DocAddress,
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

/// BM25's idf, as tantivy computes it (`ln(1 + (N - n + 0.5) / (n + 0.5))`).
fn idf(searcher: &Searcher, term: &Term) -> tantivy::Result<Score> {
    let docs = searcher.num_docs() as Score;
    let with_term = searcher.doc_freq(term)? as Score;
    Ok((1.0 + (docs - with_term + 0.5) / (with_term + 0.5)).ln())
}

/// The terms (each with a boost) whose summed BM25 scores bound the score of `query` on every filing it
/// matches; false when the query holds a clause the bound does not cover.
fn bound_terms(searcher: &Searcher, query: &dyn Query, terms: &mut Vec<(Term, Score)>) -> tantivy::Result<bool> {
    if let Some(term) = query.downcast_ref::<TermQuery>() {
        terms.push((term.term().clone(), 1.0));
        return Ok(true);
    }
    if let Some(phrase) = query.downcast_ref::<PhraseQuery>() {
        // Only an exact phrase: its frequency is at most each of its terms' (a sloppy match may reuse a term's
        // position). tantivy exposes the slop only through Debug.
        if !format!("{phrase:?}").ends_with("slop: 0 }") {
            return Ok(false);
        }
        // A phrase scores like one term with the summed idf of all of them and the phrase's frequency, which
        // is at most the rarest term's: so that term, boosted by (summed idf / its idf), bounds it, and only
        // filings holding it are candidates.
        let mut idfs = Vec::new();
        for term in phrase.phrase_terms() {
            let idf = idf(searcher, &term)?;
            idfs.push((term, idf));
        }
        let sum: Score = idfs.iter().map(|(_, idf)| idf).sum();
        let Some((rarest, idf)) = idfs.into_iter().max_by(|a, b| a.1.total_cmp(&b.1)) else { return Ok(false) };
        terms.push((rarest, if idf > 0.0 { sum / idf } else { 1.0 }));
        return Ok(true);
    }
    if let Some(boolean) = query.downcast_ref::<BooleanQuery>() {
        let mut scored = false;
        for (occur, clause) in boolean.clauses() {
            // An excluded clause never adds to a score; the exact check applies it.
            if *occur == Occur::MustNot {
                continue;
            }
            if !bound_terms(searcher, clause.as_ref(), terms)? {
                return Ok(false);
            }
            scored = true;
        }
        return Ok(scored);
    }
    Ok(false)
}

/// The fast field of places, per segment.
type Places = std::sync::Arc<dyn ColumnValues<u64>>;

fn places(segment: &SegmentReader, field: &str) -> tantivy::Result<Option<Places>> {
    Ok(segment.fast_fields().u64(field).ok().map(|c| c.first_or_default_col(0)))
}

/// The top `limit` hits of `user` among the filings `filter` matches (ranked by score, then place; those at or
/// before `after` left out). `full` is the same request as one query (user query and filters), scored
/// exhaustively when the user's query has no term bound; `exhaustive` forces that (the oracle of the tests).
#[allow(clippy::too_many_arguments)]
pub fn top_hits(
    searcher: &Searcher,
    user: &dyn Query,
    filter: Option<&dyn Query>,
    full: &dyn Query,
    order_field: &str,
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
    let mut terms = Vec::new();
    if !exhaustive && bound_terms(searcher, user, &mut terms)? {
        pruned(searcher, user, filter, terms, order_field, layout, &mut top)?;
    } else {
        every_match(searcher, full, order_field, layout, &mut top)?;
    }
    Ok(top.into_sorted())
}

/// Block-max WAND over the union of `terms`, each candidate checked and scored exactly.
fn pruned(
    searcher: &Searcher,
    user: &dyn Query,
    filter: Option<&dyn Query>,
    terms: Vec<(Term, Score)>,
    order_field: &str,
    layout: &Layout,
    top: &mut TopK,
) -> tantivy::Result<()> {
    let bound = BooleanQuery::new(
        terms
            .into_iter()
            .map(|(term, boost)| {
                let term = Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
                let bound = BoostQuery::new(term, boost * (1.0 + BOUND_INFLATION));
                (Occur::Should, Box::new(bound) as Box<dyn Query>)
            })
            .collect(),
    );
    let scoring = EnableScoring::enabled_from_searcher(searcher);
    let bound = bound.weight(scoring)?;
    let user = user.weight(scoring)?;
    let filter = filter.map(|f| f.weight(EnableScoring::disabled_from_searcher(searcher))).transpose()?;
    for &ord in &layout.segments {
        let segment = searcher.segment_reader(ord as u32);
        let places = places(segment, order_field)?;
        let mut user = user.scorer(segment, 1.0)?;
        let mut filter = filter.as_ref().map(|f| f.scorer(segment, 1.0)).transpose()?;
        let alive = segment.alive_bitset();
        let start = top.threshold();
        let mut candidate = |doc: DocId, _bound: Score| -> Score {
            // Scorers only move forward, and candidates come in document order.
            let matches = |scorer: &mut dyn Scorer| {
                if scorer.doc() < doc {
                    scorer.seek(doc);
                }
                scorer.doc() == doc
            };
            let alive = alive.is_none_or(|a| a.is_alive(doc));
            if alive && filter.as_mut().is_none_or(|f| matches(f.as_mut())) && matches(user.as_mut()) {
                let place = places.as_ref().map_or(0, |p| p.get_val(doc));
                top.offer(user.score(), place, DocAddress::new(ord as u32, doc));
            }
            top.threshold()
        };
        bound.for_each_pruning(start, segment, &mut candidate)?;
    }
    Ok(())
}

/// Scores every match of `full` (tantivy still prunes when the query alone allows it).
fn every_match(
    searcher: &Searcher,
    full: &dyn Query,
    order_field: &str,
    layout: &Layout,
    top: &mut TopK,
) -> tantivy::Result<()> {
    let full = full.weight(EnableScoring::enabled_from_searcher(searcher))?;
    for &ord in &layout.segments {
        let segment = searcher.segment_reader(ord as u32);
        let places = places(segment, order_field)?;
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

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use super::TOTAL_CAP;
    use crate::corpus::{generate, GenOptions};
    use crate::index::{normalize_form, SearchIndex, SearchRequest, SearchResult};

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
        ];
        for query in queries {
            for (forms, from) in [(&[][..], None), (&["10-K", "8-K"][..], Some("2015-01-01"))] {
                for limit in [1, 10, 101] {
                    let mut req = request(query, forms, from, limit);
                    let exhaustive = index.search_exhaustive(&req).unwrap();
                    let pruned = index.search(&req).unwrap();
                    assert_eq!(ranking(&pruned), ranking(&exhaustive), "{query} {forms:?} {from:?} limit {limit}");
                    let capped = (exhaustive.total.min(TOTAL_CAP), exhaustive.total <= TOTAL_CAP);
                    assert_eq!((pruned.total, pruned.total_exact), capped, "{query}");
                    // The next page too, after the last hit of this one.
                    if let Some(last) = exhaustive.hits.last() {
                        req.after = Some(last.key);
                        let exhaustive = index.search_exhaustive(&req).unwrap();
                        let pruned = index.search(&req).unwrap();
                        assert_eq!(ranking(&pruned), ranking(&exhaustive), "{query} after {:?}", last.key);
                    }
                }
            }
        }
    }
}
