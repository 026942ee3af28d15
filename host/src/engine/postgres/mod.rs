//! The PostgreSQL records engine.

pub mod pool;
pub mod records;
