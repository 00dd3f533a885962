//! Java-serialized splits in `*/data_splits/` read the rows the tables' READMEs list.

use crate::common::*;

#[test]
fn dump() {
    let r = reader();
    for (fmt, name) in [
        ("orc", "append_09"),
        ("orc", "append_10"),
        ("orc", "pk_09"),
        ("orc", "append_10_external_path"),
        ("orc", "pk_table_with_dv_cardinality"),
        ("orc", "pk_table_with_alter_table"),
        ("orc", "append_table_with_first_row_id"),
        ("orc", "append_10_stats_dense_store"),
        ("orc", "pk_table_with_total_buckets"),
        ("orc", "pk_dv_index_not_in_data_no_external"),
        ("orc", "pk_dv_index_in_data_with_external"),
        ("parquet", "append_table_with_rt_branch"),
        ("parquet", "append_table_with_append_pt_branch"),
    ] {
        let t = table(fmt, name);
        let dir = if std::path::Path::new(&t).join("data_splits").is_dir() {
            "data_splits"
        } else {
            "data-splits"
        };
        let mut names: Vec<_> = std::fs::read_dir(format!("{t}/{dir}"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        for s in names {
            let bytes = std::fs::read(format!("{t}/{dir}/{s}")).unwrap();
            match r
                .read_bytes(&t, &bytes)
                .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            {
                Ok(b) => println!("{name}/{s}: {:?}", rows(&b)),
                Err(e) => println!("{name}/{s}: ERROR {e}"),
            }
        }
    }
}
