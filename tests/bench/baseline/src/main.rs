//! The bare axum baseline of `tests/bench/run.sh`: answers each captured `path?query` with the exact bytes the
//! host answered it with (`Content-Type: application/json`), on the same runtime as the host (multi-thread tokio,
//! one worker per core) and nothing else: no auth, limit, plugin or middleware. Anything not captured is a 404.
//!
//! With `--with-headers` it also sends the other headers the host answered with (`FILE.headers` beside each body
//! file, one `name: value` a line, as `bench.py capture` writes them), each answer then as long as the host's on
//! the wire: the host's work apart from the answer's size. A client that reads into a fixed buffer (wrk reads
//! 8,192 bytes at a time) pays for an answer's bytes, not only the server.
//!
//! Usage: `datahost-bench-baseline ADDR INDEX [--with-headers]`, where INDEX has one
//! `path?query<TAB>body file[<TAB>anything]` per line. Prints `listening` once bound.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

/// A captured answer: its headers (beyond `Content-Type`) and body.
type Answer = (HeaderMap, Bytes);
type Answers = Arc<HashMap<String, Answer>>;

async fn answer(State(answers): State<Answers>, uri: Uri) -> Response {
    let key = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    match answers.get(key) {
        // The bare answer exactly as before the headers' option (no header map merged).
        Some((headers, body)) if headers.is_empty() => {
            ([(header::CONTENT_TYPE, "application/json")], body.clone()).into_response()
        }
        Some((headers, body)) => {
            ([(header::CONTENT_TYPE, "application/json")], headers.clone(), body.clone()).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

fn read_headers(file: &str) -> Result<HeaderMap, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let mut headers = HeaderMap::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let (name, value) = line.split_once(": ").ok_or_else(|| format!("{file}: no `: ` in `{line}`"))?;
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|e| format!("{file}: {name}: {e}"))?;
        let value = HeaderValue::from_str(value).map_err(|e| format!("{file}: {value}: {e}"))?;
        headers.append(name, value);
    }
    Ok(headers)
}

fn load(index: &str, with_headers: bool) -> Result<HashMap<String, Answer>, String> {
    let text = std::fs::read_to_string(index).map_err(|e| format!("{index}: {e}"))?;
    let mut answers = HashMap::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let mut fields = line.split('\t');
        let (Some(target), Some(file)) = (fields.next(), fields.next()) else {
            return Err(format!("{index}: no tab in `{line}`"));
        };
        let body = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
        let headers = if with_headers { read_headers(&format!("{file}.headers"))? } else { HeaderMap::new() };
        answers.insert(target.to_string(), (headers, Bytes::from(body)));
    }
    Ok(answers)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let (addr, index, with_headers) = match args.as_slice() {
        [_, addr, index] => (addr, index, false),
        [_, addr, index, flag] if flag == "--with-headers" => (addr, index, true),
        _ => return Err("usage: datahost-bench-baseline ADDR INDEX [--with-headers]".into()),
    };
    let answers: Answers = Arc::new(load(index, with_headers)?);
    let listener = tokio::net::TcpListener::bind(addr.as_str()).await.map_err(|e| format!("{addr}: {e}"))?;
    let app = axum::Router::new().fallback(answer).with_state(answers);
    println!("listening");
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}
