//! Names checked against what Java 1.4.2 wrote in `fixtures/warehouse` (directory names quoted
//! in the comments) and against Java's `DataFilePathFactory` rules.

use super::*;
use crate::binary::Datum;
use crate::types::{DataField, DataType, TypeKind};

#[test]
fn table_and_branch_paths() {
    let t = TableLayout::new("/w/db.db/t/");
    assert_eq!(t.root(), "/w/db.db/t");
    assert_eq!(t.manifest_dir(), "/w/db.db/t/manifest");
    assert_eq!(
        t.manifest_path("manifest-x-0"),
        "/w/db.db/t/manifest/manifest-x-0"
    );
    assert_eq!(t.index_path("index-u-1"), "/w/db.db/t/index/index-u-1");
    assert_eq!(
        t.statistics_path("stat-u-0"),
        "/w/db.db/t/statistics/stat-u-0"
    );
    let main = t.branch("main");
    assert_eq!(main.root(), "/w/db.db/t");
    assert_eq!(t.branch(" ").root(), "/w/db.db/t");
    assert_eq!(main.schema_path(0), "/w/db.db/t/schema/schema-0");
    assert_eq!(main.snapshot_path(12), "/w/db.db/t/snapshot/snapshot-12");
    assert_eq!(main.latest_hint(), "/w/db.db/t/snapshot/LATEST");
    assert_eq!(main.earliest_hint(), "/w/db.db/t/snapshot/EARLIEST");
    assert_eq!(main.changelog_path(3), "/w/db.db/t/changelog/changelog-3");
    assert_eq!(main.tag_path("t1"), "/w/db.db/t/tag/tag-t1");
    // pk.db/many_snapshots/branch/branch-b1/schema/schema-0
    let b = t.branch("b1");
    assert_eq!(b.root(), "/w/db.db/t/branch/branch-b1");
    assert_eq!(
        b.schema_path(0),
        "/w/db.db/t/branch/branch-b1/schema/schema-0"
    );
    assert_eq!(b.snapshot_dir(), "/w/db.db/t/branch/branch-b1/snapshot");
    assert_eq!(
        TableLayout::new("s3://b/t").manifest_dir(),
        "s3://b/t/manifest"
    );
}

#[test]
fn ids_and_buckets() {
    assert_eq!(parse_id(SNAPSHOT_PREFIX, "snapshot-17"), Some(17));
    assert_eq!(parse_id(SNAPSHOT_PREFIX, "snapshot-"), None);
    assert_eq!(parse_id(SNAPSHOT_PREFIX, "snapshot-+1"), None);
    assert_eq!(parse_id(SNAPSHOT_PREFIX, "snapshot-1.tmp"), None);
    assert_eq!(parse_id(SCHEMA_PREFIX, "schema-3"), Some(3));
    assert_eq!(parse_id(SCHEMA_PREFIX, "snapshot-3"), None);
    // pk.db/postpone_bucket/bucket-postpone, append.db/fixed_bucket/bucket-0
    assert_eq!(bucket_dir_name(POSTPONE_BUCKET), "bucket-postpone");
    assert_eq!(bucket_dir_name(0), "bucket-0");
    assert_eq!(bucket_dir_name(-1), "bucket--1");
    assert_eq!(parse_bucket_dir_name("bucket-postpone"), Some(-2));
    assert_eq!(parse_bucket_dir_name("bucket-7"), Some(7));
    let t = TableLayout::new("/t");
    assert_eq!(t.bucket_dir(None, "", 3), "/t/bucket-3");
    assert_eq!(t.bucket_dir(None, "dt=1/h=2/", 0), "/t/dt=1/h=2/bucket-0");
    assert_eq!(
        t.bucket_dir(Some("data"), "dt=1/", 0),
        "/t/data/dt=1/bucket-0"
    );
    assert_eq!(
        external_bucket_dir("oss://x/ext", "dt=1/", 2),
        "oss://x/ext/dt=1/bucket-2"
    );
}

#[test]
fn metadata_file_names() {
    // append.db/fixed_bucket/manifest/manifest-32d98360-2b08-4620-8a8e-00e2f6e58a84-0 etc.
    let u = "32d98360-2b08-4620-8a8e-00e2f6e58a84";
    assert_eq!(manifest_file_name(u, 0), format!("manifest-{u}-0"));
    assert_eq!(
        manifest_list_file_name(u, 1),
        format!("manifest-list-{u}-1")
    );
    // pk.db/dv64/manifest/index-manifest-1b996483-...-0, pk.db/dv64/index/index-dbee4c67-...-1
    assert_eq!(
        index_manifest_file_name(u, 0),
        format!("index-manifest-{u}-0")
    );
    assert_eq!(index_file_name(u, 1), format!("index-{u}-1"));
    assert_eq!(statistics_file_name(u, 0), format!("stat-{u}-0"));
    // append.db/file_index_sidecar/bucket-0/data-4d5e...-0.parquet.index
    assert_eq!(
        data_file_index_name("data-a-0.parquet"),
        "data-a-0.parquet.index"
    );
}

#[test]
fn data_file_names_follow_data_file_path_factory() {
    assert_eq!(data_file_extension("parquet", "zstd", false), ".parquet");
    assert_eq!(data_file_extension("parquet", "zstd", true), ".zst.parquet");
    assert_eq!(data_file_extension("orc", "lz4", true), ".lz4.orc");
    assert_eq!(data_file_extension("orc", "none", true), ".orc");
    assert_eq!(data_file_extension("orc", "", true), ".orc");
    assert_eq!(data_file_extension("avro", "GZIP", true), ".gz.avro");
    assert_eq!(
        data_file_extension("parquet", "brotli", true),
        ".brotli.parquet"
    );
    assert_eq!(data_file_extension("csv", "gzip", false), ".csv.gz");
    assert_eq!(data_file_extension("json", "bzip2", false), ".json.bz2");
    assert_eq!(data_file_extension("csv", "none", true), ".csv");
    let n = DataFileNames::new(".parquet");
    // pk.db/changelog_input/bucket-0/changelog-b1c8fa52-...-0.parquet
    assert_eq!(n.data_file("u", 0), "data-u-0.parquet");
    assert_eq!(n.changelog_file("u", 2), "changelog-u-2.parquet");
    assert_eq!(n.blob_file("u", 1), "data-u-1.blob");
    let n = n.with_data_prefix("d_").with_changelog_prefix("c_");
    assert_eq!(n.data_file("u", 0), "d_u-0.parquet");
    assert_eq!(n.changelog_file("u", 0), "c_u-0.parquet");
    let raw = [
        ("file.format", "ORC"),
        ("file.compression", "zstd"),
        ("file.suffix.include.compression", "true"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let o = crate::options::CoreOptions::try_new(&raw).unwrap();
    assert_eq!(
        DataFileNames::from_options(&o).data_file("u", 0),
        "data-u-0.zst.orc"
    );
}

#[test]
fn partition_names_as_java_wrote_them() {
    let fields = vec![
        DataField::new(2, "region", DataType::string()),
        DataField::new(3, "yr", DataType::nullable(TypeKind::Int)),
        DataField::new(4, "dt", DataType::nullable(TypeKind::Date)),
    ];
    let d = DEFAULT_PARTITION_NAME;
    // append.db/part_multi/region=a%2Fb%3Dc%25d, region=sp ace, region=日本, yr=__DEFAULT_PARTITION__,
    // dt=10957 (legacy names print a date as its day number)
    let p = |r: Datum, y: Datum, dt: Datum| partition_path(&fields, &[r, y, dt], d, true);
    assert_eq!(
        p(
            Datum::String("a/b=c%d".into()),
            Datum::Int(2023),
            Datum::Date(10957)
        )
        .unwrap(),
        "region=a%2Fb%3Dc%25d/yr=2023/dt=10957/"
    );
    assert_eq!(
        p(Datum::String("sp ace".into()), Datum::Null, Datum::Date(-1)).unwrap(),
        "region=sp ace/yr=__DEFAULT_PARTITION__/dt=-1/"
    );
    assert_eq!(
        p(Datum::String("日本".into()), Datum::Int(1), Datum::Null).unwrap(),
        "region=日本/yr=1/dt=__DEFAULT_PARTITION__/"
    );
    // Blank values take the default name (Java `isNullOrWhitespaceOnly`); U+00A0 is not blank.
    assert_eq!(
        p(
            Datum::String(" \t\u{1F}".into()),
            Datum::Int(1),
            Datum::Date(0)
        )
        .unwrap(),
        "region=__DEFAULT_PARTITION__/yr=1/dt=0/"
    );
    assert_eq!(
        p(
            Datum::String("\u{A0}".into()),
            Datum::Int(1),
            Datum::Date(0)
        )
        .unwrap(),
        "region=\u{A0}/yr=1/dt=0/"
    );
    // pk.db/partitioned/dt=2024-01-01 (partition.legacy-name = false)
    let dt = [DataField::new(0, "dt", DataType::nullable(TypeKind::Date))];
    assert_eq!(
        partition_path(&dt, &[Datum::Date(19723)], d, false).unwrap(),
        "dt=2024-01-01/"
    );
    assert_eq!(partition_path(&[], &[], d, true).unwrap(), "");
    assert_eq!(partition_path(&dt, &[], d, true), None);
}

#[test]
fn escaping_matches_partition_path_utils() {
    assert_eq!(escape_path_name("plain-é_1.2"), "plain-é_1.2");
    assert_eq!(escape_path_name("\u{0}\u{1}\n\u{1F}"), "%00%01%0A%1F");
    assert_eq!(
        escape_path_name("\"#%'*/:=?\\\u{7F}{}[]^"),
        "%22%23%25%27%2A%2F%3A%3D%3F%5C%7F%7B%7D%5B%5D%5E"
    );
    assert_eq!(escape_path_name(" <>|~"), " <>|~");
}
