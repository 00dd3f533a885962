//! The SQL of Java's `JdbcUtils` (Paimon 1.4.2): the same tables, columns and statements, so
//! Java's `JdbcCatalog` and ours share one catalog database. Parameters are `$n` (PostgreSQL).

/// Registered tables: one row per `(catalog_key, database_name, table_name)`.
pub(super) const CREATE_TABLES: &str = "CREATE TABLE IF NOT EXISTS paimon_tables(\
catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,\
table_name VARCHAR(255) NOT NULL, PRIMARY KEY (catalog_key, database_name, table_name))";

/// Database properties (`exists = true` marks a database without tables, as Java writes it).
pub(super) const CREATE_DATABASE_PROPERTIES: &str =
    "CREATE TABLE IF NOT EXISTS paimon_database_properties(\
catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,\
property_key VARCHAR(255),property_value VARCHAR(1000),\
PRIMARY KEY (catalog_key, database_name, property_key))";

/// Table properties (written by Java only under `sync-all-properties`; created as Java does).
pub(super) const CREATE_TABLE_PROPERTIES: &str =
    "CREATE TABLE IF NOT EXISTS paimon_table_properties(\
catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,\
table_name VARCHAR(255) NOT NULL,property_key VARCHAR(255) NOT NULL,\
property_value VARCHAR(1000),\
PRIMARY KEY (catalog_key, database_name, table_name, property_key))";

/// The distributed lock table (Java `PostgresqlDistributedLockDialect`); `{}` is
/// `lock-key-max-length`.
pub(super) fn create_locks(lock_key_max_length: u32) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS paimon_distributed_locks(\
lock_id VARCHAR({lock_key_max_length}) NOT NULL,\
acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,\
expire_time_seconds BIGINT DEFAULT 0 NOT NULL,PRIMARY KEY (lock_id))"
    )
}

pub(super) const LIST_TABLE_DATABASES: &str =
    "SELECT DISTINCT database_name FROM paimon_tables WHERE catalog_key = $1";
pub(super) const LIST_PROPERTY_DATABASES: &str =
    "SELECT DISTINCT database_name FROM paimon_database_properties WHERE catalog_key = $1";
pub(super) const GET_TABLE_DATABASE: &str = "SELECT database_name FROM paimon_tables \
WHERE catalog_key = $1 AND database_name = $2 LIMIT 1";
pub(super) const GET_PROPERTY_DATABASE: &str = "SELECT database_name FROM \
paimon_database_properties WHERE catalog_key = $1 AND database_name = $2";
pub(super) const GET_DATABASE_PROPERTIES: &str = "SELECT property_key, property_value FROM \
paimon_database_properties WHERE catalog_key = $1 AND database_name = $2";
pub(super) const INSERT_DATABASE_PROPERTY: &str = "INSERT INTO paimon_database_properties \
(catalog_key, database_name, property_key, property_value) VALUES ($1,$2,$3,$4)";
pub(super) const DELETE_DATABASE_TABLES: &str =
    "DELETE FROM paimon_tables WHERE catalog_key = $1 AND database_name = $2";
pub(super) const DELETE_DATABASE_PROPERTIES: &str =
    "DELETE FROM paimon_database_properties WHERE catalog_key = $1 AND database_name = $2";
pub(super) const DELETE_DATABASE_TABLE_PROPERTIES: &str =
    "DELETE FROM paimon_table_properties WHERE catalog_key = $1 AND database_name = $2";

pub(super) const LIST_TABLES: &str =
    "SELECT table_name FROM paimon_tables WHERE catalog_key = $1 AND database_name = $2";
pub(super) const GET_TABLE: &str = "SELECT table_name FROM paimon_tables \
WHERE catalog_key = $1 AND database_name = $2 AND table_name = $3";
pub(super) const INSERT_TABLE: &str = "INSERT INTO paimon_tables \
(catalog_key, database_name, table_name) VALUES ($1,$2,$3)";
pub(super) const DROP_TABLE: &str = "DELETE FROM paimon_tables \
WHERE catalog_key = $1 AND database_name = $2 AND table_name = $3";
pub(super) const DROP_TABLE_PROPERTIES: &str = "DELETE FROM paimon_table_properties \
WHERE catalog_key = $1 AND database_name = $2 AND table_name = $3";
pub(super) const RENAME_TABLE: &str = "UPDATE paimon_tables SET database_name = $1, \
table_name = $2 WHERE catalog_key = $3 AND database_name = $4 AND table_name = $5";
pub(super) const RENAME_TABLE_PROPERTIES: &str = "UPDATE paimon_table_properties SET \
database_name = $1, table_name = $2 WHERE catalog_key = $3 AND database_name = $4 \
AND table_name = $5";

/// Drops the lock `$1` when it is older than its own expiry (Java's `tryReleaseTimedOutLock`).
pub(super) const RELEASE_TIMED_OUT_LOCK: &str = "DELETE FROM paimon_distributed_locks \
WHERE EXTRACT(EPOCH FROM AGE(NOW(), acquired_at)) >expire_time_seconds and lock_id = $1";
/// Takes lock `$1` with expiry `$2` seconds: fails (unique key) while another holds it.
pub(super) const ACQUIRE_LOCK: &str =
    "INSERT INTO paimon_distributed_locks (lock_id,expire_time_seconds) VALUES ($1,$2)";
pub(super) const RELEASE_LOCK: &str = "DELETE FROM paimon_distributed_locks WHERE lock_id = $1";
