//! What each tour stop says (pure: tested natively). The runs, moments
//! and numbers are `sim::tour`'s; this is the page's wording around them.

use sim::tour::{Reading, Variant};

/// The words of one stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    /// `sim::tour::Stop::key`.
    pub key: &'static str,
    /// The card's heading.
    pub title: &'static str,
    /// What to see in the run as the stop sets it; `{n}` is the number.
    pub shown: &'static str,
    /// The same after the stop's control is turned.
    pub tried: &'static str,
    /// The button that turns the control, and the one that turns it back.
    pub try_label: &'static str,
    /// The button that puts the stop's setting back.
    pub untry_label: &'static str,
    /// The reference sections that say so.
    pub reference: &'static str,
    /// A CSS selector of what to look at (outlined while the stop is open).
    pub target: &'static str,
}

const PREDICTED: &str = "article[data-accent=\"pred\"]";
const AUTHORITATIVE: &str = "article[data-accent=\"auth\"]";
const REPLAYED: &str = "article[data-accent=\"repl\"]";

/// Every stop's words, in `sim::tour::stops` order.
pub const WORDS: &[Words] = &[
    Words {
        key: "predict",
        title: "Why predict",
        shown: "Prediction is off and the RTT is 200 ms. The key went down at 1.0 s and the character was drawn moving {n} later: one round trip plus up to one ack interval, because the client draws only what the server confirmed. UE's autonomous proxy performs each move at once instead.",
        tried: "Prediction on: the character was drawn moving {n} after the key — the frame the key went down. The server still confirms the move a round trip later; the rest of the tour is about that gap.",
        try_label: "Turn prediction on",
        untry_label: "Back to prediction off",
        reference: "000 §3.3, §5.2",
        target: PREDICTED,
    },
    Words {
        key: "saved-moves",
        title: "SavedMoves and Acks",
        shown: "Each frame the client performs a move and keeps it as a SavedMove until the server acknowledges it. At RTT 200 ms, {n} SavedMoves are waiting for their Ack right now: a round trip of moves plus up to one ack interval. The Packets card draws each ServerMove going up and each Ack coming back.",
        tried: "At RTT 40 ms only {n} SavedMoves wait: the queue is the round trip, counted in moves.",
        try_label: "RTT 40 ms",
        untry_label: "Back to RTT 200 ms",
        reference: "000 §3.1–§3.2, §6.2",
        target: "#inspector",
    },
    Words {
        key: "adjustment",
        title: "An Adjustment and its replay",
        shown: "Server-only push zones move the character where the client cannot know it, so the server answers with an Adjustment instead of an Ack. The client snapped to the server's position for that move and replayed the {n} SavedMoves sent since, to land where it should be now. The Replayed panel draws the path thrown away and the replayed one.",
        tried: "At RTT 40 ms the same push is replayed over {n} SavedMoves: fewer were in flight.",
        try_label: "RTT 40 ms",
        untry_label: "Back to RTT 200 ms",
        reference: "000 §5.2, §6.3–§6.4",
        target: REPLAYED,
    },
    Words {
        key: "smoothing",
        title: "Smoothing the snap",
        shown: "The same Adjustment with smoothing disabled: the collision position snaps and the mesh with it, so the character is drawn moving {n} in one frame (running, it moves 10 cm a frame). UE keeps the mesh offset from the capsule and lets it decay.",
        tried: "Exponential smoothing, UE's default: the character is drawn moving {n} in that frame, and the rest of the offset decays over the next frames.",
        try_label: "Exponential smoothing",
        untry_label: "Back to smoothing disabled",
        reference: "000 §7.2",
        target: PREDICTED,
    },
    Words {
        key: "reconciliation",
        title: "Reconciliation off",
        shown: "RTT 200 ms and 10 % loss, with reconciliation off: after an Adjustment the client takes the server's position and drops its unacknowledged moves instead of replaying them. In 20 s the character was drawn jumping back {n} times, each by what it ran in a round trip.",
        tried: "With the replay, {n} jumps back: the replayed moves carry the character on from the server's position.",
        try_label: "Turn reconciliation on",
        untry_label: "Back to reconciliation off",
        reference: "000 §6.3–§6.4",
        target: PREDICTED,
    },
    Words {
        key: "impulse",
        title: "The impulse must live in the SavedMove",
        shown: "The dash is applied outside the SavedMove: the client feels it, but no ServerMove carries it, and a combined move can merge it away. {n} dashes the client felt never happened on the server, and each came back as a correction.",
        tried: "With the dash carried in the SavedMove's flags, {n} dashes are lost.",
        try_label: "Dash inside the SavedMove",
        untry_label: "Back to the bug",
        reference: "004 §2; 000 §8.1",
        target: AUTHORITATIVE,
    },
    Words {
        key: "speed-hack",
        title: "Time stamps and the speed hack",
        shown: "The client's clock runs 1.5× fast, so its moves claim more time than passed. The server sums each move's time against its own clock: it caught the client ahead {n} times in 6 s, and with time discrepancy resolution on it cuts those moves short and corrects the client.",
        tried: "An honest clock: {n} time discrepancies.",
        try_label: "Honest clock",
        untry_label: "Back to 1.5×",
        reference: "000 §9.1, §9.3–§9.4",
        target: AUTHORITATIVE,
    },
    Words {
        key: "misprediction",
        title: "A misprediction and its rebase",
        shown: "The rollback model: fixed ticks, each input sent once at 10 % loss. The server missed one of your inputs and ran that tick on the last one it had; its State disagreed with your prediction, so the client restored the State and re-simulated {n} ticks up to now — the reference's own example.",
        tried: "With 8 ticks of input delay the client runs 8 ticks less ahead of the server: the first visible rebase re-simulated {n} ticks.",
        try_label: "Input delay 8 ticks",
        untry_label: "Back to no input delay",
        reference: "001 §3, §8",
        target: REPLAYED,
    },
    Words {
        key: "redundancy",
        title: "Input redundancy under loss",
        shown: "At 10 % loss with each input sent once, {n} ticks ran on a held input because the real one never arrived in time (15 s). The reference sends the last few inputs in every packet, so one lost packet loses nothing.",
        tried: "Four inputs in every packet: {n} missed.",
        try_label: "Four inputs per packet",
        untry_label: "Back to one",
        reference: "001 §5.1, §6",
        target: "#metrics-title",
    },
    Words {
        key: "delay-based",
        title: "Delay-based vs rollback",
        shown: "Rollback off: the game waits for the server's State instead of predicting, like the lockstep GGPO replaced. The key went down at 2.0 s and the character moved {n} later: a round trip.",
        tried: "Rollback on: it moved {n} after the key, and the State that arrives a round trip later is rebased on.",
        try_label: "Turn rollback on",
        untry_label: "Back to rollback off",
        reference: "001 §1, §8",
        target: PREDICTED,
    },
    Words {
        key: "lag-compensation",
        title: "Lag compensation: shooting what you saw",
        shown: "You see the other character where the server had it half a round trip ago, plus your smoothing: compare it in Predicted and Authoritative. In a room at RTT 200 ms, {n} of 20 shots at the centre of a player strafing at 600 cm/s hit, because the server rewinds that player to where the shooter saw it before testing the shot. Join a room and press Add bot to see each shot's four views, and the ammo your client predicted.",
        tried: "With the rewind off the server tests each shot against the present: {n} of 20 hit, although every one was aimed at the body as drawn.",
        try_label: "Rewind off",
        untry_label: "Rewind on",
        reference: "003 回溯算法, 弹药预测",
        target: PREDICTED,
    },
    Words {
        key: "proxy",
        title: "The other character: a simulated proxy",
        shown: "The other character is a simulated proxy: the client gets only its replicated position and velocity at the net update rate, here with 10 % loss, and moves it along that velocity in between. With smoothing disabled every update that disagrees snaps it where the update says: it moved up to {n} in one frame (running: 10 cm).",
        tried: "Exponential smoothing: at most {n} in one frame; the snap is spread over the next frames.",
        try_label: "Exponential smoothing",
        untry_label: "Back to smoothing disabled",
        reference: "000 §7.1–§7.2",
        target: PREDICTED,
    },
    Words {
        key: "tcp",
        title: "Why games avoid TCP",
        shown: "The same link carried reliable and ordered, as TCP carries it: at RTT 100 ms and 2 % loss each lost packet is sent again one retransmission timeout (200 ms) later, and every packet sent after it waits behind it. In 15 s, {n} packets were held behind a resend, each arriving about 100 ms late: the Packets card marks them (red ring: resent, amber dot: held). Games send datagrams and put the redundancy in their own messages instead.",
        tried: "Datagrams: {n} packets held. A lost packet stays lost, and the next ServerMove carries the old move again, so nothing waits.",
        try_label: "Datagrams (UDP)",
        untry_label: "Back to reliable-ordered",
        reference: "001 §6; 000 §8.3; RFC 6298 §2.3",
        target: "#inspector",
    },
];

/// The words of stop `key`.
pub fn words(key: &str) -> Option<&'static Words> {
    WORDS.iter().find(|w| w.key == key)
}

/// A measured number as the card writes it: ms and cm rounded, counts
/// whole; `None` (the moment never came) as "none".
pub fn number(reading: Reading, value: Option<f64>) -> String {
    let Some(v) = value else {
        return "none".to_owned();
    };
    match reading {
        Reading::KeyDelayMs => format!("{v:.0} ms"),
        Reading::DrawnStepCm | Reading::ProxyStepCm => format!("{v:.0} cm"),
        _ => format!("{v:.0}"),
    }
}

/// The sentences of `w` for `variant` with the number in.
pub fn body(w: &Words, variant: Variant, number: &str) -> String {
    let text = match variant {
        Variant::Shown => w.shown,
        Variant::Tried => w.tried,
    };
    text.replace("{n}", number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stop_has_words_in_order_with_one_number_each() {
        let stops = sim::tour::stops();
        assert_eq!(stops.len(), WORDS.len());
        for (stop, w) in stops.iter().zip(WORDS) {
            assert_eq!(stop.key, w.key);
            assert_eq!(w.shown.matches("{n}").count(), 1, "{}", w.key);
            assert_eq!(w.tried.matches("{n}").count(), 1, "{}", w.key);
            let sentences = w.shown.matches(". ").count() + 1;
            assert!(
                (2..=4).contains(&sentences),
                "{}: {sentences} sentences",
                w.key
            );
        }
    }

    #[test]
    fn numbers_carry_their_unit() {
        assert_eq!(number(Reading::KeyDelayMs, Some(216.66)), "217 ms");
        assert_eq!(number(Reading::ProxyStepCm, Some(80.96)), "81 cm");
        assert_eq!(number(Reading::BackwardJumps, Some(2.0)), "2");
        assert_eq!(number(Reading::MissedInputs, None), "none");
        let w = words("predict").unwrap();
        assert!(body(w, Variant::Shown, "217 ms").contains("moving 217 ms later"));
    }
}
