//! The commit messages a writer hands out, as Java 1.4.2 decodes them: encoded with
//! `paimon_split::commit` at version 11 (Java 1.4 reads no later one), Java's `CommitMessageSerializer` reads them and
//! re-serializes them to the very same bytes (oracle `decode-commit-messages`).

use std::process::Command;

use paimon_split::commit::{
    decode_commit_message_list, encode_commit_message_list, COMMIT_MESSAGE_VERSION_JAVA_1_4,
};

use crate::append::{rows_batch, schema_json};
use crate::common::{create_table, repo, table_write};

#[test]
fn java_decodes_our_messages_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &schema_json(r#""bucket":"2","bucket-key":"id""#, r#""region""#),
    );
    let mut w = table_write(dir.path(), &schema);
    w.write(&rows_batch(&schema)).unwrap();
    let msgs = w.prepare_commit().unwrap();
    assert!(msgs.len() >= 2);
    let bytes = encode_commit_message_list(&msgs, COMMIT_MESSAGE_VERSION_JAVA_1_4).unwrap();
    assert_eq!(
        decode_commit_message_list(&bytes, COMMIT_MESSAGE_VERSION_JAVA_1_4).unwrap(),
        msgs
    );
    let file = dir.path().join("messages.bin");
    std::fs::write(&file, &bytes).unwrap();
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(["decode-commit-messages", "list"])
        .arg(&file)
        .arg(COMMIT_MESSAGE_VERSION_JAVA_1_4.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), msgs.len());
    for (line, msg) in lines.iter().zip(&msgs) {
        assert_eq!(line["bucket"], msg.bucket);
        assert_eq!(line["totalBuckets"], 2);
        let ours =
            paimon_split::commit::encode_commit_message(msg, COMMIT_MESSAGE_VERSION_JAVA_1_4)
                .unwrap();
        let java = line["javaBytes"].as_str().unwrap();
        assert_eq!(java, hex_of(&ours), "Java re-serialized another message");
        let files = line["newFiles"].to_string();
        for f in &msg.data_increment.new_files {
            assert!(files.contains(&f.file_name), "{files}");
        }
    }
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
