//! The relationship graph, built on the first request after `init` from the source datasets' public routes
//! (`route.get`), and the two queries a request runs on it: resolving the focus entity and collecting its
//! neighbourhood.
//!
//! Linking rules (also in the README and the OpenAPI description):
//! - companies are one node per normalised ticker (`company:LMCS`) across every dataset;
//! - people (Form 4 reporting owners), members of Congress, agencies and PAC committees are one node per name
//!   (`person:<slug>`, `member:<slug>`, `agency:<slug>`) or committee id (`committee:C00123456`), so two
//!   people of the same name share a node; 13F filers are one node per CIK (`filer:0001811234`);
//! - a 13F holding links to the company whose name gives the same [`issuer_key`] as the holding's
//!   `nameOfIssuer` (only when exactly one company has that key), else to the company another holding with
//!   the same CUSIP issuer code (its first six characters) linked to by name; other holdings are not linked.
//!   A holding the holdings plugin already resolved to a company (`issuer.ticker`) links to that company first.
//!   Only each filer's latest filing is read, as `/v1/institutional-holdings` serves it;
//! - lobbying reports name no chamber or agency in this data, so every client links to one target node,
//!   `agency:federal-government`, one `lobbied` edge per filing year; patents link from `agency:uspto`;
//! - provenance addresses are the ones the source bodies give (a record's `sourceUrl`, else the dataset's
//!   `meta.sourceUrl`); the graph never builds an official address itself.
//!   Both are hubs: a depth-2 query does not expand through them (their neighbours are simply every company
//!   of the dataset).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use datahost_plugin_api::params::normalize_ticker;
use datahost_plugin_api::{ApiSchema, Host, LogLevel};
use datahost_plugin_kit::text::amount_range_bounds;
use serde::{Serialize, Serializer};

use crate::data::{
    ContractsCompany, Doc, DonorsCompany, HoldingsFiling, InsiderCompany, InsiderRow, LobbyingCompany, Meta,
    PatentsCompany, PtrFiling,
};
use crate::error::SourceError;
use crate::names::{date, issuer_key, issuer_of_asset, lookup_key, slug, timestamp, url, Amount};
use crate::schema::{award_type_schema, chamber_schema, count_schema, holding_match_schema, quarters_schema};
use crate::{CONTRACTS, DONORS, HOLDINGS, HOUSE, INSIDERS, LOBBYING, PATENTS, SENATE};

/// A source: its dataset, the route that serves it, and the query the graph asks.
pub type Source = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

/// Where each dataset is read, in load order: 13F holdings last, since they link by the company names the
/// others give. PTR routes are read at their maximum `limit` (newest filings first).
pub const SOURCES: [Source; 8] = [
    (INSIDERS, "/v1/insiders", &[]),
    (LOBBYING, "/v1/lobbying", &[]),
    (CONTRACTS, "/v1/contracts", &[]),
    (DONORS, "/v1/donors", &[]),
    (PATENTS, "/v1/patents", &[]),
    (HOUSE, "/v1/congress-trades", &[("limit", PTR_LIMIT)]),
    (SENATE, "/v1/senate-trades", &[("limit", PTR_LIMIT)]),
    (HOLDINGS, "/internal/institutional-holdings/latest-filings", &[]),
];

/// The most PTR filings a route answers (its `limit` maximum).
const PTR_LIMIT: &str = "1000";

pub const LOBBYING_TARGET: &str = "agency:federal-government";
pub const USPTO: &str = "agency:uspto";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeType {
    Company,
    Person,
    Member,
    Agency,
    Filer,
    Committee,
}

impl NodeType {
    pub const ALL: [NodeType; 6] =
        [NodeType::Company, NodeType::Person, NodeType::Member, NodeType::Agency, NodeType::Filer, NodeType::Committee];

    pub fn as_str(self) -> &'static str {
        match self {
            NodeType::Company => "company",
            NodeType::Person => "person",
            NodeType::Member => "member",
            NodeType::Agency => "agency",
            NodeType::Filer => "filer",
            NodeType::Committee => "committee",
        }
    }
}

/// Written as [`NodeType::as_str`] names it.
impl Serialize for NodeType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Relation {
    Traded,
    InsiderOf,
    Lobbied,
    AwardedContract,
    Donated,
    Holds,
    GrantedPatent,
}

impl Relation {
    pub const ALL: [Relation; 7] = [
        Relation::Traded,
        Relation::InsiderOf,
        Relation::Lobbied,
        Relation::AwardedContract,
        Relation::Donated,
        Relation::Holds,
        Relation::GrantedPatent,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Traded => "traded",
            Relation::InsiderOf => "insider-of",
            Relation::Lobbied => "lobbied",
            Relation::AwardedContract => "awarded-contract",
            Relation::Donated => "donated",
            Relation::Holds => "holds",
            Relation::GrantedPatent => "granted-patent",
        }
    }
}

/// Written as [`Relation::as_str`] names it.
impl Serialize for Relation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Where an edge's facts come from. Fields that the record does not give are left out.
#[derive(Debug, Clone, Default, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "EntityGraphProvenance")]
pub struct Provenance {
    /// Public address of the source record or of the dataset's source.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    pub source_url: Option<String>,
    /// SEC accession number (Form 4, 13F).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accession: Option<String>,
    /// Document id: PTR id, LD-2 filing UUID, award id, FEC committee id, patent number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_id: Option<String>,
    /// Date of the cited record (filing, posting, award, contribution or grant date).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = "date")]
    pub date: Option<String>,
}

/// The fields only some node types carry, each left out when the node has none; `schema::NODE_FIELDS` lists
/// those a type always carries.
#[derive(Debug, Default, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeFields {
    /// company: the normalised ticker (share classes as `BRK.B`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticker: Option<String>,
    /// company (from insiders) or filer: SEC CIK, 10 digits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cik: Option<String>,
    /// company (from insiders): chief executive as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceo: Option<String>,
    /// member: chamber of Congress.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = chamber_schema)]
    pub chamber: Option<String>,
    /// committee: FEC committee id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committee_id: Option<String>,
    /// filer: form of the latest 13F filing read (`13F-HR`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
    /// filer: quarter end of the latest 13F filing read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = "date")]
    pub period_of_report: Option<String>,
    /// agency (shared hub nodes only): what the node stands for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The fields only some relations carry, each left out when the edge has none; `schema::EDGE_FIELDS` lists
/// those a relation always carries.
#[derive(Debug, Default, Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
pub struct EdgeFields {
    /// traded: transaction type as disclosed (purchase, sale, sale (partial), exchange).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// traded: asset as disclosed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asset: Option<String>,
    /// traded: bucketed amount range as disclosed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_range: Option<String>,
    /// traded: lower bound of amountRange in USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_min: Option<Option<Amount>>,
    /// traded: upper bound in USD; null when open-ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_max: Option<Option<Amount>>,
    /// traded: transaction date; awarded-contract: action date.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = "date")]
    pub date: Option<String>,
    /// traded (House only): several transactions reported as one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundled: Option<bool>,
    /// insider-of: the person's titles, newest filing first, comma-separated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// insider-of: transaction code of the latest Form 4 row (P, S, A, M, F, G...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// insider-of: distinct Form 4 filings; lobbied: LD-2 reports in the year.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = count_schema)]
    pub filing_count: Option<i64>,
    /// insider-of: Form 4 transaction rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = count_schema)]
    pub transaction_count: Option<usize>,
    /// lobbied: filing year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<i64>,
    /// lobbied: sum of the year's reported amounts in USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spend_usd: Option<Amount>,
    /// lobbied: quarters reported, `<year>-Q<n>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = quarters_schema)]
    pub quarters: Option<Vec<String>>,
    /// awarded-contract: obligated amount in USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<Amount>,
    /// awarded-contract: award id (PIID).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub award_id: Option<String>,
    /// awarded-contract: award type code.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = award_type_schema)]
    pub award_type: Option<String>,
    /// awarded-contract: award description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// donated: election cycle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<String>,
    /// donated: PAC contributions to federal candidates, USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_contributions_usd: Option<Amount>,
    /// donated: number of contributions.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = count_schema)]
    pub contribution_count: Option<i64>,
    /// donated: share to Democratic candidates, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dem_pct: Option<Amount>,
    /// donated: share to Republican candidates, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rep_pct: Option<Amount>,
    /// holds: reported value in USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_usd: Option<Amount>,
    /// holds: shares or principal amount.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shares: Option<Amount>,
    /// holds: issuer name as filed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_of_issuer: Option<String>,
    /// holds: CUSIP as filed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cusip: Option<String>,
    /// holds: class of the security as filed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title_of_class: Option<String>,
    /// holds: `Put` or `Call` for an option position, else null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub put_call: Option<Option<String>>,
    /// holds: quarter end of the 13F filing.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = "date")]
    pub period_of_report: Option<String>,
    /// holds: how the holding was linked to the company: `issuer`, the company the holdings dataset resolved the
    /// issuer to; `name`, its issuer name; `cusip`, a CUSIP issuer code that another holding linked by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = holding_match_schema)]
    pub matched_by: Option<&'static str>,
    /// granted-patent: first-applicant name counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assignee_matched: Option<String>,
    /// granted-patent: grants in the last 12 months, as `/v1/patents` counts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = count_schema)]
    pub granted_last12mo: Option<i64>,
    /// granted-patent: grants in the 12 months before that.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = count_schema)]
    pub granted_prior12mo: Option<i64>,
}

pub struct Node {
    pub id: String,
    pub kind: NodeType,
    pub label: String,
    /// Lower is better: the label comes from the best-ranked source that named the node.
    label_rank: u8,
    pub datasets: BTreeSet<&'static str>,
    /// What its type adds (a company's ticker, a member's chamber...).
    pub fields: NodeFields,
    /// [`lookup_key`]s the `entity` parameter matches: names, aliases, the id (and a company's ticker).
    names: BTreeSet<String>,
    /// Company names from non-13F datasets, for linking 13F holdings.
    issuer_names: Vec<String>,
    /// A shared target that a depth-2 query does not expand through.
    pub hub: bool,
}

pub struct Edge {
    pub source: usize,
    pub target: usize,
    pub relation: Relation,
    pub dataset: &'static str,
    pub provenance: Provenance,
    /// What its relation adds (a trade's amount range, a holding's value...).
    pub fields: EdgeFields,
}

/// Facts about the build, reported in every response's `meta`.
pub struct Info {
    pub generated_at: String,
    pub datasets: Vec<&'static str>,
    pub unavailable: Vec<&'static str>,
    pub source: String,
    pub caveat: String,
}

pub struct Graph {
    pub nodes: Vec<Node>,
    /// In output order: newest `provenance.date` first (undated last), then relation, source id, target id.
    pub edges: Vec<Edge>,
    by_id: HashMap<String, usize>,
    /// Edge indices per node, ascending (so in output order).
    adjacency: Vec<Vec<usize>>,
    pub info: Info,
}

/// Why `entity` picked no node.
#[derive(Debug, PartialEq, Eq)]
pub enum Miss {
    NotFound,
    /// Several nodes match; the first few, by type and label.
    Ambiguous(Vec<usize>),
}

/// How the focus entity was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    Substring,
}

impl Graph {
    pub fn by_id(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    pub fn company(&self, normalized_ticker: &str) -> Option<usize> {
        self.by_id(&format!("company:{normalized_ticker}"))
    }

    /// Resolves an `entity` name: an exact name (or id, or ticker) first, else a unique substring. When several
    /// nodes match and exactly one of them is a company, the company wins (its PAC and lobbying client names
    /// contain its name); otherwise the request is ambiguous.
    pub fn find(&self, query: &str) -> Result<(usize, MatchKind), Miss> {
        let key = lookup_key(query);
        if key.is_empty() {
            return Err(Miss::NotFound);
        }
        let matching = |exact: bool| -> BTreeSet<usize> {
            (0..self.nodes.len())
                .filter(|&i| self.nodes[i].names.iter().any(|n| if exact { *n == key } else { n.contains(&key) }))
                .collect()
        };
        let (candidates, how) = match matching(true) {
            exact if !exact.is_empty() => (exact, MatchKind::Exact),
            _ => (matching(false), MatchKind::Substring),
        };
        if candidates.len() == 1 {
            return Ok((*candidates.first().unwrap(), how));
        }
        let companies: Vec<usize> =
            candidates.iter().copied().filter(|&i| self.nodes[i].kind == NodeType::Company).collect();
        match (candidates.len(), companies.as_slice()) {
            (0, _) => Err(Miss::NotFound),
            (_, [only]) => Ok((*only, how)),
            _ => {
                let mut all: Vec<usize> = candidates.into_iter().collect();
                all.sort_by(|&a, &b| {
                    let (na, nb) = (&self.nodes[a], &self.nodes[b]);
                    (na.kind, &na.label, &na.id).cmp(&(nb.kind, &nb.label, &nb.id))
                });
                all.truncate(5);
                Err(Miss::Ambiguous(all))
            }
        }
    }

    /// The edges within `depth` hops of `focus` in output order (the focus's own edges first, then those of
    /// its non-hub neighbours), and each reached node's distance from the focus.
    pub fn neighbourhood(&self, focus: usize, depth: u8) -> (Vec<usize>, HashMap<usize, u8>) {
        let mut chosen: Vec<usize> = self.adjacency[focus].clone();
        let mut distance: HashMap<usize, u8> = HashMap::from([(focus, 0)]);
        let mut first_ring = Vec::new();
        for &e in &chosen {
            let edge = &self.edges[e];
            let other = if edge.source == focus { edge.target } else { edge.source };
            if let std::collections::hash_map::Entry::Vacant(v) = distance.entry(other) {
                v.insert(1);
                first_ring.push(other);
            }
        }
        if depth >= 2 {
            let seen: HashSet<usize> = chosen.iter().copied().collect();
            let second: BTreeSet<usize> = first_ring
                .iter()
                .filter(|&&n| !self.nodes[n].hub)
                .flat_map(|&n| self.adjacency[n].iter().copied())
                .filter(|e| !seen.contains(e))
                .collect();
            for &e in &second {
                for end in [self.edges[e].source, self.edges[e].target] {
                    distance.entry(end).or_insert(2);
                }
            }
            chosen.extend(second);
        }
        (chosen, distance)
    }
}

/// Builds the graph from every source route. A source that fails or is unreadable is logged, listed in
/// `Info::unavailable`, and left out; the graph is built from the rest.
pub fn build(host: &Host) -> Graph {
    let mut b = Builder::default();
    let (mut used, mut unavailable, mut metas) = (Vec::new(), Vec::new(), Vec::new());
    for (dataset, route, query) in SOURCES {
        match Doc::fetch(host, route, query).and_then(|doc| b.add(doc, dataset)) {
            Ok(read) => {
                used.push(dataset);
                metas.push(read);
            }
            Err(e) => {
                host.log(LogLevel::Warn, &format!("dataset `{dataset}` is unavailable and left out of the graph: {e}"));
                unavailable.push(dataset);
            }
        }
    }
    for note in &b.notes {
        host.log(LogLevel::Info, note);
    }
    b.finish(used, unavailable, &metas)
}

/// What the graph keeps of a source body once its records are read.
pub struct SourceRead {
    pub meta: Meta,
    pub data_status: String,
}

#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    by_id: HashMap<String, usize>,
    edges: Vec<Edge>,
    /// Build facts worth a log line (skipped records, unlinked holdings).
    notes: Vec<String>,
}

impl Builder {
    /// Reads one source body into the graph.
    fn add(&mut self, mut doc: Doc, dataset: &'static str) -> Result<SourceRead, SourceError> {
        let meta_url = url(&doc.meta.source_url);
        match dataset {
            INSIDERS => self.add_insiders(doc.records("companies")?, meta_url),
            LOBBYING => self.add_lobbying(doc.records("companies")?, meta_url),
            CONTRACTS => self.add_contracts(doc.records("companies")?, meta_url),
            DONORS => self.add_donors(doc.records("companies")?, meta_url),
            PATENTS => self.add_patents(doc.records("companies")?, meta_url),
            HOUSE | SENATE => {
                let filings: Vec<PtrFiling> = doc.records("filings")?;
                if filings.len().to_string() == PTR_LIMIT {
                    self.notes.push(format!("{dataset}: read the newest {PTR_LIMIT} filings only"));
                }
                self.add_ptrs(filings, dataset, meta_url)
            }
            HOLDINGS => self.add_holdings(doc.records("filings")?, meta_url),
            other => return Err(SourceError::UnknownDataset(other)),
        }
        for field in &doc.unreadable {
            self.notes.push(format!("{dataset}: `{field}` is of another JSON type than it should be; read as empty"));
        }
        if doc.skipped > 0 {
            self.notes.push(format!("{dataset}: skipped {} records that are not objects", doc.skipped));
        }
        if doc.skipped_nested > 0 {
            self.notes.push(format!(
                "{dataset}: skipped {} elements of nested lists (trades, filings, quarters, awards, grants, holdings) \
                 that are not objects",
                doc.skipped_nested
            ));
        }
        Ok(SourceRead { meta: doc.meta, data_status: doc.data_status })
    }

    fn node(&mut self, kind: NodeType, id: String, label: &str, rank: u8, dataset: &'static str) -> usize {
        let i = match self.by_id.get(&id) {
            Some(&i) => i,
            None => {
                self.nodes.push(Node {
                    names: BTreeSet::from([id.to_lowercase()]),
                    id: id.clone(),
                    kind,
                    label: String::new(),
                    label_rank: u8::MAX,
                    datasets: BTreeSet::new(),
                    fields: NodeFields::default(),
                    issuer_names: Vec::new(),
                    hub: false,
                });
                self.by_id.insert(id, self.nodes.len() - 1);
                self.nodes.len() - 1
            }
        };
        let n = &mut self.nodes[i];
        n.datasets.insert(dataset);
        let label = label.trim();
        if !label.is_empty() {
            n.names.insert(lookup_key(label));
            if rank < n.label_rank {
                n.label = label.to_string();
                n.label_rank = rank;
            }
        }
        i
    }

    /// The company node of `ticker` (normalised), named `name` with label rank `rank`. `None` for a ticker
    /// without a letter or digit.
    fn company(&mut self, ticker: &str, name: &str, rank: u8, dataset: &'static str) -> Option<usize> {
        let ticker = normalize_ticker(ticker);
        let valid = ticker.chars().any(|c| c.is_ascii_alphanumeric())
            && ticker.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '^' | '='));
        if !valid {
            return None;
        }
        let i = self.node(NodeType::Company, format!("company:{ticker}"), name, rank, dataset);
        let n = &mut self.nodes[i];
        n.names.insert(ticker.to_lowercase());
        n.fields.ticker = Some(ticker);
        self.issuer_alias(i, name);
        Some(i)
    }

    /// Another name the `entity` parameter finds a node by.
    fn alias(&mut self, i: usize, name: &str) {
        let key = lookup_key(name);
        if !key.is_empty() {
            self.nodes[i].names.insert(key);
        }
    }

    /// A company name from a non-13F dataset: found by `entity`, and compared with 13F issuer names.
    fn issuer_alias(&mut self, i: usize, name: &str) {
        self.alias(i, name);
        let name = name.trim();
        if !name.is_empty() && !self.nodes[i].issuer_names.iter().any(|n| n == name) {
            self.nodes[i].issuer_names.push(name.to_string());
        }
    }

    /// A shared target node (see the module docs), not expanded at depth 2.
    fn hub(&mut self, id: &str, label: &str, note: &str, dataset: &'static str) -> usize {
        let i = self.node(NodeType::Agency, id.to_string(), label, 0, dataset);
        self.nodes[i].hub = true;
        self.nodes[i].fields.note = Some(note.to_string());
        i
    }

    /// Adds an edge and returns its relation-specific fields to fill in.
    fn edge(
        &mut self,
        source: usize,
        target: usize,
        relation: Relation,
        dataset: &'static str,
        p: Provenance,
    ) -> &mut EdgeFields {
        self.edges.push(Edge { source, target, relation, dataset, provenance: p, fields: EdgeFields::default() });
        &mut self.edges.last_mut().expect("just pushed").fields
    }

    /// Form 4 reporting owners: one `insider-of` edge per person and company, with the person's titles
    /// (newest filing first), the code of their latest transaction row, and the latest filing as provenance.
    fn add_insiders(&mut self, companies: Vec<InsiderCompany>, meta_url: Option<String>) {
        let filed = |r: &InsiderRow| if r.filed_date.is_empty() { r.date.clone() } else { r.filed_date.clone() };
        let mut orphans = 0;
        for c in &companies {
            let Some(company) = self.company(&c.ticker, &c.company, 0, INSIDERS) else {
                orphans += c.filings.len();
                continue;
            };
            let fields = &mut self.nodes[company].fields;
            for (field, value) in [(&mut fields.cik, &c.cik), (&mut fields.ceo, &c.ceo)] {
                if !value.trim().is_empty() {
                    *field = Some(value.trim().to_string());
                }
            }
            let mut groups: BTreeMap<&str, Vec<(usize, &InsiderRow)>> = BTreeMap::new();
            for (pos, r) in c.filings.iter().enumerate() {
                if slug(&r.owner).is_empty() {
                    orphans += 1;
                } else {
                    groups.entry(r.owner.trim()).or_default().push((pos, r));
                }
            }
            for (owner, mut rows) in groups {
                rows.sort_by(|(pa, a), (pb, b)| {
                    (filed(b), &b.date, &b.accession_number, pb).cmp(&(filed(a), &a.date, &a.accession_number, pa))
                });
                let person = self.node(NodeType::Person, format!("person:{}", slug(owner)), owner, 0, INSIDERS);
                let mut titles: Vec<&str> = Vec::new();
                let mut accessions: BTreeSet<&str> = BTreeSet::new();
                for (_, r) in &rows {
                    for t in r.title.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                        if !titles.contains(&t) {
                            titles.push(t);
                        }
                    }
                    if !r.accession_number.is_empty() {
                        accessions.insert(&r.accession_number);
                    }
                }
                let latest = rows[0].1;
                let p = Provenance {
                    source_url: url(&latest.source_url).or_else(|| meta_url.clone()),
                    accession: Some(latest.accession_number.clone()).filter(|a| !a.is_empty()),
                    doc_id: None,
                    date: date(&filed(latest)),
                };
                let fields = self.edge(person, company, Relation::InsiderOf, INSIDERS, p);
                fields.title = Some(titles.join(", "));
                fields.code = Some(latest.code.clone());
                fields.filing_count = Some(accessions.len() as i64);
                fields.transaction_count = Some(rows.len());
            }
        }
        if orphans > 0 {
            self.notes.push(format!("insiders: {orphans} rows name no valid ticker or no owner; not linked"));
        }
    }

    /// Lobbying totals: one `lobbied` edge per client company and filing year to the lobbying target, with
    /// the year's spend, filing count and quarters as `/v1/lobbying` serves them.
    fn add_lobbying(&mut self, companies: Vec<LobbyingCompany>, meta_url: Option<String>) {
        if companies.is_empty() {
            return;
        }
        let target = self.hub(
            LOBBYING_TARGET,
            "Federal government (Congress and executive agencies)",
            "Target of lobbying reported on LD-2 filings; the dataset does not name the chambers or agencies \
             contacted, so every client links here.",
            LOBBYING,
        );
        for c in companies {
            let Some(company) = self.company(&c.ticker, &c.name, 1, LOBBYING) else { continue };
            self.alias(company, &c.client_name);
            if c.year <= 0 {
                continue;
            }
            let quarters: BTreeSet<&str> =
                c.quarters.iter().map(|q| q.period.trim()).filter(|q| !q.is_empty()).collect();
            let p = Provenance { source_url: meta_url.clone(), ..Provenance::default() };
            let fields = self.edge(company, target, Relation::Lobbied, LOBBYING, p);
            fields.year = Some(c.year);
            fields.spend_usd = Some(Amount(c.total_spend_usd));
            fields.filing_count = Some(c.filing_count);
            fields.quarters = Some(quarters.into_iter().map(str::to_string).collect());
        }
    }

    /// Contract awards as `/v1/contracts` lists them (its top awards in SPEC's window): one `awarded-contract`
    /// edge per award, from the awarding agency.
    fn add_contracts(&mut self, companies: Vec<ContractsCompany>, meta_url: Option<String>) {
        for c in companies {
            let Some(company) = self.company(&c.ticker, &c.name, 1, CONTRACTS) else { continue };
            for a in c.top_awards.iter().filter(|a| !slug(&a.agency).is_empty()) {
                let agency =
                    self.node(NodeType::Agency, format!("agency:{}", slug(&a.agency)), &a.agency, 0, CONTRACTS);
                let p = Provenance {
                    source_url: meta_url.clone(),
                    accession: None,
                    doc_id: Some(a.award_id.clone()).filter(|id| !id.is_empty()),
                    date: date(&a.date),
                };
                let fields = self.edge(agency, company, Relation::AwardedContract, CONTRACTS, p);
                fields.amount = Some(Amount(a.amount));
                fields.award_id = Some(a.award_id.clone()).filter(|id| !id.is_empty());
                fields.award_type = Some(a.award_type.clone()).filter(|t| !t.is_empty());
                fields.description = Some(a.description.clone());
                fields.date = Some(a.date.clone());
            }
        }
    }

    /// Connected PACs: one `donated` edge from the committee to its company, with the cycle's totals and party
    /// shares as `/v1/donors` serves them.
    fn add_donors(&mut self, companies: Vec<DonorsCompany>, meta_url: Option<String>) {
        for c in companies {
            let Some(company) = self.company(&c.ticker, &c.name, 1, DONORS) else { continue };
            let id = c.committee_id.trim().to_uppercase();
            let key = if id.is_empty() { slug(&c.pac_name) } else { id.clone() };
            if key.is_empty() {
                continue;
            }
            let label = if c.pac_name.trim().is_empty() { &id } else { &c.pac_name };
            let committee = self.node(NodeType::Committee, format!("committee:{key}"), label, 0, DONORS);
            self.alias(committee, &id);
            if !id.is_empty() {
                self.nodes[committee].fields.committee_id = Some(id.clone());
            }
            let p = Provenance {
                source_url: url(&c.provenance.source_url).or_else(|| meta_url.clone()),
                accession: None,
                doc_id: Some(id.clone()).filter(|id| !id.is_empty()),
                date: None,
            };
            let fields = self.edge(committee, company, Relation::Donated, DONORS, p);
            fields.cycle = Some(c.cycle);
            fields.total_contributions_usd = Some(Amount(c.total_contributions_usd));
            fields.contribution_count = c.contribution_count;
            fields.dem_pct = Some(Amount(c.dem_pct));
            fields.rep_pct = Some(Amount(c.rep_pct));
        }
    }

    /// Patent grants: one `granted-patent` edge from the USPTO per company with a grant counted in the last 24
    /// months (the `/v1/patents` counts: first applicant, no subsidiaries), with both 12-month counts. The
    /// newest grant named in the body (ingested data lists them) is the provenance.
    fn add_patents(&mut self, companies: Vec<PatentsCompany>, meta_url: Option<String>) {
        if companies.is_empty() {
            return;
        }
        let uspto = self.hub(
            USPTO,
            "United States Patent and Trademark Office",
            "Grantor of the patents in the patents dataset; every covered applicant links here.",
            PATENTS,
        );
        for c in companies {
            let Some(company) = self.company(&c.ticker, &c.name, 1, PATENTS) else { continue };
            let applicant = if c.assignee_matched.trim().is_empty() { &c.name } else { &c.assignee_matched };
            self.alias(company, applicant);
            let newest = c.ingested.recent_grants.iter().max_by(|a, b| a.grant_date.cmp(&b.grant_date));
            if c.granted_last12mo + c.granted_prior12mo <= 0 && newest.is_none() {
                continue;
            }
            let p = Provenance {
                source_url: newest.and_then(|g| url(&g.source_url)).or_else(|| meta_url.clone()),
                accession: None,
                doc_id: newest.map(|g| g.patent_number.clone()).filter(|n| !n.is_empty()),
                date: newest.and_then(|g| date(&g.grant_date)),
            };
            let fields = self.edge(uspto, company, Relation::GrantedPatent, PATENTS, p);
            fields.assignee_matched = Some(applicant.trim().to_string());
            fields.granted_last12mo = Some(c.granted_last12mo);
            fields.granted_prior12mo = Some(c.granted_prior12mo);
        }
    }

    /// Periodic Transaction Reports: one `traded` edge per trade line, from the member to the company.
    fn add_ptrs(&mut self, filings: Vec<PtrFiling>, dataset: &'static str, meta_url: Option<String>) {
        let default_chamber = if dataset == HOUSE { "house" } else { "senate" };
        for f in filings {
            let member_slug = slug(&f.member);
            if member_slug.is_empty() {
                continue;
            }
            let member = self.node(NodeType::Member, format!("member:{member_slug}"), &f.member, 0, dataset);
            let chamber = match f.chamber.trim().to_lowercase().as_str() {
                c @ ("house" | "senate") => c.to_string(),
                _ => default_chamber.to_string(),
            };
            self.nodes[member].fields.chamber = Some(chamber);
            let source_url = url(&f.source_url).or_else(|| meta_url.clone());
            for t in f.trades.iter() {
                let Some(company) = self.company(&t.ticker, issuer_of_asset(&t.asset), 2, dataset) else { continue };
                let p = Provenance {
                    source_url: source_url.clone(),
                    accession: None,
                    doc_id: Some(f.doc_id.clone()).filter(|d| !d.is_empty()),
                    date: date(&f.filed_date),
                };
                let (min, max) = amount_range_bounds(&t.amount_range);
                let fields = self.edge(member, company, Relation::Traded, dataset, p);
                fields.kind = Some(t.kind.clone());
                fields.asset = Some(t.asset.clone());
                fields.amount_range = Some(t.amount_range.clone());
                fields.amount_min = Some(min.map(Amount));
                fields.amount_max = Some(max.map(Amount));
                fields.date = date(&t.date);
                fields.bundled = t.bundled;
            }
        }
    }

    /// 13F holdings of each filer's latest filing: one `holds` edge per linked information-table row.
    fn add_holdings(&mut self, filings: Vec<HoldingsFiling>, meta_url: Option<String>) {
        let mut latest: BTreeMap<String, HoldingsFiling> = BTreeMap::new();
        for f in filings {
            let cik = f.cik.trim();
            if cik.is_empty() || cik.len() > 10 || !cik.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let cik = format!("{cik:0>10}");
            let key = |f: &HoldingsFiling| (f.period_of_report.clone(), f.filed_date.clone(), f.accession.clone());
            if latest.get(&cik).is_none_or(|seen| key(seen) < key(&f)) {
                latest.insert(cik, f);
            }
        }

        // Issuer key -> company; `None` when two companies share a key (such holdings stay unlinked).
        let mut by_name: HashMap<String, Option<usize>> = HashMap::new();
        for (i, n) in self.nodes.iter().enumerate().filter(|(_, n)| n.kind == NodeType::Company) {
            for key in n.issuer_names.iter().map(|name| issuer_key(name)).filter(|k| !k.is_empty()) {
                let slot = by_name.entry(key).or_insert(Some(i));
                if *slot != Some(i) {
                    *slot = None;
                }
            }
        }
        let by_resolved_ticker = |h: &crate::data::Holding| {
            h.issuer.as_ref().and_then(|r| self.by_id.get(&format!("company:{}", normalize_ticker(&r.ticker))).copied())
        };
        let name_match = |h: &crate::data::Holding| by_name.get(&issuer_key(&h.name_of_issuer)).copied().flatten();
        // CUSIP issuer code -> company, learnt from the holdings that matched by name.
        let mut by_code: HashMap<&str, Option<usize>> = HashMap::new();
        for h in latest.values().flat_map(|f| f.holdings.iter()) {
            if let (Some(code), Some(c)) = (issuer_code(&h.cusip), name_match(h)) {
                let slot = by_code.entry(code).or_insert(Some(c));
                if *slot != Some(c) {
                    *slot = None;
                }
            }
        }

        let (mut linked, mut unlinked) = (0, 0);
        let mut edges = Vec::new();
        let mut filers = Vec::new();
        for (cik, f) in &latest {
            let source_url = url(&f.source_url).or_else(|| meta_url.clone());
            let mut found_rows = Vec::new();
            for h in f.holdings.iter() {
                let found = by_resolved_ticker(h)
                    .map(|c| (c, "issuer"))
                    .or_else(|| name_match(h).map(|c| (c, "name")))
                    .or_else(|| {
                        issuer_code(&h.cusip)
                            .and_then(|code| by_code.get(code).copied().flatten())
                            .map(|c| (c, "cusip"))
                    });
                match found {
                    Some(hit) => found_rows.push((hit, h)),
                    None => unlinked += 1,
                }
            }
            filers.push((cik, f, source_url, found_rows));
        }
        for (cik, f, source_url, rows) in filers {
            let label = if f.filer.trim().is_empty() { cik.as_str() } else { f.filer.as_str() };
            let filer = self.node(NodeType::Filer, format!("filer:{cik}"), label, 0, HOLDINGS);
            self.alias(filer, cik);
            self.alias(filer, cik.trim_start_matches('0'));
            let fields = &mut self.nodes[filer].fields;
            fields.cik = Some(cik.clone());
            fields.form = Some(f.form.clone());
            if let Some(period) = date(&f.period_of_report) {
                fields.period_of_report = Some(period);
            }
            for ((company, how), h) in rows {
                linked += 1;
                let p = Provenance {
                    source_url: source_url.clone(),
                    accession: Some(f.accession.clone()).filter(|a| !a.is_empty()),
                    doc_id: None,
                    date: date(&f.filed_date),
                };
                let fields = EdgeFields {
                    value_usd: Some(Amount(h.value_usd)),
                    shares: Some(Amount(h.shares)),
                    name_of_issuer: Some(h.name_of_issuer.clone()),
                    cusip: Some(h.cusip.clone()),
                    title_of_class: Some(h.title_of_class.clone()),
                    put_call: Some(h.put_call.clone()),
                    period_of_report: date(&f.period_of_report),
                    matched_by: Some(how),
                    ..EdgeFields::default()
                };
                edges.push((filer, company, p, fields));
            }
        }
        for (filer, company, p, fields) in edges {
            self.nodes[company].datasets.insert(HOLDINGS);
            *self.edge(filer, company, Relation::Holds, HOLDINGS, p) = fields;
        }
        self.notes.push(format!(
            "institutional-holdings: {linked} holdings linked to companies, {unlinked} match no company and are not linked"
        ));
    }

    fn finish(
        mut self,
        mut used: Vec<&'static str>,
        mut unavailable: Vec<&'static str>,
        reads: &[SourceRead],
    ) -> Graph {
        for n in &mut self.nodes {
            if n.label.is_empty() {
                n.label = n.fields.ticker.as_deref().unwrap_or(&n.id).to_string();
            }
        }
        let nodes = &self.nodes;
        self.edges.sort_by(|a, b| {
            let key = |e: &Edge| (e.relation, nodes[e.source].id.clone(), nodes[e.target].id.clone());
            b.provenance.date.cmp(&a.provenance.date).then_with(|| key(a).cmp(&key(b)))
        });
        let mut adjacency = vec![Vec::new(); self.nodes.len()];
        for (e, edge) in self.edges.iter().enumerate() {
            adjacency[edge.source].push(e);
            adjacency[edge.target].push(e);
        }
        used.sort_unstable();
        unavailable.sort_unstable();
        Graph {
            info: info(used, unavailable, reads),
            nodes: self.nodes,
            edges: self.edges,
            by_id: self.by_id,
            adjacency,
        }
    }
}

fn info(datasets: Vec<&'static str>, unavailable: Vec<&'static str>, reads: &[SourceRead]) -> Info {
    let newest = reads.iter().filter_map(|r| timestamp(&r.meta.generated_at)).max().unwrap_or_else(chrono::Utc::now);
    let demo = reads.iter().any(|r| r.data_status == "demo");
    let mut source = "Derived from the public routes of the datasets listed in `datasets`".to_string();
    let mut caveat = "A link means two entities appear together in a public record (a trade disclosure, a Form 4, \
        a lobbying report, a contract award, a PAC registration, a patent grant or a 13F holding); it does not \
        imply wrongdoing, influence or coordination. Companies are matched across datasets by normalised ticker; \
        13F holdings by the issuer the holdings dataset resolved, else by issuer name or CUSIP issuer code, and \
        holdings that match no company are not linked; people, members and agencies by exact name, so two people \
        of the same name share one node."
        .to_string();
    if demo {
        source.push_str("; some of them serve DEMO data (fictional people and companies, invented amounts).");
        caveat.insert_str(
            0,
            "DEMO DATA: some source datasets serve their demo seed (fictional people, companies and figures); \
             do not attribute those links to real people or companies. ",
        );
    } else {
        source.push('.');
    }
    Info { generated_at: newest.format("%Y-%m-%dT%H:%M:%SZ").to_string(), datasets, unavailable, source, caveat }
}

/// The issuer part of a CUSIP (its first six characters).
fn issuer_code(cusip: &str) -> Option<&str> {
    let cusip = cusip.trim();
    (cusip.len() >= 6 && cusip.is_char_boundary(6) && cusip[..6].chars().all(|c| c.is_ascii_alphanumeric()))
        .then(|| &cusip[..6])
}
