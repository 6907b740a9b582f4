//! The packed wire layout of a [`ServerMove`] — like UE's
//! `ServerMovePacked` (`000_…` §3.4), which packs the moves of one send
//! into a bit stream instead of one RPC argument each.
//!
//! ```text
//! header  u8      bit 0: old move follows · bit 1: pending move follows
//!                 bits 2–3: the new move's flags (0–2; 3 = a flag byte follows)
//!                 bits 4–7: the packet's sequence number (0–15)
//! [old]           time stamp (varint ms) · accel x, y (i16 LE each) · flags u8
//! [pending]       the same
//! new             time stamp (varint ms) · accel x, y (i16 LE each) · [flags u8 if 3]
//! location        x, y (zigzag varints, 1/100 cm)
//! ```
//!
//! Against postcard's derived layout this drops the two option tags and
//! the new move's flag byte into the header, and writes each acceleration
//! component in 2 bytes where a varint needs 3 for anything over 1/4 of
//! full scale: a typical new move is 15 bytes of body.

use super::moves::{NetPosition, NetworkMove, ServerMove};
use crate::foundation::movement::{MoveFlags, MoveInput};
use crate::foundation::time::TimeStamp;
use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

const HAS_OLD: u8 = 0b01;
const HAS_PENDING: u8 = 0b10;
/// Header value of the new move's flags meaning "a flag byte follows".
const FLAGS_ESCAPE: u8 = 3;
/// Shift of the new move's flags in the header.
const FLAGS_SHIFT: u8 = 2;
/// Shift of the sequence number in the header.
const SEQ_SHIFT: u8 = 4;
/// Most tuple elements a packed ServerMove has (header, 2 × 4, 4, 1).
const MAX_ELEMENTS: usize = 14;

fn put_move<T: SerializeTuple>(t: &mut T, m: &NetworkMove) -> Result<(), T::Error> {
    t.serialize_element(&m.time_stamp.0)?;
    t.serialize_element(&m.input.accel_x.to_le_bytes())?;
    t.serialize_element(&m.input.accel_y.to_le_bytes())
}

impl Serialize for ServerMove {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let new_flags = self.new_move.input.flags.0;
        let in_header = new_flags.min(FLAGS_ESCAPE);
        let mut header =
            in_header << FLAGS_SHIFT | (self.seq % ServerMove::SEQ_MODULUS) << SEQ_SHIFT;
        if self.old_move.is_some() {
            header |= HAS_OLD;
        }
        if self.pending_move.is_some() {
            header |= HAS_PENDING;
        }
        let mut t = s.serialize_tuple(MAX_ELEMENTS)?;
        t.serialize_element(&header)?;
        for m in [&self.old_move, &self.pending_move].into_iter().flatten() {
            put_move(&mut t, m)?;
            t.serialize_element(&m.input.flags.0)?;
        }
        put_move(&mut t, &self.new_move)?;
        if in_header == FLAGS_ESCAPE {
            t.serialize_element(&new_flags)?;
        }
        t.serialize_element(&self.client_location)?;
        t.end()
    }
}

struct PackedVisitor;

fn next<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(seq: &mut A) -> Result<T, A::Error> {
    seq.next_element()?
        .ok_or_else(|| de::Error::custom("packed ServerMove is truncated"))
}

/// Reads a move's time stamp and acceleration; the caller supplies flags.
fn get_move<'de, A: SeqAccess<'de>>(
    seq: &mut A,
    flags: Option<u8>,
) -> Result<NetworkMove, A::Error> {
    let time_stamp = TimeStamp(next(seq)?);
    let accel_x = i16::from_le_bytes(next(seq)?);
    let accel_y = i16::from_le_bytes(next(seq)?);
    let flags = match flags {
        Some(f) => f,
        None => next(seq)?,
    };
    Ok(NetworkMove {
        time_stamp,
        input: MoveInput {
            accel_x,
            accel_y,
            flags: MoveFlags(flags),
        },
    })
}

impl<'de> Visitor<'de> for PackedVisitor {
    type Value = ServerMove;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a packed ServerMove")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ServerMove, A::Error> {
        let header: u8 = next(&mut seq)?;
        let old_move = if header & HAS_OLD != 0 {
            Some(get_move(&mut seq, None)?)
        } else {
            None
        };
        let pending_move = if header & HAS_PENDING != 0 {
            Some(get_move(&mut seq, None)?)
        } else {
            None
        };
        let in_header = header >> FLAGS_SHIFT & FLAGS_ESCAPE;
        let mut new_move = get_move(&mut seq, Some(in_header))?;
        if in_header == FLAGS_ESCAPE {
            new_move.input.flags = MoveFlags(next(&mut seq)?);
        }
        let client_location: NetPosition = next(&mut seq)?;
        Ok(ServerMove {
            old_move,
            pending_move,
            new_move,
            client_location,
            seq: header >> SEQ_SHIFT,
        })
    }
}

impl<'de> Deserialize<'de> for ServerMove {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ServerMove, D::Error> {
        d.deserialize_tuple(MAX_ELEMENTS, PackedVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn any_move() -> impl Strategy<Value = NetworkMove> {
        (any::<u32>(), any::<i16>(), any::<i16>(), any::<u8>()).prop_map(|(ts, x, y, f)| {
            NetworkMove {
                time_stamp: TimeStamp(ts),
                input: MoveInput {
                    accel_x: x,
                    accel_y: y,
                    flags: MoveFlags(f),
                },
            }
        })
    }

    proptest! {
        /// Every ServerMove, with or without old and pending moves and with
        /// any flag byte, comes back equal.
        #[test]
        fn packed_round_trip(
            old in proptest::option::of(any_move()),
            pending in proptest::option::of(any_move()),
            new in any_move(),
            x in any::<i32>(),
            y in any::<i32>(),
            seq in 0..ServerMove::SEQ_MODULUS,
        ) {
            let m = ServerMove { old_move: old, pending_move: pending, new_move: new, client_location: NetPosition { x, y }, seq };
            let bytes = postcard::to_allocvec(&m).unwrap();
            prop_assert_eq!(postcard::from_bytes::<ServerMove>(&bytes).unwrap(), m);
        }
    }

    #[test]
    fn header_carries_options_and_small_flags() {
        let mv = |flags| NetworkMove {
            time_stamp: TimeStamp(1),
            input: MoveInput {
                accel_x: 0,
                accel_y: 0,
                flags: MoveFlags(flags),
            },
        };
        let m = ServerMove {
            old_move: Some(mv(0)),
            pending_move: None,
            new_move: mv(MoveFlags::DASH),
            client_location: NetPosition::default(),
            seq: 9,
        };
        let bytes = postcard::to_allocvec(&m).unwrap();
        assert_eq!(bytes[0], 0b1001_0101);
        // header + old (1 + 2 + 2 + 1) + new (1 + 2 + 2) + location (1 + 1).
        assert_eq!(bytes.len(), 14);
        let big = ServerMove {
            new_move: mv(200),
            ..m
        };
        let bytes = postcard::to_allocvec(&big).unwrap();
        assert_eq!(bytes[0] >> FLAGS_SHIFT & FLAGS_ESCAPE, FLAGS_ESCAPE);
        assert_eq!(bytes.len(), 15);
    }
}
