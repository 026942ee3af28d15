#!/usr/bin/env bash
# Latency of GET /v1/deeds on ingested clerk records in PostgreSQL at ACRIS scale (manual; not in CI).
#
#   cargo build --release -p datahost -p datahost-deeds      # once
#   bash tests/bench/deeds_pg.sh [documents, default 2200000] [repetitions of the mix, default 10]
#   BIN=/path/to/other/datahost bash tests/bench/deeds_pg.sh ...   # the same database, another build
#   QUERY_TIMEOUT=600 ...   # engine.query_timeout_secs (default 30)
#
# 2,200,000 documents are 10M ACRIS table rows (1 master, 2.25 parties and 1 legal row per document), which
# ingest stores as ~32M records (the rows plus one `terms` record per search word and document).
#
# 1. Creates the database `deeds_bench` (DB) on 127.0.0.1:5432 if missing and applies the migrations.
# 2. Checks once, on 3,000 documents, that the SQL generator writes exactly what `datahost ingest deeds` stores
#    for the same SYNTHETIC rows exported as the three ACRIS CSV tables (databases `deeds_bench_check_*`).
# 3. Fills `datahost.records` with the SYNTHETIC documents (tests/bench/deeds_pg/*.sql: document ids `SYN...`,
#    invented names, streets and lenders) in chunks, straight in SQL; a second run reuses them. The dataset
#    document is assembled by a real `datahost ingest` of one already stored row.
# 4. Starts `serve` on the database with the deeds plugin, waits for it (a new build may first build its
#    indexes), and sends the 74-query mix (tests/bench/deeds_pg/mix.sql) REPS times over one keep-alive
#    connection, one request at a time; prints p50, p99 and max per query class and overall, and the answers'
#    statuses. It measures; it asserts nothing. LOAD_ONLY=1 stops after step 3. PAGES=N also follows each
#    answer's next cursor for up to N - 1 later pages, measured apart (measure.py); SLOWEST=N lists the N
#    slowest requests.
#
# INGEST=N instead times `datahost ingest deeds` of N SYNTHETIC documents exported as the three ACRIS CSV tables
# (the generator's rows, as NYC Open Data exports them), into a new PostgreSQL database and into a new embedded
# data dir, and prints records/s of each (the first ingest of a large clerk file: where a plan without statistics
# once never finished). The documents and DOCS/REPS are not used then.
set -euo pipefail
DOCS=${1:-2200000}
REPS=${2:-10}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DB=${DB:-deeds_bench}
PG="postgres://postgres@127.0.0.1:5432"
BIN=${BIN:-$ROOT/target/release/datahost}
LIBDIR=${LIBDIR:-$(dirname "$BIN")}
SQL="$ROOT/tests/bench/deeds_pg"
CHUNK=100000
[ -x "$BIN" ] && [ -e "$LIBDIR/libdatahost_deeds.so" ] || {
  echo "build first: cargo build --release -p datahost -p datahost-deeds" >&2; exit 1; }

WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir "$WORK/plugins"
ln -s "$LIBDIR/libdatahost_deeds.so" "$WORK/plugins/"

psql_db() { psql "$PG/$1" -X -q -v ON_ERROR_STOP=1 "${@:2}"; }
config() { # config DB: a server on DB with only the deeds plugin
  cat > "$WORK/$1.toml" <<TOML
[server]
listen = "127.0.0.1:0"
[metrics]
listen = "127.0.0.1:0"
[plugins]
dir = "$WORK/plugins"
[keys]
file = "$WORK/keys.json"
[engine]
url = "$PG/$1"
data_dir = "$WORK/data"
pool_size = 8
query_timeout_secs = ${QUERY_TIMEOUT:-30}
TOML
  echo "$WORK/$1.toml"
}
fresh_db() { # fresh_db DB: an empty database with the migrations applied
  psql_db postgres -c "DROP DATABASE IF EXISTS \"$1\"" -c "CREATE DATABASE \"$1\""
  DATAHOST_CONFIG=$(config "$1") "$BIN" engine migrate > /dev/null
  psql_db "$1" -f "$SQL/acris.sql"
}
csv() { # csv DB LO HI DIR: the three SYNTHETIC ACRIS tables of documents [LO, HI) as NYC Open Data exports them
  psql_db "$1" -c "\\copy (SELECT document_id AS \"DOCUMENT ID\", 'A' AS \"RECORD TYPE\", crfn AS \"CRFN\",
    borough AS \"BOROUGH\", doc_type AS \"DOC. TYPE\", amount AS \"DOC. AMOUNT\", recorded AS \"RECORDED / FILED\"
    FROM syn.master($2, $3) ORDER BY i) TO '$4/master.csv' CSV HEADER"
  psql_db "$1" -c "\\copy (SELECT document_id AS \"DOCUMENT ID\", 'P' AS \"RECORD TYPE\",
    party_type AS \"PARTY TYPE\", name AS \"NAME\" FROM syn.parties($2, $3) ORDER BY i, n)
    TO '$4/parties.csv' CSV HEADER"
  psql_db "$1" -c "\\copy (SELECT document_id AS \"DOCUMENT ID\", 'L' AS \"RECORD TYPE\", borough AS \"BOROUGH\",
    block AS \"BLOCK\", lot AS \"LOT\", street_number AS \"STREET NUMBER\", street_name AS \"STREET NAME\",
    '' AS \"UNIT\" FROM syn.legals($2, $3) ORDER BY i) TO '$4/legals.csv' CSV HEADER"
}
files() { # files DB: the ingest_files rows of the three synthetic tables (created once), as psql -v options
  local ids
  ids=$(psql_db "$1" -At -c "SELECT string_agg(id::text, ' ' ORDER BY id) FROM datahost.ingest_files
    WHERE dataset = 'deeds' AND sha256 = 'synthetic'")
  if [ -z "$ids" ]; then
    ids=$(psql_db "$1" -At -c "INSERT INTO datahost.ingest_files (dataset, name, sha256, format, ingested_at)
      VALUES ('deeds', 'SYNTHETIC master.csv', 'synthetic', 'nyc-acris-instruments', to_char(now(), 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')),
             ('deeds', 'SYNTHETIC parties.csv', 'synthetic', 'nyc-acris-parties', to_char(now(), 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')),
             ('deeds', 'SYNTHETIC legals.csv', 'synthetic', 'nyc-acris-legals', to_char(now(), 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'))
      RETURNING id" | tr '\n' ' ')
  fi
  set -- $ids
  echo "-v f_master=$1 -v f_parties=$2 -v f_legals=$3"
}

if [ -n "${INGEST:-}" ]; then
  echo "== exporting $INGEST SYNTHETIC documents as ACRIS CSV tables"
  fresh_db deeds_bench_ingest_source
  mkdir "$WORK/csv"
  csv deeds_bench_ingest_source 0 "$INGEST" "$WORK/csv"
  psql_db postgres -c "DROP DATABASE deeds_bench_ingest_source"
  ingest() { # ingest CONFIG LABEL
    local start end
    start=$(date +%s.%N)
    DATAHOST_CONFIG=$1 "$BIN" ingest deeds --json "$WORK/csv/master.csv" "$WORK/csv/parties.csv" \
      "$WORK/csv/legals.csv" > "$WORK/report.json"
    end=$(date +%s.%N)
    python3 - "$WORK/report.json" "$start" "$end" "$2" <<'PY'
import json, sys
report, start, end, label = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
records = report["totals"]["added"]
print(f"{label}: {end - start:.1f} s end to end, {records:,} records added, {records / (end - start):,.0f} records/s "
      f"(the command's own: {report['seconds']:.1f} s, {report['recordsPerSecond']:,.0f} records/s), "
      f"files refused {report['refused']}")
PY
  }
  psql_db postgres -c "DROP DATABASE IF EXISTS deeds_bench_ingest" -c "CREATE DATABASE deeds_bench_ingest"
  ingest "$(config deeds_bench_ingest)" "PostgreSQL (a new database)"
  psql_db postgres -c "DROP DATABASE deeds_bench_ingest"
  sed -e '/^url = /d' "$(config deeds_bench_ingest)" > "$WORK/embedded.toml"
  ingest "$WORK/embedded.toml" "embedded (a new data dir)"
  exit 0
fi

# 2. The generator against a real ingest, once per database generation.
if [ "${VERIFY:-1}" = 1 ] && ! psql_db postgres -At -c "SELECT 1 FROM pg_database WHERE datname = 'deeds_bench_check_ok'" | grep -q 1; then
  echo "== checking the generator against datahost ingest (3,000 documents)"
  fresh_db deeds_bench_check_ingest
  fresh_db deeds_bench_check_sql
  mkdir "$WORK/csv"
  csv deeds_bench_check_ingest 0 3000 "$WORK/csv"
  DATAHOST_CONFIG=$(config deeds_bench_check_ingest) "$BIN" ingest deeds "$WORK/csv/master.csv" \
    "$WORK/csv/parties.csv" "$WORK/csv/legals.csv" > /dev/null
  # shellcheck disable=SC2046
  psql_db deeds_bench_check_sql $(files deeds_bench_check_sql) -v lo=0 -v hi=3000 -f "$SQL/records.sql"
  dump() { psql_db "$1" -At -c "SELECT r.collection, r.key, r.grp, coalesce(r.lineage, '-'), r.revision,
    r.amendment, f.format, r.data FROM datahost.records r JOIN datahost.ingest_files f ON f.id = r.file_id
    ORDER BY 1, 2" > "$WORK/$1.txt"
    # The parties of each document in file order (how grantors are listed).
    psql_db "$1" -At -c "SELECT grp, string_agg(key, '|' ORDER BY seq) FROM datahost.records
      WHERE collection = 'parties' GROUP BY grp ORDER BY grp" >> "$WORK/$1.txt"; }
  dump deeds_bench_check_ingest
  dump deeds_bench_check_sql
  if ! cmp -s "$WORK/deeds_bench_check_ingest.txt" "$WORK/deeds_bench_check_sql.txt"; then
    echo "the SQL generator differs from datahost ingest:" >&2
    diff "$WORK/deeds_bench_check_ingest.txt" "$WORK/deeds_bench_check_sql.txt" | head -20 >&2
    exit 1
  fi
  echo "   identical: $(wc -l < "$WORK/deeds_bench_check_sql.txt") records and party orders"
  psql_db postgres -c "DROP DATABASE deeds_bench_check_ingest" -c "DROP DATABASE deeds_bench_check_sql" \
    -c "CREATE DATABASE deeds_bench_check_ok"
fi

# 1 and 3. The bench database, filled up to DOCS documents (resumes where an interrupted run stopped).
if ! psql_db postgres -At -c "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
  echo "== creating $DB"
  psql_db postgres -c "CREATE DATABASE \"$DB\""
  DATAHOST_CONFIG=$(config "$DB") "$BIN" engine migrate > /dev/null
fi
psql_db "$DB" -f "$SQL/acris.sql"
FILES=$(files "$DB")
held=$(psql_db "$DB" -At -c "SELECT coalesce(max(substr(key, 14)::bigint) + 1, 0) FROM datahost.records
  WHERE dataset = 'deeds' AND collection = 'instruments' AND key LIKE 'nyc-acris:SYN%'")
if [ "$held" -lt "$DOCS" ]; then
  echo "== loading SYNTHETIC documents $held..$DOCS"
  start=$(date +%s)
  for ((lo = held; lo < DOCS; lo += CHUNK)); do
    hi=$((lo + CHUNK < DOCS ? lo + CHUNK : DOCS))
    # shellcheck disable=SC2086
    psql_db "$DB" $FILES -v lo="$lo" -v hi="$hi" -f "$SQL/records.sql"
    # The records changed: the dataset document is assembled again below.
    psql_db "$DB" -c "INSERT INTO datahost.dataset_state (dataset, version) VALUES ('deeds', 1)
      ON CONFLICT (dataset) DO UPDATE SET version = datahost.dataset_state.version + 1"
    echo "   $hi documents ($(( $(date +%s) - start )) s)"
  done
elif [ "$held" -gt "$DOCS" ]; then
  echo "== $held documents are loaded: the mix draws from all of them"
  DOCS=$held
fi
if psql_db "$DB" -At -c "SELECT version <> assembled_version FROM datahost.dataset_state WHERE dataset = 'deeds'" | grep -q t; then
  psql_db "$DB" -c "VACUUM ANALYZE datahost.records"
  # A real ingest of one stored row (unchanged) assembles the dataset document over the loaded records.
  mkdir -p "$WORK/one"
  csv "$DB" 0 1 "$WORK/one"
  DATAHOST_CONFIG=$(config "$DB") "$BIN" ingest deeds "$WORK/one/master.csv" | tail -n 1
fi
psql_db "$DB" -At -c "SELECT 'records: ' || count(*) || ', table ' || pg_size_pretty(pg_total_relation_size('datahost.records'))
  FROM datahost.records WHERE dataset = 'deeds'"

[ "${LOAD_ONLY:-0}" = 1 ] && exit 0

# 4. Serve and measure.
export DATAHOST_CONFIG
DATAHOST_CONFIG=$(config "$DB")
KEY=$("$BIN" keys issue --tier owner --label deeds-bench 2>/dev/null | tail -n1)
echo "== starting $BIN"
start=$(date +%s)
RUST_LOG=warn "$BIN" serve > "$WORK/stdout" 2> "$WORK/stderr" &
SERVER_PID=$!
# shellcheck source=tests/bench/common.sh
. "$ROOT/tests/bench/common.sh"
API=$(listening_api "$WORK/stdout" "$SERVER_PID" "$WORK/stderr" 3600)
echo "   listening on $API after $(( $(date +%s) - start )) s"
psql_db "$DB" -At -F $'\t' -v docs="$DOCS" -v reps="$((REPS + 1))" -f "$SQL/mix.sql" > "$WORK/mix.tsv"
python3 "$SQL/measure.py" "http://$API" "$KEY" "$WORK/mix.tsv"
