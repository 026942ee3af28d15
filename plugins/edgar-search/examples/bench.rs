//! Load test of the full-text engine: builds the in-RAM index from N generated filings (about 40 words each)
//! and reports build time, index size and p50/p99 latency per query kind over a fixed query mix. Plain
//! `Instant` timing; nothing here is a pass/fail test.
//!
//! `cargo run -p datahost-edgar-search --example bench --release -- 1000000`
//! Options: `--heap-mb N` (IndexWriter memory budget, default 500), `--threads N` (indexing threads, default 1),
//! `--runs N` (queries per kind, default 200), `--no-merge` (keep the writer's segments).

use std::time::{Duration, Instant};

use chrono::NaiveDate;
use datahost_edgar_search::corpus::{generate, GenOptions};
use datahost_edgar_search::index::{BuildOptions, SearchIndex, SearchRequest};

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Resident memory of this process from /proc (current and peak), in MiB.
fn memory_mib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn date(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

struct Kind {
    name: &'static str,
    queries: &'static [&'static str],
    forms: &'static [&'static str],
    from: Option<&'static str>,
    to: Option<&'static str>,
}

const KINDS: &[Kind] = &[
    Kind {
        name: "common term",
        queries: &["revenue", "shares", "report", "quarter"],
        forms: &[],
        from: None,
        to: None,
    },
    Kind {
        name: "rare term",
        queries: &["hydrogen", "strike", "endpoint", "depositary"],
        forms: &[],
        from: None,
        to: None,
    },
    Kind {
        name: "two terms (AND)",
        queries: &["supply chain", "goodwill impairment", "cybersecurity incident", "interest rates"],
        forms: &[],
        from: None,
        to: None,
    },
    Kind {
        name: "phrase",
        queries: &[
            "\"supply chain\"",
            "\"goodwill impairment\"",
            "\"cybersecurity incident\"",
            "\"share repurchase program\"",
        ],
        forms: &[],
        from: None,
        to: None,
    },
    Kind {
        name: "OR of terms",
        queries: &["tariffs OR export", "dividend OR repurchase"],
        forms: &[],
        from: None,
        to: None,
    },
    Kind {
        name: "phrase + forms",
        queries: &["\"supply chain\"", "\"material weakness\""],
        forms: &["10-K", "10-Q"],
        from: None,
        to: None,
    },
    Kind {
        name: "term + date range",
        queries: &["cybersecurity", "impairment"],
        forms: &[],
        from: Some("2015-01-01"),
        to: Some("2019-12-31"),
    },
    Kind {
        name: "phrase + forms + dates",
        queries: &["\"cybersecurity incident\"", "\"goodwill impairment\""],
        forms: &["8-K"],
        from: Some("2020-01-01"),
        to: Some("2024-12-31"),
    },
    Kind { name: "entity field", queries: &["entity:orchard", "entity:kestrel"], forms: &[], from: None, to: None },
    Kind { name: "match all + forms", queries: &["*"], forms: &["DEF 14A"], from: None, to: None },
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let heap_mb: usize = arg(&args, "--heap-mb", 500);
    let threads: usize = arg(&args, "--threads", 1);
    let runs: usize = arg(&args, "--runs", 200);
    let merge = !args.iter().any(|a| a == "--no-merge");

    let t = Instant::now();
    let filings = generate(n, 42, &GenOptions::large());
    let words: usize = filings.iter().map(|f| f.text.split_whitespace().count()).sum();
    let text_bytes: usize = filings.iter().map(|f| f.text.len()).sum();
    println!(
        "generated {n} filings in {:.1} s ({:.1} words and {:.0} bytes of text per filing on average)",
        t.elapsed().as_secs_f64(),
        words as f64 / n.max(1) as f64,
        text_bytes as f64 / n.max(1) as f64
    );

    let t = Instant::now();
    let opts = BuildOptions { writer_heap_bytes: heap_mb * 1_000_000, threads, merge };
    let index = SearchIndex::build_with(filings, opts).expect("build index");
    let build = t.elapsed();
    let (rss, peak) = memory_mib();
    println!(
        "built the index in {:.1} s (heap {heap_mb} MB, {threads} thread(s), merge {merge}): {} segment(s), \
         index {:.1} MiB; process RSS {rss} MiB, peak {peak} MiB",
        build.as_secs_f64(),
        index.segment_count(),
        index.index_bytes() as f64 / (1024.0 * 1024.0),
    );

    println!();
    println!("| query kind | runs | mean total | p50 ms | p99 ms | max ms |");
    println!("|---|---|---|---|---|---|");
    for kind in KINDS {
        let mut latencies = Vec::with_capacity(runs);
        let mut totals = 0usize;
        for i in 0..runs + 5 {
            let req = SearchRequest {
                query: kind.queries[i % kind.queries.len()].to_string(),
                forms: kind.forms.iter().map(|f| f.to_string()).collect(),
                from: kind.from.and_then(date),
                to: kind.to.and_then(date),
                limit: 10,
                after: None,
                snippets: true,
            };
            let t = Instant::now();
            let result = index.search(&req).expect("search");
            let elapsed = t.elapsed();
            // The first few runs warm caches and are not counted.
            if i >= 5 {
                latencies.push(elapsed);
                totals += result.total;
            }
        }
        latencies.sort();
        println!(
            "| {} | {runs} | {} | {:.2} | {:.2} | {:.2} |",
            kind.name,
            totals / runs.max(1),
            ms(percentile(&latencies, 0.50)),
            ms(percentile(&latencies, 0.99)),
            ms(*latencies.last().unwrap()),
        );
    }
}
