//! Writes a synthetic edgar-search snapshot of N filings to stdout, in the seed's `{meta, filings}` shape.
//!
//! `cargo run -p datahost-edgar-search --example gen_corpus --release -- 1000000 > /tmp/corpus.json`
//! Options: `--seed N` (RNG seed, default 2026), `--short` (about 40 words per filing, as in the load test).
//! `gen_corpus 300` with the default options reproduces `seed/edgar-search.json`.

use std::io::{BufWriter, Write};

use datahost_edgar_search::corpus::{generate, snapshot, GenOptions, SEED_FILINGS, SEED_RNG};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = args.first().and_then(|a| a.parse().ok()).unwrap_or(SEED_FILINGS);
    let seed = args
        .iter()
        .position(|a| a == "--seed")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEED_RNG);
    let opts = if args.iter().any(|a| a == "--short") { GenOptions::large() } else { GenOptions::seed() };
    let doc = snapshot(generate(n, seed, &opts));
    let mut out = BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &doc).expect("write JSON");
    writeln!(out).expect("write newline");
}
