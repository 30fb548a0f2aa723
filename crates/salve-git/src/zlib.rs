//! zlib for loose objects, with the compressor's state kept between objects.
//!
//! A fresh compressor allocates and clears a few hundred KiB of tables; a checkpoint writes
//! about seven small objects, and setting up a compressor for each was a tenth of a default
//! apply's CPU time (a profile of 30 applies). Compressors are kept in a small pool and reset
//! between uses, so each thread writing objects sets one up once per process.

use std::sync::Mutex;

use flate2::{Compress, Compression, FlushCompress, Status};

/// At most this many idle compressors are kept (threads writing objects at once).
const KEPT: usize = 4;

static IDLE: Mutex<Vec<Compress>> = Mutex::new(Vec::new());

/// The zlib stream of `parts` one after the other, at git's level for loose objects
/// (`core.looseCompression` defaults to 1: speed).
pub(crate) fn compress(parts: &[&[u8]]) -> std::io::Result<Vec<u8>> {
    let mut c = IDLE
        .lock()
        .ok()
        .and_then(|mut idle| idle.pop())
        .unwrap_or_else(|| Compress::new(Compression::fast(), true));
    c.reset();
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut out = Vec::with_capacity(total / 2 + 64);
    let result = parts
        .iter()
        .try_for_each(|part| feed(&mut c, part, &mut out, FlushCompress::None).map(drop))
        .and_then(|()| finish(&mut c, &mut out));
    if let Ok(mut idle) = IDLE.lock() {
        if idle.len() < KEPT {
            idle.push(c);
        }
    }
    result.map(|()| out)
}

/// Compress all of `input` into `out`, growing it as needed.
fn feed(
    c: &mut Compress,
    mut input: &[u8],
    out: &mut Vec<u8>,
    flush: FlushCompress,
) -> std::io::Result<Status> {
    loop {
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(256));
        }
        let before = c.total_in();
        let status = c
            .compress_vec(input, out, flush)
            .map_err(std::io::Error::other)?;
        let used = usize::try_from(c.total_in() - before).unwrap_or(input.len());
        input = input.get(used..).unwrap_or_default();
        if input.is_empty() && (status == Status::StreamEnd || flush == FlushCompress::None) {
            return Ok(status);
        }
    }
}

/// End the stream: compress what is buffered and write the trailer.
fn finish(c: &mut Compress, out: &mut Vec<u8>) -> std::io::Result<()> {
    feed(c, &[], out, FlushCompress::Finish).map(drop)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::io::Read as _;

    use super::*;

    fn inflate(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(bytes)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn streams_read_back_whole_whatever_their_size_and_order() {
        let big: Vec<u8> = (0..300_000u32)
            .flat_map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes())
            .collect();
        let cases: [&[&[u8]]; 5] = [
            &[b"blob 0\0", b""],
            &[b"tree 3\0", b"abc"],
            &[b"blob 1200000\0", &big],
            &[b"", b""],
            &[b"blob 5\0", b"hello"],
        ];
        // Twice over: the second round reuses the compressors the first left in the pool.
        for _ in 0..2 {
            for parts in cases {
                let whole: Vec<u8> = parts.concat();
                assert_eq!(inflate(&compress(parts).unwrap()), whole);
            }
        }
    }
}
