//! What the header, cover page and information-table rows of one 13F filing say, checked: the facts that
//! identify the filing (a filing that lacks one is refused whole) and each row read into a position (a row
//! that cannot be read is a problem of its own; no value is ever guessed).

use chrono::NaiveDate;
use datahost_plugin_api::reference::cik10;
use datahost_plugin_api::Refusal;

use super::envelope::Header;
use super::xml::{CoverFields, RawRow};
use crate::records::{VotingAuthority, NEW_HOLDINGS, RESTATEMENT};

const COVER: &str = "formData/coverPage";

/// The identity of a filing, from the submission header and its cover page.
#[derive(Debug)]
pub struct FilingFacts {
    pub cik: String,
    pub filer: String,
    pub accession: String,
    pub form: String,
    pub amendment_type: Option<String>,
    pub period: NaiveDate,
    pub filed: NaiveDate,
    pub table_entry_total: Option<u64>,
    pub table_value_total: Option<u64>,
    /// Disagreements between the header and the cover page (the cover page wins), for the batch notes.
    pub notes: Vec<String>,
}

/// Where the cover page of the file is, for refusals that concern it.
fn cover_at(path: &str) -> String {
    format!("/edgarSubmission/{path}")
}

fn date(text: &str, pattern: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text.trim(), pattern).ok()
}

fn whole_number(text: &str) -> Option<u64> {
    let t = text.trim();
    (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse().ok()).flatten()
}

impl FilingFacts {
    pub fn read(header: &Header, cover: &CoverFields) -> Result<Self, Refusal> {
        let mut notes = Vec::new();
        let accession = header
            .accession
            .clone()
            .filter(|a| is_accession(a))
            .ok_or_else(|| Refusal::at("SEC-HEADER", "the submission header has no valid ACCESSION NUMBER"))?;
        let filed = header
            .filed
            .as_deref()
            .and_then(|d| date(d, "%Y%m%d"))
            .ok_or_else(|| Refusal::at("SEC-HEADER", "the submission header has no valid filing date"))?;

        let form = header.form.as_deref().or(cover.get("headerData/submissionType")).unwrap_or_default().trim();
        match form {
            "13F-HR" | "13F-HR/A" => {}
            "13F-NT" | "13F-NT/A" => {
                return Err(Refusal::at(
                    "SEC-HEADER",
                    format!("{form} is a 13F notice: it lists no holdings (another manager reports them)"),
                ))
            }
            other => return Err(Refusal::at("SEC-HEADER", format!("submission type `{other}` is not a 13F-HR"))),
        }

        let cover_cik = cover.get("headerData/filerInfo/filer/credentials/cik");
        let cik = cover_cik.or(header.filer_cik.as_deref()).and_then(cik10).ok_or_else(|| {
            Refusal::at(cover_at("headerData/filerInfo/filer/credentials/cik"), "the filer's CIK is missing or invalid")
        })?;
        if let Some(header_cik) = header.filer_cik.as_deref().and_then(cik10).filter(|h| *h != cik) {
            notes.push(format!(
                "{accession}: the header names filer CIK {header_cik}, the cover page {cik}; the cover page is used"
            ));
        }
        let filer = cover
            .get(&format!("{COVER}/filingManager/name"))
            .or(header.filer_name.as_deref())
            .map(str::to_string)
            .ok_or_else(|| {
                Refusal::at(cover_at(&format!("{COVER}/filingManager/name")), "the filer's name is missing")
            })?;

        let cover_period =
            cover.get(&format!("{COVER}/reportCalendarOrQuarter")).or(cover.get("headerData/filerInfo/periodOfReport"));
        let header_period = header.period.as_deref().and_then(|p| date(p, "%Y%m%d"));
        let period = match cover_period {
            Some(text) => date(text, "%m-%d-%Y").ok_or_else(|| {
                Refusal::at(
                    cover_at(&format!("{COVER}/reportCalendarOrQuarter")),
                    format!("the period `{text}` is not a MM-DD-YYYY date"),
                )
            })?,
            None => header_period.ok_or_else(|| {
                Refusal::at(cover_at(&format!("{COVER}/reportCalendarOrQuarter")), "the period of report is missing")
            })?,
        };
        if let Some(hp) = header_period.filter(|hp| *hp != period) {
            notes.push(format!(
                "{accession}: the header gives period {hp}, the cover page {period}; the cover page is used"
            ));
        }

        let flagged =
            cover.get(&format!("{COVER}/isAmendment")).is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
        let is_amendment = form.ends_with("/A") || flagged;
        let amendment_type = if is_amendment {
            let path = format!("{COVER}/amendmentInfo/amendmentType");
            let kind = cover.get(&path).map(str::to_ascii_uppercase);
            match kind.as_deref() {
                Some(RESTATEMENT) | Some(NEW_HOLDINGS) => kind,
                _ => {
                    return Err(Refusal::at(
                        cover_at(&path),
                        "an amendment must say whether it is a RESTATEMENT or adds NEW HOLDINGS; without it, it \
                         can neither replace nor add to the quarter",
                    ))
                }
            }
        } else {
            None
        };

        Ok(Self {
            cik,
            filer,
            accession,
            form: if is_amendment { "13F-HR/A".into() } else { "13F-HR".into() },
            amendment_type,
            period,
            filed,
            table_entry_total: cover.get("formData/summaryPage/tableEntryTotal").and_then(whole_number),
            table_value_total: cover.get("formData/summaryPage/tableValueTotal").and_then(whole_number),
            notes,
        })
    }

    /// The submission in the EDGAR archive, under the filer's CIK.
    pub fn source_url(&self) -> String {
        format!(
            "https://www.sec.gov/Archives/edgar/data/{}/{}/{}.txt",
            self.cik.trim_start_matches('0'),
            self.accession.replace('-', ""),
            self.accession
        )
    }
}

/// `0001140361-23-013281`.
fn is_accession(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    matches!(parts.as_slice(), [a, b, c] if a.len() == 10 && b.len() == 2 && c.len() == 6)
        && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

/// One information-table row, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    pub row: usize,
    pub name_of_issuer: String,
    pub title_of_class: String,
    pub cusip: String,
    pub value_reported: u64,
    pub shares: u64,
    pub shares_type: String,
    pub put_call: Option<String>,
    pub investment_discretion: Option<String>,
    pub other_manager: Option<String>,
    pub voting_authority: Option<VotingAuthority>,
}

impl Position {
    /// Whether `value / shares` is a share price (shares, not principal; not an option's notional).
    pub fn is_priceable(&self) -> bool {
        self.shares_type == "SH" && self.put_call.is_none() && self.shares > 0
    }
}

/// Everything that is wrong with one information-table row (its row problem), in the order it was found.
#[derive(Debug, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct BadPosition(pub Vec<PositionFault>);

/// One thing wrong with an information-table row; `path` is the element's path within the row.
#[derive(Debug, thiserror::Error)]
pub enum PositionFault {
    #[error("{0} is missing")]
    Missing(&'static str),
    #[error("{path} `{text}` is not a whole number")]
    NotAWholeNumber { path: &'static str, text: String },
    #[error("cusip `{0}` is not 9 letters and digits")]
    BadCusip(String),
    #[error("shrsOrPrnAmt/sshPrnamtType `{0}` is neither SH nor PRN")]
    BadSharesType(String),
    #[error("putCall `{0}` is neither Put nor Call")]
    BadPutCall(String),
}

/// Reads one row, or says everything that is wrong with it.
pub fn read_position(raw: &RawRow) -> Result<Position, BadPosition> {
    let mut wrong: Vec<PositionFault> = Vec::new();
    let mut number = |path: &'static str| -> Option<u64> {
        match raw.get(path) {
            None => {
                wrong.push(PositionFault::Missing(path));
                None
            }
            Some(text) => {
                let n = whole_number(text);
                if n.is_none() {
                    wrong.push(PositionFault::NotAWholeNumber { path, text: text.to_string() });
                }
                n
            }
        }
    };
    let value = number("value");
    let shares = number("shrsOrPrnAmt/sshPrnamt");
    let voting = ["votingAuthority/Sole", "votingAuthority/Shared", "votingAuthority/None"];
    let voting_authority = if voting.iter().any(|p| raw.get(p).is_some()) {
        match (number(voting[0]), number(voting[1]), number(voting[2])) {
            (Some(sole), Some(shared), Some(none)) => Some(VotingAuthority { sole, shared, none }),
            _ => None,
        }
    } else {
        None
    };

    let name = raw.get("nameOfIssuer").map(str::trim).unwrap_or_default();
    if name.is_empty() {
        wrong.push(PositionFault::Missing("nameOfIssuer"));
    }
    let cusip = raw.get("cusip").map(str::trim).unwrap_or_default();
    if cusip.len() != 9 || !cusip.bytes().all(|b| b.is_ascii_alphanumeric()) {
        wrong.push(PositionFault::BadCusip(cusip.to_string()));
    }
    let shares_type = raw.get("shrsOrPrnAmt/sshPrnamtType").map(str::trim).unwrap_or_default();
    if !matches!(shares_type, "SH" | "PRN") {
        wrong.push(PositionFault::BadSharesType(shares_type.to_string()));
    }
    let put_call = match raw.get("putCall").map(|p| p.trim().to_ascii_lowercase()) {
        None => None,
        Some(p) if p == "put" => Some("Put".to_string()),
        Some(p) if p == "call" => Some("Call".to_string()),
        Some(other) => {
            wrong.push(PositionFault::BadPutCall(other));
            None
        }
    };
    match (value, shares) {
        (Some(value_reported), Some(shares)) if wrong.is_empty() => Ok(Position {
            row: raw.position,
            name_of_issuer: name.to_string(),
            title_of_class: raw.get("titleOfClass").map(str::trim).unwrap_or_default().to_string(),
            cusip: cusip.to_ascii_uppercase(),
            value_reported,
            shares,
            shares_type: shares_type.to_string(),
            put_call,
            investment_discretion: raw.get("investmentDiscretion").map(|d| d.trim().to_string()),
            other_manager: raw.get("otherManager").map(|m| m.trim().to_string()),
            voting_authority,
        }),
        _ => Err(BadPosition(wrong)),
    }
}
