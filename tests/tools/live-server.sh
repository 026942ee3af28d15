# Sourced by the stages that talk to a live server (contract.sh, docs-page.sh). Needs `bin_dir` (the built
# binary and plugins) and `work` (a scratch folder the caller removes); its EXIT trap kills `$server_pid`.
#   live_server_config  writes $work/datahost.toml (a free port, metrics on another, a fresh key store and
#                       data folder under $work), exports DATAHOST_CONFIG, sets `port` and `base`
#   live_server_start   starts `datahost serve` and waits for its `listening` line; sets `server_pid`

live_server_config() {
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  base="http://127.0.0.1:$port"
  cat > "$work/datahost.toml" <<TOML
[server]
listen = "127.0.0.1:$port"
base_url = "$base"
[metrics]
listen = "127.0.0.1:0"
[plugins]
dir = "$bin_dir"
[engine]
data_dir = "$work/data"
[keys]
file = "$work/keys.json"
TOML
  export DATAHOST_CONFIG="$work/datahost.toml"
}

live_server_start() {
  "$bin_dir/datahost" serve > "$work/stdout" 2> "$work/stderr" &
  server_pid=$!
  for _ in $(seq 1 150); do grep -q listening "$work/stdout" 2>/dev/null && break; sleep 0.2; done
  grep -q listening "$work/stdout" || { cat "$work/stderr"; echo "server did not start" >&2; exit 1; }
}
