//! `paimon sql` `SHOW TAGS db.t` (Paimon's Spark extension, issue 43) on tags Java Paimon 1.4.2
//! created (`scripts/java-oracle.sh table-op T create-tag`): one column `tag`, the names in the
//! order Java's `ShowTagsExec` sorts them (kept here).

use crate::maintenance::oracle;
use crate::sql_call::{kv_table, sql};
use crate::write_cmd::{paimon, s};

#[test]
fn show_tags_lists_the_tags_java_created_in_java_order() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = kv_table(wh, &[]);
    assert_eq!(sql(wh, "SHOW TAGS db.kv"), "tag\n");
    for i in 1..=3 {
        sql(wh, &format!("INSERT INTO db.kv VALUES ({i}, 'v{i}')"));
    }
    for (tag, snapshot) in [
        ("t2", "2"),
        ("t10", "3"),
        ("T1", "1"),
        ("2024-01-01", "1"),
        ("a_b", "2"),
        ("t1", "3"),
    ] {
        oracle(&["table-op", s(&t), "create-tag", tag, snapshot]);
    }
    // Two names whose UTF-16 order is not their UTF-8 byte order, tagged through our SQL (a
    // JVM outside a UTF-8 locale cannot name such files): U+1F600 is the surrogates D83D DE00,
    // before U+FF21 in Java's order, after it in bytes (F0.. against EF..).
    sql(wh, "CALL sys.create_tag('db.kv', '\u{FF21}', 1)");
    sql(wh, "CALL sys.create_tag('db.kv', '\u{1F600}', 2)");
    // Java sorts by UTF-16 code units: digits, upper case, `_`, lower case (`t10` before
    // `t2`), then the two above.
    let want = "tag\n2024-01-01\nT1\na_b\nt1\nt10\nt2\n\u{1F600}\n\u{FF21}\n";
    assert_eq!(sql(wh, "SHOW TAGS db.kv"), want);
    assert_eq!(sql(wh, "show tags `db`.`kv`;"), want);
    // A tag we delete is gone from the list.
    sql(wh, "CALL sys.delete_tag('db.kv', 't10')");
    assert_eq!(
        sql(wh, "SHOW TAGS db.kv"),
        "tag\n2024-01-01\nT1\na_b\nt1\nt2\n\u{1F600}\n\u{FF21}\n"
    );

    for (statement, cause) in [
        (
            "SHOW TAGS db.nope",
            "SHOW TAGS db.nope: No table named 'nope'",
        ),
        ("SHOW TAGS db kv", "SHOW TAGS takes one table name"),
        ("SHOW TAGS", "SHOW TAGS takes one table name"),
        ("SHOW TAGS db.kv.x.y", "SHOW TAGS db.kv.x.y"),
    ] {
        let out = paimon(&["sql", s(wh), statement]);
        assert!(!out.status.success(), "{statement}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(cause), "{statement}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{statement}: {err}");
    }
}
