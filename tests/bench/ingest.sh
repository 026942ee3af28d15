#!/usr/bin/env bash
# Ingest throughput (records/s) of `datahost ingest` for SEC Form 4 and 13F, on both records engines.
# The corpus holds only a handful of real filings, so this makes N throw-away variants of two real submissions
# (the accession number and the reporting owner's or filer's CIK change, so each is a distinct filing) in a temporary folder; they are never
# kept or served, they only give the parser and the engine enough files to time. Ingests them once (all new),
# then again (all unchanged), and prints records/s from the command's own JSON report.
# Needs `cargo build --release --workspace`. Usage: tests/bench/ingest.sh [files per dataset, default 2000]
set -euo pipefail
n=${1:-2000}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/target/release/datahost"
corpus="$root/../shared/corpus"
[ -x "$bin" ] || { echo "build first: cargo build --release --workspace" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -n "${db:-}" ] && psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE IF EXISTS $db" postgres >/dev/null 2>&1 || true' EXIT

variants() { # source-file folder accession-prefix cik-to-vary
  mkdir -p "$2"
  python3 - "$1" "$2" "$3" "$4" "$n" <<'PY'
import sys, re
src, out, prefix, cik, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
text = open(src, encoding="utf-8").read()
for i in range(n):
    acc = f"{prefix}-26-{i:06d}"
    # A distinct filing: its own accession, and its own reporting owner (Form 4) or filer (13F), so each is a
    # separate lineage as distinct real filings are, not 1,000 amendments of one.
    variant = re.sub(r"ACCESSION NUMBER:\s*\S+", f"ACCESSION NUMBER:\t\t{acc}", text, count=1)
    variant = variant.replace(cik, f"{9990000000 + i:010d}")
    open(f"{out}/{acc}.txt", "w", encoding="utf-8").write(variant)
PY
}
variants "$corpus/sec-form4/0000320193-22-000061.txt" "$work/form4" 9999999991 0001462356
variants "$corpus/sec-13f/0001790837-23-000002.txt" "$work/13f" 9999999992 0001790837

run() { # label config dataset folder
  "$bin" --config "$2" ingest "$3" "$4" --json > "$work/report.json" 2>/dev/null || true
  python3 - "$1" "$work/report.json" <<'PY'
import json, sys
label, r = sys.argv[1], json.load(open(sys.argv[2]))
t = r["totals"]
records = t["added"] + t["unchanged"]
print(f"{label:<44} {len(r['files']):>6} files {records:>8} records {r['seconds']:>7.2f} s {r['recordsPerSecond']:>9.0f} records/s")
PY
}

printf '[plugins]\ndir = "%s"\n[engine]\ndata_dir = "%s"\n' "$root/target/release" "$work/data" > "$work/embedded.toml"
db="dh_bench_ingest_$$"
psql -q -h 127.0.0.1 -U postgres -c "CREATE DATABASE $db" postgres
printf '[plugins]\ndir = "%s"\n[engine]\nurl = "postgres://postgres@127.0.0.1:5432/%s"\n' "$root/target/release" "$db" > "$work/pg.toml"
for engine in embedded pg; do
  for ds in "insiders form4" "institutional-holdings 13f"; do
    set -- $ds
    run "$engine $1 (new)" "$work/$engine.toml" "$1" "$work/$2"
    run "$engine $1 (again: unchanged)" "$work/$engine.toml" "$1" "$work/$2"
  done
done
