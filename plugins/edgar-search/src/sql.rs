//! Engine mode (PostgreSQL): the filings live in the plugin's own table, each with a `tsvector` document
//! (GIN-indexed), and a request becomes one SQL query with the same matches as the in-memory tantivy index.
//!
//! Same matches, because both sides come from tantivy itself:
//! - the document is built from the index's own analyzer (lower-cased, English-stemmed tokens with their
//!   positions), one lexeme per field and token: `e:<token>` for the entity name, `t:<token>` for the text,
//!   `f:<FORM>` for the normalised form type and `c:<cik>` for the CIK. The prefixes keep the fields apart, so
//!   `entity:apple` is `'e:apple'` and a phrase never spans two fields. Nothing is normalised by PostgreSQL.
//! - the query is parsed by the same tantivy query parser (so syntax errors are the same 400s), and the parsed
//!   query is translated node by node ([`translate`]) with tantivy's boolean semantics: must clauses all
//!   match, should clauses are optional next to a must and at least one must match otherwise, must-not
//!   clauses exclude, a query of only exclusions matches nothing, `*` matches everything.
//!
//! What differs: relevance. Hits are ordered by `ts_rank` instead of BM25 (ties newest first, as in
//! memory), so `score` values and the order of hits differ, and snippets weigh query terms equally instead
//! of by rarity. Phrase slop (`"a b"~2`), phrase prefixes (`"a b"*`), range, set, exists and regex queries
//! are not translated and answer 400 in engine mode. PostgreSQL keeps at most 256 positions per lexeme and
//! positions up to 16383, so a phrase deep inside a very long filing can be missed.

use datahost_plugin_api::sql::{SeedTable, SEED_STATE_TABLE};
use datahost_plugin_api::Migration;
use serde_json::{json, Value};
use tantivy::query::{AllQuery, BooleanQuery, EmptyQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::query_grammar::{UserInputAst, UserInputLeaf};

use crate::data::Filing;
use crate::index::{normalize_form, FieldKind, SearchError, SearchIndex, SearchRequest};

/// Bump when the rows derived from an unchanged snapshot change (document layout), so `init` re-syncs.
pub const LAYOUT_VERSION: &str = "edgar-search-1";

/// PostgreSQL's largest tsvector position.
const MAX_POSITION: usize = 16383;
/// PostgreSQL keeps at most this many positions per lexeme.
const MAX_POSITIONS_PER_LEXEME: usize = 256;

/// The filings table's seed columns.
pub const FILINGS_TABLE: SeedTable = SeedTable {
    name: "filings",
    columns: &[
        ("accession", "text"),
        ("form", "text"),
        ("form_key", "text"),
        ("entity", "text"),
        ("cik", "text"),
        ("url", "text"),
        ("filed_date", "date"),
        ("body", "text"),
        ("document", "tsvector"),
    ],
    key: &["accession"],
};

/// The plugin's tables in its own schema: the GIN index on `document` answers the text query; the btrees
/// serve the `forms` filter (`form_key`, the normalised form type) and the date bounds.
pub fn migrations() -> Vec<Migration> {
    vec![Migration {
        id: 1,
        name: "filings and seed state".into(),
        sql: format!(
            "{SEED_STATE_TABLE}
            CREATE TABLE IF NOT EXISTS filings (
                accession  text PRIMARY KEY,
                form       text NOT NULL,
                form_key   text NOT NULL,
                entity     text NOT NULL,
                cik        text NOT NULL,
                url        text NOT NULL,
                filed_date date NOT NULL,
                body       text NOT NULL,
                document   tsvector NOT NULL,
                source     text NOT NULL DEFAULT 'seed'
            );
            CREATE INDEX IF NOT EXISTS filings_document ON filings USING gin (document);
            CREATE INDEX IF NOT EXISTS filings_form_filed ON filings (form_key, filed_date DESC);
            CREATE INDEX IF NOT EXISTS filings_filed ON filings (filed_date DESC);"
        ),
    }]
}

/// A lexeme or tsvector/tsquery item, quoted.
fn quote(lexeme: &str) -> String {
    format!("'{}'", lexeme.replace('\\', "\\\\").replace('\'', "''"))
}

/// The `document` of a filing, as a tsvector literal (cast by PostgreSQL without any normalisation).
pub fn document(index: &SearchIndex, f: &Filing) -> String {
    let mut lexemes: std::collections::BTreeMap<String, Vec<usize>> = std::collections::BTreeMap::new();
    for (prefix, kind, value) in [("e:", FieldKind::Entity, &f.entity), ("t:", FieldKind::Text, &f.text)] {
        for (position, token) in index.analyze(kind, value) {
            lexemes.entry(format!("{prefix}{token}")).or_default().push((position + 1).min(MAX_POSITION));
        }
    }
    lexemes.entry(format!("f:{}", normalize_form(&f.form))).or_default().push(1);
    lexemes.entry(format!("c:{}", f.cik)).or_default().push(1);
    let items: Vec<String> = lexemes
        .into_iter()
        .map(|(lexeme, mut positions)| {
            positions.sort_unstable();
            positions.dedup();
            positions.truncate(MAX_POSITIONS_PER_LEXEME);
            let positions: Vec<String> = positions.iter().map(usize::to_string).collect();
            format!("{}:{}", quote(&lexeme), positions.join(","))
        })
        .collect();
    items.join(" ")
}

/// The row of one seed filing in the filings table.
pub fn filing_row(index: &SearchIndex, f: &Filing) -> Value {
    json!({
        "accession": f.accession,
        "form": f.form,
        "form_key": normalize_form(&f.form),
        "entity": f.entity,
        "cik": f.cik,
        "url": f.url,
        "filed_date": f.filed_date,
        "body": f.text,
        "document": document(index, f),
    })
}

/// A match condition: a tsquery over `document`, a plain SQL predicate, or a combination.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    True,
    False,
    /// tsquery text.
    Ts(String),
    /// SQL predicate (holds only numbers the translation formatted itself).
    Sql(String),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
}

impl Expr {
    /// Conjunction, simplified: constants fold away and tsqueries merge into one.
    pub fn and(items: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        for item in items {
            match item {
                Expr::True => {}
                Expr::False => return Expr::False,
                Expr::And(inner) => out.extend(inner),
                other => out.push(other),
            }
        }
        Self::combine(out, Expr::True, " & ", Expr::And)
    }

    /// Disjunction, simplified like [`Expr::and`].
    pub fn or(items: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        for item in items {
            match item {
                Expr::False => {}
                Expr::True => return Expr::True,
                Expr::Or(inner) => out.extend(inner),
                other => out.push(other),
            }
        }
        Self::combine(out, Expr::False, " | ", Expr::Or)
    }

    fn combine(mut items: Vec<Expr>, empty: Expr, op: &str, wrap: fn(Vec<Expr>) -> Expr) -> Expr {
        if items.is_empty() {
            return empty;
        }
        if items.len() == 1 {
            return items.remove(0);
        }
        if items.iter().all(|e| matches!(e, Expr::Ts(_))) {
            let parts: Vec<String> = items
                .into_iter()
                .map(|e| if let Expr::Ts(q) = e { format!("({q})") } else { unreachable!() })
                .collect();
            return Expr::Ts(parts.join(op));
        }
        wrap(items)
    }

    pub fn negate(item: Expr) -> Expr {
        match item {
            Expr::True => Expr::False,
            Expr::False => Expr::True,
            Expr::Ts(q) => Expr::Ts(format!("!({q})")),
            Expr::Not(inner) => *inner,
            other => Expr::Not(Box::new(other)),
        }
    }

    /// SQL for this condition, pushing each tsquery into `params`.
    fn render(&self, params: &mut Vec<Value>) -> String {
        match self {
            Expr::True => "TRUE".into(),
            Expr::False => "FALSE".into(),
            Expr::Ts(q) => {
                params.push(q.as_str().into());
                format!("document @@ ${}::tsquery", params.len())
            }
            Expr::Sql(s) => s.clone(),
            Expr::And(items) | Expr::Or(items) => {
                let op = if matches!(self, Expr::And(_)) { " AND " } else { " OR " };
                let parts: Vec<String> = items.iter().map(|e| e.render(params)).collect();
                format!("({})", parts.join(op))
            }
            Expr::Not(inner) => format!("NOT ({})", inner.render(params)),
        }
    }

    /// The tsquery relevance is ranked by: the tsqueries that make a filing match (not those that exclude).
    fn rank_query(&self) -> Option<String> {
        match self {
            Expr::Ts(q) => Some(q.clone()),
            Expr::And(items) | Expr::Or(items) => {
                let parts: Vec<String> = items.iter().filter_map(Expr::rank_query).map(|q| format!("({q})")).collect();
                (!parts.is_empty()).then(|| parts.join(" | "))
            }
            _ => None,
        }
    }
}

/// A query the translation does not cover (answered with a 400 naming what).
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported(pub String);

/// One term of a field as a condition.
fn term_expr(index: &SearchIndex, term: &tantivy::Term) -> Result<Expr, Unsupported> {
    let kind = index.field_kind(term.field()).ok_or_else(|| Unsupported("a query on an unknown field".into()))?;
    let value = term.value();
    let prefix = match kind {
        FieldKind::Entity => "e:",
        FieldKind::Text => "t:",
        FieldKind::Form => "f:",
        FieldKind::Cik => "c:",
        FieldKind::Filed => {
            let day = value.as_u64().ok_or_else(|| Unsupported("a non-numeric filed term".into()))?;
            return Ok(Expr::Sql(format!("(to_char(filed_date, 'YYYYMMDD')::int8 = {day})")));
        }
    };
    let text = value.as_str().ok_or_else(|| Unsupported("a non-text term".into()))?;
    Ok(Expr::Ts(quote(&format!("{prefix}{text}"))))
}

/// A phrase: the tokens adjacent and in order.
fn phrase_expr(index: &SearchIndex, terms: &[tantivy::Term]) -> Result<Expr, Unsupported> {
    let mut items = Vec::with_capacity(terms.len());
    for term in terms {
        let Expr::Ts(item) = term_expr(index, term)? else {
            return Err(Unsupported("a phrase on a non-text field".into()));
        };
        items.push(item);
    }
    Ok(Expr::Ts(items.join(" <-> ")))
}

/// Translates a parsed tantivy query into a condition with the same matches.
pub fn translate(index: &SearchIndex, query: &dyn Query) -> Result<Expr, Unsupported> {
    if let Some(b) = query.downcast_ref::<BooleanQuery>() {
        let (mut musts, mut shoulds, mut nots) = (Vec::new(), Vec::new(), Vec::new());
        for (occur, sub) in b.clauses() {
            let e = translate(index, sub.as_ref())?;
            match occur {
                Occur::Must => musts.push(e),
                Occur::Should => shoulds.push(e),
                Occur::MustNot => nots.push(Expr::negate(e)),
            }
        }
        let min_should = b.get_minimum_number_should_match();
        if min_should > 1 {
            return Err(Unsupported("a minimum number of optional clauses".into()));
        }
        let positive = if !musts.is_empty() {
            if min_should == 1 {
                musts.push(Expr::or(shoulds));
            }
            Expr::and(musts)
        } else if !shoulds.is_empty() {
            Expr::or(shoulds)
        } else {
            // Only exclusions: tantivy matches nothing.
            Expr::False
        };
        nots.insert(0, positive);
        return Ok(Expr::and(nots));
    }
    if let Some(t) = query.downcast_ref::<TermQuery>() {
        return term_expr(index, t.term());
    }
    if let Some(p) = query.downcast_ref::<PhraseQuery>() {
        return phrase_expr(index, &p.phrase_terms());
    }
    if query.downcast_ref::<AllQuery>().is_some() {
        return Ok(Expr::True);
    }
    if query.downcast_ref::<EmptyQuery>().is_some() {
        return Ok(Expr::False);
    }
    Err(Unsupported(format!("{:.60}", format!("{query:?}"))))
}

/// Rewrites the query AST for translation: boosts only change scores, so they go; the constructs without a
/// translation are reported.
fn strip(ast: UserInputAst) -> Result<UserInputAst, Unsupported> {
    Ok(match ast {
        UserInputAst::Boost(inner, _) => strip(*inner)?,
        UserInputAst::Clause(clauses) => {
            UserInputAst::Clause(clauses.into_iter().map(|(o, a)| strip(a).map(|a| (o, a))).collect::<Result<_, _>>()?)
        }
        UserInputAst::Leaf(leaf) => {
            match leaf.as_ref() {
                UserInputLeaf::Literal(l) if l.slop > 0 => return Err(Unsupported("phrase slop (~N)".into())),
                // tantivy expands the prefix to at most 50 terms of its dictionary, which SQL cannot mirror.
                UserInputLeaf::Literal(l) if l.prefix => return Err(Unsupported("phrase prefixes (\"...\"*)".into())),
                UserInputLeaf::Literal(_) | UserInputLeaf::All => {}
                UserInputLeaf::Range { .. } => return Err(Unsupported("range queries".into())),
                UserInputLeaf::Set { .. } => return Err(Unsupported("IN [...] sets".into())),
                UserInputLeaf::Exists { .. } => return Err(Unsupported("field:* existence queries".into())),
                UserInputLeaf::Regex { .. } => return Err(Unsupported("regular expressions".into())),
            }
            UserInputAst::Leaf(leaf)
        }
    })
}

fn has_boost(ast: &UserInputAst) -> bool {
    match ast {
        UserInputAst::Boost(..) => true,
        UserInputAst::Clause(clauses) => clauses.iter().any(|(_, a)| has_boost(a)),
        UserInputAst::Leaf(_) => false,
    }
}

/// Why a request cannot be answered in engine mode.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryError {
    Search(SearchError),
    Unsupported(Unsupported),
}

/// Parses the user query exactly as in memory (same errors), then translates it.
pub fn parse(index: &SearchIndex, text: &str) -> Result<(Box<dyn Query>, Expr), QueryError> {
    let parsed = index.parse(text).map_err(QueryError::Search)?;
    let text = crate::index::query_text(text);
    let text = text.as_ref();
    let ast = tantivy::query_grammar::parse_query(text)
        .map_err(|_| QueryError::Search(SearchError::Syntax(format!("syntax error in `{text}`"))))?;
    let translated = if has_boost(&ast) {
        let plain = index.build_query(strip(ast).map_err(QueryError::Unsupported)?).map_err(QueryError::Search)?;
        translate(index, plain.as_ref())
    } else {
        strip(ast).map_err(QueryError::Unsupported)?;
        translate(index, parsed.as_ref())
    };
    Ok((parsed, translated.map_err(QueryError::Unsupported)?))
}

/// The search query: `total`, then the top `limit` filings by `ts_rank` (ties newest first, as in memory).
/// `None` when nothing can match.
pub fn search_sql(expr: &Expr, req: &SearchRequest) -> Option<(String, Vec<Value>)> {
    if *expr == Expr::False {
        return None;
    }
    let mut params = Vec::new();
    let mut filter = expr.render(&mut params);
    if !req.forms.is_empty() {
        params.push(datahost_plugin_api::sql::text_array(&req.forms).into());
        filter.push_str(&format!(" AND form_key = ANY(${}::text[])", params.len()));
    }
    if let Some(from) = req.from {
        params.push(from.format("%Y-%m-%d").to_string().into());
        filter.push_str(&format!(" AND filed_date >= ${}::date", params.len()));
    }
    if let Some(to) = req.to {
        params.push(to.format("%Y-%m-%d").to_string().into());
        filter.push_str(&format!(" AND filed_date <= ${}::date", params.len()));
    }
    let rank = match expr.rank_query() {
        Some(q) => {
            params.push(q.into());
            format!("ts_rank(document, ${}::tsquery)::float8", params.len())
        }
        None => "1.0::float8".into(),
    };
    params.push((req.limit.max(1) as i64).into());
    let limit = params.len();
    Some((
        format!(
            "SELECT n.total, r.* FROM (SELECT count(*) AS total FROM {{schema}}.filings WHERE {filter}) AS n \
             LEFT JOIN LATERAL (SELECT form, entity, cik, accession, url, filed_date AS \"filedDate\", \
             body AS \"text\", {rank} AS score FROM {{schema}}.filings WHERE {filter} \
             ORDER BY score DESC, filed_date DESC, accession COLLATE \"C\" DESC LIMIT ${limit}) AS r ON true"
        ),
        params,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simplification_folds_constants_and_merges_tsqueries() {
        let ts = |q: &str| Expr::Ts(q.into());
        assert_eq!(Expr::and(vec![ts("'a'"), Expr::True, ts("'b'")]), ts("('a') & ('b')"));
        assert_eq!(Expr::and(vec![ts("'a'"), Expr::False]), Expr::False);
        assert_eq!(Expr::or(vec![ts("'a'"), Expr::True]), Expr::True);
        assert_eq!(Expr::or(vec![Expr::False]), Expr::False);
        assert_eq!(Expr::and(vec![]), Expr::True);
        assert_eq!(Expr::negate(ts("'a'")), ts("!('a')"));
        assert_eq!(Expr::and(vec![ts("'a'"), Expr::negate(ts("'b'"))]), ts("('a') & (!('b'))"));
        let mixed = Expr::and(vec![ts("'a'"), Expr::Sql("x = 1".into())]);
        let mut params = Vec::new();
        assert_eq!(mixed.render(&mut params), "(document @@ $1::tsquery AND x = 1)");
        assert_eq!(params, [json!("'a'")]);
        assert_eq!(mixed.rank_query().as_deref(), Some("('a')"));
    }

    #[test]
    fn lexemes_are_quoted() {
        assert_eq!(quote("t:o'brien"), "'t:o''brien'");
        assert_eq!(quote(r"f:a\b"), r"'f:a\\b'");
    }

    fn tools() -> SearchIndex {
        SearchIndex::build(Vec::new()).unwrap()
    }

    fn expr(q: &str) -> Expr {
        parse(&tools(), q).unwrap().1
    }

    #[test]
    fn documents_hold_the_analyzers_tokens_per_field() {
        let f = Filing {
            form: "def  14a".into(),
            entity: "Alpha Corp".into(),
            cik: "0000000001".into(),
            accession: "A".into(),
            url: "https://example.test/A".into(),
            filed_date: "2024-02-10".into(),
            text: "Supply chains, supply chain risk.".into(),
        };
        assert_eq!(
            document(&tools(), &f),
            "'c:0000000001':1 'e:alpha':1 'e:corp':2 'f:DEF 14A':1 't:chain':2,4 't:risk':5 't:suppli':1,3"
        );
        let row = filing_row(&tools(), &f);
        let mut keys: Vec<&str> = row.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        let mut columns: Vec<&str> = FILINGS_TABLE.columns.iter().map(|(c, _)| *c).collect();
        columns.sort();
        assert_eq!(keys, columns);
        assert_eq!(row["form_key"], "DEF 14A");
    }

    #[test]
    fn queries_translate_with_tantivys_boolean_rules() {
        let ts = |q: &str| Expr::Ts(q.into());
        assert_eq!(expr("entity:apple"), ts("'e:appl'"));
        assert_eq!(expr("form:8-K"), ts("'f:8-K'"));
        assert_eq!(expr("impairments"), ts("('e:impair') | ('t:impair')"), "default fields, stemmed");
        assert_eq!(
            expr("\"supply chain\" -tariffs"),
            ts("(('e:suppli' <-> 'e:chain') | ('t:suppli' <-> 't:chain')) & (!(('e:tariff') | ('t:tariff')))")
        );
        assert_eq!(expr("text:a OR text:b"), ts("('t:a') | ('t:b')"));
        assert_eq!(expr("*"), Expr::True);
        assert!(matches!(parse(&tools(), "-text:revenue"), Err(QueryError::Search(_))), "the parser refuses it");
        assert_eq!(expr("* -text:revenue"), ts("!('t:revenu')"));
        assert_eq!(expr("text:apple^2 text:pie"), ts("('t:appl') & ('t:pie')"), "boosts do not change matches");
        assert!(matches!(expr("filed:20240101"), Expr::Sql(s) if s.contains("= 20240101")));
        let unsupported = |q: &str| match parse(&tools(), q) {
            Err(QueryError::Unsupported(Unsupported(what))) => what,
            other => panic!("{q}: {other:?}"),
        };
        assert_eq!(unsupported("\"supply chain\"~2"), "phrase slop (~N)");
        assert!(unsupported("\"supply ch\"*").starts_with("phrase prefixes"));
        assert_eq!(unsupported("filed:[20240101 TO 20241231]"), "range queries");
        assert!(matches!(parse(&tools(), "(supply"), Err(QueryError::Search(SearchError::Syntax(_)))));
        // Punctuation a search box user types is read as spaces, in memory and in engine mode alike.
        assert_eq!(
            parse(&tools(), "what's new?").map(|(_, e)| e).ok(),
            parse(&tools(), "what s new").map(|(_, e)| e).ok()
        );
        assert!(parse(&tools(), "what's new?").is_ok());
        assert!(matches!(parse(&tools(), "\"supply chain"), Err(QueryError::Search(SearchError::Syntax(_)))));
    }

    #[test]
    fn search_sql_binds_filters_rank_and_limit_in_order() {
        let req = SearchRequest {
            query: String::new(),
            forms: vec!["10-K".into(), "DEF 14A".into()],
            from: chrono::NaiveDate::from_ymd_opt(2024, 1, 1),
            to: chrono::NaiveDate::from_ymd_opt(2024, 12, 31),
            limit: 5,
            snippets: true,
        };
        let (sql, params) = search_sql(&Expr::Ts("'t:appl'".into()), &req).unwrap();
        assert_eq!(
            params,
            [
                json!("'t:appl'"),
                json!(r#"{"10-K","DEF 14A"}"#),
                json!("2024-01-01"),
                json!("2024-12-31"),
                json!("'t:appl'"),
                json!(5)
            ]
        );
        assert!(
            sql.contains(
                "WHERE document @@ $1::tsquery AND form_key = ANY($2::text[]) AND filed_date >= $3::date \
                              AND filed_date <= $4::date)"
            ),
            "{sql}"
        );
        assert!(sql.contains("ts_rank(document, $5::tsquery)::float8 AS score"), "{sql}");
        assert!(
            sql.ends_with("ORDER BY score DESC, filed_date DESC, accession COLLATE \"C\" DESC LIMIT $6) AS r ON true")
        );
        assert_eq!(search_sql(&Expr::False, &req), None, "nothing can match: no query at all");
        let (sql, _) = search_sql(&Expr::True, &SearchRequest { limit: 1, ..Default::default() }).unwrap();
        assert!(sql.contains("WHERE TRUE") && sql.contains("1.0::float8 AS score"), "{sql}");
    }
}
