//! The API key table in PostgreSQL (engine mode): hashes only. `KeyRecord` is the row, also the entry of the
//! embedded engine's JSON key file (`access::keys`).

use std::time::Duration;

use datahost_plugin_api::Tier;
use deadpool_postgres::Pool;
use serde::{Deserialize, Serialize};
use tokio_postgres::types::ToSql;

use super::pool::{pooled, PgEngine};
use crate::engine::error::{postgres as pg_err, EngineError};

/// A stored key: everything but the key itself (a row of `datahost.api_keys`, an entry of the key file).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct KeyRecord {
    pub id: String,
    /// Hex SHA-256 of the key.
    pub hash: String,
    pub tier: Tier,
    #[serde(default)]
    pub label: String,
    pub created_at: String,
    #[serde(default)]
    pub revoked_at: Option<String>,
}

impl PgEngine {
    pub fn keys(&self) -> PgKeys {
        PgKeys { pool: self.pool.clone(), address: self.address.clone() }
    }
}

/// API keys in PostgreSQL (engine mode): hashes only.
pub struct PgKeys {
    pool: Pool,
    address: String,
}

impl PgKeys {
    async fn client(&self) -> Result<deadpool_postgres::Object, EngineError> {
        pooled(&self.pool, &self.address).await
    }

    pub async fn load(&self) -> Result<Vec<KeyRecord>, EngineError> {
        self.load_where("", &[]).await
    }

    async fn load_where(&self, filter: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<KeyRecord>, EngineError> {
        let client = self.client().await?;
        let sql = format!(
            "SELECT id, hash, tier, label, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
                    to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
             FROM datahost.api_keys {filter} ORDER BY created_at, id"
        );
        let rows = tokio::time::timeout(Duration::from_secs(5), client.query(&sql, params))
            .await
            .map_err(|_| EngineError::TimedOut {
                what: "reading API keys".into(),
                address: self.address.clone(),
                after: Duration::from_secs(5),
            })?
            .map_err(pg_err("reading API keys"))?;
        rows.iter()
            .map(|r| {
                let tier: String = r.get(2);
                Ok(KeyRecord {
                    id: r.get(0),
                    hash: r.get(1),
                    tier: datahost_plugin_api::Tier::parse(&tier)
                        .ok_or_else(|| EngineError::Corrupt(format!("unknown tier {tier} in api_keys")))?,
                    label: r.get(3),
                    created_at: r.get(4),
                    revoked_at: r.get(5),
                })
            })
            .collect()
    }

    pub async fn find(&self, hash_hex: &str) -> Result<Option<KeyRecord>, EngineError> {
        Ok(self.load_where("WHERE hash = $1", &[&hash_hex]).await?.into_iter().next())
    }

    pub async fn insert(&self, r: KeyRecord) -> Result<(), EngineError> {
        let client = self.client().await?;
        client
            .execute(
                "INSERT INTO datahost.api_keys (id, hash, tier, label) VALUES ($1, $2, $3, $4)",
                &[&r.id, &r.hash, &r.tier.as_str(), &r.label],
            )
            .await
            .map_err(pg_err("storing the API key"))?;
        Ok(())
    }

    pub async fn revoke(&self, id: &str) -> Result<bool, EngineError> {
        let client = self.client().await?;
        let exists = client
            .query_opt("SELECT 1 FROM datahost.api_keys WHERE id = $1", &[&id])
            .await
            .map_err(pg_err("finding the API key"))?
            .is_some();
        if exists {
            client
                .execute("UPDATE datahost.api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", &[&id])
                .await
                .map_err(pg_err("revoking the API key"))?;
        }
        Ok(exists)
    }
}
