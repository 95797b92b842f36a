//! The one-pass scan of plain XML documents into a [`Dom`] (see the
//! parent module for what "plain" admits; anything else returns `None`).

use super::*;
/// An open element during the scan.
struct Open<'a> {
    id: u32,
    last_child: u32,
    qname: &'a str,
    /// Namespace prefixes declared by its start tag.
    prefixes: usize,
}

pub(super) struct Scanner<'a> {
    pub(super) xml: &'a str,
    pub(super) b: &'a [u8],
    pub(super) i: usize,
    /// XML nodes the full parser would create, at least (the document
    /// node, elements, text runs, comments).
    pub(super) nodes: u64,
}

/// [`BYTE`] flag: may continue an ASCII name.
const NAME: u8 = 1;
/// [`BYTE`] flag: needs a look inside an attribute value (a quote, `<`,
/// `&`, a control character, or the first byte of U+FFFE and U+FFFF).
const STOP: u8 = 2;

/// [`BYTE`] flag: needs a look inside character data (`<`, `&`, `>`, a
/// control character other than whitespace, or the first byte of U+FFFE
/// and U+FFFF).
const TEXT: u8 = 4;

/// Classes of bytes for the scan.
const BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.') {
            t[c] |= NAME;
        }
        if b < 0x20 || matches!(b, b'"' | b'\'' | b'<' | b'&' | 0xEF) {
            t[c] |= STOP;
        }
        if (b < 0x20 && !is_space(b)) || matches!(b, b'<' | b'&' | b'>' | 0xEF) {
            t[c] |= TEXT;
        }
        c += 1;
    }
    t
};

const fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// U+FFFE or U+FFFF (not XML characters) starting at `b[k]`.
fn is_non_char(b: &[u8], k: usize) -> bool {
    b[k] == 0xEF && b.get(k + 1) == Some(&0xBF) && matches!(b.get(k + 2), Some(0xBE | 0xBF))
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, s: &[u8]) -> bool {
        let ok = self.b[self.i..].starts_with(s);
        if ok {
            self.i += s.len();
        }
        ok
    }

    /// Skips whitespace; whether there was any.
    fn spaces(&mut self) -> bool {
        let n = self.b[self.i..]
            .iter()
            .position(|&c| !is_space(c))
            .unwrap_or(self.b.len() - self.i);
        self.i += n;
        n > 0
    }

    /// An ASCII XML name (`[A-Za-z_][A-Za-z0-9._-]*`).
    fn name(&mut self) -> Option<&'a str> {
        let from = self.i;
        if !self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        {
            return None;
        }
        self.i = self.b[from + 1..]
            .iter()
            .position(|&c| BYTE[c as usize] & NAME == 0)
            .map_or(self.b.len(), |k| from + 1 + k);
        Some(&self.xml[from..self.i])
    }

    /// A name with an optional prefix: (prefix, local name, whole name).
    fn qname(&mut self) -> Option<(Option<&'a str>, &'a str, &'a str)> {
        let from = self.i;
        let first = self.name()?;
        if self.eat(b":") {
            let local = self.name()?;
            Some((Some(first), local, &self.xml[from..self.i]))
        } else {
            Some((None, first, first))
        }
    }

    /// A quoted attribute value without references, `<`, control
    /// characters or non-characters (which the parser would normalise or
    /// refuse).
    fn value(&mut self) -> Option<&'a str> {
        let q = self.peek().filter(|&c| c == b'"' || c == b'\'')?;
        let (b, from) = (self.b, self.i + 1);
        let k = self.until(from, STOP, |k| match b[k] {
            c if c == q => Some(true),
            b'"' | b'\'' => Some(false),
            0xEF if !is_non_char(b, k) => Some(false),
            _ => None,
        })?;
        self.i = k + 1;
        Some(&self.xml[from..k])
    }

    /// The first position from `k` on of a byte with `flag` in [`BYTE`]
    /// that `end` takes for the end (`Some(true)`; `Some(false)`: go on,
    /// `None`: refuse the document).
    fn until(&self, mut k: usize, flag: u8, end: impl Fn(usize) -> Option<bool>) -> Option<usize> {
        loop {
            k += self.b[k..]
                .iter()
                .position(|&c| BYTE[c as usize] & flag != 0)?;
            if end(k)? {
                return Some(k);
            }
            k += 1;
        }
    }

    /// Character data up to the next `<`, without references, control
    /// characters, non-characters or `]]>`.
    fn text(&mut self) -> Option<()> {
        let (b, from) = (self.b, self.i);
        let k = self.until(from, TEXT, |k| match b[k] {
            b'<' => Some(true),
            b'>' => (k < from + 2 || &b[k - 2..k] != b"]]").then_some(false),
            0xEF if !is_non_char(b, k) => Some(false),
            _ => None,
        })?;
        self.i = k;
        self.nodes += u64::from(k > from);
        Some(())
    }

    /// A comment starting at `self.i` (`<!--` already checked).
    fn comment(&mut self) -> Option<()> {
        self.i += 4;
        let from = self.i;
        loop {
            let c = self.peek()?;
            if c == b'-' && self.b.get(self.i + 1) == Some(&b'-') {
                // `--` only as the end, and the text not ending in `-`
                if self.b.get(self.i + 2) != Some(&b'>')
                    || (self.i > from && self.b[self.i - 1] == b'-')
                {
                    return None;
                }
                self.i += 3;
                self.nodes += 1;
                return Some(());
            }
            if (c < 0x20 && !is_space(c)) || is_non_char(self.b, self.i) {
                return None;
            }
            self.i += 1;
        }
    }

    /// Whitespace and comments (outside the root element).
    fn misc(&mut self) -> Option<()> {
        loop {
            self.spaces();
            if self.b[self.i..].starts_with(b"<!--") {
                self.comment()?;
            } else {
                return Some(());
            }
        }
    }

    /// `<?xml version=".." encoding=".." standalone=".."?>` with plain
    /// values (the first two optional parts may be left out).
    fn declaration(&mut self) -> Option<()> {
        self.i += 5;
        let mut first = true;
        for key in [&b"version"[..], b"encoding", b"standalone"] {
            let mark = self.i;
            if !self.spaces() {
                break;
            }
            if !self.eat(key) {
                if first {
                    return None;
                }
                self.i = mark;
                continue;
            }
            first = false;
            self.spaces();
            if !self.eat(b"=") {
                return None;
            }
            self.spaces();
            let v = self.value()?;
            if !v
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
            {
                return None;
            }
        }
        if first {
            return None;
        }
        self.spaces();
        self.eat(b"?>").then_some(())
    }

    pub(super) fn document(mut self, max_depth: usize, max_nodes: u32) -> Option<Dom<'a>> {
        self.eat(&[0xEF, 0xBB, 0xBF]);
        if self.b[self.i..].starts_with(b"<?xml ") {
            self.declaration()?;
        }
        self.misc()?;
        // at most one element per `<` and one attribute per `=`
        let (lt, eq) = self.b.chunks(255).fold((0, 0), |(lt, eq), chunk| {
            let (mut x, mut y) = (0u8, 0u8);
            for &c in chunk {
                x += u8::from(c == b'<');
                y += u8::from(c == b'=');
            }
            (lt + usize::from(x), eq + usize::from(y))
        });
        let mut dom = Dom::new(self.xml, lt, eq);
        let mut open: Vec<Open<'a>> = Vec::new();
        let mut prefixes: Vec<&'a str> = Vec::new();
        let mut tag: Vec<(Option<&'a str>, &'a str, &'a str)> = Vec::new();
        loop {
            if !open.is_empty() {
                self.text()?;
            }
            if self.peek() != Some(b'<') {
                return None;
            }
            match self.b.get(self.i + 1) {
                Some(b'/') => {
                    self.i += 2;
                    let (_, _, qname) = self.qname()?;
                    self.spaces();
                    let top = open.pop()?;
                    if !self.eat(b">") || qname != top.qname {
                        return None;
                    }
                    prefixes.truncate(prefixes.len() - top.prefixes);
                    if open.is_empty() {
                        break;
                    }
                }
                Some(b'!') if self.b[self.i..].starts_with(b"<!--") => self.comment()?,
                Some(b'!' | b'?') | None => return None,
                Some(_) => {
                    let pos = self.i;
                    self.i += 1;
                    let (prefix, name, qname) = self.qname()?;
                    if prefix.is_some() {
                        return None;
                    }
                    let empty = self.start_tag(&mut tag)?;
                    let declared = prefixes.len();
                    let from = dom.attrs.len();
                    for &(p, local, v) in &tag {
                        match p {
                            None if local == "xmlns" => {
                                if v == XML_URI || v == XMLNS_URI {
                                    return None;
                                }
                            }
                            None => {
                                let kv = (dom.span(local), dom.span(v));
                                dom.attrs.push(kv);
                            }
                            Some("xmlns") => {
                                if matches!(local, "xml" | "xmlns")
                                    || v.is_empty()
                                    || v == XML_URI
                                    || v == XMLNS_URI
                                {
                                    return None;
                                }
                                prefixes.push(local);
                            }
                            Some(_) => {}
                        }
                    }
                    // every other prefix must be declared
                    let known = |p: &str| p == "xml" || prefixes.contains(&p);
                    if tag
                        .iter()
                        .any(|&(p, _, _)| p.is_some_and(|p| p != "xmlns" && !known(p)))
                    {
                        return None;
                    }
                    self.nodes += 1;
                    let name = dom.span(name);
                    let id = dom.push(name, pos, from);
                    if let Some(parent) = open.last_mut() {
                        dom.link(parent.id, &mut parent.last_child, id);
                    }
                    let opened = Open {
                        id,
                        last_child: NONE,
                        qname,
                        prefixes: prefixes.len() - declared,
                    };
                    if !empty {
                        open.push(opened);
                        if open.len() > max_depth {
                            return None;
                        }
                    } else if open.is_empty() {
                        break;
                    } else {
                        prefixes.truncate(declared);
                    }
                }
            }
        }
        self.misc()?;
        (self.i == self.b.len() && self.nodes <= u64::from(max_nodes)).then_some(dom)
    }

    /// The attributes of a start tag (its name already read) into `tag` as
    /// (prefix, local name, value), up to its end; whether the element is
    /// empty (`/>`). Refuses two attributes with one local name, prefixed
    /// or not, so that the parser's duplicate checks never apply, and more
    /// than 64 attributes.
    fn start_tag(&mut self, tag: &mut Vec<(Option<&'a str>, &'a str, &'a str)>) -> Option<bool> {
        tag.clear();
        loop {
            let spaced = self.spaces();
            match self.peek()? {
                b'>' => {
                    self.i += 1;
                    return Some(false);
                }
                b'/' => {
                    self.i += 1;
                    return self.eat(b">").then_some(true);
                }
                _ if !spaced || tag.len() >= 64 => return None,
                _ => {}
            }
            let (p, local, _) = self.qname()?;
            self.spaces();
            if !self.eat(b"=") {
                return None;
            }
            self.spaces();
            let v = self.value()?;
            // (the first byte first: most names differ there)
            if tag
                .iter()
                .any(|&(_, l, _)| l.as_bytes()[0] == local.as_bytes()[0] && l == local)
            {
                return None;
            }
            tag.push((p, local, v));
        }
    }
}

const XML_URI: &str = "http://www.w3.org/XML/1998/namespace";
const XMLNS_URI: &str = "http://www.w3.org/2000/xmlns/";
