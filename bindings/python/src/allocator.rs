//! The extension's memory allocator: mimalloc, not the process's glibc malloc.
//!
//! A Python read keeps every batch it decodes (a `pyarrow.Table` of the whole scan), while
//! the decoders allocate and free small, 64-byte-aligned buffers between them. In glibc's
//! heap those short-lived buffers land in the gaps between the kept ones, and each aligned
//! allocation searches the fragments: on append_big's 20M rows, `_int_malloc` went from 1%
//! of a read that drops its batches to 6.6% of one that keeps them. mimalloc's per-size pages
//! do not fragment that way. Only Rust's allocations use it; Python and pyarrow keep theirs.
//!
//! Three settings differ from mimalloc's defaults:
//! - the local-dynamic TLS model (`local_dynamic_tls`): Python loads the extension with
//!   `dlopen`, where mimalloc's default initial-exec thread-locals must fit in the loader's
//!   small reserve of static TLS, and an import after other such libraries could fail with
//!   "cannot allocate memory in static TLS block";
//! - no transparent huge pages (the `no_thp` feature): mimalloc would `madvise` its 2 MiB
//!   aligned arenas into huge pages, and faulting those in cost seconds of system time per
//!   read on the machine the benchmarks run on;
//! - freed memory goes back to the OS after 1 s instead of 10 ms ([`PURGE_DELAY_MS`]), so a
//!   read right after another reuses the pages the first one dropped instead of faulting in
//!   new ones (with 10 ms, a second read of append_big faulted in 400,000 pages again).
//!   `MIMALLOC_PURGE_DELAY` in the environment still wins.

use libmimalloc_sys::{mi_option_set, mi_option_t};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in the `mi_option_e` enum of mimalloc 2.3 (`mimalloc.h`; the sys
/// crate does not name it). Cargo.toml pins libmimalloc-sys so that the number cannot move.
const MI_OPTION_PURGE_DELAY: mi_option_t = 15;

/// Milliseconds a freed, unused page stays mapped before mimalloc returns it to the OS.
pub const PURGE_DELAY_MS: i64 = 1000;

/// Applies the settings above; called once when the module is imported.
pub fn configure() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: mi_option_set only stores the value in mimalloc's option table; the option
    // exists in the pinned mimalloc version.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS as _) };
}
