//! The plugin's view of the host: logging, metrics, dataset snapshots and queries through the records
//! engine, and generic host calls. Plugins never open files or sockets themselves; everything goes here.

use std::sync::OnceLock;

use abi_stable::std_types::RStr;
use serde::de::DeserializeOwned;

use crate::abi::HostServices;
use crate::error::HostError;

/// Log levels understood by the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum LogLevel {
    /// Wire value `0`; the host logs it as a `tracing` ERROR event tagged with the plugin's slug.
    Error = 0,
    /// Wire value `1`; logged as a `tracing` WARN event.
    Warn = 1,
    /// Wire value `2`; logged as a `tracing` INFO event.
    Info = 2,
    /// Wire value `3`; logged as a `tracing` DEBUG event.
    Debug = 3,
    /// Wire value `4`; logged as a `tracing` TRACE event (the host also logs any unknown value at this level).
    Trace = 4,
}

/// A handle on the host services. Cheap to copy.
#[derive(Clone, Copy)]
pub struct Host {
    services: HostServices,
}

static CURRENT: OnceLock<Host> = OnceLock::new();

/// Remembers the host for [`current`] (first `init` wins; the services never change for a loaded library).
pub(crate) fn install(host: Host) {
    let _ = CURRENT.set(host);
}

/// The host this library was initialised by, if any.
pub fn current() -> Option<Host> {
    CURRENT.get().copied()
}

/// Logs an error through the host when there is one, else to stderr.
pub(crate) fn log_error(message: &str) {
    match current() {
        Some(h) => h.log(LogLevel::Error, message),
        None => eprintln!("{message}"),
    }
}

impl Host {
    /// Wraps the services the host passed to `init` (the SDK does this; tests get them from `testing::TestHost`,
    /// behind the `testing` feature).
    pub fn from_services(services: HostServices) -> Self {
        Self { services }
    }

    /// Writes `message` to the host's log at `level`, tagged with this plugin's slug.
    pub fn log(&self, level: LogLevel, message: &str) {
        (self.services.log)(self.services.token, level as u8, RStr::from(message));
    }

    /// Increments a counter named `datahost_plugin_<name>` labelled with this plugin.
    pub fn count(&self, name: &str, value: f64) {
        (self.services.metric)(self.services.token, 0, RStr::from(name), value, RStr::from("{}"));
    }

    /// The raw JSON snapshot of a dataset from the records engine.
    pub fn load_dataset_raw(&self, dataset: &str) -> Result<String, HostError> {
        (self.services.load_dataset)(self.services.token, RStr::from(dataset)).into_result().map_err(HostError::Refused)
    }

    /// A dataset snapshot from the records engine, deserialised into `T`.
    pub fn load_dataset<T: DeserializeOwned>(&self, dataset: &str) -> Result<T, HostError> {
        let raw = self.load_dataset_raw(dataset)?;
        serde_json::from_str(&raw).map_err(|source| HostError::DatasetShape { dataset: dataset.into(), source })
    }

    /// Runs a parameterised SQL query in the plugin's own schema (`{schema}`, see [`crate::Plugin::migrations`]).
    /// Rows come back as JSON objects. PostgreSQL only: the embedded engine refuses it, so a plugin using it runs
    /// on one engine; [`Host::query_records`] and [`Host::search_words`] run on both.
    pub fn query(&self, sql: &str, params: &[serde_json::Value]) -> Result<Vec<serde_json::Value>, HostError> {
        let request = serde_json::json!({ "sql": sql, "params": params }).to_string();
        let raw = (self.services.query)(self.services.token, RStr::from(request.as_str()))
            .into_result()
            .map_err(HostError::Refused)?;
        let mut doc: serde_json::Value =
            serde_json::from_str(&raw).map_err(|source| HostError::Unreadable { call: "query".into(), source })?;
        match doc.get_mut("rows").map(serde_json::Value::take) {
            Some(serde_json::Value::Array(rows)) => Ok(rows),
            _ => Err(HostError::UnexpectedAnswer { call: "query".into(), answer: "an answer without rows".into() }),
        }
    }

    /// A named host call with JSON in and out.
    pub fn call(&self, name: &str, input: &serde_json::Value) -> Result<serde_json::Value, HostError> {
        self.call_text(name, &input.to_string())
    }

    /// A named host call with typed input and output.
    fn call_typed<I: serde::Serialize + ?Sized, O: DeserializeOwned>(
        &self,
        call: &'static str,
        input: &I,
    ) -> Result<O, HostError> {
        let input = serde_json::to_string(input).map_err(|source| HostError::Input { call: call.into(), source })?;
        self.call_text(call, &input)
    }

    /// A named host call on JSON text, its answer read straight into `O` (no `Value` in between: a records page
    /// is read once, not built as values and then rebuilt); an empty answer reads as `null`.
    fn call_text<O: DeserializeOwned>(&self, name: &str, input: &str) -> Result<O, HostError> {
        let raw = (self.services.call)(self.services.token, RStr::from(name), RStr::from(input))
            .into_result()
            .map_err(HostError::Refused)?;
        let text = if raw.is_empty() { "null" } else { raw.as_str() };
        serde_json::from_str(text).map_err(|source| HostError::Unreadable { call: name.into(), source })
    }

    /// Resolves tickers, CIKs and names through the host's `companies` reference dataset, one answer per
    /// query (`None` where nothing matches, or while no company list has been ingested).
    pub fn resolve_companies(
        &self,
        queries: &[crate::reference::CompanyQuery],
    ) -> Result<Vec<Option<crate::reference::CompanyRef>>, HostError> {
        self.call_typed(crate::reference::RESOLVE_CALL, queries)
    }

    /// Reads another dataset through its public API: the body `route` answers for `query` to an owner key
    /// (for example `get_route("/v1/insiders", &[])`). Derived datasets use this instead of reading another
    /// plugin's stored records, so they depend only on the API contract. Call it while serving (lazily), not in
    /// `init`: the other plugin may not be initialised yet. A plugin cannot call its own routes.
    pub fn get_route(&self, route: &str, query: &[(&str, &str)]) -> Result<serde_json::Value, HostError> {
        let input = serde_json::json!({ "route": route, "query": query });
        self.call("route.get", &input)
    }

    /// Looks up stored records by declared fields (see [`crate::query`]): the records of the dataset's current
    /// generation matching every filter, in ingest order.
    pub fn query_records(&self, query: &crate::query::RecordsQuery) -> Result<crate::query::RecordsPage, HostError> {
        self.call_typed(crate::query::QUERY_CALL, query)
    }

    /// Finds documents by words (see [`crate::words`]): one page of document keys in order, and the count.
    pub fn search_words(&self, search: &crate::words::WordSearch) -> Result<crate::words::WordHits, HostError> {
        self.call_typed(crate::words::WORDS_CALL, search)
    }

    /// Finds documents by words and reads their records with the page ([`crate::words::WordPage`]), from a
    /// host that announces [`crate::words::WORD_PAGE_RECORDS`] ([`Host::capabilities`]); others refuse the call.
    pub fn search_word_page(&self, search: &crate::words::WordSearch) -> Result<crate::words::WordPage, HostError> {
        self.call_typed(crate::words::WORD_PAGE_CALL, search)
    }

    /// Every record a query matches, read page by page (each page at most [`crate::query::MAX_QUERY_LIMIT`]
    /// records), in ingest order. For lookups whose answer may exceed one page (an issuer's Form 4 rows over
    /// decades); `query.limit` and `query.offset` are replaced.
    pub fn query_all_records(&self, query: &crate::query::RecordsQuery) -> Result<Vec<serde_json::Value>, HostError> {
        let mut all = Vec::new();
        loop {
            let page_query = query.clone().limit(crate::query::MAX_QUERY_LIMIT).offset(all.len());
            let page = self.query_records(&page_query)?;
            all.extend(page.records);
            if !page.truncated {
                return Ok(all);
            }
        }
    }

    /// A directory of the plugin's own, kept across restarts (`<engine.data_dir>/plugins/<slug>`, local to this
    /// host even when the records engine is shared): for files derived from the records that are costly to
    /// rebuild, such as a search index. Never the records themselves.
    pub fn plugin_dir(&self) -> Result<std::path::PathBuf, HostError> {
        let out = self.call(PLUGIN_DIR_CALL, &serde_json::Value::Null)?;
        out.as_str()
            .map(std::path::PathBuf::from)
            .ok_or_else(|| HostError::UnexpectedAnswer { call: PLUGIN_DIR_CALL.into(), answer: out.to_string() })
    }

    /// What the host can do beyond ABI 1 as first released ([`HEADER_PAIRS`]...); empty for a host that
    /// predates the [`CAPABILITIES_CALL`] (it answers an unknown call with an error).
    /// An answer that does not read is logged and taken as none (the SDK then writes headers as older hosts
    /// read them).
    pub fn capabilities(&self) -> Vec<String> {
        let answer = match self.call(CAPABILITIES_CALL, &serde_json::Value::Null) {
            Ok(answer) => answer,
            // How a host older than the call answers it: no capabilities, nothing to say.
            Err(HostError::Refused(_)) => return Vec::new(),
            Err(e) => {
                self.log(LogLevel::Warn, &format!("{CAPABILITIES_CALL}: {e}; taken as no capabilities"));
                return Vec::new();
            }
        };
        serde_json::from_value(answer).unwrap_or_else(|e| {
            self.log(
                LogLevel::Warn,
                &format!("{CAPABILITIES_CALL}: the answer is not a list of names ({e}); taken as none"),
            );
            Vec::new()
        })
    }

    /// Which records engine backs the host: `embedded` or `postgres` (via the `engine.kind` host call). A
    /// failed call or an answer that is not text is logged and read as `embedded`.
    pub fn engine_kind(&self) -> String {
        match self.call(ENGINE_KIND_CALL, &serde_json::Value::Null) {
            Ok(serde_json::Value::String(kind)) => kind,
            Ok(other) => {
                self.log(LogLevel::Warn, &format!("{ENGINE_KIND_CALL}: the host answered {other}; taken as embedded"));
                "embedded".into()
            }
            Err(e) => {
                self.log(LogLevel::Warn, &format!("{ENGINE_KIND_CALL}: {e}; taken as embedded"));
                "embedded".into()
            }
        }
    }
}

/// The host call answering [`Host::engine_kind`].
const ENGINE_KIND_CALL: &str = "engine.kind";

/// The host call answering [`Host::plugin_dir`].
pub const PLUGIN_DIR_CALL: &str = "plugin.dir";

/// The host call answering [`Host::capabilities`] (SDK 2.1): a JSON array of strings.
pub const CAPABILITIES_CALL: &str = "host.capabilities";

/// A host capability: it reads an answer's headers as a JSON array of `[name, value]` pairs, so a header may
/// repeat and keeps its place. Without it (older hosts) the SDK sends a JSON object, where a repeated name keeps
/// only its last value.
pub const HEADER_PAIRS: &str = "headers:pairs";

/// A host capability: it keeps finished answers in its own response cache, sized (and switched off) by its
/// operator's `[cache]` settings, so the SDK keeps no second copy of an instance's answers. An older host does
/// not announce it and the SDK keeps its own, as before.
pub const ANSWER_CACHE: &str = "answers:cached";

/// A host capability: it reads [`crate::abi::OUTCOME_OK_WRITTEN_JSON`], an answer whose body the SDK wrote with
/// serde_json, and does not check that body for JSON again (it checks every other 2xx body).
pub const WRITTEN_JSON: &str = "outcome:written-json";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::FfiReply;
    use std::sync::Mutex;

    // A host whose answers do not read: every call answers `{"odd": true}`; log lines are kept here (one
    // test at a time touches it, under the lock).
    static LOGGED: Mutex<Vec<String>> = Mutex::new(Vec::new());

    extern "C" fn log(_token: u64, level: u8, message: RStr<'_>) {
        LOGGED.lock().unwrap_or_else(|e| e.into_inner()).push(format!("{level}: {message}"));
    }
    extern "C" fn metric(_token: u64, _kind: u8, _name: RStr<'_>, _value: f64, _labels: RStr<'_>) {}
    extern "C" fn refuse(_token: u64, _input: RStr<'_>) -> FfiReply {
        FfiReply::err("no")
    }
    extern "C" fn odd_answer(_token: u64, _name: RStr<'_>, _input: RStr<'_>) -> FfiReply {
        FfiReply::ok(r#"{"odd": true}"#)
    }

    #[test]
    fn answers_that_do_not_read_are_logged_before_the_default_is_taken() {
        let host = Host::from_services(HostServices {
            token: 0,
            log,
            metric,
            load_dataset: refuse,
            query: refuse,
            call: odd_answer,
        });
        let mut logged = LOGGED.lock().unwrap_or_else(|e| e.into_inner());
        logged.clear();
        drop(logged);
        assert!(host.capabilities().is_empty());
        assert_eq!(host.engine_kind(), "embedded");
        let logged = LOGGED.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(logged.len(), 2, "{logged:?}");
        assert!(logged[0].starts_with("1: host.capabilities: the answer is not a list of names"), "{logged:?}");
        assert!(logged[1].starts_with("1: engine.kind: the host answered {\"odd\":true}"), "{logged:?}");
    }

    #[test]
    fn a_host_predating_capabilities_says_nothing() {
        let older = crate::testing::TestHost::new().predating_capabilities();
        assert!(older.host().capabilities().is_empty());
        assert!(older.logs().is_empty(), "{:?}", older.logs());
    }
}
