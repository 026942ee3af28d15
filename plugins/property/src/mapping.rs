//! County column mappings: how one county's assessor export (a CSV with a header row) becomes parcels.
//!
//! A mapping is a TOML file in `mappings/` (compiled into the plugin by `build.rs`; adding a county is
//! adding a file, no Rust). It names the header columns that identify the export (`detect`), the county of
//! each row (`county`), and for each parcel field a rule (`[fields]`, see [`Rule`]). `mappings/README.md`
//! documents the format for people writing one.

use std::collections::BTreeMap;

use datahost_plugin_kit::county::parse_county_slug;
pub use datahost_plugin_kit::tabular::Header;
use datahost_plugin_kit::tabular::{fill, parse_date, parse_number, placeholders, shown, CellError};
use serde::Deserialize;

/// The mapping files shipped in `mappings/` (file name, text), collected at build time.
pub const SHIPPED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/mappings.rs"));

/// The fields a mapping may fill, with their kinds. `street`, `assessorId`, `sourceId` and `sourceUrl` are
/// required in every mapping; a field a mapping leaves out is served as null (or `""` for text fields the
/// response always carries).
pub const FIELDS: &[(&str, Kind)] = &[
    ("street", Kind::Text),
    ("unit", Kind::Text),
    ("city", Kind::Text),
    ("state", Kind::Text),
    ("zip", Kind::Text),
    ("assessorId", Kind::Text),
    ("sourceId", Kind::Text),
    ("sourceUrl", Kind::Text),
    ("ownerName", Kind::Text),
    ("legalDescription", Kind::Text),
    ("subdivision", Kind::Text),
    ("zoning", Kind::Text),
    ("architectureType", Kind::Text),
    ("exteriorType", Kind::Text),
    ("propertyType", Kind::Text),
    ("lastSaleDate", Kind::Date),
    ("yearBuilt", Kind::Integer),
    ("bedrooms", Kind::Integer),
    ("squareFootage", Kind::Integer),
    ("bathrooms", Kind::Number),
    ("lotSize", Kind::Number),
    ("hoaFee", Kind::Number),
    ("landValue", Kind::Number),
    ("improvementValue", Kind::Number),
    ("marketValue", Kind::Number),
];

const REQUIRED: &[&str] = &["street", "assessorId", "sourceId", "sourceUrl"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Integer,
    Number,
    /// `YYYY-MM-DD`, or `MM/DD/YYYY` as US exports write it (a time after the date is ignored).
    Date,
}

/// How a field's value is read from a row.
///
/// - a string with `{column}` placeholders is a template: each placeholder is replaced by that column's
///   trimmed value, runs of spaces collapse, and an empty result is an absent value (`"{bbl}"`,
///   `"{housenum_lo} {street_name}"`, `"NYC-PLUTO:{bbl}"`);
/// - a string without placeholders is a constant (`"NY"`);
/// - a table reads one `column` and may translate it with `values` (a value not listed is a row problem),
///   scale a number (`divide`, `multiply`), subtract another column (`minus`), or treat 0 as absent
///   (`zero_is_absent`, for exports that write 0 for "unknown").
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Rule {
    Text(String),
    Column(ColumnRule),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnRule {
    pub column: String,
    #[serde(default)]
    pub values: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub divide: Option<f64>,
    #[serde(default)]
    pub multiply: Option<f64>,
    #[serde(default)]
    pub minus: Option<String>,
    #[serde(default)]
    pub zero_is_absent: bool,
}

/// One county export's mapping, as its TOML file declares it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    pub name: String,
    pub title: String,
    /// Header columns that must all be present for a file to be read with this mapping.
    pub detect: Vec<String>,
    pub county: Rule,
    pub fields: BTreeMap<String, Rule>,
}

/// A value read from one cell (or template) of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(String),
    Integer(i64),
    Number(f64),
    Absent,
}

/// What went wrong reading one field of a row: the column and the message.
#[derive(Debug, Clone, PartialEq)]
pub struct CellProblem {
    pub column: String,
    pub message: String,
}

impl Mapping {
    /// Parses and checks a mapping file: known field names, the required fields present, templates closed,
    /// county values that are county slugs.
    pub fn parse(file: &str, text: &str) -> Result<Self, String> {
        let mapping: Mapping = toml::from_str(text).map_err(|e| format!("mapping {file}: {e}"))?;
        let bad = |m: String| Err(format!("mapping {file}: {m}"));
        if mapping.detect.is_empty() {
            return bad("`detect` lists no column".into());
        }
        for name in mapping.fields.keys() {
            if !FIELDS.iter().any(|(f, _)| f == name) {
                let known: Vec<&str> = FIELDS.iter().map(|(f, _)| *f).collect();
                return bad(format!("unknown field `{name}` (known: {})", known.join(", ")));
            }
        }
        if let Some(missing) = REQUIRED.iter().find(|f| !mapping.fields.contains_key(**f)) {
            return bad(format!("the required field `{missing}` has no rule"));
        }
        for (name, rule) in mapping.fields.iter().map(|(n, r)| (n.as_str(), r)).chain([("county", &mapping.county)]) {
            if let Rule::Text(t) = rule {
                placeholders(t).map_err(|e| format!("mapping {file}: field `{name}`: {e}"))?;
            }
        }
        let slugs: Vec<String> = match &mapping.county {
            Rule::Text(t) if !t.contains('{') => vec![t.clone()],
            Rule::Column(ColumnRule { values: Some(values), .. }) => values.values().cloned().collect(),
            _ => return bad("`county` must be a county slug or a column with `values` naming county slugs".into()),
        };
        for slug in slugs {
            parse_county_slug("county", &slug).map_err(|e| format!("mapping {file}: {}", e.message))?;
        }
        Ok(mapping)
    }

    /// Whether a file with this header is this mapping's export.
    pub fn detects(&self, header: &Header) -> bool {
        self.detect.iter().all(|c| header.has(c))
    }

    /// The county slug of a row.
    pub fn county(&self, header: &Header, row: &csv::StringRecord) -> Result<String, CellProblem> {
        match self.read(&self.county, Kind::Text, header, row)? {
            Value::Text(slug) => Ok(slug),
            _ => Err(CellProblem { column: rule_column(&self.county), message: "no county".into() }),
        }
    }

    /// Every mapped field of a row (fields without a rule are absent).
    pub fn fields(
        &self,
        header: &Header,
        row: &csv::StringRecord,
    ) -> Result<BTreeMap<&'static str, Value>, CellProblem> {
        let mut out = BTreeMap::new();
        for &(name, kind) in FIELDS {
            let value = match self.fields.get(name) {
                Some(rule) => self.read(rule, kind, header, row)?,
                None => Value::Absent,
            };
            if value == Value::Absent && REQUIRED.contains(&name) {
                let column = self.fields.get(name).map(rule_column).unwrap_or_default();
                return Err(CellProblem { column, message: format!("{name} is empty") });
            }
            out.insert(name, value);
        }
        Ok(out)
    }

    fn read(&self, rule: &Rule, kind: Kind, header: &Header, row: &csv::StringRecord) -> Result<Value, CellProblem> {
        match rule {
            Rule::Text(template) => {
                let text = fill(template, |c| header.cell(row, c));
                if text.is_empty() {
                    return Ok(Value::Absent);
                }
                typed(&text, kind).map_err(|e| CellProblem { column: rule_column(rule), message: e.to_string() })
            }
            Rule::Column(c) => {
                let problem = |message: String| CellProblem { column: c.column.clone(), message };
                let raw = header.cell(row, &c.column);
                if raw.is_empty() {
                    return Ok(Value::Absent);
                }
                let raw = match &c.values {
                    Some(values) => values.get(raw).map(String::as_str).ok_or_else(|| {
                        problem(format!("`{}` is not one of the values the mapping lists", shown(raw)))
                    })?,
                    None => raw,
                };
                if kind == Kind::Text {
                    return Ok(Value::Text(raw.to_string()));
                }
                let mut number = parse_number(raw).map_err(|e| problem(e.to_string()))?;
                if let Some(minus) = &c.minus {
                    let other = header.cell(row, minus);
                    if !other.is_empty() {
                        number -= parse_number(other)
                            .map_err(|e| CellProblem { column: minus.clone(), message: e.to_string() })?;
                    }
                }
                if number == 0.0 && c.zero_is_absent {
                    return Ok(Value::Absent);
                }
                if let Some(d) = c.divide.filter(|d| *d != 0.0) {
                    number /= d;
                }
                if let Some(m) = c.multiply {
                    number *= m;
                }
                match kind {
                    Kind::Integer if number.fract() == 0.0 && number.abs() < 9.0e15 => {
                        Ok(Value::Integer(number as i64))
                    }
                    Kind::Integer => Err(problem(format!("`{}` is not a whole number", shown(raw)))),
                    Kind::Number => Ok(Value::Number(number)),
                    Kind::Date => Err(problem("a date column cannot be scaled or subtracted".into())),
                    Kind::Text => unreachable!("text returned above"),
                }
            }
        }
    }
}

/// The column a rule reads (its first placeholder for a template), for problem locations.
fn rule_column(rule: &Rule) -> String {
    match rule {
        Rule::Column(c) => c.column.clone(),
        // Templates were checked when the mapping loaded, so `placeholders` cannot fail here; a constant has
        // no column to name.
        Rule::Text(t) => placeholders(t).ok().and_then(|p| p.into_iter().next()).unwrap_or_default(),
    }
}

/// Why a template's text does not read as its field's kind (a row problem at the rule's column).
#[derive(Debug, thiserror::Error)]
enum KindError {
    #[error(transparent)]
    Cell(#[from] CellError),
    #[error("`{0}` is not a whole number")]
    NotWhole(String),
}

fn typed(text: &str, kind: Kind) -> Result<Value, KindError> {
    match kind {
        Kind::Text => Ok(Value::Text(text.to_string())),
        Kind::Integer => {
            let n = parse_number(text)?;
            if n.fract() != 0.0 {
                return Err(KindError::NotWhole(shown(text)));
            }
            Ok(Value::Integer(n as i64))
        }
        Kind::Number => Ok(Value::Number(parse_number(text)?)),
        Kind::Date => Ok(Value::Text(parse_date(text)?)),
    }
}

/// Every shipped mapping, parsed. A shipped mapping that does not parse is a build defect caught by the unit
/// tests; at run time it is skipped with its error kept for the refusal message.
pub fn shipped() -> (Vec<Mapping>, Vec<String>) {
    let mut ok = Vec::new();
    let mut errors = Vec::new();
    for (file, text) in SHIPPED {
        match Mapping::parse(file, text) {
            Ok(m) => ok.push(m),
            Err(e) => errors.push(e),
        }
    }
    (ok, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_mapping_parses_and_names_are_unique() {
        let (mappings, errors) = shipped();
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(mappings.len(), SHIPPED.len());
        assert!(SHIPPED.len() >= 2, "the NYC PLUTO and DOF roll mappings ship");
        let mut names: Vec<&str> = mappings.iter().map(|m| m.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), mappings.len(), "mapping names are unique");
    }

    #[test]
    fn a_mapping_with_an_unknown_field_a_missing_required_one_or_a_bad_county_is_refused() {
        let base = "name = \"x\"\ntitle = \"t\"\ndetect = [\"a\"]\ncounty = \"travis-tx\"\n[fields]\n\
                    street = \"{a}\"\nassessorId = \"{a}\"\nsourceId = \"X:{a}\"\nsourceUrl = \"https://x/{a}\"\n";
        assert!(Mapping::parse("ok.toml", base).is_ok());
        let unknown = format!("{base}bedroomz = \"{{b}}\"\n");
        assert!(Mapping::parse("u.toml", &unknown).unwrap_err().contains("unknown field `bedroomz`"));
        let missing = base.replace("sourceUrl = \"https://x/{a}\"\n", "");
        assert!(Mapping::parse("m.toml", &missing).unwrap_err().contains("`sourceUrl`"));
        let county = base.replace("travis-tx", "Travis County");
        assert!(Mapping::parse("c.toml", &county).is_err());
        let unclosed = base.replace("X:{a}", "X:{a");
        assert!(Mapping::parse("t.toml", &unclosed).unwrap_err().contains("unclosed"));
    }
}
