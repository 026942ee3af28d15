//! The plugin's parser (the `ingest` slot): one official 13F file in, records out. The format is detected
//! from the content:
//! - `13f-txt`: an EDGAR full submission (`<SEC-DOCUMENT>`: header, cover page XML, information table XML);
//! - `13f-nc`: the same filing as an EDGAR feed file (`<SUBMISSION>`);
//! - `13f-infotable-xml`: a bare information table. It names no filer, so it is refused by name;
//! - `13f-primary-doc-xml`: a bare cover page. Its holdings are not in it, and a filer must never be served
//!   as holding nothing because its table is missing, so it is refused by name too.
//!
//! Records: see `records.rs`. Every row of the information table becomes a `holdings` record or a row
//! problem; the value unit is decided per filing (`unit.rs`) and reported in the notes.

mod envelope;
mod filing;
mod unit;
mod xml;

#[cfg(test)]
mod tests;

use datahost_plugin_api::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};

use crate::records::{FilingRecord, HoldingRecord, FILINGS, HOLDINGS};
use envelope::{Envelope, XmlBlock};
use filing::{FilingFacts, Position};
use unit::PricedPosition;

pub const FORMAT_TXT: &str = "13f-txt";
pub const FORMAT_NC: &str = "13f-nc";
pub const FORMAT_TABLE: &str = "13f-infotable-xml";
pub const FORMAT_COVER: &str = "13f-primary-doc-xml";

pub fn formats() -> Vec<&'static str> {
    vec![FORMAT_TXT, FORMAT_NC, FORMAT_TABLE, FORMAT_COVER]
}

pub fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text = file.text()?;
    let start = text.trim_start();
    if start.starts_with("<SEC-DOCUMENT>") || start.starts_with("<SEC-HEADER>") {
        read_submission(FORMAT_TXT, text, envelope::read_txt(text)?)
    } else if start.starts_with("<SUBMISSION>") {
        read_submission(FORMAT_NC, text, envelope::read_nc(text)?)
    } else if start.starts_with('<') {
        Err(refuse_bare_xml(text, XmlBlock { offset: text.len() - start.len(), xml: start }))
    } else {
        Err(Refusal::at(
            "line 1",
            "not a 13F filing: expected an EDGAR submission (.txt), an EDGAR feed file (.nc) or 13F XML",
        ))
    }
}

/// Why a bare XML document is refused, by what it is.
fn refuse_bare_xml(text: &str, block: XmlBlock<'_>) -> Refusal {
    let root = match xml::root_name(block, text) {
        Ok(root) => root,
        Err(refusal) => return refusal,
    };
    match root.as_str() {
        xml::TABLE_ROOT => Refusal::at(
            format!("/{root}"),
            format!(
                "{FORMAT_TABLE}: an information table alone names no filer, so its holdings cannot be attributed; \
                 ingest the filing's full submission (.txt) or feed file (.nc)"
            ),
        ),
        xml::COVER_ROOT => match xml::read_cover(block, text) {
            Ok(cover) => refuse_cover_without_table(FORMAT_COVER, &cover),
            Err(refusal) => refusal,
        },
        other => Refusal::at(format!("/{other}"), format!("not a 13F document: the root element is <{other}>")),
    }
}

/// A cover page whose information table is absent: refused, never served as "no holdings".
fn refuse_cover_without_table(format: &str, cover: &xml::CoverFields) -> Refusal {
    let said = |path: &str| cover.get(path).unwrap_or("?").to_string();
    Refusal::at(
        "/edgarSubmission",
        format!(
            "{format}: the cover page of {} (CIK {}, period {}, {} holdings declared) comes without its information \
             table; refused rather than served as a filer with no holdings: ingest the full submission (.txt) or \
             feed file (.nc)",
            said("formData/coverPage/filingManager/name"),
            said("headerData/filerInfo/filer/credentials/cik"),
            said("formData/coverPage/reportCalendarOrQuarter"),
            said("formData/summaryPage/tableEntryTotal"),
        ),
    )
}

/// A full filing: exactly one cover page and one information table.
fn read_submission(format: &str, text: &str, envelope: Envelope<'_>) -> Result<IngestBatch, Refusal> {
    let mut covers = Vec::new();
    let mut tables = Vec::new();
    for block in envelope.xml_blocks {
        match xml::root_name(block, text)?.as_str() {
            xml::COVER_ROOT => covers.push(block),
            xml::TABLE_ROOT => tables.push(block),
            _ => {}
        }
    }
    let cover = match covers.as_slice() {
        [one] => xml::read_cover(*one, text)?,
        [] => return Err(Refusal::new(format!("{format}: the submission has no 13F cover page (edgarSubmission)"))),
        _ => return Err(Refusal::new(format!("{format}: the submission has {} cover pages", covers.len()))),
    };
    let table = match tables.as_slice() {
        [one] => *one,
        [] => return Err(refuse_cover_without_table(format, &cover)),
        _ => return Err(Refusal::new(format!("{format}: the submission has {} information tables", tables.len()))),
    };
    let facts = FilingFacts::read(&envelope.header, &cover)?;
    let rows = xml::read_table(table, text)?;

    let mut problems = Vec::new();
    let mut positions: Vec<(String, Position)> = Vec::new();
    for raw in &rows {
        match filing::read_position(raw) {
            Ok(p) => positions.push((raw.location(), p)),
            Err(bad) => problems.push(RowProblem::new(raw.location(), bad.to_string())),
        }
    }
    let priced: Vec<PricedPosition> = positions
        .iter()
        .map(|(_, p)| p)
        .filter(|p| p.is_priceable())
        .map(|p| PricedPosition { value: p.value_reported, shares: p.shares })
        .collect();
    let decision = unit::decide(&priced, facts.filed);

    let mut holdings = Vec::new();
    for (location, p) in positions {
        match p.value_reported.checked_mul(decision.unit.multiplier()) {
            Some(value_usd) => holdings.push(holding_record(&facts, p, value_usd)),
            None => problems.push(RowProblem::new(
                location,
                format!("value {} in {} does not fit in dollars", p.value_reported, decision.unit.as_str()),
            )),
        }
    }

    let filing = FilingRecord {
        cik: facts.cik.clone(),
        filer: facts.filer.clone(),
        accession: facts.accession.clone(),
        form: facts.form.clone(),
        amendment_type: facts.amendment_type.clone(),
        period_of_report: facts.period.to_string(),
        filed_date: facts.filed.to_string(),
        value_unit: decision.unit.as_str().into(),
        value_unit_reason: decision.reason.clone(),
        source_url: facts.source_url(),
        table_entry_total: facts.table_entry_total,
        table_value_total: facts.table_value_total,
        unread_rows: rows.len() - holdings.len(),
    };
    let mut notes = facts.notes.clone();
    notes.push(format!(
        "{} ({}, {}): valueUnit {}",
        filing.accession, filing.filer, filing.period_of_report, decision.reason
    ));
    notes.extend(totals_note(&filing, &holdings, rows.len()));

    let (lineage, revision, restates) = (filing.lineage(), filing.revision(), filing.is_restatement());
    let mut records = vec![IngestRecord::new(FILINGS, filing.accession.clone(), &filing.accession, &filing)?];
    for h in &holdings {
        records.push(IngestRecord::new(HOLDINGS, format!("{}/{}", h.accession, h.row), &h.accession, h)?);
    }
    let records = records.into_iter().map(|r| r.amending(lineage.clone(), revision.clone(), restates)).collect();
    Ok(IngestBatch { format: format.into(), records, problems, notes })
}

fn holding_record(facts: &FilingFacts, p: Position, value_usd: u64) -> HoldingRecord {
    HoldingRecord {
        accession: facts.accession.clone(),
        row: p.row,
        name_of_issuer: p.name_of_issuer,
        title_of_class: p.title_of_class,
        cusip: p.cusip,
        value_usd,
        value_reported: p.value_reported,
        shares: p.shares,
        shares_type: p.shares_type,
        put_call: p.put_call,
        investment_discretion: p.investment_discretion,
        other_manager: p.other_manager,
        voting_authority: p.voting_authority,
    }
}

/// How the rows read compare with the totals the cover page declares (a mismatch is worth a look, not a
/// refusal: the SEC accepts filings whose totals disagree).
fn totals_note(filing: &FilingRecord, holdings: &[HoldingRecord], rows: usize) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(declared) = filing.table_entry_total.filter(|&n| n != rows as u64) {
        notes.push(format!("{}: the cover page declares {declared} rows, the table has {rows}", filing.accession));
    }
    let reported: u64 = holdings.iter().map(|h| h.value_reported).sum();
    if let Some(declared) = filing.table_value_total.filter(|&v| v != reported) {
        notes.push(format!(
            "{}: the cover page's tableValueTotal is {declared}, the rows read sum to {reported}",
            filing.accession
        ));
    }
    notes
}
