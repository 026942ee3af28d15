-- Writes the SYNTHETIC documents [:lo, :hi) of acris.sql into datahost.records exactly as `datahost ingest deeds`
-- stores the three ACRIS tables (plugin-api/src/clerk.rs `records_of`): per table row its record, plus one
-- `terms` record per distinct search word of the document (a word already held from an earlier table keeps
-- its first record, as an unchanged re-ingest does). Record data is serde_json's text: keys sorted, compact.
-- psql variables: lo, hi, f_master, f_parties, f_legals (the ingest_files ids of the three tables).
\set ON_ERROR_STOP 1
BEGIN;
-- Instruments, then their words (document id and CRFN).
INSERT INTO datahost.records (dataset, collection, key, grp, lineage, revision, amendment, file_id, data)
SELECT 'deeds', 'instruments', k, k, NULL, '', false, :f_master,
  '{"amount":' || CASE WHEN m.amount = '' THEN 'null' ELSE m.amount || '.0' END
  || ',"county":' || to_json(c)::text || ',"coverage":' || to_json('nyc-acris|' || c)::text
  || ',"docKey":' || to_json(k)::text || ',"docType":' || to_json(t.name)::text
  || ',"docTypeCode":' || to_json(m.doc_type)::text || ',"documentId":' || to_json(m.document_id)::text
  || ',"kind":"' || t.kind || '","lienType":' || coalesce(to_json(t.lien_type)::text, 'null')
  || ',"numbers":[' || to_json(m.crfn)::text || '],"recordedDate":"'
  || to_char(to_date(m.recorded, 'MM/DD/YYYY'), 'YYYY-MM-DD')
  || '","sourceUrl":' || to_json('https://a836-acris.nyc.gov/DS/DocumentSearch/DocumentDetail?doc_id='
                                 || m.document_id)::text || '}'
FROM syn.master(:lo, :hi) AS m,
  LATERAL (SELECT 'nyc-acris:' || m.document_id AS k,
                  (ARRAY['new-york-ny','bronx-ny','kings-ny','queens-ny','richmond-ny'])[m.borough::int] AS c) x,
  LATERAL (SELECT * FROM (VALUES ('DEED', 'deed', 'DEED', NULL), ('MTGE', 'deed', 'MORTGAGE', NULL),
            ('SAT', 'deed', 'SATISFACTION OF MORTGAGE', NULL), ('FL', 'lien', 'FEDERAL LIEN-IRS', 'tax'),
            ('POA', 'other', 'POA', NULL)) AS v(code, kind, name, lien_type) WHERE v.code = m.doc_type) t
ORDER BY m.i;

CREATE TEMP TABLE syn_words (i bigint, document_id text, word text, file_id bigint) ON COMMIT DROP;
INSERT INTO syn_words SELECT i, document_id, w, :f_master FROM syn.master(:lo, :hi),
  LATERAL unnest(ARRAY[document_id, crfn]) AS w;

-- Parties, in file order, then their words.
INSERT INTO datahost.records (dataset, collection, key, grp, lineage, revision, amendment, file_id, data)
SELECT 'deeds', 'parties', k || ':party:' || p.party_type || ':' || p.name, k, NULL, '', false, :f_parties,
  '{"docKey":' || to_json(k)::text || ',"name":' || to_json(p.name)::text || ',"role":"'
  || CASE p.party_type WHEN '1' THEN 'first' WHEN '2' THEN 'second' ELSE 'other' END || '"}'
FROM syn.parties(:lo, :hi) AS p, LATERAL (SELECT 'nyc-acris:' || p.document_id AS k) x
ORDER BY p.i, p.n
ON CONFLICT (dataset, collection, key) DO NOTHING;
INSERT INTO syn_words SELECT i, document_id, w, :f_parties FROM syn.parties(:lo, :hi),
  LATERAL regexp_split_to_table(name, '[^A-Z0-9]+') AS w WHERE w <> '';

-- Parcels, then their words (street number and street name words).
INSERT INTO datahost.records (dataset, collection, key, grp, lineage, revision, amendment, file_id, data)
SELECT 'deeds', 'legals', k || ':parcel:' || parcel || ':', k, NULL, '', false, :f_legals,
  '{"address":' || to_json(l.street_number || ' ' || l.street_name)::text || ',"county":'
  || to_json((ARRAY['new-york-ny','bronx-ny','kings-ny','queens-ny','richmond-ny'])[l.borough::int])::text
  || ',"docKey":' || to_json(k)::text || ',"parcel":' || to_json(parcel)::text || '}'
FROM syn.legals(:lo, :hi) AS l,
  LATERAL (SELECT 'nyc-acris:' || l.document_id AS k,
                  'Borough ' || l.borough || ' Block ' || l.block || ' Lot ' || l.lot AS parcel) x
ORDER BY l.i;
INSERT INTO syn_words SELECT i, document_id, w, :f_legals FROM syn.legals(:lo, :hi),
  LATERAL regexp_split_to_table(street_number || ' ' || street_name, ' ') AS w;

-- One terms record per (word, document), from the first table that held the word.
INSERT INTO datahost.records (dataset, collection, key, grp, lineage, revision, amendment, file_id, data)
SELECT DISTINCT ON (word, document_id) 'deeds', 'terms', 'nyc-acris:' || word || ':' || document_id,
  'nyc-acris:' || document_id, NULL, '', false, file_id,
  '{"docKey":' || to_json('nyc-acris:' || document_id)::text || ',"term":' || to_json('nyc-acris:' || word)::text
  || '}'
FROM syn_words ORDER BY word, document_id, file_id;
COMMIT;
