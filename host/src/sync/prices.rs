//! Daily prices (-> `prices`): one Stooq-style CSV per configured ticker (`sync.sources.prices.path`, with
//! `{ticker}` the lower-case ticker), fetched conditionally and queued when it changed.

use crate::config::PricesSource;

use super::source_run::SourceRun;

pub async fn run(run: &mut SourceRun<'_>, cfg: &PricesSource) -> Result<(), super::error::SourceError> {
    for ticker in &cfg.tickers {
        let lower = ticker.trim().to_ascii_lowercase();
        if lower.is_empty() || !lower.chars().all(|c| c.is_ascii_alphanumeric() || ".-^".contains(c)) {
            run.error(format!("prices: `{ticker}` is not a ticker"));
            continue;
        }
        let url = run.url(&cfg.path.replace("{ticker}", &lower));
        // One stable file per ticker, whatever the query string looks like.
        let rel = run.rel(&format!("{lower}.csv"));
        super::sources::fetch_plain(run, "prices", &url, &rel).await;
    }
    Ok(())
}
