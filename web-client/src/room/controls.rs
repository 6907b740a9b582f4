//! The Room section of the control column: the room's name (Join / Leave,
//! `?room=NAME`), the relay's rooms (`GET /api/rooms`, click one to join),
//! Add bot / Fire / Reload, the ammo counter and the shot log, and this
//! player's room sliders (net update rate, rewind and its cap, the room's
//! `MaxRecordTime`) — each bound to its `sim::controls` entry and showing
//! the value in force. Also the Link card's clock-sync row and the room's
//! legend.

use super::rules::{self, Outcome};
use crate::controls::sliders::{format_number, Slider, Toggle};
use crate::dom::{append_button, emptied, input, query, set_flag, write_attr, write_text, Clicks};
use sim::controls as c;
use sim::room::shots::ShotRecord;
use sim::room::{AmmoMode, PlayerSettings, Seq};
use sim::SimTime;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Document, Element, Event, HtmlInputElement, KeyboardEvent};

/// How often the room list is fetched while the page is visible, ms.
const LIST_EVERY_MS: u64 = 2000;

/// A room as `/api/rooms` lists it: name, players, bots, whether it
/// runs the rollback model.
type Listed = (String, u32, u32, bool);

/// Handles on the Room section.
pub struct RoomControls {
    doc: Document,
    name: Option<HtmlInputElement>,
    join: Clicks,
    /// Watch beside Join: watch the room's rollback match (issue 22).
    watch: Clicks,
    enter: Clicks,
    leave: Clicks,
    add_bot: Clicks,
    fire: Clicks,
    reload: Clicks,
    net_update_rate: Slider,
    rewind_cap: Slider,
    max_record_time: Slider,
    rewind: Toggle,
    ammo_sequence: Toggle,
    /// A room picked in the list.
    picked_room: Rc<RefCell<Option<String>>>,
    /// A shot picked in the log.
    picked_shot: Rc<Cell<Option<u32>>>,
    /// The newest `/api/rooms` answer, and when to ask again.
    listed: Rc<RefCell<Option<Vec<Listed>>>>,
    next_list: SimTime,
    /// What the list and the log show now (rebuilt only on a change).
    list_shown: String,
    log_shown: String,
    /// The listed rooms and whether each runs the rollback model (issue
    /// 22).
    listed_models: Vec<(String, bool)>,
}

/// Calls `f` with the `data-<attr>` of the button clicked inside `#id`.
pub(super) fn on_button(
    doc: &Document,
    id: &str,
    attr: &'static str,
    f: impl Fn(String) + 'static,
) {
    let Some(el) = doc.get_element_by_id(id) else {
        return;
    };
    let cb = Closure::<dyn FnMut(Event)>::new(move |e: Event| {
        let button = e
            .target()
            .and_then(|t| t.dyn_into::<Element>().ok())
            .and_then(|t| t.closest("button").ok().flatten());
        if let Some(v) = button.and_then(|b| b.get_attribute(attr)) {
            f(v);
        }
    });
    let _ = el.add_event_listener_with_callback("click", cb.as_ref().unchecked_ref());
    // Lives as long as the page.
    cb.forget();
}

/// Counts Enter presses in `#id`.
fn on_enter(doc: &Document, id: &str) -> Clicks {
    let c = Clicks::default();
    if let Some(el) = doc.get_element_by_id(id) {
        let counter = c.clone();
        let cb = Closure::<dyn FnMut(KeyboardEvent)>::new(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                counter.bump();
            }
        });
        let _ = el.add_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
        cb.forget();
    }
    c
}

impl RoomControls {
    /// Looks the section up; missing parts do nothing.
    pub fn new(doc: &Document) -> RoomControls {
        let picked_room = Rc::new(RefCell::new(None));
        let picked = picked_room.clone();
        on_button(doc, "room-list", "data-room", move |room| {
            *picked.borrow_mut() = Some(room);
        });
        let picked_shot = Rc::new(Cell::new(None));
        let picked = picked_shot.clone();
        on_button(doc, "shot-log", "data-seq", move |seq| {
            picked.set(seq.parse().ok());
        });
        RoomControls {
            name: input(doc, "room-name"),
            join: Clicks::on(doc, "room-join", "click"),
            watch: Clicks::on(doc, "room-watch", "click"),
            enter: on_enter(doc, "room-name"),
            leave: Clicks::on(doc, "room-leave", "click"),
            add_bot: Clicks::on(doc, "add-bot", "click"),
            fire: Clicks::on(doc, "fire-shot", "click"),
            reload: Clicks::on(doc, "reload", "click"),
            net_update_rate: Slider::new(doc, c::NET_UPDATE_RATE, ""),
            rewind_cap: Slider::new(doc, c::REWIND_CAP, ""),
            max_record_time: Slider::new(doc, c::MAX_RECORD_TIME, ""),
            rewind: Toggle::new(doc, c::REWIND),
            ammo_sequence: Toggle::new(doc, c::AMMO_SEQUENCE),
            picked_room,
            picked_shot,
            listed: Rc::new(RefCell::new(None)),
            next_list: SimTime::ZERO,
            list_shown: String::new(),
            log_shown: String::new(),
            listed_models: Vec::new(),
            doc: doc.clone(),
        }
    }

    /// A room to join, if the user asked (Join, Enter, a room in the
    /// list, or Watch): its checked name and whether to watch its match
    /// (Watch pressed), or why the name typed is not one (shown under the
    /// field).
    pub fn take_join(&self) -> Option<(String, bool)> {
        if let Some(room) = self.picked_room.borrow_mut().take() {
            return Some((room, false));
        }
        let watch = self.watch.take() > 0;
        if self.join.take() + self.enter.take() == 0 && !watch {
            return None;
        }
        let typed = self.name.as_ref().map(|e| e.value()).unwrap_or_default();
        match rules::room_name(&typed) {
            Ok(name) => Some((name, watch)),
            Err(why) => {
                self.note(why, true);
                None
            }
        }
    }

    /// Whether the relay's list shows room `name` running the rollback
    /// model (`Some(true)`: joining it joins its match), the CMC model
    /// (`Some(false)`), or does not list it (`None`: the model selector
    /// chooses).
    pub fn listed_rollback(&self, name: &str) -> Option<bool> {
        self.listed_models
            .iter()
            .find(|(r, _)| r == name)
            .map(|&(_, rollback)| rollback)
    }

    /// Leave pressed.
    pub fn take_leave(&self) -> bool {
        self.leave.take() > 0
    }

    /// Add bot presses.
    pub fn take_add_bot(&self) -> u32 {
        self.add_bot.take()
    }

    /// Fire button presses.
    pub fn take_fire(&self) -> u32 {
        self.fire.take()
    }

    /// Reload button presses.
    pub fn take_reload(&self) -> u32 {
        self.reload.take()
    }

    /// A shot picked in the log.
    pub fn take_picked_shot(&self) -> Option<Seq> {
        self.picked_shot.take().map(Seq)
    }

    /// This player's room switches the controls show.
    pub fn player_settings(&self) -> PlayerSettings {
        PlayerSettings {
            net_update_hz: self.net_update_rate.value() as u8,
            rewind: self.rewind.on(),
            rewind_cap_ms: self.rewind_cap.value() as u16,
        }
    }

    /// The room's `MaxRecordTime` the slider shows, ms.
    pub fn max_record_time_ms(&self) -> u16 {
        (self.max_record_time.value() * 1000.0).round() as u16
    }

    /// Shows the room's `MaxRecordTime` in force, ms.
    pub fn show_max_record_time(&self, ms: u16) {
        self.max_record_time.show(f64::from(ms) / 1000.0);
    }

    /// How the ammo counter merges server updates.
    pub fn ammo_mode(&self) -> AmmoMode {
        if self.ammo_sequence.on() {
            AmmoMode::Sequence
        } else {
            AmmoMode::Naive
        }
    }

    /// The sliders' read-outs and notes (the settings they mirror).
    pub fn write(&self) {
        let p = self.player_settings();
        self.net_update_rate.write_readout(None);
        self.net_update_rate
            .write_note(&format!("NetUpdateFrequency={}", p.net_update_hz));
        self.rewind_cap.write_readout(None);
        if p.rewind {
            self.rewind_cap.set_disabled(None);
            self.rewind_cap.write_note(&format!(
                "sv_maxunlag={}",
                format_number(f64::from(p.rewind_cap_ms) / 1000.0)
            ));
        } else {
            self.rewind_cap.set_disabled(Some(
                "rewind is off: shots are judged where the targets are now",
            ));
        }
        self.max_record_time.write_readout(None);
        self.max_record_time.write_note(&format!(
            "MaxRecordTime={} (room-wide)",
            format_number(self.max_record_time.value())
        ));
    }

    /// The note under the room field; `error` colours it.
    pub fn note(&self, text: &str, error: bool) {
        if let Some(n) = query(&self.doc, "[data-note=\"room\"]") {
            write_text(&n, text);
            write_attr(&n, "data-kind", if error { "error" } else { "info" });
        }
    }

    /// Shows whether the page is in room `name` (buttons, legend, the
    /// section's state, the field).
    pub fn set_joined(&mut self, name: Option<&str>) {
        let joined = name.is_some();
        for id in [
            "add-bot",
            "fire-shot",
            "reload",
            "room-leave",
            "room-fork-run",
            "room-save",
        ] {
            if let Some(e) = self.doc.get_element_by_id(id) {
                set_flag(&e, "disabled", !joined);
            }
        }
        if let Some(e) = self.doc.get_element_by_id("room-legend") {
            set_flag(&e, "hidden", !joined);
        }
        if let Some(e) = self.doc.get_element_by_id("room-controls") {
            write_attr(&e, "data-joined", if joined { "true" } else { "false" });
        }
        if let (Some(field), Some(name)) = (&self.name, name) {
            field.set_value(name);
        }
        if !joined {
            self.metric("room-state", "private session");
            self.log_shown.clear();
            if let Some(log) = self.doc.get_element_by_id("shot-log") {
                log.set_text_content(None);
            }
        }
    }

    /// Writes a `data-metric` read-out.
    pub fn metric(&self, name: &str, text: &str) {
        if let Some(el) = query(&self.doc, &format!("[data-metric=\"{name}\"]")) {
            write_text(&el, text);
        }
    }

    /// The Link card's clock-sync row: the estimate's error bound (ms) and
    /// what it rests on; `None` outside a room.
    pub fn write_clock(&self, clock: Option<(f64, String)>) {
        match clock {
            Some((error_ms, detail)) => {
                self.metric("clock-error", &format!("{error_ms:.0}"));
                self.metric("clock-detail", &detail);
            }
            None => {
                self.metric("clock-error", "–");
                self.metric("clock-detail", "rooms only");
            }
        }
    }

    /// The shot log, newest first, the shown one marked (rebuilt only when
    /// it changes).
    pub fn write_shots(&mut self, shots: &[&ShotRecord], shown: Option<Seq>) {
        let lines: Vec<(u32, String, Outcome)> = shots
            .iter()
            .rev()
            .map(|s| (s.seq.0, rules::shot_line(s), rules::outcome(s)))
            .collect();
        let signature = format!("{shown:?}{lines:?}");
        let Some(log) = emptied(&self.doc, "shot-log", &mut self.log_shown, signature) else {
            return;
        };
        for (seq, line, outcome) in lines {
            let appended = append_button(
                &self.doc,
                &log,
                &[
                    ("data-seq", seq.to_string().as_str()),
                    ("data-verdict", outcome.name()),
                ],
                shown == Some(Seq(seq)),
                &[(Some("verdict"), &line)],
            );
            if !appended {
                return;
            }
        }
    }

    /// Asks the relay for its rooms every [`LIST_EVERY_MS`] of the page
    /// clock `now` while the page is visible (with `?room=` the room the
    /// page is in, which a proxy in front routes to that room's relay),
    /// and shows the newest answer, `current` marked.
    pub fn poll_list(&mut self, now: SimTime, current: Option<&str>) {
        if now >= self.next_list && !self.doc.hidden() {
            self.next_list = now.plus_millis(LIST_EVERY_MS);
            let url = match current {
                Some(room) => format!("/api/rooms?room={room}"),
                None => "/api/rooms".to_owned(),
            };
            let slot = self.listed.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if let Some(rooms) = fetch_rooms(&url).await {
                    *slot.borrow_mut() = Some(rooms);
                }
            });
        }
        let Some(rooms) = self.listed.borrow_mut().take() else {
            return;
        };
        self.listed_models = rooms.iter().map(|r| (r.0.clone(), r.3)).collect();
        let signature = format!("{current:?}{rooms:?}");
        let Some(list) = emptied(&self.doc, "room-list", &mut self.list_shown, signature) else {
            return;
        };
        if rooms.is_empty() {
            if let Ok(li) = self.doc.create_element("li") {
                let _ = li.set_attribute("class", "room-empty");
                li.set_text_content(Some("none yet: type a name and Join"));
                let _ = list.append_child(&li);
            }
        }
        for (name, players, bots, rollback) in rooms {
            let count =
                |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
            let mut text = count(players, "player", "players");
            if bots > 0 {
                text.push_str(&format!(" · {}", count(bots, "bot", "bots")));
            }
            if rollback {
                text.push_str(" · rollback");
            }
            let appended = append_button(
                &self.doc,
                &list,
                &[("data-room", &name)],
                current == Some(name.as_str()),
                &[(None, &name), (None, &text)],
            );
            if !appended {
                return;
            }
        }
    }
}

/// `GET url` and its `rooms` as (name, players, bots), if the relay answered.
async fn fetch_rooms(url: &str) -> Option<Vec<Listed>> {
    let window = web_sys::window()?;
    let res = JsFuture::from(window.fetch_with_str(url)).await.ok()?;
    let res: web_sys::Response = res.dyn_into().ok()?;
    if !res.ok() {
        return None;
    }
    let json = JsFuture::from(res.json().ok()?).await.ok()?;
    let rooms = js_sys::Reflect::get(&json, &"rooms".into()).ok()?;
    let rooms: js_sys::Array = rooms.dyn_into().ok()?;
    let field = |v: &wasm_bindgen::JsValue, k: &str| js_sys::Reflect::get(v, &k.into()).ok();
    Some(
        rooms
            .iter()
            .filter_map(|r| {
                let name = field(&r, "room")?.as_string()?;
                let players = field(&r, "players")?.as_f64()? as u32;
                let bots = field(&r, "bots")?.as_f64()? as u32;
                let model = field(&r, "model").and_then(|m| m.as_string());
                Some((name, players, bots, model.as_deref() == Some("rollback")))
            })
            .collect(),
    )
}
