//! Assembles `/openapi.json` (OpenAPI 3.1): the host's own part (info, servers, security schemes, the error
//! schema, shared error responses and rate-limit headers, /health, /ready and /openapi.json) plus every loaded
//! plugin's fragment. The host stamps each plugin operation with its maturity (`x-maturity`), tag, security
//! and the shared error responses, so plugins cannot forget them.

use datahost_plugin_api::{Manifest, Maturity, Tier};
use serde_json::{json, Map, Value};

use crate::http::error::ERROR_CODES;
use crate::plugins::PluginRegistry;

pub const API_VERSION: &str = "1.0.0";

/// The label every dataset response carries, in its body (`dataStatus`) and in the `X-Data-Status` header.
fn data_status_schema() -> Value {
    json!({
        "type": "string",
        "enum": ["demo", "ingested"],
        "description": "`demo`: the response contains demo rows (the dataset, or one it is derived from, serves \
            its shipped demo seed: fictional, never real filings). `ingested`: every row comes from official \
            source files ingested into the records engine, each with its source address.",
    })
}

fn rate_headers() -> Value {
    json!({
        "X-Data-Status": {"description": "`demo` or `ingested`: the same as the body's `dataStatus`.",
            "schema": {"$ref": "#/components/schemas/DataStatus"}},
        "X-RateLimit-Limit": {"$ref": "#/components/headers/X-RateLimit-Limit"},
        "X-RateLimit-Remaining": {"$ref": "#/components/headers/X-RateLimit-Remaining"},
        "X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"},
    })
}

fn error_response(description: &str, extra_headers: Value) -> Value {
    let mut headers = json!({"X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"}});
    if let Value::Object(extra) = extra_headers {
        headers.as_object_mut().unwrap().extend(extra);
    }
    json!({
        "description": description,
        "headers": headers,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    })
}

fn components() -> Value {
    let mut responses = Map::new();
    for (status, anchor, title) in ERROR_CODES {
        let name = response_name(*status);
        let extra = match status {
            429 => json!({
                "X-RateLimit-Limit": {"$ref": "#/components/headers/X-RateLimit-Limit"},
                "X-RateLimit-Remaining": {"$ref": "#/components/headers/X-RateLimit-Remaining"},
                "Retry-After": {"$ref": "#/components/headers/Retry-After"},
            }),
            401 => {
                json!({"WWW-Authenticate": {"schema": {"type": "string"}, "description": "Bearer realm=\"datahost\""}})
            }
            405 => json!({"Allow": {"schema": {"type": "string"}, "description": "Allowed methods"}}),
            _ => json!({}),
        };
        responses.insert(name.into(), error_response(&format!("{title} (docs anchor `{anchor}`)."), extra));
    }
    json!({
        "securitySchemes": {
            "ApiKeyHeader": {"type": "apiKey", "in": "header", "name": "X-API-Key",
                "description": "API key `svc_live_<32 hex>` in the X-API-Key header."},
            "ApiKeyQuery": {"type": "apiKey", "in": "query", "name": "api_key",
                "description": "API key in the api_key query parameter."},
            "BearerAuth": {"type": "http", "scheme": "bearer",
                "description": "API key as `Authorization: Bearer <API_KEY>`."},
            "MarketplaceProxy": {"type": "apiKey", "in": "header", "name": "X-Marketplace-Proxy-Secret",
                "description": "Requests proxied by the API marketplace carry its shared secret instead of a key; they are rated under the rapidapi tier."},
        },
        "headers": {
            "X-RateLimit-Limit": {"description": "Requests per minute allowed for the key's tier (absent for the owner tier).",
                "schema": {"type": "integer"}},
            "X-RateLimit-Remaining": {"description": "Requests left in the current one-minute window (UTC minute).",
                "schema": {"type": "integer"}},
            "Retry-After": {"description": "Seconds until the current window resets.", "schema": {"type": "integer"}},
            "X-Request-Id": {"description": "Identifier of this request; quote it when reporting a fault.",
                "schema": {"type": "string"}},
        },
        "schemas": {
            "DataStatus": data_status_schema(),
            "Error": {
                "type": "object",
                "required": ["error", "code"],
                "properties": {
                    "error": {"type": "string", "description": "What was wrong, naming the parameter or rule."},
                    "code": {"type": "integer", "description": "The HTTP status."},
                    "docs": {"type": "string", "description": "Address of the documentation for this error."},
                    "retryAfterSec": {"type": "integer", "description": "Only on 429: seconds until the window resets."},
                    "requestId": {"type": "string", "description": "Only on 500: the request id."},
                },
            },
            "PluginStatus": {
                "type": "object",
                "required": ["plugin", "stage", "error"],
                "properties": {
                    "plugin": {"type": "string"}, "file": {"type": "string"},
                    "stage": {"type": "string"}, "error": {"type": "string"},
                },
            },
            "Ready": {
                "type": "object",
                "required": ["ready"],
                "properties": {"ready": {"type": "boolean", "const": true}},
            },
            "DatasetHealth": {
                "type": "object",
                "required": ["data"],
                "properties": {
                    "data": {"$ref": "#/components/schemas/DataStatus"},
                    "rows": {"type": ["integer", "null"], "description": "Ingested records held."},
                    "files": {"type": "integer", "description": "Source files that changed the dataset."},
                    "lastIngestAt": {"type": ["string", "null"], "format": "date-time"},
                    "lastSyncAt": {
                        "type": ["string", "null"],
                        "format": "date-time",
                        "description": "Last successful `datahost sync` of the dataset; null when never synced.",
                    },
                    "syncAgeSecs": {"type": ["integer", "null"], "description": "Seconds since lastSyncAt."},
                },
            },
            "OpenApiDocument": {
                "type": "object",
                "description": "An OpenAPI 3.1 document (this one).",
                "required": ["openapi", "info", "paths"],
                "properties": {"openapi": {"type": "string"}, "info": {"type": "object"}, "paths": {"type": "object"}},
            },
            "Health": {
                "type": "object",
                "required": ["ok", "service", "datasets", "recordsEngine"],
                "properties": {
                    "ok": {"type": "boolean", "description": "False when the records engine is unreachable."},
                    "data": {
                        "type": "object",
                        "description": "Per dataset slug: whether it serves its demo seed or ingested records.",
                        "additionalProperties": {"$ref": "#/components/schemas/DatasetHealth"},
                    },
                    "service": {"type": "string"},
                    "version": {"type": "string"},
                    "datasets": {"type": "array", "items": {"type": "string"}, "description": "Loaded dataset slugs."},
                    "recordsEngine": {"type": "string", "description": "Configured records engine address, without credentials."},
                    "recordsEngineKind": {"type": "string", "enum": ["embedded", "postgres"]},
                    "rateLimiter": {"type": "string", "description": "in-process, or redis (ok/unreachable)."},
                    "pluginFailures": {"type": "array", "items": {"$ref": "#/components/schemas/PluginStatus"}},
                },
            },
        },
        "responses": responses,
    })
}

fn response_name(status: u16) -> &'static str {
    match status {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        414 => "UriTooLong",
        429 => "TooManyRequests",
        431 => "HeadersTooLarge",
        500 => "InternalError",
        _ => "Unavailable",
    }
}

fn resp_ref(status: u16) -> Value {
    json!({"$ref": format!("#/components/responses/{}", response_name(status))})
}

/// The answer of a server on demo seeds (the `data` map cut to two of its datasets).
fn health_example() -> Value {
    let demo = json!({"data": "demo", "rows": null, "files": 0, "lastIngestAt": null, "lastSyncAt": null,
        "syncAgeSecs": null});
    json!({
        "ok": true,
        "service": "datahost",
        "version": env!("CARGO_PKG_VERSION"),
        "datasets": ["companies", "congress-trades", "contracts", "deeds", "donors", "edgar-search", "entity-graph",
            "execs", "insiders", "institutional-holdings", "liens", "lobbying", "patents", "predictions", "prices",
            "property", "sam-entities", "senate-trades", "vin"],
        "data": {"congress-trades": demo, "insiders": demo},
        "recordsEngine": "embedded",
        "recordsEngineKind": "embedded",
        "rateLimiter": "in-process",
        "pluginFailures": [],
    })
}

fn meta_paths() -> Value {
    json!({
        "/health": {"get": {
            "operationId": "getHealth",
            "summary": "Service health",
            "description": "Unauthenticated. Always 200; `ok` is false when the records engine is unreachable.",
            "tags": ["meta"],
            "security": [],
            "responses": {"200": {"description": "OK", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Health"}, "example": health_example()}}}},
        }},
        "/ready": {"get": {
            "operationId": "getReady",
            "summary": "Readiness for load balancers and orchestrators",
            "description": "Unauthenticated, never cached. 200 while this replica can serve: the records engine \
                answers and no plugin is degraded (failed to load, initialise or reload). Otherwise 503 with the \
                error envelope naming each reason. Use it for readiness probes; `/health` (always 200) for liveness.",
            "tags": ["meta"],
            "security": [],
            "responses": {
                "200": {"description": "Ready", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Ready"}, "example": {"ready": true}}}},
                "503": resp_ref(503),
            },
        }},
        "/openapi.json": {"get": {
            "operationId": "getOpenApi",
            "summary": "This machine-readable description",
            "description": "Unauthenticated. The OpenAPI 3.1 document of every route this server answers, with each \
                plugin's schemas, examples and maturity label; client generators read it.",
            "tags": ["meta"],
            "security": [],
            "responses": {"200": {"description": "The OpenAPI 3.1 document", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/OpenApiDocument"},
                "example": {"openapi": "3.1.0", "info": {"title": "datahost", "version": API_VERSION}, "paths": {}}}}}},
        }},
    })
}

/// Builds the full document from the host part and the loaded plugins.
pub fn assemble(registry: &PluginRegistry, base_url: &str) -> Value {
    assemble_manifests(registry.plugins.iter().map(|p| &p.manifest), base_url)
}

/// Builds the full document from the host part and these (validated) manifests, in load order. The
/// `openapi` fuzz target (`fuzz/`) feeds it arbitrary manifests that pass validation.
pub fn assemble_manifests<'a>(manifests: impl IntoIterator<Item = &'a Manifest>, base_url: &str) -> Value {
    let mut paths = meta_paths().as_object().cloned().unwrap_or_default();
    let mut comps = components();
    let manifests: Vec<&Manifest> = manifests.into_iter().collect();
    let mut tags = vec![json!({"name": "meta", "description": "Health and API description (no key needed)."})];
    for m in manifests.iter().copied() {
        tags.push(json!({
            "name": m.slug,
            "description": format!("{} Maturity: {}.", m.description, m.maturity.as_str()),
            "x-maturity": m.maturity.as_str(),
        }));
        if let Some(Value::Object(schemas)) = m.openapi.pointer("/components/schemas") {
            comps["schemas"].as_object_mut().unwrap().extend(schemas.clone());
        }
        let Some(Value::Object(plugin_paths)) = m.openapi.get("paths") else { continue };
        for route in &m.routes {
            let Some(mut item) = plugin_paths.get(&route.path).cloned() else { continue };
            if let Some(op) = item.get_mut("get").and_then(Value::as_object_mut) {
                op.insert("operationId".into(), json!(operation_id(&route.path)));
                stamp_operation(op, &m.slug, m.maturity, route.min_tier);
            }
            if let Some(name) = item
                .pointer("/get/responses/200/content/application~1json/schema/$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                if let Some(props) =
                    comps["schemas"].get_mut(name).and_then(|s| s.get_mut("properties")).and_then(Value::as_object_mut)
                {
                    props.insert("dataStatus".into(), json!({"$ref": "#/components/schemas/DataStatus"}));
                }
            }
            paths.insert(route.path.clone(), item);
        }
    }
    let pro_paths: Vec<&str> = manifests
        .iter()
        .flat_map(|m| m.routes.iter())
        .filter(|r| r.min_tier == Tier::Pro && !r.is_internal())
        .map(|r| r.path.as_str())
        .collect();
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "datahost",
            "version": API_VERSION,
            "summary": "Public-records and market-intelligence data API.",
            // The guide that heads the /docs page: authentication, tiers, one section per error code.
            "description": crate::http::docs::guide_markdown(base_url, &pro_paths),
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "servers": [{"url": base_url}],
        "security": [{"ApiKeyHeader": []}, {"ApiKeyQuery": []}, {"BearerAuth": []}, {"MarketplaceProxy": []}],
        "tags": tags,
        "paths": paths,
        "components": comps,
    })
}

/// The operationId of a plugin route, derived from its path so it is stable and unique by construction:
/// `/v1/institutional-holdings` is `getInstitutionalHoldings` (client generators name functions after it).
pub fn operation_id(path: &str) -> String {
    let words = path.trim_start_matches("/v1/").split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty());
    let mut id = String::from("get");
    for word in words {
        let mut chars = word.chars();
        id.extend(chars.next().map(|c| c.to_ascii_uppercase()));
        id.push_str(chars.as_str());
    }
    id
}

fn stamp_operation(op: &mut Map<String, Value>, slug: &str, maturity: Maturity, min_tier: Tier) {
    op.insert("x-maturity".into(), json!(maturity.as_str()));
    op.insert("tags".into(), json!([slug]));
    if min_tier == Tier::Pro {
        op.insert("x-required-tier".into(), json!("pro"));
    }
    let responses = op.entry("responses").or_insert_with(|| json!({}));
    let Some(responses) = responses.as_object_mut() else { return };
    if let Some(ok) = responses.get_mut("200").and_then(Value::as_object_mut) {
        let headers = ok.entry("headers").or_insert_with(|| json!({}));
        if let (Some(h), Value::Object(extra)) = (headers.as_object_mut(), rate_headers()) {
            for (k, v) in extra {
                h.entry(k).or_insert(v);
            }
        }
    }
    // Any request may be refused before routing for its length (414, 431), e.g. an over-long `cursor`.
    let mut shared = vec![400, 401, 414, 429, 431, 500, 503];
    if min_tier == Tier::Pro {
        shared.push(403);
    }
    for status in shared {
        responses.entry(status.to_string()).or_insert_with(|| resp_ref(status));
    }
    // A plugin-declared status reuses the shared response (with its headers) when it only names the Error schema.
    for (status, value) in responses.iter_mut() {
        if let Ok(code) = status.parse::<u16>() {
            if code >= 400 && value.get("$ref").is_none() && ERROR_CODES.iter().any(|(s, _, _)| *s == code) {
                let description = value.get("description").cloned();
                let mut r = json!({"$ref": format!("#/components/responses/{}", response_name(code))});
                if let Some(d) = description {
                    r["description"] = d;
                }
                *value = r;
            }
        }
    }
}
