//! Query-parameter parsing with SPEC's rules, shared by every dataset: required and optional strings,
//! positive integer limits with defaults and clamping, strict booleans, `YYYY-MM-DD` dates and ranges, and
//! case-insensitive ticker matching. Every failure is a 400 [`ApiError`] naming the parameter and the rule.

use chrono::NaiveDate;

use crate::ApiError;

/// The hard ceiling for any list `limit` that SPEC gives no maximum for (DESIGN: every other list 1000).
pub const DEFAULT_MAX_LIMIT: usize = 1000;

/// Borrowed view over a request's query parameters.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    pairs: &'a [(String, String)],
    /// The request the pairs belong to, when the view was taken from one ([`crate::RequestEnvelope::params`]):
    /// what a page parameter needs beyond the pairs (the route its cursor is bound to).
    request: Option<&'a crate::RequestEnvelope>,
}

impl<'a> Query<'a> {
    /// A view over the request's `(name, value)` pairs in query-string order (usually `&request.query`).
    pub fn new(pairs: &'a [(String, String)]) -> Self {
        Self { pairs, request: None }
    }

    /// A view over a whole request's parameters (what [`crate::RequestEnvelope::params`] gives).
    pub fn of_request(request: &'a crate::RequestEnvelope) -> Self {
        Self { pairs: &request.query, request: Some(request) }
    }

    /// The request this view was taken from, if it was.
    pub fn request(&self) -> Option<&'a crate::RequestEnvelope> {
        self.request
    }

    /// The raw value of the first occurrence of `name`, untrimmed.
    pub fn raw(&self, name: &str) -> Option<&'a str> {
        self.pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// A trimmed, non-empty value; an empty or blank value counts as absent.
    pub fn str(&self, name: &str) -> Option<&'a str> {
        self.raw(name).map(str::trim).filter(|v| !v.is_empty())
    }

    /// A required string: missing or blank gives SPEC's "the `<name>` query parameter is required".
    pub fn required(&self, name: &str) -> Result<&'a str, ApiError> {
        self.str(name).ok_or_else(|| ApiError::missing(name))
    }

    /// A string whose length is capped, so a client cannot make the server scan with a megabyte pattern.
    pub fn str_max(&self, name: &str, max_chars: usize) -> Result<Option<&'a str>, ApiError> {
        match self.str(name) {
            Some(v) if v.chars().count() > max_chars => {
                Err(ApiError::bad_request(format!("{name} must be at most {max_chars} characters")))
            }
            other => Ok(other),
        }
    }

    /// A positive integer, or `None` when absent.
    pub fn positive_int(&self, name: &str) -> Result<Option<u64>, ApiError> {
        // Untrimmed (a blank value still counts as absent): ` 5` is not how a number is written.
        self.raw(name).filter(|v| !v.trim().is_empty()).map(|v| positive_int_text(name, v)).transpose()
    }

    /// The `limit` parameter: absent gives `default`; above `maximum` is clamped to `maximum`; zero, negative
    /// or non-integer values are a 400.
    pub fn limit(&self, default: usize, maximum: usize) -> Result<usize, ApiError> {
        Ok(match self.positive_int("limit")? {
            None => default.min(maximum),
            Some(n) => (n.min(maximum as u64)) as usize,
        })
    }

    /// A strict boolean: `true` or `false` (case-insensitive); anything else is a 400.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, ApiError> {
        self.str(name).map(|v| bool_text(name, v)).transpose()
    }

    /// A calendar date in `YYYY-MM-DD`.
    pub fn date(&self, name: &str) -> Result<Option<NaiveDate>, ApiError> {
        self.str(name).map(|v| date_text(name, v)).transpose()
    }

    /// The inclusive `from`/`to` pair; `from` after `to` is a 400.
    pub fn date_range(&self) -> Result<DateRange, ApiError> {
        DateRange::new(self.date("from")?, self.date("to")?)
    }

    /// A numeric identifier of 1 to `width` digits with leading zeros optional (such as an SEC CIK),
    /// returned zero-padded to `width` digits.
    pub fn padded_digits(&self, name: &str, width: usize) -> Result<Option<String>, ApiError> {
        self.str(name).map(|v| padded_digits_text(name, v, width)).transpose()
    }

    /// The optional `ticker` filter.
    pub fn ticker(&self) -> Result<TickerFilter, ApiError> {
        self.ticker_named("ticker")
    }

    /// An optional ticker filter read from parameter `name`.
    pub fn ticker_named(&self, name: &str) -> Result<TickerFilter, ApiError> {
        match self.str_max(name, 16)? {
            None => Ok(TickerFilter(None)),
            Some(t) => {
                if !t.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '/' | '^' | '=')) {
                    return Err(ApiError::bad_request(format!(
                        "{name} must be letters, digits, '.', '-', '/', '^' or '=', got `{}`",
                        clip(t)
                    )));
                }
                Ok(TickerFilter(Some(normalize_ticker(t))))
            }
        }
    }
}

/// Parses a strict `YYYY-MM-DD` date (exactly ten characters, digits but for the two dashes, a real calendar
/// day). The digit check is ours: chrono's `%Y-%m-%d` alone also takes a signed year and a space before the day
/// (`-202-05- 5` was read as 5 May 202 BC; the `query` fuzz target found it). The numbers are read here too, and
/// the day checked by chrono's `from_ymd_opt`: the same dates as `parse_from_str(text, "%Y-%m-%d")` takes on a
/// text of this shape (a test compares the two), without the format's interpretation (1,300 instructions of a
/// request's 96,000 on a cold edgar-search answer with a date bound, BENCHMARKS.md).
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let b = text.as_bytes();
    let shaped = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
    if !shaped {
        return None;
    }
    let number = |digits: &[u8]| digits.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    let year = i32::try_from(number(&b[..4])).ok()?;
    NaiveDate::from_ymd_opt(year, number(&b[5..7]), number(&b[8..]))
}

/// Inclusive date bounds, either side optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DateRange {
    /// Earliest date included (the `from` parameter); `None` when absent: no lower bound.
    pub from: Option<NaiveDate>,
    /// Latest date included (the `to` parameter); `None` when absent: no upper bound.
    pub to: Option<NaiveDate>,
}

impl DateRange {
    /// The bounds `from` and `to` (the parameters of those names, read by [`Params`] or [`Query::date`]); `from`
    /// after `to` is a 400.
    pub fn new(from: Option<NaiveDate>, to: Option<NaiveDate>) -> Result<Self, ApiError> {
        if let (Some(f), Some(t)) = (from, to) {
            if f > t {
                return Err(ApiError::bad_request(format!("from ({f}) must not be after to ({t})")));
            }
        }
        Ok(DateRange { from, to })
    }

    /// Whether `date` lies within the bounds, both ends inclusive.
    pub fn contains(&self, date: NaiveDate) -> bool {
        self.from.is_none_or(|f| date >= f) && self.to.is_none_or(|t| date <= t)
    }
}

/// Canonical ticker form: trimmed, upper-case, with share-class separators unified to `.` (`BRK-B`,
/// `brk/b` and `BRK.B` are the same ticker).
pub fn normalize_ticker(ticker: &str) -> String {
    ticker.trim().to_ascii_uppercase().replace(['-', '/'], ".")
}

/// The spellings a stored ticker may have for one normalised ticker (see [`normalize_ticker`]): upper or lower
/// case, share class after `.`, `-` or `/` (`BRK.B`, `brk-b`, `BRK/B`). For exact-match lookups of records
/// that keep the ticker as printed.
pub fn ticker_spellings(normalized: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for sep in [".", "-", "/"] {
        let upper = normalized.replace('.', sep);
        for spelling in [upper.to_ascii_lowercase(), upper] {
            if !out.contains(&spelling) {
                out.push(spelling);
            }
        }
    }
    out
}

/// Whether two tickers name the same instrument, case-insensitively.
pub fn ticker_eq(a: &str, b: &str) -> bool {
    normalize_ticker(a) == normalize_ticker(b)
}

/// The optional ticker filter of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TickerFilter(pub Option<String>);

impl TickerFilter {
    /// True when no filter is set or `ticker` is the requested one.
    pub fn matches(&self, ticker: &str) -> bool {
        match &self.0 {
            None => true,
            Some(want) => normalize_ticker(ticker) == *want,
        }
    }
    /// Whether the request asked for a ticker.
    pub fn is_set(&self) -> bool {
        self.0.is_some()
    }
    /// The requested ticker in canonical form (see [`normalize_ticker`]), or `None` when no filter is set.
    pub fn value(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// Case-insensitive substring match (the SPEC rule for `member`).
pub fn contains_ci(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

/// Keeps echoed user input short in error messages: at most 40 characters, then `…`.
pub fn clip(v: &str) -> String {
    const MAX: usize = 40;
    if v.chars().count() <= MAX {
        v.to_string()
    } else {
        format!("{}…", v.chars().take(MAX).collect::<String>())
    }
}

/// A route's query parameters as one typed struct, parsed with SPEC's rules and documented from the same
/// declaration: `#[derive(Params)]` writes both halves, so the parameters a handler reads are exactly the ones
/// the route declares (the host refuses any other with a 400 before the plugin runs).
///
/// ```
/// use datahost_plugin_api::Params;
///
/// #[derive(Params)]
/// struct RecallQuery {
///     /// Vehicle make, case-insensitive.
///     #[param(example = "FORD", max_chars = 64)]
///     make: String,
///     /// Model year.
///     #[param(example = 2004)]
///     year: Option<u64>,
///     #[param(limit(default = 100, max = 1000, of = "recalls"))]
///     limit: usize,
/// }
///
/// let specs = RecallQuery::specs();
/// assert_eq!(specs[0].name, "make");
/// assert!(specs[0].required);
/// let query = [("make".to_string(), "ford".to_string())];
/// let parsed = RecallQuery::parse(datahost_plugin_api::Query::new(&query)).unwrap();
/// assert_eq!((parsed.make.as_str(), parsed.year, parsed.limit), ("ford", None, 100));
/// ```
///
/// Each field is one parameter, named after the field (`#[param(name = "..")]` to differ) and described by its
/// doc comment (required: an undocumented parameter does not compile). Its type decides the rule, through
/// [`ParamValue`]: `String` a required string, `Option<String>` an optional one, `Option<u64>` / `u64` a
/// positive integer, `Option<bool>` a strict boolean, `Option<NaiveDate>` a `YYYY-MM-DD` date,
/// [`TickerFilter`] SPEC's ticker filter, and `T` (required) or `Option<T>` for a type of yours implementing
/// [`ParamText`] (its own rule and documentation).
///
/// Attributes (a number may be a literal or a constant):
/// - `example = <literal>`;
/// - `max_chars = N`: longer is a 400, documented as `maxLength`;
/// - on a `usize` field named `limit`, `limit(default = N, max = N, of = "things")`: SPEC's limit, clamped to `max`;
/// - on a [`crate::paging::PageRequest`] field, `page(default = N, max = N, of = "things")`, a list's `limit` and
///   `cursor`, or `page_or_all(max = N, of = "things", whole = "what an omitted limit returns")` for a list served
///   whole without `limit`. A page is read from the request, whose route its cursor is bound to:
///   `Params::parse(request.params())`.
///
/// A parameter without a description is refused at compile time:
///
/// ```compile_fail
/// #[derive(datahost_plugin_api::Params)]
/// struct Undocumented {
///     make: Option<String>,
/// }
/// ```
///
/// and so is a page without its default:
///
/// ```compile_fail
/// #[derive(datahost_plugin_api::Params)]
/// struct Paged {
///     #[param(page(max = 50, of = "rows"))]
///     page: datahost_plugin_api::paging::PageRequest,
/// }
/// ```
pub trait Params: Sized {
    /// The route's parameters, in field order, for its [`crate::RouteSpec`].
    fn specs() -> Vec<crate::ParamSpec>;
    /// Reads the parameters from a request's query; the first one that breaks its rule is the 400.
    fn parse(query: Query<'_>) -> Result<Self, ApiError>;
}

/// A type a [`Params`] field may have: its parameter kind, whether it is required, and how it is read.
pub trait ParamValue: Sized {
    /// The kind documented in OpenAPI.
    const KIND: crate::ParamKind;
    /// Whether a request must give it.
    const REQUIRED: bool;
    /// Reads parameter `name` (a string longer than `max_chars` characters is a 400).
    fn read(query: &Query<'_>, name: &str, max_chars: Option<usize>) -> Result<Self, ApiError>;
    /// Adds to the parameter's documentation what the type itself states (a pattern, an enum, an example).
    fn document(_spec: &mut crate::ParamSpec) {}
    /// The text a list's cursor is bound to instead of the text sent (see [`ParamText::canonical`]).
    fn canonical(&self) -> Option<String> {
        None
    }
}

/// A value read from the text of one query parameter: implement it on a type of your own (a newtype with its own
/// rule, an enum of accepted words) to make `Option<YourType>` a [`Params`] field. Its 400 names the parameter
/// and the rule, like SPEC's.
///
/// ```
/// use datahost_plugin_api::params::{ParamText, Query};
/// use datahost_plugin_api::{ApiError, ParamKind, ParamSpec, Params};
///
/// /// A SAM.gov Unique Entity ID.
/// struct Uei(String);
///
/// impl ParamText for Uei {
///     const KIND: ParamKind = ParamKind::String;
///     fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
///         let text = raw.trim();
///         if text.len() == 12 && text.bytes().all(|b| b.is_ascii_alphanumeric()) {
///             Ok(Uei(text.to_ascii_uppercase()))
///         } else {
///             Err(ApiError::bad_request(format!("{name} must be exactly 12 letters or digits")))
///         }
///     }
///     fn document(spec: &mut ParamSpec) {
///         spec.schema = Some(serde_json::json!({"pattern": "^[A-Za-z0-9]{12}$"}));
///     }
/// }
///
/// #[derive(Params)]
/// struct Lookup {
///     /// Unique Entity ID.
///     uei: Option<Uei>,
/// }
///
/// let query = [("uei".to_string(), "demoaw1yz6g9".to_string())];
/// assert_eq!(Lookup::parse(Query::new(&query)).unwrap().uei.unwrap().0, "DEMOAW1YZ6G9");
/// let bad = [("uei".to_string(), "x".to_string())];
/// assert_eq!(Lookup::parse(Query::new(&bad)).err().unwrap().message, "uei must be exactly 12 letters or digits");
/// assert_eq!(Lookup::specs()[0].schema, Some(serde_json::json!({"pattern": "^[A-Za-z0-9]{12}$"})));
/// ```
pub trait ParamText: Sized {
    /// The kind documented in OpenAPI.
    const KIND: crate::ParamKind;
    /// Reads the value of parameter `name` from `raw`, its text as sent (untrimmed; never blank: a blank
    /// parameter counts as absent).
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError>;
    /// Adds to the parameter's documentation what the type states (a pattern, an enum, an example).
    fn document(_spec: &mut crate::ParamSpec) {}
    /// The value's one spelling, when it has several (`9990307` and `0009990307` are one CIK): a `page` field
    /// declared after this parameter binds its cursor to this text instead of the text sent, so every spelling
    /// walks the same pages. `None` (the default): the text sent is the value's only spelling.
    fn canonical(&self) -> Option<String> {
        None
    }
}

impl<T: ParamText> ParamValue for Option<T> {
    const KIND: crate::ParamKind = T::KIND;
    const REQUIRED: bool = false;
    fn read(query: &Query<'_>, name: &str, max_chars: Option<usize>) -> Result<Self, ApiError> {
        let Some(raw) = query.raw(name).filter(|v| !v.trim().is_empty()) else { return Ok(None) };
        if let Some(max) = max_chars.filter(|_| matches!(T::KIND, crate::ParamKind::String)) {
            query.str_max(name, max)?;
        }
        T::parse(name, raw).map(Some)
    }
    fn document(spec: &mut crate::ParamSpec) {
        T::document(spec)
    }
    fn canonical(&self) -> Option<String> {
        self.as_ref().and_then(T::canonical)
    }
}

/// Text, trimmed.
impl ParamText for String {
    const KIND: crate::ParamKind = crate::ParamKind::String;
    fn parse(_name: &str, raw: &str) -> Result<Self, ApiError> {
        Ok(raw.trim().to_string())
    }
}

/// The rule of [`Query::positive_int`] on a value present and not blank.
fn positive_int_text(name: &str, v: &str) -> Result<u64, ApiError> {
    // Digits only: Rust's parser would also take `+5`, which no documented form of the parameter allows.
    let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
    // More digits than a u64 holds is still a positive integer (clamped by the callers that have a maximum).
    match v.parse::<u64>() {
        Ok(n) if digits && n >= 1 => Ok(n),
        Err(_) if digits && v.trim_start_matches('0').len() > 19 => Ok(u64::MAX),
        _ => Err(ApiError::bad_request(format!("{name} must be a positive integer, got `{}`", clip(v)))),
    }
}

/// The rule of [`Query::bool`] on a trimmed value.
fn bool_text(name: &str, v: &str) -> Result<bool, ApiError> {
    if v.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if v.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err(ApiError::bad_request(format!("{name} must be true or false, got `{}`", clip(v))))
    }
}

/// The rule of [`Query::date`] on a trimmed value.
fn date_text(name: &str, v: &str) -> Result<NaiveDate, ApiError> {
    parse_date(v)
        .ok_or_else(|| ApiError::bad_request(format!("{name} must be a date in YYYY-MM-DD form, got `{}`", clip(v))))
}

/// The rule of [`Query::padded_digits`] on a trimmed value.
fn padded_digits_text(name: &str, v: &str, width: usize) -> Result<String, ApiError> {
    if v.is_empty() || v.len() > width || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::bad_request(format!(
            "{name} must be 1 to {width} digits (leading zeros optional), got `{}`",
            clip(v)
        )));
    }
    Ok(format!("{v:0>width$}"))
}

/// A numeric identifier of 1 to `WIDTH` digits with leading zeros optional (an SEC CIK is
/// `ZeroPadded<10>`), held zero-padded to `WIDTH` digits (see [`Query::padded_digits`]). Every spelling of one
/// identifier is one value: the padded text is its [`ParamText::canonical`] form, so a cursor walks the same
/// pages whichever spelling the client sends. Documented with the pattern `^[0-9]{1,WIDTH}$`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZeroPadded<const WIDTH: usize>(pub String);

impl<const WIDTH: usize> ParamText for ZeroPadded<WIDTH> {
    const KIND: crate::ParamKind = crate::ParamKind::String;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        padded_digits_text(name, raw.trim(), WIDTH).map(ZeroPadded)
    }
    fn document(spec: &mut crate::ParamSpec) {
        spec.schema = Some(serde_json::json!({ "pattern": format!("^[0-9]{{1,{WIDTH}}}$") }));
    }
    fn canonical(&self) -> Option<String> {
        Some(self.0.clone())
    }
}

/// A positive integer, digits only (see [`Query::positive_int`]).
impl ParamText for u64 {
    const KIND: crate::ParamKind = crate::ParamKind::Integer;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        positive_int_text(name, raw)
    }
}

/// `true` or `false`, case-insensitive (see [`Query::bool`]).
impl ParamText for bool {
    const KIND: crate::ParamKind = crate::ParamKind::Boolean;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        bool_text(name, raw.trim())
    }
}

/// A `YYYY-MM-DD` date (see [`Query::date`]).
impl ParamText for NaiveDate {
    const KIND: crate::ParamKind = crate::ParamKind::Date;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        date_text(name, raw.trim())
    }
}

/// A required parameter: missing or blank is SPEC's "the `<name>` query parameter is required".
impl<T: ParamText> ParamValue for T {
    const KIND: crate::ParamKind = T::KIND;
    const REQUIRED: bool = true;
    fn read(query: &Query<'_>, name: &str, max_chars: Option<usize>) -> Result<Self, ApiError> {
        Option::<T>::read(query, name, max_chars)?.ok_or_else(|| ApiError::missing(name))
    }
    fn document(spec: &mut crate::ParamSpec) {
        T::document(spec)
    }
    fn canonical(&self) -> Option<String> {
        T::canonical(self)
    }
}

/// A ticker filter is optional by nature: absent, it matches every ticker.
impl ParamValue for TickerFilter {
    const KIND: crate::ParamKind = crate::ParamKind::String;
    const REQUIRED: bool = false;
    fn read(query: &Query<'_>, name: &str, _max_chars: Option<usize>) -> Result<Self, ApiError> {
        query.ticker_named(name)
    }
    fn document(spec: &mut crate::ParamSpec) {
        spec.example = crate::ParamSpec::ticker().example;
    }
}

/// The request a page parameter is read from: its cursor is bound to the route and the other parameters.
fn whole_request<'a>(query: &Query<'a>) -> Result<&'a crate::RequestEnvelope, ApiError> {
    query
        .request()
        .ok_or_else(|| ApiError::internal("a page parameter is read from a request's params(), not a bare Query"))
}

/// The page of a list that is served whole without `limit` (`#[param(page_or_all(max, of, whole))]`).
#[doc(hidden)]
pub fn __page_or_all(query: &Query<'_>, max: usize) -> Result<crate::paging::PageRequest, ApiError> {
    let request = whole_request(query)?;
    crate::paging::PageRequest::parse_or_all(request, max)
}

/// The page of a list route: its `limit` and `cursor` parameters (`#[param(page(default = N, max = N, of =
/// ".."))]` on a `PageRequest` field documents both). Read from the whole request, whose route the cursor is
/// bound to, so only a [`Query`] taken from a request ([`crate::RequestEnvelope::params`]) can give it. The cursor
/// is bound to the canonical spelling of the parameters declared before the field (`canonical`: name and
/// [`ParamValue::canonical`] text of each).
#[doc(hidden)]
pub fn __page(
    query: &Query<'_>,
    default: usize,
    max: usize,
    canonical: &[(&str, Option<String>)],
) -> Result<crate::paging::PageRequest, ApiError> {
    let request = whole_request(query)?;
    let normalized: Vec<(&str, &str)> =
        canonical.iter().filter_map(|(name, text)| text.as_deref().map(|t| (*name, t))).collect();
    crate::paging::PageRequest::parse_normalized(request, default, max, &normalized)
}

/// The spec of one derived parameter (called by `#[derive(Params)]`, not by hand).
#[doc(hidden)]
pub fn __spec<T: ParamValue>(
    name: &str,
    description: &str,
    max_chars: Option<usize>,
    example: Option<serde_json::Value>,
) -> crate::ParamSpec {
    let mut spec = match T::KIND {
        crate::ParamKind::String => crate::ParamSpec::string(name, description),
        crate::ParamKind::Integer => crate::ParamSpec::integer(name, description),
        crate::ParamKind::Boolean => crate::ParamSpec::boolean(name, description),
        crate::ParamKind::Date => crate::ParamSpec::date(name, description),
    };
    spec.required = T::REQUIRED;
    T::document(&mut spec);
    if example.is_some() {
        spec.example = example;
    }
    // Only text has a length (`read` applies `max_chars` to strings alone).
    if let (Some(n), crate::ParamKind::String) = (max_chars, T::KIND) {
        let mut schema = spec.schema.take().unwrap_or_else(|| serde_json::json!({}));
        schema["maxLength"] = n.into();
        spec.schema = Some(schema);
    }
    spec
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn every_spelling_of_a_share_class_ticker() {
        assert_eq!(ticker_spellings("BRK.B"), ["brk.b", "BRK.B", "brk-b", "BRK-B", "brk/b", "BRK/B"]);
        assert_eq!(ticker_spellings("NVDA"), ["nvda", "NVDA"]);
        assert!(ticker_spellings("BRK.B").iter().all(|t| normalize_ticker(t) == "BRK.B"));
    }

    #[test]
    fn limit_defaults_clamps_and_rejects() {
        let p = q(&[]);
        assert_eq!(Query::new(&p).limit(25, 100).unwrap(), 25);
        let p = q(&[("limit", "500")]);
        assert_eq!(Query::new(&p).limit(25, 100).unwrap(), 100);
        let p = q(&[("limit", "7")]);
        assert_eq!(Query::new(&p).limit(25, 100).unwrap(), 7);
        let p = q(&[("limit", "123456789012345678901234567890")]);
        assert_eq!(Query::new(&p).limit(25, 100).unwrap(), 100, "a huge limit is clamped like any other");
        for bad in ["0", "-3", "abc", "1.5", "+5", " 5", "5 ", "0x10", "000"] {
            let p = q(&[("limit", bad)]);
            let err = Query::new(&p).limit(25, 100).unwrap_err();
            assert_eq!(err.status, 400);
            assert!(err.message.starts_with("limit must be a positive integer"), "{}", err.message);
        }
    }

    #[test]
    fn required_and_blank() {
        let p = q(&[("vin", "  ")]);
        assert_eq!(Query::new(&p).required("vin").unwrap_err().message, "the vin query parameter is required");
        let p = q(&[("vin", " X ")]);
        assert_eq!(Query::new(&p).required("vin").unwrap(), "X");
    }

    /// The direct read takes exactly the dates chrono's format does on ten-character `dddd-dd-dd` texts:
    /// months and days out of range on either side of the real ones, and every year's 29 February.
    #[test]
    fn dates_read_as_chrono_reads_them() {
        let chrono = |text: &str| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok();
        let mut texts: Vec<String> = Vec::new();
        for year in ["0000", "0001", "0099", "0400", "1582", "1900", "1999", "2000", "2023", "2024", "2100", "9999"] {
            for month in 0..20 {
                texts.extend((0..40).map(|day| format!("{year}-{month:02}-{day:02}")));
            }
        }
        texts.extend((0..10_000).map(|year| format!("{year:04}-02-29")));
        for text in &texts {
            assert_eq!(parse_date(text), chrono(text), "{text}");
        }
        assert!(texts.iter().filter(|t| parse_date(t).is_some()).count() > 4_000, "real dates among them");
    }

    #[test]
    fn dates_and_ranges() {
        assert_eq!(parse_date("2024-02-29"), NaiveDate::from_ymd_opt(2024, 2, 29));
        assert_eq!(parse_date("0000-01-01"), NaiveDate::from_ymd_opt(0, 1, 1));
        assert_eq!(parse_date("9999-12-31"), NaiveDate::from_ymd_opt(9999, 12, 31));
        assert!(parse_date("2023-02-29").is_none());
        assert!(parse_date("2024-2-1").is_none());
        assert!(parse_date("20240201").is_none());
        for signed_or_spaced in ["-202-05- 5", "-202-05-\r5", "+024-05-05", "2024-05- 5", "2024- 5-05", " 024-05-05"] {
            assert_eq!(parse_date(signed_or_spaced), None, "{signed_or_spaced:?}");
        }
        // The input the fuzz target found, as a whole query string.
        let found = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/regressions/query-date-signed-year"))
            .expect("fuzz/regressions/query-date-signed-year");
        let found = std::str::from_utf8(&found).unwrap();
        let p: Vec<(String, String)> =
            found.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.into(), v.into())).collect();
        assert!(Query::new(&p).date("from").unwrap_err().message.starts_with("from must be a date in YYYY-MM-DD"));
        let p = q(&[("from", "2024-03-01"), ("to", "2024-02-01")]);
        let err = Query::new(&p).date_range().unwrap_err();
        assert_eq!(err.message, "from (2024-03-01) must not be after to (2024-02-01)");
        let p = q(&[("from", "yesterday")]);
        assert!(Query::new(&p).date_range().unwrap_err().message.starts_with("from must be a date in YYYY-MM-DD"));
    }

    #[test]
    fn padded_digits_accepts_optional_leading_zeros() {
        let p = q(&[("cik", "1811234")]);
        assert_eq!(Query::new(&p).padded_digits("cik", 10).unwrap().as_deref(), Some("0001811234"));
        let p = q(&[("cik", "0001811234")]);
        assert_eq!(Query::new(&p).padded_digits("cik", 10).unwrap().as_deref(), Some("0001811234"));
        for bad in ["12345678901", "12a", "-1", "1.0"] {
            let p = q(&[("cik", bad)]);
            let err = Query::new(&p).padded_digits("cik", 10).unwrap_err();
            assert_eq!(err.message, format!("cik must be 1 to 10 digits (leading zeros optional), got `{bad}`"));
        }
        assert_eq!(Query::new(&q(&[])).padded_digits("cik", 10).unwrap(), None);
    }

    #[test]
    fn booleans_are_strict() {
        let p = q(&[("open", "TRUE")]);
        assert_eq!(Query::new(&p).bool("open").unwrap(), Some(true));
        let p = q(&[("open", "1")]);
        assert_eq!(Query::new(&p).bool("open").unwrap_err().message, "open must be true or false, got `1`");
    }

    #[test]
    fn tickers_match_case_and_class_insensitively() {
        let p = q(&[("ticker", "brk-b")]);
        let f = Query::new(&p).ticker().unwrap();
        assert!(f.matches("BRK.B"));
        assert!(!f.matches("BRK.A"));
        let p = q(&[("ticker", "a b")]);
        assert_eq!(Query::new(&p).ticker().unwrap_err().status, 400);
        assert!(TickerFilter(None).matches("ANY"));
    }

    /// Parameters of every kind `#[derive(Params)]` reads.
    #[derive(crate::Params, Debug, PartialEq)]
    struct Every {
        /// Vehicle make.
        #[param(example = "FORD", max_chars = 8)]
        make: String,
        /// Model, optional.
        model: Option<String>,
        /// Model year.
        #[param(example = 2004)]
        year: Option<u64>,
        /// Only open ones.
        #[param(name = "open")]
        open_only: Option<bool>,
        /// Earliest report date.
        from: Option<NaiveDate>,
        /// How many pages.
        pages: u64,
        #[param(limit(default = 10, max = 50, of = "recalls"))]
        limit: usize,
    }

    #[test]
    fn derived_specs_are_the_hand_written_ones() {
        let hand = vec![
            crate::ParamSpec::string("make", "Vehicle make.")
                .required()
                .example("FORD")
                .schema(serde_json::json!({"maxLength": 8})),
            crate::ParamSpec::string("model", "Model, optional."),
            crate::ParamSpec::integer("year", "Model year.").example(2004),
            crate::ParamSpec::boolean("open", "Only open ones."),
            crate::ParamSpec::date("from", "Earliest report date."),
            crate::ParamSpec::integer("pages", "How many pages.").required(),
            crate::ParamSpec::limit(10, 50, "recalls"),
        ];
        assert_eq!(<Every as Params>::specs(), hand);
    }

    #[test]
    fn derived_parsing_applies_each_rule() {
        let p = q(&[("make", " ford "), ("year", "2004"), ("open", "TRUE"), ("from", "2024-02-29"), ("pages", "3")]);
        let parsed = <Every as Params>::parse(Query::new(&p)).unwrap();
        let want = Every {
            make: "ford".into(),
            model: None,
            year: Some(2004),
            open_only: Some(true),
            from: NaiveDate::from_ymd_opt(2024, 2, 29),
            pages: 3,
            limit: 10,
        };
        assert_eq!(parsed, want);
        let error = |pairs: &[(&str, &str)]| <Every as Params>::parse(Query::new(&q(pairs))).unwrap_err().message;
        assert_eq!(error(&[("pages", "1")]), "the make query parameter is required");
        assert_eq!(error(&[("make", "ford"), ("pages", "0")]), "pages must be a positive integer, got `0`");
        assert_eq!(error(&[("make", "ford")]), "the pages query parameter is required");
        assert_eq!(error(&[("make", "mercedes-benz"), ("pages", "1")]), "make must be at most 8 characters");
        assert_eq!(error(&[("make", "f"), ("pages", "1"), ("open", "yes")]), "open must be true or false, got `yes`");
        assert_eq!(
            error(&[("make", "f"), ("pages", "1"), ("from", "2023-02-29")]),
            "from must be a date in YYYY-MM-DD form, got `2023-02-29`"
        );
        let clamped = <Every as Params>::parse(Query::new(&q(&[("make", "f"), ("pages", "1"), ("limit", "900")])));
        assert_eq!(clamped.unwrap().limit, 50);
    }

    /// A list's parameters: a filter and its page.
    #[derive(crate::Params)]
    struct Listing {
        /// Make filter.
        #[param(max_chars = MAKE_CHARS)]
        make: Option<String>,
        #[param(page(default = PAGE, max = 40, of = "recalls"))]
        page: crate::paging::PageRequest,
    }

    const MAKE_CHARS: usize = 8;
    const PAGE: usize = 20;

    #[test]
    fn a_page_field_is_the_limit_and_cursor_of_the_request() {
        let specs = <Listing as Params>::specs();
        assert_eq!(specs[1..], [crate::ParamSpec::limit(20, 40, "recalls"), crate::paging::cursor_param()]);
        assert_eq!(specs[0].schema, Some(serde_json::json!({"maxLength": 8})));
        let request = |pairs: &[(&str, &str)]| crate::RequestEnvelope::new("/v1/recalls", pairs);
        let first = request(&[("make", "ford")]);
        let parsed = <Listing as Params>::parse(first.params()).unwrap();
        assert_eq!((parsed.make.as_deref(), parsed.page.limit), (Some("ford"), 20));
        let clamped = request(&[("limit", "500")]);
        assert_eq!(<Listing as Params>::parse(clamped.params()).unwrap().page.limit, 40);
        // A cursor is bound to the route and the other parameters: a forged one is the cursor's 400.
        let forged = request(&[("cursor", "bm90IGEgY3Vyc29y")]);
        let error = <Listing as Params>::parse(forged.params()).err().expect("a forged cursor is refused");
        assert_eq!(error.status, 400);
        assert!(error.message.contains("cursor"), "{}", error.message);
        // A bare Query has no route to bind a cursor to: the handler's mistake, not the client's.
        let pairs = q(&[]);
        let bare = <Listing as Params>::parse(Query::new(&pairs)).err().expect("a bare Query cannot page");
        assert_eq!(bare.status, 500);
    }

    /// A list of one filer's holdings: a CIK with several spellings, a field named like the derive's own
    /// argument, and the page.
    #[derive(crate::Params)]
    struct Holdings {
        /// Filer CIK.
        #[param(example = "0000320193")]
        cik: Option<ZeroPadded<10>>,
        /// Free text.
        query: Option<String>,
        #[param(page(default = PAGE, max = 40, of = "holdings"))]
        page: crate::paging::PageRequest,
    }

    #[test]
    fn a_cursor_is_bound_to_the_canonical_spelling_of_the_parameters_before_the_page() {
        let specs = <Holdings as Params>::specs();
        assert_eq!(
            specs[0],
            crate::ParamSpec::string("cik", "Filer CIK.")
                .example("0000320193")
                .schema(serde_json::json!({"pattern": "^[0-9]{1,10}$"}))
        );
        let parse = |pairs: &[(&str, &str)]| {
            <Holdings as Params>::parse(crate::RequestEnvelope::new("/v1/holdings", pairs).params())
        };
        let first = parse(&[("cik", "320193"), ("query", "x")]).unwrap();
        assert_eq!(
            (first.cik.clone().map(|c| c.0).as_deref(), first.query.as_deref()),
            (Some("0000320193"), Some("x"))
        );
        let cursor = first.page.cursor_after(&7u32);
        // Another spelling of the same CIK walks on with the same cursor.
        let padded = parse(&[("cik", " 0000320193 "), ("query", "x"), ("cursor", &cursor)]).unwrap();
        assert_eq!(padded.page.after::<u32>().unwrap(), Some(7));
        // Another CIK, or another spelling of a parameter without a canonical form, is another walk.
        for other in [[("cik", "320194"), ("query", "x")], [("cik", "320193"), ("query", "X")]] {
            let mut pairs = other.to_vec();
            pairs.push(("cursor", &cursor));
            let refused = parse(&pairs).err().expect("a cursor of another query");
            assert!(refused.message.starts_with("cursor belongs to a different query"), "{}", refused.message);
        }
        assert_eq!(
            parse(&[("cik", "12345678901")]).err().unwrap().message,
            "cik must be 1 to 10 digits (leading zeros optional), got `12345678901`"
        );
        assert_eq!(
            parse(&[("cik", "9x")]).err().unwrap().message,
            "cik must be 1 to 10 digits (leading zeros optional), got `9x`"
        );
    }

    /// A value of the plugin's own type.
    struct Shouted(String);

    impl ParamText for Shouted {
        const KIND: crate::ParamKind = crate::ParamKind::String;
        fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
            let text = raw.trim();
            if text.chars().all(|c| c.is_ascii_uppercase()) {
                Ok(Shouted(text.into()))
            } else {
                Err(ApiError::bad_request(format!("{name} must be upper case")))
            }
        }
        fn document(spec: &mut crate::ParamSpec) {
            spec.schema = Some(serde_json::json!({"pattern": "^[A-Z]+$"}));
            spec.example = Some("FORD".into());
        }
    }

    /// Parameters with a type of the plugin's own.
    #[derive(crate::Params)]
    struct Own {
        /// Make, upper case.
        #[param(max_chars = 4)]
        make: Option<Shouted>,
        /// Model, upper case.
        #[param(example = "F")]
        model: Option<Shouted>,
    }

    #[test]
    fn a_type_of_the_plugin_s_own_brings_its_rule_and_documentation() {
        let specs = <Own as Params>::specs();
        // Its documentation, then the field's attributes over it.
        assert_eq!(specs[0].schema, Some(serde_json::json!({"pattern": "^[A-Z]+$", "maxLength": 4})));
        assert_eq!((specs[0].example.clone(), specs[1].example.clone()), (Some("FORD".into()), Some("F".into())));
        let parse = |pairs: &[(&str, &str)]| <Own as Params>::parse(Query::new(&q(pairs)));
        assert_eq!(parse(&[("make", " FORD ")]).ok().and_then(|o| o.make).map(|m| m.0).as_deref(), Some("FORD"));
        assert_eq!(parse(&[("make", "ford")]).err().unwrap().message, "make must be upper case");
        // The length rule comes first, as for any text.
        assert_eq!(parse(&[("make", "FORDS")]).err().unwrap().message, "make must be at most 4 characters");
        // Blank counts as absent, as for every parameter.
        let blank = parse(&[("make", "  "), ("model", "F")]).unwrap();
        assert!(blank.make.is_none());
        assert_eq!(blank.model.map(|m| m.0).as_deref(), Some("F"));
    }

    /// A list served whole without `limit`, filtered by ticker.
    #[derive(crate::Params)]
    struct Whole {
        /// Ticker.
        ticker: TickerFilter,
        #[param(page_or_all(max = 40, of = "tickers", whole = "every ticker is returned"))]
        page: crate::paging::PageRequest,
    }

    #[test]
    fn a_ticker_and_a_whole_list_page() {
        let specs = <Whole as Params>::specs();
        assert_eq!(specs[0], crate::ParamSpec::string("ticker", "Ticker.").example("NVDA"));
        assert_eq!(
            specs[1..],
            [
                crate::paging::limit_or_all_param("tickers", "every ticker is returned", 40),
                crate::paging::cursor_param()
            ]
        );
        let parse = |pairs: &[(&str, &str)]| {
            <Whole as Params>::parse(crate::RequestEnvelope::new("/v1/tickers", pairs).params())
        };
        let all = parse(&[]).unwrap();
        assert_eq!((all.ticker, all.page.limit), (TickerFilter(None), usize::MAX));
        let one = parse(&[("ticker", "brk-b"), ("limit", "500")]).unwrap();
        assert_eq!((one.ticker, one.page.limit), (TickerFilter(Some("BRK.B".into())), 40));
        assert_eq!(
            parse(&[("ticker", "a b")]).err().unwrap().message,
            "ticker must be letters, digits, '.', '-', '/', '^' or '=', got `a b`"
        );
    }
}
