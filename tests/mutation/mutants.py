"""Mutants of one module: small AST-level changes spliced into the source text, one at a time.

Operators: comparison flips (== !=, < >=, in / not in, is / is not), `and` <-> `or`, dropping a `not`,
boolean / None / number constants changed, `+` <-> `-`, a statement replaced by `pass`, a returned value
replaced by None. String constants are not mutated (the issue's figures are "non-string").
Each mutant has a stable id (module, enclosing function, operator, original text, occurrence) so the
reviewed equivalents in ``equivalent.txt`` survive unrelated edits that only move lines.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass

CMP_SWAP: dict[type, type] = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
                              ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In,
                              ast.Is: ast.IsNot, ast.IsNot: ast.Is}


@dataclass(frozen=True)
class Mutant:
    id: str
    module: str
    line: int
    end_line: int
    func: str
    op: str
    before: str
    after: str
    source: str  # the whole mutated module


def _offsets(data: bytes) -> list[int]:
    starts, pos = [0], 0
    for line in data.splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


class _Finder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[tuple[ast.AST, str, str, str]] = []  # node, func, op, replacement expression/stmt
        self.stack: list[str] = []
        self.skip = 0

    def _scoped(self, node: ast.AST, name: str) -> None:
        self.stack.append(name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._visit_func(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._visit_func(node)

    def _visit_func(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        self.stack.pop()  # decorators, defaults and annotations are not mutated

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        self.stack.pop()

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return  # f-strings are strings

    def _add(self, node: ast.AST, op: str, after: str) -> None:
        if self.stack:  # module-level statements (imports, constants tables) are not mutated
            self.found.append((node, ".".join(self.stack), op, after))

    def visit_Compare(self, node: ast.Compare) -> None:
        for i, cmp in enumerate(node.ops):
            if type(cmp) in CMP_SWAP:
                ops = list(node.ops)
                ops[i] = CMP_SWAP[type(cmp)]()
                new = ast.Compare(left=node.left, ops=ops, comparators=node.comparators)
                self._add(node, f"compare {type(cmp).__name__}->{type(ops[i]).__name__}", ast.unparse(new))
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self._add(node, f"boolop {type(node.op).__name__}->{type(other).__name__}",
                  ast.unparse(ast.BoolOp(op=other, values=node.values)))
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self._add(node, "drop not", ast.unparse(node.operand))
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        swap = {ast.Add: ast.Sub, ast.Sub: ast.Add}.get(type(node.op))
        if swap is not None and not any(isinstance(s, (ast.Constant, ast.JoinedStr)) and isinstance(
                getattr(s, "value", None), str) for s in (node.left, node.right)):
            self._add(node, f"binop {type(node.op).__name__}->{swap.__name__}",
                      ast.unparse(ast.BinOp(left=node.left, op=swap(), right=node.right)))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        v = node.value
        if v is True or v is False:
            self._add(node, f"constant {v}->{not v}", repr(not v))
        elif v is None:
            pass
        elif isinstance(v, int):
            self._add(node, f"constant {v}->{v + 1}", repr(v + 1))
            if v != 0:
                self._add(node, f"constant {v}->0", "0")

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and self.stack and not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass, ast.Global, ast.Nonlocal)):
            if isinstance(node, ast.Return) and node.value is not None and not (
                    isinstance(node.value, ast.Constant) and node.value.value is None):
                self._add(node, "return None", "return None")
            elif isinstance(node, (ast.Expr, ast.Assign, ast.AugAssign, ast.Raise, ast.Continue, ast.Break,
                                   ast.Delete)) and not (isinstance(node, ast.Expr) and isinstance(
                                       node.value, ast.Constant)):
                self._add(node, "statement -> pass", "pass")
        super().generic_visit(node)


def mutants(module: str, text: str) -> list[Mutant]:
    tree = ast.parse(text)
    finder = _Finder()
    finder.visit(tree)
    data = text.encode()  # ast's column offsets count UTF-8 bytes, so splice bytes, not characters
    starts = _offsets(data)
    original = ast.dump(tree)
    seen: dict[str, int] = {}
    out: list[Mutant] = []
    for node, func, op, after in finder.found:
        a = starts[node.lineno - 1] + node.col_offset
        b = starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[operator]
        before = data[a:b].decode()
        if isinstance(node, ast.stmt):
            rest = data[b:starts[node.end_lineno]].decode().strip()  # type: ignore[index]
            if data[starts[node.lineno - 1]:a].strip() or (rest and not rest.startswith("#")):
                continue  # shares its line with another statement
            replacement = after + "\n" * (node.end_lineno - node.lineno)  # type: ignore[operator]
        else:
            replacement = f"({after})"
        source = (data[:a] + replacement.encode() + data[b:]).decode()
        try:
            new = ast.parse(source)
        except SyntaxError:
            continue
        if ast.dump(new) == original:
            continue
        key = f"{module}|{func}|{op}|{before}"
        seen[key] = seen.get(key, 0) + 1
        digest = hashlib.sha1(f"{key}|{seen[key]}".encode()).hexdigest()[:10]
        out.append(Mutant(digest, module, node.lineno, node.end_lineno or node.lineno, func, op,
                          " ".join(before.split())[:120], after[:120], source))
    return out
