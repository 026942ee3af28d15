# shellcheck shell=bash
# Shared by the benchmark scripts (sourced): a free loopback port and the server configuration they run with.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# bench_config FILE PORT WORKDIR [SERVER_TOML] [EXTRA_TOML]: release plugins, keys and the embedded engine under
# WORKDIR, the API on PORT (0: any), metrics on any free port; SERVER_TOML adds keys to [server], EXTRA_TOML tables.
# The sourcing script sets `root` (the repository).
# shellcheck disable=SC2154
bench_config() {
  cat > "$1" <<TOML
[server]
listen = "127.0.0.1:$2"
base_url = "http://127.0.0.1:$2"
${4:-}
[metrics]
listen = "127.0.0.1:0"
[plugins]
dir = "$root/target/${BENCH_PROFILE:-release}"
[keys]
file = "$3/keys.json"
[engine]
data_dir = "$3/data"
${5:-}
TOML
}

# listening_api STDOUT PID STDERR [SECONDS, default 300]: waits for the server's `listening` event on STDOUT and
# prints its API address (host:port); fails with the server's stderr if it exits first or never listens.
listening_api() {
  local api="" tries=$(( ${4:-300} * 2 ))
  for _ in $(seq 1 "$tries"); do
    api=$(python3 -c 'import json,sys
for line in open(sys.argv[1]):
    try: v = json.loads(line)
    except ValueError: continue
    if v.get("event") == "listening": print(v["api"]); break' "$1" 2>/dev/null || true)
    [ -n "$api" ] && { echo "$api"; return 0; }
    kill -0 "$2" 2>/dev/null || { cat "$3" >&2; return 1; }
    sleep 0.5
  done
  echo "datahost did not start within ${4:-300} s" >&2
  cat "$3" >&2
  return 1
}

# bench_work: sets `work` (BENCH_DIR, kept, or a temporary directory removed at exit) and `pids` (the servers the
# script starts: killed and waited for at exit).
bench_work() {
  work=${BENCH_DIR:-$(mktemp -d)}
  mkdir -p "$work"
  pids=()
  trap bench_cleanup EXIT
}
bench_cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
  [ -n "${BENCH_DIR:-}" ] || rm -rf "$work"
}
