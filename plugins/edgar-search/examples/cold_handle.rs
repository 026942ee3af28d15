//! The plugin's own cost of a cold search, in process: the plugin on its demo seed (as `datahost serve` on a
//! fresh clone holds it) answers a list of distinct requests, and this reports the CPU time of the answering
//! thread per request. No sockets, no host, no other thread: on a shared 2-core machine, where wrk's req/s move
//! by 10-30% from round to round, this compares two builds of the plugin's code (run each build's binary in
//! turn, several times). Plain timing; nothing here is a pass/fail test.
//!
//! `cargo run -p datahost-edgar-search --example cold_handle --release -- PATHS [rounds, 5]`
//! PATHS: request paths, one per line, as `tests/bench/bench.py cold-queries memory ...` prints them for
//! edgar-search (`/v1/edgar-search?q=...&limit=...&from=...`, no percent escapes). That list is in order of
//! `limit` (every word with 1, then with 2, ... up to 43): measure a shuffled sample of it, not its head, which
//! asks for few hits and hides what each hit costs (BENCHMARKS.md, stop 50). Each path is answered once
//! before timing (the server's state after its first rotation: every filing a hit names read and analysed), then
//! `rounds` times.

use datahost_edgar_search::EdgarSearch;
use datahost_plugin_api::testing::plugin_with_own_seeds;
use datahost_plugin_api::{Plugin, RequestEnvelope};

/// CPU time of the calling thread, in nanoseconds.
fn thread_cpu_ns() -> u128 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `clock_gettime` writes one timespec into the pointer given, which points at one.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let paths = std::fs::read_to_string(args.get(1).expect("usage: cold_handle PATHS [rounds]")).expect("PATHS");
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let requests: Vec<(String, Vec<(String, String)>)> = paths
        .lines()
        .filter_map(|line| line.split_once('?'))
        .map(|(route, query)| {
            let pairs = query
                .split('&')
                .filter_map(|pair| pair.split_once('='))
                .map(|(k, v)| (k.to_string(), v.replace('+', " ")))
                .collect();
            (route.to_string(), pairs)
        })
        .collect();
    assert!(!requests.is_empty(), "no request paths in {}", args[1]);
    let plugin: EdgarSearch = plugin_with_own_seeds();
    let answer = |(route, pairs): &(String, Vec<(String, String)>)| -> usize {
        let query: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        match plugin.handle(&RequestEnvelope::new(route, &query)) {
            Ok(response) => response.body.len(),
            Err(e) => panic!("{route} {query:?}: {} {}", e.status, e.message),
        }
    };
    let bytes: usize = requests.iter().map(answer).sum();
    let mut per_request = Vec::new();
    for _ in 0..rounds {
        let start = thread_cpu_ns();
        let served: usize = requests.iter().map(answer).sum();
        assert_eq!(served, bytes, "the same answers every round");
        per_request.push((thread_cpu_ns() - start) as f64 / requests.len() as f64 / 1000.0);
    }
    let rounds_text: Vec<String> = per_request.iter().map(|us| format!("{us:.2}")).collect();
    per_request.sort_by(f64::total_cmp);
    println!(
        "{} requests, {} body bytes; CPU us per request, rounds: {}; median {:.2}",
        requests.len(),
        bytes,
        rounds_text.join(" "),
        per_request[per_request.len() / 2]
    );
}
