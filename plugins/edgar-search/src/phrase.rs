//! An exact phrase checked on its words' positions by the plugin itself, for the count of a phrase's matches
//! (`topk::count_matches`): the same answer as tantivy's phrase scorer, found with less work per filing.
//!
//! Why: counting `"supply chain"` among 10-K and 10-Q filings checks the positions of about 18,000 filings,
//! and tantivy's scorer, for each word in each of them, sums the frequencies of the documents before it in
//! its block (up to 127 additions) to find where its positions start, zeroes a buffer, then reads them. Here
//! each word's cursor keeps that place as it walks (the frequencies of the documents it passes are added once),
//! reads the positions into buffers that are reused, and stops at the first place the words line up.
//!
//! The place where a word's positions start is the sum of the frequencies of every document before it in the
//! segment's postings of the word. tantivy keeps the sum per block in its skip list, which is not public, so a
//! cursor here walks the blocks one after the other instead of skipping (a block passed costs its decoding).
//! [`Phrase::worth_it`] keeps that walk to phrases whose words are not much more common than the rarest, and to
//! runs of documents that do not start far into a segment.

use tantivy::directory::CompositeFile;
use tantivy::index::SegmentComponent;
use tantivy::positions::PositionReader;
use tantivy::postings::BlockSegmentPostings;
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, Searcher, SegmentReader, Term, TERMINATED};

/// Documents per block of postings (tantivy's, fixed by its format).
const COMPRESSION_BLOCK_SIZE: usize = 128;

/// A word may be at most this many times as common (in documents) as the phrase's rarest for the own check:
/// its cursor decodes every block of the word it passes (`128` documents each), where tantivy's skips to the
/// block of the next candidate, so a much more common word would cost more blocks than it saves additions.
const MAX_DENSITY_RATIO: u64 = 64;

/// Blocks of postings the cursors may walk through before the first document asked (a date range's run that
/// starts late in a segment): decoding one costs about as much as a few phrase checks.
const MAX_BLOCKS_BEFORE: u64 = 1_024;

/// An exact phrase (no slop) whose words follow one another (no gap left by a word the tokenizer dropped),
/// as the plugin checks it.
#[derive(Debug, Clone)]
pub struct Phrase {
    /// The phrase's words in order, each with what is added to its positions so that the words of one
    /// occurrence all land on the same number: the count of words after it.
    words: Vec<(Term, u32)>,
}

impl Phrase {
    /// The phrase `query` is, when it is an exact phrase of consecutive words on a field with positions;
    /// `None` for anything else (tantivy's scorer then checks it).
    pub fn of(searcher: &Searcher, query: &dyn Query) -> Option<Self> {
        let phrase = query.downcast_ref::<PhraseQuery>()?;
        let terms = phrase.phrase_terms();
        // tantivy exposes neither a phrase's offsets nor its slop except through Debug: the same terms as a new
        // phrase (offsets 0, 1, 2, ..., slop 0) print the same only when the query has those too.
        if terms.len() < 2 || format!("{:?}", PhraseQuery::new(terms.clone())) != format!("{phrase:?}") {
            return None;
        }
        let positions = searcher
            .schema()
            .get_field_entry(phrase.field())
            .field_type()
            .get_index_record_option()
            .is_some_and(IndexRecordOption::has_positions);
        if !positions {
            return None;
        }
        let last = terms.len() as u32 - 1;
        Some(Self { words: terms.into_iter().enumerate().map(|(i, term)| (term, last - i as u32)).collect() })
    }

    /// The phrases `query` is the union of (one phrase, or a `BooleanQuery` of only optional clauses, each
    /// such a union: the parser's reading of `"supply chain"` over the entity and the text fields), when every
    /// one is an exact phrase of consecutive words ([`Self::of`]); `None` for anything else.
    pub fn union_of(searcher: &Searcher, query: &dyn Query) -> Option<Vec<Self>> {
        if let Some(phrase) = Self::of(searcher, query) {
            return Some(vec![phrase]);
        }
        let boolean = query.downcast_ref::<BooleanQuery>()?;
        // Only optional clauses, at least one of which must match (a pure union also requires one).
        if boolean.get_minimum_number_should_match() > 1 {
            return None;
        }
        let mut phrases = Vec::new();
        for (occur, clause) in boolean.clauses() {
            if *occur != Occur::Should {
                return None;
            }
            phrases.extend(Self::union_of(searcher, clause.as_ref())?);
        }
        (!phrases.is_empty()).then_some(phrases)
    }

    /// Whether the own check pays in `segment` for documents from `first` on: every word at most
    /// [`MAX_DENSITY_RATIO`] times as common there as the rarest, and the blocks its cursors walk through before
    /// `first` (tantivy's skip list jumps them) about [`MAX_BLOCKS_BEFORE`] at most, words spread evenly.
    /// Otherwise tantivy's scorer is used. `None` when a word does not occur there (nothing matches).
    pub fn worth_it(&self, segment: &SegmentReader, first: DocId) -> tantivy::Result<Option<bool>> {
        let mut freqs = Vec::with_capacity(self.words.len());
        for (term, _) in &self.words {
            match segment.inverted_index(term.field())?.get_term_info(term)? {
                Some(info) => freqs.push(u64::from(info.doc_freq)),
                None => return Ok(None),
            }
        }
        let rarest = freqs.iter().copied().min().unwrap_or(0);
        let dense = freqs.iter().any(|&f| f > rarest.saturating_mul(MAX_DENSITY_RATIO));
        let before: u64 = freqs.iter().sum::<u64>() * u64::from(first) / u64::from(segment.max_doc().max(1));
        Ok(Some(!dense && before <= MAX_BLOCKS_BEFORE * COMPRESSION_BLOCK_SIZE as u64))
    }

    /// The check in `segment`; `None` when a word does not occur there (nothing matches).
    pub fn check(&self, segment: &SegmentReader) -> tantivy::Result<Option<PhraseCheck>> {
        let field = self.words[0].0.field();
        let composite = CompositeFile::open(&segment.open_read(SegmentComponent::Positions)?)?;
        let Some(positions) = composite.open_read(field) else { return Ok(None) };
        let index = segment.inverted_index(field)?;
        let mut words = Vec::with_capacity(self.words.len());
        for (term, shift) in &self.words {
            let Some(info) = index.get_term_info(term)? else { return Ok(None) };
            let Some(postings) = index.read_block_postings(term, IndexRecordOption::WithFreqs)? else {
                return Ok(None);
            };
            let positions = PositionReader::open(positions.slice(info.positions_range.clone()).read_bytes()?)?;
            words.push(Word { postings, at: 0, start: 0, positions, shift: *shift });
        }
        // The rarest first: a document most often lacks one of the others, which is then found out early.
        words.sort_by_key(|w| w.postings.doc_freq());
        Ok(Some(PhraseCheck { words, left: Vec::with_capacity(64), right: Vec::with_capacity(64) }))
    }
}

/// One word of a phrase in one segment: its postings, read block by block, and its positions.
struct Word {
    postings: BlockSegmentPostings,
    /// The current document's index in the loaded block.
    at: usize,
    /// Where the current document's positions start among the word's positions in the segment: the
    /// frequencies of every document before it, added as the cursor passes them.
    start: u64,
    positions: PositionReader,
    /// Added to each position (see [`Phrase`]).
    shift: u32,
}

impl Word {
    /// Moves to the first document at or after `target` (never back) and returns it (`TERMINATED` past the
    /// last).
    #[inline]
    fn seek(&mut self, target: DocId) -> DocId {
        // Most often the target is the current document or the next one.
        let docs = self.postings.docs();
        match docs.get(self.at) {
            Some(&doc) if doc >= target => return doc,
            Some(_) => {
                if let Some(&next) = docs.get(self.at + 1).filter(|&&next| next >= target) {
                    self.start += u64::from(self.postings.freqs()[self.at]);
                    self.at += 1;
                    return next;
                }
            }
            None => return TERMINATED,
        }
        loop {
            let docs = self.postings.docs();
            let Some(&last) = docs.last() else { return TERMINATED };
            let freqs = self.postings.freqs();
            if last < target {
                self.start += u64::from(freqs[self.at..].iter().sum::<u32>());
                self.postings.advance();
                self.at = 0;
                continue;
            }
            // The target is in this block, most often a few documents on. Eight documents at a time without a
            // branch per document (where the scan stops is hard to predict): those before the target are a
            // prefix of the eight, counted and their frequencies added.
            let (mut at, mut start) = (self.at, self.start);
            while let (Some(eight), Some(their)) = (docs.get(at..at + 8), freqs.get(at..at + 8)) {
                let (mut before, mut sum) = (0, 0);
                for (&doc, &freq) in eight.iter().zip(their) {
                    let is_before = u32::from(doc < target);
                    before += is_before;
                    sum += freq * is_before;
                }
                at += before as usize;
                start += u64::from(sum);
                if before < 8 {
                    break;
                }
            }
            while docs[at] < target {
                start += u64::from(freqs[at]);
                at += 1;
            }
            (self.at, self.start) = (at, start);
            return docs[at];
        }
    }

    /// The current document's positions, shifted, at the start of `buffer` (grown as needed, never shrunk or
    /// cleared); returns how many.
    #[inline]
    fn positions(&mut self, buffer: &mut Vec<u32>) -> usize {
        let freq = self.postings.freqs()[self.at] as usize;
        if buffer.len() < freq {
            buffer.resize(freq, 0);
        }
        let out = &mut buffer[..freq];
        self.positions.read(self.start, out);
        // Stored as the differences from the previous position in the document.
        let mut position = self.shift;
        for p in out.iter_mut() {
            position += *p;
            *p = position;
        }
        freq
    }
}

/// The phrase's check in one segment: [`Self::matches`] for documents in increasing order.
pub struct PhraseCheck {
    /// Rarest first.
    words: Vec<Word>,
    left: Vec<u32>,
    right: Vec<u32>,
}

impl PhraseCheck {
    /// The first document at or after `target` holding the phrase's rarest word (`TERMINATED` if none): every
    /// match holds it. `target` must not be below an earlier one.
    #[cfg(test)]
    pub fn next_candidate(&mut self, target: DocId) -> DocId {
        self.words[0].seek(target)
    }

    /// How many documents of `run` that `pass` accepts hold the phrase, counting at most `budget + 1`: the
    /// rarest word's documents are taken a block at a time, those `pass` accepts gathered without a branch
    /// (about a third pass under common forms, a branch would be mispredicted that often), then checked.
    pub fn count(&mut self, run: std::ops::Range<DocId>, pass: impl Fn(DocId) -> bool, budget: usize) -> usize {
        let mut count = 0;
        let mut candidates = [0 as DocId; COMPRESSION_BLOCK_SIZE];
        let mut target = run.start;
        loop {
            if self.words[0].seek(target) >= run.end {
                return count;
            }
            let lead = &self.words[0];
            let docs = &lead.postings.docs()[lead.at..];
            let within = docs.partition_point(|&doc| doc < run.end);
            let mut gathered = 0;
            for &doc in &docs[..within] {
                candidates[gathered] = doc;
                gathered += usize::from(pass(doc));
            }
            // Past the block (or the run).
            target = docs[within - 1] + 1;
            for &doc in &candidates[..gathered] {
                if self.matches(doc) {
                    count += 1;
                    if count > budget {
                        return count;
                    }
                }
            }
        }
    }

    /// Whether the phrase occurs in `doc`; `doc` must exceed every document asked before.
    #[inline]
    pub fn matches(&mut self, doc: DocId) -> bool {
        if !self.words.iter_mut().all(|word| word.seek(doc) == doc) {
            return false;
        }
        let (first, rest) = self.words.split_first_mut().expect("a phrase has two words or more");
        let mut left = first.positions(&mut self.left);
        let Some((last, middle)) = rest.split_last_mut() else { return left > 0 };
        for word in middle {
            let right = word.positions(&mut self.right);
            left = intersect(&mut self.left[..left], &self.right[..right]);
            if left == 0 {
                return false;
            }
        }
        let right = last.positions(&mut self.right);
        intersects(&self.left[..left], &self.right[..right])
    }
}

/// Keeps at the start of `left` the values also in `right` (both sorted); returns how many.
fn intersect(left: &mut [u32], right: &[u32]) -> usize {
    let (mut i, mut j, mut kept) = (0, 0, 0);
    while i < left.len() && j < right.len() {
        match left[i].cmp(&right[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                left[kept] = left[i];
                kept += 1;
                i += 1;
                j += 1;
            }
        }
    }
    kept
}

/// Whether two sorted lists share a value.
fn intersects(left: &[u32], right: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        match left[i].cmp(&right[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use tantivy::query::{BooleanQuery, EnableScoring, PhraseQuery, Query};
    use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
    use tantivy::{doc, DocId, DocSet, Index, Searcher, SegmentReader, Term, TERMINATED};

    use super::Phrase;
    use crate::corpus::{seed_snapshot, Rng};
    use crate::index::SearchIndex;

    /// The documents of `segment` tantivy's own phrase scorer matches.
    fn tantivy_matches(searcher: &Searcher, segment: &SegmentReader, query: &dyn Query) -> Vec<DocId> {
        let weight = query.weight(EnableScoring::disabled_from_searcher(searcher)).unwrap();
        let mut scorer = weight.scorer(segment, 1.0).unwrap();
        let mut docs = Vec::new();
        while scorer.doc() != TERMINATED {
            docs.push(scorer.doc());
            scorer.advance();
        }
        docs
    }

    /// Asks the own check about the documents of `probe` (increasing) and compares its answers with
    /// tantivy's matches among them, in every segment; returns the matches seen.
    fn assert_check_equals_tantivy(searcher: &Searcher, query: &PhraseQuery, what: &str) -> usize {
        let phrase = Phrase::of(searcher, query).unwrap_or_else(|| panic!("{what}: not an exact phrase"));
        let mut seen = 0;
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            let expected = tantivy_matches(searcher, segment, query);
            seen += expected.len();
            let Some(_) = phrase.worth_it(segment, 0).unwrap() else {
                assert!(expected.is_empty(), "{what}: a word is missing in segment {ord}, yet it matches");
                continue;
            };
            // Every document; every k-th from an offset (cursors skip documents, whole blocks of them, and
            // must keep the place of their positions); and the rarest word's documents, as the count walks.
            let max = segment.max_doc();
            let mut probes: Vec<(String, Vec<DocId>)> = vec![("every document".into(), (0..max).collect())];
            for (step, from) in [(2, 1), (3, 0), (7, 5), (50, 13), (129, 1), (300, 77), (1000, 999)] {
                probes.push((format!("every {step}th from {from}"), (from..max).step_by(step).collect()));
            }
            let mut check = phrase.check(segment).unwrap().expect("every word is in the segment");
            let mut rarest = Vec::new();
            let mut at = check.next_candidate(0);
            while at != TERMINATED {
                rarest.push(at);
                at = check.next_candidate(at + 1);
            }
            probes.push(("the rarest word's documents".into(), rarest));
            for (how, probe) in probes {
                let mut check = phrase.check(segment).unwrap().unwrap();
                let got: Vec<DocId> = probe.iter().copied().filter(|&doc| check.matches(doc)).collect();
                let want: Vec<DocId> =
                    probe.iter().copied().filter(|doc| expected.binary_search(doc).is_ok()).collect();
                assert_eq!(got, want, "{what}: segment {ord}, {how}");
            }
        }
        seen
    }

    /// Over the demo seed: every pair and triple of consecutive words of its texts (and the same word twice,
    /// three times) as a phrase, checked against tantivy's phrase scorer.
    #[test]
    fn phrase_check_equals_tantivy_on_the_demo_seed() {
        let index = SearchIndex::build(seed_snapshot().filings).unwrap();
        let searcher = index.searcher();
        let mut phrases = std::collections::BTreeSet::new();
        for filing in seed_snapshot().filings {
            let words = crate::topk::tests::lowercase_words(&filing.text);
            for w in words.windows(3) {
                phrases.insert(format!("\"{} {}\"", w[0], w[1]));
                phrases.insert(format!("\"{} {} {}\"", w[0], w[1], w[2]));
                phrases.insert(format!("\"{} {}\"", w[0], w[0]));
                phrases.insert(format!("\"{} {} {}\"", w[1], w[0], w[1]));
            }
        }
        let (mut checked, mut matched) = (0, 0);
        for text in &phrases {
            // The parser's reading: the phrase in the entity field or in the text.
            let query = index.parse(text).unwrap();
            let Some(union) = query.downcast_ref::<BooleanQuery>() else { continue };
            assert_eq!(Phrase::union_of(searcher, union).map(|p| p.len()), Some(2), "{text}");
            for (_, clause) in union.clauses() {
                let phrase = clause.downcast_ref::<PhraseQuery>().unwrap();
                matched += assert_check_equals_tantivy(searcher, phrase, text);
                checked += 1;
            }
        }
        assert!(checked > 1_000 && matched > 10_000, "{checked} phrases, {matched} matches");
    }

    /// A corpus of three words in several segments, so that phrases repeat and overlap (`"a a"` in `a a a`,
    /// `"a b a"` in `a b a b a`), words fill several blocks of 128 documents and documents hold hundreds of
    /// positions of a word (its positions span blocks of 128 too): a cursor's place among the positions that is
    /// off by one document or one block fails here.
    #[test]
    fn phrase_check_equals_tantivy_on_repeating_words_across_blocks_and_segments() {
        let mut schema = Schema::builder();
        let indexing = TextFieldIndexing::default().set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let text = schema.add_text_field("text", TextOptions::default().set_indexing_options(indexing));
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 20_000_000).unwrap();
        let mut rng = Rng::new(7);
        for segment in 0..3 {
            for _ in 0..1_500 + segment * 400 {
                // Mostly short documents, some of hundreds of words; `a` common, `c` rare, some documents
                // only `a`.
                let len = match rng.below(10) {
                    0 => 200 + rng.below(400),
                    1..=3 => 0,
                    _ => rng.below(12),
                };
                let only_a = rng.below(8) == 0;
                let words: Vec<&str> = (0..len)
                    .map(|_| match (only_a, rng.below(10)) {
                        (true, _) | (false, 0..=5) => "a",
                        (false, 6..=8) => "b",
                        _ => "c",
                    })
                    .collect();
                writer.add_document(doc!(text => words.join(" "))).unwrap();
            }
            writer.commit().unwrap();
        }
        let searcher = index.reader().unwrap().searcher();
        assert!(searcher.segment_readers().len() > 1);
        let term = |w: &str| Term::from_field_text(text, w);
        let mut phrases = Vec::new();
        for x in ["a", "b", "c"] {
            for y in ["a", "b", "c"] {
                phrases.push(vec![x, y]);
                for z in ["a", "b", "c"] {
                    phrases.push(vec![x, y, z]);
                }
            }
        }
        phrases.extend([vec!["a"; 4], vec!["a"; 9], vec!["a", "b", "a", "b"], vec!["c", "a", "a", "c"]]);
        let layout = crate::topk::Layout::of(&searcher, "order", "filed").unwrap();
        let no_filters = crate::topk::Filters { forms: &[], dates: None };
        for words in phrases {
            let query = PhraseQuery::new(words.iter().map(|w| term(w)).collect());
            let matched = assert_check_equals_tantivy(&searcher, &query, &words.join(" "));
            assert!(matched > 0 || words.iter().filter(|&&w| w == "c").count() > 1, "{words:?} matched nothing");
            // The count that uses the check, exact and capped (the cap reached in the first segment, in the
            // last, and not at all).
            for cap in [0, 1, 999, matched.saturating_sub(1), matched, usize::MAX - 1] {
                // Both count at least `cap + 1` when more match (`count_up_to` a buffer's worth past it).
                let counted = crate::topk::count_matches(
                    &crate::topk::Statistics::new(&searcher),
                    &query,
                    &no_filters,
                    &layout,
                    cap,
                )
                .unwrap();
                let expected = crate::topk::count_up_to(&searcher, &query, cap).unwrap();
                assert_eq!(counted.min(cap + 1), expected.min(cap + 1), "{words:?} up to {cap}");
            }
        }
        // Not for the own check: a gap between the words, or a slop.
        let gap = PhraseQuery::new_with_offset(vec![(0, term("a")), (2, term("b"))]);
        assert!(Phrase::of(&searcher, &gap).is_none());
        let mut sloppy = PhraseQuery::new(vec![term("a"), term("b")]);
        sloppy.set_slop(1);
        assert!(Phrase::of(&searcher, &sloppy).is_none());
    }
}
