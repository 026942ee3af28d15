//! OpenAPI 3.1 building blocks for plugin fragments: JSON Schema shorthands and the operation builder that
//! turns a [`RouteSpec`] (the single declaration of a route's parameters) into its OpenAPI operation.
//!
//! The host adds to every operation what is common to all of them: maturity (`x-maturity`), tag, security,
//! and the shared 400/401/403/429/500 responses with their headers. A fragment therefore holds only the
//! route's own parameters, its 200 schema and example, and dataset-specific statuses such as 404.

use serde_json::{json, Map, Value};

use crate::manifest::{ParamKind, ParamSpec, RouteSpec};

/// JSON Schema shorthands. Objects list their required fields; `nullable` makes a schema admit null.
pub mod schema {
    use super::*;

    pub fn string() -> Value {
        json!({"type": "string"})
    }
    pub fn date() -> Value {
        json!({"type": "string", "format": "date"})
    }
    pub fn datetime() -> Value {
        json!({"type": "string", "format": "date-time"})
    }
    pub fn uri() -> Value {
        json!({"type": "string", "format": "uri"})
    }
    pub fn integer() -> Value {
        json!({"type": "integer"})
    }
    pub fn number() -> Value {
        json!({"type": "number"})
    }
    pub fn boolean() -> Value {
        json!({"type": "boolean"})
    }
    pub fn array(items: Value) -> Value {
        json!({"type": "array", "items": items})
    }
    pub fn string_enum(values: &[&str]) -> Value {
        json!({"type": "string", "enum": values})
    }
    /// `{"$ref": "#/components/schemas/<name>"}`.
    pub fn reference(name: &str) -> Value {
        json!({ "$ref": format!("#/components/schemas/{name}") })
    }
    /// Admits null besides the given schema.
    pub fn nullable(schema: Value) -> Value {
        match schema {
            Value::Object(mut m) if m.get("type").is_some_and(Value::is_string) => {
                let t = m.remove("type").unwrap();
                m.insert("type".into(), json!([t, "null"]));
                // An enum restricts values on its own: without null in it, `null` would still be refused.
                if let Some(Value::Array(values)) = m.get_mut("enum") {
                    values.push(Value::Null);
                }
                Value::Object(m)
            }
            other => json!({"anyOf": [other, {"type": "null"}]}),
        }
    }
    /// Adds a description.
    pub fn describe(schema: Value, text: &str) -> Value {
        with(schema, "description", json!(text))
    }
    /// Sets any keyword on a schema object.
    pub fn with(schema: Value, key: &str, value: Value) -> Value {
        match schema {
            Value::Object(mut m) => {
                m.insert(key.into(), value);
                Value::Object(m)
            }
            other => other,
        }
    }
    /// An object whose listed fields are all required. Additional fields are allowed (additive evolution).
    pub fn object(fields: &[(&str, Value)]) -> Value {
        object_with_optional(fields, &[])
    }
    /// An object with required and optional fields.
    pub fn object_with_optional(required: &[(&str, Value)], optional: &[(&str, Value)]) -> Value {
        let mut props = Map::new();
        for (k, v) in required.iter().chain(optional) {
            props.insert((*k).into(), v.clone());
        }
        json!({
            "type": "object",
            "required": required.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            "properties": props,
        })
    }
}

/// The OpenAPI parameter object for one query parameter.
pub fn parameter(p: &ParamSpec) -> Value {
    let mut s = match p.kind {
        // Only a required string must be non-empty: an empty optional parameter counts as absent.
        ParamKind::String if p.required => json!({"type": "string", "minLength": 1}),
        ParamKind::String => json!({"type": "string"}),
        ParamKind::Integer => json!({"type": "integer", "minimum": 1}),
        ParamKind::Boolean => json!({"type": "boolean"}),
        ParamKind::Date => json!({"type": "string", "format": "date"}),
    };
    let obj = s.as_object_mut().expect("object");
    if let Some(d) = &p.default {
        obj.insert("default".into(), d.clone());
    }
    if let Some(m) = p.maximum {
        obj.insert("maximum".into(), json!(m));
    }
    if let Some(Value::Object(extra)) = &p.schema {
        for (k, v) in extra {
            obj.insert(k.clone(), v.clone());
        }
    }
    let mut param = json!({
        "name": p.name,
        "in": "query",
        "required": p.required,
        "description": p.description,
        "schema": s,
    });
    if let Some(e) = &p.example {
        param["example"] = e.clone();
    }
    param
}

/// Describes one GET operation of a route.
pub struct Operation<'a> {
    pub route: &'a RouteSpec,
    pub operation_id: &'a str,
    pub summary: &'a str,
    pub description: &'a str,
    /// Schema of the 200 body (usually a [`schema::reference`]).
    pub response: Value,
    pub example: Option<Value>,
    /// Dataset-specific statuses besides the host's shared ones, e.g. `(404, "No filer matches")`.
    pub extra_statuses: &'a [(u16, &'a str)],
}

impl Operation<'_> {
    /// The path item `{"get": {...}}` for this operation.
    pub fn path_item(&self) -> Value {
        let mut ok = json!({
            "description": "OK",
            "content": {"application/json": {"schema": self.response}},
        });
        // A paged list (one that takes `cursor`) documents the headers that point at its next page, and its
        // example shows `next` (null: the example is a last page) unless the plugin wrote one.
        let paged = self.route.params.iter().any(|p| p.name == crate::paging::PARAM);
        if let Some(e) = &self.example {
            let e = if paged { crate::paging::example_with_next(e.clone()) } else { e.clone() };
            ok["content"]["application/json"]["example"] = e;
        }
        if paged {
            ok["headers"] = crate::paging::response_headers();
        }
        let mut responses = Map::new();
        responses.insert("200".into(), ok);
        for (status, text) in self.extra_statuses {
            responses.insert(
                status.to_string(),
                json!({
                    "description": text,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                }),
            );
        }
        json!({"get": {
            "operationId": self.operation_id,
            "summary": self.summary,
            "description": self.description,
            "parameters": self.route.params.iter().map(parameter).collect::<Vec<_>>(),
            "responses": responses,
        }})
    }
}

/// Assembles a fragment from path items and component schemas.
pub fn fragment(paths: Vec<(&str, Value)>, schemas: Vec<(&str, Value)>) -> Value {
    let paths: Map<String, Value> = paths.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let schemas: Map<String, Value> = schemas.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    json!({"paths": paths, "components": {"schemas": schemas}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_widens_type() {
        assert_eq!(schema::nullable(schema::string()), json!({"type": ["string", "null"]}));
        assert_eq!(
            schema::nullable(schema::reference("X")),
            json!({"anyOf": [{"$ref": "#/components/schemas/X"}, {"type": "null"}]})
        );
        assert_eq!(
            schema::nullable(schema::string_enum(&["Put", "Call"])),
            json!({"type": ["string", "null"], "enum": ["Put", "Call", null]})
        );
    }

    #[test]
    fn limit_parameter_documents_default_and_maximum() {
        let p = parameter(&ParamSpec::limit(25, 100, "hits"));
        assert_eq!(p["schema"], json!({"type": "integer", "minimum": 1, "default": 25, "maximum": 100}));
        assert_eq!(p["required"], json!(false));
    }
}
