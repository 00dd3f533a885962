//! The prepared-statement handles Flight SQL clients send back to `paimon serve` (paimon-serve
//! `flight::handle`: the SQL, or a magic, the SQL's length, the SQL and the bound parameters as
//! an Arrow IPC stream) on arbitrary bytes: decoded as `GetFlightInfo`/`DoGet` decode a handle,
//! and the parameters' IPC messages read as a `DoPut` of parameters reads them; no panic,
//! every refusal `INVALID_ARGUMENT`; a parameter batch either path accepts is bound as the
//! server binds it, and the handle it encodes to decodes to the same SQL and values and
//! re-encodes to the same bytes (`paimon_serve::fuzzing::check_statement_handle`, which
//! paimon-serve's tests also run over the committed inputs).
//!
//! The handle module catches panics of arrow-ipc and arrow-flight on hostile bytes and refuses
//! the handle; the target accepts panics caught that way (`run_allowing_caught_panics`) and
//! fails on any that escape or are raised in paimon-rs's own crates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_fuzz::run_allowing_caught_panics;
use paimon_serve::fuzzing::check_statement_handle;

fuzz_target!(|data: &[u8]| {
    run_allowing_caught_panics(|| {
        if let Err(e) = check_statement_handle(data) {
            panic!("{e}");
        }
    });
});
