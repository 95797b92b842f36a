//! Random access to a Cobblestone message: only the chunks a byte range
//! touches are read and opened.

use super::*;

/// Random access to a Cobblestone message: opening it checks the
/// commitment and authenticates the final chunk (so the plaintext length is
/// trustworthy); [`RandomAccess::read_range`] then decrypts only the chunks
/// a byte range touches.
pub struct RandomAccess<R> {
    src: R,
    base: u64,
    keys: ChunkKeys,
    plain_len: u64,
}

impl<R> std::fmt::Debug for RandomAccess<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RandomAccess")
            .field("plain_len", &self.plain_len)
            .finish_non_exhaustive()
    }
}

impl<R: Read + Seek> RandomAccess<R> {
    /// Open the message that starts at the current position of `src` and
    /// runs to its end; its chunks are opened on `on` (as
    /// [`ChunkKeys::derive`]).
    pub fn open(
        on: impl Into<KernelPlan>,
        mut src: R,
        suite: Suite,
        input_key: &[u8],
        context: &[u8],
    ) -> Result<Self> {
        let ioe = |e| Error::io("reading input", e);
        let base = src.stream_position().map_err(ioe)?;
        let end = src.seek(SeekFrom::End(0)).map_err(ioe)?;
        let ct_len = end.saturating_sub(base);
        let plain_len = plaintext_len(ct_len)?;
        let mut prefix = [0u8; PREFIX_SIZE];
        src.seek(SeekFrom::Start(base)).map_err(ioe)?;
        src.read_exact(&mut prefix).map_err(ioe)?;
        let keys = ChunkKeys::from_prefix(on, suite, input_key, context, &prefix)?;
        let mut ra = RandomAccess {
            src,
            base,
            keys,
            plain_len,
        };
        // Authenticate the final chunk: a length from an unauthenticated
        // end would let truncation go unnoticed.
        let last = chunk_count(plain_len) - 1;
        ra.read_chunks(last..last + 1, Pool::inline())?;
        Ok(ra)
    }

    /// The authenticated plaintext length.
    pub fn len(&self) -> u64 {
        self.plain_len
    }

    /// Whether the plaintext is empty.
    pub fn is_empty(&self) -> bool {
        self.plain_len == 0
    }

    fn read_chunks(&mut self, chunks: Range<u64>, pool: &Pool) -> Result<Vec<u8>> {
        let last = chunks.end == chunk_count(self.plain_len);
        let (_, c) = chunk_bytes(&chunks, self.plain_len);
        let mut enc = vec![0u8; (c.end - c.start) as usize];
        let ioe = |e| Error::io("reading input", e);
        self.src
            .seek(SeekFrom::Start(self.base + PREFIX_SIZE as u64 + c.start))
            .map_err(ioe)?;
        self.src.read_exact(&mut enc).map_err(ioe)?;
        let mut out = Vec::new();
        self.keys
            .open_chunks(pool, chunks.start, &enc, last, &mut out)?;
        Ok(out)
    }

    /// Decrypt plaintext bytes `range` (within `0..len()`), authenticating
    /// every chunk the range touches.
    pub fn read_range(&mut self, range: Range<u64>, pool: &Pool) -> Result<Vec<u8>> {
        if range.start > range.end || range.end > self.plain_len {
            return Err(Error::InvalidInput(format!(
                "range {}..{} outside the plaintext (length {})",
                range.start, range.end, self.plain_len
            )));
        }
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let cs = CHUNK_SIZE as u64;
        let first = range.start / cs;
        let last = ((range.end - 1) / cs).min(chunk_count(self.plain_len) - 1);
        let mut out = self.read_chunks(first..last + 1, pool)?;
        let skip = (range.start - first * cs) as usize;
        out.drain(..skip);
        out.truncate((range.end - range.start) as usize);
        Ok(out)
    }
}

/// Decrypt plaintext bytes `range` of the message in `src` (from its
/// current position to its end); see [`RandomAccess`].
pub fn decrypt_range<R: Read + Seek>(
    pool: &Pool,
    src: R,
    suite: Suite,
    input_key: &[u8],
    context: &[u8],
    range: Range<u64>,
) -> Result<Vec<u8>> {
    RandomAccess::open(pool, src, suite, input_key, context)?.read_range(range, pool)
}
