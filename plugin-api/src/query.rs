//! Parameterised reads of stored records, for datasets too big to hold in plugin memory (`records.query`).
//!
//! A plugin declares the fields it looks records up by ([`crate::Manifest::indexing`]); the host builds one
//! index per declaration in whichever engine it runs (an expression index over the record's JSON, SQLite or
//! PostgreSQL alike) and answers [`RecordsQuery`]s with the matching records' data, in ingest order. Plugins
//! never see SQL or a connection: equality on declared fields is the whole language, which is what lookups by
//! VIN, ticker or CIK need and what every engine can answer from an index.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The host call that answers a [`RecordsQuery`] with a [`RecordsPage`].
pub const QUERY_CALL: &str = "records.query";

/// The most records one query returns; a larger `limit` is clamped to it.
pub const MAX_QUERY_LIMIT: usize = 10_000;

/// Fields a plugin may look records up by: a declared set of top-level fields of a collection's records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordIndex {
    /// The collection whose records are indexed ([`crate::ingest::IngestRecord::collection`]): letters,
    /// digits, `_` and `-`.
    pub collection: String,
    /// Top-level field names of the record data, in index order (the most selective first).
    pub fields: Vec<String>,
}

/// One condition: the record's top-level `field` equals one of `any_of` (strings or integers, compared by type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filter {
    /// Top-level field of the record data to compare (letters, digits and `_`, at most 64).
    pub field: String,
    /// Accepted values (JSON `anyOf`), at least one: strings or integers, each matching only a stored value of the
    /// same JSON type.
    pub any_of: Vec<Value>,
}

/// Records of `collection` in `dataset` (the plugin's own or one it reads) matching every filter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordsQuery {
    /// Dataset to read: the plugin's own or one it declares in [`crate::Manifest::reads`]; any other is refused.
    pub dataset: String,
    /// The collection to read, as the records were ingested ([`crate::ingest::IngestRecord::collection`]).
    pub collection: String,
    /// Conditions, all of which must hold; at least one must be on the leading field of a declared
    /// [`RecordIndex`] of the collection (except for an unfiltered `distinct` query).
    #[serde(default)]
    pub filters: Vec<Filter>,
    /// At most this many records (default and maximum [`MAX_QUERY_LIMIT`]).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Skips this many matching records first (in ingest order): how a reader pages through more than one
    /// query returns (see [`crate::Host::query_all_records`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// Instead of the matching records, the distinct values of this top-level field among them (records
    /// without it left out), ordered by value: which filings have rows, say, without reading the rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct: Option<String>,
}

impl RecordsQuery {
    /// All records of `collection` in `dataset`; add filters with [`RecordsQuery::eq`] / [`RecordsQuery::any_of`].
    pub fn new(dataset: &str, collection: &str) -> Self {
        Self {
            dataset: dataset.into(),
            collection: collection.into(),
            filters: Vec::new(),
            limit: None,
            offset: None,
            distinct: None,
        }
    }

    /// Adds `field = value`.
    pub fn eq(self, field: &str, value: impl Into<Value>) -> Self {
        self.any_of(field, vec![value.into()])
    }

    /// Adds `field IN values`.
    pub fn any_of(mut self, field: &str, values: Vec<Value>) -> Self {
        self.filters.push(Filter { field: field.into(), any_of: values });
        self
    }

    /// Caps the answer at `limit` records (clamped to 1..=[`MAX_QUERY_LIMIT`]).
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Skips the first `offset` matching records, in ingest order.
    pub fn offset(mut self, offset: usize) -> Self {
        self.offset = Some(offset);
        self
    }

    /// Asks for the distinct values of `field` instead of the records.
    pub fn distinct(mut self, field: &str) -> Self {
        self.distinct = Some(field.into());
        self
    }

    /// The effective offset.
    pub fn skip(&self) -> usize {
        self.offset.unwrap_or(0)
    }

    /// The effective limit.
    pub fn max_records(&self) -> usize {
        self.limit.unwrap_or(MAX_QUERY_LIMIT).clamp(1, MAX_QUERY_LIMIT)
    }

    /// Why the query cannot run, if it cannot: an invalid field name, a value that is neither a string nor an
    /// integer, an empty `any_of`, or a filter set that no declared index of the collection serves (so no
    /// query can scan a whole table). A `distinct` query without filters is served when its field leads a
    /// declared index (the values are read from that index).
    pub fn problem(&self, indexes: &[RecordIndex]) -> Option<String> {
        let names = self.filters.iter().map(|f| f.field.as_str()).chain(self.distinct.as_deref());
        if let Some(name) = names.into_iter().find(|name| !valid_field(name)) {
            return Some(format!("`{name}` is not a field name (letters, digits and '_', at most 64)"));
        }
        if let Some(f) = self.filters.iter().find(|f| f.any_of.is_empty()) {
            return Some(format!("the filter on `{}` lists no value", f.field));
        }
        if let Some(f) = self.filters.iter().find(|f| !f.any_of.iter().all(|v| v.is_string() || v.is_i64())) {
            return Some(format!(
                "the filter on `{}` compares with a value that is neither a string nor an integer",
                f.field
            ));
        }
        let leads = |field: &str| {
            indexes
                .iter()
                .filter(|i| i.collection == self.collection)
                .any(|i| i.fields.first().is_some_and(|l| l == field))
        };
        let served = self.filters.iter().any(|f| leads(&f.field))
            || (self.filters.is_empty() && self.distinct.as_deref().is_some_and(leads));
        (!served).then(|| match (&self.distinct, self.filters.is_empty()) {
            (Some(field), true) => {
                format!(
                    "no declared index of `{}` starts with `{field}`, whose distinct values are asked",
                    self.collection
                )
            }
            _ => format!(
                "no declared index of `{}` starts with a field this query filters on ({})",
                self.collection,
                self.filters.iter().map(|f| f.field.as_str()).collect::<Vec<_>>().join(", ")
            ),
        })
    }
}

/// The answer: the matching records' data, and whether `limit` cut the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordsPage {
    /// The matching records' data (as ingested) in ingest order, or the distinct values (JSON strings or
    /// integers) for a `distinct` query.
    pub records: Vec<Value>,
    /// True when more records match than the limit let through: read on with a larger `offset`.
    pub truncated: bool,
}

/// A top-level field name safe to put in an index expression: `[A-Za-z0-9_]{1,64}`.
pub fn valid_field(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// What a record holds in `field`, as the engines compare it: a string or an integer, else nothing.
pub fn field_value<'a>(data: &'a Value, field: &str) -> Option<&'a Value> {
    data.get(field).filter(|v| v.is_string() || v.is_i64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn index(collection: &str, fields: &[&str]) -> RecordIndex {
        RecordIndex { collection: collection.into(), fields: fields.iter().map(|f| f.to_string()).collect() }
    }

    #[test]
    fn a_query_must_be_served_by_a_declared_index() {
        let indexes = [index("recalls", &["makeKey", "modelKey"]), index("decodes", &["vin"])];
        let q = RecordsQuery::new("vin", "recalls").eq("makeKey", "HONDA").eq("modelKey", "ACCORD");
        assert_eq!(q.problem(&indexes), None);
        assert_eq!(
            RecordsQuery::new("vin", "recalls").eq("modelKey", "ACCORD").problem(&indexes).as_deref(),
            Some("no declared index of `recalls` starts with a field this query filters on (modelKey)")
        );
        assert!(RecordsQuery::new("vin", "complaints").eq("vin", "X").problem(&indexes).is_some());
        assert_eq!(
            RecordsQuery::new("vin", "decodes").eq("vin'); DROP", "x").problem(&indexes).as_deref(),
            Some("`vin'); DROP` is not a field name (letters, digits and '_', at most 64)")
        );
        assert!(RecordsQuery::new("vin", "decodes").any_of("vin", vec![]).problem(&indexes).is_some());
        assert!(RecordsQuery::new("vin", "decodes").eq("vin", 1.5).problem(&indexes).is_some());
        assert_eq!(RecordsQuery::new("vin", "decodes").eq("vin", 2019).problem(&indexes), None);
        // Distinct values: read from an index the field leads, or among records a served filter selects.
        assert_eq!(RecordsQuery::new("vin", "recalls").distinct("makeKey").problem(&indexes), None);
        assert_eq!(
            RecordsQuery::new("vin", "recalls").distinct("modelKey").problem(&indexes).as_deref(),
            Some("no declared index of `recalls` starts with `modelKey`, whose distinct values are asked")
        );
        assert_eq!(RecordsQuery::new("vin", "recalls").eq("makeKey", "FORD").distinct("year").problem(&indexes), None);
        assert!(RecordsQuery::new("vin", "recalls").distinct("a b").problem(&indexes).is_some());
    }

    #[test]
    fn limits_are_clamped() {
        let q = RecordsQuery::new("d", "c");
        assert_eq!(q.max_records(), MAX_QUERY_LIMIT);
        assert_eq!(q.clone().limit(0).max_records(), 1);
        assert_eq!(q.clone().limit(5).max_records(), 5);
        assert_eq!(q.limit(MAX_QUERY_LIMIT + 1).max_records(), MAX_QUERY_LIMIT);
        assert_eq!(field_value(&json!({"a": 1.5, "b": 2, "c": "x"}), "a"), None);
    }
}
