//! The correction inspector's HTML (`#inspector`): the list of
//! corrections, the open story (rule, both ends' positions and the error,
//! causes with their packets, what was replayed), the what-if buttons and
//! the fork's result with Play / Save. Built with DOM calls (text is set
//! as text, never parsed as HTML); clicks are delegated to the card and
//! queued as [`Click`]s by their `data-act` attribute.

use super::story_view::{Row, StoryView};
use crate::dom::{set_flag, write_attr, write_text};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element};

/// A click in the inspector card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Click {
    /// A row of the list: open correction `i` of the run.
    Open(usize),
    /// A what-if button of the open story.
    Fork(usize),
    /// Drop the fork.
    Unfork,
    /// Show branch `i` in the panels.
    Show(usize),
    /// Play the fork as a scenario.
    PlayFork,
    /// Save the fork on the relay.
    SaveFork,
    /// A cause's packet chip: focus the timeline on packet `i` of the
    /// story's list.
    Packet(usize),
    /// Close the story.
    Close,
    /// One frame back / forward, fit the timeline.
    Back,
    /// One frame forward.
    Forward,
    /// Show the whole run.
    Fit,
    /// Leave the relay for the host in the page.
    Local,
}

impl Click {
    fn parse(act: &str, i: usize) -> Option<Click> {
        Some(match act {
            "open" => Click::Open(i),
            "fork" => Click::Fork(i),
            "unfork" => Click::Unfork,
            "show" => Click::Show(i),
            "play-fork" => Click::PlayFork,
            "save-fork" => Click::SaveFork,
            "packet" => Click::Packet(i),
            "close" => Click::Close,
            "back" => Click::Back,
            "forward" => Click::Forward,
            "fit" => Click::Fit,
            "local" => Click::Local,
            _ => return None,
        })
    }
}

/// The fork's result, for the story panel.
#[derive(Debug, Clone, PartialEq)]
pub struct ForkView {
    /// The what-if, "deliver ServerMove #585 …".
    pub label: String,
    /// Its outcome in words, one line each.
    pub lines: Vec<String>,
    /// The branch the panels show.
    pub shown: usize,
    /// The saved fork's links (short, self-contained), or the save's
    /// state in words.
    pub saved: Option<String>,
}

/// Handles on the card.
pub struct InspectorPanel {
    doc: Document,
    body: Option<Element>,
    list: Option<Element>,
    story: Option<Element>,
    clicks: Rc<RefCell<Vec<Click>>>,
    list_key: Option<(Vec<Row>, Option<usize>, Vec<usize>)>,
    story_key: Option<(Option<StoryView>, Option<ForkView>)>,
}

impl InspectorPanel {
    /// Finds `#inspector` and its parts; listens for clicks.
    pub fn new(doc: &Document) -> InspectorPanel {
        let clicks: Rc<RefCell<Vec<Click>>> = Rc::default();
        if let Some(root) = doc.get_element_by_id("inspector") {
            let queue = clicks.clone();
            let cb = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
                let Some(el) = e
                    .target()
                    .and_then(|t| t.dyn_into::<Element>().ok())
                    .and_then(|t| t.closest("[data-act]").ok().flatten())
                else {
                    return;
                };
                let act = el.get_attribute("data-act").unwrap_or_default();
                let i = el
                    .get_attribute("data-i")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                if let Some(c) = Click::parse(&act, i) {
                    queue.borrow_mut().push(c);
                }
            });
            let _ = root.add_event_listener_with_callback("click", cb.as_ref().unchecked_ref());
            cb.forget();
        }
        InspectorPanel {
            doc: doc.clone(),
            body: doc.get_element_by_id("inspector-body"),
            list: doc.get_element_by_id("correction-list"),
            story: doc.get_element_by_id("story"),
            clicks,
            list_key: None,
            story_key: None,
        }
    }

    /// The clicks since the last call.
    pub fn take_clicks(&self) -> Vec<Click> {
        std::mem::take(&mut *self.clicks.borrow_mut())
    }

    /// Shows or hides the list and story (live runs have neither).
    pub fn show_body(&self, on: bool) {
        if let Some(b) = &self.body {
            set_flag(b, "hidden", !on);
        }
    }

    /// Shows the "run in the page" button (on the relay).
    pub fn offer_local(&self, on: bool) {
        if let Some(b) = self.doc.get_element_by_id("go-local") {
            set_flag(&b, "hidden", !on);
        }
    }

    /// Sets a `[data-metric]` element's text inside the card.
    pub fn metric(&self, name: &str, text: &str) {
        if let Ok(Some(el)) = self
            .doc
            .query_selector(&format!("#inspector [data-metric=\"{name}\"]"))
        {
            write_text(&el, text);
        }
    }

    /// Scrolls the story into view if it is off screen (it opens below
    /// the timeline, under the fold of a small screen).
    pub fn reveal_story(&self) {
        if let Some(story) = &self.story {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            story.scroll_into_view_with_scroll_into_view_options(&options);
        }
    }

    /// The list: one button per row, `open` marked, `gone` (corrections
    /// the fork does not have) tagged.
    pub fn write_list(&mut self, rows: &[Row], open: Option<usize>, gone: &[usize]) {
        let key = (rows.to_vec(), open, gone.to_vec());
        if self.list_key.as_ref() == Some(&key) {
            return;
        }
        self.list_key = Some(key);
        let Some(list) = &self.list else {
            return;
        };
        list.set_text_content(None);
        for (i, r) in rows.iter().enumerate() {
            let li = self.el("li", "", "");
            let b = self.el("button", "correction-row", "");
            let _ = b.set_attribute("type", "button");
            let _ = b.set_attribute("data-act", "open");
            let _ = b.set_attribute("data-i", &i.to_string());
            let _ = b.set_attribute("title", &format!("{} · {} · {}", r.at, r.what, r.detail));
            let _ = b.set_attribute(
                "aria-pressed",
                if open == Some(i) { "true" } else { "false" },
            );
            for (class, text) in [("at", &r.at), ("what", &r.what), ("detail", &r.detail)] {
                let _ = b.append_child(&self.el("span", class, text));
            }
            if gone.contains(&i) {
                let _ = b.append_child(&self.el("span", "gone", "gone in B"));
            }
            let _ = li.append_child(&b);
            let _ = list.append_child(&li);
        }
        self.metric("correction-count", &rows.len().to_string());
    }

    /// The story panel: `view` of branch `branch` and the fork's result.
    pub fn write_story(&mut self, view: Option<(usize, &StoryView)>, fork: Option<&ForkView>) {
        let key = (view.map(|(_, v)| v.clone()), fork.cloned());
        if self.story_key.as_ref() == Some(&key) {
            return;
        }
        self.story_key = Some(key);
        let Some(story) = &self.story else {
            return;
        };
        story.set_text_content(None);
        let Some((branch, v)) = view else {
            let _ = story.append_child(&self.el(
                "p",
                "story-empty",
                "Click a correction — a ◆ on the timeline or a row of the list — to see why it \
                 happened: the rule that fired, the packets that caused it, what was replayed, \
                 and what-if forks.",
            ));
            return;
        };
        let head = self.el("header", "story-head", "");
        let _ =
            head.append_child(&self.el("span", "branch-tag", if branch == 0 { "A" } else { "B" }));
        let _ = head.append_child(&self.el("h3", "", &v.title));
        let _ = head.append_child(&self.el("span", "story-when", &v.when));
        let close = self.button("close", 0, "icon", "×");
        let _ = close.set_attribute("aria-label", "Close the story");
        let _ = head.append_child(&close);
        let _ = story.append_child(&head);

        let facts = self.el("dl", "story-facts", "");
        for (term, text, kind) in [
            ("Rule", &v.rule, v.rule_kind),
            ("Client had", &v.client, ""),
            ("Server had", &v.server, ""),
            ("Error", &v.error, ""),
        ] {
            let _ = facts.append_child(&self.el("dt", "", term));
            let dd = self.el("dd", "", text);
            if !kind.is_empty() {
                write_attr(&dd, "data-rule", kind);
            }
            let _ = facts.append_child(&dd);
        }
        if let Some((tag, text)) = &v.origin {
            let _ = facts.append_child(&self.el("dt", "", "Origin"));
            let dd = self.el("dd", "", text);
            write_attr(&dd, "data-origin", tag);
            let _ = facts.append_child(&dd);
        }
        let _ = story.append_child(&facts);

        let _ = story.append_child(&self.el("h4", "", "Why"));
        let causes = self.el("ul", "story-causes", "");
        let mut chip = 0;
        for c in &v.causes {
            let li = self.el("li", "", &c.text);
            write_attr(&li, "data-cause", c.kind);
            for p in &c.packets {
                let arrow = match p.direction {
                    sim::net::trace::Direction::Up => "↑",
                    sim::net::trace::Direction::Down => "↓",
                };
                let b = self.button(
                    "packet",
                    chip,
                    "chip",
                    &format!("{arrow} #{} on the timeline", p.index),
                );
                let _ = li.append_child(&b);
                chip += 1;
            }
            let _ = causes.append_child(&li);
        }
        let _ = story.append_child(&causes);
        let _ = story.append_child(&self.el("p", "story-replayed", &v.replayed));

        let _ = story.append_child(&self.el("h4", "", "What if"));
        let forks = self.el("div", "story-forks", "");
        for (i, label) in v.forks.iter().enumerate() {
            let _ = forks.append_child(&self.button("fork", i, "secondary small", label));
        }
        let _ = story.append_child(&forks);
        if let Some(f) = fork {
            let _ = story.append_child(&self.fork_result(f));
        }
    }

    fn fork_result(&self, f: &ForkView) -> Element {
        let box_ = self.el("div", "fork-result", "");
        let _ = box_.append_child(&self.el(
            "p",
            "fork-title",
            &format!("B = A + what if: {}", f.label),
        ));
        for line in &f.lines {
            let _ = box_.append_child(&self.el("p", "", line));
        }
        let tools = self.el("div", "fork-tools", "");
        let _ = tools.append_child(&self.el("span", "", "panels show"));
        for (i, name) in ["A · the run", "B · the fork"].iter().enumerate() {
            let b = self.button("show", i, "secondary small", name);
            let _ = b.set_attribute("aria-pressed", if f.shown == i { "true" } else { "false" });
            let _ = tools.append_child(&b);
        }
        let _ = tools.append_child(&self.button("play-fork", 0, "secondary small", "▶ Play B"));
        let _ = tools.append_child(&self.button("save-fork", 0, "small", "Save B"));
        let _ = tools.append_child(&self.button("unfork", 0, "secondary small", "Drop B"));
        let _ = box_.append_child(&tools);
        if let Some(saved) = &f.saved {
            let p = self.el("p", "fork-saved", "");
            for word in saved.split(' ') {
                if word.starts_with("http") {
                    // A self-contained link is kilobytes of base64: named,
                    // not printed (as the run bar names it).
                    let text = if word.contains("/#s=") {
                        format!("self-contained link ({} characters)", word.len())
                    } else {
                        word.to_owned()
                    };
                    let a = self.el("a", "", &text);
                    let _ = a.set_attribute("href", word);
                    let _ = p.append_child(&a);
                    let _ = p.append_child(&self.doc.create_text_node(" "));
                } else {
                    let _ = p.append_child(&self.doc.create_text_node(&format!("{word} ")));
                }
            }
            let _ = box_.append_child(&p);
        }
        box_
    }

    fn button(&self, act: &str, i: usize, class: &str, text: &str) -> Element {
        let b = self.el("button", class, text);
        let _ = b.set_attribute("type", "button");
        let _ = b.set_attribute("data-act", act);
        let _ = b.set_attribute("data-i", &i.to_string());
        b
    }

    fn el(&self, tag: &str, class: &str, text: &str) -> Element {
        let e = self
            .doc
            .create_element(tag)
            .unwrap_or_else(|_| self.doc.create_element("span").expect("span"));
        if !class.is_empty() {
            e.set_class_name(class);
        }
        if !text.is_empty() {
            e.set_text_content(Some(text));
        }
        e
    }
}
