//! Little-endian `u32` words of a chunk, read from its bytes or as its zstd frame
//! decompresses. The hierarchy and levels chunks are mostly tables of words; decoding them
//! from the stream fills their tables without first holding the whole chunk decompressed
//! (at 8192² 75 and 150 MB per movement type, pages a game's first request paid to fault in
//! and hand back).

use std::borrow::Cow;
use std::io::Read;

/// Words to decode per read from a stream: large enough that the reads cost little, small
/// enough to stay in the cache.
pub(crate) const BLOCK_WORDS: usize = 1 << 12;

/// Where a chunk decoder reads its words from.
pub trait WordSource {
    /// Fills `out` with the next words.
    ///
    /// # Errors
    /// One sentence when the chunk ends first or does not decompress.
    fn fill(&mut self, out: &mut [u32]) -> Result<(), String>;

    /// Bytes of the chunk not read yet (as its length states, for a stream).
    fn left(&self) -> u64;

    /// The bytes after the last word read, to the end of the chunk.
    ///
    /// # Errors
    /// As [`Self::fill`], and when a stream holds more or fewer bytes than its length.
    fn rest(&mut self) -> Result<Cow<'_, [u8]>, String>;

    /// The next word.
    ///
    /// # Errors
    /// As [`Self::fill`].
    fn next(&mut self) -> Result<u32, String> {
        let mut w = [0];
        self.fill(&mut w)?;
        Ok(w[0])
    }
}

/// The words of bytes held in memory.
#[cfg(test)]
pub struct SliceWords<'a> {
    bytes: &'a [u8],
    at: usize,
}

#[cfg(test)]
impl<'a> SliceWords<'a> {
    /// Reads `bytes` from the start.
    #[must_use]
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }
}

#[cfg(test)]
impl WordSource for SliceWords<'_> {
    fn fill(&mut self, out: &mut [u32]) -> Result<(), String> {
        let end = self.at.saturating_add(4 * out.len());
        let bytes = self
            .bytes
            .get(self.at..end)
            .ok_or_else(|| "the chunk ends inside its tables".to_owned())?;
        for (w, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        self.at = end;
        Ok(())
    }

    fn left(&self) -> u64 {
        self.bytes.len().saturating_sub(self.at) as u64
    }

    fn rest(&mut self) -> Result<Cow<'_, [u8]>, String> {
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        self.at = self.bytes.len();
        Ok(Cow::Borrowed(rest))
    }
}

/// The words of a chunk's zstd frame, decompressed as they are read.
pub struct StreamWords<'a> {
    decoder: zstd::stream::read::Decoder<'static, &'a [u8]>,
    /// Bytes the chunk states it decompresses to and has not given yet.
    left: u64,
}

impl<'a> StreamWords<'a> {
    /// Reads the chunk stored as `stored` that decompresses to `raw_len` bytes.
    ///
    /// # Errors
    /// One sentence if the decoder cannot start.
    pub fn new(stored: &'a [u8], raw_len: u64) -> Result<Self, String> {
        let decoder = zstd::stream::read::Decoder::with_buffer(stored)
            .map_err(|e| format!("cannot decompress: {e}"))?;
        Ok(Self {
            decoder,
            left: raw_len,
        })
    }
}

impl WordSource for StreamWords<'_> {
    fn fill(&mut self, out: &mut [u32]) -> Result<(), String> {
        let len = 4 * out.len() as u64;
        if len > self.left {
            return Err("the chunk ends inside its tables".to_owned());
        }
        // Straight into the words, then put in this machine's byte order.
        self.decoder
            .read_exact(bytemuck::cast_slice_mut(out))
            .map_err(|e| format!("cannot decompress: {e}"))?;
        for w in out.iter_mut() {
            *w = u32::from_le(*w);
        }
        self.left -= len;
        Ok(())
    }

    fn left(&self) -> u64 {
        self.left
    }

    fn rest(&mut self) -> Result<Cow<'_, [u8]>, String> {
        let mut rest = Vec::new();
        (&mut self.decoder)
            .take(self.left.saturating_add(1))
            .read_to_end(&mut rest)
            .map_err(|e| format!("cannot decompress: {e}"))?;
        if rest.len() as u64 != self.left {
            return Err("the chunk does not decompress to the length it states".to_owned());
        }
        self.left = 0;
        Ok(Cow::Owned(rest))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Reads `n` words from `words` in pieces of the sizes `state` draws.
    fn read_all(words: &mut impl WordSource, n: usize, mut state: u64) -> Vec<u32> {
        let mut out = Vec::new();
        while out.len() < n {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let take = ((state >> 33) as usize % 9_000 + 1).min(n - out.len());
            if state & 1 == 0 {
                let mut block = vec![0; take];
                words.fill(&mut block).unwrap();
                out.extend(block);
            } else {
                for _ in 0..take {
                    out.push(words.next().unwrap());
                }
            }
        }
        out
    }

    #[test]
    fn a_stream_reads_the_words_and_rest_of_the_bytes() {
        let words: Vec<u32> = (0..20_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend_from_slice(b"tail");
        let stored = zstd::bulk::compress(&bytes, 3).unwrap();
        let raw_len = bytes.len() as u64;
        let mut stream = StreamWords::new(&stored, raw_len).unwrap();
        let mut slice = SliceWords::new(&bytes);
        assert_eq!(read_all(&mut stream, words.len(), 7), words);
        assert_eq!(read_all(&mut slice, words.len(), 9), words);
        assert_eq!(stream.left(), 4);
        assert_eq!(&*stream.rest().unwrap(), b"tail");
        assert_eq!(&*slice.rest().unwrap(), b"tail");

        // Reading past the stated length, or a stream that states the wrong length, is an
        // error.
        let mut stream = StreamWords::new(&stored, raw_len).unwrap();
        let mut too_many = vec![0; words.len() + 2];
        assert!(stream.fill(&mut too_many).is_err());
        for stated in [raw_len - 1, raw_len + 1, raw_len + 4] {
            let mut stream = StreamWords::new(&stored, stated).unwrap();
            let mut all = vec![0; words.len()];
            let read = stream
                .fill(&mut all)
                .and_then(|()| stream.rest().map(|_| ()));
            assert!(read.is_err(), "stated {stated} of {raw_len}");
        }
        // A stream cut short fails where it ends.
        let mut stream = StreamWords::new(&stored[..stored.len() / 2], raw_len).unwrap();
        let mut all = vec![0; words.len()];
        assert!(stream.fill(&mut all).is_err());
    }
}
