//! The snippet of a hit: the fragment of its text that tantivy's `SnippetGenerator` would pick for the query's
//! terms, found at a fraction of the cost.
//!
//! Why: on the cold path (every query new, BENCHMARKS.md "Cold path") the snippets were most of the plugin's CPU:
//! tantivy's generator stems every word of every hit's text and looks each one up in a `BTreeMap` of the terms
//! after lower-casing it again. Here a word can only be a hit if its stem *is* a query term, and the Snowball
//! English stemmer only rewrites suffixes: it keeps a word's first letter and never lengthens it. So a word whose
//! first letter starts no term, or that is shorter than every such term, is set aside ([`CannotMatch`])
//! before the stemmer sees it; only the words left are stemmed and looked up. Fragments are cut, scored and
//! chosen exactly as tantivy does (`search_fragments`, `select_best_fragment_combination`):
//! `tests::snippets_equal_tantivy_s` compares both on the seed filings, and
//! `tests::stems_keep_the_first_letter_and_never_grow` checks the stemmer property on real filing text.

use std::collections::BTreeSet;

use tantivy::query::Query;
use tantivy::schema::Field;
use tantivy::tokenizer::{RawTokenizer, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer, TokenStream};
use tantivy::{Score, Searcher};

/// The snippets of one query's hits.
pub struct Snippets {
    /// `en_stem` up to its lower-casing: tantivy's simple tokenizer, tokens of 40 bytes or more dropped.
    words: TextAnalyzer,
    /// The English stemmer on one word at a time, for the words the guard lets through.
    stemmer: TextAnalyzer,
    guard: CannotMatch,
    /// The query's terms on the field that occur in the index, each weighted 1 / (1 + document frequency), as
    /// `SnippetGenerator::create` weighs them.
    weights: Vec<(String, Score)>,
    max_num_chars: usize,
}

impl Snippets {
    pub fn new(searcher: &Searcher, query: &dyn Query, field: Field, max_num_chars: usize) -> tantivy::Result<Self> {
        let mut terms = BTreeSet::new();
        query.query_terms(&mut |term, _| {
            if term.field() == field {
                terms.insert(term.clone());
            }
        });
        let mut weights = Vec::new();
        for term in terms {
            let Some(text) = term.value().as_str().map(str::to_string) else { continue };
            let doc_freq = searcher.doc_freq(&term)?;
            if doc_freq > 0 {
                weights.push((text, 1.0 / (1.0 + doc_freq as Score)));
            }
        }
        Ok(Self {
            words: TextAnalyzer::builder(SimpleTokenizer::default()).filter(RemoveLongFilter::limit(40)).build(),
            stemmer: TextAnalyzer::builder(RawTokenizer::default()).filter(Stemmer::default()).build(),
            guard: CannotMatch::for_terms(weights.iter().map(|(t, _)| t.as_str())),
            weights,
            max_num_chars,
        })
    }

    /// The best fragment of `text`: windows of at most `max_num_chars` (cut where the next word would overflow),
    /// scored by the weights of the terms they hold; the highest wins, the earliest of equal ones. `None` when no
    /// term occurs in the text.
    pub fn best<'t>(&mut self, text: &'t str) -> Option<&'t str> {
        struct Candidate {
            score: Score,
            start: usize,
            stop: usize,
        }
        let fresh = |start| Candidate { score: 0.0, start, stop: start };
        let mut candidates = Vec::new();
        let mut current = fresh(0);
        let mut words = self.words.token_stream(text);
        while let Some(word) = words.next() {
            if word.offset_to - current.start > self.max_num_chars {
                if current.score > 0.0 {
                    candidates.push(current);
                }
                current = fresh(word.offset_from);
            }
            current.stop = word.offset_to;
            if self.guard.may_match(&word.text) {
                let lower = lower_case(&word.text);
                let mut stemmed = self.stemmer.token_stream(&lower);
                if let Some(weight) = stemmed.next().and_then(|stem| weight(&self.weights, &stem.text)) {
                    current.score += weight;
                }
            }
        }
        if current.score > 0.0 {
            candidates.push(current);
        }
        let best = candidates.iter().max_by(|left, right| {
            match left.score.partial_cmp(&right.score).unwrap_or(std::cmp::Ordering::Equal) {
                std::cmp::Ordering::Equal => (right.start, right.stop).cmp(&(left.start, left.stop)),
                unequal => unequal,
            }
        })?;
        Some(&text[best.start..best.stop])
    }
}

/// A word as tantivy's `LowerCaser` writes it (char by char: no final-sigma rule, unlike `str::to_lowercase`).
fn lower_case(word: &str) -> String {
    if word.is_ascii() {
        word.to_ascii_lowercase()
    } else {
        word.chars().flat_map(char::to_lowercase).collect()
    }
}

/// The weight of a stem's term, if it is one.
fn weight(weights: &[(String, Score)], stem: &str) -> Option<Score> {
    // tantivy looks terms up lower-cased once more; that only changes a non-ASCII stem.
    let lower;
    let stem = if stem.is_ascii() {
        stem
    } else {
        lower = stem.to_lowercase();
        lower.as_str()
    };
    weights.iter().find(|(term, _)| term == stem).map(|&(_, w)| w)
}

/// Which words may stem to one of the terms once lower-cased: an ASCII word only when some term starts with its
/// first letter (in either case) and is no longer than it; any other word always.
#[derive(Clone, Debug)]
pub struct CannotMatch {
    /// Per first byte of a term, the length of its shortest term (0: no term starts with that byte).
    shortest: [u8; 128],
}

impl CannotMatch {
    pub fn for_terms<'a>(terms: impl Iterator<Item = &'a str>) -> Self {
        let mut shortest = [0u8; 128];
        for term in terms {
            let Some(&first) = term.as_bytes().first() else { continue };
            if !first.is_ascii() {
                continue;
            }
            let len = term.len().min(255) as u8;
            let slot = &mut shortest[first as usize];
            if *slot == 0 || len < *slot {
                *slot = len;
            }
        }
        Self { shortest }
    }

    /// Whether the word's stem may be a term (always, for a word this guard cannot reason about).
    pub fn may_match(&self, word: &str) -> bool {
        let bytes = word.as_bytes();
        let Some(&first) = bytes.first() else { return false };
        if !word.is_ascii() {
            return true;
        }
        let shortest = self.shortest[first.to_ascii_lowercase() as usize];
        shortest != 0 && bytes.len() >= shortest as usize
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

    /// The property the guard rests on, on every word of the seed filings and of real SEC filings of the corpus.
    #[test]
    fn stems_keep_the_first_letter_and_never_grow() {
        let mut texts = seed_texts();
        let form4 = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/sec-form4");
        let entries = std::fs::read_dir(&form4).unwrap_or_else(|e| panic!("{}: {e}", form4.display()));
        for e in entries.flatten().take(40) {
            texts.push(String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned());
        }
        let mut checked = 0;
        for text in &texts {
            for (word, stem) in stems(text) {
                if !word.is_ascii() {
                    continue;
                }
                assert_eq!(word.as_bytes().first(), stem.as_bytes().first(), "{word} -> {stem}");
                assert!(stem.len() <= word.len(), "{word} -> {stem}");
                checked += 1;
            }
        }
        assert!(checked > 10_000, "only {checked} words checked");
    }

    #[test]
    fn a_word_is_set_aside_only_when_no_term_can_be_its_stem() {
        let guard = CannotMatch::for_terms(["suppli", "chain", "risk", "rate"].into_iter());
        for (word, kept) in [
            ("supplies", true),
            ("suppl", false), // shorter than `suppli`
            ("chains", true),
            ("cha", false),
            ("dividend", false), // no term starts with `d`
            ("rates", true),
            ("rat", false),   // shorter than both `r` terms
            ("Chains", true), // the word's case does not matter
            ("DIVIDEND", false),
            ("", false),
            ("zürich", true), // not ASCII: left to the stemmer
        ] {
            assert_eq!(guard.may_match(word), kept, "{word}");
        }
    }

    /// The same fragment as tantivy's generator, or none where it finds none, for queries made of the seed
    /// filings' words (single words, two-word conjunctions and phrases, stemmed forms) on every third filing.
    #[test]
    fn snippets_equal_tantivy_s() {
        let texts = seed_texts();
        let seed: crate::data::Snapshot = serde_json::from_str(include_str!("../seed/edgar-search.json")).unwrap();
        let index = SearchIndex::build(seed.filings).unwrap();
        let (searcher, field) = (index.searcher(), index.text_field());
        let mut vocabulary: Vec<String> = texts.iter().flat_map(|t| stems(t)).map(|(w, _)| w).collect();
        vocabulary.sort();
        vocabulary.dedup();
        let mut queries: Vec<String> = vocabulary.iter().step_by(7).cloned().collect();
        queries.extend(vocabulary.windows(2).step_by(23).map(|w| format!("{} {}", w[0], w[1])));
        queries.extend(vocabulary.windows(2).step_by(29).map(|w| format!("\"{} {}\"", w[0], w[1])));
        queries.extend(
            ["supply chain", "\"supply chain\"", "revenues OR impairments", "entity:orchard risk"].map(String::from),
        );
        let (mut compared, mut found) = (0, 0);
        for q in &queries {
            let Ok(query) = index.parse(q) else { continue };
            let mut theirs = tantivy::snippet::SnippetGenerator::create(searcher, &*query, field).unwrap();
            theirs.set_max_num_chars(SNIPPET_CHARS);
            let mut ours = Snippets::new(searcher, &*query, field, SNIPPET_CHARS).unwrap();
            for text in texts.iter().step_by(3) {
                let snippet = theirs.snippet(text);
                let expected = (!snippet.is_empty()).then(|| snippet.fragment());
                assert_eq!(ours.best(text), expected, "query {q:?} on {text:?}");
                compared += 1;
                found += usize::from(expected.is_some());
            }
        }
        assert!(compared > 5_000 && found > 1_000, "{compared} snippets compared, {found} with a fragment");
    }
}
