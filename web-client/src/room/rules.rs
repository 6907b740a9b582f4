//! The page's decisions about a shared room, pure (tested natively): which
//! names join a room, whom F aims at, which shot the Replayed panel shows
//! (◀ ▶ and the shot log), a shot's verdict in words, and the ammo
//! counter's upward jumps.

use sim::room::ammo::{AmmoCause, AmmoChange};
use sim::room::shots::{ShotRecord, ShotViews};
use sim::room::weapon::RejectReason;
use sim::room::wire::Verdict;
use sim::room::{PlayerId, Seq};
use sim::Vec2;

/// Longest room name, characters (the relay's `ROOM_ID_MAX`).
pub const ROOM_NAME_MAX: usize = 64;

/// A shared room's name as typed, trimmed, or why it cannot be one: 1 to
/// [`ROOM_NAME_MAX`] of `A–Z a–z 0–9 - _` (what the relay and its proxy
/// accept), and not a page's private id (`p-…`).
///
/// # Errors
/// The reason, for the note under the field.
pub fn room_name(typed: &str) -> Result<String, &'static str> {
    let name = typed.trim();
    if name.is_empty() {
        return Err("type a room name");
    }
    if name.len() > ROOM_NAME_MAX
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err("1–64 of A–Z a–z 0–9 - _");
    }
    if name.starts_with("p-") {
        return Err("names starting with p- are private sessions");
    }
    Ok(name.to_owned())
}

/// Whom F aims at: the other character drawn nearest to `me` (cm), and
/// where it is drawn.
pub fn nearest(me: Vec2, others: impl Iterator<Item = (PlayerId, Vec2)>) -> Option<Vec2> {
    others
        .map(|(_, at)| ((at - me).length_squared(), at))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, at)| at)
}

pub use crate::inspector::lane_paint::Outcome;

/// How `shot` ended.
pub fn outcome(shot: &ShotRecord) -> Outcome {
    Outcome::of(shot.result.map(|r| r.verdict))
}

/// A verdict in words: `hit head`, `miss`, `rejected: too old`, …
/// ([`Verdict::text`]).
pub fn verdict_text(verdict: Verdict) -> &'static str {
    verdict.text()
}

/// One line of the shot log: `#7 hit head · 183 ms` (the shot's number,
/// `ShotRecord::number`, and the server's rewind), with what the shooter's
/// own trace said when it differs.
pub fn shot_line(shot: &ShotRecord) -> String {
    let Some(r) = shot.result else {
        return format!("#{} …", shot.number);
    };
    let mut line = format!("#{} {}", shot.number, verdict_text(r.verdict));
    if matches!(
        r.verdict,
        Verdict::HitHead | Verdict::HitBody | Verdict::Miss
    ) {
        line.push_str(&format!(" · {} ms", r.rewind_ms));
    }
    let saw_hit = shot.local_hit.is_some();
    if saw_hit != r.verdict.is_hit() && r.verdict != Verdict::Rejected(RejectReason::FireRate) {
        line.push_str(if saw_hit {
            " (you saw a hit)"
        } else {
            " (you saw a miss)"
        });
    }
    line
}

/// A shot's four views in words, how far apart (cm): 1 you saw → 3
/// tested, what the shooter drew against what the server tested (to the
/// millimetre: the server rebuilds the boxes where they were drawn, so it
/// reads 0.0 cm); 3→2, how far the target has moved since; 3→4, where its
/// own player saw it — farther than its body radius, it was hit "around
/// the corner" on their screen.
pub fn views_line(views: Option<ShotViews>) -> String {
    let Some(v) = views else {
        return "no one judged: the ray and the others as you saw them".to_owned();
    };
    let cm = |a: Vec2, b: Vec2| (a - b).length();
    let saw = v.shooter_saw.map_or("1 not drawn".to_owned(), |p| {
        format!("1 you saw → 3 tested {:.1} cm", cm(p, v.tested))
    });
    let around = cm(v.target_saw, v.tested);
    format!(
        "{saw} · 3→2 {:.0} cm · 3→4 {around:.0} cm{}",
        cm(v.tested, v.server_now),
        if around > CHARACTER_RADIUS_CM {
            ": around the corner"
        } else {
            ""
        }
    )
}

/// A character's body radius, cm (the hit boxes' body circle).
const CHARACTER_RADIUS_CM: f32 = crate::canvas::arena::CHARACTER_RADIUS_CM;

/// Hits, judged and rejected shots among `shots`.
pub fn tally<'a>(shots: impl Iterator<Item = &'a ShotRecord>) -> (usize, usize, usize) {
    shots.fold((0, 0, 0), |(hit, judged, rejected), s| match outcome(s) {
        Outcome::Hit => (hit + 1, judged + 1, rejected),
        Outcome::Miss => (hit, judged + 1, rejected),
        Outcome::Rejected => (hit, judged, rejected + 1),
        Outcome::Pending => (hit, judged, rejected),
    })
}

/// Server updates that moved the counter up: the naive counter's
/// 11 → 9 → 10 → 9 (a reload finishing is not one).
pub fn upward_jumps<'a>(changes: impl Iterator<Item = &'a AmmoChange>) -> usize {
    changes
        .filter(|c| c.cause == AmmoCause::Server && c.to > c.from)
        .count()
}

/// Which shot the Replayed panel shows: the newest (following new ones),
/// or one picked with ◀ ▶ or from the log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShotCursor {
    picked: Option<Seq>,
}

impl ShotCursor {
    /// The shot shown among `seqs` (oldest first): the picked one while it
    /// is kept, else the newest.
    pub fn shown(&self, seqs: &[Seq]) -> Option<Seq> {
        self.picked
            .filter(|p| seqs.contains(p))
            .or_else(|| seqs.last().copied())
    }

    /// Whether new shots are followed.
    pub fn follows_newest(&self) -> bool {
        self.picked.is_none()
    }

    /// Shows `seq` (a click in the log).
    pub fn pick(&mut self, seq: Seq) {
        self.picked = Some(seq);
    }

    /// ◀: the shot before the one shown.
    pub fn older(&mut self, seqs: &[Seq]) {
        if let Some(i) = self
            .shown(seqs)
            .and_then(|s| seqs.iter().position(|&x| x == s))
        {
            self.picked = Some(seqs[i.saturating_sub(1)]);
        }
    }

    /// ▶: the shot after the one shown; past the newest, follow new ones.
    pub fn newer(&mut self, seqs: &[Seq]) {
        let next = self
            .shown(seqs)
            .and_then(|s| seqs.iter().position(|&x| x == s))
            .and_then(|i| seqs.get(i + 1).copied());
        self.picked = next.filter(|&n| Some(n) != seqs.last().copied());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::room::hitbox::Ray;
    use sim::room::shots::LocalHit;
    use sim::room::wire::ShotResult;
    use sim::SimTime;

    #[test]
    fn room_names_are_plain_and_never_private() {
        assert_eq!(room_name("  lobby_2 "), Ok("lobby_2".into()));
        assert_eq!(room_name(""), Err("type a room name"));
        assert_eq!(room_name("a b"), Err("1–64 of A–Z a–z 0–9 - _"));
        assert_eq!(room_name(&"x".repeat(65)), Err("1–64 of A–Z a–z 0–9 - _"));
        assert_eq!(
            room_name("p-0123"),
            Err("names starting with p- are private sessions")
        );
        assert!(room_name("P-caps").is_ok());
    }

    #[test]
    fn f_aims_at_the_nearest_character_drawn() {
        let others = [
            (PlayerId(2), Vec2::new(900.0, 100.0)),
            (PlayerId(3), Vec2::new(150.0, 120.0)),
        ];
        assert_eq!(
            nearest(Vec2::new(100.0, 100.0), others.into_iter()),
            Some(Vec2::new(150.0, 120.0))
        );
        assert_eq!(nearest(Vec2::ZERO, std::iter::empty()), None);
    }

    fn shot(seq: u32, verdict: Option<Verdict>, saw_hit: bool) -> ShotRecord {
        ShotRecord {
            seq: Seq(seq),
            number: seq,
            fired_at: SimTime::ZERO,
            hit_time: SimTime::ZERO,
            ray: Ray {
                origin: Vec2::ZERO,
                direction: Vec2::new(1.0, 0.0),
                length: 100.0,
            },
            saw: Vec::new(),
            local_hit: saw_hit.then_some(LocalHit {
                id: PlayerId(2),
                zone: sim::room::hitbox::HitZone::Body,
            }),
            result: verdict.map(|verdict| ShotResult {
                seq: Seq(seq),
                verdict,
                rewind_ms: 183,
                target: None,
            }),
        }
    }

    #[test]
    fn the_log_says_the_verdict_the_rewind_and_a_disagreement() {
        assert_eq!(shot_line(&shot(7, None, true)), "#7 …");
        assert_eq!(
            shot_line(&shot(7, Some(Verdict::HitHead), true)),
            "#7 hit head · 183 ms"
        );
        assert_eq!(
            shot_line(&shot(8, Some(Verdict::Miss), true)),
            "#8 miss · 183 ms (you saw a hit)"
        );
        assert_eq!(
            shot_line(&shot(
                9,
                Some(Verdict::Rejected(RejectReason::TooOld)),
                true
            )),
            "#9 rejected: too old (you saw a hit)"
        );
        let shots = [
            shot(1, Some(Verdict::HitBody), true),
            shot(2, Some(Verdict::Miss), false),
            shot(3, Some(Verdict::Rejected(RejectReason::FireRate)), false),
            shot(4, None, false),
        ];
        assert_eq!(tally(shots.iter()), (1, 2, 1));
        assert_eq!(outcome(&shots[3]).name(), "pending");
    }

    #[test]
    fn the_four_views_in_words_say_how_far_apart_they_are() {
        let v = |target_saw: Vec2| ShotViews {
            id: PlayerId(2),
            shooter_saw: Some(Vec2::new(100.0, 0.0)),
            server_now: Vec2::new(179.0, 0.0),
            tested: Vec2::new(103.0, 4.0),
            target_saw,
        };
        assert_eq!(
            views_line(Some(v(Vec2::new(103.0, 4.0)))),
            "1 you saw → 3 tested 5.0 cm · 3→2 76 cm · 3→4 0 cm"
        );
        assert_eq!(
            views_line(Some(v(Vec2::new(203.0, 4.0)))),
            "1 you saw → 3 tested 5.0 cm · 3→2 76 cm · 3→4 100 cm: around the corner"
        );
    }

    #[test]
    fn only_server_updates_moving_the_counter_up_are_jumps() {
        let c = |from, to, cause| AmmoChange {
            at: SimTime::ZERO,
            from,
            to,
            cause,
        };
        let naive = [
            c(11, 10, AmmoCause::Fire),
            c(10, 9, AmmoCause::Fire),
            c(9, 10, AmmoCause::Server),
            c(10, 9, AmmoCause::Server),
            c(0, 30, AmmoCause::Reload),
        ];
        assert_eq!(upward_jumps(naive.iter()), 1);
    }

    #[test]
    fn the_cursor_follows_new_shots_until_one_is_picked() {
        let seqs = [Seq(1), Seq(2), Seq(3)];
        let mut c = ShotCursor::default();
        assert_eq!(c.shown(&seqs), Some(Seq(3)));
        c.older(&seqs);
        c.older(&seqs);
        assert_eq!(c.shown(&seqs), Some(Seq(1)));
        c.older(&seqs);
        assert_eq!(c.shown(&seqs), Some(Seq(1)), "stays at the oldest");
        c.newer(&seqs);
        assert_eq!((c.shown(&seqs), c.follows_newest()), (Some(Seq(2)), false));
        c.newer(&seqs);
        assert!(c.follows_newest(), "past the newest: follow");
        assert_eq!(c.shown(&[Seq(1), Seq(2), Seq(3), Seq(4)]), Some(Seq(4)));
        c.pick(Seq(2));
        // A picked shot no longer kept: the newest again.
        assert_eq!(c.shown(&[Seq(3), Seq(4)]), Some(Seq(4)));
        assert_eq!(ShotCursor::default().shown(&[]), None);
    }
}
