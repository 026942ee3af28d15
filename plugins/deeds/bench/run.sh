#!/usr/bin/env bash
# Load test of GET /v1/deeds in engine mode (PostgreSQL) at 10M synthetic deed rows.
#
#   cargo build --release --workspace        # once
#   plugins/deeds/bench/run.sh               # ROWS, DB, DURATION, CONNECTIONS, THREADS may be overridden
#
# Creates the database (if missing) on the local PostgreSQL (127.0.0.1:5432, user postgres, trust auth), applies
# the host's and the deeds plugin's migrations, loads ROWS synthetic deeds with generate.sql (idempotent: a second
# run reuses them), starts target/release/datahost serve in engine mode with only the deeds plugin, and drives a
# fixed mix of searches with wrk, reporting its latency percentiles (p50, p99) and the row count. It measures;
# it asserts nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
ROWS=${ROWS:-10000000}
DB=${DB:-datahost_deeds_bench}
DURATION=${DURATION:-30s}
CONNECTIONS=${CONNECTIONS:-8}
THREADS=${THREADS:-2}
PG="postgres://postgres@127.0.0.1:5432"
BIN="$ROOT/target/release/datahost"
LIB="$ROOT/target/release/libdatahost_deeds.so"

for need in "$BIN" "$LIB"; do
    [ -e "$need" ] || { echo "missing $need: run cargo build --release --workspace first" >&2; exit 1; }
done
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }

WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

if ! psql "$PG/postgres" -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
    psql "$PG/postgres" -qc "CREATE DATABASE \"$DB\""
fi

mkdir "$WORK/plugins"
ln -s "$LIB" "$WORK/plugins/"
cat > "$WORK/datahost.toml" <<EOF
[server]
listen = "127.0.0.1:0"
log_format = "text"
[metrics]
listen = "127.0.0.1:0"
[plugins]
dir = "$WORK/plugins"
[keys]
file = "$WORK/keys.json"
[engine]
url = "$PG/$DB"
pool_size = 16
query_timeout_secs = 30
EOF
export DATAHOST_CONFIG="$WORK/datahost.toml"

echo "== migrations"
"$BIN" engine migrate
echo "== synthetic deeds (target $ROWS rows)"
psql "$PG/$DB" -v ON_ERROR_STOP=1 -v rows="$ROWS" -f "$ROOT/plugins/deeds/bench/generate.sql"

KEY=$("$BIN" keys issue --tier owner --label deeds-bench | tail -n1)
RUST_LOG=warn "$BIN" serve > "$WORK/stdout" 2> "$WORK/stderr" &
SERVER_PID=$!
# shellcheck source=tests/bench/common.sh
. "$ROOT/tests/bench/common.sh"
API=$(listening_api "$WORK/stdout" "$SERVER_PID" "$WORK/stderr" 300)
echo "== datahost serving on $API"

# The fixed mix: for 24 synthetic deeds picked by number, a full-name search (grantor's first and last name),
# a last-name search and a street-line search, in their county; plus two lender searches.
psql "$PG/$DB" -tAF $'\t' -v ON_ERROR_STOP=1 > "$WORK/sample.tsv" <<EOF
SELECT county, split_part(grantor, ' ', 1) || ' ' || split_part(grantor, ' ', 2),
       split_part(grantor, ' ', 2), split_part(property_address, ',', 1)
FROM plugin_deeds.deeds
WHERE county IN (SELECT slug FROM plugin_deeds.counties)
  AND instrument_number IN (SELECT 'SYN' || lpad(((i * 397711 % $ROWS) + 1)::text, 12, '0')
                            FROM generate_series(1, 24) AS i)
ORDER BY instrument_number;
EOF
python3 - "$WORK/sample.tsv" > "$WORK/paths.txt" <<'EOF'
import sys, urllib.parse
paths = []
for line in open(sys.argv[1]):
    county, name, last, street = line.rstrip("\n").split("\t")
    for query in (name, last, street):
        paths.append("/v1/deeds?" + urllib.parse.urlencode({"county": county, "query": query}))
paths.append("/v1/deeds?" + urllib.parse.urlencode({"county": "dallas-tx", "query": "Harborline Bank"}))
paths.append("/v1/deeds?" + urllib.parse.urlencode({"county": "travis-tx", "query": "northstar lending group"}))
print("\n".join(paths))
EOF

echo "== the mix: $(wc -l < "$WORK/paths.txt") searches (latency alone, matches)"
cat > "$WORK/summary.py" <<'SUMMARY'
import json, sys
b = json.load(open(sys.argv[1]))
print("%8.1f ms %7d total %4d returned  %s: %s" % (float(sys.argv[2]) * 1000, b["total"], b["count"], b["county"], b["query"]))
SUMMARY
echo "   (one at a time, second run, so the pages are cached as under load)"
for pass in 1 2; do
    while read -r path; do
        took=$(curl -sf -o "$WORK/body.json" -w '%{time_total}' -H "X-API-Key: $KEY" "http://$API$path")
        [ "$pass" = 2 ] && python3 "$WORK/summary.py" "$WORK/body.json" "$took"
    done < "$WORK/paths.txt"
done

{
    echo "local paths = {"
    sed 's/.*/  "&",/' "$WORK/paths.txt"
    echo "}"
    echo "local i = 0"
    echo "request = function()"
    echo "  i = i % #paths + 1"
    echo "  return wrk.format(\"GET\", paths[i], {[\"X-API-Key\"] = \"$KEY\"})"
    echo "end"
} > "$WORK/mix.lua"

echo "== wrk: $THREADS threads, $CONNECTIONS connections, $DURATION"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$WORK/mix.lua" "http://$API" | tee "$WORK/wrk.txt"

ROWS_NOW=$(psql "$PG/$DB" -tAc "SELECT count(*) FROM plugin_deeds.deeds")
P50=$(awk '$1 == "50%" {print $2}' "$WORK/wrk.txt")
P99=$(awk '$1 == "99%" {print $2}' "$WORK/wrk.txt")
echo "== result: rows=$ROWS_NOW p50=$P50 p99=$P99"
