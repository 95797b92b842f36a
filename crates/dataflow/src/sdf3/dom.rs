//! The element tree the SDF3 reader works on: elements (local names, the
//! attributes without a namespace, children in order, byte position of the
//! start tag) and nothing else.
//!
//! [`Dom::scan`] builds it in one pass straight from the text for the plain
//! XML that SDF3 and other tools write: text (which SDF3 graphs only have
//! in properties this reader ignores), comments, an XML declaration,
//! namespace declarations and prefixed attributes (`xsi:...`), but no
//! entity or character references, CDATA, DTD or processing instructions. It is strict: for anything else,
//! well-formed or not, it gives up and [`Dom::parse`] runs a full XML
//! parser (`roxmltree`), whose tree is converted into the same form. Both
//! give the same tree for a document the scan accepts (checked by the
//! tests below), so the reader sees the same elements whichever way the
//! document was read, and a malformed document always gets the full
//! parser's error message. The scan keeps no text nodes and borrows every
//! name and value from the input: on a graph of 10^5 actors it is several
//! times faster than building the full parser's tree and needs a fraction
//! of its memory.

use roxmltree::{Document, ParsingOptions};

use super::scan::check_depth;
use crate::error::SdfError;

const NONE: u32 = u32::MAX;

/// Longest document read, with the references the full parser expands.
const MAX_LEN: usize = u32::MAX as usize;

fn too_large(bytes: usize) -> SdfError {
    SdfError::Sdf3 {
        message: format!("the document has {bytes} bytes; at most {MAX_LEN} are read"),
        position: None,
    }
}

/// A string of the document: `len` bytes at offset `off` of the input or,
/// past its end, of [`Dom::extra`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    off: u32,
    len: u32,
}

/// One element (28 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Elem {
    name: Span,
    /// Byte offset of the `<` of the start tag.
    pos: u32,
    /// Range of this element's attributes in [`Dom::attrs`].
    attrs: (u32, u32),
    first_child: u32,
    next_sibling: u32,
}

/// The elements of a document; element 0 is the root element. Names and
/// values are offsets into the input, so that an element takes 28 bytes
/// and an attribute 16.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dom<'a> {
    xml: &'a str,
    /// Attribute values that are not in the input as they are (the full
    /// parser expands references in them).
    extra: String,
    elems: Vec<Elem>,
    /// (name, value) of the attributes without a namespace.
    attrs: Vec<(Span, Span)>,
}

/// An element of a [`Dom`].
#[derive(Clone, Copy)]
pub(crate) struct Node<'d> {
    dom: &'d Dom<'d>,
    id: u32,
}

impl<'d> Node<'d> {
    fn elem(self) -> &'d Elem {
        &self.dom.elems[self.id as usize]
    }

    /// The local name of the element.
    pub(crate) fn name(self) -> &'d str {
        self.dom.text(self.elem().name)
    }

    /// Byte offset of the start tag in the document.
    pub(crate) fn pos(self) -> usize {
        self.elem().pos as usize
    }

    /// The value of the attribute `name` (without a namespace).
    #[inline]
    pub(crate) fn attribute(self, name: &str) -> Option<&'d str> {
        let (lo, hi) = self.elem().attrs;
        self.dom.attrs[lo as usize..hi as usize]
            .iter()
            .find(|&&(n, _)| self.dom.bytes(n) == name.as_bytes())
            .map(|&(_, v)| self.dom.text(v))
    }

    /// The child elements named `tag`, in document order.
    pub(crate) fn children(self, tag: &'static str) -> impl Iterator<Item = Node<'d>> {
        let dom = self.dom;
        std::iter::successors(
            Some(self.elem().first_child).filter(|&c| c != NONE),
            move |&c| Some(dom.elems[c as usize].next_sibling).filter(|&s| s != NONE),
        )
        .map(move |id| Node { dom, id })
        .filter(move |n| dom.bytes(n.elem().name) == tag.as_bytes())
    }
}

/// Line and column (1-based, columns in characters) of byte `pos`, as the
/// XML parser reports them.
pub(crate) fn text_pos(xml: &str, pos: usize) -> (u32, u32) {
    let pos = pos.min(xml.len());
    let before = &xml[..pos];
    let row = 1 + before.bytes().filter(|&c| c == b'\n').count() as u32;
    let col = 1 + before.chars().rev().take_while(|&c| c != '\n').count() as u32;
    (row, col)
}

impl<'a> Dom<'a> {
    fn new(xml: &'a str, elems: usize, attrs: usize) -> Self {
        Dom {
            xml,
            extra: String::new(),
            elems: Vec::with_capacity(elems),
            attrs: Vec::with_capacity(attrs),
        }
    }

    /// The root element.
    pub(crate) fn root(&self) -> Node<'_> {
        Node { dom: self, id: 0 }
    }

    fn text(&self, s: Span) -> &str {
        let (off, end) = (s.off as usize, s.off as usize + s.len as usize);
        match off.checked_sub(self.xml.len()) {
            None => &self.xml[off..end],
            Some(k) => &self.extra[k..k + s.len as usize],
        }
    }

    /// [`text`](Self::text) as bytes (no character boundaries to check).
    #[inline]
    fn bytes(&self, s: Span) -> &[u8] {
        let (off, end) = (s.off as usize, s.off as usize + s.len as usize);
        match off.checked_sub(self.xml.len()) {
            None => &self.xml.as_bytes()[off..end],
            Some(k) => &self.extra.as_bytes()[k..k + s.len as usize],
        }
    }

    /// The span of `s`, a slice of the input or (copied to
    /// [`Dom::extra`]) not.
    fn span(&mut self, s: &str) -> Span {
        let (base, p) = (self.xml.as_ptr() as usize, s.as_ptr() as usize);
        let off = if p >= base && p + s.len() <= base + self.xml.len() {
            p - base
        } else {
            self.extra.push_str(s);
            self.xml.len() + self.extra.len() - s.len()
        };
        Span {
            off: off as u32,
            len: s.len() as u32,
        }
    }

    fn push(&mut self, name: Span, pos: usize, attrs_from: usize) -> u32 {
        let id = self.elems.len() as u32;
        self.elems.push(Elem {
            name,
            pos: pos as u32,
            attrs: (attrs_from as u32, self.attrs.len() as u32),
            first_child: NONE,
            next_sibling: NONE,
        });
        id
    }

    /// Reads `xml` with the element nesting bounded by `max_depth` and at
    /// most `max_nodes` XML nodes: the fast scan if it can, the full parser
    /// otherwise. Documents of 4 GiB or more are refused (offsets are 32
    /// bits).
    pub(crate) fn parse(
        xml: &'a str,
        max_depth: usize,
        max_nodes: u32,
    ) -> Result<Dom<'a>, SdfError> {
        if xml.len() > MAX_LEN {
            return Err(too_large(xml.len()));
        }
        if let Some(d) = Dom::scan(xml, max_depth, max_nodes) {
            return Ok(d);
        }
        check_depth(xml, max_depth)?;
        let popts = ParsingOptions {
            allow_dtd: false,
            nodes_limit: max_nodes,
        };
        let doc = Document::parse_with_options(xml, popts).map_err(|e| {
            let p = e.pos();
            SdfError::sdf3_at(e.to_string(), p.row, p.col)
        })?;
        Dom::from_document(xml, &doc)
    }

    /// The tree of a document the full parser has read.
    fn from_document(xml: &'a str, doc: &Document<'_>) -> Result<Dom<'a>, SdfError> {
        let mut dom = Dom::new(xml, 0, 0);
        // our id of each of the parser's nodes, and the last child so far
        let mut ids = vec![NONE; doc.descendants().count()];
        let mut last = Vec::new();
        for n in doc.root_element().descendants().filter(|n| n.is_element()) {
            let from = dom.attrs.len();
            for a in n.attributes().filter(|a| a.namespace().is_none()) {
                let kv = (dom.span(a.name()), dom.span(a.value()));
                dom.attrs.push(kv);
            }
            let parent = n.parent().map(|p| ids[p.id().get_usize()]);
            let name = dom.span(n.tag_name().name());
            let id = dom.push(name, n.range().start, from);
            ids[n.id().get_usize()] = id;
            last.push(NONE);
            if let Some(p) = parent.filter(|&p| p != NONE) {
                dom.link(p, &mut last[p as usize], id);
            }
        }
        if xml.len() + dom.extra.len() > MAX_LEN {
            return Err(too_large(xml.len() + dom.extra.len()));
        }
        Ok(dom)
    }

    /// Appends `child` to the children of `parent`, whose last child so
    /// far is `last`.
    fn link(&mut self, parent: u32, last: &mut u32, child: u32) {
        match *last {
            NONE => self.elems[parent as usize].first_child = child,
            prev => self.elems[prev as usize].next_sibling = child,
        }
        *last = child;
    }

    /// The fast scan; `None` for anything outside the plain subset (see
    /// the module documentation), for a malformed document, for nesting
    /// deeper than `max_depth` and for more than `max_nodes` XML nodes.
    fn scan(xml: &'a str, max_depth: usize, max_nodes: u32) -> Option<Dom<'a>> {
        Scanner {
            xml,
            b: xml.as_bytes(),
            i: 0,
            nodes: 1,
        }
        .document(max_depth, max_nodes)
    }
}

/// An open element during the scan.
struct Open<'a> {
    id: u32,
    last_child: u32,
    qname: &'a str,
    /// Namespace prefixes declared by its start tag.
    prefixes: usize,
}

struct Scanner<'a> {
    xml: &'a str,
    b: &'a [u8],
    i: usize,
    /// XML nodes the full parser would create, at least (the document
    /// node, elements, text runs, comments).
    nodes: u64,
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

    fn document(mut self, max_depth: usize, max_nodes: u32) -> Option<Dom<'a>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    const DOCS: &[&str] = &[
        include_str!("../../tests/data/modem.xml"),
        include_str!("../../tests/data/h263decoder.xml"),
        include_str!("../../tests/data/satellite.xml"),
        include_str!("../../tests/data/sdf3-reference/corner.xml"),
        "<?xml version='1.0' standalone='yes'?>\n<!-- c - c --><a xmlns='u' xmlns:p='v' p:x='1' y=\"'>\"><b/>\n<c q='2'><!----></c></a> ",
    ];

    /// The full parser's tree, or `None` if it refuses the document.
    fn full(xml: &str) -> Option<Dom<'_>> {
        let popts = ParsingOptions {
            allow_dtd: false,
            nodes_limit: u32::MAX,
        };
        let doc = Document::parse_with_options(xml, popts).ok()?;
        Some(Dom::from_document(xml, &doc).unwrap())
    }

    /// Whatever the scan accepts, the full parser accepts with the same
    /// tree.
    fn agree(xml: &str) -> bool {
        let fast = Dom::scan(xml, 64, u32::MAX);
        if let Some(f) = &fast {
            assert_eq!(Some(f), full(xml).as_ref(), "{xml}");
        }
        fast.is_some()
    }

    #[test]
    fn scan_and_full_parser_agree() {
        for doc in DOCS {
            assert!(agree(doc), "the scan reads {doc}");
        }
        // every snippet at many places of every document
        let snippets = [
            "&amp;",
            "&#65;",
            "<!-- x -->",
            "<!-- a--b -->",
            " xmlns:a='u' ",
            " a:b='1' ",
            " xmlns:xml='u' ",
            " b='1' b='2' ",
            "<![CDATA[x]]>",
            "\t",
            "]]>",
            "<?pi x?>",
            "'",
            "\"",
            "<",
            ">",
            "/",
            "=",
            "x",
            " ",
            "\u{FFFF}",
            "\u{1}",
            "<!DOCTYPE a>",
            "</a>",
            "<a>",
            "é",
            ":",
            "\r\n",
        ];
        let (mut accepted, mut total) = (0, 0);
        for doc in DOCS {
            let cuts: Vec<usize> = (0..doc.len())
                .filter(|&i| doc.is_char_boundary(i))
                .collect();
            for (k, snippet) in snippets.iter().enumerate() {
                for j in 0..40 {
                    let at = cuts[(j * 7919 + k * 104_729) % cuts.len()];
                    let mutated = format!("{}{snippet}{}", &doc[..at], &doc[at..]);
                    accepted += usize::from(agree(&mutated));
                    total += 1;
                    // and cut short
                    agree(&doc[..at]);
                }
            }
        }
        // both outcomes occur
        assert!(accepted > 0 && accepted < total, "{accepted} of {total}");
    }

    #[test]
    fn limits_send_the_document_to_the_full_parser() {
        let doc = "<a><b><c/></b></a>";
        assert!(Dom::scan(doc, 2, 100).is_some());
        assert!(Dom::scan(doc, 1, 100).is_none());
        assert!(Dom::scan(doc, 2, 3).is_none());
        assert_eq!(text_pos("ab\ncé", 6), (2, 3));
        assert_eq!(text_pos("ab", 9), (1, 3));
    }
}
