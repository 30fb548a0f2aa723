//! Server-sent events, as much as streaming chat APIs use: `data:` lines gathered into events
//! that end at a blank line; comments (`:`), `event:`, `id:` and `retry:` lines are skipped.

use std::io::BufRead;

use crate::provider::{Failure, FailureKind};

use super::io_failure;

/// Whether the reader should go on after an event.
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// Feed every event's data to `on_data` until it says stop or the stream ends. Returns true
/// when `on_data` stopped the stream, false when the stream just ended. More than `limit`
/// bytes is a failure.
pub(crate) fn read_events(
    reader: impl BufRead,
    limit: u64,
    mut on_data: impl FnMut(&str) -> Result<Flow, Failure>,
) -> Result<bool, Failure> {
    let mut data = String::new();
    let mut total: u64 = 0;
    let mut lines = reader.lines();
    loop {
        let line = match lines.next() {
            Some(Ok(line)) => line,
            Some(Err(e)) => return Err(io_failure(&e)),
            None => break,
        };
        total += line.len() as u64 + 1;
        if total > limit {
            return Err(Failure::new(
                FailureKind::TooLarge,
                format!("the stream passed {limit} bytes"),
            ));
        }
        let line = line.strip_suffix('\r').unwrap_or(&line);
        if line.is_empty() {
            if !data.is_empty() {
                let flow = on_data(&data)?;
                data.clear();
                if let Flow::Stop = flow {
                    return Ok(true);
                }
            }
            continue;
        }
        if let Some(value) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    // A last event without its blank line still counts.
    if !data.is_empty() {
        if let Flow::Stop = on_data(&data)? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_gathered_and_comments_skipped() {
        let stream = ": ping\n\ndata: a\ndata: b\n\nevent: x\ndata: [DONE]\n\ndata: never\n\n";
        let mut seen = Vec::new();
        let stopped = read_events(stream.as_bytes(), 1 << 20, |d| {
            seen.push(d.to_owned());
            Ok(if d == "[DONE]" {
                Flow::Stop
            } else {
                Flow::Continue
            })
        })
        .unwrap_or(false);
        assert!(stopped);
        assert_eq!(seen, vec!["a\nb".to_owned(), "[DONE]".to_owned()]);
    }

    #[test]
    fn a_stream_past_the_limit_fails() {
        let stream = "data: 0123456789\n\n".repeat(10);
        let result = read_events(stream.as_bytes(), 50, |_| Ok(Flow::Continue));
        assert!(matches!(result, Err(f) if f.kind == FailureKind::TooLarge));
    }
}
