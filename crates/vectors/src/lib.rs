//! # aesflow-vectors: the NIST test vectors, read from the repository
//!
//! The NIST CAVP response files (`.rsp`: AESAVS KAT/MMT for ECB, CBC, CFB,
//! OFB; the GCM validation files) and the RFC 3686 CTR examples are vendored
//! in `vectors/` at the top of the repository, with a `SHA256SUMS` manifest.
//! Every [`load`] checks the file against the manifest first, so a missing,
//! truncated or corrupted file is an error — a test never skips silently.
//!
//! The format: `#` comments; `[NAME]` or `[Key = value]` lines that open a
//! section (consecutive bracket lines belong to one section); records of
//! `KEY = value` lines separated by blank lines; bare words such as `FAIL`
//! mark a record.
//!
//! [`skip!`] is how a test whose tool or CPU feature is missing says that
//! it skipped ([`skip!`]).

pub mod skip;

use sha2::{Digest, Sha256};
use std::fmt;
use std::io::Read;
use std::path::PathBuf;

/// An error reading a vector file.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn err(msg: impl Into<String>) -> Error {
    Error(msg.into())
}

/// The vendored `vectors/` directory.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// One record: ordered `KEY = value` fields and bare flags (e.g. `FAIL`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Line number of the record's first line (1-based), for messages.
    pub line: usize,
    /// Fields in file order.
    pub fields: Vec<(String, String)>,
    /// Bare words.
    pub flags: Vec<String>,
}

impl Record {
    /// A field's value (case-insensitive key).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// A field's value, or an error naming the record.
    pub fn field(&self, key: &str) -> Result<&str, Error> {
        self.get(key)
            .ok_or_else(|| err(format!("record at line {}: no field {key}", self.line)))
    }

    /// A hex field decoded to bytes (empty value → empty vector).
    pub fn hex(&self, key: &str) -> Result<Vec<u8>, Error> {
        decode_hex(self.field(key)?)
            .map_err(|e| err(format!("record at line {}: field {key}: {e}", self.line)))
    }

    /// A decimal field.
    pub fn int(&self, key: &str) -> Result<usize, Error> {
        self.field(key)?
            .parse()
            .map_err(|e| err(format!("record at line {}: field {key}: {e}", self.line)))
    }

    /// Whether a bare flag (e.g. `FAIL`) is present.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f.eq_ignore_ascii_case(flag))
    }
}

/// A section: its bracket header lines and its records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Section {
    /// Bracket lines without brackets: `ENCRYPT`, or `Keylen = 128` as
    /// (`Keylen`, `128`). A bare name has an empty value.
    pub header: Vec<(String, String)>,
    /// The records.
    pub records: Vec<Record>,
}

impl Section {
    /// The section's name when it has a bare header such as `[ENCRYPT]`.
    pub fn name(&self) -> Option<&str> {
        self.header
            .iter()
            .find(|(_, v)| v.is_empty())
            .map(|(k, _)| k.as_str())
    }

    /// A `[Key = value]` header parameter.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.header
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// A parsed file.
#[derive(Clone, Debug)]
pub struct VectorFile {
    /// Path relative to `vectors/`.
    pub name: String,
    /// The sections in order.
    pub sections: Vec<Section>,
}

impl VectorFile {
    /// All records with their section.
    pub fn records(&self) -> impl Iterator<Item = (&Section, &Record)> {
        self.sections
            .iter()
            .flat_map(|s| s.records.iter().map(move |r| (s, r)))
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.sections.iter().map(|s| s.records.len()).sum()
    }

    /// Whether the file has no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Decode a hex string (either case); odd length or a non-hex digit is an error.
pub fn decode_hex(s: &str) -> Result<Vec<u8>, Error> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return Err(err(format!("odd-length hex string ({} digits)", s.len())));
    }
    let digit = |c: u8| -> Result<u8, Error> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(err(format!("not a hex digit: {:?}", c as char))),
        }
    };
    s.as_bytes()
        .chunks(2)
        .map(|p| Ok(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// Encode bytes as lowercase hex.
pub fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parse the text of a response file.
pub fn parse(text: &str) -> Result<Vec<Section>, Error> {
    let mut sections: Vec<Section> = Vec::new();
    let mut current: Option<Record> = None;
    let mut in_header = false;
    let flush = |sections: &mut Vec<Section>, rec: &mut Option<Record>| {
        if let Some(r) = rec.take() {
            if sections.is_empty() {
                sections.push(Section::default());
            }
            sections.last_mut().unwrap().records.push(r);
        }
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let lineno = i + 1;
        if line.is_empty() {
            flush(&mut sections, &mut current);
            in_header = false;
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        if let Some(inner) = line.strip_prefix('[') {
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| err(format!("line {lineno}: unterminated '['")))?;
            flush(&mut sections, &mut current);
            if !in_header {
                sections.push(Section::default());
                in_header = true;
            }
            let (k, v) = match inner.split_once('=') {
                Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
                None => (inner.trim().to_string(), String::new()),
            };
            sections.last_mut().unwrap().header.push((k, v));
            continue;
        }
        in_header = false;
        let rec = current.get_or_insert_with(|| Record {
            line: lineno,
            ..Record::default()
        });
        match line.split_once('=') {
            Some((k, v)) => {
                let k = k.trim();
                if k.is_empty() || !k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
                    return Err(err(format!("line {lineno}: bad field name {k:?}")));
                }
                rec.fields.push((k.to_string(), v.trim().to_string()));
            }
            None => {
                if !line.bytes().all(|c| c.is_ascii_alphabetic()) {
                    return Err(err(format!("line {lineno}: cannot parse {line:?}")));
                }
                rec.flags.push(line.to_string());
            }
        }
    }
    flush(&mut sections, &mut current);
    Ok(sections)
}

/// The manifest's SHA-256 for a file, if listed.
fn manifest_digest(name: &str) -> Result<String, Error> {
    let path = vectors_dir().join("SHA256SUMS");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| err(format!("cannot read {}: {e}", path.display())))?;
    text.lines()
        .filter_map(|l| l.split_once("  "))
        .find(|(_, f)| f.trim_start_matches("./") == name)
        .map(|(d, _)| d.to_string())
        .ok_or_else(|| err(format!("{name} is not listed in vectors/SHA256SUMS")))
}

/// Read a vendored file's bytes after checking it against `SHA256SUMS`.
pub fn read_verified(name: &str) -> Result<Vec<u8>, Error> {
    let path = vectors_dir().join(name);
    let bytes =
        std::fs::read(&path).map_err(|e| err(format!("cannot read {}: {e}", path.display())))?;
    let digest = encode_hex(&Sha256::digest(&bytes));
    let expected = manifest_digest(name)?;
    if digest != expected {
        return Err(err(format!(
            "{name} does not match vectors/SHA256SUMS (corrupted or edited file)"
        )));
    }
    Ok(bytes)
}

/// Load and parse a vendored file by its path under `vectors/`
/// (e.g. `"ECB/ECBGFSbox128.rsp"`; `.gz` files are decompressed).
pub fn load(name: &str) -> Result<VectorFile, Error> {
    let bytes = read_verified(name)?;
    let text = if name.ends_with(".gz") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .map_err(|e| err(format!("{name}: bad gzip data: {e}")))?;
        s
    } else {
        String::from_utf8(bytes).map_err(|_| err(format!("{name}: not UTF-8")))?
    };
    let sections = parse(&text).map_err(|e| err(format!("{name}: {e}")))?;
    let file = VectorFile {
        name: name.to_string(),
        sections,
    };
    if file.is_empty() {
        return Err(err(format!("{name}: no test records")));
    }
    Ok(file)
}

/// All files of the manifest under a folder (e.g. `"ECB"`), sorted.
pub fn list(folder: &str) -> Result<Vec<String>, Error> {
    let path = vectors_dir().join("SHA256SUMS");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| err(format!("cannot read {}: {e}", path.display())))?;
    let prefix = format!("{folder}/");
    let mut v: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_once("  "))
        .map(|(_, f)| f.trim_start_matches("./").to_string())
        .filter(|f| f.starts_with(&prefix))
        .collect();
    v.sort();
    if v.is_empty() {
        return Err(err(format!(
            "no files under vectors/{folder} in SHA256SUMS"
        )));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sections_records_and_flags() {
        let text = "# c\n[ENCRYPT]\n\nCOUNT = 0\nKEY = 00ff\nCT = \n\nCOUNT = 1\nKEY = 01\nFAIL\n\n[DECRYPT]\n\nCOUNT = 0\nKEY = AB\n";
        let s = parse(text).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name(), Some("ENCRYPT"));
        assert_eq!(s[0].records.len(), 2);
        assert_eq!(s[0].records[0].hex("KEY").unwrap(), vec![0, 255]);
        assert_eq!(s[0].records[0].hex("CT").unwrap(), Vec::<u8>::new());
        assert!(s[0].records[1].has_flag("FAIL"));
        assert_eq!(s[1].records[0].hex("key").unwrap(), vec![0xab]);
    }

    #[test]
    fn multi_bracket_header_is_one_section() {
        let text = "[Keylen = 128]\n[IVlen = 96]\n\nCount = 0\nKey = 00\n";
        let s = parse(text).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].param("IVlen"), Some("96"));
    }

    #[test]
    fn malformed_input_is_an_error() {
        assert!(parse("[ENCRYPT\n").is_err());
        assert!(parse("KEY 00 11\n").is_err());
        assert!(decode_hex("0g").is_err());
        assert!(decode_hex("abc").is_err());
    }

    #[test]
    fn every_vendored_file_matches_the_manifest() {
        let text = std::fs::read_to_string(vectors_dir().join("SHA256SUMS")).unwrap();
        let mut n = 0;
        for (_, f) in text.lines().filter_map(|l| l.split_once("  ")) {
            read_verified(f.trim_start_matches("./")).unwrap();
            n += 1;
        }
        assert!(n >= 90, "manifest lists only {n} files");
    }
}
