//! zlib for git objects, loose and in salve's packs.
//!
//! A compressor allocates and clears a few hundred KiB of tables per stream; a checkpoint
//! writes about seven objects, and setting one up per object was a tenth of a default apply's
//! CPU (callgrind and perf over a loop of applies). So: file contents are compressed as git
//! does, by compressors kept in a small pool (one set up per writing thread and process), and
//! trees and commits, which are mostly object ids that do not compress, are written as stored
//! blocks: a valid zlib stream, what git itself writes under `core.looseCompression = 0`.

use std::sync::Mutex;

use flate2::{Compress, Compression, FlushCompress, Status};

/// At most this many idle compressors are kept (threads writing objects at once).
const KEPT: usize = 4;

static IDLE: Mutex<Vec<Compress>> = Mutex::new(Vec::new());

/// The zlib stream of `parts` one after the other, at git's level for loose objects
/// (`core.looseCompression` defaults to 1: speed).
pub(crate) fn compress(parts: &[&[u8]]) -> std::io::Result<Vec<u8>> {
    let kept = IDLE.lock().ok().and_then(|mut idle| idle.pop());
    let mut c = match kept {
        Some(mut c) => {
            c.reset();
            c
        }
        None => Compress::new(Compression::fast(), true),
    };
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

/// The zlib stream of `parts` one after the other, uncompressed: stored blocks of at most
/// 65,535 bytes each (RFC 1950 and 1951).
pub(crate) fn store(parts: &[&[u8]]) -> Vec<u8> {
    const BLOCK: usize = 65_535;
    let data = parts.concat();
    let blocks = data.len().div_ceil(BLOCK).max(1);
    let mut out = Vec::with_capacity(data.len() + 5 * blocks + 6);
    // CMF: deflate, 32 KiB window; FLG: no dictionary, fastest level, and a check value that
    // makes CMF * 256 + FLG a multiple of 31.
    out.extend_from_slice(&[0x78, 0x01]);
    let mut chunks = data.chunks(BLOCK).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = u8::from(chunks.peek().is_none());
        let len = u16::try_from(chunk.len()).unwrap_or(u16::MAX);
        out.push(last);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&adler32(&data).to_be_bytes());
    out
}

/// The data of a zlib stream made of stored blocks only (as [`store`] writes them), checked
/// against its Adler-32; `None` for any other stream (compressed blocks, a preset dictionary, a
/// damaged one), which the caller inflates instead. Setting up an inflater clears tables
/// several times the size of the trees and commits salve reads back.
pub(crate) fn unstore(stream: &[u8]) -> Option<Vec<u8>> {
    let (&[cmf, flg], mut rest) = stream.split_first_chunk::<2>()?;
    if cmf & 0x0f != 8 || (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0 || flg & 0x20 != 0 {
        return None;
    }
    let mut data = Vec::with_capacity(stream.len());
    loop {
        let (&[header, l0, l1, n0, n1], after) = rest.split_first_chunk::<5>()?;
        let len = u16::from_le_bytes([l0, l1]);
        if header & 0b110 != 0 || len != !u16::from_le_bytes([n0, n1]) {
            return None;
        }
        let (chunk, after) = after.split_at_checked(usize::from(len))?;
        data.extend_from_slice(chunk);
        rest = after;
        if header & 1 == 1 {
            break;
        }
    }
    let sum = u32::from_be_bytes(*rest.first_chunk::<4>()?);
    (sum == adler32(&data)).then_some(data)
}

/// The Adler-32 checksum zlib ends a stream with.
fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    // 5,552 bytes is the most that can be summed before `b` could overflow a u32.
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
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
    fn stored_streams_read_back_whole_whatever_their_size() {
        let big: Vec<u8> = (0..70_000u32)
            .flat_map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes())
            .collect();
        for data in [
            &b""[..],
            b"x",
            b"tree 3\0abc",
            &big[..65_535],
            &big[..65_536],
            &big,
        ] {
            let stream = store(&[
                data.get(..1).unwrap_or_default(),
                data.get(1..).unwrap_or_default(),
            ]);
            assert_eq!(inflate(&stream), data, "{} bytes", data.len());
            // The header's check value (the decoder above checked the Adler-32).
            assert_eq!(u16::from_be_bytes([stream[0], stream[1]]) % 31, 0);
            assert!(stream.len() >= data.len() + 11);
        }
        // Read back without an inflater, whole or not at all.
        for data in [&b""[..], b"tree 3\0abc", &big[..65_536], &big] {
            let stream = store(&[data]);
            assert_eq!(unstore(&stream).as_deref(), Some(data));
            let mut damaged = stream.clone();
            let last = damaged.len() - 5;
            damaged[last] ^= 1;
            assert_eq!(unstore(&damaged), None, "a flipped byte is caught");
            assert_eq!(
                unstore(&stream[..stream.len() - 1]),
                None,
                "a cut stream is refused"
            );
        }
        // A compressed stream is left to the inflater.
        assert_eq!(unstore(&compress(&[b"hello hello hello"]).unwrap()), None);
        // The checksum's worked example.
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
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
