#!/usr/bin/env bash
# Contract checks against the built binary in $1 (target/debug or target/release):
#  1. the assembled /openapi.json validates as OpenAPI 3.1 (openapi-spec-validator);
#  2. schemathesis exercises every operation with an owner key and must report zero failures: server errors,
#     undocumented status codes, wrong content types, undocumented headers, bodies that break their schema.
set -euo pipefail
bin_dir=${1:?usage: contract.sh TARGET_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/target/contract-venv"
work=$(mktemp -d)
cd "$work"
trap 'kill $server_pid 2>/dev/null || true; rm -rf "$work"' EXIT
server_pid=

if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis>=4,<5" "openapi-spec-validator>=0.7,<0.8"
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/datahost.toml" <<TOML
[server]
listen = "127.0.0.1:$port"
base_url = "http://127.0.0.1:$port"
[metrics]
listen = "127.0.0.1:0"
[plugins]
dir = "$bin_dir"
[keys]
file = "$work/keys.json"
TOML
export DATAHOST_CONFIG="$work/datahost.toml"
key=$("$bin_dir/datahost" keys issue --tier owner --label contract-tests 2>/dev/null)
"$bin_dir/datahost" serve > "$work/stdout" 2> "$work/stderr" &
server_pid=$!
for _ in $(seq 1 100); do grep -q listening "$work/stdout" 2>/dev/null && break; sleep 0.2; done
grep -q listening "$work/stdout" || { cat "$work/stderr"; echo "server did not start" >&2; exit 1; }

curl -fsS "http://127.0.0.1:$port/openapi.json" > "$work/openapi.json"
"$venv/bin/python" - "$work/openapi.json" <<'PY'
import json, sys
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator
doc = json.load(open(sys.argv[1]))
validate(doc, cls=OpenAPIV31SpecValidator)
print(f"openapi.json: valid OpenAPI {doc['openapi']}, {len(doc['paths'])} paths")
PY

"$venv/bin/schemathesis" run "http://127.0.0.1:$port/openapi.json" \
  --header "X-API-Key: $key" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-30}" \
  --workers 2 \
  --seed 20261122 \
  --no-color
