//! A folder of files for any dataset (`sync.sources.directory`): an HTTP folder whose index page links the
//! files (`href`s relative to the folder; sub-folders, queries and other sites are ignored), or a local folder
//! (a path or `file://` URL, recursed). Each file is kept and queued when its content changed since the last
//! run (conditional requests over HTTP; the SHA-256 for local files).

use std::path::{Path, PathBuf};

use crate::config::DirectorySource;

use super::error::SourceError;
use super::http::Download;
use super::source_run::SourceRun;

/// The file links of an index page (`href="name"` relative to the folder).
pub fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = html.to_ascii_lowercase();
    let mut at = 0;
    while let Some(found) = lower[at..].find("href=") {
        let start = at + found + 5;
        let quote = html[start..].chars().next();
        let (from, end) = match quote {
            Some(q @ ('"' | '\'')) => {
                let from = start + 1;
                (from, html[from..].find(q).map(|e| from + e))
            }
            _ => (start, html[start..].find(|c: char| c.is_whitespace() || c == '>').map(|e| start + e)),
        };
        let Some(end) = end else { break };
        let href = html[from..end].trim();
        at = end;
        let rejected = href.is_empty()
            || href.contains("://")
            || href.starts_with(['/', '?', '#', '.'])
            || href.ends_with('/')
            || href.contains(['?', '#'])
            || href.starts_with("mailto:");
        if !rejected && !out.iter().any(|h| h == href) {
            out.push(href.to_string());
        }
    }
    out
}

pub async fn run(run: &mut SourceRun<'_>, cfg: &DirectorySource) -> Result<(), SourceError> {
    let base = run.base().to_string();
    if let Some(folder) = local_folder(&base) {
        return local(run, &cfg.dataset, &folder).await;
    }
    let index_url = format!("{base}/");
    let listing = run.abs("directory/.index.html");
    let html = match run.client.download(&index_url, &listing, None).await {
        Ok(Download::Done { .. }) => {
            tokio::fs::read_to_string(&listing).await.map_err(SourceError::read("directory", &listing))?
        }
        Ok(_) => {
            let url = super::http::display_url(&index_url);
            return Err(SourceError::NoIndexPage { source_name: "directory", url });
        }
        Err(e) => return Err(e.into()),
    };
    let _ = tokio::fs::remove_file(&listing).await;
    for href in links(&html) {
        let url = run.url(&href);
        let rel = run.rel(&href);
        super::sources::fetch_plain(run, &cfg.dataset, &url, &rel).await;
    }
    Ok(())
}

fn local_folder(base: &str) -> Option<PathBuf> {
    if let Some(path) = base.strip_prefix("file://") {
        return Some(PathBuf::from(path));
    }
    (!base.contains("://")).then(|| PathBuf::from(base))
}

/// Copies new or changed files of a local folder into the raw folder and queues them.
async fn local(run: &mut SourceRun<'_>, dataset: &str, folder: &Path) -> Result<(), SourceError> {
    let files = crate::plugins::ingest::collect_files(&[folder.to_path_buf()]);
    for file in files {
        let Ok(relative) = file.strip_prefix(folder) else { continue };
        let url = format!("file://{}", file.display());
        let rel = run.rel(&relative.to_string_lossy());
        let (sha256, size) = match super::http::hash_file(&file).await {
            Ok(x) => x,
            Err(e) => {
                run.error(format!("directory: cannot read {}: {e}", file.display()));
                continue;
            }
        };
        let held = run.store.validators(&url).await?;
        if held.as_ref().is_some_and(|(_, sha)| *sha == sha256) {
            run.report.unchanged += 1;
            continue;
        }
        let dest = run.abs(&rel);
        let copied = async {
            if let Some(parent) = dest.parent() {
                tokio::fs::create_dir_all(parent).await?;
            }
            let part = super::http::part_path(&dest);
            tokio::fs::copy(&file, &part).await?;
            tokio::fs::rename(&part, &dest).await
        }
        .await;
        if let Err(e) = copied {
            run.error(format!("directory: cannot copy {} into {}: {e}", file.display(), dest.display()));
            continue;
        }
        run.report.fetched += 1;
        run.client.stats.bytes.fetch_add(size, std::sync::atomic::Ordering::Relaxed);
        let kept = async {
            run.keep(dataset, &url, &rel, &sha256, size, "pending").await?;
            run.commit(&url, &Default::default(), &sha256).await
        }
        .await;
        if let Err(e) = kept {
            run.error(e.to_string());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn index_pages_give_their_file_links() {
        let html = r#"<html><a href="../">Parent</a> <a href="a.txt">a</a> <A HREF='b.xml'>b</A>
            <a href="sub/">sub</a> <a href="https://elsewhere/x.txt">x</a> <a href="?C=M;O=A">sort</a>
            <a href=c.json>c</a> <a href="a.txt">again</a> <a href="/abs.txt">abs</a>"#;
        assert_eq!(super::links(html), ["a.txt", "b.xml", "c.json"]);
    }
}
