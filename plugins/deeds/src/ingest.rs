//! Parser of county clerk index exports: each file is one table (instruments, parties or parcels) of a clerk
//! whose mapping in `mappings/` (compiled in by `build.rs`) names its columns; the SDK's `clerk` module reads
//! it. Shipped: New York City's ACRIS (`nyc-acris`). The records serve `/v1/deeds` and, for liens, `/v1/liens`
//! (which reads this dataset's records).

use datahost_plugin_api::{IngestBatch, Refusal, SourceFile};
use datahost_plugin_kit::clerk::{self, ClerkMapping};

/// The mapping files shipped in `mappings/` (file name, text).
pub const SHIPPED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/mappings.rs"));

/// One format per table of each shipped mapping.
pub const FORMATS: &[&str] = &["nyc-acris-instruments", "nyc-acris-parties", "nyc-acris-legals"];

pub fn mappings() -> Result<Vec<ClerkMapping>, Refusal> {
    let (ok, errors) = clerk::mappings(SHIPPED);
    if !errors.is_empty() {
        return Err(Refusal::new(format!("unreadable clerk mappings: {}", errors.join("; "))));
    }
    Ok(ok)
}

pub fn parse(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    clerk::parse(file, &mappings()?)
}
