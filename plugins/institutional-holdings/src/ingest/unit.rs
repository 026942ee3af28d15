//! Which unit a filing's `<value>`s are in: thousands of dollars (the rule until the SEC's switch of
//! 2023-01-03) or whole dollars (the rule since). The unit is decided per FILING from the filing's own
//! evidence, because filers did not all follow the calendar: some filed old periods late in dollars, some
//! kept reporting thousands after the switch.
//!
//! Evidence, strongest first:
//! 1. Prices. Read as dollars, `value / shares` of a share position (SH, not an option) is its price. In a
//!    thousands filing nearly every position then costs under $1 a share (a real $130 share shows as
//!    $0.13); in a dollars filing almost none does. A clear majority either way decides.
//! 2. The filing date, when the prices are not conclusive (few positions, or a mix such as pre-split
//!    mega-caps above $1,000 a share read in thousands): filed before the switch means thousands.

use chrono::NaiveDate;

/// The date from which Form 13F values are reported in whole dollars (the Form 13F amendments the SEC
/// adopted in June 2022 apply to filings made on or after 2023-01-03).
pub const DOLLARS_FROM: (i32, u32, u32) = (2023, 1, 3);

/// At least this many priced positions before the prices alone may say "dollars": a handful of positions
/// above $1,000 a share would look the same in thousands.
const MIN_PRICED_FOR_DOLLARS: usize = 5;
/// At least this many priced positions before the prices alone may say "thousands".
const MIN_PRICED_FOR_THOUSANDS: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueUnit {
    Dollars,
    Thousands,
}

impl ValueUnit {
    pub fn as_str(self) -> &'static str {
        match self {
            ValueUnit::Dollars => "dollars",
            ValueUnit::Thousands => "thousands",
        }
    }

    /// What a reported value is multiplied by to give dollars.
    pub fn multiplier(self) -> u64 {
        match self {
            ValueUnit::Dollars => 1,
            ValueUnit::Thousands => 1000,
        }
    }
}

/// The unit applied to a filing and the evidence, in words, for the served `valueUnitReason` and the notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitDecision {
    pub unit: ValueUnit,
    pub reason: String,
}

/// A share position that can be priced: reported value and share count (shares > 0).
#[derive(Debug, Clone, Copy)]
pub struct PricedPosition {
    pub value: u64,
    pub shares: u64,
}

/// Decides the unit of a filing filed on `filed` whose share positions are `positions`.
pub fn decide(positions: &[PricedPosition], filed: NaiveDate) -> UnitDecision {
    let priced = positions.len();
    let under_a_dollar = positions.iter().filter(|p| p.value < p.shares).count();
    let prices =
        format!("{under_a_dollar} of {priced} share positions would cost under $1 a share if the values were dollars");
    let switch = NaiveDate::from_ymd_opt(DOLLARS_FROM.0, DOLLARS_FROM.1, DOLLARS_FROM.2).unwrap_or(NaiveDate::MIN);
    let (by_date, date_words) = if filed >= switch {
        (ValueUnit::Dollars, format!("filed {filed}, on or after the SEC's {switch} switch to dollars"))
    } else {
        (ValueUnit::Thousands, format!("filed {filed}, before the SEC's {switch} switch to dollars"))
    };
    // Integer forms of "at least 60 %" and "at most 10 %" of the priced positions.
    let mostly_under = priced >= MIN_PRICED_FOR_THOUSANDS && under_a_dollar * 5 >= priced * 3;
    let rarely_under = priced >= MIN_PRICED_FOR_DOLLARS && under_a_dollar * 10 <= priced;
    let (unit, reason) = if mostly_under {
        (ValueUnit::Thousands, format!("thousands by price: {prices}; {date_words}"))
    } else if rarely_under {
        (ValueUnit::Dollars, format!("dollars by price: {prices}; {date_words}"))
    } else {
        let unit = by_date;
        (unit, format!("{} by filing date: {date_words}; prices not conclusive ({prices})", unit.as_str()))
    };
    UnitDecision { unit, reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(rows: &[(u64, u64)]) -> Vec<PricedPosition> {
        rows.iter().map(|&(value, shares)| PricedPosition { value, shares }).collect()
    }

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn prices_decide_against_the_calendar_in_both_directions() {
        // Thousands after the switch: a $130 share reads $0.13.
        let thousands = positions(&[(766, 5_896), (1_299, 10_000), (6_496, 50_000)]);
        let d = decide(&thousands, day("2023-02-28"));
        assert_eq!(d.unit, ValueUnit::Thousands);
        assert!(d.reason.starts_with("thousands by price: 3 of 3"), "{}", d.reason);
        // Dollars before the switch: five ordinary share prices.
        let dollars = positions(&[(13_000, 100), (5_000, 50), (2_000, 10), (900, 9), (40_000, 1_000)]);
        let d = decide(&dollars, day("2021-02-12"));
        assert_eq!(d.unit, ValueUnit::Dollars);
        assert!(d.reason.contains("before the SEC's 2023-01-03 switch"), "{}", d.reason);
    }

    #[test]
    fn inconclusive_prices_fall_back_to_the_filing_date() {
        // Two of five under $1, three above (pre-split mega-caps in thousands): the date decides.
        let mixed = positions(&[(230, 1_733), (224, 1_009), (175, 100), (152, 46), (200, 100)]);
        assert_eq!(decide(&mixed, day("2021-02-12")).unit, ValueUnit::Thousands);
        assert_eq!(decide(&mixed, day("2023-01-03")).unit, ValueUnit::Dollars, "the switch day is in dollars");
        // Too few positions for the prices to say dollars; none at all.
        let few = positions(&[(468_000_000, 1_000)]);
        assert_eq!(decide(&few, day("2022-11-14")).unit, ValueUnit::Thousands);
        let d = decide(&[], day("2024-02-01"));
        assert_eq!(d.unit, ValueUnit::Dollars);
        assert!(d.reason.starts_with("dollars by filing date"), "{}", d.reason);
    }
}
