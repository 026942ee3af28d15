//! A JSON Schema check of the subset `/openapi.json` uses (`type`, `properties`, `required`, `items`, `$ref`,
//! `enum`, `const`, `anyOf`, `oneOf`, `allOf`, `if`/`then`/`else`, bounds, lengths, `pattern`, `maxItems`, `additionalProperties` and the
//! `date`, `date-time` and `uri` formats), so a test can hold what a route serves to what it documents.
//! A keyword outside the subset is reported, never ignored: a schema the check cannot read fails the test.

use regex::Regex;
use serde_json::Value;

/// Keywords that say nothing about the value (documentation) or are read with another keyword.
const ANNOTATIONS: &[&str] = &["description", "example", "examples", "default", "title", "deprecated", "readOnly"];

/// Every way `value` breaks `schema`, each naming the JSON pointer where; `$ref`s are resolved in `doc`.
pub fn violations(doc: &Value, schema: &Value, value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(doc, schema, value, "", &mut out);
    out
}

fn check(doc: &Value, schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    let Some(rules) = schema.as_object() else {
        out.push(format!("{at}: the schema is not an object: {schema}"));
        return;
    };
    let here = if at.is_empty() { "/" } else { at };
    for (key, rule) in rules {
        match key.as_str() {
            "$ref" => {
                match rule.as_str().and_then(|r| r.strip_prefix("#/")).and_then(|p| doc.pointer(&format!("/{p}"))) {
                    Some(target) => check(doc, target, value, at, out),
                    None => out.push(format!("{here}: unresolved $ref {rule}")),
                }
            }
            "type" => {
                let allowed: Vec<&str> = match rule {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                if !allowed.iter().any(|t| is_type(value, t)) {
                    out.push(format!("{here}: {} is not of type {rule}", clip(value)));
                }
            }
            "properties" => {
                if let (Some(props), Some(object)) = (rule.as_object(), value.as_object()) {
                    for (name, sub) in props {
                        if let Some(v) = object.get(name) {
                            check(doc, sub, v, &format!("{at}/{name}"), out);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(object) = value.as_object() {
                    let declared = rules.get("properties").and_then(Value::as_object);
                    for (name, v) in object.iter().filter(|(n, _)| !declared.is_some_and(|d| d.contains_key(*n))) {
                        match rule {
                            Value::Bool(false) => out.push(format!("{here}: undocumented property `{name}`")),
                            Value::Bool(true) => {}
                            sub => check(doc, sub, v, &format!("{at}/{name}"), out),
                        }
                    }
                }
            }
            "required" => {
                if let Some(object) = value.as_object() {
                    for name in rule.as_array().into_iter().flatten().filter_map(Value::as_str) {
                        if !object.contains_key(name) {
                            out.push(format!("{here}: required property `{name}` is missing"));
                        }
                    }
                }
            }
            "items" => {
                for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                    check(doc, rule, item, &format!("{at}/{i}"), out);
                }
            }
            "enum" => {
                if !rule.as_array().is_some_and(|values| values.contains(value)) {
                    out.push(format!("{here}: {} is not one of {rule}", clip(value)));
                }
            }
            "const" if rule != value => out.push(format!("{here}: {} is not {rule}", clip(value))),
            "const" => {}
            "anyOf" => {
                let options = rule.as_array().map(Vec::as_slice).unwrap_or_default();
                if !options.iter().any(|o| violations(doc, o, value).is_empty()) {
                    out.push(format!("{here}: {} matches none of anyOf", clip(value)));
                }
            }
            "if" => {
                let branch = if violations(doc, rule, value).is_empty() { "then" } else { "else" };
                if let Some(sub) = rules.get(branch) {
                    check(doc, sub, value, at, out);
                }
            }
            // Read with `if`.
            "then" | "else" => {}
            "oneOf" => {
                let options = rule.as_array().map(Vec::as_slice).unwrap_or_default();
                let matching = options.iter().filter(|o| violations(doc, o, value).is_empty()).count();
                if matching != 1 {
                    out.push(format!("{here}: {} matches {matching} of oneOf, not one", clip(value)));
                }
            }
            "allOf" => {
                for sub in rule.as_array().into_iter().flatten() {
                    check(doc, sub, value, at, out);
                }
            }
            "minimum" | "maximum" => {
                if let (Some(v), Some(bound)) = (value.as_f64(), rule.as_f64()) {
                    if (key == "minimum" && v < bound) || (key == "maximum" && v > bound) {
                        out.push(format!("{here}: {v} is beyond the {key} {bound}"));
                    }
                }
            }
            "minLength" | "maxLength" => {
                if let (Some(s), Some(bound)) = (value.as_str(), rule.as_u64()) {
                    let n = s.chars().count() as u64;
                    if (key == "minLength" && n < bound) || (key == "maxLength" && n > bound) {
                        out.push(format!("{here}: {n} characters is beyond the {key} {bound}"));
                    }
                }
            }
            "maxItems" => {
                if let (Some(items), Some(bound)) = (value.as_array(), rule.as_u64()) {
                    if items.len() as u64 > bound {
                        out.push(format!("{here}: {} items is more than maxItems {bound}", items.len()));
                    }
                }
            }
            "pattern" => {
                if let (Some(s), Some(p)) = (value.as_str(), rule.as_str()) {
                    match Regex::new(p) {
                        Ok(re) if re.is_match(s) => {}
                        Ok(_) => out.push(format!("{here}: `{s}` does not match the pattern {p}")),
                        Err(e) => out.push(format!("{here}: the pattern {p} is not a regex: {e}")),
                    }
                }
            }
            "format" => {
                if let (Some(s), Some(f)) = (value.as_str(), rule.as_str()) {
                    if !formatted(s, f) {
                        out.push(format!("{here}: `{s}` is not a {f}"));
                    }
                }
            }
            k if ANNOTATIONS.contains(&k) => {}
            other => out.push(format!("{here}: the check does not know the keyword `{other}`")),
        }
    }
}

fn is_type(value: &Value, t: &str) -> bool {
    match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => false,
    }
}

fn formatted(s: &str, format: &str) -> bool {
    match format {
        "date" => chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok() && s.len() == 10,
        "date-time" => chrono::DateTime::parse_from_rfc3339(s).is_ok(),
        "uri" => s.starts_with("https://") || s.starts_with("http://"),
        // Other formats (`int64`, `email`...) are documentation here.
        _ => true,
    }
}

fn clip(value: &Value) -> String {
    value.to_string().chars().take(120).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_rule_is_held() {
        let doc = json!({"components": {"schemas": {
            "Row": {"type": "object", "required": ["day", "kind"], "properties": {
                "day": {"type": "string", "format": "date"},
                "kind": {"type": "string", "enum": ["A", "B"]},
                "count": {"type": ["integer", "null"], "minimum": 0},
                "code": {"type": "string", "pattern": "^[0-9]{4}-Q[1-4]$", "maxLength": 7},
                "link": {"type": "string", "format": "uri"},
            }},
        }}});
        let list = json!({"type": "array", "maxItems": 2, "items": {"$ref": "#/components/schemas/Row"}});
        let good = json!([{"day": "2026-01-31", "kind": "A", "count": null, "code": "2026-Q1", "link": "https://x"}]);
        assert_eq!(violations(&doc, &list, &good), Vec::<String>::new());
        let bad = json!([
            {"day": "2026-02-30", "kind": "C", "count": -1, "code": "2026-Q5", "link": "ftp://x"},
            {"kind": "A", "count": 1.5},
            {"day": "2026-01-31", "kind": "B"},
        ]);
        let found = violations(&doc, &list, &bad);
        for expected in [
            "/: 3 items is more than maxItems 2",
            "/0/day: `2026-02-30` is not a date",
            "/0/kind: \"C\" is not one of [\"A\",\"B\"]",
            "/0/count: -1 is beyond the minimum 0",
            "/0/code: `2026-Q5` does not match the pattern ^[0-9]{4}-Q[1-4]$",
            "/0/link: `ftp://x` is not a uri",
            "/1: required property `day` is missing",
            "/1/count: 1.5 is not of type [\"integer\",\"null\"]",
        ] {
            assert!(found.iter().any(|f| f == expected), "{expected} not in {found:#?}");
        }
        assert_eq!(found.len(), 8, "{found:#?}");
    }

    #[test]
    fn a_schema_the_check_cannot_read_fails() {
        let doc = json!({});
        assert_eq!(
            violations(&doc, &json!({"$ref": "#/components/schemas/Gone"}), &json!(1)),
            ["/: unresolved $ref \"#/components/schemas/Gone\""]
        );
        assert_eq!(
            violations(&doc, &json!({"not": {"type": "string"}}), &json!(1)),
            ["/: the check does not know the keyword `not`"]
        );
        let conditional = json!({"if": {"properties": {"kind": {"const": "A"}}}, "then": {"required": ["a"]},
            "else": {"required": ["b"]}});
        assert!(violations(&doc, &conditional, &json!({"kind": "A", "a": 1})).is_empty());
        assert_eq!(
            violations(&doc, &conditional, &json!({"kind": "B", "a": 1})),
            ["/: required property `b` is missing"]
        );
        assert_eq!(violations(&doc, &json!({"oneOf": [{}, {}]}), &json!(1)), ["/: 1 matches 2 of oneOf, not one"]);
        assert_eq!(
            violations(&doc, &json!({"anyOf": [{"type": "string"}, {"type": "null"}]}), &json!(2)),
            ["/: 2 matches none of anyOf"]
        );
    }
}
