-- SYNTHETIC ACRIS-shaped rows for tests/bench/deeds_pg.sh: never real records (document ids `SYN...`,
-- invented names, streets and lenders). Deterministic functions of the document number, in schema `syn`, so
-- the same rows can be exported as the three ACRIS CSV tables (to check against a real `datahost ingest`) and
-- written straight into `datahost.records` in the form that ingest produces (records.sql).
-- Every vocabulary word is left unchanged by the SDK's address canonicalisation (no street suffix,
-- directional, ordinal or unit word), so the search words can be computed here as plain upper-case words.
CREATE SCHEMA IF NOT EXISTS syn;

CREATE OR REPLACE FUNCTION syn.h(i bigint, salt int) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT abs(hashint8(i * 8 + salt)::bigint) $$;

CREATE OR REPLACE FUNCTION syn.pick(words text[], i bigint, salt int) RETURNS text LANGUAGE sql IMMUTABLE
PARALLEL SAFE AS $$ SELECT words[1 + syn.h(i, salt) % array_length(words, 1)] $$;

-- 60 first names (each on ~1/25 of the person parties: broad words).
CREATE OR REPLACE FUNCTION syn.first_names() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$ SELECT ARRAY[
 'JOHN','MARY','JAMES','PATRICIA','ROBERT','JENNIFER','MICHAEL','LINDA','WILLIAM','ELIZABETH','DAVID','BARBARA',
 'RICHARD','SUSAN','JOSEPH','JESSICA','THOMAS','SARAH','CHARLES','KAREN','CHRISTOPHER','NANCY','DANIEL','LISA',
 'MATTHEW','BETTY','ANTHONY','MARGARET','MARK','SANDRA','DONALD','ASHLEY','STEVEN','KIMBERLY','PAUL','EMILY',
 'ANDREW','DONNA','JOSHUA','MICHELLE','KENNETH','DOROTHY','KEVIN','CAROL','BRIAN','AMANDA','GEORGE','MELISSA',
 'EDWARD','DEBORAH','RONALD','STEPHANIE','TIMOTHY','REBECCA','JASON','SHARON','JEFFREY','LAURA','RYAN','CYNTHIA'] $$;

-- 2,000 surnames: 40 stems x 50 endings (SYNTHetic-looking on purpose: ABELSTROM, KORVANDA...).
CREATE OR REPLACE FUNCTION syn.surnames() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
SELECT array_agg(s || e ORDER BY s, e) FROM
 unnest(ARRAY['ABEL','BRAN','CORV','DALM','ELVIR','FENN','GORM','HALV','ISEN','JORV','KORV','LUND','MARV','NORD',
  'ODEL','PELL','QUIST','RAVN','SOLV','TARV','ULVEN','VASK','WEND','YSTR','ZELL','AMBR','BELK','CARN','DORN',
  'EKBL','FROST','GUND','HOLM','INGV','JARL','KELD','LORV','MOLN','NYST','OSTR']) s,
 unnest(ARRAY['STROM','BERG','DAHL','GREN','HOLT','LUND','MARK','QVIST','SETH','TORP','VIK','ANDA','ELLO','IRIS',
  'OVAN','UMBA','ESKI','ARRO','INKA','OLLA','ERTZ','AMME','IGGS','OWAY','ENBY','ACKS','ILDE','UNDT','ERRY',
  'ALDO','IMMS','OTTE','EVIN','ASSO','URIK','ELLA','ONTI','ARSK','IDGE','UBER','ENKO','ASHI','OBEL','ERAN','IMAR',
  'ULLO','ANTE','ORRA','EZZI','ADDO']) e $$;

-- 300 street names ending in an already canonical suffix.
CREATE OR REPLACE FUNCTION syn.streets() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
SELECT array_agg(s || ' ' || x ORDER BY s, x) FROM
 unnest(ARRAY['MAPLE','CEDAR','WILLOW','LINDEN','ASPEN','BIRCH','CHESTNUT','ELM','HAZEL','HOLLY','JUNIPER','LAUREL',
  'MAGNOLIA','MULBERRY','ORCHARD','POPLAR','SPRUCE','SYCAMORE','WALNUT','ACORN','BEACON','CANAL','DEPOT','ESSEX',
  'FULTON','GARNET','HARMON','IRVING','JEROME','KNOX','LIBERTY','MADISON','NASSAU','OCEAN','PACIFIC','QUINCY',
  'RIDGE','SUMMIT','TILDEN','UTICA','VERNON','WARREN','YORK','ZENITH','ALBANY','BERGEN','CLINTON','DEKALB',
  'EMMONS','FOSTER','GATES','HALSEY','JAMAICA','KINGSTON','LEXINGTON','MONROE','NOSTRAND','OXFORD','PROSPECT',
  'RALPH']) s,
 unnest(ARRAY['ST','AVE','RD','PL','BLVD']) x $$;

-- 16 lenders (the second party of every mortgage): their words include the borough and city names.
CREATE OR REPLACE FUNCTION syn.lenders() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$ SELECT ARRAY[
 'NEW YORK COMMUNITY BANK','BROOKLYN FEDERAL SAVINGS BANK','QUEENS COUNTY SAVINGS BANK',
 'BRONX NEIGHBORHOOD CREDIT UNION','MANHATTAN MORTGAGE COMPANY','RICHMOND COUNTY SAVINGS BANK',
 'EMPIRE LENDING GROUP','HUDSON FUNDING GROUP','ATLANTIC HOME LOANS','LIBERTY MORTGAGE CORP',
 'KNICKERBOCKER SAVINGS BANK','GOTHAM CAPITAL LENDING','NEW YORK HOME FINANCE','BROOKLYN COOPERATIVE BANK',
 'METROPOLITAN SAVINGS BANK','FIVE BOROUGHS MORTGAGE TRUST'] $$;

CREATE OR REPLACE FUNCTION syn.doc_id(i bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT 'SYN' || lpad(i::text, 13, '0') $$;

-- The master (instruments) table: one row per document. ~45% deeds, 40% mortgages, 10% satisfactions, 3%
-- federal tax liens, 2% powers of attorney (stored, not served).
CREATE OR REPLACE FUNCTION syn.master(lo bigint, hi bigint) RETURNS TABLE (
  i bigint, document_id text, crfn text, borough text, doc_type text, amount text, recorded text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
SELECT i, syn.doc_id(i), '2' || lpad(i::text, 12, '0'), (1 + i % 5)::text, t,
       CASE WHEN t IN ('DEED', 'MTGE', 'FL') THEN ((1 + syn.h(i, 3) % 2000) * 1000)::text ELSE '' END,
       to_char(date '2000-01-01' + (syn.h(i, 2) % 9131)::int, 'MM/DD/YYYY')
FROM generate_series(lo, hi - 1) AS i,
     LATERAL (SELECT CASE WHEN r < 45 THEN 'DEED' WHEN r < 85 THEN 'MTGE' WHEN r < 95 THEN 'SAT'
                          WHEN r < 98 THEN 'FL' ELSE 'POA' END AS t FROM (SELECT syn.h(i, 1) % 100 AS r) x) y
$$;

-- The parties table: a grantor ("SURNAME, FIRST"), on every fourth document a second grantor, and a grantee
-- (the lender of a mortgage, else a person). `n` orders the rows of a document as the file lists them.
CREATE OR REPLACE FUNCTION syn.parties(lo bigint, hi bigint) RETURNS TABLE (
  i bigint, n int, document_id text, party_type text, name text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
SELECT m.i, p.n, m.document_id, p.party_type, p.name
FROM syn.master(lo, hi) AS m,
LATERAL (VALUES
  (1, '1', syn.pick(syn.surnames(), m.i, 11) || ', ' || syn.pick(syn.first_names(), m.i, 12)),
  (2, CASE WHEN m.i % 4 = 0 THEN '1' END,
      syn.pick(syn.surnames(), m.i, 13) || ', ' || syn.pick(syn.first_names(), m.i, 14)),
  (3, '2', CASE WHEN m.doc_type = 'MTGE' THEN syn.pick(syn.lenders(), m.i, 15)
           ELSE syn.pick(syn.surnames(), m.i, 16) || ', ' || syn.pick(syn.first_names(), m.i, 17) END)
) AS p(n, party_type, name)
WHERE p.party_type IS NOT NULL
$$;

-- The legals table: one parcel per document, with a street address.
CREATE OR REPLACE FUNCTION syn.legals(lo bigint, hi bigint) RETURNS TABLE (
  i bigint, document_id text, borough text, block text, lot text, street_number text, street_name text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
SELECT i, syn.doc_id(i), (1 + i % 5)::text, (1 + syn.h(i, 21) % 9000)::text, (1 + syn.h(i, 22) % 200)::text,
       (1 + syn.h(i, 23) % 400)::text, syn.pick(syn.streets(), i, 24)
FROM generate_series(lo, hi - 1) AS i
$$;
