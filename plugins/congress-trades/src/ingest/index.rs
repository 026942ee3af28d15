//! The Clerk's yearly financial-disclosure index (`<year>FD.xml` and `<year>FD.txt`): one row per filing with
//! Prefix, Last, First, Suffix, FilingType, StateDst, Year, FilingDate (M/D/YYYY) and DocID. Both files are
//! read into the same [`RawRow`] and checked by the same rules, so the same row gives the same record.

use std::collections::{BTreeMap, HashMap};

use datahost_plugin_api::ingest::{line_of, IngestBatch, IngestRecord, Refusal, RowProblem};
use quick_xml::events::Event;
use quick_xml::Reader;

use super::{us_date, FILINGS, INDEX_TXT, INDEX_XML};
use crate::data::{fd_pdf_url, ptr_pdf_url, IndexFilingRecord, PTR_FILING_TYPE};

/// The index's columns (the XML's element names), in the text file's order.
const COLUMNS: [&str; 9] =
    ["Prefix", "Last", "First", "Suffix", "FilingType", "StateDst", "Year", "FilingDate", "DocID"];
const ROOT: &str = "FinancialDisclosure";
const MEMBER: &str = "Member";

/// One index row as written, before any check: column name -> text.
type RawRow = HashMap<&'static str, String>;

/// Reads the XML index. A malformed or truncated document is refused at the line where reading stopped.
pub fn read_xml(text: &str) -> Result<IngestBatch, Refusal> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut rows = Rows::new(INDEX_XML);
    // Open elements, outermost first.
    let mut path: Vec<String> = Vec::new();
    let mut member: Option<RawRow> = None;
    let mut members = 0usize;
    let mut saw_root = false;
    loop {
        let at = |reader: &Reader<&[u8]>| format!("line {}", line_of(text, reader.buffer_position() as usize));
        let event = reader.read_event().map_err(|e| {
            Refusal::at(
                format!("line {}", line_of(text, reader.error_position() as usize)),
                format!("the XML index is malformed: {e}"),
            )
        })?;
        match event {
            Event::Start(e) | Event::Empty(e) if path.is_empty() => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                if name != ROOT {
                    return Err(Refusal::at(at(&reader), format!("expected a <{ROOT}> index, found <{name}>")));
                }
                saw_root = true;
                // `<FinancialDisclosure/>` is an empty index; an open root waits for its `</...>`.
                if !text[..(reader.buffer_position() as usize).min(text.len())].ends_with("/>") {
                    path.push(name);
                }
            }
            Event::Start(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                if path.len() == 1 && name == MEMBER {
                    members += 1;
                    member = Some(RawRow::new());
                }
                path.push(name);
            }
            Event::Empty(e) => {
                // `<Prefix />`: a column the index leaves blank.
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                if let (Some(row), Some(column)) = (member.as_mut(), column(&path, &name)) {
                    row.insert(column, String::new());
                }
            }
            Event::Text(t) => {
                let value = t.unescape().map_err(|e| {
                    Refusal::at(at(&reader), format!("the XML index has a bad character reference: {e}"))
                })?;
                let field = path.split_last().and_then(|(name, parent)| column(parent, name));
                if let (Some(row), Some(column)) = (member.as_mut(), field) {
                    row.insert(column, value.into_owned());
                }
            }
            Event::End(_) => {
                let closed = path.pop();
                if path.len() == 1 && closed.as_deref() == Some(MEMBER) {
                    if let Some(row) = member.take() {
                        rows.push(format!("/{ROOT}/{MEMBER}[{members}]"), &row);
                    }
                }
            }
            Event::Eof => {
                if let Some(open) = path.last() {
                    return Err(Refusal::at(
                        format!("line {}", line_of(text, text.len())),
                        format!("the XML index ends inside <{open}>: the file is truncated"),
                    ));
                }
                if !saw_root {
                    return Err(Refusal::at("line 1", format!("no <{ROOT}> element: not a House index")));
                }
                break;
            }
            _ => {}
        }
    }
    Ok(rows.finish())
}

/// The index column an element names, when it sits directly inside a `<Member>`.
fn column(parent_path: &[String], name: &str) -> Option<&'static str> {
    let in_member = parent_path.len() == 2 && parent_path[1] == MEMBER;
    in_member.then(|| COLUMNS.iter().copied().find(|c| *c == name)).flatten()
}

/// Reads the tab-separated index: a header row naming the columns, then one filing per line (CRLF or LF).
pub fn read_txt(text: &str) -> Result<IngestBatch, Refusal> {
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').map(str::trim).collect();
    let mut positions = Vec::with_capacity(COLUMNS.len());
    for column in COLUMNS {
        let Some(i) = header.iter().position(|h| *h == column) else {
            return Err(Refusal::at("line 1", format!("the header row has no `{column}` column")));
        };
        positions.push((column, i));
    }
    let mut rows = Rows::new(INDEX_TXT);
    for (i, line) in lines.enumerate() {
        let line_no = i + 2;
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != header.len() {
            rows.problems.push(RowProblem::line(
                line_no,
                format!("expected {} tab-separated fields, found {}", header.len(), fields.len()),
            ));
            continue;
        }
        let row: RawRow = positions.iter().map(|&(column, i)| (column, fields[i].to_string())).collect();
        rows.push(format!("line {line_no}"), &row);
    }
    Ok(rows.finish())
}

/// The records and problems of one index file.
struct Rows {
    format: &'static str,
    records: Vec<IngestRecord>,
    problems: Vec<RowProblem>,
    /// DocID -> where it was first listed and what it said, to catch a DocID listed twice.
    seen: HashMap<String, (String, IndexFilingRecord)>,
    duplicates: usize,
    by_type: BTreeMap<String, usize>,
}

impl Rows {
    fn new(format: &'static str) -> Self {
        Self {
            format,
            records: Vec::new(),
            problems: Vec::new(),
            seen: HashMap::new(),
            duplicates: 0,
            by_type: BTreeMap::new(),
        }
    }

    fn push(&mut self, location: String, raw: &RawRow) {
        let filing = match check(raw) {
            Ok(filing) => filing,
            Err(error) => return self.problems.push(RowProblem::new(location, error.to_string())),
        };
        if let Some((first_at, first)) = self.seen.get(&filing.doc_id) {
            if *first == filing {
                self.duplicates += 1;
            } else {
                let message = format!("DocID {} is listed again with other data (first at {first_at})", filing.doc_id);
                self.problems.push(RowProblem::new(location, message));
            }
            return;
        }
        *self.by_type.entry(filing.filing_type.clone()).or_default() += 1;
        match IngestRecord::new(FILINGS, filing.doc_id.clone(), filing.doc_id.clone(), &filing) {
            Ok(record) => self.records.push(record),
            Err(refusal) => return self.problems.push(RowProblem::new(location, refusal.reason)),
        }
        self.seen.insert(filing.doc_id.clone(), (location, filing));
    }

    fn finish(self) -> IngestBatch {
        let counts: Vec<String> = self.by_type.iter().map(|(t, n)| format!("{t} {n}")).collect();
        let mut notes = vec![format!("{} filings by FilingType: {}", self.records.len(), counts.join(", "))];
        if self.duplicates > 0 {
            notes.push(format!("{} rows repeat an earlier row exactly and were read once", self.duplicates));
        }
        IngestBatch { format: self.format.into(), records: self.records, problems: self.problems, notes }
    }
}

/// Checks one row and builds its record; the message names the column at fault.
fn check(raw: &RawRow) -> Result<IndexFilingRecord, RowError> {
    let get = |column: &'static str| -> Result<String, RowError> {
        raw.get(column).map(|v| collapse_spaces(v)).ok_or(RowError::NoColumn(column))
    };
    let doc_id = get("DocID")?;
    if doc_id.is_empty() || !doc_id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(RowError::DocId(doc_id));
    }
    let last = get("Last")?;
    if last.is_empty() {
        return Err(RowError::NoLastName);
    }
    let filing_type = get("FilingType")?;
    if filing_type.len() != 1 || !filing_type.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(RowError::FilingType(filing_type));
    }
    let year_text = get("Year")?;
    let year: i32 = match year_text.parse() {
        Ok(y) if year_text.len() == 4 => y,
        _ => return Err(RowError::Year(year_text)),
    };
    let date_text = get("FilingDate")?;
    let filed_date = match (date_text.is_empty(), us_date(&date_text)) {
        // Some non-PTR rows (FilingType W in 2023FD) have no date: that is what the index says, not a fault.
        (true, _) if filing_type != PTR_FILING_TYPE => None,
        (true, _) => return Err(RowError::PtrUndated),
        (false, Some(date)) => Some(date),
        (false, None) => return Err(RowError::FilingDate(date_text)),
    };
    let (first, suffix) = (get("First")?, get("Suffix")?);
    let member = [first.as_str(), last.as_str(), suffix.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let source_url =
        if filing_type == PTR_FILING_TYPE { ptr_pdf_url(year, &doc_id) } else { fd_pdf_url(year, &doc_id) };
    Ok(IndexFilingRecord {
        member,
        prefix: get("Prefix")?,
        first,
        last,
        suffix,
        filing_type,
        state_district: get("StateDst")?,
        year,
        filed_date,
        source_url,
        doc_id,
    })
}

/// What is wrong with one row of the annual index (a row problem, at the row); the message names the column at
/// fault.
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("no {0}")]
    NoColumn(&'static str),
    #[error("DocID `{0}` is not a number")]
    DocId(String),
    #[error("Last (the member's last name) is empty")]
    NoLastName,
    #[error("FilingType `{0}` is not a one-letter code")]
    FilingType(String),
    #[error("Year `{0}` is not a year")]
    Year(String),
    #[error("FilingDate is empty for a Periodic Transaction Report")]
    PtrUndated,
    #[error("FilingDate `{0}` is not a M/D/YYYY date")]
    FilingDate(String),
}

fn collapse_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
