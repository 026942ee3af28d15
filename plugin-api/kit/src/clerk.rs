//! County clerk (recorder) indexes from the official table exports, shared by the deeds and liens datasets.
//!
//! A clerk publishes its grantor/grantee index as tables: one row per recorded document (`instruments`), one
//! per party (`parties`) and one per parcel (`legals`), joined by a document id. New York City's ACRIS is the
//! first source. A [`ClerkMapping`] (a TOML file in the deeds plugin's `mappings/`) names the columns of
//! each table, the county of a row, the party roles and what each document type is (a deed or other
//! conveyance, a lien of a SPEC type, a release); adding a county is adding a file.
//!
//! Ingest ([`parse`]) turns one table file into records: the row itself, plus one `terms` record per search
//! word of the row (party name words, address words, the document's own numbers), qualified by the mapping
//! (`nyc-acris:SMITH`). Every collection is table-backed ([`INDEXES`]), and the host keeps a word index over
//! them ([`word_index`], the SDK's `words` module), so a search ([`ClerkStore::search`]) asks the host for one
//! page of the documents holding every query word, newest first, with a capped count, then reads only those
//! documents' instrument, party and parcel rows and joins them. The tables may arrive in any order and in separate
//! files: a document is served once its instrument row is held, with the parties and parcels held so far.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::address::{canonical_tokens, TokenSet};
use crate::county::{clerk_key, parse_county_slug, ClerkKey, ClerkSearch};
use crate::error::StoredError;
use crate::tabular::{fill, parse_date, parse_number, placeholders, Header, Table, TemplateError};
use datahost_plugin_api::ingest::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use datahost_plugin_api::query::RecordsQuery;
use datahost_plugin_api::words::{DocumentRecords, WordIndex, WordSearch, WORD_PAGE_RECORDS};
use datahost_plugin_api::{Host, HostError};

/// Collection of instrument rows: one record per recorded document (type, county, date, amount, numbers).
pub const INSTRUMENTS: &str = "instruments";
/// Collection of party rows: one record per party of a document (role `first`, `second` or `other`, and name).
pub const PARTIES: &str = "parties";
/// Collection of parcel (legal) rows: one record per parcel of a document (county, address, parcel id).
pub const LEGALS: &str = "legals";
/// Collection of search words: one record per distinct word of a row ([`TERM`] and [`DOC_KEY`] fields).
pub const TERMS: &str = "terms";
/// `<mapping>:<document id>`, the join key of the three tables.
pub const DOC_KEY: &str = "docKey";
/// `<mapping>:<WORD>`, the search word of a `terms` record.
pub const TERM: &str = "term";
/// `<mapping>|<county slug>` of an instrument: which counties each mapping's records cover.
pub const COVERAGE: &str = "coverage";

/// The record indexes a plugin that ingests or serves clerk records declares (`Manifest::indexing`).
pub const INDEXES: &[(&str, &[&str])] = &[
    (INSTRUMENTS, &[DOC_KEY]),
    (INSTRUMENTS, &[COVERAGE]),
    (PARTIES, &[DOC_KEY]),
    (LEGALS, &[DOC_KEY]),
    (TERMS, &[TERM]),
];

/// Documents per lookup of instrument, party or parcel rows.
const KEYS_PER_QUERY: usize = 500;

/// What a document type is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A deed, other conveyance, mortgage or mortgage instrument: served by `/v1/deeds`.
    Deed,
    /// A lien of one of SPEC's types: served by `/v1/liens`.
    Lien,
    /// The release, discharge or satisfaction of a lien.
    Release,
    /// Anything else the clerk records (powers of attorney, tax returns...): stored, not served.
    Other,
}

impl Kind {
    /// The kind as stored in records (its serde name), with no serialisation that could fail.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Deed => "deed",
            Kind::Lien => "lien",
            Kind::Release => "release",
            Kind::Other => "other",
        }
    }
}

/// What one document type code of the mapping's `[doc_types]` table is and how it is served.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocType {
    /// Deed, lien, release or other: decides which route serves documents of this type.
    pub kind: Kind,
    /// The type as served (`DEED`, `MORTGAGE`, `FEDERAL LIEN-IRS`).
    pub name: String,
    /// For liens and releases: `mechanic's`, `tax` or `judgment`.
    #[serde(default)]
    pub lien_type: Option<String>,
}

/// One table of a clerk export: the columns that identify it and a template per field.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// Column names that must all be in a file's header for it to be read as this table (case-insensitive).
    pub detect: Vec<String>,
    /// Field name -> `{column}` template that builds it from a row (for example `"{street number} {street name}"`).
    /// The fields each table must and may map are fixed by the SDK; [`ClerkMapping::parse`] refuses others.
    pub fields: BTreeMap<String, String>,
}

/// Which party role codes are the first party (grantor, debtor) and the second (grantee, claimant).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Roles {
    /// Role code (as the party table writes it) of the first party: grantor, mortgagor or debtor.
    pub first: String,
    /// Role code of the second party: grantee, lender, claimant or secured party. Other codes are stored as `other`.
    pub second: String,
}

/// One clerk's export, as its mapping file declares it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClerkMapping {
    /// Short mapping id, lowercase (for example `nyc-acris`): prefixes every key and search word of its records
    /// and names its ingest formats (`<name>-<table>`).
    pub name: String,
    /// Human-readable name of the source, quoted in the ingest notes.
    pub title: String,
    /// The county of a row: the value of the `county` field translated through this table.
    pub counties: BTreeMap<String, String>,
    /// Which role codes are the first and the second party.
    pub roles: Roles,
    /// How to recognise and read the instruments (document) table.
    pub instruments: TableSpec,
    /// How to recognise and read the parties table.
    pub parties: TableSpec,
    /// How to recognise and read the legals (parcels) table.
    pub legals: TableSpec,
    /// Doc type code (the `doc_type` field's value) -> what it is; a code not listed is stored as [`Kind::Other`]
    /// (not served), with the raw code as its `docType`.
    pub doc_types: BTreeMap<String, DocType>,
}

/// The fields each table must map (`fields`), and those it may.
const TABLE_FIELDS: &[(&str, &[&str], &[&str])] = &[
    (INSTRUMENTS, &["document", "doc_type", "recorded", "county", "source_url"], &["amount", "numbers"]),
    (PARTIES, &["document", "role", "name"], &[]),
    (LEGALS, &["document", "county"], &["address", "unit", "parcel"]),
];

const LIEN_TYPES: &[&str] = &["mechanic's", "tax", "judgment"];

impl ClerkMapping {
    /// Parses and checks a mapping file.
    pub fn parse(file: &str, text: &str) -> Result<Self, MappingError> {
        let bad = |problem| Err(MappingError { file: file.to_string(), problem });
        let m: ClerkMapping = match toml::from_str(text) {
            Ok(m) => m,
            Err(e) => return bad(MappingProblem::Toml(e)),
        };
        for &(table, required, optional) in TABLE_FIELDS {
            let spec = m.table(table);
            if spec.detect.is_empty() {
                return bad(MappingProblem::NoDetect { table });
            }
            if let Some(f) = required.iter().find(|f| !spec.fields.contains_key(**f)) {
                return bad(MappingProblem::MissingField { table, field: f });
            }
            if let Some(f) =
                spec.fields.keys().find(|f| !required.contains(&f.as_str()) && !optional.contains(&f.as_str()))
            {
                return bad(MappingProblem::UnknownField { table, field: f.clone() });
            }
            for (name, template) in &spec.fields {
                if let Err(source) = placeholders(template) {
                    return bad(MappingProblem::Template { table, field: name.clone(), source });
                }
            }
        }
        for slug in m.counties.values() {
            if let Err(e) = parse_county_slug("county", slug) {
                return bad(MappingProblem::County(e.message));
            }
        }
        for (code, t) in &m.doc_types {
            let needs = matches!(t.kind, Kind::Lien | Kind::Release);
            match (&t.lien_type, needs) {
                (Some(l), true) if LIEN_TYPES.contains(&l.as_str()) => {}
                (None, false) => {}
                _ => return bad(MappingProblem::LienType { code: code.clone() }),
            }
        }
        Ok(m)
    }

    fn table(&self, name: &str) -> &TableSpec {
        match name {
            INSTRUMENTS => &self.instruments,
            PARTIES => &self.parties,
            _ => &self.legals,
        }
    }

    /// The table a header is, if any (instruments first, then parties, then parcels).
    fn detect(&self, header: &Header) -> Option<&'static str> {
        [INSTRUMENTS, PARTIES, LEGALS].into_iter().find(|t| self.table(t).detect.iter().all(|c| header.has(c)))
    }
}

/// A mapping file that [`ClerkMapping::parse`] refuses: the file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("mapping {file}: {problem}")]
pub struct MappingError {
    /// The mapping file's name.
    pub file: String,
    /// What is wrong with it.
    pub problem: MappingProblem,
}

/// What is wrong with a mapping file.
#[derive(Debug, thiserror::Error)]
pub enum MappingProblem {
    /// The file is not TOML of a mapping's shape.
    #[error("{0}")]
    Toml(toml::de::Error),
    /// A table names no column that recognises its header.
    #[error("[{table}] `detect` lists no column")]
    NoDetect {
        /// The table (`instruments`, `parties`, `legals`).
        table: &'static str,
    },
    /// A field the table must map has no template.
    #[error("[{table}.fields] has no `{field}`")]
    MissingField {
        /// The table.
        table: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A template for a field the table does not have.
    #[error("[{table}.fields] `{field}` is not a field of this table")]
    UnknownField {
        /// The table.
        table: &'static str,
        /// The field as the file names it.
        field: String,
    },
    /// A field's template is malformed.
    #[error("[{table}.fields] {field}: {source}")]
    Template {
        /// The table.
        table: &'static str,
        /// The field.
        field: String,
        /// What is wrong with the template.
        source: TemplateError,
    },
    /// A county code maps to something that is not a county slug: the slug check's message.
    #[error("{0}")]
    County(String),
    /// A doc type whose lien type does not fit its kind.
    #[error("doc type `{code}`: a lien or release names lien_type {LIEN_TYPES:?}, others none")]
    LienType {
        /// The doc type code.
        code: String,
    },
}

/// Parses every mapping file given (name, text); unreadable ones are returned as errors.
pub fn mappings(files: &[(&str, &str)]) -> (Vec<ClerkMapping>, Vec<String>) {
    let mut ok = Vec::new();
    let mut errors = Vec::new();
    for (file, text) in files {
        match ClerkMapping::parse(file, text) {
            Ok(m) => ok.push(m),
            // Kept as text: the callers put it in a refusal's message.
            Err(e) => errors.push(e.to_string()),
        }
    }
    (ok, errors)
}

/// The ingest format of a table read with a mapping: `<mapping>-<table>` (`nyc-acris-instruments`).
pub fn format_name(mapping: &str, table: &str) -> String {
    format!("{mapping}-{table}")
}

/// Parses one table file of a clerk export with the first mapping whose table its header is.
pub fn parse(file: &SourceFile<'_>, mappings: &[ClerkMapping]) -> Result<IngestBatch, Refusal> {
    let table_file = Table::open(file.text()?)?;
    let header = &table_file.header;
    let Some((mapping, table)) = mappings.iter().find_map(|m| m.detect(header).map(|t| (m, t))) else {
        let known: Vec<String> = mappings
            .iter()
            .flat_map(|m| {
                [INSTRUMENTS, PARTIES, LEGALS]
                    .map(|t| format!("{} (columns {})", format_name(&m.name, t), m.table(t).detect.join(", ")))
            })
            .collect();
        return Err(Refusal::at(
            "line 1",
            format!("no clerk table mapping matches this file's header; the tables are: {}", known.join("; ")),
        ));
    };
    let mut batch = IngestBatch { format: format_name(&mapping.name, table), ..Default::default() };
    let records = &mut batch.records;
    // One record per key within a file: a search word shared by two rows of one document (two grantors named
    // SMITH, two parcels on one street) is one `terms` record, and a row repeated verbatim (same document, role
    // and name, or same parcel) is the same fact once; the repeats are counted in a note.
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut repeated_rows = 0usize;
    table_file.rows(&mut batch.problems, |header, row, line| {
        let cell = |field: &str| -> String {
            mapping.table(table).fields.get(field).map(|t| fill(t, |c| header.cell(row, c))).unwrap_or_default()
        };
        let (field, message) = match records_of(mapping, table, &cell) {
            Ok(read) => {
                for record in read {
                    if seen.insert((record.collection.clone(), record.key.clone())) {
                        records.push(record);
                    } else if record.collection != TERMS {
                        repeated_rows += 1;
                    }
                }
                return Ok(());
            }
            Err(problem) => problem,
        };
        // The templates were checked when the mapping was read, so `placeholders` cannot fail here.
        let column = mapping.table(table).fields.get(field).and_then(|t| placeholders(t).ok()?.into_iter().next());
        Err(RowProblem::new(column.map_or(format!("line {line}"), |c| format!("line {line}, column {c}")), message))
    })?;
    if batch.records.is_empty() && batch.problems.is_empty() {
        return Err(Refusal::new(format!("{}: the file has a header and no rows", file.name)));
    }
    batch.notes.push(format!("read as the {table} table of `{}` ({})", mapping.name, mapping.title));
    if repeated_rows > 0 {
        batch
            .notes
            .push(format!("{repeated_rows} row(s) repeat an earlier row of the same document and were kept once"));
    }
    Ok(batch)
}

type FieldProblem = (&'static str, String);

fn required(cell: &dyn Fn(&str) -> String, field: &'static str) -> Result<String, FieldProblem> {
    let v = cell(field);
    if v.is_empty() {
        return Err((field, format!("{field} is empty")));
    }
    Ok(v)
}

fn county_of(mapping: &ClerkMapping, cell: &dyn Fn(&str) -> String) -> Result<String, FieldProblem> {
    let code = required(cell, "county")?;
    mapping
        .counties
        .get(&code)
        .cloned()
        .ok_or_else(|| ("county", format!("`{code}` is not a county code the mapping lists")))
}

/// The records of one row: the row's own record and one `terms` record per search word.
fn records_of(
    mapping: &ClerkMapping,
    table: &str,
    cell: &dyn Fn(&str) -> String,
) -> Result<Vec<IngestRecord>, FieldProblem> {
    let m = &mapping.name;
    let document = required(cell, "document")?;
    let doc_key = format!("{m}:{document}");
    let (key, data, words): (String, Value, Vec<String>) = match table {
        INSTRUMENTS => {
            let county = county_of(mapping, cell)?;
            let code = required(cell, "doc_type")?;
            let recorded = parse_date(&required(cell, "recorded")?).map_err(|e| ("recorded", e.to_string()))?;
            let amount = match cell("amount") {
                a if a.is_empty() => None,
                a => Some(parse_number(&a).map_err(|e| ("amount", e.to_string()))?),
            };
            let numbers: Vec<String> = cell("numbers").split_whitespace().map(str::to_string).collect();
            let t = mapping.doc_types.get(&code);
            let data = json!({
                DOC_KEY: doc_key, "documentId": document, "county": county, COVERAGE: format!("{m}|{county}"),
                "docTypeCode": code, "docType": t.map_or(code.as_str(), |t| t.name.as_str()),
                "kind": t.map_or(Kind::Other, |t| t.kind), "lienType": t.and_then(|t| t.lien_type.clone()),
                "recordedDate": recorded, "amount": amount, "numbers": numbers,
                "sourceUrl": required(cell, "source_url")?,
            });
            let words = std::iter::once(document.as_str())
                .chain(numbers.iter().map(String::as_str))
                .flat_map(canonical_tokens)
                .collect();
            (doc_key.clone(), data, words)
        }
        PARTIES => {
            let code = required(cell, "role")?;
            let role = if code == mapping.roles.first {
                "first"
            } else if code == mapping.roles.second {
                "second"
            } else {
                "other"
            };
            let name = required(cell, "name")?;
            let key = format!("{doc_key}:party:{code}:{name}");
            // A search matches grantors and grantees (first and second parties) only: the words of another party
            // are not indexed, or `total` would count documents the joined check then refuses.
            let words = if role == "other" { Vec::new() } else { canonical_tokens(&name) };
            (key, json!({DOC_KEY: doc_key, "role": role, "name": name}), words)
        }
        _ => {
            let county = county_of(mapping, cell)?;
            // A parcel may have no street address (a lot known by block and lot only).
            let mut address = cell("address");
            let unit = cell("unit");
            if !unit.is_empty() {
                address = format!("{address} UNIT {unit}");
            }
            let parcel = cell("parcel");
            let key = format!("{doc_key}:parcel:{parcel}:{unit}");
            let words = canonical_tokens(&address);
            (key, json!({DOC_KEY: doc_key, "county": county, "address": address, "parcel": parcel}), words)
        }
    };
    let mut out = vec![IngestRecord::new(table, key, doc_key.clone(), data).map_err(|r| ("document", r.reason))?];
    let unique: BTreeSet<String> = words.into_iter().collect();
    for word in unique {
        let term = format!("{m}:{word}");
        let record = IngestRecord::new(
            TERMS,
            format!("{term}:{document}"),
            doc_key.clone(),
            json!({TERM: term, DOC_KEY: doc_key}),
        )
        .map_err(|r| ("document", r.reason))?;
        out.push(record);
    }
    Ok(out)
}

/// One recorded document as served: its instrument row joined with the parties and parcels held.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClerkDocument {
    /// The clerk's document id (JSON `documentId`), unique within its mapping.
    pub document_id: String,
    /// The type as served (JSON `docType`): the mapping's name for the code, or the raw code when unlisted.
    pub doc_type: String,
    /// Deed, lien, release or other (JSON `kind`, lowercase).
    pub kind: Kind,
    /// For liens and releases: `mechanic's`, `tax` or `judgment` (JSON `lienType`); `null` for other kinds.
    pub lien_type: Option<String>,
    /// County slug of the document (for example `kings-ny`).
    pub county: String,
    /// Date recorded or filed, `YYYY-MM-DD` (JSON `recordedDate`).
    pub recorded_date: String,
    /// Amount of the document as recorded, in US dollars; `null` when the export leaves it empty.
    pub amount: Option<f64>,
    /// Link to the document at the clerk (JSON `sourceUrl`).
    pub source_url: String,
    /// Grantors (deeds) or debtors (liens), in file order.
    pub first_parties: Vec<String>,
    /// Grantees (deeds) or claimants (liens).
    pub second_parties: Vec<String>,
    /// Street addresses of the document's parcels held (a unit appended as `UNIT <n>`); parcels without one are left
    /// out.
    pub addresses: Vec<String>,
    /// Parcel identifiers held (for ACRIS `Borough 3 Block 1234 Lot 56`); empty ones are left out.
    pub parcels: Vec<String>,
    /// Other numbers the document is known by (the ACRIS CRFN, a lien's file number).
    pub numbers: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InstrumentRow {
    doc_key: String,
    document_id: String,
    county: String,
    doc_type: String,
    kind: Kind,
    #[serde(default)]
    lien_type: Option<String>,
    recorded_date: String,
    #[serde(default)]
    amount: Option<f64>,
    #[serde(default)]
    numbers: Vec<String>,
    source_url: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartyRow {
    doc_key: String,
    role: String,
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LegalRow {
    doc_key: String,
    address: String,
    #[serde(default)]
    parcel: String,
}

/// One document's rows as the host answers them with a page of hits (`words::DocumentRecords`), by collection
/// ([`INSTRUMENTS`], [`PARTIES`], [`LEGALS`]); the word records and any other collection are not read.
#[derive(Debug, Deserialize)]
struct DocumentRows {
    #[serde(default)]
    instruments: Vec<InstrumentRow>,
    #[serde(default)]
    parties: Vec<PartyRow>,
    #[serde(default)]
    legals: Vec<LegalRow>,
}

impl ClerkDocument {
    /// A document of its instrument row, before its parties and parcels are added.
    fn of_instrument(r: InstrumentRow) -> Self {
        ClerkDocument {
            document_id: r.document_id,
            doc_type: r.doc_type,
            kind: r.kind,
            lien_type: r.lien_type,
            county: r.county,
            recorded_date: r.recorded_date,
            amount: r.amount,
            source_url: r.source_url,
            first_parties: Vec::new(),
            second_parties: Vec::new(),
            addresses: Vec::new(),
            parcels: Vec::new(),
            numbers: r.numbers,
        }
    }

    /// Adds a party: a grantor (`first`) or grantee (`second`); other roles are not served.
    fn add_party(&mut self, p: PartyRow) {
        match p.role.as_str() {
            "first" => self.first_parties.push(p.name),
            "second" => self.second_parties.push(p.name),
            _ => {}
        }
    }

    /// Adds a parcel's address and parcel id, each where it is not empty.
    fn add_legal(&mut self, l: LegalRow) {
        if !l.address.is_empty() {
            self.addresses.push(l.address);
        }
        if !l.parcel.is_empty() {
            self.parcels.push(l.parcel);
        }
    }
}

/// The word index of clerk records (`Manifest::word_indexing`): a document's words are its `terms` records,
/// searched within one mapping's county (`coverage`) and document kind (`kind|lienType`), newest recording
/// first.
pub fn word_index() -> WordIndex {
    WordIndex {
        words: TERMS.into(),
        word_field: TERM.into(),
        doc_field: DOC_KEY.into(),
        docs: INSTRUMENTS.into(),
        key_field: DOC_KEY.into(),
        scope_field: COVERAGE.into(),
        facet_fields: vec!["kind".into(), "lienType".into()],
        date_field: "recordedDate".into(),
        id_field: "documentId".into(),
    }
}

/// The facet of a kind of document in [`word_index`]: `deed|`, `lien|tax`.
pub fn facet(kind: Kind, lien_type: Option<&str>) -> String {
    format!("{}|{}", kind.as_str(), lien_type.unwrap_or_default())
}

/// The facets of liens of one SPEC type, or of every type.
pub fn lien_facets(lien_type: Option<&str>) -> Vec<String> {
    match lien_type {
        Some(t) => vec![facet(Kind::Lien, Some(t))],
        None => LIEN_TYPES.iter().map(|t| facet(Kind::Lien, Some(t))).collect(),
    }
}

/// The OpenAPI description of the ingested search's `total` and `totalIsLowerBound` (deeds and liens).
pub const TOTAL_DESCRIPTION: &str = "Number of matches over every page. Exact unless `totalIsLowerBound` is true.";
/// The OpenAPI description of the ingested search's `totalIsLowerBound` (deeds and liens); see
/// [`TOTAL_DESCRIPTION`].
pub const TOTAL_IS_LOWER_BOUND_DESCRIPTION: &str =
    "True when `total` is a lower bound, not the exact count: on ingested clerk records the search counts the \
     matches among at most 1,000 documents holding the query's rarest word (the one on the fewest documents; \
     when that word is on more than 2,000, among its first 250 if the query has other words), so a query \
     matching more documents answers as fast as a narrow one. Paging with `next` still reaches every \
     match. False on the demo seed, which is always counted exactly.";

/// Documents whose matches are counted for `total` (see [`datahost_plugin_api::words::WordHits::total`]).
pub const COUNT_CAP: usize = datahost_plugin_api::words::DEFAULT_COUNT_CAP;

/// Word-index pages read past documents the joined-row check refuses before a search answers with a short page
/// (whose `next` then resumes where the reading stopped): bounds the work of a query whose words match mostly
/// refused documents.
const MAX_REFILLS: usize = 4;

/// The page of `items` (in ascending key order) that lies within `known_until`, the last key up to which every
/// source's matches were read (`None`: all were). Past that key a source may hold matches not read yet, so the
/// page stops there, and its `next` resumes after it even when the page is short: nothing is skipped.
fn page_until<T>(
    page: &datahost_plugin_api::paging::KeyedPage<ClerkKey>,
    items: Vec<T>,
    key: impl Fn(&T) -> ClerkKey,
    known_until: Option<ClerkKey>,
) -> datahost_plugin_api::paging::Page<T> {
    let known: Vec<T> = items.into_iter().filter(|d| known_until.as_ref().is_none_or(|k| key(d) <= *k)).collect();
    let mut served = page.page(known, &key);
    if served.next.is_none() {
        served.next = known_until.map(|k| page.request.cursor_after(&k));
    }
    served
}

/// Why a search cannot be answered: the clerk records could not be read.
#[derive(Debug, thiserror::Error)]
#[error("the clerk records could not be read: {0}")]
pub struct SearchError(#[from] pub StoredError);

impl From<SearchError> for datahost_plugin_api::ApiError {
    /// The API's answer: 503.
    fn from(e: SearchError) -> Self {
        datahost_plugin_api::ApiError::unavailable(e.to_string())
    }
}

/// The answer to a search: whether the county is onboarded, one page of documents newest first, how many
/// matched (counted among at most [`COUNT_CAP`] documents: then a lower bound), and the cursor of the next
/// page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// False when no ingested document is of the county; the other fields are then empty.
    pub onboarded: bool,
    /// Matches over every page (summed over the mappings that cover the county); a lower bound when
    /// `total_is_lower_bound`.
    pub total: usize,
    /// True when a mapping's count stopped at [`COUNT_CAP`] documents, so `total` is not exact.
    pub total_is_lower_bound: bool,
    /// This page of documents, newest recording first (equal dates by document id).
    pub documents: Vec<ClerkDocument>,
    /// Cursor of the next page (the response's `next`, sent back as the `cursor` parameter); `None` on the last page.
    pub next: Option<String>,
}

/// The ingested clerk records of one dataset, searched in the records engine.
pub struct ClerkStore {
    host: Host,
    dataset: String,
    /// County slug -> the mappings whose records cover it.
    coverage: BTreeMap<String, Vec<String>>,
    /// Whether a join reads its three lookups at once: PostgreSQL answers them on connections of a pool; the
    /// embedded engine answers one at a time, where reading at once would only add threads.
    lookups_at_once: bool,
    /// Whether the host answers a page of hits with their documents' records (`words::WORD_PAGE_RECORDS`):
    /// one row per document read with the page, instead of three lookups after it.
    page_records: bool,
}

impl ClerkStore {
    /// Reads which counties the ingested records of `dataset` cover (one distinct-value query); searching needs
    /// nothing else held in memory.
    pub fn load(host: Host, dataset: &str) -> Result<Self, HostError> {
        let values = host.query_all_records(&RecordsQuery::new(dataset, INSTRUMENTS).distinct(COVERAGE))?;
        let mut coverage: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for v in values {
            if let Some((mapping, county)) = v.as_str().and_then(|s| s.split_once('|')) {
                coverage.entry(county.to_string()).or_default().push(mapping.to_string());
            }
        }
        let lookups_at_once = host.engine_kind() == "postgres";
        let page_records = host.capabilities().iter().any(|c| c == WORD_PAGE_RECORDS);
        Ok(Self { host, dataset: dataset.to_string(), coverage, lookups_at_once, page_records })
    }

    /// Whether any ingested document is of this county.
    pub fn is_onboarded(&self, county: &str) -> bool {
        self.coverage.contains_key(county)
    }

    /// The documents of `county` whose party names, addresses and numbers hold every query word, whose facet
    /// is one of `facets` (see [`facet`]; none: nothing matches) and that `keep` accepts, newest recording first (equal dates by
    /// document id), one page of them. The host's word index reads one page of matches in that order, whatever
    /// their number, and counts them among at most [`COUNT_CAP`] documents; only the page's documents are then
    /// read and joined. A county that is not onboarded answers `onboarded: false` and nothing else.
    pub fn search(
        &self,
        search: &ClerkSearch,
        facets: &[String],
        keep: impl Fn(&ClerkDocument) -> bool,
    ) -> Result<Found, SearchError> {
        let (county, query) = (search.county.as_str(), &search.tokens);
        if !self.is_onboarded(county) {
            return Ok(Found::default());
        }
        if facets.is_empty() {
            return Ok(Found { onboarded: true, ..Found::default() });
        }
        let after = search.page.after.as_ref().map(|(std::cmp::Reverse(date), id)| (date.clone(), id.clone()));
        let limit = search.page.request.limit;
        let mut found = Found { onboarded: true, ..Found::default() };
        let mut documents = Vec::new();
        // The last key up to which every mapping's matches are all known (`None`: all of them are).
        let mut known_until: Option<ClerkKey> = None;
        for mapping in self.coverage.get(county).into_iter().flatten() {
            let mut from = after.clone();
            let mut accepted = 0;
            for fetch in 0..=MAX_REFILLS {
                let words = WordSearch {
                    dataset: self.dataset.clone(),
                    index: word_index(),
                    words: query.tokens().iter().map(|w| format!("{mapping}:{w}")).collect(),
                    scope: format!("{mapping}|{county}"),
                    facets: facets.to_vec(),
                    after: from.clone(),
                    limit,
                    count_cap: COUNT_CAP,
                };
                let (hits, records) = if self.page_records {
                    let page = self.host.search_word_page(&words).map_err(StoredError::from)?;
                    (page.hits, page.records)
                } else {
                    (self.host.search_words(&words).map_err(StoredError::from)?, Vec::new())
                };
                if fetch == 0 {
                    found.total += hits.total;
                    found.total_is_lower_bound |= hits.total_is_lower_bound;
                }
                let more = hits.docs.len() > limit;
                // Checked once more on their joined rows: records ingested before SDK 1.1 also indexed the words
                // of parties that are neither grantor nor grantee, which do not match.
                let fetched =
                    if records.len() == hits.docs.len() { read_documents(&records)? } else { self.join(&hits.docs)? };
                let last = fetched.iter().map(|d| clerk_key(&d.recorded_date, &d.document_id)).max();
                for doc in fetched {
                    let words = TokenSet::from_fields(
                        doc.first_parties
                            .iter()
                            .chain(&doc.second_parties)
                            .chain(&doc.addresses)
                            .chain(&doc.numbers)
                            .map(String::as_str)
                            .chain([doc.document_id.as_str()]),
                    );
                    if doc.county == county && query.matches(&words) && keep(&doc) {
                        documents.push(doc);
                        accepted += 1;
                    }
                }
                let Some(last) = last.filter(|_| more) else { break };
                if accepted > limit || fetch == MAX_REFILLS {
                    // More of this mapping lies beyond `last`: the page may not reach past it.
                    known_until = Some(known_until.map_or(last.clone(), |k| k.min(last)));
                    break;
                }
                // Documents the check refused left the page short: read on from the last one fetched.
                from = Some((last.0 .0, last.1));
            }
        }
        documents.sort_by_key(|d| clerk_key(&d.recorded_date, &d.document_id));
        let page = page_until(&search.page, documents, |d| clerk_key(&d.recorded_date, &d.document_id), known_until);
        found.documents = page.items;
        found.next = page.next;
        Ok(found)
    }

    fn rows(&self, collection: &str, keys: &[String]) -> Result<Vec<Value>, HostError> {
        let mut out = Vec::new();
        for chunk in keys.chunks(KEYS_PER_QUERY) {
            let values = chunk.iter().map(|k| Value::from(k.as_str())).collect();
            out.extend(
                self.host.query_all_records(&RecordsQuery::new(&self.dataset, collection).any_of(DOC_KEY, values))?,
            );
        }
        Ok(out)
    }

    /// The documents of these keys whose instrument row is held, with their parties and parcels.
    ///
    /// The three lookups do not depend on each other (the parties and parcels of a key without an instrument
    /// row are read and dropped). On an engine that answers them at once, the parties and parcels of more than
    /// one key are read on threads of their own while the instruments are read here.
    fn join(&self, keys: &[String]) -> Result<Vec<ClerkDocument>, StoredError> {
        let read = |source| StoredError::Unreadable { what: "clerk record", source };
        let (instruments, parties, legals) = if self.lookups_at_once && keys.len() > 1 {
            std::thread::scope(|scope| {
                let parties = scope.spawn(|| self.rows(PARTIES, keys));
                let legals = scope.spawn(|| self.rows(LEGALS, keys));
                let instruments = self.rows(INSTRUMENTS, keys);
                (instruments, joined(parties), joined(legals))
            })
        } else {
            (self.rows(INSTRUMENTS, keys), self.rows(PARTIES, keys), self.rows(LEGALS, keys))
        };
        let mut docs: HashMap<String, ClerkDocument> = HashMap::new();
        for v in instruments? {
            let r: InstrumentRow = serde_json::from_value(v).map_err(read)?;
            docs.insert(r.doc_key.clone(), ClerkDocument::of_instrument(r));
        }
        for v in parties? {
            let p: PartyRow = serde_json::from_value(v).map_err(read)?;
            if let Some(doc) = docs.get_mut(&p.doc_key) {
                doc.add_party(p);
            }
        }
        for v in legals? {
            let l: LegalRow = serde_json::from_value(v).map_err(read)?;
            if let Some(doc) = docs.get_mut(&l.doc_key) {
                doc.add_legal(l);
            }
        }
        Ok(docs.into_values().collect())
    }
}

/// The documents of a page's records as the host read them with the page (one object per document), joined
/// as [`ClerkStore::join`] joins its lookups: a document without an instrument row is left out, its parties
/// and parcels in ingest order.
fn read_documents(records: &[DocumentRecords]) -> Result<Vec<ClerkDocument>, StoredError> {
    let mut docs = Vec::with_capacity(records.len());
    for record in records {
        let rows: DocumentRows = serde_json::from_str(record.json())
            .map_err(|source| StoredError::Unreadable { what: "clerk record", source })?;
        // One instrument row per document key (the records' key within the instruments collection).
        let Some(instrument) = rows.instruments.into_iter().next() else { continue };
        let mut doc = ClerkDocument::of_instrument(instrument);
        rows.parties.into_iter().for_each(|p| doc.add_party(p));
        rows.legals.into_iter().for_each(|l| doc.add_legal(l));
        docs.push(doc);
    }
    Ok(docs)
}

/// A scoped thread's answer; a thread that panicked panics here, on the caller's thread, as if it had run
/// inline (the SDK's handler catches it there).
fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, T>) -> T {
    thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datahost_plugin_api::paging::PageRequest;
    use datahost_plugin_api::RequestEnvelope;

    #[test]
    fn a_page_s_document_without_an_instrument_row_is_left_out_and_one_that_does_not_read_is_an_error() {
        let doc = |json: &str| DocumentRecords::from_json(json.to_string()).unwrap();
        let parties_only = doc(r#"{"parties": [{"docKey": "m:1", "role": "first", "name": "A"}]}"#);
        assert!(read_documents(&[parties_only]).unwrap().is_empty());
        let odd = doc(r#"{"instruments": [{"docKey": "m:2"}]}"#);
        assert!(matches!(read_documents(&[odd]), Err(StoredError::Unreadable { .. })));
    }

    #[test]
    fn a_kind_reads_as_its_serde_name_in_facets() {
        for kind in [Kind::Deed, Kind::Lien, Kind::Release, Kind::Other] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        assert_eq!(facet(Kind::Lien, Some("tax")), "lien|tax");
        assert_eq!(facet(Kind::Deed, None), "deed|");
    }

    fn request(limit: &str, cursor: Option<&str>) -> datahost_plugin_api::paging::KeyedPage<ClerkKey> {
        let mut q = vec![("limit", limit)];
        if let Some(c) = cursor {
            q.push(("cursor", c));
        }
        PageRequest::parse(&RequestEnvelope::new("/v1/x", &q), 10, 100).unwrap().keyed().unwrap()
    }

    #[test]
    fn a_page_stops_where_a_source_was_read_to_and_resumes_there() {
        let key = |d: &(&str, &str)| clerk_key(d.0, d.1);
        // One mapping was read to 2024-03-01/B and may hold more after it; another contributed later documents.
        let items = vec![("2024-05-01", "A"), ("2024-03-01", "B"), ("2024-01-01", "C")];
        let page = page_until(&request("10", None), items, key, Some(clerk_key("2024-03-01", "B")));
        assert_eq!(page.items, [("2024-05-01", "A"), ("2024-03-01", "B")], "nothing past the point read to");
        let next = page.next.expect("a short page still says where to go on");
        // The next page starts after the point read to: C comes then, nothing is skipped.
        let resumed = request("10", Some(&next));
        assert_eq!(resumed.after, Some(clerk_key("2024-03-01", "B")));
        let later = page_until(&resumed, vec![("2024-03-01", "B"), ("2024-01-01", "C")], key, None);
        assert_eq!((later.items, later.next), (vec![("2024-01-01", "C")], None));
    }

    #[test]
    fn with_every_source_read_to_its_end_the_page_is_the_plain_one() {
        let key = |d: &(&str, &str)| clerk_key(d.0, d.1);
        let items = vec![("2024-05-01", "A"), ("2024-03-01", "B"), ("2024-01-01", "C")];
        let page = page_until(&request("2", None), items.clone(), key, None);
        assert_eq!(page.items, [("2024-05-01", "A"), ("2024-03-01", "B")]);
        assert!(page.next.is_some());
        let all = page_until(&request("5", None), items, key, None);
        assert_eq!((all.items.len(), all.next), (3, None));
        // A full page inside the point read to pages as usual (its next follows its last item).
        let items = vec![("2024-05-01", "A"), ("2024-03-01", "B"), ("2024-01-01", "C")];
        let page = page_until(&request("2", None), items, key, Some(clerk_key("2024-01-01", "C")));
        assert_eq!(page.items, [("2024-05-01", "A"), ("2024-03-01", "B")]);
        assert_eq!(request("2", Some(&page.next.unwrap())).after, Some(clerk_key("2024-03-01", "B")));
    }
}
