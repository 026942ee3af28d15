//! Ingested records in PostgreSQL: the same tables and rules as the embedded engine (`records.rs`), so every
//! replica serves what any `datahost ingest` wrote. Assembled documents go into `datahost.datasets`, whose
//! trigger NOTIFYs the replicas; they reload them atomically as they always did.

use datahost_plugin_api::IngestBatch;

use crate::engine::error::{postgres as err, EngineError};
use crate::engine::postgres::pool::PgEngine;
use crate::engine::records::{self, Bound, Counts, Dialect, RecordsTx, StoredRecord};
use crate::engine::words::{self, KeptTotals};
use datahost_plugin_api::query::{RecordIndex, RecordsQuery};
use datahost_plugin_api::words::{WordIndex, WordPage, WordSearch};
use tokio_postgres::types::{ToSql, Type};

/// Host migration 3.
pub const MIGRATION: &str = r#"
CREATE TABLE IF NOT EXISTS datahost.ingest_files (
    id          bigserial PRIMARY KEY,
    dataset     text NOT NULL,
    name        text NOT NULL,
    sha256      text NOT NULL,
    format      text NOT NULL,
    ingested_at text NOT NULL,
    added       bigint NOT NULL DEFAULT 0,
    replaced    bigint NOT NULL DEFAULT 0,
    unchanged   bigint NOT NULL DEFAULT 0,
    removed     bigint NOT NULL DEFAULT 0,
    superseded  bigint NOT NULL DEFAULT 0,
    refused     bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS datahost.records (
    seq        bigserial PRIMARY KEY,
    dataset    text NOT NULL,
    collection text NOT NULL,
    key        text NOT NULL,
    grp        text NOT NULL,
    lineage    text,
    revision   text NOT NULL,
    amendment  boolean NOT NULL,
    file_id    bigint NOT NULL REFERENCES datahost.ingest_files(id),
    data       text NOT NULL,
    UNIQUE (dataset, collection, key)
);
CREATE INDEX IF NOT EXISTS records_lineage ON datahost.records (dataset, lineage) WHERE lineage IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_group ON datahost.records (dataset, grp);
CREATE TABLE IF NOT EXISTS datahost.dataset_state (
    dataset           text PRIMARY KEY,
    version           bigint NOT NULL DEFAULT 0,
    assembled_version bigint NOT NULL DEFAULT 0
);
"#;

impl PgEngine {
    /// Builds the index a plugin declared for `dataset` (once; later calls find it).
    pub fn ensure_index(&self, dataset: &str, index: &RecordIndex) -> Result<(), EngineError> {
        let sql = records::create_index_sql(Dialect::Postgres, "datahost.records", dataset, index);
        crate::engine::postgres::pool::block_on(async {
            let client = self.client().await?;
            client.batch_execute(&sql).await.map_err(err("creating a record index"))
        })
    }

    /// The stored JSON texts a records query matches (validated by the caller against the declared indexes), up to
    /// one past its limit, within the engine's query timeout. Callable from a plugin's `handle` on a runtime worker
    /// or from a blocking thread.
    pub fn query_rows(&self, q: &RecordsQuery) -> Result<Vec<String>, EngineError> {
        let (sql, values) = records::query_sql(Dialect::Postgres, "datahost.records", q);
        let params: Vec<(&(dyn ToSql + Sync), Type)> = values
            .iter()
            .map(|v| match v {
                Bound::Text(t) => (t as &(dyn ToSql + Sync), Type::TEXT),
                Bound::Int(i) => (i as &(dyn ToSql + Sync), Type::INT8),
                Bound::TextList(list) => (list as &(dyn ToSql + Sync), Type::TEXT_ARRAY),
            })
            .collect();
        let timeout = self.query_timeout();
        let rows = crate::engine::postgres::pool::block_on(async {
            let client = self.client().await?;
            match tokio::time::timeout(timeout, self.rows(&client, &sql, &params)).await {
                Ok(rows) => rows.map_err(err("running a records query")),
                Err(_) => Err(self.timed_out("a records query", timeout)),
            }
        })?;
        Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
    }

    /// Makes sure the word index table of `dataset` exists, is built from the records held (once, under the
    /// dataset's ingest lock, so replicas starting together build it once) and has its indexes.
    pub fn ensure_word_index(&self, dataset: &str, index: &WordIndex) -> Result<(), EngineError> {
        let d = Dialect::Postgres;
        crate::engine::postgres::pool::block_on(async {
            let mut client = self.client().await?;
            client.batch_execute(&words::table_sql(d)).await.map_err(err("creating the word index table"))?;
            let tx = client.transaction().await.map_err(err("begin"))?;
            tx.execute("SELECT pg_advisory_xact_lock(727174, hashtext($1))", &[&dataset])
                .await
                .map_err(err("locking the dataset"))?;
            if let Some(check) = words::byte_order_sql(d) {
                let columns: Vec<(String, String)> =
                    pg_rows(&*tx, &check).await?.into_iter().map(|r| (r[0].clone(), r[1].clone())).collect();
                if !columns.is_empty() {
                    tracing::info!(
                        dataset,
                        columns = columns.len(),
                        "the word index's tables compare text in the database's collation: making them compare \
                         bytes (their indexes are rebuilt once)"
                    );
                    for statement in words::byte_order_alter_sql(&columns) {
                        tx.batch_execute(&statement).await.map_err(err("making the word index compare bytes"))?;
                    }
                }
            }
            let build = words::answered_yes(&pg_rows(&*tx, &words::missing_sql(d, dataset, index)).await?);
            if build {
                tracing::info!(dataset, "building the word index from the records held");
                // A build joins every record of the dataset: planned on statistics, which a first ingest
                // may not have left yet.
                tx.batch_execute("ANALYZE datahost.records").await.map_err(err("analysing the records"))?;
                for statement in words::refresh_sql(d, dataset, index, None) {
                    pg_rows(&*tx, &statement).await?;
                }
            }
            if words::answered_yes(&pg_rows(&*tx, &words::counts_missing_sql(d, dataset)).await?) {
                tracing::info!(dataset, "counting the word index's documents per word");
                for statement in words::counts_build_sql(d, dataset) {
                    pg_rows(&*tx, &statement).await?;
                }
            }
            let build_documents =
                words::answered_yes(&pg_rows(&*tx, &words::documents_missing_sql(d, dataset, index)).await?);
            if build_documents {
                tracing::info!(dataset, "writing each document's records in one row");
                for statement in words::documents_sql(d, dataset, index, None) {
                    pg_rows(&*tx, &statement).await?;
                }
            }
            tx.batch_execute(&words::index_sql(d)).await.map_err(err("indexing the word index"))?;
            tx.commit().await.map_err(err("commit"))?;
            // Statistics for the planner and a visibility map for index-only reads now, rather than whenever
            // autovacuum comes by: until then every search would read table rows as well as the index.
            // The tables are built and committed either way: a failed vacuum only leaves it to autovacuum.
            for (built, table) in [(build, "datahost.record_words"), (build_documents, "datahost.record_documents")] {
                if built {
                    if let Err(e) = client.batch_execute(&format!("VACUUM (ANALYZE) {table}")).await {
                        tracing::warn!(dataset, table, error = %e, "built; vacuuming it failed, autovacuum will");
                    }
                }
            }
            if build || build_documents {
                tracing::info!(dataset, "word index built");
            }
            Ok(())
        })
    }

    /// Answers a word search (validated by the caller), each statement within the engine's query timeout.
    /// Statements the search gives together (a page and the parts of its count) run at once, each on its own
    /// connection, as far as the pool has connections free now; the rest one after the other on the first.
    /// Never waiting for another connection while holding one: on a full pool, searches holding one each would
    /// wait for each other.
    pub fn search_words(&self, q: &WordSearch, with_records: bool, kept: &KeptTotals) -> Result<WordPage, EngineError> {
        use crate::engine::postgres::pool::block_on;
        let client = block_on(self.client())?;
        words::search(Dialect::Postgres, q, with_records, kept, |statements| {
            block_on(async {
                let mut spares = Vec::new();
                while spares.len() + 1 < statements.len() {
                    match self.spare_client().await {
                        Some(spare) => spares.push(spare),
                        None => break,
                    }
                }
                let clients = std::iter::once(&client).chain(&spares);
                let at_once = statements.iter().zip(clients).map(|(s, c)| self.word_rows(c, s));
                let mut answers =
                    futures_util::future::join_all(at_once).await.into_iter().collect::<Result<Vec<_>, _>>()?;
                for statement in &statements[answers.len()..] {
                    answers.push(self.word_rows(&client, statement).await?);
                }
                Ok(answers)
            })
        })
    }

    /// One statement of a word search, within the engine's query timeout.
    async fn word_rows(
        &self,
        client: &deadpool_postgres::Object,
        s: &words::Statement,
    ) -> Result<words::Rows, EngineError> {
        let timeout = self.query_timeout();
        match tokio::time::timeout(timeout, self.rows(client, &s.sql, &text_params(&s.params))).await {
            Ok(rows) => Ok(text_cells(&rows.map_err(err("running a word index statement"))?)),
            Err(_) => Err(self.timed_out("a word search", timeout)),
        }
    }

    /// Applies one parsed file in one transaction, refreshing the word index rows of the documents it touched.
    /// Call from a blocking thread of the runtime (for example inside `spawn_blocking`), never from async code:
    /// each statement is driven with `Handle::block_on`.
    pub fn apply_file(
        &self,
        dataset: &str,
        file_name: &str,
        sha256: &str,
        batch: &IngestBatch,
        word_index: Option<&WordIndex>,
    ) -> Result<Counts, EngineError> {
        let handle = tokio::runtime::Handle::current();
        let mut client = handle.block_on(self.client())?;
        let tx = handle.block_on(client.transaction()).map_err(err("begin"))?;
        // One ingest per dataset at a time, whichever replica or process runs it.
        handle
            .block_on(tx.execute("SELECT pg_advisory_xact_lock(727174, hashtext($1))", &[&dataset]))
            .map_err(err("locking the dataset"))?;
        let mut wrapped = PgTx { tx, handle: handle.clone() };
        let counts = records::apply(&mut wrapped, dataset, file_name, sha256, batch)?;
        if counts.changed() {
            handle.block_on(analyze_if_outgrown(&wrapped.tx, batch.records.len()))?;
        }
        if let Some(index) = word_index.filter(|_| counts.changed()) {
            for statement in words::file_refresh_sql(Dialect::Postgres, dataset, index, batch) {
                handle.block_on(pg_rows(&*wrapped.tx, &statement))?;
            }
        }
        handle.block_on(wrapped.tx.commit()).map_err(err("commit"))?;
        Ok(counts)
    }

    /// Re-assembles the dataset's document when its records changed; the datasets trigger wakes the replicas.
    /// The collections of `in_table` (those with declared record indexes) stay out of the document.
    pub async fn assemble_if_changed(&self, dataset: &str, in_table: &[String]) -> Result<bool, EngineError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(err("begin"))?;
        tx.execute("SELECT pg_advisory_xact_lock(727174, hashtext($1))", &[&dataset])
            .await
            .map_err(err("locking the dataset"))?;
        let state = tx
            .query_opt("SELECT version, assembled_version FROM datahost.dataset_state WHERE dataset = $1", &[&dataset])
            .await
            .map_err(err("reading dataset state"))?;
        let Some(state) = state else { return Ok(false) };
        let (version, assembled): (i64, i64) = (state.get(0), state.get(1));
        if version == assembled {
            return Ok(false);
        }
        let head = tx
            .query_one("SELECT count(*), max(ingested_at) FROM datahost.ingest_files WHERE dataset = $1", &[&dataset])
            .await
            .map_err(err("counting files"))?;
        let (files, last) = (head.get::<_, i64>(0) as u64, head.get::<_, Option<String>>(1).unwrap_or_default());
        // Collections kept in the table (declared indexes) stay out of the document; only their counts go in.
        let rows = tx
            .query(
                "SELECT collection, data FROM datahost.records WHERE dataset = $1 AND collection <> ALL($2) \
                 ORDER BY collection, seq",
                &[&dataset, &in_table],
            )
            .await
            .map_err(err("reading records"))?;
        let pairs: Vec<(String, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        let counts = if in_table.is_empty() {
            None
        } else {
            let counts = tx
                .query(
                    "SELECT collection, count(*) FROM datahost.records WHERE dataset = $1 GROUP BY collection",
                    &[&dataset],
                )
                .await
                .map_err(err("counting records"))?;
            Some(counts.iter().map(|r| (r.get(0), r.get(1))).collect())
        };
        let document = records::document(files, last, counts, &pairs);
        tx.execute(
            "INSERT INTO datahost.datasets (name, snapshot, checksum, source) VALUES ($1, $2, $3, 'ingest')
             ON CONFLICT (name) DO UPDATE SET snapshot = EXCLUDED.snapshot, checksum = EXCLUDED.checksum,
                 source = EXCLUDED.source, updated_at = now()",
            &[&dataset, &document, &records::checksum(&document)],
        )
        .await
        .map_err(err("storing the dataset"))?;
        tx.execute("UPDATE datahost.dataset_state SET assembled_version = version WHERE dataset = $1", &[&dataset])
            .await
            .map_err(err("updating dataset state"))?;
        tx.commit().await.map_err(err("commit"))?;
        Ok(true)
    }

    /// Datasets whose records changed since their document was assembled.
    pub async fn stale_datasets(&self) -> Result<Vec<String>, EngineError> {
        let client = self.client().await?;
        let rows = client
            .query("SELECT dataset FROM datahost.dataset_state WHERE version <> assembled_version", &[])
            .await
            .map_err(err("reading dataset state"))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}

/// Text parameters, typed as `text` up front: a statement is then prepared without asking the server to describe
/// its parameters, and `query_typed` (the ingest's statements, or `engine.prepared_statements = false`) sends
/// parse, bind and execute in one round trip; each run is planned for its own values either way.
fn text_params(texts: &[String]) -> Vec<(&(dyn ToSql + Sync), Type)> {
    texts.iter().map(|t| (t as &(dyn ToSql + Sync), Type::TEXT)).collect()
}

/// Takes the records' statistics again, in the ingest transaction (which sees its own rows), when the file
/// adds more than a tenth of what the statistics know of (none at all before a first analysis). The word refresh
/// joins the file's documents with their records: planned for the few rows the statistics promised, that join
/// became a nested loop over every pair, unfinished after 20 minutes for a 50,000-document file into a new
/// database, where the plan on fresh statistics takes half a second (BENCHMARKS.md). Small files keep the
/// cheaper way.
async fn analyze_if_outgrown(tx: &deadpool_postgres::Transaction<'_>, records: usize) -> Result<(), EngineError> {
    const SMALL_FILE: usize = 5_000;
    if records < SMALL_FILE {
        return Ok(());
    }
    let known: f32 = tx
        .query_one("SELECT reltuples FROM pg_class WHERE oid = 'datahost.records'::regclass", &[])
        .await
        .map_err(err("reading the records' statistics"))?
        .get(0);
    if records as f32 > known.max(0.0) / 10.0 {
        tx.batch_execute("ANALYZE datahost.records").await.map_err(err("analysing the records"))?;
    }
    Ok(())
}

/// Runs one statement of text parameters; every cell of the answer as text.
async fn pg_rows(
    client: &impl tokio_postgres::GenericClient,
    s: &words::Statement,
) -> Result<words::Rows, EngineError> {
    let rows =
        client.query_typed(&s.sql, &text_params(&s.params)).await.map_err(err("running a word index statement"))?;
    Ok(text_cells(&rows))
}

/// Every cell of `rows` as text (NULL as empty).
fn text_cells(rows: &[tokio_postgres::Row]) -> words::Rows {
    rows.iter().map(|r| (0..r.len()).map(|i| r.get::<_, Option<String>>(i).unwrap_or_default()).collect()).collect()
}

struct PgTx<'c> {
    tx: deadpool_postgres::Transaction<'c>,
    handle: tokio::runtime::Handle,
}

const RECORD_COLUMNS: &str = "collection, key, grp, lineage, revision, amendment, data";

fn to_record(r: &tokio_postgres::Row) -> StoredRecord {
    StoredRecord {
        collection: r.get(0),
        key: r.get(1),
        group: r.get(2),
        lineage: r.get(3),
        revision: r.get(4),
        amendment: r.get(5),
        data: r.get(6),
    }
}

impl RecordsTx for PgTx<'_> {
    fn get(&mut self, dataset: &str, collection: &str, key: &str) -> Result<Option<StoredRecord>, EngineError> {
        let sql = format!(
            "SELECT {RECORD_COLUMNS} FROM datahost.records WHERE dataset = $1 AND collection = $2 AND key = $3"
        );
        let row = self
            .handle
            .block_on(self.tx.query_opt(&sql, &[&dataset, &collection, &key]))
            .map_err(err("reading a record"))?;
        Ok(row.as_ref().map(to_record))
    }

    fn get_many(
        &mut self,
        dataset: &str,
        collection: &str,
        keys: &[&str],
    ) -> Result<std::collections::HashMap<String, StoredRecord>, EngineError> {
        let sql = format!(
            "SELECT {RECORD_COLUMNS} FROM datahost.records WHERE dataset = $1 AND collection = $2 AND key = ANY($3)"
        );
        let rows = self
            .handle
            .block_on(self.tx.query(&sql, &[&dataset, &collection, &keys]))
            .map_err(err("reading records"))?;
        Ok(rows.iter().map(to_record).map(|r| (r.key.clone(), r)).collect())
    }

    fn lineage(&mut self, dataset: &str, lineage: &str) -> Result<Vec<StoredRecord>, EngineError> {
        let sql = format!("SELECT {RECORD_COLUMNS} FROM datahost.records WHERE dataset = $1 AND lineage = $2");
        let rows =
            self.handle.block_on(self.tx.query(&sql, &[&dataset, &lineage])).map_err(err("reading a lineage"))?;
        Ok(rows.iter().map(to_record).collect())
    }

    fn delete(&mut self, dataset: &str, collection: &str, key: &str) -> Result<(), EngineError> {
        self.handle
            .block_on(self.tx.execute(
                "DELETE FROM datahost.records WHERE dataset = $1 AND collection = $2 AND key = $3",
                &[&dataset, &collection, &key],
            ))
            .map(|_| ())
            .map_err(err("deleting a record"))
    }

    fn upsert(&mut self, dataset: &str, r: &StoredRecord, file_id: i64) -> Result<(), EngineError> {
        self.upsert_many(dataset, std::slice::from_ref(r), file_id)
    }

    fn upsert_many(&mut self, dataset: &str, records: &[StoredRecord], file_id: i64) -> Result<(), EngineError> {
        // Prepared once per connection: a statement per record would otherwise cost a second round trip.
        let statement =
            self.handle.block_on(self.tx.prepare_cached(UPSERT)).map_err(err("preparing the record write"))?;
        // All sent at once on the connection (tokio-postgres pipelines concurrent statements), then every answer
        // read: one round trip for the batch instead of one per record; PostgreSQL runs them in order.
        let tx = &self.tx;
        let writes = records.iter().map(|r| {
            let statement = &statement;
            async move {
                tx.execute(
                    statement,
                    &[
                        &dataset,
                        &r.collection,
                        &r.key,
                        &r.group,
                        &r.lineage,
                        &r.revision,
                        &r.amendment,
                        &file_id,
                        &r.data,
                    ],
                )
                .await
            }
        });
        self.handle.block_on(futures_util::future::try_join_all(writes)).map(|_| ()).map_err(err("writing a record"))
    }

    fn insert_file(&mut self, dataset: &str, name: &str, sha256: &str, format: &str) -> Result<i64, EngineError> {
        let row = self
            .handle
            .block_on(self.tx.query_one(
                "INSERT INTO datahost.ingest_files (dataset, name, sha256, format, ingested_at)
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                &[&dataset, &name, &sha256, &format, &crate::engine::sqlite::now()],
            ))
            .map_err(err("recording the file"))?;
        Ok(row.get(0))
    }

    fn finish_file(&mut self, file_id: i64, c: &Counts) -> Result<(), EngineError> {
        let n = |v: u64| v as i64;
        self.handle
            .block_on(self.tx.execute(
                "UPDATE datahost.ingest_files SET added = $2, replaced = $3, unchanged = $4, removed = $5,
                     superseded = $6, refused = $7 WHERE id = $1",
                &[
                    &file_id,
                    &n(c.added),
                    &n(c.replaced),
                    &n(c.unchanged),
                    &n(c.removed),
                    &n(c.superseded),
                    &n(c.refused),
                ],
            ))
            .map(|_| ())
            .map_err(err("recording the file"))
    }

    fn bump_version(&mut self, dataset: &str) -> Result<(), EngineError> {
        self.handle
            .block_on(self.tx.execute(
                "INSERT INTO datahost.dataset_state (dataset, version) VALUES ($1, 1)
                 ON CONFLICT (dataset) DO UPDATE SET version = datahost.dataset_state.version + 1",
                &[&dataset],
            ))
            .map(|_| ())
            .map_err(err("updating dataset state"))
    }
}

const UPSERT: &str =
    "INSERT INTO datahost.records (dataset, collection, key, grp, lineage, revision, amendment, file_id, data)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (dataset, collection, key) DO UPDATE SET grp = EXCLUDED.grp,
         lineage = EXCLUDED.lineage, revision = EXCLUDED.revision, amendment = EXCLUDED.amendment,
         file_id = EXCLUDED.file_id, data = EXCLUDED.data";
