//! The rules of a layered crate, checked on its import graph: a file
//! imports only its own layer or lower ones; within a layer folder, a
//! module only the modules declared before it; anywhere else, modules
//! beside each other (children of one module) import each other in no
//! circle. A module's own file (`mod.rs`) and the files below it may use
//! each other: that is one module split over files.

use super::{Crate, Import, ModPath};
use std::collections::BTreeMap;

/// A crate's declared layers, bottom first.
pub struct Plan {
    /// Each layer: a name and its top-level modules, in their order.
    pub layers: &'static [(&'static str, &'static [&'static str])],
    /// The order of the top-level modules inside each layer folder,
    /// bottom first.
    pub order: &'static [(&'static str, &'static [&'static str])],
}

/// Where a top-level module stands: its layer's index and its place in
/// the layer.
fn place(plan: &Plan, top: &str) -> Option<(usize, usize)> {
    plan.layers
        .iter()
        .enumerate()
        .find_map(|(layer, (_, modules))| {
            modules.iter().position(|m| *m == top).map(|at| (layer, at))
        })
}

fn order_of(plan: &Plan, folder: &[String]) -> Option<&'static [&'static str]> {
    plan.order
        .iter()
        .find(|(name, _)| folder.len() == 1 && folder[0] == *name)
        .map(|(_, order)| *order)
}

/// Every rule of `plan` the crate breaks, one line each, naming the files.
pub fn violations(plan: &Plan, krate: &Crate) -> Vec<String> {
    let mut out = declaration_gaps(plan, krate);
    let name = |i: usize| format!("sim/src/{}", krate.files[i].path);
    // Imports between siblings: (parent, from child, to child) → imports.
    let mut siblings: BTreeMap<(ModPath, String, String), Vec<&Import>> = BTreeMap::new();
    let imports = krate.imports();
    for imp in &imports {
        let (a, b) = (&krate.files[imp.from].module, &krate.files[imp.to].module);
        let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        if a.is_empty() || common == a.len() || common == b.len() {
            // The crate root's re-exports, or a module and its own parts.
            continue;
        }
        let (from, to) = (&a[common], &b[common]);
        let why = if common == 0 {
            match (place(plan, from), place(plan, to)) {
                (Some(f), Some(t)) if t > f => Some(format!(
                    "layer `{}` ({from}) imports the higher layer `{}` ({to})",
                    plan.layers[f.0].0, plan.layers[t.0].0
                )),
                _ => None,
            }
        } else {
            order_of(plan, &a[..common]).and_then(|order| {
                let at = |m: &str| order.iter().position(|o| *o == m);
                match (at(from), at(to)) {
                    (Some(f), Some(t)) if t > f => Some(format!(
                        "`{}::{from}` imports `{to}`, declared after it",
                        a[..common].join("::")
                    )),
                    _ => None,
                }
            })
        };
        if let Some(why) = why {
            out.push(format!(
                "{} -> {} (`{}`): {why}",
                name(imp.from),
                name(imp.to),
                imp.path
            ));
        }
        siblings
            .entry((a[..common].to_vec(), from.clone(), to.clone()))
            .or_default()
            .push(imp);
    }
    for circle in circles(&siblings) {
        let files: Vec<String> = circle
            .iter()
            .map(|imp| format!("{} -> {} (`{}`)", name(imp.from), name(imp.to), imp.path))
            .collect();
        out.push(format!("circle: {}", files.join("; ")));
    }
    out
}

/// Top-level modules in no layer, and layer folders whose modules the
/// declared order leaves out (or names but the crate lacks).
fn declaration_gaps(plan: &Plan, krate: &Crate) -> Vec<String> {
    let mut out = Vec::new();
    let children = |parent: &[String]| -> Vec<String> {
        let mut c: Vec<String> = krate
            .files
            .iter()
            .filter(|f| f.module.len() > parent.len() && f.module[..parent.len()] == *parent)
            .map(|f| f.module[parent.len()].clone())
            .collect();
        c.dedup();
        c
    };
    for top in children(&[]) {
        if place(plan, &top).is_none() {
            out.push(format!(
                "sim/src/{top}: top-level module `{top}` is in no layer"
            ));
        }
    }
    for (folder, order) in plan.order {
        let have = children(&[folder.to_string()]);
        for m in &have {
            if !order.contains(&m.as_str()) {
                out.push(format!(
                    "sim/src/{folder}/{m}: not in the declared order of `{folder}`"
                ));
            }
        }
        for m in *order {
            if !have.iter().any(|h| h == m) {
                out.push(format!("`{folder}::{m}` is declared but does not exist"));
            }
        }
    }
    for (_, modules) in plan.layers {
        for m in *modules {
            if krate.file_of(&[m.to_string()]).is_none() {
                out.push(format!("`{m}` is in a layer but does not exist"));
            }
        }
    }
    out
}

/// The circles among siblings (strongly connected sets of more than one
/// module), each as one loop through it: the imports that tie each module
/// of the loop to the next.
fn circles<'a>(
    siblings: &BTreeMap<(ModPath, String, String), Vec<&'a Import>>,
) -> Vec<Vec<&'a Import>> {
    let mut by_parent: BTreeMap<&ModPath, BTreeMap<&str, Vec<&str>>> = BTreeMap::new();
    for (parent, from, to) in siblings.keys() {
        let g = by_parent.entry(parent).or_default();
        g.entry(from).or_default().push(to);
        g.entry(to).or_default();
    }
    let mut out = Vec::new();
    for (parent, graph) in by_parent {
        let mut done: Vec<&str> = Vec::new();
        for &n in graph.keys() {
            if done.contains(&n) {
                continue;
            }
            let set: Vec<&str> = reaches(&graph, n)
                .into_iter()
                .filter(|&m| reaches(&graph, m).contains(&n))
                .collect();
            done.extend(&set);
            if set.len() > 1 {
                let hops = shortest_loop(&graph, &set, n);
                let tie = |(f, t): (&str, &str)| {
                    siblings[&(parent.clone(), f.to_owned(), t.to_owned())][0]
                };
                out.push(hops.windows(2).map(|w| tie((w[0], w[1]))).collect());
            }
        }
    }
    out
}

/// The shortest loop from `start` back to it inside `set`, as the modules
/// it passes, `start` first and last.
fn shortest_loop<'g>(
    graph: &BTreeMap<&'g str, Vec<&'g str>>,
    set: &[&'g str],
    start: &'g str,
) -> Vec<&'g str> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for &m in &graph[n] {
            if m == start {
                // Back from `n` to `start`, then turned around.
                let mut path = vec![start, n];
                while let Some(&p) = came_from.get(path[path.len() - 1]) {
                    path.push(p);
                }
                path.reverse();
                return path;
            }
            if set.contains(&m) && !came_from.contains_key(m) {
                came_from.insert(m, n);
                queue.push_back(m);
            }
        }
    }
    vec![start]
}

/// Every module `from` reaches in `graph`, itself included.
fn reaches<'g>(graph: &BTreeMap<&'g str, Vec<&'g str>>, from: &'g str) -> Vec<&'g str> {
    let mut seen = vec![from];
    let mut todo = vec![from];
    while let Some(n) = todo.pop() {
        for &m in &graph[n] {
            if !seen.contains(&m) {
                seen.push(m);
                todo.push(m);
            }
        }
    }
    seen
}
