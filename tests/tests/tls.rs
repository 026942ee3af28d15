//! TLS to the records engine and the rate-limit store, as managed services require: a private PostgreSQL that
//! accepts only TLS connections and a private redis-server with only a TLS port, both with a certificate signed by
//! a CA the test makes. A plain connection fails with a message saying what to configure; a TLS one serves.

use datahost_tests::private::{PrivateCluster, PrivateRedis, TestCerts};
use datahost_tests::{assert_envelope, free_port, run_cli_raw, wait_for_window_with, Server, ServerOptions};

fn engine_toml(url: &str, extra: &str) -> String {
    format!("[engine]\nurl = \"{url}\"\nconnect_timeout_secs = 2\nreload_interval_secs = 1\n{extra}\n")
}

/// `datahost serve` that is expected to stop at start: its exit status and stderr.
fn failed_start(extra_toml: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.toml");
    std::fs::write(
        &file,
        format!(
            "[server]\nlisten = \"127.0.0.1:0\"\n[metrics]\nlisten = \"127.0.0.1:0\"\n[plugins]\ndir = {:?}\n\
             [keys]\nfile = {:?}\n{extra_toml}",
            datahost_tests::target_dir().display().to_string(),
            dir.path().join("keys.json").display().to_string()
        ),
    )
    .unwrap();
    let (code, _, stderr) = run_cli_raw(&file, &["serve"]);
    (code, stderr)
}

#[test]
fn postgres_verify_full_serves_over_tls_and_a_plain_connection_is_refused_clearly() {
    let certs = TestCerts::new();
    let cluster = PrivateCluster::start_tls_only(&certs);

    // Plain: the server refuses it, and the message says what to set.
    let plain = format!("{}?sslmode=disable", cluster.url());
    let (code, stderr) = failed_start(&engine_toml(&plain, ""));
    assert_ne!(code, 0);
    assert!(stderr.contains("no encryption"), "{stderr}");
    assert!(stderr.contains("the server accepts only TLS connections: set sslmode=require or sslmode=verify-full"));

    // verify-full without the test CA: the system's roots do not know it.
    let verify_full = format!("postgres://postgres@localhost:{}/postgres?sslmode=verify-full", cluster.port);
    let (code, stderr) = failed_start(&engine_toml(&verify_full, ""));
    assert_ne!(code, 0);
    assert!(stderr.to_lowercase().contains("certificate"), "{stderr}");

    // verify-full with the CA: serves, and every connection of the host is encrypted.
    let ca = certs.ca().display().to_string();
    let server = Server::start_with(ServerOptions {
        extra_toml: engine_toml(&verify_full, &format!("tls_ca_file = {ca:?}")),
        ..Default::default()
    });
    let (_, health) = server.get_with("/health", &[]);
    assert_eq!(health["ok"], true, "{health}");
    assert_eq!(server.get_with("/ready", &[]).0, 200);
    assert_eq!(server.get("/v1/congress-trades?limit=1").0, 200);
    let mut client = postgres::Client::connect(&cluster.socket_url(), postgres::NoTls).unwrap();
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE s.ssl), count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
             WHERE a.application_name = 'datahost'",
            &[],
        )
        .unwrap();
    let (encrypted, all): (i64, i64) = (row.get(0), row.get(1));
    assert!(all > 0 && encrypted == all, "{encrypted} of {all} datahost connections use TLS");

    // The same CA named in the URL (libpq's sslrootcert), and verify-ca against the address the certificate
    // also names.
    let in_url = format!(
        "postgres://postgres@127.0.0.1:{}/postgres?sslmode=verify-ca&sslrootcert={}",
        cluster.port,
        certs.ca().display()
    );
    let second = Server::start_with(ServerOptions { extra_toml: engine_toml(&in_url, ""), ..Default::default() });
    assert_eq!(second.get_with("/health", &[]).1["ok"], true);
}

#[test]
fn redis_over_tls_limits_and_a_plain_url_fails_with_a_clear_message() {
    let certs = TestCerts::new();
    let port = free_port();
    let _redis = PrivateRedis::start_tls_only(port, &certs);
    let prefix = format!("dhtls:{}", std::process::id());
    let ca = certs.ca().display().to_string();

    let server = Server::start_with(ServerOptions {
        extra_toml: format!(
            "[ratelimit]\nredis_url = \"rediss://localhost:{port}\"\nredis_prefix = \"{prefix}\"\n\
             redis_tls_ca_file = {ca:?}\nfail_mode = \"closed\"\nredis_timeout_ms = 5000\n"
        ),
        ..Default::default()
    });
    let key = server.issue_key("free");
    // Both requests in one minute's window: a new window between them would count from the limit again.
    wait_for_window_with(10);
    let first = server.request("/v1/congress-trades?limit=1", &[("X-API-Key", &key)]);
    assert_eq!(first.status().as_u16(), 200);
    let remaining: u64 = first.headers()["x-ratelimit-remaining"].to_str().unwrap().parse().unwrap();
    let second = server.request("/v1/congress-trades?limit=1", &[("X-API-Key", &key)]);
    assert_eq!(second.headers()["x-ratelimit-remaining"].to_str().unwrap(), (remaining - 1).to_string());
    assert_eq!(server.get_with("/health", &[]).1["rateLimiter"], "redis");

    // Plain redis:// to the TLS-only port: no decision (fail closed: 503), and the log says what to change.
    let plain = Server::start_with(ServerOptions {
        extra_toml: format!(
            "[ratelimit]\nredis_url = \"redis://127.0.0.1:{port}\"\nredis_prefix = \"{prefix}\"\nfail_mode = \"closed\"\n"
        ),
        ..Default::default()
    });
    let key = plain.issue_key("free");
    let (status, body) = plain.get_with("/v1/congress-trades?limit=1", &[("X-API-Key", &key)]);
    assert_envelope(status, &body, 503);
    // The log line is written as the request fails; the harness reads the server's output as it comes.
    plain.wait_for_output("a server that accepts only TLS needs a rediss:// URL");

    // A CA file with a plain URL is a configuration error naming both keys.
    let (code, stderr) =
        failed_start(&format!("[ratelimit]\nredis_url = \"redis://127.0.0.1:{port}\"\nredis_tls_ca_file = {ca:?}\n"));
    assert_ne!(code, 0);
    assert!(stderr.contains("ratelimit.redis_tls_ca_file is set but ratelimit.redis_url is not a rediss:// URL"));
}
