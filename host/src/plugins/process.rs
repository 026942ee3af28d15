//! The host's side of a plugin in a child process (`plugins.<slug>.isolation = "process"`): the supervisor that
//! starts `datahost plugin-host <library>`, runs the plugin's `init` in it, restarts it with exponential backoff
//! when it exits (crash, abort, segfault, or killed after overrunning a deadline), and the conversations that
//! carry requests, `init` and `call` to it and answer its host-service requests here, in the host, which owns
//! every connection.
//!
//! The socket is a Linux abstract-namespace unix socket (nothing on the file system to clean up); a child
//! proves itself with a random token passed in its environment. Each generation of the child gets a fresh
//! socket and token, connects `max_threads_per_plugin` request connections and one service connection, and the
//! listener is closed once they are in.

use std::io;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

use abi_stable::std_types::RStr;
use datahost_plugin_api::abi::FfiReply;
use datahost_plugin_api::Manifest;

use super::error::PluginError;
use super::outcome::{outcome_of, HandleOutcome};
use super::protocol::{self, read_frame, write_frame, Frame, CONNECTIONS_ENV, SOCKET_ENV, TOKEN_ENV};
use super::served::{publish, served_by, Served};
use super::services;
use crate::config::PluginPolicy;

/// A child that stayed up this long has its restart backoff reset.
const STABLE_AFTER: Duration = Duration::from_secs(30);

/// One supervised plugin process.
pub struct Supervised {
    slug: String,
    library: PathBuf,
    token: u64,
    manifest: Manifest,
    config_json: String,
    policy: PluginPolicy,
    state: Mutex<Generation>,
    changed: Condvar,
    served: Arc<RwLock<Served>>,
    stop: AtomicBool,
    restarts: AtomicU64,
}

struct Generation {
    id: u64,
    status: Status,
    /// Request connections not in a conversation right now.
    idle: Vec<UnixStream>,
    /// Set (with the reason) to have the supervisor kill this generation's child.
    kill: Option<String>,
    /// Why the last child ended, for `/health` and error messages.
    last_exit: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Starting,
    Up,
    Down,
}

/// The process's state for `/health`.
pub struct ProcessHealth {
    pub status: &'static str,
    pub restarts: u64,
    pub last_exit: Option<String>,
}

impl Supervised {
    /// Starts the supervisor and waits for the first child to be up and initialised. A first start that fails
    /// (the child cannot start, or its `init` fails or crashes) is a load failure, as it is in process.
    pub fn start(
        library: PathBuf,
        token: u64,
        manifest: Manifest,
        config_json: String,
        policy: PluginPolicy,
        served: Arc<RwLock<Served>>,
    ) -> Result<Arc<Supervised>, PluginError> {
        let supervised = Arc::new(Supervised {
            slug: manifest.slug.clone(),
            library,
            token,
            manifest,
            config_json,
            policy,
            state: Mutex::new(Generation {
                id: 0,
                status: Status::Starting,
                idle: Vec::new(),
                kill: None,
                last_exit: None,
            }),
            changed: Condvar::new(),
            served,
            stop: AtomicBool::new(false),
            restarts: AtomicU64::new(0),
        });
        let (first_tx, first_rx) = mpsc::channel();
        let runner = supervised.clone();
        std::thread::Builder::new()
            .name(format!("supervise-{}", supervised.slug))
            .spawn(move || runner.supervise(first_tx))
            .map_err(|source| PluginError::ProcessStart { doing: "cannot start the supervisor thread", source })?;
        match first_rx.recv() {
            Ok(Ok(())) => Ok(supervised),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(PluginError::ProcessDown("the supervisor ended before the first start".into())),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Generation> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn supervise(self: Arc<Self>, first: mpsc::Sender<Result<(), PluginError>>) {
        let mut first = Some(first);
        let mut failures_in_row: u32 = 0;
        let options = self.policy.process;
        loop {
            let id = {
                let mut g = self.lock();
                g.id += 1;
                g.status = Status::Starting;
                g.kill = None;
                g.id
            };
            let started = Instant::now();
            let exit = match self.launch(id) {
                Err(e) => e.to_string(),
                Ok((mut child, mut conns)) => match self.init_on(&mut conns[0], options.init_timeout) {
                    Err(e) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        format!("init failed: {e}")
                    }
                    Ok(()) => {
                        {
                            let mut g = self.lock();
                            g.status = Status::Up;
                            g.idle = conns;
                        }
                        self.changed.notify_all();
                        metrics::gauge!("datahost_plugin_process_up", "plugin" => self.slug.clone()).set(1.0);
                        if let Some(tx) = first.take() {
                            let _ = tx.send(Ok(()));
                        } else {
                            tracing::info!(plugin = %self.slug, generation = id, "plugin process restarted and initialised");
                        }
                        self.watch(&mut child)
                    }
                },
            };
            {
                let mut g = self.lock();
                g.status = Status::Down;
                g.idle.clear();
                g.last_exit = Some(exit.clone());
            }
            self.changed.notify_all();
            metrics::gauge!("datahost_plugin_process_up", "plugin" => self.slug.clone()).set(0.0);
            if let Some(tx) = first.take() {
                let _ = tx.send(Err(PluginError::ProcessDown(exit)));
                return;
            }
            if self.stop.load(Ordering::Acquire) {
                return;
            }
            if started.elapsed() >= STABLE_AFTER {
                failures_in_row = 0;
            }
            let backoff = options.backoff.saturating_mul(1u32 << failures_in_row.min(16)).min(options.backoff_max);
            failures_in_row = failures_in_row.saturating_add(1);
            tracing::error!(plugin = %self.slug, reason = %exit, backoff_ms = backoff.as_millis() as u64,
                "plugin process ended; its dataset answers 503 until it is back");
            std::thread::sleep(backoff);
            self.restarts.fetch_add(1, Ordering::Relaxed);
            metrics::counter!("datahost_plugin_restarts_total", "plugin" => self.slug.clone()).increment(1);
        }
    }

    /// Starts a child and collects its connections (requests first, then anything else it needs).
    fn launch(&self, id: u64) -> Result<(Child, Vec<UnixStream>), PluginError> {
        let start = |doing| move |source| PluginError::ProcessStart { doing, source };
        let token = hex::encode(rand::random::<[u8; 16]>());
        let name = format!("datahost-{}-{}-{}-{}", std::process::id(), self.slug, id, &token[..8]);
        let listener = listen(&name).map_err(start("cannot open the plugin socket"))?;
        listener.set_nonblocking(true).map_err(start("cannot set up the plugin socket"))?;
        let exe = std::env::current_exe().map_err(start("cannot find the datahost executable"))?;
        let wanted = self.policy.max_threads.max(1);
        // The child's stdout goes to the host's stderr: the host's stdout carries only its own events.
        let stdout = stderr_stdio();
        let mut child = Command::new(exe)
            .arg("plugin-host")
            .arg(&self.library)
            .env(SOCKET_ENV, &name)
            .env(TOKEN_ENV, &token)
            .env(CONNECTIONS_ENV, wanted.to_string())
            .stdin(Stdio::null())
            .stdout(stdout)
            .spawn()
            .map_err(start("cannot start the plugin process"))?;
        let deadline = Instant::now() + self.policy.process.start_timeout;
        let mut requests = Vec::new();
        let mut service = None;
        while requests.len() < wanted || service.is_none() {
            match listener.accept() {
                Ok((stream, _)) => match greet(stream, &token, self.policy.process.start_timeout) {
                    Ok((stream, role)) if role == "requests" => requests.push(stream),
                    Ok((stream, _)) => service = Some(stream),
                    Err(e) => {
                        tracing::warn!(plugin = %self.slug, error = %e, "refused a connection to the plugin socket")
                    }
                },
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if let Ok(Some(status)) = child.try_wait() {
                        let exit = describe_exit(status);
                        return Err(PluginError::ProcessDown(format!(
                            "the plugin process exited before connecting ({exit})"
                        )));
                    }
                    if Instant::now() > deadline {
                        let _ = child.kill();
                        let _ = child.wait();
                        return Err(PluginError::ProcessDown("the plugin process did not connect in time".into()));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(PluginError::ProcessStart { doing: "accepting the plugin process failed", source: e });
                }
            }
        }
        if let Some(service) = service {
            let token = self.token;
            let slug = self.slug.clone();
            let _ = std::thread::Builder::new().name(format!("services-{slug}")).spawn(move || {
                let mut conn = service;
                let _ = conn.set_read_timeout(None);
                while let Ok(frame) = read_frame(&mut conn) {
                    if let Err(e) = serve_service(token, &mut conn, &frame) {
                        tracing::debug!(plugin = %slug, error = %e, "service connection closed");
                        return;
                    }
                }
            });
        }
        Ok((child, requests))
    }

    fn init_on(&self, conn: &mut UnixStream, timeout: Duration) -> Result<(), PluginError> {
        let about_to_serve =
            services::context(self.token).map(|c| served_by(&c.engine, &self.manifest)).unwrap_or_default();
        let reply = self
            .converse(conn, protocol::INIT, &[self.config_json.as_bytes()], timeout)
            .map_err(|e| PluginError::ProcessConversation(e.to_string()))?;
        reply_result(&reply)?;
        publish(&self.served, about_to_serve);
        Ok(())
    }

    /// Waits until the child exits or is to be killed; returns why it ended.
    fn watch(&self, child: &mut Child) -> String {
        loop {
            // The kill order first: `kill` also closes the child's connections, on which it exits by itself.
            let mut g = self.lock();
            if let Some(why) = g.kill.take().or_else(|| self.stop.load(Ordering::Acquire).then(|| "stopped".into())) {
                drop(g);
                let _ = child.kill();
                // A child that crashed on its own (the conversation broke because it died) says so.
                return match child.wait() {
                    Ok(status)
                        if std::os::unix::process::ExitStatusExt::signal(&status)
                            .is_some_and(|s| s != libc::SIGKILL) =>
                    {
                        describe_exit(status)
                    }
                    _ => why,
                };
            }
            match child.try_wait() {
                Ok(Some(status)) => return describe_exit(status),
                Ok(None) => {}
                Err(e) => return format!("cannot wait for the plugin process: {e}"),
            }
            let _ = self.changed.wait_timeout(g, Duration::from_millis(50));
        }
    }

    /// Kills the current child when it is still generation `id` (a call to it overran or broke).
    fn kill(&self, id: u64, why: String) {
        let mut g = self.lock();
        if g.id == id && g.status == Status::Up {
            g.kill = Some(why);
            g.status = Status::Down;
            g.idle.clear();
        }
        drop(g);
        self.changed.notify_all();
    }

    /// A call overran its deadline: the child is presumed hung.
    pub fn overran(&self) {
        let id = self.lock().id;
        self.kill(id, format!("killed after a call overran its deadline of {} ms", self.policy.deadline.as_millis()));
    }

    /// Takes an idle request connection of the running child, waiting at most `wait` for one.
    fn checkout(&self, wait: Duration) -> Result<(u64, UnixStream), Unready> {
        let deadline = Instant::now() + wait;
        let mut g = self.lock();
        loop {
            match g.status {
                Status::Up => {}
                Status::Starting => return Err(Unready::Starting),
                Status::Down => {
                    return Err(match &g.last_exit {
                        Some(why) => Unready::Restarting(why.clone()),
                        None => Unready::NotRunning,
                    })
                }
            }
            if let Some(conn) = g.idle.pop() {
                return Ok((g.id, conn));
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Unready::Busy);
            }
            g = self.changed.wait_timeout(g, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
        }
    }

    fn checkin(&self, id: u64, conn: UnixStream) {
        let mut g = self.lock();
        if g.id == id && g.status == Status::Up {
            g.idle.push(conn);
            drop(g);
            self.changed.notify_one();
        }
    }

    /// One request/reply on a checked-out connection; a broken conversation kills the child (its state is
    /// unknown) and is reported as a crash.
    fn exchange(&self, tag: u8, parts: &[&[u8]], silence: Duration) -> Result<Frame, HandleOutcome> {
        let (id, mut conn) = self.checkout(self.policy.deadline).map_err(|why| HandleOutcome::Unavailable {
            message: format!("its plugin process {why}"),
            crashed: false,
        })?;
        match self.converse(&mut conn, tag, parts, silence) {
            Ok(frame) => {
                self.checkin(id, conn);
                Ok(frame)
            }
            Err(e) => {
                self.kill(id, format!("killed after a broken conversation: {e}"));
                Err(HandleOutcome::Unavailable { message: format!("its plugin process failed: {e}"), crashed: true })
            }
        }
    }

    /// Serves one request in the child.
    pub fn handle(&self, request_json: &str, data_status: &'static str) -> HandleOutcome {
        // The read timeout is a backstop (calls nested through `route.get` have no deadline of their own): the
        // dispatcher answers the client at the deadline and kills the child first.
        let silence = self.policy.deadline + Duration::from_secs(1);
        match self.exchange(protocol::HANDLE, &[request_json.as_bytes()], silence) {
            Err(outcome) => outcome,
            Ok(f) => match parse_handled(&f, data_status) {
                Ok(outcome) => outcome,
                Err(e) => HandleOutcome::Unavailable {
                    message: format!("its plugin process answered garbage: {e}"),
                    crashed: true,
                },
            },
        }
    }

    /// Re-runs `init` in the running child (after a data change).
    pub fn reinit(&self) -> Result<(), PluginError> {
        let (id, mut conn) = self
            .checkout(self.policy.process.init_timeout)
            .map_err(|why| PluginError::ProcessUnavailable(why.to_string()))?;
        match self.init_on(&mut conn, self.policy.process.init_timeout) {
            Ok(()) => {
                self.checkin(id, conn);
                Ok(())
            }
            Err(e) => {
                self.checkin(id, conn);
                Err(e)
            }
        }
    }

    /// The plugin's extension call, in the child.
    pub fn call(&self, name: &str, input: &str) -> Result<String, PluginError> {
        match self.exchange(protocol::CALL, &[name.as_bytes(), input.as_bytes()], self.policy.deadline) {
            Ok(f) => reply_result(&f),
            Err(HandleOutcome::Unavailable { message, .. }) => Err(PluginError::ProcessDown(message)),
            Err(_) => Err(PluginError::ProcessConversation("no answer".into())),
        }
    }

    pub fn health(&self) -> ProcessHealth {
        let g = self.lock();
        ProcessHealth {
            status: match g.status {
                Status::Up => "up",
                Status::Starting => "starting",
                Status::Down => "down",
            },
            restarts: self.restarts.load(Ordering::Relaxed),
            last_exit: g.last_exit.clone(),
        }
    }

    pub fn is_up(&self) -> bool {
        self.lock().status == Status::Up
    }

    /// Writes the request, then answers the child's service requests until its reply comes.
    fn converse(&self, conn: &mut UnixStream, tag: u8, parts: &[&[u8]], silence: Duration) -> io::Result<Frame> {
        conn.set_read_timeout(Some(silence))?;
        write_frame(conn, tag, parts)?;
        loop {
            let frame = read_frame(conn)?;
            match frame.tag {
                protocol::HANDLED | protocol::REPLY => return Ok(frame),
                _ => serve_service(self.token, conn, &frame)?,
            }
        }
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

/// Answers one service frame from the child (log and metric need no answer).
fn serve_service(token: u64, conn: &mut UnixStream, frame: &Frame) -> io::Result<()> {
    let reply = match frame.tag {
        protocol::LOG => {
            services::svc_log(token, frame.byte(0)?, RStr::from(frame.text(1).as_str()));
            return Ok(());
        }
        protocol::METRIC => {
            let (name, labels) = (frame.text(1), frame.text(3));
            let Ok(value) = frame.part(2)?.try_into().map(f64::from_be_bytes) else {
                // Dropped and said: recording it as 0 would put a false value on the counter.
                tracing::warn!(metric = %name, "a plugin metric whose value is not 8 bytes was dropped");
                return Ok(());
            };
            services::svc_metric(token, frame.byte(0)?, RStr::from(name.as_str()), value, RStr::from(labels.as_str()));
            return Ok(());
        }
        protocol::LOAD_DATASET => services::svc_load_dataset(token, RStr::from(frame.text(0).as_str())),
        protocol::QUERY => services::svc_query(token, RStr::from(frame.text(0).as_str())),
        protocol::SERVICE_CALL => {
            let (name, input) = (frame.text(0), frame.text(1));
            services::svc_call(token, RStr::from(name.as_str()), RStr::from(input.as_str()))
        }
        other => return Err(io::Error::new(io::ErrorKind::InvalidData, format!("unexpected frame {other}"))),
    };
    let FfiReply { outcome, payload } = reply;
    write_frame(conn, protocol::SERVICE_REPLY, &[&[outcome], payload.as_bytes()])
}

/// Why a call cannot be given to the plugin process now; reads after "plugin process".
#[derive(Debug, thiserror::Error)]
enum Unready {
    #[error("is starting")]
    Starting,
    #[error("is restarting ({0})")]
    Restarting(String),
    #[error("is not running")]
    NotRunning,
    #[error("has no free connection")]
    Busy,
}

fn reply_result(frame: &Frame) -> Result<String, PluginError> {
    let outcome = frame.byte(0).map_err(|e| PluginError::ProcessConversation(e.to_string()))?;
    PluginError::from_reply(outcome, frame.text(1))
}

fn parse_handled(frame: &Frame, data_status: &'static str) -> io::Result<HandleOutcome> {
    if frame.tag != protocol::HANDLED {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("frame {} answered a request", frame.tag)));
    }
    let outcome = frame.byte(0)?;
    let status = match frame.part(1)? {
        [a, b] => u16::from_be_bytes([*a, *b]),
        _ => return Err(io::Error::new(io::ErrorKind::InvalidData, "status is not two bytes")),
    };
    Ok(outcome_of(outcome, status, frame.part(2)?, &frame.text(3), data_status))
}

/// Reads the child's greeting: the token (compared in constant time) and the connection's role.
fn greet(stream: UnixStream, token: &str, timeout: Duration) -> io::Result<(UnixStream, String)> {
    use subtle::ConstantTimeEq;
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(timeout))?;
    let mut stream = stream;
    let hello = read_frame(&mut stream)?;
    let presented = hello.part(0)?;
    if hello.tag != protocol::HELLO || !bool::from(presented.ct_eq(token.as_bytes())) {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, "wrong greeting or token"));
    }
    Ok((stream, hello.text(1)))
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal} ({})", signal_name(signal)),
        _ => "ended".into(),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGKILL => "SIGKILL",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTERM => "SIGTERM",
        _ => "signal",
    }
}

/// Listens on an abstract-namespace socket `name`.
fn listen(name: &str) -> io::Result<UnixListener> {
    use std::os::linux::net::SocketAddrExt;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    UnixListener::bind_addr(&addr)
}

/// `Stdio` for a copy of the host's stderr.
fn stderr_stdio() -> Stdio {
    use std::os::fd::AsFd;
    io::stderr().as_fd().try_clone_to_owned().map(Stdio::from).unwrap_or_else(|_| Stdio::null())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_frame_with_an_unreadable_value_is_dropped_and_said() {
        let (mut conn, _other) = UnixStream::pair().unwrap();
        let parts = vec![vec![0], b"rows_read".to_vec(), vec![1, 2, 3], b"{}".to_vec()];
        let frame = Frame { tag: protocol::METRIC, parts };
        let (served, logs) = crate::log_capture::logged(|| serve_service(0, &mut conn, &frame));
        assert!(served.is_ok(), "the connection stays up");
        assert!(logs.contains("not 8 bytes was dropped") && logs.contains("rows_read"), "{logs}");
    }
}
