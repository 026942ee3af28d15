#!/usr/bin/env bash
# Generated clients against a live server built in $1 (target/debug or target/release):
#  1. openapi-typescript generates TypeScript types from the server's /openapi.json, and tsc type-checks them
#     together with tests/clients/check_types.ts;
#  2. openapi-python-client generates a Python client from the server's /openapi.json, and
#     tests/clients/check_python_client.py drives it: typed responses of three endpoints, an error envelope
#     read through the client, and a paged walk that follows `next` through `cursor` until it is null.
# The generators are installed by this script (a venv and an npm prefix under target/, reused once present).
set -euo pipefail
bin_dir=${1:?usage: clients.sh TARGET_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/target/clients-venv"
node_prefix="$root/target/clients-node"
work=$(mktemp -d)
cd "$work"
trap 'kill $server_pid 2>/dev/null || true; rm -rf "$work"' EXIT
server_pid=

if [ ! -x "$venv/bin/openapi-python-client" ] || ! "$venv/bin/python" -c 'import dateutil' 2>/dev/null; then
  python3 -m venv "$venv"
  # The generated client's own dependencies (httpx, attrs, python-dateutil) come with the generator or beside it.
  "$venv/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client>=0.29,<0.30" \
    "python-dateutil>=2.8,<3"
fi
if [ ! -x "$node_prefix/node_modules/.bin/openapi-typescript" ] || [ ! -x "$node_prefix/node_modules/.bin/tsc" ]; then
  npm install --silent --no-audit --no-fund --prefix "$node_prefix" "openapi-typescript@7" "typescript@5"
fi

# shellcheck source=tests/tools/live-server.sh
source "$root/tests/tools/live-server.sh"
live_server_config
key=$("$bin_dir/datahost" keys issue --tier owner --label client-tests 2>/dev/null)
live_server_start
curl -fsS "$base/openapi.json" > "$work/openapi.json"

echo "== openapi-typescript =="
"$node_prefix/node_modules/.bin/openapi-typescript" "$work/openapi.json" -o "$work/datahost.d.ts"
cp "$root/tests/clients/check_types.ts" "$work/check_types.ts"
"$node_prefix/node_modules/.bin/tsc" --noEmit --strict --skipLibCheck false "$work/datahost.d.ts" "$work/check_types.ts"
echo "TypeScript types: generated and type-checked"

echo "== openapi-python-client =="
# No post hooks: formatting the generated code (ruff) is not what is tested.
printf 'post_hooks: []\n' > "$work/generator.yml"
"$venv/bin/openapi-python-client" generate --path "$work/openapi.json" --config "$work/generator.yml" \
  --output-path "$work/python-client" --fail-on-warning
PYTHONPATH="$work/python-client" "$venv/bin/python" "$root/tests/clients/check_python_client.py" "$base" "$key"
