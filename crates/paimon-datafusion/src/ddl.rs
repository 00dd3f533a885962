//! DDL on the warehouse, run before DataFusion plans the statement (DataFusion's own
//! `CREATE DATABASE` / `CREATE SCHEMA` would make an in-memory schema that writes nothing):
//!
//! - `CREATE DATABASE|SCHEMA [IF NOT EXISTS] db`: the `<db>.db` directory;
//! - `DROP DATABASE|SCHEMA [IF EXISTS] db [CASCADE]`: refused while it holds tables unless
//!   `CASCADE`;
//! - `CREATE TABLE [IF NOT EXISTS] db.t (col TYPE [NOT NULL] [COMMENT '..'], ...,
//!   [PRIMARY KEY (a, b) NOT ENFORCED]) [COMMENT '..'] [PARTITIONED BY (dt)] [WITH (..) |
//!   TBLPROPERTIES (..)]`: the first schema, published through paimon-meta's
//!   `create_table_at` (as `paimon create-table` publishes it); column types are Paimon's
//!   type names, nested ones included (`MAP<STRING, ROW<a INT>>`,
//!   `paimon_spec::type_sql`); the option `comment` is the table's comment (Spark's
//!   property; `COMMENT '..'` is written as it);
//! - `CREATE TABLE [IF NOT EXISTS] db.t2 LIKE db.t1`: `t1`'s columns, keys, partitioning and
//!   options;
//! - `CREATE TABLE [IF NOT EXISTS] db.t [PARTITIONED BY (..)] [WITH (..)] AS SELECT ..`: the
//!   query's columns, then its rows in one commit (the table is dropped again when the
//!   insert fails);
//! - `DROP TABLE [IF EXISTS] db.t`: the table directory;
//! - `ALTER TABLE db.t SET TBLPROPERTIES (..) | SET (..) | UNSET TBLPROPERTIES (..) | RESET (..) |
//!   ADD [COLUMN] c TYPE [COMMENT '..'] [FIRST | AFTER b] | ADD COLUMNS (..) | DROP [COLUMN] c |
//!   RENAME COLUMN a TO b`
//!   (comma-separated, applied as one schema change through
//!   paimon-meta's `Table::alter`, as `paimon alter-table`); `RENAME TO` is refused (the
//!   storage layer has no directory rename yet);
//! - `SHOW DATABASES`: one row per `<db>.db` directory.
//!
//! Over a catalog that is not a warehouse directory (REST, JDBC, Hive) each of these is the
//! catalog's own call (`create_database`, `drop_database`, `create_table`, `drop_table`,
//! `alter_table`, `list_databases`).
//!
//! Every other clause of these statements is refused with an error naming the statement, so
//! nothing typed is silently dropped. Each needs the `admin` grant of the session's policy.

use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::{DataFrame, SessionContext};
use datafusion::sql::parser::{DFParser, Statement};
use datafusion::sql::sqlparser::ast::{
    ColumnOption, CreateTable, CreateTableLikeKind, CreateTableOptions, DataType as SqlType, Expr,
    HiveDistributionStyle, ObjectName, ObjectNamePart, ObjectType, SchemaName, SqlOption,
    Statement as Sql, TableConstraint, Value,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use paimon_spec::schema::{TableSchema, CURRENT_VERSION};
use paimon_spec::type_sql::parse_sql_type;
use paimon_spec::types::DataType;
use serde_json::{json, Map, Value as Json};

use crate::catalog::PaimonCatalogProvider;
use crate::error::df_err;
use crate::policy::policy_of;
use crate::table::off_runtime;

/// Runs `statement` when it is DDL this module handles; `None` leaves it to DataFusion.
///
/// # Errors
/// Missing `admin` grant, unsupported clauses, invalid schemas, existing or missing objects,
/// storage errors.
pub(crate) async fn run(ctx: &SessionContext, statement: &Statement) -> Result<Option<DataFrame>> {
    let Statement::Statement(s) = statement else {
        return Ok(None);
    };
    let what = match s.as_ref() {
        Sql::CreateDatabase { .. } | Sql::CreateSchema { .. } => "CREATE DATABASE",
        Sql::CreateTable(_) => "CREATE TABLE",
        Sql::AlterTable(_) => "ALTER TABLE",
        Sql::ShowDatabases { .. } => return show_databases(ctx).map(Some),
        Sql::Drop {
            object_type: ObjectType::Table | ObjectType::Schema | ObjectType::Database,
            ..
        } => "DROP",
        _ => return Ok(None),
    };
    if !policy_of(ctx).grants.admin {
        return Err(DataFusionError::Plan(format!(
            "{what} needs the admin grant, not granted to this session"
        )));
    }
    let catalog = warehouse(ctx)?;
    let normalize = ctx
        .state()
        .config()
        .options()
        .sql_parser
        .enable_ident_normalization;
    if let Sql::CreateTable(t) = s.as_ref() {
        if t.query.is_some() {
            if let Some(what) = unsupported_clauses(t)? {
                return Err(DataFusionError::Plan(format!(
                    "CREATE TABLE {}: {what} is not supported",
                    t.name
                )));
            }
            create_table_as(ctx, &catalog, t, normalize).await?;
            return Ok(Some(ctx.read_empty()?));
        }
    }
    let sql = s.as_ref().clone();
    let done = off_runtime(move || match &sql {
        Sql::CreateDatabase {
            db_name,
            if_not_exists,
            ..
        } => {
            plain(
                &sql,
                &format!("CREATE DATABASE {}{db_name}", ine(*if_not_exists)),
            )?;
            create_database(&catalog, &one_name(db_name, normalize)?, *if_not_exists)
        }
        Sql::CreateSchema {
            schema_name: SchemaName::Simple(name),
            if_not_exists,
            ..
        } => {
            plain(
                &sql,
                &format!("CREATE SCHEMA {}{name}", ine(*if_not_exists)),
            )?;
            create_database(&catalog, &one_name(name, normalize)?, *if_not_exists)
        }
        Sql::CreateTable(t) if t.like.is_some() => create_table_like(&catalog, t, normalize),
        Sql::CreateTable(t) => create_table(&catalog, t, normalize),
        Sql::AlterTable(t) => alter_table(&catalog, t, normalize),
        Sql::Drop {
            object_type,
            if_exists,
            names,
            cascade,
            ..
        } => {
            let list: Vec<String> = names.iter().map(ToString::to_string).collect();
            plain(
                &sql,
                &format!(
                    "DROP {object_type} {}{}{}",
                    if *if_exists { "IF EXISTS " } else { "" },
                    list.join(", "),
                    if *cascade { " CASCADE" } else { "" }
                ),
            )?;
            for name in names {
                match object_type {
                    ObjectType::Table => drop_table(&catalog, name, normalize, *if_exists)?,
                    _ => {
                        drop_database(&catalog, &one_name(name, normalize)?, *if_exists, *cascade)?
                    }
                }
            }
            Ok(())
        }
        other => Err(DataFusionError::Plan(format!(
            "{other}: a clause of this statement is not supported on a Paimon warehouse"
        ))),
    })
    .await;
    done?;
    Ok(Some(ctx.read_empty()?))
}

/// `IF NOT EXISTS ` when set.
fn ine(set: bool) -> &'static str {
    if set {
        "IF NOT EXISTS "
    } else {
        ""
    }
}

/// Refuses `sql` unless it is `template` (its parts this module takes) and nothing more.
fn plain(sql: &Sql, template: &str) -> Result<()> {
    let mut parsed = DFParser::parse_sql_with_dialect(template, &GenericDialect {})?;
    match parsed.pop_front() {
        Some(Statement::Statement(t)) if t.as_ref() == sql => Ok(()),
        _ => Err(DataFusionError::Plan(format!(
            "{sql}: only `{template}` is supported here; a clause beyond it would be dropped"
        ))),
    }
}

/// The session's warehouse catalog.
fn warehouse(ctx: &SessionContext) -> Result<PaimonCatalogProvider> {
    ctx.catalog(crate::sql::CATALOG)
        .and_then(|c| c.downcast_ref::<PaimonCatalogProvider>().cloned())
        .ok_or_else(|| DataFusionError::Plan("this session has no Paimon warehouse".into()))
}

/// One plain name (a database).
fn one_name(name: &ObjectName, normalize: bool) -> Result<String> {
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(i)] => Ok(ident(i, normalize)),
        _ => Err(DataFusionError::Plan(format!(
            "'{name}' is not a database name"
        ))),
    }
}

fn ident(i: &datafusion::sql::sqlparser::ast::Ident, normalize: bool) -> String {
    if normalize && i.quote_style.is_none() {
        i.value.to_lowercase()
    } else {
        i.value.clone()
    }
}

/// `db.table` (or `table` in `default`).
fn table_name(name: &ObjectName, normalize: bool) -> Result<(String, String)> {
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(t)] => Ok(("default".into(), ident(t, normalize))),
        [ObjectNamePart::Identifier(d), ObjectNamePart::Identifier(t)] => {
            Ok((ident(d, normalize), ident(t, normalize)))
        }
        _ => Err(DataFusionError::Plan(format!(
            "'{name}' is not a table name (db.table)"
        ))),
    }
}

fn create_database(catalog: &PaimonCatalogProvider, db: &str, if_not_exists: bool) -> Result<()> {
    let Some(io) = catalog.file_io() else {
        checked_database(db)?;
        return catalog
            .catalog()
            .create_database(db, if_not_exists, &Default::default())
            .map_err(|e| df_err(catalog.warehouse(), e));
    };
    let dir = catalog.database_dir(db)?;
    if io.exists(&dir).map_err(|e| df_err(&dir, e))? {
        return match if_not_exists {
            true => Ok(()),
            false => Err(df_err(&dir, format!("database '{db}' already exists"))),
        };
    }
    io.mkdirs(&dir).map_err(|e| df_err(&dir, e))
}

fn drop_database(
    catalog: &PaimonCatalogProvider,
    db: &str,
    if_exists: bool,
    cascade: bool,
) -> Result<()> {
    let Some(io) = catalog.file_io() else {
        checked_database(db)?;
        return catalog
            .catalog()
            .drop_database(db, if_exists, cascade)
            .map_err(|e| df_err(catalog.warehouse(), e));
    };
    let dir = catalog.database_dir(db)?;
    if !io.exists(&dir).map_err(|e| df_err(&dir, e))? {
        return match if_exists {
            true => Ok(()),
            false => Err(df_err(&dir, format!("database '{db}' does not exist"))),
        };
    }
    let tables = catalog
        .catalog()
        .list_tables(db)
        .map_err(|e| df_err(&dir, e))?;
    if !tables.is_empty() && !cascade {
        return Err(df_err(
            &dir,
            format!(
                "database '{db}' is not empty ({} tables: {}); DROP DATABASE ... CASCADE drops them",
                tables.len(),
                tables.join(", ")
            ),
        ));
    }
    io.delete_dir(&dir).map_err(|e| df_err(&dir, e))?;
    Ok(())
}

fn drop_table(
    catalog: &PaimonCatalogProvider,
    name: &ObjectName,
    normalize: bool,
    if_exists: bool,
) -> Result<()> {
    let (db, t) = table_name(name, normalize)?;
    let not_a_table = || {
        DataFusionError::Plan(format!(
            "DROP TABLE {name}: not a table (a branch, system table or time travel)"
        ))
    };
    let Some(io) = catalog.file_io() else {
        let id = catalog_table_id(catalog, &db, &t).ok_or_else(not_a_table)??;
        return catalog
            .catalog()
            .drop_table(&id, if_exists)
            .map_err(|e| df_err(catalog.warehouse(), e));
    };
    let (dir, parsed) = catalog.table_dir(&db, &t)?;
    if parsed.system.is_some() || parsed.spec != crate::ScanSpec::default() {
        return Err(not_a_table());
    }
    let schema_dir = paimon_io::join(&dir, paimon_spec::layout::SCHEMA_DIR);
    if !io.exists(&schema_dir).map_err(|e| df_err(&dir, e))? {
        return match if_exists {
            true => Ok(()),
            false => Err(df_err(&dir, format!("table '{db}.{t}' does not exist"))),
        };
    }
    io.delete_dir(&dir).map_err(|e| df_err(&dir, e))?;
    Ok(())
}

/// The clauses of `CREATE TABLE` this module takes, cleared: what is left must equal a plain
/// `CREATE TABLE x ()`, else some clause would be dropped.
fn unsupported_clauses(t: &CreateTable) -> Result<Option<String>> {
    let named = [
        (t.or_replace, "OR REPLACE"),
        (t.temporary, "TEMPORARY"),
        (t.external, "EXTERNAL"),
        (t.like.is_some(), "LIKE"),
        (t.location.is_some(), "LOCATION"),
        (t.file_format.is_some(), "STORED AS"),
        (
            t.partition_by.is_some(),
            "PARTITION BY (use PARTITIONED BY)",
        ),
        (t.order_by.is_some(), "ORDER BY"),
        (
            t.cluster_by.is_some() || t.clustered_by.is_some(),
            "CLUSTER BY",
        ),
    ];
    if let Some((_, what)) = named.iter().find(|(set, _)| *set) {
        return Ok(Some((*what).to_string()));
    }
    let mut parsed = DFParser::parse_sql_with_dialect("CREATE TABLE x ()", &GenericDialect {})?;
    let Some(Statement::Statement(s)) = parsed.pop_front() else {
        return Err(DataFusionError::Internal("CREATE TABLE template".into()));
    };
    let Sql::CreateTable(blank) = *s else {
        return Err(DataFusionError::Internal("CREATE TABLE template".into()));
    };
    let mut rest = t.clone();
    rest.name = blank.name.clone();
    rest.columns = Vec::new();
    rest.constraints = Vec::new();
    rest.hive_distribution = HiveDistributionStyle::NONE;
    rest.table_options = CreateTableOptions::None;
    rest.if_not_exists = false;
    rest.comment = None;
    rest.query = None;
    Ok((rest != blank).then(|| format!("{rest}")))
}

/// `CREATE TABLE .. AS SELECT`: the query's columns (after any typed in the statement) as the
/// table's, the table created as [`create_table`] creates it, then the query's rows written
/// by an `INSERT INTO` (one commit). When the insert fails the new table is dropped again.
async fn create_table_as(
    ctx: &SessionContext,
    catalog: &PaimonCatalogProvider,
    t: &CreateTable,
    normalize: bool,
) -> Result<()> {
    let Some(query) = &t.query else {
        return Err(DataFusionError::Internal(
            "CREATE TABLE AS without a query".into(),
        ));
    };
    if !t.columns.is_empty() {
        return Err(DataFusionError::Plan(format!(
            "CREATE TABLE {} (..) AS SELECT: a column list with AS SELECT is not supported (the query gives the columns)",
            t.name
        )));
    }
    let select = Statement::Statement(Box::new(Sql::Query(query.clone())));
    let plan = ctx.state().statement_to_plan(select).await?;
    policy_of(ctx).check_plan(&plan)?;
    let mut fields = Vec::new();
    for f in plan.schema().fields() {
        let ty = paimon_data::arrow_schema::from_arrow_field(f).map_err(|e| {
            DataFusionError::Plan(format!(
                "CREATE TABLE {} AS SELECT: column '{}' has no Paimon type ({e})",
                t.name,
                f.name()
            ))
        })?;
        fields.push(paimon_spec::types::DataField::new(-1, f.name(), ty).to_json());
    }
    let (db, name) = table_name(&t.name, normalize)?;
    let exists = match catalog.file_io() {
        Some(io) => {
            let (dir, _) = catalog.table_dir(&db, &name)?;
            let schema_dir = paimon_io::join(&dir, paimon_spec::layout::SCHEMA_DIR);
            io.exists(&schema_dir).map_err(|e| df_err(&dir, e))?
        }
        None => {
            let (c, d, n) = (catalog.clone(), db.clone(), name.clone());
            off_runtime(move || Ok(c.open_table(&d, &n)?.is_some())).await?
        }
    };
    if exists {
        return match t.if_not_exists {
            true => Ok(()),
            false => Err(DataFusionError::Execution(format!(
                "{}: table '{db}.{name}' already exists",
                catalog.warehouse()
            ))),
        };
    }
    let (c, t2) = (catalog.clone(), t.clone());
    off_runtime(move || create_table_with(&c, &t2, normalize, fields)).await?;
    let mut insert = DFParser::parse_sql_with_dialect(
        &format!("INSERT INTO {} SELECT 1", t.name),
        &GenericDialect {},
    )?;
    let Some(Statement::Statement(s)) = insert.pop_front() else {
        return Err(DataFusionError::Internal("CTAS insert template".into()));
    };
    let Sql::Insert(mut i) = *s else {
        return Err(DataFusionError::Internal("CTAS insert template".into()));
    };
    i.source = Some(query.clone());
    let written = async {
        let plan = ctx
            .state()
            .statement_to_plan(Statement::Statement(Box::new(Sql::Insert(i))))
            .await?;
        policy_of(ctx).check_plan(&plan)?;
        ctx.execute_logical_plan(plan).await?.collect().await
    }
    .await;
    if let Err(e) = written {
        let (c, d, n) = (catalog.clone(), db, name);
        let _ = off_runtime(move || drop_new_table(&c, &d, &n)).await;
        return Err(e);
    }
    Ok(())
}

fn create_table(catalog: &PaimonCatalogProvider, t: &CreateTable, normalize: bool) -> Result<()> {
    create_table_with(catalog, t, normalize, Vec::new())
}

/// [`create_table`] with `extra` schema JSON fields after the statement's columns.
fn create_table_with(
    catalog: &PaimonCatalogProvider,
    t: &CreateTable,
    normalize: bool,
    extra: Vec<Json>,
) -> Result<()> {
    let refuse = |what: String| {
        DataFusionError::Plan(format!("CREATE TABLE {}: {what} is not supported", t.name))
    };
    if let Some(what) = unsupported_clauses(t)? {
        return Err(refuse(what));
    }
    let (db, name) = table_name(&t.name, normalize)?;
    let not_plain = || refuse("a name with a branch, system table or time travel".into());
    // Where the table goes: its directory in a warehouse, its identifier in another catalog.
    let dir = match catalog.file_io() {
        Some(_) => {
            let (dir, parsed) = catalog.table_dir(&db, &name)?;
            if parsed.system.is_some() || parsed.spec != crate::ScanSpec::default() {
                return Err(not_plain());
            }
            Ok(dir)
        }
        None => Err(catalog_table_id(catalog, &db, &name).ok_or_else(not_plain)??),
    };
    let mut fields = Vec::new();
    let field = |c: &datafusion::sql::sqlparser::ast::ColumnDef, partition: bool| {
        // `PARTITIONED BY (dt)` names a column; `(dt STRING)` (Hive) also declares it.
        if partition && c.data_type == SqlType::Unspecified {
            return Ok(None);
        }
        let mut ty = column_type(&c.data_type)
            .map_err(|e| refuse(format!("the type of {} ({e})", c.name)))?;
        let mut description = None;
        for o in &c.options {
            match &o.option {
                ColumnOption::NotNull => ty = ty.with_nullable(false),
                ColumnOption::Null => {}
                ColumnOption::Comment(text) => description = Some(text.clone()),
                other => return Err(refuse(format!("column option '{other}' of {}", c.name))),
            }
        }
        let mut f = Map::new();
        f.insert("id".into(), json!(-1));
        f.insert("name".into(), json!(ident(&c.name, normalize)));
        f.insert("type".into(), ty.to_json());
        if let Some(d) = description {
            f.insert("description".into(), json!(d));
        }
        Ok(Some(Json::Object(f)))
    };
    for c in &t.columns {
        if let Some(f) = field(c, false)? {
            fields.push(f);
        }
    }
    fields.extend(extra);
    let mut partition_keys = Vec::new();
    if let HiveDistributionStyle::PARTITIONED { columns } = &t.hive_distribution {
        for c in columns {
            if let Some(f) = field(c, true)? {
                fields.push(f);
            }
            partition_keys.push(ident(&c.name, normalize));
        }
    } else if t.hive_distribution != HiveDistributionStyle::NONE {
        return Err(refuse(format!("{:?}", t.hive_distribution)));
    }
    let mut primary_keys = Vec::new();
    for c in &t.constraints {
        match c {
            TableConstraint::PrimaryKey(pk) => {
                for col in &pk.columns {
                    match &col.column.expr {
                        Expr::Identifier(i) => primary_keys.push(ident(i, normalize)),
                        other => return Err(refuse(format!("PRIMARY KEY entry '{other}'"))),
                    }
                }
            }
            other => return Err(refuse(format!("constraint '{other}'"))),
        }
    }
    let mut options = Map::new();
    let mut comment = None;
    match &t.table_options {
        CreateTableOptions::None => {}
        CreateTableOptions::With(o) | CreateTableOptions::TableProperties(o) => {
            for kv in o {
                let SqlOption::KeyValue { key, value } = kv else {
                    return Err(refuse(format!("option '{kv}'")));
                };
                let value = option_text(value, &refuse)?;
                // Spark's `comment` property is the table's comment (`COMMENT '..'` is
                // written as it by `crate::ddl_spelling`).
                if key.value == TABLE_COMMENT {
                    comment = Some(value);
                } else {
                    options.insert(key.value.clone(), json!(value));
                }
            }
        }
        other => return Err(refuse(format!("options '{other}'"))),
    }
    let mut schema = json!({
        "version": CURRENT_VERSION,
        "id": 0,
        "fields": fields,
        "partitionKeys": partition_keys,
        "primaryKeys": primary_keys,
        "options": options,
    });
    if let Some(c) = &t.comment {
        let text = match c {
            datafusion::sql::sqlparser::ast::CommentDef::WithEq(s)
            | datafusion::sql::sqlparser::ast::CommentDef::WithoutEq(s) => s.clone(),
        };
        comment = Some(text);
    }
    if let Some(text) = comment {
        schema["comment"] = json!(text);
    }
    let mut schema =
        TableSchema::from_json(&schema).map_err(|e| refuse(format!("the schema ({e})")))?;
    schema.time_millis = now_millis();
    match (catalog.file_io(), dir) {
        (Some(io), Ok(dir)) => {
            paimon_meta::commit::create_table_at(io.clone(), &dir, schema, t.if_not_exists)
                .map_err(|e| df_err(&dir, e))?;
        }
        (_, Err(id)) => catalog
            .catalog()
            .create_table(&id, schema, t.if_not_exists)
            .map_err(|e| df_err(catalog.warehouse(), e))?,
        (None, Ok(_)) => {
            return Err(DataFusionError::Internal(
                "a directory without storage".into(),
            ))
        }
    }
    Ok(())
}

/// `CREATE TABLE [IF NOT EXISTS] db.t2 LIKE db.t1`: `t1`'s latest schema (columns with their
/// types and comments, primary and partition keys, options) as `t2`'s first schema, its
/// field ids numbered afresh as a new table's, as Flink's `LIKE` on a Paimon catalog copies
/// them. The new table's comment is its own (none): Flink takes only the statement's.
fn create_table_like(
    catalog: &PaimonCatalogProvider,
    t: &CreateTable,
    normalize: bool,
) -> Result<()> {
    let refuse = |what: String| {
        DataFusionError::Plan(format!("CREATE TABLE {}: {what} is not supported", t.name))
    };
    let like = match &t.like {
        Some(CreateTableLikeKind::Plain(like)) if like.defaults.is_none() => like,
        Some(CreateTableLikeKind::Plain(like)) => return Err(refuse(format!("'{like}'"))),
        Some(CreateTableLikeKind::Parenthesized(like)) => {
            return Err(refuse(format!("'({like})'")))
        }
        None => {
            return Err(DataFusionError::Internal(
                "CREATE TABLE LIKE without LIKE".into(),
            ))
        }
    };
    let mut rest = t.clone();
    rest.like = None;
    if let Some(what) = unsupported_clauses(&rest)? {
        return Err(refuse(what));
    }
    if !rest.columns.is_empty()
        || !rest.constraints.is_empty()
        || rest.hive_distribution != HiveDistributionStyle::NONE
        || rest.table_options != CreateTableOptions::None
        || rest.comment.is_some()
        || rest.query.is_some()
    {
        return Err(refuse(
            "LIKE with columns, keys, partitioning, options or a query of its own".into(),
        ));
    }
    let plain = |name: &ObjectName| -> Result<String> {
        let (db, table) = table_name(name, normalize)?;
        let (dir, parsed) = catalog.table_dir(&db, &table)?;
        if parsed.system.is_some() || parsed.spec != crate::ScanSpec::default() {
            return Err(refuse(format!(
                "'{name}': a name with a branch, system table or time travel"
            )));
        }
        Ok(dir)
    };
    // Under a catalog other than a warehouse, both tables are named by identifier.
    let id = |name: &ObjectName| -> Result<paimon_meta::catalog::Identifier> {
        let (db, table) = table_name(name, normalize)?;
        catalog_table_id(catalog, &db, &table).ok_or_else(|| {
            refuse(format!(
                "'{name}': a name with a branch, system table or time travel"
            ))
        })?
    };
    let source = match catalog.file_io() {
        Some(io) => {
            let source_dir = plain(&like.name)?;
            paimon_meta::Table::open(io.clone(), &source_dir).map_err(|e| df_err(&source_dir, e))?
        }
        None => catalog
            .catalog()
            .get_table(&id(&like.name)?)
            .map_err(|e| df_err(catalog.warehouse(), e))?,
    };
    let mut schema = source.schema().as_ref().clone();
    fn unnumber(fields: &mut [paimon_spec::types::DataField]) {
        for f in fields {
            f.id = -1;
            unnumber_type(&mut f.data_type);
        }
    }
    fn unnumber_type(t: &mut DataType) {
        use paimon_spec::types::TypeKind;
        match &mut t.kind {
            TypeKind::Row(fields) => unnumber(fields),
            TypeKind::Array(e) | TypeKind::Multiset(e) | TypeKind::Vector { element: e, .. } => {
                unnumber_type(e)
            }
            TypeKind::Map { key, value } => {
                unnumber_type(key);
                unnumber_type(value);
            }
            _ => {}
        }
    }
    unnumber(&mut schema.fields);
    schema.id = 0;
    schema.highest_field_id = -1;
    schema.comment = None;
    schema.time_millis = now_millis();
    match catalog.file_io() {
        Some(io) => {
            let dir = plain(&t.name)?;
            paimon_meta::commit::create_table_at(io.clone(), &dir, schema, t.if_not_exists)
                .map_err(|e| df_err(&dir, e))?;
        }
        None => catalog
            .catalog()
            .create_table(&id(&t.name)?, schema, t.if_not_exists)
            .map_err(|e| df_err(catalog.warehouse(), e))?,
    }
    Ok(())
}

/// `SHOW DATABASES`: the warehouse's databases, one row each (`database_name`).
fn show_databases(ctx: &SessionContext) -> Result<DataFrame> {
    let catalog = warehouse(ctx)?;
    let names = catalog
        .catalog()
        .list_databases()
        .map_err(|e| df_err(catalog.warehouse(), e))?;
    let schema = std::sync::Arc::new(arrow::datatypes::Schema::new(vec![
        arrow::datatypes::Field::new("database_name", arrow::datatypes::DataType::Utf8, false),
    ]));
    let batch = arrow::record_batch::RecordBatch::try_new(
        schema,
        vec![std::sync::Arc::new(arrow::array::StringArray::from(names))],
    )?;
    ctx.read_batch(batch)
}

/// `ALTER TABLE db.t op, ...` as paimon-meta's schema changes (`paimon alter-table`'s):
/// `SET TBLPROPERTIES (..)`, `ADD [COLUMN] c TYPE [COMMENT '..'] [FIRST | AFTER b]`,
/// `DROP [COLUMN] c`, `RENAME COLUMN a TO b`.
fn alter_table(
    catalog: &PaimonCatalogProvider,
    t: &datafusion::sql::sqlparser::ast::AlterTable,
    normalize: bool,
) -> Result<()> {
    use datafusion::sql::sqlparser::ast::{AlterTableOperation as Op, MySQLColumnPosition};
    use paimon_meta::commit::{ColumnPosition, SchemaChange};
    let refuse = |what: String| {
        DataFusionError::Plan(format!("ALTER TABLE {}: {what} is not supported", t.name))
    };
    if t.if_exists
        || t.only
        || t.location.is_some()
        || t.on_cluster.is_some()
        || t.table_type.is_some()
    {
        return Err(refuse(format!("'{t}'")));
    }
    let mut changes = Vec::new();
    for op in &t.operations {
        match op {
            // Spark's `SET TBLPROPERTIES (..)`, Flink's `SET (..)`.
            Op::SetTblProperties {
                table_properties: options,
            }
            | Op::SetOptionsParens { options } => {
                for kv in options {
                    let SqlOption::KeyValue { key, value } = kv else {
                        return Err(refuse(format!("property '{kv}'")));
                    };
                    // `'k' = NULL`: `UNSET TBLPROPERTIES ('k')` / `RESET ('k')` as
                    // `crate::ddl_spelling` writes them.
                    let removed = matches!(value, Expr::Value(v) if v.value == Value::Null);
                    // An absent key is no error, as Java's `SchemaChange.removeOption`.
                    if removed {
                        changes.push(SchemaChange::RemoveOption {
                            key: key.value.clone(),
                        });
                    } else {
                        changes.push(SchemaChange::SetOption {
                            key: key.value.clone(),
                            value: option_text(value, &refuse)?,
                        });
                    }
                }
            }
            // `ADD [COLUMN] c TYPE [NULL] [COMMENT '..'] [FIRST | AFTER b]` (Flink, Spark).
            Op::AddColumn {
                column_def,
                if_not_exists: false,
                column_position,
                ..
            } => {
                let data_type = column_type(&column_def.data_type)
                    .map_err(|e| refuse(format!("the type of {} ({e})", column_def.name)))?;
                let mut description = None;
                for o in &column_def.options {
                    match &o.option {
                        ColumnOption::Comment(text) => description = Some(text.clone()),
                        ColumnOption::Null => {}
                        other => {
                            return Err(refuse(format!(
                                "column option '{other}' of an added column {}",
                                column_def.name
                            )))
                        }
                    }
                }
                let position = column_position.as_ref().map(|p| match p {
                    MySQLColumnPosition::First => ColumnPosition::First,
                    MySQLColumnPosition::After(c) => ColumnPosition::After(ident(c, normalize)),
                });
                changes.push(SchemaChange::AddColumn {
                    name: ident(&column_def.name, normalize),
                    data_type,
                    description,
                    position,
                });
            }
            Op::DropColumn {
                column_names,
                if_exists: false,
                drop_behavior: None,
                ..
            } => {
                for c in column_names {
                    changes.push(SchemaChange::DropColumn {
                        name: ident(c, normalize),
                    });
                }
            }
            Op::RenameColumn {
                old_column_name,
                new_column_name,
            } => changes.push(SchemaChange::RenameColumn {
                from: ident(old_column_name, normalize),
                to: ident(new_column_name, normalize),
            }),
            other => return Err(refuse(format!("'{other}'"))),
        }
    }
    let (db, name) = table_name(&t.name, normalize)?;
    let not_plain = || refuse("a name with a branch, system table or time travel".into());
    let Some(io) = catalog.file_io() else {
        let id = catalog_table_id(catalog, &db, &name).ok_or_else(not_plain)??;
        return catalog
            .catalog()
            .alter_table(&id, &changes, false)
            .map_err(|e| df_err(catalog.warehouse(), e));
    };
    let (dir, parsed) = catalog.table_dir(&db, &name)?;
    if parsed.system.is_some() || parsed.spec != crate::ScanSpec::default() {
        return Err(not_plain());
    }
    let table = paimon_meta::Table::open(io.clone(), &dir).map_err(|e| df_err(&dir, e))?;
    table.alter(&changes).map_err(|e| df_err(&dir, e))?;
    Ok(())
}

/// The `WITH` / `TBLPROPERTIES` key that holds the table's comment (Spark's `comment`
/// property; a `COMMENT '..'` clause is rewritten to it by `crate::ddl_spelling`).
pub(crate) const TABLE_COMMENT: &str = "comment";

/// A column's type as Paimon's: the text `crate::ddl_spelling` quoted as a custom type, or
/// the parser's own type printed back, read as a Paimon SQL type name.
fn column_type(t: &SqlType) -> std::result::Result<DataType, String> {
    let text = match t {
        SqlType::Custom(name, modifiers) if modifiers.is_empty() => match name.0.as_slice() {
            [ObjectNamePart::Identifier(i)] if i.quote_style == Some('"') => i.value.clone(),
            _ => t.to_string(),
        },
        _ => t.to_string(),
    };
    parse_sql_type(&text).map_err(|e| e.to_string())
}

/// A `WITH` key or value: a quoted string, a number, a boolean or a (dotted) name.
fn option_text(e: &Expr, refuse: &dyn Fn(String) -> DataFusionError) -> Result<String> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Ok(s.clone()),
            Value::Number(n, _) => Ok(n.to_string()),
            Value::Boolean(b) => Ok(b.to_string()),
            _ => Err(refuse(format!("option '{e}'"))),
        },
        Expr::Identifier(i) => Ok(i.value.clone()),
        Expr::CompoundIdentifier(parts) => Ok(parts
            .iter()
            .map(|p| p.value.as_str())
            .collect::<Vec<_>>()
            .join(".")),
        _ => Err(refuse(format!("option '{e}'"))),
    }
}

/// The identifier of table `db.name` in a catalog that is not a warehouse directory, its names
/// checked; `None` when the name selects a branch, system table or time travel.
fn catalog_table_id(
    catalog: &PaimonCatalogProvider,
    db: &str,
    name: &str,
) -> Option<Result<paimon_meta::catalog::Identifier>> {
    let parsed = match catalog.checked_name(db, name) {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    (parsed.system.is_none() && parsed.spec == crate::ScanSpec::default())
        .then(|| Ok(paimon_meta::catalog::Identifier::new(db, parsed.table)))
}

/// Refuses a database name that is not one plain name (as a warehouse's directory names are
/// checked), before it reaches a catalog.
fn checked_database(db: &str) -> Result<()> {
    paimon_spec::layout::check_file_name("database name", db)
        .map_err(|e| DataFusionError::Plan(format!("identifier {db:?}: {e}")))
}

/// Drops the table `db.name` a failed `CREATE TABLE .. AS SELECT` created.
fn drop_new_table(catalog: &PaimonCatalogProvider, db: &str, name: &str) -> Result<()> {
    match catalog.file_io() {
        Some(io) => {
            let (dir, _) = catalog.table_dir(db, name)?;
            io.delete_dir(&dir).map(|_| ()).map_err(|e| df_err(&dir, e))
        }
        None => catalog
            .catalog()
            .drop_table(&paimon_meta::catalog::Identifier::new(db, name), true)
            .map_err(|e| df_err(catalog.warehouse(), e)),
    }
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
