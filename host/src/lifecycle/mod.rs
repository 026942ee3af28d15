//! `datahost serve` from start to stop: building the state and running the listeners (`server`), and the
//! background upkeep while it serves (`watch`: key reload, engine health, plugin re-init on data changes). The
//! top layer: nothing imports it but `main.rs`.

pub mod server;
pub mod watch;
