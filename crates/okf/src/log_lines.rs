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
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Bytes queued for the writer thread before further lines are dropped (a stalled reader
/// holds at most this much in memory).
const QUEUE_BYTES: usize = 1 << 20;

/// How long the writer lets lines gather after a write. Under load it then wakes a few
/// hundred times a second whatever the request rate, instead of once per line: a wake-up
/// per request costs a thread switch on every request on a two-core machine.
const GATHER: Duration = Duration::from_millis(2);

/// What the request threads and the writer share.
#[derive(Default)]
struct Queue {
    /// Lines not yet written, in order.
    bytes: Vec<u8>,
    /// How many lines `bytes` holds (counted as dropped if their write fails).
    lines: u64,
    /// The writer is waiting for a line (and must be woken).
    parked: bool,
    /// Callers waiting until every earlier line is written.
    flushes: Vec<SyncSender<()>>,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
}

impl Shared {
    /// The queue; a writer that panicked holding it leaves the lines where they were.
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Wakes the writer if it is waiting.
    fn nudge(&self, queue: &mut Queue) {
        if queue.parked {
            queue.parked = false;
            self.wake.notify_one();
        }
    }
}

/// The process's log sink: a bounded queue drained by one thread that writes to standard
/// error. Cloning shares the queue.
#[derive(Clone)]
pub(crate) struct Sink {
    shared: Arc<Shared>,
}

impl Sink {
    /// Starts the writer thread; `None` if the thread cannot be started.
    pub(crate) fn to_stderr() -> Option<Sink> {
        let shared = Arc::new(Shared::default());
        let drained = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("okf-log".into())
            .spawn(move || write_lines(&drained, &mut io::stderr()))
            .ok()?;
        Some(Sink { shared })
    }

    /// Waits, at most `bound`, until every line queued so far was written.
    pub(crate) fn flush(&self, bound: Duration) {
        let (done, wait) = sync_channel(1);
        {
            let mut queue = self.shared.lock();
            queue.flushes.push(done);
            self.shared.nudge(&mut queue);
        }
        let _ = wait.recv_timeout(bound);
    }
}

/// Flushes the sink (for at most a second) when dropped.
pub(crate) struct FlushOnDrop(pub(crate) Sink);

impl Drop for FlushOnDrop {
    fn drop(&mut self) {
        self.0.flush(Duration::from_secs(1));
    }
}

/// Writes queued lines: everything queued is taken in one write, so a write that fails drops
/// (and counts) the lines it carried.
fn write_lines(shared: &Shared, out: &mut impl Write) {
    let mut batch = Vec::new();
    loop {
        let (lines, flushes) = {
            let mut queue = shared.lock();
            while queue.bytes.is_empty() && queue.flushes.is_empty() {
                queue.parked = true;
                queue = shared
                    .wake
                    .wait(queue)
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
            }
            std::mem::swap(&mut batch, &mut queue.bytes);
            (
                std::mem::take(&mut queue.lines),
                std::mem::take(&mut queue.flushes),
            )
        };
        if !batch.is_empty() {
            match out.write_all(&batch) {
                Ok(()) => okf_server::metrics::log_line_written(),
                Err(_) => (0..lines).for_each(|_| okf_server::metrics::log_line_dropped(true)),
            }
            batch.clear();
        }
        if !flushes.is_empty() {
            let _ = out.flush();
            flushes.iter().for_each(|done| {
                let _ = done.try_send(());
            });
        }
        std::thread::sleep(GATHER);
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut queue = self.shared.lock();
        if queue.bytes.len() + buf.len() > QUEUE_BYTES {
            // The writer is behind (a stalled reader): drop the line, keep serving.
            drop(queue);
            okf_server::metrics::log_line_dropped(false);
        } else {
            queue.bytes.extend_from_slice(buf);
            queue.lines += 1;
            self.shared.nudge(&mut queue);
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
