#!/usr/bin/env bash
# Throughput and start-up of datahost against baselines measured side by side in one run (issue 9), on loopback
# with wrk. Builds release, ingests a few real corpus files into a fresh embedded engine, issues keys, captures
# the host's answers, then serves the same bytes from
#   - the bare axum baseline (tests/bench/baseline: the same axum and tokio runtime, nothing else),
#   - for the hot table also the bare axum baseline sending datahost's other headers too (`--with-headers`, those
#     of an owner key's answer or, for the pro-key rows, a pro key's with its rate-limit headers: the same answer
#     on the wire, so the ratio prices the host's work apart from the answer's size), and
#   - nginx (static files, config generated here; installed with apt-get when missing),
# and runs wrk (2 threads, the same connections for all) in interleaved rounds (datahost, axum, axum with the
# headers, nginx, datahost, ...), printing medians and ratios as markdown tables labelled with the date and load
# average (these 2-core machines are shared and noisy: only same-run ratios mean anything). Not part of CI.
#
# Usage: tests/bench/run.sh [MODE]
#   all (default)  every table below
#   hot            the same query over and over, owner key and rotated pro keys: datahost / axum, / nginx
#   cold           every query distinct (COLD_N per route, rotated): in-memory and table-backed datasets
#   redis          rate limits in Redis (ratelimit.redis_url, 127.0.0.1:6379) / the in-process limiter
#   startup        exec to first 200 on /health on a fresh and a warm data dir, and RSS at idle
#   pool           the host's own comparisons (handler pool, inline call, plugin process, Redis) against a
#                  same-binary /__baseline route: tests/bench/pool.sh SECS ROUNDS
# Environment: SECS (seconds per wrk run, 5), ROUNDS (3), CONNS (wrk connections, 32), PRO_KEYS (pro keys
# rotated, 4000: none may reach 1,200 a minute at the 160k req/s seen here), COLD_N (distinct queries per route,
# 10000), STARTS (start-ups timed per data dir, 5),
# NO_BUILD=1 (use the binaries as built), BENCH_PROFILE (release; debug only to try the script), BENCH_BIN (another
# datahost binary, e.g. a build of main to compare with: the plugins stay this tree's), BENCH_DIR (keep
# the work files there).
set -euo pipefail
mode=${1:-all}
secs=${SECS:-5}
rounds=${ROUNDS:-3}
conns=${CONNS:-32}
pro_keys=${PRO_KEYS:-4000}
cold_n=${COLD_N:-10000}
starts=${STARTS:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus="${DATAHOST_CORPUS:-$root/../shared/corpus}"
here="$root/tests/bench"
case "$mode" in
  all | hot | cold | redis | startup) ;;
  pool) exec bash "$here/pool.sh" "$secs" "$rounds" ;;
  *) echo "unknown mode $mode: all, hot, cold, redis, startup or pool" >&2; exit 2 ;;
esac

need() { # command package
  command -v "$1" > /dev/null && return
  echo "installing $2..."
  apt-get install -y "$2" > /dev/null 2>&1 || { apt-get update > /dev/null && apt-get install -y "$2" > /dev/null; }
}
need wrk wrk
need nginx nginx-light
[ -n "${NO_BUILD:-}" ] || (cd "$root" && cargo build --release --workspace)
bin="${BENCH_BIN:-$root/target/${BENCH_PROFILE:-release}/datahost}"
baseline_bin="$root/target/${BENCH_PROFILE:-release}/datahost-bench-baseline"

# shellcheck source=tests/bench/common.sh
. "$here/common.sh"
bench_work
# nginx's workers run as nobody: they must read the captured bodies.
chmod 755 "$work"

p_dh=$(free_port); p_redis=$(free_port); p_table=$(free_port); p_axum=$(free_port); p_nginx=$(free_port)
p_cold=$(free_port); p_axum_owner_headers=$(free_port); p_axum_pro_headers=$(free_port)
bench_config "$work/datahost.toml" "$p_dh" "$work"
# The cold tables run on hosts with the response cache off: wrk's rotation repeats each distinct query every
# COLD_N requests, and a cached repeat would be a hot answer.
no_cache="[cache]
max_bytes = 0"
bench_config "$work/cold.toml" "$p_cold" "$work" "" "$no_cache"
bench_config "$work/redis.toml" "$p_redis" "$work" "" "[ratelimit]
redis_url = \"redis://127.0.0.1:6379\"
redis_prefix = \"dh-bench-$$\""
export RUST_LOG=warn

if [ "$mode" = startup ] || [ "$mode" = all ]; then
  # Before anything is ingested: the demo seeds only, what a first start of a fresh clone serves.
  bench_config "$work/startup.toml" "$p_dh" "$work/startup"
  echo "start-up: $starts starts on a fresh data dir, then $starts on a warm one ($(uptime))"
  fresh=$(python3 "$here/bench.py" startup "$bin" "$work/startup.toml" "$p_dh" "$starts" "$work/startup/data")
  warm=$(python3 "$here/bench.py" startup "$bin" "$work/startup.toml" "$p_dh" "$starts")
  python3 - "$fresh" "$warm" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(uptime | sed 's/.*load average: //')" <<'PY'
import json, sys
fresh, warm = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"\n### start-up ({sys.argv[3]}, load average {sys.argv[4]})\n")
print("| data dir | exec to first 200 on /health (median) | runs (ms) | RSS at idle (median) |")
print("|---|---|---|---|")
for name, r in (("fresh (seeds assembled)", fresh), ("warm (second start)", warm)):
    runs = ", ".join(f"{m:.0f}" for m in r["ms"])
    print(f"| {name} | {r['median_ms']:.0f} ms | {runs} | {r['median_rss_mib']:.1f} MiB |")
PY
  [ "$mode" = startup ] && exit 0
fi

# The demo seeds (what a fresh clone serves; issue 9's sizes) on one data dir, and a second one ("table") with
# Form 4 filings ingested: insiders and edgar-search then read their rows from the records table per request.
bench_config "$work/table.toml" "$p_table" "$work/table" "" "$no_cache"
issue_keys() { # config file tier count
  for _ in $(seq 1 "$4"); do DATAHOST_CONFIG="$1" "$bin" keys issue --tier "$3" 2> /dev/null; done > "$2"
}
echo "issuing 1 owner key and $pro_keys pro keys..."
issue_keys "$work/datahost.toml" "$work/owner.txt" owner 1
issue_keys "$work/datahost.toml" "$work/pro.txt" pro "$pro_keys"
owner=$(cat "$work/owner.txt")
if [ "$mode" = cold ] || [ "$mode" = all ]; then
  DATAHOST_CONFIG="$work/table.toml" "$bin" ingest insiders "$corpus/sec-form4" > /dev/null 2> "$work/ingest.err" \
    || echo "ingest insiders: some files refused (see $work/ingest.err)"
  issue_keys "$work/table.toml" "$work/owner-table.txt" owner 1
fi

start_datahost() { # name
  DATAHOST_CONFIG="$work/$1.toml" "$bin" serve > "$work/$1.out" 2> "$work/$1.err" &
  pids+=($!)
  for _ in $(seq 1 300); do grep -q listening "$work/$1.out" 2> /dev/null && return; sleep 0.1; done
  cat "$work/$1.err" >&2; exit 1
}
start_datahost datahost
[ "$mode" = hot ] || [ "$mode" = cold ] || start_datahost redis

# The hot queries (issue 9's four) and, for the cold tables, up to COLD_N distinct queries per route.
printf '%s\n' vin$'\t'"/v1/vin?vin=1HGCM82633A004352" \
  congress-trades$'\t'"/v1/congress-trades?ticker=NVDA" \
  edgar-search$'\t'"/v1/edgar-search?q=revenue&limit=20" \
  prices$'\t'"/v1/prices?ticker=SPY" > "$work/hot.list"
: > "$work/cold.index"
: > "$work/cold-table.index"
echo "capturing the host's answers..."
capture() { # port key list name
  python3 "$here/bench.py" capture "http://127.0.0.1:$1" "$2" "$3" "$work/bodies/$4" > "$work/$4.index"
}
capture "$p_dh" "$owner" "$work/hot.list" hot
# A pro key's answers carry the rate-limit headers too: the baseline with datahost's headers sends those for the
# pro-key rows.
capture "$p_dh" "$(head -n 1 "$work/pro.txt")" "$work/hot.list" hot-pro
[ "$(wc -l < "$work/hot.index")" -eq 4 ] && [ "$(wc -l < "$work/hot-pro.index")" -eq 4 ] \
  || { echo "a hot query does not answer 200" >&2; exit 1; }
while IFS=$'\t' read -r target file _; do
  echo "hot query $target: $(wc -c < "$file") bytes"
done < "$work/hot.index"
if [ "$mode" = cold ] || [ "$mode" = all ]; then
  start_datahost table
  python3 "$here/bench.py" cold-queries memory "http://127.0.0.1:$p_dh" "$owner" "$cold_n" > "$work/cold.list"
  python3 "$here/bench.py" cold-queries table "http://127.0.0.1:$p_table" "$(cat "$work/owner-table.txt")" "$cold_n" \
    > "$work/cold-table.list"
  capture "$p_dh" "$owner" "$work/cold.list" cold
  capture "$p_table" "$(cat "$work/owner-table.txt")" "$work/cold-table.list" cold-table
  # Queries answered while capturing would not be cold: the table runs start on freshly started hosts.
  for p in "${pids[@]}"; do kill "$p"; wait "$p" 2> /dev/null || true; done
  pids=()
  start_datahost datahost
  start_datahost table
  start_datahost cold
  [ "$mode" = cold ] || start_datahost redis
fi

cat "$work/hot.index" "$work/cold.index" "$work/cold-table.index" > "$work/all.index"
"$baseline_bin" "127.0.0.1:$p_axum" "$work/all.index" > "$work/axum.out" 2> "$work/axum.err" &
pids+=($!)
for who in owner pro; do
  port=$p_axum_owner_headers index=$work/hot.index
  [ "$who" = pro ] && port=$p_axum_pro_headers index=$work/hot-pro.index
  "$baseline_bin" "127.0.0.1:$port" "$index" --with-headers > "$work/axum-$who-headers.out" \
    2> "$work/axum-$who-headers.err" &
  pids+=($!)
done
python3 "$here/bench.py" nginx-tree "$work/all.index" "$work/nginx/root"
mkdir -p "$work/nginx/tmp"
cat > "$work/nginx/nginx.conf" <<NGINX
daemon off;
worker_processes $(nproc);
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 65;
  keepalive_requests 100000000;
  types { }
  default_type application/json;
  client_body_temp_path $work/nginx/tmp/body;
  proxy_temp_path $work/nginx/tmp/proxy;
  fastcgi_temp_path $work/nginx/tmp/fastcgi;
  uwsgi_temp_path $work/nginx/tmp/uwsgi;
  scgi_temp_path $work/nginx/tmp/scgi;
  server {
    listen 127.0.0.1:$p_nginx;
    root $work/nginx/root;
    location / { try_files "\$uri/\$args" =404; }
  }
}
NGINX
nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
pids+=($!)
for _ in $(seq 1 100); do
  grep -q listening "$work/axum.out" 2> /dev/null && grep -q listening "$work/axum-owner-headers.out" 2> /dev/null \
    && grep -q listening "$work/axum-pro-headers.out" 2> /dev/null && curl -fso /dev/null "http://127.0.0.1:$p_nginx/v1/prices?ticker=SPY" && break
  sleep 0.1
done
# Every server answers every hot query with the same body; the answers' sizes on the wire (status line and
# headers, then the body) say which baselines send as many bytes as datahost.
wire() { # port target [curl options]: bytes of the answer's head and body
  curl -fsS -o /dev/null -w '%{size_header} + %{size_download}' "${@:3}" "http://127.0.0.1:$1$2"
}
while IFS=$'\t' read -r target file _; do
  for port in "$p_axum" "$p_axum_owner_headers" "$p_axum_pro_headers" "$p_nginx"; do
    cmp -s "$file" <(curl -fsS "http://127.0.0.1:$port$target") || { echo "port $port answers $target differently" >&2; exit 1; }
  done
  echo "hot answer $target, head + body bytes: datahost $(wire "$p_dh" "$target" -H "X-API-Key: $owner") (owner)," \
    "$(wire "$p_dh" "$target" -H "X-API-Key: $(sed -n 2p "$work/pro.txt")") (pro); bare axum $(wire "$p_axum" "$target"); with" \
    "datahost's headers $(wire "$p_axum_owner_headers" "$target") (owner), $(wire "$p_axum_pro_headers" "$target")" \
    "(pro); nginx $(wire "$p_nginx" "$target")"
done < "$work/hot.index"

results="$work/results.tsv"
: > "$results"
run_wrk() { # table case server port keys paths
  local out
  out=$(wrk -t2 -c"$conns" -d"${secs}s" --timeout 5s -s "$here/soak.lua" "http://127.0.0.1:$4" -- "$5" "$6" | grep '^{')
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$r" "$out" "$(cut -d' ' -f1 /proc/loadavg)" >> "$results"
}
for route in vin congress-trades edgar-search prices insiders; do
  grep -P "\t$route\$" "$work/hot.index" | cut -f1 > "$work/hot-$route.paths" || true
  grep -P "\t$route\$" "$work/cold.index" | cut -f1 > "$work/cold-$route.paths" || true
  grep -P "\t$route\$" "$work/cold-table.index" | cut -f1 > "$work/cold-$route-table.paths" || true
done
started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_before=$(uptime | sed 's/.*load average: //')
echo "running $rounds interleaved rounds of ${secs}s wrk runs ($conns connections) from $started, load average $load_before"
for r in $(seq 1 "$rounds"); do
  if [ "$mode" = hot ] || [ "$mode" = all ]; then
    for route in vin congress-trades edgar-search prices; do
      for who in owner pro; do
        for server in datahost axum axum-headers nginx; do
          port=$p_dh; [ "$server" = axum ] && port=$p_axum; [ "$server" = nginx ] && port=$p_nginx
          [ "$server" = axum-headers ] && port=$p_axum_owner_headers
          [ "$server" = axum-headers ] && [ "$who" = pro ] && port=$p_axum_pro_headers
          run_wrk hot "$route ($who key)" "$server" "$port" "$work/$who.txt" "$work/hot-$route.paths"
        done
      done
    done
  fi
  if [ "$mode" = cold ] || [ "$mode" = all ]; then
    for paths in "$work"/cold-*.paths; do
      [ -s "$paths" ] || continue
      set -- cold "$p_cold" "$work/owner.txt"
      case "$paths" in *-table.paths) set -- "cold (table-backed)" "$p_table" "$work/owner-table.txt" ;; esac
      route=$(basename "$paths" .paths); route=${route#cold-}; route=${route%-table}
      for server in datahost axum nginx; do
        port=$2; [ "$server" = axum ] && port=$p_axum; [ "$server" = nginx ] && port=$p_nginx
        run_wrk "$1" "$route ($(wc -l < "$paths") distinct)" "$server" "$port" "$3" "$paths"
      done
    done
  fi
  if [ "$mode" = redis ] || [ "$mode" = all ]; then
    for route in congress-trades prices; do
      run_wrk redis "$route (pro keys)" datahost "$p_dh" "$work/pro.txt" "$work/hot-$route.paths"
      run_wrk redis "$route (pro keys)" redis "$p_redis" "$work/pro.txt" "$work/hot-$route.paths"
    done
  fi
  echo "round $r done"
done
echo
# `-dirty` when the tree differs from HEAD: the binaries measured were built from uncommitted changes.
echo "## datahost ${BENCH_BIN:-$(git -C "$root" describe --always --dirty 2> /dev/null || echo '?')}, $started to $(date -u '+%H:%M UTC'); load average before $load_before, after $(uptime | sed 's/.*load average: //')"
python3 "$here/bench.py" report "$results"
