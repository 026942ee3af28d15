//! Serving a dataset from the PostgreSQL records engine instead of memory: what the plugins whose datasets
//! are too large for memory (property, deeds, liens) share.
//!
//! - [`is_engine`]: whether the host runs the PostgreSQL engine (the plugin then answers with SQL).
//! - [`SeedTable`] and [`sync_seed`]: at `init`, the plugin copies its seed snapshot into its own tables,
//!   once per snapshot version: a `{schema}.seed_state` row remembers the checksum of what was synced. Rows
//!   are upserted in batches of [`BATCH_ROWS`] with one parameterised
//!   `INSERT ... SELECT ... FROM jsonb_to_recordset($1::jsonb)` each, then seed rows that left the snapshot
//!   are deleted. Only rows with `source = 'seed'` are ever written or deleted: rows loaded another way
//!   (`synthetic`, `ingest`) are never touched, even when they share a key with a seed row. Upserting before
//!   deleting means a concurrent reader never sees a seed row missing, and two replicas syncing at once
//!   converge on the same rows.
//! - [`query`]: runs one query for a request and maps any engine failure to a 503 naming the dataset (the
//!   details go to the host log, not to the caller).
//! - [`text_array`]: a `text[]` literal for a parameter (`$1::text[]`), so the planner sees the values.

use serde::de::DeserializeOwned;
use serde_json::Value;

use datahost_plugin_api::{ApiError, BoxError, Host, LogLevel};

/// Rows per `INSERT` when syncing a seed.
pub const BATCH_ROWS: usize = 1000;

/// The `engine_kind` of the PostgreSQL records engine.
pub const POSTGRES: &str = "postgres";

/// Whether the host serves datasets from PostgreSQL (plugins then query their tables instead of holding
/// the records in memory).
pub fn is_engine(host: &Host) -> bool {
    host.engine_kind() == POSTGRES
}

/// The migration creating `seed_state`, which every plugin using [`sync_seed`] includes once.
pub const SEED_STATE_TABLE: &str = "CREATE TABLE IF NOT EXISTS seed_state (
    dataset   text PRIMARY KEY,
    checksum  text NOT NULL,
    row_count bigint NOT NULL,
    synced_at timestamptz NOT NULL DEFAULT now()
);";

/// A table a seed snapshot is copied into. Every such table has a `source text NOT NULL` column (`seed` for
/// the rows [`sync_seed`] manages) and a unique index over `key`.
#[derive(Debug, Clone, Copy)]
pub struct SeedTable {
    /// Table name inside the plugin's schema.
    pub name: &'static str,
    /// Columns written from the seed rows, with their SQL types (`text`, `date`, `float8`, `text[]`...).
    /// A seed row is a JSON object with these keys; JSON arrays fill array columns.
    pub columns: &'static [(&'static str, &'static str)],
    /// The columns of the table's unique key (a subset of `columns`).
    pub key: &'static [&'static str],
}

fn record_type(columns: &[(&str, &str)]) -> String {
    columns.iter().map(|(c, t)| format!("{c} {t}")).collect::<Vec<_>>().join(", ")
}

impl SeedTable {
    /// The upsert of one batch (`$1` = a JSON array of row objects). A key held by a row of another source
    /// is left alone.
    pub fn upsert_sql(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|(c, _)| *c).collect();
        let updates: Vec<String> =
            names.iter().filter(|c| !self.key.contains(c)).map(|c| format!("{c} = EXCLUDED.{c}")).collect();
        let on_conflict = if updates.is_empty() {
            "DO NOTHING".to_string()
        } else {
            format!("DO UPDATE SET {} WHERE t.source = 'seed'", updates.join(", "))
        };
        format!(
            "INSERT INTO {{schema}}.{table} AS t ({cols}, source) SELECT {cols}, 'seed' FROM \
             jsonb_to_recordset($1::jsonb) AS r({record}) ON CONFLICT ({key}) {on_conflict}",
            table = self.name,
            cols = names.join(", "),
            record = record_type(self.columns),
            key = self.key.join(", "),
        )
    }

    /// The delete of seed rows whose key is not in `$1` (a JSON array of key objects).
    pub fn delete_stale_sql(&self) -> String {
        let key_types: Vec<(&str, &str)> =
            self.columns.iter().filter(|(c, _)| self.key.contains(c)).map(|(c, t)| (*c, *t)).collect();
        let same: Vec<String> = self.key.iter().map(|c| format!("k.{c} = t.{c}")).collect();
        format!(
            "DELETE FROM {{schema}}.{table} AS t WHERE t.source = 'seed' AND NOT EXISTS (SELECT 1 FROM \
             jsonb_to_recordset($1::jsonb) AS k({record}) WHERE {same})",
            table = self.name,
            record = record_type(&key_types),
            same = same.join(" AND "),
        )
    }

    fn key_of(&self, row: &Value) -> Value {
        Value::Object(self.key.iter().map(|k| (k.to_string(), row.get(*k).cloned().unwrap_or(Value::Null))).collect())
    }
}

/// What [`sync_seed`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedSync {
    /// The stored checksum matched: nothing was written.
    Unchanged,
    /// The seed rows were (re)written: rows upserted per table, in order.
    Synced(Vec<usize>),
}

/// A checksum of a seed snapshot plus the plugin's own layout version (bump the version when the rows
/// derived from an unchanged snapshot change, for example the match tokens). FNV-1a, 64 bits: it only has
/// to tell versions apart, not resist forgery.
pub fn checksum(layout_version: &str, snapshot: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in layout_version.bytes().chain([0u8]).chain(snapshot.bytes()) {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}-{}", snapshot.len())
}

/// Copies a seed snapshot's rows into the plugin's tables unless `{schema}.seed_state` says this checksum
/// is already there. `tables` gives each table with its rows (JSON objects keyed by column), in the order
/// to write them; it is only called when a sync is needed, and the rows are dropped afterwards.
pub fn sync_seed(
    host: &Host,
    dataset: &str,
    checksum: &str,
    tables: impl FnOnce() -> Vec<(SeedTable, Vec<Value>)>,
) -> Result<SeedSync, BoxError> {
    let stored = host.query("SELECT checksum FROM {schema}.seed_state WHERE dataset = $1", &[dataset.into()])?;
    if stored.first().and_then(|r| r["checksum"].as_str()) == Some(checksum) {
        return Ok(SeedSync::Unchanged);
    }
    let tables = tables();
    let mut counts = Vec::with_capacity(tables.len());
    let mut total = 0usize;
    for (table, rows) in tables {
        let upsert = table.upsert_sql();
        let keys: Vec<Value> = rows.iter().map(|r| table.key_of(r)).collect();
        for batch in rows.chunks(BATCH_ROWS) {
            host.query(&upsert, &[Value::Array(batch.to_vec())])
                .map_err(|e| format!("syncing the {dataset} seed into {}: {e}", table.name))?;
        }
        host.query(&table.delete_stale_sql(), &[Value::Array(keys)])
            .map_err(|e| format!("removing stale {dataset} seed rows from {}: {e}", table.name))?;
        counts.push(rows.len());
        total += rows.len();
    }
    host.query(
        "INSERT INTO {schema}.seed_state (dataset, checksum, row_count) VALUES ($1, $2, $3)
         ON CONFLICT (dataset) DO UPDATE SET checksum = EXCLUDED.checksum, row_count = EXCLUDED.row_count,
             synced_at = now()",
        &[dataset.into(), checksum.into(), (total as i64).into()],
    )
    .map_err(|e| format!("recording the {dataset} seed checksum: {e}"))?;
    Ok(SeedSync::Synced(counts))
}

/// Where a plugin's records are: in memory (embedded engine, or a fallback) or in its PostgreSQL tables.
pub enum Store<M> {
    /// The records held in the plugin's memory: the embedded engine, or engine mode when the seed could not be
    /// synced (degraded start).
    Memory(M),
    /// Engine mode: the records are in the plugin's PostgreSQL tables, read per request through this host.
    Engine(Host),
}

/// The usual `init` of a dataset served from SQL in engine mode: reads the snapshot, checks that it parses
/// (in both modes), and then either builds the in-memory form (`memory`) or, in engine mode, syncs the seed rows
/// (`rows`, see [`sync_seed`]) and drops the snapshot. When the engine cannot take the seed (unreachable at
/// start, `engine.degraded_start`), the plugin serves the snapshot from memory and says so in the log; the
/// host re-initialises it once the engine is back.
pub fn load_store<S: DeserializeOwned, M>(
    host: &Host,
    dataset: &str,
    layout_version: &str,
    rows: impl FnOnce(&S) -> Vec<(SeedTable, Vec<Value>)>,
    memory: impl FnOnce(S) -> M,
) -> Result<Store<M>, BoxError> {
    let raw = host.load_dataset_raw(dataset)?;
    let snapshot: S =
        serde_json::from_str(&raw).map_err(|e| format!("dataset `{dataset}` does not match its schema: {e}"))?;
    if !is_engine(host) {
        return Ok(Store::Memory(memory(snapshot)));
    }
    let sum = checksum(layout_version, &raw);
    drop(raw);
    match sync_seed(host, dataset, &sum, || rows(&snapshot)) {
        Ok(outcome) => {
            if let SeedSync::Synced(counts) = outcome {
                host.log(LogLevel::Info, &format!("{dataset}: seed rows synced into the records engine: {counts:?}"));
            }
            Ok(Store::Engine(*host))
        }
        Err(e) => {
            host.log(
                LogLevel::Error,
                &format!(
                    "{dataset}: cannot sync the seed into the records engine ({e}); serving the snapshot from memory"
                ),
            );
            Ok(Store::Memory(memory(snapshot)))
        }
    }
}

/// The answer to a caller when the records engine fails: 503 naming the dataset.
pub fn unavailable(dataset: &str) -> ApiError {
    ApiError::unavailable(format!(
        "the {dataset} dataset is temporarily unavailable: the records engine did not answer; retry shortly"
    ))
}

/// Runs one query for a request. An engine failure is logged with its details and becomes
/// [`unavailable`] (503) for the caller.
pub fn query(host: &Host, dataset: &str, sql: &str, params: &[Value]) -> Result<Vec<Value>, ApiError> {
    host.query(sql, params).map_err(|e| {
        host.log(LogLevel::Error, &format!("{dataset} query failed: {e}"));
        unavailable(dataset)
    })
}

/// Deserialises query rows (JSON objects keyed by column alias) into records; extra columns are ignored.
pub fn rows_as<T: DeserializeOwned>(dataset: &str, rows: &[Value]) -> Result<Vec<T>, ApiError> {
    rows.iter()
        .map(|r| {
            T::deserialize(r)
                .map_err(|e| ApiError::internal(format!("a {dataset} row from the records engine is malformed: {e}")))
        })
        .collect()
}

/// A PostgreSQL `text[]` literal (`{"a","b"}`) for a parameter cast with `$n::text[]`: unlike an array
/// built from JSON inside the query, the planner sees the values and can estimate an index lookup.
pub fn text_array<S: AsRef<str>>(items: &[S]) -> String {
    let quoted: Vec<String> =
        items.iter().map(|s| format!("\"{}\"", s.as_ref().replace('\\', "\\\\").replace('"', "\\\""))).collect();
    format!("{{{}}}", quoted.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: SeedTable = SeedTable {
        name: "things",
        columns: &[("county", "text"), ("number", "text"), ("filed", "date"), ("tokens", "text[]")],
        key: &["county", "number"],
    };

    #[test]
    fn upsert_binds_one_json_batch_and_spares_other_sources() {
        assert_eq!(
            TABLE.upsert_sql(),
            "INSERT INTO {schema}.things AS t (county, number, filed, tokens, source) SELECT county, number, \
             filed, tokens, 'seed' FROM jsonb_to_recordset($1::jsonb) AS r(county text, number text, filed date, \
             tokens text[]) ON CONFLICT (county, number) DO UPDATE SET filed = EXCLUDED.filed, tokens = \
             EXCLUDED.tokens WHERE t.source = 'seed'"
        );
        let keys_only = SeedTable { name: "k", columns: &[("slug", "text")], key: &["slug"] };
        assert!(keys_only.upsert_sql().ends_with("ON CONFLICT (slug) DO NOTHING"));
    }

    #[test]
    fn stale_delete_compares_the_whole_key() {
        assert_eq!(
            TABLE.delete_stale_sql(),
            "DELETE FROM {schema}.things AS t WHERE t.source = 'seed' AND NOT EXISTS (SELECT 1 FROM \
             jsonb_to_recordset($1::jsonb) AS k(county text, number text) WHERE k.county = t.county AND k.number \
             = t.number)"
        );
        let row = serde_json::json!({"county": "a", "number": "1", "filed": "2020-01-01", "tokens": []});
        assert_eq!(TABLE.key_of(&row), serde_json::json!({"county": "a", "number": "1"}));
    }

    #[test]
    fn checksums_tell_versions_apart() {
        let a = checksum("v1", "{\"x\": 1}");
        assert_eq!(a, checksum("v1", "{\"x\": 1}"));
        assert_ne!(a, checksum("v2", "{\"x\": 1}"), "the layout version counts");
        assert_ne!(a, checksum("v1", "{\"x\": 2}"));
        assert_ne!(checksum("v", "1x"), checksum("v1", "x"), "the separator keeps the parts apart");
    }

    #[test]
    fn text_array_literals_quote_everything() {
        assert_eq!(text_array(&["travis-tx:OBRIEN", "A B"]), r#"{"travis-tx:OBRIEN","A B"}"#);
        assert_eq!(text_array(&[r#"say "hi"\"#]), r#"{"say \"hi\"\\"}"#);
        assert_eq!(text_array::<&str>(&[]), "{}");
    }

    #[test]
    fn engine_failures_are_503_naming_the_dataset() {
        let e = unavailable("deeds");
        assert_eq!(e.status, 503);
        assert!(e.message.starts_with("the deeds dataset is temporarily unavailable"), "{}", e.message);
    }
}
