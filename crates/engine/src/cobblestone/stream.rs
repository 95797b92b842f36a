//! Cobblestone on streams: batches of chunks sealed and opened in
//! parallel; decryption releases plaintext only after the chunks it comes
//! from are authenticated.

use super::*;

/// Called with the number of input bytes processed since the last call.
pub type ProgressFn<'a> = &'a (dyn Fn(u64) + Sync);

fn read_full(r: &mut (impl Read + ?Sized), buf: &mut [u8], what: &str) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(format!("reading {what}"), e)),
        }
    }
    Ok(n)
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
    let werr = |e| Error::io("writing output", e);
    writer.write_all(&keys.prefix()).map_err(werr)?;
    let batch = CHUNK_SIZE * CHUNKS_PER_BATCH;
    let mut plain = Zeroizing::new(vec![0u8; batch]);
    let mut out = Vec::new();
    let mut index = 0u64;
    let mut total = 0u64;
    loop {
        let n = read_full(reader, &mut plain, "input")?;
        let last = n < batch;
        keys.seal_chunks(pool, index, &plain[..n], last, &mut out)?;
        writer.write_all(&out).map_err(werr)?;
        index += (n / CHUNK_SIZE) as u64;
        total += n as u64;
        progress(n as u64);
        if last {
            break;
        }
    }
    writer.flush().map_err(werr)?;
    Ok(total)
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
    let n = read_full(reader, &mut prefix, "input")?;
    if n < PREFIX_SIZE {
        return Err(Error::Truncated(
            "shorter than the 72-byte minimum (truncated, or not a Cobblestone message)",
        ));
    }
    let keys = ChunkKeys::from_prefix(suite, input_key, context, &prefix)?;
    progress(PREFIX_SIZE as u64);
    decrypt_stream_body(pool, &keys, reader, writer, progress)
}

/// [`decrypt_stream`] after the prefix was read and checked.
pub fn decrypt_stream_body(
    pool: &Pool,
    keys: &ChunkKeys,
    reader: &mut (impl Read + ?Sized),
    writer: &mut (impl Write + ?Sized),
    progress: ProgressFn<'_>,
) -> Result<u64> {
    let werr = |e| Error::io("writing output", e);
    let batch = ENC_CHUNK_SIZE * CHUNKS_PER_BATCH;
    // One byte of look-ahead: a full batch is never the end of the message.
    let mut enc = vec![0u8; batch + 1];
    let mut have = 0;
    let mut plain = Zeroizing::new(Vec::new());
    let mut index = 0u64;
    let mut total = 0u64;
    loop {
        have += read_full(reader, &mut enc[have..], "input")?;
        let last = have < enc.len();
        let take = if last { have } else { batch };
        if last && take < TAG_SIZE {
            return Err(Error::Truncated(if index == 0 {
                "shorter than the 72-byte minimum (truncated, or not a Cobblestone message)"
            } else {
                "the last chunk has an impossible length (truncated or extended)"
            }));
        }
        keys.open_chunks(pool, index, &enc[..take], last, &mut plain)?;
        writer.write_all(&plain).map_err(werr)?;
        progress(take as u64);
        index += (take / ENC_CHUNK_SIZE) as u64;
        total += plain.len() as u64;
        if last {
            break;
        }
        enc.copy_within(batch.., 0);
        have = 1;
    }
    writer.flush().map_err(werr)?;
    Ok(total)
}
