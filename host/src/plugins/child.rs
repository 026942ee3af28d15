//! `datahost plugin-host <library>`: the child process that runs one plugin for a host that isolates it
//! (`plugins.<slug>.isolation = "process"`). It loads the library, connects back to the host's socket (named in
//! `DATAHOST_PLUGIN_SOCKET`, authenticated by `DATAHOST_PLUGIN_TOKEN`) with `DATAHOST_PLUGIN_CONNECTIONS`
//! request connections and one service connection, and serves each request connection on a thread of its own
//! (so several requests are in flight at once). Every host service the plugin calls is forwarded to the host
//! and answered there: the child opens no file, database or network connection for the plugin. It holds no
//! state the host needs; when the host goes away (end of stream) the child exits, and the host kills it when
//! it hangs.

use std::cell::RefCell;
use std::io;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use abi_stable::std_types::{RStr, RString};
use datahost_plugin_api::abi::{FfiReply, FfiResponse, HostServices, PluginModuleRef, OUTCOME_ERR};

use super::protocol::{self, read_frame, write_frame, Frame, CONNECTIONS_ENV, SOCKET_ENV, TOKEN_ENV};

thread_local! {
    /// The request connection this thread serves: the plugin's service calls made while serving go back on it,
    /// inside the same conversation (so a `route.get` that comes back to this plugin finds another connection).
    static CONVERSATION: RefCell<Option<UnixStream>> = const { RefCell::new(None) };
}

/// For service calls from threads the plugin started itself (they belong to no conversation).
static SERVICE_CONNECTION: OnceLock<Mutex<UnixStream>> = OnceLock::new();

/// Runs the child; returns the process exit status.
pub fn run(library: &Path) -> u8 {
    match serve(library) {
        // Exit at once: the plugin's own threads must not keep a child of a gone host alive.
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("datahost plugin-host {}: {e}", library.display());
            1
        }
    }
}

/// Why the child cannot serve: started by hand, a library it cannot open, or a host it cannot reach.
#[derive(Debug, thiserror::Error)]
enum ChildError {
    #[error("{0} is not set; the host starts this")]
    NotStartedByHost(&'static str),
    #[error("{0}")]
    Library(String),
    #[error("{doing}: {source}")]
    Host {
        doing: &'static str,
        #[source]
        source: io::Error,
    },
}

fn serve(library: &Path) -> Result<(), ChildError> {
    let socket = std::env::var(SOCKET_ENV).map_err(|_| ChildError::NotStartedByHost(SOCKET_ENV))?;
    let token = std::env::var(TOKEN_ENV).map_err(|_| ChildError::NotStartedByHost(TOKEN_ENV))?;
    let connections: usize = std::env::var(CONNECTIONS_ENV).ok().and_then(|n| n.parse().ok()).unwrap_or(1).max(1);
    let module = super::load_module(library).map_err(|(_, e)| ChildError::Library(e))?;

    let connect = |role: &str| -> Result<UnixStream, ChildError> {
        let host = |doing| move |source| ChildError::Host { doing, source };
        let mut stream = protocol::connect(&socket).map_err(host("cannot reach the host"))?;
        write_frame(&mut stream, protocol::HELLO, &[token.as_bytes(), role.as_bytes()])
            .map_err(host("cannot greet the host"))?;
        Ok(stream)
    };
    let _ = SERVICE_CONNECTION.set(Mutex::new(connect("services")?));
    let (ended_tx, ended) = std::sync::mpsc::channel();
    for _ in 0..connections {
        let stream = connect("requests")?;
        let ended_tx = ended_tx.clone();
        std::thread::spawn(move || {
            serve_connection(module, stream);
            let _ = ended_tx.send(());
        });
    }
    // A connection ends only when the host closes it (it stopped, or gave up on this child): stop everything.
    let _ = ended.recv();
    Ok(())
}

fn serve_connection(module: PluginModuleRef, stream: UnixStream) {
    let Ok(reader) = stream.try_clone() else { return };
    CONVERSATION.with(|c| *c.borrow_mut() = Some(stream));
    let mut reader = reader;
    while let Ok(frame) = read_frame(&mut reader) {
        if answer(module, &frame).is_err() {
            return;
        }
    }
}

fn answer(module: PluginModuleRef, frame: &Frame) -> io::Result<()> {
    let text = |i| frame.text(i);
    match frame.tag {
        protocol::HANDLE => {
            let FfiResponse { outcome, status, body, headers_json } = (module.handle())(RStr::from(text(0).as_str()));
            send(protocol::HANDLED, &[&[outcome], &status.to_be_bytes(), &body, headers_json.as_bytes()])
        }
        protocol::INIT => {
            let reply = (module.init())(services(), RStr::from(text(0).as_str()));
            send(protocol::REPLY, &[&[reply.outcome], reply.payload.as_bytes()])
        }
        protocol::CALL => {
            let reply = (module.call())(RStr::from(text(0).as_str()), RStr::from(text(1).as_str()));
            send(protocol::REPLY, &[&[reply.outcome], reply.payload.as_bytes()])
        }
        other => Err(io::Error::new(io::ErrorKind::InvalidData, format!("unexpected frame {other}"))),
    }
}

/// Writes a frame on this thread's conversation, or on the service connection for a thread outside one.
fn send(tag: u8, parts: &[&[u8]]) -> io::Result<()> {
    let sent = CONVERSATION.with(|c| c.borrow_mut().as_mut().map(|s| write_frame(s, tag, parts)));
    match sent {
        Some(r) => r,
        None => {
            let conn = SERVICE_CONNECTION.get().ok_or_else(|| io::Error::other("no service connection"))?;
            write_frame(&mut *conn.lock().unwrap_or_else(|e| e.into_inner()), tag, parts)
        }
    }
}

/// Sends a service request and waits for its answer, on this thread's conversation or the service connection.
fn ask(tag: u8, parts: &[&[u8]]) -> FfiReply {
    let exchange = |s: &mut UnixStream| -> io::Result<Frame> {
        write_frame(s, tag, parts)?;
        read_frame(s)
    };
    let answered = CONVERSATION.with(|c| c.borrow_mut().as_mut().map(exchange));
    let answered = match answered {
        Some(r) => r,
        None => match SERVICE_CONNECTION.get() {
            Some(conn) => exchange(&mut conn.lock().unwrap_or_else(|e| e.into_inner())),
            None => Err(io::Error::other("no service connection")),
        },
    };
    match answered {
        Ok(f) if f.tag == protocol::SERVICE_REPLY => {
            FfiReply { outcome: f.byte(0).unwrap_or(OUTCOME_ERR), payload: RString::from(f.text(1)) }
        }
        Ok(f) => FfiReply::err(format!("the host answered frame {} to a service request", f.tag)),
        Err(e) => FfiReply::err(format!("the host is unreachable: {e}")),
    }
}

fn services() -> HostServices {
    HostServices { token: 0, log, metric, load_dataset, query, call }
}

extern "C" fn log(_token: u64, level: u8, message: RStr<'_>) {
    let _ = send(protocol::LOG, &[&[level], message.as_str().as_bytes()]);
}

extern "C" fn metric(_token: u64, kind: u8, name: RStr<'_>, value: f64, labels: RStr<'_>) {
    let _ =
        send(protocol::METRIC, &[&[kind], name.as_str().as_bytes(), &value.to_be_bytes(), labels.as_str().as_bytes()]);
}

extern "C" fn load_dataset(_token: u64, dataset: RStr<'_>) -> FfiReply {
    ask(protocol::LOAD_DATASET, &[dataset.as_str().as_bytes()])
}

extern "C" fn query(_token: u64, request_json: RStr<'_>) -> FfiReply {
    ask(protocol::QUERY, &[request_json.as_str().as_bytes()])
}

extern "C" fn call(_token: u64, name: RStr<'_>, input: RStr<'_>) -> FfiReply {
    ask(protocol::SERVICE_CALL, &[name.as_str().as_bytes(), input.as_str().as_bytes()])
}
