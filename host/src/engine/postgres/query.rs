//! Plugins' parameterised queries (the `query` host service in engine mode): `{schema}` is the plugin's own
//! schema, parameters are bound by their JSON type, never spliced, and rows come back as JSON objects.

use serde_json::{json, Value};
use tokio_postgres::types::{ToSql, Type};

use super::pool::{block_on, plugin_schema, PgEngine};
use crate::engine::error::{postgres as pg_err, EngineError};

impl PgEngine {
    /// Runs a plugin's parameterised query. `{schema}` in the SQL is replaced by the plugin's schema.
    /// Parameters are bound as text, int8, float8, bool or NULL by their JSON type; cast in SQL where needed.
    pub fn plugin_query(&self, slug: &str, request_json: &str) -> Result<String, EngineError> {
        #[derive(serde::Deserialize)]
        struct QueryRequest {
            sql: String,
            #[serde(default)]
            params: Vec<Value>,
        }
        let req: QueryRequest = serde_json::from_str(request_json)
            .map_err(|e| EngineError::Invalid(format!("query request is not valid: {e}")))?;
        let sql = req.sql.replace("{schema}", &format!("\"{}\"", plugin_schema(slug)));
        let fut = async {
            self.timed("plugin query", async {
                let client = self.client().await?;
                let params = bind_params(&req.params);
                let refs: Vec<(&(dyn ToSql + Sync), Type)> =
                    params.iter().map(|(v, t)| (v.as_ref() as &(dyn ToSql + Sync), t.clone())).collect();
                let rows = self.rows(&client, &sql, &refs).await.map_err(pg_err("a plugin query"))?;
                let mut out = Vec::with_capacity(rows.len());
                for row in &rows {
                    out.push(row_to_json(row)?);
                }
                Ok(json!({ "rows": out }).to_string())
            })
            .await
        };
        block_on(fut)
    }
}

fn bind_params(params: &[Value]) -> Vec<(Box<dyn ToSql + Sync + Send>, Type)> {
    params
        .iter()
        .map(|v| -> (Box<dyn ToSql + Sync + Send>, Type) {
            match v {
                Value::Null => (Box::new(Option::<String>::None), Type::TEXT),
                Value::Bool(b) => (Box::new(*b), Type::BOOL),
                Value::Number(n) => match n.as_i64() {
                    Some(i) => (Box::new(i), Type::INT8),
                    None => (Box::new(n.as_f64().unwrap_or(0.0)), Type::FLOAT8),
                },
                Value::String(s) => (Box::new(s.clone()), Type::TEXT),
                other => (Box::new(other.to_string()), Type::TEXT),
            }
        })
        .collect()
}

/// `map_err` adapter for a cell that cannot be read as its column's type.
fn cell(column: &str) -> impl FnOnce(tokio_postgres::Error) -> EngineError + '_ {
    move |source| EngineError::Postgres { doing: format!("reading column `{column}` of a plugin query"), source }
}

fn row_to_json(row: &tokio_postgres::Row) -> Result<Value, EngineError> {
    let mut obj = serde_json::Map::new();
    for (i, col) in row.columns().iter().enumerate() {
        let t = col.type_();
        let v = match *t {
            Type::BOOL => json!(row.try_get::<_, Option<bool>>(i).map_err(cell(col.name()))?),
            Type::INT2 => json!(row.try_get::<_, Option<i16>>(i).map_err(cell(col.name()))?),
            Type::INT4 => json!(row.try_get::<_, Option<i32>>(i).map_err(cell(col.name()))?),
            Type::INT8 => json!(row.try_get::<_, Option<i64>>(i).map_err(cell(col.name()))?),
            Type::FLOAT4 => json!(row.try_get::<_, Option<f32>>(i).map_err(cell(col.name()))?),
            Type::FLOAT8 => json!(row.try_get::<_, Option<f64>>(i).map_err(cell(col.name()))?),
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => {
                json!(row.try_get::<_, Option<String>>(i).map_err(cell(col.name()))?)
            }
            Type::JSON | Type::JSONB => {
                row.try_get::<_, Option<Value>>(i).map_err(cell(col.name()))?.unwrap_or(Value::Null)
            }
            Type::DATE => json!(row
                .try_get::<_, Option<chrono::NaiveDate>>(i)
                .map_err(cell(col.name()))?
                .map(|d| d.format("%Y-%m-%d").to_string())),
            Type::TIMESTAMPTZ => json!(row
                .try_get::<_, Option<chrono::DateTime<chrono::Utc>>>(i)
                .map_err(cell(col.name()))?
                .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))),
            Type::TEXT_ARRAY | Type::VARCHAR_ARRAY => {
                json!(row.try_get::<_, Option<Vec<String>>>(i).map_err(cell(col.name()))?)
            }
            ref other => {
                return Err(EngineError::Invalid(format!(
                    "column `{}` has type {other}, which queries cannot return; cast it to text",
                    col.name()
                )))
            }
        };
        obj.insert(col.name().to_string(), v);
    }
    Ok(Value::Object(obj))
}
