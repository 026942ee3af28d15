#!/usr/bin/env bash
# The whole test suite, as the README's second command: builds the workspace, runs every unit, in-process
# and black-box test (the real binary with the real plugins; PostgreSQL and Redis tests against the real
# services), validates the assembled OpenAPI document, runs schemathesis against a live server, opens /docs in
# headless Chromium, checks the deployment artefacts in deploy/ with their own tools, and generates and runs a
# Python and a TypeScript client from /openapi.json.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

step() { printf '\n== %s ==\n' "$*"; }

step "services: PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379"
bash tests/tools/ensure-services.sh

step "build (workspace: host and every plugin)"
cargo build --workspace --locked

step "unit, in-process and black-box tests"
cargo test --workspace --locked --no-fail-fast

step "the dataset plugin template (templates/nhtsa-investigations), outside the workspace: its tests, fmt, clippy"
# Its own Cargo project and lock, as a plugin written elsewhere; the fixture plugins' target dir and profile, so the
# dependencies they share are built once (tests/tests/template_plugin.rs loads it into the real host).
template=(--manifest-path templates/nhtsa-investigations/Cargo.toml --locked)
template_build=(--target-dir tests/fixtures/target --config profile.dev.debug=0)
cargo test "${template[@]}" "${template_build[@]}"
cargo clippy "${template[@]}" "${template_build[@]}" --all-targets -- -D warnings
cargo fmt --manifest-path templates/nhtsa-investigations/Cargo.toml --check

step "OpenAPI document validates as OpenAPI 3.1; schemathesis against a live server"
bash tests/tools/contract.sh "$root/target/debug"

step "/docs in headless Chromium: every operation and error anchor renders; screenshots in target/test-artifacts"
bash tests/tools/docs-page.sh "$root/target/debug"

step "deployment artefacts (deploy/): container file, compose, HAProxy, Prometheus rules, Kubernetes, systemd, Grafana; /metrics of a live server"
bash tests/tools/deploy-check.sh "$root/target/debug"

step "generated clients (Python, TypeScript) against a live server; the plugin SDK's docs and package"
bash tests/tools/clients.sh "$root/target/debug"
RUSTDOCFLAGS="-D warnings" cargo doc -p datahost-plugin-api --no-deps --locked
# The derive macros are packaged with it: the SDK names them by version, and neither is on a registry yet.
cargo package -p datahost-plugin-derive -p datahost-plugin-api --no-verify --locked --allow-dirty

echo
echo "all test stages passed"
