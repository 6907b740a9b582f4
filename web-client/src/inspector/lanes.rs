//! The packet timeline's geometry: which time span is on screen
//! ([`Window`]: zoom and pan), where each branch's client and server rows
//! are ([`Rows`]; the gutter, ruler and branch heights in CSS px, which
//! the canvas and the painting share), and each packet as a segment from
//! its send to its arrival ([`segments`]), with the loss-burst and
//! lag-spike bands behind them ([`burst_bands`], [`spike_bands`]). Pure:
//! the canvas code draws what this computes, and the unit tests pin it
//! natively.
//!
//! Time runs left to right on the run's clock (µs). An uplink packet is a
//! line from the client row at its send time down to the server row at its
//! arrival; a downlink packet the other way. A lost packet stops halfway
//! with a red mark; a duplicate is drawn twice; a packet that overtook
//! others crosses their lines. Over the reliable-ordered transport a
//! resent packet ends in a red ring (lost, sent again one RTO later) and
//! one held behind it in an amber dot (head-of-line blocking).

use sim::net::conditioner::Fate;
use sim::net::trace::{Direction, PacketKind, PacketRecord};
use sim::protocol::Setting;
use sim::rollback::tick::Tick;
use sim::scenario::Change;

/// Left gutter for the row labels, CSS px.
pub const LEFT: f64 = 128.0;
/// Right margin, CSS px.
pub const RIGHT: f64 = 14.0;
/// The ruler's height, CSS px.
pub const RULER: f64 = 22.0;
/// A branch's height: client row, packets, server row, CSS px.
pub const LANE: f64 = 70.0;
/// Space between branches, CSS px.
pub const LANE_GAP: f64 = 12.0;
/// Narrowest span the timeline zooms to, µs (a few frames).
pub const MIN_SPAN_US: u64 = 50_000;
/// The live timeline's span, µs (as the plots).
pub const LIVE_SPAN_US: u64 = 10_000_000;
/// Lost packets of a burst closer than this belong to one band, µs.
pub const BURST_GAP_US: u64 = 150_000;
/// How far a lost packet's line goes towards the other row.
pub const LOST_REACH: f64 = 0.45;
/// A duplicate's second line lands this much later, CSS px (it arrives
/// "right behind" the original, closer than a pixel at most zooms).
pub const DUPLICATE_OFFSET_PX: f64 = 3.0;

/// The span of run time on screen, µs, and the plot's x extent, CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Left edge, µs of run time.
    pub from_us: u64,
    /// Right edge, µs of run time.
    pub to_us: u64,
    /// Left edge of the plot, CSS px.
    pub left: f64,
    /// Right edge of the plot, CSS px.
    pub right: f64,
}

impl Window {
    /// `from_us..to_us` on `left..right`.
    pub fn new(from_us: u64, to_us: u64, left: f64, right: f64) -> Window {
        Window {
            from_us,
            to_us: to_us.max(from_us + 1),
            left,
            right: right.max(left + 1.0),
        }
    }

    /// The span shown, µs.
    pub fn span_us(&self) -> u64 {
        self.to_us - self.from_us
    }

    /// The x of run time `t_us` (outside the plot for times off screen).
    pub fn x_of(&self, t_us: u64) -> f64 {
        let f = (t_us as f64 - self.from_us as f64) / self.span_us() as f64;
        self.left + f * (self.right - self.left)
    }

    /// The run time at `x`, clamped to the window.
    pub fn t_of(&self, x: f64) -> u64 {
        let f = ((x - self.left) / (self.right - self.left)).clamp(0.0, 1.0);
        self.from_us + (f * self.span_us() as f64).round() as u64
    }

    /// Zooms by `factor` (< 1 zooms in) keeping the time under `x` where
    /// it is, within `extent` (µs) and no narrower than [`MIN_SPAN_US`].
    pub fn zoom(&mut self, x: f64, factor: f64, extent: (u64, u64)) {
        let anchor = self.t_of(x);
        let f = ((x - self.left) / (self.right - self.left)).clamp(0.0, 1.0);
        let full = extent.1.saturating_sub(extent.0).max(MIN_SPAN_US);
        let span = ((self.span_us() as f64 * factor).round() as u64).clamp(MIN_SPAN_US, full);
        let from = anchor.saturating_sub((f * span as f64).round() as u64);
        self.place(from, span, extent);
    }

    /// Moves the window by `dx` CSS px of the plot (positive: later),
    /// within `extent`.
    pub fn pan(&mut self, dx: f64, extent: (u64, u64)) {
        let d = dx / (self.right - self.left) * self.span_us() as f64;
        let from = (self.from_us as f64 + d).max(0.0).round() as u64;
        self.place(from, self.span_us(), extent);
    }

    /// Shows `from_us..to_us` widened by a quarter on each side, within
    /// `extent` (a correction's episode).
    pub fn focus(&mut self, from_us: u64, to_us: u64, extent: (u64, u64)) {
        let span = to_us.saturating_sub(from_us).max(MIN_SPAN_US);
        let margin = span / 4;
        let full = extent.1.saturating_sub(extent.0).max(MIN_SPAN_US);
        self.place(
            from_us.saturating_sub(margin),
            (span + 2 * margin).min(full),
            extent,
        );
    }

    /// Puts the window at `from` with `span`, slid inside `extent`.
    fn place(&mut self, from: u64, span: u64, extent: (u64, u64)) {
        let from = from.clamp(extent.0, extent.1.saturating_sub(span).max(extent.0));
        self.from_us = from;
        self.to_us = from + span.max(1);
    }
}

/// One branch's two rows, CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rows {
    /// The client's row (uplink packets leave it, downlink ones land on it).
    pub client_y: f64,
    /// The server's row.
    pub server_y: f64,
}

impl Rows {
    /// The y where a packet going `direction` starts and ends.
    fn ends(&self, direction: Direction) -> (f64, f64) {
        match direction {
            Direction::Up => (self.client_y, self.server_y),
            Direction::Down => (self.server_y, self.client_y),
        }
    }
}

/// What a packet carried, as the timeline colours it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// A ServerMove or a rollback input packet.
    Move,
    /// An Ack (CMC or rollback).
    Ack,
    /// An Adjustment.
    Adjustment,
    /// A rollback State.
    State,
    /// Ping or Pong, a room's clock sync.
    Probe,
    /// A room's shot or its verdict.
    Shot,
    /// A net update (simulated proxy, observer view) or anything else.
    Update,
}

impl Style {
    /// The style of a packet kind.
    pub fn of(kind: PacketKind) -> Style {
        match kind {
            PacketKind::ServerMove | PacketKind::Inputs | PacketKind::Reload => Style::Move,
            PacketKind::Ack | PacketKind::RollbackAck => Style::Ack,
            PacketKind::Adjustment => Style::Adjustment,
            PacketKind::State => Style::State,
            PacketKind::Ping | PacketKind::Pong | PacketKind::Clock => Style::Probe,
            PacketKind::Shot | PacketKind::Verdict => Style::Shot,
            PacketKind::Proxy | PacketKind::Ammo | PacketKind::Other => Style::Update,
        }
    }
}

/// How a packet's line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// It arrived.
    Arrived,
    /// The link lost it (red mark).
    Lost,
    /// A full queue dropped it (red mark).
    Overflowed,
}

/// One line to draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// The packet's position in the records given to [`segments`].
    pub record: usize,
    /// Start (send), CSS px.
    pub from: (f64, f64),
    /// End (arrival, or where a lost packet stops), CSS px.
    pub to: (f64, f64),
    /// Its colour class.
    pub style: Style,
    /// How it ends.
    pub end: End,
    /// The second line of a duplicated packet.
    pub copy: bool,
    /// It overtook packets sent before it.
    pub overtook: bool,
    /// Reliable-ordered: lost and sent again one RTO later.
    pub resent: bool,
    /// Reliable-ordered: it waited behind a resent packet.
    pub held: bool,
}

/// The segments of `records` (with their index) that cross the window, in
/// the branch's `rows`. A lost packet reaches [`LOST_REACH`] of the way
/// across, as far in time as half the mean transit of its direction's
/// delivered packets in `records` (`default_transit_us` when none).
pub fn segments<'a>(
    records: impl IntoIterator<Item = (usize, &'a PacketRecord)> + Clone,
    window: &Window,
    rows: Rows,
    default_transit_us: u64,
) -> Vec<Segment> {
    let transit = |dir: Direction| {
        let (sum, n) = records
            .clone()
            .into_iter()
            .filter(|(_, p)| p.direction == dir)
            .filter_map(|(_, p)| match p.fate {
                Fate::Delivered { at, .. } => Some(at.0.saturating_sub(p.sent.0)),
                _ => None,
            })
            .fold((0u64, 0u64), |(s, n), t| (s + t, n + 1));
        sum.checked_div(n).unwrap_or(default_transit_us)
    };
    let transits = [transit(Direction::Up), transit(Direction::Down)];
    let mut out = Vec::new();
    for (record, p) in records {
        let (y0, y1) = rows.ends(p.direction);
        let sent = p.sent.0;
        let typical = transits[usize::from(p.direction == Direction::Down)];
        let (arrival, end) = match p.fate {
            Fate::Delivered { at, .. } => (at.0, End::Arrived),
            Fate::Lost { .. } => (sent + typical / 2, End::Lost),
            Fate::Overflowed => (sent + typical / 2, End::Overflowed),
        };
        if arrival < window.from_us || sent > window.to_us {
            continue;
        }
        let x0 = window.x_of(sent);
        let x1 = window.x_of(arrival);
        let y_end = match end {
            End::Arrived => y1,
            End::Lost | End::Overflowed => y0 + (y1 - y0) * LOST_REACH,
        };
        let (duplicate, overtook, resent, held) = match p.fate {
            Fate::Delivered {
                duplicate,
                overtook,
                resent,
                held,
                ..
            } => (duplicate, overtook, resent, held),
            _ => (false, false, false, false),
        };
        let segment = Segment {
            record,
            from: (x0, y0),
            to: (x1, y_end),
            style: Style::of(p.kind),
            end,
            copy: false,
            overtook,
            resent,
            held,
        };
        out.push(segment);
        if duplicate {
            out.push(Segment {
                to: (x1 + DUPLICATE_OFFSET_PX, y_end),
                copy: true,
                ..segment
            });
        }
    }
    out
}

/// A stretch of run time, µs, for a band behind the lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    /// Start, µs.
    pub from_us: u64,
    /// End, µs.
    pub to_us: u64,
}

/// Loss bursts: runs of packets lost inside a Gilbert–Elliott burst, in
/// either direction, merged when closer than [`BURST_GAP_US`].
pub fn burst_bands<'a>(records: impl IntoIterator<Item = &'a PacketRecord>) -> Vec<Band> {
    let mut times: Vec<u64> = records
        .into_iter()
        .filter(|p| matches!(p.fate, Fate::Lost { in_burst: true }))
        .map(|p| p.sent.0)
        .collect();
    times.sort_unstable();
    let mut bands: Vec<Band> = Vec::new();
    for t in times {
        match bands.last_mut() {
            Some(b) if t <= b.to_us + BURST_GAP_US => b.to_us = t,
            _ => bands.push(Band {
                from_us: t,
                to_us: t,
            }),
        }
    }
    bands
}

/// Lag spikes: each [`Setting::LagSpike`] among `changes`, from the start
/// of the frame it precedes (`frame_start_us`) for its duration.
pub fn spike_bands(changes: &[Change], frame_start_us: impl Fn(usize) -> u64) -> Vec<Band> {
    changes
        .iter()
        .filter_map(|c| match c.setting {
            Setting::LagSpike(s) => {
                let from_us = frame_start_us(c.frame as usize);
                Some(Band {
                    from_us,
                    to_us: from_us + u64::from(s.duration_ms) * 1000,
                })
            }
            _ => None,
        })
        .collect()
}

/// Where the rollback model's client stood on a tick, coloured as UE's
/// Network Prediction Insights colours its tick tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TickState {
    /// No State at or after it had arrived by the playhead.
    Predicted,
    /// A visible rollback re-simulated it.
    Repredicted,
    /// A State at or after it arrived, and no visible rollback touched it.
    Confirmed,
}

/// Each input packet's newest tick, at its send time, as the client stood
/// on it at `playhead_us`: predicted past the newest State delivered by
/// then, re-predicted inside a visible rollback's `(from, to]`, else
/// confirmed. Ticks compare by wrapping difference.
pub fn tick_states<'a>(
    records: impl IntoIterator<Item = &'a PacketRecord> + Clone,
    rollbacks: &[(Tick, Tick)],
    playhead_us: u64,
) -> Vec<(u64, TickState)> {
    let confirmed = records
        .clone()
        .into_iter()
        .filter(|p| p.kind == PacketKind::State)
        .filter(|p| matches!(p.fate, Fate::Delivered { at, .. } if at.0 <= playhead_us))
        .map(|p| Tick(p.detail))
        .reduce(|a, b| if b.diff(a) > 0 { b } else { a });
    records
        .into_iter()
        .filter(|p| p.kind == PacketKind::Inputs && p.sent.0 <= playhead_us)
        .map(|p| {
            let tick = Tick(p.detail);
            let state = if confirmed.is_none_or(|c| tick.diff(c) > 0) {
                TickState::Predicted
            } else if rollbacks
                .iter()
                .any(|(from, to)| tick.diff(*from) > 0 && to.diff(tick) >= 0)
            {
                TickState::Repredicted
            } else {
                TickState::Confirmed
            };
            (p.sent.0, state)
        })
        .collect()
}

/// Ruler ticks for a window: a step of 1, 2 or 5 × 10ⁿ µs giving at least
/// `min_px` between ticks, and the tick times on screen.
pub fn ticks(window: &Window, min_px: f64) -> (u64, Vec<u64>) {
    let px_per_us = (window.right - window.left) / window.span_us() as f64;
    let mut step = 1_000u64;
    'search: for _ in 0..12 {
        for m in [1, 2, 5] {
            if (step * m) as f64 * px_per_us >= min_px {
                step *= m;
                break 'search;
            }
        }
        step *= 10;
    }
    let first = window.from_us.div_ceil(step) * step;
    let times = (0..)
        .map(|k| first + k * step)
        .take_while(|t| *t <= window.to_us)
        .collect();
    (step, times)
}

/// A tick's label: seconds with as many decimals as the step needs.
pub fn tick_label(t_us: u64, step_us: u64) -> String {
    let decimals = match step_us {
        s if s >= 1_000_000 => 0,
        s if s >= 100_000 => 1,
        s if s >= 10_000 => 2,
        _ => 3,
    };
    format!("{:.*} s", decimals, t_us as f64 / 1e6)
}

#[cfg(test)]
#[path = "lanes_tests.rs"]
mod tests;
