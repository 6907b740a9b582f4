//! UE's `p.NetShowCorrections` / `p.NetCorrectionLifetime` on the panels:
//! when each of the server's corrections (the Authoritative panel's red
//! lines) was first seen ([`CorrectionAges`]), so only those younger than
//! the lifetime are drawn. Pure: tested natively.

use sim::{SimTime, Vec2};
use std::collections::VecDeque;

/// A correction as the observer view reports it: (server, client), cm.
type Line = (Vec2, Vec2);

/// The corrections last seen, each with when it was first seen.
#[derive(Debug, Clone, Default)]
pub struct CorrectionAges {
    seen: VecDeque<(Line, SimTime)>,
}

impl CorrectionAges {
    /// Takes the endpoint's corrections (oldest first, a bounded list that
    /// drops its oldest) at run time `now`: the ones it did not hold
    /// before are stamped `now`.
    pub fn update(&mut self, list: &VecDeque<Line>, now: SimTime) {
        // The longest tail of what was seen that the new list starts with.
        let overlap = (0..=self.seen.len().min(list.len()))
            .rev()
            .find(|&k| {
                self.seen
                    .iter()
                    .skip(self.seen.len() - k)
                    .zip(list.iter())
                    .all(|((a, _), b)| a == b)
            })
            .unwrap_or(0);
        let kept = self.seen.len() - overlap;
        self.seen.drain(..kept);
        self.seen
            .extend(list.iter().skip(overlap).map(|line| (*line, now)));
    }

    /// How many of the newest corrections to draw at `now`: none when
    /// hidden, those at most `lifetime_s` old, or all.
    pub fn drawn(&self, show: bool, lifetime_s: Option<f32>, now: SimTime) -> usize {
        match (show, lifetime_s) {
            (false, _) => 0,
            (true, None) => self.seen.len(),
            (true, Some(s)) => {
                let limit_us = (f64::from(s) * 1e6) as u64;
                self.seen
                    .iter()
                    .filter(|(_, at)| now.micros_since(*at) <= limit_us)
                    .count()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(i: i32) -> Line {
        (Vec2::new(i as f32, 0.0), Vec2::new(0.0, i as f32))
    }

    #[test]
    fn new_corrections_are_stamped_when_first_seen_and_expire_after_the_lifetime() {
        let mut ages = CorrectionAges::default();
        let mut list: VecDeque<Line> = [line(1), line(2)].into();
        ages.update(&list, SimTime::from_millis(1000));
        list.push_back(line(3));
        ages.update(&list, SimTime::from_millis(3000));
        // The list drops its oldest: the others keep their stamps.
        list.pop_front();
        list.push_back(line(4));
        ages.update(&list, SimTime::from_millis(4500));
        let at = SimTime::from_millis(5000);
        assert_eq!(ages.drawn(true, None, at), 3);
        assert_eq!(ages.drawn(true, Some(4.0), at), 3, "4 s, 2 s and 0.5 s old");
        assert_eq!(ages.drawn(true, Some(1.0), at), 1);
        assert_eq!(ages.drawn(false, None, at), 0);
        // The same list again adds nothing.
        ages.update(&list, SimTime::from_millis(9000));
        assert_eq!(ages.drawn(true, Some(1.0), SimTime::from_millis(9000)), 0);
    }

    #[test]
    fn a_cleared_list_starts_afresh() {
        let mut ages = CorrectionAges::default();
        ages.update(&[line(1), line(2)].into(), SimTime::ZERO);
        ages.update(&VecDeque::new(), SimTime::from_millis(10));
        assert_eq!(ages.drawn(true, None, SimTime::from_millis(10)), 0);
        ages.update(&[line(7)].into(), SimTime::from_millis(20));
        assert_eq!(ages.drawn(true, Some(0.0), SimTime::from_millis(20)), 1);
    }
}
