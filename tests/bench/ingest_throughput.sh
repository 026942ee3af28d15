#!/usr/bin/env bash
# Ingest throughput (records/s) for Form 4 and 13F on the embedded engine, end to end (`datahost ingest`:
# process start, plugin load, one transaction per file, final assembly). Inputs are benchmark-only copies of
# two corpus filings with distinct accession numbers (and periods / filer CIKs, so each copy is its own
# filing); they are generated in a temporary folder and never committed. Usage, after a release build:
#   bash tests/bench/ingest_throughput.sh [path/to/datahost]
set -euo pipefail
BIN=${1:-target/release/datahost}
CORPUS=${CORPUS:-../shared/corpus}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 - "$CORPUS" "$WORK" <<'PY'
import datetime, os, sys
corpus, work = sys.argv[1], sys.argv[2]
os.makedirs(f"{work}/f4"); os.makedirs(f"{work}/13f")
src = open(f"{corpus}/sec-form4/0000320193-22-000061.txt").read()
for i in range(500):
    acc = f"0000320193-22-{900000+i:06d}"
    day = (datetime.date(2000, 1, 3) + datetime.timedelta(days=i)).isoformat()
    open(f"{work}/f4/{acc}.txt", "w").write(src.replace("0000320193-22-000061", acc)
        .replace("000032019322000061", acc.replace("-", "")).replace("<periodOfReport>2022-05-04", "<periodOfReport>" + day))
src = open(f"{corpus}/sec-13f/0001951757-25-000093.nc").read()
for i in range(100):
    acc = f"0001951757-25-{900000+i:06d}"
    open(f"{work}/13f/{acc}.nc", "w").write(src.replace("0001951757-25-000093", acc).replace("0001994827", f"{1994828+i:010d}"))
PY
for run in 1 2 3; do
  for pair in "insiders f4" "institutional-holdings 13f"; do
    set -- $pair
    rm -rf "$WORK/data"
    start=$(date +%s.%N)
    DATAHOST_ENGINE__DATA_DIR="$WORK/data" "$BIN" ingest "$1" "$WORK/$2" --json > "$WORK/report.json"
    end=$(date +%s.%N)
    python3 -c "import json,sys; r=json.load(open('$WORK/report.json')); n=r['totals']['added']; s=$end-$start; print(f'run $run $1: {n} records in {s:.2f} s = {n/s:,.0f} records/s')"
  done
done
