//! The embedded records engine's durable half: one SQLite file (`<engine.data_dir>/datahost.db`, WAL mode,
//! the library bundled so nothing needs installing). It holds ingested records with their provenance and the
//! dataset documents assembled from them; the same tables as PostgreSQL mode (see `records.rs`). A running
//! server and a `datahost ingest` in another process share the file: WAL lets the server read while ingest
//! writes, and the server notices new documents by their checksums.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use crate::engine::error::{sqlite as err, EngineError};
use crate::engine::records::{self, Bound, Counts, Dialect, RecordsTx, StoredRecord};
use crate::engine::words::{self, KeptTotals};
use datahost_plugin_api::query::{RecordIndex, RecordsQuery};
use datahost_plugin_api::words::{WordIndex, WordPage, WordSearch};

/// The database file name inside `engine.data_dir`.
pub const DB_FILE: &str = "datahost.db";

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS datasets (
    name       TEXT PRIMARY KEY,
    snapshot   TEXT NOT NULL,
    checksum   TEXT NOT NULL,
    source     TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ingest_files (
    id          INTEGER PRIMARY KEY,
    dataset     TEXT NOT NULL,
    name        TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    format      TEXT NOT NULL,
    ingested_at TEXT NOT NULL,
    added       INTEGER NOT NULL DEFAULT 0,
    replaced    INTEGER NOT NULL DEFAULT 0,
    unchanged   INTEGER NOT NULL DEFAULT 0,
    removed     INTEGER NOT NULL DEFAULT 0,
    superseded  INTEGER NOT NULL DEFAULT 0,
    refused     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS records (
    seq        INTEGER PRIMARY KEY,
    dataset    TEXT NOT NULL,
    collection TEXT NOT NULL,
    key        TEXT NOT NULL,
    grp        TEXT NOT NULL,
    lineage    TEXT,
    revision   TEXT NOT NULL,
    amendment  INTEGER NOT NULL,
    file_id    INTEGER NOT NULL REFERENCES ingest_files(id),
    data       TEXT NOT NULL,
    UNIQUE (dataset, collection, key)
);
CREATE INDEX IF NOT EXISTS records_lineage ON records (dataset, lineage) WHERE lineage IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_group ON records (dataset, grp);
CREATE TABLE IF NOT EXISTS dataset_state (
    dataset           TEXT PRIMARY KEY,
    version           INTEGER NOT NULL DEFAULT 0,
    assembled_version INTEGER NOT NULL DEFAULT 0
);
"#;

/// Runs one statement of text parameters; every cell of the answer as text (`CAST` in the SQL where needed).
fn sqlite_rows(conn: &Connection, s: &words::Statement) -> Result<words::Rows, EngineError> {
    let mut stmt = conn.prepare_cached(&s.sql).map_err(err("preparing a word index statement"))?;
    let columns = stmt.column_count();
    let rows = stmt
        .query_map(rusqlite::params_from_iter(s.params.iter()), |r| {
            (0..columns).map(|i| r.get::<_, Option<String>>(i).map(Option::unwrap_or_default)).collect()
        })
        .map_err(err("running a word index statement"))?
        .collect::<Result<Vec<Vec<String>>, _>>()
        .map_err(err("reading a word index statement"));
    rows
}

/// The embedded store. One connection behind a mutex: SQLite serialises writers anyway, and reads here are
/// rare (start-up, a checksum poll every few seconds).
pub struct SqliteStore {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl SqliteStore {
    /// Opens (creating when needed) the database under `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, EngineError> {
        std::fs::create_dir_all(data_dir).map_err(|source| EngineError::Io {
            doing: "cannot create engine.data_dir",
            path: data_dir.to_path_buf(),
            source,
        })?;
        let path = data_dir.join(DB_FILE);
        let file = |doing| {
            let path = path.clone();
            move |source| EngineError::SqliteFile { doing, path, source }
        };
        let conn = Connection::open(&path).map_err(file("cannot open"))?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(err("busy timeout"))?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(err("WAL mode"))?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(err("synchronous"))?;
        conn.execute_batch(SCHEMA).map_err(file("cannot create the tables in"))?;
        conn.execute_batch(SYNC_SCHEMA).map_err(file("cannot create the sync tables in"))?;
        Ok(Self { path, conn: Mutex::new(conn) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the connection (for the sync state tables of `sync/state.rs`).
    pub(crate) fn with_conn<T>(&self, f: impl FnOnce(&Connection) -> T) -> T {
        f(&self.lock())
    }

    /// Checksums of every stored document.
    pub fn dataset_checksums(&self) -> Result<HashMap<String, String>, EngineError> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached("SELECT name, checksum FROM datasets").map_err(err("listing datasets"))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(err("listing datasets"))?
            .collect::<Result<_, _>>()
            .map_err(err("listing datasets"));
        rows
    }

    pub fn fetch_dataset(&self, name: &str) -> Result<Option<String>, EngineError> {
        self.lock()
            .query_row("SELECT snapshot FROM datasets WHERE name = ?1", [name], |r| r.get(0))
            .optional()
            .map_err(err("reading a dataset"))
    }

    /// Builds the index a plugin declared for `dataset` (once; later calls find it).
    pub fn ensure_index(&self, dataset: &str, index: &RecordIndex) -> Result<(), EngineError> {
        let sql = records::create_index_sql(Dialect::Sqlite, "records", dataset, index);
        self.lock().execute_batch(&sql).map_err(err("creating a record index"))
    }

    /// The stored JSON texts a records query matches (validated by the caller against the declared indexes), up to
    /// one past its limit (`records::page`).
    pub fn query_rows(&self, q: &RecordsQuery) -> Result<Vec<String>, EngineError> {
        let (sql, values) = records::query_sql(Dialect::Sqlite, "records", q);
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&sql).map_err(err("preparing a records query"))?;
        let bound: Vec<rusqlite::types::Value> = values
            .into_iter()
            .map(|v| match v {
                Bound::Text(t) => rusqlite::types::Value::Text(t),
                Bound::Int(i) => rusqlite::types::Value::Integer(i),
                Bound::TextList(_) => unreachable!("records::query_sql binds lists on PostgreSQL only"),
            })
            .collect();
        let rows = stmt
            .query_map(rusqlite::params_from_iter(bound), |r| r.get::<_, String>(0))
            .map_err(err("running a records query"))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err("reading a records query"))?;
        Ok(rows)
    }

    /// Makes sure the word index table of `dataset` exists, is built from the records held, and is indexed.
    pub fn ensure_word_index(&self, dataset: &str, index: &WordIndex) -> Result<(), EngineError> {
        let d = Dialect::Sqlite;
        let mut conn = self.lock();
        conn.execute_batch(&words::table_sql(d)).map_err(err("creating the word index table"))?;
        let tx = conn.transaction().map_err(err("begin"))?;
        if words::answered_yes(&sqlite_rows(&tx, &words::missing_sql(d, dataset, index))?) {
            for statement in words::refresh_sql(d, dataset, index, None) {
                sqlite_rows(&tx, &statement)?;
            }
        }
        if words::answered_yes(&sqlite_rows(&tx, &words::counts_missing_sql(d, dataset))?) {
            for statement in words::counts_build_sql(d, dataset) {
                sqlite_rows(&tx, &statement)?;
            }
        }
        if words::answered_yes(&sqlite_rows(&tx, &words::documents_missing_sql(d, dataset, index))?) {
            for statement in words::documents_sql(d, dataset, index, None) {
                sqlite_rows(&tx, &statement)?;
            }
        }
        tx.execute_batch(&words::index_sql(d)).map_err(err("indexing the word index"))?;
        tx.commit().map_err(err("commit"))
    }

    /// Answers a word search (validated by the caller).
    pub fn search_words(&self, q: &WordSearch, with_records: bool, kept: &KeptTotals) -> Result<WordPage, EngineError> {
        let conn = self.lock();
        words::search(Dialect::Sqlite, q, with_records, kept, |statements| {
            statements.iter().map(|s| sqlite_rows(&conn, s)).collect()
        })
    }

    /// Applies one parsed file in one transaction, refreshing the word index rows of the documents it touched.
    pub fn apply_file(
        &self,
        dataset: &str,
        file_name: &str,
        sha256: &str,
        batch: &datahost_plugin_api::IngestBatch,
        word_index: Option<&WordIndex>,
    ) -> Result<Counts, EngineError> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(err("begin"))?;
        let mut wrapped = SqliteTx { tx };
        let counts = records::apply(&mut wrapped, dataset, file_name, sha256, batch)?;
        if let Some(index) = word_index.filter(|_| counts.changed()) {
            for statement in words::file_refresh_sql(Dialect::Sqlite, dataset, index, batch) {
                sqlite_rows(&wrapped.tx, &statement)?;
            }
        }
        wrapped.tx.commit().map_err(err("commit"))?;
        Ok(counts)
    }

    /// Re-assembles the dataset's document if its records changed since the last assembly (also after an
    /// interrupted run). Returns whether the document changed.
    /// The collections of `in_table` (those with declared record indexes) stay out of the document; the
    /// `ingested` block then counts every collection.
    pub fn assemble_if_changed(&self, dataset: &str, in_table: &[String]) -> Result<bool, EngineError> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(err("begin"))?;
        let state: Option<(i64, i64)> = tx
            .query_row("SELECT version, assembled_version FROM dataset_state WHERE dataset = ?1", [dataset], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .map_err(err("reading dataset state"))?;
        let Some((version, assembled)) = state else { return Ok(false) };
        if version == assembled {
            return Ok(false);
        }
        let (files, last): (i64, Option<String>) = tx
            .query_row("SELECT count(*), max(ingested_at) FROM ingest_files WHERE dataset = ?1", [dataset], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(err("counting files"))?;
        // Collections kept in the table (declared indexes) stay out of the document; only their counts go in.
        let placeholders: Vec<String> = (0..in_table.len()).map(|i| format!("?{}", i + 2)).collect();
        let not_in_table = if in_table.is_empty() {
            String::new()
        } else {
            format!(" AND collection NOT IN ({})", placeholders.join(", "))
        };
        let bound: Vec<&str> = std::iter::once(dataset).chain(in_table.iter().map(String::as_str)).collect();
        let rows: Vec<(String, String)> = {
            let sql = format!(
                "SELECT collection, data FROM records WHERE dataset = ?1{not_in_table} ORDER BY collection, seq"
            );
            let mut stmt = tx.prepare(&sql).map_err(err("reading records"))?;
            let collected = stmt
                .query_map(rusqlite::params_from_iter(bound.iter()), |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(err("reading records"))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(err("reading records"))?;
            collected
        };
        let counts = if in_table.is_empty() {
            None
        } else {
            let mut stmt = tx
                .prepare("SELECT collection, count(*) FROM records WHERE dataset = ?1 GROUP BY collection")
                .map_err(err("counting records"))?;
            let collected = stmt
                .query_map([dataset], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(err("counting records"))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(err("counting records"))?;
            Some(collected)
        };
        let document = records::document(files as u64, last.unwrap_or_default(), counts, &rows);
        tx.execute(
            "INSERT INTO datasets (name, snapshot, checksum, source, updated_at) VALUES (?1, ?2, ?3, 'ingest', ?4)
             ON CONFLICT (name) DO UPDATE SET snapshot = excluded.snapshot, checksum = excluded.checksum,
                 source = excluded.source, updated_at = excluded.updated_at",
            params![dataset, document, records::checksum(&document), now()],
        )
        .map_err(err("storing the dataset"))?;
        tx.execute("UPDATE dataset_state SET assembled_version = version WHERE dataset = ?1", [dataset])
            .map_err(err("updating dataset state"))?;
        tx.commit().map_err(err("commit"))?;
        Ok(true)
    }

    /// Datasets whose records changed since their document was assembled.
    pub fn stale_datasets(&self) -> Result<Vec<String>, EngineError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare("SELECT dataset FROM dataset_state WHERE version <> assembled_version")
            .map_err(err("reading dataset state"))?;
        let names = stmt
            .query_map([], |r| r.get(0))
            .map_err(err("reading dataset state"))?
            .collect::<Result<Vec<String>, _>>()
            .map_err(err("reading dataset state"));
        names
    }
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

struct SqliteTx<'c> {
    tx: rusqlite::Transaction<'c>,
}

fn row_to_record(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRecord> {
    Ok(StoredRecord {
        collection: r.get(0)?,
        key: r.get(1)?,
        group: r.get(2)?,
        lineage: r.get(3)?,
        revision: r.get(4)?,
        amendment: r.get::<_, i64>(5)? != 0,
        data: r.get(6)?,
    })
}

const RECORD_COLUMNS: &str = "collection, key, grp, lineage, revision, amendment, data";

impl RecordsTx for SqliteTx<'_> {
    fn get(&mut self, dataset: &str, collection: &str, key: &str) -> Result<Option<StoredRecord>, EngineError> {
        let mut stmt = self
            .tx
            .prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM records WHERE dataset = ?1 AND collection = ?2 AND key = ?3"
            ))
            .map_err(err("reading a record"))?;
        stmt.query_row(params![dataset, collection, key], row_to_record).optional().map_err(err("reading a record"))
    }

    fn lineage(&mut self, dataset: &str, lineage: &str) -> Result<Vec<StoredRecord>, EngineError> {
        let mut stmt = self
            .tx
            .prepare_cached(&format!("SELECT {RECORD_COLUMNS} FROM records WHERE dataset = ?1 AND lineage = ?2"))
            .map_err(err("reading a lineage"))?;
        let rows = stmt
            .query_map(params![dataset, lineage], row_to_record)
            .map_err(err("reading a lineage"))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err("reading a lineage"));
        rows
    }

    fn delete(&mut self, dataset: &str, collection: &str, key: &str) -> Result<(), EngineError> {
        self.tx
            .prepare_cached("DELETE FROM records WHERE dataset = ?1 AND collection = ?2 AND key = ?3")
            .and_then(|mut s| s.execute(params![dataset, collection, key]))
            .map(|_| ())
            .map_err(err("deleting a record"))
    }

    fn upsert(&mut self, dataset: &str, r: &StoredRecord, file_id: i64) -> Result<(), EngineError> {
        self.tx
            .prepare_cached(
                "INSERT INTO records (dataset, collection, key, grp, lineage, revision, amendment, file_id, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                 ON CONFLICT (dataset, collection, key) DO UPDATE SET grp = excluded.grp,
                     lineage = excluded.lineage, revision = excluded.revision, amendment = excluded.amendment,
                     file_id = excluded.file_id, data = excluded.data",
            )
            .and_then(|mut s| {
                s.execute(params![
                    dataset,
                    r.collection,
                    r.key,
                    r.group,
                    r.lineage,
                    r.revision,
                    r.amendment as i64,
                    file_id,
                    r.data
                ])
            })
            .map(|_| ())
            .map_err(err("writing a record"))
    }

    fn insert_file(&mut self, dataset: &str, name: &str, sha256: &str, format: &str) -> Result<i64, EngineError> {
        self.tx
            .execute(
                "INSERT INTO ingest_files (dataset, name, sha256, format, ingested_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![dataset, name, sha256, format, now()],
            )
            .map_err(err("recording the file"))?;
        Ok(self.tx.last_insert_rowid())
    }

    fn finish_file(&mut self, file_id: i64, c: &Counts) -> Result<(), EngineError> {
        self.tx
            .execute(
                "UPDATE ingest_files SET added = ?2, replaced = ?3, unchanged = ?4, removed = ?5, superseded = ?6,
                     refused = ?7 WHERE id = ?1",
                params![
                    file_id,
                    c.added as i64,
                    c.replaced as i64,
                    c.unchanged as i64,
                    c.removed as i64,
                    c.superseded as i64,
                    c.refused as i64
                ],
            )
            .map(|_| ())
            .map_err(err("recording the file"))
    }

    fn bump_version(&mut self, dataset: &str) -> Result<(), EngineError> {
        self.tx
            .execute(
                "INSERT INTO dataset_state (dataset, version) VALUES (?1, 1)
                 ON CONFLICT (dataset) DO UPDATE SET version = version + 1",
                [dataset],
            )
            .map(|_| ())
            .map_err(err("updating dataset state"))
    }
}

/// The sync state tables (`sync::state`) in the embedded engine (created with the others when the database opens).
pub const SYNC_SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS sync_state (
    source     TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (source, key)
);
CREATE TABLE IF NOT EXISTS sync_validators (
    url           TEXT PRIMARY KEY,
    source        TEXT NOT NULL,
    etag          TEXT,
    last_modified TEXT,
    sha256        TEXT NOT NULL,
    checked_at    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sync_files (
    id          INTEGER PRIMARY KEY,
    source      TEXT NOT NULL,
    dataset     TEXT NOT NULL,
    url         TEXT NOT NULL,
    path        TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    size        INTEGER NOT NULL,
    fetched_at  TEXT NOT NULL,
    status      TEXT NOT NULL,
    ingested_at TEXT,
    note        TEXT
);
CREATE INDEX IF NOT EXISTS sync_files_url ON sync_files (url);
CREATE INDEX IF NOT EXISTS sync_files_status ON sync_files (source, status);
CREATE TABLE IF NOT EXISTS sync_datasets (
    dataset         TEXT PRIMARY KEY,
    last_attempt_at TEXT,
    last_success_at TEXT,
    last_error      TEXT
);
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use datahost_plugin_api::{IngestBatch, IngestRecord};
    use serde_json::json;

    #[test]
    fn records_survive_reopening_and_documents_are_assembled_once_per_change() {
        let dir = tempfile::tempdir().unwrap();
        let batch = IngestBatch {
            format: "t".into(),
            records: vec![IngestRecord::new("rows", "k1", "g", json!({"x": 1})).unwrap()],
            ..Default::default()
        };
        {
            let store = SqliteStore::open(dir.path()).unwrap();
            assert_eq!(store.apply_file("d", "a.txt", "sha", &batch, None).unwrap().added, 1);
            assert_eq!(store.stale_datasets().unwrap(), ["d"]);
            assert!(store.assemble_if_changed("d", &[]).unwrap());
            assert!(!store.assemble_if_changed("d", &[]).unwrap(), "nothing changed since");
        }
        let store = SqliteStore::open(dir.path()).unwrap();
        let doc = store.fetch_dataset("d").unwrap().unwrap();
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(v["rows"], json!([{"x": 1}]));
        assert_eq!(v["ingested"]["rows"], 1);
        assert_eq!(v["ingested"]["files"], 1);
        assert!(store.dataset_checksums().unwrap().contains_key("d"));
        assert_eq!(store.apply_file("d", "a.txt", "sha", &batch, None).unwrap().unchanged, 1);
        assert!(store.stale_datasets().unwrap().is_empty());
    }
}
