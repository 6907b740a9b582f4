//! The manual's relative links resolve. Every link and image in
//! `README.md`, `ARCHITECTURE.md` and `docs/**/*.md` that points into the
//! repository must name a file or folder that exists, and a `#anchor` must
//! name a heading of its page by GitHub's rule (the heading's text
//! lowercased, spaces to `-`, punctuation dropped, `-1`, `-2` … for
//! repeats). A reference link with no definition (`[text][label]`) is
//! broken too. Web links (`https:`, `mailto:` …) are not checked. A failure
//! names the file, the line and the link.

use pulldown_cmark::{BrokenLink, Event, LinkType, Options, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

/// One markdown page: its path from the repository root (`/`-separated)
/// and its text.
struct Page {
    path: String,
    text: String,
}

/// A link or image destination found in a page, with its 1-based line.
struct Link {
    line: usize,
    dest: String,
}

/// What one page holds for the check: its links and its anchors.
struct Parsed {
    links: Vec<Link>,
    anchors: Vec<String>,
    /// Reference links whose label has no definition, as `(line, label)`.
    undefined: Vec<(usize, String)>,
}

/// GitHub's anchor for a heading's text (github-slugger): lowercase, every
/// character that is not a letter, a digit, `-`, `_` or a space dropped,
/// each space turned into `-`. Repeats are numbered by [`parse`].
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

fn parse(text: &str) -> Parsed {
    let mut undefined = Vec::new();
    let mut links = Vec::new();
    let mut anchors: Vec<String> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut heading: Option<String> = None;
    {
        let on_broken = |broken: BrokenLink<'_>| {
            if matches!(broken.link_type, LinkType::Reference | LinkType::Collapsed) {
                let line = line_of(text, broken.span.start);
                undefined.push((line, broken.reference.to_string()));
            }
            None
        };
        let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
        let parser = Parser::new_with_broken_link_callback(text, options, Some(on_broken));
        for (event, range) in parser.into_offset_iter() {
            match event {
                Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                    links.push(Link {
                        line: line_of(text, range.start),
                        dest: dest_url.to_string(),
                    });
                }
                Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
                Event::Text(t) | Event::Code(t) => {
                    if let Some(h) = heading.as_mut() {
                        h.push_str(&t);
                    }
                }
                Event::End(TagEnd::Heading(_)) => {
                    let base = slug(&heading.take().unwrap_or_default());
                    let n = seen.entry(base.clone()).or_insert(0);
                    anchors.push(if *n == 0 { base } else { format!("{base}-{n}") });
                    *n += 1;
                }
                _ => {}
            }
        }
    }
    Parsed {
        links,
        anchors,
        undefined,
    }
}

/// A destination that leaves the repository: a URL scheme (`https:`,
/// `mailto:`) or a protocol-relative `//host`.
fn is_external(dest: &str) -> bool {
    dest.starts_with("//")
        || dest.split_once(':').is_some_and(|(scheme, _)| {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        })
}

/// `base` (a page's folder, from the root) joined with a relative `path`,
/// `.` and `..` resolved; `None` when it climbs above the root.
fn join(base: &Path, path: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    let start = if let Some(rooted) = path.strip_prefix('/') {
        Path::new(rooted).to_path_buf()
    } else {
        base.join(path)
    };
    for part in start.components() {
        match part {
            Component::Normal(p) => out.push(p),
            // Climbing above the root: no such place.
            Component::ParentDir => out.pop().then_some(())?,
            _ => {}
        }
    }
    Some(out)
}

/// Checks every relative link of `pages` against the files under `root`
/// and the headings of the pages (a target page not among `pages` is read
/// from disk). Returns the broken links, one message each, and how many
/// relative links each page had checked.
fn check(root: &Path, pages: &[Page]) -> (Vec<String>, BTreeMap<String, usize>) {
    let mut parsed: BTreeMap<String, Parsed> = pages
        .iter()
        .map(|p| (p.path.clone(), parse(&p.text)))
        .collect();
    let mut broken = Vec::new();
    let mut checked = BTreeMap::new();
    for page in pages {
        let count = checked.entry(page.path.clone()).or_insert(0);
        let base = Path::new(&page.path).parent().unwrap_or(Path::new(""));
        let own = &parsed[&page.path];
        for (line, label) in &own.undefined {
            broken.push(format!(
                "{}:{line}: [{label}]: no link definition for this reference",
                page.path
            ));
        }
        let links: Vec<(usize, String)> =
            own.links.iter().map(|l| (l.line, l.dest.clone())).collect();
        for (line, dest) in links {
            if is_external(&dest) {
                continue;
            }
            *count += 1;
            let (file, anchor) = match dest.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (dest.as_str(), None),
            };
            let target = if file.is_empty() {
                PathBuf::from(&page.path)
            } else {
                match join(base, file) {
                    Some(t) => t,
                    None => {
                        broken.push(format!(
                            "{}:{line}: ({dest}): leaves the repository",
                            page.path
                        ));
                        continue;
                    }
                }
            };
            let key = target.to_string_lossy().replace('\\', "/");
            if !parsed.contains_key(&key) && !root.join(&target).exists() {
                broken.push(format!(
                    "{}:{line}: ({dest}): no such file {key}",
                    page.path
                ));
                continue;
            }
            let Some(anchor) = anchor.filter(|a| !a.is_empty()) else {
                continue;
            };
            if !key.ends_with(".md") {
                continue;
            }
            if !parsed.contains_key(&key) {
                let text = std::fs::read_to_string(root.join(&target))
                    .unwrap_or_else(|e| panic!("{key}: {e}"));
                parsed.insert(key.clone(), parse(&text));
            }
            if !parsed[&key].anchors.iter().any(|a| a == anchor) {
                broken.push(format!(
                    "{}:{line}: ({dest}): no heading with anchor `#{anchor}` in {key}",
                    page.path
                ));
            }
        }
    }
    (broken, checked)
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("sim/ sits in the repository root")
        .to_path_buf()
}

/// `README.md`, `ARCHITECTURE.md` and every `docs/**/*.md`, sorted.
fn manual(root: &Path) -> Vec<Page> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut docs = Vec::new();
    walk(&root.join("docs"), &mut docs);
    docs.sort();
    files.extend(docs);
    files
        .into_iter()
        .map(|file| Page {
            path: file
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/"),
            text: std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display())),
        })
        .collect()
}

#[test]
fn every_relative_link_in_the_manual_resolves() {
    let root = repo_root();
    let pages = manual(&root);
    assert!(
        pages.iter().any(|p| p.path == "docs/README.md"),
        "the manual's index docs/README.md was not found"
    );
    let (broken, checked) = check(&root, &pages);
    assert_eq!(checked.len(), pages.len(), "pages checked");
    // Every page but the architecture links into the manual, so a page
    // with no relative link means the parser missed them.
    let silent: Vec<_> = checked
        .iter()
        .filter(|(page, n)| **n == 0 && page.as_str() != "ARCHITECTURE.md")
        .collect();
    assert!(silent.is_empty(), "no relative link found in {silent:?}");
    assert!(
        broken.is_empty(),
        "{} broken link(s) in the manual:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn a_missing_file_a_missing_anchor_and_an_undefined_reference_are_named_with_their_line() {
    let pages = [
        Page {
            path: "nowhere/a.md".into(),
            text: "# A page\n\nSee [b](b.md#the-a-b-view), [b again](b.md#the-ab-view)\n\
                   and [gone](gone.md).\n\n[up](../../x.md) · [self](#a-page) · [ref][nolabel]\n"
                .into(),
        },
        Page {
            path: "nowhere/b.md".into(),
            text: "# B\n\n## The A/B view\n\n## The A/B view\n\n[back](a.md#the-ab-view-1)\n"
                .into(),
        },
    ];
    let (broken, checked) = check(&repo_root(), &pages);
    let counts: Vec<_> = checked.into_iter().collect();
    assert_eq!(
        counts,
        [("nowhere/a.md".into(), 5), ("nowhere/b.md".into(), 1)]
    );
    assert_eq!(
        broken,
        [
            "nowhere/a.md:6: [nolabel]: no link definition for this reference",
            "nowhere/a.md:3: (b.md#the-a-b-view): no heading with anchor `#the-a-b-view` in nowhere/b.md",
            "nowhere/a.md:4: (gone.md): no such file nowhere/gone.md",
            "nowhere/a.md:6: (../../x.md): leaves the repository",
            "nowhere/b.md:7: (a.md#the-ab-view-1): no heading with anchor `#the-ab-view-1` in nowhere/a.md",
        ]
    );
}

#[test]
fn anchors_follow_github() {
    let cases = [
        (
            "The inspector: every packet, every correction, and what if",
            "the-inspector-every-packet-every-correction-and-what-if",
        ),
        ("The A/B view", "the-ab-view"),
        (
            "What limits, and what was fixed",
            "what-limits-and-what-was-fixed",
        ),
        ("A room at 60 Hz", "a-room-at-60-hz"),
        ("`sim::controls` at 1.5× — µs", "simcontrols-at-15--µs"),
        ("snake_case and-dash", "snake_case-and-dash"),
    ];
    for (heading, anchor) in cases {
        assert_eq!(slug(heading), anchor, "{heading}");
    }
    let parsed = parse("# On the wire\n\n## On the wire\n\n### On *the* wire\n");
    assert_eq!(
        parsed.anchors,
        ["on-the-wire", "on-the-wire-1", "on-the-wire-2"]
    );
}
