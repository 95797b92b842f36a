//! Verilog-2001 text for the processors: the building blocks (S-boxes,
//! rounds, key expansion) and the tops. Every function here is pure: the same
//! variant gives the same text.

pub mod blocks;
pub mod processor;
pub mod sbox;
mod wide_keys;

/// A Verilog source under construction.
#[derive(Default)]
pub(crate) struct Src(String);

impl Src {
    /// Append one line.
    pub(crate) fn line(&mut self, s: impl AsRef<str>) {
        self.0.push_str(s.as_ref());
        self.0.push('\n');
    }

    /// Append several lines (a block of text, each line kept).
    pub(crate) fn text(&mut self, s: &str) {
        for l in s.lines() {
            self.line(l);
        }
    }

    /// The text.
    pub(crate) fn finish(self) -> String {
        self.0
    }
}

/// Bits `i` of byte `b` of a 128-bit vector whose byte 0 is the most
/// significant (FIPS-197's order: the hex string read left to right).
pub(crate) fn byte(v: &str, b: usize) -> String {
    format!("{v}[{}:{}]", 127 - 8 * b, 120 - 8 * b)
}

/// `a ^ b ^ …` of the given terms, or `1'b0` for none.
pub(crate) fn xor(terms: &[String]) -> String {
    if terms.is_empty() {
        "1'b0".into()
    } else {
        terms.join(" ^ ")
    }
}
