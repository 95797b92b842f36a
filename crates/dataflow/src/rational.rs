//! A small exact non-negative rational number type used for periods and
//! cycle ratios.

use std::cmp::Ordering;
use std::fmt;

/// Greatest common divisor on `u128` (Stein's binary algorithm: shifts and
/// subtractions, no 128-bit division).
pub(crate) fn gcd(mut a: u128, mut b: u128) -> u128 {
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// A non-negative rational number `numer / denom`, always kept in lowest
/// terms with `denom > 0`.
///
/// Used for exact periods (cycles per iteration): a period is the ratio of
/// a sum of execution times to a sum of tokens on a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rational {
    numer: u128,
    denom: u128,
}

impl Rational {
    /// Zero.
    pub const ZERO: Rational = Rational { numer: 0, denom: 1 };

    /// Creates `numer / denom` in lowest terms.
    ///
    /// # Panics
    /// Panics if `denom == 0`.
    pub fn new(numer: u128, denom: u128) -> Self {
        assert!(denom != 0, "Rational with zero denominator");
        let g = gcd(numer, denom);
        Rational {
            numer: numer / g,
            denom: denom / g,
        }
    }

    /// An integer as a rational.
    pub const fn from_integer(n: u128) -> Self {
        Rational { numer: n, denom: 1 }
    }

    /// Numerator (lowest terms).
    pub fn numer(&self) -> u128 {
        self.numer
    }

    /// Denominator (lowest terms, > 0).
    pub fn denom(&self) -> u128 {
        self.denom
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.numer == 0
    }

    /// Whether the value is an integer.
    pub fn is_integer(&self) -> bool {
        self.denom == 1
    }

    /// Approximate value as `f64`.
    pub fn to_f64(&self) -> f64 {
        self.numer as f64 / self.denom as f64
    }

    /// The reciprocal, or `None` for zero.
    pub fn recip(&self) -> Option<Rational> {
        if self.numer == 0 {
            None
        } else {
            Some(Rational {
                numer: self.denom,
                denom: self.numer,
            })
        }
    }
}

impl Ord for Rational {
    /// Exact comparison (cross products in 256-bit arithmetic).
    fn cmp(&self, other: &Self) -> Ordering {
        mul_wide(self.numer, other.denom).cmp(&mul_wide(other.numer, self.denom))
    }
}

/// The full 256-bit product of two `u128`, as `(high, low)` halves.
pub(crate) fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    const M: u128 = u64::MAX as u128;
    let (a1, a0) = (a >> 64, a & M);
    let (b1, b0) = (b >> 64, b & M);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & M) + (p10 & M);
    let lo = (p00 & M) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Serialised as its exact decimal text, `"a"` or `"a/b"` (JSON numbers
/// cannot hold 128-bit values exactly).
impl serde::Serialize for Rational {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.denom == 1 {
            write!(f, "{}", self.numer)
        } else {
            write!(f, "{}/{}", self.numer, self.denom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduces_and_orders() {
        let a = Rational::new(6, 4);
        assert_eq!((a.numer(), a.denom()), (3, 2));
        assert!(Rational::new(1, 3) < Rational::new(1, 2));
        assert_eq!(Rational::new(2, 2), Rational::from_integer(1));
        assert_eq!(a.to_string(), "3/2");
        assert_eq!(Rational::new(8, 4).to_string(), "2");
        assert_eq!(Rational::ZERO.recip(), None);
        assert_eq!(a.recip(), Some(Rational::new(2, 3)));
    }

    #[test]
    fn binary_gcd() {
        assert_eq!(gcd(0, 0), 0);
        assert_eq!(gcd(0, 7), 7);
        assert_eq!(gcd(12, 18), 6);
        assert_eq!(gcd(1 << 100, 3 << 90), 1 << 90);
        assert_eq!(gcd(u128::MAX, u128::MAX - 1), 1);
    }

    #[test]
    fn exact_order_of_huge_values() {
        let big = u128::MAX;
        // (2^128-1)/(2^128-2) > (2^128-2)/(2^128-3): f64 cannot tell them apart
        let x = Rational::new(big, big - 1);
        let y = Rational::new(big - 1, big - 2);
        assert!(x < y);
        assert_eq!(mul_wide(big, big), (big - 1, 1));
        assert_eq!(mul_wide(1 << 64, 1 << 64), (1, 0));
    }
}
