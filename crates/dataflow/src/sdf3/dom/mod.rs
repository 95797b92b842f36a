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
//! tests in `dom/tests.rs`), so the reader sees the same elements whichever way the
//! document was read, and a malformed document always gets the full
//! parser's error message. The scan keeps no text nodes and borrows every
//! name and value from the input: on a graph of 10^5 actors it is several
//! times faster than building the full parser's tree and needs a fraction
//! of its memory.

use roxmltree::{Document, ParsingOptions};

use super::scan::check_depth;
use crate::error::SdfError;
use plain::Scanner;

mod plain;
#[cfg(test)]
mod tests;

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

    /// The string `s` lies in (the input or [`Dom::extra`]) and its range
    /// there.
    #[inline]
    fn locate(&self, s: Span) -> (&str, std::ops::Range<usize>) {
        let off = s.off as usize;
        let (src, start) = match off.checked_sub(self.xml.len()) {
            None => (self.xml, off),
            Some(k) => (self.extra.as_str(), k),
        };
        (src, start..start + s.len as usize)
    }

    fn text(&self, s: Span) -> &str {
        let (src, r) = self.locate(s);
        &src[r]
    }

    /// [`text`](Self::text) as bytes (no character boundaries to check).
    #[inline]
    fn bytes(&self, s: Span) -> &[u8] {
        let (src, r) = self.locate(s);
        &src.as_bytes()[r]
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
