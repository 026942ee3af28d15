//! Ingested records, engine-neutral: how one parsed source file is applied to the records tables (keys,
//! amendments, counts), and how a dataset's document is assembled from its records. The SQL dialects live in
//! `sqlite.rs` (embedded) and `postgres/records.rs` (PostgreSQL) behind the small [`RecordsTx`] trait, so both
//! engines apply exactly the same rules.
//!
//! Tables (the same columns in both engines):
//! - `records(seq, dataset, collection, key, grp, lineage, revision, amendment, file_id, data)`, unique on
//!   `(dataset, collection, key)`; `data` is the record's canonical JSON text.
//! - `ingest_files(id, dataset, name, sha256, format, ingested_at, added, replaced, unchanged, removed,
//!   superseded, refused)`: provenance of every file that changed something.
//! - `dataset_state(dataset, version, assembled_version)`: `version` moves with every change to the records, so
//!   a document is re-assembled only when needed (also after an interrupted run).
//! - `datasets(name, snapshot, checksum, source, updated_at)`: the document plugins read, as in PostgreSQL mode
//!   before ingest existed; replicas and the embedded server watch its checksums.

use std::collections::{BTreeMap, HashMap};

use datahost_plugin_api::ingest::{IngestBatch, IngestRecord, IngestedInfo, RowProblem, INGESTED_KEY};
#[cfg(test)]
use datahost_plugin_api::query::RecordsPage;
use datahost_plugin_api::query::{RecordIndex, RecordsQuery};
use serde::Serialize;

use crate::engine::error::EngineError;

/// Which dialect a records query is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// The expression that reads top-level `field` of a record's JSON `data`, the same in the index and in the
/// query (both engines use an index only when the expressions match). `field` is checked by
/// `query::valid_field` before it gets here.
fn field_expr(dialect: Dialect, field: &str) -> String {
    debug_assert!(datahost_plugin_api::query::valid_field(field));
    match dialect {
        Dialect::Sqlite => format!("json_extract(data, '$.{field}')"),
        Dialect::Postgres => format!("((data::jsonb) ->> '{field}')"),
    }
}

/// `CREATE INDEX` for a declared record index: `(dataset, collection, <field expressions>)`, named after a hash
/// of its definition (the fields: dataset and collection are columns) so the name stays short and one definition
/// never builds two indexes, whichever datasets and collections declare it (the clerk datasets look up
/// instruments, parties and legals by `docKey`: one index serves the three). Then the index the declaration had
/// when its name also hashed the dataset and collection (the same definition, built once per declaration and
/// kept up to date by every ingest) is dropped.
pub fn create_index_sql(dialect: Dialect, table: &str, dataset: &str, index: &RecordIndex) -> String {
    let exprs: Vec<String> = index.fields.iter().map(|f| field_expr(dialect, f)).collect();
    let fields = index.fields.join(",");
    let name = format!("rx_{}", &checksum(format!("fields\0{fields}"))[..16]);
    let per_dataset = format!("rx_{}", &checksum(format!("{dataset}\0{}\0{fields}", index.collection))[..16]);
    let schema = table.rsplit_once('.').map_or(String::new(), |(schema, _)| format!("{schema}."));
    format!(
        "CREATE INDEX IF NOT EXISTS {name} ON {table} (dataset, collection, {});\nDROP INDEX IF EXISTS {schema}{per_dataset}",
        exprs.join(", ")
    )
}

/// The document of an ingested dataset: its `ingested` block and the records of every collection not kept in
/// the table (`rows`). With `counts` (the dataset keeps some collections in the table: it is table-backed), the
/// block carries the record count of every collection and `rows` is the total of those counts.
pub fn document(
    files: u64,
    last_ingest_at: String,
    counts: Option<Vec<(String, i64)>>,
    rows: &[(String, String)],
) -> String {
    let collections: std::collections::BTreeMap<String, u64> =
        counts.unwrap_or_default().into_iter().map(|(c, n)| (c, n.max(0) as u64)).collect();
    let total = if collections.is_empty() { rows.len() as u64 } else { collections.values().sum() };
    let info = IngestedInfo { rows: total, files, last_ingest_at, collections };
    assemble(&info, rows.iter().map(|(c, d)| (c.as_str(), d.as_str())))
}

/// A bound value of a records query.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    Text(String),
    Int(i64),
    /// PostgreSQL only: one `text[]` parameter holding a filter's values (`= ANY($n)`).
    TextList(Vec<String>),
}

/// The SQL and values of a records query: `$1`/`?1` is the dataset, `$2`/`?2` the collection, then the filter
/// values in order. Ordered by ingest order (distinct values: by value); one more row than the limit tells
/// whether it was cut. Each row is one JSON text: a record's data, or a distinct value.
///
/// On PostgreSQL every value is a parameter (a filter's values one `text[]`, the limit and offset `bigint`s), so
/// one statement text serves every query of a shape and each connection prepares it once
/// (`engine.prepared_statements`); each run is still planned for its own values (`plan_cache_mode`, `pool.rs`).
pub fn query_sql(dialect: Dialect, table: &str, q: &RecordsQuery) -> (String, Vec<Bound>) {
    let mut values = vec![Bound::Text(q.dataset.clone()), Bound::Text(q.collection.clone())];
    let mut clauses = Vec::new();
    for f in &q.filters {
        let field = field_expr(dialect, &f.field);
        match dialect {
            Dialect::Postgres => {
                // `->>` answers text whatever the JSON type, so PostgreSQL compares text.
                let texts = f.any_of.iter().map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()));
                values.push(Bound::TextList(texts.collect()));
                clauses.push(format!("{field} = ANY(${})", values.len()));
            }
            Dialect::Sqlite => {
                let mut slots = Vec::new();
                for v in &f.any_of {
                    values.push(match v {
                        serde_json::Value::String(s) => Bound::Text(s.clone()),
                        v => Bound::Int(v.as_i64().unwrap_or_default()),
                    });
                    slots.push(format!("?{}", values.len()));
                }
                clauses.push(format!("{field} IN ({})", slots.join(", ")));
            }
        }
    }
    let (limit, offset) = (q.max_records() as i64 + 1, q.skip() as i64);
    let limit_offset = match dialect {
        Dialect::Sqlite => format!("LIMIT {limit} OFFSET {offset}"),
        Dialect::Postgres => {
            values.extend([Bound::Int(limit), Bound::Int(offset)]);
            format!("LIMIT ${} OFFSET ${}", values.len() - 1, values.len())
        }
    };
    let (d, c) = match dialect {
        Dialect::Sqlite => ("?1", "?2"),
        Dialect::Postgres => ("$1", "$2"),
    };
    if let (Dialect::Postgres, Some(field), true) = (dialect, &q.distinct, q.filters.is_empty()) {
        // The distinct values of a field that leads a declared index, by a loose scan of that index: one index
        // probe per value (a county list from millions of records), where DISTINCT would read every record.
        let e = field_expr(dialect, field);
        let next = |after: &str| {
            format!(
                "SELECT {e} AS v, ((data::jsonb) -> '{field}')::text AS j FROM {table} WHERE dataset = $1 AND \
                 collection = $2 AND {e} {after} ORDER BY {e} LIMIT 1"
            )
        };
        let sql = format!(
            "WITH RECURSIVE c(v, j) AS (({first}) UNION ALL SELECT n.v, n.j FROM c, LATERAL ({then}) AS n) \
             SELECT j FROM c ORDER BY 1 {limit_offset}",
            first = next("IS NOT NULL"),
            then = next("> c.v"),
        );
        return (sql, values);
    }
    let (select, order) = match &q.distinct {
        None => ("data".to_string(), "seq"),
        Some(field) => {
            clauses.push(format!("{} IS NOT NULL", field_expr(dialect, field)));
            // The value as JSON text, keeping its type (a string stays quoted, an integer does not).
            let value = match dialect {
                Dialect::Sqlite => format!("json_quote({})", field_expr(dialect, field)),
                Dialect::Postgres => format!("((data::jsonb) -> '{field}')::text"),
            };
            (format!("DISTINCT {value}"), "1")
        }
    };
    let mut sql = format!("SELECT {select} FROM {table} WHERE dataset = {d} AND collection = {c}");
    for clause in clauses {
        sql.push_str(" AND ");
        sql.push_str(&clause);
    }
    sql.push_str(&format!(" ORDER BY {order} {limit_offset}"));
    (sql, values)
}

/// The page a query's rows make, read into values (`rows` holds up to one more than the limit): the tests' oracle
/// for [`page_json`], which is what plugins are answered.
#[cfg(test)]
pub fn page(q: &RecordsQuery, rows: Vec<String>) -> Result<RecordsPage, EngineError> {
    let max = q.max_records();
    let truncated = rows.len() > max;
    let records = rows
        .into_iter()
        .take(max)
        .map(|r| serde_json::from_str(&r).map_err(|e| not_json(q, e)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RecordsPage { records, truncated })
}

/// The page a query's rows make (`rows` holds up to one more than the limit) as the JSON text a plugin reads
/// (`{"records": [...], "truncated": ...}`), written around the stored texts instead of parsing each into a value
/// and writing it out again (`records.query` answers this way); each is still checked to be JSON.
pub fn page_json(q: &RecordsQuery, rows: Vec<String>) -> Result<String, EngineError> {
    let max = q.max_records();
    let truncated = rows.len() > max;
    let kept = &rows[..rows.len().min(max)];
    let mut out = String::with_capacity(32 + kept.iter().map(|r| r.len() + 1).sum::<usize>());
    out.push_str("{\"records\":[");
    for (i, row) in kept.iter().enumerate() {
        serde_json::from_str::<serde::de::IgnoredAny>(row).map_err(|e| not_json(q, e))?;
        if i > 0 {
            out.push(',');
        }
        out.push_str(row);
    }
    out.push_str(if truncated { "],\"truncated\":true}" } else { "],\"truncated\":false}" });
    Ok(out)
}

fn not_json(q: &RecordsQuery, e: serde_json::Error) -> EngineError {
    EngineError::Corrupt(format!("a stored record of `{}` is not JSON: {e}", q.dataset))
}

/// SHA-256 of a document or file, hex: how a changed document is told from an unchanged one.
pub fn checksum(bytes: impl AsRef<[u8]>) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes.as_ref()))
}

/// A record as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRecord {
    pub collection: String,
    pub key: String,
    pub group: String,
    pub lineage: Option<String>,
    pub revision: String,
    pub amendment: bool,
    pub data: String,
}

/// The primitive operations the ingest rules need, inside one transaction.
pub trait RecordsTx {
    fn get(&mut self, dataset: &str, collection: &str, key: &str) -> Result<Option<StoredRecord>, EngineError>;
    /// The records of `keys` that exist, by key. Engines with a round trip per statement answer in one.
    fn get_many(
        &mut self,
        dataset: &str,
        collection: &str,
        keys: &[&str],
    ) -> Result<HashMap<String, StoredRecord>, EngineError> {
        let mut found = HashMap::new();
        for key in keys {
            if let Some(r) = self.get(dataset, collection, key)? {
                found.insert(r.key.clone(), r);
            }
        }
        Ok(found)
    }
    /// Every record of `lineage` in `dataset`.
    fn lineage(&mut self, dataset: &str, lineage: &str) -> Result<Vec<StoredRecord>, EngineError>;
    fn delete(&mut self, dataset: &str, collection: &str, key: &str) -> Result<(), EngineError>;
    /// Inserts or replaces the record with the same `(dataset, collection, key)` (keeping its position).
    fn upsert(&mut self, dataset: &str, record: &StoredRecord, file_id: i64) -> Result<(), EngineError>;
    /// [`RecordsTx::upsert`] of each record, in order. Engines with a round trip per statement send them
    /// pipelined, without waiting for each answer.
    fn upsert_many(&mut self, dataset: &str, records: &[StoredRecord], file_id: i64) -> Result<(), EngineError> {
        records.iter().try_for_each(|r| self.upsert(dataset, r, file_id))
    }
    /// Records the file (provenance) and returns its id; the counts are filled in by [`RecordsTx::finish_file`].
    fn insert_file(&mut self, dataset: &str, name: &str, sha256: &str, format: &str) -> Result<i64, EngineError>;
    fn finish_file(&mut self, file_id: i64, counts: &Counts) -> Result<(), EngineError>;
    /// Moves the dataset's records version on.
    fn bump_version(&mut self, dataset: &str) -> Result<(), EngineError>;
}

/// What one file did to the records.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub added: u64,
    pub replaced: u64,
    pub unchanged: u64,
    /// Records of earlier filings removed because this file amends them.
    pub removed: u64,
    /// Records of this file not applied because an amendment of the same filing is already held.
    pub superseded: u64,
    /// Rows the parser could not read.
    pub refused: u64,
}

impl Counts {
    pub fn changed(&self) -> bool {
        self.added + self.replaced + self.removed > 0
    }

    pub fn add(&mut self, other: &Counts) {
        self.added += other.added;
        self.replaced += other.replaced;
        self.unchanged += other.unchanged;
        self.removed += other.removed;
        self.superseded += other.superseded;
        self.refused += other.refused;
    }
}

fn stored(record: &IngestRecord) -> StoredRecord {
    StoredRecord {
        collection: record.collection.clone(),
        key: record.key.clone(),
        group: record.group.clone(),
        lineage: record.lineage.clone(),
        revision: record.revision.clone(),
        amendment: record.amendment,
        // serde_json's maps are sorted, so equal records have equal text.
        data: record.data.to_string(),
    }
}

/// Checks what the host relies on before anything is written: non-empty identities, no key twice.
pub fn validate(batch: &IngestBatch) -> Result<(), EngineError> {
    let mut seen = std::collections::HashSet::new();
    for (i, r) in batch.records.iter().enumerate() {
        if r.collection.is_empty() || r.key.is_empty() || r.group.is_empty() {
            return Err(EngineError::Invalid(format!(
                "the parser produced record {i} without a collection, key or group"
            )));
        }
        if r.collection == INGESTED_KEY {
            return Err(EngineError::Invalid(format!("the parser used the reserved collection name `{INGESTED_KEY}`")));
        }
        if !seen.insert((r.collection.as_str(), r.key.as_str())) {
            return Err(EngineError::Invalid(format!(
                "the parser produced the key `{}` twice in collection `{}`",
                r.key, r.collection
            )));
        }
    }
    Ok(())
}

/// Applies one parsed file inside `tx` (the caller commits). The rules are in `plugin-api`'s `ingest` module
/// docs: same key and data is unchanged; an amendment removes the lower revisions of its lineage held from
/// other filings; an original arriving after its amendment is superseded.
pub fn apply(
    tx: &mut dyn RecordsTx,
    dataset: &str,
    file_name: &str,
    sha256: &str,
    batch: &IngestBatch,
) -> Result<Counts, EngineError> {
    validate(batch)?;
    let mut counts = Counts { refused: batch.problems.len() as u64, ..Counts::default() };

    // Per lineage in this file: the newest revision, whether it is an amendment, and the groups (filings)
    // giving it; `newest_group` is the filing of the newest revision.
    let mut lineages: BTreeMap<&str, (&str, bool, Vec<&str>)> = BTreeMap::new();
    let mut newest_group: HashMap<&str, &str> = HashMap::new();
    for r in &batch.records {
        if let Some(l) = &r.lineage {
            let entry = lineages.entry(l.as_str()).or_insert((r.revision.as_str(), r.amendment, Vec::new()));
            if r.revision.as_str() > entry.0 {
                entry.0 = r.revision.as_str();
                entry.1 = r.amendment;
                newest_group.insert(l.as_str(), r.group.as_str());
            }
            newest_group.entry(l.as_str()).or_insert(r.group.as_str());
            if !entry.2.contains(&r.group.as_str()) {
                entry.2.push(r.group.as_str());
            }
        }
    }
    // A file holding both a filing and a later amendment of it (a page of many filings): the amended one is
    // superseded within the file itself.
    let superseded_in_file = |r: &IngestRecord| -> bool {
        let Some(l) = r.lineage.as_deref() else { return false };
        let Some((revision, amendment, _)) = lineages.get(l) else { return false };
        *amendment && r.revision.as_str() < *revision && newest_group.get(l) != Some(&r.group.as_str())
    };
    let mut skip_lineages = std::collections::HashSet::new();
    let mut removals: Vec<StoredRecord> = Vec::new();
    for (lineage, (revision, amendment, groups)) in &lineages {
        let held: Vec<StoredRecord> =
            tx.lineage(dataset, lineage)?.into_iter().filter(|r| !groups.contains(&r.group.as_str())).collect();
        if held.iter().any(|r| r.amendment && r.revision.as_str() > *revision) {
            // A later amendment of this filing is already held: this file's version of it is out of date.
            skip_lineages.insert(*lineage);
            continue;
        }
        if *amendment {
            removals.extend(held.into_iter().filter(|r| r.revision.as_str() < *revision));
        }
    }

    let mut file_id: Option<i64> = None;
    let mut ensure_file = |tx: &mut dyn RecordsTx| -> Result<i64, EngineError> {
        if let Some(id) = file_id {
            return Ok(id);
        }
        let id = tx.insert_file(dataset, file_name, sha256, &batch.format)?;
        file_id = Some(id);
        Ok(id)
    };
    for r in &removals {
        ensure_file(tx)?;
        tx.delete(dataset, &r.collection, &r.key)?;
        counts.removed += 1;
    }
    let mut keys_by_collection: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in &batch.records {
        keys_by_collection.entry(r.collection.as_str()).or_default().push(r.key.as_str());
    }
    let mut held: HashMap<(String, String), StoredRecord> = HashMap::new();
    for (collection, keys) in keys_by_collection {
        for (key, record) in tx.get_many(dataset, collection, &keys)? {
            held.insert((collection.to_string(), key), record);
        }
    }
    // Removals above may have taken some of them away.
    for r in &removals {
        held.remove(&(r.collection.clone(), r.key.clone()));
    }
    // Writes go out in batches (pipelined on PostgreSQL: one record per round trip was most of a large ingest).
    // Their order is kept, and nothing below reads a record written here, so deferring them changes nothing.
    const WRITE_BATCH: usize = 1_000;
    let mut writes: Vec<StoredRecord> = Vec::new();
    for record in &batch.records {
        if record.lineage.as_deref().is_some_and(|l| skip_lineages.contains(l)) {
            counts.superseded += 1;
            continue;
        }
        if superseded_in_file(record) {
            counts.superseded += 1;
            // Stored by an earlier ingest of a file without its amendment: it goes now.
            if held.remove(&(record.collection.clone(), record.key.clone())).is_some() {
                ensure_file(tx)?;
                tx.delete(dataset, &record.collection, &record.key)?;
                counts.removed += 1;
            }
            continue;
        }
        let new = stored(record);
        match held.remove(&(new.collection.clone(), new.key.clone())) {
            Some(old) if old == new => {
                counts.unchanged += 1;
                continue;
            }
            Some(_) => counts.replaced += 1,
            None => counts.added += 1,
        }
        let id = ensure_file(tx)?;
        writes.push(new);
        if writes.len() >= WRITE_BATCH {
            tx.upsert_many(dataset, &writes, id)?;
            writes.clear();
        }
    }
    if let (Some(id), false) = (file_id, writes.is_empty()) {
        tx.upsert_many(dataset, &writes, id)?;
    }
    if let Some(id) = file_id {
        tx.finish_file(id, &counts)?;
        tx.bump_version(dataset)?;
    }
    Ok(counts)
}

/// Builds the document plugins read: `{"ingested": {...}, "<collection>": [data, ...]}`. `rows` yields
/// `(collection, data)` in storage order; record texts are spliced in as they are (they are JSON already).
pub fn assemble<'a>(info: &IngestedInfo, rows: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut collections: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (collection, data) in rows {
        let i = *index.entry(collection).or_insert_with(|| {
            collections.push((collection, Vec::new()));
            collections.len() - 1
        });
        collections[i].1.push(data);
    }
    let mut out = String::with_capacity(64 + collections.iter().flat_map(|c| &c.1).map(|d| d.len() + 1).sum::<usize>());
    out.push_str("{\"");
    out.push_str(INGESTED_KEY);
    out.push_str("\":");
    out.push_str(&serde_json::to_string(info).unwrap_or_else(|_| "{}".into()));
    for (collection, items) in collections {
        out.push(',');
        out.push_str(&serde_json::Value::String(collection.to_string()).to_string());
        out.push_str(":[");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(item);
        }
        out.push(']');
    }
    out.push('}');
    out
}

/// The `ingested` block of a dataset document, if it has one (a seed has none). Reads only what it needs. A
/// document that does not read (an `ingested` block of another shape) is logged and read as a seed's.
pub fn ingested_info(document: &str) -> Option<IngestedInfo> {
    #[derive(serde::Deserialize)]
    struct Head {
        ingested: Option<IngestedInfo>,
    }
    // Only an object can carry the block; a seed of another shape has none to read.
    if !document.trim_start().starts_with('{') {
        return None;
    }
    match serde_json::from_str::<Head>(document) {
        Ok(head) => head.ingested,
        Err(e) => {
            tracing::warn!(error = %e, "a dataset document's `ingested` block does not read: served as a seed");
            None
        }
    }
}

/// A row problem as reported (first ones only in the text summary; all in `--json`).
pub fn describe_problem(file: &str, p: &RowProblem) -> String {
    format!("{file}: {}: {}", p.location, p.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datahost_plugin_api::IngestRecord;
    use serde_json::json;

    /// The trait over a plain map: the rules are tested once here; the SQL of each engine is tested black-box.
    #[derive(Default)]
    struct MemTx {
        rows: Vec<StoredRecord>,
        files: Vec<(String, Counts)>,
        version: u64,
    }

    impl RecordsTx for MemTx {
        fn get(&mut self, _d: &str, c: &str, k: &str) -> Result<Option<StoredRecord>, EngineError> {
            Ok(self.rows.iter().find(|r| r.collection == c && r.key == k).cloned())
        }
        fn lineage(&mut self, _d: &str, l: &str) -> Result<Vec<StoredRecord>, EngineError> {
            Ok(self.rows.iter().filter(|r| r.lineage.as_deref() == Some(l)).cloned().collect())
        }
        fn delete(&mut self, _d: &str, c: &str, k: &str) -> Result<(), EngineError> {
            self.rows.retain(|r| !(r.collection == c && r.key == k));
            Ok(())
        }
        fn upsert(&mut self, _d: &str, record: &StoredRecord, _f: i64) -> Result<(), EngineError> {
            match self.rows.iter_mut().find(|r| r.collection == record.collection && r.key == record.key) {
                Some(r) => *r = record.clone(),
                None => self.rows.push(record.clone()),
            }
            Ok(())
        }
        fn insert_file(&mut self, _d: &str, name: &str, _s: &str, _f: &str) -> Result<i64, EngineError> {
            self.files.push((name.into(), Counts::default()));
            Ok(self.files.len() as i64)
        }
        fn finish_file(&mut self, id: i64, counts: &Counts) -> Result<(), EngineError> {
            self.files[id as usize - 1].1 = counts.clone();
            Ok(())
        }
        fn bump_version(&mut self, _d: &str) -> Result<(), EngineError> {
            self.version += 1;
            Ok(())
        }
    }

    fn rec(key: &str, group: &str, value: i64) -> IngestRecord {
        IngestRecord::new("rows", key, group, json!({"v": value})).unwrap()
    }

    fn batch(records: Vec<IngestRecord>) -> IngestBatch {
        IngestBatch { format: "test".into(), records, ..Default::default() }
    }

    #[test]
    fn the_same_file_twice_changes_nothing_the_second_time() {
        let mut tx = MemTx::default();
        let b = batch(vec![rec("a", "g1", 1), rec("b", "g1", 2)]);
        let first = apply(&mut tx, "d", "f", "s", &b).unwrap();
        assert_eq!((first.added, first.unchanged), (2, 0));
        let second = apply(&mut tx, "d", "f", "s", &b).unwrap();
        assert_eq!((second.added, second.replaced, second.unchanged), (0, 0, 2));
        assert!(!second.changed());
        assert_eq!(tx.files.len(), 1, "an unchanged file leaves no provenance row");
        assert_eq!(tx.version, 1, "and does not move the version");
    }

    #[test]
    fn a_changed_record_is_replaced_in_place() {
        let mut tx = MemTx::default();
        apply(&mut tx, "d", "f1", "s1", &batch(vec![rec("a", "g1", 1), rec("b", "g1", 2)])).unwrap();
        let c = apply(&mut tx, "d", "f2", "s2", &batch(vec![rec("a", "g1", 9)])).unwrap();
        assert_eq!((c.added, c.replaced, c.unchanged), (0, 1, 0));
        assert_eq!(tx.rows[0].data, r#"{"v":9}"#);
        assert_eq!(tx.rows.len(), 2);
    }

    #[test]
    fn an_amendment_replaces_what_it_amends_in_either_order() {
        let original = batch(vec![
            rec("orig-1", "ACC1", 100).amending("issuer|owner|2024-01-02", "2024-01-03 ACC1", false),
            rec("orig-2", "ACC1", 200).amending("issuer|owner|2024-01-02", "2024-01-03 ACC1", false),
        ]);
        let amendment =
            batch(vec![rec("amend-1", "ACC2", 150).amending("issuer|owner|2024-01-02", "2024-02-01 ACC2", true)]);
        let unrelated = batch(vec![rec("other", "ACC3", 5).amending("issuer|other|2024-01-02", "2024-01-03", false)]);

        let mut in_order = MemTx::default();
        apply(&mut in_order, "d", "o", "1", &original).unwrap();
        apply(&mut in_order, "d", "u", "3", &unrelated).unwrap();
        let c = apply(&mut in_order, "d", "a", "2", &amendment).unwrap();
        assert_eq!((c.added, c.removed), (1, 2));
        let keys: Vec<&str> = in_order.rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["other", "amend-1"]);

        let mut reversed = MemTx::default();
        apply(&mut reversed, "d", "a", "2", &amendment).unwrap();
        let c = apply(&mut reversed, "d", "o", "1", &original).unwrap();
        assert_eq!((c.added, c.superseded), (0, 2), "the original arrives late and is superseded");
        let keys: Vec<&str> = reversed.rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["amend-1"]);

        // Re-ingesting either file afterwards changes nothing.
        let again = apply(&mut in_order, "d", "a", "2", &amendment).unwrap();
        assert!(!again.changed());
        let again = apply(&mut in_order, "d", "o", "1", &original).unwrap();
        assert!(!again.changed());
        assert_eq!(again.superseded, 2);
    }

    #[test]
    fn a_file_holding_a_filing_and_its_amendment_keeps_only_the_amendment() {
        // A page of many filings (LDA): the Q4 report and, posted later, its amendment.
        let page = batch(vec![
            rec("q4", "F1", 15000).amending("reg/client/2017/Q4", "2018-01-19", false),
            rec("other", "F2", 5).amending("reg/other/2017/Q4", "2018-01-19", false),
            rec("4a", "F3", 16000).amending("reg/client/2017/Q4", "2018-01-23", true),
        ]);
        let mut tx = MemTx::default();
        let c = apply(&mut tx, "d", "page", "1", &page).unwrap();
        assert_eq!((c.added, c.superseded), (2, 1));
        let keys: Vec<&str> = tx.rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["other", "4a"]);
        let again = apply(&mut tx, "d", "page", "1", &page).unwrap();
        assert!(!again.changed(), "{again:?}");

        // The report stored alone earlier goes when the page with its amendment arrives.
        let mut earlier = MemTx::default();
        apply(&mut earlier, "d", "q4", "0", &batch(vec![page.records[0].clone()])).unwrap();
        let c = apply(&mut earlier, "d", "page", "1", &page).unwrap();
        assert_eq!((c.removed, c.superseded), (1, 1));
        let keys: Vec<&str> = earlier.rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["other", "4a"]);
    }

    #[test]
    fn refused_rows_are_counted_and_bad_identities_refuse_the_file() {
        let mut tx = MemTx::default();
        let mut b = batch(vec![rec("a", "g", 1)]);
        b.problems.push(RowProblem::line(7, "bad date"));
        assert_eq!(apply(&mut tx, "d", "f", "s", &b).unwrap().refused, 1);
        let twice = batch(vec![rec("a", "g", 1), rec("a", "g", 2)]);
        let e = apply(&mut tx, "d", "f", "s2", &twice).unwrap_err();
        assert!(matches!(&e, EngineError::Invalid(m) if m.contains("twice")), "{e:?}");
        let reserved = batch(vec![IngestRecord::new("ingested", "k", "g", json!(1)).unwrap()]);
        let e = validate(&reserved).unwrap_err();
        assert!(matches!(&e, EngineError::Invalid(m) if m.contains("reserved")), "{e:?}");
    }

    #[test]
    fn an_unreadable_ingest_block_is_logged_not_silently_a_seed() {
        let (info, logs) = crate::log_capture::logged(|| ingested_info(r#"{"ingested": {"rows": "many"}}"#));
        assert_eq!(info, None);
        assert!(logs.contains("`ingested` block does not read"), "{logs}");
        let (info, logs) = crate::log_capture::logged(|| ingested_info("[1, 2]"));
        assert_eq!((info, logs.as_str()), (None, ""), "a document that is no object has no block to read");
    }

    #[test]
    fn documents_group_records_by_collection_and_expose_their_ingest_block() {
        let info =
            IngestedInfo { rows: 3, files: 2, last_ingest_at: "2026-11-22T10:00:00Z".into(), ..Default::default() };
        let doc = assemble(&info, [("filings", "{\"a\":1}"), ("trades", "[1]"), ("filings", "{\"a\":2}")]);
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(v["filings"], json!([{"a": 1}, {"a": 2}]));
        assert_eq!(v["trades"], json!([[1]]));
        assert_eq!(ingested_info(&doc), Some(info));
        assert_eq!(ingested_info(r#"{"meta": {}, "rows": []}"#), None);
    }
}
