#!/usr/bin/env bash
# `tests/bench/run.sh pool`: the host's own comparisons, measured in the same run on loopback with wrk.
#   1. /__baseline: the same binary and stack answering the same bytes, without auth, limits or plugin;
#   2. /v1/congress-trades?ticker=LMCS through auth + in-process rate limit + plugin;
#   3. the same through the Redis limiter (ratelimit.redis_url, Redis on 127.0.0.1:6379);
#   4. the same with the response cache off (cache.max_bytes = 0), so every request calls the plugin through the
#      handler pool;
#   5. that with the plugin call inline on the async worker (plugins.bench_inline_calls: no deadline), to price
#      the handler pool that gives every call its deadline;
#   6. that with congress-trades in its own process (plugins.congress-trades.isolation = "process").
# 2 and 3 answer from the response cache (the hot path); 4 to 6 call the plugin every time, or they would all
# measure the same cached answer.
# Each is run ROUNDS times, interleaved, and the medians are compared as ratios (these 2-core machines are
# noisy; only same-run ratios mean anything). Needs `cargo build --release --workspace` and wrk.
# Usage: tests/bench/pool.sh [seconds per run, default 5] [rounds, default 3]; BENCH_LOG=info to log every request,
# PRO_KEYS (default 1500) pro keys rotated.
set -euo pipefail
secs=${1:-5}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/target/release/datahost"
[ -x "$bin" ] || { echo "build first: cargo build --release --workspace" >&2; exit 1; }
command -v wrk >/dev/null || { echo "install wrk: apt-get install -y wrk" >&2; exit 1; }
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
route='/v1/congress-trades?ticker=LMCS'

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

write_config() { # name port extra [keys of the [plugins] table]
  cat > "$work/$1.toml" <<TOML
[server]
listen = "127.0.0.1:$2"
base_url = "http://127.0.0.1:$2"
bench_baseline_file = "$work/body.json"
[metrics]
listen = "127.0.0.1:0"
[plugins]
dir = "$root/target/release"
${4:-}
[keys]
file = "$work/keys.json"
$3
TOML
}

start() { # name
  DATAHOST_CONFIG="$work/$1.toml" RUST_LOG="${BENCH_LOG:-warn}" "$bin" serve > "$work/$1.out" 2> "$work/$1.err" &
  pids+=($!)
  for _ in $(seq 1 100); do grep -q listening "$work/$1.out" 2>/dev/null && return; sleep 0.1; done
  cat "$work/$1.err" >&2; exit 1
}

p1=$(free_port); p2=$(free_port); p3=$(free_port); p4=$(free_port); p5=$(free_port)
no_cache="[cache]
max_bytes = 0"
write_config local "$p1" ""
write_config pool "$p5" "$no_cache"
write_config inline "$p3" "$no_cache" "bench_inline_calls = true"
write_config process "$p4" "$no_cache
[plugins.congress-trades]
isolation = \"process\""
write_config redis "$p2" "[ratelimit]
redis_url = \"redis://127.0.0.1:6379\"
redis_prefix = \"dh-bench-$$\""

# Enough keys that none reaches its 1,200 a minute: a cached answer runs at 50,000 req/s and more here.
pro_keys=${PRO_KEYS:-1500}
echo "issuing $pro_keys pro keys (1200 requests/minute each)..."
for _ in $(seq 1 "$pro_keys"); do DATAHOST_CONFIG="$work/local.toml" "$bin" keys issue --tier pro 2>/dev/null; done > "$work/keys.txt"
key=$(head -1 "$work/keys.txt")
echo '{}' > "$work/body.json"
start local
curl -fsS "http://127.0.0.1:$p1$route" -H "X-API-Key: $key" > "$work/body.json"
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=()
start local
start redis
start pool
start inline
start process
cmp -s <(curl -fsS "http://127.0.0.1:$p1/__baseline") <(curl -fsS "http://127.0.0.1:$p1$route" -H "X-API-Key: $key") \
  || { echo "baseline body differs from the route's body" >&2; exit 1; }
echo "response body: $(wc -c < "$work/body.json") bytes"

rps() { # url [lua]
  local out
  if [ -n "${2:-}" ]; then
    out=$(wrk -t2 -c32 -d"${secs}s" -s "$root/tests/bench/rotate-keys.lua" "$1" -- "$work/keys.txt")
  else
    out=$(wrk -t2 -c32 -d"${secs}s" "$1")
  fi
  if echo "$out" | grep -q "Non-2xx"; then echo "$out" >&2; echo "non-2xx responses during the run" >&2; exit 1; fi
  echo "$out" | awk '/Requests\/sec/ {print $2}'
}

declare -a base full redis pool inline process
for r in $(seq 1 "$rounds"); do
  base+=("$(rps "http://127.0.0.1:$p1/__baseline")")
  full+=("$(rps "http://127.0.0.1:$p1$route" lua)")
  redis+=("$(rps "http://127.0.0.1:$p2$route" lua)")
  pool+=("$(rps "http://127.0.0.1:$p5$route" lua)")
  inline+=("$(rps "http://127.0.0.1:$p3$route" lua)")
  process+=("$(rps "http://127.0.0.1:$p4$route" lua)")
  echo "round $r: baseline ${base[-1]} req/s, full path ${full[-1]}, + redis ${redis[-1]}, uncached: pool ${pool[-1]}, inline call ${inline[-1]}, plugin process ${process[-1]}"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mb=$(median "${base[@]}"); mf=$(median "${full[@]}"); mr=$(median "${redis[@]}")
mi=$(median "${inline[@]}"); mp=$(median "${process[@]}"); mo=$(median "${pool[@]}")
python3 - "$mb" "$mf" "$mr" "$mo" "$mi" "$mp" <<'PY'
import sys
b, f, r, o, i, p = map(float, sys.argv[1:])
print(f"median req/s: baseline {b:.0f}, full path (cached) {f:.0f}, with Redis limiter {r:.0f}; uncached: handler "
      f"pool {o:.0f}, inline call {i:.0f}, plugin process {p:.0f}")
print(f"full path (cached) / bare route          = {f / b:.3f}")
print(f"Redis limiter / in-process (both cached) = {r / f:.3f}")
print(f"handler pool (uncached) / bare route     = {o / b:.3f}")
print(f"inline call (no deadline) / bare route   = {i / b:.3f}")
print(f"handler pool / inline call               = {o / i:.3f}")
print(f"plugin process / in-process (both pool)  = {p / o:.3f}")
PY
