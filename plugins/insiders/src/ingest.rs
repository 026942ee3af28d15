//! The plugin's parser: detects the format of one Form 4 source file from its content, takes the EDGAR
//! header facts (accession number, filed date, submission type) when the file has a header, reads the
//! ownershipDocument with `form4.rs`, and turns it into records.
//!
//! Formats: `form4-xml` (a bare ownershipDocument), `edgar-txt` (a full EDGAR submission: `<SEC-DOCUMENT>`,
//! `<SEC-HEADER>` with `ACCESSION NUMBER:` and `FILED AS OF DATE:`, the XML inside `<XML>...</XML>`) and
//! `edgar-nc` (the EDGAR feed form: `<SUBMISSION>` with unclosed `<ACCESSION-NUMBER>`, `<FILING-DATE>`...).
//!
//! Records: collection `transactions`, one per transaction row, key `<filingId>/<table>/<row>`; collection
//! `forms`, one per filing, key `<filingId>`. Group = filing id (the accession number; for a bare XML the
//! accession in its file name, else `xml-sha256-<hex>` of the content). Every record carries lineage
//! `<issuer CIK>/<owner CIKs>/<period of report>` and revision `<filed date>/<filing id>` (the signature date
//! orders a bare XML, whose filed date is unknown), with `amendment` for a 4/A.

use datahost_plugin_api::ingest::line_of;
use datahost_plugin_api::{IngestBatch, IngestRecord, Refusal, SourceFile};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::form4::{self, Form4, Row};
use crate::records::{Owner, TransactionRecord};

/// The formats `ingest` detects.
pub const FORMATS: &[&str] = &["form4-xml", "edgar-txt", "edgar-nc"];
/// One record per transaction row (table-backed: see `records.rs`).
pub use crate::records::TRANSACTIONS;
/// One record per filing, also when it reports holdings only (small: served in the dataset's document).
pub const FORMS: &str = "forms";

/// One filing as a `forms` record: what it is and how much of it was read.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FormRecord<'a> {
    pub filing_id: &'a str,
    pub accession_number: Option<&'a str>,
    pub accession_known: bool,
    pub source_url: Option<&'a str>,
    pub format: &'a str,
    pub document_type: &'a str,
    pub amendment: bool,
    pub filed_date: Option<&'a str>,
    pub period_of_report: &'a str,
    pub signature_date: Option<&'a str>,
    pub issuer_cik: &'a str,
    pub issuer_name: &'a str,
    pub ticker: &'a str,
    pub owners: &'a [Owner],
    pub aff10b5_one: Option<bool>,
    pub transaction_rows: usize,
    pub unreadable_rows: usize,
    pub holding_rows: usize,
}

/// What the envelope around the XML says (nothing for a bare XML).
#[derive(Debug, Default)]
struct Header {
    accession: Option<String>,
    filed_date: Option<String>,
    submission_type: Option<String>,
}

struct Envelope {
    format: &'static str,
    header: Header,
    /// Byte range of the ownershipDocument XML within the file.
    xml: (usize, usize),
}

/// Parses one source file (see the module documentation).
pub fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text = file.text()?;
    let envelope = envelope(text)?;
    let form = form4::read(text, envelope.xml.0, envelope.xml.1)?;
    let mut notes = Vec::new();
    let (filing_id, accession) = match &envelope.header.accession {
        Some(accession) => (accession.clone(), Some(accession.clone())),
        None => match accession_in_name(file.name) {
            Some(accession) => {
                notes.push(format!("no EDGAR header: accession {accession} taken from the file name"));
                (accession.clone(), Some(accession))
            }
            None => {
                let digest = Sha256::digest(&text.as_bytes()[envelope.xml.0..envelope.xml.1]);
                let hex: String = digest.iter().take(10).map(|b| format!("{b:02x}")).collect();
                notes.push(
                    "no EDGAR header and no accession number in the file name: accessionNumber is unknown \
                     (null) and filingId is derived from the content"
                        .to_string(),
                );
                (format!("xml-sha256-{hex}"), None)
            }
        },
    };
    if envelope.header.filed_date.is_none() {
        notes.push("no EDGAR header date: filedDate is unknown (null)".to_string());
    }
    if let Some(declared) = envelope.header.submission_type.as_deref().filter(|t| *t != form.document_type) {
        notes.push(format!(
            "the header's submission type `{declared}` differs from the form's documentType `{}`; the \
             documentType is used",
            form.document_type
        ));
    }
    if !form.missing_footnotes.is_empty() {
        notes.push(format!("footnotes referred to but absent: {}", form.missing_footnotes.join(", ")));
    }
    if form.holdings > 0 {
        notes.push(format!("{} holding rows (positions without a transaction) are counted, not stored", form.holdings));
    }
    let filing = Filing::new(&form, &envelope, filing_id, accession);
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for row in &form.rows {
        match row {
            Ok(row) => records.push(filing.record(
                TRANSACTIONS,
                format!("{}/{}/{}", filing.id, row.table.label(), row.position),
                filing.transaction(&form, row),
            )?),
            Err(problem) => problems.push(problem.clone()),
        }
    }
    let form_record = filing.form_record(&form, &envelope, records.len(), problems.len());
    records.push(filing.record(FORMS, filing.id.clone(), form_record)?);
    Ok(IngestBatch { format: envelope.format.to_string(), records, problems, notes })
}

/// The facts every record of one filing shares.
struct Filing {
    id: String,
    accession: Option<String>,
    source_url: Option<String>,
    filed_date: Option<String>,
    amendment: bool,
    lineage: String,
    revision: String,
}

impl Filing {
    fn new(form: &Form4, envelope: &Envelope, id: String, accession: Option<String>) -> Self {
        let mut owner_ciks: Vec<&str> = form.owners.iter().map(|o| o.cik.as_str()).collect();
        owner_ciks.sort_unstable();
        let filed_date = envelope.header.filed_date.clone();
        let order_date = filed_date.as_deref().or(form.signature_date.as_deref()).unwrap_or_default();
        Self {
            source_url: accession.as_deref().map(|a| archive_url(&form.issuer_cik, a)),
            lineage: format!("{}/{}/{}", form.issuer_cik, owner_ciks.join("+"), form.period_of_report),
            revision: format!("{order_date}/{id}"),
            amendment: form.document_type.ends_with("/A"),
            filed_date,
            accession,
            id,
        }
    }

    fn record(&self, collection: &str, key: String, data: impl Serialize) -> Result<IngestRecord, Refusal> {
        Ok(IngestRecord::new(collection, key, self.id.clone(), data)?.amending(
            self.lineage.clone(),
            self.revision.clone(),
            self.amendment,
        ))
    }

    fn transaction(&self, form: &Form4, row: &Row) -> TransactionRecord {
        let owner = &form.owners[0];
        let plan_in_footnote = row.footnotes.iter().any(|f| f.text.as_deref().is_some_and(affirms_10b5_1_plan));
        let trading_plan_evidence = if form.aff10b5_one == Some(true) {
            Some("checkbox")
        } else if plan_in_footnote {
            Some("footnote")
        } else {
            None
        };
        TransactionRecord {
            ticker: form.issuer_ticker.as_deref().unwrap_or_default().to_ascii_uppercase(),
            issuer_cik: form.issuer_cik.clone(),
            issuer_name: form.issuer_name.clone(),
            owner: owner.name.clone(),
            owner_cik: owner.cik.clone(),
            titles: owner.titles(),
            owners: form.owners.clone(),
            code: row.code.clone(),
            acquired_disposed: row.acquired_disposed.clone(),
            accession_number: self.accession.clone(),
            accession_known: self.accession.is_some(),
            filing_id: self.id.clone(),
            source_url: self.source_url.clone(),
            date: row.date.clone(),
            filed_date: self.filed_date.clone(),
            period_of_report: form.period_of_report.clone(),
            document_type: form.document_type.clone(),
            amendment: self.amendment,
            table: row.table.label().to_string(),
            row: row.position,
            security_title: row.security_title.clone(),
            shares: row.shares,
            price: row.price,
            aff10b5_one: form.aff10b5_one,
            trading_plan: trading_plan_evidence.is_some(),
            trading_plan_evidence: trading_plan_evidence.map(str::to_string),
            footnotes: row.footnotes.clone(),
            shares_owned_following: row.shares_owned_following,
            direct_or_indirect: row.direct_or_indirect.clone(),
            exercise_price: row.exercise_price,
            underlying_security: row.underlying_security.clone(),
            underlying_shares: row.underlying_shares,
        }
    }

    fn form_record<'a>(
        &'a self,
        form: &'a Form4,
        envelope: &'a Envelope,
        rows: usize,
        unreadable: usize,
    ) -> FormRecord<'a> {
        FormRecord {
            filing_id: &self.id,
            accession_number: self.accession.as_deref(),
            accession_known: self.accession.is_some(),
            source_url: self.source_url.as_deref(),
            format: envelope.format,
            document_type: &form.document_type,
            amendment: self.amendment,
            filed_date: self.filed_date.as_deref(),
            period_of_report: &form.period_of_report,
            signature_date: form.signature_date.as_deref(),
            issuer_cik: &form.issuer_cik,
            issuer_name: &form.issuer_name,
            ticker: form.issuer_ticker.as_deref().unwrap_or_default(),
            owners: &form.owners,
            aff10b5_one: form.aff10b5_one,
            transaction_rows: rows,
            unreadable_rows: unreadable,
            holding_rows: form.holdings,
        }
    }
}

/// Whether a footnote says the transaction was made under a Rule 10b5-1 plan (and does not deny it, as in
/// "not made pursuant to a Rule 10b5-1 plan").
pub(crate) fn affirms_10b5_1_plan(footnote: &str) -> bool {
    let lower = footnote.to_ascii_lowercase();
    lower.split(". ").any(|sentence| {
        sentence.find("10b5-1").is_some_and(|at| {
            let before = &sentence[..at];
            !(before.contains(" not ") || before.contains("n't ") || before.starts_with("not "))
        })
    })
}

/// The filing in the EDGAR archives: `https://www.sec.gov/Archives/edgar/data/<cik>/<accession without
/// dashes>/<accession>.txt` (the CIK without leading zeros).
pub fn archive_url(cik: &str, accession: &str) -> String {
    let cik = cik.trim_start_matches('0');
    format!("https://www.sec.gov/Archives/edgar/data/{cik}/{}/{accession}.txt", accession.replace('-', ""))
}

/// `0001127602-25-001055`: 10 digits, 2 digits, 6 digits.
fn is_accession(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 20
        && b[10] == b'-'
        && b[13] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 10 || i == 13 || c.is_ascii_digit())
}

/// An accession number in the last component of a file name (`0001127602-25-001055.xml`).
fn accession_in_name(name: &str) -> Option<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    (0..base.len().saturating_sub(19))
        .filter_map(|i| base.get(i..i + 20))
        .find(|candidate| is_accession(candidate))
        .map(str::to_string)
}

/// Detects the format from the first markup of the content and locates the XML.
fn envelope(text: &str) -> Result<Envelope, Refusal> {
    let start = text.trim_start();
    if start.starts_with("<SEC-DOCUMENT>") || start.starts_with("<SEC-HEADER>") {
        let header_end = text.find("</SEC-HEADER>").ok_or_else(|| {
            Refusal::at(
                format!("line {}", line_of(text, text.len())),
                "the EDGAR header never ends (no </SEC-HEADER>): the file is truncated",
            )
        })?;
        let header = sec_header(text, header_end)?;
        Ok(Envelope { format: "edgar-txt", header, xml: embedded_xml(text, header_end)? })
    } else if start.starts_with("<SUBMISSION>") {
        let header_end = text.find("<DOCUMENT>").unwrap_or(text.len());
        let header = nc_header(text, header_end)?;
        Ok(Envelope { format: "edgar-nc", header, xml: embedded_xml(text, header_end)? })
    } else if start.starts_with('<') {
        // The root element is checked by the XML reader: another XML document is refused there.
        Ok(Envelope { format: "form4-xml", header: Header::default(), xml: (0, text.len()) })
    } else {
        Err(Refusal::at(
            "line 1",
            "not a Form 4: expected ownershipDocument XML, an EDGAR .txt submission (<SEC-DOCUMENT>) or an EDGAR \
             feed .nc file (<SUBMISSION>)",
        ))
    }
}

/// The `<XML>` block holding the ownershipDocument, after `from`.
fn embedded_xml(text: &str, from: usize) -> Result<(usize, usize), Refusal> {
    let mut search = from;
    while let Some(found) = text[search..].find("<XML>") {
        let start = search + found + "<XML>".len();
        let end = text[start..].find("</XML>").map(|e| start + e).ok_or_else(|| {
            Refusal::at(
                format!("line {}", line_of(text, text.len())),
                format!("the <XML> block opened at line {} never ends: the file is truncated", line_of(text, start)),
            )
        })?;
        if text[start..end].contains("ownershipDocument") {
            return Ok((start, end));
        }
        search = end;
    }
    Err(Refusal::at(format!("line {}", line_of(text, from)), "the submission holds no ownershipDocument XML"))
}

/// Header facts of an EDGAR `.txt` submission (`KEY:<tabs>value` lines before `</SEC-HEADER>`).
fn sec_header(text: &str, end: usize) -> Result<Header, Refusal> {
    let mut header = Header::default();
    for (i, line) in text[..end].lines().enumerate() {
        let Some((key, value)) = line.split_once(':') else { continue };
        let value = value.trim();
        match key.trim() {
            "ACCESSION NUMBER" => header.accession = Some(accession_value(value, i + 1)?),
            "FILED AS OF DATE" => header.filed_date = Some(compact_date(value, i + 1)?),
            "CONFORMED SUBMISSION TYPE" => header.submission_type = Some(value.to_string()),
            _ => {}
        }
    }
    if header.accession.is_none() {
        return Err(Refusal::at(format!("line {}", line_of(text, end)), "the EDGAR header has no ACCESSION NUMBER"));
    }
    Ok(header)
}

/// Header facts of an EDGAR feed `.nc` file (unclosed tags: `<ACCESSION-NUMBER>0001127602-25-004598<TYPE>4`).
fn nc_header(text: &str, end: usize) -> Result<Header, Refusal> {
    let head = &text[..end];
    let tag = |name: &str| {
        let open = format!("<{name}>");
        head.find(&open).map(|at| {
            let from = at + open.len();
            let value = &head[from..];
            let stop = value.find(['<', '\n', '\r']).unwrap_or(value.len());
            (value[..stop].trim(), line_of(text, from))
        })
    };
    let (accession, line) = tag("ACCESSION-NUMBER").ok_or_else(|| {
        Refusal::at(format!("line {}", line_of(text, end)), "the <SUBMISSION> has no <ACCESSION-NUMBER>")
    })?;
    Ok(Header {
        accession: Some(accession_value(accession, line)?),
        filed_date: tag("FILING-DATE").map(|(v, line)| compact_date(v, line)).transpose()?,
        submission_type: tag("TYPE").map(|(v, _)| v.to_string()),
    })
}

fn accession_value(value: &str, line: usize) -> Result<String, Refusal> {
    if is_accession(value) {
        Ok(value.to_string())
    } else {
        Err(Refusal::at(format!("line {line}"), format!("`{value}` is not an accession number")))
    }
}

/// `20250110` as `2025-01-10`.
fn compact_date(value: &str, line: usize) -> Result<String, Refusal> {
    let digits = value.len() == 8 && value.bytes().all(|b| b.is_ascii_digit());
    let iso = digits
        .then(|| format!("{}-{}-{}", &value[..4], &value[4..6], &value[6..]))
        .filter(|d| datahost_plugin_api::params::parse_date(d).is_some());
    iso.ok_or_else(|| Refusal::at(format!("line {line}"), format!("`{value}` is not a date (YYYYMMDD)")))
}
