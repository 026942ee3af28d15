//! Small text helpers shared by datasets: disclosure amount ranges and name matching.

/// Numeric bounds of a disclosure amount bucket such as `$1,001 - $15,000` or `Over $50,000,000`.
/// Returns `(min, max)`; an open-ended bucket has no max. Unparseable text gives `(None, None)`.
pub fn amount_range_bounds(range: &str) -> (Option<f64>, Option<f64>) {
    let numbers: Vec<f64> = range
        .split(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
        .map(|s| s.replace(',', ""))
        .filter(|s| !s.is_empty() && s.chars().any(|c| c.is_ascii_digit()))
        .filter_map(|s| s.parse().ok())
        .collect();
    let lower = range.to_ascii_lowercase();
    match numbers.as_slice() {
        [a, b, ..] => (Some(*a), Some(*b)),
        [a] if lower.contains("over") || lower.contains('+') => (Some(*a), None),
        [a] => (Some(*a), Some(*a)),
        [] => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_house_and_senate_buckets() {
        assert_eq!(amount_range_bounds("$1,001 - $15,000"), (Some(1001.0), Some(15000.0)));
        assert_eq!(amount_range_bounds("Over $50,000,000"), (Some(50_000_000.0), None));
        assert_eq!(amount_range_bounds("$1,000,001 - $5,000,000"), (Some(1_000_001.0), Some(5_000_000.0)));
        assert_eq!(amount_range_bounds("unknown"), (None, None));
    }
}
