//! Cobblestone on streams: batches of chunks sealed and opened in
//! parallel; decryption releases plaintext only after the chunks it comes
//! from are authenticated.

use super::*;

/// Called with the number of input bytes processed since the last call.
pub type ProgressFn<'a> = &'a (dyn Fn(u64) + Sync);

/// Read until `buf` is full or the input ends (retrying interrupted reads);
/// returns the bytes read.
pub(crate) fn read_full(r: &mut (impl Read + ?Sized), buf: &mut [u8]) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io("reading input", e)),
        }
    }
    Ok(n)
}

/// Read `reader` to its end in batches of `batch` bytes, with one byte of
/// look-ahead (a full batch is never the end of the input), and write what
/// `step(index, input, last, out)` puts in `out` for each: `index` counts
/// the `chunk`-byte chunks before the batch, `last` marks the final batch
/// (possibly empty). Returns the bytes written.
fn run_batches(
    reader: &mut (impl Read + ?Sized),
    writer: &mut (impl Write + ?Sized),
    (batch, chunk): (usize, usize),
    progress: ProgressFn<'_>,
    mut step: impl FnMut(u64, &[u8], bool, &mut Vec<u8>) -> Result<()>,
) -> Result<u64> {
    let werr = |e| Error::io("writing output", e);
    let mut input = Zeroizing::new(vec![0u8; batch + 1]);
    let mut out = Zeroizing::new(Vec::new());
    let (mut have, mut index, mut total) = (0, 0u64, 0u64);
    loop {
        have += read_full(reader, &mut input[have..])?;
        let last = have <= batch;
        let take = have.min(batch);
        step(index, &input[..take], last, &mut out)?;
        writer.write_all(&out).map_err(werr)?;
        progress(take as u64);
        index += (take / chunk) as u64;
        total += out.len() as u64;
        if last {
            break;
        }
        input.copy_within(batch.., 0);
        have = 1;
    }
    writer.flush().map_err(werr)?;
    Ok(total)
}

/// Encrypt a stream: read `reader` to its end, write the message (prefix
/// included) to `writer`, sealing batches of chunks in parallel. Returns
/// the plaintext length.
pub fn encrypt_stream(
    pool: &Pool,
    keys: &ChunkKeys,
    reader: &mut (impl Read + ?Sized),
    writer: &mut (impl Write + ?Sized),
    progress: ProgressFn<'_>,
) -> Result<u64> {
    writer
        .write_all(&keys.prefix())
        .map_err(|e| Error::io("writing output", e))?;
    let mut plain = 0;
    let sizes = (CHUNK_SIZE * CHUNKS_PER_BATCH, CHUNK_SIZE);
    run_batches(reader, writer, sizes, progress, |index, p, last, out| {
        plain += p.len() as u64;
        keys.seal_chunks(pool, index, p, last, out)
    })?;
    Ok(plain)
}

/// Decrypt a stream: check the prefix, then open batches of chunks in
/// parallel and write each batch's plaintext only after all its chunks
/// authenticated. An error after earlier batches were written still
/// returns `Err` (the caller must treat the output as invalid). Returns
/// the plaintext length.
pub fn decrypt_stream(
    pool: &Pool,
    suite: Suite,
    input_key: &[u8],
    context: &[u8],
    reader: &mut (impl Read + ?Sized),
    writer: &mut (impl Write + ?Sized),
    progress: ProgressFn<'_>,
) -> Result<u64> {
    let mut prefix = [0u8; PREFIX_SIZE];
    let n = read_full(reader, &mut prefix)?;
    if n < PREFIX_SIZE {
        return Err(Error::Truncated(TOO_SHORT));
    }
    let keys = ChunkKeys::from_prefix(pool, suite, input_key, context, &prefix)?;
    progress(PREFIX_SIZE as u64);
    let sizes = (ENC_CHUNK_SIZE * CHUNKS_PER_BATCH, ENC_CHUNK_SIZE);
    run_batches(reader, writer, sizes, progress, |index, enc, last, out| {
        if last && enc.len() < TAG_SIZE {
            return Err(Error::Truncated(if index == 0 {
                TOO_SHORT
            } else {
                "the last chunk has an impossible length (truncated or extended)"
            }));
        }
        keys.open_chunks(pool, index, enc, last, out)
    })
}
