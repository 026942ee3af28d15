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

    /// `{"type": "string"}`: any text; chain [`describe`] to say what it holds.
    pub fn string() -> Value {
        json!({"type": "string"})
    }
    /// `{"type": "string", "format": "date"}`: a `YYYY-MM-DD` calendar date.
    pub fn date() -> Value {
        json!({"type": "string", "format": "date"})
    }
    /// `{"type": "string", "format": "date-time"}`: an RFC 3339 timestamp.
    pub fn datetime() -> Value {
        json!({"type": "string", "format": "date-time"})
    }
    /// `{"type": "string", "format": "uri"}`: an absolute URL.
    pub fn uri() -> Value {
        json!({"type": "string", "format": "uri"})
    }
    /// `{"type": "integer"}`: a whole number of any sign (add `minimum` with [`with`] when it has one).
    pub fn integer() -> Value {
        json!({"type": "integer"})
    }
    /// `{"type": "number"}`: any JSON number, integer or fractional.
    pub fn number() -> Value {
        json!({"type": "number"})
    }
    /// `{"type": "boolean"}`: JSON `true` or `false`.
    pub fn boolean() -> Value {
        json!({"type": "boolean"})
    }
    /// `{"type": "array", "items": items}`. For objects or enums as `items`, pass a [`reference()`] to a named
    /// component (see [`crate::openapi::generator_traps`]).
    pub fn array(items: Value) -> Value {
        json!({"type": "array", "items": items})
    }
    /// `{"type": "string", "enum": values}`; the values must differ in more than letter case (see
    /// [`crate::openapi::generator_traps`]).
    pub fn string_enum(values: &[&str]) -> Value {
        json!({"type": "string", "enum": values})
    }
    /// A string enum of the names serde writes for `values` (unit variants of one enum), for an enum documented
    /// inline rather than as a component; a value serde does not write as a string is left out.
    pub fn serde_enum<T: serde::Serialize>(values: &[T]) -> Value {
        let names: Vec<String> =
            values.iter().filter_map(|v| serde_json::to_value(v).ok()?.as_str().map(str::to_string)).collect();
        string_enum(&names.iter().map(String::as_str).collect::<Vec<_>>())
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

/// Describes one GET operation of a route. Its `operationId` is not the plugin's to choose: the host derives
/// it from the route path when it assembles `/openapi.json` (`/v1/sam-entities` is `getSamEntities`), so ids
/// are unique across plugins and never change while the path does not.
pub struct Operation<'a> {
    /// The route the operation serves: its query parameters become the operation's `parameters`, and a `cursor`
    /// parameter adds the paging headers and a `next` to the example.
    pub route: &'a RouteSpec,
    /// OpenAPI `summary`: one short line (required by [`generator_traps`]).
    pub summary: &'a str,
    /// OpenAPI `description` (CommonMark); must not be empty.
    pub description: &'a str,
    /// Schema of the 200 body (usually a [`schema::reference`]).
    pub response: Value,
    /// Example 200 body (required by [`generator_traps`]); on a paged route a missing `next` is added as `null`.
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
            "summary": self.summary,
            "description": self.description,
            "parameters": self.route.params.iter().map(parameter).collect::<Vec<_>>(),
            "responses": responses,
        }})
    }
}

/// Assembles a fragment from path items and component schemas.
pub fn fragment(paths: Vec<(&str, Value)>, schemas: Vec<(&str, Value)>) -> Value {
    fragment_with(paths, schemas.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// [`fragment`] with the component schemas as a map, such as [`components_of`] gives for derived types.
pub fn fragment_with(paths: Vec<(&str, Value)>, schemas: Map<String, Value>) -> Value {
    let paths: Map<String, Value> = paths.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    json!({"paths": paths, "components": {"schemas": schemas}})
}

/// Every named component `T`'s schema uses, itself included, by name: what a fragment lists in
/// `components.schemas` for a derived type.
pub fn components_of<T: ApiSchema + ?Sized>() -> Map<String, Value> {
    let mut out = Map::new();
    T::components(&mut out);
    out
}

/// A type that documents itself as a JSON Schema, for response bodies declared from their Rust types.
///
/// `#[derive(ApiSchema)]` on a struct with named fields (or an enum of unit variants) describes the JSON serde
/// writes for it: a named component (the type's name, or `#[schema(name = "..")]`: component names are global,
/// so prefix them with your dataset's name) whose description is the type's doc comment and whose properties
/// are its fields, named as serde names them (`rename`, `rename_all`), each described by its doc comment. A
/// field with `skip_serializing_if` is optional, every other one required; `Option<T>` admits null (but with
/// `skip_serializing_if = "Option::is_none"` it is an optional `T`: left out, never null), `Vec<T>`, slices and
/// arrays are arrays, a field of another derived type is a `$ref` to its component.
///
/// Field attributes:
/// - `format = "date"`, `pattern = "<regex>"`, `max_items = N` (an array's bound, a literal or a constant) and
///   `example = <literal>` add that keyword;
/// - `with = path::to::fn`: a `fn() -> Value` gives the field's schema by hand (the components it references are
///   then not collected);
/// - `optional`: documented as not required although always written (an addition beyond a published contract);
///   `required`: documented as required although serde may leave it out (present on every public answer);
/// - `inline`: a field of a derived struct type documented in place instead of as a `$ref`;
/// - `description = <&str expression>`: a shared constant describes the field instead of a doc comment.
///
/// `Option<Option<T>>` with `skip_serializing_if = "Option::is_none"` is an optional field that admits null: left
/// out for `None`, null for `Some(None)` (a field only some rows carry, null when unknown on those).
///
/// On the struct, `#[schema(all_of = path::to::fn)]`: a `fn() -> Value` giving an array that becomes the object
/// schema's `allOf`, for conditions across fields that no single field states, such as `if` a field has a value
/// `then` others are required (a struct that flattens this one takes its clauses too).
///
/// ```
/// use datahost_plugin_api::ApiSchema;
///
/// /// One open recall.
/// #[derive(serde::Serialize, ApiSchema)]
/// #[serde(rename_all = "camelCase")]
/// #[schema(name = "DocRecall")]
/// struct Recall {
///     /// NHTSA campaign number.
///     campaign_number: String,
///     /// When the manufacturer reported it.
///     #[schema(format = "date")]
///     report_date: Option<String>,
/// }
///
/// let mut components = serde_json::Map::new();
/// Recall::components(&mut components);
/// assert_eq!(Recall::schema()["$ref"], "#/components/schemas/DocRecall");
/// assert_eq!(components["DocRecall"]["required"], serde_json::json!(["campaignNumber", "reportDate"]));
/// ```
///
/// A `#[serde(flatten)]` field of a derived struct type (or `&`, `Box` or `Option` of one) is inlined: its
/// properties join the outer object's, required unless the field is an `Option` skipped when `None`.
///
/// What serde writes in a shape the derive cannot describe (a tagged enum, an enum with data) is
/// refused at compile time; write that schema by hand ([`schema`]) and use it with `#[schema(with = ..)]`:
///
/// ```compile_fail
/// /// A tagged enum.
/// #[derive(serde::Serialize, datahost_plugin_api::ApiSchema)]
/// #[serde(tag = "kind")]
/// enum Event {
///     Opened,
/// }
/// ```
pub trait ApiSchema {
    /// The schema where the type appears: a `$ref` for a derived type, the schema itself for a primitive.
    fn schema() -> Value;
    /// Adds the named components this type's schema uses (itself and what its fields use) to `out`.
    fn components(_out: &mut Map<String, Value>) {}
    /// A derived struct's own object schema, for a struct that `#[serde(flatten)]`s it into its own properties;
    /// `None` for a type serde cannot flatten into an object's named fields.
    fn flattened() -> Option<Value> {
        None
    }
    /// The components the fields of [`Self::flattened`] use (not the type's own: a flattened type is inlined).
    fn flattened_components(_out: &mut Map<String, Value>) {}
    /// The type's schema in place, for a field documented `#[schema(inline)]`: a derived struct's object schema
    /// (nullable in an `Option`); `None` for a type that has no object schema.
    fn inline() -> Option<Value> {
        Self::flattened()
    }
}

/// The in-place schema of an `#[schema(inline)]` field (called by `#[derive(ApiSchema)]`, not by hand).
#[doc(hidden)]
pub fn __inline(schema: Option<Value>, field: &str) -> Value {
    schema.unwrap_or_else(|| panic!("`{field}` is #[schema(inline)]: its type must derive ApiSchema on a struct"))
}

/// Merges a flattened struct's properties into `object` (called by `#[derive(ApiSchema)]`, not by hand): its
/// required fields stay required unless the whole group may be left out (`optional`, an `Option` skipped when
/// `None`); its `allOf` clauses join the object's.
#[doc(hidden)]
pub fn __flatten(mut object: Value, flattened: Option<Value>, optional: bool, field: &str) -> Value {
    let Some(inner) = flattened else {
        panic!("`{field}` is #[serde(flatten)]: its type must derive ApiSchema on a struct")
    };
    if let (Some(props), Some(inner_props)) = (
        object.get_mut("properties").and_then(Value::as_object_mut),
        inner.get("properties").and_then(Value::as_object),
    ) {
        props.extend(inner_props.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    if !optional {
        if let (Some(required), Some(inner_required)) =
            (object.get_mut("required").and_then(Value::as_array_mut), inner.get("required").and_then(Value::as_array))
        {
            required.extend(inner_required.iter().cloned());
        }
    }
    if let (Some(object), Some(clauses)) = (object.as_object_mut(), inner.get("allOf").and_then(Value::as_array)) {
        let all_of = object.entry("allOf").or_insert_with(|| Value::Array(Vec::new()));
        if let Some(all_of) = all_of.as_array_mut() {
            all_of.extend(clauses.iter().cloned());
        }
    }
    object
}

macro_rules! primitive_schema {
    ($schema:expr => $($t:ty),+) => {
        $(impl ApiSchema for $t {
            fn schema() -> Value {
                $schema
            }
        })+
    };
}
primitive_schema!(schema::string() => str, String);
primitive_schema!(schema::boolean() => bool);
primitive_schema!(schema::integer() => i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);
primitive_schema!(schema::number() => f32, f64);
primitive_schema!(schema::date() => chrono::NaiveDate);
primitive_schema!(json!({}) => Value);

/// A reference or a box is documented as what it points to.
macro_rules! transparent_schema {
    ($($wrapper:ty),+) => {
        $(impl<T: ApiSchema + ?Sized> ApiSchema for $wrapper {
            fn schema() -> Value {
                T::schema()
            }
            fn components(out: &mut Map<String, Value>) {
                T::components(out)
            }
            fn flattened() -> Option<Value> {
                T::flattened()
            }
            fn flattened_components(out: &mut Map<String, Value>) {
                T::flattened_components(out)
            }
            fn inline() -> Option<Value> {
                T::inline()
            }
        })+
    };
}
transparent_schema!(&T, Box<T>);

impl<T: ApiSchema> ApiSchema for Option<T> {
    fn schema() -> Value {
        schema::nullable(T::schema())
    }
    fn components(out: &mut Map<String, Value>) {
        T::components(out)
    }
    fn inline() -> Option<Value> {
        T::inline().map(schema::nullable)
    }
    fn flattened() -> Option<Value> {
        T::flattened()
    }
    fn flattened_components(out: &mut Map<String, Value>) {
        T::flattened_components(out)
    }
}

impl<T: ApiSchema> ApiSchema for Vec<T> {
    fn schema() -> Value {
        schema::array(T::schema())
    }
    fn components(out: &mut Map<String, Value>) {
        T::components(out)
    }
}

impl<T: ApiSchema> ApiSchema for [T] {
    fn schema() -> Value {
        schema::array(T::schema())
    }
    fn components(out: &mut Map<String, Value>) {
        T::components(out)
    }
}

impl<T: ApiSchema, const N: usize> ApiSchema for [T; N] {
    fn schema() -> Value {
        schema::array(T::schema())
    }
    fn components(out: &mut Map<String, Value>) {
        T::components(out)
    }
}

/// One GET route declared from types: its query parameters from a [`crate::params::Params`] struct and its 200
/// body from an [`ApiSchema`] type. It yields both the route the host registers and the operation it documents,
/// so the two cannot disagree. Give it to [`crate::Manifest::serving`].
pub struct Endpoint {
    route: RouteSpec,
    summary: String,
    description: String,
    example: Option<Value>,
    extra_statuses: Vec<(u16, String)>,
    response: Value,
    components: Map<String, Value>,
}

impl Endpoint {
    /// `GET path` taking the parameters of `P` and answering a `R` body, open to every tier.
    pub fn get<P: crate::params::Params, R: ApiSchema>(path: &str, summary: &str, description: &str) -> Self {
        let mut components = Map::new();
        R::components(&mut components);
        Self {
            route: RouteSpec { path: path.into(), min_tier: crate::Tier::Free, params: P::specs() },
            summary: summary.into(),
            description: description.into(),
            example: None,
            extra_statuses: Vec::new(),
            response: R::schema(),
            components,
        }
    }
    /// The lowest tier that may call it.
    pub fn min_tier(mut self, tier: crate::Tier) -> Self {
        self.route.min_tier = tier;
        self
    }
    /// An example 200 body (required by [`generator_traps`]): real values, from a real record.
    pub fn example(mut self, example: Value) -> Self {
        self.example = Some(example);
        self
    }
    /// A dataset-specific status besides the host's shared ones, such as `(404, "No vehicle matches")`.
    pub fn status(mut self, status: u16, text: &str) -> Self {
        self.extra_statuses.push((status, text.into()));
        self
    }
    /// The route it serves.
    pub fn route(&self) -> &RouteSpec {
        &self.route
    }
    /// The OpenAPI path item `{"get": {...}}`.
    pub fn path_item(&self) -> Value {
        let statuses: Vec<(u16, &str)> = self.extra_statuses.iter().map(|(s, t)| (*s, t.as_str())).collect();
        Operation {
            route: &self.route,
            summary: &self.summary,
            description: &self.description,
            response: self.response.clone(),
            example: self.example.clone(),
            extra_statuses: &statuses,
        }
        .path_item()
    }
}

/// The fragment documenting `endpoints`: each one's path item, and every component their bodies use.
pub fn endpoints_fragment(endpoints: &[Endpoint]) -> Value {
    let mut components = Map::new();
    for endpoint in endpoints {
        components.extend(endpoint.components.clone());
    }
    let paths: Map<String, Value> = endpoints.iter().map(|e| (e.route.path.clone(), e.path_item())).collect();
    json!({"paths": paths, "components": {"schemas": components}})
}

/// The constructs that make client generators (openapi-python-client, openapi-typescript, openapi-generator)
/// fail or invent names, found in an OpenAPI document or a plugin fragment; empty when there are none. The host's
/// test suite runs it on the assembled `/openapi.json`; a plugin author can run it on `manifest().openapi`.
///
/// - an operation without `operationId` (fragments get theirs from the host, so only a whole document is
///   checked for it), `summary`, `description`, or a JSON example of its 200 response; two operations with
///   one `operationId`;
/// - an enum listing a value twice, also when only letter case differs (`active`, `Active`: generators turn
///   both into the constant `ACTIVE`), or listing `null`: write a nullable enum as
///   `schema::nullable(schema::reference("Named"))` over a named enum component, which every generator
///   names after the component instead of inventing `...Type2Type1`;
/// - an inline object or enum inside `anyOf`/`oneOf` without a `title` (named `Type0`, `Type1`...), or as
///   the `items` of an array (named `...Item`): make it a named component;
/// - a component schema name that is not PascalCase ASCII, or a `$ref` to a schema that does not exist.
pub fn generator_traps(doc: &Value) -> Vec<String> {
    let mut traps = Vec::new();
    let whole_document = doc.get("openapi").is_some();
    if whole_document && doc.pointer("/info/license/name").is_none() {
        traps.push("info.license is missing".to_string());
    }
    let schemas = doc.pointer("/components/schemas").and_then(Value::as_object);
    for name in schemas.into_iter().flat_map(|s| s.keys()) {
        let pascal =
            name.starts_with(|c: char| c.is_ascii_uppercase()) && name.chars().all(|c| c.is_ascii_alphanumeric());
        if !pascal {
            traps.push(format!("component schema name `{name}` is not PascalCase ASCII"));
        }
    }
    let mut operation_ids = std::collections::HashMap::new();
    for (path, item) in doc.get("paths").and_then(Value::as_object).into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let at = format!("{} {path}", method.to_uppercase());
            match op.get("operationId").and_then(Value::as_str) {
                Some(id) => {
                    if let Some(other) = operation_ids.insert(id.to_string(), at.clone()) {
                        traps.push(format!("{at}: operationId `{id}` is also the id of {other}"));
                    }
                }
                None if whole_document => traps.push(format!("{at}: no operationId")),
                None => {}
            }
            for key in ["summary", "description"] {
                if op.get(key).and_then(Value::as_str).is_none_or(|t| t.trim().is_empty()) {
                    traps.push(format!("{at}: no {key}"));
                }
            }
            let ok = op.pointer("/responses/200/content/application~1json");
            if ok.is_some_and(|c| c.get("example").is_none() && c.get("examples").is_none()) {
                traps.push(format!("{at}: the 200 response has no example"));
            }
        }
    }
    walk_schemas(doc, "#", &mut |at, schema| {
        if let Some(Value::String(target)) = schema.get("$ref") {
            let found = target
                .strip_prefix("#/components/schemas/")
                .is_none_or(|name| schemas.is_some_and(|s| s.contains_key(name)));
            if !found && whole_document {
                traps.push(format!("{at}: $ref `{target}` names no component schema"));
            }
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            let mut seen = std::collections::HashMap::new();
            for v in values {
                if v.is_null() {
                    traps.push(format!(
                        "{at}: enum lists null (use nullable(reference(..)) over a named enum component)"
                    ));
                    continue;
                }
                let folded = v.as_str().map(str::to_lowercase).unwrap_or_else(|| v.to_string());
                if let Some(first) = seen.insert(folded, v) {
                    traps.push(format!("{at}: enum lists {first} and {v}, one constant in a generated client"));
                }
            }
        }
        if let Some(items) = schema.get("items") {
            if items.get("properties").is_some() || items.get("enum").is_some() {
                traps.push(format!("{at}/items: inline object or enum as array items (named `...Item`)"));
            }
        }
        for key in ["anyOf", "oneOf"] {
            for (i, member) in schema.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
                let structured = member.get("properties").is_some() || member.get("enum").is_some();
                if structured && member.get("title").is_none() {
                    traps.push(format!("{at}/{key}/{i}: inline object or enum without a title"));
                }
            }
        }
    });
    traps
}

/// Calls `visit` on every JSON object below `value` that sits where a schema may (anything under a
/// `schema`, `components/schemas`, `properties`, `items`, `anyOf`... key; walking every object is simpler and
/// only adds checks of objects that cannot hold these keywords anyway), with its JSON pointer.
fn walk_schemas(value: &Value, at: &str, visit: &mut dyn FnMut(&str, &Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            // Examples are data, not schemas: a null or a repeated value in them is no trap.
            if !at.ends_with("/example") && !at.ends_with("/examples") {
                visit(at, map);
            }
            for (key, child) in map {
                if key != "example" && key != "examples" {
                    walk_schemas(child, &format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")), visit);
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                walk_schemas(child, &format!("{at}/{i}"), visit);
            }
        }
        _ => {}
    }
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

    #[test]
    fn generator_traps_finds_each_trap() {
        let doc = json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/v1/a": {"get": {"operationId": "getA", "summary": "A", "description": "",
                    "responses": {"200": {"content": {"application/json": {"schema": schema::reference("Missing")}}}}}},
                "/v1/b": {"get": {"operationId": "getA", "summary": "B", "description": "B",
                    "responses": {"200": {"content": {"application/json": {"schema": {"type": "object"},
                        "example": {"status": null}}}}}}},
            },
            "components": {"schemas": {
                "status_enum": {"type": "string", "enum": ["active", "Active"]},
                "Holding": schema::object(&[
                    ("putCall", schema::nullable(schema::string_enum(&["Put", "Call"]))),
                    ("voting", json!({"anyOf": [schema::object(&[("sole", schema::integer())]), {"type": "null"}]})),
                    ("kinds", schema::array(schema::string_enum(&["equity", "crypto"]))),
                ]),
            }},
        });
        let traps = generator_traps(&doc);
        let expected = [
            "info.license is missing",
            "component schema name `status_enum` is not PascalCase ASCII",
            "GET /v1/a: no description",
            "GET /v1/a: the 200 response has no example",
            "GET /v1/b: operationId `getA` is also the id of GET /v1/a",
            "$ref `#/components/schemas/Missing` names no component schema",
            "putCall: enum lists null",
            "voting/anyOf/0: inline object or enum without a title",
            "kinds/items: inline object or enum as array items",
            "status_enum: enum lists \"active\" and \"Active\"",
        ];
        for e in expected {
            assert!(traps.iter().any(|t| t.contains(e)), "{e} not found in {traps:#?}");
        }
        assert_eq!(traps.len(), expected.len(), "{traps:#?}");
    }

    #[test]
    fn named_nullable_enum_is_no_trap() {
        let fragment = fragment(
            vec![],
            vec![
                ("PutCall", schema::string_enum(&["Put", "Call"])),
                ("Holding", schema::object(&[("putCall", schema::nullable(schema::reference("PutCall")))])),
            ],
        );
        assert_eq!(generator_traps(&fragment), Vec::<String>::new());
    }

    /// How an open recall ends.
    #[derive(serde::Serialize, crate::ApiSchema)]
    #[serde(rename_all = "snake_case")]
    #[schema(name = "TestRemedy")]
    #[allow(dead_code)]
    enum Remedy {
        /// Repaired.
        FreeRepair,
        #[serde(rename = "buyback")]
        Refund,
        #[serde(skip)]
        Unknown,
    }

    /// One recall, for the derive's test.
    #[derive(serde::Serialize, crate::ApiSchema)]
    #[serde(rename_all = "camelCase")]
    #[schema(name = "TestRecall")]
    #[allow(dead_code)]
    struct Recall<'a> {
        /// Campaign number.
        #[schema(example = "02V288000")]
        campaign_number: &'a str,
        /// Report date.
        #[schema(format = "date")]
        report_date: Option<String>,
        units: u64,
        share: f64,
        remedies: Vec<Remedy>,
        #[serde(rename = "next")]
        follow_up: Option<Box<Recall<'a>>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<&'a str>,
        #[serde(skip)]
        cached: bool,
        #[schema(with = schema::uri)]
        link: String,
        #[schema(pattern = "^[A-Z]+$")]
        maker: String,
        #[schema(max_items = MAX_PARTS)]
        parts: [&'a str; 2],
        #[schema(optional, description = AS_OF)]
        as_of: &'a str,
    }

    const AS_OF: &str = "The day the data describes.";

    const MAX_PARTS: usize = 2;

    #[test]
    fn derived_schemas_are_the_hand_written_ones() {
        let mut components = Map::new();
        Recall::components(&mut components);
        let recall = schema::describe(
            schema::object_with_optional(
                &[
                    (
                        "campaignNumber",
                        schema::describe(
                            schema::with(schema::string(), "examples", json!(["02V288000"])),
                            "Campaign number.",
                        ),
                    ),
                    (
                        "reportDate",
                        schema::describe(
                            schema::with(schema::nullable(schema::string()), "format", json!("date")),
                            "Report date.",
                        ),
                    ),
                    ("units", schema::integer()),
                    ("share", schema::number()),
                    ("remedies", schema::array(schema::reference("TestRemedy"))),
                    ("next", schema::nullable(schema::reference("TestRecall"))),
                    ("link", schema::uri()),
                    ("maker", schema::with(schema::string(), "pattern", json!("^[A-Z]+$"))),
                    ("parts", schema::with(schema::array(schema::string()), "maxItems", json!(2))),
                ],
                // Left out when `None`, so never null.
                &[("note", schema::string()), ("asOf", schema::describe(schema::string(), AS_OF))],
            ),
            "One recall, for the derive's test.",
        );
        let remedy = schema::describe(schema::string_enum(&["free_repair", "buyback"]), "How an open recall ends.");
        assert_eq!(Value::Object(components), json!({"TestRecall": recall, "TestRemedy": remedy}));
        assert_eq!(Recall::schema(), schema::reference("TestRecall"));
        assert_eq!(<Vec<Option<u8>>>::schema(), json!({"type": "array", "items": {"type": ["integer", "null"]}}));
    }

    /// Shared fields, flattened into others.
    #[derive(serde::Serialize, crate::ApiSchema)]
    #[serde(rename_all = "camelCase")]
    #[schema(name = "TestCommon")]
    struct Common {
        /// When.
        generated_at: &'static str,
        remedy: Remedy,
    }

    /// Fields present only for some rows.
    #[derive(serde::Serialize, crate::ApiSchema)]
    #[serde(rename_all = "camelCase")]
    #[schema(name = "TestExtra")]
    struct Extra {
        source_url: &'static str,
        recall: Option<Box<Recall<'static>>>,
    }

    /// A row with flattened groups.
    #[derive(serde::Serialize, crate::ApiSchema)]
    #[schema(name = "TestRow")]
    struct Row {
        id: u32,
        #[serde(flatten)]
        common: Common,
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        extra: Option<Extra>,
    }

    #[test]
    fn a_flattened_struct_is_inlined_as_serde_writes_it() {
        let components = components_of::<Row>();
        let expected = schema::describe(
            schema::object_with_optional(
                &[
                    ("id", schema::integer()),
                    ("generatedAt", schema::describe(schema::string(), "When.")),
                    ("remedy", schema::reference("TestRemedy")),
                ],
                // The whole group is left out when `None`: none of its fields is required.
                &[("sourceUrl", schema::string()), ("recall", schema::nullable(schema::reference("TestRecall")))],
            ),
            "A row with flattened groups.",
        );
        assert_eq!(components["TestRow"], expected);
        // Inlined, so not components of their own; what their fields reference is.
        let names: Vec<&str> = components.keys().map(String::as_str).collect();
        assert_eq!(names, ["TestRecall", "TestRemedy", "TestRow"]);
        // serde writes exactly the documented properties.
        let common = || Common { generated_at: "2026-11-27", remedy: Remedy::FreeRepair };
        let extra = Extra { source_url: "https://x", recall: None };
        let documented: std::collections::BTreeSet<&String> =
            expected["properties"].as_object().unwrap().keys().collect();
        let written = serde_json::to_value(Row { id: 1, common: common(), extra: Some(extra) }).unwrap();
        assert_eq!(written.as_object().unwrap().keys().collect::<std::collections::BTreeSet<_>>(), documented);
        let bare = serde_json::to_value(Row { id: 1, common: common(), extra: None }).unwrap();
        let required: Vec<&str> = expected["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(bare.as_object().unwrap().keys().map(String::as_str).collect::<Vec<_>>().len(), required.len());
        assert!(required.iter().all(|r| bare.get(r).is_some()), "{bare}");
    }

    /// Votes, documented in place.
    #[derive(serde::Serialize, crate::ApiSchema)]
    #[schema(name = "TestVotes")]
    struct Votes {
        sole: u64,
        /// Shared.
        shared: u64,
    }

    /// A holding with in-place parts.
    #[derive(serde::Serialize, crate::ApiSchema)]
    #[serde(rename_all = "camelCase")]
    #[schema(name = "TestHolding")]
    struct Holding<'a> {
        /// Voting authority.
        #[schema(inline)]
        votes: Votes,
        /// Maybe votes.
        #[schema(inline)]
        maybe_votes: Option<&'a Votes>,
        /// Present on every public answer.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schema(required)]
        meta: Option<&'a str>,
        /// Left out when absent.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schema(inline)]
        extra_votes: Option<Votes>,
    }

    #[test]
    fn inline_and_required_fields() {
        let components = components_of::<Holding>();
        // In place: no component of their own.
        assert_eq!(components.keys().collect::<Vec<_>>(), ["TestHolding"]);
        let votes =
            schema::object(&[("sole", schema::integer()), ("shared", schema::describe(schema::integer(), "Shared."))]);
        let expected = schema::describe(
            schema::object_with_optional(
                &[
                    ("votes", schema::describe(votes.clone(), "Voting authority.")),
                    ("maybeVotes", schema::describe(schema::nullable(votes.clone()), "Maybe votes.")),
                    ("meta", schema::describe(schema::string(), "Present on every public answer.")),
                ],
                &[("extraVotes", schema::describe(votes, "Left out when absent."))],
            ),
            "A holding with in-place parts.",
        );
        assert_eq!(components["TestHolding"], expected);
    }

    /// `then` clauses of the kinds of [`Sighting`].
    fn sighting_requirements() -> Value {
        json!([{
            "if": {"properties": {"kind": {"const": "bird"}}, "required": ["kind"]},
            "then": {"required": ["wingspan"]},
        }])
    }

    /// A sighting whose fields depend on its kind.
    #[derive(serde::Serialize, crate::ApiSchema)]
    #[serde(rename_all = "camelCase")]
    #[schema(name = "TestSighting", all_of = sighting_requirements)]
    struct Sighting {
        kind: &'static str,
        /// Birds only: null when not measured.
        #[serde(skip_serializing_if = "Option::is_none")]
        wingspan: Option<Option<f64>>,
    }

    /// A sighting with its place, flattened.
    #[derive(serde::Serialize, crate::ApiSchema)]
    #[schema(name = "TestPlacedSighting")]
    struct PlacedSighting {
        place: &'static str,
        #[serde(flatten)]
        sighting: Sighting,
    }

    #[test]
    fn all_of_and_optional_nullable_fields() {
        let components = components_of::<Sighting>();
        let object = schema::object_with_optional(
            &[("kind", schema::string())],
            &[(
                "wingspan",
                schema::describe(schema::nullable(schema::number()), "Birds only: null when not measured."),
            )],
        );
        let expected = schema::with(object, "allOf", sighting_requirements());
        assert_eq!(
            components["TestSighting"],
            schema::describe(expected, "A sighting whose fields depend on its kind.")
        );
        // Left out for `None`, null for `Some(None)`, as documented.
        let written = |wingspan| serde_json::to_value(Sighting { kind: "bird", wingspan }).unwrap();
        assert_eq!(written(None), json!({"kind": "bird"}));
        assert_eq!(written(Some(None)), json!({"kind": "bird", "wingspan": null}));
        assert_eq!(written(Some(Some(1.5))), json!({"kind": "bird", "wingspan": 1.5}));
        // A struct flattening it takes its clauses with its fields.
        let placed = &components_of::<PlacedSighting>()["TestPlacedSighting"];
        assert_eq!(placed["allOf"], sighting_requirements());
        assert_eq!(placed["required"], json!(["place", "kind"]));
    }

    /// For each of serde's `rename_all` rules, a struct and an enum deriving both `Serialize` and `ApiSchema`.
    macro_rules! serde_oracle {
        ($($rule:literal => $fields:ident, $variants:ident;)*) => {
            $(
                /// Names for the oracle.
                #[derive(serde::Serialize, crate::ApiSchema, Default)]
                #[serde(rename_all = $rule)]
                struct $fields {
                    report_date: u8,
                    r#type: u8,
                    html_url2: u8,
                    a: u8,
                }
                /// Names for the oracle.
                #[derive(serde::Serialize, crate::ApiSchema)]
                #[serde(rename_all = $rule)]
                #[allow(clippy::upper_case_acronyms)]
                enum $variants {
                    OpenRecall,
                    A,
                    HTTPServer,
                }
            )*
            const ORACLE: &[(&str, fn() -> (Vec<String>, Vec<String>))] = &[$(($rule, || {
                let mut components = Map::new();
                $fields::components(&mut components);
                $variants::components(&mut components);
                let listed = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
                let mut derived = listed(&components[stringify!($fields)]["properties"]);
                let mut written = listed(&serde_json::to_value($fields::default()).unwrap());
                derived.sort();
                written.sort();
                derived.extend(components[stringify!($variants)]["enum"].as_array().unwrap().iter().map(|v| v.to_string()));
                for v in [$variants::OpenRecall, $variants::A, $variants::HTTPServer] {
                    written.push(serde_json::to_value(v).unwrap().to_string());
                }
                (derived, written)
            })),*];
        };
    }
    serde_oracle! {
        "lowercase" => LowerFields, LowerVariants;
        "UPPERCASE" => UpperFields, UpperVariants;
        "PascalCase" => PascalFields, PascalVariants;
        "camelCase" => CamelFields, CamelVariants;
        "snake_case" => SnakeFields, SnakeVariants;
        "SCREAMING_SNAKE_CASE" => ScreamingFields, ScreamingVariants;
        "kebab-case" => KebabFields, KebabVariants;
        "SCREAMING-KEBAB-CASE" => ScreamingKebabFields, ScreamingKebabVariants;
    }

    #[test]
    fn derived_names_are_the_names_serde_writes() {
        for (rule, names) in ORACLE {
            let (derived, written) = names();
            assert_eq!(derived, written, "rename_all = {rule}");
        }
    }
}
