//! `GET /v1/entity-graph` (pro): resolves the focus entity from `ticker` or `entity`, collects its
//! neighbourhood to `depth` hops, caps the edges at `limit` and answers `{entity, nodes, edges, meta, count}`.
//!
//! Parameter rules: exactly one of `ticker` and `entity` (neither: "ticker or entity is required"; both: 400,
//! since silently preferring one would answer a question the client did not ask). `entity` matches a node
//! name case-insensitively (exact first, then a unique substring; when several match and exactly one is a
//! company, the company wins; otherwise 400 listing up to five candidates). An unknown ticker or entity is a
//! 404. `depth` is 1 or 2 (default 1); `limit` caps the edges (default 200, above 1000 clamped).

use std::collections::BTreeSet;

use datahost_plugin_api::params::ParamText;
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{
    ApiError, ApiSchema, ParamKind, ParamSpec, Params, RequestEnvelope, Response, RouteSpec, TickerFilter, Tier,
};
use serde::Serialize;
use serde_json::json;

use crate::graph::{EdgeFields, Graph, MatchKind, Miss, NodeFields, NodeType, Provenance, Relation};
use crate::schema::{
    count_schema, dataset_schema, datasets_schema, depth_schema, edge_requirements, focus_match_schema,
    node_requirements, node_type_schema, relation_schema,
};

pub const DEFAULT_LIMIT: usize = 200;
/// Longest `entity` accepted, so a client cannot make the server scan with a huge needle.
pub const ENTITY_MAX_CHARS: usize = 200;

/// Query parameters of `GET /v1/entity-graph`.
#[derive(Params)]
struct Focus {
    /// Focus company by stock ticker, case-insensitive. One of `ticker` and `entity` is required (not both).
    ticker: TickerFilter,
    /// Focus entity by name, case-insensitive: a company, insider, member of Congress, agency, PAC committee (name
    /// or FEC id) or 13F filer (name or CIK); a node id such as `filer:0001811234` also works. An exact name wins;
    /// otherwise the name must contain it uniquely (when several match and exactly one is a company, the company
    /// is chosen; otherwise 400 listing candidates). One of `ticker` and `entity` is required (not both).
    #[param(example = "Bulwark Ridge Defense", max_chars = ENTITY_MAX_CHARS)]
    entity: Option<String>,
    /// Hops from the focus entity: 1 (its own links) or 2 (also its neighbours' links; the shared lobbying and
    /// USPTO nodes are not expanded).
    depth: Option<Depth>,
    #[param(limit(default = DEFAULT_LIMIT, max = DEFAULT_MAX_LIMIT, of = "edges"))]
    limit: usize,
}

/// `depth`: 1 or 2 hops (default 1).
#[derive(Clone, Copy)]
struct Depth(u8);

impl ParamText for Depth {
    const KIND: ParamKind = ParamKind::Integer;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        match raw.trim() {
            "1" => Ok(Depth(1)),
            "2" => Ok(Depth(2)),
            other => {
                let shown: String = other.chars().take(40).collect();
                Err(ApiError::bad_request(format!("{name} must be 1 or 2, got `{shown}`")))
            }
        }
    }
    fn document(spec: &mut ParamSpec) {
        spec.default = Some(1.into());
        spec.schema = Some(json!({ "maximum": 2, "enum": [1, 2] }));
    }
}

/// The answer: the focus entity, its neighbourhood's nodes and edges, how the graph was built, and counts.
#[derive(Serialize, ApiSchema)]
#[schema(name = "EntityGraphResponse")]
pub(crate) struct Body<'a> {
    entity: FocusOut<'a>,
    /// The focus entity first, then every endpoint of the returned edges, by distance, type and label.
    nodes: Vec<NodeOut<'a>>,
    /// The focus entity's own edges first, then (depth 2) its neighbours' edges; each group newest provenance
    /// date first.
    edges: Vec<EdgeOut<'a>>,
    meta: MetaOut<'a>,
    count: Count,
}

/// The focus entity and how the request found it.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "EntityGraphEntity")]
struct FocusOut<'a> {
    /// Node id of the focus entity.
    id: &'a str,
    #[schema(with = node_type_schema)]
    r#type: NodeType,
    label: &'a str,
    /// How the focus was found: by `ticker`, by an exact `entity` name, or by a unique substring.
    #[schema(optional, with = focus_match_schema)]
    matched_by: &'static str,
}

/// An entity of the graph: the fields every node has, and those of its type.
#[derive(Serialize, ApiSchema)]
#[schema(name = "EntityGraphNode", all_of = node_requirements)]
struct NodeOut<'a> {
    /// Stable id: `company:<TICKER>`, `person:<name-slug>`, `member:<name-slug>`, `agency:<name-slug>`,
    /// `filer:<10-digit CIK>`, `committee:<FEC committee id>`.
    id: &'a str,
    /// Node type.
    #[schema(with = node_type_schema)]
    r#type: NodeType,
    /// Display name (for a company, the issuer's name; else the name as filed).
    label: &'a str,
    /// Datasets the entity appears in.
    #[schema(with = datasets_schema)]
    datasets: &'a BTreeSet<&'static str>,
    /// Hops from the focus entity (0 for the focus itself).
    #[schema(with = count_schema)]
    distance: u8,
    #[serde(flatten)]
    fields: &'a NodeFields,
}

/// A link between two entities: the fields every edge has, and those of its relation.
#[derive(Serialize, ApiSchema)]
#[schema(name = "EntityGraphEdge", all_of = edge_requirements)]
struct EdgeOut<'a> {
    /// Node id the relation starts at.
    source: &'a str,
    /// Node id the relation points to.
    target: &'a str,
    /// `traded` member -> company (one PTR line); `insider-of` person -> company (Form 4 owner); `lobbied`
    /// company -> federal-government (one filing year); `awarded-contract` agency -> company (one award);
    /// `donated` committee -> company (the company's connected PAC and its cycle totals to federal candidates, not
    /// money paid to the company); `holds` filer -> company (one 13F information-table row); `granted-patent`
    /// USPTO -> company.
    #[schema(with = relation_schema)]
    relation: Relation,
    /// Dataset the edge comes from.
    #[schema(with = dataset_schema)]
    dataset: &'static str,
    provenance: &'a Provenance,
    #[serde(flatten)]
    fields: &'a EdgeFields,
}

/// How the graph was built, and how much of the neighbourhood this answer holds.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "EntityGraphMeta")]
struct MetaOut<'a> {
    /// The newest generatedAt among the datasets the graph was built from.
    #[schema(format = "date-time")]
    generated_at: &'a str,
    /// Where the graph comes from; says so when the sources are demo data.
    source: &'a str,
    /// What a link does and does not mean, and how entities are matched.
    caveat: &'a str,
    /// Datasets the graph was built from.
    #[schema(with = datasets_schema)]
    datasets: &'a [&'static str],
    /// Datasets that were missing or unreadable when the graph was built; their links are absent.
    #[schema(with = datasets_schema)]
    datasets_unavailable: &'a [&'static str],
    /// Datasets the returned edges come from.
    #[schema(with = datasets_schema)]
    datasets_linked: BTreeSet<&'static str>,
    /// Hops collected.
    #[schema(with = depth_schema)]
    depth: u8,
    /// Maximum number of edges returned.
    limit: usize,
    /// Edges within `depth` hops before `limit` applied.
    #[schema(with = count_schema)]
    edges_total: usize,
    /// True when `limit` left edges out (edgesTotal > count.edges).
    truncated: bool,
}

/// How many nodes and edges the answer holds.
#[derive(Serialize, ApiSchema)]
#[schema(name = "EntityGraphCount")]
struct Count {
    /// Number of nodes returned.
    #[schema(with = count_schema)]
    nodes: usize,
    /// Number of edges returned.
    #[schema(with = count_schema)]
    edges: usize,
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Focus::specs()).requiring(Tier::Pro)
}

pub fn handle(graph: &Graph, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Focus { ticker, entity, depth, limit } = Focus::parse(request.params())?;
    let depth = depth.map_or(1, |Depth(hops)| hops);
    let entity = entity.as_deref();

    let (focus, matched_by) = match (ticker.value(), entity) {
        (None, None) => return Err(ApiError::bad_request("ticker or entity is required")),
        (Some(_), Some(_)) => return Err(ApiError::bad_request("give either ticker or entity, not both")),
        (Some(t), None) => match graph.company(t) {
            Some(i) => (i, "ticker"),
            None => return Err(ApiError::not_found(format!("no dataset in the graph links ticker `{t}`"))),
        },
        (None, Some(name)) => match graph.find(name) {
            Ok((i, MatchKind::Exact)) => (i, "exact"),
            Ok((i, MatchKind::Substring)) => (i, "substring"),
            Err(Miss::NotFound) => {
                return Err(ApiError::not_found(format!("no entity in the graph is named `{name}`")))
            }
            Err(Miss::Ambiguous(candidates)) => {
                let listed: Vec<String> =
                    candidates.iter().map(|&i| format!("{} ({})", graph.nodes[i].label, graph.nodes[i].id)).collect();
                return Err(ApiError::bad_request(format!(
                    "entity `{name}` matches several entities; give an exact name or a node id, for example: {}",
                    listed.join("; ")
                )));
            }
        },
    };

    let (chosen, distance) = graph.neighbourhood(focus, depth);
    let edges_total = chosen.len();
    let kept = &chosen[..edges_total.min(limit)];

    let mut node_ids: BTreeSet<(u8, NodeType, &str, &str, usize)> = BTreeSet::new();
    let mut linked: BTreeSet<&'static str> = BTreeSet::new();
    for &e in kept {
        let edge = &graph.edges[e];
        linked.insert(edge.dataset);
        for end in [edge.source, edge.target] {
            let n = &graph.nodes[end];
            node_ids.insert((distance[&end], n.kind, n.label.as_str(), n.id.as_str(), end));
        }
    }
    let focus_node = &graph.nodes[focus];
    node_ids.insert((0, focus_node.kind, focus_node.label.as_str(), focus_node.id.as_str(), focus));
    let nodes: Vec<NodeOut> = node_ids
        .iter()
        .map(|&(distance, _, _, _, i)| {
            let n = &graph.nodes[i];
            NodeOut { id: &n.id, r#type: n.kind, label: &n.label, datasets: &n.datasets, distance, fields: &n.fields }
        })
        .collect();
    let edges: Vec<EdgeOut> = kept
        .iter()
        .map(|&e| {
            let edge = &graph.edges[e];
            EdgeOut {
                source: &graph.nodes[edge.source].id,
                target: &graph.nodes[edge.target].id,
                relation: edge.relation,
                dataset: edge.dataset,
                provenance: &edge.provenance,
                fields: &edge.fields,
            }
        })
        .collect();

    let info = &graph.info;
    let body = Body {
        entity: FocusOut { id: &focus_node.id, r#type: focus_node.kind, label: &focus_node.label, matched_by },
        count: Count { nodes: nodes.len(), edges: edges.len() },
        nodes,
        edges,
        meta: MetaOut {
            generated_at: &info.generated_at,
            source: &info.source,
            caveat: &info.caveat,
            datasets: &info.datasets,
            datasets_unavailable: &info.unavailable,
            datasets_linked: linked,
            depth,
            limit,
            edges_total,
            truncated: edges_total > kept.len(),
        },
    };
    // Through a `Value`, whose objects keep their keys sorted: the answer stays byte for byte what it was when it
    // was built as JSON maps, while the types list their fields in the order the schema documents them.
    let body = serde_json::to_value(&body).map_err(|e| ApiError::internal(format!("serialising the answer: {e}")))?;
    Response::json(&body)
}
