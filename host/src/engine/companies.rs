//! The `companies` reference dataset held by the host: SEC company identities (CIK, ticker, name) that every
//! plugin resolves through the `companies.resolve` host call. One copy, rebuilt when the dataset changes.

use std::collections::HashMap;

use datahost_plugin_api::params::normalize_ticker;
use datahost_plugin_api::reference::{cik10, normalize_company_name, CompanyQuery, CompanyRef};
use serde::Deserialize;

use crate::engine::error::EngineError;

/// The dataset's name in the records engine (owned by the `companies` plugin).
pub const DATASET: &str = "companies";

/// Look-up tables over the company list.
#[derive(Debug, Default)]
pub struct CompanyIndex {
    companies: Vec<CompanyRef>,
    by_ticker: HashMap<String, usize>,
    by_cik: HashMap<String, usize>,
    by_name: HashMap<String, usize>,
}

impl CompanyIndex {
    /// Builds the index from the dataset document (`{"companies": [{cik, ticker, name}, ...]}`). A CIK or name
    /// listed with several tickers resolves to the first common-stock-looking one (no `-` class suffix such as
    /// `NS-PB` or `AIZN`-style note tickers listed after it); company_tickers.json lists the primary ticker first.
    pub fn from_document(document: &str) -> Result<Self, EngineError> {
        #[derive(Deserialize)]
        struct Doc {
            #[serde(default)]
            companies: Vec<CompanyRef>,
        }
        let doc: Doc = serde_json::from_str(document)
            .map_err(|e| EngineError::Corrupt(format!("the companies dataset is not readable: {e}")))?;
        let mut index = Self::default();
        for c in doc.companies {
            let i = index.companies.len();
            if !c.ticker.is_empty() {
                // Share classes however written (`BRK.B`, the SEC's `BRK-B`, `brk/b`), as every ticker filter
                // of the SDK matches them.
                index.by_ticker.entry(normalize_ticker(&c.ticker)).or_insert(i);
            }
            let preferred = !c.ticker.contains('-');
            index.companies.push(c);
            let c = &index.companies[i];
            for (map, key) in
                [(&mut index.by_cik, c.cik.clone()), (&mut index.by_name, normalize_company_name(&c.name))]
            {
                match map.entry(key) {
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(i);
                    }
                    // A class or preferred ticker listed first gives way to the first plain one.
                    std::collections::hash_map::Entry::Occupied(mut o) => {
                        if preferred && index.companies[*o.get()].ticker.contains('-') {
                            o.insert(i);
                        }
                    }
                }
            }
        }
        Ok(index)
    }

    pub fn len(&self) -> usize {
        self.companies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.companies.is_empty()
    }

    pub fn resolve(&self, query: &CompanyQuery) -> Option<&CompanyRef> {
        let i = match query {
            CompanyQuery::Ticker(t) => self.by_ticker.get(&normalize_ticker(t)),
            CompanyQuery::Cik(c) => cik10(c).and_then(|c| self.by_cik.get(&c)),
            CompanyQuery::Name(n) => self.by_name.get(&normalize_company_name(n)),
        }?;
        self.companies.get(*i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_by_ticker_cik_and_tolerant_name() {
        let doc = r#"{"ingested": {"rows": 3, "files": 1, "lastIngestAt": ""}, "companies": [
            {"cik": "0000320193", "ticker": "AAPL", "name": "Apple Inc."},
            {"cik": "0001652044", "ticker": "GOOGL", "name": "Alphabet Inc."},
            {"cik": "0001652044", "ticker": "GOOG", "name": "Alphabet Inc."}]}"#;
        let index = CompanyIndex::from_document(doc).unwrap();
        assert_eq!(index.resolve(&CompanyQuery::Ticker("aapl".into())).unwrap().cik, "0000320193");
        assert_eq!(index.resolve(&CompanyQuery::Cik("320193".into())).unwrap().ticker, "AAPL");
        assert_eq!(index.resolve(&CompanyQuery::Cik("1652044".into())).unwrap().ticker, "GOOGL");
        assert_eq!(index.resolve(&CompanyQuery::Name("APPLE INC".into())).unwrap().ticker, "AAPL");
        assert_eq!(index.resolve(&CompanyQuery::Name("Alphabet, Inc".into())).unwrap().ticker, "GOOGL");
        assert!(index.resolve(&CompanyQuery::Ticker("NOPE".into())).is_none());
        // A preferred-share ticker listed first does not become the company's ticker.
        let doc = r#"{"companies": [
            {"cik": "0001110805", "ticker": "NS-PB", "name": "NuStar Energy L.P."},
            {"cik": "0001110805", "ticker": "NS", "name": "NuStar Energy L.P."}]}"#;
        let index = CompanyIndex::from_document(doc).unwrap();
        assert_eq!(index.resolve(&CompanyQuery::Cik("1110805".into())).unwrap().ticker, "NS");
        assert_eq!(index.resolve(&CompanyQuery::Name("NUSTAR ENERGY LP".into())).unwrap().ticker, "NS");
        assert_eq!(index.resolve(&CompanyQuery::Ticker("NS-PB".into())).unwrap().ticker, "NS-PB");
        // The SEC writes share classes with `-`; a caller may write `.` or `/`.
        let doc = r#"{"companies": [{"cik": "0001067983", "ticker": "BRK-B", "name": "BERKSHIRE HATHAWAY INC"}]}"#;
        let index = CompanyIndex::from_document(doc).unwrap();
        for spelling in ["BRK.B", "brk-b", "BRK/B", " brk.b "] {
            assert_eq!(index.resolve(&CompanyQuery::Ticker(spelling.into())).unwrap().ticker, "BRK-B", "{spelling}");
        }
    }
}
