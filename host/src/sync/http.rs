//! The polite HTTP client every sync source fetches through: a declared User-Agent, a request-rate cap per
//! source, a timeout, retries with exponential backoff on 429, 5xx and broken connections (honouring
//! `Retry-After`), conditional requests (`If-None-Match` / `If-Modified-Since`), and downloads that land in a
//! `.part` file first, resume with `Range` + `If-Range` after a cut, are checked against the announced length,
//! hashed (SHA-256) and only then renamed into place. A caller therefore never sees a partial file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;
use tokio::time::Instant;

/// A `Retry-After` longer than this is not waited for: the download fails and the next run tries again.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);
/// The longest pause between two attempts that the exponential backoff alone produces.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// How one source's client behaves (from `sync.sources.<name>` and `sync.user_agent`).
#[derive(Debug, Clone)]
pub struct HttpSettings {
    pub source: &'static str,
    pub user_agent: String,
    pub requests_per_second: f64,
    pub timeout: Duration,
    pub retries: u32,
    pub backoff: Duration,
}

/// What the server said about a version of a resource, sent back on the next request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validators {
    fn from_headers(headers: &HeaderMap) -> Self {
        let get = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok()).map(str::to_string);
        Self { etag: get(reqwest::header::ETAG), last_modified: get(reqwest::header::LAST_MODIFIED) }
    }

    fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}

/// The outcome of one download.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Download {
    /// The server confirmed the version we hold (304).
    NotModified,
    /// 404 or 410: nothing at that address (yet).
    NotFound,
    /// The whole body is at the destination.
    Done { sha256: String, size: u64, validators: Validators },
}

/// Why a download failed (after the retries the source allows).
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("{source_name}: GET {url} answered {status}")]
    Status { source_name: &'static str, url: String, status: u16 },
    #[error("{source_name}: GET {url} failed after {attempts} attempt(s): {last}")]
    GaveUp { source_name: &'static str, url: String, attempts: u32, last: String },
    #[error("{source_name}: GET {url}: {message}")]
    Io { source_name: &'static str, url: String, message: String },
    #[error("{source_name}: cannot build the HTTP client: {message}")]
    Client { source_name: &'static str, message: String },
}

/// What went wrong on one attempt, and whether another attempt may help.
#[derive(Debug)]
enum Attempt {
    Retry { why: String, retry_after: Option<Duration> },
    Fatal(HttpError),
}

/// Spaces request starts at least `1 / requests_per_second` apart.
struct Pacer {
    interval: Duration,
    next: Option<Instant>,
}

/// Counters of one client, for the report.
#[derive(Debug, Default)]
pub struct Stats {
    pub requests: AtomicU64,
    pub retries: AtomicU64,
    pub bytes: AtomicU64,
}

/// The sidecar of a `.part` file: which address and version its bytes belong to, so a resumed download never
/// glues two versions together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct PartMeta {
    url: String,
    validators: Validators,
}

pub struct PoliteClient {
    client: reqwest::Client,
    settings: HttpSettings,
    pacer: Mutex<Pacer>,
    pub stats: Stats,
}

/// The address without user or password (what messages show).
pub fn display_url(url: &str) -> String {
    crate::config::redact_url(url)
}

impl PoliteClient {
    pub fn new(settings: HttpSettings) -> Result<Self, HttpError> {
        let client = reqwest::Client::builder()
            .user_agent(settings.user_agent.clone())
            .connect_timeout(settings.timeout)
            .read_timeout(settings.timeout)
            // Servers answer 304 to our conditional requests; plain redirects are followed (mirrors use them).
            .redirect(reqwest::redirect::Policy::limited(5))
            .build()
            .map_err(|e| HttpError::Client { source_name: settings.source, message: e.to_string() })?;
        let interval = Duration::from_secs_f64(1.0 / settings.requests_per_second.max(0.001));
        Ok(Self { client, settings, pacer: Mutex::new(Pacer { interval, next: None }), stats: Stats::default() })
    }

    pub fn settings(&self) -> &HttpSettings {
        &self.settings
    }

    /// Waits for this source's next request slot.
    async fn pace(&self) {
        let at = {
            let mut p = self.pacer.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let at = p.next.map_or(now, |n| n.max(now));
            p.next = Some(at + p.interval);
            at
        };
        tokio::time::sleep_until(at).await;
    }

    /// Downloads `url` to `dest` (through `dest.part`). With `known`, the request is conditional and a 304
    /// answers [`Download::NotModified`]. A `.part` left by an earlier cut is resumed when the server still
    /// has the same version.
    pub async fn download(&self, url: &str, dest: &Path, known: Option<&Validators>) -> Result<Download, HttpError> {
        let shown = display_url(url);
        let io = |message: String| HttpError::Io { source_name: self.settings.source, url: shown.clone(), message };
        if let Some(parent) = dest.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|e| io(format!("cannot create {}: {e}", parent.display())))?;
        }
        let part = part_path(dest);
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            self.pace().await;
            self.stats.requests.fetch_add(1, Ordering::Relaxed);
            match self.attempt(url, dest, &part, known).await {
                Ok(done) => return Ok(done),
                Err(Attempt::Fatal(e)) => return Err(e),
                Err(Attempt::Retry { why, retry_after }) => {
                    if attempts > self.settings.retries {
                        return Err(HttpError::GaveUp {
                            source_name: self.settings.source,
                            url: shown,
                            attempts,
                            last: why,
                        });
                    }
                    if retry_after.is_some_and(|d| d > MAX_RETRY_AFTER) {
                        return Err(HttpError::GaveUp {
                            source_name: self.settings.source,
                            url: shown,
                            attempts,
                            last: format!("{why}; the server asks to wait longer than {MAX_RETRY_AFTER:?}"),
                        });
                    }
                    let wait = delay(self.settings.backoff, attempts, retry_after);
                    tracing::info!(
                        source = self.settings.source,
                        url = %shown,
                        attempt = attempts,
                        wait_ms = wait.as_millis() as u64,
                        reason = %why,
                        "retrying"
                    );
                    self.stats.retries.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }

    async fn attempt(
        &self,
        url: &str,
        dest: &Path,
        part: &Path,
        known: Option<&Validators>,
    ) -> Result<Download, Attempt> {
        let shown = display_url(url);
        let source = self.settings.source;
        let io = |message: String| Attempt::Fatal(HttpError::Io { source_name: source, url: shown.clone(), message });
        let held = held_part(part, url).await;
        let mut request = self.client.get(url);
        if let Some((len, meta)) = &held {
            let (range, if_range) = resume_headers(*len, &meta.validators);
            request = request.header(reqwest::header::RANGE, range);
            if let Some(v) = if_range {
                request = request.header(reqwest::header::IF_RANGE, v);
            }
        } else if let Some(v) = known {
            if let Some(etag) = &v.etag {
                request = request.header(reqwest::header::IF_NONE_MATCH, etag.as_str());
            }
            if let Some(lm) = &v.last_modified {
                request = request.header(reqwest::header::IF_MODIFIED_SINCE, lm.as_str());
            }
        }
        let response = match tokio::time::timeout(self.settings.timeout, request.send()).await {
            Err(_) => return Err(retry(format!("no answer within {:?}", self.settings.timeout))),
            Ok(Err(e)) => return Err(retry(transport_message(&e))),
            Ok(Ok(r)) => r,
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, chrono::Utc::now()));
        match status {
            StatusCode::NOT_MODIFIED => {
                let _ = tokio::fs::remove_file(part).await;
                let _ = tokio::fs::remove_file(meta_path(part)).await;
                return Ok(Download::NotModified);
            }
            StatusCode::NOT_FOUND | StatusCode::GONE => return Ok(Download::NotFound),
            StatusCode::TOO_MANY_REQUESTS => {
                return Err(Attempt::Retry { why: "429 Too Many Requests".into(), retry_after })
            }
            s if s.is_server_error() => {
                return Err(Attempt::Retry { why: format!("status {}", s.as_u16()), retry_after })
            }
            StatusCode::RANGE_NOT_SATISFIABLE => {
                // Our partial copy does not fit the server's version: start again from nothing.
                discard_part(part).await;
                return Err(retry("416: the partial copy no longer fits; starting over".into()));
            }
            StatusCode::OK | StatusCode::PARTIAL_CONTENT => {}
            s => return Err(Attempt::Fatal(HttpError::Status { source_name: source, url: shown, status: s.as_u16() })),
        }
        let validators = Validators::from_headers(response.headers());
        let (mut file, mut have, expected_total) = if status == StatusCode::PARTIAL_CONTENT {
            let range = response
                .headers()
                .get(reqwest::header::CONTENT_RANGE)
                .and_then(|v| v.to_str().ok())
                .and_then(parse_content_range);
            let held_len = held.as_ref().map(|(l, _)| *l).unwrap_or(0);
            match range {
                Some((start, total)) if start == held_len => {
                    let f = tokio::fs::OpenOptions::new()
                        .append(true)
                        .open(part)
                        .await
                        .map_err(|e| io(format!("cannot reopen {}: {e}", part.display())))?;
                    (f, start, total.or(response.content_length().map(|l| l + start)))
                }
                _ => {
                    discard_part(part).await;
                    return Err(retry("206 with a range that does not continue our copy; starting over".into()));
                }
            }
        } else {
            let f =
                tokio::fs::File::create(part).await.map_err(|e| io(format!("cannot write {}: {e}", part.display())))?;
            // Remember which version these bytes are, so a cut can be resumed safely.
            let meta = PartMeta { url: url.to_string(), validators: validators.clone() };
            let text = serde_json::to_vec(&meta).map_err(|e| io(format!("cannot encode the resume record: {e}")))?;
            tokio::fs::write(meta_path(part), text)
                .await
                .map_err(|e| io(format!("cannot write {}: {e}", meta_path(part).display())))?;
            (f, 0, response.content_length())
        };
        let mut response = response;
        loop {
            let chunk = match tokio::time::timeout(self.settings.timeout, response.chunk()).await {
                Err(_) => {
                    let _ = file.flush().await;
                    return Err(retry(format!("the body stalled for {:?} after {have} bytes", self.settings.timeout)));
                }
                Ok(Err(e)) => {
                    let _ = file.flush().await;
                    return Err(retry(format!("the connection broke after {have} bytes: {}", transport_message(&e))));
                }
                Ok(Ok(None)) => break,
                Ok(Ok(Some(c))) => c,
            };
            file.write_all(&chunk).await.map_err(|e| io(format!("cannot write {}: {e}", part.display())))?;
            have += chunk.len() as u64;
            self.stats.bytes.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        }
        file.flush().await.map_err(|e| io(format!("cannot write {}: {e}", part.display())))?;
        file.sync_all().await.map_err(|e| io(format!("cannot sync {}: {e}", part.display())))?;
        drop(file);
        if let Some(total) = expected_total {
            if have != total {
                return Err(retry(format!("the body ended after {have} of {total} bytes")));
            }
        }
        let (sha256, size) = hash_file(part).await.map_err(|e| io(format!("cannot read {}: {e}", part.display())))?;
        tokio::fs::rename(part, dest)
            .await
            .map_err(|e| io(format!("cannot move {} into place: {e}", dest.display())))?;
        let _ = tokio::fs::remove_file(meta_path(part)).await;
        // The version of a resumed download is the one its first bytes came with.
        let validators =
            if validators.is_empty() { held.map(|(_, m)| m.validators).unwrap_or_default() } else { validators };
        Ok(Download::Done { sha256, size, validators })
    }
}

fn retry(why: String) -> Attempt {
    Attempt::Retry { why, retry_after: None }
}

/// A transport error with its causes (reqwest's top-level text is often just "error sending request").
fn transport_message(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    // The URL inside reqwest's text may carry credentials; the caller names the address itself.
    match e.url() {
        Some(u) => text.replace(&format!(" for url ({u})"), "").replace(u.as_str(), ""),
        None => text,
    }
}

/// `dest` + `.part`.
pub fn part_path(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".part");
    dest.with_file_name(name)
}

fn meta_path(part: &Path) -> PathBuf {
    let mut name = part.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".json");
    part.with_file_name(name)
}

async fn discard_part(part: &Path) {
    let _ = tokio::fs::remove_file(part).await;
    let _ = tokio::fs::remove_file(meta_path(part)).await;
}

/// A `.part` of this address that can be resumed: its length and what it was a part of. A part without a
/// version to check against (`If-Range`) is never resumed: the server may have changed the file since.
async fn held_part(part: &Path, url: &str) -> Option<(u64, PartMeta)> {
    let len = tokio::fs::metadata(part).await.ok()?.len();
    let meta = read_part_meta(&meta_path(part), &tokio::fs::read(meta_path(part)).await.ok()?)?;
    resumable(len, &meta, url).then_some((len, meta))
}

/// The resume record of a part; one that does not read is said and the part downloaded again from the start.
fn read_part_meta(path: &Path, bytes: &[u8]) -> Option<PartMeta> {
    match serde_json::from_slice(bytes) {
        Ok(meta) => Some(meta),
        Err(e) => {
            tracing::warn!(record = %path.display(), "unreadable resume record, downloading again: {e}");
            None
        }
    }
}

/// Whether a part of `len` bytes described by `meta` may be continued for `url`.
fn resumable(len: u64, meta: &PartMeta, url: &str) -> bool {
    len > 0 && meta.url == url && !meta.validators.is_empty()
}

/// The `Range` and `If-Range` headers that continue a part of `len` bytes. `If-Range` prefers the strong
/// ETag (a weak one is not allowed there), else the `Last-Modified` date.
fn resume_headers(len: u64, v: &Validators) -> (String, Option<String>) {
    let if_range = v.etag.clone().filter(|e| !e.starts_with("W/")).or_else(|| v.last_modified.clone());
    (format!("bytes={len}-"), if_range)
}

/// `Content-Range: bytes <start>-<end>/<total|*>` -> (start, total).
pub fn parse_content_range(value: &str) -> Option<(u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let (start, _end) = range.split_once('-')?;
    let start = start.trim().parse().ok()?;
    let total = if total.trim() == "*" { None } else { Some(total.trim().parse().ok()?) };
    Some((start, total))
}

/// `Retry-After`: delay-seconds or an HTTP date (RFC 9110 §10.2.3), as a wait from `now`.
pub fn parse_retry_after(value: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?.with_timezone(&chrono::Utc);
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

/// The pause before attempt `attempt + 1`: what the server asked for in `Retry-After`, else
/// `backoff * 2^(attempt-1)`, capped.
pub fn delay(backoff: Duration, attempt: u32, retry_after: Option<Duration>) -> Duration {
    let exp = backoff.saturating_mul(1u32 << attempt.saturating_sub(1).min(16)).min(MAX_BACKOFF);
    retry_after.unwrap_or(exp)
}

/// SHA-256 and size of a file, read in blocks.
pub async fn hash_file(path: &Path) -> std::io::Result<(String, u64)> {
    use sha2::{Digest, Sha256};
    use tokio::io::AsyncReadExt;
    let mut file = tokio::fs::File::open(path).await?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    Ok((hex::encode(hasher.finalize()), size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_resume_record_is_logged_and_not_resumed() {
        let path = Path::new("raw/f.zip.part.json");
        let (meta, logs) = crate::log_capture::logged(|| read_part_meta(path, b"{\"url\": 3"));
        assert_eq!(meta, None);
        assert!(logs.contains("unreadable resume record") && logs.contains("raw/f.zip.part.json"), "{logs}");
    }

    #[test]
    fn backoff_doubles_is_capped_and_yields_to_retry_after() {
        let b = Duration::from_millis(500);
        let plan: Vec<u128> = (1..=5).map(|a| delay(b, a, None).as_millis()).collect();
        assert_eq!(plan, [500, 1000, 2000, 4000, 8000]);
        assert_eq!(delay(b, 30, None), MAX_BACKOFF, "capped");
        // The server's wish wins, in both directions: never sooner, and no needless extra wait.
        assert_eq!(delay(b, 1, Some(Duration::from_secs(3))), Duration::from_secs(3));
        assert_eq!(delay(b, 4, Some(Duration::from_secs(1))), Duration::from_secs(1));
        assert_eq!(delay(b, 1, Some(Duration::ZERO)), Duration::ZERO);
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = chrono::DateTime::parse_from_rfc3339("2015-10-21T07:28:00Z").unwrap().with_timezone(&chrono::Utc);
        assert_eq!(parse_retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now), Some(Duration::from_secs(30)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now), Some(Duration::ZERO), "in the past");
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-5", now), None);
    }

    #[test]
    fn a_part_resumes_only_for_the_same_address_and_a_known_version() {
        let strong = Validators { etag: Some("\"abc\"".into()), last_modified: None };
        let meta = PartMeta { url: "https://x/a.zip".into(), validators: strong.clone() };
        assert!(resumable(10, &meta, "https://x/a.zip"));
        assert!(!resumable(0, &meta, "https://x/a.zip"), "nothing to resume");
        assert!(!resumable(10, &meta, "https://x/b.zip"), "another address");
        let blind = PartMeta { url: "https://x/a.zip".into(), validators: Validators::default() };
        assert!(!resumable(10, &blind, "https://x/a.zip"), "no version to check with If-Range");

        assert_eq!(resume_headers(1234, &strong), ("bytes=1234-".into(), Some("\"abc\"".into())));
        let weak = Validators { etag: Some("W/\"abc\"".into()), last_modified: Some("Wed, 21 Oct 2015".into()) };
        assert_eq!(resume_headers(5, &weak).1.as_deref(), Some("Wed, 21 Oct 2015"), "weak ETags cannot be If-Range");
    }

    #[test]
    fn content_range_gives_the_start_and_total() {
        assert_eq!(parse_content_range("bytes 100-199/200"), Some((100, Some(200))));
        assert_eq!(parse_content_range("bytes 0-9/*"), Some((0, None)));
        assert_eq!(parse_content_range("items 0-9/10"), None);
        assert_eq!(parse_content_range("bytes x-9/10"), None);
    }

    #[test]
    fn part_files_sit_beside_their_destination() {
        assert_eq!(part_path(Path::new("/d/raw/a.zip")), Path::new("/d/raw/a.zip.part"));
        assert_eq!(meta_path(&part_path(Path::new("/d/a.zip"))), Path::new("/d/a.zip.part.json"));
    }
}
