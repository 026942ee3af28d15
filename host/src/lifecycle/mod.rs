//! `datahost serve` from start to stop: the server and its background upkeep.

pub mod server;
pub mod watch;
