//! Black-box test harness: starts the real `datahost` binary with the real plugin `.so` files on port 0,
//! with a temporary config and key store, and talks HTTP to it.
//!
//! The binary and plugins come from the same target profile as the test executable
//! (`target/<profile>/datahost` and `target/<profile>/lib*.so`); build them first with
//! `cargo build --workspace` (the README's test command does).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

pub mod schema;

/// How long a wait for something the server does on its own (a reload, a recovery, an event) may last before the
/// test gives up. A hang guard, not a timing claim: it only bounds how long a broken build keeps CI waiting, so it
/// is generous and the same everywhere. No black-box test asserts how long anything took; speed is measured by the
/// benchmarks in tests/bench, and tests wait for signals (an event in the server's output, a health field, a
/// metric) rather than sleeping for a guessed time.
pub const HANG_GUARD: Duration = Duration::from_secs(120);

/// Polls `probe` (every 50 ms) until it answers `Ok`; panics naming `what` and the last observation (the `Err`)
/// once [`HANG_GUARD`] has passed.
pub fn eventually<T>(what: &str, mut probe: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        match probe() {
            Ok(v) => return v,
            Err(last) => {
                assert!(Instant::now() < deadline, "{what}: still not so after {HANG_GUARD:?}; last seen: {last}")
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// [`eventually`] for a yes/no probe.
pub fn until(what: &str, mut check: impl FnMut() -> bool) {
    eventually(what, || if check() { Ok(()) } else { Err("not yet".into()) })
}

/// The value of the sample of Prometheus text `metrics` whose line starts with `series` (name and labels as
/// rendered), if any.
pub fn sample(metrics: &str, series: &str) -> Option<f64> {
    metrics.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.trim().parse().ok())
}

/// The folder holding the `datahost` binary and the plugin libraries of this build profile.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // target/<profile>/deps/<test-binary>
    exe.parent().and_then(Path::parent).expect("target/<profile>").to_path_buf()
}

/// Path of the `datahost` binary under test.
pub fn datahost_bin() -> PathBuf {
    let bin = target_dir().join("datahost");
    assert!(bin.exists(), "{} is missing: run `cargo build --workspace` before the black-box tests", bin.display());
    bin
}

/// A file of the shared corpus of real official filings (`../shared/corpus` beside the repository), or `None`
/// (with a note on stderr) when the corpus is absent, so corpus tests skip outside CI.
pub fn corpus(relative: &str) -> Option<PathBuf> {
    let path = workspace_root().join("../shared/corpus").join(relative);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("corpus file {} absent: skipping", path.display());
        None
    }
}

/// The workspace root (for `config/` and fixtures).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A folder holding copies (symlinks) of the workspace's real plugin libraries, optionally plus extra ones.
pub fn plugin_dir_with(extra: &[PathBuf]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(target_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("libdatahost_") && name.ends_with(".so") {
            std::os::unix::fs::symlink(&path, dir.path().join(&name)).unwrap();
        }
    }
    for path in extra {
        std::os::unix::fs::symlink(path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// Options for one server instance.
#[derive(Default, Clone)]
pub struct ServerOptions {
    /// Extra TOML appended to the generated config.
    pub extra_toml: String,
    /// Plugin folder; `None` means the workspace's real plugins.
    pub plugins_dir: Option<PathBuf>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Key store file to share with another server; `None` gives a fresh one.
    pub keys_file: Option<PathBuf>,
    /// Do not issue the owner key (for servers whose key store is unreachable on purpose).
    pub no_owner_key: bool,
    /// The embedded engine's folder (`engine.data_dir`) to share with another server; `None` gives a fresh
    /// one, so no test sees another's ingested records.
    pub data_dir: Option<PathBuf>,
}

/// Puts `engine.data_dir = dir` into a config's extra TOML (inside its `[engine]` table when it has one).
fn with_data_dir(extra_toml: &str, dir: &Path) -> String {
    let line = format!("data_dir = {:?}\n", dir.display().to_string());
    if extra_toml.contains("[engine]\n") {
        extra_toml.replacen("[engine]\n", &format!("[engine]\n{line}"), 1)
    } else {
        format!("{extra_toml}\n[engine]\n{line}")
    }
}

/// Splits a `[plugins]` table out of a config's extra TOML: (its keys, the rest), so the keys join the
/// `[plugins]` table the harness writes (TOML allows a table once).
fn take_plugins_table(extra_toml: &str) -> (String, String) {
    let (mut keys, mut rest, mut inside) = (String::new(), String::new(), false);
    for line in extra_toml.lines() {
        if line.trim_start().starts_with('[') {
            inside = line.trim() == "[plugins]";
            if inside {
                continue;
            }
        }
        let out = if inside { &mut keys } else { &mut rest };
        out.push_str(line);
        out.push('\n');
    }
    (keys, rest)
}

/// A running `datahost serve` process, killed on drop.
pub struct Server {
    child: Child,
    pub api: SocketAddr,
    pub metrics: SocketAddr,
    pub owner_key: String,
    pub keys_file: PathBuf,
    pub config_file: PathBuf,
    /// `engine.data_dir` of this server (its embedded database).
    pub data_dir: PathBuf,
    pub stderr_lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// Every key issued through this server's harness (the owner key, `issue_key`, `cli(["keys", "issue"..])`):
    /// no response read through the harness may carry one (checked as each is read).
    issued_keys: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// The readers of the server's stdout and stderr, joined on drop so every line is scanned for keys.
    readers: Vec<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
    _plugins: Option<tempfile::TempDir>,
    http: reqwest::blocking::Client,
}

impl Server {
    /// All real plugins, embedded engine, in-process limiter, one owner key.
    pub fn start() -> Server {
        Self::start_with(ServerOptions::default())
    }

    pub fn start_with(options: ServerOptions) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let keys_file = options.keys_file.clone().unwrap_or_else(|| dir.path().join("keys.json"));
        let (plugins_dir, plugins_guard) = match &options.plugins_dir {
            Some(p) => (p.clone(), None),
            None => {
                let d = plugin_dir_with(&[]);
                (d.path().to_path_buf(), Some(d))
            }
        };
        let data_dir = options.data_dir.clone().unwrap_or_else(|| dir.path().join("data"));
        let config_file = dir.path().join("datahost.toml");
        let (plugin_keys, extra) = take_plugins_table(&options.extra_toml);
        let config = format!(
            "[server]\nlisten = \"127.0.0.1:0\"\nbase_url = \"http://localhost\"\n\n[metrics]\nlisten = \"127.0.0.1:0\"\n\n\
             [plugins]\ndir = {plugins:?}\n{plugin_keys}\n[keys]\nfile = {keys:?}\n\n{extra}\n",
            plugins = plugins_dir.display().to_string(),
            keys = keys_file.display().to_string(),
            extra = with_data_dir(&extra, &data_dir),
        );
        std::fs::write(&config_file, config).unwrap();
        let owner_key = if options.no_owner_key {
            String::new()
        } else {
            run_cli(&config_file, &["keys", "issue", "--tier", "owner", "--label", "black-box tests"], &options.env)
                .trim()
                .to_string()
        };

        let mut cmd = Command::new(datahost_bin());
        cmd.arg("serve")
            .env("DATAHOST_CONFIG", &config_file)
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &options.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn datahost");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let stderr_lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = stderr_lines.clone();
        let stderr_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let (tx, rx) = mpsc::channel();
        // stdout lines are kept with the stderr ones: both are scanned for keys when the server is dropped.
        let sink = stderr_lines.clone();
        let stdout_reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    if v["event"] == "listening" {
                        let _ = tx.send(v);
                    }
                }
                sink.lock().unwrap().push(line);
            }
        });
        let ready = match rx.recv_timeout(HANG_GUARD) {
            Ok(v) => v,
            Err(_) => {
                let _ = child.kill();
                panic!("datahost did not start; stderr:\n{}", stderr_lines.lock().unwrap().join("\n"));
            }
        };
        let api = ready["api"].as_str().unwrap().parse().unwrap();
        let metrics = ready["metrics"].as_str().unwrap().parse().unwrap();
        let issued_keys = std::sync::Arc::new(std::sync::Mutex::new(
            Some(owner_key.clone()).filter(|k| !k.is_empty()).into_iter().collect(),
        ));
        Server {
            child,
            api,
            metrics,
            owner_key,
            keys_file,
            config_file,
            data_dir,
            stderr_lines,
            issued_keys,
            readers: vec![stderr_reader, stdout_reader],
            _dir: dir,
            _plugins: plugins_guard,
            http: reqwest::blocking::Client::builder().timeout(Duration::from_secs(30)).build().unwrap(),
        }
    }

    pub fn url(&self, path_and_query: &str) -> String {
        format!("http://{}{}", self.api, path_and_query)
    }

    /// GET with the owner key; returns status and JSON body.
    pub fn get(&self, path_and_query: &str) -> (u16, Value) {
        let key = self.owner_key.clone();
        self.get_with(path_and_query, &[("X-API-Key", &key)])
    }

    /// GET with the given headers; returns status and JSON body (`Value::Null` when not JSON).
    pub fn get_with(&self, path_and_query: &str, headers: &[(&str, &str)]) -> (u16, Value) {
        let resp = self.request(path_and_query, headers);
        let status = resp.status().as_u16();
        let text = resp.text().unwrap_or_default();
        self.assert_no_issued_key(&text, path_and_query);
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// GET returning the raw response, for header assertions. Its headers are checked for issued keys here;
    /// its body, by the caller's reading (`get_with` does).
    pub fn request(&self, path_and_query: &str, headers: &[(&str, &str)]) -> reqwest::blocking::Response {
        let mut req = self.http.get(self.url(path_and_query));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = req.send().expect("request");
        for (name, value) in resp.headers() {
            self.assert_no_issued_key(
                &format!("{name}: {}", String::from_utf8_lossy(value.as_bytes())),
                path_and_query,
            );
        }
        resp
    }

    /// Panics unless `body`, a 200 answer to `path_and_query`, holds to that route's 200 schema in the server's
    /// `/openapi.json`.
    pub fn assert_answer_documented(&self, path_and_query: &str, body: &Value) {
        let (status, doc) = self.get_with("/openapi.json", &[]);
        assert_eq!(status, 200, "{doc}");
        let path = path_and_query.split('?').next().unwrap_or(path_and_query);
        let schema = &doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
        assert!(schema.is_object(), "{path}: no 200 schema");
        let problems = schema::violations(&doc, schema, body);
        assert!(problems.is_empty(), "{path_and_query} breaks its documented schema:\n{}", problems.join("\n"));
    }

    /// Holds what the server serves to what its `/openapi.json` documents: every route's documented example and
    /// its 200 answers to the parameters' own examples (the required ones, then each optional one added in turn),
    /// and the 200 answers to `also` (requests a test knows reach its data, such as ingested records), each to its
    /// route's 200 schema ([`schema::violations`]). Every route must answer one of its example requests, or one of
    /// `also`. Returns
    /// how many answers were checked; panics listing every violation.
    pub fn assert_documented(&self, also: &[&str]) -> usize {
        let (status, doc) = self.get_with("/openapi.json", &[]);
        assert_eq!(status, 200, "{doc}");
        let schema_of = |path: &str| {
            let ok = &doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"];
            assert!(ok["schema"].is_object(), "{path}: no 200 schema");
            ok.clone()
        };
        let (mut problems, mut checked) = (Vec::<String>::new(), 0);
        let check = |target: &str, schema: &Value, body: &Value| -> Vec<String> {
            schema::violations(&doc, schema, body).into_iter().map(|v| format!("{target}: {v}")).collect()
        };
        // The requests the test names first: what they answer counts for their route.
        let mut answered: Vec<&str> = Vec::new();
        for target in also {
            let path = target.split('?').next().unwrap_or(target);
            match self.get(target) {
                (200, body) => {
                    checked += 1;
                    answered.push(path);
                    problems.extend(check(target, &schema_of(path)["schema"], &body));
                }
                (status, body) => problems.push(format!("{target}: {status} {body}")),
            }
        }
        for (path, item) in doc["paths"].as_object().expect("paths") {
            let ok = schema_of(path);
            problems.extend(check(&format!("{path} (documented example)"), &ok["schema"], &ok["example"]));
            let params = item["get"]["parameters"].as_array().cloned().unwrap_or_default();
            let example_of = |p: &Value| match &p["example"] {
                Value::String(s) => Some(s.clone()),
                Value::Null => None,
                other => Some(other.to_string()),
            };
            let name = |p: &Value| p["name"].as_str().expect("a parameter name").to_string();
            let required: Vec<(String, String)> = params
                .iter()
                .filter(|p| p["required"] == true)
                .map(|p| (name(p), example_of(p).expect("a required parameter's example")))
                .collect();
            let mut queries = vec![required.clone()];
            for p in params.iter().filter(|p| p["required"] != true) {
                if let Some(example) = example_of(p) {
                    queries.push(required.iter().cloned().chain([(name(p), example)]).collect());
                }
            }
            let mut refusals = Vec::new();
            for query in &queries {
                let mut url = reqwest::Url::parse("http://localhost").unwrap().join(path).unwrap();
                if !query.is_empty() {
                    url.query_pairs_mut().extend_pairs(query);
                }
                let target = format!("{}{}", url.path(), url.query().map(|q| format!("?{q}")).unwrap_or_default());
                match self.get(&target) {
                    (200, body) => {
                        checked += 1;
                        problems.extend(check(&target, &ok["schema"], &body));
                    }
                    // An example may match nothing, or need another parameter beside it.
                    (status, body) => refusals.push(format!("{target}: {status} {body}")),
                }
            }
            // Examples of the demo seed may match no ingested record: then a request the test named must have been.
            if refusals.len() == queries.len() && !answered.contains(&path.as_str()) {
                problems.push(format!("{path}: no example request was answered: {refusals:?}"));
            }
        }
        assert!(problems.is_empty(), "served or documented bodies that break their schema:\n{}", problems.join("\n"));
        checked
    }

    /// Fails the test when `text` (a response produced for `context`) contains a key issued for this server.
    pub fn assert_no_issued_key(&self, text: &str, context: &str) {
        for key in self.issued_keys.lock().unwrap().iter() {
            assert!(!text.contains(key.as_str()), "an issued API key appeared in the response to {context}: {text}");
        }
    }

    fn remember_key(&self, key: &str) {
        self.issued_keys.lock().unwrap().push(key.to_string());
    }

    /// The Prometheus text from the metrics listener.
    pub fn metrics_text(&self) -> String {
        self.http.get(format!("http://{}/metrics", self.metrics)).send().unwrap().text().unwrap()
    }

    /// The value of one series of `/metrics` (name and labels as rendered, e.g. `x_total{plugin="vin"}`), if any.
    pub fn metric(&self, series: &str) -> Option<f64> {
        sample(&self.metrics_text(), series)
    }

    /// Issues a key of `tier` through the CLI against this server's key store.
    pub fn issue_key(&self, tier: &str) -> String {
        let key = run_cli(&self.config_file, &["keys", "issue", "--tier", tier], &[]).trim().to_string();
        self.remember_key(&key);
        key
    }

    /// Runs a `datahost` CLI command against this server's config.
    pub fn cli(&self, args: &[&str]) -> String {
        let out = run_cli(&self.config_file, args, &[]);
        if args.starts_with(&["keys", "issue"]) {
            self.remember_key(out.trim());
        }
        out
    }

    /// Runs `datahost ingest <dataset> <paths...>` (plus `extra` arguments such as `--json`) against this
    /// server's config: (exit code, stdout, stderr).
    pub fn ingest(&self, dataset: &str, paths: &[&Path], extra: &[&str]) -> (i32, String, String) {
        let mut args: Vec<String> = vec!["ingest".into(), dataset.into()];
        args.extend(paths.iter().map(|p| p.display().to_string()));
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_cli_raw(&self.config_file, &args)
    }

    /// Polls `/health` until `dataset` reports ingested data satisfying `ready` (the server reloads on its
    /// own; this only waits for it). Panics with the last health document after [`HANG_GUARD`].
    pub fn wait_for_data(&self, dataset: &str, ready: impl Fn(&Value) -> bool) -> Value {
        eventually(&format!("{dataset} served as ingested"), || {
            let (_, health) = self.get_with("/health", &[]);
            let status = &health["data"][dataset];
            if status["data"] == "ingested" && ready(status) {
                Ok(status.clone())
            } else {
                Err(health.to_string())
            }
        })
    }

    /// Polls `path` (with the owner key) until its body satisfies `ready`: for datasets derived from others,
    /// which reload just after the dataset they read. Panics with the last body after [`HANG_GUARD`].
    pub fn wait_for_route(&self, path: &str, ready: impl Fn(&Value) -> bool) -> Value {
        eventually(&format!("{path} ready"), || {
            let (status, body) = self.get(path);
            if status == 200 && ready(&body) {
                Ok(body)
            } else {
                Err(format!("{status} {body}"))
            }
        })
    }

    /// Waits for the first line of the server's output (stderr and stdout) containing `text`, the way a test
    /// waits for an event the server reports (a key revocation applied, a plugin at work, a shutdown begun).
    pub fn wait_for_output(&self, text: &str) -> String {
        self.wait_for_line(&format!("{text:?}"), |line| line.contains(text))
    }

    /// Waits for the first line of the server's output that satisfies `matches`; `what` names it in the panic.
    pub fn wait_for_line(&self, what: &str, matches: impl Fn(&str) -> bool) -> String {
        eventually(&format!("the server's output shows {what}"), || {
            let lines = self.stderr_lines.lock().unwrap();
            lines.iter().find(|l| matches(l)).cloned().ok_or_else(|| format!("{} lines", lines.len()))
        })
    }

    pub fn stderr(&self) -> String {
        self.stderr_lines.lock().unwrap().join("\n")
    }

    /// Sends SIGTERM and waits for exit; returns the exit status code (`None` when the server had to be killed
    /// after [`HANG_GUARD`]).
    pub fn terminate(self) -> Option<i32> {
        self.sigterm();
        self.wait_for_exit()
    }

    /// Sends SIGTERM without waiting: the server begins its graceful stop (its output says so).
    pub fn sigterm(&self) {
        unsafe_sigterm(self.child.id());
    }

    /// Waits for the server to exit on its own; returns the exit status code (`None` when it had to be killed
    /// after [`HANG_GUARD`]).
    pub fn wait_for_exit(mut self) -> Option<i32> {
        let deadline = Instant::now() + HANG_GUARD;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

fn unsafe_sigterm(pid: u32) {
    let _ = Command::new("kill").arg("-TERM").arg(pid.to_string()).status();
}

impl Drop for Server {
    /// Stops the server, then reads everything it printed: no line may hold an API key, valid or not (the
    /// `svc_live_` form followed by key characters), so every black-box test also proves the logs keep keys out.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The pipes are closed once the process is gone, so the readers finish.
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
        if std::thread::panicking() {
            return;
        }
        let lines = self.stderr_lines.lock().unwrap();
        if let Some(line) = lines.iter().find(|l| holds_key(l)) {
            panic!("an API key reached the server's output: {line}");
        }
        let issued = self.issued_keys.lock().unwrap();
        if let Some(line) = lines.iter().find(|l| issued.iter().any(|k| l.contains(k.as_str()))) {
            panic!("an issued API key reached the server's output: {line}");
        }
    }
}

/// Whether `text` holds something shaped like an API key: `svc_live_` and at least 8 key characters.
pub fn holds_key(text: &str) -> bool {
    const PREFIX: &str = "svc_live_";
    text.match_indices(PREFIX)
        .any(|(at, _)| text[at + PREFIX.len()..].bytes().take_while(u8::is_ascii_hexdigit).count() >= 8)
}

#[cfg(test)]
mod tests {
    #[test]
    fn key_shapes_are_recognised_in_log_lines() {
        assert!(super::holds_key("auth failed key=svc_live_0123456789abcdef0123456789abcdef tier=free"));
        assert!(super::holds_key("svc_live_00000000"));
        assert!(!super::holds_key("keys look like svc_live_<32 hex>"));
        assert!(!super::holds_key("svc_live_123"));
        assert!(!super::holds_key("no key here"));
    }
}

/// Runs the CLI with `DATAHOST_CONFIG` pointing at `config`; panics with its stderr when it fails.
pub fn run_cli(config: &Path, args: &[&str], env: &[(String, String)]) -> String {
    let mut cmd = Command::new(datahost_bin());
    cmd.args(args).env("DATAHOST_CONFIG", config);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run datahost");
    assert!(out.status.success(), "datahost {args:?} failed: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Runs the CLI and returns (exit code, stdout, stderr) without asserting success.
pub fn run_cli_raw(config: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(datahost_bin()).args(args).env("DATAHOST_CONFIG", config).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts the SPEC error envelope: `error` (non-empty string) and `code` equal to the status.
pub fn assert_envelope(status: u16, body: &Value, expected_status: u16) {
    assert_eq!(status, expected_status, "body: {body}");
    assert!(body["error"].as_str().is_some_and(|s| !s.is_empty()), "no error message: {body}");
    assert_eq!(body["code"], expected_status, "body: {body}");
}

/// Builds the fixture plugins (a separate Cargo project under `tests/fixtures`, with its own target dir)
/// once per test process and returns the folder holding their libraries.
pub fn fixture_plugins() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let root = workspace_root().join("tests/fixtures");
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let out = Command::new(cargo)
                .args(["build", "--quiet", "--manifest-path"])
                .arg(root.join("Cargo.toml"))
                .arg("--target-dir")
                .arg(root.join("target"))
                .output()
                .expect("run cargo for the fixture plugins");
            assert!(out.status.success(), "building fixture plugins failed:\n{}", String::from_utf8_lossy(&out.stderr));
            root.join("target/debug")
        })
        .clone()
}

/// The path of one fixture plugin library, e.g. `fixture("panics")`.
pub fn fixture(name: &str) -> PathBuf {
    fixture_plugins().join(format!("libfixture_{}.so", name.replace('-', "_")))
}

/// Waits until the current UTC minute has at least `secs` seconds left, so a burst of requests lands in one
/// rate-limit window. This only schedules the test; nothing is asserted about time.
pub fn wait_for_window_with(secs: u64) {
    loop {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        if 60 - now % 60 >= secs {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// PostgreSQL helpers: every test gets its own database on the machine's server (127.0.0.1:5432), dropped
/// when the guard goes out of scope, so tests run in parallel without seeing each other's data.
pub mod pg {
    use std::process::Command;

    pub const ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

    /// A throwaway database.
    pub struct TestDb {
        pub name: String,
    }

    impl TestDb {
        pub fn create(prefix: &str) -> TestDb {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
            let name = format!("dh_{}_{}_{}", prefix.replace('-', "_"), std::process::id(), nanos % 1_000_000_000);
            let mut client = postgres::Client::connect(ADMIN_URL, postgres::NoTls)
                .expect("PostgreSQL on 127.0.0.1:5432 (tests/run.sh starts it)");
            client.batch_execute(&format!("CREATE DATABASE \"{name}\"")).unwrap();
            TestDb { name }
        }

        /// The URL the host uses (with a dummy password, to prove it never shows up anywhere).
        pub fn url(&self) -> String {
            format!("postgres://postgres:not-a-real-password@127.0.0.1:5432/{}", self.name)
        }

        pub fn client(&self) -> postgres::Client {
            postgres::Client::connect(&format!("postgres://postgres@127.0.0.1:5432/{}", self.name), postgres::NoTls)
                .unwrap()
        }

        /// TOML selecting this database as the records engine.
        pub fn engine_toml(&self) -> String {
            format!("[engine]\nurl = \"{}\"\nreload_interval_secs = 1\n", self.url())
        }

        /// The schemas of this database other than PostgreSQL's own (`pg_*`, `information_schema`), sorted.
        pub fn schemas(&self) -> Vec<String> {
            self.client()
                .query(
                    "SELECT nspname::text FROM pg_namespace
                     WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1",
                    &[],
                )
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect()
        }
    }

    /// A dataset served from its demo seed on PostgreSQL: every query answers exactly as on the embedded engine,
    /// the plugin has made no schema of its own (`plugin_<slug>`: the shipped plugins write no SQL), and a
    /// repeated answer is reused by the response cache (the seed cannot change under a running host).
    pub fn assert_seed_served_as_embedded<Q: AsRef<str>>(db: &TestDb, plugin: &str, queries: &[Q]) {
        let engine =
            crate::Server::start_with(crate::ServerOptions { extra_toml: db.engine_toml(), ..Default::default() });
        let embedded = crate::Server::start();
        for q in queries {
            assert_eq!(engine.get(q.as_ref()), embedded.get(q.as_ref()), "{}", q.as_ref());
        }
        let own_schema = format!("plugin_{}", plugin.replace('-', "_"));
        assert!(!db.schemas().contains(&own_schema), "{plugin} made tables of its own: {:?}", db.schemas());
        let hits_series = format!("datahost_response_cache_hits_total{{plugin=\"{plugin}\"}}");
        let hits = || engine.metric(&hits_series).unwrap_or(0.0);
        let (before, first) = (hits(), queries[0].as_ref());
        assert_eq!(engine.get(first).0, 200, "{first} must be a dataset answer");
        assert_eq!(hits(), before + 1.0, "{first} again is a cache hit");
    }

    impl Drop for TestDb {
        fn drop(&mut self) {
            if let Ok(mut c) = postgres::Client::connect(ADMIN_URL, postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name));
            }
        }
    }

    /// The folder of the PostgreSQL server binaries (initdb, pg_ctl), for tests that run a private cluster.
    pub fn bin_dir() -> std::path::PathBuf {
        let out = Command::new("pg_config").arg("--bindir").output().expect("pg_config");
        std::path::PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    }
}

/// A port nothing listens on (bound, read, released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// PostgreSQL and Redis servers a test starts, owns and kills, with or without TLS.
pub mod private {
    use std::path::PathBuf;
    use std::process::{Child, Command, Stdio};

    use super::free_port;
    use super::pg::bin_dir;

    /// A test certificate authority and a server certificate it signed for `localhost` and `127.0.0.1`, made with
    /// the openssl command line in a temporary folder.
    pub struct TestCerts {
        pub dir: tempfile::TempDir,
    }

    impl TestCerts {
        pub fn new() -> TestCerts {
            let dir = tempfile::Builder::new().prefix("dh-tls-").tempdir_in("/tmp").unwrap();
            let d = dir.path().display();
            let script = format!(
                "set -e; cd {d}
                 openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=datahost-test-ca \
                   -keyout ca.key -out ca.pem 2>/dev/null
                 openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr 2>/dev/null
                 printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > ext.cnf
                 openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
                   -extfile ext.cnf -out server.pem 2>/dev/null
                 chmod 644 ca.pem server.pem server.key"
            );
            let status = Command::new("sh").arg("-c").arg(script).status().expect("openssl");
            assert!(status.success(), "openssl could not make the test certificates");
            TestCerts { dir }
        }

        pub fn ca(&self) -> PathBuf {
            self.dir.path().join("ca.pem")
        }

        pub fn cert(&self) -> PathBuf {
            self.dir.path().join("server.pem")
        }

        pub fn key(&self) -> PathBuf {
            self.dir.path().join("server.key")
        }
    }

    impl Default for TestCerts {
        fn default() -> Self {
            Self::new()
        }
    }

    /// A private PostgreSQL cluster on a free port, owned by the `postgres` system user (initdb refuses root).
    pub struct PrivateCluster {
        dir: tempfile::TempDir,
        pub port: u16,
        /// Extra `-c name=value` server options (TLS).
        options: String,
    }

    impl PrivateCluster {
        pub fn start() -> PrivateCluster {
            Self::init(None)
        }

        /// A cluster that accepts only TLS connections over TCP (`hostssl` in pg_hba.conf), with `certs`' server
        /// certificate.
        pub fn start_tls_only(certs: &TestCerts) -> PrivateCluster {
            Self::init(Some(certs))
        }

        fn init(certs: Option<&TestCerts>) -> PrivateCluster {
            let mut options = String::new();
            let dir = tempfile::Builder::new().prefix("dh-pg-").tempdir_in("/tmp").unwrap();
            let d = dir.path().display();
            as_postgres(&format!("chown postgres {d} && chmod 700 {d}"), true);
            as_postgres(&format!("{}/initdb -D {d}/data -U postgres -A trust >/dev/null", bin_dir().display()), false);
            if let Some(certs) = certs {
                // The key must belong to the server's user and be private to it.
                as_postgres(
                    &format!(
                        "cp {} {d}/server.pem && cp {} {d}/server.key && chown postgres {d}/server.pem {d}/server.key \
                         && chmod 600 {d}/server.key",
                        certs.cert().display(),
                        certs.key().display()
                    ),
                    true,
                );
                as_postgres(
                    &format!(
                        "printf 'local all all trust\\nhostssl all all 127.0.0.1/32 trust\\nhostnossl all all 127.0.0.1/32 reject\\n' \
                         > {d}/data/pg_hba.conf"
                    ),
                    false,
                );
                options = format!("-c ssl=on -c ssl_cert_file={d}/server.pem -c ssl_key_file={d}/server.key");
            }
            let port = free_port();
            let c = PrivateCluster { dir, port, options };
            c.pg_ctl("start");
            c
        }

        pub fn pg_ctl(&self, action: &str) {
            let d = self.dir.path().display();
            let opts = format!("-p {} -k {d} -c listen_addresses=127.0.0.1 -c fsync=off {}", self.port, self.options);
            let cmd = match action {
                "start" => {
                    format!("{}/pg_ctl -D {d}/data -o '{opts}' -l {d}/log -w start >/dev/null", bin_dir().display())
                }
                _ => format!("{}/pg_ctl -D {d}/data -m immediate -w stop >/dev/null", bin_dir().display()),
            };
            as_postgres(&cmd, false);
        }

        pub fn url(&self) -> String {
            format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
        }

        /// The folder of the cluster's Unix socket (always trusted, no TLS): for the test's own checks.
        pub fn socket_url(&self) -> String {
            format!("host={} port={} user=postgres dbname=postgres", self.dir.path().display(), self.port)
        }
    }

    impl Drop for PrivateCluster {
        fn drop(&mut self) {
            self.pg_ctl("stop");
        }
    }

    fn as_postgres(cmd: &str, as_root: bool) {
        let status = if as_root {
            Command::new("sh").arg("-c").arg(cmd).status().unwrap()
        } else {
            Command::new("runuser").args(["-u", "postgres", "--", "sh", "-c", cmd]).status().unwrap()
        };
        assert!(status.success(), "`{cmd}` failed");
    }

    /// A private redis-server on `port`, killed on drop.
    pub struct PrivateRedis {
        child: Child,
        pub port: u16,
    }

    impl PrivateRedis {
        pub fn start(port: u16) -> PrivateRedis {
            Self::spawn(port, &["--port", &port.to_string()])
        }

        /// TLS only: no plain port, `certs`' server certificate on `port`, no client certificates asked.
        pub fn start_tls_only(port: u16, certs: &TestCerts) -> PrivateRedis {
            let (cert, key, ca) = (certs.cert(), certs.key(), certs.ca());
            let port_arg = port.to_string();
            let args = [
                "--port",
                "0",
                "--tls-port",
                &port_arg,
                "--tls-cert-file",
                cert.to_str().unwrap(),
                "--tls-key-file",
                key.to_str().unwrap(),
                "--tls-ca-cert-file",
                ca.to_str().unwrap(),
                "--tls-auth-clients",
                "no",
            ];
            Self::spawn(port, &args)
        }

        fn spawn(port: u16, args: &[&str]) -> PrivateRedis {
            let child = Command::new("redis-server")
                .args(args)
                .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .spawn()
                .expect("redis-server");
            super::eventually("the private redis listens", || {
                std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())
            });
            PrivateRedis { child, port }
        }
    }

    impl Drop for PrivateRedis {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
