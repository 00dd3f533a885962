//! `SHOW TAGS db.t` (Paimon's Spark extension): one row per tag of the table (or of the branch
//! `db.t$branch_b` names), one column `tag`, in the order Java's `ShowTagsExec` returns them
//! (Scala's string order, which compares UTF-16 code units). Needs the `read` grant.
//!
//! DataFusion's parser reads `SHOW TAGS db.t` as `SHOW <variable>` with the words `TAGS`, `db`,
//! `t` (dots dropped); [`crate::ddl_spelling`] has checked before parsing that the text is
//! `SHOW TAGS` and one table name. Java has no `SHOW BRANCHES`: the branches are the
//! `db.t$branches` system table.

use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::{DataFrame, SessionContext};
use datafusion::sql::parser::Statement;
use datafusion::sql::sqlparser::ast::{ObjectName, Statement as Sql};

use crate::error::df_err;
use crate::policy::policy_of;
use crate::table::{off_runtime, PaimonTableProvider};

/// Answers `statement` when it is `SHOW TAGS t`; `None` leaves it to DataFusion.
///
/// # Errors
/// No table name, a name that is not a Paimon table, a missing `read` grant, storage errors
/// and malformed tag files.
pub(crate) async fn run(ctx: &SessionContext, statement: &Statement) -> Result<Option<DataFrame>> {
    let Statement::Statement(s) = statement else {
        return Ok(None);
    };
    let Sql::ShowVariable { variable } = s.as_ref() else {
        return Ok(None);
    };
    let [first, name @ ..] = variable.as_slice() else {
        return Ok(None);
    };
    if first.quote_style.is_some() || !first.value.eq_ignore_ascii_case("TAGS") {
        return Ok(None);
    }
    let fail = |why: String| DataFusionError::Plan(format!("SHOW TAGS: {why}"));
    if name.is_empty() {
        return Err(fail("give a table name (SHOW TAGS db.t)".into()));
    }
    let table_name = ObjectName::from(name.to_vec()).to_string();
    let fail = |why: String| DataFusionError::Plan(format!("SHOW TAGS {table_name}: {why}"));
    if !policy_of(ctx).grants.read {
        return Err(fail(
            "needs the read grant, not granted to this session".into(),
        ));
    }
    let provider = ctx
        .table_provider(table_name.as_str())
        .await
        .map_err(|e| fail(crate::call::first_line(&e)))?;
    let Some(provider) = provider.downcast_ref::<PaimonTableProvider>() else {
        return Err(fail("not a Paimon table".into()));
    };
    let path = provider.path().to_string();
    let table = paimon_rs::Table::from_meta(provider.meta().clone());
    let mut tags: Vec<String> = off_runtime(move || {
        table
            .tags()
            .map(|t| t.into_iter().map(|(name, _)| name).collect())
            .map_err(|e| df_err(&path, e))
    })
    .await?;
    tags.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    let schema = Schema::new(vec![Field::new("tag", DataType::Utf8, false)]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![Arc::new(StringArray::from(tags)) as ArrayRef],
    )?;
    Ok(Some(ctx.read_batch(batch)?))
}
