"""Sends the query mix of tests/bench/deeds_pg.sh to /v1/deeds, one request at a time over one keep-alive
connection, and prints p50, p99 and max latency per query class and overall (the first 74 requests warm the
server up and are not counted). Usage: measure.py BASE_URL API_KEY MIX_TSV

PAGES=N (default 1) also follows each answer's `next` cursor for up to N - 1 later pages, as a client paging
through the matches would, each counted under its query's class with ", later page" added. SLOWEST=N (default 0)
also lists the N slowest counted requests (class, county, query, limit, page), to look at their statements."""
import collections
import http.client
import json
import os
import sys
import time
import urllib.parse

base, key, mix = sys.argv[1], sys.argv[2], sys.argv[3]
WARMUP = 74
host = urllib.parse.urlparse(base).netloc
conn = http.client.HTTPConnection(host, timeout=60)
times = collections.defaultdict(list)
statuses = collections.Counter()
capped = collections.Counter()
PAGES = int(os.environ.get("PAGES", "1"))
SLOWEST = int(os.environ.get("SLOWEST", "0"))
slowest = []
rows = [line.rstrip("\n").split("\t") for line in open(mix) if line.strip()]
for n, (klass, county, query, limit) in enumerate(rows):
    params = {"county": county, "query": query, "limit": limit}
    for page in range(PAGES):
        start = time.perf_counter()
        conn.request("GET", "/v1/deeds?" + urllib.parse.urlencode(params), headers={"X-API-Key": key})
        resp = conn.getresponse()
        body = resp.read()
        ms = (time.perf_counter() - start) * 1000
        answer = json.loads(body) if resp.status == 200 else {}
        if n >= WARMUP:
            label = klass if page == 0 else f"{klass}, later page"
            times[label].append(ms)
            slowest.append((ms, klass, county, query, limit, page + 1))
            statuses[(label, resp.status)] += 1
            if answer.get("totalIsLowerBound"):
                capped[label] += 1
        if not answer.get("next"):
            break
        params["cursor"] = answer["next"]


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(p / 100 * len(s) + 0.5)) - 1))]


print(f"{'class':<28} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  statuses (capped totals)")
for klass in sorted(times, key=lambda k: -pct(times[k], 99)):
    t = times[klass]
    st = ", ".join(f"{s}: {c}" for (k, s), c in sorted(statuses.items()) if k == klass)
    print(f"{klass:<28} {len(t):>5} {pct(t, 50):8.1f} {pct(t, 99):8.1f} {max(t):8.1f}  {st} ({capped[klass]})")
# The mix's own queries (first pages) overall, and the later pages apart.
for label, later in [("overall", False), ("overall, later pages", True)]:
    every = [x for k, t in times.items() if k.endswith(", later page") == later for x in t]
    if every:
        print(f"{label:<28} {len(every):>5} {pct(every, 50):8.1f} {pct(every, 99):8.1f} {max(every):8.1f}")
if SLOWEST:
    print(f"the {SLOWEST} slowest requests (ms, class, county, query, limit, page):")
    for ms, klass, county, query, limit, page in sorted(slowest, reverse=True)[:SLOWEST]:
        print(f"  {ms:8.1f}  {klass:<16} {county:<12} {query!r} limit={limit} page={page}")
