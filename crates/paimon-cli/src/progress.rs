//! A progress bar on stderr for long reads (`paimon read`, `paimon read-split`).
//!
//! Shown only when stderr is a terminal, and only once a read has run for a second, so short
//! reads, pipes, scripts and CI logs never see it. The bar measures rows returned against the
//! rows the plan's splits hold; merging, deletion vectors, filters and limits return fewer, so
//! the bar is an upper-bound estimate and the line says so ("of at most").
//!
//! ```text
//! [##########----------]  1,234,567 of at most 2,500,000 rows  1.2M rows/s  1.0 s
//! ```

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How long a read runs before the bar appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);
/// Least time between two redraws.
const REDRAW_EVERY: Duration = Duration::from_millis(100);
/// Cells of the bar.
const BAR_CELLS: usize = 20;

/// The progress of one read; see the module doc.
#[derive(Debug)]
pub struct Progress {
    enabled: bool,
    start: Instant,
    last_draw: Option<Instant>,
    rows: u64,
    planned: u64,
}

impl Progress {
    /// Progress of a read of splits holding `planned` rows, drawn when stderr is a terminal
    /// and `PAIMON_NO_PROGRESS` is not set.
    pub fn new(planned: u64) -> Self {
        let enabled =
            std::io::stderr().is_terminal() && std::env::var_os("PAIMON_NO_PROGRESS").is_none();
        Progress {
            enabled,
            start: Instant::now(),
            last_draw: None,
            rows: 0,
            planned,
        }
    }

    /// Counts `rows` more rows returned, redrawing the bar when it is due.
    pub fn add(&mut self, rows: usize) {
        self.rows = self.rows.saturating_add(rows as u64);
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let elapsed = now.duration_since(self.start);
        let due = match self.last_draw {
            None => elapsed >= SHOW_AFTER,
            Some(t) => now.duration_since(t) >= REDRAW_EVERY,
        };
        if due {
            self.last_draw = Some(now);
            let line = render(self.rows, self.planned, elapsed);
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{line}\x1b[K");
            let _ = err.flush();
        }
    }

    /// Clears the bar, if it was drawn.
    pub fn finish(&mut self) {
        if self.enabled && self.last_draw.take().is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The bar's text: `rows` returned of at most `planned`, after `elapsed`.
pub fn render(rows: u64, planned: u64, elapsed: Duration) -> String {
    let filled = if planned == 0 {
        0
    } else {
        let f = (rows.min(planned) as u128 * BAR_CELLS as u128 / planned as u128) as usize;
        f.min(BAR_CELLS)
    };
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { rows as f64 / secs } else { 0.0 };
    format!(
        "[{}{}]  {} of at most {} rows  {} rows/s  {:.1} s",
        "#".repeat(filled),
        "-".repeat(BAR_CELLS - filled),
        grouped(rows),
        grouped(planned),
        short(rate),
        secs
    )
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A rate with a k / M / G suffix and one decimal.
fn short(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.1}G", x / 1e9),
        x if x >= 1e6 => format!("{:.1}M", x / 1e6),
        x if x >= 1e3 => format!("{:.1}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_fraction_counts_rate_and_time() {
        assert_eq!(
            render(1_234_567, 2_469_134, Duration::from_millis(1000)),
            "[##########----------]  1,234,567 of at most 2,469,134 rows  1.2M rows/s  1.0 s"
        );
        assert_eq!(
            render(0, 0, Duration::from_millis(2500)),
            "[--------------------]  0 of at most 0 rows  0 rows/s  2.5 s"
        );
        // More rows than planned (a plan's count is only an estimate) fills the bar, no more.
        assert_eq!(
            render(999, 10, Duration::from_secs(2)),
            "[####################]  999 of at most 10 rows  500 rows/s  2.0 s"
        );
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(999), "999");
        assert_eq!(short(2_500.0), "2.5k");
        assert_eq!(short(3.2e9), "3.2G");
    }

    #[test]
    fn stays_silent_off_a_terminal() {
        // Test runs capture stderr, so it is not a terminal: nothing is drawn.
        let mut p = Progress::new(10);
        p.start -= Duration::from_secs(5);
        p.add(5);
        assert!(p.last_draw.is_none());
        assert_eq!(p.rows, 5);
    }
}
