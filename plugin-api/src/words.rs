//! Word search over table-backed records (`records.words`): the documents holding every query word, newest
//! first, one page at a time, with a capped count. For datasets whose documents are found by words spread
//! over several record collections (a clerk index: a document's words come from its instrument, party and
//! parcel rows, which may arrive in separate files).
//!
//! A plugin declares one [`WordIndex`] per dataset (`Manifest::word_index`); the host keeps a table of
//! `(word, document, scope, facet, date, id)` rows derived from the records, refreshed in the transaction of
//! every ingested file for the documents it touched (and built from the records when missing), ordered by
//! `(word, scope, date DESC, id)` in either engine. A [`WordSearch`] then reads the rarest word's documents in
//! sort order, keeps those holding every other word (one indexed probe each), and stops after one page: its
//! cost is the page, not the number of matches. [`WORD_PAGE_CALL`] answers the page with its documents' records
//! too, from a row per document the host keeps beside the word rows. Plugins write no SQL; only the host knows
//! the engines.

use serde::{Deserialize, Serialize};

/// The host call that answers a [`WordSearch`] with [`WordHits`].
pub const WORDS_CALL: &str = "records.words";

/// The host call that answers a [`WordSearch`] with a [`WordPage`]: the hits and the records of the page's
/// documents (SDK 3.5; a host announcing [`WORD_PAGE_RECORDS`] answers it).
pub const WORD_PAGE_CALL: &str = "records.words.page";

/// A host capability: it answers [`WORD_PAGE_CALL`], reading a page's documents' records with the page from a
/// row it keeps per document (refreshed with the word rows), one read per document instead of a records query
/// per collection. Without it (older hosts) a plugin reads them with records queries.
pub const WORD_PAGE_RECORDS: &str = "words:page-records";

/// Documents examined for a count unless the search asks for fewer: [`WordHits::total`] counts the matches
/// among at most this many documents holding the rarest query word.
pub const DEFAULT_COUNT_CAP: usize = 1_000;

/// When the rarest query word is on more than `count_cap` documents, [`WordHits::total`] is a lower bound however
/// many of them are examined; when it is on more than [`SHARE_BEYOND`] times `count_cap`, a count of more than one
/// word examines only the first `count_cap / LOWER_BOUND_SHARE` (at least one) of them (SDK 3.9; see
/// [`WordSearch::examined`]). Such a count (a lender's name: every other word probed on each document examined)
/// was the slowest statement of a search on 10M rows (BENCHMARKS.md).
pub const LOWER_BOUND_SHARE: usize = 4;

/// See [`LOWER_BOUND_SHARE`]: a rarest word on at most this many times `count_cap` documents has its first
/// `count_cap` examined, which the host's walk for the count then mostly shares with the first page's.
pub const SHARE_BEYOND: usize = 2;

/// How a dataset's documents are found by words. The word records and the document record of one document
/// share its group (`IngestRecord::group`), which is the document record's key and the value of `doc_field`
/// (word records) and `key_field` (document records).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WordIndex {
    /// The collection of word records (`terms`): one record per word and document.
    pub words: String,
    /// The word field of a word record (`term`) and its document key field (`docKey`).
    pub word_field: String,
    /// The field of a word record holding its document's key (`docKey`): the document record's `key_field` value.
    pub doc_field: String,
    /// The collection of document records (`instruments`) and their key field (`docKey`).
    pub docs: String,
    /// The field of a document record holding its key (`docKey`), equal to the records' group.
    pub key_field: String,
    /// The document field a search is confined to (`coverage`: one county of one mapping).
    pub scope_field: String,
    /// Document fields a search filters on, joined with `|` (missing ones as empty): `kind|lienType`.
    pub facet_fields: Vec<String>,
    /// The order: newest `date_field` first (text, `YYYY-MM-DD`), equal dates by `id_field` (byte order).
    pub date_field: String,
    /// Unique document id that breaks date ties, compared in byte order (`documentId`).
    pub id_field: String,
}

impl WordIndex {
    /// Every field name, for validation.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        [&self.word_field, &self.doc_field, &self.key_field, &self.scope_field, &self.date_field, &self.id_field]
            .into_iter()
            .chain(&self.facet_fields)
            .map(String::as_str)
    }

    /// The facet of a document record (its `facet_fields` joined with `|`).
    pub fn facet_of(&self, doc: &serde_json::Value) -> String {
        let part = |f: &String| doc.get(f).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        self.facet_fields.iter().map(part).collect::<Vec<_>>().join("|")
    }

    /// Why the declaration cannot be used, if it cannot.
    pub fn problem(&self) -> Option<String> {
        let names = [&self.words, &self.docs].into_iter().map(|c| c.replace('-', "_"));
        if let Some(bad) = self.fields().map(str::to_string).chain(names).find(|f| !crate::query::valid_field(f)) {
            return Some(format!("word index: `{bad}` is not a collection or field name"));
        }
        self.facet_fields.is_empty().then(|| "word index: no facet field".to_string())
    }
}

/// One search: the documents of `dataset` in `scope` whose facet is one of `facets` and that hold every word.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WordSearch {
    /// Dataset whose records are searched: the plugin's own or one it reads.
    pub dataset: String,
    /// The declared index (the host checks it is the one declared for `dataset`).
    pub index: WordIndex,
    /// Words that must all be on a document, each as the word records store it (for example `nyc-acris:SMITH`).
    pub words: Vec<String>,
    /// The scope value documents must have in [`WordIndex::scope_field`] (for example `nyc-acris|kings-ny`).
    pub scope: String,
    /// Accepted facets (see [`WordIndex::facet_of`]), at least one, for example `deed|` or `lien|tax`.
    pub facets: Vec<String>,
    /// The `(date, id)` of the last document already served: the page starts after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<(String, String)>,
    /// Documents in the page (the answer holds one more when there are more).
    pub limit: usize,
    /// The most documents of the rarest word examined for [`WordHits::total`]: all of them up to this many, and
    /// a share of this many when it is on more than twice as many and the search has other words (see
    /// [`WordSearch::examined`]).
    pub count_cap: usize,
}

/// The answer: up to `limit + 1` document keys in order, and the count.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WordHits {
    /// Keys of the matching documents after `after`, in index order (newest date first, then id): up to `limit + 1`,
    /// the extra one only telling that a next page exists.
    pub docs: Vec<String>,
    /// Matches over every page (not only after `after`), counted among the first [`WordSearch::examined`]
    /// documents (in order) of the rarest word: the word on the fewest documents of the scope and facets (ties:
    /// the first word given). Exact when that word is on at most `count_cap` documents.
    pub total: usize,
    /// Whether the rarest word is on more documents than were examined, some of them left uncounted: `total` is
    /// then a lower bound (at least that many match).
    pub total_is_lower_bound: bool,
}

/// The answer to [`WORD_PAGE_CALL`]: the hits, and the records of each of their documents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordPage {
    /// The hits, as [`WORDS_CALL`] answers them.
    pub hits: WordHits,
    /// The records of each of `hits.docs`, in the same order (see [`DocumentRecords`]); empty when the host
    /// holds no such row for a document of the page (one it has not built yet): read them with records queries.
    pub records: Vec<DocumentRecords>,
}

/// The records of one document (every record of its group but the word records), as a JSON object of arrays by
/// collection, each in ingest order: `{"instruments": [{...}], "parties": [{...}, {...}]}`. Kept as the host
/// wrote it, to be read once into the plugin's own types (`serde_json::from_str(records.json())`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DocumentRecords(Box<serde_json::value::RawValue>);

impl DocumentRecords {
    /// A document's records from JSON text (an object of arrays by collection); `None` if it is not JSON.
    pub fn from_json(text: String) -> Option<Self> {
        serde_json::value::RawValue::from_string(text).ok().map(Self)
    }

    /// The JSON text.
    pub fn json(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for DocumentRecords {
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
    }
}

impl Eq for DocumentRecords {}

impl WordSearch {
    /// Why the search cannot run: no word, no facet, or an index other than the one declared.
    pub fn problem(&self, declared: Option<&WordIndex>) -> Option<String> {
        if declared != Some(&self.index) {
            return Some(format!("no such word index is declared for `{}`", self.dataset));
        }
        if self.words.is_empty() || self.facets.is_empty() {
            return Some("a word search needs a word and a facet".into());
        }
        None
    }

    /// The effective page size and count cap (at least 1; the page at most the records query maximum).
    pub fn bounds(&self) -> (usize, usize) {
        (self.limit.clamp(1, crate::query::MAX_QUERY_LIMIT), self.count_cap.clamp(1, 100_000))
    }

    /// How many of the rarest word's documents a count examines when that word is on `on` documents: all of them
    /// up to the count cap, an exact total; on more, the total is a lower bound whatever is examined, and on more
    /// than [`SHARE_BEYOND`] times the cap a search of more than one word (whose other words are probed on each
    /// document examined) examines only the first cap / [`LOWER_BOUND_SHARE`] (at least one). A host that reads
    /// `on` from counts it keeps may examine that share of a word whose count ran ahead of its documents: its
    /// total is then a lower bound too, never an exact count that is not.
    pub fn examined(&self, on: usize) -> usize {
        let (_, cap) = self.bounds();
        match on > cap.saturating_mul(SHARE_BEYOND) && self.words.len() > 1 {
            true => (cap / LOWER_BOUND_SHARE).max(1),
            false => cap,
        }
    }
}

/// The answer over plain document records (the SDK's test host, and the reference for the engines): `words`
/// are the word records, `docs` the document records, both as data.
pub fn search_in(q: &WordSearch, words: &[serde_json::Value], docs: &[serde_json::Value]) -> WordHits {
    use std::collections::{BTreeMap, BTreeSet};
    let ix = &q.index;
    let text = |v: &serde_json::Value, f: &str| v.get(f).and_then(|x| x.as_str()).unwrap_or_default().to_string();
    let mut held: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for w in words {
        held.entry(text(w, &ix.doc_field)).or_default().insert(text(w, &ix.word_field));
    }
    let (limit, _) = q.bounds();
    let mut in_scope: Vec<(String, String, String)> = docs
        .iter()
        .filter(|d| text(d, &ix.scope_field) == q.scope && q.facets.contains(&ix.facet_of(d)))
        .map(|d| (text(d, &ix.date_field), text(d, &ix.id_field), text(d, &ix.key_field)))
        .collect();
    in_scope.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let holds = |key: &str, word: &str| held.get(key).is_some_and(|ws| ws.contains(word));
    let holds_all = |key: &str| q.words.iter().all(|w| holds(key, w));
    // The driver: the word on the fewest documents (ties: the first word).
    let driver =
        q.words.iter().min_by_key(|w| in_scope.iter().filter(|d| holds(&d.2, w)).count()).cloned().unwrap_or_default();
    let driven: Vec<&(String, String, String)> = in_scope.iter().filter(|d| holds(&d.2, &driver)).collect();
    let examined = q.examined(driven.len());
    let total = driven.iter().take(examined).filter(|d| holds_all(&d.2)).count();
    let total_is_lower_bound = driven.len() > examined;
    let found: Vec<(String, String, String)> = in_scope.iter().filter(|d| holds_all(&d.2)).cloned().collect();
    let after = |f: &(String, String, String)| match &q.after {
        None => true,
        Some((date, id)) => f.0 < *date || (f.0 == *date && f.1 > *id),
    };
    let docs = found.into_iter().filter(after).take(limit + 1).map(|f| f.2).collect();
    WordHits { docs, total, total_is_lower_bound }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A clerk-like index (the kit's names), for the SDK's tests.
    pub(crate) fn index() -> WordIndex {
        WordIndex {
            words: "terms".into(),
            word_field: "term".into(),
            doc_field: "docKey".into(),
            docs: "instruments".into(),
            key_field: "docKey".into(),
            scope_field: "coverage".into(),
            facet_fields: vec!["kind".into()],
            date_field: "date".into(),
            id_field: "id".into(),
        }
    }

    /// Forty deeds `k0`..`k39`, k0 the newest, all holding A; B on the even ones (20).
    fn records() -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
        let doc = |i: usize| {
            let date = format!("2020-{:02}-{:02}", 12 - i / 28, 28 - i % 28);
            json!({"docKey": format!("k{i}"), "coverage": "s", "kind": "deed", "date": date, "id": format!("i{i:02}")})
        };
        let docs = (0..40).map(doc).collect();
        let a = (0..40).map(|i| json!({"term": "A", "docKey": format!("k{i}")}));
        let b = (0..40).step_by(2).map(|i| json!({"term": "B", "docKey": format!("k{i}")}));
        (a.chain(b).collect(), docs)
    }

    fn search(words: &[&str], count_cap: usize) -> WordSearch {
        WordSearch {
            dataset: "d".into(),
            index: index(),
            words: words.iter().map(|w| w.to_string()).collect(),
            scope: "s".into(),
            facets: vec!["deed".into()],
            after: None,
            limit: 2,
            count_cap,
        }
    }

    #[test]
    fn a_count_examines_the_cap_and_a_share_of_it_of_a_word_on_more_than_twice_the_cap() {
        let q = search(&["A", "B"], 8);
        assert_eq!([q.examined(0), q.examined(8), q.examined(16), q.examined(17)], [8, 8, 8, 2]);
        assert_eq!(search(&["A", "B"], 3).examined(7), 1, "at least one");
        assert_eq!(search(&["A"], 8).examined(17), 8, "one word: nothing to probe, counted up to the cap");
        let (words, docs) = records();
        let counted = |cap: usize| {
            let hits = search_in(&search(&["A", "B"], cap), &words, &docs);
            assert_eq!(hits.docs, ["k0", "k2", "k4"], "the page whatever the count");
            (hits.total, hits.total_is_lower_bound)
        };
        // B (20 documents) drives, all of its documents hold A.
        assert_eq!(counted(20), (20, false), "on no more than the cap: exact");
        assert_eq!(counted(10), (10, true), "on twice the cap: the cap examined");
        assert_eq!(counted(8), (2, true), "on more than twice the cap: a quarter of it examined");
        let one = search_in(&search(&["A"], 8), &words, &docs);
        assert_eq!((one.total, one.total_is_lower_bound), (8, true), "A alone on 40: counted up to the cap");
    }
}
