//! The shared shape of per-company datasets (SPEC: insiders, donors, contracts, lobbying, patents, execs): one
//! optional `ticker` parameter where "omitted = every covered company", paged by `limit` and `cursor` in ticker
//! order (see [`datahost_plugin_api::paging`]), and the response envelope `{meta, count, companies, next}`. A plugin supplies
//! only its records, its `meta` and how one company renders.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use datahost_plugin_api::openapi::{schema, ApiSchema, Operation};
use datahost_plugin_api::paging::{self, Page, PageRequest};
use datahost_plugin_api::params::{normalize_ticker, TickerFilter, DEFAULT_MAX_LIMIT};
use datahost_plugin_api::{ApiError, Params, RequestEnvelope, Response, RouteSpec};

/// The `meta` fields SPEC gives every company dataset. `source` is additive: it names where the snapshot
/// came from (and says so when it is demo data). Plugins with more meta fields `#[serde(flatten)]` this.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompaniesMeta {
    /// When the snapshot was generated (JSON `generatedAt`): a `YYYY-MM-DD` date or an RFC 3339 timestamp.
    pub generated_at: String,
    /// Where the snapshot comes from (JSON `source`); says so when it is demo data.
    pub source: String,
    /// URL of the public source of the records (JSON `sourceUrl`).
    pub source_url: String,
    /// What the data does not say or cover (JSON `caveat`), in SPEC's wording for the dataset.
    pub caveat: String,
}

impl CompaniesMeta {
    /// The calendar day of `generatedAt`, which may be a date or an RFC 3339 timestamp.
    pub fn generated_date(&self) -> Option<chrono::NaiveDate> {
        self.generated_at.get(..10).and_then(datahost_plugin_api::params::parse_date)
    }
}

/// The usual snapshot document of a company dataset: `{meta, companies: [...]}` with a plugin-specific record.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot<C> {
    /// The document's `meta` object: generation time, source and caveat.
    pub meta: CompaniesMeta,
    /// One plugin-specific record per covered company, in any order.
    pub companies: Vec<C>,
}

/// A company dataset's document as the host holds it: the demo seed until records are ingested, then the
/// document assembled from them (`I`: the plugin's shape of it, with the `ingested` object of
/// [`datahost_plugin_api::ingest::INGESTED_KEY`]).
#[derive(Debug)]
pub enum Document<C, I> {
    /// The demo seed snapshot.
    Seed(Snapshot<C>),
    /// The ingested records' document.
    Ingested(I),
}

/// Why a company dataset's document does not read (which fails the plugin's `init`).
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The host could not give the document.
    #[error(transparent)]
    Host(#[from] datahost_plugin_api::HostError),
    /// The seed does not match the plugin's snapshot shape.
    #[error("the {dataset} seed is not readable: {source}")]
    Seed {
        /// The dataset's slug.
        dataset: &'static str,
        /// Where the seed departs from the shape.
        source: serde_json::Error,
    },
    /// The ingested document does not match the plugin's shape of it.
    #[error("the ingested {what} are not readable: {source}")]
    Ingested {
        /// What the ingested records are (`contract awards`).
        what: &'static str,
        /// Where the document departs from the shape.
        source: serde_json::Error,
    },
}

/// Reads `dataset`'s document from the host as its seed or, once records are ingested, as the ingested document;
/// `what` names the ingested records in the error (`contract awards`).
pub fn read_document<C: serde::de::DeserializeOwned, I: serde::de::DeserializeOwned>(
    host: &datahost_plugin_api::Host,
    dataset: &'static str,
    what: &'static str,
) -> Result<Document<C, I>, DocumentError> {
    let doc: Value = host.load_dataset(dataset)?;
    if doc.get(datahost_plugin_api::ingest::INGESTED_KEY).is_none() {
        let seed = serde_json::from_value(doc).map_err(|source| DocumentError::Seed { dataset, source })?;
        return Ok(Document::Seed(seed));
    }
    serde_json::from_value(doc).map(Document::Ingested).map_err(|source| DocumentError::Ingested { what, source })
}

/// A loaded company dataset: its `meta` and the per-company entries a plugin derived from the snapshot.
#[derive(Debug, Clone)]
pub struct Dataset<E> {
    /// The snapshot's `meta`, served as the response's `meta`.
    pub meta: CompaniesMeta,
    /// The derived entries, sorted by normalised ticker.
    pub companies: Companies<E>,
}

impl<E> Dataset<E> {
    /// Derives one entry per snapshot record (`entry` may reject a record, with the plugin's own error, which
    /// fails `init`) and orders them by `ticker`.
    pub fn build<C, Error>(
        snapshot: Snapshot<C>,
        entry: impl FnMut(C) -> Result<E, Error>,
        ticker: impl Fn(&E) -> &str,
    ) -> Result<Self, Error> {
        let entries = snapshot.companies.into_iter().map(entry).collect::<Result<Vec<_>, _>>()?;
        Ok(Self { meta: snapshot.meta, companies: Companies::new(entries, ticker) })
    }
}

/// Company records in a stable order (by ticker), each with its ticker normalised once at load.
#[derive(Debug, Clone)]
pub struct Companies<T> {
    items: Vec<(String, T)>,
}

impl<T> Companies<T> {
    /// Holds `items`, normalising each one's `ticker` (see [`normalize_ticker`]) and sorting by it; ties keep
    /// their input order.
    pub fn new(items: Vec<T>, ticker: impl Fn(&T) -> &str) -> Self {
        let mut items: Vec<(String, T)> = items.into_iter().map(|t| (normalize_ticker(ticker(&t)), t)).collect();
        items.sort_by(|a, b| a.0.cmp(&b.0));
        Self { items }
    }

    /// Number of companies held.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no company is held.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Every company, in ticker order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.items.iter().map(|(_, t)| t)
    }

    /// The companies a request's `ticker` parameter selects (all of them when it is omitted), one page of
    /// them: `limit` is only a page size here (SPEC serves every covered company when it is omitted).
    pub fn select(&self, request: &RequestEnvelope) -> Result<Page<&T>, ApiError> {
        let CompanyParams { ticker, page } = CompanyParams::parse(request.params())?;
        self.page(&ticker, &page)
    }

    /// The page of the companies `filter` selects, in ticker order. The sort key is the normalised ticker and,
    /// for the rare ticker two records share, the record's rank among them, so the order is total.
    pub fn page(&self, filter: &TickerFilter, page: &PageRequest) -> Result<Page<&T>, ApiError> {
        let mut rank = 0;
        let keyed = self
            .items
            .iter()
            .enumerate()
            .map(|(i, (ticker, item))| {
                rank = if i > 0 && self.items[i - 1].0 == *ticker { rank + 1 } else { 0 };
                ((ticker.as_str(), rank), item)
            })
            .filter(|((ticker, _), _)| filter.matches(ticker));
        let page = page.page(keyed, |((ticker, rank), _)| (ticker.to_string(), *rank))?;
        Ok(Page { items: page.items.into_iter().map(|(_, item)| item).collect(), next: page.next })
    }
}

/// The response envelope of a company dataset.
#[derive(Debug, Serialize)]
pub struct Envelope<'a, M: Serialize, C: Serialize> {
    /// The dataset's `meta` (a [`CompaniesMeta`] or a type flattening it), served as is.
    pub meta: &'a M,
    /// The number of companies in this response (this page).
    pub count: usize,
    /// The rendered companies of this page, in ticker order (JSON `companies`).
    pub companies: Vec<C>,
    /// The cursor of the next page; null on the last.
    pub next: Option<String>,
}

impl<'a, M: Serialize, C: Serialize> Envelope<'a, M, C> {
    /// `{meta, count, companies, next}` for one page of rendered companies.
    pub fn new(meta: &'a M, companies: Vec<C>, next: Option<String>) -> Self {
        Self { meta, count: companies.len(), companies, next }
    }

    /// The 200 response, with the next-page header when there is a next page.
    pub fn respond(&self) -> Result<Response, ApiError> {
        paging::respond(self, self.next.as_deref())
    }
}

/// Answers a company-dataset request: applies the `ticker` filter and the page, renders each selected company
/// and wraps them in `{meta, count, companies, next}`.
pub fn respond<'a, T, M: Serialize, C: Serialize>(
    companies: &'a Companies<T>,
    meta: &M,
    request: &RequestEnvelope,
    render: impl Fn(&'a T) -> C,
) -> Result<Response, ApiError> {
    let page = companies.select(request)?;
    Envelope::new(meta, page.items.into_iter().map(render).collect(), page.next).respond()
}

/// The query parameters of a company dataset: SPEC's optional `ticker`, and the page (`limit`, `cursor`). SPEC
/// returns every covered company when `limit` is omitted, so `limit` is only a page size here (see
/// [`datahost_plugin_api::paging`]).
#[derive(Params)]
pub struct CompanyParams {
    /// Stock ticker, case-insensitive (for example `AAPL` or `aapl`). When omitted, all covered companies are
    /// returned.
    pub ticker: TickerFilter,
    /// The page: `limit` and `cursor` (their descriptions are the SDK's).
    #[param(page_or_all(max = DEFAULT_MAX_LIMIT, of = "companies", whole = "every covered company is returned"))]
    pub page: PageRequest,
}

/// The route of a company dataset (its parameters: [`CompanyParams`]).
pub fn route_spec(path: &str) -> RouteSpec {
    RouteSpec::new(path, CompanyParams::specs())
}

/// The schema of one company whose first fields are `name` and `ticker`, followed by `fields`; all required.
pub fn company_schema(fields: &[(&str, Value)]) -> Value {
    let mut all = vec![
        ("name", schema::describe(schema::string(), "Company name.")),
        ("ticker", schema::describe(schema::string(), "Stock ticker.")),
    ];
    all.extend(fields.iter().cloned());
    schema::object(&all)
}

/// The company schema and the further components it references, for [`CompaniesDoc`]'s `company` and
/// `extra_schemas`, from the served company type: it derives [`ApiSchema`] as the component `{prefix}Company`, so
/// what is documented is what serde writes.
pub fn derived_company<T: ApiSchema>(prefix: &str) -> (Value, Vec<(String, Value)>) {
    let mut components = datahost_plugin_api::openapi::components_of::<T>();
    let name = format!("{prefix}Company");
    let company = components
        .remove(&name)
        .unwrap_or_else(|| panic!("the company type must derive ApiSchema with #[schema(name = \"{name}\")]"));
    (company, components.into_iter().collect())
}

/// Everything that differs between the OpenAPI fragments of two company datasets.
pub struct CompaniesDoc<'a> {
    /// The route the fragment documents (its path and parameters).
    pub route: &'a RouteSpec,
    /// Prefix of the component schema names, e.g. `Donors` gives `DonorsMeta`, `DonorsCompany`, `DonorsResponse`.
    pub prefix: &'a str,
    /// OpenAPI `summary` of the operation: one short line.
    pub summary: &'a str,
    /// OpenAPI `description` of the operation (CommonMark).
    pub description: &'a str,
    /// Schema of `meta.generatedAt` (`schema::date()` or `schema::datetime()`).
    pub generated_at: Value,
    /// What the caveat states (SPEC's wording for this dataset).
    pub caveat: &'a str,
    /// Dataset-specific `meta` fields beyond the shared four, all required.
    pub extra_meta: Vec<(&'a str, Value)>,
    /// Schema of one company.
    pub company: Value,
    /// Further component schemas the company schema references, already prefixed.
    pub extra_schemas: Vec<(String, Value)>,
    /// Example response body for the 200 response, a complete `{meta, count, companies, next}` object.
    pub example: Value,
}

impl CompaniesDoc<'_> {
    /// The complete fragment: the operation with its 200 response and the prefixed component schemas.
    pub fn fragment(self) -> Value {
        use schema::*;
        let mut meta_fields = vec![
            ("generatedAt", describe(self.generated_at, "When the snapshot was generated.")),
            ("source", describe(string(), "Where the snapshot comes from; says so when it is demo data.")),
            ("sourceUrl", describe(uri(), "The public source of the records.")),
            ("caveat", describe(string(), self.caveat)),
        ];
        meta_fields.extend(self.extra_meta);
        let meta_name = format!("{}Meta", self.prefix);
        let company_name = format!("{}Company", self.prefix);
        let body_name = format!("{}Response", self.prefix);
        let body = object(&[
            ("meta", reference(&meta_name)),
            ("count", describe(integer(), "Number of companies returned.")),
            ("companies", describe(array(reference(&company_name)), "Covered companies, sorted by ticker.")),
            ("next", paging::next_schema()),
        ]);
        let op = Operation {
            route: self.route,
            summary: self.summary,
            description: self.description,
            response: reference(&body_name),
            example: Some(self.example),
            extra_statuses: &[],
        };
        let mut schemas = vec![
            (meta_name.as_str(), object(&meta_fields)),
            (company_name.as_str(), self.company),
            (body_name.as_str(), body),
        ];
        schemas.extend(self.extra_schemas.iter().map(|(name, schema)| (name.as_str(), schema.clone())));
        datahost_plugin_api::openapi::fragment(vec![(self.route.path.as_str(), op.path_item())], schemas)
    }
}

#[cfg(any(test, feature = "testing"))]
/// Test helper: the one company `ticker` selects on the plugin's own seeds (panics unless the answer is 200
/// with exactly one company).
pub fn fetch_company<P: datahost_plugin_api::Plugin>(route: &str, ticker: &str) -> Value {
    let (status, body) = datahost_plugin_api::testing::get(
        &datahost_plugin_api::testing::plugin_with_own_seeds::<P>(),
        route,
        &[("ticker", ticker)],
    );
    assert_eq!((status, &body["count"]), (200, &Value::from(1)), "{body}");
    body["companies"][0].clone()
}

#[cfg(any(test, feature = "testing"))]
/// Test helper: checks the behaviour every company dataset shares on the plugin's own seeds (envelope
/// shape, demo labelling, ticker filter in any case, unknown ticker, malformed ticker) and returns the
/// unfiltered body for dataset-specific assertions. `ticker` must be a covered company.
pub fn check_endpoint<P: datahost_plugin_api::Plugin>(route: &str, ticker: &str) -> Value {
    use datahost_plugin_api::testing::{get, plugin_with_own_seeds};
    let plugin = plugin_with_own_seeds::<P>();
    let (status, all) = get(&plugin, route, &[]);
    assert_eq!(status, 200, "{all}");
    let companies = all["companies"].as_array().expect("companies array");
    assert_eq!(all["count"].as_u64(), Some(companies.len() as u64));
    assert!(companies.len() >= 2, "a company dataset covers several companies");
    for field in ["generatedAt", "source", "sourceUrl", "caveat"] {
        assert!(all["meta"][field].as_str().is_some_and(|s| !s.is_empty()), "meta.{field} missing");
    }
    let labelled = |f: &str| all["meta"][f].as_str().unwrap().to_lowercase().contains("demo");
    assert!(labelled("source") && labelled("caveat"), "meta must label demo data");
    let tickers: Vec<&str> = companies.iter().map(|c| c["ticker"].as_str().expect("ticker")).collect();
    let mut sorted = tickers.clone();
    sorted.sort();
    assert_eq!(tickers, sorted, "companies sorted by ticker");

    let (_, upper) = get(&plugin, route, &[("ticker", &ticker.to_uppercase())]);
    let (_, lower) = get(&plugin, route, &[("ticker", &ticker.to_lowercase())]);
    assert_eq!(upper, lower, "ticker is case-insensitive");
    assert_eq!(upper["count"], 1, "{upper}");
    assert_eq!(upper["companies"][0]["ticker"].as_str().map(normalize_ticker), Some(normalize_ticker(ticker)));
    assert_eq!(upper["meta"], all["meta"]);

    assert_eq!(all["next"], Value::Null, "without limit every company is one page");
    let mut walked: Vec<Value> = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut q = vec![("limit", "1")];
        q.extend(cursor.as_deref().map(|c| ("cursor", c)));
        let (status, page) = get(&plugin, route, &q);
        assert_eq!((status, &page["count"]), (200, &Value::from(1)), "{page}");
        walked.extend(page["companies"].as_array().unwrap().iter().cloned());
        match page["next"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(&walked, companies, "pages of one company walk the whole list in order");

    let (status, none) = get(&plugin, route, &[("ticker", "ZZZZZ")]);
    assert_eq!((status, &none["count"], &none["companies"]), (200, &Value::from(0), &Value::Array(vec![])));
    let (status, blank) = get(&plugin, route, &[("ticker", " ")]);
    assert_eq!((status, &blank["count"]), (200, &all["count"]), "a blank ticker means all companies");

    for bad in ["A B", "$AAPL", "ABCDEFGHIJKLMNOPQ"] {
        let (status, err) = get(&plugin, route, &[("ticker", bad)]);
        assert_eq!(status, 400, "ticker `{bad}`: {err}");
        assert!(err["error"].as_str().unwrap().starts_with("ticker must"), "{err}");
        assert_eq!(err["code"], 400);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Ingested {
        ingested: Value,
        awards: Vec<String>,
    }

    #[test]
    fn a_document_reads_as_its_seed_until_records_are_ingested() {
        let test = datahost_plugin_api::testing::TestHost::new();
        let read = || read_document::<String, Ingested>(&test.host(), "awards", "award records");
        test.set_dataset(
            "awards",
            r#"{"meta": {"generatedAt": "2026-01-02", "source": "demo", "sourceUrl": "https://demo.invalid", "caveat": "c"}, "companies": ["A"]}"#,
        );
        let Ok(Document::Seed(seed)) = read() else { panic!("a seed: {:?}", read()) };
        assert_eq!(seed.companies, ["A"]);
        test.set_dataset("awards", r#"{"ingested": {"files": 1}, "awards": ["x"]}"#);
        let Ok(Document::Ingested(doc)) = read() else { panic!("ingested: {:?}", read()) };
        assert_eq!((doc.ingested["files"].as_u64(), doc.awards), (Some(1), vec!["x".to_string()]));
        // Each shape's error names which document did not read.
        test.set_dataset("awards", r#"{"ingested": {}, "awards": 3}"#);
        let e = read().unwrap_err().to_string();
        assert!(e.starts_with("the ingested award records are not readable: invalid type"), "{e}");
        test.set_dataset("awards", r#"{"companies": 3}"#);
        let e = read().unwrap_err().to_string();
        assert!(e.starts_with("the awards seed is not readable: "), "{e}");
    }

    #[test]
    fn select_filters_by_normalised_ticker_and_sorts() {
        let c = Companies::new(vec!["MSFT", "brk-b", "AAPL"], |t| t);
        assert_eq!(c.iter().copied().collect::<Vec<_>>(), vec!["AAPL", "brk-b", "MSFT"]);
        let all = c.select(&RequestEnvelope::new("/v1/x", &[])).unwrap();
        assert_eq!((all.items.len(), all.next), (3, None));
        let one = c.select(&RequestEnvelope::new("/v1/x", &[("ticker", "BRK.B")])).unwrap();
        assert_eq!(one.items, vec![&"brk-b"]);
        let err = c.select(&RequestEnvelope::new("/v1/x", &[("ticker", "a b")])).unwrap_err();
        assert_eq!(err.status, 400);
    }

    #[test]
    fn a_ticker_two_records_share_pages_like_any_other() {
        let c = Companies::new(vec![("AAPL", 1), ("MSFT", 2), ("AAPL", 3), ("ZM", 4)], |t| t.0);
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut q = vec![("limit", "1")];
            q.extend(cursor.as_deref().map(|c| ("cursor", c)));
            let page = c.select(&RequestEnvelope::new("/v1/x", &q)).unwrap();
            seen.extend(page.items.iter().map(|i| i.1));
            match page.next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, vec![1, 3, 2, 4]);
    }

    #[test]
    fn generated_date_accepts_date_or_timestamp() {
        let mut m = CompaniesMeta {
            generated_at: "2026-11-01T06:00:00Z".into(),
            source: String::new(),
            source_url: String::new(),
            caveat: String::new(),
        };
        assert_eq!(m.generated_date(), chrono::NaiveDate::from_ymd_opt(2026, 11, 1));
        m.generated_at = "2026-11-01".into();
        assert_eq!(m.generated_date(), chrono::NaiveDate::from_ymd_opt(2026, 11, 1));
        m.generated_at = "soon".into();
        assert_eq!(m.generated_date(), None);
    }
}
