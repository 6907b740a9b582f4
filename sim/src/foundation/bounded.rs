//! [`Bounded`]: a log that keeps its newest `capacity` entries, oldest
//! first — the shape of every record the inspector keeps (packets, both
//! ends' moves, rollbacks).

use std::collections::VecDeque;

/// The newest `capacity` entries pushed, oldest first.
#[derive(Debug, Clone)]
pub struct Bounded<T> {
    items: VecDeque<T>,
    capacity: usize,
}

impl<T> Bounded<T> {
    /// An empty log keeping at most `capacity` entries (0 keeps none).
    pub fn new(capacity: usize) -> Bounded<T> {
        Bounded {
            items: VecDeque::new(),
            capacity,
        }
    }

    /// Appends `item`, dropping the oldest entry when full.
    pub fn push(&mut self, item: T) {
        if self.capacity == 0 {
            return;
        }
        if self.items.len() >= self.capacity {
            self.items.pop_front();
        }
        self.items.push_back(item);
    }

    /// Every entry kept, oldest first.
    pub fn items(&self) -> &VecDeque<T> {
        &self.items
    }

    /// Every entry kept, oldest first, to amend.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.items.iter_mut()
    }

    /// The newest entry, to amend.
    pub fn last_mut(&mut self) -> Option<&mut T> {
        self.items.back_mut()
    }

    /// Removes and returns the newest entry.
    pub fn pop_last(&mut self) -> Option<T> {
        self.items.pop_back()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_entries_oldest_first() {
        let mut log = Bounded::new(3);
        for i in 0..5 {
            log.push(i);
        }
        assert_eq!(log.items().iter().copied().collect::<Vec<_>>(), [2, 3, 4]);
        *log.last_mut().expect("entries") = 9;
        assert_eq!(log.pop_last(), Some(9));
        assert_eq!(log.items().len(), 2);
        let mut none = Bounded::new(0);
        none.push(1);
        assert!(none.items().is_empty());
    }
}
