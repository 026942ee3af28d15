//! The API listener's connection layer: the accept loop, caps on open connections (in all and per client
//! address), the header-read timeout that also bounds idle keep-alive connections, and a shutdown that
//! closes idle and half-sent connections at once while in-flight requests finish with `Connection: close`.
//!
//! hyper answers what it cannot parse itself (a malformed request line or header, a request target over 64 KiB,
//! a head beyond its read buffer) with a bodiless 400, 414 or 431 and closes; [`EnvelopeIo`] recognises that
//! head on its way to the socket and sends the same status with the JSON envelope instead. Everything hyper
//! does parse reaches the router, whose front middleware (`app.rs`, `refused`) answers protocol and size errors
//! with the envelope.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io::IoSlice;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{header, HeaderValue};
use axum::response::Response;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};

use crate::config::ServerConfig;
use crate::http::app::Api;
use crate::http::error::AppError;

/// The limits of the listener, from `[server]`.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_connections: usize,
    /// 0: no per-address cap (behind a load balancer every client has its address).
    pub max_connections_per_client: usize,
    pub header_read_timeout: Duration,
    pub base_url: String,
}

impl Limits {
    /// The configured limits, with `max_connections` kept below the process's file-descriptor limit (raised
    /// to its hard limit first) so that accepting can never exhaust the descriptors the server needs itself.
    pub fn from_config(server: &ServerConfig) -> Self {
        let mut max_connections = server.max_connections.max(1);
        if let Some(fds) = raise_fd_limit() {
            let usable = fds.saturating_sub(RESERVED_FDS).max(1) as usize;
            if max_connections > usable {
                tracing::warn!(
                    configured = max_connections,
                    fd_limit = fds,
                    "server.max_connections lowered to stay under the file-descriptor limit"
                );
                max_connections = usable;
            }
        }
        Self {
            max_connections,
            max_connections_per_client: server.max_connections_per_client,
            header_read_timeout: Duration::from_secs(server.header_read_timeout_secs.max(1)),
            base_url: server.base_url.clone(),
        }
    }
}

/// Set from inside the SIGTERM / SIGINT handler (see [`watch_stop_signals`]).
static STOP_SIGNALLED: AtomicBool = AtomicBool::new(false);

/// Registers an action on SIGTERM and SIGINT, beside tokio's, that sets [`STOP_SIGNALLED`]. tokio delivers a
/// signal to its task through the I/O driver, which a worker busy in a synchronous plugin call may hold back;
/// the flag is set at once, so a response produced meanwhile still says `Connection: close`. This action
/// replaces the signals' default one (the process would no longer end on them), so tokio's must be registered
/// before it (`lifecycle::server::stop_signals`): a signal that arrived in between would only set the flag.
pub fn watch_stop_signals() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        // SAFETY: the action only stores to an atomic, which is async-signal-safe.
        let registered =
            unsafe { signal_hook_registry::register(signal, || STOP_SIGNALLED.store(true, Ordering::SeqCst)) };
        if let Err(e) = registered {
            tracing::warn!(error = %e, signal, "cannot watch the stop signal directly");
        }
    }
}

/// Descriptors kept for the server's own use (database and Redis pools, plugin files, logs, the engine).
const RESERVED_FDS: u64 = 128;

/// Raises the soft open-files limit to the hard limit; returns the limit in effect.
fn raise_fd_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    Some(limit.rlim_cur)
}

/// Open connections per client address.
#[derive(Default)]
struct PerClient(Mutex<HashMap<IpAddr, usize>>);

impl PerClient {
    fn try_take(&self, ip: IpAddr, cap: usize) -> bool {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(ip).or_insert(0);
        if cap > 0 && *n >= cap {
            return false;
        }
        *n += 1;
        true
    }

    fn give_back(&self, ip: IpAddr) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&ip);
            }
        }
    }
}

/// What one connection holds while open; released when dropped.
struct Slot {
    _permit: OwnedSemaphorePermit,
    ip: IpAddr,
    per_client: Arc<PerClient>,
    open: Arc<AtomicUsize>,
    all_closed: Arc<Notify>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.per_client.give_back(self.ip);
        metrics::gauge!("datahost_http_connections_open").decrement(1.0);
        if self.open.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.all_closed.notify_waiters();
        }
    }
}

/// Serves `api` on `listener` until `shutdown` resolves, then closes idle and half-sent connections at
/// once and lets in-flight requests finish for up to `grace`. Returns whether every connection closed in time.
pub async fn serve(
    listener: TcpListener,
    api: Api,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> bool {
    let limits = Arc::new(limits);
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let per_client = Arc::new(PerClient::default());
    let open = Arc::new(AtomicUsize::new(0));
    let all_closed = Arc::new(Notify::new());
    let (stop_tx, stop_rx) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or a connection reset before accept: wait a little rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            refuse(stream, &limits, "refused", "the server is at its connection limit; retry shortly");
            continue;
        };
        if !per_client.try_take(peer.ip(), limits.max_connections_per_client) {
            refuse(stream, &limits, "per_client", "too many open connections from this address; close some first");
            continue;
        }
        open.fetch_add(1, Ordering::SeqCst);
        metrics::gauge!("datahost_http_connections_open").increment(1.0);
        let slot = Slot {
            _permit: permit,
            ip: peer.ip(),
            per_client: per_client.clone(),
            open: open.clone(),
            all_closed: all_closed.clone(),
        };
        tokio::spawn(connection(stream, peer, api.clone(), limits.clone(), stop_rx.clone(), slot));
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let drained = async {
        loop {
            let notified = all_closed.notified();
            if open.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    };
    tokio::time::timeout(grace, drained).await.is_ok()
}

/// Answers a connection that is not taken with a 503 envelope (best effort, never waiting) and closes it.
fn refuse(stream: TcpStream, limits: &Limits, reason: &'static str, message: &str) {
    metrics::counter!("datahost_http_connections_refused_total", "reason" => reason).increment(1);
    let body = AppError::new(&limits.base_url, 503, message).body().to_string();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\n\
         connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.try_write(format!("{head}{body}").as_bytes());
}

/// How long a connection that is not serving a request may take to finish writing once shutdown begins.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    api: Api,
    limits: Arc<Limits>,
    mut stop: watch::Receiver<bool>,
    _slot: Slot,
) {
    // Requests of this connection that have been read and not yet answered.
    let in_flight = Arc::new(AtomicUsize::new(0));
    let service = {
        let in_flight = in_flight.clone();
        let stop = stop.clone();
        hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let api = api.clone();
            let in_flight = in_flight.clone();
            let stop = stop.clone();
            async move {
                in_flight.fetch_add(1, Ordering::SeqCst);
                let mut response = api.serve(req.map(axum::body::Body::new), peer).await;
                // Shutting down: this is the connection's last response, and it says so.
                if STOP_SIGNALLED.load(Ordering::SeqCst) || *stop.borrow() {
                    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
                }
                in_flight.fetch_sub(1, Ordering::SeqCst);
                Ok::<Response, Infallible>(response)
            }
        })
    };
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout).keep_alive(true);
    let io = EnvelopeIo::new(stream, &limits.base_url);
    let conn = builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(conn);
    tokio::select! {
        biased;
        result = conn.as_mut() => {
            if let Err(e) = result {
                tracing::debug!(error = %e, %peer, "connection ended with an error");
            }
            return;
        }
        _ = stop.changed() => {}
    }
    // Shutdown: no new request on this connection. A request being served finishes (its response says
    // `Connection: close`); an idle connection closes now; one whose request is still arriving, or whose last
    // response is still being written, gets a moment and is then dropped.
    conn.as_mut().graceful_shutdown();
    if in_flight.load(Ordering::SeqCst) > 0 {
        let _ = conn.as_mut().await;
    } else {
        let _ = tokio::time::timeout(CLOSE_WAIT, conn.as_mut()).await;
    }
}

/// The socket as hyper sees it: bytes pass through unchanged, except hyper's own answer to a request it could
/// not parse. hyper writes that answer (`on_parse_error`) as a lone head with status 400, 414 or 431,
/// `content-length: 0` and no `content-type`, when no response is in progress, and then closes the connection.
/// No response of the router looks like that (every router error is an [`AppError`] with a JSON body and a
/// `content-type`, HEAD answers included), so such a head is replaced by the same status with the envelope and
/// `Connection: close`. hyper is told its bytes were written; the replacement is sent before any flush or
/// shutdown completes.
struct EnvelopeIo {
    inner: TcpStream,
    base_url: Arc<str>,
    /// A replacement answer still to be written, and how much of it is.
    pending: Option<(Vec<u8>, usize)>,
}

impl EnvelopeIo {
    fn new(inner: TcpStream, base_url: &str) -> Self {
        Self { inner, base_url: base_url.into(), pending: None }
    }

    /// Writes what is left of the replacement answer; `Ready(Ok)` once nothing is.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            if *written == bytes.len() {
                self.pending = None;
                break;
            }
            match Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *written += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }

    /// If `buf` is hyper's bodiless parse-error answer, queues its replacement and returns true.
    fn intercept(&mut self, buf: &[u8]) -> bool {
        let Some(status) = parse_error_status(buf) else { return false };
        let message = match status {
            414 => "the request target (path and query string) is longer than 64 KiB; shorten it",
            431 => "the request line and headers are larger than the server reads; send fewer or shorter headers",
            _ => "the request could not be read as HTTP/1.1: the request line or a header is malformed",
        };
        metrics::counter!("datahost_http_unparsable_requests_total", "status" => status.to_string()).increment(1);
        self.pending = Some((envelope_answer(&self.base_url, status, message, &buf[..9]), 0));
        true
    }
}

/// The status of `head` if it is the answer hyper writes for a request it could not parse.
fn parse_error_status(head: &[u8]) -> Option<u16> {
    if head.len() > 512 || !(head.starts_with(b"HTTP/1.1 ") || head.starts_with(b"HTTP/1.0 ")) {
        return None;
    }
    let status = match head.get(9..13)? {
        b"400 " => 400,
        b"414 " => 414,
        b"431 " => 431,
        _ => return None,
    };
    let text = std::str::from_utf8(head).ok()?.to_ascii_lowercase();
    let bare = text.ends_with("\r\n\r\n")
        && text.matches("\r\n\r\n").count() == 1
        && text.contains("\r\ncontent-length: 0\r\n")
        && !text.contains("\r\ncontent-type:");
    bare.then_some(status)
}

/// A complete answer with the JSON envelope that closes the connection; `version` is `HTTP/1.x ` as hyper chose.
fn envelope_answer(base_url: &str, status: u16, message: &str, version: &[u8]) -> Vec<u8> {
    let error = AppError::new(base_url, status, message);
    let body = error.body().to_string();
    let mut answer = version.to_vec();
    answer.extend_from_slice(
        format!(
            "{} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            status,
            error.status.canonical_reason().unwrap_or(""),
            body.len()
        )
        .as_bytes(),
    );
    answer
}

impl AsyncRead for EnvelopeIo {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for EnvelopeIo {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        std::task::ready!(self.poll_pending(cx))?;
        if self.intercept(buf) {
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        std::task::ready!(self.poll_pending(cx))?;
        // hyper's parse-error head is written alone: one non-empty slice.
        let mut filled = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (filled.next(), filled.next()) {
            if self.intercept(only) {
                return Poll::Ready(Ok(only.len()));
            }
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        std::task::ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        std::task::ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_client_slots_are_capped_and_given_back() {
        let slots = PerClient::default();
        let ip: IpAddr = "10.0.0.7".parse().unwrap();
        assert!(slots.try_take(ip, 2) && slots.try_take(ip, 2));
        assert!(!slots.try_take(ip, 2), "the third connection from one address is refused");
        assert!(slots.try_take("10.0.0.8".parse().unwrap(), 2), "another address is not affected");
        slots.give_back(ip);
        assert!(slots.try_take(ip, 2));
        assert!(slots.try_take(ip, 0) && slots.try_take(ip, 0), "0 means no cap");
    }

    #[test]
    fn only_hypers_bodiless_parse_error_heads_are_recognised() {
        let date = "date: Thu, 26 Nov 2026 02:16:16 GMT\r\n";
        for (status, reason) in [(400, "Bad Request"), (414, "URI Too Long"), (431, "Request Header Fields Too Large")]
        {
            let head = format!("HTTP/1.1 {status} {reason}\r\ncontent-length: 0\r\n{date}\r\n");
            assert_eq!(parse_error_status(head.as_bytes()), Some(status), "{head}");
        }
        // The router's own answers carry a content type (and a body); other statuses and bodies pass through.
        let router =
            format!("HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 0\r\n{date}\r\n");
        let ok = format!("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n{date}\r\n");
        let with_body =
            format!("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n{date}\r\nHTTP/1.1 400 Bad Request\r\n\r\n");
        for other in [router.as_str(), ok.as_str(), with_body.as_str(), "{\"error\":\"x\"}"] {
            assert_eq!(parse_error_status(other.as_bytes()), None, "{other}");
        }
    }

    #[test]
    fn the_replacement_answer_is_the_envelope_and_closes() {
        let answer = envelope_answer("http://x", 414, "too long", b"HTTP/1.1 ");
        let text = String::from_utf8(answer).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{head}");
        assert!(head.contains("connection: close") && head.contains(&format!("content-length: {}", body.len())));
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["code"], 414);
        assert_eq!(body["docs"], "http://x/docs#uri-too-long");
    }

    #[test]
    fn the_fd_limit_is_read_and_never_lowered() {
        let before = {
            let mut l = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            // SAFETY: reads into the struct.
            unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) };
            l.rlim_cur
        };
        let after = raise_fd_limit().expect("getrlimit works on Linux");
        assert!(after >= before);
    }
}
