//! The records `ingest.rs` writes and `pacs.rs` reads back: one per row of the FEC bulk files, with the
//! FEC's columns under readable names and blanks kept as empty strings (as filed).

use serde::{Deserialize, Serialize};

/// A contribution from a committee to a candidate (`itpas2.txt`; collection `contributions`, key SUB_ID).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContributionRecord {
    /// CMTE_ID: the committee that gave.
    pub committee_id: String,
    /// AMNDT_IND: `N` new, `A` amendment, `T` termination.
    pub amendment_indicator: String,
    /// RPT_TP, e.g. `M2` (February monthly).
    pub report_type: String,
    /// TRANSACTION_PGI, e.g. `P` primary, `G` general.
    pub election_type: String,
    /// IMAGE_NUM: the page of the filed report the row is on.
    pub image_num: String,
    /// TRANSACTION_TP: `24K` is a contribution to a candidate's committee.
    pub transaction_type: String,
    /// ENTITY_TP, e.g. `CCM` candidate committee.
    pub entity_type: String,
    /// NAME: the recipient as written.
    pub recipient_name: String,
    pub city: String,
    pub state: String,
    pub zip: String,
    /// TRANSACTION_DT as `YYYY-MM-DD`; null when the row leaves it blank.
    pub date: Option<String>,
    /// TRANSACTION_AMT in USD as filed (refunds are negative).
    pub amount: f64,
    /// OTHER_ID: the recipient committee.
    pub recipient_committee_id: String,
    /// CAND_ID: the candidate, when the row names one.
    pub candidate_id: String,
    /// TRAN_ID: the filer's id of the row, kept across amendments of the report.
    pub transaction_id: String,
    /// FILE_NUM: the report (filing) the row comes from.
    pub file_num: String,
    /// MEMO_CD: `X` for a memo entry.
    pub memo_code: String,
    pub memo_text: String,
    /// SUB_ID: the FEC's unique id of the row.
    pub sub_id: String,
    /// Two-year election cycle (its even final year) of the report: the year the FEC received it, from the
    /// image number, rounded up to even.
    pub cycle: String,
    /// The page image on docquery.fec.gov.
    pub document_url: String,
}

/// A committee (`cm.txt`; collection `committees`, key CMTE_ID).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitteeRecord {
    pub committee_id: String,
    /// CMTE_NM.
    pub name: String,
    pub city: String,
    pub state: String,
    /// CMTE_DSGN, e.g. `B` lobbyist/registrant PAC, `U` unauthorized.
    pub designation: String,
    /// CMTE_TP, e.g. `Q` qualified PAC.
    pub committee_type: String,
    /// CMTE_PTY_AFFILIATION.
    pub party: String,
    /// ORG_TP: `C` corporation, `L` labor, `M` membership, `T` trade association, `V` cooperative, `W`
    /// corporation without capital stock.
    pub org_type: String,
    /// CONNECTED_ORG_NM.
    pub connected_org: String,
    /// CAND_ID of a candidate's own committee.
    pub candidate_id: String,
}

/// A candidate (`cn.txt`; collection `candidates`, key CAND_ID).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateRecord {
    pub candidate_id: String,
    pub name: String,
    /// CAND_PTY_AFFILIATION, e.g. `DEM`, `REP`, `IND`.
    pub party: String,
    pub election_year: String,
    pub office_state: String,
    /// `H`, `S` or `P`.
    pub office: String,
    pub district: String,
    /// CAND_PCC: the principal campaign committee.
    pub principal_committee_id: String,
}

/// A link between a candidate and a committee (`ccl.txt`; collection `linkages`, key LINKAGE_ID).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkageRecord {
    pub candidate_id: String,
    pub candidate_election_year: String,
    pub fec_election_year: String,
    pub committee_id: String,
    pub committee_type: String,
    pub designation: String,
    pub linkage_id: String,
}

/// FEC committee ids are `C` followed by eight digits.
pub fn is_committee_id(id: &str) -> bool {
    id.len() == 9 && id.starts_with('C') && id[1..].bytes().all(|b| b.is_ascii_digit())
}

/// FEC candidate ids: `H`, `S` or `P` and eight letters or digits (`H0AK00097`, `P80003338`).
pub fn is_candidate_id(id: &str) -> bool {
    id.len() == 9 && matches!(id.as_bytes()[0], b'H' | b'S' | b'P') && id.bytes().all(|b| b.is_ascii_alphanumeric())
}
