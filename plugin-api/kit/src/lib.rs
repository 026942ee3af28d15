//! datahost plugin kit: the dataset helpers several plugins share, kept out of the plugin API so that crate stays
//! the frozen ABI and the SDK. Nothing here crosses the ABI; a plugin links what it uses, and a change here is a
//! change to the plugins that depend on it, not to the host's promise to plugins built elsewhere.
//!
//! - County records: [`county`] (county slugs, the clerk-search request and its in-memory index), [`address`]
//!   (street address and name token matching), [`clerk`] (clerk indexes from the official table exports: deeds,
//!   liens), and [`tabular`] (delimited table files with named columns).
//! - [`disclosure`]: the shared rules of the House and Senate trade-disclosure datasets; [`text`] the text helpers
//!   they use.
//! - [`companies`]: the shape every per-company dataset shares (insiders, donors, contracts, lobbying, patents,
//!   execs).
//! - [`market`]: the close-price snapshot format of `prices`, read by `predictions` too.
//! - [`snapshot`]: the `meta` block most dataset snapshots carry.
//! - [`error`]: [`error::StoredError`], stored records that could not be read through the host.

#![deny(missing_docs)]

pub mod address;
pub mod clerk;
pub mod companies;
pub mod county;
pub mod disclosure;
pub mod error;
pub mod market;
pub mod snapshot;
pub mod tabular;
pub mod text;
