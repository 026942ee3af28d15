//! Sync state in the records engine, so it is shared by every replica (PostgreSQL) or survives with the
//! embedded database (SQLite), and a sync killed mid-way resumes where it stopped:
//! - `sync_state(source, key, value)`: per-source cursors (last EDGAR index date per dataset, last accession,
//!   last success);
//! - `sync_validators(url, source, etag, last_modified, sha256)`: what the server said about the version we
//!   hold, for conditional requests; written only once that version has been stored whole;
//! - `sync_files(...)`: provenance of every raw file kept under `<engine.data_dir>/raw/` (source address,
//!   SHA-256, size, fetch time) and where it is in the ingest (`pending` until the ingest path has seen it);
//! - `sync_datasets(dataset, last_attempt_at, last_success_at, last_error)`: freshness, shown by `/health`.
//!
//! The tables themselves belong to the engine, which creates them: `engine::sqlite::SYNC_SCHEMA` and host
//! migration 4 (`engine::postgres::migrate::SYNC_MIGRATION`).
//!
//! The SQL is written once with `$n` parameters and a `{p}` table prefix; SQLite gets `?n` and no prefix.

use crate::engine::postgres::pool::PgEngine;
use crate::engine::sqlite::SqliteStore;
use crate::engine::Engine;

use super::http::Validators;

/// Advisory-lock key of `datahost sync` in PostgreSQL: one replica (or CLI run) syncs at a time.
pub const PG_LOCK_KEY: i64 = 727_175;

/// A value bound to or read from the SQL above.
#[derive(Debug, Clone, PartialEq)]
enum V {
    Null,
    Text(String),
    Int(i64),
}

impl V {
    fn text(self) -> Option<String> {
        match self {
            V::Text(s) => Some(s),
            V::Int(i) => Some(i.to_string()),
            V::Null => None,
        }
    }
}

/// The next cell of a state row that must hold text: a missing or NULL cell is an error (the tables declare
/// these columns NOT NULL), never an empty string.
fn required_text(cells: &mut impl Iterator<Item = V>, column: &str) -> Result<String, StateError> {
    cells.next().and_then(V::text).ok_or_else(|| StateError(format!("`{column}` is missing from a state row")))
}

/// The next cell of a state row that must hold a whole number: text that does not read as one is an error,
/// never 0 (a file id of 0 would match no row when the file is marked).
fn required_int(cells: &mut impl Iterator<Item = V>, column: &str) -> Result<i64, StateError> {
    let text = required_text(cells, column)?;
    text.parse().map_err(|_| StateError(format!("`{column}` of a state row is `{text}`, not a whole number")))
}

fn t(s: impl Into<String>) -> V {
    V::Text(s.into())
}

fn opt(s: Option<&str>) -> V {
    s.map_or(V::Null, |s| V::Text(s.to_string()))
}

/// Why the sync state could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("sync state in the records engine: {0}")]
pub struct StateError(String);

/// One raw file as recorded.
#[derive(Debug, Clone)]
pub struct FileRow {
    pub id: i64,
    pub dataset: String,
    pub url: String,
    /// Relative to `<engine.data_dir>/raw`.
    pub path: String,
    pub size: i64,
}

/// A raw file to record.
#[derive(Debug, Clone, Copy)]
pub struct NewFile<'a> {
    pub source: &'a str,
    pub dataset: &'a str,
    pub url: &'a str,
    /// Relative to `<engine.data_dir>/raw`.
    pub path: &'a str,
    pub sha256: &'a str,
    pub size: u64,
    /// `pending` (to ingest), `archive` (a container), `index` (read by the source itself).
    pub status: &'a str,
}

/// The state store of the engine in use.
pub enum SyncStore<'a> {
    Sqlite(&'a SqliteStore),
    Pg(&'a PgEngine),
}

impl<'a> SyncStore<'a> {
    pub fn of(engine: &'a Engine) -> Option<Self> {
        match (engine.pg(), engine.sqlite()) {
            (Some(pg), _) => Some(Self::Pg(pg)),
            (None, Some(store)) => Some(Self::Sqlite(store)),
            (None, None) => None,
        }
    }

    async fn exec(&self, sql: &str, params: Vec<V>) -> Result<u64, StateError> {
        match self {
            Self::Sqlite(store) => {
                let sql = sqlite_sql(sql);
                store.with_conn(|c| {
                    c.execute(&sql, rusqlite::params_from_iter(params.iter().map(to_sqlite)))
                        .map(|n| n as u64)
                        .map_err(|e| StateError(e.to_string()))
                })
            }
            Self::Pg(pg) => {
                let sql = sql.replace("{p}", "datahost.");
                let client = pg.client().await.map_err(|e| StateError(e.to_string()))?;
                let boxed = to_pg(&params);
                let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
                    boxed.iter().map(|b| b.as_ref() as &(dyn tokio_postgres::types::ToSql + Sync)).collect();
                client.execute(sql.as_str(), &refs).await.map_err(|e| StateError(e.to_string()))
            }
        }
    }

    async fn query(&self, sql: &str, params: Vec<V>) -> Result<Vec<Vec<V>>, StateError> {
        match self {
            Self::Sqlite(store) => {
                let sql = sqlite_sql(sql);
                store.with_conn(|c| {
                    let mut stmt = c.prepare_cached(&sql).map_err(|e| StateError(e.to_string()))?;
                    let n = stmt.column_count();
                    let rows = stmt
                        .query_map(rusqlite::params_from_iter(params.iter().map(to_sqlite)), |r| {
                            (0..n)
                                .map(|i| {
                                    Ok(match r.get_ref(i)? {
                                        rusqlite::types::ValueRef::Null => V::Null,
                                        rusqlite::types::ValueRef::Integer(i) => V::Int(i),
                                        rusqlite::types::ValueRef::Real(f) => V::Int(f as i64),
                                        rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => {
                                            V::Text(String::from_utf8_lossy(b).into_owned())
                                        }
                                    })
                                })
                                .collect::<rusqlite::Result<Vec<V>>>()
                        })
                        .map_err(|e| StateError(e.to_string()))?
                        .collect::<rusqlite::Result<Vec<_>>>()
                        .map_err(|e| StateError(e.to_string()));
                    rows
                })
            }
            Self::Pg(pg) => {
                use tokio_postgres::types::Type;
                let sql = sql.replace("{p}", "datahost.");
                let client = pg.client().await.map_err(|e| StateError(e.to_string()))?;
                let boxed = to_pg(&params);
                let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
                    boxed.iter().map(|b| b.as_ref() as &(dyn tokio_postgres::types::ToSql + Sync)).collect();
                let rows = client.query(sql.as_str(), &refs).await.map_err(|e| StateError(e.to_string()))?;
                rows.iter()
                    .map(|row| {
                        (0..row.len())
                            .map(|i| {
                                let v = match *row.columns()[i].type_() {
                                    Type::INT8 => row.try_get::<_, Option<i64>>(i).map(|v| v.map(V::Int)),
                                    Type::INT4 => row.try_get::<_, Option<i32>>(i).map(|v| v.map(|x| V::Int(x.into()))),
                                    _ => row.try_get::<_, Option<String>>(i).map(|v| v.map(V::Text)),
                                };
                                v.map(|v| v.unwrap_or(V::Null)).map_err(|e| StateError(e.to_string()))
                            })
                            .collect()
                    })
                    .collect()
            }
        }
    }

    pub async fn get(&self, source: &str, key: &str) -> Result<Option<String>, StateError> {
        let rows = self
            .query("SELECT value FROM {p}sync_state WHERE source = $1 AND key = $2", vec![t(source), t(key)])
            .await?;
        Ok(rows.into_iter().next().and_then(|r| r.into_iter().next()).and_then(V::text))
    }

    pub async fn set(&self, source: &str, key: &str, value: &str) -> Result<(), StateError> {
        self.exec(
            "INSERT INTO {p}sync_state (source, key, value, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (source, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            vec![t(source), t(key), t(value), t(now())],
        )
        .await
        .map(drop)
    }

    /// The validators and checksum of the version of `url` we hold.
    pub async fn validators(&self, url: &str) -> Result<Option<(Validators, String)>, StateError> {
        let rows = self
            .query("SELECT etag, last_modified, sha256 FROM {p}sync_validators WHERE url = $1", vec![t(url)])
            .await?;
        rows.into_iter()
            .next()
            .map(|r| {
                let mut it = r.into_iter();
                let etag = it.next().and_then(V::text);
                let last_modified = it.next().and_then(V::text);
                let sha = required_text(&mut it, "sha256")?;
                Ok((Validators { etag, last_modified }, sha))
            })
            .transpose()
    }

    pub async fn set_validators(
        &self,
        url: &str,
        source: &str,
        v: &Validators,
        sha256: &str,
    ) -> Result<(), StateError> {
        self.exec(
            "INSERT INTO {p}sync_validators (url, source, etag, last_modified, sha256, checked_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
                 sha256 = excluded.sha256, checked_at = excluded.checked_at",
            vec![t(url), t(source), opt(v.etag.as_deref()), opt(v.last_modified.as_deref()), t(sha256), t(now())],
        )
        .await
        .map(drop)
    }

    /// Whether a file was ever kept from `url` (immutable archives are never fetched twice).
    pub async fn known(&self, url: &str) -> Result<bool, StateError> {
        Ok(!self.query("SELECT 1 FROM {p}sync_files WHERE url = $1 LIMIT 1", vec![t(url)]).await?.is_empty())
    }

    /// Records a raw file; earlier rows of the same path are marked `superseded` (the file was replaced).
    pub async fn add_file(&self, f: &NewFile<'_>) -> Result<(), StateError> {
        self.exec(
            "UPDATE {p}sync_files SET status = 'superseded' WHERE path = $1 AND status <> 'deleted'",
            vec![t(f.path)],
        )
        .await?;
        self.exec(
            "INSERT INTO {p}sync_files (source, dataset, url, path, sha256, size, fetched_at, status)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            vec![
                t(f.source),
                t(f.dataset),
                t(f.url),
                t(f.path),
                t(f.sha256),
                V::Int(f.size as i64),
                t(now()),
                t(f.status),
            ],
        )
        .await
        .map(drop)
    }

    /// Raw files of `source` that the ingest path has not seen yet, oldest first.
    pub async fn pending(&self, source: &str) -> Result<Vec<FileRow>, StateError> {
        let rows = self
            .query(
                "SELECT id, dataset, url, path, size FROM {p}sync_files WHERE source = $1 AND status = 'pending'
                 ORDER BY id",
                vec![t(source)],
            )
            .await?;
        rows.into_iter().map(file_row).collect()
    }

    /// Records what the ingest made of a file (`applied`, `unchanged`, `refused`).
    pub async fn mark(&self, id: i64, status: &str, note: Option<&str>) -> Result<(), StateError> {
        self.exec(
            "UPDATE {p}sync_files SET status = $2, ingested_at = $3, note = $4 WHERE id = $1",
            vec![V::Int(id), t(status), t(now()), opt(note)],
        )
        .await
        .map(drop)
    }

    /// Raw files still on disk, in the order retention deletes them: ingested ones first (oldest ingest
    /// first), then the rest by fetch time.
    pub async fn kept_files(&self) -> Result<Vec<FileRow>, StateError> {
        let rows = self
            .query(
                "SELECT id, dataset, url, path, size FROM {p}sync_files WHERE status NOT IN ('superseded', 'deleted')
                 ORDER BY CASE WHEN ingested_at IS NULL THEN 1 ELSE 0 END, ingested_at, fetched_at, id",
                vec![],
            )
            .await?;
        rows.into_iter().map(file_row).collect()
    }

    pub async fn mark_deleted(&self, id: i64) -> Result<(), StateError> {
        self.exec("UPDATE {p}sync_files SET status = 'deleted' WHERE id = $1", vec![V::Int(id)]).await.map(drop)
    }

    /// Records a sync attempt of `dataset`; a success moves `last_success_at`.
    pub async fn dataset_done(&self, dataset: &str, error: Option<&str>) -> Result<(), StateError> {
        let at = now();
        let success = if error.is_none() { t(at.clone()) } else { V::Null };
        self.exec(
            "INSERT INTO {p}sync_datasets (dataset, last_attempt_at, last_success_at, last_error)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (dataset) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,
                 last_success_at = COALESCE(excluded.last_success_at, {p}sync_datasets.last_success_at),
                 last_error = excluded.last_error",
            vec![t(dataset), t(at), success, opt(error)],
        )
        .await
        .map(drop)
    }

    /// Per dataset: (last attempt, last success), RFC 3339.
    pub async fn freshness(&self) -> Result<Vec<(String, Option<String>, Option<String>)>, StateError> {
        let rows = self.query("SELECT dataset, last_attempt_at, last_success_at FROM {p}sync_datasets", vec![]).await?;
        rows.into_iter()
            .map(|r| {
                let mut it = r.into_iter();
                let d = required_text(&mut it, "dataset")?;
                Ok((d, it.next().and_then(V::text), it.next().and_then(V::text)))
            })
            .collect()
    }
}

fn file_row(r: Vec<V>) -> Result<FileRow, StateError> {
    let mut it = r.into_iter();
    Ok(FileRow {
        id: required_int(&mut it, "id")?,
        dataset: required_text(&mut it, "dataset")?,
        url: required_text(&mut it, "url")?,
        path: required_text(&mut it, "path")?,
        size: required_int(&mut it, "size")?,
    })
}

/// `$n` -> `?n` and no schema prefix.
fn sqlite_sql(sql: &str) -> String {
    sql.replace("{p}", "").replace('$', "?")
}

fn to_sqlite(v: &V) -> rusqlite::types::Value {
    match v {
        V::Null => rusqlite::types::Value::Null,
        V::Text(s) => rusqlite::types::Value::Text(s.clone()),
        V::Int(i) => rusqlite::types::Value::Integer(*i),
    }
}

fn to_pg(params: &[V]) -> Vec<Box<dyn tokio_postgres::types::ToSql + Sync + Send>> {
    params
        .iter()
        .map(|v| -> Box<dyn tokio_postgres::types::ToSql + Sync + Send> {
            match v {
                V::Null => Box::new(Option::<String>::None),
                V::Text(s) => Box::new(s.clone()),
                V::Int(i) => Box::new(*i),
            }
        })
        .collect()
}

pub(crate) fn now() -> String {
    crate::engine::sqlite::now()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn state_files_and_freshness_round_trip_in_the_embedded_engine() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = SqliteStore::open(dir.path()).unwrap();
        let store = SyncStore::Sqlite(&sqlite);
        assert_eq!(store.get("sec", "index_date:insiders").await.unwrap(), None);
        store.set("sec", "index_date:insiders", "2025-01-06").await.unwrap();
        store.set("sec", "index_date:insiders", "2025-01-07").await.unwrap();
        assert_eq!(store.get("sec", "index_date:insiders").await.unwrap().as_deref(), Some("2025-01-07"));

        let v = Validators { etag: Some("\"e1\"".into()), last_modified: None };
        store.set_validators("http://x/a", "fec", &v, "sha1").await.unwrap();
        assert_eq!(store.validators("http://x/a").await.unwrap(), Some((v, "sha1".into())));

        assert!(!store.known("http://x/f.txt").await.unwrap());
        let file = NewFile {
            source: "sec",
            dataset: "insiders",
            url: "http://x/f.txt",
            path: "sec/f.txt",
            sha256: "s",
            size: 10,
            status: "pending",
        };
        store.add_file(&file).await.unwrap();
        store.add_file(&NewFile { sha256: "s2", size: 12, ..file }).await.unwrap();
        assert!(store.known("http://x/f.txt").await.unwrap());
        let pending = store.pending("sec").await.unwrap();
        assert_eq!(pending.len(), 1, "the replaced version is superseded");
        assert_eq!((pending[0].path.as_str(), pending[0].size), ("sec/f.txt", 12));
        store.mark(pending[0].id, "applied", None).await.unwrap();
        assert!(store.pending("sec").await.unwrap().is_empty());
        assert_eq!(store.kept_files().await.unwrap().len(), 1);

        store.dataset_done("insiders", None).await.unwrap();
        store.dataset_done("insiders", Some("boom")).await.unwrap();
        let f = store.freshness().await.unwrap();
        assert_eq!(f.len(), 1);
        assert!(f[0].2.is_some(), "a failed attempt keeps the last success");
    }

    #[tokio::test]
    async fn an_unreadable_file_row_is_an_error_not_a_zero_size() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = SqliteStore::open(dir.path()).unwrap();
        sqlite
            .with_conn(|c| {
                c.execute(
                    "INSERT INTO sync_files (source, dataset, url, path, sha256, size, fetched_at, status)
                     VALUES ('sec', 'insiders', 'http://x/f.txt', 'sec/f.txt', 's', 'ten', 'now', 'pending')",
                    [],
                )
            })
            .unwrap();
        let err = SyncStore::Sqlite(&sqlite).pending("sec").await.unwrap_err();
        assert!(err.to_string().contains("`size` of a state row is `ten`"), "{err}");
    }
}
