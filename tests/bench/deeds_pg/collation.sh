#!/usr/bin/env bash
# The deeds mix on one build with the word index's text columns in other collations (manual; not in CI).
#
#   bash tests/bench/deeds_pg/collation.sh '"default"' '"C"' '"default"' '"C"'
#   BIN=/path/to/datahost DB=deeds_bench REPS=10 RUNS=3 bash tests/bench/deeds_pg/collation.sh ...
#
# Needs the database deeds_pg.sh built (LOAD_ONLY=1 bash tests/bench/deeds_pg.sh 2200000). For each collation given
# (an SQL collation name: '"C"', '"default"', or one created first, e.g. on a machine with the en_US.UTF-8 locale
# `CREATE COLLATION public.en_us (provider = libc, locale = 'en_US.utf8')` and then public.en_us), in order: every
# text column of the three word index tables but date and id goes to that collation (indexes rebuilt), the tables
# are analysed (the change drops the columns' statistics), one run of the mix is discarded (the rebuilt indexes'
# first reads), then RUNS runs of deeds_pg.sh print their overall and slowest classes. The build in BIN must not
# change the tables itself: a build before the byte-order change (a later one makes them compare bytes at start).
# Leave the tables in '"C"' when done.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
DB=${DB:-deeds_bench}
RUNS=${RUNS:-3}
REPS=${REPS:-10}
psql_db() { psql "postgres://postgres@127.0.0.1:5432/$DB" -X -q -v ON_ERROR_STOP=1 "$@"; }
for collation in "$@"; do
  start=$(date +%s)
  c="TYPE text COLLATE $collation"
  psql_db -c "ALTER TABLE datahost.record_words ALTER COLUMN dataset $c, ALTER COLUMN word $c,
                ALTER COLUMN doc $c, ALTER COLUMN scope $c, ALTER COLUMN facet $c" \
    -c "ALTER TABLE datahost.record_word_counts ALTER COLUMN dataset $c, ALTER COLUMN word $c,
                ALTER COLUMN scope $c, ALTER COLUMN facet $c" \
    -c "ALTER TABLE datahost.record_documents ALTER COLUMN dataset $c, ALTER COLUMN doc $c, ALTER COLUMN records $c" \
    -c "ANALYZE datahost.record_words" -c "ANALYZE datahost.record_word_counts" -c "ANALYZE datahost.record_documents"
  echo "== $collation ($(( $(date +%s) - start )) s to change)"
  for run in $(seq 0 "$RUNS"); do
    out=$(DB=$DB bash "$ROOT/tests/bench/deeds_pg.sh" 2200000 "$REPS" 2>&1 | grep -E "^(overall|street|lender|full name)" |
      tr -s ' ' | tr '\n' ';')
    [ "$run" = 0 ] && echo "   discarded: $out" || echo "   run $run: $out"
  done
done
