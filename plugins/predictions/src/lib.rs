//! predictions: the in-house strategy backtest (trend-preferred momentum), computed at `init` from the
//! `prices` dataset read through the host, never stored rows.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` strategy parameters and price lookups, `backtest.rs` the engine,
//! `tests.rs`. This plugin ships no seed: its input is the prices plugin's dataset.

mod backtest;
mod data;
mod error;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::reference::{CompanyQuery, CompanyRef};
use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, InitContext, LogLevel, Manifest, Maturity, Plugin, RequestEnvelope, Response,
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

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let strategy = data::Strategy::from_config(&ctx.config)?;
        // Labels of ingested series come from the host's company list; without one they are the tickers.
        let resolve = |queries: &[CompanyQuery]| -> Vec<Option<CompanyRef>> {
            ctx.host.resolve_companies(queries).unwrap_or_else(|e| {
                ctx.host.log(LogLevel::Warn, &format!("company names not resolved: {e}"));
                vec![None; queries.len()]
            })
        };
        let market = data::Market::load(ctx.host.load_dataset(PRICES)?, &resolve)?;
        let backtest = backtest::run(&market, &strategy)?;
        let note = if market.demo {
            "Computed from the prices dataset, which holds DEMO DATA (synthetic closes): these results are not \
             real performance and not investment advice."
        } else {
            "Computed from the real daily closes ingested into the prices dataset (the series /v1/prices serves). \
             Past performance of a backtest does not predict future results."
        };
        Ok(Self { backtest, strategy, note: note.into() })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.backtest, &self.strategy, &self.note, request)
    }
}

export_plugin!(Predictions);
