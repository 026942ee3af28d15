#!/usr/bin/env bash
# Soak test of the release server on the embedded engine (not in CI).
#   1. builds (release), ingests a few real corpus files, issues pro keys, starts `datahost serve`;
#   2. builds a mixed query set from /openapi.json (every route with its documented example parameters, a few
#      limits each) and keeps the queries that answer 200;
#   3. measures peak throughput on that set (wrk, 3 runs, the best), then
#   4. runs for DURATION at RATE_SHARE (70%) of that peak, each request with the next pro key (enough keys that
#      the 1,200/min per-key limit is never reached, so any non-2xx is an error), sampling the server's RSS
#      every 5 s;
#   5. reports errors (non-2xx and socket errors: must be 0), throughput (must reach 95% of the target), latency
#      percentiles and RSS drift (the last sample against the first after warm-up: must be under 5%); exits 1 if a
#      bound fails.
# Usage: tests/bench/soak.sh [duration in seconds, default 1800]
# Environment: SOAK_KEYS (pro keys, default 600), RATE_SHARE (default 0.7), PEAK_SECS (default 15),
# WARMUP_SECS (default 120), CONNECTIONS (default 100), SOAK_DIR (keep the work files there).
set -euo pipefail
duration=${1:-1800}
keys_n=${SOAK_KEYS:-600}
share=${RATE_SHARE:-0.7}
peak_secs=${PEAK_SECS:-15}
warmup=${WARMUP_SECS:-120}
conns=${CONNECTIONS:-100}
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus="${DATAHOST_CORPUS:-$root/../shared/corpus}"
command -v wrk >/dev/null || { echo "install wrk: apt-get install -y wrk" >&2; exit 1; }
[ "$warmup" -lt "$duration" ] || { echo "the duration ($duration s) must exceed the warm-up ($warmup s)" >&2; exit 2; }

(cd "$root" && nice -n 10 cargo build --release --workspace)
bin="$root/target/release/datahost"
work=${SOAK_DIR:-$(mktemp -d)}
mkdir -p "$work"
pid=
sampler=
cleanup() {
  [ -z "$sampler" ] || kill "$sampler" 2>/dev/null || true
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  [ -n "${SOAK_DIR:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=tests/bench/common.sh
. "$root/tests/bench/common.sh"
port=$(free_port)
base="http://127.0.0.1:$port"
bench_config "$work/soak.toml" "$port" "$work"
export DATAHOST_CONFIG="$work/soak.toml" RUST_LOG=warn

# Real records beside the demo seeds (a refused file is reported, not fatal: the set is what answers 200).
ingest() { "$bin" ingest "$@" > /dev/null 2>> "$work/ingest.err" || echo "ingest $1: some files refused (see $work/ingest.err)"; }
ingest insiders "$corpus/sec-form4"
ingest institutional-holdings "$corpus/sec-13f"
ingest congress-trades "$corpus/house-fd/2023FD.xml" "$corpus/house-fd/20022260.pdf"
ingest prices "$corpus/prices"
ingest donors "$corpus/fec"

echo "issuing $keys_n pro keys..."
for _ in $(seq 1 "$keys_n"); do "$bin" keys issue --tier pro 2>/dev/null; done > "$work/keys.txt"
key=$(head -1 "$work/keys.txt")

"$bin" serve > "$work/server.out" 2> "$work/server.err" &
pid=$!
for _ in $(seq 1 300); do grep -q listening "$work/server.out" 2>/dev/null && break; sleep 0.1; done
grep -q listening "$work/server.out" || { cat "$work/server.err" >&2; exit 1; }

# The mixed query set: each route with its parameters' documented examples (all of them, and the required
# ones only), with a few limits; kept when it answers 200 with this key.
curl -fsS "$base/openapi.json" > "$work/openapi.json"
python3 - "$work/openapi.json" > "$work/candidates.txt" <<'PY'
import json, sys, urllib.parse
doc = json.load(open(sys.argv[1]))
for path, item in sorted(doc["paths"].items()):
    op = item.get("get") or {}
    if not path.startswith("/v1/") or "{" in path:
        continue
    params = [p for p in op.get("parameters", []) if p.get("in") == "query" and p.get("name") != "api_key"]
    def example(p):
        return p.get("example", (p.get("schema") or {}).get("example"))
    full = {p["name"]: example(p) for p in params if example(p) is not None}
    required = {p["name"]: full[p["name"]] for p in params if p.get("required") and p["name"] in full}
    variants = [required, full] + [dict(required, **{n: x}) for n, x in full.items() if n not in required]
    if any(p["name"] == "limit" for p in params):
        variants += [dict(required, limit=n) for n in (1, 5, 20)]
    seen = set()
    for v in variants:
        q = urllib.parse.urlencode({k: str(x).lower() if isinstance(x, bool) else x for k, x in v.items()})
        url = path + ("?" + q if q else "")
        if url not in seen:
            seen.add(url)
            print(url)
PY
: > "$work/paths.txt"
while read -r path; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-API-Key: $key" "$base$path")
  if [ "$code" = 200 ]; then echo "$path" >> "$work/paths.txt"; else echo "left out (answers $code): $path"; fi
done < "$work/candidates.txt"
# Spread over the set so that no position favours one route.
shuf "$work/paths.txt" -o "$work/paths.txt"
echo "mixed query set: $(wc -l < "$work/paths.txt") queries over $(sed 's/?.*//' "$work/paths.txt" | sort -u | wc -l) routes"

field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
run_wrk() { # seconds connections [requests per second for each of the 2 wrk threads]
  wrk -t2 -c"$2" -d"$1s" --timeout 5s -s "$root/tests/bench/soak.lua" "$base" -- "$work/keys.txt" "$work/paths.txt" ${3:-} \
    | grep '^{'
}

peak=0
for r in 1 2 3; do
  out=$(run_wrk "$peak_secs" 64)
  rps=$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); print(int(s["requests"] / (s["duration_us"] / 1e6)))' "$out")
  bad=$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); print(sum(s[k] for k in ("connect","read","write","timeout","non2xx")))' "$out")
  echo "peak run $r: $rps req/s ($bad errors)"
  [ "$bad" -eq 0 ] || { echo "errors during the peak measurement: $out" >&2; exit 1; }
  [ "$rps" -le "$peak" ] || peak=$rps
done
target=$(python3 -c "print(int($peak * $share))")
# No key may reach 1,200 requests in a minute: keys_n keys share target*60 requests a minute.
per_key=$(python3 -c "print(int($target * 60 / $keys_n))")
[ "$per_key" -lt 1000 ] || { echo "$keys_n keys would each see $per_key requests a minute at $target req/s; raise SOAK_KEYS" >&2; exit 2; }
per_thread=$(python3 -c "print($target / 2)")
echo "peak $peak req/s; soaking ${duration}s at $target req/s ($share of peak; $conns connections on a fixed schedule; ~$per_key requests per key a minute)"

# RSS every 5 s: seconds since the soak began, KiB.
start=$(date +%s)
( while kill -0 "$pid" 2>/dev/null; do echo "$(( $(date +%s) - start )) $(ps -o rss= -p "$pid" | tr -d ' ')"; sleep 5; done ) > "$work/rss.txt" &
sampler=$!
out=$(run_wrk "$duration" "$conns" "$per_thread")
kill "$sampler" 2>/dev/null || true; sampler=
kill -0 "$pid" 2>/dev/null || { echo "the server died during the soak" >&2; tail -20 "$work/server.err" >&2; exit 1; }

python3 - "$out" "$work/rss.txt" "$warmup" "$target" "$peak" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
warmup, target, peak = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
samples = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if len(l.split()) == 2]
after = [(t, rss) for t, rss in samples if t >= warmup]
secs = s["duration_us"] / 1e6
errors = {k: s[k] for k in ("non2xx", "connect", "read", "write", "timeout")}
first, last = after[0], after[-1]
drift = (last[1] - first[1]) / first[1] * 100
achieved = s["requests"] / secs
print(f"requests {s['requests']} in {secs:.0f} s: {achieved:.0f} req/s, {achieved / target:.1%} of the target {target} "
      f"(peak {peak})")
print("errors: " + ", ".join(f"{k} {v}" for k, v in errors.items()))
print("latency: p50 {:.2f} ms, p90 {:.2f} ms, p99 {:.2f} ms, p99.9 {:.2f} ms, max {:.2f} ms".format(
    *(s[k] / 1000 for k in ("p50_us", "p90_us", "p99_us", "p999_us", "max_us"))))
print(f"RSS: {samples[0][1] / 1024:.1f} MiB at start, {first[1] / 1024:.1f} MiB at {first[0]} s (after warm-up), "
      f"{last[1] / 1024:.1f} MiB at {last[0]} s, peak {max(r for _, r in samples) / 1024:.1f} MiB; drift {drift:+.2f}%")
failed = []
if sum(errors.values()):
    failed.append("errors must be 0")
if drift >= 5:
    failed.append("RSS drift must be under 5%")
if achieved < 0.95 * target:
    failed.append("the rate must reach 95% of the target (the server or the machine could not keep up)")
if failed:
    print("FAILED: " + "; ".join(failed))
    sys.exit(1)
print("PASSED")
PY
