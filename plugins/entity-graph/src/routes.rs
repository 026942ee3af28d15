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
    ApiError, ParamKind, ParamSpec, Params, RequestEnvelope, Response, RouteSpec, TickerFilter, Tier,
};
use serde_json::{json, Value};

use crate::graph::{Graph, MatchKind, Miss};

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

    let mut node_ids: BTreeSet<(u8, crate::graph::NodeType, &str, &str, usize)> = BTreeSet::new();
    let mut linked: BTreeSet<&str> = BTreeSet::new();
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
    let nodes: Vec<Value> = node_ids
        .iter()
        .map(|&(d, _, _, _, i)| {
            let mut n = graph.node_json(i);
            n.insert("distance".into(), json!(d));
            Value::Object(n)
        })
        .collect();
    let edges: Vec<Value> = kept.iter().map(|&e| graph.edge_json(e)).collect();

    let info = &graph.info;
    Response::json(&json!({
        "entity": {
            "id": focus_node.id,
            "type": focus_node.kind.as_str(),
            "label": focus_node.label,
            "matchedBy": matched_by,
        },
        "count": { "nodes": nodes.len(), "edges": edges.len() },
        "nodes": nodes,
        "edges": edges,
        "meta": {
            "generatedAt": info.generated_at,
            "source": info.source,
            "caveat": info.caveat,
            "datasets": info.datasets,
            "datasetsUnavailable": info.unavailable,
            "datasetsLinked": linked,
            "depth": depth,
            "limit": limit,
            "edgesTotal": edges_total,
            "truncated": edges_total > kept.len(),
        },
    }))
}
