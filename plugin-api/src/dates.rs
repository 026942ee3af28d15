//! Dates in answers, written as `YYYY-MM-DD` without the formatting machinery: chrono's own `Serialize` goes
//! through `Display`, which serde_json receives piece by piece (`collect_str`), escaping each one. On a year of
//! daily closes that was about a tenth of the host's CPU per uncached answer (`perf record`, BENCHMARKS.md "Cold
//! path"). Use on a response field: `#[serde(serialize_with = "datahost_plugin_api::dates::iso")]` (or
//! `iso_opt` for an `Option<NaiveDate>`); the text is the same as chrono's.

use chrono::{Datelike, NaiveDate};
use serde::Serializer;

/// `date` as `YYYY-MM-DD`: the same text as chrono's `Serialize`.
pub fn iso<S: Serializer>(date: &NaiveDate, serializer: S) -> Result<S::Ok, S::Error> {
    match iso_text(*date) {
        Some(text) => serializer.serialize_str(std::str::from_utf8(&text).expect("ASCII digits")),
        // Years outside 0..=9999 carry a sign or a fifth digit: chrono's own text.
        None => serializer.collect_str(date),
    }
}

/// [`iso`] for an optional date (`null` when absent).
pub fn iso_opt<S: Serializer>(date: &Option<NaiveDate>, serializer: S) -> Result<S::Ok, S::Error> {
    match date {
        Some(date) => iso(date, serializer),
        None => serializer.serialize_none(),
    }
}

/// The ten bytes of a date in years 0 to 9999.
fn iso_text(date: NaiveDate) -> Option<[u8; 10]> {
    let year = u32::try_from(date.year()).ok().filter(|y| *y <= 9999)?;
    let (month, day) = (date.month(), date.day());
    let digit = |n: u32| b'0' + (n % 10) as u8;
    Some([
        digit(year / 1000),
        digit(year / 100),
        digit(year / 10),
        digit(year),
        b'-',
        digit(month / 10),
        digit(month),
        b'-',
        digit(day / 10),
        digit(day),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Fast {
        #[serde(serialize_with = "iso")]
        date: NaiveDate,
        #[serde(serialize_with = "iso_opt")]
        maybe: Option<NaiveDate>,
    }

    #[derive(serde::Serialize)]
    struct Chrono {
        date: NaiveDate,
        maybe: Option<NaiveDate>,
    }

    #[test]
    fn writes_what_chrono_writes() {
        let mut dates: Vec<NaiveDate> =
            [(-1, 12, 31), (0, 1, 1), (7, 3, 9), (999, 12, 31), (1000, 1, 1), (9999, 12, 31)]
                .iter()
                .chain(&[(10_000, 1, 1), (-10_000, 6, 15), (2024, 2, 29), (2026, 10, 30)])
                .map(|&(y, m, d)| NaiveDate::from_ymd_opt(y, m, d).unwrap())
                .collect();
        dates.extend(NaiveDate::from_ymd_opt(1999, 12, 25).unwrap().iter_days().take(800));
        dates.extend([NaiveDate::MIN, NaiveDate::MAX]);
        for date in dates {
            for maybe in [None, Some(date)] {
                let fast = serde_json::to_string(&Fast { date, maybe }).unwrap();
                assert_eq!(fast, serde_json::to_string(&Chrono { date, maybe }).unwrap(), "{date}");
            }
        }
        assert_eq!(
            serde_json::to_string(&Fast { date: NaiveDate::from_ymd_opt(2021, 11, 1).unwrap(), maybe: None }).unwrap(),
            r#"{"date":"2021-11-01","maybe":null}"#
        );
    }
}
