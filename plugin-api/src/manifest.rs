//! The plugin manifest and build info: the JSON a plugin reports about itself, and the host validates.

use serde::{Deserialize, Serialize};

/// Endpoint maturity label, as SPEC names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Maturity {
    /// JSON `"stable"`; shown to clients as `x-maturity: stable` on each of the plugin's operations.
    Stable,
    /// JSON `"beta"`; shown as `x-maturity: beta`.
    Beta,
    /// JSON `"pro"`; shown as `x-maturity: pro`. A label only: access is decided by each route's `min_tier`.
    Pro,
}

impl Maturity {
    /// The JSON spelling (`stable`, `beta` or `pro`), as stamped in the OpenAPI `x-maturity` label.
    pub fn as_str(self) -> &'static str {
        match self {
            Maturity::Stable => "stable",
            Maturity::Beta => "beta",
            Maturity::Pro => "pro",
        }
    }
}

/// API key tier. Order matters: a route's `min_tier` admits that tier and every tier above it in this list,
/// except that `rapidapi` is a marketplace rate class, not a privilege level (see [`Tier::satisfies`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// JSON `"free"`: the lowest tier; a route requiring it is open to every key.
    Free,
    /// JSON `"rapidapi"`: callers through the RapidAPI marketplace proxy; a rate class that opens only free and
    /// rapidapi routes.
    Rapidapi,
    /// JSON `"pro"`: paid keys; pro routes admit only pro and owner keys.
    Pro,
    /// JSON `"owner"`: the operator's keys; may call every route.
    Owner,
}

impl Tier {
    /// Every tier, in the order the API guide's rate-limit table lists them (free, pro, rapidapi, owner); not the
    /// declaration order.
    pub const ALL: [Tier; 4] = [Tier::Free, Tier::Pro, Tier::Rapidapi, Tier::Owner];

    /// The lowercase JSON / config spelling of the tier.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Free => "free",
            Tier::Pro => "pro",
            Tier::Rapidapi => "rapidapi",
            Tier::Owner => "owner",
        }
    }

    /// The tier spelled `text` exactly (lowercase, as [`Tier::as_str`] writes it); `None` for anything else.
    pub fn parse(text: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.as_str() == text)
    }

    /// Whether a caller of this tier may use a route that requires `required`.
    /// Free and rapidapi routes are open to every tier; pro routes to pro and owner only.
    pub fn satisfies(self, required: Tier) -> bool {
        match required {
            Tier::Free | Tier::Rapidapi => true,
            Tier::Pro => matches!(self, Tier::Pro | Tier::Owner),
            Tier::Owner => self == Tier::Owner,
        }
    }
}

/// What a query parameter holds; decides its OpenAPI schema and the SDK parser to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    /// JSON `"string"`: free text, read with [`crate::Query::str`]; OpenAPI `type: string`.
    String,
    /// JSON `"integer"`: a positive whole number (read with [`crate::Query::positive_int`]); OpenAPI `minimum: 1`.
    Integer,
    /// JSON `"boolean"`: `true` or `false`, case-insensitive (read with [`crate::Query::bool`]).
    Boolean,
    /// JSON `"date"`: a calendar date written `YYYY-MM-DD`; OpenAPI `type: string, format: date`.
    Date,
}

/// One query parameter of a route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamSpec {
    /// Query-parameter name as clients write it (for example `ticker`); unique within its route.
    pub name: String,
    /// What the value holds; decides the OpenAPI schema of the parameter.
    pub kind: ParamKind,
    /// Whether the parameter must be given; only documents it (the handler must still refuse a missing one).
    #[serde(default)]
    pub required: bool,
    /// Human-readable text for the OpenAPI parameter's `description`; empty by default.
    #[serde(default)]
    pub description: String,
    /// Value the handler assumes when the parameter is absent, shown as the OpenAPI schema `default`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    /// Largest value of an integer parameter, shown as the OpenAPI schema `maximum` (documentation only: the
    /// handler clamps or refuses, for example with [`crate::Query::limit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<u64>,
    /// Example value shown in the OpenAPI parameter's `example`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<serde_json::Value>,
    /// Extra OpenAPI schema keywords (pattern, minLength, enum...), merged into the generated schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<serde_json::Value>,
}

impl ParamSpec {
    fn new(name: &str, kind: ParamKind, description: &str) -> Self {
        Self {
            name: name.into(),
            kind,
            required: false,
            description: description.into(),
            default: None,
            maximum: None,
            example: None,
            schema: None,
        }
    }
    /// An optional [`ParamKind::String`] parameter.
    pub fn string(name: &str, description: &str) -> Self {
        Self::new(name, ParamKind::String, description)
    }
    /// An optional [`ParamKind::Integer`] parameter (a positive integer).
    pub fn integer(name: &str, description: &str) -> Self {
        Self::new(name, ParamKind::Integer, description)
    }
    /// An optional [`ParamKind::Boolean`] parameter.
    pub fn boolean(name: &str, description: &str) -> Self {
        Self::new(name, ParamKind::Boolean, description)
    }
    /// An optional [`ParamKind::Date`] parameter (`YYYY-MM-DD`).
    pub fn date(name: &str, description: &str) -> Self {
        Self::new(name, ParamKind::Date, description)
    }
    /// The SPEC `ticker` parameter.
    pub fn ticker() -> Self {
        Self::string("ticker", "Stock ticker, case-insensitive (for example `AAPL` or `aapl`).").example("NVDA")
    }
    /// A `limit` parameter with its default and maximum (values above the maximum are clamped).
    pub fn limit(default: usize, maximum: usize, what: &str) -> Self {
        let mut p = Self::integer(
            "limit",
            &format!("Caps the number of {what} returned. Default {default}; values above {maximum} are clamped to {maximum}."),
        );
        p.default = Some(default.into());
        p.maximum = Some(maximum as u64);
        p
    }
    /// Marks the parameter required in the OpenAPI description.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }
    /// Sets the example value shown in the OpenAPI description.
    pub fn example(mut self, value: impl Into<serde_json::Value>) -> Self {
        self.example = Some(value.into());
        self
    }
    /// Sets the documented default value (the handler must apply it itself).
    pub fn default_value(mut self, value: impl Into<serde_json::Value>) -> Self {
        self.default = Some(value.into());
        self
    }
    /// Sets extra OpenAPI schema keywords (see [`ParamSpec::schema`](#structfield.schema)); replaces earlier ones.
    pub fn schema(mut self, extra: serde_json::Value) -> Self {
        self.schema = Some(extra);
        self
    }
}

/// Path prefix of internal routes: served only to other plugins through `route.get` (never over HTTP, never
/// in `/openapi.json`), for derived datasets that need a view the public API does not give (for example every
/// 13F filer's latest filing for the entity graph). Shape: `/internal/<slug>/<name>`.
pub const INTERNAL_ROUTE_PREFIX: &str = "/internal/";

/// One route a plugin serves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteSpec {
    /// Path template, for example `/v1/congress-trades`.
    pub path: String,
    /// Lowest tier that may call it (`free` admits everyone).
    #[serde(default = "default_tier")]
    pub min_tier: Tier,
    /// Query parameters the route accepts, in the order the OpenAPI description lists them. The host refuses a
    /// request with any other parameter (400), so every parameter the handler reads must be listed.
    #[serde(default)]
    pub params: Vec<ParamSpec>,
}

fn default_tier() -> Tier {
    Tier::Free
}

/// What a plugin reports about itself. Validated by the host at load time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Dataset slug, lowercase `a-z0-9-` (for example `congress-trades`); listed by `/health`.
    pub slug: String,
    /// Plugin version shown in `plugins list` and the load log (for example `1.2.0`); must not be blank.
    pub version: String,
    /// Maturity label of every route of the plugin (OpenAPI `x-maturity` and the tag description).
    pub maturity: Maturity,
    /// One-line description of the dataset, used for the plugin's OpenAPI tag.
    #[serde(default)]
    pub description: String,
    /// Routes the plugin serves. May be empty only for a reference dataset with an `ingest:` capability.
    pub routes: Vec<RouteSpec>,
    /// OpenAPI 3.1 fragment: `{"paths": {...}, "components": {"schemas": {...}}}`. Every route must have a
    /// `get` operation here; the host adds maturity, tags, security and the shared error responses.
    pub openapi: serde_json::Value,
    /// Capabilities, for example `ingest:house-ptr`. Unknown capabilities are ignored by older hosts.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// Datasets this plugin owns (seeds it ships). Defaults to its slug when it ships seeds.
    #[serde(default)]
    pub datasets: Vec<String>,
    /// Datasets of other plugins it reads through the records engine.
    #[serde(default)]
    pub reads: Vec<String>,
    /// Fields its own datasets' records are looked up by with `records.query` (the host indexes them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<crate::query::RecordIndex>,
    /// How its own dataset's documents are found by words with `records.words` (the host keeps the table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word_index: Option<crate::words::WordIndex>,
    /// Datasets of other plugins whose *ingested* records this plugin also serves (edgar-search indexes the
    /// Form 4 and 13F filings the engine holds). Their demo seeds are never served; once any of them holds
    /// ingested records, the plugin serves no demo seed at all, its own included (the host labels responses
    /// accordingly). Read like `reads` (re-initialised when they change).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_serves: Vec<String>,
}

/// One versioned migration of a plugin's own tables in the PostgreSQL records engine (see
/// [`crate::Plugin::migrations`]). Travels in the manifest JSON as the additive `migrations` array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Migration {
    /// Version number, unique within the plugin; applied in ascending order, each once (recorded by the host).
    pub id: i32,
    /// Short label, recorded with the id and shown in the log and in the error when the migration fails.
    pub name: String,
    /// SQL run with `search_path` set to the plugin's schema.
    pub sql: String,
}

/// Build facts the host checks before trusting a plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildInfo {
    /// [`crate::abi::ABI_MAJOR`] of the SDK the plugin was built with (JSON `abiMajor`); the host refuses any other
    /// major.
    pub abi_major: u32,
    /// [`crate::SDK_VERSION`] of the SDK the plugin was built with (JSON `sdkVersion`); a major.minor newer than
    /// the host's still loads, with a warning.
    pub sdk_version: String,
    /// `rustc --version` output of the compiler that built the plugin (`unknown` when it could not be read).
    pub rustc: String,
    /// `unwind` or `abort`; the host rejects `abort` because a panic would then kill the host.
    pub panic_strategy: String,
    /// Name of the plugin crate (JSON `crateName`), from the plugin's `CARGO_PKG_NAME`.
    pub crate_name: String,
    /// Version of the plugin crate (JSON `crateVersion`), from the plugin's `CARGO_PKG_VERSION`.
    pub crate_version: String,
}

/// Checks a manifest on its own (the host adds the cross-plugin checks: unique slugs, routes and schema
/// names). Returns every problem found, so one load attempt reports them all.
pub fn validate(m: &Manifest) -> Vec<String> {
    let mut problems = Vec::new();
    let slug_ok = !m.slug.is_empty()
        && m.slug.len() <= 64
        && m.slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !m.slug.starts_with('-')
        && !m.slug.ends_with('-');
    if !slug_ok {
        problems.push(format!("slug `{}` must be 1-64 characters of a-z, 0-9 and inner '-'", m.slug));
    }
    if m.version.trim().is_empty() {
        problems.push("version is empty".into());
    }
    // A reference dataset (companies) has no route of its own; it must at least ingest something.
    if m.routes.is_empty() && !m.capabilities.iter().any(|c| c.starts_with("ingest:")) {
        problems.push("declares no routes (and no ingest capability)".into());
    }
    let paths = m.openapi.get("paths").and_then(|p| p.as_object());
    if paths.is_none() {
        problems.push("openapi fragment has no `paths` object".into());
    }
    if let Some(schemas) = m.openapi.pointer("/components/schemas") {
        if !schemas.is_object() {
            problems.push("openapi `components.schemas` is not an object".into());
        }
    }
    let mut seen = std::collections::HashSet::new();
    for route in &m.routes {
        let lowercase = route.path.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-/_".contains(&b));
        let internal_prefix = format!("{INTERNAL_ROUTE_PREFIX}{}/", m.slug);
        let path_ok = lowercase
            && if route.is_internal() {
                route.path.starts_with(&internal_prefix) && route.path.len() > internal_prefix.len()
            } else {
                route.path.starts_with("/v1/") && route.path.len() > 4
            };
        if !path_ok {
            problems.push(format!(
                "route `{}` must be a lowercase path under /v1/ (or, internal, under {internal_prefix})",
                route.path
            ));
        }
        if !seen.insert(route.path.as_str()) {
            problems.push(format!("route `{}` is declared twice", route.path));
        }
        let mut names = std::collections::HashSet::new();
        for p in &route.params {
            if !names.insert(p.name.as_str()) {
                problems.push(format!("route `{}` declares parameter `{}` twice", route.path, p.name));
            }
        }
        if route.is_internal() {
            continue;
        }
        if let Some(paths) = paths {
            match paths.get(&route.path).and_then(|item| item.get("get")) {
                Some(op) if op.pointer("/responses/200").is_some() => {}
                Some(_) => problems.push(format!("openapi operation for `{}` has no 200 response", route.path)),
                None => problems.push(format!("route `{}` has no `get` operation in the openapi fragment", route.path)),
            }
        }
    }
    if let Some(problem) = m.word_index.as_ref().and_then(crate::words::WordIndex::problem) {
        problems.push(problem);
    }
    for index in &m.indexes {
        let fields_ok = !index.fields.is_empty() && index.fields.iter().all(|f| crate::query::valid_field(f));
        if !fields_ok || !crate::query::valid_field(&index.collection.replace('-', "_")) {
            problems.push(format!(
                "index on `{}` ({}) needs a collection name and 1+ fields of letters, digits and '_'",
                index.collection,
                index.fields.join(", ")
            ));
        }
    }
    if let Some(paths) = paths {
        for path in paths.keys() {
            if !m.routes.iter().any(|r| &r.path == path && !r.is_internal()) {
                problems.push(format!("openapi fragment documents `{path}`, which is not a declared route"));
            }
        }
    }
    problems
}

impl Manifest {
    /// The manifest of a typical dataset plugin: it owns one dataset named by its slug and serves `routes`,
    /// documented by `openapi`. Chain [`Manifest::reading`] / [`Manifest::owning_no_dataset`] for the others.
    pub fn dataset(
        slug: &str,
        version: &str,
        maturity: Maturity,
        description: &str,
        routes: Vec<RouteSpec>,
        openapi: serde_json::Value,
    ) -> Self {
        Self {
            slug: slug.into(),
            version: version.into(),
            maturity,
            description: description.into(),
            routes,
            openapi,
            capabilities: Vec::new(),
            datasets: vec![slug.into()],
            reads: Vec::new(),
            also_serves: Vec::new(),
            indexes: Vec::new(),
            word_index: None,
        }
    }

    /// The manifest of a dataset plugin whose routes are declared from types ([`crate::openapi::Endpoint`]):
    /// like [`Manifest::dataset`], with the routes and the OpenAPI fragment both taken from `endpoints`.
    pub fn serving(
        slug: &str,
        version: &str,
        maturity: Maturity,
        description: &str,
        endpoints: Vec<crate::openapi::Endpoint>,
    ) -> Self {
        let openapi = crate::openapi::endpoints_fragment(&endpoints);
        let routes = endpoints.iter().map(|e| e.route().clone()).collect();
        Self::dataset(slug, version, maturity, description, routes, openapi)
    }

    /// Declares that records of `collection` are looked up by `fields` (see [`crate::query`]).
    pub fn indexing(mut self, collection: &str, fields: &[&str]) -> Self {
        self.indexes.push(crate::query::RecordIndex {
            collection: collection.into(),
            fields: fields.iter().map(|f| f.to_string()).collect(),
        });
        self
    }

    /// Declares how the documents of its dataset are found by words (see [`crate::words`]).
    pub fn word_indexing(mut self, index: crate::words::WordIndex) -> Self {
        self.word_index = Some(index);
        self
    }

    /// Declares datasets of other plugins whose ingested records this one also serves (see
    /// [`Manifest::also_serves`]).
    pub fn also_serving(mut self, datasets: &[&str]) -> Self {
        self.also_serves.extend(datasets.iter().map(|d| d.to_string()));
        self
    }

    /// Declares datasets of other plugins this one reads through the records engine.
    pub fn reading(mut self, datasets: &[&str]) -> Self {
        self.reads.extend(datasets.iter().map(|d| d.to_string()));
        self
    }

    /// For plugins that only derive from other datasets and ship none of their own.
    pub fn owning_no_dataset(mut self) -> Self {
        self.datasets.clear();
        self
    }
}

impl RouteSpec {
    /// A route open to every tier.
    pub fn new(path: &str, params: Vec<ParamSpec>) -> Self {
        Self { path: path.into(), min_tier: Tier::Free, params }
    }

    /// An internal route (see [`INTERNAL_ROUTE_PREFIX`]): `/internal/<slug>/<name>`.
    pub fn internal(slug: &str, name: &str, params: Vec<ParamSpec>) -> Self {
        Self { path: format!("{INTERNAL_ROUTE_PREFIX}{slug}/{name}"), min_tier: Tier::Owner, params }
    }

    /// Served only to other plugins through `route.get`.
    pub fn is_internal(&self) -> bool {
        self.path.starts_with(INTERNAL_ROUTE_PREFIX)
    }

    /// Restricts the route to `tier` and above.
    pub fn requiring(mut self, tier: Tier) -> Self {
        self.min_tier = tier;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with_routes(routes: Vec<RouteSpec>, paths: serde_json::Value) -> Manifest {
        Manifest::dataset("holdings", "1.0.0", Maturity::Stable, "d", routes, json!({ "paths": paths }))
    }

    fn get_200() -> serde_json::Value {
        json!({"get": {"responses": {"200": {"description": "ok"}}}})
    }

    #[test]
    fn a_bad_word_index_is_one_problem_whatever_the_routes() {
        let index = crate::words::WordIndex { facet_fields: vec![], ..crate::words::tests::index() };
        let two_public = with_routes(
            vec![RouteSpec::new("/v1/holdings", vec![]), RouteSpec::new("/v1/holdings/search", vec![])],
            json!({"/v1/holdings": get_200(), "/v1/holdings/search": get_200()}),
        )
        .word_indexing(index.clone());
        assert_eq!(validate(&two_public), ["word index: no facet field"]);
        let internal_only =
            with_routes(vec![RouteSpec::internal("holdings", "search", vec![])], json!({})).word_indexing(index);
        assert_eq!(validate(&internal_only), ["word index: no facet field"]);
    }

    #[test]
    fn internal_routes_need_no_openapi_operation_but_must_sit_under_their_slug() {
        let public = RouteSpec::new("/v1/holdings", vec![]);
        let internal = RouteSpec::internal("holdings", "latest-filings", vec![]);
        assert_eq!(internal.path, "/internal/holdings/latest-filings");
        assert!(internal.is_internal() && !public.is_internal());
        let ok = with_routes(vec![public.clone(), internal], json!({"/v1/holdings": get_200()}));
        assert_eq!(validate(&ok), Vec::<String>::new());

        let foreign = RouteSpec::internal("other", "x", vec![]);
        let problems = validate(&with_routes(vec![public.clone(), foreign], json!({"/v1/holdings": get_200()})));
        assert_eq!(
            problems,
            ["route `/internal/other/x` must be a lowercase path under /v1/ (or, internal, under /internal/holdings/)"]
        );

        // Documenting an internal route would publish it: refused.
        let documented = with_routes(
            vec![public, RouteSpec::internal("holdings", "x", vec![])],
            json!({"/v1/holdings": get_200(), "/internal/holdings/x": get_200()}),
        );
        assert_eq!(
            validate(&documented),
            ["openapi fragment documents `/internal/holdings/x`, which is not a declared route"]
        );
    }

    /// The version policy (README.md, "Versions"): a manifest of an older SDK (without the optional fields added
    /// since 1.0) and one of a newer SDK (with fields this SDK does not know) both read, and validate.
    #[test]
    fn manifests_of_older_and_newer_sdks_read() {
        let older = serde_json::json!({
            "slug": "echo", "version": "0.1.0", "maturity": "beta",
            "routes": [{"path": "/v1/echo"}],
            "openapi": {"paths": {"/v1/echo": {"get": {"responses": {"200": {"description": "OK"}}}}}},
        });
        let m: Manifest = serde_json::from_value(older.clone()).expect("a 1.0 manifest reads");
        assert_eq!((m.routes[0].min_tier, m.capabilities.len(), m.also_serves.len()), (Tier::Free, 0, 0));
        assert_eq!(validate(&m), Vec::<String>::new());
        let mut newer = older;
        newer["fieldOfALaterSdk"] = serde_json::json!({"anything": [1, 2]});
        newer["routes"][0]["laterRouteField"] = serde_json::json!(true);
        let m: Manifest = serde_json::from_value(newer).expect("unknown fields are ignored");
        assert_eq!(validate(&m), Vec::<String>::new());
        let build = serde_json::json!({"abiMajor": 1, "sdkVersion": "1.9.0", "rustc": "rustc 1.95.0",
            "panicStrategy": "unwind", "crateName": "echo", "crateVersion": "0.1.0", "laterBuildField": 1});
        let build: BuildInfo = serde_json::from_value(build).expect("build info of a newer SDK reads");
        assert_eq!((build.abi_major, build.sdk_version.as_str()), (1, "1.9.0"));
    }
}
