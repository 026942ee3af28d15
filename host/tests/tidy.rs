//! Tidy: the host's modules import each other one way (ARCHITECTURE.md, "Architecture Invariant: imports point
//! one way").
//!
//! The test reads `host/src` as text, builds the graph of which module imports which, and fails naming the
//! offence:
//! - **Granularity: one module per file.** `foo.rs` and `foo/mod.rs` are module `foo`, `foo/bar.rs` is
//!   `foo::bar`. An import is any `crate::`, `super::` or `self::` path (also inside `use` groups) and any path
//!   through a child module that a file declares (`mod bar;` then `bar::x`). A path names the longest module it
//!   starts with: `crate::plugins::dispatch::Policies` is an edge to `plugins::dispatch`.
//! - **No cycle between files**: any circle `a -> b -> c -> a` fails, except the few between sibling files of
//!   one folder listed in [`ALLOWED_CYCLES`] (each with its reason; a listed circle that is gone must be removed
//!   from the list, so it only shrinks).
//! - **Layers**: every top-level module is in [`LAYERS`], and a module imports only its own layer folder or a
//!   lower one, so no circle can run across the folders.
//!
//! Not read: comments, string literals and `#[cfg(test)]` items (unit tests may reach up, as dev-dependencies
//! may); `lib.rs`, which only declares the folders and keeps the paths the tests import from (a `crate::` path
//! through one of its re-exports fails here), and `main.rs`, the binary, which imports the library as
//! `datahost::`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first: a module may import its own top-level folder and the ones of a lower rank.
const LAYERS: &[(&str, u8)] = &[
    ("config", 0),
    ("tls", 0),
    ("engine", 1),
    ("access", 2),
    ("plugins", 2),
    ("sync", 3),
    ("http", 4),
    ("lifecycle", 5),
];

/// Circles between sibling files of one folder that may remain, each with why, as exact member sets. None does
/// today: keep it that way (a circle listed here is reported once it is gone, so the list only shrinks).
const ALLOWED_CYCLES: &[(&[&str], &str)] = &[];

type Graph = BTreeMap<String, BTreeMap<String, String>>;

#[test]
fn host_modules_import_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (graph, problems) = module_graph(&src);
    let mut failures = problems;
    failures.extend(layer_violations(&graph));
    let allowed: Vec<BTreeSet<String>> =
        ALLOWED_CYCLES.iter().map(|(set, _)| set.iter().map(|s| s.to_string()).collect()).collect();
    let mut seen_allowed = vec![false; allowed.len()];
    for component in cyclic_components(&simple(&graph)) {
        let set: BTreeSet<String> = component.iter().cloned().collect();
        match allowed.iter().position(|a| *a == set) {
            Some(i) if one_folder(&set) => seen_allowed[i] = true,
            _ => failures.push(format!(
                "import cycle: {} (the circle runs among {})",
                describe_cycle(&simple(&graph), &component),
                component.join(", ")
            )),
        }
    }
    for (i, seen) in seen_allowed.iter().enumerate() {
        if !seen {
            let listed = ALLOWED_CYCLES[i].0;
            failures
                .push(format!("ALLOWED_CYCLES lists {listed:?}, which is no longer a circle on its own: update it"));
        }
    }
    assert!(failures.is_empty(), "host/src imports do not point one way:\n  {}", failures.join("\n  "));
}

/// The cycle finder on hand-made graphs: it must see a circle, name it in order, and see none in a tree.
#[test]
fn cycle_finder_sees_circles_and_only_circles() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    let acyclic = graph(&[("http", "engine"), ("http", "config"), ("engine", "config"), ("lifecycle", "http")]);
    assert!(cyclic_components(&acyclic).is_empty());

    let cyclic = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("e", "e")]);
    let components = cyclic_components(&cyclic);
    assert_eq!(components.len(), 2, "{components:?}");
    let abc = components.iter().find(|c| c.len() == 3).expect("the a-b-c circle");
    assert_eq!(describe_cycle(&cyclic, abc), "a -> b -> c -> a");
    let selfloop = components.iter().find(|c| c.len() == 1).expect("the self-import");
    assert_eq!(describe_cycle(&cyclic, selfloop), "e -> e");

    // The parser: groups, `super`, child modules, comments, strings and test modules.
    let modules: BTreeSet<String> = ["a", "a::b", "a::c", "d", "d::e"].iter().map(|s| s.to_string()).collect();
    let text = r##"
        mod c;
        use crate::d::{e::{X, Y}, Z};
        use super::b::W; // crate::nothing
        fn f() { c::g(); let s = "crate::d::e"; let r = r#"crate::a::c"#; let ch = '{'; }
        #[cfg(test)]
        mod tests { use crate::a::b; fn t() { let brace = "}"; } }
        fn h() { crate::a::b::k() }
    "##;
    let (targets, problems) = imports("a::c", text, &modules);
    assert!(problems.is_empty(), "{problems:?}");
    let found: BTreeSet<&str> = targets.iter().map(|(m, _)| m.as_str()).collect();
    // `c::g()` names the undeclared file a/c/c.rs, so it falls back to `a::c` itself (not an edge).
    assert_eq!(found, BTreeSet::from(["d::e", "d", "a::b", "a::c"]));
    let (_, problems) = imports("a", "use crate::nowhere::X;", &modules);
    assert_eq!(problems.len(), 1, "{problems:?}");
}

/// Every module of `src` (by file) and, per module, the modules it imports with one example path.
fn module_graph(src: &Path) -> (Graph, Vec<String>) {
    let mut files = Vec::new();
    collect_rs(src, &mut files);
    let mut by_module: BTreeMap<String, PathBuf> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        if parts == ["lib"] || parts == ["main"] {
            continue;
        }
        if parts.last().map(String::as_str) == Some("mod") {
            parts.pop();
        }
        by_module.insert(parts.join("::"), file);
    }
    let modules: BTreeSet<String> = by_module.keys().cloned().collect();
    let mut graph = Graph::new();
    let mut problems = Vec::new();
    for (module, file) in &by_module {
        let text = std::fs::read_to_string(file).unwrap();
        let (targets, file_problems) = imports(module, &text, &modules);
        problems.extend(file_problems.into_iter().map(|p| format!("{}: {p}", file.display())));
        let out = graph.entry(module.clone()).or_default();
        for (target, path) in targets {
            if target != *module {
                out.entry(target).or_insert(path);
            }
        }
    }
    (graph, problems)
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn simple(graph: &Graph) -> BTreeMap<String, BTreeSet<String>> {
    graph.iter().map(|(m, out)| (m.clone(), out.keys().cloned().collect())).collect()
}

fn layer_of(module: &str) -> &str {
    module.split("::").next().unwrap()
}

fn one_folder(set: &BTreeSet<String>) -> bool {
    set.iter().map(|m| layer_of(m)).collect::<BTreeSet<_>>().len() == 1
}

/// Imports into another layer folder that is not lower, and top-level modules missing from `LAYERS`.
fn layer_violations(graph: &Graph) -> Vec<String> {
    let rank = |m: &str| LAYERS.iter().find(|(l, _)| *l == layer_of(m)).map(|(_, r)| *r);
    let mut out = Vec::new();
    for (from, targets) in graph {
        let Some(from_rank) = rank(from) else {
            out.push(format!("`{}` is in no layer: add it to LAYERS in host/tests/tidy.rs", layer_of(from)));
            continue;
        };
        for (to, path) in targets {
            if layer_of(from) == layer_of(to) {
                continue;
            }
            if rank(to).is_none_or(|r| r >= from_rank) {
                out.push(format!(
                    "layer: `{from}` ({}) imports `{to}` ({}) through `{path}`; imports point one way: {}",
                    layer_of(from),
                    layer_of(to),
                    "lifecycle -> http -> sync -> access, plugins -> engine -> config, tls"
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The strongly connected components that hold a cycle (two modules or more, or one importing itself).
fn cyclic_components(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                let self_loop = self.graph.get(v).is_some_and(|out| out.contains(v));
                if component.len() > 1 || self_loop {
                    component.sort();
                    self.out.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out.sort();
    t.out
}

/// One circle through the component's first module, as `a -> b -> a` (the shortest, by breadth-first search).
fn describe_cycle(graph: &BTreeMap<String, BTreeSet<String>>, component: &[String]) -> String {
    let inside: BTreeSet<&str> = component.iter().map(String::as_str).collect();
    let start = component[0].as_str();
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flatten().map(String::as_str) {
            if w == start {
                let mut path = vec![start];
                let mut at = v;
                while at != start {
                    path.push(at);
                    at = came_from[at];
                }
                path.push(start);
                let n = path.len();
                path[1..n - 1].reverse();
                return path.join(" -> ");
            }
            if inside.contains(w) && !came_from.contains_key(w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    component.join(" -> ")
}

/// The modules `module`'s source imports (each with the path that does), and paths that name no module.
fn imports(module: &str, text: &str, modules: &BTreeSet<String>) -> (Vec<(String, String)>, Vec<String>) {
    let code = without_tests(&blank_comments_and_literals(text));
    let here: Vec<&str> = module.split("::").collect();
    let children: BTreeSet<String> = declared_children(&code);
    let chars: Vec<char> = code.chars().collect();
    let mut paths = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':');
        if starts_word && is_ident(chars[i]) {
            let word: String = chars[i..].iter().take_while(|c| is_ident(**c)).collect();
            let after = i + word.chars().count();
            let root: Option<Vec<String>> = match word.as_str() {
                "crate" => Some(Vec::new()),
                "self" => Some(here.iter().map(|s| s.to_string()).collect()),
                "super" => Some(here[..here.len().saturating_sub(1)].iter().map(|s| s.to_string()).collect()),
                w if children.contains(w) => Some(here.iter().map(|s| s.to_string()).chain([w.to_string()]).collect()),
                _ => None,
            };
            if let (Some(root), true) = (root, chars[after..].starts_with(&[':', ':'])) {
                let mut j = after;
                for path in read_path(&chars, &mut j, root) {
                    paths.push(path);
                }
                i = j.max(i + 1);
                continue;
            }
            i = after;
            continue;
        }
        i += 1;
    }
    let mut targets = Vec::new();
    let mut problems = Vec::new();
    for segments in paths {
        let shown = segments.join("::");
        match (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|m| modules.contains(m)) {
            Some(target) => targets.push((target, shown)),
            None if segments.is_empty() => {}
            None => problems.push(format!("`crate::{shown}` names no module of host/src (a lib.rs re-export?)")),
        }
    }
    (targets, problems)
}

/// Reads `::seg::seg` (with `super` steps and `{a, b::c}` groups) from `chars[*j]` on, after `root`.
fn read_path(chars: &[char], j: &mut usize, mut root: Vec<String>) -> Vec<Vec<String>> {
    while chars[*j..].starts_with(&[':', ':']) {
        *j += 2;
        skip_space(chars, j);
        if chars.get(*j) == Some(&'{') {
            *j += 1;
            let mut out = Vec::new();
            loop {
                skip_space(chars, j);
                match chars.get(*j) {
                    None => return out,
                    Some('}') => {
                        *j += 1;
                        return out;
                    }
                    Some(',') => *j += 1,
                    Some(c) if is_ident(*c) => {
                        let word: String = chars[*j..].iter().take_while(|c| is_ident(**c)).collect();
                        *j += word.chars().count();
                        let mut inner = root.clone();
                        if word != "self" {
                            inner.push(word);
                        }
                        if chars[*j..].starts_with(&[':', ':']) {
                            out.extend(read_path(chars, j, inner));
                        } else {
                            out.push(inner);
                        }
                        // ` as name`
                        skip_space(chars, j);
                        if chars[*j..].starts_with(&['a', 's', ' ']) {
                            *j += 3;
                            skip_space(chars, j);
                            while chars.get(*j).is_some_and(|c| is_ident(*c)) {
                                *j += 1;
                            }
                        }
                    }
                    Some(_) => *j += 1,
                }
            }
        }
        let word: String = chars[*j..].iter().take_while(|c| is_ident(**c)).collect();
        if word.is_empty() {
            break;
        }
        *j += word.chars().count();
        if word == "super" {
            root.pop();
        } else {
            root.push(word);
        }
    }
    vec![root]
}

fn skip_space(chars: &[char], j: &mut usize) {
    while chars.get(*j).is_some_and(|c| c.is_whitespace()) {
        *j += 1;
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `mod x;` and `pub mod x;` declarations: the child modules a file can name without a prefix.
fn declared_children(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.trim();
        let rest = line.strip_prefix("pub ").map(|l| l.trim_start()).unwrap_or(line);
        let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
        if let Some(name) = rest.strip_prefix("mod ").and_then(|r| r.trim().strip_suffix(';')) {
            out.insert(name.trim().to_string());
        }
    }
    out
}

/// The source with comments, string and char literals replaced by spaces (line breaks kept), so neither a
/// path in a doc comment nor a brace in a string is read as code.
fn blank_comments_and_literals(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, s: &[char]| out.extend(s.iter().map(|ch| if *ch == '\n' { '\n' } else { ' ' }));
    let mut i = 0;
    while i < c.len() {
        let rest = &c[i..];
        let prev_ident = i > 0 && is_ident(c[i - 1]);
        if rest.starts_with(&['/', '/']) {
            let end = rest.iter().position(|ch| *ch == '\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0;
            let mut k = 0;
            while k < rest.len() {
                if rest[k..].starts_with(&['/', '*']) {
                    depth += 1;
                    k += 2;
                } else if rest[k..].starts_with(&['*', '/']) {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    k += 1;
                }
            }
            blank(&mut out, &rest[..k.min(rest.len())]);
            i += k;
        } else if !prev_ident
            && (rest.starts_with(&['r', '#']) || rest.starts_with(&['r', '"']) || rest.starts_with(&['b', 'r']))
        {
            // Raw string: r#"..."#, br"...".
            let start = if rest[0] == 'b' { 2 } else { 1 };
            let hashes = rest[start..].iter().take_while(|ch| **ch == '#').count();
            if rest.get(start + hashes) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let mut k = start + hashes + 1;
            while k < rest.len()
                && !(rest[k] == '"' && rest[k + 1..].iter().take(hashes).filter(|h| **h == '#').count() == hashes)
            {
                k += 1;
            }
            let end = (k + 1 + hashes).min(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == '"' || (!prev_ident && rest.starts_with(&['b', '"'])) {
            let mut k = if rest[0] == 'b' { 2 } else { 1 };
            while k < rest.len() && rest[k] != '"' {
                k += if rest[k] == '\\' { 2 } else { 1 };
            }
            let end = (k + 1).min(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == '\'' {
            // A char literal ('x', '\n', '\u{7f}') or a lifetime ('a).
            let end = if rest.get(1) == Some(&'\\') {
                rest[2..].iter().position(|ch| *ch == '\'').map(|p| p + 3)
            } else if rest.get(2) == Some(&'\'') {
                Some(3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    blank(&mut out, &rest[..end]);
                    i += end;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The code without the items under `#[cfg(test)]` (or `#[cfg(all(test, ...))]`): the attribute and the item
/// after it, a block to its matching brace or a declaration to its semicolon.
fn without_tests(code: &str) -> String {
    let c: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < c.len() {
        if c[i..].starts_with(&['#', '[', 'c', 'f', 'g', '(']) {
            let close = c[i..].iter().position(|ch| *ch == ']').map(|p| i + p).unwrap_or(c.len() - 1);
            let attr: String = c[i..=close].iter().collect();
            let words: Vec<&str> = attr.split(|ch: char| !is_ident(ch)).collect();
            if words.contains(&"test") && !attr.contains("not(") {
                let mut k = close + 1;
                while k < c.len() && c[k] != '{' && c[k] != ';' {
                    k += 1;
                }
                if k < c.len() && c[k] == '{' {
                    let mut depth = 0;
                    while k < c.len() {
                        match c[k] {
                            '{' => depth += 1,
                            '}' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                }
                out.extend(c[i..=k.min(c.len() - 1)].iter().map(|ch| if *ch == '\n' { '\n' } else { ' ' }));
                i = k + 1;
                continue;
            }
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

/// The crates of this repository a manifest's `[dependencies]` name (`datahost-*`), by a line-wise read of the
/// table (names as `name = ...` or `name.workspace = true`).
fn workspace_dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let mut in_dependencies = false;
    let mut found = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
        if in_dependencies && name.starts_with("datahost-") {
            found.push(name.to_string());
        }
    }
    found
}

/// ARCHITECTURE.md: `plugin-api` (the frozen ABI and the SDK) depends on no crate of the workspace but its own derive
/// macros (which depend on none), and the plugin kit on the SDK only, never the other way: the SDK's sources never
/// name the kit.
#[test]
fn the_sdk_stands_alone_and_the_kit_sits_on_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    assert_eq!(workspace_dependencies(&root.join("plugin-api/Cargo.toml")), ["datahost-plugin-derive"]);
    assert_eq!(workspace_dependencies(&root.join("plugin-api/derive/Cargo.toml")), Vec::<String>::new());
    assert_eq!(workspace_dependencies(&root.join("plugin-api/kit/Cargo.toml")), ["datahost-plugin-api"]);
    let mut sources = Vec::new();
    collect_rs(&root.join("plugin-api/src"), &mut sources);
    assert!(sources.len() > 5, "{sources:?}");
    for file in sources {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("datahost_plugin_kit"), "{} names the plugin kit", file.display());
    }
}
