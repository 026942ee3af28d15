//! What a plugin's parser gives the host for one official source file (the `ingest` ABI slot).
//!
//! The host reads the file, hands its bytes and name to the plugin that owns the dataset, and writes what
//! comes back into the records engine in one transaction per file. The plugin only parses: it detects the
//! format from the content, turns every row it can read into an [`IngestRecord`] and reports every row it
//! cannot read as a [`RowProblem`] with its location. A file it cannot read at all is a [`Refusal`]: the host
//! then changes nothing for that file.
//!
//! Identity and amendments are declared per record, so the host applies the same rules to every dataset:
//! - `key` identifies a record within `(dataset, collection)`. The same key again with the same data is
//!   `unchanged`; with other data it is `replaced`. Ingesting a file twice therefore changes nothing.
//! - `group` is the filing the record comes from (accession number, House DocID, PTR id...).
//! - `lineage` (optional) names what an amendment amends (for example issuer + owner + period for a Form 4/A,
//!   filer + period for a 13F-HR/A). When a record with `amendment: true` arrives, every record of the same
//!   lineage from another group with a lower `revision` is removed (counted as replaced). When an original
//!   arrives after its amendment (higher revision already held), its records of that lineage are skipped and
//!   reported as superseded. Nothing is counted twice, whatever the order the files arrive in.

use serde::{Deserialize, Serialize};

/// One file handed to a plugin's parser.
#[derive(Debug, Clone, Copy)]
pub struct SourceFile<'a> {
    /// The file name as given to `datahost ingest` (a path relative to what the operator named), used in
    /// messages and provenance only; the format is detected from `bytes`.
    pub name: &'a str,
    /// The whole file content, as read from disk (no decoding done; see [`SourceFile::text`]).
    pub bytes: &'a [u8],
}

impl SourceFile<'_> {
    /// The content as UTF-8 text (a leading byte-order mark removed), or a refusal naming the file.
    pub fn text(&self) -> Result<&str, Refusal> {
        let bytes = self.bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(self.bytes);
        std::str::from_utf8(bytes)
            .map_err(|e| Refusal::at(format!("byte {}", e.valid_up_to()), "the file is not UTF-8 text".to_string()))
    }
}

/// Everything a parser read from one file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestBatch {
    /// The detected format, one of the plugin's `ingest:<format>` capabilities (for example `form4-xml`).
    pub format: String,
    /// The records read, in file order; the SDK keeps only the first of each `(collection, key)` (see
    /// [`IngestBatch::keep_one_per_key`]).
    pub records: Vec<IngestRecord>,
    /// Rows that could not be read. They are refused one by one (the rest of the file applies) and reported
    /// with their location; never guessed into a value and never dropped silently.
    #[serde(default)]
    pub problems: Vec<RowProblem>,
    /// Facts worth reporting about the file as a whole (for example which 13F value unit was applied, and
    /// on what evidence).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// One record to store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestRecord {
    /// The kind of record within the dataset (for example `transactions`, `filings`, `holdings`). The host
    /// serves the dataset to its plugin as `{"<collection>": [data, ...], ...}`.
    pub collection: String,
    /// Stable identity within `(dataset, collection)`.
    pub key: String,
    /// The filing the record comes from (accession number, DocID...).
    pub group: String,
    /// What an amendment amends; see the module documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lineage: Option<String>,
    /// Orders filings of one lineage (for example the filing date followed by the accession number).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub revision: String,
    /// Whether this record comes from an amendment.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub amendment: bool,
    /// The record itself, in the shape the plugin reads back.
    pub data: serde_json::Value,
}

impl IngestRecord {
    /// A record with no lineage (nothing amends it).
    pub fn new(
        collection: &str,
        key: impl Into<String>,
        group: impl Into<String>,
        data: impl Serialize,
    ) -> Result<Self, Refusal> {
        let (key, group) = (key.into(), group.into());
        // The host refuses a whole file for one record without an identity; refusing the record here lets a
        // parser report it as a row problem instead (the nhtsa fuzz target found a complaint row with no ids).
        let empty = [("collection", collection), ("key", &key), ("group", &group)];
        if let Some((what, _)) = empty.iter().find(|(_, v)| v.is_empty()) {
            return Err(Refusal::new(format!("a `{collection}` record has an empty {what}")));
        }
        Ok(Self {
            collection: collection.into(),
            key,
            group,
            lineage: None,
            revision: String::new(),
            amendment: false,
            data: serde_json::to_value(data).map_err(|e| Refusal::new(format!("record does not serialise: {e}")))?,
        })
    }

    /// Declares the lineage, revision and amendment flag of the filing this record comes from.
    pub fn amending(mut self, lineage: impl Into<String>, revision: impl Into<String>, amendment: bool) -> Self {
        self.lineage = Some(lineage.into());
        self.revision = revision.into();
        self.amendment = amendment;
        self
    }
}

/// A row that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowProblem {
    /// Where: `line 12`, `line 12, column amount`, or an XML path such as `/ownershipDocument/...[3]`.
    pub location: String,
    /// What is wrong with the row, for the operator (name the field and the rule).
    pub message: String,
}

impl IngestBatch {
    /// Keeps one record per `(collection, key)`, the first. A later record identical to it is the same row
    /// repeated within the file (counted in a note); one with other values is reported as a row problem naming
    /// the key, never applied over the first. Without this the host refuses the whole file for one repeated row
    /// (found by the `fec` and `nhtsa` fuzz targets, `fuzz/regressions/`). The SDK applies it to every batch.
    pub fn keep_one_per_key(&mut self) {
        let mut first: std::collections::HashMap<(String, String), usize> = std::collections::HashMap::new();
        let mut kept: Vec<IngestRecord> = Vec::with_capacity(self.records.len());
        let mut repeated = 0usize;
        for record in std::mem::take(&mut self.records) {
            match first.get(&(record.collection.clone(), record.key.clone())) {
                None => {
                    first.insert((record.collection.clone(), record.key.clone()), kept.len());
                    kept.push(record);
                }
                Some(&at) if kept[at] == record => repeated += 1,
                Some(_) => self.problems.push(RowProblem::new(
                    format!("{} record {}", record.collection, record.key),
                    "repeats the key of an earlier row of this file with other values; the earlier row was kept",
                )),
            }
        }
        self.records = kept;
        if repeated > 0 {
            self.notes
                .push(format!("{repeated} row(s) repeat an earlier row of this file verbatim and were kept once"));
        }
    }
}

impl RowProblem {
    /// A problem at `location` (see [`RowProblem::location`](#structfield.location) for its spellings).
    pub fn new(location: impl Into<String>, message: impl Into<String>) -> Self {
        Self { location: location.into(), message: message.into() }
    }

    /// A problem on a 1-based line.
    pub fn line(line: usize, message: impl Into<String>) -> Self {
        Self::new(format!("line {line}"), message)
    }
}

/// A file that cannot be read as a whole (wrong format, truncated, unattributable): nothing of it applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// Where the reading stopped, when known (`line 40`, an XML path, `byte 1024`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Why the file cannot be read, for the operator.
    pub reason: String,
}

impl Refusal {
    /// A refusal of the whole file with no location.
    pub fn new(reason: impl Into<String>) -> Self {
        Self { location: None, reason: reason.into() }
    }

    /// A refusal of the whole file at `location` (`line 40`, an XML path, `byte 1024`).
    pub fn at(location: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { location: Some(location.into()), reason: reason.into() }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.location {
            Some(at) => write!(f, "{at}: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

impl From<String> for Refusal {
    fn from(reason: String) -> Self {
        Self::new(reason)
    }
}

impl From<&str> for Refusal {
    fn from(reason: &str) -> Self {
        Self::new(reason)
    }
}

/// What the host sends across the ABI's `ingest` slot as `options_json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestOptions {
    /// The file's name (JSON `fileName`), as given to `datahost ingest`: becomes [`SourceFile::name`].
    #[serde(default)]
    pub file_name: String,
}

/// What travels back across the ABI: the batch, or the refusal (an OK outcome either way; an error outcome
/// means the plugin itself failed).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IngestReply {
    /// The parser read the file (JSON `{"batch": ...}`); its row problems travel inside the batch.
    Batch(IngestBatch),
    /// The parser refused the whole file (JSON `{"refused": ...}`); nothing of it is applied.
    Refused(Refusal),
}

/// The key of the block the host adds to a dataset document once the dataset holds ingested records:
/// `load_dataset(slug)` then returns `{"ingested": IngestedInfo, "<collection>": [data, ...], ...}` (a
/// collection with no records is absent) instead of the demo seed, which is never served beside real rows.
/// A plugin supplies its own `meta` (source, sourceUrl, method, caveat) for real data.
pub const INGESTED_KEY: &str = "ingested";

/// What the host says about an ingested dataset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestedInfo {
    /// Number of records held: the sum of [`IngestedInfo::collections`](#structfield.collections) for a
    /// table-backed dataset, else the records in the document.
    pub rows: u64,
    /// Number of source files recorded for the dataset (a file that changed nothing is not recorded).
    pub files: u64,
    /// RFC 3339 time of the last file that changed the dataset.
    pub last_ingest_at: String,
    /// Records per collection, given for table-backed datasets (those that declare record indexes), whose
    /// document holds no records: the plugin queries them (`records.query`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub collections: std::collections::BTreeMap<String, u64>,
}

/// What the host says of `dataset`'s ingested records, or `None` while it serves its demo seed: how a plugin
/// decides at `init` between its seed and its ingested records. Only the `ingested` block is read into memory
/// (the rest of the document is skipped, not built).
pub fn ingested_info(host: &crate::Host, dataset: &str) -> Result<Option<IngestedInfo>, crate::HostError> {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(default)]
        ingested: Option<IngestedInfo>,
    }
    Ok(host.load_dataset::<Probe>(dataset)?.ingested)
}

/// Builds the document the host would serve after ingesting `batches` in order (records keyed by collection
/// and key, later ones replacing earlier ones; amendment lineage is the host's business and not applied
/// here). For plugin unit tests that parse a corpus file and then query the plugin. The document keeps every
/// collection's records (the test host answers `records.query` from them) and counts them in `collections`.
pub fn assemble(batches: &[IngestBatch]) -> serde_json::Value {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut data: std::collections::HashMap<(String, String), serde_json::Value> = Default::default();
    for record in batches.iter().flat_map(|b| &b.records) {
        let id = (record.collection.clone(), record.key.clone());
        if data.insert(id.clone(), record.data.clone()).is_none() {
            order.push(id);
        }
    }
    let mut doc = serde_json::Map::new();
    let mut collections = std::collections::BTreeMap::new();
    for (collection, _) in &order {
        *collections.entry(collection.clone()).or_insert(0) += 1;
    }
    // The host counts every collection of a table-backed dataset; the test host's documents keep the records
    // and count them too, so a plugin reads its counts the same way in either.
    let info = IngestedInfo {
        rows: order.len() as u64,
        files: batches.len() as u64,
        last_ingest_at: String::new(),
        collections,
    };
    doc.insert(INGESTED_KEY.into(), serde_json::to_value(info).unwrap_or_default());
    for id in order {
        let value = data.remove(&id).unwrap_or_default();
        match doc.entry(id.0).or_insert_with(|| serde_json::Value::Array(Vec::new())) {
            serde_json::Value::Array(rows) => rows.push(value),
            _ => unreachable!("collections are arrays"),
        }
    }
    serde_json::Value::Object(doc)
}

/// Line number (1-based) of byte offset `pos` in `text`, for problems found by a parser that works on
/// offsets (XML readers report byte positions).
pub fn line_of(text: &str, pos: usize) -> usize {
    let end = pos.min(text.len());
    text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_without_an_identity_is_refused_where_it_is_made() {
        let refused = |c: &str, k: &str, g: &str| IngestRecord::new(c, k, g, 1).unwrap_err().reason;
        assert_eq!(refused("complaints", "", "958124"), "a `complaints` record has an empty key");
        assert_eq!(refused("complaints", "1", ""), "a `complaints` record has an empty group");
        assert_eq!(refused("", "1", "2"), "a `` record has an empty collection");
        assert!(IngestRecord::new("complaints", "1", "958124", 1).is_ok());
    }

    #[test]
    fn one_record_per_key_repeats_noted_and_conflicts_reported() {
        let rec = |key: &str, v: i32| IngestRecord::new("rows", key, "g", serde_json::json!({ "v": v })).unwrap();
        let mut batch = IngestBatch {
            format: "f".into(),
            records: vec![rec("a", 1), rec("b", 2), rec("a", 1), rec("a", 9), rec("c", 3)],
            ..Default::default()
        };
        batch.keep_one_per_key();
        let kept: Vec<(&str, &serde_json::Value)> =
            batch.records.iter().map(|r| (r.key.as_str(), &r.data["v"])).collect();
        assert_eq!(kept, [("a", &serde_json::json!(1)), ("b", &serde_json::json!(2)), ("c", &serde_json::json!(3))]);
        assert_eq!(batch.notes, ["1 row(s) repeat an earlier row of this file verbatim and were kept once"]);
        assert_eq!(batch.problems.len(), 1);
        assert_eq!(batch.problems[0].location, "rows record a");
    }

    #[test]
    fn text_strips_a_byte_order_mark_and_refuses_non_utf8() {
        let f = SourceFile { name: "a.txt", bytes: b"\xEF\xBB\xBFDocID\t1" };
        assert_eq!(f.text().unwrap(), "DocID\t1");
        let bad = SourceFile { name: "b.txt", bytes: b"ok\n\xFF" };
        let refusal = bad.text().unwrap_err();
        assert_eq!(refusal.location.as_deref(), Some("byte 3"));
    }

    #[test]
    fn line_of_counts_newlines_before_the_offset() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }

    #[test]
    fn replies_round_trip_as_json() {
        let batch = IngestBatch {
            format: "x".into(),
            records: vec![IngestRecord::new("rows", "k", "g", serde_json::json!({"a": 1})).unwrap().amending(
                "L",
                "2024-01-01",
                true,
            )],
            problems: vec![RowProblem::line(3, "bad date")],
            notes: vec![],
        };
        let json = serde_json::to_string(&IngestReply::Batch(batch.clone())).unwrap();
        match serde_json::from_str::<IngestReply>(&json).unwrap() {
            IngestReply::Batch(b) => assert_eq!(b, batch),
            IngestReply::Refused(_) => panic!("wrong variant"),
        }
    }
}
