"""What GitHub checks before it executes a GraphQL query, with GitHub's wording.

- validation errors (graphql-core finds them; the messages are rewritten to the graphql-ruby wording
  GitHub answers with, e.g. "Field 'x' doesn't exist on type 'T'" with extensions.code undefinedField);
- variable coercion errors ("Variable $n of type Int! was provided invalid value");
- connection limits: MISSING_PAGINATION_BOUNDARIES, EXCESSIVE_PAGINATION, MAX_NODE_LIMIT_EXCEEDED,
  and the query cost that `rateLimit { cost nodeCount }` reports.
All of these are answered as HTTP 200 ``{"errors": [...]}`` without a ``data`` key.
"""

from __future__ import annotations

import re
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLSchema,
    InlineFragmentNode,
    Node,
    OperationDefinitionNode,
    SelectionSetNode,
    get_named_type,
    print_ast,
)
from graphql.execution.values import get_argument_values
from graphql.language import get_location

MAX_NODES = 500_000
PAGE_LIMIT = 100


def _loc(node: Node | None) -> list[dict[str, int]]:
    if node is None or node.loc is None:
        return []
    where = get_location(node.loc.source, node.loc.start)
    return [{"line": where.line, "column": where.column}]


def _paths(doc: DocumentNode) -> dict[int, list[str]]:
    """id(AST node) -> GitHub's validation path (["query Name", "repository", "pullRequest", ...])."""
    out: dict[int, list[str]] = {}

    def walk(sel_set: SelectionSetNode | None, path: list[str]) -> None:
        for sel in sel_set.selections if sel_set else ():
            if isinstance(sel, FieldNode):
                here = [*path, sel.name.value]
                out[id(sel)] = here
                for arg in sel.arguments or ():
                    out[id(arg)] = [*here, arg.name.value]
                walk(sel.selection_set, here)
            elif isinstance(sel, InlineFragmentNode):
                cond = sel.type_condition.name.value if sel.type_condition else ""
                out[id(sel)] = here = [*path, f"... on {cond}" if cond else "..."]
                walk(sel.selection_set, here)
            elif isinstance(sel, FragmentSpreadNode):
                out[id(sel)] = [*path, f"... {sel.name.value}"]

    for d in doc.definitions:
        if isinstance(d, OperationDefinitionNode):
            root = [d.operation.value + (f" {d.name.value}" if d.name else "")]
        elif isinstance(d, FragmentDefinitionNode):
            root = [f"fragment {d.name.value}"]
        else:
            continue
        out[id(d)] = root
        for vd in getattr(d, "variable_definitions", None) or ():
            out[id(vd)] = root
        walk(d.selection_set, root)
    return out


_REWRITES: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"Cannot query field '(\w+)' on type '(\w+)'\."),
     lambda m: (f"Field '{m[1]}' doesn't exist on type '{m[2]}'",
                {"code": "undefinedField", "typeName": m[2], "fieldName": m[1]})),
    (re.compile(r"Unknown argument '(\w+)' on field '\w+\.(\w+)'\."),
     lambda m: (f"Field '{m[2]}' doesn't accept argument '{m[1]}'",
                {"code": "argumentNotAccepted", "name": m[2], "typeName": "Field", "argumentName": m[1]})),
    (re.compile(r"Field '(\w+)' argument '(\w+)' of type '[^']+' is required, but it was not provided\."),
     lambda m: (f"Field '{m[1]}' is missing required arguments: {m[2]}",
                {"code": "missingRequiredArguments", "className": "Field", "name": m[1], "arguments": m[2]})),
    (re.compile(r"Variable '\$(\w+)' is never used(?: in operation '(\w+)')?\."),
     lambda m: (f"Variable ${m[1]} is declared by {m[2] or 'anonymous query'} but not used",
                {"code": "variableNotUsed", "variableName": m[1]})),
    (re.compile(r"Variable '\$(\w+)' is not defined(?: by operation '(\w+)')?\."),
     lambda m: (f"Variable ${m[1]} is used by {m[2] or 'anonymous query'} but not declared",
                {"code": "variableNotDefined", "variableName": m[1]})),
    (re.compile(r"Field '(\w+)' of type '([^']+)' must have a selection of subfields\..*"),
     lambda m: (f"Field must have selections (field '{m[1]}' returns {m[2]} but has no selections. "
                f"Did you mean '{m[1]} {{ ... }}'?)",
                {"code": "selectionMismatch", "nodeName": f"field '{m[1]}'", "typeName": m[2]})),
    (re.compile(r"Field '(\w+)' must not have a selection since type '([^']+)' has no subfields\."),
     lambda m: (f"Selections can't be made on scalars (field '{m[1]}' returns {m[2]} but has selections)",
                {"code": "selectionMismatch", "nodeName": f"field '{m[1]}'", "typeName": m[2]})),
]


def validation_errors(errors: list[GraphQLError], doc: DocumentNode) -> list[dict[str, Any]]:
    paths = _paths(doc)
    out = []
    for err in errors:
        node = err.nodes[0] if err.nodes else None
        entry: dict[str, Any] = {}
        if node is not None and id(node) in paths:
            entry["path"] = paths[id(node)]
        message, ext = err.message, None
        for pattern, rewrite in _REWRITES:
            m = pattern.fullmatch(err.message) or pattern.match(err.message)
            if m:
                message, ext = rewrite(m)
                break
        if ext:
            entry["extensions"] = ext
        entry["locations"] = [{"line": loc.line, "column": loc.column} for loc in err.locations or []]
        entry["message"] = message
        out.append(entry)
    return out


def variable_errors(errors: list[GraphQLError], op: OperationDefinitionNode,
                    inputs: dict[str, Any]) -> list[dict[str, Any]]:
    types = {vd.variable.name.value: print_ast(vd.type) for vd in op.variable_definitions or ()}
    out = []
    for err in errors:
        m = re.match(r"Variable '\$(\w+)' (?:of required type '[^']+' was not provided\.|got invalid value "
                     r".*?; (.*))$", err.message, re.S)
        if not m:
            out.append({"locations": [{"line": x.line, "column": x.column} for x in err.locations or []],
                        "message": err.message})
            continue
        name = m[1]
        explanation = m[2] or "Expected value to not be null"
        out.append({
            "extensions": {"value": inputs.get(name), "problems": [{"path": [], "explanation": explanation}]},
            "locations": [{"line": x.line, "column": x.column} for x in err.locations or []],
            "message": f"Variable ${name} of type {types.get(name, '?')} was provided invalid value",
        })
    return out


def analyze(schema: GraphQLSchema, doc: DocumentNode, op: OperationDefinitionNode,
            variables: dict[str, Any]) -> tuple[list[dict[str, Any]], int, int]:
    """Connection limits. Returns (errors, cost, node_count) the way GitHub computes them."""
    fragments = {d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)}
    errors: list[dict[str, Any]] = []
    totals = {"requests": 0, "nodes": 0}
    over: list[str] = []

    def names(sel_set: SelectionSetNode | None, seen: frozenset[str] = frozenset()) -> set[str]:
        found: set[str] = set()
        for sel in sel_set.selections if sel_set else ():
            if isinstance(sel, FieldNode):
                found.add(sel.name.value)
            elif isinstance(sel, InlineFragmentNode):
                found |= names(sel.selection_set, seen)
            elif isinstance(sel, FragmentSpreadNode) and sel.name.value in fragments - seen:
                found |= names(fragments[sel.name.value].selection_set, seen | {sel.name.value})

        return found

    def walk(sel_set: SelectionSetNode | None, parent: Any, path: list[str], mult: int,
             seen: frozenset[str]) -> None:
        for sel in sel_set.selections if sel_set else ():
            if isinstance(sel, InlineFragmentNode):
                cond = schema.get_type(sel.type_condition.name.value) if sel.type_condition else parent
                walk(sel.selection_set, cond, path, mult, seen)
                continue
            if isinstance(sel, FragmentSpreadNode):
                frag = fragments.get(sel.name.value)
                if frag is not None and frag.name.value not in seen:
                    walk(frag.selection_set, schema.get_type(frag.type_condition.name.value), path, mult,
                         seen | {frag.name.value})
                continue
            assert isinstance(sel, FieldNode)
            fdef = getattr(parent, "fields", {}).get(sel.name.value)
            if fdef is None:
                continue
            here = [*path, sel.alias.value if sel.alias else sel.name.value]
            child = mult
            if get_named_type(fdef.type).name.endswith("Connection") and "first" in fdef.args:
                args = get_argument_values(fdef, sel, variables)
                first, last = args.get("first"), args.get("last")
                name = sel.name.value
                if first is None and last is None:
                    if {"nodes", "edges"} & names(sel.selection_set):
                        errors.append({"type": "MISSING_PAGINATION_BOUNDARIES", "path": here, "locations":
                                       _loc(sel), "message": "You must provide a `first` or `last` value to "
                                       f"properly paginate the `{name}` connection."})
                    size = 0
                else:
                    for arg, value in (("first", first), ("last", last)):
                        if value is not None and value > PAGE_LIMIT:
                            errors.append({"type": "EXCESSIVE_PAGINATION", "path": here, "locations": _loc(sel),
                                           "message": f"Requesting {value} records on the `{name}` connection "
                                           f"exceeds the `{arg}` limit of {PAGE_LIMIT} records."})
                    size = max(0, min(PAGE_LIMIT, first if first is not None else last))
                totals["requests"] += mult
                totals["nodes"] += mult * size
                child = mult * size
                if totals["nodes"] > MAX_NODES and not over:
                    over.append(name)
            walk(sel.selection_set, get_named_type(fdef.type), here, child, seen)

    root = schema.mutation_type if op.operation.value == "mutation" else schema.query_type
    walk(op.selection_set, root, [], 1, frozenset())
    if over and not errors:
        errors.append({"type": "MAX_NODE_LIMIT_EXCEEDED", "path": [], "locations": _loc(op), "message":
                       f"By the time this query traverses to the {over[0]} connection, it is requesting up to "
                       f"{totals['nodes']:,} possible nodes which exceeds the maximum limit of {MAX_NODES:,}."})
    cost = max(1, round(totals["requests"] / 100))
    return errors, cost, totals["nodes"]
