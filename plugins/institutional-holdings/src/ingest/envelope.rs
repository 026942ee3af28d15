//! The EDGAR envelope around a 13F filing, in its two official shapes: the full `.txt` submission
//! (`<SEC-DOCUMENT>`, an `<SEC-HEADER>` of `KEY: value` lines, then `<DOCUMENT>`s) and the feed `.nc` file
//! (`<SUBMISSION>` with `<TAG>value` header fields, often all on one line). Both carry each XML document
//! between `<XML>` and `</XML>`. This module reads the header facts and finds those XML blocks; the XML
//! itself is read by `xml.rs`.

use datahost_plugin_api::ingest::line_of;
use datahost_plugin_api::Refusal;

/// What the submission header says about the filing (raw text, checked by the caller).
#[derive(Debug, Default)]
pub struct Header {
    pub accession: Option<String>,
    pub form: Option<String>,
    /// `YYYYMMDD`.
    pub period: Option<String>,
    /// `YYYYMMDD`.
    pub filed: Option<String>,
    pub filer_cik: Option<String>,
    pub filer_name: Option<String>,
}

/// One XML document of the submission: its text and where it starts in the file (for line numbers).
#[derive(Debug, Clone, Copy)]
pub struct XmlBlock<'a> {
    pub offset: usize,
    pub xml: &'a str,
}

#[derive(Debug)]
pub struct Envelope<'a> {
    pub header: Header,
    pub xml_blocks: Vec<XmlBlock<'a>>,
}

fn at_line(text: &str, pos: usize) -> String {
    format!("line {}", line_of(text, pos))
}

/// Reads an EDGAR `.txt` full submission.
pub fn read_txt(text: &str) -> Result<Envelope<'_>, Refusal> {
    let start = text.find("<SEC-HEADER>").ok_or_else(|| {
        Refusal::at("line 1", "an EDGAR .txt submission starts with an <SEC-HEADER>; this one has none")
    })?;
    let end = text[start..]
        .find("</SEC-HEADER>")
        .map(|i| start + i)
        .ok_or_else(|| Refusal::at(at_line(text, start), "<SEC-HEADER> is never closed: the file is truncated"))?;
    let header_text = &text[start..end];
    // The filer's block starts at a `FILER:` line; the first CIK and name after it are the filer's.
    let filer_text = header_text.find("\nFILER:").map_or(header_text, |i| &header_text[i..]);
    let header = Header {
        accession: header_line(header_text, "ACCESSION NUMBER"),
        form: header_line(header_text, "CONFORMED SUBMISSION TYPE"),
        period: header_line(header_text, "CONFORMED PERIOD OF REPORT"),
        filed: header_line(header_text, "FILED AS OF DATE"),
        filer_cik: header_line(filer_text, "CENTRAL INDEX KEY"),
        filer_name: header_line(filer_text, "COMPANY CONFORMED NAME"),
    };
    require_closing(text, "</SEC-DOCUMENT>")?;
    Ok(Envelope { header, xml_blocks: xml_blocks(text, end)? })
}

/// Reads an EDGAR feed `.nc` submission.
pub fn read_nc(text: &str) -> Result<Envelope<'_>, Refusal> {
    let header_end = text.find("<DOCUMENT>").unwrap_or(text.len());
    let header_text = &text[..header_end];
    let filer_text = header_text.find("<FILER>").map_or(header_text, |i| &header_text[i..]);
    let header = Header {
        accession: tag_value(header_text, "ACCESSION-NUMBER"),
        form: tag_value(header_text, "TYPE"),
        period: tag_value(header_text, "PERIOD"),
        filed: tag_value(header_text, "FILING-DATE"),
        filer_cik: tag_value(filer_text, "CIK"),
        filer_name: tag_value(filer_text, "CONFORMED-NAME"),
    };
    require_closing(text, "</SUBMISSION>")?;
    Ok(Envelope { header, xml_blocks: xml_blocks(text, header_end)? })
}

/// The value of a `KEY:<tabs>value` header line (the first one), when not empty.
fn header_line(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let value = line.trim().strip_prefix(key)?.strip_prefix(':')?.trim();
        (!value.is_empty()).then(|| value.to_string())
    })
}

/// The value after the first `<TAG>`, up to the next tag or line end, when not empty.
fn tag_value(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let rest = &text[text.find(&open)? + open.len()..];
    let value = rest[..rest.find(['<', '\n', '\r']).unwrap_or(rest.len())].trim();
    (!value.is_empty()).then(|| value.to_string())
}

/// A submission cut short loses its closing tag: refuse it rather than read half a filing.
fn require_closing(text: &str, closing: &str) -> Result<(), Refusal> {
    if text.trim_end().ends_with(closing) {
        Ok(())
    } else {
        Err(Refusal::at(at_line(text, text.len()), format!("the file ends without {closing}: it is truncated")))
    }
}

/// The `<XML>` blocks of every `<DOCUMENT>` after `from` (documents without XML, such as exhibits, have none).
fn xml_blocks(text: &str, from: usize) -> Result<Vec<XmlBlock<'_>>, Refusal> {
    const OPEN_DOC: &str = "<DOCUMENT>";
    const OPEN_XML: &str = "<XML>";
    let mut blocks = Vec::new();
    let mut pos = from;
    while let Some(found) = text[pos..].find(OPEN_DOC) {
        let doc_start = pos + found;
        let doc_end = text[doc_start..].find("</DOCUMENT>").map(|i| doc_start + i).ok_or_else(|| {
            Refusal::at(at_line(text, doc_start), "<DOCUMENT> is never closed: the file is truncated")
        })?;
        let document = &text[doc_start..doc_end];
        if let Some(xml_open) = document.find(OPEN_XML) {
            let xml_start = doc_start + xml_open + OPEN_XML.len();
            let xml_end = text[xml_start..doc_end].find("</XML>").map(|i| xml_start + i).ok_or_else(|| {
                Refusal::at(at_line(text, xml_start), "<XML> is not closed before </DOCUMENT>: the document is cut")
            })?;
            let raw = &text[xml_start..xml_end];
            let xml = raw.trim_start();
            blocks.push(XmlBlock { offset: xml_start + (raw.len() - xml.len()), xml });
        }
        pos = doc_end;
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_and_tags_read_their_values() {
        let header =
            "ACCESSION NUMBER:\t\t0001-23-1\nFILER:\n\tCOMPANY DATA:\t\n\t\tCENTRAL INDEX KEY:\t\t\t0000000042\n";
        assert_eq!(header_line(header, "ACCESSION NUMBER").as_deref(), Some("0001-23-1"));
        assert_eq!(header_line(header, "CENTRAL INDEX KEY").as_deref(), Some("0000000042"));
        assert_eq!(header_line(header, "FILED AS OF DATE"), None);
        let nc = "<SUBMISSION>\n<TYPE>13F-HR<PERIOD>20241231\n<FILER><CIK>0000000042\n";
        assert_eq!(tag_value(nc, "TYPE").as_deref(), Some("13F-HR"));
        assert_eq!(tag_value(nc, "PERIOD").as_deref(), Some("20241231"));
        assert_eq!(tag_value(nc, "CIK").as_deref(), Some("0000000042"));
        assert_eq!(tag_value(nc, "ACCESSION-NUMBER"), None);
    }

    #[test]
    fn a_document_cut_before_its_end_is_refused_with_its_line() {
        // Hand-written malformed fixture: the second document never closes.
        let text = "<SUBMISSION>\n<TYPE>13F-HR\n<DOCUMENT>\n<XML>\n<a/>\n</XML>\n</DOCUMENT>\n<DOCUMENT>\n<XML>\n<b>\n</SUBMISSION>";
        let refusal = read_nc(text).unwrap_err();
        assert_eq!(refusal.location.as_deref(), Some("line 8"));
        assert!(refusal.reason.contains("never closed"), "{refusal}");
    }
}
