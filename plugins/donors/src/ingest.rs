//! The plugin's parser: reads the FEC bulk files (pipe-separated, no header row) into records.
//!
//! The format is detected from the first line: its number of `|`-separated fields and the shape of the ids
//! in it (FEC column names in `*_header_file.csv`):
//! - `fec-pas2` (`itpas2.txt`, contributions from committees to candidates): 22 fields, CMTE_ID first.
//! - `fec-cm` (`cm.txt`, committee master): 15 fields, a committee id (`C` + 8 digits) first.
//! - `fec-cn` (`cn.txt`, candidate master): 15 fields, a candidate id (`H`/`S`/`P` + 8) first.
//! - `fec-ccl` (`ccl.txt`, candidate-committee linkages): 7 fields, candidate id first, committee id fourth.
//! - `fec-header`: one of the FEC's comma-separated header rows; accepted after checking that it names the
//!   columns this parser expects, and stores nothing. A bulk file that starts with its header row (joined
//!   by `|`) is read too, the header skipped.
//!
//! Records: `contributions` (key SUB_ID, group FILE_NUM = the report; lineage `<CMTE_ID>/<TRAN_ID>`,
//! revision FILE_NUM, amendment when AMNDT_IND is `A`: an amended report's row replaces the original's),
//! `committees` (key CMTE_ID), `candidates` (key CAND_ID), `linkages` (key LINKAGE_ID); the master files'
//! group is their format name. A row with the wrong number of fields, a malformed id, amount or date is a
//! problem at `line N`; the rest of the file applies.

use datahost_plugin_api::ingest::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};

use crate::records::{
    is_candidate_id, is_committee_id, CandidateRecord, CommitteeRecord, ContributionRecord, LinkageRecord,
};

pub const PAS2: &str = "fec-pas2";
pub const CM: &str = "fec-cm";
pub const CN: &str = "fec-cn";
pub const CCL: &str = "fec-ccl";
pub const HEADER: &str = "fec-header";
pub const FORMATS: &[&str] = &[PAS2, CM, CN, CCL, HEADER];

pub const CONTRIBUTIONS: &str = "contributions";
pub const COMMITTEES: &str = "committees";
pub const CANDIDATES: &str = "candidates";
pub const LINKAGES: &str = "linkages";

/// One bulk file layout: its format, its collection and the FEC's column names in order.
struct Layout {
    format: &'static str,
    collection: &'static str,
    columns: &'static [&'static str],
}

const LAYOUTS: [Layout; 4] = [
    Layout {
        format: PAS2,
        collection: CONTRIBUTIONS,
        columns: &[
            "CMTE_ID",
            "AMNDT_IND",
            "RPT_TP",
            "TRANSACTION_PGI",
            "IMAGE_NUM",
            "TRANSACTION_TP",
            "ENTITY_TP",
            "NAME",
            "CITY",
            "STATE",
            "ZIP_CODE",
            "EMPLOYER",
            "OCCUPATION",
            "TRANSACTION_DT",
            "TRANSACTION_AMT",
            "OTHER_ID",
            "CAND_ID",
            "TRAN_ID",
            "FILE_NUM",
            "MEMO_CD",
            "MEMO_TEXT",
            "SUB_ID",
        ],
    },
    Layout {
        format: CM,
        collection: COMMITTEES,
        columns: &[
            "CMTE_ID",
            "CMTE_NM",
            "TRES_NM",
            "CMTE_ST1",
            "CMTE_ST2",
            "CMTE_CITY",
            "CMTE_ST",
            "CMTE_ZIP",
            "CMTE_DSGN",
            "CMTE_TP",
            "CMTE_PTY_AFFILIATION",
            "CMTE_FILING_FREQ",
            "ORG_TP",
            "CONNECTED_ORG_NM",
            "CAND_ID",
        ],
    },
    Layout {
        format: CN,
        collection: CANDIDATES,
        columns: &[
            "CAND_ID",
            "CAND_NAME",
            "CAND_PTY_AFFILIATION",
            "CAND_ELECTION_YR",
            "CAND_OFFICE_ST",
            "CAND_OFFICE",
            "CAND_OFFICE_DISTRICT",
            "CAND_ICI",
            "CAND_STATUS",
            "CAND_PCC",
            "CAND_ST1",
            "CAND_ST2",
            "CAND_CITY",
            "CAND_ST",
            "CAND_ZIP",
        ],
    },
    Layout {
        format: CCL,
        collection: LINKAGES,
        columns: &["CAND_ID", "CAND_ELECTION_YR", "FEC_ELECTION_YR", "CMTE_ID", "CMTE_TP", "CMTE_DSGN", "LINKAGE_ID"],
    },
];

/// Parses one source file (see the module documentation).
pub fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let mut notes = Vec::new();
    let text = match file.text() {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(refusal) => {
            // Older FEC bulk files carry Latin-1 bytes in names; each byte is its own character there.
            notes.push(format!("not UTF-8 ({refusal}): read as Latin-1"));
            std::borrow::Cow::Owned(file.bytes.iter().map(|&b| char::from(b)).collect::<String>())
        }
    };
    let mut lines = text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)).enumerate().map(|(i, l)| (i + 1, l));
    let Some((_, first)) = lines.clone().find(|(_, l)| !l.trim().is_empty()) else {
        return Err(Refusal::at("line 1", "the file is empty"));
    };
    if !first.contains('|') && first.contains(',') {
        return header_file(first);
    }
    let layout = detect(first)?;
    let mut records = Vec::new();
    let mut problems = Vec::new();
    if first.split('|').eq(layout.columns.iter().copied()) {
        notes.push("the first line is the FEC header row: skipped".into());
        lines.next();
    }
    // A bulk file ends with a newline; one that stops inside a short row was cut off (an interrupted
    // download): applying the rows before the cut would serve part of a file as if it were all of it.
    if !text.ends_with('\n') {
        if let Some((line, last)) = lines.clone().filter(|(_, l)| !l.trim().is_empty()).last() {
            let found = last.split('|').count();
            if found < layout.columns.len() {
                return Err(Refusal::at(
                    format!("line {line}"),
                    format!("the file ends inside a row ({found} of {} fields): truncated", layout.columns.len()),
                ));
            }
        }
    }
    for (line, text) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        match row(layout, text) {
            Ok(record) => records.push(record),
            Err(error) => problems.push(RowProblem::line(line, error.to_string())),
        }
    }
    Ok(IngestBatch { format: layout.format.into(), records, problems, notes })
}

/// A comma-separated FEC header row: checked against the known layouts, nothing stored.
fn header_file(first: &str) -> Result<IngestBatch, Refusal> {
    let names: Vec<&str> = first.split(',').map(str::trim).collect();
    let layout = LAYOUTS
        .iter()
        .find(|l| names == l.columns)
        .ok_or_else(|| Refusal::at("line 1", format!("not an FEC header row this dataset reads: `{first}`")))?;
    Ok(IngestBatch {
        format: HEADER.into(),
        records: Vec::new(),
        problems: Vec::new(),
        notes: vec![format!(
            "header row of {}: its {} columns are the ones the parser reads",
            layout.format,
            names.len()
        )],
    })
}

/// The layout of a bulk file, from its first line.
fn detect(first: &str) -> Result<&'static Layout, Refusal> {
    let fields: Vec<&str> = first.split('|').collect();
    let header = LAYOUTS.iter().find(|l| fields == l.columns);
    let shaped = LAYOUTS.iter().find(|l| {
        l.columns.len() == fields.len()
            && match l.format {
                PAS2 | CM => is_committee_id(fields[0]),
                CN => is_candidate_id(fields[0]),
                _ => is_candidate_id(fields[0]) && is_committee_id(fields[3]),
            }
    });
    header.or(shaped).ok_or_else(|| {
        let start: String = first.chars().take(40).collect();
        Refusal::at(
            "line 1",
            format!(
                "not an FEC bulk file this dataset reads (itpas2, cm, cn, ccl): {} `|`-separated fields starting \
                 `{start}`",
                fields.len()
            ),
        )
    })
}

/// One line as a record of its layout, or why it cannot be read.
fn row(layout: &Layout, line: &str) -> Result<IngestRecord, RowError> {
    let f: Vec<&str> = line.split('|').map(str::trim).collect();
    if f.len() != layout.columns.len() {
        return Err(RowError::FieldCount { expected: layout.columns.len(), found: f.len() });
    }
    let check = |column: usize, valid: fn(&str) -> bool, what: &'static str| {
        if valid(f[column]) {
            Ok(f[column].to_string())
        } else {
            Err(RowError::Invalid { column: layout.columns[column], value: f[column].to_string(), what })
        }
    };
    const COMMITTEE: &str = "a committee id (C + 8 digits)";
    const CANDIDATE: &str = "a candidate id (H, S or P + 8)";
    let record = |key: String, group: &str, data: serde_json::Result<serde_json::Value>| {
        let data = data.map_err(RowError::Serialise)?;
        IngestRecord::new(layout.collection, key, group, data).map_err(|e| RowError::Unstorable(e.reason))
    };
    match layout.format {
        PAS2 => {
            let committee_id = check(0, is_committee_id, COMMITTEE)?;
            let sub_id = check(21, is_digits, "a number")?;
            let file_num = check(18, is_digits, "a number")?;
            let amount = parse_amount(f[14]).ok_or_else(|| RowError::NotAnAmount(f[14].to_string()))?;
            let date = match f[13] {
                "" => None,
                text => Some(parse_date(text).ok_or_else(|| RowError::NotADate(text.to_string()))?),
            };
            let cycle = report_year(f[4])
                .or_else(|| date.as_deref().and_then(|d| d[..4].parse().ok()))
                .map(|year: i32| (year + year % 2).to_string())
                .ok_or_else(|| RowError::NoCycle(f[4].to_string()))?;
            let contribution = ContributionRecord {
                committee_id,
                amendment_indicator: f[1].into(),
                report_type: f[2].into(),
                election_type: f[3].into(),
                image_num: f[4].into(),
                transaction_type: f[5].into(),
                entity_type: f[6].into(),
                recipient_name: f[7].into(),
                city: f[8].into(),
                state: f[9].into(),
                zip: f[10].into(),
                date,
                amount,
                recipient_committee_id: f[15].into(),
                candidate_id: f[16].into(),
                transaction_id: f[17].into(),
                file_num: file_num.clone(),
                memo_code: f[19].into(),
                memo_text: f[20].into(),
                sub_id: sub_id.clone(),
                cycle,
                document_url: format!("https://docquery.fec.gov/cgi-bin/fecimg/?{}", f[4]),
            };
            let lineage = format!("{}/{}", contribution.committee_id, contribution.transaction_id);
            let amended = contribution.amendment_indicator == "A";
            let revision = format!("{file_num:0>12}");
            let stored = record(sub_id, &file_num, serde_json::to_value(&contribution))?;
            // Without TRAN_ID nothing ties the row to its version in an amended report.
            Ok(if contribution.transaction_id.is_empty() {
                stored
            } else {
                stored.amending(lineage, revision, amended)
            })
        }
        CM => {
            let committee = CommitteeRecord {
                committee_id: check(0, is_committee_id, COMMITTEE)?,
                name: f[1].into(),
                city: f[5].into(),
                state: f[6].into(),
                designation: f[8].into(),
                committee_type: f[9].into(),
                party: f[10].into(),
                org_type: f[12].into(),
                connected_org: f[13].into(),
                candidate_id: f[14].into(),
            };
            record(committee.committee_id.clone(), CM, serde_json::to_value(&committee))
        }
        CN => {
            let candidate = CandidateRecord {
                candidate_id: check(0, is_candidate_id, CANDIDATE)?,
                name: f[1].into(),
                party: f[2].into(),
                election_year: check(3, is_year, "a year")?,
                office_state: f[4].into(),
                office: f[5].into(),
                district: f[6].into(),
                principal_committee_id: f[9].into(),
            };
            record(candidate.candidate_id.clone(), CN, serde_json::to_value(&candidate))
        }
        _ => {
            let linkage = LinkageRecord {
                candidate_id: check(0, is_candidate_id, CANDIDATE)?,
                candidate_election_year: check(1, is_year, "a year")?,
                fec_election_year: check(2, is_year, "a year")?,
                committee_id: check(3, is_committee_id, COMMITTEE)?,
                committee_type: f[4].into(),
                designation: f[5].into(),
                linkage_id: check(6, is_digits, "a number")?,
            };
            record(linkage.linkage_id.clone(), CCL, serde_json::to_value(&linkage))
        }
    }
}

/// What is wrong with one line of an FEC bulk file (a row problem, with the line).
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("expected {expected} `|`-separated fields, found {found}")]
    FieldCount { expected: usize, found: usize },
    /// `column` is the layout's column name, `what` what its value should be.
    #[error("{column} `{value}` is not {what}")]
    Invalid { column: &'static str, value: String, what: &'static str },
    #[error("TRANSACTION_AMT `{0}` is not an amount")]
    NotAnAmount(String),
    #[error("TRANSACTION_DT `{0}` is not a date MMDDYYYY")]
    NotADate(String),
    #[error("IMAGE_NUM `{0}` and TRANSACTION_DT give no year for the cycle")]
    NoCycle(String),
    #[error("record does not serialise: {0}")]
    Serialise(serde_json::Error),
    /// The SDK would not make a record of the row; its reason.
    #[error("{0}")]
    Unstorable(String),
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn is_year(text: &str) -> bool {
    text.len() == 4 && is_digits(text)
}

/// An FEC amount: optional minus sign, digits, optional decimals (`2500`, `-1000`, `250.50`).
fn parse_amount(text: &str) -> Option<f64> {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (whole, cents) = unsigned.split_once('.').unwrap_or((unsigned, "0"));
    (is_digits(whole) && is_digits(cents)).then(|| text.parse().ok()).flatten()
}

/// `MMDDYYYY` as `YYYY-MM-DD`.
fn parse_date(text: &str) -> Option<String> {
    (text.len() == 8 && is_digits(text))
        .then(|| chrono::NaiveDate::parse_from_str(text, "%m%d%Y").ok())
        .flatten()
        .map(|d| d.format("%Y-%m-%d").to_string())
}

/// The year the FEC received a report, from an image number: 11 digits `YYOORRRPPPP` or 18 digits
/// `YYYYMMDD...` (FEC data dictionary).
fn report_year(image_num: &str) -> Option<i32> {
    if !is_digits(image_num) {
        return None;
    }
    match image_num.len() {
        11 => image_num[..2].parse::<i32>().ok().map(|yy| if yy >= 70 { 1900 + yy } else { 2000 + yy }),
        18 => image_num[..4].parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: `fuzz/regressions/fec-duplicate-linkage-key` (fuzzer-mutated bytes of a corpus file, not data) repeats the
    /// linkage row; the batch the SDK hands the host keeps that key once instead of refusing the whole file.
    #[test]
    fn a_row_repeated_within_a_file_is_kept_once() {
        datahost_plugin_api::testing::assert_repeated_row_kept_once(
            "fec-duplicate-linkage-key",
            ingest,
            "linkages",
            "202968",
        );
    }

    #[test]
    fn amounts_dates_and_image_years() {
        assert_eq!(parse_amount("-1000"), Some(-1000.0));
        assert_eq!(parse_amount("250.50"), Some(250.5));
        assert_eq!(parse_amount("1,000"), None);
        assert_eq!(parse_amount(""), None);
        assert_eq!(parse_date("01222015").as_deref(), Some("2015-01-22"));
        assert_eq!(parse_date("02302015"), None);
        assert_eq!(report_year("15970260986"), Some(2015));
        assert_eq!(report_year("98033212345"), Some(1998));
        assert_eq!(report_year("201502089000123456"), Some(2015));
        assert_eq!(report_year("123"), None);
    }
}
