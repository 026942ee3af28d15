//! Word indexes of table-backed datasets (`records.words`, see the SDK's `words` module), engine-neutral: the
//! SQL of both dialects for the derived table `record_words(dataset, word, doc, scope, facet, date, id)`, its
//! per-word document counts `record_word_counts(dataset, word, scope, facet, n)` and each document's records in
//! one row, `record_documents(dataset, doc, records)`; their refresh from the records of the documents a file
//! touched (in the file's transaction), their build from all records when missing, and the search.
//! `postgres/records.rs` and `sqlite.rs` run these statements.
//!
//! A search reads the rarest word's rows (the fewest documents in the count table) in order from `(dataset, word,
//! scope, date DESC, id, facet, doc)`, probes `(dataset, word, doc)` for every other word, and stops after one page;
//! the count reads at most `count_cap` rows of that word (a quarter of them when the count table says it is on more
//! than twice that, the total a lower bound either way: `WordSearch::examined`), and on PostgreSQL reads the other
//! words not far more common than it as sets in those rows' dates instead of probing them. So a word on every document
//! of a county costs what a rare one does. A first page of several words is the start of the matches the count finds:
//! it is read from the count's own walk (and goes on after it when the walk found too few), not by walking the same
//! documents a second time. A search's total is kept for its later pages until the dataset's records change
//! ([`KeptTotals`]): a later page walks only its page. The count table only picks the driving word, which words a
//! count reads as sets and how many of the driver's documents a count examines: every count and page a search answers
//! is read from the word rows, so a count table that drifted (an older host ingesting) costs speed (or makes an exact
//! total a lower bound), never a wrong answer.

use datahost_plugin_api::words::{DocumentRecords, WordHits, WordIndex, WordPage, WordSearch};

use crate::engine::error::EngineError;
use crate::engine::records::Dialect;

/// One statement and its text parameters (`$n` / `?n` in order).
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<String>,
}

/// The tables (created empty; the word rows' indexes come after a first build, see [`index_sql`]). Every text
/// column compares as bytes: a search's index probes compare words and documents, and under a database's
/// language collation each comparison of two different texts is a `strcoll` (see [`byte_order_sql`]).
pub fn table_sql(d: Dialect) -> String {
    let (t, c) = names(d);
    let counts = counts_table(d);
    let documents = documents_table(d);
    format!(
        "CREATE TABLE IF NOT EXISTS {t} (dataset text{c} NOT NULL, word text{c} NOT NULL, doc text{c} NOT NULL, \
         scope text{c} NOT NULL, facet text{c} NOT NULL, date text{c} NOT NULL, id text{c} NOT NULL); \
         CREATE TABLE IF NOT EXISTS {counts} (dataset text{c} NOT NULL, word text{c} NOT NULL, \
         scope text{c} NOT NULL, facet text{c} NOT NULL, n bigint NOT NULL, PRIMARY KEY (dataset, word, scope, facet)); \
         CREATE TABLE IF NOT EXISTS {documents} (dataset text{c} NOT NULL, doc text{c} NOT NULL, \
         records text{c} NOT NULL, PRIMARY KEY (dataset, doc))"
    )
}

/// PostgreSQL: the word index's text columns that do not compare as bytes yet (tables an earlier version created
/// in the database's collation), as `(table, column)` rows; [`byte_order_alter_sql`] changes them. SQLite's
/// text compares as bytes already: `None`.
pub fn byte_order_sql(d: Dialect) -> Option<Statement> {
    let Dialect::Postgres = d else { return None };
    let tables = [names(d).0, counts_table(d), documents_table(d)].map(|t| t.trim_start_matches("datahost."));
    Some(Statement {
        sql: "SELECT c.relname::text, a.attname::text FROM pg_attribute a \
              JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
              WHERE n.nspname = 'datahost' AND c.relname::text IN ($1, $2, $3) AND a.attnum > 0 \
              AND NOT a.attisdropped AND a.atttypid = 'text'::regtype \
              AND a.attcollation <> 'pg_catalog.\"C\"'::regcollation ORDER BY 1, 2"
            .into(),
        params: tables.map(String::from).to_vec(),
    })
}

/// The statements that make `columns` (rows of [`byte_order_sql`]) compare as bytes, two per table. PostgreSQL
/// keeps the table's rows (text to text) and rebuilds the indexes on those columns; it also drops the columns'
/// statistics, which the table's `ANALYZE` takes again (no row changes, so autovacuum would not).
pub fn byte_order_alter_sql(columns: &[(String, String)]) -> Vec<String> {
    let mut statements: Vec<String> = Vec::new();
    let mut tables: Vec<&str> = columns.iter().map(|(t, _)| t.as_str()).collect();
    tables.sort_unstable();
    tables.dedup();
    for table in tables {
        debug_assert!(datahost_plugin_api::query::valid_field(table));
        let alters: Vec<String> = columns
            .iter()
            .filter(|(t, _)| t == table)
            .map(|(_, column)| {
                debug_assert!(datahost_plugin_api::query::valid_field(column));
                format!("ALTER COLUMN {column} TYPE text COLLATE \"C\"")
            })
            .collect();
        statements.push(format!("ALTER TABLE datahost.{table} {}", alters.join(", ")));
        statements.push(format!("ANALYZE datahost.{table}"));
    }
    statements
}

/// The indexes: one row per word and document; a word's documents in serving order; a document's rows.
/// The serving-order index ends with `doc`, the one column a search reads from it, so the page and the count
/// are answered from the index alone (an earlier `_order` index without it fetched a table row per document
/// read: up to a thousand per count) and the earlier index is dropped once this one exists.
pub fn index_sql(d: Dialect) -> String {
    let (t, _) = names(d);
    let bare = t.trim_start_matches("datahost.");
    let schema = t.strip_suffix(bare).unwrap_or("");
    format!(
        "CREATE UNIQUE INDEX IF NOT EXISTS {bare}_word_doc ON {t} (dataset, word, doc); \
         CREATE INDEX IF NOT EXISTS {bare}_serving ON {t} (dataset, word, scope, date DESC, id, facet, doc); \
         DROP INDEX IF EXISTS {schema}{bare}_order; \
         CREATE INDEX IF NOT EXISTS {bare}_doc ON {t} (dataset, doc);"
    )
}

/// The table and the byte-order collation of its sort columns, per dialect.
fn names(d: Dialect) -> (&'static str, &'static str) {
    match d {
        Dialect::Postgres => ("datahost.record_words", " COLLATE \"C\""),
        Dialect::Sqlite => ("record_words", ""),
    }
}

/// How many documents each word is on, per dataset, scope and facet.
fn counts_table(d: Dialect) -> &'static str {
    match d {
        Dialect::Postgres => "datahost.record_word_counts",
        Dialect::Sqlite => "record_word_counts",
    }
}

/// Each document's records but its word records, in one row: a page's documents are read one row each (the
/// SDK's [`datahost_plugin_api::words::DocumentRecords`]) instead of a records query per collection, each
/// probing every document's key and reading its records where they lie in the records table.
fn documents_table(d: Dialect) -> &'static str {
    match d {
        Dialect::Postgres => "datahost.record_documents",
        Dialect::Sqlite => "record_documents",
    }
}

fn dataset_state_table(d: Dialect) -> &'static str {
    match d {
        Dialect::Postgres => "datahost.dataset_state",
        Dialect::Sqlite => "dataset_state",
    }
}

fn records_table(d: Dialect) -> &'static str {
    match d {
        Dialect::Postgres => "datahost.records",
        Dialect::Sqlite => "records",
    }
}

/// Reads a text field of a record's JSON (`alias.data`); missing or null is ''.
fn field(d: Dialect, alias: &str, f: &str) -> String {
    debug_assert!(datahost_plugin_api::query::valid_field(f));
    match d {
        Dialect::Postgres => format!("coalesce(({alias}.data::jsonb) ->> '{f}', '')"),
        Dialect::Sqlite => format!("coalesce(json_extract({alias}.data, '$.{f}'), '')"),
    }
}

/// The n-th placeholder.
fn slot(d: Dialect, n: usize) -> String {
    match d {
        Dialect::Postgres => format!("${n}"),
        Dialect::Sqlite => format!("?{n}"),
    }
}

/// The page's row count bound at slot `n`, so one statement text (one prepared statement per connection,
/// `pool.rs`) serves every `limit`. Bound as text, as every word statement's values; the cast says so in the
/// text too, so that a statement prepared without types reads the slot as text as well.
fn page_size_slot(d: Dialect, n: usize) -> String {
    match d {
        Dialect::Postgres => format!("CAST(${n}::text AS bigint)"),
        Dialect::Sqlite => format!("CAST(?{n} AS INTEGER)"),
    }
}

/// The members of a JSON array of strings bound at slot `n`.
fn json_members(d: Dialect, n: usize) -> String {
    match d {
        Dialect::Postgres => format!("(SELECT jsonb_array_elements_text(${n}::text::jsonb))"),
        Dialect::Sqlite => format!("(SELECT value FROM json_each(?{n}))"),
    }
}

/// Whether `dataset` has document records but no word rows yet: its table is then built from all records.
pub fn missing_sql(d: Dialect, dataset: &str, ix: &WordIndex) -> Statement {
    let (t, _) = names(d);
    let held = format!("{} WHERE dataset = {} AND collection = {}", records_table(d), slot(d, 1), slot(d, 2));
    held_but_missing(d, &held, t, vec![dataset.into(), ix.docs.clone()])
}

/// One row, `1` when `held` (a table and its condition) has a row and `derived` none for the dataset (`$1`),
/// else `0`: read with [`answered_yes`].
fn held_but_missing(d: Dialect, held: &str, derived: &str, params: Vec<String>) -> Statement {
    Statement {
        sql: format!(
            "SELECT CAST(CASE WHEN EXISTS (SELECT 1 FROM {held}) \
             AND NOT EXISTS (SELECT 1 FROM {derived} WHERE dataset = {}) THEN 1 ELSE 0 END AS TEXT)",
            slot(d, 1)
        ),
        params,
    }
}

/// Whether `dataset` has document records but no document rows (records an earlier version ingested): they
/// are then built from all records ([`documents_sql`] with no groups).
pub fn documents_missing_sql(d: Dialect, dataset: &str, ix: &WordIndex) -> Statement {
    let held = format!("{} WHERE dataset = {} AND collection = {}", records_table(d), slot(d, 1), slot(d, 2));
    held_but_missing(d, &held, documents_table(d), vec![dataset.into(), ix.docs.clone()])
}

/// The document rows of the groups in `groups` (a JSON array of strings), or of every group (`None`: a build):
/// deletes theirs, then writes each group's records again, every collection but the word records, as
/// `{"<collection>": [<record>, ...], ...}` with each collection's records in ingest order (`seq`), as a
/// records query reads them.
pub fn documents_sql(d: Dialect, dataset: &str, ix: &WordIndex, groups: Option<&str>) -> Vec<Statement> {
    let (r, documents) = (records_table(d), documents_table(d));
    let mut params = vec![dataset.to_string(), ix.words.clone()];
    let mut statements = Vec::new();
    let mut in_groups = String::new();
    if let Some(groups) = groups {
        statements.push(Statement {
            sql: format!("DELETE FROM {documents} WHERE dataset = {} AND doc IN {}", slot(d, 1), json_members(d, 2)),
            params: vec![dataset.to_string(), groups.to_string()],
        });
        params.push(groups.to_string());
        in_groups = format!(" AND r.grp IN {}", json_members(d, 3));
    }
    // A group's records by collection, then the collections into one object. SQLite is told the group index
    // (it plans without statistics), which also hands the records over in group order.
    let (from, rows, object) = match d {
        Dialect::Postgres => (
            format!("{r} r"),
            "json_agg(r.data::json ORDER BY r.seq)",
            "json_object_agg(g.collection, g.rows ORDER BY g.collection)::text",
        ),
        Dialect::Sqlite => (
            format!("{r} r INDEXED BY records_group"),
            "json_group_array(json(r.data) ORDER BY r.seq)",
            "json_group_object(g.collection, json(g.rows) ORDER BY g.collection)",
        ),
    };
    statements.push(Statement {
        sql: format!(
            "INSERT INTO {documents} (dataset, doc, records) SELECT g.dataset, g.grp, {object} FROM \
             (SELECT r.dataset, r.grp, r.collection, {rows} AS rows FROM {from} \
             WHERE r.dataset = {p1} AND r.collection <> {p2}{in_groups} GROUP BY r.dataset, r.grp, r.collection) g \
             GROUP BY g.dataset, g.grp",
            p1 = slot(d, 1),
            p2 = slot(d, 2),
        ),
        params,
    });
    statements
}

/// What a file's transaction runs after its records are written, for the documents it touched: their word
/// rows and counts ([`refresh_sql`]) and their document rows ([`documents_sql`]).
pub fn file_refresh_sql(
    d: Dialect,
    dataset: &str,
    ix: &WordIndex,
    batch: &datahost_plugin_api::IngestBatch,
) -> Vec<Statement> {
    let groups = touched(batch);
    let mut statements = refresh_sql(d, dataset, ix, Some(groups.clone()));
    statements.extend(documents_sql(d, dataset, ix, Some(&groups)));
    statements
}

/// Whether a [`missing_sql`] or [`counts_missing_sql`] answer says yes.
pub fn answered_yes(rows: &[Vec<String>]) -> bool {
    rows.first().and_then(|r| r.first()).is_some_and(|c| c == "1")
}

/// Whether `dataset` has word rows but no counts (a word index an earlier version built): they are then counted
/// from the word rows ([`counts_build_sql`]).
pub fn counts_missing_sql(d: Dialect, dataset: &str) -> Statement {
    let (t, _) = names(d);
    let held = format!("{t} WHERE dataset = {}", slot(d, 1));
    held_but_missing(d, &held, counts_table(d), vec![dataset.into()])
}

/// Counts every word row of `dataset` again.
pub fn counts_build_sql(d: Dialect, dataset: &str) -> Vec<Statement> {
    let clear = Statement {
        sql: format!("DELETE FROM {} WHERE dataset = {}", counts_table(d), slot(d, 1)),
        params: vec![dataset.into()],
    };
    vec![clear, counts_delta_sql(d, dataset, None, "")]
}

/// Adds (`sign` "") or takes away (`sign` "-") the word rows of the documents in `groups` (all of the dataset's
/// with `None`) to or from the counts. Ingest holds the dataset's lock, so no two refreshes of one dataset race.
fn counts_delta_sql(d: Dialect, dataset: &str, groups: Option<&str>, sign: &str) -> Statement {
    let (t, _) = names(d);
    let mut params = vec![dataset.to_string()];
    let docs = match groups {
        Some(groups) => {
            params.push(groups.to_string());
            format!(" AND doc IN {}", json_members(d, 2))
        }
        None => String::new(),
    };
    Statement {
        sql: format!(
            "INSERT INTO {c} AS c (dataset, word, scope, facet, n) \
             SELECT dataset, word, scope, facet, {sign}count(*) FROM {t} WHERE dataset = {p1}{docs} \
             GROUP BY dataset, word, scope, facet \
             ON CONFLICT (dataset, word, scope, facet) DO UPDATE SET n = c.n + excluded.n",
            c = counts_table(d),
            p1 = slot(d, 1),
        ),
        params,
    }
}

/// The rows of the documents whose groups are in `groups` (a JSON array of strings), or of every document
/// (`None`: a build, whose counts come after from [`counts_build_sql`]): deletes theirs, then derives them again
/// from the records held now, and keeps the counts.
pub fn refresh_sql(d: Dialect, dataset: &str, ix: &WordIndex, groups: Option<String>) -> Vec<Statement> {
    let (t, _) = names(d);
    let r = records_table(d);
    let facet = ix.facet_fields.iter().map(|f| field(d, "i", f)).collect::<Vec<_>>().join(" || '|' || ");
    let mut params = vec![dataset.to_string(), ix.docs.clone(), ix.words.clone()];
    let (scope_docs, delete, count) = match groups {
        Some(groups) => {
            params.push(groups.clone());
            let delete = Statement {
                sql: format!("DELETE FROM {t} WHERE dataset = {} AND doc IN {}", slot(d, 1), json_members(d, 2)),
                params: vec![dataset.to_string(), groups.clone()],
            };
            (
                format!(" AND i.grp IN {}", json_members(d, 4)),
                vec![counts_delta_sql(d, dataset, Some(&groups), "-"), delete],
                vec![counts_delta_sql(d, dataset, Some(&groups), "")],
            )
        }
        None => (String::new(), Vec::new(), Vec::new()),
    };
    let word = match d {
        Dialect::Postgres => format!("((t.data::jsonb) ->> '{}')", ix.word_field),
        Dialect::Sqlite => format!("json_extract(t.data, '$.{}')", ix.word_field),
    };
    // The documents' records, then each one's word records, both by group. SQLite plans without statistics and
    // took the declared `(dataset, collection, term)` index for both sides: every document against every word
    // record, unfinished after 10 minutes for a 50,000-document file. It never reorders a CROSS JOIN, and
    // INDEXED BY names the index. (PostgreSQL plans this well once its statistics are current: see
    // `postgres/records.rs`.)
    let join = match d {
        Dialect::Postgres => format!("{r} i JOIN {r} t ON t.dataset = i.dataset AND t.grp = i.grp"),
        Dialect::Sqlite => format!(
            "{r} i INDEXED BY records_group CROSS JOIN {r} t INDEXED BY records_group \
             ON t.dataset = i.dataset AND t.grp = i.grp"
        ),
    };
    let insert = Statement {
        sql: format!(
            "INSERT INTO {t} (dataset, word, doc, scope, facet, date, id) \
             SELECT i.dataset, {word}, i.grp, {scope}, {facet}, {date}, {id} \
             FROM {join} AND t.collection = {p3} \
             WHERE i.dataset = {p1} AND i.collection = {p2}{scope_docs} AND {word} IS NOT NULL",
            scope = field(d, "i", &ix.scope_field),
            date = field(d, "i", &ix.date_field),
            id = field(d, "i", &ix.id_field),
            p1 = slot(d, 1),
            p2 = slot(d, 2),
            p3 = slot(d, 3),
        ),
        params,
    };
    delete.into_iter().chain([insert]).chain(count).collect()
}

/// The documents a file touched: the distinct groups of its records, as a JSON array for [`refresh_sql`].
pub fn touched(batch: &datahost_plugin_api::IngestBatch) -> String {
    let groups: std::collections::BTreeSet<&str> = batch.records.iter().map(|r| r.group.as_str()).collect();
    serde_json::to_string(&groups).unwrap_or_else(|_| "[]".into())
}

/// The driving conditions of a search on `word` (slot `word_slot`): dataset `$1`, scope `$2`, the facets
/// from slot 3 on.
fn driving(d: Dialect, q: &WordSearch, word_slot: usize) -> String {
    let facets: Vec<String> = (0..q.facets.len()).map(|i| slot(d, 3 + i)).collect();
    format!(
        "w.dataset = {} AND w.word = {} AND w.scope = {} AND w.facet IN ({})",
        slot(d, 1),
        slot(d, word_slot),
        slot(d, 2),
        facets.join(", ")
    )
}

fn base_params(q: &WordSearch) -> Vec<String> {
    [q.dataset.clone(), q.scope.clone()].into_iter().chain(q.facets.iter().cloned()).collect()
}

/// How many documents each word is on in the search's scope and facets, from the count table: one row
/// `(position, n)` per word, and one `('v', version)` with the dataset's records version, which moves in the
/// transaction of every file that changes its records (and so its word rows): the key of a kept total
/// ([`KeptTotals`]).
pub fn rarest_sql(d: Dialect, q: &WordSearch) -> Statement {
    let mut params = base_params(q);
    let facets: Vec<String> = (0..q.facets.len()).map(|i| slot(d, 3 + i)).collect();
    let parts: Vec<String> = q
        .words
        .iter()
        .enumerate()
        .map(|(i, word)| {
            params.push(word.clone());
            format!(
                "SELECT CAST({i} AS TEXT), CAST(coalesce((SELECT sum(c.n) FROM {} c WHERE c.dataset = {} \
                 AND c.word = {} AND c.scope = {} AND c.facet IN ({})), 0) AS TEXT)",
                counts_table(d),
                slot(d, 1),
                slot(d, params.len()),
                slot(d, 2),
                facets.join(", ")
            )
        })
        .collect();
    let version = format!(
        "SELECT 'v', CAST(coalesce((SELECT s.version FROM {} s WHERE s.dataset = {}), 0) AS TEXT)",
        dataset_state_table(d),
        slot(d, 1)
    );
    Statement { sql: format!("{} UNION ALL {version}", parts.join(" UNION ALL ")), params }
}

/// The documents the driver word is on in the search's scope and facets, counted from its rows up to `cap + 1`.
fn driven_sql(d: Dialect, q: &WordSearch, word_slot: usize, cap: usize) -> String {
    let (t, _) = names(d);
    format!("(SELECT count(*) FROM (SELECT 1 FROM {t} w WHERE {} LIMIT {}) x)", driving(d, q, word_slot), cap + 1)
}

/// A one-word search's count: one row, the documents of the word counted up to `count_cap + 1`.
pub fn one_word_sql(d: Dialect, q: &WordSearch) -> Statement {
    let (_, cap) = q.bounds();
    let mut params = base_params(q);
    params.push(q.words[0].clone());
    Statement { sql: format!("SELECT CAST({} AS TEXT)", driven_sql(d, q, params.len(), cap)), params }
}

/// `w.doc` holds every word but the driver (`others`): one indexed probe per word and document walked, in the
/// order given, a document dropped at the first probe it fails.
///
/// On PostgreSQL each probe is fenced with `OFFSET 0`, which keeps the `EXISTS` a per-row check instead of a
/// semi-join. The planner takes words as independent, so for words that mostly come together (a lender's name,
/// a street) it expects a handful of matches, joins every document of every word as sets and sorts them: 35-50 ms
/// for a 4-word lender where the walk in serving order stops after one page in 2 ms (measured on 1M documents).
/// Two probes or more are a `CASE`, which is evaluated in order: of `EXISTS` checks joined by `AND` PostgreSQL
/// runs the one it costs least first, the most common word's (most likely to find a row at once), which drops
/// the fewest documents (`337 DEPOT ST`: `ST` probed for all 500 documents of a count part, `DEPOT` for the 90
/// left, against `DEPOT` for 500 and `ST` for 10 in order: 20% less time in the part, BENCHMARKS.md).
fn holds_others(d: Dialect, params: &mut Vec<String>, others: &[&String]) -> String {
    probes_of(d, params, others).map(|probes| format!(" AND {probes}")).unwrap_or_default()
}

/// The condition [`holds_others`] adds, or `None` when there is no other word.
fn probes_of(d: Dialect, params: &mut Vec<String>, others: &[&String]) -> Option<String> {
    let (t, _) = names(d);
    let fence = match d {
        Dialect::Postgres => " OFFSET 0",
        Dialect::Sqlite => "",
    };
    let mut probes: Vec<String> = others
        .iter()
        .map(|word| {
            params.push((*word).clone());
            format!(
                "EXISTS (SELECT 1 FROM {t} x WHERE x.dataset = {} AND x.word = {} AND x.doc = w.doc{fence})",
                slot(d, 1),
                slot(d, params.len())
            )
        })
        .collect();
    let last = probes.pop()?;
    if probes.is_empty() {
        return Some(last);
    }
    let failing: String = probes.iter().map(|p| format!(" WHEN NOT {p} THEN false")).collect();
    Some(format!("CASE{failing} ELSE {last} END"))
}

/// `q`'s words in ascending order of the documents they are on by the count table (`on`, ties in the order
/// given), and those counts in the same order: the first drives ([`search`]), and the others are probed rarest
/// first ([`holds_others`]).
fn by_rarity(q: &WordSearch, on: &[usize]) -> (WordSearch, Vec<usize>) {
    let mut order: Vec<usize> = (0..q.words.len()).collect();
    order.sort_by_key(|&i| (on.get(i).copied().unwrap_or(0), i));
    let words = order.iter().map(|&i| q.words[i].clone()).collect();
    let on = order.iter().map(|&i| on.get(i).copied().unwrap_or(0)).collect();
    (WordSearch { words, ..q.clone() }, on)
}

/// How many statements the count of a search of more than one word is split into, each counting its share of
/// the driver's first `count_cap` documents. That count probes every other word for each of those documents,
/// most of such a search's time (about 5 us a probe on PostgreSQL: 15 ms for three other words); PostgreSQL runs
/// the parts at once on connections of its pool. The embedded engine, one connection, counts in one statement.
fn count_parts(d: Dialect) -> usize {
    match d {
        Dialect::Postgres => 2,
        Dialect::Sqlite => 1,
    }
}

/// The most statements one word search gives to run at once: a page beside the count's parts, or a first page's
/// walk in the count's parts. A serving host on PostgreSQL opens that many connections ahead of its first requests
/// ([`super::Engine::warm`]).
pub fn statements_at_once(d: Dialect) -> usize {
    count_parts(d) + 1
}

/// A count reads an other word's rows in the dates of the driver's documents it counts, as one set, instead of
/// probing the word for each document, when the word is on at most this many times the driver's documents (by
/// the count table). Its rows of a document carry that document's scope and date, so they lie in that range; a
/// range holds about this ratio times the driver's documents, read in order from the serving index at about an
/// eighth of a probe's cost each (PostgreSQL, 1M documents: about 1 us an entry, 9 us a probe; BENCHMARKS.md).
/// Words more common than that (a county's name) are still probed, on the documents left after the sets. None on
/// the embedded engine, whose probes are calls into an in-process B-tree (not measured there).
fn range_read_ratio(d: Dialect) -> usize {
    match d {
        Dialect::Postgres => 4,
        Dialect::Sqlite => 0,
    }
}

/// Which words of a search its count reads as sets ([`range_read_ratio`]), from each word's documents in the
/// count table (`on[i]` for word `i`): every word but the driver on at most the ratio times its documents.
fn read_as_sets(d: Dialect, driver: usize, on: &[usize]) -> Vec<bool> {
    let ratio = range_read_ratio(d);
    let bound = on.get(driver).copied().unwrap_or(0).max(1).saturating_mul(ratio);
    (0..on.len()).map(|i| i != driver && ratio > 0 && on[i] <= bound).collect()
}

/// The matches among part `part` of `parts` of the driver word's first `count_cap` documents, and (in the first
/// part only; 0 in the others) the driver's documents counted up to `count_cap + 1`: one row `(matches, driven)`.
/// The other words in `as_sets` are read as the sets of their rows in the dates of the part's documents and
/// intersected with them; the rest are probed per document left.
pub fn total_sql(d: Dialect, q: &WordSearch, driver: usize, as_sets: &[bool], part: usize, parts: usize) -> Statement {
    let mut part = Part::new(d, q, driver, as_sets, part, parts, "w.doc, w.date");
    let holds = part.holds();
    let (driven, docs) = (&part.driven, &part.docs);
    if part.sets.is_empty() {
        return Statement {
            sql: format!("SELECT CAST(count(*) AS TEXT), CAST({driven} AS TEXT) FROM ({docs}) w WHERE true{holds}"),
            params: part.params,
        };
    }
    Statement {
        sql: format!(
            "WITH p AS MATERIALIZED ({docs}) SELECT CAST(count(*) AS TEXT), CAST({driven} AS TEXT) \
             FROM (SELECT p.doc FROM p{}) w WHERE true{holds}",
            part.sets.iter().map(|set| format!(" INTERSECT {set}")).collect::<String>()
        ),
        params: part.params,
    }
}

/// A first page (no cursor) of a search of more than one word and its count in one walk: part `part` of `parts`
/// of the driver's first `count_cap` documents, as [`total_sql`] counts them, with the first `limit + 1` of the
/// part's matches. The page is a prefix of the matches the count walks, in the same order, so walking the driver
/// once more for it would read the same documents twice. Rows: one header `('n', matches, driven, documents
/// walked, last date walked, last id walked)` (driven in the first part only, as in [`total_sql`]), and one
/// `('d', doc, date, id, records, '')` per match of the page's share, records '' unless `with_records` (or the
/// document has no row). The records are read for the share only, after it is cut: joined before the cut, a
/// lender's walk read a document row for each of its 500 matches (BENCHMARKS.md).
pub fn walk_sql(
    d: Dialect,
    q: &WordSearch,
    driver: usize,
    as_sets: &[bool],
    (part, parts): (usize, usize),
    with_records: bool,
) -> Statement {
    let (limit, _) = q.bounds();
    let mut part = Part::new(d, q, driver, as_sets, part, parts, "w.doc, w.date, w.id");
    // The words read as sets are one membership test in a `CASE`, before the probes: PostgreSQL hashes the set
    // once (a hashed SubPlan) and the probes run only on the documents in it. A set joined to the part's
    // documents instead is sized from a date range known only at run time (PostgreSQL's default 0.5%: 9 rows for
    // a lender's 978 at 200,000 documents), and the planner joined it by a nested loop comparing every pair
    // (124,750 comparisons, 19 of a part's 26 ms; BENCHMARKS.md). Inside a `CASE` the test is never turned into a
    // join; the same default estimate keeps the hashed set far under `work_mem`.
    let probes = part.probes();
    let holds = if part.sets.is_empty() {
        probes.map(|probes| format!(" AND {probes}")).unwrap_or_default()
    } else {
        let (sets, probes) = (part.sets.join(" INTERSECT "), probes.unwrap_or_else(|| "true".into()));
        format!(" AND CASE WHEN w.doc IN ({sets}) THEN {probes} ELSE false END")
    };
    let (records, documents) = match with_records {
        true => (
            "coalesce(r.records, '')".to_string(),
            format!(" LEFT JOIN {} r ON r.dataset = {} AND r.doc = m.doc", documents_table(d), slot(d, 1)),
        ),
        false => ("''".to_string(), String::new()),
    };
    part.params.push((limit + 1).to_string());
    let page = page_size_slot(d, part.params.len());
    let last = |column: &str| format!("coalesce((SELECT p.{column} FROM p ORDER BY p.date, p.id DESC LIMIT 1), '')");
    let materialized = match d {
        Dialect::Postgres => " MATERIALIZED",
        Dialect::Sqlite => "",
    };
    Statement {
        sql: format!(
            "WITH p AS{materialized} ({docs}), m AS{materialized} (SELECT w.doc, w.date, w.id FROM p w \
             WHERE true{holds}) \
             SELECT 'n', CAST((SELECT count(*) FROM m) AS TEXT), CAST({driven} AS TEXT), \
             CAST((SELECT count(*) FROM p) AS TEXT), {last_date}, {last_id} \
             UNION ALL SELECT 'd', m.doc, m.date, m.id, {records}, '' FROM \
             (SELECT m.doc, m.date, m.id FROM m ORDER BY m.date DESC, m.id LIMIT {page}) m{documents}",
            docs = part.docs,
            driven = part.driven,
            last_date = last("date"),
            last_id = last("id"),
        ),
        params: part.params,
    }
}

/// What [`total_sql`] and [`walk_sql`] share: their part of the driver's first `count_cap` documents and how its
/// matches are found.
struct Part<'q> {
    d: Dialect,
    /// The parameters so far: the base ones, the driver word, then the words read as sets.
    params: Vec<String>,
    /// The part's documents of the driver in serving order (`columns` of each).
    docs: String,
    /// The driver's documents counted up to `count_cap + 1` (the first part), or `0`.
    driven: String,
    /// One `SELECT x.doc ...` per word read as a set: its rows in the dates of `p` (the part's documents).
    sets: Vec<String>,
    /// The other words probed per document.
    probed: Vec<&'q String>,
}

impl<'q> Part<'q> {
    fn new(
        d: Dialect,
        q: &'q WordSearch,
        driver: usize,
        as_sets: &[bool],
        part: usize,
        parts: usize,
        columns: &str,
    ) -> Self {
        let (t, _) = names(d);
        let (_, cap) = q.bounds();
        let (from, to) = (cap * part / parts, cap * (part + 1) / parts);
        let mut params = base_params(q);
        params.push(q.words[driver].clone());
        let drive = driving(d, q, params.len());
        let driven = if part == 0 { driven_sql(d, q, params.len(), cap) } else { "0".into() };
        let offset = if from > 0 { format!(" OFFSET {from}") } else { String::new() };
        let others = |sets: bool| -> Vec<&'q String> {
            let other = |i: &usize| *i != driver && as_sets.get(*i).copied().unwrap_or(false) == sets;
            q.words.iter().enumerate().filter(|(i, _)| other(i)).map(|(_, w)| w).collect()
        };
        let (sets, probed) = (others(true), others(false));
        let docs =
            format!("SELECT {columns} FROM {t} w WHERE {drive} ORDER BY w.date DESC, w.id LIMIT {}{offset}", to - from);
        let sets = sets
            .iter()
            .map(|word| {
                params.push((*word).clone());
                format!(
                    "SELECT x.doc FROM {t} x WHERE x.dataset = {} AND x.word = {} AND x.scope = {} \
                     AND x.date >= (SELECT min(p.date) FROM p) AND x.date <= (SELECT max(p.date) FROM p)",
                    slot(d, 1),
                    slot(d, params.len()),
                    slot(d, 2)
                )
            })
            .collect();
        Part { d, params, docs, driven, sets, probed }
    }

    /// The probes of the other words not read as sets, on `w.doc` (their parameters pushed).
    fn holds(&mut self) -> String {
        holds_others(self.d, &mut self.params, &self.probed)
    }

    /// The probes' condition alone ([`probes_of`]), or `None` when no word is probed.
    fn probes(&mut self) -> Option<String> {
        probes_of(self.d, &mut self.params, &self.probed)
    }
}

/// One page of matches after the cursor, plus one: rows `(doc)` in serving order, or `(doc, records)` with
/// `with_records`, each document's row of [`documents_sql`] read with it ('' for a document without one).
pub fn page_sql(d: Dialect, q: &WordSearch, driver: usize, with_records: bool) -> Statement {
    let (t, _) = names(d);
    let (limit, _) = q.bounds();
    let mut params = base_params(q);
    params.push(q.words[driver].clone());
    let drive = driving(d, q, params.len());
    let after = match &q.after {
        None => String::new(),
        Some((date, id)) => {
            params.push(date.clone());
            params.push(id.clone());
            let (a, b) = (slot(d, params.len() - 1), slot(d, params.len()));
            format!(" AND w.date <= {a} AND (w.date < {a} OR w.id > {b})")
        }
    };
    let others: Vec<&String> = q.words.iter().enumerate().filter(|(i, _)| *i != driver).map(|(_, w)| w).collect();
    let holds = holds_others(d, &mut params, &others);
    params.push((limit + 1).to_string());
    let order = format!("ORDER BY w.date DESC, w.id LIMIT {}", page_size_slot(d, params.len()));
    if !with_records {
        return Statement { sql: format!("SELECT w.doc FROM {t} w WHERE {drive}{after}{holds} {order}"), params };
    }
    // The page first (the same walk), then one primary-key read per document of the page.
    let materialized = match d {
        Dialect::Postgres => " MATERIALIZED",
        Dialect::Sqlite => "",
    };
    Statement {
        sql: format!(
            "WITH p AS{materialized} (SELECT w.doc, w.date, w.id FROM {t} w WHERE {drive}{after}{holds} {order}) \
             SELECT p.doc, r.records FROM p LEFT JOIN {documents} r ON r.dataset = {p1} AND r.doc = p.doc \
             ORDER BY p.date DESC, p.id",
            documents = documents_table(d),
            p1 = slot(d, 1),
        ),
        params,
    }
}

/// The rows of one statement, each cell as text.
pub type Rows = Vec<Vec<String>>;

/// Runs a search with `run`, which answers the rows of each statement it is given, in order; statements given
/// together do not depend on each other, so an engine may run them at once. The driving word is picked from
/// the count table (more than one word); then the driver's matches and documents are counted while one page
/// is read, with each document's records when `with_records` (none at all if a document of the page has no
/// document row: the plugin then reads them with records queries). A first page of more than one word is read
/// by the count's own walk ([`first_page`]); any other page walks on its own beside the count, or alone when the
/// search's total is kept.
pub fn search(
    d: Dialect,
    q: &WordSearch,
    with_records: bool,
    kept: &KeptTotals,
    mut run: impl FnMut(&[Statement]) -> Result<Vec<Rows>, EngineError>,
) -> Result<WordPage, EngineError> {
    // Each word's documents in the count table and the records version (more than one word).
    let (mut on, mut version) = (Vec::new(), 0);
    match q.words.len() {
        0 => return Ok(WordPage::default()),
        1 => {}
        n => {
            on = vec![0; n];
            for r in one(run(&[rarest_sql(d, q)])?) {
                if r.first().is_some_and(|c| c == "v") {
                    version = count_cell(r.get(1))?;
                    continue;
                }
                let (i, count) = (count_cell(r.first())?, table_count_cell(r.get(1))?);
                if let Some(slot) = on.get_mut(i) {
                    *slot = count;
                }
            }
        }
    }
    // The word on the fewest documents (ties: the first) drives: the first of the words by rarity, whose others are
    // probed rarest first. A kept total is the search's as asked (`q`), whatever the order.
    let (ordered, on) = by_rarity(q, &on);
    let driver = 0;
    // A driver on more than the cap (by the count table) leaves the total a lower bound whatever the count walks; on
    // more than twice the cap (the SDK's `SHARE_BEYOND`) the count walks a share of it (`WordSearch::examined`):
    // every count and walk below reads that cap.
    let cap = ordered.examined(on[driver]);
    let ordered = WordSearch { count_cap: cap, ..ordered };
    if q.words.len() > 1 && q.after.is_none() {
        let (page, total) = first_page(d, &ordered, driver, &on, with_records, run)?;
        kept.keep(q, version, total);
        return Ok(page);
    }
    if let Some(total) = (q.words.len() > 1).then(|| kept.get(q, version)).flatten() {
        if total.none {
            return Ok(WordPage::default());
        }
        let page = one(run(&[page_sql(d, &ordered, driver, with_records)])?);
        return Ok(word_page(page.into_iter().map(page_row), with_records, total.total, total.lower_bound));
    }
    let mut statements = vec![page_sql(d, &ordered, driver, with_records)];
    if q.words.len() == 1 {
        statements.push(one_word_sql(d, q));
    } else {
        let (parts, as_sets) = (count_parts(d), read_as_sets(d, driver, &on));
        statements.extend((0..parts).map(|part| total_sql(d, &ordered, driver, &as_sets, part, parts)));
    }
    let mut answers = run(&statements)?.into_iter();
    let page = answers.next().unwrap_or_default();
    let counted: Vec<Rows> = answers.collect();
    let cell = |rows: &Rows, i: usize| count_cell(rows.first().and_then(|r| r.get(i)));
    let driven = match counted.first() {
        Some(first) => cell(first, if q.words.len() == 1 { 0 } else { 1 })?,
        None => 0,
    };
    let total = if q.words.len() == 1 {
        driven.min(cap)
    } else {
        counted.iter().map(|rows| cell(rows, 0)).sum::<Result<usize, EngineError>>()?
    };
    if q.words.len() > 1 {
        kept.keep(q, version, Total::counted(total, driven, cap));
    }
    if driven == 0 {
        return Ok(WordPage::default());
    }
    Ok(word_page(page.into_iter().map(page_row), with_records, total, driven > cap))
}

/// What a count of more than one word found: kept by [`KeptTotals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Total {
    total: usize,
    /// The driver is on more than `count_cap` documents: `total` is a lower bound.
    lower_bound: bool,
    /// The driver is on no document: every page is empty.
    none: bool,
}

impl Total {
    /// `total` matches among the driver's documents counted up to `cap + 1` (`driven`).
    fn counted(total: usize, driven: usize, cap: usize) -> Self {
        Self { total, lower_bound: driven > cap, none: driven == 0 }
    }
}

/// The totals of searches of more than one word counted before, by search (its words in order, dataset, index,
/// scope, facets and cap: not its page) and the dataset's records version read with the count table
/// ([`rarest_sql`]). The count walks the driver's first `count_cap` documents and probes the other words on
/// each, the same work and the same answer for every page of a search; with the total kept, a later page (or
/// the same search with another page size) walks only its page. A version moves in the transaction of every
/// file that changes the dataset's records, so a total is never kept across a change of the word rows it
/// counted. In memory, per host, bounded ([`KeptTotals::CAPACITY`]).
pub struct KeptTotals(quick_cache::sync::Cache<(WordSearch, usize), Total>);

impl Default for KeptTotals {
    fn default() -> Self {
        Self(quick_cache::sync::Cache::new(Self::CAPACITY))
    }
}

impl KeptTotals {
    /// Searches whose totals are kept at most (a key is a few hundred bytes: about a megabyte in all).
    pub const CAPACITY: usize = 4096;

    /// The search a total is kept for: `q` without its page.
    fn key(q: &WordSearch, version: usize) -> (WordSearch, usize) {
        let (_, cap) = q.bounds();
        (WordSearch { after: None, limit: 0, count_cap: cap, ..q.clone() }, version)
    }

    fn get(&self, q: &WordSearch, version: usize) -> Option<Total> {
        self.0.get(&Self::key(q, version))
    }

    fn keep(&self, q: &WordSearch, version: usize, total: Total) {
        self.0.insert(Self::key(q, version), total);
    }
}

/// A row of [`page_sql`] as `(doc, records)`, records '' when not read.
fn page_row(row: Vec<String>) -> (String, String) {
    let mut cells = row.into_iter();
    (cells.next().unwrap_or_default(), cells.next().unwrap_or_default())
}

/// The first page of a search of more than one word, read with its count by the count's parts ([`walk_sql`]).
/// When the driver is on more than `count_cap` documents and those held fewer matches than the page, the page
/// goes on from the last document the count walked, as a later page would ([`page_sql`]).
///
/// Every driver takes this way: a page walked beside the count would walk again the documents the count's parts
/// walk (a street name whose first word is on far more than the cap: such a page probed 497 of the driver's
/// documents, the parts the first 250 of them). Before counts of such a driver examined a share of the cap (the SDK's
/// `SHARE_BEYOND`), the walk read all `count_cap` documents before a lender's page could be answered, and lenders
/// answered slower this way (10M rows: 8.6-9.6 -> 10.4-12.9 ms at p50); now the walk reads that share. The mix
/// at 10M rows reads 4.7% fewer buffers this way, its latency the same within the runs' spread (a lender's later part
/// reads records for matches the first part's already fill the page with; BENCHMARKS.md, stop 68).
fn first_page(
    d: Dialect,
    q: &WordSearch,
    driver: usize,
    on: &[usize],
    with_records: bool,
    mut run: impl FnMut(&[Statement]) -> Result<Vec<Rows>, EngineError>,
) -> Result<(WordPage, Total), EngineError> {
    let (limit, cap) = q.bounds();
    let (parts, as_sets) = (count_parts(d), read_as_sets(d, driver, on));
    let statements: Vec<Statement> =
        (0..parts).map(|part| walk_sql(d, q, driver, &as_sets, (part, parts), with_records)).collect();
    let (mut total, mut driven, mut last) = (0, 0, None);
    // (date, id, doc, records) of the matches the parts return.
    let mut found: Vec<(String, String, String, String)> = Vec::new();
    for (part, rows) in run(&statements)?.into_iter().enumerate() {
        for row in rows {
            let mut cells = row.into_iter();
            let kind = cells.next().unwrap_or_default();
            let mut cell = || cells.next().unwrap_or_default();
            match kind.as_str() {
                "n" => {
                    let (matches, counted, walked) = (cell(), cell(), cell());
                    total += count_cell(Some(&matches))?;
                    if part == 0 {
                        driven = count_cell(Some(&counted))?;
                    }
                    // The parts walk the driver's documents in order: the last that walked any ends the walk.
                    if count_cell(Some(&walked))? > 0 {
                        last = Some((cell(), cell()));
                    }
                }
                "d" => {
                    let (doc, date, id, records) = (cell(), cell(), cell(), cell());
                    found.push((date, id, doc, records));
                }
                _ => return Err(EngineError::Corrupt(format!("a word search answered a row of kind `{kind}`"))),
            }
        }
    }
    let counted = Total::counted(total, driven, cap);
    if driven == 0 {
        return Ok((WordPage::default(), counted));
    }
    // Serving order: newest date first, then id, both compared as bytes (the engines' byte-order collation).
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found.truncate(limit + 1);
    let mut page: Vec<(String, String)> = found.into_iter().map(|(_, _, doc, records)| (doc, records)).collect();
    if page.len() <= limit && driven > cap {
        if let Some(after) = last {
            let rest = WordSearch { after: Some(after), limit: limit - page.len(), ..q.clone() };
            page.extend(one(run(&[page_sql(d, &rest, driver, with_records)])?).into_iter().map(page_row));
            page.truncate(limit + 1);
        }
    }
    Ok((word_page(page.into_iter(), with_records, total, driven > cap), counted))
}

/// A page of `(doc, records)` in order: the records only when `with_records` and every document of the page has
/// its row that reads (a document row that is missing ('') or does not read leaves the whole page's records
/// unread: the plugin then reads them with records queries).
fn word_page(
    page: impl ExactSizeIterator<Item = (String, String)>,
    with_records: bool,
    total: usize,
    total_is_lower_bound: bool,
) -> WordPage {
    let mut docs = Vec::with_capacity(page.len());
    let mut records = Vec::with_capacity(if with_records { page.len() } else { 0 });
    for (doc, held) in page {
        docs.push(doc);
        if with_records {
            records.extend(Some(held).filter(|r| !r.is_empty()).and_then(DocumentRecords::from_json));
        }
    }
    if records.len() != docs.len() {
        records.clear();
    }
    WordPage { hits: WordHits { docs, total, total_is_lower_bound }, records }
}

/// The rows of the one statement run.
fn one(answers: Vec<Rows>) -> Rows {
    answers.into_iter().next().unwrap_or_default()
}

/// A count the engine answered, as text: none is 0; text that is not a count is an error, never a 0 that would
/// pick the wrong driving word or total.
fn count_cell(cell: Option<&String>) -> Result<usize, EngineError> {
    cell.map_or(Ok(0), |c| {
        c.parse().map_err(|_| EngineError::Corrupt(format!("a word search count is `{c}`, not a whole number")))
    })
}

/// A count from the count table: below zero only if it drifted (an older host ingested without keeping it),
/// which makes that word drive, nothing worse.
fn table_count_cell(cell: Option<&String>) -> Result<usize, EngineError> {
    match cell.map(|c| c.parse::<i64>()) {
        Some(Ok(n)) => Ok(usize::try_from(n).unwrap_or(0)),
        _ => count_cell(cell),
    }
}

#[cfg(test)]
mod tests {
    use datahost_plugin_api::query::{RecordIndex, RecordsQuery};
    use datahost_plugin_api::words::{search_in, WordIndex, WordSearch};
    use datahost_plugin_api::{IngestBatch, IngestRecord};
    use serde_json::{json, Value};

    use crate::engine::Engine;

    #[test]
    fn a_count_that_is_not_a_number_is_an_error_not_zero() {
        assert_eq!(super::count_cell(None).unwrap(), 0);
        assert_eq!(super::count_cell(Some(&"12".to_string())).unwrap(), 12);
        let err = super::count_cell(Some(&"many".to_string())).unwrap_err();
        assert_eq!(err.to_string(), "a word search count is `many`, not a whole number");
        // A count table that drifted below zero still picks a driver; text is still an error.
        assert_eq!(super::table_count_cell(Some(&"-3".to_string())).unwrap(), 0);
        assert_eq!(super::table_count_cell(Some(&"7".to_string())).unwrap(), 7);
        assert!(super::table_count_cell(Some(&"many".to_string())).is_err());
    }

    #[test]
    fn the_rarest_word_drives_and_the_others_are_probed_rarest_first_in_that_order() {
        use crate::engine::records::Dialect;
        let q = WordSearch { words: vec!["A".into(), "B".into(), "C".into(), "D".into()], ..search("A") };
        // Ties keep the order given (B before D).
        let (ordered, on) = super::by_rarity(&q, &[40, 8, 3, 8]);
        assert_eq!((ordered.words, on), (vec!["C".to_string(), "B".into(), "D".into(), "A".into()], vec![3, 8, 8, 40]));
        let (b, d, a) = ("B".to_string(), "D".to_string(), "A".to_string());
        for dialect in [Dialect::Postgres, Dialect::Sqlite] {
            let mut params = Vec::new();
            let holds = super::holds_others(dialect, &mut params, &[&b, &d, &a]);
            assert_eq!(params, ["B", "D", "A"]);
            // A CASE runs its checks in order (AND would let PostgreSQL run the most common word's first): B's
            // and D's probes fail the document, A's decides.
            let at = |n: usize| holds.find(&format!("x.word = {} ", super::slot(dialect, n))).unwrap();
            let (when, last) = (holds.find(" WHEN NOT EXISTS").unwrap(), holds.find(" ELSE EXISTS").unwrap());
            assert!(holds.starts_with(" AND CASE WHEN NOT EXISTS"), "{holds}");
            assert!(when < at(1) && at(1) < at(2) && at(2) < last && last < at(3), "{holds}");
            // One probe is a plain EXISTS.
            let one = super::holds_others(dialect, &mut Vec::new(), &[&b]);
            assert!(one.starts_with(" AND EXISTS (") && !one.contains("CASE"), "{one}");
        }
    }

    #[test]
    fn a_count_reads_as_sets_the_other_words_not_far_more_common_than_the_driver_on_postgresql_only() {
        use crate::engine::records::Dialect;
        // The driver (second word) is on 10 documents: words on up to 40 are read as sets, the driver never.
        assert_eq!(super::read_as_sets(Dialect::Postgres, 1, &[40, 10, 41, 0]), [true, false, false, true]);
        // A driver the count table holds as on no document still reads a word on up to 4 as a set.
        assert_eq!(super::read_as_sets(Dialect::Postgres, 0, &[0, 4, 5]), [false, true, false]);
        assert_eq!(super::read_as_sets(Dialect::Sqlite, 1, &[40, 10, 11]), [false, false, false]);
    }

    fn index() -> WordIndex {
        WordIndex {
            words: "terms".into(),
            word_field: "term".into(),
            doc_field: "docKey".into(),
            docs: "docs".into(),
            key_field: "docKey".into(),
            scope_field: "scope".into(),
            facet_fields: vec!["kind".into()],
            date_field: "date".into(),
            id_field: "id".into(),
        }
    }

    /// 60 documents in two scopes and two kinds, on few dates (ties ordered by id), with words A (every one),
    /// B (every third), C (every fifth) and their own id. The words of the second half arrive in a second file
    /// (before their documents' own records in the first file's refresh, as clerk tables may).
    fn files() -> (IngestBatch, IngestBatch, Vec<Value>, Vec<Value>) {
        let (mut first, mut second, mut words, mut docs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..60 {
            let key = format!("d{i:02}");
            let doc = json!({"docKey": key, "id": format!("ID{:02}", 59 - i), "date": format!("2020-01-{:02}", 1 + i % 7),
                "scope": if i % 4 == 0 { "s2" } else { "s1" }, "kind": if i % 9 == 0 { "lien" } else { "deed" }});
            first.push(IngestRecord::new("docs", key.clone(), key.clone(), doc.clone()).unwrap());
            docs.push(doc);
            let mut own = vec!["A".to_string(), format!("ID{i}")];
            own.extend((i % 3 == 0).then(|| "B".to_string()));
            own.extend((i % 5 == 0).then(|| "C".to_string()));
            for w in own {
                let data = json!({"term": w, "docKey": key});
                let r = IngestRecord::new("terms", format!("{w}:{key}"), key.clone(), data.clone()).unwrap();
                if i < 30 { &mut first } else { &mut second }.push(r);
                words.push(data);
            }
        }
        let batch = |records| IngestBatch { format: "t".into(), records, ..Default::default() };
        (batch(first), batch(second), words, docs)
    }

    /// A third file: document d03's `B` record now holds `Z` (it loses B, gains Z) and d04 gains `Y`.
    fn third_file() -> IngestBatch {
        let term = |key: &str, doc: &str, w: &str| {
            IngestRecord::new("terms", key.to_string(), doc.to_string(), json!({"term": w, "docKey": doc})).unwrap()
        };
        let records = vec![term("B:d03", "d03", "Z"), term("Y:d04", "d04", "Y")];
        IngestBatch { format: "t".into(), records, ..Default::default() }
    }

    /// The word index's tables as earlier versions created them (every text column but `date` and `id`
    /// in the database's collation), with the serving index of a still earlier one.
    const EARLIER_TABLES: &str = "CREATE TABLE datahost.record_words (dataset text NOT NULL, word text NOT NULL, \
        doc text NOT NULL, scope text NOT NULL, facet text NOT NULL, date text COLLATE \"C\" NOT NULL, \
        id text COLLATE \"C\" NOT NULL); \
        CREATE TABLE datahost.record_word_counts (dataset text NOT NULL, word text NOT NULL, scope text NOT NULL, \
        facet text NOT NULL, n bigint NOT NULL, PRIMARY KEY (dataset, word, scope, facet)); \
        CREATE TABLE datahost.record_documents (dataset text NOT NULL, doc text NOT NULL, records text NOT NULL, \
        PRIMARY KEY (dataset, doc)); \
        CREATE INDEX record_words_order ON datahost.record_words (dataset, word, scope, date DESC, id, facet)";

    /// The count table as `(dataset, word, scope, facet, n)` rows (zeros left out), and the same counted from the
    /// word rows: they must agree.
    const COUNTS: &str = "SELECT dataset, word, scope, facet, CAST(n AS TEXT) FROM {c} WHERE n <> 0 \
                          ORDER BY dataset, word, scope, facet";
    const RECOUNT: &str = "SELECT dataset, word, scope, facet, CAST(count(*) AS TEXT) FROM {t} \
                           GROUP BY dataset, word, scope, facet ORDER BY dataset, word, scope, facet";

    fn sqlite_table(store: &crate::engine::sqlite::SqliteStore, sql: &str) -> Vec<Vec<String>> {
        let sql = sql.replace("{c}", "record_word_counts").replace("{t}", "record_words");
        store.with_conn(|conn| {
            let mut stmt = conn.prepare(&sql).unwrap();
            let rows = stmt.query_map([], |r| (0..5).map(|i| r.get::<_, String>(i)).collect()).unwrap();
            rows.collect::<Result<Vec<Vec<String>>, _>>().unwrap()
        })
    }

    /// Before and after [`third_file`]: B on 10 deeds of s1, then 9; Z on one.
    fn assert_counts_followed(before: &[Vec<String>], after: &[Vec<String>]) {
        let n = |rows: &[Vec<String>], w: &str| {
            rows.iter().find(|r| r[1] == w && r[2] == "s1" && r[3] == "deed").map(|r| r[4].clone())
        };
        assert_eq!((n(before, "B"), n(after, "B")), (Some("10".into()), Some("9".into())), "{after:?}");
        assert_eq!((n(before, "Z"), n(after, "Z")), (None, Some("1".into())), "{after:?}");
    }

    #[test]
    fn the_embedded_engine_answers_as_the_reference() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::embedded_at(dir.path()).unwrap();
        let (first, second, words, docs) = files();
        let store = engine.sqlite().unwrap();
        // The first file before the index exists (built from the records), the second refreshed on ingest.
        store.apply_file("d", "1", "sha1", &first, None).unwrap();
        engine.declare_word_index("d", &index()).unwrap();
        store.apply_file("d", "2", "sha2", &second, engine.word_index("d").as_ref()).unwrap();
        let readable = vec!["d".to_string()];
        for (w, cap, limit) in [
            (vec!["A"], 10, 5),
            (vec!["A"], 100, 100),
            (vec!["A", "B"], 5, 3),
            (vec!["C", "B"], 3, 2),
            // C drives (on 8 or 9 documents), on no more than twice the cap: the first page is read by the
            // count's walk, whose 5 documents hold fewer matches than the page, which then goes on.
            (vec!["C", "B"], 5, 3),
            // The driver on more than twice the cap: the count's walk examines its first cap / 4 documents (at
            // least one), and the first page, read by that walk, goes on after it.
            (vec!["C", "B"], 2, 2),
            (vec!["A", "B"], 4, 3),
            // Three words: two probed per document, rarest first.
            (vec!["A", "B", "C"], 4, 2),
            (vec!["A", "C", "B"], 100, 3),
            (vec!["ID7"], 2, 9),
        ] {
            for facets in [vec!["deed"], vec!["deed", "lien"]] {
                let mut q = WordSearch {
                    dataset: "d".into(),
                    index: index(),
                    words: w.iter().map(|s| s.to_string()).collect(),
                    scope: "s1".into(),
                    facets: facets.iter().map(|s| s.to_string()).collect(),
                    after: None,
                    limit,
                    count_cap: cap,
                };
                // Every page of the walk, and its count, as the reference answers them.
                loop {
                    let got = engine.search_words(&readable, &q).unwrap();
                    assert_eq!(got, search_in(&q, &words, &docs), "{q:?}");
                    if got.docs.len() <= limit {
                        break;
                    }
                    let last = docs.iter().find(|d| d["docKey"] == got.docs[limit - 1].as_str()).unwrap();
                    q.after = Some((last["date"].as_str().unwrap().into(), last["id"].as_str().unwrap().into()));
                }
            }
        }
        // A and B are both on more than 5 documents of s1 (A on 40, B on 10): B, the rarer, drives, though A is
        // given first, and all 5 of B's first documents hold A. Under a cap of 4, B is on more than twice the cap:
        // only its first 4 / 4 documents are examined.
        let both = WordSearch { words: vec!["A".into(), "B".into()], count_cap: 5, ..search("A") };
        let got = engine.search_words(&readable, &both).unwrap();
        assert_eq!((got.total, got.total_is_lower_bound), (5, true), "{got:?}");
        let got = engine.search_words(&readable, &WordSearch { count_cap: 4, ..both }).unwrap();
        assert_eq!((got.total, got.total_is_lower_bound), (1, true), "{got:?}");
        let other = WordSearch { index: WordIndex { docs: "other".into(), ..index() }, ..search("A") };
        let e = engine.search_words(&readable, &other).unwrap_err();
        assert!(
            matches!(&e, crate::engine::EngineError::Undeclared { problem, .. } if problem.contains("no such word index")),
            "{e:?}"
        );
        assert!(engine.search_words(&[], &search("A")).is_err(), "only datasets the plugin reads");

        // A first page's total is kept for the search's later pages while the records are unchanged (the pages
        // above are such pages), and counted again once a file changes them: after the third file d03, a deed of
        // s1, no longer holds B.
        let first = WordSearch { words: vec!["A".into(), "B".into()], limit: 2, count_cap: 100, ..search("A") };
        let later = WordSearch { after: Some(("2020-01-07".into(), String::new())), limit: 100, ..first.clone() };
        let totals = |q: &WordSearch| {
            let got = engine.search_words(&readable, q).unwrap();
            (got.total, got.docs.iter().any(|d| d == "d03"))
        };
        assert_eq!([totals(&first), totals(&later)], [(10, false), (10, true)]);

        // The count table follows every refresh (d03 loses B and gains Z, d04 gains Y) ...
        let counted = sqlite_table(store, COUNTS);
        store.apply_file("d", "3", "sha3", &third_file(), engine.word_index("d").as_ref()).unwrap();
        assert_eq!(totals(&later), (9, false), "a total kept across a change of the records");
        let recounted = sqlite_table(store, COUNTS);
        assert_eq!(recounted, sqlite_table(store, RECOUNT));
        assert_counts_followed(&counted, &recounted);
        // ... and is counted again from the word rows when missing (a word index an earlier version built).
        store.with_conn(|conn| conn.execute("DELETE FROM record_word_counts", []).unwrap());
        engine.declare_word_index("d", &index()).unwrap();
        assert_eq!(sqlite_table(store, COUNTS), recounted);

        // A refresh finds the file's documents and their word records by group, never one against every other.
        let refresh =
            super::refresh_sql(crate::engine::records::Dialect::Sqlite, "d", &index(), Some("[\"d03\"]".into()));
        let insert = refresh.iter().find(|s| s.sql.starts_with("INSERT INTO record_words")).unwrap();
        let plan: Vec<String> = store.with_conn(|conn| {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {}", insert.sql)).unwrap();
            let rows = stmt.query_map(rusqlite::params_from_iter(&insert.params), |r| r.get::<_, String>(3)).unwrap();
            rows.collect::<Result<_, _>>().unwrap()
        });
        for side in ["i", "t"] {
            let by_group = format!("SEARCH {side} USING INDEX records_group (dataset=? AND grp=?)");
            assert!(plan.contains(&by_group), "{plan:#?}");
        }
    }

    /// PostgreSQL answers as the reference too, and a table an earlier version built keeps its rows while its
    /// serving index is replaced by one a page is read from alone.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgresql_answers_as_the_reference_from_the_serving_index() {
        let db = crate::engine::TestPg::create("dh_words").await;
        let (engine, client) = (db.engine.clone(), &db.client);
        // The tables and the serving index as an earlier version built them: text in the database's collation.
        client.batch_execute(EARLIER_TABLES).await.unwrap();
        let not_bytes = || {
            let check = super::byte_order_sql(crate::engine::records::Dialect::Postgres).unwrap();
            async move {
                let params = bound(&check);
                let rows = client.query(&check.sql, &params).await.unwrap();
                rows.iter().map(|r| format!("{}.{}", r.get::<_, String>(0), r.get::<_, String>(1))).collect::<Vec<_>>()
            }
        };
        let earlier = not_bytes().await;
        assert_eq!(earlier.len(), 12, "{earlier:?}");
        let e = engine.clone();
        let (words, docs) = tokio::task::spawn_blocking(move || {
            let (words, docs) = applied_on_postgresql(&e);
            let readable = vec!["d".to_string()];
            // Counts of two words under every cap from 1 to 12: matches fall unevenly on the two halves of the
            // driver's documents that the count's parts read.
            let fixed = [
                (vec!["A"], 10, 5),
                (vec!["A", "B"], 5, 3),
                (vec!["C", "B"], 3, 2),
                (vec!["A", "B", "C"], 4, 2),
                (vec!["A", "C", "B"], 100, 3),
            ];
            let caps = (1..=12).flat_map(|cap| [(vec!["A", "B"], cap, 2), (vec!["B", "C"], cap, 2)]);
            for (w, cap, limit) in fixed.into_iter().chain(caps) {
                let q = WordSearch {
                    words: w.iter().map(|s| s.to_string()).collect(),
                    limit,
                    count_cap: cap,
                    ..search("A")
                };
                assert_eq!(e.search_words(&readable, &q).unwrap(), search_in(&q, &words, &docs), "{q:?}");
            }
            (words, docs)
        })
        .await
        .unwrap();
        assert!(!words.is_empty() && !docs.is_empty());
        // The count's other words read as sets in the driver's dates, probed per document, or some of each: the
        // same totals under every cap (C, on the fewest documents, drives; under a cap below them, the count
        // examines the share of the cap that `search` gives it).
        let q = WordSearch { words: vec!["C".into(), "B".into(), "A".into()], ..search("C") };
        let on_c = search_in(&WordSearch { count_cap: 100, ..search("C") }, &words, &docs).total;
        assert!((5..=12).contains(&on_c), "{on_c}");
        for as_sets in [[false, false], [true, false], [false, true], [true, true]] {
            let as_sets = [false, as_sets[0], as_sets[1]];
            for cap in 1..=12 {
                let q = WordSearch { count_cap: cap, ..q.clone() };
                let examined = WordSearch { count_cap: q.examined(on_c), ..q.clone() };
                let mut total = 0;
                for part in 0..2 {
                    let count =
                        super::total_sql(crate::engine::records::Dialect::Postgres, &examined, 0, &as_sets, part, 2);
                    let params = bound(&count);
                    let row = client.query_one(&count.sql, &params).await.unwrap();
                    total += row.get::<_, String>(0).parse::<usize>().unwrap();
                }
                assert_eq!(total, search_in(&q, &words, &docs).total, "{as_sets:?} {q:?}");
            }
        }
        // The count table follows a refresh, and is counted again when missing.
        let table = |sql: &str| {
            let sql = sql.replace("{c}", "datahost.record_word_counts").replace("{t}", "datahost.record_words");
            async move {
                let rows = client.query(&sql, &[]).await.unwrap();
                rows.iter().map(|r| (0..5).map(|i| r.get::<_, String>(i)).collect()).collect::<Vec<Vec<String>>>()
            }
        };
        let counted = table(COUNTS).await;
        let e = engine.clone();
        tokio::task::spawn_blocking(move || {
            e.pg().unwrap().apply_file("d", "3", "sha3", &third_file(), e.word_index("d").as_ref()).unwrap()
        })
        .await
        .unwrap();
        let recounted = table(COUNTS).await;
        assert_eq!(recounted, table(RECOUNT).await);
        assert_counts_followed(&counted, &recounted);
        // Tables an earlier version filled (here the same rows, their columns back in the database's collation,
        // which drops their statistics): made to compare bytes again, rows kept, statistics taken again.
        client.batch_execute("DELETE FROM datahost.record_word_counts").await.unwrap();
        client
            .batch_execute(
                "ALTER TABLE datahost.record_words ALTER COLUMN word TYPE text COLLATE \"default\", \
                 ALTER COLUMN doc TYPE text COLLATE \"default\"; \
                 ALTER TABLE datahost.record_documents ALTER COLUMN doc TYPE text COLLATE \"default\"",
            )
            .await
            .unwrap();
        assert_eq!(not_bytes().await, ["record_documents.doc", "record_words.doc", "record_words.word"]);
        let without_statistics = || {
            db.texts(
                "SELECT c.relname || '.' || a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid \
                 JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'datahost' \
                 AND c.relname IN ('record_words', 'record_documents') AND a.attnum > 0 AND NOT a.attisdropped \
                 AND NOT EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = 'datahost' \
                 AND s.tablename = c.relname AND s.attname = a.attname) ORDER BY 1",
            )
        };
        assert_eq!(without_statistics().await, ["record_documents.doc", "record_words.doc", "record_words.word"]);
        let e = engine.clone();
        tokio::task::spawn_blocking(move || e.declare_word_index("d", &index()).unwrap()).await.unwrap();
        assert_eq!(table(COUNTS).await, recounted);
        let indexes = db.texts("SELECT indexname FROM pg_indexes WHERE tablename = 'record_words' ORDER BY 1").await;
        assert_eq!(indexes, ["record_words_doc", "record_words_serving", "record_words_word_doc"]);
        assert_eq!(without_statistics().await, Vec::<String>::new());
        // Every text column of the earlier tables compares as bytes now, the rows kept (the answers above).
        assert_eq!(not_bytes().await, Vec::<String>::new());
        // A page of two words: the driver's documents in order and the other word's probe, from indexes alone.
        let q = WordSearch { words: vec!["B".into(), "A".into()], ..search("B") };
        let page = super::page_sql(crate::engine::records::Dialect::Postgres, &q, 0, false);
        client.batch_execute("SET enable_seqscan = off; SET enable_bitmapscan = off").await.unwrap();
        let params = bound(&page);
        let plan = db.explain(&page.sql, &params).await;
        assert!(plan.iter().any(|l| l.contains("Index Only Scan using record_words_serving")), "{plan:#?}");
        assert!(plan.iter().any(|l| l.contains("Index Only Scan using record_words_word_doc")), "{plan:#?}");
        // Even a planner that would rather join the words as sets (here told so) walks the driver in serving
        // order and probes the other word per document: no join of the sets, no sort, stopping after a page.
        client.batch_execute("SET enable_nestloop = off").await.unwrap();
        let plan = db.explain(&page.sql, &params).await;
        assert!(plan.iter().any(|l| l.contains("SubPlan")), "{plan:#?}");
        assert!(!plan.iter().any(|l| l.contains("Sort") || l.contains("Join")), "{plan:#?}");
        // A count whose other word is read as a set: the word's rows in the driver's dates from the serving index
        // and one intersection of the sets, no probe per document.
        let count = super::total_sql(crate::engine::records::Dialect::Postgres, &q, 0, &[false, true], 0, 1);
        let params = bound(&count);
        let plan = db.explain(&count.sql, &params).await;
        assert!(plan.iter().any(|l| l.contains("SetOp Intersect")), "{plan:#?}");
        assert!(
            plan.iter().filter(|l| l.contains("Index Only Scan using record_words_serving")).count() >= 2,
            "{plan:#?}"
        );
        assert!(!plan.iter().any(|l| l.contains("record_words_word_doc") || l.contains("SubPlan")), "{plan:#?}");
        // A first page's walk: the driver from the serving index, the other word probed per document or read
        // as a set in the driver's dates, from indexes alone. The set is hashed once and tested per document,
        // never joined to the driver's documents (a join the planner sized from a default estimate compared every
        // pair; BENCHMARKS.md), whatever join the planner would rather make (here told to prefer nested loops);
        // the only join left is the page's document rows.
        client
            .batch_execute("RESET enable_nestloop; SET enable_hashjoin = off; SET enable_mergejoin = off")
            .await
            .unwrap();
        for (as_sets, read) in [([false, false], "SubPlan"), ([false, true], "hashed SubPlan")] {
            let walk = super::walk_sql(crate::engine::records::Dialect::Postgres, &q, 0, &as_sets, (0, 2), true);
            let params = bound(&walk);
            let plan = db.explain(&walk.sql, &params).await;
            assert!(plan.iter().any(|l| l.contains("Index Only Scan using record_words_serving")), "{plan:#?}");
            assert!(plan.iter().any(|l| l.contains(read)), "{plan:#?}");
            let probed = plan.iter().any(|l| l.contains("Index Only Scan using record_words_word_doc"));
            assert_eq!(probed, !as_sets[1], "{plan:#?}");
            let joins: Vec<&String> = plan.iter().filter(|l| l.contains("Join")).collect();
            assert!(joins.iter().all(|l| l.contains("Left Join") && !l.contains("Join Filter")), "{plan:#?}");
            assert!(joins.len() <= 1, "{plan:#?}");
        }
        drop(engine);
        db.drop_database().await;
    }

    /// On PostgreSQL a search's count (in parts) and page run at once, on connections of their own, when the
    /// pool has them free; on a pool of one they run one after the other on it (a search never waits for another
    /// connection while it holds one). A first page of two words whose driver is on few documents is read by the
    /// count's parts themselves, also at once; a later page of a search counted before reads its page alone. All
    /// answer as the reference.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgresql_runs_the_count_and_the_page_at_once_when_a_connection_is_free() {
        let db = crate::engine::TestPg::create("dh_words_at_once").await;
        let e = db.engine.clone();
        let (words, docs) = tokio::task::spawn_blocking(move || applied_on_postgresql(&e)).await.unwrap();
        let parts = super::count_parts(crate::engine::records::Dialect::Postgres);
        for pool_size in [4, 1] {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("pg.toml");
            let app = format!("at_once_{pool_size}");
            let url = format!("postgres://postgres@127.0.0.1:5432/{}?application_name={app}", db.name);
            std::fs::write(&file, format!("[engine]\nurl = \"{url}\"\npool_size = {pool_size}\n")).unwrap();
            let config = crate::config::Config::load(Some(&file)).unwrap();
            let engine = Engine::from_config(&config).await.unwrap();
            let e = engine.clone();
            tokio::task::spawn_blocking(move || e.declare_word_index("d", &index()).unwrap()).await.unwrap();
            // (words, the first page?, what each connection ran last: counts, pages beside them, walks)
            let one_word = if pool_size == 1 { (1, 0, 0) } else { (1, 1, 0) };
            let later_page = if pool_size == 1 { (1, 0, 0) } else { (parts, 1, 0) };
            let first_page = if pool_size == 1 { (0, 0, 1) } else { (0, 0, parts) };
            // A later page of a search counted before: its page alone, the total kept.
            let kept = (0, 1, 0);
            // B (on 10 documents) under a cap of 4 is on more than twice it: the count examines a share (one
            // document), and the first page is still read by that walk, then goes on after it as a later page
            // would, on any free connection. No count runs apart from the walk.
            let shared = if pool_size == 1 { vec![(0, 1, 0)] } else { vec![(0, 1, parts - 1), (0, 1, parts)] };
            for (w, first, cap, ran) in [
                (vec!["A"], true, 10, vec![one_word]),
                (vec!["A", "B"], false, 10, vec![later_page]),
                (vec!["A", "B"], true, 10, vec![first_page]),
                (vec!["A", "B"], false, 10, vec![kept]),
                (vec!["A", "B"], true, 4, shared),
            ] {
                let words_of = w.iter().map(|s| s.to_string()).collect();
                let mut q = WordSearch { words: words_of, count_cap: cap, ..search("A") };
                if !first {
                    let in_s1 = docs.iter().filter(|d| d["scope"] == "s1");
                    let newest = in_s1.filter_map(|d| d["date"].as_str()).max().unwrap();
                    q.after = Some((newest.into(), String::new()));
                }
                let since = db.texts("SELECT clock_timestamp()::text").await.remove(0);
                let (e, words, docs) = (engine.clone(), words.clone(), docs.clone());
                tokio::task::spawn_blocking(move || {
                    let found = e.search_words(&["d".to_string()], &q).unwrap();
                    assert!(!found.docs.is_empty(), "{q:?}");
                    assert_eq!(found, search_in(&q, &words, &docs), "pool of {pool_size}: {q:?}");
                })
                .await
                .unwrap();
                // The last statement of each of this engine's connections the search used: on a pool of one, the
                // last statement of the search alone (the others ran there just before).
                let sql = format!(
                    "SELECT query FROM pg_stat_activity WHERE application_name = '{app}' \
                     AND query_start >= '{since}'::timestamptz"
                );
                let last = db.texts(&sql).await;
                let ran_last = |start: &str| last.iter().filter(|q| q.starts_with(start)).count();
                let walked = last.iter().filter(|q| q.contains("SELECT 'n'")).count();
                let counted = last.iter().filter(|q| q.contains("count(*)")).count() - walked;
                assert!(
                    ran.contains(&(counted, ran_last("SELECT w.doc"), walked)),
                    "pool of {pool_size}, {w:?}, cap {cap}, first page {first}: not one of {ran:?}: {last:#?}"
                );
            }
            assert!(engine.pg().unwrap().pool_status().size <= pool_size);
        }
        db.drop_database().await;
    }

    /// [`files`] with a third collection, `parts` (two per document of the first file), then the word index,
    /// then the second file, which also changes d01's first part, adds a third to it and a part to d35: what
    /// [`assert_page_records_are_the_records`] reads after. `apply` applies a file with the declared word index.
    fn apply_files_with_parts(e: &Engine, apply: impl Fn(&str, &IngestBatch)) {
        let part = |doc: &str, n: usize, value: &str| {
            let data = json!({"docKey": doc, "n": n, "value": value});
            IngestRecord::new("parts", format!("{doc}:{n}"), doc.to_string(), data).unwrap()
        };
        let (mut first, mut second, _, _) = files();
        for i in 0..30 {
            let doc = format!("d{i:02}");
            first.records.extend([part(&doc, 1, "one"), part(&doc, 2, "two")]);
        }
        second.records.extend([part("d01", 1, "changed"), part("d01", 3, "three"), part("d35", 1, "late")]);
        let by_doc = |c: &str| RecordIndex { collection: c.into(), fields: vec!["docKey".into()] };
        e.declare_indexes("d", &[by_doc("docs"), by_doc("parts")]).unwrap();
        apply("1", &first);
        e.declare_word_index("d", &index()).unwrap();
        apply("2", &second);
    }

    /// Every page of a search answered with records: the same hits as without, and each document's records those
    /// that records queries by its key read (every collection but the words, each in ingest order).
    fn assert_page_records_are_the_records(e: &Engine) {
        let readable = vec!["d".to_string()];
        let mut checked = 0;
        for words in [vec!["A"], vec!["B", "A"]] {
            let q = WordSearch { words: words.iter().map(|w| w.to_string()).collect(), limit: 100, ..search("A") };
            let page = e.search_word_page(&readable, &q).unwrap();
            assert_eq!(page.hits, e.search_words(&readable, &q).unwrap(), "{q:?}");
            assert_eq!(page.records.len(), page.hits.docs.len(), "{q:?}");
            for (doc, records) in page.hits.docs.iter().zip(&page.records) {
                let mut want = serde_json::Map::new();
                for c in ["docs", "parts"] {
                    let q = RecordsQuery::new("d", c).eq("docKey", doc.as_str());
                    let read: Value = serde_json::from_str(&e.query_records_json(&readable, &q).unwrap()).unwrap();
                    let read = read["records"].as_array().unwrap().clone();
                    if !read.is_empty() {
                        want.insert(c.into(), Value::Array(read));
                    }
                }
                let got: Value = serde_json::from_str(records.json()).unwrap();
                assert_eq!(got, Value::Object(want), "{doc}");
                checked += 1;
            }
        }
        assert!(checked > 40, "{checked} documents checked");
        // The second file's changes are there (d01: a deed of s1, on A).
        let q = WordSearch { words: vec!["ID1".into()], ..search("ID1") };
        let page = e.search_word_page(&readable, &q).unwrap();
        assert_eq!(page.hits.docs, ["d01"]);
        let d01: Value = serde_json::from_str(page.records[0].json()).unwrap();
        let values: Vec<&str> = d01["parts"].as_array().unwrap().iter().map(|p| p["value"].as_str().unwrap()).collect();
        assert_eq!(values, ["changed", "two", "three"], "{d01}");
        assert_eq!(d01["docs"][0]["id"], "ID58", "{d01}");
    }

    /// A page some of whose documents have no document row (an interrupted build, say) is answered without
    /// records at all, the hits unchanged: the plugin then reads the records with records queries.
    fn assert_a_missing_document_row_leaves_the_page_without_records(e: &Engine) {
        let readable = vec!["d".to_string()];
        let q = WordSearch { limit: 100, ..search("A") };
        let page = e.search_word_page(&readable, &q).unwrap();
        assert!(page.hits.docs.contains(&"d01".to_string()) && page.records.is_empty(), "{page:?}");
        assert_eq!(page.hits, e.search_words(&readable, &q).unwrap());
    }

    #[test]
    fn the_embedded_engine_reads_a_page_s_records_from_one_row_per_document() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::embedded_at(dir.path()).unwrap();
        let store = engine.sqlite().unwrap();
        apply_files_with_parts(&engine, |name, batch| {
            store.apply_file("d", name, name, batch, engine.word_index("d").as_ref()).unwrap();
        });
        assert_page_records_are_the_records(&engine);
        // Built again from the records when missing (records an earlier version ingested).
        store.with_conn(|c| c.execute("DELETE FROM record_documents", []).unwrap());
        engine.declare_word_index("d", &index()).unwrap();
        assert_page_records_are_the_records(&engine);
        store.with_conn(|c| c.execute("DELETE FROM record_documents WHERE doc = 'd01'", []).unwrap());
        assert_a_missing_document_row_leaves_the_page_without_records(&engine);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgresql_reads_a_page_s_records_from_one_row_per_document() {
        let db = crate::engine::TestPg::create("dh_words_documents").await;
        let e = db.engine.clone();
        tokio::task::spawn_blocking(move || {
            apply_files_with_parts(&e, |name, batch| {
                e.pg().unwrap().apply_file("d", name, name, batch, e.word_index("d").as_ref()).unwrap();
            });
            assert_page_records_are_the_records(&e);
        })
        .await
        .unwrap();
        db.client.batch_execute("DELETE FROM datahost.record_documents").await.unwrap();
        let e = db.engine.clone();
        tokio::task::spawn_blocking(move || {
            e.declare_word_index("d", &index()).unwrap();
            assert_page_records_are_the_records(&e);
        })
        .await
        .unwrap();
        // A page's records: one primary-key read per document of the page, after the same walk.
        let q = WordSearch { words: vec!["B".into(), "A".into()], ..search("B") };
        let page = super::page_sql(crate::engine::records::Dialect::Postgres, &q, 0, true);
        db.client.batch_execute("SET enable_seqscan = off; SET enable_bitmapscan = off").await.unwrap();
        let plan = db.explain(&page.sql, &bound(&page)).await;
        assert!(plan.iter().any(|l| l.contains("Index Only Scan using record_words_serving")), "{plan:#?}");
        assert!(plan.iter().any(|l| l.contains("Index Scan using record_documents_pkey")), "{plan:#?}");
        db.client.batch_execute("RESET ALL; DELETE FROM datahost.record_documents WHERE doc = 'd01'").await.unwrap();
        let e = db.engine.clone();
        tokio::task::spawn_blocking(move || assert_a_missing_document_row_leaves_the_page_without_records(&e))
            .await
            .unwrap();
        db.drop_database().await;
    }

    /// A statement's text parameters as tokio-postgres binds them.
    fn bound(statement: &super::Statement) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
        statement.params.iter().map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync)).collect()
    }

    /// The first file applied before the word index is declared, the second after; the reference's words and
    /// documents of both.
    fn applied_on_postgresql(e: &Engine) -> (Vec<Value>, Vec<Value>) {
        let (first, second, words, docs) = files();
        let pg = e.pg().unwrap();
        pg.apply_file("d", "1", "sha1", &first, None).unwrap();
        e.declare_word_index("d", &index()).unwrap();
        pg.apply_file("d", "2", "sha2", &second, e.word_index("d").as_ref()).unwrap();
        (words, docs)
    }

    /// A page's size is a bound value, not part of the statement's text: one text, and so one prepared statement per
    /// connection, serves every `limit`, on both engines, for a page after a cursor or beside the count and for a
    /// first page read by the count's walk.
    #[test]
    fn one_statement_text_serves_every_page_size() {
        use crate::engine::records::Dialect;
        let sized = |limit| WordSearch { words: vec!["A".into(), "B".into()], limit, ..search("A") };
        for d in [Dialect::Postgres, Dialect::Sqlite] {
            for with_records in [false, true] {
                let statements = |limit| {
                    let q = sized(limit);
                    [
                        super::page_sql(d, &q, 0, with_records),
                        super::walk_sql(d, &q, 0, &[false, false], (0, 2), with_records),
                    ]
                };
                for (small, large) in statements(10).iter().zip(&statements(99)) {
                    assert_eq!(small.sql, large.sql, "{d:?}");
                    let (small_size, large_size) = (small.params.last().unwrap(), large.params.last().unwrap());
                    assert_eq!((small_size.as_str(), large_size.as_str()), ("11", "100"), "{}", small.sql);
                    assert_eq!(small.params[..small.params.len() - 1], large.params[..large.params.len() - 1]);
                }
            }
        }
    }

    fn search(word: &str) -> WordSearch {
        WordSearch {
            dataset: "d".into(),
            index: index(),
            words: vec![word.into()],
            scope: "s1".into(),
            facets: vec!["deed".into()],
            after: None,
            limit: 10,
            count_cap: 10,
        }
    }
}
