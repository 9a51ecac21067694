//! The server log's last line of defence: whatever a field holds, one event stays one line.
//! Control characters inside an event are escaped and an event is cut at
//! [`MAX_LINE_BYTES`], so no request-controlled value (a path, a tool name, a header) can
//! forge a log line or flood the log. The HTTP layer already escapes and truncates the
//! fields it logs; this guards every other target too.
//!
//! Lines go to standard error through [`Sink`]: a bounded queue and one writer thread, so a
//! failing log (a full disk, `2>/dev/full`, a closed pipe) or a stalled one (a reader that
//! stopped reading) costs log lines, never requests. A line that cannot be queued or written
//! is dropped and counted (`okf_log_lines_dropped_total`, `/health`'s `log`).

use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::Duration;

/// Lines queued for the writer thread before further lines are dropped.
const QUEUE_LINES: usize = 8192;

/// What the writer thread receives.
enum Message {
    /// One finished line.
    Line(Vec<u8>),
    /// Answer on the channel once every earlier line was written.
    Flush(SyncSender<()>),
}

/// The process's log sink: a bounded queue drained by one thread that writes to standard
/// error. Cloning shares the queue.
#[derive(Clone)]
pub(crate) struct Sink {
    queue: SyncSender<Message>,
}

impl Sink {
    /// Starts the writer thread; `None` if the thread cannot be started.
    pub(crate) fn to_stderr() -> Option<Sink> {
        let (queue, lines) = sync_channel(QUEUE_LINES);
        std::thread::Builder::new()
            .name("okf-log".into())
            .spawn(move || write_lines(&lines, &mut io::stderr()))
            .ok()?;
        Some(Sink { queue })
    }

    /// Waits, at most `bound`, until every line queued so far was written.
    pub(crate) fn flush(&self, bound: Duration) {
        let (done, wait) = sync_channel(1);
        if self.queue.try_send(Message::Flush(done)).is_ok() {
            let _ = wait.recv_timeout(bound);
        }
    }
}

/// Flushes the sink (for at most a second) when dropped.
pub(crate) struct FlushOnDrop(pub(crate) Sink);

impl Drop for FlushOnDrop {
    fn drop(&mut self) {
        self.0.flush(Duration::from_secs(1));
    }
}

/// Most bytes gathered from the queue into one write.
const BATCH_BYTES: usize = 64 * 1024;

/// Writes queued lines, gathering whatever is already queued into one write: under load the
/// thread wakes once per batch rather than once per line, and a write that fails drops (and
/// counts) the lines of its batch.
fn write_lines(lines: &Receiver<Message>, out: &mut impl Write) {
    let mut batch: Vec<u8> = Vec::with_capacity(BATCH_BYTES);
    let mut count = 0u64;
    let flush = |batch: &mut Vec<u8>, count: &mut u64, out: &mut dyn Write| {
        if batch.is_empty() {
            return;
        }
        match out.write_all(batch) {
            Ok(()) => okf_server::metrics::log_line_written(),
            Err(_) => (0..*count).for_each(|_| okf_server::metrics::log_line_dropped(true)),
        }
        batch.clear();
        *count = 0;
    };
    while let Ok(first) = lines.recv() {
        let mut next = Some(first);
        while let Some(message) = next.take() {
            match message {
                Message::Line(line) => {
                    batch.extend_from_slice(&line);
                    count += 1;
                }
                Message::Flush(done) => {
                    flush(&mut batch, &mut count, out);
                    let _ = out.flush();
                    let _ = done.try_send(());
                }
            }
            if batch.len() < BATCH_BYTES {
                next = lines.try_recv().ok();
            }
        }
        flush(&mut batch, &mut count, out);
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.queue.try_send(Message::Line(buf.to_vec())) {
            Ok(()) => {}
            // The writer is behind (a stalled reader) or gone: drop the line, keep serving.
            Err(TrySendError::Full(_)) => okf_server::metrics::log_line_dropped(false),
            Err(TrySendError::Disconnected(_)) => okf_server::metrics::log_line_dropped(true),
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Longest log line written, in bytes (before the newline).
pub(crate) const MAX_LINE_BYTES: usize = 4096;

/// A writer that receives one formatted event per `write` (as tracing-subscriber's fmt
/// layer does) and writes it as exactly one safe line.
pub(crate) struct OneLine<W> {
    inner: W,
    /// Keep ESC for terminal colours.
    ansi: bool,
}

impl<W> OneLine<W> {
    pub(crate) fn new(inner: W, ansi: bool) -> Self {
        OneLine { inner, ansi }
    }
}

impl<W: Write> Write for OneLine<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let event = buf.strip_suffix(b"\n").unwrap_or(buf);
        let mut line = Vec::with_capacity(event.len().min(MAX_LINE_BYTES) + 8);
        for &b in event {
            // Cut only at a character boundary (never inside a UTF-8 sequence).
            if line.len() >= MAX_LINE_BYTES && (b & 0xC0) != 0x80 {
                line.extend_from_slice(b"...[cut]");
                break;
            }
            match b {
                b'\n' => line.extend_from_slice(b"\\n"),
                b'\r' => line.extend_from_slice(b"\\r"),
                b'\t' => line.extend_from_slice(b"\\t"),
                0x1b if self.ansi => line.push(b),
                0..=0x1f | 0x7f => line.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
                _ => line.push(b),
            }
        }
        line.push(b'\n');
        self.inner.write_all(&line)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(event: &[u8]) -> String {
        let mut out = Vec::new();
        OneLine::new(&mut out, false).write_all(event).unwrap_or(());
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn an_event_with_newlines_and_nul_stays_one_line() {
        let line = through(b"INFO okf::mcp: tool=x\nINFO forged status=200\0 y\n");
        assert_eq!(line.matches('\n').count(), 1);
        assert!(line.ends_with('\n'));
        assert!(line.contains("x\\nINFO forged status=200\\x00 y"));
    }

    #[test]
    fn a_huge_event_is_cut_on_a_character_boundary() {
        let event = "é".repeat(MAX_LINE_BYTES);
        let line = through(event.as_bytes());
        assert!(line.len() <= MAX_LINE_BYTES + 16);
        assert!(line.ends_with("...[cut]\n"));
    }
}
