//! The deterministic demo seed: five years of synthetic daily closes for the covered universe, generated in
//! code instead of shipped as a file (about 45,000 closes; generating them takes a few milliseconds).
//!
//! Each asset follows a geometric random walk whose daily log return is a drift term, a shared factor
//! (the equity market for exchange-traded assets, a crypto factor for crypto) scaled by the asset's beta,
//! and an idiosyncratic shock, so sector funds and majors move together the way real ones do. Randomness
//! comes from a seeded xorshift64* generator per stream; the same build always produces the same closes.

use chrono::NaiveDate;
use datahost_plugin_kit::market::{AssetSeries, Calendar, PriceSnapshot};
use serde_json::json;

/// Last date of the data (a Friday, so every calendar ends on it).
pub const DATA_END: (i32, u32, u32) = (2026, 10, 30);
/// First date of the five-year window (weekday assets start on the first weekday on or after it).
pub const DATA_START: (i32, u32, u32) = (2021, 10, 31);

const EQUITY_FACTOR_VOL: f64 = 0.18;
const CRYPTO_FACTOR_VOL: f64 = 0.60;
const MIN_IDIOSYNCRATIC_VOL: f64 = 0.02;

/// One covered asset and its walk parameters (annualised drift and volatility, beta to its factor).
struct Spec {
    ticker: &'static str,
    name: &'static str,
    kind: &'static str,
    start_price: f64,
    drift: f64,
    vol: f64,
    beta: f64,
}

const fn spec(
    ticker: &'static str,
    name: &'static str,
    kind: &'static str,
    start_price: f64,
    drift: f64,
    vol: f64,
    beta: f64,
) -> Spec {
    Spec { ticker, name, kind, start_price, drift, vol, beta }
}

const UNIVERSE: &[Spec] = &[
    spec("AAPL", "Apple Inc.", "equity", 150.0, 0.14, 0.28, 1.1),
    spec("MSFT", "Microsoft Corporation", "equity", 330.0, 0.13, 0.26, 1.0),
    spec("NVDA", "NVIDIA Corporation", "equity", 30.0, 0.45, 0.55, 1.6),
    spec("AMZN", "Amazon.com, Inc.", "equity", 170.0, 0.08, 0.33, 1.2),
    spec("GOOGL", "Alphabet Inc. Class A", "equity", 145.0, 0.12, 0.30, 1.1),
    spec("META", "Meta Platforms, Inc.", "equity", 330.0, 0.15, 0.42, 1.3),
    spec("TSLA", "Tesla, Inc.", "equity", 390.0, 0.02, 0.60, 1.8),
    spec("BRK.B", "Berkshire Hathaway Inc. Class B", "equity", 285.0, 0.10, 0.18, 0.8),
    spec("JPM", "JPMorgan Chase & Co.", "equity", 170.0, 0.11, 0.24, 1.1),
    spec("V", "Visa Inc.", "equity", 215.0, 0.09, 0.22, 0.9),
    spec("UNH", "UnitedHealth Group Incorporated", "equity", 450.0, 0.02, 0.28, 0.6),
    spec("XOM", "Exxon Mobil Corporation", "equity", 65.0, 0.13, 0.28, 0.7),
    spec("JNJ", "Johnson & Johnson", "equity", 165.0, 0.02, 0.16, 0.5),
    spec("WMT", "Walmart Inc.", "equity", 48.0, 0.15, 0.20, 0.5),
    spec("PG", "The Procter & Gamble Company", "equity", 145.0, 0.04, 0.17, 0.4),
    spec("MA", "Mastercard Incorporated", "equity", 340.0, 0.09, 0.24, 1.0),
    spec("HD", "The Home Depot, Inc.", "equity", 370.0, 0.03, 0.25, 1.0),
    spec("LLY", "Eli Lilly and Company", "equity", 250.0, 0.30, 0.32, 0.5),
    spec("COST", "Costco Wholesale Corporation", "equity", 540.0, 0.15, 0.21, 0.7),
    spec("AVGO", "Broadcom Inc.", "equity", 55.0, 0.35, 0.40, 1.3),
    spec("XLK", "Technology Select Sector SPDR Fund", "sector-fund", 165.0, 0.14, 0.24, 1.2),
    spec("XLF", "Financial Select Sector SPDR Fund", "sector-fund", 39.0, 0.09, 0.20, 1.0),
    spec("XLE", "Energy Select Sector SPDR Fund", "sector-fund", 55.0, 0.10, 0.28, 0.8),
    spec("XLV", "Health Care Select Sector SPDR Fund", "sector-fund", 135.0, 0.04, 0.16, 0.6),
    spec("XLY", "Consumer Discretionary Select Sector SPDR Fund", "sector-fund", 200.0, 0.07, 0.24, 1.1),
    spec("XLP", "Consumer Staples Select Sector SPDR Fund", "sector-fund", 72.0, 0.04, 0.14, 0.5),
    spec("XLI", "Industrial Select Sector SPDR Fund", "sector-fund", 105.0, 0.08, 0.20, 1.0),
    spec("XLU", "Utilities Select Sector SPDR Fund", "sector-fund", 68.0, 0.06, 0.18, 0.5),
    spec("SPY", "SPDR S&P 500 ETF Trust", "major", 460.0, 0.10, 0.18, 1.0),
    spec("QQQ", "Invesco QQQ Trust", "major", 390.0, 0.13, 0.23, 1.2),
    spec("DIA", "SPDR Dow Jones Industrial Average ETF Trust", "major", 360.0, 0.08, 0.16, 0.9),
    spec("IWM", "iShares Russell 2000 ETF", "major", 235.0, 0.04, 0.24, 1.15),
    spec("BTC-USD", "Bitcoin", "crypto", 61000.0, 0.15, 0.60, 1.0),
    spec("ETH-USD", "Ethereum", "crypto", 4300.0, 0.10, 0.78, 1.15),
    spec("SOL-USD", "Solana", "crypto", 200.0, 0.05, 1.05, 1.4),
];

/// xorshift64* (Vigna), seeded through splitmix64 so that nearby seeds give unrelated streams.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Self(if z == 0 { 1 } else { z })
    }

    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in (0, 1]: never 0, so the logarithm below is finite.
    fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.unit(), self.unit());
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

/// FNV-1a, to give every ticker its own stream independent of the universe's order.
fn stream_seed(name: &str) -> u64 {
    name.bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01B3))
}

fn ymd((y, m, d): (i32, u32, u32)) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("valid constant date")
}

fn trading_days(calendar: Calendar) -> (NaiveDate, usize) {
    let start = calendar.on_or_after(ymd(DATA_START));
    let end = ymd(DATA_END);
    let mut n = 0;
    let mut d = start;
    while d <= end {
        n += 1;
        d = calendar.next_after(d);
    }
    (start, n)
}

fn factor(seed: &str, n: usize) -> Vec<f64> {
    let mut rng = Rng::new(stream_seed(seed));
    (0..n).map(|_| rng.normal()).collect()
}

fn walk(spec: &Spec, factor_shocks: &[f64], factor_vol: f64, year_days: f64) -> Vec<f64> {
    let dt = 1.0 / year_days;
    let systematic = spec.beta * factor_vol;
    let idiosyncratic = (spec.vol * spec.vol - systematic * systematic).max(MIN_IDIOSYNCRATIC_VOL.powi(2)).sqrt();
    let total_var = systematic * systematic + idiosyncratic * idiosyncratic;
    let mean = (spec.drift - 0.5 * total_var) * dt;
    let mut rng = Rng::new(stream_seed(spec.ticker));
    let mut log_price = spec.start_price.ln();
    let mut closes = Vec::with_capacity(factor_shocks.len());
    for (i, z_factor) in factor_shocks.iter().enumerate() {
        if i > 0 {
            log_price += mean + dt.sqrt() * (systematic * z_factor + idiosyncratic * rng.normal());
        }
        closes.push(((log_price.exp() * 100.0).round() / 100.0).max(0.01));
    }
    closes
}

/// The demo snapshot document.
pub fn snapshot() -> PriceSnapshot {
    let (weekday_start, weekday_n) = trading_days(Calendar::Weekdays);
    let (daily_start, daily_n) = trading_days(Calendar::Daily);
    let market = factor("factor:equity-market", weekday_n);
    let crypto = factor("factor:crypto", daily_n);
    let assets = UNIVERSE
        .iter()
        .map(|s| {
            let (calendar, start, closes) = if s.kind == "crypto" {
                (Calendar::Daily, daily_start, walk(s, &crypto, CRYPTO_FACTOR_VOL, 365.0))
            } else {
                (Calendar::Weekdays, weekday_start, walk(s, &market, EQUITY_FACTOR_VOL, 252.0))
            };
            AssetSeries { ticker: s.ticker.into(), name: s.name.into(), kind: s.kind.into(), calendar, start, closes }
        })
        .collect();
    PriceSnapshot {
        meta: json!({
            "source": "datahost demo seed: synthetic daily closes generated deterministically in code \
                (not market data)",
            "method": "Geometric random walk per asset: drift, a shared factor scaled by the asset's beta (the \
                equity market for equities, sector funds and majors; a crypto factor for crypto) and an \
                idiosyncratic shock, from seeded xorshift64* streams; closes rounded to cents.",
            "caveat": "DEMO DATA: real tickers with synthetic prices. These are not real market closes and must \
                not be used for any investment decision.",
            "note": "DEMO DATA: synthetic daily closes (deterministic random walk), not real market prices. Five \
                years of daily closes ending 2026-10-30; crypto has a close every calendar day, equities, sector \
                funds and majors on weekdays (no holiday calendar). Pass `ticker` for a series.",
            "demo": true,
            "generatedAt": "2026-10-31T06:00:00Z",
            "dataStart": ymd(DATA_START),
            "dataEnd": ymd(DATA_END),
            "calendars": {
                "weekdays": "Monday to Friday; the date of closes[i] is the i-th weekday from start",
                "daily": "every calendar day; the date of closes[i] is start + i days",
            },
        }),
        assets,
    }
}

/// The snapshot serialised for the records engine.
pub fn snapshot_json() -> String {
    serde_json::to_string(&snapshot()).expect("the demo snapshot serialises")
}
