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
//! `encrypt -a` writes it; `decrypt` recognises it by its first line and
//! decodes it as it reads ([`ArmorReader`]): the Cobblestone key
//! commitment and the first batch of chunks are checked before more is
//! read, so junk armor costs no more than junk binary input.

use crate::stdio::Counted;
use aesflow_format::Pool;
use aesflow_format::cobblestone::ProgressFn;
use aesflow_format::files::{self, Job, JobOptions, KeyMaterial, Operation, Report};
use anyhow::{Result, anyhow, bail};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::time::Instant;

/// The first line.
pub const BEGIN: &str = "-----BEGIN AESFLOW ENCRYPTED FILE-----";
/// The last line.
pub const END: &str = "-----END AESFLOW ENCRYPTED FILE-----";

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

/// Damaged ASCII armor (inside an [`io::Error`] of kind `InvalidData`,
/// so the exit code can tell it from an I/O error: the data is corrupted
/// or truncated).
#[derive(Debug)]
pub struct ArmorError(pub String);

impl std::fmt::Display for ArmorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArmorError {}

fn damaged(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, ArmorError(what.into()))
}

/// The longest armor line read (the writer's are 64 characters).
pub const MAX_LINE: usize = 4096;
/// The most whitespace read after the END line.
const MAX_TRAILER: usize = 64 * 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Begin,
    Body,
    Done,
}

/// Decodes armor as it is read, a line at a time: the BEGIN line is
/// checked first, each base64 line is decoded before the next is read, and
/// the END line must come before the end of the input (a cut armor is an
/// error, never a shorter message). Memory stays at one line, so a reader
/// behind it (the Cobblestone key commitment, the first batch of chunks)
/// refuses junk after reading only as much as it needs.
pub struct ArmorReader<R: BufRead> {
    inner: R,
    stage: Stage,
    /// Decoded bytes not yet returned, from `pos`.
    out: Vec<u8>,
    pos: usize,
    /// Base64 characters waiting for a whole group of four.
    carry: Vec<u8>,
    /// The last group had padding: only the END line may follow.
    padded: bool,
    line: Vec<u8>,
    line_no: u64,
}

impl<R: BufRead> ArmorReader<R> {
    /// Decode the armor `inner` holds (starting with the BEGIN line).
    pub fn new(inner: R) -> Self {
        ArmorReader {
            inner,
            stage: Stage::Begin,
            out: Vec::new(),
            pos: 0,
            carry: Vec::new(),
            padded: false,
            line: Vec::new(),
            line_no: 0,
        }
    }

    /// The next line (without its end), or `None` at the end of input.
    fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        self.line.clear();
        let n = (&mut self.inner)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut self.line)?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        if self.line.len() > MAX_LINE && !self.line.ends_with(b"\n") {
            return Err(damaged(format!(
                "damaged ASCII armor: line {} is longer than {MAX_LINE} characters",
                self.line_no
            )));
        }
        Ok(Some(self.line.trim_ascii()))
    }

    /// Decode one base64 line into `out`.
    fn decode_line(&mut self, at: u64) -> io::Result<()> {
        let bad = || {
            damaged(format!(
                "damaged ASCII armor (line {at} is not base64 between the BEGIN and END lines)"
            ))
        };
        let line = std::mem::take(&mut self.line);
        let chars = line
            .trim_ascii()
            .iter()
            .filter(|c| !c.is_ascii_whitespace());
        for &c in chars {
            if self.padded {
                return Err(bad());
            }
            self.carry.push(c);
            if self.carry.len() == 4 {
                let q = std::mem::take(&mut self.carry);
                let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
                if pad > 2 {
                    return Err(bad());
                }
                let mut n = 0u32;
                for &c in &q[..4 - pad] {
                    let v = ALPHABET.iter().position(|&a| a == c).ok_or_else(bad)?;
                    n = n << 6 | v as u32;
                }
                n <<= 6 * pad;
                self.out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
                self.padded = pad > 0;
            }
        }
        self.line = line;
        Ok(())
    }

    /// Read input lines until there is decoded output or the END line.
    fn fill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.pos = 0;
        while self.out.is_empty() && self.stage != Stage::Done {
            let stage = self.stage;
            let line_no = self.line_no + 1;
            let marks = self
                .next_line()?
                .map(|l| (l == BEGIN.as_bytes(), l == END.as_bytes()));
            let Some((is_begin, is_end)) = marks else {
                return Err(damaged(format!(
                    "incomplete ASCII armor (no {END} line): the input is truncated"
                )));
            };
            match stage {
                Stage::Begin if is_begin => self.stage = Stage::Body,
                Stage::Begin => {
                    return Err(damaged(format!(
                        "not ASCII armor (the first line is not {BEGIN})"
                    )));
                }
                _ if is_end => {
                    if !self.carry.is_empty() {
                        return Err(damaged(
                            "damaged ASCII armor (a partial base64 group before the END line)",
                        ));
                    }
                    self.stage = Stage::Done;
                    self.check_trailer()?;
                }
                _ => self.decode_line(line_no)?,
            }
        }
        Ok(())
    }

    /// After the END line: whitespace only.
    fn check_trailer(&mut self) -> io::Result<()> {
        let mut rest = Vec::new();
        (&mut self.inner)
            .take(MAX_TRAILER as u64 + 1)
            .read_to_end(&mut rest)?;
        if rest.len() > MAX_TRAILER || !rest.iter().all(u8::is_ascii_whitespace) {
            return Err(damaged(format!(
                "damaged ASCII armor (data after the {END} line)"
            )));
        }
        Ok(())
    }
}

impl<R: BufRead> Read for ArmorReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.out.len() {
            self.fill()?;
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Decode a whole armored text (the BEGIN/END lines included).
#[cfg(test)]
pub fn decode(text: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    ArmorReader::new(text)
        .read_to_end(&mut out)
        .map_err(|e| anyhow!("{e}"))?;
    Ok(out)
}

/// Whether a job's input is armored. Only a regular file is peeked at (it
/// is opened without blocking and checked before a byte is read); stdin,
/// FIFOs and devices are read once, by the streaming path, which
/// recognises armor there.
pub fn input_is_armored(job: &Job) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let Some(p) = &job.input else { return false };
    let Ok(mut f) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(p)
    else {
        return false;
    };
    let mut head = [0u8; BEGIN.len()];
    f.metadata().is_ok_and(|m| m.is_file())
        && f.read_exact(&mut head).is_ok()
        && head == *BEGIN.as_bytes()
}

/// Run one job through the streaming path: armor written (`armor_out`)
/// and/or recognised on the input, output to stdout (counted), or an input
/// that is not a regular file (opened and read once).
pub fn run_job(
    pool: &Pool,
    op: &Operation,
    job: &Job,
    opts: &JobOptions,
    armor_out: bool,
    progress: ProgressFn<'_>,
) -> Result<Report> {
    let t0 = Instant::now();
    let (raw_in, meta): (Box<dyn Read>, _) = match &job.input {
        None => (Box::new(io::stdin()), None),
        Some(p) => {
            let f = std::fs::File::open(p).map_err(|e| anyhow!("cannot open: {e}"))?;
            let m = f.metadata().map_err(|e| anyhow!("cannot read: {e}"))?;
            if m.is_dir() {
                bail!("is a directory");
            }
            (Box::new(f), Some(m))
        }
    };
    let mut br = BufReader::new(raw_in);
    let head = br.fill_buf()?;
    let (empty, armored_in) = (head.is_empty(), head.starts_with(BEGIN.as_bytes()));
    let passphrase_file = head.starts_with(aesflow_format::passphrase::MAGIC);
    let armored_in = armored_in && !opts.encrypt;
    let mut input: Box<dyn Read> = if empty {
        // End of input already seen: a terminal's Ctrl-D is not repeated.
        Box::new(io::empty())
    } else if armored_in {
        Box::new(ArmorReader::new(br))
    } else {
        Box::new(br)
    };
    let file = files::create_output(job, opts, meta.as_ref())?;
    let sink: Box<dyn Write> = match &file {
        Some(f) => Box::new(io::BufWriter::new(f.file())),
        None => Box::new(Counted(io::stdout().lock())),
    };
    let hint = |e: aesflow_format::Error| -> anyhow::Error {
        let key_given = matches!(
            op,
            Operation::Cobblestone {
                key: KeyMaterial::Key(_),
                ..
            }
        );
        if matches!(e, aesflow_format::Error::WrongKey) && key_given && passphrase_file {
            anyhow!(
                "this file was encrypted with a passphrase (it starts with the AESFLOWP \
                 header): use --passphrase instead of a key"
            )
        } else {
            e.into()
        }
    };
    let (bytes_in, bytes_out, operation) = if armor_out {
        let mut w = ArmorWriter::new(sink)?;
        let r = files::run_stream(pool, op, &mut input, &mut w, opts, progress).map_err(hint)?;
        (r.0, w.finish()?, r.2)
    } else {
        let mut w = sink;
        let r = files::run_stream(pool, op, &mut input, &mut w, opts, progress).map_err(hint)?;
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
