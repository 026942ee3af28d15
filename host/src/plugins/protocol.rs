//! The wire format between the host and a plugin running in a child process (`datahost plugin-host`): frames
//! of a tag and byte-string parts over a local (unix) socket. A connection is one synchronous conversation at a
//! time: the host sends a request (handle, init, call); the child may ask the host for services (load_dataset,
//! query, call) any number of times, each answered on the same connection, and log or count (no answer);
//! then it sends the reply. The request itself is the same JSON `RequestEnvelope` an in-process plugin gets,
//! and the reply carries the same `FfiResponse` fields.
//!
//! The child finds the host through its environment (`SOCKET_ENV`, `TOKEN_ENV`, `CONNECTIONS_ENV`, set by the
//! supervisor in `process.rs`) and [`connect`] (the abstract-namespace socket), both shared by the two sides.
//!
//! Frame: `u32` length (big-endian) of what follows, the tag byte, a `u16` part count, then per part a `u32`
//! length and the bytes.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;

/// Environment of the child: the socket's name, the token it proves itself with, its request connections.
pub const SOCKET_ENV: &str = "DATAHOST_PLUGIN_SOCKET";
pub const TOKEN_ENV: &str = "DATAHOST_PLUGIN_TOKEN";
pub const CONNECTIONS_ENV: &str = "DATAHOST_PLUGIN_CONNECTIONS";

/// Connects to the abstract-namespace socket `name` (the child's side).
pub fn connect(name: &str) -> io::Result<UnixStream> {
    use std::os::linux::net::SocketAddrExt;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    UnixStream::connect_addr(&addr)
}

/// Host to child: serve one request (`[envelope_json]`).
pub const HANDLE: u8 = b'H';
/// Host to child: run the plugin's `init` (`[config_json]`).
pub const INIT: u8 = b'I';
/// Host to child: the plugin's extension call (`[name, input_json]`).
pub const CALL: u8 = b'C';
/// Host to child: the answer to a service request (`[outcome, payload]`).
pub const SERVICE_REPLY: u8 = b'R';

/// Child to host, first frame of every connection: `[token, role]` (role `requests` or `services`).
pub const HELLO: u8 = b'h';
/// Child to host: the answer to `HANDLE` (`[outcome, status u16, body, headers_json]`).
pub const HANDLED: u8 = b'A';
/// Child to host: the answer to `INIT` or `CALL` (`[outcome, payload]`).
pub const REPLY: u8 = b'Y';
/// Child to host: a log line, not answered (`[level, message]`).
pub const LOG: u8 = b'L';
/// Child to host: a metric, not answered (`[kind, name, value f64, labels_json]`).
pub const METRIC: u8 = b'M';
/// Child to host: `load_dataset` (`[dataset]`), answered by `SERVICE_REPLY`.
pub const LOAD_DATASET: u8 = b'D';
/// Child to host: `query` (`[request_json]`), answered by `SERVICE_REPLY`.
pub const QUERY: u8 = b'Q';
/// Child to host: a named host call (`[name, input_json]`), answered by `SERVICE_REPLY`.
pub const SERVICE_CALL: u8 = b'S';

/// Larger frames are refused: a child cannot make the host allocate without bound.
const MAX_FRAME: usize = 1 << 30;

/// One decoded frame.
#[derive(Debug, PartialEq, Eq)]
pub struct Frame {
    pub tag: u8,
    pub parts: Vec<Vec<u8>>,
}

impl Frame {
    /// Part `i` as UTF-8 text (lossy: plugin text is informational here).
    pub fn text(&self, i: usize) -> String {
        self.parts.get(i).map(|p| String::from_utf8_lossy(p).into_owned()).unwrap_or_default()
    }

    /// Part `i`, or an error naming the frame when it is missing.
    pub fn part(&self, i: usize) -> io::Result<&[u8]> {
        self.parts.get(i).map(Vec::as_slice).ok_or_else(|| malformed(format!("frame {} lacks part {i}", self.tag)))
    }

    /// Part `i` as its first byte (outcomes, levels, kinds).
    pub fn byte(&self, i: usize) -> io::Result<u8> {
        self.part(i)?.first().copied().ok_or_else(|| malformed(format!("frame {} part {i} is empty", self.tag)))
    }
}

fn malformed(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Writes one frame in a single `write_all`.
pub fn write_frame(w: &mut impl Write, tag: u8, parts: &[&[u8]]) -> io::Result<()> {
    let len = 1 + 2 + parts.iter().map(|p| 4 + p.len()).sum::<usize>();
    if len > MAX_FRAME {
        return Err(malformed(format!("frame of {len} bytes is larger than {MAX_FRAME}")));
    }
    let mut buf = Vec::with_capacity(4 + len);
    buf.extend_from_slice(&(len as u32).to_be_bytes());
    buf.push(tag);
    buf.extend_from_slice(&(parts.len() as u16).to_be_bytes());
    for p in parts {
        buf.extend_from_slice(&(p.len() as u32).to_be_bytes());
        buf.extend_from_slice(p);
    }
    w.write_all(&buf)
}

/// Reads one frame. End of stream before a frame starts is `UnexpectedEof`.
pub fn read_frame(r: &mut impl Read) -> io::Result<Frame> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len) as usize;
    if !(3..=MAX_FRAME).contains(&len) {
        return Err(malformed(format!("frame length {len} out of range")));
    }
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)?;
    let tag = buf[0];
    let count = u16::from_be_bytes([buf[1], buf[2]]) as usize;
    let mut parts = Vec::with_capacity(count);
    let mut at = 3;
    for _ in 0..count {
        let n = buf.get(at..at + 4).ok_or_else(|| malformed("truncated part length".into()))?;
        let n = u32::from_be_bytes([n[0], n[1], n[2], n[3]]) as usize;
        at += 4;
        let part = buf.get(at..at + n).ok_or_else(|| malformed("truncated part".into()))?;
        parts.push(part.to_vec());
        at += n;
    }
    if at != buf.len() {
        return Err(malformed("trailing bytes after the last part".into()));
    }
    Ok(Frame { tag, parts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_truncation_is_an_error() {
        let mut buf = Vec::new();
        write_frame(&mut buf, HANDLE, &[b"{\"route\":\"/v1/x\"}", b"", &[0, 1, 2]]).unwrap();
        write_frame(&mut buf, REPLY, &[]).unwrap();
        let mut r = buf.as_slice();
        let f = read_frame(&mut r).unwrap();
        assert_eq!(f.tag, HANDLE);
        assert_eq!(f.parts, vec![b"{\"route\":\"/v1/x\"}".to_vec(), vec![], vec![0, 1, 2]]);
        assert_eq!(read_frame(&mut r).unwrap(), Frame { tag: REPLY, parts: vec![] });
        assert_eq!(read_frame(&mut r).unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        let mut short = &buf[..buf.len() - 3];
        read_frame(&mut short).unwrap();
        assert!(read_frame(&mut short).is_err());
    }
}
