#!/usr/bin/env python3
"""Helpers of tests/bench/run.sh (not run on their own): the query sets, capturing the host's answers, the
nginx tree, cold-start timing and the report. Standard library only.

  bench.py cold-queries SET BASE KEY N             candidate cold queries `route<TAB>path?query`: SET is memory
                                                   (the demo seeds) or table (table-backed datasets, ingested)
  bench.py capture BASE KEY LIST OUTDIR            GET each; prints `target<TAB>file<TAB>route` for each 200
  bench.py nginx-tree INDEX ROOT                   ROOT/<path>/<query> holds each captured body (nginx try_files)
  bench.py startup BIN CONFIG PORT RUNS [FRESH_DATA_DIR]   exec to first 200 on /health, RSS at idle
  bench.py report RESULTS                          the markdown tables from the wrk results
"""

import datetime
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse

VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]
VIN_VALUES = {**{str(d): d for d in range(10)},
              **dict(zip("ABCDEFGH", range(1, 9))), **dict(zip("JKLMN", range(1, 6))), "P": 7, "R": 9,
              **dict(zip("STUVWXYZ", range(2, 10)))}


def vin_with_check_digit(vin):
    total = sum(VIN_VALUES[c] * w for c, w in zip(vin, VIN_WEIGHTS))
    check = "X" if total % 11 == 10 else str(total % 11)
    return vin[:8] + check + vin[9:]


class Client:
    """One keep-alive connection, reopened when the server closes it."""

    def __init__(self, base, key):
        self.host, self.port = urllib.parse.urlsplit(base).netloc.split(":")
        self.key = key
        self.conn = None
        self.headers = []  # the last answer's, in order

    def get(self, target):
        for attempt in range(2):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, int(self.port), timeout=30)
                self.conn.request("GET", target, headers={"X-API-Key": self.key})
                r = self.conn.getresponse()
                self.headers = r.getheaders()
                return r.status, r.read()
            except (ConnectionError, http.client.HTTPException):
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def json(self, target):
        status, body = self.get(target)
        return json.loads(body) if status == 200 else None


def strings_under(doc, field):
    """Every string value of `field` anywhere in a JSON document."""
    found = []
    stack = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, x in v.items():
                if k == field and isinstance(x, str):
                    found.append(x)
                else:
                    stack.append(x)
        elif isinstance(v, list):
            stack.extend(v)
    return sorted(set(found))


def cold_queries(which, base, key, n):
    """Distinct queries per route, more than needed: the capture keeps those answering 200. Tickers, members,
    words and dates come from the server's own answers, so the queries find data."""
    c = Client(base, key)
    out = {}
    if which == "memory":
        # prices: a ticker and a distinct date range each, a year long, inside the dates the first ticker's series
        # spans (ranges before the data would measure empty answers).
        tickers = strings_under(c.json("/v1/prices") or {}, "ticker") or ["SPY"]
        dates = strings_under(c.json(f"/v1/prices?ticker={tickers[0]}&limit=100000") or {}, "date")
        first = datetime.date.fromisoformat(dates[0]) if dates else datetime.date(2021, 11, 1)
        last = datetime.date.fromisoformat(dates[-1]) if dates else datetime.date(2026, 10, 30)
        starts = max((last - first).days - 365, 1)
        q = []
        for i in range(n):
            t = tickers[i % len(tickers)]
            start = first + datetime.timedelta(days=(i // len(tickers)) % starts)
            end = start + datetime.timedelta(days=365 + (i // (len(tickers) * starts)))
            q.append(f"/v1/prices?ticker={t}&from={start.isoformat()}&to={end.isoformat()}")
        out["prices"] = q
        out["congress-trades"] = chamber_queries(c, "congress-trades", "", n)
        out["edgar-search"] = edgar_queries(c.json("/v1/edgar-search?q=revenue&limit=100"), n, "from")
        # vin: the example's make and model with every serial number (valid check digit).
        out["vin"] = [f"/v1/vin?vin={vin_with_check_digit('1HGCM82603A' + f'{i:06d}')}" for i in range(n)]
    else:
        # insiders: Form 4 rows read per issuer with records.query; every issuer (few: a corpus sample).
        issuers = strings_under(c.json("/v1/insiders") or {}, "ticker")
        out["insiders"] = [f"/v1/insiders?ticker={t}" for t in issuers]
        # edgar-search over the ingested filings: the hits' documents are read from the records table.
        names = " ".join(strings_under(c.json("/v1/insiders") or {}, "name"))
        out["edgar-search"] = edgar_queries({"names": names}, n, "to")
    for route, queries in out.items():
        for target in dict.fromkeys(queries):
            print(f"{route}\t{target}")


def chamber_queries(c, route, listing, n):
    """A chamber's filings (congress-trades, senate-trades): a ticker or a member's surname from the answer to
    `/v1/<route><listing>`, with a distinct limit each."""
    doc = c.json(f"/v1/{route}{listing}") or {}
    filters = [("ticker", t) for t in strings_under(doc, "ticker") if t and t != "--"]
    filters += [("member", m.split()[-1].lower()) for m in strings_under(doc, "member") if m.strip()]
    filters = sorted(set(filters)) or [("ticker", "NVDA")]
    return [f"/v1/{route}?{urllib.parse.urlencode({k: v, 'limit': 1 + i // len(filters)})}"
            for i, (k, v) in ((i, filters[i % len(filters)]) for i in range(n))]


def chamber_queries_command(route, base, key, n):
    """`route<TAB>target` lines of distinct chamber queries (as `cold-queries` prints), from a chamber's first
    1,000 filings."""
    for target in dict.fromkeys(chamber_queries(Client(base, key), route, "?limit=1000", int(n))):
        print(f"{route}\t{target}")


def send_each(base, key, paths_file, start, count):
    """Sends lines START to START + COUNT of PATHS_FILE once each on one keep-alive connection; fails unless every
    answer is a 200."""
    paths = [line.strip() for line in open(paths_file) if line.strip()][int(start):int(start) + int(count)]
    c = Client(base, key)
    for target in paths:
        status, _ = c.get(target)
        if status != 200:
            sys.exit(f"send-each: {target} answered {status}")


def edgar_queries(doc, n, bound):
    """A word of the documents' text with a distinct limit and date bound each (`bound`: from or to, so the
    memory and table sets never share a query)."""
    text = " ".join(strings_under(doc or {}, "snippet") + strings_under(doc or {}, "companyName")
                    + strings_under(doc or {}, "title") + strings_under(doc or {}, "entityName")
                    + strings_under(doc or {}, "names"))
    words = sorted({w.lower() for w in re.findall(r"[A-Za-z]{5,}", text)} | {"revenue", "income", "risk"})
    return [f"/v1/edgar-search?q={words[i % len(words)]}&limit={1 + (i // len(words)) % 100}"
            f"&{bound}={2001 + (i // (len(words) * 100)) % 25}-01-01"
            for i in range(n)]


# Headers every server writes itself (the baselines and nginx with their own values): not copied into a capture.
OWN_HEADERS = {"content-type", "content-length", "date", "connection", "keep-alive", "transfer-encoding"}


def capture(base, key, listing, outdir):
    """Fetches each `route<TAB>target` and keeps the 200s, in files named by their line number, each body's other
    headers in FILE.headers (`name: value` lines, for the baseline's `--with-headers`)."""
    os.makedirs(outdir, exist_ok=True)
    c = Client(base, key)
    refused = {}
    for i, line in enumerate(open(listing)):
        route, target = line.rstrip("\n").split("\t")
        status, body = c.get(target)
        if status != 200:
            refused[(route, status)] = refused.get((route, status), 0) + 1
            continue
        path = os.path.join(outdir, f"{i}.json")
        with open(path, "wb") as f:
            f.write(body)
        with open(path + ".headers", "w") as f:
            f.writelines(f"{name}: {value}\n" for name, value in c.headers if name.lower() not in OWN_HEADERS)
        print(f"{target}\t{path}\t{route}")
    for (route, status), count in sorted(refused.items()):
        print(f"capture: {count} {route} queries answered {status} (left out)", file=sys.stderr)


def send(base, keys_file, target, n):
    """Sends `target` `n` times on one keep-alive connection, rotating the keys of `keys_file`; fails unless every
    answer is a 200 (a 429 would mean too few keys for `n`)."""
    keys = [k.strip() for k in open(keys_file) if k.strip()]
    clients = [Client(base, k) for k in keys]
    conn = None
    for i in range(int(n)):
        c = clients[i % len(clients)]
        c.conn = conn
        status, _ = c.get(target)
        conn = c.conn
        if status != 200:
            sys.exit(f"send: {target} answered {status} with key {i % len(keys) + 1}")


def nginx_tree(index, root):
    """nginx answers `try_files /$uri/$args`: each body at ROOT/<path>/<raw query>."""
    for line in open(index):
        target, file, _ = line.rstrip("\n").split("\t")
        path, _, query = target.partition("?")
        dest = os.path.join(root, path.lstrip("/"), query or "_")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(file, dest)


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def startup(binary, config, port, runs, fresh_dir=None):
    """Median milliseconds from exec to the first 200 on /health, and RSS after 3 s idle. With FRESH_DIR, the
    engine's data directory is removed before each start (seeds assembled anew); without, it is kept warm."""
    times, rss = [], []
    env = dict(os.environ, DATAHOST_CONFIG=config, RUST_LOG=os.environ.get("STARTUP_LOG", "warn"))
    for _ in range(int(runs)):
        if fresh_dir:
            shutil.rmtree(fresh_dir, ignore_errors=True)
        log = open(config + ".startup.log", "ab")
        began = time.monotonic()
        p = subprocess.Popen([binary, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=log)
        try:
            while True:
                if p.poll() is not None:
                    sys.exit(f"the server exited with {p.returncode}; see {config}.startup.log")
                if time.monotonic() - began > 60:
                    sys.exit("no 200 on /health within 60 s")
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=1)
                    conn.request("GET", "/health")
                    if conn.getresponse().status == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.002)
            times.append((time.monotonic() - began) * 1000)
            time.sleep(3)
            rss.append(rss_kib(p.pid) / 1024)
        finally:
            p.terminate()
            p.wait()
    print(json.dumps({"ms": times, "rss_mib": rss, "median_ms": statistics.median(times),
                      "median_rss_mib": statistics.median(rss)}))


def report(results):
    """RESULTS lines: table, case, server, round, wrk JSON summary (soak.lua), load average at the run."""
    runs = {}
    loads = []
    for line in open(results):
        table, case, server, _, summary, load = line.rstrip("\n").split("\t")
        s = json.loads(summary)
        errors = sum(s[k] for k in ("connect", "read", "write", "timeout", "non2xx"))
        rps = s["requests"] / (s["duration_us"] / 1e6)
        runs.setdefault((table, case), {}).setdefault(server, []).append((rps, errors, s["p99_us"]))
        loads.append(float(load))
    tables = {}
    for (table, case), servers in runs.items():
        tables.setdefault(table, []).append((case, servers))
    invalid = []
    for table, rows in tables.items():
        subject, others = ("redis", [("in-process limiter", "datahost")]) if table == "redis" else \
            ("datahost", [("bare axum", "axum"), ("bare axum with datahost's headers", "axum-headers"),
                          ("nginx", "nginx")])
        others = [(o, s) for o, s in others if any(s in servers for _, servers in rows)]
        print(f"\n### {table}\n")
        print("| case | " + " | ".join([subject] + [o for o, _ in others]) + " | "
              + " | ".join(f"{subject} / {o}" for o, _ in others) + " | errors |")
        print("|---" * (3 + 2 * len(others)) + "|")
        for case, servers in rows:
            med = {name: statistics.median(r for r, _, _ in v) for name, v in servers.items()}
            errors = sum(e for v in servers.values() for _, e, _ in v)
            cells = [f"{med.get(subject, 0):,.0f}"] + [f"{med.get(s, 0):,.0f}" for _, s in others]
            ratios = [f"{med[subject] / med[s]:.3f}" if med.get(s) else "-" for _, s in others]
            print(f"| {case} | " + " | ".join(cells + ratios) + f" | {errors} |")
            if errors:
                invalid.append(f"{table}: {case} ({errors:,})")
    if invalid:
        # A 429 or a failed read is answered faster or slower than the query measured: such a row's ratio
        # does not measure the hot or cold path.
        print("\nNOT VALID, rows with errors (a 429 on pro keys: more keys with PRO_KEYS=N): " + "; ".join(invalid))
    if loads:
        print(f"\nload average (1 min) at the runs: min {min(loads):.2f}, median {statistics.median(loads):.2f}, "
              f"max {max(loads):.2f}; req/s are medians of the rounds")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"cold-queries": lambda: cold_queries(args[0], args[1], args[2], int(args[3])),
     "capture": lambda: capture(*args),
     "nginx-tree": lambda: nginx_tree(*args),
     "send": lambda: send(*args),
     "send-each": lambda: send_each(*args),
     "chamber-queries": lambda: chamber_queries_command(*args),
     "startup": lambda: startup(*args),
     "report": lambda: report(*args)}[command]()
