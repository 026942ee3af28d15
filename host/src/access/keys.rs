//! API keys: format, hashing, and the key store. Keys are stored only as SHA-256 hashes; a key is shown once,
//! when issued. The server keeps an in-memory map of hashes that a background task refreshes from the store
//! (the embedded JSON file, or PostgreSQL in engine mode), so a revocation reaches every replica within the
//! reload interval.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;

use datahost_plugin_api::Tier;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::access::ratelimit::{tier_limit, RateSlot};
use crate::access::AccessError;
use crate::config::Config;
use crate::engine::postgres::keys::{KeyRecord, PgKeys};
use crate::engine::Engine;

pub const KEY_PREFIX: &str = "svc_live_";

#[derive(Debug, Default, Serialize, Deserialize)]
struct KeyFile {
    version: u32,
    keys: Vec<KeyRecord>,
}

/// Whether `key` has the `svc_live_<32 hex>` form.
pub fn is_well_formed(key: &str) -> bool {
    // Every digit is checked, by a table and without a branch per digit: a key's digits are random, so branches
    // on each (`is_ascii_hexdigit`) cost little for one key and 1.3% of a cached answer's host samples with
    // 4,000 keys in rotation (0.06% like this; BENCHMARKS.md, stop 54).
    const HEX: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            table[b] = (b as u8).is_ascii_hexdigit();
            b += 1;
        }
        table
    };
    key.strip_prefix(KEY_PREFIX)
        .is_some_and(|hex| hex.len() == 32 && hex.bytes().fold(true, |ok, b| ok & HEX[usize::from(b)]))
}

pub fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// A fresh random key and its record.
pub fn generate(tier: Tier, label: &str) -> (String, KeyRecord) {
    let mut secret = [0u8; 16];
    rand::rng().fill_bytes(&mut secret);
    let key = format!("{KEY_PREFIX}{}", hex::encode(secret));
    let mut id = [0u8; 6];
    rand::rng().fill_bytes(&mut id);
    let record = KeyRecord {
        id: format!("key_{}", hex::encode(id)),
        hash: hex::encode(hash_key(&key)),
        tier,
        label: label.to_string(),
        created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        revoked_at: None,
    };
    (key, record)
}

/// What a presented key resolves to.
#[derive(Debug, Clone)]
pub enum KeyLookup {
    /// `slot`: the key's count in the in-process limiter, kept with its entry; none for a tier without a limit
    /// (not handed out where nothing counts in it: each hand-out is a write to the slot's shared reference count).
    Valid {
        id: Arc<str>,
        tier: Tier,
        slot: Option<Arc<RateSlot>>,
    },
    Revoked,
    Unknown,
}

#[derive(Debug, Clone)]
struct Entry {
    hash: [u8; 32],
    id: Arc<str>,
    tier: Tier,
    revoked: bool,
    /// Carried from the entry it replaces, so a reload does not start the key's window again.
    slot: Arc<RateSlot>,
}

impl Entry {
    /// The entry for `record`, keeping the count of `replaced` (the key's entry in the view it replaces), if any.
    fn new(hash: [u8; 32], record: &KeyRecord, replaced: Option<&Entry>) -> Self {
        Entry {
            hash,
            id: Arc::from(record.id.as_str()),
            tier: record.tier,
            revoked: record.revoked_at.is_some(),
            slot: replaced.map(|e| e.slot.clone()).unwrap_or_default(),
        }
    }
}

/// A stored key's hash, or `None` (said in the log: the key then authenticates nothing) when it is not 64 hex
/// digits.
fn record_hash(record: &KeyRecord) -> Option<[u8; 32]> {
    let hash = hex::decode(&record.hash).ok().and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok());
    if hash.is_none() {
        tracing::warn!(key_id = %record.id, "key record ignored: its hash is not 64 hex digits");
    }
    hash
}

/// Key hashes to their entries. The keys are SHA-256 digests, uniform already: foldhash instead of the default
/// SipHash, which was a visible share of a cached answer's cost (every request looks its key up).
type ByHash = HashMap<[u8; 32], Entry, foldhash::fast::RandomState>;

/// The in-memory view the request path reads.
#[derive(Default)]
pub struct KeyCache {
    /// Read on every request without a lock: a read lock is a write to one shared word, which the worker
    /// threads passed between their cores on every request. Replaced whole by a writer.
    entries: ArcSwap<ByHash>,
    /// Serialises writers, so an `upsert` is not lost to a concurrent `replace` (or another `upsert`).
    writing: Mutex<()>,
}

impl KeyCache {
    /// Replaces the whole view with `records`; returns the ids of keys that were valid and are revoked now, so
    /// the reload can say when a revocation took effect on this replica.
    pub fn replace(&self, records: &[KeyRecord]) -> Vec<Arc<str>> {
        let _writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let before = self.entries.load();
        let mut map = ByHash::with_capacity_and_hasher(records.len(), Default::default());
        for r in records {
            let Some(hash) = record_hash(r) else { continue };
            map.insert(hash, Entry::new(hash, r, before.get(&hash)));
        }
        let newly_revoked = map
            .values()
            .filter(|e| e.revoked && before.get(&e.hash).is_some_and(|before| !before.revoked))
            .map(|e| e.id.clone())
            .collect();
        self.entries.store(Arc::new(map));
        newly_revoked
    }

    /// Resolves a well-formed key. The map is indexed by the SHA-256 of the key, so lookup timing can only
    /// reveal facts about a hash preimage the caller already holds; the final equality is still checked in
    /// constant time.
    pub fn lookup(&self, key: &str) -> KeyLookup {
        let hash = hash_key(key);
        let map = self.entries.load();
        match map.get(&hash) {
            Some(e) if bool::from(e.hash.ct_eq(&hash)) => {
                if e.revoked {
                    KeyLookup::Revoked
                } else {
                    let slot = tier_limit(e.tier).map(|_| e.slot.clone());
                    KeyLookup::Valid { id: e.id.clone(), tier: e.tier, slot }
                }
            }
            _ => KeyLookup::Unknown,
        }
    }

    /// Adds or replaces one record (a key found in the store after the last full reload).
    pub fn upsert(&self, record: &KeyRecord) {
        let _writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let mut map = ByHash::clone(&self.entries.load());
        if let Some(hash) = record_hash(record) {
            let entry = Entry::new(hash, record, map.get(&hash));
            map.insert(hash, entry);
        }
        self.entries.store(Arc::new(map));
    }

    pub fn len(&self) -> usize {
        self.entries.load().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The embedded key store: a JSON file of hashes, written atomically.
#[derive(Debug, Clone)]
pub struct FileKeyStore {
    path: PathBuf,
}

impl FileKeyStore {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn load(&self) -> Result<Vec<KeyRecord>, AccessError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str::<KeyFile>(&text)
                .map(|f| f.keys)
                .map_err(|source| AccessError::KeyFileFormat { path: self.path.clone(), source }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(source) => Err(self.file_error("cannot read key store", &self.path)(source)),
        }
    }

    fn file_error(&self, doing: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> AccessError {
        let path = path.to_path_buf();
        move |source| AccessError::KeyFile { doing, path, source }
    }

    fn save(&self, keys: Vec<KeyRecord>) -> Result<(), AccessError> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(self.file_error("cannot create", dir))?;
        }
        let text = serde_json::to_string_pretty(&KeyFile { version: 1, keys })
            .map_err(|source| AccessError::KeyFileFormat { path: self.path.clone(), source })?;
        let tmp = self.path.with_extension(format!("tmp{}", std::process::id()));
        // Owner-only from its creation (key hashes and labels are nobody else's business), whatever the umask.
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options.open(&tmp).and_then(|mut f| {
            use std::io::Write;
            #[cfg(unix)]
            f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
            f.write_all(text.as_bytes())?;
            f.sync_all()
        });
        written.map_err(self.file_error("cannot write", &tmp))?;
        std::fs::rename(&tmp, &self.path).map_err(self.file_error("cannot replace", &self.path))
    }

    pub fn insert(&self, record: KeyRecord) -> Result<(), AccessError> {
        let mut keys = self.load()?;
        keys.push(record);
        self.save(keys)
    }

    /// Marks a key revoked. Returns false when no key has that id.
    pub fn revoke(&self, id: &str) -> Result<bool, AccessError> {
        let mut keys = self.load()?;
        let Some(k) = keys.iter_mut().find(|k| k.id == id) else { return Ok(false) };
        if k.revoked_at.is_none() {
            k.revoked_at = Some(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
        }
        self.save(keys)?;
        Ok(true)
    }

    /// Modification time, to reload only when the file changed.
    pub fn modified(&self) -> Option<std::time::SystemTime> {
        std::fs::metadata(&self.path).and_then(|m| m.modified()).ok()
    }
}

/// Where keys are stored: the embedded JSON file, or PostgreSQL in engine mode.
pub enum KeySource {
    File(FileKeyStore),
    Postgres(PgKeys),
}

impl KeySource {
    pub async fn load(&self) -> Result<Vec<KeyRecord>, AccessError> {
        match self {
            KeySource::File(f) => f.load(),
            KeySource::Postgres(p) => Ok(p.load().await?),
        }
    }

    /// Reloads the cache from the store.
    pub async fn refresh(&self, cache: &KeyCache) -> Result<(), AccessError> {
        let records = self.load().await?;
        for id in cache.replace(&records) {
            tracing::info!(key_id = %id, "API key revoked: refused from now on");
        }
        Ok(())
    }

    /// Looks one key up by its hash (PostgreSQL; the file store answers through a reload instead).
    pub async fn find(&self, hash_hex: &str) -> Result<Option<KeyRecord>, AccessError> {
        match self {
            KeySource::File(f) => Ok(f.load()?.into_iter().find(|r| r.hash == hash_hex)),
            KeySource::Postgres(p) => Ok(p.find(hash_hex).await?),
        }
    }

    pub async fn insert(&self, record: KeyRecord) -> Result<(), AccessError> {
        match self {
            KeySource::File(f) => f.insert(record),
            KeySource::Postgres(p) => Ok(p.insert(record).await?),
        }
    }

    pub async fn revoke(&self, id: &str) -> Result<bool, AccessError> {
        match self {
            KeySource::File(f) => f.revoke(id),
            KeySource::Postgres(p) => Ok(p.revoke(id).await?),
        }
    }

    /// A token that changes when the store may have changed (file mtime); `None` means always reload.
    pub fn change_token(&self) -> Option<std::time::SystemTime> {
        match self {
            KeySource::File(f) => f.modified(),
            KeySource::Postgres(_) => None,
        }
    }
}

/// The key cache together with its store: what the request path and the reload task share.
pub struct KeyRing {
    pub cache: KeyCache,
    pub source: KeySource,
    last_refresh: tokio::sync::Mutex<(Option<std::time::Instant>, Option<std::time::SystemTime>)>,
    /// Hashes recently looked up and not found, so a flood of unknown keys costs the store one query per key
    /// per second at most.
    misses: std::sync::Mutex<HashMap<[u8; 32], std::time::Instant>>,
}

impl KeyRing {
    pub fn new(source: KeySource) -> Self {
        Self {
            cache: KeyCache::default(),
            source,
            last_refresh: tokio::sync::Mutex::new((None, None)),
            misses: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// Reloads from the store when it may have changed: for the file store when its modification time moved
    /// (a cheap stat), for stores without such a token at most once per `min_interval`.
    pub async fn refresh_if_due(&self, min_interval: std::time::Duration) -> Result<(), AccessError> {
        let mut last = self.last_refresh.lock().await;
        let token = self.source.change_token();
        let unchanged = match token {
            Some(t) => last.1 == Some(t),
            None => last.0.is_some_and(|at| at.elapsed() < min_interval),
        };
        if unchanged {
            return Ok(());
        }
        self.source.refresh(&self.cache).await?;
        *last = (Some(std::time::Instant::now()), token);
        Ok(())
    }

    /// Resolves a well-formed key. A key unknown to the cache is looked for in the store (a cheap stat and
    /// reload for the file, one indexed query for PostgreSQL), so a key issued a moment ago works at once on
    /// every replica; misses are remembered for a second so a flood of unknown keys cannot load the store.
    pub async fn resolve(&self, key: &str) -> KeyLookup {
        let found = self.cache.lookup(key);
        if !matches!(found, KeyLookup::Unknown) {
            return found;
        }
        let hash = hash_key(key);
        {
            let mut misses = self.misses.lock().unwrap_or_else(|e| e.into_inner());
            if misses.get(&hash).is_some_and(|at| at.elapsed() < std::time::Duration::from_secs(1)) {
                return KeyLookup::Unknown;
            }
            if misses.len() > 10_000 {
                misses.clear();
            }
        }
        let result = match &self.source {
            KeySource::File(_) => self.refresh_if_due(std::time::Duration::ZERO).await,
            KeySource::Postgres(_) => match self.source.find(&hex::encode(hash)).await {
                Ok(Some(record)) => {
                    self.cache.upsert(&record);
                    Ok(())
                }
                Ok(None) => Ok(()),
                Err(e) => Err(e),
            },
        };
        if let Err(e) = result {
            tracing::warn!(error = %e, "cannot look the API key up in the key store");
        }
        let found = self.cache.lookup(key);
        if matches!(found, KeyLookup::Unknown) {
            self.misses.lock().unwrap_or_else(|e| e.into_inner()).insert(hash, std::time::Instant::now());
        }
        found
    }
}

/// The key store for this config: the JSON file on the embedded engine, the key table in engine mode.
pub fn key_source(config: &Config, engine: &Arc<Engine>) -> KeySource {
    match engine.pg() {
        Some(pg) => KeySource::Postgres(pg.keys()),
        None => KeySource::File(FileKeyStore::new(config.keys.file.clone())),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_key_added_with_a_bad_hash_is_said_not_silently_dropped() {
        let (_, mut record) = super::generate(datahost_plugin_api::Tier::Free, "test");
        record.hash = "not hex".into();
        let cache = super::KeyCache::default();
        let ((), logs) = crate::log_capture::logged(|| cache.upsert(&record));
        assert!(cache.is_empty());
        assert!(logs.contains("key record ignored: its hash is not 64 hex digits"), "{logs}");
    }

    #[cfg(unix)]
    #[test]
    fn the_key_file_is_owner_only_even_over_a_world_readable_one() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        std::fs::write(&path, r#"{"version": 1, "keys": []}"#).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let store = FileKeyStore::new(path.clone());
        let (_, record) = generate(Tier::Free, "t");
        store.insert(record).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let fresh = dir.path().join("sub").join("keys.json");
        FileKeyStore::new(fresh.clone()).insert(generate(Tier::Free, "t").1).unwrap();
        assert_eq!(std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o600);
    }

    use super::*;

    /// A valid look-up's key id and tier.
    fn valid(lookup: &KeyLookup) -> Option<(&str, Tier)> {
        match lookup {
            KeyLookup::Valid { id, tier, .. } => Some((id, *tier)),
            _ => None,
        }
    }

    #[test]
    fn generated_keys_are_well_formed_and_stored_as_hashes() {
        let (key, record) = generate(Tier::Pro, "t");
        assert!(is_well_formed(&key), "{key}");
        assert_eq!(record.hash, hex::encode(hash_key(&key)));
        assert!(!serde_json::to_string(&record).unwrap().contains(&key));
    }

    #[test]
    fn format_rules() {
        assert!(is_well_formed("svc_live_0123456789abcdef0123456789ABCDEF"));
        assert!(!is_well_formed("svc_live_0123"));
        assert!(!is_well_formed("svc_test_0123456789abcdef0123456789abcdef"));
        assert!(!is_well_formed("svc_live_0123456789abcdef0123456789abcdeg"));
        // Every digit is checked, wherever the bad one is (the check has no early exit to get wrong).
        for at in 0..32 {
            let mut digits = *b"0123456789abcdef0123456789abcdef";
            for bad in [b'g', b' ', b'/', b':', b'@', b'`', 0x7f] {
                digits[at] = bad;
                let key = format!("svc_live_{}", std::str::from_utf8(&digits).unwrap());
                assert!(!is_well_formed(&key), "{key:?}");
            }
        }
        // 32 bytes that are not 32 characters: a multi-byte character is not a digit.
        assert!(!is_well_formed("svc_live_0123456789abcdef0123456789abcd\u{e9}"));
    }

    #[test]
    fn keys_added_at_once_are_all_kept() {
        // Each upsert copies the whole view and stores the copy: two writers at once must not lose one's key.
        let cache = Arc::new(KeyCache::default());
        let (_, first) = generate(Tier::Free, "");
        cache.replace(&[first]);
        let writers: Vec<_> = (0..4)
            .map(|_| {
                let cache = cache.clone();
                std::thread::spawn(move || {
                    let keys: Vec<(String, KeyRecord)> = (0..100).map(|_| generate(Tier::Pro, "")).collect();
                    for (_, record) in &keys {
                        cache.upsert(record);
                    }
                    keys
                })
            })
            .collect();
        let added: Vec<(String, KeyRecord)> = writers.into_iter().flat_map(|w| w.join().unwrap()).collect();
        assert_eq!(cache.len(), 1 + 400);
        for (key, record) in &added {
            assert_eq!(valid(&cache.lookup(key)), Some((record.id.as_str(), Tier::Pro)));
        }
    }

    #[test]
    fn a_reload_keeps_each_keys_count() {
        // A key's window lives with its entry: a reload (or the key found again in the store) must not start it
        // again, or a key could pass its limit by waiting for the next reload.
        let (k1, r1) = generate(Tier::Pro, "");
        let (k2, r2) = generate(Tier::Pro, "");
        let cache = KeyCache::default();
        cache.replace(std::slice::from_ref(&r1));
        let slot_of = |key: &str| match cache.lookup(key) {
            KeyLookup::Valid { slot: Some(slot), .. } => slot,
            other => panic!("{other:?}"),
        };
        let window = 7 * crate::access::ratelimit::WINDOW_MS;
        for _ in 0..5 {
            slot_of(&k1).count(window);
        }
        cache.replace(&[r1.clone(), r2.clone()]);
        assert_eq!(slot_of(&k1).count(window), 6);
        cache.upsert(&r1);
        assert_eq!(slot_of(&k1).count(window), 7);
        assert_eq!(slot_of(&k2).count(window), 1, "each key has its own");
    }

    #[test]
    fn cache_resolves_valid_revoked_unknown() {
        let (k1, r1) = generate(Tier::Free, "");
        let (k2, mut r2) = generate(Tier::Owner, "");
        r2.revoked_at = Some("2026-01-01T00:00:00Z".into());
        let cache = KeyCache::default();
        cache.replace(&[r1.clone(), r2]);
        assert_eq!(valid(&cache.lookup(&k1)), Some((r1.id.as_str(), Tier::Free)));
        assert!(matches!(cache.lookup(&k2), KeyLookup::Revoked));
        assert!(matches!(cache.lookup("svc_live_00000000000000000000000000000000"), KeyLookup::Unknown));
    }

    #[test]
    fn a_reload_names_the_keys_it_revoked_and_only_those() {
        let (_, r1) = generate(Tier::Free, "");
        let (_, r2) = generate(Tier::Pro, "");
        let (_, mut r3) = generate(Tier::Pro, "");
        r3.revoked_at = Some("2026-01-01T00:00:00Z".into());
        let cache = KeyCache::default();
        // A first load reports nothing: no key was valid here before, revoked or not.
        assert_eq!(cache.replace(&[r1.clone(), r2.clone(), r3.clone()]), Vec::<Arc<str>>::new());
        let mut r2_revoked = r2.clone();
        r2_revoked.revoked_at = Some("2026-02-01T00:00:00Z".into());
        assert_eq!(cache.replace(&[r1.clone(), r2_revoked.clone(), r3.clone()]), vec![Arc::from(r2.id.as_str())]);
        // Already revoked: not reported again.
        assert_eq!(cache.replace(&[r1, r2_revoked, r3]), Vec::<Arc<str>>::new());
    }

    #[test]
    fn file_store_round_trip_and_revoke() {
        let dir = std::env::temp_dir().join(format!("dh-keys-{}", std::process::id()));
        let store = FileKeyStore::new(dir.join("keys.json"));
        let (_, r) = generate(Tier::Pro, "x");
        store.insert(r.clone()).unwrap();
        assert_eq!(store.load().unwrap(), vec![r.clone()]);
        assert!(store.revoke(&r.id).unwrap());
        assert!(!store.revoke("key_nope").unwrap());
        assert!(store.load().unwrap()[0].revoked_at.is_some());
        let _ = std::fs::remove_dir_all(dir);
    }
}
