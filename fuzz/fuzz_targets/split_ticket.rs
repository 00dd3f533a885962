//! The Flight tickets `paimon serve` takes back from clients (paimon-serve `flight`): split
//! tickets a worker reads at `DoGet` (`SplitTicket::decode`, with the read options and split
//! frames they carry) and the planner's scan tickets (`ticket::node_of`), on arbitrary bytes:
//! no panic, every refusal an error; a decoded split ticket names a plain database and table
//! directory, and re-encodes to bytes that decode to the same ticket and re-encode the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_serve::flight::split_ticket::SplitTicket;
use paimon_serve::flight::ticket;
use paimon_spec::layout::check_file_name;

fuzz_target!(|data: &[u8]| {
    let _ = ticket::node_of(data);
    let Ok(t) = SplitTicket::decode(data) else {
        return;
    };
    check_file_name("database", &format!("{}.db", t.database)).expect("a plain database name");
    check_file_name("table", &t.table).expect("a plain table name");
    let _ = paimon_split::decode_read_options(&t.options);
    for s in &t.splits {
        let _ = paimon_split::decode_any(s);
    }
    let once = t.encode().expect("a decoded ticket re-encodes");
    let again = SplitTicket::decode(&once.ticket).expect("a re-encoded ticket decodes");
    assert_eq!(again, t, "a ticket changed in a round trip");
    assert_eq!(again.encode().unwrap().ticket, once.ticket);
});
