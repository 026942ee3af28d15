//! Dataset documents in PostgreSQL (`datahost.datasets`): write unless unchanged, seed when missing, list
//! checksums, read one, and the LISTEN connection that wakes the engine watch on every change.

use std::collections::HashMap;
use std::sync::Arc;

use super::pool::PgEngine;
use crate::engine::error::{postgres as pg_err, EngineError};
use crate::engine::records::checksum;

/// Channel the datasets trigger notifies on.
pub const DATASET_CHANNEL: &str = "datahost_datasets";

impl PgEngine {
    /// Writes a dataset snapshot unless the stored one is identical. Returns whether it changed.
    pub async fn put_dataset(&self, name: &str, snapshot: &str, source: &str) -> Result<bool, EngineError> {
        let sum = checksum(snapshot);
        let client = self.client().await?;
        let n = client
            .execute(
                "INSERT INTO datahost.datasets (name, snapshot, checksum, source) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (name) DO UPDATE SET snapshot = EXCLUDED.snapshot, checksum = EXCLUDED.checksum,
                     source = EXCLUDED.source, updated_at = now()
                 WHERE datahost.datasets.checksum <> EXCLUDED.checksum
                   -- a seed never replaces ingested records
                   AND NOT (EXCLUDED.source = 'seed' AND datahost.datasets.source = 'ingest')",
                &[&name, &snapshot, &sum, &source],
            )
            .await
            .map_err(pg_err(format!("storing dataset {name}")))?;
        Ok(n > 0)
    }

    /// Inserts a dataset only when it is missing (start-up seeding never overwrites operator data).
    pub async fn put_dataset_if_missing(&self, name: &str, snapshot: &str) -> Result<bool, EngineError> {
        let client = self.client().await?;
        let n = client
            .execute(
                "INSERT INTO datahost.datasets (name, snapshot, checksum, source) VALUES ($1, $2, $3, 'seed')
                 ON CONFLICT (name) DO NOTHING",
                &[&name, &snapshot, &checksum(snapshot)],
            )
            .await
            .map_err(pg_err(format!("seeding dataset {name}")))?;
        Ok(n > 0)
    }

    /// Checksums of every stored dataset.
    pub async fn dataset_checksums(&self) -> Result<HashMap<String, String>, EngineError> {
        self.timed("listing datasets", async {
            let client = self.client().await?;
            let rows = client
                .query("SELECT name, checksum FROM datahost.datasets", &[])
                .await
                .map_err(pg_err("listing datasets"))?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
        .await
    }

    /// One stored dataset snapshot.
    pub async fn fetch_dataset(&self, name: &str) -> Result<Option<String>, EngineError> {
        self.timed("reading a dataset", async {
            let client = self.client().await?;
            let row = client
                .query_opt("SELECT snapshot FROM datahost.datasets WHERE name = $1", &[&name])
                .await
                .map_err(pg_err(format!("reading dataset {name}")))?;
            Ok(row.map(|r| r.get(0)))
        })
        .await
    }

    /// Opens a dedicated connection that LISTENs for dataset changes and wakes `notify` on each one, until the
    /// connection is lost (an error: the caller retries) or the engine closes (`Ok`).
    pub async fn listen(&self, notify: Arc<tokio::sync::Notify>) -> Result<(), EngineError> {
        if self.closing.is_cancelled() {
            return Ok(());
        }
        let (client, mut connection) = self
            .pg_config
            .connect(self.tls.clone())
            .await
            .map_err(|e| EngineError::Unreachable(format!("LISTEN connection to {}: {e}", self.address)))?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let driver = self.connections.spawn(async move {
            let mut stream = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
            use futures_util::StreamExt;
            while let Some(msg) = stream.next().await {
                match msg {
                    Ok(tokio_postgres::AsyncMessage::Notification(_)) => {
                        let _ = tx.send(());
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        });
        client.batch_execute(&format!("LISTEN {DATASET_CHANNEL}")).await.map_err(pg_err("LISTEN"))?;
        loop {
            tokio::select! {
                changed = rx.recv() => match changed {
                    Some(()) => notify.notify_one(),
                    None => break,
                },
                () = self.closing.cancelled() => {
                    // The host stops: dropping the client makes the driver send Terminate and end.
                    drop(client);
                    return Ok(());
                }
            }
        }
        driver.abort();
        drop(client);
        Err(EngineError::Unreachable(format!("LISTEN connection to {} closed", self.address)))
    }
}
