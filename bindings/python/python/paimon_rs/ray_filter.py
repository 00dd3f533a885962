"""Ray Data expressions turned into paimon-rs filter text (the SQL of ``Table.scan(filter=)``).

Ray pushes a predicate into a datasource as a ``ray.data.expressions.Expr``. The parts of
it that are comparisons of a column with literals, combined with ``&``, ``|`` and ``~``,
become a Paimon filter: the readers then skip row groups and files by their statistics and
drop non-matching rows before Arrow leaves Rust. Whatever cannot be written as a Paimon
filter (arithmetic, UDFs, comparisons between two columns, literals of other types) stays a
residual that the read task applies to each block with pyarrow, so the rows are the same as
Ray filtering them itself.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import math
from typing import Any, List, Optional, Tuple

from ray.data.expressions import BinaryExpr, ColumnExpr, Expr, LiteralExpr, Operation, UnaryExpr

__all__ = ["conjuncts", "expression_columns", "split_predicate", "to_filter"]

_COMPARISONS = {
    Operation.EQ: "=",
    Operation.NE: "<>",
    Operation.LT: "<",
    Operation.LE: "<=",
    Operation.GT: ">",
    Operation.GE: ">=",
}
# `lit(5) < col("a")` is `a > 5`.
_MIRRORED = {
    Operation.EQ: Operation.EQ,
    Operation.NE: Operation.NE,
    Operation.LT: Operation.GT,
    Operation.LE: Operation.GE,
    Operation.GT: Operation.LT,
    Operation.GE: Operation.LE,
}


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(v: Any) -> Optional[str]:
    """The SQL literal of ``v``, or None when a Paimon filter cannot hold it."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else None
    if isinstance(v, _decimal.Decimal):
        return str(v) if v.is_finite() else None
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, _dt.datetime):
        if v.tzinfo is not None:
            return None
        return "TIMESTAMP '" + v.isoformat(sep=" ", timespec="microseconds") + "'"
    if isinstance(v, _dt.date):
        return "DATE '" + v.isoformat() + "'"
    # numpy scalars (np.int64(5), np.float32(...)) carry their Python value in .item().
    item = getattr(v, "item", None)
    if callable(item) and type(v).__module__ == "numpy":
        return _literal(item())
    return None


def to_filter(expr: Expr) -> Optional[str]:
    """``expr`` as Paimon filter text, or None when any part of it cannot be written so."""
    if isinstance(expr, BinaryExpr):
        if expr.op in (Operation.AND, Operation.OR):
            left, right = to_filter(expr.left), to_filter(expr.right)
            if left is None or right is None:
                return None
            word = "AND" if expr.op is Operation.AND else "OR"
            return f"({left} {word} {right})"
        if expr.op in _COMPARISONS:
            op, col, lit = expr.op, expr.left, expr.right
            if isinstance(col, LiteralExpr) and isinstance(lit, ColumnExpr):
                op, col, lit = _MIRRORED[op], lit, col
            if not (isinstance(col, ColumnExpr) and isinstance(lit, LiteralExpr)):
                return None
            text = _literal(lit.value)
            if text is None:
                return None
            return f"{_ident(col.name)} {_COMPARISONS[op]} {text}"
        if expr.op in (Operation.IN, Operation.NOT_IN):
            col, values = expr.left, expr.right
            if not (isinstance(col, ColumnExpr) and isinstance(values, LiteralExpr)):
                return None
            if not isinstance(values.value, (list, tuple)) or not values.value:
                return None
            texts = [_literal(v) for v in values.value]
            if any(t is None for t in texts):
                return None
            word = "IN" if expr.op is Operation.IN else "NOT IN"
            return f"{_ident(col.name)} {word} ({', '.join(texts)})"
        return None
    if isinstance(expr, UnaryExpr):
        if expr.op in (Operation.IS_NULL, Operation.IS_NOT_NULL):
            if not isinstance(expr.operand, ColumnExpr):
                return None
            word = "IS NULL" if expr.op is Operation.IS_NULL else "IS NOT NULL"
            return f"{_ident(expr.operand.name)} {word}"
        if expr.op is Operation.NOT:
            inner = to_filter(expr.operand)
            return None if inner is None else f"(NOT {inner})"
        return None
    return None


def conjuncts(expr: Expr) -> List[Expr]:
    """The terms of ``expr``'s top-level AND chain (``expr`` itself when it is no AND)."""
    if isinstance(expr, BinaryExpr) and expr.op is Operation.AND:
        return conjuncts(expr.left) + conjuncts(expr.right)
    return [expr]


def expression_columns(expr: Expr) -> List[str]:
    """The column names ``expr`` refers to (with repeats)."""
    if isinstance(expr, ColumnExpr):
        return [expr.name]
    if isinstance(expr, BinaryExpr):
        return expression_columns(expr.left) + expression_columns(expr.right)
    if isinstance(expr, UnaryExpr):
        return expression_columns(expr.operand)
    return []


def split_predicate(expr: Expr, float_columns=(), accepts=None) -> Tuple[List[str], Optional[Expr]]:
    """``expr`` split into Paimon filter texts (one per translatable conjunct) and the
    residual Ray expression of the other conjuncts (None when there are none).

    ``accepts(text)``, when given, says whether the table takes a filter (a literal of the
    wrong type for its column is refused there); refused conjuncts stay in the residual.
    Conjuncts over ``float_columns`` are pushed (they prune files) and also kept in the
    residual: the data plane reports float comparisons as inexact (NaN ordering)."""
    floats = set(float_columns)
    pushed: List[str] = []
    residual: Optional[Expr] = None
    for term in conjuncts(expr):
        text = to_filter(term)
        if text is not None and accepts is not None and not accepts(text):
            text = None
        if text is not None:
            pushed.append(text)
        if text is None or floats.intersection(expression_columns(term)):
            residual = term if residual is None else residual & term
    return pushed, residual
