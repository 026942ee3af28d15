//! Corporate PACs from ingested FEC records: the served company entries, built once in `init` (per-company
//! aggregates held in memory) from the corporate PACs' rows read out of the records engine's table.
//!
//! A company entry is one corporate PAC (committee master ORG_TP `C`) and one two-year cycle. Its total is
//! the sum of its contributions to candidates (transaction type 24K) as filed: refunds are negative and
//! memo entries count like any row. Each contribution's party is the candidate's CAND_PTY_AFFILIATION
//! (candidate master): the candidate the row names, else the candidates linked to the recipient committee
//! (ccl) when they all share one party. The company is resolved through the host's company list by the
//! connected organisation's name, then by the company part of the committee's name; with no match the
//! entry keeps the names the filing gives and an empty ticker.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::query::RecordsQuery;
use datahost_plugin_api::reference::{CompanyQuery, CompanyRef};
use datahost_plugin_api::{Host, LogLevel};
use datahost_plugin_kit::companies::{Companies, CompaniesMeta, Dataset};
use datahost_plugin_kit::error::StoredError;
use serde::Deserialize;

use crate::data::{Company, Contribution, Entry, Index, MatchedBy, Provenance, ReportRef};
use crate::error::LoadError;
use crate::ingest::CONTRIBUTIONS;
use crate::records::{CandidateRecord, CommitteeRecord, ContributionRecord, LinkageRecord};

/// Contributions from a committee to a candidate's campaign.
pub const CONTRIBUTION_TO_CANDIDATE: &str = "24K";
/// ORG_TP of a corporation's separate segregated fund.
pub const CORPORATE: &str = "C";
pub const BULK_DATA_URL: &str = "https://www.fec.gov/data/browse-data/?tab=bulk-data";

/// The fields contribution rows are looked up by, the most selective first.
pub const CONTRIBUTION_INDEX: &[&str] = &["committeeId", "transactionType"];
/// Committees per look-up (each a bound value of one `IN` list).
const COMMITTEES_PER_QUERY: usize = 500;

/// The document the host serves once FEC files are ingested: the masters and linkages (small); the
/// contribution rows stay in the records engine's table (national scale) and are counted in
/// `ingested.collections`.
#[derive(Debug, Clone, Deserialize)]
pub struct IngestedDoc {
    pub ingested: IngestedInfo,
    #[serde(default)]
    pub committees: Vec<CommitteeRecord>,
    #[serde(default)]
    pub candidates: Vec<CandidateRecord>,
    #[serde(default)]
    pub linkages: Vec<LinkageRecord>,
}

/// The contributions of one PAC in one cycle, while they are summed.
#[derive(Default)]
struct Pac {
    contributions: Vec<Contribution>,
    unattributed_usd: f64,
    reports: BTreeSet<String>,
}

/// The contributions to candidates (24K) of the corporate PACs in the committee master, read from the
/// records engine by committee id: only the rows that are served leave the table.
fn corporate_contributions(
    host: &Host,
    committees: &[CommitteeRecord],
) -> Result<Vec<ContributionRecord>, StoredError> {
    let corporate: Vec<serde_json::Value> = committees
        .iter()
        .filter(|c| c.org_type == CORPORATE)
        .map(|c| serde_json::Value::from(c.committee_id.clone()))
        .collect();
    let mut rows = Vec::new();
    for ids in corporate.chunks(COMMITTEES_PER_QUERY) {
        let query = RecordsQuery::new(crate::SLUG, CONTRIBUTIONS)
            .any_of(CONTRIBUTION_INDEX[0], ids.to_vec())
            .eq(CONTRIBUTION_INDEX[1], CONTRIBUTION_TO_CANDIDATE);
        for record in host.query_all_records(&query)? {
            rows.push(
                serde_json::from_value(record)
                    .map_err(|source| StoredError::Unreadable { what: "FEC contribution row", source })?,
            );
        }
    }
    Ok(rows)
}

/// Builds the served index from the ingested records.
pub fn index(doc: IngestedDoc, host: &Host) -> Result<Index, LoadError> {
    let contributions = corporate_contributions(host, &doc.committees)?;
    let committees: HashMap<&str, &CommitteeRecord> =
        doc.committees.iter().map(|c| (c.committee_id.as_str(), c)).collect();
    let parties = Parties::new(&doc.candidates, &doc.linkages);
    let mut pacs: BTreeMap<(&str, &str), Pac> = BTreeMap::new();
    for c in &contributions {
        let pac = pacs.entry((&c.committee_id, &c.cycle)).or_default();
        let party = parties.of(c);
        if party == UNKNOWN {
            pac.unattributed_usd += c.amount;
        }
        pac.contributions.push(Contribution { party: party.into(), amount: c.amount });
        pac.reports.insert(c.file_num.clone());
    }
    let matches = resolve(host, pacs.keys().map(|(id, _)| committees[id]));
    let mut entries = Vec::with_capacity(pacs.len());
    for (((committee_id, cycle), pac), (company, matched_by)) in pacs.into_iter().zip(matches) {
        let committee = committees[committee_id];
        entries.push(Entry::new(company_entry(committee, cycle, pac, company, matched_by)?)?);
    }
    entries.sort_by(|a, b| (&a.company.name, &a.company.committee_id).cmp(&(&b.company.name, &b.company.committee_id)));
    let meta = meta(&doc, contributions.len());
    Ok(Dataset { meta, companies: Companies::new(entries, |e| &e.company.ticker) })
}

fn company_entry(
    committee: &CommitteeRecord,
    cycle: &str,
    pac: Pac,
    company: Option<CompanyRef>,
    matched_by: Option<MatchedBy>,
) -> Result<Company, LoadError> {
    let connected = &committee.connected_org;
    let filed_name = if connected.is_empty() { &committee.name } else { connected };
    // Ingest stores a cycle as its year; anything else is a damaged record, never a note reading "-2024".
    let first_year = cycle
        .parse::<i32>()
        .map(|y| (y - 1).to_string())
        .map_err(|_| LoadError::Cycle { committee_id: committee.committee_id.clone(), cycle: cycle.to_string() })?;
    let mut note = format!(
        "Corporate PAC (FEC committee master, ORG_TP C){}. Contributions to federal candidates (transaction type \
         24K) reported in the {first_year}-{cycle} cycle, summed as filed (refunds negative): {} contributions.",
        if connected.is_empty() { String::new() } else { format!(" connected to {connected}") },
        pac.contributions.len()
    );
    if pac.unattributed_usd != 0.0 {
        note.push_str(&format!(
            " ${} went to recipients whose party could not be determined: in the total, in neither share.",
            pac.unattributed_usd
        ));
    }
    if company.is_none() {
        note.push_str(" No listed company matched the PAC's names: name as filed, no ticker.");
    }
    let committee_id = committee.committee_id.clone();
    Ok(Company {
        name: company.as_ref().map_or_else(|| filed_name.clone(), |c| c.name.clone()),
        ticker: company.as_ref().map(|c| c.ticker.clone()).unwrap_or_default(),
        pac_name: committee.name.clone(),
        cycle: cycle.into(),
        note,
        contributions: pac.contributions,
        provenance: Some(Provenance {
            source_url: format!("https://www.fec.gov/data/committee/{committee_id}/"),
            connected_organization: connected.clone(),
            cik: company.map(|c| c.cik),
            matched_by,
            unattributed_usd: pac.unattributed_usd,
            reports: pac
                .reports
                .into_iter()
                .map(|file_number| ReportRef {
                    url: format!("https://docquery.fec.gov/cgi-bin/forms/{committee_id}/{file_number}/"),
                    file_number,
                })
                .collect(),
        }),
        committee_id,
    })
}

/// The party a contribution's recipient belongs to: `D`, `R`, `other` or [`UNKNOWN`].
const UNKNOWN: &str = "unknown";

struct Parties<'a> {
    by_candidate: HashMap<&'a str, &'a str>,
    candidates_of_committee: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Parties<'a> {
    fn new(candidates: &'a [CandidateRecord], linkages: &'a [LinkageRecord]) -> Self {
        let by_candidate = candidates.iter().map(|c| (c.candidate_id.as_str(), c.party.as_str())).collect();
        let mut candidates_of_committee: HashMap<&str, Vec<&str>> = HashMap::new();
        for l in linkages {
            candidates_of_committee.entry(&l.committee_id).or_default().push(&l.candidate_id);
        }
        Self { by_candidate, candidates_of_committee }
    }

    fn of(&self, contribution: &ContributionRecord) -> &'static str {
        let named = [contribution.candidate_id.as_str()];
        let candidates: &[&str] = if contribution.candidate_id.is_empty() {
            self.candidates_of_committee.get(contribution.recipient_committee_id.as_str()).map_or(&[], Vec::as_slice)
        } else {
            &named
        };
        let parties: Option<BTreeSet<&str>> =
            candidates.iter().map(|id| self.by_candidate.get(id).map(|p| party_code(p))).collect();
        match parties {
            Some(set) if set.len() == 1 => set.into_iter().next().unwrap_or(UNKNOWN),
            _ => UNKNOWN,
        }
    }
}

/// CAND_PTY_AFFILIATION to a share: `DEM` and its Minnesota affiliate `DFL` are `D`; `UNK` or blank say
/// nothing; every other code (`IND`, `LIB`, `NNE` for none...) is `other`.
fn party_code(code: &str) -> &'static str {
    match code {
        "DEM" | "DFL" => "D",
        "REP" => "R",
        "" | "UNK" => UNKNOWN,
        _ => "other",
    }
}

/// The words of a committee name before the first word that names the committee itself (`THE BOEING
/// COMPANY POLITICAL ACTION COMMITTEE` -> `THE BOEING COMPANY`); `None` when nothing precedes it.
fn company_part(committee_name: &str) -> Option<String> {
    const COMMITTEE_WORDS: &[&str] = &[
        "POLITICAL",
        "PAC",
        "NETPAC",
        "EMPLOYEE",
        "EMPLOYEES",
        "EMPLOYEES'",
        "FEDERAL",
        "FUND",
        "GOOD",
        "CITIZENSHIP",
        "COMMITTEE",
    ];
    let upper = committee_name.to_uppercase();
    let words: Vec<&str> =
        upper.split(|c: char| c.is_whitespace() || c == '.' || c == '(').filter(|w| !w.is_empty()).collect();
    let end = words.iter().position(|w| COMMITTEE_WORDS.contains(w)).unwrap_or(words.len());
    (end > 0).then(|| words[..end].join(" "))
}

/// One company look-up per PAC through the host: the connected organisation first, then the company part of
/// the committee name. A failing host call degrades to "no match" (and is logged).
fn resolve<'a>(
    host: &Host,
    committees: impl Iterator<Item = &'a CommitteeRecord>,
) -> Vec<(Option<CompanyRef>, Option<MatchedBy>)> {
    let names: Vec<[Option<String>; 2]> = committees
        .map(|c| [(!c.connected_org.is_empty()).then(|| c.connected_org.clone()), company_part(&c.name)])
        .collect();
    let queries: Vec<CompanyQuery> = names.iter().flatten().flatten().cloned().map(CompanyQuery::Name).collect();
    let mut answers = match host.resolve_companies(&queries) {
        Ok(answers) if answers.len() == queries.len() => answers.into_iter(),
        Ok(_) | Err(_) => {
            host.log(LogLevel::Warn, "donors: the company resolver did not answer; PACs keep their filed names");
            vec![None; queries.len()].into_iter()
        }
    };
    names
        .iter()
        .map(|[connected, committee]| {
            let by_connected = connected.as_ref().and_then(|_| answers.next().flatten());
            let by_committee = committee.as_ref().and_then(|_| answers.next().flatten());
            match (by_connected, by_committee) {
                (Some(company), _) => (Some(company), Some(MatchedBy::ConnectedOrganization)),
                (None, Some(company)) => (Some(company), Some(MatchedBy::CommitteeName)),
                (None, None) => (None, None),
            }
        })
        .collect()
}

fn meta(doc: &IngestedDoc, served: usize) -> CompaniesMeta {
    let info = &doc.ingested;
    let contribution_rows = info.collections.get(CONTRIBUTIONS).copied().unwrap_or_default();
    let mut missing = Vec::new();
    for (records, what) in [
        (contribution_rows == 0, "no contributions file (itpas2): no totals"),
        (doc.committees.is_empty(), "no committee master (cm): no PAC can be classified as corporate"),
        (doc.candidates.is_empty(), "no candidate master (cn): no party split"),
        (
            doc.linkages.is_empty(),
            "no candidate-committee linkages (ccl): contributions naming only a committee have no party",
        ),
    ] {
        if records {
            missing.push(what);
        }
    }
    let mut caveat = "PAC figures are contributions from a company's connected political action committee, funded \
        by employees; they are not company financials and not predictive of stock performance. Totals sum \
        transaction type 24K as filed (refunds negative, memo entries included). demPct and repPct use the \
        candidate's party in the FEC candidate master, reached through the candidate-committee linkage when a \
        contribution names only a committee; money whose recipient's party cannot be determined is in the total \
        but in neither share; refunds larger than the contributions of a cycle make a total or a share negative \
        (or a share above 100). Companies are matched by name through the SEC company list; a PAC with no match \
        keeps its filed name and an empty ticker."
        .to_string();
    caveat.push_str(
        " Only corporate PACs' contributions to candidates are served: rows of committees that are not corporate \
         (ORG_TP C) in the committee master, or missing from it, and rows of other transaction types are not.",
    );
    if !missing.is_empty() {
        caveat.push_str(&format!(" Not ingested yet: {}.", missing.join("; ")));
    }
    CompaniesMeta {
        generated_at: info
            .last_ingest_at
            .get(..10)
            .map_or_else(|| chrono::Utc::now().format("%Y-%m-%d").to_string(), str::to_string),
        source: format!(
            "FEC bulk data (contributions from committees to candidates, committee master, candidate master, \
             candidate-committee linkages): {} records from {} ingested files; {served} of the {contribution_rows} \
             contribution rows are corporate PACs' contributions to candidates (24K) and are served",
            info.rows, info.files
        ),
        source_url: BULK_DATA_URL.into(),
        caveat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn company_part_of_committee_names() {
        assert_eq!(
            company_part("THE BOEING COMPANY POLITICAL ACTION COMMITTEE").as_deref(),
            Some("THE BOEING COMPANY")
        );
        assert_eq!(company_part("EXELIS INC.EMPLOYEES PAC").as_deref(), Some("EXELIS INC"));
        assert_eq!(company_part("AFLAC POLITICAL ACTION COMMITTEE (AFLAC PAC)").as_deref(), Some("AFLAC"));
        assert_eq!(
            company_part("UNION PACIFIC CORPORATION FUND FOR EFFECTIVE GOVERNMENT").as_deref(),
            Some("UNION PACIFIC CORPORATION")
        );
        assert_eq!(company_part("PAC OF AMERICA"), None);
    }

    #[test]
    fn a_stored_cycle_that_is_not_a_year_fails_the_load_instead_of_an_empty_note_year() {
        let committee = CommitteeRecord {
            committee_id: "C00000001".into(),
            name: "ACME CORP PAC".into(),
            city: String::new(),
            state: String::new(),
            designation: String::new(),
            committee_type: String::new(),
            party: String::new(),
            org_type: CORPORATE.into(),
            connected_org: String::new(),
            candidate_id: String::new(),
        };
        let err = company_entry(&committee, "20x4", Pac::default(), None, None).unwrap_err();
        assert_eq!(err.to_string(), "FEC contributions of committee C00000001: cycle `20x4` is not a year");
        let entry = company_entry(&committee, "2024", Pac::default(), None, None).unwrap();
        assert!(entry.note.contains("in the 2023-2024 cycle"), "{}", entry.note);
    }

    #[test]
    fn party_codes() {
        assert_eq!([party_code("DEM"), party_code("DFL"), party_code("REP")], ["D", "D", "R"]);
        assert_eq!(
            [party_code("IND"), party_code("NNE"), party_code("UNK"), party_code("")],
            ["other", "other", UNKNOWN, UNKNOWN]
        );
    }
}
