//! Reading official CSV exports by column name, for parsers whose columns come from a mapping file (county
//! assessor exports, clerk indexes): a header looked up case-insensitively, `{column}` templates, and the
//! number and date spellings exports use, refused rather than guessed when malformed.

use std::collections::BTreeMap;

use datahost_plugin_api::ingest::{Refusal, RowProblem};

/// A CSV export opened on its header row.
pub struct Table<'t> {
    reader: csv::Reader<&'t [u8]>,
    text: &'t str,
    /// The header row, for looking cells up by column name.
    pub header: Header,
    width: usize,
}

impl<'t> Table<'t> {
    /// Reads the header row, or refuses a file whose first line is not CSV.
    pub fn open(text: &'t str) -> Result<Self, Refusal> {
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
        let names =
            reader.headers().map_err(|e| Refusal::at("line 1", format!("the header row is not CSV: {e}")))?.clone();
        Ok(Self { header: Header::new(names.iter()), width: names.len(), reader, text })
    }

    /// Calls `row` with each row that has the header's width and its 1-based line; reports every other row, and
    /// every problem `row` returns, in `problems` (in file order). A file whose last row is short with no
    /// newline after it stopped mid-download: refused whole.
    pub fn rows(
        mut self,
        problems: &mut Vec<RowProblem>,
        mut row: impl FnMut(&Header, &csv::StringRecord, usize) -> Result<(), RowProblem>,
    ) -> Result<(), Refusal> {
        let width = self.width;
        let mut last_row_short = None;
        for record in self.reader.records() {
            last_row_short = None;
            let record = match record {
                Ok(record) => record,
                Err(e) => {
                    let line = e.position().map_or(0, |p| p.line() as usize);
                    problems.push(RowProblem::line(line, format!("not a CSV row: {e}")));
                    continue;
                }
            };
            let line = record.position().map_or(0, |p| p.line() as usize);
            if record.len() != width {
                if record.len() < width {
                    last_row_short = Some(line);
                }
                problems.push(RowProblem::line(
                    line,
                    format!("the row has {} fields where the header has {width}", record.len()),
                ));
                continue;
            }
            if let Err(problem) = row(&self.header, &record, line) {
                problems.push(problem);
            }
        }
        if let Some(line) = last_row_short.filter(|_| !self.text.ends_with('\n')) {
            return Err(Refusal::at(
                format!("line {line}"),
                "the file ends inside a row (no newline after a row with fewer fields than the header): a cut \
                 download?",
            ));
        }
        Ok(())
    }
}

/// A row's header, for looking columns up by name.
pub struct Header {
    index: BTreeMap<String, usize>,
}

impl Header {
    /// A header from its column names in file order; names are trimmed and compared case-insensitively.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        Self { index: names.into_iter().enumerate().map(|(i, n)| (column_key(n), i)).collect() }
    }

    /// Whether the header has `column`, trimmed and case-insensitively.
    pub fn has(&self, column: &str) -> bool {
        self.index.contains_key(&column_key(column))
    }

    /// The trimmed value of `column` in `row` (`""` when the header has no such column).
    pub fn cell<'r>(&self, row: &'r csv::StringRecord, column: &str) -> &'r str {
        self.index.get(&column_key(column)).and_then(|&i| row.get(i)).unwrap_or("").trim()
    }
}

fn column_key(name: &str) -> String {
    name.trim().to_ascii_lowercase()
}

/// Why a mapping's template is malformed; each holds the template.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TemplateError {
    /// A `{` with no `}` after it.
    #[error("`{0}` has an unclosed `{{`")]
    Unclosed(String),
    /// `{}`, or a `{` inside a placeholder.
    #[error("`{0}` has an empty or nested placeholder")]
    EmptyOrNested(String),
    /// A `}` after the last placeholder.
    #[error("`{0}` has a `}}` without its `{{`")]
    UnopenedClose(String),
}

/// The `{column}` placeholders of a template, or why it is malformed.
pub fn placeholders(template: &str) -> Result<Vec<String>, TemplateError> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or_else(|| TemplateError::Unclosed(template.to_string()))?;
        let name = &after[..close];
        if name.is_empty() || name.contains('{') {
            return Err(TemplateError::EmptyOrNested(template.to_string()));
        }
        out.push(name.to_string());
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return Err(TemplateError::UnopenedClose(template.to_string()));
    }
    Ok(out)
}

/// A template with its placeholders replaced, spaces collapsed and trimmed. A template whose placeholders
/// are all empty is empty (so `NYC-PLUTO:{bbl}` with no BBL is absent, not `NYC-PLUTO:`).
pub fn fill<'a>(template: &str, cell: impl Fn(&str) -> &'a str) -> String {
    let mut out = String::new();
    let mut rest = template;
    let mut any_placeholder = false;
    let mut any_value = false;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let value = cell(&after[..close]);
        any_placeholder = true;
        any_value |= !value.is_empty();
        out.push_str(value);
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    if any_placeholder && !any_value {
        return String::new();
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A cell that does not read as what its field holds; each holds the cell as [`shown`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CellError {
    /// Not a number as [`parse_number`] reads them.
    #[error("`{0}` is not a number")]
    NotANumber(String),
    /// Not a date as [`parse_date`] reads them.
    #[error("`{0}` is not a date (YYYY-MM-DD or MM/DD/YYYY)")]
    NotADate(String),
}

/// A number as exports write it: `1700`, `-3.5`, or with thousands separators `1,700` / `1,234,567.25`.
/// Anything else (`1,70`, `12a`, `$5`) is refused rather than guessed.
pub fn parse_number(text: &str) -> Result<f64, CellError> {
    let t = text.trim();
    let plain = if t.contains(',') {
        let (int, frac) = t.split_once('.').map_or((t, None), |(i, f)| (i, Some(f)));
        let digits = int.strip_prefix('-').unwrap_or(int);
        let mut groups = digits.split(',');
        let first_ok = groups.next().is_some_and(|g| (1..=3).contains(&g.len()));
        let rest_ok = groups.all(|g| g.len() == 3);
        if !(first_ok && rest_ok) {
            return Err(CellError::NotANumber(shown(t)));
        }
        let joined = int.replace(',', "");
        match frac {
            Some(f) => format!("{joined}.{f}"),
            None => joined,
        }
    } else {
        t.to_string()
    };
    let valid = !plain.is_empty()
        && plain.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
        && plain.bytes().any(|b| b.is_ascii_digit());
    match plain.parse::<f64>() {
        Ok(n) if valid && n.is_finite() => Ok(n),
        _ => Err(CellError::NotANumber(shown(t))),
    }
}

/// `YYYY-MM-DD`, or `MM/DD/YYYY` with an optional time after it, as a checked calendar date.
pub fn parse_date(text: &str) -> Result<String, CellError> {
    let day = text.split_whitespace().next().unwrap_or("");
    let parsed = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .or_else(|_| chrono::NaiveDate::parse_from_str(day, "%m/%d/%Y"))
        .map_err(|_| CellError::NotADate(shown(text)))?;
    Ok(parsed.format("%Y-%m-%d").to_string())
}

/// A cell as shown in a message: at most 40 characters.
pub fn shown(text: &str) -> String {
    text.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_with_thousands_separators_are_read_and_malformed_ones_refused() {
        assert_eq!(parse_number("1,700"), Ok(1700.0));
        assert_eq!(parse_number("1,234,567.25"), Ok(1234567.25));
        assert_eq!(parse_number("-3.5"), Ok(-3.5));
        for bad in ["1,70", "12a", "$5", ",100", "1,,000", "-", "."] {
            assert!(parse_number(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_in_both_styles_and_impossible_ones_refused() {
        assert_eq!(parse_date("05/17/2023").as_deref(), Ok("2023-05-17"));
        assert_eq!(parse_date("09/01/2022 12:00:00 AM").as_deref(), Ok("2022-09-01"));
        assert_eq!(parse_date("2024-02-29").as_deref(), Ok("2024-02-29"));
        assert!(parse_date("2023-02-29").is_err());
        assert!(parse_date("0009-06-09x").is_err());
    }

    #[test]
    fn templates_collapse_spaces_and_all_empty_placeholders_make_an_absent_value() {
        let cells = |c: &str| if c == "s" { "ANDES ROAD" } else { "" };
        assert_eq!(fill("{n} {s}", cells), "ANDES ROAD");
        assert_eq!(fill("NYC-PLUTO:{id}", cells), "");
        assert_eq!(fill("NY", cells), "NY");
        assert_eq!(placeholders("{a} x {b c}").unwrap(), vec!["a", "b c"]);
        assert!(placeholders("{a").is_err() && placeholders("a}").is_err() && placeholders("{}").is_err());
    }

    #[test]
    fn header_lookup_ignores_case_and_surrounding_spaces() {
        let header = Header::new(["DOCUMENT ID", " Doc. Type ", "REFERENCE BY CRFN "]);
        let row = csv::StringRecord::from(vec!["2017011101164001", " DEED ", "x"]);
        assert!(header.has("document id") && header.has("reference by crfn"));
        assert_eq!(header.cell(&row, "doc. type"), "DEED");
        assert_eq!(header.cell(&row, "absent"), "");
    }
}
