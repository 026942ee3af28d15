-- Index probes of the word index's shape in three collations (manual; not in CI), in a scratch database:
--   psql postgres://postgres@127.0.0.1:5432/postgres -c 'CREATE DATABASE colltest'
--   psql postgres://postgres@127.0.0.1:5432/colltest -f tests/bench/deeds_pg/collation_probes.sql
-- Needs the OS locale en_US.UTF-8 as a directory PostgreSQL reads (`localedef -i en_US -f UTF-8 --no-archive
-- en_US.UTF-8`). 4.15M rows of (dataset, word, doc) in each collation, each indexed like record_words_word_doc;
-- then 2,500 probes of one word, six rounds: compare the three Execution Times of a round. SYNTHETIC values.
\set ON_ERROR_STOP on
CREATE COLLATION IF NOT EXISTS en_us (provider = libc, locale = 'en_US.utf8');
CREATE TABLE wd (dataset text NOT NULL, word text NOT NULL, doc text NOT NULL);
INSERT INTO wd SELECT 'deeds', 'W' || (floor(power(random(), 3) * 50000))::int,
  'SYN' || lpad((g / 4)::text, 10, '0') || '-' || (g % 4) FROM generate_series(1, 4000000) g;
INSERT INTO wd SELECT 'deeds', 'BLVD', 'SYN' || lpad((g * 7)::text, 10, '0') || '-0' FROM generate_series(1, 150000) g;
CREATE TABLE wc (dataset text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL, doc text COLLATE "C" NOT NULL);
CREATE TABLE we (dataset text COLLATE en_us NOT NULL, word text COLLATE en_us NOT NULL, doc text COLLATE en_us NOT NULL);
INSERT INTO wc SELECT * FROM wd;
INSERT INTO we SELECT * FROM wd;
\timing on
CREATE INDEX wd_i ON wd (dataset, word, doc);
CREATE INDEX wc_i ON wc (dataset, word, doc);
CREATE INDEX we_i ON we (dataset, word, doc);
\timing off
VACUUM ANALYZE wd;
VACUUM ANALYZE wc;
VACUUM ANALYZE we;
CREATE TABLE probes AS SELECT doc FROM wd WHERE word = 'W1' LIMIT 2000;
INSERT INTO probes SELECT 'SYN' || lpad((g * 7)::text, 10, '0') || '-0' FROM generate_series(1, 500) g;
CREATE TABLE probesc AS SELECT doc::text COLLATE "C" AS doc FROM probes;
CREATE TABLE probese AS SELECT doc::text COLLATE en_us AS doc FROM probes;
SET max_parallel_workers_per_gather = 0;
\echo database collation, C, en_US.UTF-8: six rounds
SELECT format('EXPLAIN (ANALYZE, TIMING OFF) SELECT count(*) FROM %1$s p WHERE EXISTS (SELECT 1 FROM %2$s w '
  'WHERE w.dataset = ''deeds'' AND w.word = ''BLVD'' AND w.doc = p.doc)', t.p, t.w)
  FROM generate_series(1, 6) r, (VALUES (1, 'probes', 'wd'), (2, 'probesc', 'wc'), (3, 'probese', 'we')) t(i, p, w)
  ORDER BY r, t.i \gexec
