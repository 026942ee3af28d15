//! The PostgreSQL records engine, split by what each part does: `pool` (the connection pool, TLS, health and
//! the `PgEngine` handle), `migrate` (the host's and each plugin's migrations), `datasets` (dataset documents and
//! LISTEN/NOTIFY), `query` (parameterised plugin queries), `keys` (the API key table) and `records` (the ingested
//! records tables behind `RecordsTx`).
//!
//! Dataset snapshots are stored as text with a SHA-256 checksum, so what a replica serves is byte-for-byte what
//! the embedded engine serves, and `load-seeds` can tell "unchanged" from "changed" without comparing documents.

pub mod datasets;
pub mod keys;
pub mod migrate;
pub mod pool;
pub mod query;
pub mod records;
