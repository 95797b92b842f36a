//! A pre-parse scan that bounds the element nesting depth of an XML
//! document.
//!
//! XML parsers that build a tree recurse (or keep per-level state) for every
//! open element, so a document of a few hundred kilobytes nested tens of
//! thousands of levels deep can exhaust the stack before any semantic check
//! runs. SDF3 documents are six levels deep; this linear scan refuses a
//! document deeper than a limit before the parser sees it. It only needs to
//! recognise tags, comments, CDATA sections, processing instructions and
//! declarations; anything it cannot make sense of is left to the parser,
//! which reports it properly.

use crate::error::SdfError;

/// Returns an error if elements nest deeper than `limit`.
pub(crate) fn check_depth(xml: &str, limit: usize) -> Result<(), SdfError> {
    let b = xml.as_bytes();
    let mut depth = 0usize;
    let mut line = 1u32;
    let mut i = 0usize;
    let skip_to = |from: usize, pat: &[u8]| -> usize {
        b[from..]
            .windows(pat.len())
            .position(|w| w == pat)
            .map_or(b.len(), |p| from + p + pat.len())
    };
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'<' => {
                let rest = &b[i + 1..];
                let end = if rest.starts_with(b"!--") {
                    skip_to(i + 4, b"-->")
                } else if rest.starts_with(b"![CDATA[") {
                    skip_to(i + 9, b"]]>")
                } else if rest.starts_with(b"?") {
                    skip_to(i + 2, b"?>")
                } else if rest.starts_with(b"!") {
                    // <!DOCTYPE ...> with an optional [internal subset]
                    let close = skip_to(i + 2, b">");
                    match b[i..close.min(b.len())].iter().position(|&c| c == b'[') {
                        Some(_) => skip_to(i + 2, b"]>").max(close),
                        None => close,
                    }
                } else if rest.starts_with(b"/") {
                    depth = depth.saturating_sub(1);
                    skip_to(i + 1, b">")
                } else {
                    let end = tag_end(b, i + 1);
                    if end <= b.len() && b[end - 2] != b'/' {
                        depth += 1;
                        if depth > limit {
                            return Err(SdfError::XmlTooDeep { line, limit });
                        }
                    }
                    end
                };
                line += b[i..end.min(b.len())]
                    .iter()
                    .filter(|&&c| c == b'\n')
                    .count() as u32;
                i = end;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// Index just past the `>` closing a start tag that begins at `from`
/// (quoted attribute values may contain `>`); `b.len() + 1` if unclosed.
fn tag_end(b: &[u8], from: usize) -> usize {
    let mut quote: Option<u8> = None;
    for (k, &c) in b.iter().enumerate().skip(from) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'"' || c == b'\'' => quote = Some(c),
            None if c == b'>' => return k + 1,
            None => {}
        }
    }
    b.len() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_nesting_not_siblings() {
        let doc = "<?xml version='1.0'?><!-- <a><a> --><a x='>'><b/><b></b><![CDATA[<c><c>]]></a>";
        assert!(check_depth(doc, 2).is_ok());
        assert!(check_depth(doc, 1).is_err());
        let deep = "<a>".repeat(100) + &"</a>".repeat(100);
        assert!(check_depth(&deep, 100).is_ok());
        assert_eq!(
            check_depth(&deep, 99),
            Err(SdfError::XmlTooDeep { line: 1, limit: 99 })
        );
    }
}
