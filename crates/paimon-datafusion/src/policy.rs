//! [`SqlPolicy`]: what the SQL of a session may do. A service running its clients' SQL (the
//! coming `paimon serve`) gives them a restricted session: the warehouse and nothing else.
//!
//! [`crate::sql::run`] checks every statement against its session's policy
//! ([`crate::sql::set_policy`]; [`SqlPolicy::default`], read-only without local files, when
//! none was set), first the parsed statement, then its plan, before anything runs:
//!
//! - local files ([`SqlPolicy::local_files`]): `CREATE EXTERNAL TABLE`, `COPY ... TO`, a scan
//!   of a file table (DataFusion's `ListingTable` and `StreamTable`, which URL tables and
//!   file-reading table functions build), a session with URL tables enabled, and table
//!   functions other than [`SqlPolicy::table_functions`] (checked before planning, as a table
//!   function runs while the statement is planned and may read its file then);
//! - [`Grants`]: scans need `read`; `INSERT`, `UPDATE`, `DELETE` need `write`; DDL
//!   (`CREATE` / `DROP` of tables, views, schemas, functions) and statements (`SET`,
//!   `PREPARE`, transactions) need `admin`; `CALL sys.compact` needs `write`, every other
//!   `CALL` `admin` ([`crate::call::procedure_grant`]). DataFusion's own [`SQLOptions`] check of the same
//!   classes runs after ours.
//!
//! Without local files, [`crate::sql::set_policy`] also removes the session's table factories,
//! so a plan made past [`crate::sql::run`] (`ctx.sql(..)`) cannot create an external table
//! either. Other checks hold only for statements run through [`crate::sql::run`].

use std::ops::ControlFlow;
use std::sync::Arc;

use datafusion::catalog::DynamicFileCatalog;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::listing::ListingTable;
use datafusion::datasource::stream::StreamTable;
use datafusion::datasource::{source_as_provider, ViewTable};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::context::SQLOptions;
use datafusion::execution::SessionStateDefaults;
use datafusion::logical_expr::{DdlStatement, LogicalPlan, WriteOp};
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::{CopyToSource, Statement};
use datafusion::sql::sqlparser::ast::{TableFactor, Visit, Visitor};

/// Table functions that read nothing but the warehouse or memory.
pub const SAFE_TABLE_FUNCTIONS: &[&str] = &["paimon_incremental", "generate_series", "range"];

/// What a session's user may do besides running queries over what it can see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grants {
    /// Scan tables.
    pub read: bool,
    /// `INSERT`, `UPDATE`, `DELETE` (and `COPY`, which also needs local files).
    pub write: bool,
    /// DDL (`CREATE` / `DROP` of tables, views, schemas, functions) and statements (`SET`,
    /// `PREPARE`, transactions).
    pub admin: bool,
}

impl Grants {
    /// Reading only.
    pub const READ: Grants = Grants {
        read: true,
        write: false,
        admin: false,
    };

    /// Everything.
    pub fn all() -> Grants {
        Grants {
            read: true,
            write: true,
            admin: true,
        }
    }
}

/// What the SQL of a session may do (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlPolicy {
    /// The user's grants.
    pub grants: Grants,
    /// Whether statements may read and write files outside the warehouse.
    pub local_files: bool,
    /// Table functions allowed without local files (default [`SAFE_TABLE_FUNCTIONS`]).
    pub table_functions: Vec<String>,
    /// A sentence appended to every local-files refusal, saying how to get the permission
    /// (the CLI names its flag); `None` appends nothing.
    pub local_files_hint: Option<String>,
}

impl Default for SqlPolicy {
    /// Read-only, no local files: [`SqlPolicy::restricted`] with [`Grants::READ`].
    fn default() -> Self {
        SqlPolicy::restricted(Grants::READ)
    }
}

impl SqlPolicy {
    /// A service's client: `grants`, no local files.
    pub fn restricted(grants: Grants) -> SqlPolicy {
        SqlPolicy {
            grants,
            local_files: false,
            table_functions: SAFE_TABLE_FUNCTIONS.iter().map(|s| s.to_string()).collect(),
            local_files_hint: None,
        }
    }

    /// A local user (`paimon sql`): every grant; local files as `local_files` says.
    pub fn local_user(local_files: bool) -> SqlPolicy {
        SqlPolicy {
            local_files,
            ..SqlPolicy::restricted(Grants::all())
        }
    }

    /// This policy with `hint` appended to local-files refusals.
    pub fn with_local_files_hint(mut self, hint: impl Into<String>) -> SqlPolicy {
        self.local_files_hint = Some(hint.into());
        self
    }

    /// Checks the parsed `statement` in `ctx` before it is planned: the table functions it
    /// calls, and URL tables.
    ///
    /// # Errors
    /// [`DataFusionError::Plan`] saying what is refused and why.
    pub fn check_statement(&self, ctx: &SessionContext, statement: &Statement) -> Result<()> {
        if self.local_files {
            return Ok(());
        }
        if ctx.state().catalog_list().is::<DynamicFileCatalog>() {
            return Err(self.no_local_files(
                "this session has URL tables enabled (a table named by a file path), which",
            ));
        }
        let mut functions = TableFunctions(Vec::new());
        visit_statement(statement, &mut functions);
        for name in functions.0 {
            if !self
                .table_functions
                .iter()
                .any(|f| f.eq_ignore_ascii_case(&name))
            {
                return Err(self.no_local_files(&format!(
                    "table function '{name}' is not one known to read only the warehouse (allowed: {}); it",
                    self.table_functions.join(", ")
                )));
            }
        }
        Ok(())
    }

    /// Checks `plan` (a planned statement, views expanded) before it runs.
    ///
    /// # Errors
    /// [`DataFusionError::Plan`] naming the statement or table refused and the grant or
    /// permission it needs.
    pub fn check_plan(&self, plan: &LogicalPlan) -> Result<()> {
        let mut refusal = None;
        plan.apply_with_subqueries(|node| {
            refusal = self.refusal(node)?;
            Ok(match refusal {
                Some(_) => TreeNodeRecursion::Stop,
                None => TreeNodeRecursion::Continue,
            })
        })?;
        if let Some(e) = refusal {
            return Err(e);
        }
        SQLOptions::new()
            .with_allow_ddl(self.grants.admin)
            .with_allow_dml(self.grants.write)
            .with_allow_statements(self.grants.admin)
            .verify_plan(plan)
    }

    /// Why `node` alone is refused, if it is.
    fn refusal(&self, node: &LogicalPlan) -> Result<Option<DataFusionError>> {
        Ok(match node {
            LogicalPlan::Ddl(DdlStatement::CreateExternalTable(t)) if !self.local_files => {
                Some(self.no_local_files(&format!(
                    "CREATE EXTERNAL TABLE {} reads local files ({}), which",
                    t.name,
                    t.locations.join(", ")
                )))
            }
            LogicalPlan::Copy(c) if !self.local_files => Some(self.no_local_files(&format!(
                "COPY writes local files ({}), which",
                c.output_url
            ))),
            LogicalPlan::Copy(_) => self.needs("COPY", "write", self.grants.write),
            LogicalPlan::Ddl(ddl) => self.needs(&ddl_name(ddl), "admin", self.grants.admin),
            LogicalPlan::Dml(dml) => {
                let what = match dml.op {
                    WriteOp::Ctas => "CREATE TABLE AS".to_string(),
                    _ => dml.op.name().to_uppercase(),
                };
                self.needs(
                    &format!("{what} {}", dml.table_name),
                    "write",
                    self.grants.write,
                )
            }
            LogicalPlan::Statement(s) => self.needs(s.name(), "admin", self.grants.admin),
            LogicalPlan::TableScan(scan) => {
                let provider = source_as_provider(&scan.source).ok();
                let file = provider.as_deref().is_some_and(|p| {
                    p.downcast_ref::<ListingTable>().is_some()
                        || p.downcast_ref::<StreamTable>().is_some()
                });
                if file && !self.local_files {
                    Some(self.no_local_files(&format!(
                        "table {} reads local files, which",
                        scan.table_name
                    )))
                } else if let Some(view) = provider
                    .as_deref()
                    .and_then(|p| p.downcast_ref::<ViewTable>())
                {
                    self.check_plan(view.logical_plan()).err()
                } else {
                    self.needs(
                        &format!("reading {}", scan.table_name),
                        "read",
                        self.grants.read,
                    )
                }
            }
            _ => None,
        })
    }

    /// `None` when `granted`, else the refusal of `what`, which needs `grant`.
    fn needs(&self, what: &str, grant: &str, granted: bool) -> Option<DataFusionError> {
        (!granted).then(|| {
            DataFusionError::Plan(format!(
                "{what} needs the {grant} grant, not granted to this session"
            ))
        })
    }

    /// The refusal of `what` (a clause ending in "which"), as local files are not allowed.
    fn no_local_files(&self, what: &str) -> DataFusionError {
        let mut text = format!("{what} this session does not allow (no local files)");
        if let Some(hint) = &self.local_files_hint {
            text.push_str(": ");
            text.push_str(hint);
        }
        DataFusionError::Plan(text)
    }

    /// Sets this policy's table factories in `ctx`: none without local files, DataFusion's
    /// defaults (added where missing) with them.
    pub(crate) fn apply_table_factories(&self, ctx: &SessionContext) {
        let state = ctx.state_ref();
        let mut state = state.write();
        let factories = state.table_factories_mut();
        if self.local_files {
            for (k, v) in SessionStateDefaults::default_table_factories() {
                factories.entry(k).or_insert(v);
            }
        } else {
            factories.clear();
        }
    }
}

/// The policy set in `ctx` ([`SqlPolicy::default`] when none was).
pub fn policy_of(ctx: &SessionContext) -> Arc<SqlPolicy> {
    ctx.state()
        .config()
        .get_extension::<SqlPolicy>()
        .unwrap_or_default()
}

/// The SQL name of `ddl`.
fn ddl_name(ddl: &DdlStatement) -> String {
    match ddl {
        DdlStatement::CreateExternalTable(t) => format!("CREATE EXTERNAL TABLE {}", t.name),
        DdlStatement::CreateMemoryTable(t) => format!("CREATE TABLE {}", t.name),
        DdlStatement::CreateView(v) => format!("CREATE VIEW {}", v.name),
        DdlStatement::CreateCatalogSchema(s) => format!("CREATE SCHEMA {}", s.schema_name),
        DdlStatement::CreateCatalog(c) => format!("CREATE DATABASE {}", c.catalog_name),
        DdlStatement::CreateIndex(_) => "CREATE INDEX".into(),
        DdlStatement::DropTable(t) => format!("DROP TABLE {}", t.name),
        DdlStatement::DropView(v) => format!("DROP VIEW {}", v.name),
        DdlStatement::DropCatalogSchema(s) => format!("DROP SCHEMA {}", s.name),
        DdlStatement::CreateFunction(f) => format!("CREATE FUNCTION {}", f.name),
        DdlStatement::DropFunction(f) => format!("DROP FUNCTION {}", f.name),
    }
}

/// The table functions a statement calls (`FROM f(...)`).
#[derive(Debug)]
struct TableFunctions(Vec<String>);

impl Visitor for TableFunctions {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table {
            name,
            args: Some(_),
            ..
        } = factor
        {
            self.0.push(name.to_string().replace('"', ""));
        }
        ControlFlow::Continue(())
    }
}

/// Visits the SQL inside `statement` (DataFusion's statements wrap sqlparser's).
fn visit_statement(statement: &Statement, v: &mut TableFunctions) {
    match statement {
        Statement::Statement(s) => {
            let _ = s.as_ref().visit(v);
        }
        Statement::CopyTo(c) => {
            if let CopyToSource::Query(q) = &c.source {
                let _ = q.as_ref().visit(v);
            }
        }
        Statement::Explain(e) => visit_statement(&e.statement, v),
        Statement::CreateExternalTable(_) | Statement::Reset(_) => {}
    }
}
