//! The raw folder (`<engine.data_dir>/raw/<source>/...`): zip extraction that either lands whole or not at all,
//! and the retention that keeps the folder under `sync.retention_mb`.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::state::SyncStore;
use serde::Serialize;

/// Raw-folder housekeeping.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Retention {
    pub limit_bytes: u64,
    pub kept_bytes: u64,
    pub deleted_files: u64,
}

/// One extracted member.
#[derive(Debug, Clone)]
pub struct Member {
    /// The member's file name (folders inside the zip are flattened; names are made file-system safe).
    pub name: String,
    pub sha256: String,
    pub size: u64,
}

/// Why a zip could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ZipError {
    #[error("the zip {file} is corrupt: {message}")]
    Corrupt { file: String, message: String },
    #[error("the zip {file} holds none of the expected files")]
    Empty { file: String },
    #[error("cannot extract {file}: {message}")]
    Io { file: String, message: String },
}

/// Extracts the members of `zip` that `accept` wants (by file name) into `dest`, replacing what was there.
/// Everything is read (so every member's CRC is checked) into a temporary folder that is renamed into place
/// only when the whole archive read cleanly: a corrupt zip leaves nothing behind.
pub async fn extract_zip(zip: PathBuf, dest: PathBuf, accept: fn(&str) -> bool) -> Result<Vec<Member>, ZipError> {
    tokio::task::spawn_blocking(move || extract_blocking(&zip, &dest, accept))
        .await
        .map_err(|e| ZipError::Io { file: String::new(), message: e.to_string() })?
}

fn extract_blocking(zip: &Path, dest: &Path, accept: fn(&str) -> bool) -> Result<Vec<Member>, ZipError> {
    let file_name = zip.display().to_string();
    let io = |message: String| ZipError::Io { file: file_name.clone(), message };
    let corrupt = |e: &dyn std::fmt::Display| ZipError::Corrupt { file: file_name.clone(), message: e.to_string() };
    let tmp = dest.with_extension("d.tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| io(format!("cannot create {}: {e}", tmp.display())))?;
    let result = (|| {
        let file = std::fs::File::open(zip).map_err(|e| io(e.to_string()))?;
        let mut archive = zip::ZipArchive::new(file).map_err(|e| corrupt(&e))?;
        let mut members = Vec::new();
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).map_err(|e| corrupt(&e))?;
            if entry.is_dir() {
                continue;
            }
            let Some(name) =
                entry.enclosed_name().and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).map(|n| {
                    n.chars()
                        .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' })
                        .collect::<String>()
                })
            else {
                continue;
            };
            if !accept(&name) {
                continue;
            }
            let out_path = tmp.join(&name);
            let mut out = std::fs::File::create(&out_path).map_err(|e| io(format!("{}: {e}", out_path.display())))?;
            let mut hasher = <sha2::Sha256 as sha2::Digest>::new();
            let mut buf = vec![0u8; 64 * 1024];
            let mut size = 0u64;
            loop {
                // A bad CRC or a cut deflate stream shows up here.
                let n = entry.read(&mut buf).map_err(|e| corrupt(&format!("member {name}: {e}")))?;
                if n == 0 {
                    break;
                }
                sha2::Digest::update(&mut hasher, &buf[..n]);
                std::io::Write::write_all(&mut out, &buf[..n]).map_err(|e| io(e.to_string()))?;
                size += n as u64;
            }
            out.sync_all().map_err(|e| io(e.to_string()))?;
            members.push(Member { name, sha256: hex::encode(sha2::Digest::finalize(hasher)), size });
        }
        if members.is_empty() {
            return Err(ZipError::Empty { file: file_name.clone() });
        }
        Ok(members)
    })();
    match result {
        Ok(members) => {
            let _ = std::fs::remove_dir_all(dest);
            std::fs::rename(&tmp, dest).map_err(|e| io(format!("cannot move into {}: {e}", dest.display())))?;
            Ok(members)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

/// Why the raw folder could not be brought under `sync.retention_mb`.
#[derive(Debug, thiserror::Error)]
pub enum RetentionError {
    #[error(transparent)]
    State(#[from] super::state::StateError),
    #[error("cannot delete {}: {source}", path.display())]
    Delete {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Deletes kept raw files, ingested ones first (oldest ingest first), until the folder holds at most
/// `limit_mb`. Rows stay as provenance, marked `deleted`.
pub async fn enforce_retention(
    store: &SyncStore<'_>,
    raw_root: &Path,
    limit_mb: u64,
) -> Result<Retention, RetentionError> {
    let limit = limit_mb.saturating_mul(1024 * 1024);
    let files = store.kept_files().await?;
    let mut kept: u64 = files.iter().map(|f| f.size.max(0) as u64).sum();
    let mut report = Retention { limit_bytes: limit, kept_bytes: kept, deleted_files: 0 };
    for f in files {
        if kept <= limit {
            break;
        }
        let path = raw_root.join(&f.path);
        match tokio::fs::remove_file(&path).await {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(RetentionError::Delete { path, source }),
        }
        store.mark_deleted(f.id).await?;
        kept = kept.saturating_sub(f.size.max(0) as u64);
        report.deleted_files += 1;
    }
    report.kept_bytes = kept;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::state::NewFile;

    fn zip_with(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut buf);
            for (name, bytes) in files {
                w.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
                std::io::Write::write_all(&mut w, bytes).unwrap();
            }
            w.finish().unwrap();
        }
        buf.into_inner()
    }

    #[tokio::test]
    async fn a_zip_lands_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.zip");
        std::fs::write(&good, zip_with(&[("cm.txt", b"C1|x\n"), ("readme.html", b"<p>")])).unwrap();
        let dest = dir.path().join("good.zip.d");
        let members = extract_zip(good, dest.clone(), |n| n.ends_with(".txt")).await.unwrap();
        assert_eq!(members.len(), 1);
        assert_eq!(members[0].name, "cm.txt");
        assert_eq!(std::fs::read(dest.join("cm.txt")).unwrap(), b"C1|x\n");
        assert!(!dest.join("readme.html").exists());

        // A zip cut in half: nothing extracted, no temporary folder left.
        let bytes = zip_with(&[("cm.txt", &[b'x'; 5000])]);
        let bad = dir.path().join("bad.zip");
        std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
        let bad_dest = dir.path().join("bad.zip.d");
        let err = extract_zip(bad, bad_dest.clone(), |_| true).await.unwrap_err();
        assert!(err.to_string().contains("corrupt"), "{err}");
        assert!(!bad_dest.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3, "good.zip, good.zip.d, bad.zip");
    }

    #[tokio::test]
    async fn retention_deletes_ingested_files_first() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = crate::engine::sqlite::SqliteStore::open(dir.path()).unwrap();
        let store = SyncStore::Sqlite(&sqlite);
        let raw = dir.path().join("raw");
        std::fs::create_dir_all(raw.join("s")).unwrap();
        let mb = vec![0u8; 1024 * 1024];
        for name in ["a", "b", "c"] {
            std::fs::write(raw.join("s").join(name), &mb).unwrap();
            let path = format!("s/{name}");
            let file = NewFile {
                source: "s",
                dataset: "d",
                url: name,
                path: &path,
                sha256: "x",
                size: mb.len() as u64,
                status: "pending",
            };
            store.add_file(&file).await.unwrap();
        }
        // b is ingested: it goes first although a is older.
        let b = store.pending("s").await.unwrap().into_iter().find(|r| r.url == "b").unwrap();
        store.mark(b.id, "applied", None).await.unwrap();
        let r = enforce_retention(&store, &raw, 2).await.unwrap();
        assert_eq!(r.deleted_files, 1);
        assert!(!raw.join("s/b").exists());
        assert!(raw.join("s/a").exists() && raw.join("s/c").exists());
        let r = enforce_retention(&store, &raw, 1).await.unwrap();
        assert_eq!((r.deleted_files, r.kept_bytes), (1, 1024 * 1024));
        assert!(!raw.join("s/a").exists(), "then the oldest of the rest");
    }
}
