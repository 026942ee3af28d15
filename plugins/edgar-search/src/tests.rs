//! Engine and handler tests. A tiny fixture (eight filings whose texts are counted by hand) checks BM25
//! scores, phrase vs term matching, filters and counts exactly; the shipped seed is cross-checked against a
//! plain scan of its texts, which needs no index.

use datahost_plugin_api::testing::{get, manifest_problems, plugin_with_own_seeds, TestHost};
use serde_json::{json, Value};

use crate::corpus::{generate, seed_snapshot, GenOptions, DEMO_CIKS, DEMO_URL_BASE};
use crate::data::Snapshot;
use crate::index::{normalize_form, SearchIndex, SearchRequest};
use crate::{EdgarSearch, ROUTE, SLUG};

/// (accession, form, entity, filedDate, text). Token counts of the texts: 7, 6, 9, 6, 6, 7, 7, 8 (56 in all).
const FIXTURE: &[(&str, &str, &str, &str, &str)] = &[
    ("A", "10-K", "Alpha Corp", "2024-02-10", "supply chain risk and supply chain cost"),
    ("B", "10-Q", "Alpha Corp", "2024-05-06", "supply chain remained stable this quarter"),
    ("C", "8-K", "Beta Energy", "2024-03-15", "a chain of stores cut the supply of fuel"),
    ("D", "8-K", "Beta Energy", "2023-12-01", "cybersecurity incident disclosed under item five"),
    ("E", "10-K", "Gamma Systems", "2025-01-20", "goodwill impairment charge recorded for devices"),
    ("F", "DEF 14A", "Gamma Systems", "2025-03-03", "say on pay vote and board election"),
    ("G", "4", "Delta Foods", "2022-07-07", "director sold shares under a trading plan"),
    (
        "H",
        "8-K",
        "Delta Foods",
        "2025-06-30",
        "cybersecurity incident response plan activated after cybersecurity breach",
    ),
];

fn fixture_json() -> String {
    let filings: Vec<Value> = FIXTURE
        .iter()
        .map(|(acc, form, entity, date, text)| {
            json!({"form": form, "entity": entity, "cik": "0000000001", "accession": acc,
                   "url": format!("https://example.test/{acc}"), "filedDate": date, "text": text})
        })
        .collect();
    json!({"meta": {"source": "test", "sourceUrl": "https://example.test", "caveat": "test fixture",
                    "generatedAt": "2026-01-01T00:00:00Z"}, "filings": filings})
    .to_string()
}

fn fixture_plugin() -> EdgarSearch {
    let host = TestHost::new();
    host.set_dataset(SLUG, &fixture_json());
    host.init::<EdgarSearch>().expect("init on the fixture")
}

fn accessions(body: &Value) -> Vec<&str> {
    body["hits"].as_array().unwrap().iter().map(|h| h["accession"].as_str().unwrap()).collect()
}

fn search(p: &EdgarSearch, query: &[(&str, &str)]) -> Value {
    let (status, body) = get(p, ROUTE, query);
    assert_eq!(status, 200, "{query:?}: {body}");
    body
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<EdgarSearch>(), Vec::<String>::new());
}

#[test]
fn bm25_scores_match_the_hand_computation() {
    // BM25 with k1 = 1.2, b = 0.75. N = 8 documents, avgdl = 56/8 = 7 tokens, "cybersecurity" in 2 documents:
    // idf = ln(1 + (8 - 2 + 0.5) / (2 + 0.5)) = ln 3.6 = 1.280934.
    // H: tf 2, dl 8 -> 1.280934 * 2.2 * 2 / (2 + 1.2 * (0.25 + 0.75 * 8 / 7)) = 1.693252
    // D: tf 1, dl 6 -> 1.280934 * 2.2 * 1 / (1 + 1.2 * (0.25 + 0.75 * 6 / 7)) = 1.360440
    let p = fixture_plugin();
    let body = search(&p, &[("q", "cybersecurity")]);
    assert_eq!(body["query"], "cybersecurity");
    assert_eq!(accessions(&body), ["H", "D"]);
    assert_eq!((body["total"].as_u64(), body["count"].as_u64()), (Some(2), Some(2)));
    let scores: Vec<f64> = body["hits"].as_array().unwrap().iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!((scores[0] - 1.693252).abs() < 2e-4, "{scores:?}");
    assert!((scores[1] - 1.360440).abs() < 2e-4, "{scores:?}");
}

#[test]
fn phrases_match_adjacent_words_only_and_terms_are_all_required() {
    let p = fixture_plugin();
    // C has both words, but not next to each other.
    let phrase = search(&p, &[("q", "\"supply chain\"")]);
    assert_eq!(accessions(&phrase), ["A", "B"], "A holds the phrase twice");
    assert_eq!(phrase["total"], 2);
    let terms = search(&p, &[("q", "supply chain")]);
    assert_eq!(accessions(&terms), ["A", "B", "C"]);
    assert_eq!(terms["total"], 3);
    assert_eq!(search(&p, &[("q", "supply cybersecurity")])["total"], 0, "every word must match");
    assert_eq!(accessions(&search(&p, &[("q", "goodwill OR vote")])).len(), 2);
    assert_eq!(accessions(&search(&p, &[("q", "cybersecurity -breach")])), ["D"]);
    // Entity names are searched too, and field prefixes restrict a term to one field.
    let gamma = search(&p, &[("q", "gamma")]);
    assert_eq!(gamma["total"], 2);
    assert_eq!(search(&p, &[("q", "text:gamma")])["total"], 0);
    // "plan" occurs once in G (7 tokens) and once in H (8 tokens): the shorter text scores higher.
    assert_eq!(accessions(&search(&p, &[("q", "entity:delta plan")])), ["G", "H"]);
}

#[test]
fn stemming_and_case_folding() {
    let p = fixture_plugin();
    assert_eq!(accessions(&search(&p, &[("q", "IMPAIRMENTS")])), ["E"]);
    assert_eq!(accessions(&search(&p, &[("q", "\"Supply Chains\"")])), ["A", "B"]);
}

#[test]
fn forms_filter_is_inside_the_query_and_keeps_scores() {
    let p = fixture_plugin();
    let all = search(&p, &[("q", "\"supply chain\"")]);
    let only_q = search(&p, &[("q", "\"supply chain\""), ("forms", "10-q")]);
    assert_eq!(accessions(&only_q), ["B"]);
    assert_eq!(only_q["total"], 1);
    assert_eq!(only_q["hits"][0]["score"], all["hits"][1]["score"], "a filter never changes a score");
    let both = search(&p, &[("q", "supply chain"), ("forms", " 10-K , 10-Q,,")]);
    assert_eq!(accessions(&both), ["A", "B"]);
    assert_eq!(accessions(&search(&p, &[("q", "vote"), ("forms", "def  14a")])), ["F"]);
    assert_eq!(search(&p, &[("q", "vote"), ("forms", "10-K")])["total"], 0);
    assert_eq!(search(&p, &[("q", "cybersecurity"), ("forms", "8-K,4")])["total"], 2);
    assert_eq!(normalize_form(" def   14a "), "DEF 14A");
}

#[test]
fn date_bounds_are_inclusive() {
    let p = fixture_plugin();
    assert_eq!(accessions(&search(&p, &[("q", "cybersecurity"), ("from", "2025-01-01")])), ["H"]);
    assert_eq!(accessions(&search(&p, &[("q", "cybersecurity"), ("to", "2023-12-01")])), ["D"]);
    let day = search(&p, &[("q", "cybersecurity"), ("from", "2023-12-01"), ("to", "2023-12-01")]);
    assert_eq!(accessions(&day), ["D"]);
    assert_eq!(search(&p, &[("q", "cybersecurity"), ("from", "2023-12-02"), ("to", "2025-06-29")])["total"], 0);
    let combined = search(&p, &[("q", "supply"), ("forms", "10-K,8-K"), ("from", "2024-03-01"), ("to", "2024-12-31")]);
    assert_eq!(accessions(&combined), ["C"]);
}

#[test]
fn total_counts_every_match_and_count_the_returned_ones() {
    let p = fixture_plugin();
    let one = search(&p, &[("q", "supply chain"), ("limit", "1")]);
    assert_eq!((one["total"].as_u64(), one["count"].as_u64()), (Some(3), Some(1)));
    assert_eq!(accessions(&one), ["A"]);
    let hit = &one["hits"][0];
    assert_eq!(hit["form"], "10-K");
    assert_eq!(hit["entity"], "Alpha Corp");
    assert_eq!(hit["cik"], "0000000001");
    assert_eq!(hit["url"], "https://example.test/A");
    assert_eq!(hit["filedDate"], "2024-02-10");
    assert!(hit["snippet"].as_str().unwrap().contains("supply chain"), "{hit}");
}

#[test]
fn equal_scores_list_the_newer_filing_first() {
    let p = fixture_plugin();
    // C and D carry the same entity text, so `entity:beta` scores them equally.
    let beta = search(&p, &[("q", "entity:beta")]);
    assert_eq!(accessions(&beta), ["C", "D"], "2024-03-15 before 2023-12-01");
    assert_eq!(beta["hits"][0]["score"], beta["hits"][1]["score"]);
}

#[test]
fn every_bad_input_is_a_400_naming_the_parameter() {
    let p = fixture_plugin();
    let long = "a".repeat(501);
    for (query, message) in [
        (vec![], "the q query parameter is required"),
        (vec![("q", "   ")], "the q query parameter is required"),
        (vec![("forms", "10-K")], "the q query parameter is required"),
        (vec![("q", long.as_str())], "q must be at most 500 characters"),
        (vec![("q", "x"), ("forms", ",,")], "forms must name at least one form type, for example 10-K,8-K"),
        (
            vec![("q", "x"), ("forms", "10-K;8-K")],
            "forms must be a comma-separated list of form types (letters, digits, spaces, '-', '/' or '.', at most \
             20 characters each, for example 10-K,8-K); got `10-K;8-K`",
        ),
        (vec![("q", "x"), ("from", "2024-13-01")], "from must be a date in YYYY-MM-DD form, got `2024-13-01`"),
        (vec![("q", "x"), ("to", "yesterday")], "to must be a date in YYYY-MM-DD form, got `yesterday`"),
        (
            vec![("q", "x"), ("from", "2025-01-02"), ("to", "2025-01-01")],
            "from (2025-01-02) must not be after to (2025-01-01)",
        ),
        (vec![("q", "x"), ("limit", "0")], "limit must be a positive integer, got `0`"),
        (vec![("q", "x"), ("limit", "ten")], "limit must be a positive integer, got `ten`"),
    ] {
        let (status, body) = get(&p, ROUTE, &query);
        assert_eq!(status, 400, "{query:?}: {body}");
        assert_eq!(body["error"], message, "{query:?}");
        assert_eq!(body["code"], 400);
    }
    let many_forms = (0..30).map(|i| format!("F{i}")).collect::<Vec<_>>().join(",");
    let (status, body) = get(&p, ROUTE, &[("q", "x"), ("forms", &many_forms)]);
    assert_eq!((status, body["error"].as_str()), (400, Some("forms may name at most 25 form types")));
}

#[test]
fn bad_query_syntax_is_a_400_never_a_500() {
    let p = fixture_plugin();
    for bad in ["nosuchfield:supply", "supply AND", "(supply", "\"supply chain", "entity:", "text:[a TO"] {
        let (status, body) = get(&p, ROUTE, &[("q", bad)]);
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body["error"].as_str().unwrap().starts_with("q is not a valid search query ("), "{bad}: {body}");
    }
}

#[test]
fn everyday_query_text_parses() {
    let p = fixture_plugin();
    for ok in
        ["Item 1.05 cybersecurity", "AT&T", "10-K", "Johnson & Johnson", "$500 million", "Amazon.com", "50%", "C++"]
    {
        let (status, body) = get(&p, ROUTE, &[("q", ok)]);
        assert_eq!(status, 200, "{ok}: {body}");
    }
    // A hyphenated word is a phrase of its parts.
    assert_eq!(accessions(&search(&p, &[("q", "supply-chain")])), ["A", "B"]);
    // `*` matches everything with equal scores: newest filing first.
    let all = search(&p, &[("q", "*")]);
    assert_eq!(all["total"], 8);
    assert_eq!(accessions(&all), ["H", "F", "E", "B", "C", "A", "D", "G"]);
}

#[test]
fn seed_is_the_generator_output() {
    let shipped: Snapshot = serde_json::from_str(include_str!("../seed/edgar-search.json")).unwrap();
    assert_eq!(shipped, seed_snapshot(), "regenerate with `cargo run -p datahost-edgar-search --example gen_corpus`");
    assert_eq!(shipped.filings.len(), 300);
    assert!(shipped.meta.caveat.starts_with("DEMO DATA"));
}

/// EDGAR's own accession form, `<10 digits>-<yy>-<6 digits>`: no demo filing may carry one.
fn is_edgar_accession(accession: &str) -> bool {
    let parts: Vec<&str> = accession.split('-').collect();
    parts.len() == 3
        && [10, 2, 6]
            .iter()
            .zip(&parts)
            .all(|(len, part)| part.len() == *len && part.bytes().all(|b| b.is_ascii_digit()))
}

/// The CIKs EDGAR lists in `company_tickers.json` (the corpus copy), or `None` when the corpus is absent.
fn real_ciks() -> Option<std::collections::HashSet<String>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/sec-misc/company_tickers.json");
    let text = std::fs::read_to_string(path).ok()?;
    let doc: Value = serde_json::from_str(&text).expect("company_tickers.json is JSON");
    let ciks = doc.as_object()?.values().map(|c| format!("{:010}", c["cik_str"].as_u64().expect("cik_str"))).collect();
    Some(ciks)
}

#[test]
fn demo_filings_are_visibly_fictional() {
    assert!(!is_edgar_accession("DEMO-2024-000001") && is_edgar_accession("0000000001-24-000001"));
    let seed = seed_snapshot();
    assert!(seed.meta.source.starts_with("DEMO"), "{}", seed.meta.source);
    assert!(seed.meta.source_url.starts_with("https://demo.invalid/"));
    let real = real_ciks();
    if real.is_none() {
        eprintln!("corpus absent: skipping the check against company_tickers.json");
    }
    // The shipped seed and a load-test corpus come from the same generator: check both.
    for f in seed.filings.iter().chain(&generate(2_000, 7, &GenOptions::large())) {
        assert!(f.entity.ends_with(" (demo)"), "{}", f.entity);
        assert!(DEMO_CIKS.contains(&f.cik.as_str()) && f.cik.len() == 10, "{}", f.cik);
        assert!(real.as_ref().is_none_or(|r| !r.contains(&f.cik)), "{} is a real CIK", f.cik);
        assert!(f.accession.starts_with("DEMO-") && !is_edgar_accession(&f.accession), "{}", f.accession);
        assert_eq!(f.url, format!("{DEMO_URL_BASE}{}", f.accession));
    }
    if let Some(real) = real {
        assert!(real.contains("0000320193"), "the corpus copy lists real CIKs, zero-padded as ours");
        assert!(real.iter().all(|c| !DEMO_CIKS.contains(&c.as_str())), "the demo CIK range is unassigned");
    }
}

#[test]
fn documented_example_is_a_real_response() {
    let p = plugin_with_own_seeds::<EdgarSearch>();
    let fragment = crate::schema::fragment();
    let example = &fragment["paths"][ROUTE]["get"]["responses"]["200"]["content"]["application/json"]["example"];
    assert_eq!(&search(&p, &[("q", "\"goodwill impairment\""), ("limit", "1")]), example);
}

/// Counts seed filings whose lower-cased text contains `phrase`, with the request's filters: an oracle that
/// shares no code with the index.
fn scan_count(s: &Snapshot, phrase: &str, forms: &[&str], from: &str, to: &str) -> usize {
    s.filings
        .iter()
        .filter(|f| f.text.to_lowercase().contains(phrase))
        .filter(|f| forms.is_empty() || forms.contains(&f.form.as_str()))
        .filter(|f| f.filed_date.as_str() >= from && f.filed_date.as_str() <= to)
        .count()
}

#[test]
fn seed_totals_agree_with_a_plain_scan() {
    let p = plugin_with_own_seeds::<EdgarSearch>();
    let seed = seed_snapshot();
    for (phrase, forms, from, to) in [
        ("goodwill impairment", vec![], "0000-00-00", "9999-99-99"),
        ("supply chain", vec![], "0000-00-00", "9999-99-99"),
        ("supply chain", vec!["10-K", "10-Q"], "2023-01-01", "2024-12-31"),
        ("cybersecurity incident", vec!["8-K"], "2024-01-01", "9999-99-99"),
        ("going concern", vec!["S-1"], "0000-00-00", "2025-06-30"),
        ("say-on-pay", vec!["DEF 14A"], "0000-00-00", "9999-99-99"),
    ] {
        let expected = scan_count(&seed, phrase, &forms, from, to);
        assert!(expected > 0, "{phrase}: the seed should exercise this query");
        let q = format!("\"{phrase}\"");
        let forms_param = forms.join(",");
        let mut query: Vec<(&str, &str)> = vec![("q", &q), ("limit", "100")];
        if !forms.is_empty() {
            query.push(("forms", &forms_param));
        }
        if from != "0000-00-00" {
            query.push(("from", from));
        }
        if to != "9999-99-99" {
            query.push(("to", to));
        }
        let body = search(&p, &query);
        assert_eq!(body["total"].as_u64(), Some(expected as u64), "{query:?}");
        let hits = body["hits"].as_array().unwrap();
        assert_eq!(body["count"].as_u64(), Some(hits.len() as u64));
        assert_eq!(hits.len(), expected.min(100));
        let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "relevance order: {scores:?}");
    }
}

#[test]
fn seed_limit_default_and_clamp() {
    let p = plugin_with_own_seeds::<EdgarSearch>();
    let seed = seed_snapshot();
    let reports = seed.filings.iter().filter(|f| f.text.to_lowercase().contains("report")).count();
    assert!(reports > 100, "need more than 100 matches to see the clamp, have {reports}");
    let default = search(&p, &[("q", "report")]);
    assert_eq!(default["count"], 10, "default limit is 10");
    assert_eq!(default["total"].as_u64(), Some(reports as u64));
    let clamped = search(&p, &[("q", "report"), ("limit", "1000")]);
    assert_eq!(clamped["count"], 100);
    assert_eq!(clamped["total"].as_u64(), Some(reports as u64));
    for h in clamped["hits"].as_array().unwrap() {
        assert!(!h["snippet"].as_str().unwrap().is_empty());
        assert_eq!(h["cik"].as_str().unwrap().len(), 10);
        assert!(h["url"].as_str().unwrap().starts_with("https://demo.invalid/edgar-search/DEMO-"));
    }
}

#[test]
fn generator_is_deterministic_and_shaped() {
    let a = generate(500, 7, &GenOptions::large());
    assert_eq!(a, generate(500, 7, &GenOptions::large()));
    let accessions: std::collections::HashSet<_> = a.iter().map(|f| f.accession.as_str()).collect();
    assert_eq!(accessions.len(), 500);
    for f in &a {
        assert!(f.filed_date.as_str() >= "2001-01-01" && f.filed_date.as_str() <= "2026-10-30", "{}", f.filed_date);
        let words = f.text.split_whitespace().count();
        assert!((10..=90).contains(&words), "{words} words: {}", f.text);
    }
}

#[test]
fn engine_reports_total_without_snippets() {
    let seed = seed_snapshot();
    let index = SearchIndex::build(seed.filings).unwrap();
    assert_eq!(index.segment_count(), 1);
    let req = SearchRequest { query: "dividend".into(), limit: 3, ..Default::default() };
    let result = index.search(&req).unwrap();
    assert!(result.total >= result.hits.len());
    assert!(result.hits.iter().all(|h| h.snippet().is_none()));
}

/// A field match (`form:`, `cik:`: fields indexed without term frequencies) ranked under a filter takes the
/// pruned path with its bound from the term alone: every filing of that form in the range, none other, and no
/// fault (it once read frequencies the field does not have).
#[test]
fn field_matches_under_date_and_form_filters_find_every_filing_of_the_field() {
    let p = plugin_with_own_seeds::<EdgarSearch>();
    let seed = seed_snapshot();
    for (q, form, from, to) in [
        ("form:8-K", "8-K", "2024-06-01", "2024-09-30"),
        ("form:10-Q", "10-Q", "2023-01-01", "2024-12-31"),
        ("form:S-1", "S-1", "0000-00-00", "2025-06-30"),
    ] {
        let expected: usize = seed
            .filings
            .iter()
            .filter(|f| f.form == form && f.filed_date.as_str() >= from && f.filed_date.as_str() <= to)
            .count();
        assert!(expected > 0, "{q}: the seed should exercise this query");
        let mut query: Vec<(&str, &str)> = vec![("q", q), ("limit", "100"), ("to", to)];
        if from != "0000-00-00" {
            query.push(("from", from));
        }
        let (status, body) = get(&p, ROUTE, &query);
        assert_eq!(status, 200, "{query:?}: {body}");
        assert_eq!(body["total"].as_u64(), Some(expected as u64), "{query:?}");
        let hits = body["hits"].as_array().unwrap();
        assert_eq!(hits.len(), expected, "{query:?}");
        assert!(hits.iter().all(|h| h["form"] == form), "{query:?}");
    }
}

/// A hit's filing is read from the index once and kept: a second search finds the same filings, scores and
/// snippets from the cache, which holds each filing once and weighs at least its text; the snippets of a cached
/// filing follow each query (one filing, two queries, two fragments).
#[test]
fn filings_read_for_hits_are_kept_and_answer_alike() {
    let index = SearchIndex::build(seed_snapshot().filings).unwrap();
    assert_eq!(index.read_filings_held(), (0, 0));
    let req = SearchRequest { query: "revenue".into(), limit: 20, snippets: true, ..Default::default() };
    let first = index.search(&req).unwrap();
    assert_eq!(first.hits.len(), 20);
    let (held, bytes) = index.read_filings_held();
    assert_eq!(held, 20);
    let texts: usize = first.hits.iter().map(|h| h.filing().text.len()).sum();
    assert!(bytes as usize > texts, "{bytes} bytes held for {texts} bytes of text");
    let again = index.search(&req).unwrap();
    let seen = |r: &crate::index::SearchResult| -> Vec<(String, f32, Option<String>)> {
        r.hits.iter().map(|h| (h.filing().accession.clone(), h.score, h.snippet().map(str::to_string))).collect()
    };
    assert_eq!(seen(&first), seen(&again));
    assert_eq!(index.read_filings_held(), (held, bytes));
    for hit in &first.hits {
        let snippet = hit.snippet().unwrap();
        assert!(snippet.to_lowercase().contains("revenue"), "{snippet}");
    }
    // The first hit's filing, kept, answers another of its words with a fragment holding that word (a form of
    // it: the fragment with the most words of its stem wins).
    let word = first.hits[0]
        .filing()
        .text
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| w.len() >= 8 && !w.to_lowercase().starts_with("revenue"))
        .unwrap()
        .to_lowercase();
    let other = SearchRequest { query: word.clone(), limit: 100, snippets: true, ..Default::default() };
    let result = index.search(&other).unwrap();
    let hit = result.hits.iter().find(|h| h.filing().accession == first.hits[0].filing().accession).unwrap();
    let snippet = hit.snippet().unwrap().to_lowercase();
    assert!(snippet.contains(&word[..5]), "{word}: {snippet}");
}

/// A hit written from its filing's frame (what an answer serves) is the hit written whole, for every filing of
/// the seed and the fixture and for scores and snippets of every kind: escapes, non-ASCII text, empty.
#[test]
fn hits_written_from_frames_are_the_hits_written_whole() {
    let fixture: Snapshot = serde_json::from_str(&fixture_json()).unwrap();
    let mut filings = seed_snapshot().filings;
    filings.extend(fixture.filings);
    let mut odd = filings[0].clone();
    (odd.entity, odd.url) = ("Caf\u{e9} \"Quoted\" \\ Co\u{0}".into(), "https://x.invalid/a\nb".into());
    filings.push(odd);
    let snippets = ["", "supply chain", "\"quoted\" \\ back\u{1}slash", "Z\u{fc}rich \u{1F600} …"];
    for filing in &filings {
        let frame = crate::routes::hit_frame(filing).unwrap();
        for (score, snippet) in [0.0, 1.2345, 13.0, 0.0001].into_iter().zip(snippets) {
            let whole = serde_json::to_string(&crate::routes::HitOut::of(filing, score, snippet)).unwrap();
            let filled = serde_json::to_string(&frame.fill_two(&score, snippet).unwrap()).unwrap();
            assert_eq!(filled, whole, "{}", filing.accession);
        }
    }
}

/// A query of plain words is built without tantivy's parser (`SearchIndex::plain_words`): it must be the query the
/// parser makes of the same text, term for term, and score every filing alike; anything else goes to the parser.
#[test]
fn plain_words_are_the_parsers_query() {
    use tantivy::collector::{Count, TopDocs};
    let seed = seed_snapshot();
    let index = SearchIndex::build(seed.filings.clone()).unwrap();
    let mut vocabulary: Vec<String> = seed
        .filings
        .iter()
        .flat_map(|f| f.text.split(|c: char| !c.is_ascii_alphanumeric()).chain(f.entity.split(' ')))
        .filter(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric()))
        .map(str::to_string)
        .collect();
    vocabulary.sort();
    vocabulary.dedup();
    assert!(vocabulary.len() > 300, "the seed's words: {}", vocabulary.len());
    let mut queries: Vec<String> = vocabulary.clone();
    queries.extend(vocabulary.windows(2).step_by(7).map(|w| w.join(" ")));
    queries.extend(vocabulary.windows(3).step_by(11).map(|w| format!("  {}\t{} \n{} ", w[0], w[1], w[2])));
    queries.extend(vocabulary.iter().step_by(5).map(|w| w.to_uppercase()));
    queries.extend(
        [
            "supply supply chain",
            "chain supply chain",
            "supply supplies",
            "Supply supply",
            "Revenue",
            "a1b2",
            "10",
            "2024",
            "x",
        ]
        .map(String::from),
    );
    queries.push("a".repeat(39)); // the analyser's longest word (it drops words of 40 bytes or more)
    let searcher = index.searcher();
    let mut built = 0;
    for q in &queries {
        let Some(plain) = index.plain_words(q) else {
            let operator = q.split_ascii_whitespace().any(|w| SearchIndex::OPERATOR_WORDS.contains(&w));
            assert!(operator, "{q:?} is plain words");
            continue;
        };
        built += 1;
        let parsed = index.parse_by_grammar(q).unwrap_or_else(|e| panic!("{q:?}: {e:?}"));
        assert_eq!(format!("{plain:?}"), format!("{parsed:?}"), "{q:?}");
        let collector = (TopDocs::with_limit(1_000).order_by_score(), Count);
        let (plain_top, plain_count) = searcher.search(&*plain, &collector).unwrap();
        let (parsed_top, parsed_count) = searcher.search(&*parsed, &collector).unwrap();
        assert_eq!(plain_count, parsed_count, "{q:?}");
        let bits =
            |top: Vec<(f32, tantivy::DocAddress)>| top.into_iter().map(|(s, a)| (s.to_bits(), a)).collect::<Vec<_>>();
        assert_eq!(bits(plain_top), bits(parsed_top), "{q:?}");
    }
    assert!(built + 10 > queries.len(), "{built} of {} built", queries.len());
    // Operators, punctuation, non-ASCII letters, a word the analyser drops and empty text: the parser's.
    for q in [
        "supply AND chain",
        "supply OR chain",
        "NOT chain",
        "IN",
        "supply-chain",
        "\"supply chain\"",
        "chain*",
        "entity:alpha",
        "naïve",
        "revenue_growth",
        "",
        "   ",
    ] {
        assert!(index.plain_words(q).is_none(), "{q:?} is for the parser");
    }
    assert!(index.plain_words(&"a".repeat(40)).is_none());
    assert_eq!(
        format!("{:?}", index.parse("chain").unwrap()),
        format!("{:?}", index.parse_by_grammar("chain").unwrap())
    );
}

/// A query text's prepared form (parsed, weighted) is kept and reused by later searches of the same text, with
/// any other parameters, and answers as a new one; a text that does not parse is not kept.
#[test]
fn prepared_queries_are_kept_and_answer_alike() {
    let index = SearchIndex::build(seed_snapshot().filings).unwrap();
    let answer = |index: &SearchIndex, req: &SearchRequest| {
        let result = index.search(req).unwrap();
        let hits: Vec<_> =
            result.hits.iter().map(|h| (h.score.to_bits(), h.key, h.snippet().map(str::to_string))).collect();
        (result.total, result.total_exact, hits)
    };
    let mut answered = 0;
    for q in
        ["revenue", "supply chain", "\"supply chain\"", "Revenue", "goodwill OR impairment -charge", "entity:orchard"]
    {
        for (limit, from) in [(1, None), (7, Some("2024-01-01")), (100, None)] {
            let req = SearchRequest {
                query: q.to_string(),
                limit,
                from: from.map(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap()),
                snippets: true,
                ..Default::default()
            };
            // A new index prepares the text for this request; `index` has it kept from the first request.
            let fresh = SearchIndex::build(seed_snapshot().filings).unwrap();
            assert_eq!(answer(&index, &req), answer(&fresh, &req), "{q} limit {limit} from {from:?}");
            answered += usize::from(!answer(&index, &req).2.is_empty());
        }
        let kept = index.prepare(q).unwrap();
        assert!(std::sync::Arc::ptr_eq(&kept, &index.prepare(q).unwrap()), "{q} is kept");
    }
    assert!(answered > 10, "{answered} requests with hits");
    assert!(index.prepare("\"unclosed").is_err());
    assert!(index.prepare("\"unclosed").is_err(), "a failed text stays a failure");
    // The kept texts are weighed by their terms: 300 distinct queries of a hundred words (about 300 KB each: two
    // terms a word) hold at most the bound, so only some of them stay.
    let words: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
    for n in 0..300 {
        let q = format!("{} x{n}", words.join(" "));
        index.prepare(&q).unwrap();
    }
    let (held, bytes) = index.prepared_held();
    assert!(bytes <= crate::index::PREPARED_BYTES, "{bytes} bytes held");
    assert!(held < 200, "{held} texts held");
}
