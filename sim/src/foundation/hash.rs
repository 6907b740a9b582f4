//! The one stable hasher of the crate: 64-bit FNV-1a over little-endian
//! bytes, with the standard offset basis and prime. State hashes,
//! trajectory hashes and fingerprints are compared across runs, machines
//! and targets (native vs wasm32), so they never use `std`'s per-process
//! randomly keyed hasher. Also the one map from a PRNG draw to `[0, 1)`.

/// FNV-1a 64-bit offset basis.
const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// A running FNV-1a hash. Start with [`Fnv64::new`], feed values in a fixed
/// order, read [`Fnv64::finish`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv64(u64);

impl Fnv64 {
    /// The empty hash (the offset basis).
    pub const fn new() -> Fnv64 {
        Fnv64(OFFSET_BASIS)
    }

    /// Continues from a hash read earlier with [`Fnv64::finish`].
    pub const fn resume(h: u64) -> Fnv64 {
        Fnv64(h)
    }

    /// Folds `bytes` in, in order.
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Fnv64 {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
        self
    }

    /// Folds a `u64` in as its 8 little-endian bytes.
    pub fn u64(&mut self, v: u64) -> &mut Fnv64 {
        self.bytes(&v.to_le_bytes())
    }

    /// Folds a `u32` in as its 4 little-endian bytes.
    pub fn u32(&mut self, v: u32) -> &mut Fnv64 {
        self.bytes(&v.to_le_bytes())
    }

    /// Folds an `f32` in by its exact bits (4 little-endian bytes).
    pub fn f32(&mut self, v: f32) -> &mut Fnv64 {
        self.u32(v.to_bits())
    }

    /// The hash so far.
    pub const fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64::new()
    }
}

/// Maps a uniform `u32` PRNG draw to `[0, 1)` (divides by 2³²): the one
/// roll every seeded decision in `sim` uses (loss, forced adjustment,
/// forced move loss).
pub fn unit(r: u32) -> f64 {
    f64::from(r) / 4_294_967_296.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_fnv1a_64_vectors() {
        // From the FNV reference test suite (isthe.com/chongo/tech/comp/fnv).
        assert_eq!(Fnv64::new().finish(), 0xcbf2_9ce4_8422_2325);
        assert_eq!(Fnv64::new().bytes(b"a").finish(), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            Fnv64::new().bytes(b"foobar").finish(),
            0x8594_4171_f739_67e8
        );
    }

    #[test]
    fn unit_covers_zero_to_just_below_one() {
        assert_eq!(unit(0), 0.0);
        assert_eq!(unit(1 << 31), 0.5);
        assert!(unit(u32::MAX) < 1.0);
    }
}
