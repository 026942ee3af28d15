//! Reads one SEC `ownershipDocument` (the XML of a Form 4 or 4/A) into plain values. A document that cannot
//! be read or attributed (malformed or truncated XML, another root element or form type, no issuer CIK, a
//! reporting owner without CIK or name) is refused with the location where reading stopped; a transaction
//! row that cannot be read is reported with its XML path and line, and the other rows still count.

use std::collections::HashMap;

use datahost_plugin_api::ingest::line_of;
use datahost_plugin_api::params::parse_date;
use datahost_plugin_api::reference::cik10;
use datahost_plugin_api::{Refusal, RowProblem};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::records::{Footnote, Owner};

/// Every Form 4 transaction code (SEC Form 4 General Instructions, section 8).
pub const FORM4_CODES: &[&str] =
    &["P", "S", "V", "A", "D", "F", "I", "M", "C", "E", "H", "O", "X", "G", "L", "W", "Z", "J", "K", "U"];

/// The document types this reader accepts.
const FORM4_TYPES: &[&str] = &["4", "4/A"];

/// Which table of the form a row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    NonDerivative,
    Derivative,
}

impl Table {
    pub fn label(self) -> &'static str {
        match self {
            Table::NonDerivative => "non-derivative",
            Table::Derivative => "derivative",
        }
    }

    fn elements(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Table::NonDerivative => ("nonDerivativeTable", "nonDerivativeTransaction", "nonDerivativeHolding"),
            Table::Derivative => ("derivativeTable", "derivativeTransaction", "derivativeHolding"),
        }
    }
}

/// A transaction row as filed.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub table: Table,
    /// 1-based position among the transactions of its table.
    pub position: usize,
    pub security_title: Option<String>,
    pub date: String,
    pub code: String,
    pub acquired_disposed: String,
    pub shares: f64,
    pub price: Option<f64>,
    pub footnotes: Vec<Footnote>,
    pub shares_owned_following: Option<f64>,
    pub direct_or_indirect: Option<String>,
    pub exercise_price: Option<f64>,
    pub underlying_security: Option<String>,
    pub underlying_shares: Option<f64>,
}

/// What one ownershipDocument says.
#[derive(Debug, Clone)]
pub struct Form4 {
    pub document_type: String,
    pub period_of_report: String,
    pub issuer_cik: String,
    pub issuer_name: String,
    /// As filed, trimmed; `None` when the element is absent, empty, or says the issuer has none (`NONE`, `N/A`).
    pub issuer_ticker: Option<String>,
    pub owners: Vec<Owner>,
    pub aff10b5_one: Option<bool>,
    pub signature_date: Option<String>,
    /// Transaction rows in document order (non-derivative table first), or why each could not be read.
    pub rows: Vec<Result<Row, RowProblem>>,
    /// Holding rows (positions without a transaction), counted but not stored.
    pub holdings: usize,
    /// Footnote ids that rows refer to but the document does not contain.
    pub missing_footnotes: Vec<String>,
}

/// Reads the ownershipDocument at `text[start..end]`; locations are lines of the whole `text`.
pub fn read(text: &str, start: usize, end: usize) -> Result<Form4, Refusal> {
    let at = Locator { text, base: start };
    let root = parse_tree(&text[start..end]).map_err(|e| Refusal::at(at.location(&e.path, e.offset), e.message))?;
    if root.name != "ownershipDocument" {
        return Err(Refusal::at(
            at.location(&format!("/{}", root.name), root.offset),
            format!("the root element is <{}>, not a Form 4 <ownershipDocument>", root.name),
        ));
    }
    let doc = Document { root: &root, at };
    let document_type = doc.required(&["documentType"])?;
    if !FORM4_TYPES.contains(&document_type.as_str()) {
        return Err(doc.refuse(&["documentType"], format!("documentType `{document_type}` is not a Form 4 or 4/A")));
    }
    let period_text = doc.required(&["periodOfReport"])?;
    let period_of_report = date_of(&period_text)
        .ok_or_else(|| doc.refuse(&["periodOfReport"], format!("`{period_text}` is not a date")))?;
    let issuer_cik = doc.required(&["issuer", "issuerCik"])?;
    let issuer_cik = cik10(&issuer_cik)
        .ok_or_else(|| doc.refuse(&["issuer", "issuerCik"], format!("`{issuer_cik}` is not a CIK")))?;
    let issuer_name = doc.required(&["issuer", "issuerName"])?;
    let owners = root
        .children_named("reportingOwner")
        .enumerate()
        .map(|(i, node)| read_owner(&doc, node, i + 1))
        .collect::<Result<Vec<_>, _>>()?;
    if owners.is_empty() {
        return Err(Refusal::at(at.location("/ownershipDocument", root.offset), "the form names no reportingOwner"));
    }
    let aff10b5_one = match root.child("aff10b5One") {
        Some(node) => Some(doc.boolean(node, "/ownershipDocument/aff10b5One")?),
        None => None,
    };
    let footnote_texts: HashMap<&str, String> = root
        .find(&["footnotes"])
        .map(|n| n.children_named("footnote").filter_map(|f| Some((f.attr("id")?, collapse(&f.text)))).collect())
        .unwrap_or_default();
    let mut rows = Vec::new();
    let mut holdings = 0;
    for table in [Table::NonDerivative, Table::Derivative] {
        let (table_name, transaction, holding) = table.elements();
        let Some(table_node) = root.child(table_name) else { continue };
        holdings += table_node.children_named(holding).count();
        for (i, node) in table_node.children_named(transaction).enumerate() {
            let path = format!("/ownershipDocument/{table_name}/{transaction}[{}]", i + 1);
            let row = read_row(node, table, i + 1, &footnote_texts)
                .map_err(|error| RowProblem::new(at.location(&path, node.offset), error.to_string()));
            rows.push(row);
        }
    }
    let mut missing_footnotes: Vec<String> = Vec::new();
    for f in rows.iter().flatten().flat_map(|r| &r.footnotes).filter(|f| f.text.is_none()) {
        if !missing_footnotes.contains(&f.id) {
            missing_footnotes.push(f.id.clone());
        }
    }
    let signature_date = root.text_at(&["ownerSignature", "signatureDate"]).and_then(date_of);
    Ok(Form4 {
        document_type,
        period_of_report,
        issuer_cik,
        issuer_name,
        issuer_ticker: root.text_at(&["issuer", "issuerTradingSymbol"]).filter(|t| is_ticker(t)).map(str::to_string),
        owners,
        aff10b5_one,
        signature_date,
        rows,
        holdings,
        missing_footnotes,
    })
}

fn read_owner(doc: &Document<'_>, node: &Node, nth: usize) -> Result<Owner, Refusal> {
    let path = format!("/ownershipDocument/reportingOwner[{nth}]");
    let required = |field: &str| {
        node.text_at(&["reportingOwnerId", field]).map(str::to_string).ok_or_else(|| {
            doc.at.refusal(&format!("{path}/reportingOwnerId/{field}"), node.offset, format!("{field} is missing"))
        })
    };
    let raw_cik = required("rptOwnerCik")?;
    let cik = cik10(&raw_cik).ok_or_else(|| {
        doc.at.refusal(
            &format!("{path}/reportingOwnerId/rptOwnerCik"),
            node.offset,
            format!("`{raw_cik}` is not a CIK"),
        )
    })?;
    let name = required("rptOwnerName")?;
    let relationship = node.child("reportingOwnerRelationship");
    let flag = |field: &str| match relationship.and_then(|r| r.child(field)) {
        Some(n) => doc.boolean(n, &format!("{path}/reportingOwnerRelationship/{field}")),
        None => Ok(false),
    };
    let text = |field: &str| relationship.and_then(|r| r.text_at(&[field])).map(collapse);
    Ok(Owner {
        cik,
        name,
        is_director: flag("isDirector")?,
        is_officer: flag("isOfficer")?,
        is_ten_percent_owner: flag("isTenPercentOwner")?,
        is_other: flag("isOther")?,
        officer_title: text("officerTitle"),
        other_text: text("otherText"),
    })
}

/// One transaction row; the error names the field that cannot be read.
fn read_row(node: &Node, table: Table, position: usize, footnotes: &HashMap<&str, String>) -> Result<Row, RowError> {
    let value = |path: &[&str]| -> Option<&str> {
        let mut full = path.to_vec();
        full.push("value");
        node.text_at(&full)
    };
    let date_text = value(&["transactionDate"]).ok_or(RowError::NoValue("transactionDate"))?;
    let date = date_of(date_text).ok_or_else(|| RowError::NotADate(date_text.to_string()))?;
    let code = node.text_at(&["transactionCoding", "transactionCode"]).ok_or(RowError::NoCode)?;
    if !FORM4_CODES.contains(&code) {
        return Err(RowError::NotAForm4Code(code.to_string()));
    }
    let acquired_disposed = value(&["transactionAmounts", "transactionAcquiredDisposedCode"])
        .ok_or(RowError::NoValue("transactionAcquiredDisposedCode"))?;
    if !matches!(acquired_disposed, "A" | "D") {
        return Err(RowError::AcquiredDisposed(acquired_disposed.to_string()));
    }
    let number = |path: &[&str], field: &'static str| -> Result<Option<f64>, RowError> {
        value(path).map(|v| quantity(v).ok_or_else(|| RowError::NotANumber { field, value: v.to_string() })).transpose()
    };
    let shares = number(&["transactionAmounts", "transactionShares"], "transactionShares")?
        .ok_or(RowError::NoValue("transactionShares"))?;
    let mut ids: Vec<&str> = Vec::new();
    node.visit(&mut |n| {
        if let Some(id) = n.attr("id").filter(|_| n.name == "footnoteId") {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    });
    Ok(Row {
        table,
        position,
        security_title: value(&["securityTitle"]).map(collapse),
        date,
        code: code.to_string(),
        acquired_disposed: acquired_disposed.to_string(),
        shares,
        // A price given only by a footnote has no <value>: it stays unknown, never 0.
        price: number(&["transactionAmounts", "transactionPricePerShare"], "transactionPricePerShare")?,
        footnotes: ids
            .into_iter()
            .map(|id| Footnote { id: id.to_string(), text: footnotes.get(id).cloned() })
            .collect(),
        shares_owned_following: number(
            &["postTransactionAmounts", "sharesOwnedFollowingTransaction"],
            "sharesOwnedFollowingTransaction",
        )?,
        direct_or_indirect: value(&["ownershipNature", "directOrIndirectOwnership"]).map(str::to_string),
        exercise_price: number(&["conversionOrExercisePrice"], "conversionOrExercisePrice")?,
        underlying_security: value(&["underlyingSecurity", "underlyingSecurityTitle"]).map(collapse),
        underlying_shares: number(&["underlyingSecurity", "underlyingSecurityShares"], "underlyingSecurityShares")?,
    })
}

/// What is wrong with one transaction row (a row problem, at the row's XML path), naming the field.
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("{0} has no value")]
    NoValue(&'static str),
    #[error("transactionDate `{0}` is not a date")]
    NotADate(String),
    #[error("transactionCode is missing")]
    NoCode,
    #[error("transactionCode `{0}` is not a Form 4 transaction code")]
    NotAForm4Code(String),
    #[error("transactionAcquiredDisposedCode must be A or D, got `{0}`")]
    AcquiredDisposed(String),
    #[error("{field} `{value}` is not a number")]
    NotANumber { field: &'static str, value: String },
}

/// Whether a trading symbol names a security (filers write `NONE` or `N/A` when the issuer has none).
fn is_ticker(symbol: &str) -> bool {
    !matches!(symbol.to_ascii_uppercase().as_str(), "NONE" | "N/A" | "NA")
}

/// A non-negative finite decimal as written in the form (`200000`, `150.841`, `200000.0`).
fn quantity(text: &str) -> Option<f64> {
    let valid = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    valid.then(|| text.parse::<f64>().ok()).flatten().filter(|v| v.is_finite())
}

/// `YYYY-MM-DD`, also when the form appends a time-zone offset (`2022-12-13-05:00`, `2022-12-13Z`).
fn date_of(text: &str) -> Option<String> {
    let (day, zone) = text.split_at_checked(10)?;
    let zone_ok = zone.is_empty()
        || zone == "Z"
        || (zone.len() == 6 && zone.starts_with(['+', '-']) && zone.as_bytes()[3] == b':');
    parse_date(day).filter(|_| zone_ok).map(|_| day.to_string())
}

/// Whitespace runs (the line wrapping of the XML) collapsed to single spaces.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Turns byte offsets of the embedded XML into `path (line N)` locations of the whole file.
#[derive(Clone, Copy)]
struct Locator<'a> {
    text: &'a str,
    base: usize,
}

impl Locator<'_> {
    fn location(&self, path: &str, offset: usize) -> String {
        format!("{path} (line {})", line_of(self.text, self.base + offset))
    }

    fn refusal(&self, path: &str, offset: usize, reason: String) -> Refusal {
        Refusal::at(self.location(path, offset), reason)
    }
}

/// The parsed document and how to locate its parts.
struct Document<'a> {
    root: &'a Node,
    at: Locator<'a>,
}

impl Document<'_> {
    fn path(fields: &[&str]) -> String {
        format!("/ownershipDocument/{}", fields.join("/"))
    }

    fn refuse(&self, fields: &[&str], reason: String) -> Refusal {
        let offset = self.root.find(fields).map_or(self.root.offset, |n| n.offset);
        self.at.refusal(&Self::path(fields), offset, reason)
    }

    fn required(&self, fields: &[&str]) -> Result<String, Refusal> {
        self.root.text_at(fields).map(str::to_string).ok_or_else(|| {
            let name = fields.last().copied().unwrap_or_default();
            self.refuse(fields, format!("{name} is missing or empty"))
        })
    }

    /// `1`/`true` or `0`/`false` (any case); an empty element is false.
    fn boolean(&self, node: &Node, path: &str) -> Result<bool, Refusal> {
        match node.text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" => Ok(true),
            "0" | "false" | "" => Ok(false),
            other => Err(self.at.refusal(path, node.offset, format!("`{other}` is not a boolean (1/0, true/false)"))),
        }
    }
}

/// A minimal element tree: the ownershipDocument is small and read by path, so a tree is simpler than
/// streaming.
#[derive(Debug, Default)]
struct Node {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    children: Vec<Node>,
    /// Byte offset just after the start tag, within the XML.
    offset: usize,
}

impl Node {
    fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    fn find(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |node, name| node.child(name))
    }

    /// The trimmed text at `path`, `None` when the element is absent or empty.
    fn text_at(&self, path: &[&str]) -> Option<&str> {
        self.find(path).map(|n| n.text.trim()).filter(|t| !t.is_empty())
    }

    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    fn visit<'a>(&'a self, f: &mut impl FnMut(&'a Node)) {
        f(self);
        for c in &self.children {
            c.visit(f);
        }
    }
}

struct XmlError {
    offset: usize,
    path: String,
    message: String,
}

fn parse_tree(xml: &str) -> Result<Node, XmlError> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().trim_text(true);
    let mut stack: Vec<Node> = Vec::new();
    let mut root: Option<Node> = None;
    let path = |stack: &[Node]| format!("/{}", stack.iter().map(|n| n.name.as_str()).collect::<Vec<_>>().join("/"));
    loop {
        let event = reader.read_event();
        let offset = reader.buffer_position() as usize;
        let fail = |stack: &[Node], offset: usize, message: String| XmlError { offset, path: path(stack), message };
        let finished = match event {
            Err(e) => return Err(fail(&stack, reader.error_position() as usize, format!("malformed XML: {e}"))),
            Ok(Event::Start(start)) => {
                stack.push(element(&start, offset).map_err(|e| fail(&stack, offset, e.to_string()))?);
                None
            }
            Ok(Event::Empty(start)) => Some(element(&start, offset).map_err(|e| fail(&stack, offset, e.to_string()))?),
            Ok(Event::End(_)) => stack.pop(),
            Ok(Event::Text(t)) => {
                let text = t.unescape().map_err(|e| fail(&stack, offset, format!("malformed XML text: {e}")))?;
                match stack.last_mut() {
                    Some(top) => top.text.push_str(&text),
                    None => return Err(fail(&stack, offset, "text outside the root element".into())),
                }
                None
            }
            Ok(Event::CData(data)) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&String::from_utf8_lossy(&data));
                }
                None
            }
            Ok(Event::Eof) => break,
            Ok(_) => None,
        };
        if let Some(node) = finished {
            match stack.last_mut() {
                Some(parent) => parent.children.push(node),
                None if root.is_none() => root = Some(node),
                None => return Err(fail(&stack, offset, "a second root element".into())),
            }
        }
    }
    if let Some(open) = stack.last() {
        return Err(XmlError {
            offset: xml.len(),
            path: path(&stack),
            message: format!("the XML ends inside <{}>: the document is truncated", open.name),
        });
    }
    root.ok_or(XmlError { offset: 0, path: "/".into(), message: "no XML element found".into() })
}

fn element(start: &BytesStart<'_>, offset: usize) -> Result<Node, BadAttribute> {
    let name = String::from_utf8_lossy(start.local_name().as_ref()).into_owned();
    let attrs = start
        .attributes()
        .map(|a| {
            let a = a.map_err(|source| BadAttribute::Syntax { element: name.clone(), source })?;
            let value = a.unescape_value().map_err(|source| BadAttribute::Value { element: name.clone(), source })?;
            Ok((String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned(), value.into_owned()))
        })
        .collect::<Result<Vec<_>, BadAttribute>>()?;
    Ok(Node { name, attrs, offset, ..Node::default() })
}

/// An attribute of an element that does not read (the whole document is then refused at the element).
#[derive(Debug, thiserror::Error)]
enum BadAttribute {
    #[error("malformed attribute in <{element}>: {source}")]
    Syntax { element: String, source: quick_xml::events::attributes::AttrError },
    /// Its value has an entity or character reference that does not unescape.
    #[error("malformed attribute in <{element}>: {source}")]
    Value { element: String, source: quick_xml::Error },
}
