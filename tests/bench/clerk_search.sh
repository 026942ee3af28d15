#!/usr/bin/env bash
# Latency of /v1/deeds on ingested clerk records at a chosen scale, in the embedded engine (release build).
#
# Generates SYNTHETIC ACRIS-shaped tables (instruments, parties, parcels; document ids `SYN...`, names and streets
# from a fixed vocabulary, never real records), ingests them with `datahost ingest deeds`, starts the server and
# times each query class with curl (median of REPS requests): an instrument number (1 match), a full name (a
# handful), a street address (a handful), a surname (~1/40 of the documents), and words that are on every
# document (answered from the host's word index like any other query; before it existed, a 400).
# Usage: tests/bench/clerk_search.sh [documents, default 20000] [reps, default 20, at most 40]
set -euo pipefail
docs=${1:-20000}
reps=${2:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/target/release/datahost"
[ -x "$bin" ] || { echo "build first: cargo build --release --workspace" >&2; exit 1; }
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

python3 - "$work" "$docs" <<'PY'
import csv, random, sys
work, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(7)
first = ["ALEX", "BRETT", "CASEY", "DANA", "ELLIS", "FRANKIE", "GALE", "HARPER", "INDY", "JULES"] * 3
last = [f"SYNTHNAME{i:02d}" for i in range(40)]
streets = [f"SYNTH {i} STREET" for i in range(200)]
with open(f"{work}/master.csv", "w", newline="") as m, open(f"{work}/parties.csv", "w", newline="") as p, \
        open(f"{work}/legals.csv", "w", newline="") as l:
    mw, pw, lw = csv.writer(m), csv.writer(p), csv.writer(l)
    mw.writerow(["DOCUMENT ID", "RECORD TYPE", "CRFN", "BOROUGH", "DOC. TYPE", "DOC. DATE", "DOC. AMOUNT", "RECORDED / FILED"])
    pw.writerow(["DOCUMENT ID", "RECORD TYPE", "PARTY TYPE", "NAME"])
    lw.writerow(["DOCUMENT ID", "RECORD TYPE", "BOROUGH", "BLOCK", "LOT", "STREET NUMBER", "STREET NAME", "UNIT"])
    for i in range(n):
        doc = f"SYN{i:013d}"
        day = f"{rnd.randint(1,12):02d}/{rnd.randint(1,28):02d}/{rnd.randint(2000,2024)}"
        mw.writerow([doc, "A", f"9{i:012d}", "1", rnd.choice(["DEED", "MTGE", "SAT"]), day, rnd.randint(1, 900) * 1000, day])
        for role in ("1", "2"):
            pw.writerow([doc, "P", role, f"{rnd.choice(last)}, {rnd.choice(first)}"])
        lw.writerow([doc, "L", "1", rnd.randint(1, 2000), rnd.randint(1, 99), rnd.randint(1, 400), rnd.choice(streets), ""])
PY

# shellcheck source=tests/bench/common.sh
. "$root/tests/bench/common.sh"
bench_config "$work/datahost.toml" 0 "$work"
export DATAHOST_CONFIG="$work/datahost.toml"
echo "ingesting $docs synthetic documents (3 tables)..."
start=$(date +%s.%N)
"$bin" ingest deeds "$work/master.csv" "$work/parties.csv" "$work/legals.csv" 2>/dev/null | tail -n 1
echo "ingest took $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s"
key=$("$bin" keys issue --tier owner 2>/dev/null)
RUST_LOG=warn "$bin" serve > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 1 100); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.1; done
port=$(python3 -c "import json; print(json.loads(open('$work/out').readline())['api'].split(':')[1])")
sleep 2  # the server picks the ingested records up at start

# Each repetition asks a different query of the class: identical queries would be answered from the host's
# response cache and measure the cache, not the search.
time_class() { # label query-template (with {r} for the repetition, 0-based)
  local times=() total="" q
  for r in $(seq 0 $((reps - 1))); do
    q=${2//\{r\}/$r}
    times+=("$(curl -s -o "$work/body" -w '%{time_total}' -G -H "X-API-Key: $key" \
      --data-urlencode "county=new-york-ny" --data-urlencode "query=$q" "http://127.0.0.1:$port/v1/deeds")")
    total+="$(python3 -c "import json; b=json.load(open('$work/body')); print(b.get('total', 'error'))") "
  done
  python3 - "$1" "$total" "${times[@]}" <<'PY'
import statistics, sys
label, totals, times = sys.argv[1], sys.argv[2].split(), sorted(float(t) * 1000 for t in sys.argv[3:])
matches = [int(t) for t in totals if t.isdigit()]
shown = f"matches {min(matches)}-{max(matches)}" if matches else "answered 400 (too broad)"
print(f"{label:<24} {shown:<26} median {statistics.median(times):7.1f} ms  max {times[-1]:7.1f} ms")
PY
}
time_class "instrument number" "90000000012{r}7"
time_class "full name" "SYNTHNAME{r} HARPER"
time_class "street address" "1{r} SYNTH {r}4 STREET"
time_class "surname" "SYNTHNAME{r}"
time_class "only words on every doc" "SYNTH STREET"
