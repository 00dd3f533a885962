//! The Flight tickets `paimon serve` takes back from clients (paimon-serve `flight`): split
//! tickets a worker reads at `DoGet` (`SplitTicket::decode`, with the read options and split
//! frames they carry) and the planner's scan tickets (`ticket::node_of`), on arbitrary bytes:
//! no panic, every refusal an error; a decoded split ticket names a plain database and table
//! directory, and re-encodes to bytes that decode to the same ticket and re-encode the same
//! (`paimon_serve::fuzzing::check_split_ticket`, which paimon-serve's tests also run over the
//! committed inputs).
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_serve::fuzzing::check_split_ticket;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = check_split_ticket(data) {
        panic!("{e}");
    }
});
