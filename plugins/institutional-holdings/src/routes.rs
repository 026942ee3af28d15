//! `GET /v1/institutional-holdings`: the latest 13F filing of one filer, found by `cik` or by name `q`; and the
//! internal route `/internal/institutional-holdings/latest-filings` (every filer's latest filing, whole, for
//! derived datasets such as the entity graph; served through `route.get` only, never over HTTP).
//!
//! The holdings are paged by `limit` and `cursor` (largest first, then CUSIP, then position in the filing). A
//! walk is pinned to the filing it began on: once a newer filing or an amendment replaces it, its cursor is a
//! 400 rather than a page of another filing.

use std::cmp::Reverse;

use datahost_plugin_api::openapi::schema;
use datahost_plugin_api::paging::{self, Page, PageRequest};
use datahost_plugin_api::params::ZeroPadded;
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::reference::CompanyRef;
use datahost_plugin_api::{ApiError, ApiSchema, BoxError, Params, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;

use crate::data::{AmendmentRef, Filing, Holding, Index, Meta, NameMatch};
use crate::records::VotingAuthority;

pub const DEFAULT_LIMIT: usize = 100;
/// Long enough for any legal fund name; bounds the substring scan.
pub const MAX_Q_CHARS: usize = 200;

/// Query parameters of `GET /v1/institutional-holdings`.
#[derive(Params)]
struct Selection {
    /// Filer CIK: 1 to 10 digits, leading zeros optional (`9990307` and `0009990307` are the same filer). Takes
    /// precedence over `q`. One of `cik` or `q` is required.
    #[param(example = "0009990307")]
    cik: Option<ZeroPadded<10>>,
    /// Filer name, case-insensitive; used when `cik` is omitted. Best match: the exact name, else a name starting
    /// with it, else a name containing it; ties go to the largest filer by total value.
    #[param(example = "granite harbor", max_chars = MAX_Q_CHARS)]
    q: Option<String>,
    // Declared after `cik`, so a walk binds the padded CIK: `9990307` and `0009990307` are one walk.
    #[param(page(default = DEFAULT_LIMIT, max = DEFAULT_MAX_LIMIT, of = "holdings (largest first)"))]
    page: PageRequest,
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Selection::specs())
}

/// Path of the internal route.
pub fn internal_route() -> String {
    internal_route_spec().path
}

pub fn internal_route_spec() -> RouteSpec {
    RouteSpec::internal(crate::SLUG, "latest-filings", Vec::new())
}

/// One holding of the filing.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "InstitutionalHolding")]
struct HoldingOut<'a> {
    /// Issuer name as reported on the 13F information table.
    name_of_issuer: &'a str,
    /// CUSIP of the security.
    #[schema(pattern = "^[0-9A-Z]{9}$")]
    cusip: &'a str,
    /// Reported market value at quarter end, USD.
    #[schema(with = schema::number)]
    value_usd: u64,
    /// Shares or principal amount held (underlying shares for options).
    #[schema(with = schema::number)]
    shares: u64,
    /// `Put` or `Call` for an option position; null for the security itself.
    #[schema(with = put_call_schema)]
    put_call: Option<&'a str>,
    /// Title of the class of security, e.g. `COM`.
    title_of_class: &'a str,
    // Additive fields of ingested filings (absent for the demo seed).
    /// Ingested data: `shares` counts shares (SH) or a principal amount (PRN).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = shares_type_schema)]
    shares_type: Option<&'a str>,
    /// Ingested data: SOLE, DFND (shared-defined) or OTR (shared-other).
    #[serde(skip_serializing_if = "Option::is_none")]
    investment_discretion: Option<&'a str>,
    /// Ingested data: shares over which the manager has sole, shared or no voting authority.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(inline)]
    voting_authority: Option<&'a VotingAuthority>,
    /// Ingested data: the filing the row comes from (a NEW HOLDINGS amendment's rows carry the amendment's).
    #[serde(skip_serializing_if = "Option::is_none")]
    accession: Option<&'a str>,
    /// Ingested data: the issuing company as the SEC's company list names it, when the issuer name matches there;
    /// absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = issuer_schema)]
    issuer: Option<&'a CompanyRef>,
}

/// The latest 13F filing of one filer, its holdings a page at a time.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "InstitutionalHoldingsResponse")]
pub struct Body<'a> {
    /// Filer CIK, 10 digits, zero-padded.
    #[schema(pattern = "^[0-9]{10}$")]
    cik: &'a str,
    /// Filer (investment manager) name.
    filer: &'a str,
    /// Accession number of the filing.
    accession: &'a str,
    /// Form type: `13F-HR`, or `13F-HR/A` when a restatement is the filing served.
    form: &'a str,
    /// Date the filing was made.
    #[schema(format = "date")]
    filed_date: &'a str,
    /// Quarter end the holdings are reported for (the filer's latest).
    #[schema(format = "date")]
    period_of_report: &'a str,
    /// How the filer was found: by `cik`, or by `q` as the exact name, a name prefix or a substring.
    #[schema(with = matched_by_schema)]
    matched_by: &'static str,
    /// Number of holdings returned.
    count: usize,
    /// Number of holdings in the filing.
    total_holdings: usize,
    /// Sum of valueUsd over ALL holdings of the filing, also when the list is capped.
    #[schema(with = schema::number)]
    total_value_usd: u64,
    /// True when this response holds only part of the holdings (count < totalHoldings): a page of `limit`; `next`
    /// continues it.
    truncated: bool,
    /// Holdings, largest valueUsd first (then CUSIP), at most `limit`.
    holdings: Vec<HoldingOut<'a>>,
    #[schema(with = paging::next_schema)]
    next: Option<String>,
    // Additive fields of ingested filings (absent for the demo seed).
    /// Ingested data: the filing served is a 13F-HR/A restating the quarter (it replaces the original).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = restatement_schema)]
    amendment_type: Option<&'a str>,
    /// Ingested data: the unit the filing reported its values in; valueUsd is always dollars (thousands are
    /// multiplied by 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(with = value_unit_schema)]
    value_unit: Option<&'a str>,
    /// Ingested data: the evidence for valueUnit (implied share prices, filing date against the SEC's 2023-01-03
    /// switch to dollars).
    #[serde(skip_serializing_if = "Option::is_none")]
    value_unit_reason: Option<&'a str>,
    /// The filing: for ingested data the submission in the EDGAR archive; for the demo seed an address under the
    /// reserved https://demo.invalid/ host.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    source_url: Option<&'a str>,
    /// Ingested data: NEW HOLDINGS amendments whose rows are included.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    amendments: &'a [AmendmentRef],
    /// Ingested data: information-table rows that could not be read at ingest; the holdings list lacks them.
    #[serde(skip_serializing_if = "Option::is_none")]
    unread_rows: Option<usize>,
    // Absent on the internal route, which gives it once for all filings; on every public answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required)]
    meta: Option<&'a Meta>,
}

/// The option kinds, documented as their own component (`InstitutionalHoldingPutCall`).
pub const PUT_CALL: [&str; 2] = ["Put", "Call"];

fn put_call_schema() -> serde_json::Value {
    schema::nullable(schema::reference("InstitutionalHoldingPutCall"))
}

fn shares_type_schema() -> serde_json::Value {
    schema::string_enum(&["SH", "PRN"])
}

fn issuer_schema() -> serde_json::Value {
    use schema::{describe, object, string, with};
    object(&[
        ("cik", with(string(), "pattern", serde_json::json!("^[0-9]{10}$"))),
        (
            "ticker",
            describe(string(), "The company's primary ticker (not necessarily this share class); may be empty."),
        ),
        ("name", describe(string(), "The SEC's conformed company name.")),
    ])
}

fn matched_by_schema() -> serde_json::Value {
    schema::string_enum(&["cik", "exact", "prefix", "contains"])
}

fn restatement_schema() -> serde_json::Value {
    schema::string_enum(&["RESTATEMENT"])
}

fn value_unit_schema() -> serde_json::Value {
    schema::string_enum(&["dollars", "thousands"])
}

/// The internal route's body: `{meta, filings: [<the public body of each filer, every holding>]}`.
#[derive(Serialize)]
struct LatestFilings<'a> {
    meta: &'a Meta,
    filings: Vec<Body<'a>>,
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    if request.route == internal_route() {
        let filled =
            index.filers.iter().map(|f| index.with_holdings(f)).collect::<Result<Vec<_>, _>>().map_err(unavailable)?;
        let filings = filled
            .iter()
            .map(|(f, total)| {
                let all = f.holdings.iter().map(holding_out).collect();
                body(f, *total, "cik", Page { items: all, next: None }, None)
            })
            .collect();
        return Response::json(&LatestFilings { meta: &index.meta, filings });
    }
    let Selection { cik, q, page } = Selection::parse(request.params())?;
    let (filer, matched_by) = if let Some(ZeroPadded(cik)) = cik {
        let filer = index.by_cik(&cik).ok_or_else(|| ApiError::not_found(format!("no 13F filer has cik {cik}")))?;
        (filer, "cik")
    } else if let Some(name) = q.as_deref() {
        let (filer, how) =
            index.by_name(name).ok_or_else(|| ApiError::not_found(format!("no 13F filer name matches q `{name}`")))?;
        let how = match how {
            NameMatch::Exact => "exact",
            NameMatch::Prefix => "prefix",
            NameMatch::Contains => "contains",
        };
        (filer, how)
    } else {
        return Err(ApiError::bad_request("the cik or q query parameter is required"));
    };

    let (filing, total) = index.with_holdings(filer).map_err(unavailable)?;
    let page = page.pinned_to(&generation(&filing))?;
    let holdings =
        page.page(filing.holdings.iter().enumerate(), |(i, h)| (Reverse(h.value_usd), h.cusip.clone(), *i))?;
    let holdings =
        Page { items: holdings.items.into_iter().map(|(_, h)| holding_out(h)).collect(), next: holdings.next };
    let body = body(&filing, total, matched_by, holdings, Some(&index.meta));
    paging::respond(&body, body.next.as_deref())
}

/// What a walk of the holdings is pinned to: the filing served and the amendments whose rows it includes.
fn generation(f: &Filing) -> String {
    std::iter::once(f.accession.as_str())
        .chain(f.amendments.iter().map(|a| a.accession.as_str()))
        .collect::<Vec<_>>()
        .join("+")
}

/// A read of the records engine failed: the answer would be incomplete, so say so instead.
fn unavailable(e: BoxError) -> ApiError {
    ApiError::unavailable(format!("the 13F holdings could not be read: {e}"))
}

fn body<'a>(
    f: &'a Filing,
    total: u64,
    matched_by: &'static str,
    holdings: Page<HoldingOut<'a>>,
    meta: Option<&'a Meta>,
) -> Body<'a> {
    let Page { items: holdings, next } = holdings;
    Body {
        cik: &f.cik,
        filer: &f.filer,
        accession: &f.accession,
        form: &f.form,
        filed_date: &f.filed_date,
        period_of_report: &f.period_of_report,
        matched_by,
        count: holdings.len(),
        total_holdings: f.holdings.len(),
        total_value_usd: total,
        truncated: holdings.len() < f.holdings.len(),
        holdings,
        next,
        amendment_type: f.amendment_type.as_deref(),
        value_unit: f.value_unit.as_deref(),
        value_unit_reason: f.value_unit_reason.as_deref(),
        source_url: f.source_url.as_deref(),
        amendments: &f.amendments,
        unread_rows: f.unread_rows,
        meta,
    }
}

fn holding_out(h: &Holding) -> HoldingOut<'_> {
    HoldingOut {
        name_of_issuer: &h.name_of_issuer,
        cusip: &h.cusip,
        value_usd: h.value_usd,
        shares: h.shares,
        put_call: h.put_call.as_deref(),
        title_of_class: &h.title_of_class,
        shares_type: h.shares_type.as_deref(),
        investment_discretion: h.investment_discretion.as_deref(),
        voting_authority: h.voting_authority.as_ref(),
        accession: h.accession.as_deref(),
        issuer: h.issuer.as_ref(),
    }
}
