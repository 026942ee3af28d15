//! Build facts for the `datahost_build_info` metric: the git commit (from `GIT_COMMIT` when set, as in a
//! container build without `.git`, else from `git`) and the rustc version. Missing facts become "unknown".

use std::path::PathBuf;
use std::process::Command;

fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn git(args: &[&str]) -> Option<String> {
    output(Command::new("git").args(args))
}

fn main() {
    println!("cargo:rerun-if-env-changed=GIT_COMMIT");
    let commit = std::env::var("GIT_COMMIT").ok().filter(|c| !c.is_empty()).or_else(|| {
        // Rebuild when HEAD moves: HEAD itself (a checkout) and the branch it names (a commit).
        // (A missing file would make cargo rerun this script on every build, so only existing ones are named.)
        let branch = git(&["symbolic-ref", "-q", "HEAD"]);
        for name in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
            if let Some(path) = git(&["rev-parse", "--git-path", name]).map(PathBuf::from).filter(|p| p.exists()) {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        git(&["rev-parse", "--short=12", "HEAD"])
    });
    println!("cargo:rustc-env=BUILD_GIT_COMMIT={}", commit.as_deref().unwrap_or("unknown"));

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    // "rustc 1.95.0 (abcdef 2026-01-01)" -> "1.95.0"
    let version = output(Command::new(rustc).arg("--version"))
        .and_then(|v| v.split_whitespace().nth(1).map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=BUILD_RUSTC_VERSION={version}");
}
