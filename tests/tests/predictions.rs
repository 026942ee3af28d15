//! Black-box tests of `/v1/predictions`: the backtest the host's predictions plugin computes from the
//! prices plugin's dataset at startup.

use datahost_tests::{assert_envelope, Server};

#[test]
fn shape_rows_and_score() {
    let server = Server::start();
    let (status, body) = server.get("/v1/predictions");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["asOf"], "2026-10-30");
    assert_eq!(body["dataEnd"], "2026-10-30");
    let rows = body["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        for f in ["windowStart", "windowEnd", "firstLoggedAt", "chosenId", "chosenLabel"] {
            assert!(row[f].is_string(), "{f}: {row}");
        }
        assert_eq!(row["pool"], "trend-preferred");
        for f in ["trailingScore", "realizedReturnPct", "spyReturnPct"] {
            assert!(row[f].is_number(), "{f}: {row}");
        }
        for f in ["predictedLong", "open", "backfilled"] {
            assert!(row[f].is_boolean(), "{f}: {row}");
        }
        assert_eq!(row["predictedLong"], row["trailingScore"].as_f64().unwrap() > 0.0);
        let live = row["firstLoggedAt"] == row["windowStart"];
        assert_eq!(row["backfilled"], !live, "{row}");
    }
    let starts: Vec<&str> = rows.iter().map(|r| r["windowStart"].as_str().unwrap()).collect();
    assert!(starts.windows(2).all(|w| w[0] > w[1]), "newest window first");
    let s = &body["score"];
    let n = |f: &str| s[f].as_u64().unwrap();
    assert_eq!(n("totalWindows"), n("liveClosed") + n("liveOpen") + n("backfilled"));
    assert!(n("liveClosed") > 0);
    let hit = s["hitRate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&hit));
    assert!(s["cumulativeReturnPct"].is_number() && s["cumulativeSpyPct"].is_number());
}

#[test]
fn open_filter_limit_and_400s() {
    let server = Server::start();
    let (_, open) = server.get("/v1/predictions?open=true");
    let open_rows = open["rows"].as_array().unwrap();
    assert_eq!(open_rows.len(), 1, "exactly one window runs past the data's last date");
    assert_eq!(open_rows[0]["open"], true);
    assert!(open_rows[0]["windowEnd"].as_str().unwrap() > "2026-10-30");
    let (_, closed) = server.get("/v1/predictions?open=false&limit=3");
    let closed_rows = closed["rows"].as_array().unwrap();
    assert_eq!(closed_rows.len(), 3);
    assert!(closed_rows.iter().all(|r| r["open"] == false));
    assert_eq!(open["score"], closed["score"], "the score ignores the filters");

    let (status, body) = server.get("/v1/predictions?open=maybe");
    assert_envelope(status, &body, 400);
    assert!(body["error"].as_str().unwrap().contains("open"), "{body}");
    let (status, body) = server.get("/v1/predictions?limit=0");
    assert_envelope(status, &body, 400);
    assert!(body["error"].as_str().unwrap().contains("limit"), "{body}");
}
