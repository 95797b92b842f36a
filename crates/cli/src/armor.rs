//! ASCII armor, as age has it: the binary ciphertext in base64 (RFC 4648
//! section 4) between PEM-style lines (RFC 7468, "Textual Encodings of
//! PKIX, PKCS, and CMS Structures", section 2), 64 characters a line:
//!
//! ```text
//! -----BEGIN AESFLOW ENCRYPTED FILE-----
//! 6Nq3…
//! -----END AESFLOW ENCRYPTED FILE-----
//! ```
//!
//! `encrypt -a` writes it; `decrypt` recognises it by its first line. An
//! armored input is decoded in memory (at most [`MAX_ARMORED`] bytes):
//! armor is for text channels (mail, chat, config files), not for bulk data.

use aesflow_format::Pool;
use aesflow_format::files::{self, Job, JobOptions, Operation, Report};
use anyhow::{Result, anyhow, bail};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::time::Instant;

/// The first line.
pub const BEGIN: &str = "-----BEGIN AESFLOW ENCRYPTED FILE-----";
/// The last line.
pub const END: &str = "-----END AESFLOW ENCRYPTED FILE-----";
/// The largest armored input decoded (1 GiB).
pub const MAX_ARMORED: u64 = 1 << 30;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn encode_group(g: &[u8], out: &mut Vec<u8>) {
    let b = [g[0], *g.get(1).unwrap_or(&0), *g.get(2).unwrap_or(&0)];
    let n = u32::from_be_bytes([0, b[0], b[1], b[2]]);
    for i in 0..4 {
        if i <= g.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]);
        } else {
            out.push(b'=');
        }
    }
}

/// Writes armor around what is written through it; call [`Self::finish`].
pub struct ArmorWriter<W: Write> {
    inner: W,
    pending: Vec<u8>,
    written: u64,
}

impl<W: Write> ArmorWriter<W> {
    /// Start: writes the BEGIN line.
    pub fn new(mut inner: W) -> io::Result<Self> {
        inner.write_all(BEGIN.as_bytes())?;
        inner.write_all(b"\n")?;
        Ok(ArmorWriter {
            inner,
            pending: Vec::new(),
            written: BEGIN.len() as u64 + 1,
        })
    }

    fn lines(&mut self, all: bool) -> io::Result<()> {
        let whole = if all {
            self.pending.len()
        } else {
            self.pending.len() / 48 * 48
        };
        let mut text = Vec::with_capacity(whole / 48 * 65 + 70);
        for line in self.pending[..whole].chunks(48) {
            for g in line.chunks(3) {
                encode_group(g, &mut text);
            }
            text.push(b'\n');
        }
        self.inner.write_all(&text)?;
        self.written += text.len() as u64;
        self.pending.drain(..whole);
        Ok(())
    }

    /// Write the rest and the END line; returns the armored length.
    pub fn finish(mut self) -> io::Result<u64> {
        self.lines(true)?;
        self.inner.write_all(END.as_bytes())?;
        self.inner.write_all(b"\n")?;
        self.inner.flush()?;
        Ok(self.written + END.len() as u64 + 1)
    }
}

impl<W: Write> Write for ArmorWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if self.pending.len() >= 48 * 1024 {
            self.lines(false)?;
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.lines(false)?;
        self.inner.flush()
    }
}

/// Decode an armored text (the BEGIN/END lines included).
pub fn decode(text: &[u8]) -> Result<Vec<u8>> {
    let bad = || anyhow!("damaged ASCII armor (not base64 between the BEGIN and END lines)");
    let t = std::str::from_utf8(text).map_err(|_| bad())?.trim();
    let body = t
        .strip_prefix(BEGIN)
        .and_then(|r| r.trim_end().strip_suffix(END))
        .ok_or_else(|| anyhow!("incomplete ASCII armor (no {END} line)"))?;
    let chars: Vec<u8> = body.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    if !chars.len().is_multiple_of(4) {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(chars.len() / 4 * 3);
    for (i, q) in chars.chunks(4).enumerate() {
        let last = i + 1 == chars.len() / 4;
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return Err(bad());
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            let v = ALPHABET.iter().position(|&a| a == c).ok_or_else(bad)?;
            n = n << 6 | v as u32;
        }
        n <<= 6 * pad;
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    Ok(out)
}

/// Whether a job's input is armored (files are peeked; stdin is not).
pub fn input_is_armored(job: &Job) -> bool {
    let Some(p) = &job.input else { return false };
    let mut head = [0u8; BEGIN.len()];
    std::fs::File::open(p).is_ok_and(|mut f| f.read_exact(&mut head).is_ok())
        && head == *BEGIN.as_bytes()
}

/// Read a whole armored input (bounded) and decode it.
fn read_armored(r: impl Read) -> Result<Vec<u8>> {
    let mut text = Vec::new();
    r.take(MAX_ARMORED + 1).read_to_end(&mut text)?;
    if text.len() as u64 > MAX_ARMORED {
        bail!("armored input larger than 1 GiB; use the binary format for bulk data");
    }
    decode(&text)
}

/// Run one job through the streaming path: armor written (`armor_out`)
/// and/or recognised on the input.
pub fn run_job(
    pool: &Pool,
    op: &Operation,
    job: &Job,
    opts: &JobOptions,
    armor_out: bool,
) -> Result<Report> {
    let t0 = Instant::now();
    let (raw_in, meta): (Box<dyn Read>, _) = match &job.input {
        None => (Box::new(io::stdin()), None),
        Some(p) => {
            let f = std::fs::File::open(p).map_err(|e| anyhow!("cannot open: {e}"))?;
            let m = f.metadata().map_err(|e| anyhow!("cannot read: {e}"))?;
            (Box::new(f), Some(m))
        }
    };
    let mut br = BufReader::new(raw_in);
    let head = br.fill_buf()?;
    let (empty, armored_in) = (head.is_empty(), head.starts_with(BEGIN.as_bytes()));
    let decoded;
    let mut input: Box<dyn Read> = if empty {
        // End of input already seen: a terminal's Ctrl-D is not repeated.
        Box::new(io::empty())
    } else if armored_in && !opts.encrypt {
        decoded = read_armored(br)?;
        Box::new(&decoded[..])
    } else {
        Box::new(br)
    };
    let armored_in = armored_in && !opts.encrypt;
    let file = files::create_output(job, opts, meta.as_ref())?;
    let sink: Box<dyn Write> = match &file {
        Some(f) => Box::new(io::BufWriter::new(f.file())),
        None => Box::new(io::stdout().lock()),
    };
    let (bytes_in, bytes_out, operation) = if armor_out {
        let mut w = ArmorWriter::new(sink)?;
        let r = files::run_stream(pool, op, &mut input, &mut w, opts, &|_| {})?;
        (r.0, w.finish()?, r.2)
    } else {
        let mut w = sink;
        let r = files::run_stream(pool, op, &mut input, &mut w, opts, &|_| {})?;
        w.flush()?;
        r
    };
    if let Some(f) = file {
        f.commit(opts.sync)?;
    }
    let operation = if armor_out || armored_in {
        format!("{operation} (armored)")
    } else {
        operation
    };
    Ok(Report::new(job, t0, (bytes_in, bytes_out, operation)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_and_round_trips() {
        for (plain, b64) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut v = Vec::new();
            let mut w = ArmorWriter::new(&mut v).unwrap();
            w.write_all(plain.as_bytes()).unwrap();
            w.finish().unwrap();
            let t = String::from_utf8(v.clone()).unwrap();
            assert!(t.contains(b64), "{plain}: {t}");
            assert_eq!(decode(&v).unwrap(), plain.as_bytes());
        }
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 31) as u8).collect();
        let mut v = Vec::new();
        let mut w = ArmorWriter::new(&mut v).unwrap();
        w.write_all(&data).unwrap();
        let n = w.finish().unwrap();
        assert_eq!(n, v.len() as u64);
        assert!(
            v.split(|&b| b == b'\n')
                .all(|l| l.len() <= 64 || l.starts_with(b"-----"))
        );
        assert_eq!(decode(&v).unwrap(), data);
        let mut bad = v.clone();
        bad[50] = b'*';
        assert!(decode(&bad).is_err());
        assert!(decode(&v[..v.len() - 10]).is_err());
    }
}
