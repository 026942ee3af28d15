//! predictions: the in-house strategy backtest (trend-preferred momentum), computed at `init` from the
//! `prices` dataset read through the host, never stored rows.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` strategy parameters and price lookups, `backtest.rs` the engine,
//! `tests.rs`. This plugin ships no seed: its input is the prices plugin's dataset.

mod backtest;
mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::market::PriceSnapshot;
use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response,
};

pub const SLUG: &str = "predictions";
pub const ROUTE: &str = "/v1/predictions";
/// The dataset the backtest runs on.
pub const PRICES: &str = "prices";

/// The plugin: one backtest run over the prices snapshot it was initialised with.
pub struct Predictions {
    backtest: backtest::Backtest,
    strategy: data::Strategy,
    note: String,
}

impl Plugin for Predictions {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "In-house strategy backtest rows (trend-preferred momentum) computed from the prices dataset.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        .reading(&[PRICES])
        .owning_no_dataset()
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let strategy = data::Strategy::from_config(&ctx.config)?;
        let prices: PriceSnapshot = ctx.host.load_dataset(PRICES)?;
        let backtest = backtest::run(&prices, &strategy)?;
        let note = if prices.meta.get("demo").and_then(|v| v.as_bool()).unwrap_or(false) {
            "Computed from the prices dataset, which holds DEMO DATA (synthetic closes): these results are not \
             real performance and not investment advice."
        } else {
            "Computed from the prices dataset. Past performance of a backtest does not predict future results."
        };
        Ok(Self { backtest, strategy, note: note.into() })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.backtest, &self.strategy, &self.note, request)
    }
}

export_plugin!(Predictions);
