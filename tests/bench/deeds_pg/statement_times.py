"""Where a word search's time goes inside PostgreSQL: parse, bind (planning, under custom plans) and execute,
summed per statement kind from the server log (manual; not in CI).

    psql postgres://postgres@127.0.0.1:5432/postgres -c "ALTER DATABASE deeds_bench SET log_min_duration_statement = 0"
    off=$(stat -c %s /var/log/postgresql/postgresql-15-main.log)
    bash tests/bench/deeds_pg.sh 2200000 10
    psql ... -c "ALTER DATABASE deeds_bench RESET log_min_duration_statement"
    python3 tests/bench/deeds_pg/statement_times.py /var/log/postgresql/postgresql-15-main.log "$off"

Kinds, by the statement's text (host/src/engine/words.rs): `rarest` (the count table and records version),
`walk` (a first page read by the count's parts), `total` (a count part), `page` (a page beside the count or after
a cursor), `other` (one-word counts, records reads, the plugin's own statements).
"""
import collections
import re
import sys

LINE = re.compile(r"duration: ([0-9.]+) ms  (parse|bind|execute) ([^:]*): (.*)")


def kind(sql: str) -> str:
    if "SELECT 'n'" in sql:
        return "walk"
    if "UNION ALL SELECT 'v'" in sql:
        return "rarest"
    if "CAST(count(*) AS TEXT), CAST(" in sql:
        return "total"
    if "w.doc" in sql:
        return "page"
    return "other"


def main() -> None:
    path, start = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0
    ms = collections.defaultdict(collections.Counter)
    runs = collections.defaultdict(collections.Counter)
    with open(path, errors="replace") as log:
        log.seek(start)
        for line in log:
            m = LINE.search(line)
            if m:
                k, phase = kind(m.group(4)), m.group(2)
                ms[k][phase] += float(m.group(1))
                runs[k][phase] += 1
    print(f"{'kind':<8} {'parses':>7} {'parse ms':>9} {'runs':>6} {'bind ms':>9} {'execute ms':>11}")
    for k in sorted(ms, key=lambda k: -ms[k]["execute"]):
        c, n = ms[k], runs[k]
        print(f"{k:<8} {n['parse']:>7} {c['parse']:>9.1f} {n['execute']:>6} {c['bind']:>9.1f} {c['execute']:>11.1f}")
    total = collections.Counter()
    for c in ms.values():
        total.update(c)
    print(f"{'all':<8} {sum(n['parse'] for n in runs.values()):>7} {total['parse']:>9.1f} "
          f"{sum(n['execute'] for n in runs.values()):>6} {total['bind']:>9.1f} {total['execute']:>11.1f}")


if __name__ == "__main__":
    main()
