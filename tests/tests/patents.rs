//! Black-box tests of `/v1/patents` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn shape_counts_filter_and_bad_ticker() {
    let server = Server::start();
    let (status, all) = server.get("/v1/patents");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["count"], 12);
    assert!(all["meta"]["caveat"].as_str().unwrap().contains("undercounted"));
    for c in all["companies"].as_array().unwrap() {
        assert!(c["grantedLast12mo"].is_u64() && c["grantedPrior12mo"].is_u64(), "{c}");
        assert!(c["assigneeMatched"].is_string() && c["note"].is_string(), "{c}");
    }

    let (status, tsla) = server.get("/v1/patents?ticker=qlsp");
    assert_eq!(status, 200, "{tsla}");
    assert_eq!(tsla["count"], 1);
    assert_eq!(tsla["companies"][0]["grantedLast12mo"], 7);
    assert_eq!(tsla["companies"][0]["grantedPrior12mo"], 3);

    let (status, body) = server.get("/v1/patents?ticker=T%2AX");
    assert_envelope(status, &body, 400);
}
