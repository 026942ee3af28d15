//! A query's matches, every one scored and put in rank order, kept with its prepared form (`index::Prepared`)
//! when there are few ([`RANKED_CAP`]): a later search of the same text, with any page size, cursor, dates or
//! forms, reads its page and its exact total off the list instead of walking postings, scoring and counting
//! again.
//!
//! Why: a one-word search of the demo seed spent about a quarter of its instructions in the pruned ranking and
//! the count (`topk`), work that depends on the text alone but for which matches the filters leave. A user
//! paging through a query's hits, or narrowing it by date or form, asks the same text again and again. The
//! scores are the user weight's scorer's, the same the pruned ranking and the exhaustive oracle give; the tests
//! compare every page, cursor and total with the oracle's.

use tantivy::query::{Bm25StatisticsProvider, Query, Weight};
use tantivy::{DocAddress, DocId, DocSet, Searcher, TERMINATED};

use crate::index::HitKey;
use crate::topk::{self, Filters, Layout, Ranked};

/// Most matches a query's list holds: a query the bound puts on more filings than this is ranked by the pruned
/// search every time (a list of a common word would weigh more than the walk it saves). 24 bytes a match
/// (28 with its place in document order): 28 KB at most per prepared text.
pub(crate) const RANKED_CAP: usize = 1_024;

/// Every match of one query, in rank order.
pub(crate) struct RankedMatches {
    /// Rank order: highest score first, then lowest place ([`HitKey`] ascending).
    matches: Box<[Ranked]>,
    /// Positions in `matches` by (segment, document): the order a filter's docset is walked in.
    by_doc: Box<[u32]>,
}

impl RankedMatches {
    /// Every match of `query` (`weight` its scoring weight), when its bound's clauses put it on at most `cap`
    /// filings; `None` for a query the bound does not cover or that may match more.
    pub(crate) fn of(
        stats: &dyn Bm25StatisticsProvider,
        searcher: &Searcher,
        (query, weight): (&dyn Query, &dyn Weight),
        layout: &Layout,
        cap: usize,
    ) -> tantivy::Result<Option<Self>> {
        let mut clauses = Vec::new();
        if cap == 0 || !topk::bound_clauses(stats, query, &mut clauses)? {
            return Ok(None);
        }
        // Every match holds all the terms of some clause: at most the sum, over the clauses, of their rarest
        // term's filings.
        let mut most = 0u64;
        for clause in &clauses {
            let mut rarest = u64::MAX;
            for (term, _) in clause {
                rarest = rarest.min(stats.doc_freq(term)?);
            }
            most = most.saturating_add(rarest);
        }
        if most > cap as u64 {
            return Ok(None);
        }
        let mut matches = Vec::with_capacity(most as usize);
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            let places = layout.places(ord);
            let alive = segment.alive_bitset();
            // The scorer the pruned ranking checks and scores its candidates with: the same scores, bit for bit.
            let mut scorer = weight.scorer(segment, 1.0)?;
            let mut doc = scorer.doc();
            while doc != TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    let place = places.map_or(0, |p| p.get_val(doc));
                    matches.push(Ranked { score: scorer.score(), place, addr: DocAddress::new(ord as u32, doc) });
                }
                doc = scorer.advance();
            }
        }
        matches.sort_unstable_by_key(Ranked::key);
        let mut by_doc: Vec<u32> = (0..matches.len() as u32).collect();
        by_doc.sort_unstable_by_key(|&i| {
            let addr = matches[i as usize].addr;
            (addr.segment_ord, addr.doc_id)
        });
        Ok(Some(Self { matches: matches.into_boxed_slice(), by_doc: by_doc.into_boxed_slice() }))
    }

    /// How many matches the list holds (tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.matches.len()
    }

    /// Bytes held (what the cache of prepared texts weighs it by).
    pub(crate) fn heap_bytes(&self) -> u64 {
        (std::mem::size_of_val(&*self.matches) + std::mem::size_of_val(&*self.by_doc)) as u64
    }

    /// The matches `filters` leave ranked after `after`, at most `limit` of them, and how many matches the
    /// filters leave in all (the exact total: a list holds every match).
    pub(crate) fn page(
        &self,
        searcher: &Searcher,
        filters: &Filters,
        layout: &Layout,
        limit: usize,
        after: Option<HitKey>,
    ) -> tantivy::Result<(Vec<Ranked>, usize)> {
        let first = after.map_or(0, |after| self.matches.partition_point(|m| m.key() <= after));
        let limit = limit.max(1);
        let mut hits = Vec::with_capacity(limit.min(self.matches.len() - first));
        let mut total = 0;
        // One pass in rank order: every match that passes is counted, the first `limit` after the cursor served.
        let mut take = |i: usize, m: &Ranked| {
            total += 1;
            if i >= first && hits.len() < limit {
                hits.push(*m);
            }
        };
        match self.passing(searcher, filters, layout)? {
            Passing::All => self.matches.iter().enumerate().for_each(|(i, m)| take(i, m)),
            Passing::Runs(runs) => {
                for (i, m) in self.matches.iter().enumerate() {
                    if runs[m.addr.segment_ord as usize].contains(&m.addr.doc_id) {
                        take(i, m);
                    }
                }
            }
            Passing::Marked(passes) => {
                for (i, m) in self.matches.iter().enumerate() {
                    if passes[i] {
                        take(i, m);
                    }
                }
            }
        }
        Ok((hits, total))
    }

    /// Which matches pass `filters`.
    fn passing(&self, searcher: &Searcher, filters: &Filters, layout: &Layout) -> tantivy::Result<Passing> {
        if filters.forms.is_empty() && filters.dates.is_none() {
            return Ok(Passing::All);
        }
        let weights = topk::FilterWeights::new(searcher, filters)?;
        let segments = searcher.segment_readers();
        let mut runs = Vec::with_capacity(segments.len());
        let mut docsets = Vec::new();
        for (ord, segment) in segments.iter().enumerate() {
            let topk::SegmentFilter { docs, docset } = weights.segment(layout, ord, segment)?;
            runs.push(docs);
            docsets.push(docset);
        }
        if docsets.iter().all(Option::is_none) {
            // Dates as runs of documents (they lie newest first) and no forms: a range check per match.
            return Ok(Passing::Runs(runs));
        }
        let mut passes = vec![false; self.matches.len()];
        // Documents ascending, segment by segment: a filter's docset only moves forward.
        for &i in self.by_doc.iter() {
            let addr = self.matches[i as usize].addr;
            let ord = addr.segment_ord as usize;
            passes[i as usize] = topk::passes_filters(&runs[ord], docsets[ord].as_deref_mut(), addr.doc_id);
        }
        Ok(Passing::Marked(passes))
    }
}

/// Which matches of a list pass a search's filters.
enum Passing {
    /// All (there are none).
    All,
    /// Those whose document lies in its segment's run (by segment ordinal).
    Runs(Vec<std::ops::Range<DocId>>),
    /// Per match, in rank order.
    Marked(Vec<bool>),
}

#[cfg(test)]
mod tests {
    use crate::index::{normalize_form, SearchIndex, SearchRequest, SearchResult};

    fn date(d: &str) -> chrono::NaiveDate {
        chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap()
    }

    fn ranking(result: &SearchResult) -> Vec<(u32, u64)> {
        result.hits.iter().map(|h| (h.score.to_bits(), h.key.1)).collect()
    }

    /// The seed's words (every fifth), two-word searches and phrases of them: what the demo serves.
    fn seed_queries() -> Vec<String> {
        let filings = crate::corpus::seed_snapshot().filings;
        let mut words: Vec<String> =
            filings.iter().flat_map(|f| crate::topk::tests::lowercase_words(&f.text)).filter(|w| w.len() > 2).collect();
        words.sort();
        words.dedup();
        let mut queries: Vec<String> = words.iter().step_by(5).cloned().collect();
        queries.extend(words.windows(2).step_by(23).map(|w| format!("{} {}", w[0], w[1])));
        queries.extend(words.windows(2).step_by(29).map(|w| format!("\"{} {}\"", w[0], w[1])));
        queries.extend(
            ["revenue OR income", "risk -cybersecurity", "entity:orchard", "form:8-K revenue"].map(String::from),
        );
        queries
    }

    /// Every page of a search, followed by its cursor to the end: the same hits (scores bit for bit, places)
    /// and the same exact total as scoring every match, with and without forms and dates, for every seed
    /// query whose matches are kept; and most of them are.
    #[test]
    fn pages_and_totals_from_kept_matches_equal_scoring_every_match() {
        let index = SearchIndex::build(crate::corpus::seed_snapshot().filings).unwrap();
        let filters: &[(&[&str], Option<&str>, Option<&str>)] = &[
            (&[], None, None),
            (&[], Some("2024-01-01"), None),
            (&[], None, Some("2023-06-30")),
            (&["8-K", "10-Q"], None, None),
            (&["4"], Some("2022-01-01"), Some("2025-12-31")),
            (&["DEF 14A"], Some("2030-01-01"), None),
        ];
        let (mut kept, mut pages) = (0, 0);
        for query in seed_queries() {
            for &(forms, from, to) in filters {
                for limit in [1, 7, 100] {
                    let mut req = SearchRequest {
                        query: query.clone(),
                        forms: forms.iter().map(|f| normalize_form(f)).collect(),
                        from: from.map(date),
                        to: to.map(date),
                        limit,
                        after: None,
                        snippets: false,
                    };
                    let what = format!("{query:?} {forms:?} {from:?}..{to:?} limit {limit}");
                    loop {
                        let ours = index.search(&req).unwrap();
                        let oracle = index.search_exhaustive(&req).unwrap();
                        assert_eq!(ranking(&ours), ranking(&oracle), "{what} after {:?}", req.after);
                        assert_eq!((ours.total, ours.total_exact), (oracle.total, true), "{what}");
                        pages += 1;
                        match oracle.hits.last() {
                            Some(last) if oracle.hits.len() == limit => req.after = Some(last.key),
                            _ => break,
                        }
                    }
                }
            }
            kept += usize::from(index.kept_matches(&query).is_some());
        }
        let queries = seed_queries().len();
        assert!(kept * 10 >= queries * 9, "{kept} of {queries} seed queries kept their matches");
        assert!(pages > 15_000, "{pages} pages compared");
    }

    /// A text the bound puts on more filings than the cap is not kept, and is still answered (by the pruned
    /// search) as scoring every match answers it; one under the cap keeps every match.
    #[test]
    fn a_text_on_more_filings_than_the_cap_is_ranked_by_the_pruned_search() {
        let mut index = SearchIndex::build(crate::corpus::seed_snapshot().filings).unwrap();
        index.set_ranked_cap(40);
        let req = |query: &str| SearchRequest { query: query.into(), limit: 10, ..Default::default() };
        let (mut over, mut under) = (0, 0);
        for query in seed_queries().iter().step_by(3) {
            let oracle = index.search_exhaustive(&req(query)).unwrap();
            let ours = index.search(&req(query)).unwrap();
            assert_eq!(ranking(&ours), ranking(&oracle), "{query:?}");
            assert_eq!(ours.total, oracle.total, "{query:?}");
            match index.kept_matches(query) {
                Some(kept) => {
                    assert_eq!(kept, oracle.total, "{query:?}: every match kept");
                    under += 1;
                }
                // The bound (the rarest term's filings per clause, summed) is at least the matches.
                None => over += usize::from(oracle.total > 0),
            }
        }
        assert!(over > 10 && under > 50, "{over} texts over the cap, {under} under");
    }
}
