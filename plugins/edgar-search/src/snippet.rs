//! The snippet of a hit: the fragment of its text that tantivy's `SnippetGenerator` would pick for the query's
//! terms, found at a fraction of the cost.
//!
//! Why: on the cold path (every query new, BENCHMARKS.md "Cold path") the snippets were most of the plugin's CPU:
//! tantivy's generator cuts every hit's text into words, stems each one, looks it up in a `BTreeMap` of the
//! query's terms and cuts the text into fragments, on every request. None of that depends on the query but the
//! look-up: where the fragments are cut is a matter of the words' places alone. So a filing's text is analysed
//! once ([`AnalyzedText`]: its fragments, and for each distinct key a word is looked up by, the words having it
//! and their fragments) and kept with the filing (`index::ReadFiling`, in the index's cache of read filings); a
//! query then finds its terms among the text's keys through a table of their hashes and adds their weights to the
//! fragments holding them (a query with one term in the text takes the fragment holding most of that term's words,
//! kept per key). Fragments are cut, scored and chosen exactly as tantivy does (`search_fragments`,
//! `select_best_fragment_combination`), weights added in the words' order as there (a float sum depends on the
//! order): `tests::snippets_equal_tantivy_s` compares both on the seed filings, and
//! `tests::snippets_equal_tantivy_s_on_real_filings_and_odd_words` on real filings and unusual words.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use tantivy::query::{Bm25StatisticsProvider, Query};
use tantivy::schema::Field;
use tantivy::tokenizer::{RawTokenizer, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer, TokenStream};
use tantivy::Score;

/// The snippets of one query's hits.
pub struct Snippets {
    /// The query's terms on the field that occur in the index, each weighted 1 / (1 + document frequency), as
    /// `SnippetGenerator::create` weighs them: always above 0; with the term's [`key_hash`].
    weights: Vec<(String, Score, u64)>,
}

impl Snippets {
    pub fn new(stats: &dyn Bm25StatisticsProvider, query: &dyn Query, field: Field) -> tantivy::Result<Self> {
        let mut terms = BTreeSet::new();
        query.query_terms(&mut |term, _| {
            if term.field() == field {
                terms.insert(term.clone());
            }
        });
        let mut weights = Vec::new();
        for term in terms {
            let Some(text) = term.value().as_str().map(str::to_string) else { continue };
            let doc_freq = stats.doc_freq(&term)?;
            if doc_freq > 0 {
                let hash = key_hash(&text);
                weights.push((text, 1.0 / (1.0 + doc_freq as Score), hash));
            }
        }
        Ok(Self { weights })
    }

    /// Bytes held on the heap (what a prepared query text weighs).
    pub fn heap_bytes(&self) -> u64 {
        let terms: usize = self.weights.iter().map(|(term, _, _)| term.capacity()).sum();
        (self.weights.capacity() * std::mem::size_of::<(String, Score, u64)>() + terms) as u64
    }

    /// The best fragment of `text` (which `analyzed` was made of): the fragment holding the highest sum of its
    /// words' term weights; the earliest of equal ones. `None` when no term occurs in the text.
    pub fn best<'t>(&self, analyzed: &AnalyzedText, text: &'t str) -> Option<&'t str> {
        let mut present =
            self.weights.iter().filter_map(|(term, weight, hash)| Some((analyzed.key_number(term, *hash)?, *weight)));
        let first = present.next()?;
        let Some(second) = present.next() else {
            // One term in the text (a one-word query, say): a fragment's score is its count of that
            // term's words times one positive weight, added one by one, which grows with the count, so the best
            // fragment is the one holding the most, the earliest of equal ones. No weights are added.
            return Some(&text[analyzed.fragments[analyzed.densest[first.0]].clone()]);
        };
        // The words of the text holding a query term (the terms are distinct: one weight per key at most), in
        // the text's order.
        let mut held: Vec<(Occurrence, Score)> = Vec::new();
        for (key, weight) in [first, second].into_iter().chain(present) {
            held.extend(analyzed.occurrences_of(key).iter().map(|&o| (o, weight)));
        }
        held.sort_unstable_by_key(|(o, _)| o.word);
        // Per fragment holding a term, the sum of the weights in the words' order (fragments follow the words).
        let mut scored: Vec<(usize, Score)> = Vec::new();
        for (occurrence, weight) in held {
            match scored.last_mut() {
                Some((fragment, score)) if *fragment == occurrence.fragment => *score += weight,
                _ => scored.push((occurrence.fragment, weight)),
            }
        }
        let (best, _) = scored.iter().max_by(|(left, left_score), (right, right_score)| {
            match left_score.partial_cmp(right_score).unwrap_or(std::cmp::Ordering::Equal) {
                // Fragments are disjoint and in the text's order: the earlier one is the earlier by number.
                std::cmp::Ordering::Equal => right.cmp(left),
                unequal => unequal,
            }
        })?;
        Some(&text[analyzed.fragments[*best].clone()])
    }
}

/// A text as the snippet generator reads it, whatever the query. Its words are tantivy's simple tokenizer's,
/// those of 40 bytes or more dropped (as `en_stem` indexes them), each looked up by a key: the word lower-cased,
/// stemmed, and lower-cased once more as tantivy's look-up does. Its fragments are windows of at most
/// `max_num_chars` bytes, one ending where the next word would overflow it.
#[derive(Debug, Default)]
pub struct AnalyzedText {
    /// Byte ranges in the text, in its order (a fragment holding no word is kept too, so numbers stay
    /// positions).
    fragments: Vec<Range<usize>>,
    /// The distinct keys, sorted and written back to back (one allocation: a look-up reads two arrays rather
    /// than a string per key, which a profile showed as cache misses): key `k` is
    /// `keys[key_ends[k - 1]..key_ends[k]]` (from 0 for the first), and `k` is its number.
    keys: String,
    key_ends: Vec<usize>,
    /// Key numbers by the keys' hashes ([`key_hash`]), for [`AnalyzedText::key_number`]: open addressing over a
    /// power-of-two number of slots, at most two thirds full, each empty (0) or a key's number + 1. Why: every
    /// query term is looked up in every hit's text, and a binary search over the sorted keys read another cache
    /// line at each step (a profile of cold searches under load put the look-up at about 9% of the host's time).
    slots: Vec<u32>,
    /// The words of each key in the text's order: key `k`'s are `occurrences[starts[k]..starts[k + 1]]`.
    occurrences: Vec<Occurrence>,
    starts: Vec<usize>,
    /// Key `k`'s best fragment for a query of that key alone: the one holding the most of its words, the
    /// earliest of equal ones ([`Snippets::best`]).
    densest: Vec<usize>,
}

/// One word of a text: its number in the text's order, and the fragment it falls in.
#[derive(Debug, Clone, Copy)]
struct Occurrence {
    word: usize,
    fragment: usize,
}

impl AnalyzedText {
    pub fn new(text: &str, max_num_chars: usize) -> Self {
        let mut words_of =
            TextAnalyzer::builder(SimpleTokenizer::default()).filter(RemoveLongFilter::limit(40)).build();
        let mut stemmer = TextAnalyzer::builder(RawTokenizer::default()).filter(Stemmer::default()).build();
        let mut by_key: HashMap<Box<str>, Vec<Occurrence>> = HashMap::new();
        let mut fragments = Vec::new();
        let mut current = 0..0;
        let mut stream = words_of.token_stream(text);
        let mut word_number = 0;
        while let Some(word) = stream.next() {
            // tantivy's `search_fragments`: a word that would take the fragment past the limit starts the next.
            if word.offset_to - current.start > max_num_chars {
                fragments.push(current);
                current = word.offset_from..word.offset_from;
            }
            current.end = word.offset_to;
            let lower = lower_case(&word.text);
            let mut stemmed = stemmer.token_stream(&lower);
            if let Some(stem) = stemmed.next() {
                let occurrence = Occurrence { word: word_number, fragment: fragments.len() };
                let key = lookup_key(&stem.text);
                match by_key.get_mut(key.as_ref()) {
                    Some(occurrences) => occurrences.push(occurrence),
                    None => {
                        by_key.insert(key.into(), vec![occurrence]);
                    }
                }
            }
            word_number += 1;
        }
        fragments.push(current);
        let mut keyed: Vec<(Box<str>, Vec<Occurrence>)> = by_key.into_iter().collect();
        keyed.sort_unstable_by(|(left, _), (right, _)| left.cmp(right));
        let keyed_count = keyed.len();
        let mut analyzed = AnalyzedText {
            fragments,
            keys: String::with_capacity(keyed.iter().map(|(key, _)| key.len()).sum()),
            key_ends: Vec::with_capacity(keyed.len()),
            slots: vec![0; (keyed_count + keyed_count / 2 + 1).next_power_of_two()],
            occurrences: Vec::with_capacity(word_number),
            starts: Vec::with_capacity(keyed.len() + 1),
            densest: Vec::new(),
        };
        let mask = analyzed.slots.len() - 1;
        for (number, (key, occurrences)) in keyed.into_iter().enumerate() {
            let mut slot = key_hash(&key) as usize & mask;
            while analyzed.slots[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            analyzed.slots[slot] = u32::try_from(number + 1).expect("fewer than 2^32 keys in a text");
            analyzed.keys.push_str(&key);
            analyzed.key_ends.push(analyzed.keys.len());
            analyzed.starts.push(analyzed.occurrences.len());
            analyzed.occurrences.extend(occurrences);
        }
        analyzed.starts.push(analyzed.occurrences.len());
        analyzed.densest = (0..keyed_count).map(|key| analyzed.densest_fragment(key)).collect();
        analyzed
    }

    /// The number of a key whose [`key_hash`] is `hash`, when some word of the text has it.
    fn key_number(&self, key: &str, hash: u64) -> Option<usize> {
        // No slots: a default (empty) text.
        let mask = self.slots.len().checked_sub(1)?;
        let mut slot = hash as usize & mask;
        // At least one slot is empty (the table is at most two thirds full), so the walk ends.
        loop {
            let number = (self.slots[slot] as usize).checked_sub(1)?;
            if self.key(number) == key {
                return Some(number);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Key `number`'s text.
    fn key(&self, number: usize) -> &str {
        let start = if number == 0 { 0 } else { self.key_ends[number - 1] };
        &self.keys[start..self.key_ends[number]]
    }

    fn occurrences_of(&self, key: usize) -> &[Occurrence] {
        &self.occurrences[self.starts[key]..self.starts[key + 1]]
    }

    /// The fragment holding the most words of `key` (the earliest of equal ones; `key` is some word's).
    fn densest_fragment(&self, key: usize) -> usize {
        let (mut best, mut best_count) = (0, 0);
        // A key's words come in the text's order, so each fragment's words are one run.
        for run in self.occurrences_of(key).chunk_by(|a, b| a.fragment == b.fragment) {
            if run.len() > best_count {
                (best, best_count) = (run[0].fragment, run.len());
            }
        }
        best
    }

    /// Bytes held on the heap (what a cache of analysed texts weighs).
    pub fn heap_bytes(&self) -> usize {
        self.fragments.capacity() * std::mem::size_of::<Range<usize>>()
            + self.keys.capacity()
            + self.key_ends.capacity() * std::mem::size_of::<usize>()
            + self.slots.capacity() * std::mem::size_of::<u32>()
            + self.occurrences.capacity() * std::mem::size_of::<Occurrence>()
            + self.starts.capacity() * std::mem::size_of::<usize>()
            + self.densest.capacity() * std::mem::size_of::<usize>()
    }
}

/// The hash a key is found by in an [`AnalyzedText`]'s table: std's SipHash with its fixed keys, the same in every
/// call of the process (the tables are built and read by the one process).
fn key_hash(key: &str) -> u64 {
    std::hash::BuildHasher::hash_one(&std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default(), key)
}

/// A word as tantivy's `LowerCaser` writes it (char by char: no final-sigma rule, unlike `str::to_lowercase`).
fn lower_case(word: &str) -> String {
    if word.is_ascii() {
        word.to_ascii_lowercase()
    } else {
        word.chars().flat_map(char::to_lowercase).collect()
    }
}

/// What tantivy's generator looks a stem up by: the stem lower-cased once more, which only changes a non-ASCII
/// stem (`str::to_lowercase` applies the final-sigma rule the `LowerCaser` does not).
fn lookup_key(stem: &str) -> std::borrow::Cow<'_, str> {
    if stem.is_ascii() {
        std::borrow::Cow::Borrowed(stem)
    } else {
        std::borrow::Cow::Owned(stem.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{SearchIndex, SNIPPET_CHARS};
    use tantivy::tokenizer::{LowerCaser, Token};

    fn seed_texts() -> Vec<String> {
        let doc: serde_json::Value = serde_json::from_str(include_str!("../seed/edgar-search.json")).unwrap();
        doc["filings"].as_array().unwrap().iter().map(|f| f["text"].as_str().unwrap().to_string()).collect()
    }

    /// Lower-cased ASCII words of `text` as the simple tokenizer cuts them, with their stems.
    fn stems(text: &str) -> Vec<(String, String)> {
        let mut plain = TextAnalyzer::builder(SimpleTokenizer::default()).filter(LowerCaser).build();
        let mut stemmed = tantivy::tokenizer::TokenizerManager::default().get("en_stem").unwrap();
        let mut words = Vec::new();
        plain.token_stream(text).process(&mut |t: &Token| words.push(t.text.clone()));
        let mut out = Vec::new();
        stemmed.token_stream(text).process(&mut |t: &Token| out.push(t.text.clone()));
        // RemoveLongFilter may drop a word from the stemmed stream only: compare the streams where both have it.
        words.retain(|w| w.len() < 40);
        assert_eq!(words.len(), out.len());
        words.into_iter().zip(out).collect()
    }

    /// The same fragment as tantivy's generator, or none where it finds none, for queries made of the seed
    /// filings' words (single words, two-word conjunctions and phrases, stemmed forms) on every third filing.
    #[test]
    fn snippets_equal_tantivy_s() {
        let (compared, found) = compare_with_tantivy(seed_texts(), 7, 3);
        assert!(compared > 5_000 && found > 1_000, "{compared} snippets compared, {found} with a fragment");
    }

    /// The table of key hashes finds every key of a text by its number and no other word: each seed text's
    /// keys, and the keys of every other seed text that it lacks (some share a slot with one of its keys).
    #[test]
    fn every_key_and_no_other_word_is_found_by_its_hash() {
        let analyzed: Vec<AnalyzedText> = seed_texts().iter().map(|t| AnalyzedText::new(t, SNIPPET_CHARS)).collect();
        let keys_of =
            |a: &AnalyzedText| -> Vec<String> { (0..a.key_ends.len()).map(|k| a.key(k).to_string()).collect() };
        let mut misses = 0;
        for (n, text) in analyzed.iter().enumerate() {
            let own = keys_of(text);
            assert!(!own.is_empty() && text.slots.len() * 2 >= own.len() * 3, "{n}: a table at most two thirds full");
            for (number, key) in own.iter().enumerate() {
                assert_eq!(text.key_number(key, key_hash(key)), Some(number), "{n}: {key}");
            }
            for other in keys_of(&analyzed[(n + 1) % analyzed.len()]) {
                if !own.contains(&other) {
                    assert_eq!(text.key_number(&other, key_hash(&other)), None, "{n}: {other}");
                    misses += 1;
                }
            }
        }
        assert!(misses > 1_000, "{misses} words looked up in texts without them");
        assert_eq!(AnalyzedText::default().key_number("revenu", key_hash("revenu")), None, "an empty text");
    }

    /// The same on texts unlike the seed's: real Form 4 and 13F filings of the corpus (XML: markup, numbers, long
    /// runs without spaces) and a text of non-ASCII words (upper-case ones lower-cased char by char, a final
    /// sigma), words of 40 bytes and more (never indexed, never part of a fragment's score) and one stem in
    /// many forms.
    #[test]
    fn snippets_equal_tantivy_s_on_real_filings_and_odd_words() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
        let mut paths: Vec<_> = ["sec-form4", "sec-13f"]
            .iter()
            .flat_map(|dir| {
                let dir = corpus.join(dir);
                std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path())
            })
            .collect();
        paths.sort();
        let mut texts: Vec<String> = paths
            .iter()
            .map(|path| {
                let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
                let mut cut = text.len().min(6_000);
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text[..cut].to_string()
            })
            .collect();
        assert!(texts.len() >= 10, "{} Form 4 and 13F filings in {}", texts.len(), corpus.display());
        let long = "a".repeat(39) + " " + &"b".repeat(40) + " " + &"supplies".repeat(6);
        texts.push(format!(
            "ZÜRICH Zürich zürich STRASSE Straße ΟΔΟΣ οδός Οδός supplies supply supplied supplier {long} supplies \
             Ärger ärgerlich ÉTÉ été naïve NAÏVE {long} supply chain supply"
        ));
        let (compared, found) = compare_with_tantivy(texts, 3, 1);
        assert!(compared > 2_000 && found > 300, "{compared} snippets compared, {found} with a fragment");
    }

    /// Compares our snippets with tantivy's on an index of `texts`, for queries made of their words (every
    /// `step`-th word alone, pairs, phrases) on every `every`-th text: (snippets compared, with a fragment).
    fn compare_with_tantivy(texts: Vec<String>, step: usize, every: usize) -> (usize, usize) {
        let analyzed: Vec<AnalyzedText> = texts.iter().map(|t| AnalyzedText::new(t, SNIPPET_CHARS)).collect();
        let filings = texts
            .iter()
            .enumerate()
            .map(|(n, text)| crate::data::Filing {
                form: "10-K".into(),
                entity: "Orchard Analytics".into(),
                cik: "0000000001".into(),
                accession: format!("DEMO-2024-{n:06}"),
                url: "https://demo.invalid/".into(),
                filed_date: "2024-01-02".into(),
                text: text.clone(),
            })
            .collect();
        let index = SearchIndex::build(filings).unwrap();
        let (searcher, field) = (index.searcher(), index.text_field());
        let mut vocabulary: Vec<String> = texts.iter().flat_map(|t| stems(t)).map(|(w, _)| w).collect();
        vocabulary.sort();
        vocabulary.dedup();
        let mut queries: Vec<String> = vocabulary.iter().step_by(step).cloned().collect();
        queries.extend(vocabulary.windows(2).step_by(step * 3 + 2).map(|w| format!("{} {}", w[0], w[1])));
        queries.extend(vocabulary.windows(2).step_by(step * 4 + 1).map(|w| format!("\"{} {}\"", w[0], w[1])));
        queries.extend(
            ["supply chain", "\"supply chain\"", "revenues OR impairments", "entity:orchard risk", "οδοσ", "zürich"]
                .map(String::from),
        );
        let (mut compared, mut found) = (0, 0);
        for q in &queries {
            let Ok(query) = index.parse(q) else { continue };
            let mut theirs = tantivy::snippet::SnippetGenerator::create(searcher, &*query, field).unwrap();
            theirs.set_max_num_chars(SNIPPET_CHARS);
            let ours = Snippets::new(searcher, &*query, field).unwrap();
            for (text, analyzed) in texts.iter().zip(&analyzed).step_by(every) {
                let snippet = theirs.snippet(text);
                let expected = (!snippet.is_empty()).then(|| snippet.fragment());
                assert_eq!(ours.best(analyzed, text), expected, "query {q:?} on {text:?}");
                compared += 1;
                found += usize::from(expected.is_some());
            }
        }
        (compared, found)
    }
}
