//! The bare axum baseline of `tests/bench/run.sh`: answers each captured `path?query` with the exact bytes the
//! host answered it with (`Content-Type: application/json`), on the same runtime as the host (multi-thread tokio,
//! one worker per core) and nothing else: no auth, limit, plugin or middleware. Anything not captured is a 404.
//!
//! Usage: `datahost-bench-baseline ADDR INDEX`, where INDEX has one `path?query<TAB>body file[<TAB>anything]` per
//! line. Prints `listening` once bound.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

type Bodies = Arc<HashMap<String, Bytes>>;

async fn answer(State(bodies): State<Bodies>, uri: Uri) -> Response {
    let key = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    match bodies.get(key) {
        Some(body) => ([(header::CONTENT_TYPE, "application/json")], body.clone()).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

fn load(index: &str) -> Result<HashMap<String, Bytes>, String> {
    let text = std::fs::read_to_string(index).map_err(|e| format!("{index}: {e}"))?;
    let mut bodies = HashMap::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let mut fields = line.split('\t');
        let (Some(target), Some(file)) = (fields.next(), fields.next()) else {
            return Err(format!("{index}: no tab in `{line}`"));
        };
        let body = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
        bodies.insert(target.to_string(), Bytes::from(body));
    }
    Ok(bodies)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, addr, index] = args.as_slice() else {
        return Err("usage: datahost-bench-baseline ADDR INDEX".into());
    };
    let bodies: Bodies = Arc::new(load(index)?);
    let listener = tokio::net::TcpListener::bind(addr.as_str()).await.map_err(|e| format!("{addr}: {e}"))?;
    let app = axum::Router::new().fallback(answer).with_state(bodies);
    println!("listening");
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}
