//! A resume token's SHA-256 ([`TokenHash`]): what the relay keeps of a
//! token, in its resume store (`crate::resume`) and in a room's checkpoint
//! (`crate::rooms::checkpoint`), so that a seat can be carried to another
//! relay without its secret.

use sha2::{Digest, Sha256};
use sim::protocol::ResumeToken;

/// A resume token's SHA-256: what the relay keeps of it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct TokenHash(pub(crate) [u8; 32]);

impl TokenHash {
    /// The hash of `token`.
    pub(crate) fn of(token: &ResumeToken) -> TokenHash {
        TokenHash(Sha256::digest(token.0).into())
    }
}

impl std::fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TokenHash({:02x}{:02x}…)", self.0[0], self.0[1])
    }
}

impl serde::Serialize for TokenHash {
    /// As 64 lower-case hex digits.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let hex: String = self.0.iter().map(|b| format!("{b:02x}")).collect();
        s.serialize_str(&hex)
    }
}

impl<'de> serde::Deserialize<'de> for TokenHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TokenHash, D::Error> {
        let hex = String::deserialize(d)?;
        let mut out = [0u8; 32];
        let ok = hex.len() == 64
            && hex.is_ascii()
            && out.iter_mut().enumerate().all(|(i, b)| {
                u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)
                    .map(|v| *b = v)
                    .is_ok()
            });
        ok.then_some(TokenHash(out))
            .ok_or_else(|| serde::de::Error::custom("a token hash is 64 hex digits"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_hash_goes_to_hex_and_back_and_nothing_else_parses() {
        let hash = TokenHash::of(&ResumeToken([7; 16]));
        let json = serde_json::to_string(&hash).unwrap();
        assert_eq!(json.len(), 66);
        assert_eq!(serde_json::from_str::<TokenHash>(&json).unwrap(), hash);
        for bad in [
            "\"00\"",
            &format!("\"{}\"", "g".repeat(64)),
            &format!("\"{}\"", "é".repeat(32)),
        ] {
            assert!(serde_json::from_str::<TokenHash>(bad).is_err(), "{bad}");
        }
    }
}
