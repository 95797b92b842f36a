use super::*;

const DOCS: &[&str] = &[
    include_str!("../../../tests/data/modem.xml"),
    include_str!("../../../tests/data/h263decoder.xml"),
    include_str!("../../../tests/data/satellite.xml"),
    include_str!("../../../tests/data/sdf3-reference/corner.xml"),
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
