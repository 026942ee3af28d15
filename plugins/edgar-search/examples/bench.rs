//! Load test of the full-text engine, side by side with PostgreSQL full-text search: builds the in-RAM index
//! from N generated (synthetic, demo) filings of about 40 words, loads the same filings into a PostgreSQL table
//! with a `tsvector` column and a GIN index, and runs the same query mix against both, interleaved round by
//! round, reporting build time, index size and p50/p99 latency per query kind and the ratio of the medians.
//! Plain `Instant` timing; nothing here is a pass/fail test.
//!
//! `cargo run -p datahost-edgar-search --example bench --release -- 1000000`
//! Options: `--heap-mb N` (IndexWriter memory budget, default 500), `--threads N` (indexing threads, default 1),
//! `--runs N` (tantivy queries per kind, default 200), `--pg-runs N` (PostgreSQL queries per kind, default 30,
//! spread evenly over the same rounds), `--no-merge` (keep the writer's segments), `--no-pg` (tantivy only),
//! `--pg URL` (default `host=127.0.0.1 port=5432 user=postgres`), `--index-dir DIR` (build the index on disk in
//! DIR, or open the one a previous run built there, instead of in RAM), `--kept-matches` (let texts on few filings
//! keep their matches in rank order, `ranked.rs`: off by default, as the rounds repeat each kind's texts).
//!
//! PostgreSQL side: database `fts_bench_<N>` (created, and reused when it already holds these N filings), table
//! `filings` with `tsv = setweight(to_tsvector('english', entity), 'A') || setweight(to_tsvector('english',
//! text), 'B')` (GIN), btree indexes on `filed` and `(form, filed)`. Each query is the same request: the words as
//! `plainto_tsquery` (every word), `phraseto_tsquery` (a phrase), `websearch_to_tsquery` (`OR`) or
//! `to_tsquery('orchard:A')` (the entity field); the same form and date filters; the top 10 by `ts_rank`
//! (then place in the index, as tantivy's tie-break), with `ts_headline` snippets for those 10; and the number
//! of matches counted up to the same cap as tantivy's `total`.

use std::time::{Duration, Instant};

use chrono::NaiveDate;
use datahost_edgar_search::corpus::{generate, GenOptions};
use datahost_edgar_search::data::Filing;
use datahost_edgar_search::index::{normalize_form, BuildOptions, SearchIndex, SearchRequest, TOTAL_CAP};

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

/// How PostgreSQL reads a query of a kind (the tantivy syntax of the same request is the query text itself).
#[derive(Clone, Copy)]
enum TsQuery {
    /// `plainto_tsquery`: every word (AND), as tantivy's default conjunction.
    Plain,
    /// `phraseto_tsquery` of the text between the quotes.
    Phrase,
    /// `websearch_to_tsquery`: `a OR b`.
    Web,
    /// `to_tsquery('word:A')`: the word in the entity name only (weight A), as `entity:word`.
    Entity,
    /// No text condition (`*`).
    All,
}

struct Kind {
    name: &'static str,
    queries: &'static [&'static str],
    pg: TsQuery,
    forms: &'static [&'static str],
    from: Option<&'static str>,
    to: Option<&'static str>,
}

const KINDS: &[Kind] = &[
    Kind {
        name: "common term",
        queries: &["revenue", "shares", "report", "quarter"],
        pg: TsQuery::Plain,
        forms: &[],
        from: None,
        to: None,
    },
    Kind {
        name: "rare term",
        queries: &["hydrogen", "strike", "endpoint", "depositary"],
        pg: TsQuery::Plain,
        forms: &[],
        from: None,
        to: None,
    },
    Kind {
        name: "two terms (AND)",
        queries: &["supply chain", "goodwill impairment", "cybersecurity incident", "interest rates"],
        pg: TsQuery::Plain,
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
        pg: TsQuery::Phrase,
        forms: &[],
        from: None,
        to: None,
    },
    Kind {
        name: "OR of terms",
        queries: &["tariffs OR export", "dividend OR repurchase"],
        pg: TsQuery::Web,
        forms: &[],
        from: None,
        to: None,
    },
    Kind {
        name: "phrase + forms",
        queries: &["\"supply chain\"", "\"material weakness\""],
        pg: TsQuery::Phrase,
        forms: &["10-K", "10-Q"],
        from: None,
        to: None,
    },
    Kind {
        name: "term + date range",
        queries: &["cybersecurity", "impairment"],
        pg: TsQuery::Plain,
        forms: &[],
        from: Some("2015-01-01"),
        to: Some("2019-12-31"),
    },
    Kind {
        name: "phrase + forms + dates",
        queries: &["\"cybersecurity incident\"", "\"goodwill impairment\""],
        pg: TsQuery::Phrase,
        forms: &["8-K"],
        from: Some("2020-01-01"),
        to: Some("2024-12-31"),
    },
    Kind {
        name: "entity field",
        queries: &["entity:orchard", "entity:kestrel"],
        pg: TsQuery::Entity,
        forms: &[],
        from: None,
        to: None,
    },
    Kind { name: "match all + forms", queries: &["*"], pg: TsQuery::All, forms: &["DEF 14A"], from: None, to: None },
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Latencies and totals of one engine for one kind.
#[derive(Default)]
struct Samples {
    latencies: Vec<Duration>,
    totals: usize,
    capped: usize,
}

impl Samples {
    fn add(&mut self, elapsed: Duration, total: usize, exact: bool) {
        self.latencies.push(elapsed);
        self.totals += total;
        self.capped += usize::from(!exact);
    }
    fn p(&mut self, p: f64) -> Duration {
        self.latencies.sort();
        percentile(&self.latencies, p)
    }
    fn mean_total(&self) -> usize {
        self.totals / self.latencies.len().max(1)
    }
}

/// The same filings in a PostgreSQL table, and the prepared statements of each kind.
struct Pg {
    client: postgres::Client,
    /// Per kind: (top 10 with snippets, capped count).
    statements: Vec<(postgres::Statement, postgres::Statement)>,
}

/// Text-format COPY escaping.
fn copy_field(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

impl Pg {
    fn connect(url: &str, filings: &[Filing]) -> Result<Self, postgres::Error> {
        let name = format!("fts_bench_{}", filings.len());
        let mut admin = postgres::Client::connect(&format!("{url} dbname=postgres"), postgres::NoTls)?;
        let exists = admin.query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])?.is_some();
        if !exists {
            admin.batch_execute(&format!("CREATE DATABASE {name}"))?;
        }
        let mut client = postgres::Client::connect(&format!("{url} dbname={name}"), postgres::NoTls)?;
        let loaded: Option<i64> = client
            .query_opt("SELECT n FROM loaded WHERE n = $1", &[&(filings.len() as i64)])
            .ok()
            .flatten()
            .map(|r| r.get(0));
        if loaded.is_some() {
            println!("PostgreSQL: reusing database {name} ({} filings)", filings.len());
        } else {
            Self::load(&mut client, &name, filings)?;
        }
        let mut statements = Vec::new();
        for kind in KINDS {
            let (top, count) = Self::sql(kind);
            statements.push((client.prepare(&top)?, client.prepare(&count)?));
        }
        Ok(Self { client, statements })
    }

    fn load(client: &mut postgres::Client, name: &str, filings: &[Filing]) -> Result<(), postgres::Error> {
        let t = Instant::now();
        // A load interrupted after its COPY resumes at the indexes.
        let copied_before: Option<i64> =
            client.query_opt("SELECT count(*) FROM filings", &[]).ok().flatten().map(|r| r.get(0));
        if copied_before != Some(filings.len() as i64) {
            Self::copy(client, filings)?;
        }
        let copied = t.elapsed();
        // One statement at a time: a multi-statement batch is one transaction, which VACUUM refuses.
        for statement in [
            "SET maintenance_work_mem = '1GB'",
            "CREATE INDEX IF NOT EXISTS filings_tsv ON filings USING gin (tsv)",
            "CREATE INDEX IF NOT EXISTS filings_filed ON filings (filed)",
            "CREATE INDEX IF NOT EXISTS filings_form_filed ON filings (form, filed)",
            "VACUUM ANALYZE filings",
            "CREATE TABLE IF NOT EXISTS loaded (n bigint NOT NULL)",
        ] {
            client.batch_execute(statement)?;
        }
        client.execute("INSERT INTO loaded (n) VALUES ($1)", &[&(filings.len() as i64)])?;
        println!(
            "PostgreSQL: loaded {} filings into {name} in {:.1} s (COPY with tsvector {:.1} s, indexes {:.1} s)",
            filings.len(),
            t.elapsed().as_secs_f64(),
            copied.as_secs_f64(),
            (t.elapsed() - copied).as_secs_f64()
        );
        Ok(())
    }

    fn copy(client: &mut postgres::Client, filings: &[Filing]) -> Result<(), postgres::Error> {
        client.batch_execute(
            "DROP TABLE IF EXISTS loaded, filings;
             CREATE TABLE filings (
                 place bigint PRIMARY KEY, form text NOT NULL, form_as_filed text NOT NULL, entity text NOT NULL,
                 cik text NOT NULL, accession text NOT NULL, url text NOT NULL, filed date NOT NULL,
                 body text NOT NULL,
                 tsv tsvector GENERATED ALWAYS AS (
                     setweight(to_tsvector('english', entity), 'A') || setweight(to_tsvector('english', body), 'B')
                 ) STORED);",
        )?;
        // The index's order: newest filing first, then accession descending (its `place`).
        let mut order: Vec<&Filing> = filings.iter().collect();
        order.sort_by(|a, b| (&b.filed_date, &b.accession).cmp(&(&a.filed_date, &a.accession)));
        let mut writer = client.copy_in(
            "COPY filings (place, form, form_as_filed, entity, cik, accession, url, filed, body) FROM STDIN",
        )?;
        let mut buf = String::with_capacity(1 << 20);
        for (place, f) in order.iter().enumerate() {
            buf.push_str(&place.to_string());
            let normalized = normalize_form(&f.form);
            for value in [&normalized, &f.form, &f.entity, &f.cik, &f.accession, &f.url, &f.filed_date, &f.text] {
                buf.push('\t');
                copy_field(&mut buf, value);
            }
            buf.push('\n');
            if buf.len() > 1 << 20 {
                std::io::Write::write_all(&mut writer, buf.as_bytes()).expect("COPY");
                buf.clear();
            }
        }
        std::io::Write::write_all(&mut writer, buf.as_bytes()).expect("COPY");
        writer.finish()?;
        Ok(())
    }

    /// The SQL of a kind: `$1` the query text; then `$2` the forms, `$3`/`$4` the dates, when the kind filters.
    fn sql(kind: &Kind) -> (String, String) {
        let tsquery = match kind.pg {
            TsQuery::Plain => Some("plainto_tsquery('english', $1)"),
            TsQuery::Phrase => Some("phraseto_tsquery('english', $1)"),
            TsQuery::Web => Some("websearch_to_tsquery('english', $1)"),
            TsQuery::Entity => Some("to_tsquery('english', $1)"),
            TsQuery::All => None,
        };
        let mut conditions = vec![match tsquery {
            Some(q) => format!("tsv @@ {q}"),
            None => "$1::text IS NOT NULL".to_string(),
        }];
        let mut next = 2;
        if !kind.forms.is_empty() {
            conditions.push(format!("form = ANY(${next}::text[])"));
            next += 1;
        }
        if kind.from.is_some() {
            conditions.push(format!("filed >= ${next}::text::date"));
            next += 1;
        }
        if kind.to.is_some() {
            conditions.push(format!("filed <= ${next}::text::date"));
        }
        let filter = conditions.join(" AND ");
        let (rank, headline) = match tsquery {
            Some(q) => (format!("ts_rank(tsv, {q})"), format!("ts_headline('english', body, {q}, 'MaxWords=25')")),
            None => ("1.0::real".to_string(), "left(body, 160)".to_string()),
        };
        let top = format!(
            "SELECT place, score, form_as_filed, entity, cik, accession, url, filed::text, {headline} AS snippet
             FROM (SELECT *, {rank} AS score FROM filings WHERE {filter} ORDER BY score DESC, place LIMIT 10) top
             ORDER BY score DESC, place"
        );
        let count = format!("SELECT count(*) FROM (SELECT 1 FROM filings WHERE {filter} LIMIT {}) m", TOTAL_CAP + 1);
        (top, count)
    }

    /// Runs one request of `kind`: (top hits returned, capped total, exact).
    fn search(&mut self, k: usize, kind: &Kind, query: &str) -> Result<(usize, usize, bool), postgres::Error> {
        let text = match kind.pg {
            TsQuery::Phrase => query.trim_matches('"').to_string(),
            TsQuery::Entity => format!("{}:A", query.trim_start_matches("entity:")),
            _ => query.to_string(),
        };
        let forms: Vec<String> = kind.forms.iter().map(|f| normalize_form(f)).collect();
        let mut params: Vec<&(dyn postgres::types::ToSql + Sync)> = vec![&text];
        if !kind.forms.is_empty() {
            params.push(&forms);
        }
        if let Some(from) = &kind.from {
            params.push(from);
        }
        if let Some(to) = &kind.to {
            params.push(to);
        }
        let (top, count) = &self.statements[k];
        let hits = self.client.query(top, &params)?.len();
        let counted: i64 = self.client.query_one(count, &params)?.get(0);
        let counted = counted as usize;
        Ok((hits, counted.min(TOTAL_CAP), counted <= TOTAL_CAP))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let heap_mb: usize = arg(&args, "--heap-mb", 500);
    let threads: usize = arg(&args, "--threads", 1);
    let runs: usize = arg(&args, "--runs", 200).max(1);
    let pg_runs: usize = arg(&args, "--pg-runs", 30).clamp(1, runs);
    let merge = !args.iter().any(|a| a == "--no-merge");
    let with_pg = !args.iter().any(|a| a == "--no-pg");
    let kept_matches = args.iter().any(|a| a == "--kept-matches");
    let index_dir: Option<std::path::PathBuf> =
        args.iter().position(|a| a == "--index-dir").map(|i| args[i + 1].clone().into());
    let pg_url: String = arg(&args, "--pg", "host=127.0.0.1 port=5432 user=postgres".to_string());

    let t = Instant::now();
    let filings = generate(n, 42, &GenOptions::large());
    let words: usize = filings.iter().map(|f| f.text.split_whitespace().count()).sum();
    let text_bytes: usize = filings.iter().map(|f| f.text.len()).sum();
    println!(
        "generated {n} synthetic (demo) filings in {:.1} s ({:.1} words and {:.0} bytes of text per filing on average)",
        t.elapsed().as_secs_f64(),
        words as f64 / n.max(1) as f64,
        text_bytes as f64 / n.max(1) as f64
    );

    let mut pg = with_pg.then(|| Pg::connect(&pg_url, &filings).expect("PostgreSQL"));

    let t = Instant::now();
    let opts = BuildOptions { writer_heap_bytes: heap_mb * 1_000_000, threads, merge };
    let mut index = match &index_dir {
        Some(dir) if dir.join("meta.json").exists() => SearchIndex::open(dir).expect("open index"),
        Some(dir) => SearchIndex::build_in(dir, filings, opts).expect("build index"),
        None => SearchIndex::build_with(filings, opts).expect("build index"),
    };
    let build = t.elapsed();
    // The rounds repeat each kind's few texts: with their matches kept, a rare text's search would be read off its
    // list from the second round on, and the table would time the list, not the search of a new text.
    if !kept_matches {
        index.set_ranked_cap(0);
    }
    let (rss, peak) = memory_mib();
    println!(
        "built the index in {:.1} s (heap {heap_mb} MB, {threads} thread(s), merge {merge}): {} segment(s) \
         (documents in index order: {}), index {:.1} MiB; process RSS {rss} MiB, peak {peak} MiB",
        build.as_secs_f64(),
        index.segment_count(),
        index.ties_settled_by_layout(),
        index.index_bytes() as f64 / (1024.0 * 1024.0),
    );

    let mut tantivy: Vec<Samples> = KINDS.iter().map(|_| Samples::default()).collect();
    let mut postgres: Vec<Samples> = KINDS.iter().map(|_| Samples::default()).collect();
    let mut baseline: Vec<Samples> = KINDS.iter().map(|_| Samples::default()).collect();
    // The first rounds warm caches and are not counted.
    let warmup = 5;
    let pg_every = runs / pg_runs;
    for round in 0..warmup + runs {
        let counted = round >= warmup;
        for (k, kind) in KINDS.iter().enumerate() {
            let query = kind.queries[round % kind.queries.len()];
            let req = SearchRequest {
                query: query.to_string(),
                forms: kind.forms.iter().map(|f| normalize_form(f)).collect(),
                from: kind.from.and_then(date),
                to: kind.to.and_then(date),
                limit: 10,
                after: None,
                snippets: true,
            };
            let t = Instant::now();
            let result = index.search(&req).expect("search");
            let elapsed = t.elapsed();
            if counted {
                tantivy[k].add(elapsed, result.total, result.total_exact);
            }
            // The baseline: the same index scoring and counting every match, as before the pruned ranking.
            let t = Instant::now();
            let result = index.search_exhaustive(&req).expect("search");
            let elapsed = t.elapsed();
            if counted {
                baseline[k].add(elapsed, result.total, result.total_exact);
            }
            // PostgreSQL answers in the same rounds, on every `pg_every`-th one (and in the first warm-up round).
            let pg_round = round == 0 || (counted && (round - warmup) % pg_every == 0);
            if let (Some(pg), true) = (pg.as_mut(), pg_round) {
                let t = Instant::now();
                let (_, total, exact) = pg.search(k, kind, query).expect("PostgreSQL search");
                let elapsed = t.elapsed();
                if counted && postgres[k].latencies.len() < pg_runs {
                    postgres[k].add(elapsed, total, exact);
                }
            }
        }
    }

    println!();
    println!("tantivy, scoring and counting every match (before) vs pruned ranking and capped count (after):");
    println!("| query kind | runs | mean total, exact | p50 ms before | p99 ms before | mean total, capped | p50 ms after | p99 ms after | p50 speed-up |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (k, kind) in KINDS.iter().enumerate() {
        let (b, t) = (&mut baseline[k], &mut tantivy[k]);
        let (b50, b99, t50, t99) = (b.p(0.50), b.p(0.99), t.p(0.50), t.p(0.99));
        println!(
            "| {} | {} | {} | {:.2} | {:.2} | {} | {:.2} | {:.2} | {:.1}x |",
            kind.name,
            t.latencies.len(),
            b.mean_total(),
            ms(b50),
            ms(b99),
            t.mean_total(),
            ms(t50),
            ms(t99),
            b50.as_secs_f64() / t50.as_secs_f64().max(1e-9),
        );
    }
    if pg.is_none() {
        return;
    }
    println!();
    println!("tantivy (after) vs PostgreSQL full-text search, same filings and requests, same rounds:");
    println!(
        "| query kind | runs | mean total (tantivy) | p50 ms | p99 ms | runs | mean total (PostgreSQL) | p50 ms | p99 ms \
         | p50 ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (k, kind) in KINDS.iter().enumerate() {
        let t = &mut tantivy[k];
        let (t50, t99) = (t.p(0.50), t.p(0.99));
        let p = &mut postgres[k];
        let (p50, p99) = (p.p(0.50), p.p(0.99));
        println!(
            "| {} | {} | {}{} | {:.2} | {:.2} | {} | {}{} | {:.1} | {:.1} | {:.0}x |",
            kind.name,
            t.latencies.len(),
            t.mean_total(),
            if t.capped > 0 { " (capped)" } else { "" },
            ms(t50),
            ms(t99),
            p.latencies.len(),
            p.mean_total(),
            if p.capped > 0 { " (capped)" } else { "" },
            ms(p50),
            ms(p99),
            p50.as_secs_f64() / t50.as_secs_f64().max(1e-9),
        );
    }
}
