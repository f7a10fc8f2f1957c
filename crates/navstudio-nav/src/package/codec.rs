//! Little-endian byte writing and a bounds-checked reader that reports what it was reading.

/// Appends little-endian values to a byte buffer.
#[derive(Default)]
pub(super) struct ByteWriter {
    pub(super) bytes: Vec<u8>,
}

impl ByteWriter {
    pub(super) fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    pub(super) fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn len_u32(&mut self, v: usize) {
        // Every count we store is bounded by the map size limit, far below u32::MAX.
        self.u32(u32::try_from(v).unwrap_or(u32::MAX));
    }
    pub(super) fn u32s(&mut self, vs: &[u32]) {
        for &v in vs {
            self.u32(v);
        }
    }
    pub(super) fn raw(&mut self, vs: &[u8]) {
        self.bytes.extend_from_slice(vs);
    }
    /// LEB128: 7 bits per byte, high bit = more bytes follow.
    pub(super) fn varint(&mut self, mut v: u32) {
        while v >= 0x80 {
            self.bytes.push((v as u8 & 0x7F) | 0x80);
            v >>= 7;
        }
        self.bytes.push(v as u8);
    }
    /// Zig-zag signed LEB128 (small magnitudes of either sign stay short).
    pub(super) fn varint_signed(&mut self, v: i64) {
        let z = ((v << 1) ^ (v >> 63)) as u64;
        self.varint(u32::try_from(z).unwrap_or(u32::MAX));
    }
}

/// Why a read failed; turned into a `PackageError` with the file name by the caller.
#[derive(Debug)]
pub(super) enum ReadFault {
    Truncated(String),
    Invalid(String),
}

/// Reads little-endian values, never past the end and never allocating more than the bytes
/// present can fill.
pub(super) struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    pub(super) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub(super) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ReadFault> {
        if n > self.remaining() {
            return Err(ReadFault::Truncated(format!(
                "{what}: needs {n} bytes, {} left",
                self.remaining()
            )));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub(super) fn u8(&mut self, what: &str) -> Result<u8, ReadFault> {
        Ok(self.take(1, what)?[0])
    }

    pub(super) fn u32(&mut self, what: &str) -> Result<u32, ReadFault> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(super) fn u64(&mut self, what: &str) -> Result<u64, ReadFault> {
        let b = self.take(8, what)?;
        let mut a = [0_u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A count of items of `item_len` bytes each that must fit in the bytes left.
    pub(super) fn count(&mut self, item_len: usize, what: &str) -> Result<usize, ReadFault> {
        let n = self.u32(what)? as usize;
        if n.saturating_mul(item_len) > self.remaining() {
            return Err(ReadFault::Truncated(format!(
                "{what}: {n} items claimed, only {} bytes left",
                self.remaining()
            )));
        }
        Ok(n)
    }

    pub(super) fn u32s(&mut self, n: usize, what: &str) -> Result<Vec<u32>, ReadFault> {
        let mut out = Vec::new();
        self.u32s_into(n, what, &mut out)?;
        Ok(out)
    }

    /// [`Self::u32s`] into `out` (cleared first), reusing its buffer.
    pub(super) fn u32s_into(
        &mut self,
        n: usize,
        what: &str,
        out: &mut Vec<u32>,
    ) -> Result<(), ReadFault> {
        let b = self.take(n.saturating_mul(4), what)?;
        out.clear();
        out.extend(
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
        Ok(())
    }

    /// Inlined with the one- and two-byte cases first: the graph chunk holds some 23 million
    /// numbers at 8192², most of them one or two bytes, and a call per number was a third
    /// of its parse.
    #[inline]
    pub(super) fn varint(&mut self, what: &str) -> Result<u32, ReadFault> {
        match self.bytes.get(self.pos..self.pos + 2) {
            Some(&[b0, _]) if b0 < 0x80 => {
                self.pos += 1;
                Ok(u32::from(b0))
            }
            Some(&[b0, b1]) if b1 < 0x80 => {
                self.pos += 2;
                Ok(u32::from(b0 & 0x7F) | u32::from(b1) << 7)
            }
            _ => self.varint_long(what),
        }
    }

    /// [`Self::varint`] of three bytes or more, or at the end of the data.
    #[cold]
    #[inline(never)]
    fn varint_long(&mut self, what: &str) -> Result<u32, ReadFault> {
        let mut v: u64 = 0;
        for shift in (0..35).step_by(7) {
            let b = self.u8(what)?;
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(v)
                    .map_err(|_| ReadFault::Invalid(format!("{what}: number out of range")));
            }
        }
        Err(ReadFault::Invalid(format!(
            "{what}: number longer than 5 bytes"
        )))
    }

    #[inline]
    pub(super) fn varint_signed(&mut self, what: &str) -> Result<i64, ReadFault> {
        let z = i64::from(self.varint(what)?);
        Ok((z >> 1) ^ -(z & 1))
    }

    pub(super) fn finish(&self, what: &str) -> Result<(), ReadFault> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(ReadFault::Invalid(format!(
                "{what}: {} unexpected bytes after the end",
                self.remaining()
            )))
        }
    }
}
