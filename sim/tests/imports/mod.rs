//! The import graph of a crate, read from its source as text: which file
//! names something defined in which other file.
//!
//! Every `use` declaration and every path in the code that starts at
//! `crate::`, `super::`, `self::`, a child module or a name a `use`
//! brought in is made absolute and followed to the file that defines its
//! item — through re-exports (`pub use`), so `crate::Vec2` leads to the
//! file that defines `Vec2`, not to `lib.rs`. Paths into other crates are
//! left out; so are comments and doc links ([`lexer`]). Unit tests
//! (`mod tests { … }`) count: they are part of their file.

mod lexer;
pub mod rules;

use lexer::{tokens, Tok};
use std::collections::BTreeMap;

/// A module path from the crate root (empty: the root).
pub type ModPath = Vec<String>;

/// One `use` of a name, or one path written in the code.
#[derive(Debug, Clone)]
struct PathRef {
    /// Inline modules (`mod tests { … }`) around it, outermost first.
    scope: Vec<String>,
    /// As written, `self` of a `{self, …}` group removed.
    segs: Vec<String>,
    /// The name it brings in (`use` only; `as` renames it).
    alias: Option<String>,
}

/// One source file.
#[derive(Debug)]
pub struct SourceFile {
    /// Path under the crate's `src/`, with `/`.
    pub path: String,
    /// Its module.
    pub module: ModPath,
    uses: Vec<PathRef>,
    paths: Vec<PathRef>,
}

/// One import: `from` names an item (or module) that `to` defines.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Import {
    /// The importing file (index into [`Crate::files`]).
    pub from: usize,
    /// The defining file.
    pub to: usize,
    /// The path as written, e.g. `crate::net::codec::encode`.
    pub path: String,
}

/// A crate's files and what they import.
#[derive(Debug)]
pub struct Crate {
    /// Every file, sorted by path.
    pub files: Vec<SourceFile>,
    by_module: BTreeMap<ModPath, usize>,
}

/// The module of `src/<path>`: `lib.rs` is the root, `a/mod.rs` and
/// `a.rs` are `a`.
pub fn module_of(path: &str) -> ModPath {
    let mut segs: Vec<String> = path
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        segs.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        segs.pop();
    }
    segs
}

impl Crate {
    /// Reads the files given as (path under `src/`, text).
    pub fn parse<'a>(sources: impl IntoIterator<Item = (&'a str, &'a str)>) -> Crate {
        let mut files: Vec<SourceFile> = sources
            .into_iter()
            .map(|(path, text)| {
                let (uses, paths) = scan(&tokens(text));
                SourceFile {
                    path: path.to_owned(),
                    module: module_of(path),
                    uses,
                    paths,
                }
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let by_module = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        Crate { files, by_module }
    }

    /// The file of module `m`, if the crate has it.
    pub fn file_of(&self, m: &[String]) -> Option<usize> {
        self.by_module.get(m).copied()
    }

    /// Every import between two different files, one per pair (the first
    /// path seen), sorted.
    pub fn imports(&self) -> Vec<Import> {
        let mut seen = BTreeMap::new();
        for (from, f) in self.files.iter().enumerate() {
            for r in f.uses.iter().chain(&f.paths) {
                let Some(to) = self
                    .absolute(from, r, 0)
                    .and_then(|abs| self.resolve(&abs, 0))
                else {
                    continue;
                };
                if to != from {
                    seen.entry((from, to)).or_insert_with(|| r.segs.join("::"));
                }
            }
        }
        seen.into_iter()
            .map(|((from, to), path)| Import { from, to, path })
            .collect()
    }

    /// `r` of file `file` as an absolute path, `None` when it leads out of
    /// the crate.
    fn absolute(&self, file: usize, r: &PathRef, depth: usize) -> Option<Vec<String>> {
        let f = &self.files[file];
        let mut here: Vec<String> = f.module.iter().chain(&r.scope).cloned().collect();
        let (first, rest) = r.segs.split_first()?;
        match first.as_str() {
            "crate" => Some(rest.to_vec()),
            "self" => Some(here.into_iter().chain(rest.iter().cloned()).collect()),
            "super" => {
                let mut segs = r.segs.as_slice();
                while segs.first().map(String::as_str) == Some("super") {
                    here.pop()?;
                    segs = &segs[1..];
                }
                Some(here.into_iter().chain(segs.iter().cloned()).collect())
            }
            name => {
                if let Some(target) = self.alias(file, &r.scope, name, r, depth) {
                    return target.map(|t| t.into_iter().chain(rest.iter().cloned()).collect());
                }
                let child: Vec<String> = here.iter().cloned().chain([name.to_owned()]).collect();
                (r.scope.is_empty() && self.by_module.contains_key(&child))
                    .then(|| here.into_iter().chain(r.segs.iter().cloned()).collect())
            }
        }
    }

    /// What `name` stands for in `scope` of `file` when a `use` (other
    /// than `except`) brought it in: `Some(None)` for another crate's.
    /// Inner scopes see outer ones (as `use super::*` in tests does).
    fn alias(
        &self,
        file: usize,
        scope: &[String],
        name: &str,
        except: &PathRef,
        depth: usize,
    ) -> Option<Option<Vec<String>>> {
        if depth > 16 {
            return None;
        }
        for len in (0..=scope.len()).rev() {
            let found = self.files[file].uses.iter().find(|u| {
                u.scope == scope[..len]
                    && u.alias.as_deref() == Some(name)
                    && !std::ptr::eq(*u, except)
            });
            if let Some(u) = found {
                return Some(self.absolute(file, u, depth + 1));
            }
        }
        None
    }

    /// The file that defines what absolute path `segs` names, following
    /// re-exports.
    fn resolve(&self, segs: &[String], depth: usize) -> Option<usize> {
        let mut m: ModPath = Vec::new();
        let mut i = 0;
        while i < segs.len() {
            m.push(segs[i].clone());
            if !self.by_module.contains_key(&m) {
                m.pop();
                break;
            }
            i += 1;
        }
        let file = self.file_of(&m)?;
        if i == segs.len() || depth > 16 {
            return Some(file);
        }
        let reexport = self.files[file]
            .uses
            .iter()
            .find(|u| u.scope.is_empty() && u.alias.as_deref() == Some(segs[i].as_str()));
        match reexport {
            Some(u) => match self.absolute(file, u, depth + 1) {
                Some(target) => {
                    let full: Vec<String> = target
                        .into_iter()
                        .chain(segs[i + 1..].iter().cloned())
                        .collect();
                    self.resolve(&full, depth + 1)
                }
                // Re-exported from another crate: nothing of ours.
                None => None,
            },
            None => Some(file),
        }
    }
}

/// The `use` declarations and the code paths of one file's tokens.
fn scan(toks: &[Tok]) -> (Vec<PathRef>, Vec<PathRef>) {
    let (mut uses, mut paths) = (Vec::new(), Vec::new());
    let mut scope: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let ident = |i: usize| match toks.get(i) {
        Some(Tok::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    while i < toks.len() {
        let names: Vec<String> = scope.iter().map(|(n, _)| n.clone()).collect();
        match &toks[i] {
            Tok::Ident(k) if k == "mod" && toks.get(i + 2) == Some(&Tok::Punct('{')) => {
                if let Some(name) = ident(i + 1) {
                    scope.push((name.to_owned(), depth + 1));
                }
                i += 2;
            }
            Tok::Ident(k) if k == "use" => {
                i += 1;
                if toks.get(i) == Some(&Tok::PathSep) {
                    i += 1;
                }
                use_tree(toks, &mut i, &[], &names, &mut uses);
            }
            Tok::Ident(first)
                if toks.get(i + 1) == Some(&Tok::PathSep)
                    && (i == 0 || toks[i - 1] != Tok::PathSep) =>
            {
                let mut segs = vec![first.clone()];
                i += 1;
                while toks.get(i) == Some(&Tok::PathSep) {
                    match ident(i + 1) {
                        Some(s) => segs.push(s.to_owned()),
                        None => break,
                    }
                    i += 2;
                }
                paths.push(PathRef {
                    scope: names,
                    segs,
                    alias: None,
                });
            }
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                while scope.last().is_some_and(|&(_, d)| d > depth) {
                    scope.pop();
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    (uses, paths)
}

/// One use tree at `i` under `prefix`; `i` ends past it.
fn use_tree(
    toks: &[Tok],
    i: &mut usize,
    prefix: &[String],
    scope: &[String],
    out: &mut Vec<PathRef>,
) {
    let mut segs = prefix.to_vec();
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(s)) => {
                segs.push(s.clone());
                *i += 1;
                if toks.get(*i) == Some(&Tok::PathSep) {
                    *i += 1;
                    continue;
                }
                break;
            }
            Some(Tok::Punct('*')) => {
                // A glob: no name of its own.
                *i += 1;
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while !matches!(toks.get(*i), Some(Tok::Punct('}')) | None) {
                    use_tree(toks, i, &segs, scope, out);
                    if toks.get(*i) == Some(&Tok::Punct(',')) {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => return,
        }
    }
    if segs.last().map(String::as_str) == Some("self") {
        segs.pop();
    }
    let mut alias = segs.last().cloned();
    if matches!(toks.get(*i), Some(Tok::Ident(a)) if a == "as") {
        alias = match toks.get(*i + 1) {
            Some(Tok::Ident(a)) if a != "_" => Some(a.clone()),
            _ => None,
        };
        *i += 2;
    }
    out.push(PathRef {
        scope: scope.to_vec(),
        segs,
        alias,
    });
}
