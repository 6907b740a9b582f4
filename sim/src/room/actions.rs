//! Ammo actions that arrive: every shot and reload reaches the server
//! once and in order, on a link that loses, duplicates and reorders
//! packets (chickynoid issue #29; `003_…` sends them as reliable RPCs).
//!
//! The reference counts on the RPC being reliable; sent once over a lossy
//! link, one lost shot or reload left the client's counter and the
//! server's apart for good (1 433 shots fired against 1 355 received over
//! 20 runs at 5 % uplink loss, 69 upward jumps of the counter).
//!
//! - **Client** ([`ActionOutbox`]): keeps every action until an ammo
//!   update acknowledges it, sends it when made, once more with the next
//!   frame (redundancy: a single loss costs one frame, so a shot still
//!   lands within the rewind cap), and again once it has waited a
//!   [`RESEND_SPACING_MS`] longer than any recent round trip — the oldest
//!   first, at most one per [`RESEND_SPACING_MS`].
//! - **Server** ([`ActionInbox`]): hands actions on in sequence order from
//!   1, holds one that arrives ahead of a missing one (at most
//!   [`HELD_ACTIONS`]) until the missing one comes, and ignores a repeat;
//!   its acknowledgement is the newest action handed on, so nothing is
//!   acknowledged that was not handled.
//! - **Verdicts** ([`AnswersToRepeat`]): a shot is answered twice, with its
//!   verdict and with the ammo, and the two can be lost apart. The
//!   reference's `ClientConfirmHit` is a reliable RPC; sent once, a lost
//!   verdict left the shot waiting for good (Facepunch/sbox-issues#2099:
//!   a client RPC lost at 200 ms of fake lag was never made good). So the
//!   client keeps a shot until its verdict too has come, and the server
//!   answers a repeat of a shot with the ammo *and* the verdict again, in
//!   one packet, for the newest [`ANSWERS_REPEATED`] actions.
//!
//! What the client sends per second, at most: a shot per fire interval
//! (10), its copy (10), a resend per [`RESEND_SPACING_MS`] (10) — and a
//! clock request per [`super::clock::TIME_SYNC_INTERVAL_MS`] (10), 40 in
//! all, within the relay's 40/s budget for a room's actions; firing on a
//! good link, 30.

use super::seq::Seq;
use super::wire::RoomClientMsg;
use crate::foundation::time::SimTime;
use std::collections::VecDeque;

/// Least time between two resends, ms: 100, one per clock request.
pub const RESEND_SPACING_MS: u64 = 100;

/// Actions the server holds ahead of a missing one: 32 (3.2 s of firing
/// at the default fire interval). One further ahead is dropped; the
/// client sends it again.
pub const HELD_ACTIONS: usize = 32;

/// The actions whose answers the server keeps to send again: the newest
/// 64 handed on (6.4 s of firing at the default fire interval). The
/// client stops waiting for the verdict of an older one.
pub const ANSWERS_REPEATED: usize = 64;

/// An action waiting for its acknowledgement.
#[derive(Debug, Clone, PartialEq)]
struct Pending {
    seq: Seq,
    msg: RoomClientMsg,
    /// Client time it was last sent.
    sent: SimTime,
    /// The redundant copy is still to go.
    copy_due: bool,
    /// A shot whose verdict has not come yet.
    verdict_due: bool,
}

/// The client's actions not yet acknowledged (or, for a shot, not yet
/// answered with its verdict), oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActionOutbox {
    pending: VecDeque<Pending>,
    /// No resend before this client time.
    next_resend: SimTime,
}

impl ActionOutbox {
    /// Action `seq`, the message `msg`, was sent at client time `now`.
    pub fn sent(&mut self, now: SimTime, seq: Seq, msg: RoomClientMsg) {
        self.pending.push_back(Pending {
            seq,
            verdict_due: matches!(msg, RoomClientMsg::Fire(_)),
            msg,
            sent: now,
            copy_due: true,
        });
    }

    /// What to send again at client time `now`: the redundant copies of
    /// actions sent since the last call, then the oldest action that has
    /// waited longer than `resend_after_us` (µs) for its acknowledgement,
    /// if no resend went in the last [`RESEND_SPACING_MS`].
    pub fn due(&mut self, now: SimTime, resend_after_us: u64) -> Vec<RoomClientMsg> {
        let mut out = Vec::new();
        for p in self.pending.iter_mut().filter(|p| p.copy_due) {
            p.copy_due = false;
            out.push(p.msg.clone());
        }
        if now >= self.next_resend {
            if let Some(p) = self
                .pending
                .iter_mut()
                .find(|p| now.micros_since(p.sent) > resend_after_us)
            {
                p.sent = now;
                self.next_resend = now.plus_millis(RESEND_SPACING_MS);
                out.push(p.msg.clone());
            }
        }
        out
    }

    /// The server handled every action up to `ack`: they are dropped, but
    /// for shots still waiting for their verdict (within
    /// [`ANSWERS_REPEATED`] of `ack`: the server keeps no older one).
    pub fn acknowledge(&mut self, ack: Seq) {
        self.pending.retain(|p| {
            p.seq.is_after(ack) || (p.verdict_due && (ack.diff(p.seq) as usize) < ANSWERS_REPEATED)
        });
    }

    /// The verdict on shot `seq` came: it waits for its acknowledgement
    /// only (the next ammo update, or the answer to its next resend).
    pub fn answered(&mut self, seq: Seq) {
        for p in self.pending.iter_mut().filter(|p| p.seq == seq) {
            p.verdict_due = false;
        }
    }

    /// Actions not acknowledged yet.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// `true` when everything sent is acknowledged.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

/// The server's answers to the newest [`ANSWERS_REPEATED`] actions of one
/// player that have one (a shot's verdict), to send again when the action
/// comes again.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswersToRepeat<A> {
    kept: VecDeque<(Seq, A)>,
}

impl<A> Default for AnswersToRepeat<A> {
    fn default() -> Self {
        AnswersToRepeat {
            kept: VecDeque::new(),
        }
    }
}

impl<A> AnswersToRepeat<A> {
    /// Keeps action `seq`'s answer, the newest handed on; forgets those
    /// [`ANSWERS_REPEATED`] or more actions older.
    pub fn keep(&mut self, seq: Seq, answer: A) {
        self.kept.push_back((seq, answer));
        while self
            .kept
            .front()
            .is_some_and(|(s, _)| seq.diff(*s) as usize >= ANSWERS_REPEATED)
        {
            self.kept.pop_front();
        }
    }

    /// The answer to action `seq`, if kept.
    pub fn get(&self, seq: Seq) -> Option<&A> {
        self.kept.iter().find(|(s, _)| *s == seq).map(|(_, a)| a)
    }
}

/// What [`ActionInbox::receive`] did with an action.
#[derive(Debug, Clone, PartialEq)]
pub enum Arrival<T> {
    /// Handed on, with every held one it freed, in order.
    Ready(Vec<T>),
    /// Ahead of a missing action: held (or, beyond [`HELD_ACTIONS`],
    /// dropped) until the missing one arrives.
    Held,
    /// Handed on before (a copy, a resend, a duplicate): ignored.
    Repeat,
}

/// One player's actions on the server, numbered from 1.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionInbox<T> {
    /// The next action to hand on.
    expected: Seq,
    /// Actions ahead of `expected`, by sequence number.
    held: VecDeque<(Seq, T)>,
}

impl<T> Default for ActionInbox<T> {
    fn default() -> Self {
        ActionInbox {
            expected: Seq(1),
            held: VecDeque::new(),
        }
    }
}

impl<T> ActionInbox<T> {
    /// Takes action `seq`.
    pub fn receive(&mut self, seq: Seq, action: T) -> Arrival<T> {
        if !seq.is_after(self.ack()) {
            return Arrival::Repeat;
        }
        if seq != self.expected {
            let at = self.held.partition_point(|(s, _)| seq.is_after(*s));
            match self.held.get(at) {
                Some((s, _)) if *s == seq => return Arrival::Repeat,
                _ if self.held.len() < HELD_ACTIONS => self.held.insert(at, (seq, action)),
                _ => {}
            }
            return Arrival::Held;
        }
        let mut ready = vec![action];
        self.expected = seq.next();
        while self.held.front().is_some_and(|(s, _)| *s == self.expected) {
            if let Some((s, a)) = self.held.pop_front() {
                ready.push(a);
                self.expected = s.next();
            }
        }
        Arrival::Ready(ready)
    }

    /// The newest action handed on (`Seq(0)` before the first): what the
    /// ammo update acknowledges.
    pub fn ack(&self) -> Seq {
        Seq(self.expected.0.wrapping_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_handed_on_once_and_in_order() {
        let mut inbox = ActionInbox::default();
        assert_eq!(inbox.ack(), Seq(0));
        assert_eq!(inbox.receive(Seq(1), 'a'), Arrival::Ready(vec!['a']));
        // 2 is lost; 3 and 4 wait for it, a copy of 3 is a repeat.
        assert_eq!(inbox.receive(Seq(3), 'c'), Arrival::Held);
        assert_eq!(inbox.receive(Seq(4), 'd'), Arrival::Held);
        assert_eq!(inbox.receive(Seq(3), 'c'), Arrival::Repeat);
        assert_eq!(inbox.ack(), Seq(1));
        assert_eq!(
            inbox.receive(Seq(2), 'b'),
            Arrival::Ready(vec!['b', 'c', 'd'])
        );
        assert_eq!(inbox.receive(Seq(2), 'b'), Arrival::Repeat);
        assert_eq!(inbox.ack(), Seq(4));
    }

    #[test]
    fn at_most_32_actions_are_held() {
        let mut inbox = ActionInbox::default();
        for s in 2..100 {
            inbox.receive(Seq(s), s);
        }
        let Arrival::Ready(ready) = inbox.receive(Seq(1), 1) else {
            panic!("action 1 frees the held ones")
        };
        assert_eq!(ready, (1..=33).collect::<Vec<_>>());
        assert_eq!(inbox.receive(Seq(34), 34), Arrival::Ready(vec![34]));
    }

    #[test]
    fn a_shot_waits_for_its_verdict_as_long_as_the_server_keeps_it() {
        let fire = |s| {
            RoomClientMsg::Fire(crate::room::wire::Shot {
                seq: Seq(s),
                at: SimTime::ZERO,
                hit_time: SimTime::ZERO,
                origin: Default::default(),
                direction: Default::default(),
                drawn: crate::room::wire::DrawnFrom::Between {
                    from: SimTime::ZERO,
                    to: SimTime::ZERO,
                },
            })
        };
        let ms = SimTime::from_millis;
        let mut out = ActionOutbox::default();
        out.sent(ms(0), Seq(1), fire(1));
        out.sent(ms(0), Seq(2), fire(2));
        out.due(ms(16), 200_000);
        // Both handled, only 2's verdict came: 1 is sent again.
        out.answered(Seq(2));
        out.acknowledge(Seq(2));
        assert_eq!(out.len(), 1);
        assert_eq!(out.due(ms(211), 200_000), vec![fire(1)]);
        // Its verdict comes again with the ammo.
        out.answered(Seq(1));
        out.acknowledge(Seq(2));
        assert!(out.is_empty());
        // A verdict the server no longer keeps is not waited for.
        out.sent(ms(300), Seq(3), fire(3));
        out.acknowledge(Seq(3 + ANSWERS_REPEATED as u32 - 1));
        assert_eq!(out.len(), 1);
        out.acknowledge(Seq(3 + ANSWERS_REPEATED as u32));
        assert!(out.is_empty());
    }

    #[test]
    fn the_server_keeps_the_answers_of_the_newest_64_actions() {
        let mut kept = AnswersToRepeat::default();
        for s in 1..=100 {
            kept.keep(Seq(s), s * 10);
        }
        assert_eq!(kept.get(Seq(36)), None);
        assert_eq!(kept.get(Seq(37)), Some(&370));
        assert_eq!(kept.get(Seq(100)), Some(&1000));
    }

    #[test]
    fn the_client_copies_once_and_resends_the_oldest_unanswered() {
        let reload = |s| RoomClientMsg::Reload {
            seq: Seq(s),
            at: SimTime::ZERO,
        };
        let ms = SimTime::from_millis;
        let mut out = ActionOutbox::default();
        out.sent(ms(0), Seq(1), reload(1));
        out.sent(ms(10), Seq(2), reload(2));
        assert_eq!(out.due(ms(16), 200_000), vec![reload(1), reload(2)]);
        assert_eq!(out.due(ms(33), 200_000), vec![]);
        // 1 is answered; 2 is not, and is sent again past 200 ms — once
        // per 100 ms at most.
        out.acknowledge(Seq(1));
        assert_eq!(out.due(ms(211), 200_000), vec![reload(2)]);
        out.sent(ms(250), Seq(3), reload(3));
        assert_eq!(out.due(ms(260), 0), vec![reload(3)]);
        assert_eq!(out.due(ms(300), 0), vec![]);
        assert_eq!(out.due(ms(311), 0), vec![reload(2)]);
        out.acknowledge(Seq(3));
        assert!(out.is_empty());
    }
}
