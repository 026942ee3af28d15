//! `/docs`: the human page of the API. The page is the vendored Redoc bundle (`host/assets/redoc/`, compiled in)
//! rendering `/openapi.json` in the browser, so the page and the machine-readable document never disagree and
//! viewing it needs no network beyond this server. The guide a reader needs before the endpoints (keys, tiers,
//! rate-limit headers, one section per error code with the anchor that error bodies link to) is markdown built
//! here from the host's own tables and carried by the document's `info.description`.

use std::sync::LazyLock;

use axum::body::Bytes;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use datahost_plugin_api::Tier;

use crate::access::ratelimit::tier_limit;
use crate::http::error::ERROR_CODES;

/// The vendored Redoc release (`host/assets/redoc/README.md` says how to update it). It names the served file,
/// which browsers may therefore cache for good.
pub const REDOC_VERSION: &str = "2.5.4";

/// Where the bundle is served, relative to the site root (the page refers to it relative to `/docs`).
pub static REDOC_PATH: LazyLock<String> = LazyLock::new(|| format!("/docs/redoc-{REDOC_VERSION}.standalone.js"));

/// The one remote resource in the bundle: the Redocly logo image in the sidebar's footer.
const REDOC_REMOTE_LOGO: &str = "https://cdn.redoc.ly/redoc/logo-mini.svg";

/// The bundle as served: the vendored file with its remote logo replaced by an empty `data:` address (the
/// image then removes itself), so that viewing the page contacts nothing but this server.
static REDOC_JS: LazyLock<Bytes> = LazyLock::new(|| {
    Bytes::from(include_str!("../../assets/redoc/redoc.standalone.js").replace(REDOC_REMOTE_LOGO, "data:,"))
});
const DOCS_JS: &[u8] = include_bytes!("../../assets/docs.js");
static DOCS_HTML: LazyLock<String> =
    LazyLock::new(|| include_str!("../../assets/docs.html").replace("REDOC_VERSION", REDOC_VERSION));

/// Only this server's own resources: the page can neither call out nor be framed. Redoc draws with inline
/// styles (styled-components), runs its search index in a `blob:` worker and shows `data:` icons.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; connect-src 'self'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; worker-src blob:; \
    frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

fn asset(content_type: &'static str, cache_control: &'static str, body: impl IntoResponse) -> Response {
    let mut resp = body.into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache_control));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    resp
}

/// `GET /docs`: the page (revalidated on every view: it changes with the binary).
pub async fn page() -> Response {
    let mut resp = asset("text/html; charset=utf-8", "no-cache", DOCS_HTML.as_str());
    resp.headers_mut().insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    resp
}

/// `GET /docs/redoc-<version>.standalone.js`: the renderer, immutable under its versioned name.
pub async fn redoc_js() -> Response {
    asset("text/javascript; charset=utf-8", "public, max-age=31536000, immutable", REDOC_JS.clone())
}

/// `GET /docs/docs.js`: the page's own start-up script (unversioned name, so revalidated).
pub async fn docs_js() -> Response {
    asset("text/javascript; charset=utf-8", "no-cache", DOCS_JS)
}

/// What a caller should do about each error status (its meaning is the title in `ERROR_CODES`).
const ERROR_ADVICE: &[(u16, &str)] = &[
    (
        400,
        "The `error` message names the parameter and the rule it broke: a required parameter missing (`vin`, \
         `q`, `cik` or `q`, ...), a value in the wrong form (`limit` not a positive integer of digits, a date not \
         `YYYY-MM-DD`, `open` not `true`/`false`, `from` after `to`), a parameter the endpoint does not document \
         (`tickr=NVDA`: the message lists the accepted ones) or one given twice. Fix that parameter; each \
         endpoint below lists its parameters with their defaults and maxima. A `limit` above its maximum is \
         not an error: it is lowered to the maximum.",
    ),
    (
        401,
        "Pass exactly one API key in one of the three ways under [Authentication](#section/Authentication). \
         Check that it is complete (`svc_live_` and 32 hexadecimal characters) and not revoked. Two different \
         keys in one request, or a wrong marketplace proxy secret, are refused rather than guessed between. \
         The response carries `WWW-Authenticate: Bearer realm=\"datahost\"`.",
    ),
    (
        403,
        "The endpoint needs a higher tier than the key has (see [Tiers and rate limits](#section/Tiers-and-rate-limits)): \
         use a pro (or owner) key, or ask the operator to move the key to the pro tier. A browser preflight \
         (`OPTIONS`) from a web origin the server does not allow is also a 403.",
    ),
    (
        404,
        "Check the path against the endpoints below: every data endpoint is under `/v1/`, and paths are \
         case-sensitive. For an entity (a VIN, a filer, a ticker) the message says which one was not found.",
    ),
    (
        405,
        "The API is read-only: use `GET` (or `HEAD` for the headers alone). The `Allow` header lists the methods. \
         `OPTIONS` is answered only as a browser CORS preflight, and only when the operator has allowed web \
         origins.",
    ),
    (
        414,
        "The limit is 8192 bytes unless the operator changed it. Shorten the query, for example with fewer \
         `forms` or a shorter `q`, or split one request into several.",
    ),
    (
        429,
        "Wait the number of seconds in `Retry-After` (the same as the body's `retryAfterSec`): windows are UTC \
         minutes, so the limit resets at the start of the next minute. Spread requests out, watch \
         `X-RateLimit-Remaining`, or move to a higher tier. The same status answers an address that has \
         presented too many failed credentials this minute, whatever key it then sends.",
    ),
    (
        431,
        "The limit is 16384 bytes of header names and values unless the operator changed it. Send fewer or \
         shorter headers (cookies set for other sites on the same domain are a common cause).",
    ),
    (
        500,
        "A fault inside the server or one dataset; other endpoints keep answering. Retry later, and quote the \
         `requestId` of the body (also in the `X-Request-Id` header) when you report it.",
    ),
    (
        503,
        "The records engine or the shared rate-limit store is unreachable (and the server is set to fail \
         closed), or the server is at its connection limit. Retry after a short wait, backing off \
         exponentially.",
    ),
];

/// The guide at the head of the document (`info.description`, CommonMark). `pro_paths` are the routes that
/// need the pro tier. The `<a id>` anchors are the targets of every error body's `docs` link
/// (`error::docs_url`); `#errors` is the fallback for a status without its own section.
pub fn guide_markdown(base_url: &str, pro_paths: &[&str]) -> String {
    let base = base_url.trim_end_matches('/');
    let mut md = String::new();
    md.push_str(
        "A read-only JSON API over public-records and market-intelligence data. One API key gives access to \
         every dataset. Every operation is `GET` (`HEAD` gives the same headers without the body), takes query \
         parameters only and answers JSON. Each endpoint carries a maturity label (`x-maturity`: stable, beta \
         or pro), and every dataset response says whether it holds demo rows or ingested official records \
         (`dataStatus` in the body, `X-Data-Status` in the headers).\n\n\
         `/health`, `/openapi.json` (this description, machine-readable) and `/docs` (this page) need no key.\n\n",
    );

    md.push_str("# Authentication\n\n");
    md.push_str(
        "Every `/v1/` endpoint needs an API key, `svc_live_` followed by 32 hexadecimal characters. A key is shown \
         once, when the operator issues it (`datahost keys issue --tier <tier>`); the server keeps only its \
         SHA-256 hash. Pass it in one of three ways:\n\n",
    );
    md.push_str(&format!(
        "| Where | Example |\n|---|---|\n\
         | `X-API-Key` header | `curl -H 'X-API-Key: <API_KEY>' '{base}/v1/insiders?ticker=NVDA'` |\n\
         | `Authorization: Bearer` header | `curl -H 'Authorization: Bearer <API_KEY>' '{base}/v1/insiders?ticker=NVDA'` |\n\
         | `api_key` query parameter | `curl '{base}/v1/insiders?ticker=NVDA&api_key=<API_KEY>'` |\n\n"
    ));
    md.push_str(
        "Prefer a header: query strings end up in browser histories and proxy logs. Sending the same key twice \
         is fine; two different keys are a 401.\n\n\
         **Marketplace.** Requests proxied by the API marketplace carry `X-Marketplace-Proxy-Secret: \
         <PROXY_SECRET>` instead of a key and are rated under the `rapidapi` tier. The secret is compared in \
         constant time; a wrong one is a 401, never a fall-through to other credentials. A server with no secret \
         configured ignores the header.\n\n\
         **Browsers.** Cross-origin calls from web pages are answered with CORS headers only for the origins the \
         operator allows (`server.cors_allowed_origins`; none by default).\n\n",
    );

    md.push_str("# Tiers and rate limits\n\n");
    md.push_str(
        "Each key has a tier; the tier sets the per-minute limit, counted per key in windows of one UTC minute:\n\n",
    );
    md.push_str("| Tier | Requests per minute |\n|---|---|\n");
    for tier in Tier::ALL {
        let limit = tier_limit(tier).map_or("unlimited".to_string(), |n| n.to_string());
        md.push_str(&format!("| `{}` | {limit} |\n", tier.as_str()));
    }
    md.push('\n');
    if pro_paths.is_empty() {
        md.push_str("Every endpoint is open to every tier.\n\n");
    } else {
        let list: Vec<String> = pro_paths.iter().map(|p| format!("`{p}`")).collect();
        md.push_str(&format!(
            "Endpoints that need the `pro` tier (or `owner`); other tiers get a [403](#forbidden): {}.\n\n",
            list.join(", ")
        ));
    }
    md.push_str(
        "Every authenticated response of a limited tier carries `X-RateLimit-Limit` (the tier's limit), \
         `X-RateLimit-Remaining` (requests left in this minute) and `X-RateLimit-Reset` (seconds until the \
         minute ends); the owner tier carries none. Past the limit the answer is a 429 with `Retry-After` and \
         `retryAfterSec` in the body. Every response carries `X-Request-Id`.\n\n",
    );

    md.push_str("# Pages and totals\n\n");
    md.push_str(
        "Lists come in pages: `limit` sets the page size and the body's `next` (also `Link: <...>; rel=\"next\"`) \
         is the cursor of the following page, `null` on the last. Searches that also report `total`, the number \
         of matches over every page, may count only part of a very large result so that a broad query answers \
         as fast as a narrow one: the response then says `totalIsLowerBound: true` and `total` is how many were \
         counted (at least that many match). The pages still reach every match.\n\n",
    );

    md.push_str("# Errors\n\n<a id=\"errors\"></a>\n\n");
    md.push_str(&format!(
        "Every error answers with the same JSON envelope, whose `docs` link points at the section below for \
         its status:\n\n```json\n{{\"error\": \"the vin query parameter is required\", \"code\": 400, \
         \"docs\": \"{base}/docs#bad-request\"}}\n```\n\n\
         `error` says what was wrong (naming the parameter, the limit or the tier), `code` repeats the HTTP \
         status. A 429 adds `retryAfterSec`, a 500 adds `requestId`.\n\n"
    ));
    for (status, anchor, title) in ERROR_CODES {
        let advice = ERROR_ADVICE.iter().find(|(s, _)| s == status).map_or("", |(_, a)| *a);
        md.push_str(&format!("## {status} {anchor}\n\n<a id=\"{anchor}\"></a>\n\n**{title}.** {advice}\n\n"));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_served_bundle_refers_to_nothing_remote() {
        let vendored = include_str!("../../assets/redoc/redoc.standalone.js");
        assert!(vendored.contains(REDOC_REMOTE_LOGO), "a new Redoc: check what it loads from elsewhere");
        let served = std::str::from_utf8(&REDOC_JS).unwrap();
        assert!(!served.contains("cdn.redoc.ly"));
        assert!(!served.contains("src:\"http"), "no remote image, script or frame source");
    }

    #[test]
    fn every_error_code_has_advice_and_an_anchor_in_the_guide() {
        let md = guide_markdown("http://x/", &["/v1/entity-graph"]);
        assert!(md.contains("<a id=\"errors\"></a>"));
        for (status, anchor, _) in ERROR_CODES {
            assert!(ERROR_ADVICE.iter().any(|(s, _)| s == status), "no advice for {status}");
            assert!(md.contains(&format!("<a id=\"{anchor}\"></a>")), "no anchor {anchor}");
        }
        assert_eq!(ERROR_ADVICE.len(), ERROR_CODES.len(), "advice for a status the API never gives");
        assert!(md.contains("http://x/v1/insiders"), "examples use the base address without a double slash");
        assert!(md.contains("`/v1/entity-graph`"));
        assert!(md.contains("| `free` | 60 |") && md.contains("| `owner` | unlimited |"));
    }
}
