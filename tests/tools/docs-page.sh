#!/usr/bin/env bash
# The /docs page in a real browser, against the built binary in $1 (target/debug or target/release): starts a
# server on a free port, opens /docs in headless Chromium (Debian's `chromium`, installed here if missing;
# puppeteer-core drives it and downloads no browser), and checks that every operation of /openapi.json renders,
# that every error anchor (host/src/http/error.rs ERROR_CODES, plus `errors`) exists and scrolls into view, that the
# `docs` links of live error bodies point at those anchors, and that the page fetches nothing from elsewhere.
# Screenshots: target/test-artifacts/docs.png and docs-rate-limited.png.
set -euo pipefail
bin_dir=${1:?usage: docs-page.sh TARGET_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
tools="$root/tests/tools/docs-page"
node_dir="$root/target/docs-page-node"
artifacts="$root/target/test-artifacts"
work=$(mktemp -d)
server_pid=
trap 'kill $server_pid 2>/dev/null || true; rm -rf "$work"' EXIT

# Idempotent installs: nothing happens when the browser, node and the pinned puppeteer-core are present.
missing=()
command -v chromium > /dev/null || missing+=(chromium)
command -v node > /dev/null || missing+=(nodejs)
command -v npm > /dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  sudo=; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" > /dev/null
fi
if ! cmp -s "$tools/package-lock.json" "$node_dir/package-lock.json" 2>/dev/null \
  || [ ! -d "$node_dir/node_modules/puppeteer-core" ]; then
  mkdir -p "$node_dir"
  cp "$tools/package.json" "$tools/package-lock.json" "$node_dir/"
  (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
cp "$tools/check.mjs" "$node_dir/check.mjs"

# shellcheck source=tests/tools/live-server.sh
source "$root/tests/tools/live-server.sh"
live_server_config
free_key=$("$bin_dir/datahost" keys issue --tier free --label docs-page 2>/dev/null)
live_server_start

# The anchors error bodies link to: the code table, and the fallback for a status without a row.
mapfile -t anchors < <(python3 - "$root/host/src/http/error.rs" <<'PY'
import re, sys
table = open(sys.argv[1]).read().split("ERROR_CODES", 1)[1].split("];", 1)[0]
for anchor in re.findall(r'\(\s*\d{3},\s*"([a-z-]+)"', table):
    print(anchor)
print("errors")
PY
)
[ ${#anchors[@]} -ge 10 ] || { echo "read only ${#anchors[@]} anchors from host/src/http/error.rs" >&2; exit 1; }

# Live error bodies (no key, a tier too low, an unknown path, a write, an unknown parameter) link into them.
for request in "/v1/insiders" "/v1/entity-graph?ticker=NVDA&api_key=$free_key" "/v1/nowhere" "POST /health" \
  "/v1/insiders?tickr=NVDA&api_key=$free_key"; do
  method=GET; path=$request
  case $request in POST\ *) method=POST; path=${request#POST };; esac
  docs=$(curl -sS -X "$method" "$base$path" | python3 -c 'import json, sys; print(json.load(sys.stdin)["docs"])')
  case " ${anchors[*]} " in
    *" ${docs#"$base/docs#"} "*) [ "${docs%%#*}" = "$base/docs" ] || { echo "docs link $docs is not $base/docs#..." >&2; exit 1; } ;;
    *) echo "error body of $method ${path%%api_key=*} links to $docs, which is no anchor of the page" >&2; exit 1 ;;
  esac
done

CHROMIUM=$(command -v chromium) node "$node_dir/check.mjs" "$base" "$artifacts" "${anchors[@]}"
