//! House Clerk financial disclosures (-> `congress-trades`): the yearly `public_disc/financial-pdfs/<year>FD.zip`
//! (fetched conditionally; its `<year>FD.xml` index is queued — the `.txt` holds the same rows), then for every
//! periodic transaction report in that index (FilingType `P`) the PDF `public_disc/ptr-pdfs/<year>/<DocID>.pdf`,
//! at most `max_ptr_pdfs` new ones per run. PDFs never change once filed, so a kept one is not requested again.

use chrono::Datelike;

use crate::config::HouseSource;

use super::source_run::SourceRun;

fn accept(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".xml")
}

/// `(year, DocID)` of every PTR (FilingType `P`) in a `<year>FD.xml` index.
pub fn ptr_filings(xml: &str) -> Vec<(String, String)> {
    let field = |block: &str, tag: &str| -> Option<String> {
        let open = format!("<{tag}>");
        let start = block.find(&open)? + open.len();
        let end = block[start..].find(&format!("</{tag}>"))? + start;
        Some(block[start..end].trim().to_string())
    };
    xml.split("<Member>")
        .skip(1)
        .filter_map(|block| {
            let block = block.split("</Member>").next()?;
            if field(block, "FilingType")? != "P" {
                return None;
            }
            let doc = field(block, "DocID")?;
            let year = field(block, "Year")?;
            // Both end up in an address: digits only.
            (doc.chars().all(|c| c.is_ascii_digit()) && year.chars().all(|c| c.is_ascii_digit()) && !doc.is_empty())
                .then_some((year, doc))
        })
        .collect()
}

pub async fn run(run: &mut SourceRun<'_>, cfg: &HouseSource) -> Result<(), super::error::SourceError> {
    let years = if cfg.years.is_empty() { vec![chrono::Utc::now().year()] } else { cfg.years.clone() };
    let mut budget = cfg.max_ptr_pdfs;
    for year in years {
        let path = format!("public_disc/financial-pdfs/{year}FD.zip");
        let (url, rel) = (run.url(&path), run.rel(&path));
        if !super::sources::fetch_zip(run, "congress-trades", &url, &rel, accept).await || !cfg.ptr_pdfs {
            continue;
        }
        let index = run.abs(&format!("{rel}.d/{year}FD.xml"));
        let xml = match tokio::fs::read(&index).await {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                run.error(format!("house: cannot read the index {}: {e}", index.display()));
                continue;
            }
        };
        for (filing_year, doc) in ptr_filings(&xml) {
            if budget == 0 {
                tracing::info!("house: max_ptr_pdfs reached; the remaining PTR PDFs are fetched next run");
                break;
            }
            let path = format!("public_disc/ptr-pdfs/{filing_year}/{doc}.pdf");
            let (url, rel) = (run.url(&path), run.rel(&path));
            match run.fetch_immutable(&url, &rel, "congress-trades").await {
                Ok(true) => budget -= 1,
                Ok(false) => {}
                Err(e) => run.error(e.to_string()),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn ptrs_are_the_p_rows_of_the_index() {
        let xml = "<FinancialDisclosure><Member><Last>A</Last><FilingType>C</FilingType><Year>2023</Year>\
                   <DocID>10056211</DocID></Member><Member><Last>Pelosi</Last><FilingType>P</FilingType>\
                   <Year>2023</Year><DocID>20022260</DocID></Member><Member><FilingType>P</FilingType>\
                   <Year>2023</Year><DocID>../x</DocID></Member></FinancialDisclosure>";
        assert_eq!(super::ptr_filings(xml), [("2023".to_string(), "20022260".to_string())]);
    }
}
