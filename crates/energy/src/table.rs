//! The plain-text data tables vendored with the crate (`data/*.txt`): one
//! row a line, cells separated by `|`, lists of numbers separated by
//! spaces, `#` lines comments. The tables are part of the source: a
//! malformed one is a bug, caught by the tests that read it.

use std::str::FromStr;

/// The rows of `text`, each with its `N` cells trimmed.
pub(crate) fn rows<const N: usize>(text: &'static str) -> impl Iterator<Item = [&'static str; N]> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            cells
                .try_into()
                .unwrap_or_else(|c: Vec<&str>| panic!("{} cells, not {N}: {l}", c.len()))
        })
}

/// A number of a table.
pub(crate) fn num<T: FromStr>(cell: &str) -> T {
    cell.parse()
        .unwrap_or_else(|_| panic!("not a number in a data table: {cell:?}"))
}

/// A cell of `N` numbers separated by spaces.
pub(crate) fn nums<const N: usize>(cell: &str) -> [f64; N] {
    let v: Vec<f64> = cell.split_whitespace().map(num).collect();
    v.try_into()
        .unwrap_or_else(|_| panic!("not {N} numbers in a data table: {cell:?}"))
}
