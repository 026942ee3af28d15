-- The 74-query mix of tests/bench/deeds_pg.sh, :reps times, each repetition a different concrete query (the
-- response caches never answer one): per repetition r and slot s a document j is drawn from the loaded ones and
-- the query is taken from its rows. Output: class, county, query, limit (tab-separated).
-- Classes (slots): document id 8, CRFN 6, full name 12, surname 10, street address 10, street name 8,
-- lender 8, city or borough name 6, first name 6 = 74.
WITH slots(class, n) AS (VALUES ('document id', 8), ('crfn', 6), ('full name', 12), ('surname', 10),
  ('street address', 10), ('street name', 8), ('lender', 8), ('city name', 6), ('first name', 6)),
q AS (
  SELECT s.class, r, k, syn.h(r * 1000 + k, 77) % :docs AS j
  FROM slots s, generate_series(1, s.n) k, generate_series(0, :reps - 1) r
),
cities(n, name) AS (VALUES (0, 'BROOKLYN'), (1, 'QUEENS'), (2, 'BRONX'), (3, 'MANHATTAN'), (4, 'NEW YORK'),
  (5, 'RICHMOND')),
rows AS (
  SELECT q.class, q.r, q.k,
    (ARRAY['new-york-ny','bronx-ny','kings-ny','queens-ny','richmond-ny'])[1 + (m.i % 5)::int] AS county,
    CASE q.class
      WHEN 'document id' THEN m.document_id
      WHEN 'crfn' THEN m.crfn
      WHEN 'full name' THEN (SELECT name FROM syn.parties(m.i, m.i + 1) WHERE n = 1)
      WHEN 'surname' THEN split_part((SELECT name FROM syn.parties(m.i, m.i + 1) WHERE n = 1), ',', 1)
      WHEN 'first name' THEN trim(split_part((SELECT name FROM syn.parties(m.i, m.i + 1) WHERE n = 1), ',', 2))
      WHEN 'street address' THEN (SELECT street_number || ' ' || street_name FROM syn.legals(m.i, m.i + 1))
      WHEN 'street name' THEN (SELECT street_name FROM syn.legals(m.i, m.i + 1))
      WHEN 'lender' THEN syn.pick(syn.lenders(), q.j, 15)
      ELSE (SELECT name FROM cities WHERE n = q.j % 6)
    END AS query
  FROM q, syn.master(q.j, q.j + 1) m
)
-- Letter case and page size vary with the repetition, so no two requests are the same.
SELECT class, county,
  CASE r % 3 WHEN 0 THEN query WHEN 1 THEN lower(query) ELSE initcap(query) END,
  100 - (r % 40)
FROM rows ORDER BY syn.h(r * 1000 + k, 5), class;
