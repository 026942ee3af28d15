//! Black-box tests of `/v1/contracts` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn shape_window_filter_and_bad_ticker() {
    let server = Server::start();
    let (status, all) = server.get("/v1/contracts");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["count"], 15);
    assert_eq!(all["meta"]["window"]["startDate"], "2023-10-01");
    for c in all["companies"].as_array().unwrap() {
        assert!(c["awardCount"].is_u64() && c["totalObligatedUsd"].is_number(), "{c}");
        let amounts: Vec<f64> =
            c["topAwards"].as_array().unwrap().iter().map(|a| a["amount"].as_f64().unwrap()).collect();
        assert!(amounts.len() <= 5 && amounts.windows(2).all(|w| w[0] >= w[1]), "{c}");
    }

    let (status, amzn) = server.get("/v1/contracts?ticker=CRTW");
    assert_eq!(status, 200, "{amzn}");
    assert_eq!(amzn["count"], 1);
    assert_eq!(amzn["companies"][0]["awardCount"], 5);
    assert_eq!(amzn["companies"][0]["totalObligatedUsd"], 806747507.75);

    let (status, body) = server.get("/v1/contracts?ticker=%24LMT");
    assert_envelope(status, &body, 400);
}
