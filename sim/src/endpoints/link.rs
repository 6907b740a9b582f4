//! One connection's link, written once for every host and endpoint.
//!
//! * [`HostLink`] — the server end: the two link conditioners with their
//!   [`NetSettings`] and transport (datagrams or reliable-ordered, the RTO
//!   from the settings: [`NetSettings::transport`]), lag spikes, control frames that skip the conditioner,
//!   the window of Ping ids received (returned in every Pong), when the
//!   client was last heard (the quiet-client rule), the bytes that
//!   crossed, and every packet's fate — kept for the inspector in process
//!   ([`HostLink::trace_packets`]) or streamed to the page
//!   ([`HostLink::stream_trace`], issue 23). Generic over what the uplink carries: the single-player
//!   protocol's [`crate::protocol::ClientMsg`] for
//!   [`crate::endpoints::host::ServerHost`] (both models), a room's message for
//!   [`crate::endpoints::room::RoomHost`].
//! * [`ClientLink`] — the client end's probe: Pings at
//!   [`PING_INTERVAL_MS`], RTT statistics, loss each way from the two
//!   windows ([`crate::net::link_stats`]), byte meters, and the host's
//!   conditioner totals as last observed.
//!
//! ```text
//! host:   heard ─► send_up ─► uplink ─► poll_up      send / send_now ─► downlink / control ─► drain
//! client: sent / received (bytes) · ping_due ─► Ping · on_pong ─► RTT, loss · metrics
//! ```

use crate::endpoints::metrics::Metrics;
use crate::foundation::control::SettingsError;
use crate::foundation::time::SimTime;
use crate::net::codec::{self, Versioned};
use crate::net::conditioner::{ConditionerStats, Fate, LinkConditioner, LinkConditions};
use crate::net::link_meter::LinkMeter;
use crate::net::link_meter::RateMeter;
use crate::net::link_stats::SeqWindow;
use crate::net::settings::{LagSpike, NetSettings};
use crate::net::totals::{DirectionTotals, LinkTotals};
use crate::net::trace::{Direction, PacketKind, PacketLog, PacketRecord, Traced};
use crate::net::trace_stream::TraceStream;
use crate::net::trace_wire::{TraceRequest, TraceStart};
use crate::net::transport::LinkTransport;
use crate::protocol::trace::{TraceEvent, TraceFrame};
use serde::Serialize;

/// Interval between the client's RTT probes, ms: 10 Hz, so the 64-probe
/// loss window spans 6.4 s and the 100-sample RTT percentiles 10 s.
pub const PING_INTERVAL_MS: u64 = 100;
/// A client that has sent nothing for this long, ms, is *quiet*: 10 of its
/// Ping intervals, so a second of silence means its tab is hidden or
/// frozen (the browser runs no frames there). A quiet client gets no
/// stream until it sends again ([`HostLink::listening`]). A client driven
/// by [`crate::endpoints::session::LocalSession`] or a scenario is never this quiet (frames are
/// ≤ 0.25 s apart and carry a Ping every 100 ms).
pub const QUIET_CLIENT_MS: u64 = 10 * PING_INTERVAL_MS;
/// Most control frames (Welcome, Start, Error) waiting between two polls;
/// more are dropped. Every frame received adds at most two and a driver
/// polls after each, so only a driver that feeds many frames without
/// polling (a fuzzer) ever reaches it.
pub const MAX_IMMEDIATE: usize = 16;

/// What crossed one connection, both ways, frames and bytes as the driver
/// sends and receives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Traffic {
    /// Frames received from the client.
    pub frames_up: u64,
    /// Bytes received from the client.
    pub bytes_up: u64,
    /// Frames handed to the driver for the client.
    pub frames_down: u64,
    /// Bytes handed to the driver for the client.
    pub bytes_down: u64,
}

/// The server end of one connection's link; `U` is what crosses the uplink
/// (decoded messages: the conditioner delays them, the host acts on them).
#[derive(Debug, Clone)]
pub struct HostLink<U> {
    settings: NetSettings,
    /// Datagrams or reliable-ordered, both directions.
    transport: LinkTransport,
    uplink: LinkConditioner<U>,
    /// Encoded frames: the bandwidth cap needs their size.
    downlink: LinkConditioner<Vec<u8>>,
    /// Control frames: not conditioned, sent at the next drain.
    immediate: Vec<Vec<u8>>,
    /// Ping ids received, returned in every Pong.
    pings_received: SeqWindow,
    /// When the client last sent a frame.
    last_heard: SimTime,
    traffic: Traffic,
    /// Every packet's fate, when tracing is on ([`HostLink::trace_packets`]).
    trace: Option<Box<PacketLog>>,
    /// Every packet's fate on its way to the page, when it asked
    /// ([`HostLink::stream_trace`]).
    stream: Option<Box<TraceStream<TraceEvent>>>,
    /// Trace batches made at a drain, for the driver
    /// ([`HostLink::take_trace`]); at most [`MAX_READY_BATCHES`].
    ready: Vec<TraceFrame>,
}

/// Trace batches waiting for a driver that does not take them; older
/// ones are dropped (the page sees the gap in their numbers).
pub const MAX_READY_BATCHES: usize = 16;

/// What the uplink conditioner's seed is made from the host's: the
/// host's seed `^` this (`"UPLINK"`).
pub const UPLINK_SEED: u64 = 0x5550_4c49_4e4b;
/// What the downlink conditioner's seed is made from the host's
/// (`"DOWNLN"`).
pub const DOWNLINK_SEED: u64 = 0x444f_574e_4c4e;

impl<U: Clone + Traced> HostLink<U> {
    /// A link with [`NetSettings::default`] (RTT 100 ms, as the page
    /// starts) until the client sends its own, whose conditioners draw from
    /// `seed`; the client counts as heard at `now`.
    pub fn new(seed: u64, now: SimTime) -> HostLink<U> {
        let mut link = HostLink {
            settings: NetSettings::default(),
            transport: LinkTransport::Datagram,
            uplink: LinkConditioner::new(LinkConditions::PERFECT, seed ^ UPLINK_SEED),
            downlink: LinkConditioner::new(LinkConditions::PERFECT, seed ^ DOWNLINK_SEED),
            immediate: Vec::new(),
            pings_received: SeqWindow::default(),
            last_heard: now,
            traffic: Traffic::default(),
            trace: None,
            stream: None,
            ready: Vec::new(),
        };
        link.apply(NetSettings::default());
        link
    }

    /// Applies settings already validated to both conditioners (and the
    /// RTO that follows from them, when reliable-ordered).
    pub fn apply(&mut self, settings: NetSettings) {
        self.settings = settings;
        self.uplink.set_conditions(settings.uplink.conditions());
        self.downlink.set_conditions(settings.downlink.conditions());
        let carried = settings.transport(self.transport);
        self.uplink.set_transport(carried);
        self.downlink.set_transport(carried);
    }

    /// Carries packets sent from now on as `transport` says, both
    /// directions, with the RTO of the settings in force.
    pub fn set_transport(&mut self, transport: LinkTransport) {
        self.transport = transport;
        self.apply(self.settings);
    }

    /// The transport in force.
    pub fn transport(&self) -> LinkTransport {
        self.transport
    }

    /// Validates and applies new settings.
    ///
    /// # Errors
    /// [`SettingsError`] naming the field out of range; nothing changes.
    pub fn set_net_settings(&mut self, settings: NetSettings) -> Result<(), SettingsError> {
        settings.validate()?;
        self.apply(settings);
        Ok(())
    }

    /// The settings in force.
    pub fn settings(&self) -> NetSettings {
        self.settings
    }

    /// Starts a lag spike on both directions at `now`.
    ///
    /// # Errors
    /// [`SettingsError`] if the spike is out of range; nothing changes.
    pub fn start_lag_spike(&mut self, now: SimTime, spike: LagSpike) -> Result<(), SettingsError> {
        spike.validate()?;
        let (extra, duration) = (spike.extra_ms.into(), spike.duration_ms.into());
        self.uplink.start_lag_spike(now, extra, duration);
        self.downlink.start_lag_spike(now, extra, duration);
        Ok(())
    }

    /// The client sent a frame of `bytes` at `now` (whatever it held).
    pub fn heard(&mut self, now: SimTime, bytes: usize) {
        self.last_heard = self.last_heard.max(now);
        self.traffic.frames_up += 1;
        self.traffic.bytes_up += bytes as u64;
    }

    /// When the client becomes quiet unless it sends again:
    /// [`QUIET_CLIENT_MS`] after it was last heard.
    pub fn quiet_from(&self) -> SimTime {
        self.last_heard.plus_millis(QUIET_CLIENT_MS)
    }

    /// Whether the client is still listening at `at` (not yet quiet): a
    /// stream due then is worth sending.
    pub fn listening(&self, at: SimTime) -> bool {
        at < self.quiet_from()
    }

    /// Records the fate of every packet from now on, keeping the newest
    /// `capacity` ([`crate::net::trace`]); off by default.
    pub fn trace_packets(&mut self, capacity: usize) {
        self.trace = Some(Box::new(PacketLog::new(capacity)));
    }

    /// The packets recorded, if tracing is on.
    pub fn packets(&self) -> Option<&PacketLog> {
        self.trace.as_deref()
    }

    /// Delivers the packet sent `index`-th (from 0) in `direction` even if
    /// its loss roll says lost (a what-if fork).
    pub fn rescue(&mut self, direction: Direction, index: u64) {
        match direction {
            Direction::Up => self.uplink.rescue(index),
            Direction::Down => self.downlink.rescue(index),
        }
    }

    /// Starts, changes or stops (an interval of 0) the packet trace to the
    /// page at `now` ([`crate::net::trace_stream`]); a new stream's first
    /// batch says `start`. The request is validated by the caller.
    pub fn stream_trace(&mut self, now: SimTime, request: TraceRequest, start: TraceStart) {
        self.stream = request
            .is_on()
            .then(|| Box::new(TraceStream::new(request, now, start)));
    }

    /// The driver's word on the page's reading ([`TraceStream::congested`]).
    pub fn trace_congested(&mut self, on: bool) {
        if let Some(s) = &mut self.stream {
            s.congested(on);
        }
    }

    /// An event for the page's trace, if it streams one.
    pub fn trace_event(&mut self, event: TraceEvent) {
        if let Some(s) = &mut self.stream {
            s.push_event(event);
        }
    }

    /// Whether the page streams a trace.
    pub fn streams_trace(&self) -> bool {
        self.stream.is_some()
    }

    /// A control message the host acted on at `now`, for the page's
    /// trace: when, and after how many packets each way.
    pub fn trace_control(&mut self, now: SimTime, msg: crate::protocol::ClientMsg) {
        let (up, down) = (self.uplink.stats().sent, self.downlink.stats().sent);
        self.trace_event(TraceEvent::Control {
            at: now,
            up,
            down,
            msg,
        });
    }

    /// The trace batches made at the drains since the last call.
    pub fn take_trace(&mut self) -> Vec<TraceFrame> {
        std::mem::take(&mut self.ready)
    }

    /// When the next trace batch is due, if any.
    pub fn trace_due(&self) -> Option<SimTime> {
        self.stream.as_ref()?.due()
    }

    /// Keeps a packet's record where tracing asked for it.
    fn record(
        &mut self,
        direction: Direction,
        index: u64,
        traced: (PacketKind, u32, [u32; 2]),
        bytes: usize,
        now: SimTime,
        fate: Fate,
    ) {
        if let Some(log) = &mut self.trace {
            log.record(direction, index, traced, bytes, now, fate);
        }
        if let Some(s) = &mut self.stream {
            let (kind, detail, also) = traced;
            s.push(PacketRecord {
                direction,
                index,
                kind,
                detail,
                also,
                bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
                sent: now,
                fate,
            });
        }
    }

    /// Whether any packet's fate is wanted.
    fn tracing(&self) -> bool {
        self.trace.is_some() || self.stream.is_some()
    }

    /// Puts `msg`, which came in a frame of `bytes`, on the uplink at `now`.
    pub fn send_up(&mut self, now: SimTime, bytes: usize, msg: U) {
        let index = self.uplink.stats().sent;
        let traced = self.tracing().then(|| msg.traced());
        let fate = self.uplink.send_fate(now, bytes, msg);
        if let Some(traced) = traced {
            self.record(Direction::Up, index, traced, bytes, now, fate);
        }
    }

    /// The next uplink message due at `now`, if any.
    pub fn poll_up(&mut self, now: SimTime) -> Option<U> {
        self.uplink.poll(now)
    }

    /// Records Ping `id` and returns the window of Ping ids received, for
    /// the Pong.
    pub fn ping_received(&mut self, id: u32) -> SeqWindow {
        self.pings_received.record(id);
        self.pings_received
    }

    /// Sends `msg` through the downlink conditioner at `now` and returns
    /// what the conditioner did with it.
    pub fn send<M: Versioned + Serialize + Traced>(&mut self, now: SimTime, msg: &M) -> Fate {
        let frame = codec::encode(msg);
        let (index, bytes) = (self.downlink.stats().sent, frame.len());
        let fate = self.downlink.send_fate(now, bytes, frame);
        if self.tracing() {
            self.record(Direction::Down, index, msg.traced(), bytes, now, fate);
        }
        fate
    }

    /// Queues a control message for the next [`HostLink::drain`], past the
    /// conditioner; beyond [`MAX_IMMEDIATE`] waiting, it is dropped (a
    /// client sending garbage faster than the host is polled gets no more
    /// answers, not more memory).
    pub fn send_now<M: Versioned + Serialize>(&mut self, msg: &M) {
        if self.immediate.len() < MAX_IMMEDIATE {
            self.immediate.push(codec::encode(msg));
        }
    }

    /// The frames due at `now`: control frames first, then the downlink's.
    /// The trace batches due are made here too, for
    /// [`HostLink::take_trace`].
    pub fn drain(&mut self, now: SimTime) -> Vec<Vec<u8>> {
        if let Some(s) = &mut self.stream {
            self.ready.extend(s.take(now));
            let over = self.ready.len().saturating_sub(MAX_READY_BATCHES);
            self.ready.drain(..over);
        }
        let mut out = std::mem::take(&mut self.immediate);
        while let Some(frame) = self.downlink.poll(now) {
            out.push(frame);
        }
        self.count_down(&out);
        out
    }

    /// Counts frames handed to the driver outside [`HostLink::drain`] (the
    /// observer view).
    pub fn count_down(&mut self, frames: &[Vec<u8>]) {
        self.traffic.frames_down += frames.len() as u64;
        self.traffic.bytes_down += frames.iter().map(|f| f.len() as u64).sum::<u64>();
    }

    /// The earliest time either conditioner delivers something, or a
    /// trace batch is due.
    pub fn next_delivery(&self) -> Option<SimTime> {
        [
            self.uplink.next_delivery(),
            self.downlink.next_delivery(),
            self.trace_due(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// What both conditioners did so far, as streamed to the page.
    pub fn totals(&self, now: SimTime) -> LinkTotals {
        LinkTotals {
            up: direction_totals(&self.uplink, now),
            down: direction_totals(&self.downlink, now),
        }
    }

    /// The uplink conditioner's counters.
    pub fn uplink_stats(&self) -> ConditionerStats {
        self.uplink.stats()
    }

    /// What crossed the connection so far.
    pub fn traffic(&self) -> Traffic {
        self.traffic
    }
}

fn direction_totals<T: Clone>(c: &LinkConditioner<T>, now: SimTime) -> DirectionTotals {
    let s = c.stats();
    let clip = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    DirectionTotals {
        sent: clip(s.sent),
        lost: clip(s.lost),
        overflowed: clip(s.overflowed),
        duplicated: clip(s.duplicated),
        reordered: clip(s.reordered),
        in_flight: clip(c.in_flight() as u64),
        resent: clip(s.resent),
        held: clip(s.held),
        held_ms: clip(s.held_us / 1000),
        in_burst: c.in_burst(),
        in_spike: c.in_lag_spike(now),
    }
}

/// The client end's measurement of its link (see the module doc): Pings
/// due every [`PING_INTERVAL_MS`] and what their Pongs say
/// ([`LinkMeter`], restarted when the settings change), the host's
/// conditioner totals and the bytes each way.
#[derive(Debug, Clone, Default)]
pub struct ClientLink {
    next_ping: SimTime,
    meter: LinkMeter,
    totals: LinkTotals,
    up: RateMeter,
    down: RateMeter,
}

impl ClientLink {
    /// `bytes` left the client at `now`.
    pub fn sent(&mut self, now: SimTime, bytes: usize) {
        self.up.record(now, bytes);
    }

    /// `bytes` of game traffic arrived at `now`.
    pub fn received(&mut self, now: SimTime, bytes: usize) {
        self.down.record(now, bytes);
    }

    /// The id of the Ping to send at `now`, if one is due (every
    /// [`PING_INTERVAL_MS`]); the caller sends it and counts its bytes.
    pub fn ping_due(&mut self, now: SimTime) -> Option<u32> {
        if now < self.next_ping {
            return None;
        }
        self.next_ping = now.plus_millis(PING_INTERVAL_MS);
        Some(self.meter.next_ping(now))
    }

    /// Pong `id` arrived at `now` with the server's window of Pings
    /// `received`: an RTT sample and the loss windows.
    pub fn on_pong(&mut self, now: SimTime, id: u32, received: SeqWindow) {
        self.meter.on_pong(now, id, received);
    }

    /// The network settings changed: the measurement restarts, so that the
    /// figures describe the new link from the next Ping on.
    pub fn restart(&mut self) {
        self.meter.restart();
    }

    /// The host's conditioner totals, as an observer view reported them.
    pub fn on_totals(&mut self, totals: LinkTotals) {
        self.totals = totals;
    }

    /// The link's part of the read-out at `now` (RTT, loss, conditioner
    /// totals, bytes/s); the model's fields are left at their defaults.
    pub fn metrics(&mut self, now: SimTime) -> Metrics {
        let l = self.meter.report();
        Metrics {
            rtt_ms: l.rtt_smoothed_ms,
            rtt_last_ms: l.rtt_last_ms,
            rtt_p50_ms: l.rtt_p50_ms,
            rtt_p99_ms: l.rtt_p99_ms,
            jitter_ms: l.jitter_ms,
            rtt_samples: l.rtt_samples,
            loss_up: l.window_up.and_then(|c| c.rate()),
            loss_down: l.window_down.and_then(|c| c.rate()),
            loss_up_probes: l.window_up.map_or(0, |c| c.sent),
            loss_down_probes: l.window_down.map_or(0, |c| c.sent),
            loss_since_up: l.since_up,
            loss_since_down: l.since_down,
            link: self.totals,
            up_bps: self.up.per_second(now),
            down_bps: self.down.per_second(now),
            ..Metrics::default()
        }
    }

    /// Bytes sent and received so far.
    pub fn bytes_total(&self) -> (u64, u64) {
        (self.up.total(), self.down.total())
    }
}
