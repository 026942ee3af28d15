#!/usr/bin/env bash
# The first six street-address searches of a fresh server on the deeds bench database (manual; not in CI): starts
# `serve` with BIN (default target/release/datahost) and the deeds plugin beside it, waits 2 s after it listens,
# sends six 3-word searches (limit 50; SEED picks them, default 1), prints each one's milliseconds, and stops it.
# It measures what a server pays before its pool holds the connections a search runs on (BENCHMARKS.md, stop 61):
#
#   LOAD_ONLY=1 bash tests/bench/deeds_pg.sh 2200000      # the database, once
#   for s in 1 2 3 4 5 6; do for b in /tmp/before/datahost target/release/datahost; do
#     echo "$s $b: $(BIN=$b SEED=$s bash tests/bench/deeds_pg/first_searches.sh)"; done; done
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BIN=${BIN:-$ROOT/target/release/datahost}
DB=${DB:-deeds_bench}
W=$(mktemp -d)
PID=""
trap '[ -n "$PID" ] && { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }; rm -rf "$W"' EXIT
mkdir "$W/plugins"
ln -s "$(dirname "$BIN")/libdatahost_deeds.so" "$W/plugins/"
cat > "$W/c.toml" <<TOML
[server]
listen = "127.0.0.1:0"
[metrics]
listen = "127.0.0.1:0"
[plugins]
dir = "$W/plugins"
[keys]
file = "$W/keys.json"
[engine]
url = "postgres://postgres@127.0.0.1:5432/$DB"
data_dir = "$W/data"
pool_size = 8
TOML
export DATAHOST_CONFIG=$W/c.toml
KEY=$("$BIN" keys issue --tier owner --label first 2>/dev/null | tail -n1)
RUST_LOG=warn "$BIN" serve > "$W/out" 2> "$W/err" &
PID=$!
# shellcheck disable=SC2034 # read by common.sh
root=$ROOT
# shellcheck source=tests/bench/common.sh
. "$ROOT/tests/bench/common.sh"
API=$(listening_api "$W/out" "$PID" "$W/err" 60)
sleep 2
python3 - "$API" "$KEY" "${SEED:-1}" <<'PY'
import http.client, sys, time, urllib.parse
api, key, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = http.client.HTTPConnection(api)
streets = ["MAPLE ST", "CEDAR AVE", "WILLOW RD", "LINDEN PL", "ASPEN BLVD", "BIRCH ST", "CHESTNUT AVE", "ELM RD"]
counties = ["kings-ny", "queens-ny", "bronx-ny", "richmond-ny", "new-york-ny"]
out = []
for i in range(6):
    query = f"{(seed * 37 + i * 11) % 300 + 1} {streets[(seed + i) % 8]}"
    params = urllib.parse.urlencode({"county": counties[(seed + i) % 5], "query": query, "limit": 50})
    start = time.perf_counter()
    conn.request("GET", "/v1/deeds?" + params, headers={"X-API-Key": key})
    resp = conn.getresponse()
    resp.read()
    out.append(f"{(time.perf_counter() - start) * 1000:.1f}" + ("" if resp.status == 200 else f"!{resp.status}"))
print(" ".join(out))
PY
