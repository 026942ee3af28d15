//! The two XML documents of a 13F filing, read by LOCAL element name so that the default namespace
//! (`<infoTable>`) and a prefix (`<ns1:infoTable>`) read the same: the cover page (`edgarSubmission`, the
//! filing's primary_doc.xml) and the information table (`informationTable`). This module only turns XML into
//! paths and texts; what they mean is `filing.rs`'s business.

use std::collections::HashMap;

use datahost_plugin_api::ingest::line_of;
use datahost_plugin_api::Refusal;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::envelope::XmlBlock;

pub const COVER_ROOT: &str = "edgarSubmission";
pub const TABLE_ROOT: &str = "informationTable";
const ROW: &str = "infoTable";

/// One `infoTable` element: its 1-based position among the rows, its line, and its leaf texts keyed by
/// the path below the row (`nameOfIssuer`, `shrsOrPrnAmt/sshPrnamt`, `votingAuthority/Sole`, ...).
#[derive(Debug, Default)]
pub struct RawRow {
    pub position: usize,
    pub line: usize,
    pub fields: HashMap<String, String>,
}

impl RawRow {
    pub fn get(&self, path: &str) -> Option<&str> {
        self.fields.get(path).map(String::as_str).filter(|v| !v.is_empty())
    }

    /// Where the row is, for problem reports.
    pub fn location(&self) -> String {
        format!("/{TABLE_ROOT}/{ROW}[{}], line {}", self.position, self.line)
    }
}

/// The leaf texts of a cover page keyed by their path below the root (`formData/coverPage/filingManager/name`).
#[derive(Debug, Default)]
pub struct CoverFields(HashMap<String, String>);

impl CoverFields {
    pub fn get(&self, path: &str) -> Option<&str> {
        self.0.get(path).map(|v| v.trim()).filter(|v| !v.is_empty())
    }
}

/// What the reader reports while walking a document.
enum Visit<'p> {
    Open { path: &'p [String], pos: usize },
    Text { path: &'p [String], text: &'p str },
    Close { path: &'p [String] },
}

/// The local name of the root element of `block`.
pub fn root_name(block: XmlBlock<'_>, file: &str) -> Result<String, Refusal> {
    let mut root = None;
    // Stops at the first element: the rest of the document is read later by the reader that needs it.
    let walked = walk(block, file, &mut |visit| {
        if let Visit::Open { path, .. } = visit {
            root.get_or_insert_with(|| path[0].clone());
        }
        root.is_none()
    });
    match root {
        Some(root) => Ok(root),
        // XML that breaks before its first element is refused for what breaks it, with its line.
        None => walked.and_then(|()| {
            Err(Refusal::at(format!("line {}", line_of(file, block.offset)), "the XML has no root element"))
        }),
    }
}

/// Reads a cover page (`edgarSubmission`).
pub fn read_cover(block: XmlBlock<'_>, file: &str) -> Result<CoverFields, Refusal> {
    let mut fields: HashMap<String, String> = HashMap::new();
    walk(block, file, &mut |visit| {
        if let Visit::Text { path, text } = visit {
            fields.entry(path[1..].join("/")).or_default().push_str(text);
        }
        true
    })?;
    Ok(CoverFields(fields))
}

/// Reads the rows of an information table (`informationTable`).
pub fn read_table(block: XmlBlock<'_>, file: &str) -> Result<Vec<RawRow>, Refusal> {
    let mut rows = Vec::new();
    let mut current: Option<RawRow> = None;
    let is_row = |path: &[String]| path.len() == 2 && path[1] == ROW;
    walk(block, file, &mut |visit| {
        match visit {
            Visit::Open { path, pos } if is_row(path) => {
                current = Some(RawRow { position: rows.len() + 1, line: line_of(file, pos), ..Default::default() });
            }
            Visit::Text { path, text } if path.len() > 2 => {
                if let Some(row) = current.as_mut() {
                    row.fields.entry(path[2..].join("/")).or_default().push_str(text);
                }
            }
            Visit::Close { path } if is_row(path) => rows.extend(current.take()),
            _ => {}
        }
        true
    })?;
    Ok(rows)
}

fn local_name(e: &BytesStart<'_>) -> String {
    String::from_utf8_lossy(e.local_name().as_ref()).into_owned()
}

/// Walks `block` element by element until `visit` returns false or the document ends. A document that is
/// not well-formed, or that ends inside an element (a truncated file), is refused with its line.
fn walk(block: XmlBlock<'_>, file: &str, visit: &mut dyn FnMut(Visit<'_>) -> bool) -> Result<(), Refusal> {
    let mut reader = Reader::from_str(block.xml);
    reader.config_mut().trim_text(true);
    let mut path: Vec<String> = Vec::new();
    let line_at = |pos: u64| format!("line {}", line_of(file, block.offset + pos as usize));
    loop {
        let event = reader
            .read_event()
            .map_err(|e| Refusal::at(line_at(reader.error_position()), format!("the XML is not well-formed: {e}")))?;
        // The end of the tag just read: its line is the tag's line.
        let pos = block.offset + (reader.buffer_position() as usize).saturating_sub(1);
        let more = match event {
            Event::Start(e) => {
                path.push(local_name(&e));
                visit(Visit::Open { path: &path, pos })
            }
            Event::Empty(e) => {
                path.push(local_name(&e));
                let more = visit(Visit::Open { path: &path, pos }) && visit(Visit::Close { path: &path });
                path.pop();
                more
            }
            Event::End(_) => {
                let more = visit(Visit::Close { path: &path });
                path.pop();
                more
            }
            Event::Text(t) => {
                let text = t.unescape().map_err(|e| {
                    Refusal::at(line_at(reader.buffer_position()), format!("the XML text cannot be read: {e}"))
                })?;
                path.is_empty() || visit(Visit::Text { path: &path, text: &text })
            }
            Event::CData(c) => {
                let text = String::from_utf8_lossy(&c).into_owned();
                path.is_empty() || visit(Visit::Text { path: &path, text: &text })
            }
            Event::Eof => break,
            _ => true,
        };
        if !more {
            return Ok(());
        }
    }
    match path.last() {
        None => Ok(()),
        Some(open) => Err(Refusal::at(
            format!("{}, /{}", line_at(block.xml.len() as u64), path.join("/")),
            format!("the XML ends inside <{open}>: the file is truncated"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(xml: &str) -> XmlBlock<'_> {
        XmlBlock { offset: 0, xml }
    }

    #[test]
    fn prefixed_and_default_namespace_rows_read_the_same() {
        let plain = "<informationTable xmlns=\"x\"><infoTable><cusip>1</cusip><shrsOrPrnAmt><sshPrnamt>2</sshPrnamt>\
                     </shrsOrPrnAmt></infoTable></informationTable>";
        let prefixed =
            "<ns1:informationTable xmlns:ns1=\"x\"><ns1:infoTable><ns1:cusip>1</ns1:cusip><ns1:shrsOrPrnAmt>\
                        <ns1:sshPrnamt>2</ns1:sshPrnamt></ns1:shrsOrPrnAmt></ns1:infoTable></ns1:informationTable>";
        for xml in [plain, prefixed] {
            assert_eq!(root_name(block(xml), xml).unwrap(), TABLE_ROOT);
            let rows = read_table(block(xml), xml).unwrap();
            assert_eq!(rows.len(), 1);
            assert_eq!((rows[0].get("cusip"), rows[0].get("shrsOrPrnAmt/sshPrnamt")), (Some("1"), Some("2")));
        }
    }

    #[test]
    fn truncated_and_malformed_xml_are_refused_with_a_location() {
        // Hand-written malformed fixtures.
        let cut = "<informationTable>\n<infoTable>\n<cusip>1</cusip>\n<value>";
        let refusal = read_table(block(cut), cut).unwrap_err();
        assert_eq!(refusal.location.as_deref(), Some("line 4, /informationTable/infoTable/value"));
        let crossed = "<informationTable>\n<infoTable>\n<cusip>1</value>\n</infoTable></informationTable>";
        let refusal = read_table(block(crossed), crossed).unwrap_err();
        assert_eq!(refusal.location.as_deref(), Some("line 3"), "{refusal}");
        assert!(refusal.reason.contains("not well-formed"), "{refusal}");
    }

    #[test]
    fn xml_broken_before_its_root_is_refused_for_what_breaks_it() {
        let broken = "<?xml version=\"1.0\"?>\n</informationTable>";
        let refusal = root_name(block(broken), broken).unwrap_err();
        assert!(refusal.reason.contains("not well-formed"), "{refusal}");
        let empty = "<?xml version=\"1.0\"?>\n";
        assert_eq!(root_name(block(empty), empty).unwrap_err().reason, "the XML has no root element");
    }
}
