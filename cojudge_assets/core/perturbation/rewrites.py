"""Behaviour-preserving rewrites of the control arm: edits a refactoring tool would make, on the syntax tree.

The seed study's controls (operators.py: INC_PRE, COMMENT_INSERT) change one line. These four rewrite a
program the way a person or a formatter might without changing what it does, and are verified like the
other controls (verify.py: the same output as the seed on every test):

* ``RENAME_LOCAL``: every use of one local variable renamed to a fresh name. Only a variable whose name is
  declared once in the whole program and appears nowhere outside the declaration's scope is renamed, so a
  field, function, type, global or shadowed name is never touched; the new name appears nowhere in the seed.
* ``REFORMAT``: the brace style flipped (K&R <-> Allman, by the program's majority) and the indentation
  re-indented (4 <-> 2 columns, tabs to 2 spaces); the token stream is unchanged.
* ``DEAD_BRANCH``: an unreachable branch ``if (0) { return 0; }`` (Java ``if (false) { return; }``)
  inserted as the first line of the entry function's body (one inserted line, like COMMENT_INSERT).
* ``SWAP_STATEMENTS``: two adjacent one-line statements of a block swapped when the data flow allows it:
  each is a plain assignment, update or primitive declaration of a plain variable with no call, no
  ``new``, no pointer dereference, and neither writes an identifier the other reads or writes.

Each is still a single conceptual edit, checked by :func:`single_edit` from the seed and the mutant's recorded
edit alone (``kind``: ``rename`` before -> after, ``reformat``, ``insert`` or ``swap`` of lines ``line`` and
``line + 1``), as :func:`operators.applies_once` does for the one-line operators.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from cojudge_assets.core.perturbation import budget
from cojudge_assets.core.perturbation.operators import (
    _GRAMMARS,
    OPERATORS,
    Mutant,
    _entry_body,
    _entry_comment,
    _in_guard,
    _in_loop,
    _lines,
    _parse,
    _split_eol,
    _spread,
    _walk,
    applies_once,
)

if TYPE_CHECKING:
    from tree_sitter import Node

REWRITES: tuple[str, ...] = ("RENAME_LOCAL", "REFORMAT", "DEAD_BRANCH", "SWAP_STATEMENTS")
ALL_OPERATORS: tuple[str, ...] = OPERATORS + REWRITES  # the order of tables and figures
REWRITE_KINDS = {"RENAME_LOCAL": "rename", "REFORMAT": "reformat", "DEAD_BRANCH": "insert", "SWAP_STATEMENTS": "swap"}
# Neutral names, tried in order; then aux2, aux3, ... (a name in the seed as a word anywhere is never taken).
FRESH_NAMES = ("aux", "tmp", "val", "cur", "elem", "item", "acc")

# Nodes read as one token: their inside is text (a gap inside a string literal is part of the string).
_ATOMIC_TOKENS = {
    "string_literal",
    "char_literal",
    "character_literal",
    "raw_string_literal",
    "text_block",
    "comment",
    "line_comment",
    "block_comment",
    "preproc_arg",
    "system_lib_string",
}
_COMMENTS = {"comment", "line_comment", "block_comment"}
# Blocks whose opening brace follows the brace style: bodies of functions, statements, classes, namespaces.
_BRACED = {
    "compound_statement",
    "field_declaration_list",
    "declaration_list",
    "block",
    "class_body",
    "constructor_body",
    "interface_body",
    "enum_body",
    "switch_block",
}
_BLOCKS = {"compound_statement", "block"}
_DIRECTIVES = ("preproc_include", "preproc_def", "preproc_function_def", "preproc_call", "preproc_directive")
# Places where an `identifier` is not a use of a local variable (Java writes fields and methods as identifiers).
_NOT_A_USE = {("field_access", "field"), ("method_invocation", "name"), ("labeled_statement", "label")}
_NOT_A_USE_PARENTS = {"scoped_identifier", "qualified_identifier", "break_statement", "continue_statement"}
_SIDE_EFFECTS = {
    "call_expression",
    "method_invocation",
    "object_creation_expression",
    "new_expression",
    "delete_expression",
    "pointer_expression",
    "lambda_expression",
    "comma_expression",
    "array_creation_expression",
}
_PRIMITIVE_TYPES = {
    "primitive_type",
    "sized_type_specifier",
    "integral_type",
    "floating_point_type",
    "boolean_type",
}
_WRITES = {"assignment_expression", "update_expression"}
_WORD = re.compile(rb"[A-Za-z_][A-Za-z_0-9]*")


@dataclass(frozen=True)
class Token:
    type: str
    text: bytes
    start: int
    end: int


def tokens(code: str | bytes, language: str) -> list[Token]:
    """The program's tokens in order: the tree's leaves, with literals, comments and macro bodies whole."""
    src = code.encode("utf-8") if isinstance(code, str) else code
    return list(_tokens(src, language))


@lru_cache(maxsize=64)  # a seed's tokens are read once per rewrite of it
def _tokens(src: bytes, language: str) -> tuple[Token, ...]:
    return tuple(
        Token(n.type, _bytes(n), n.start_byte, n.end_byte) for n, _, _ in _leaf_nodes(_parse(language, src).root_node)
    )


def _bytes(node: Node | None) -> bytes:
    return (node.text or b"") if node is not None else b""


def _nodes(root: Node) -> dict[str, list[Node]]:
    nodes: dict[str, list[Node]] = defaultdict(list)
    for node in _walk(root):
        nodes[node.type].append(node)
    return nodes


def _words(src: bytes) -> set[bytes]:
    return set(_WORD.findall(src))


def _fresh_name(src: bytes) -> str:
    taken = _words(src)
    for name in FRESH_NAMES:
        if name.encode() not in taken:
            return name
    k = 2
    while f"aux{k}".encode() in taken:
        k += 1
    return f"aux{k}"


# --- RENAME_LOCAL ---------------------------------------------------------------------------------------------------


def _declared_name(declarator: Node | None) -> Node | None:
    """The identifier a variable declarator declares (through init, array, pointer and reference declarators)."""
    while declarator is not None and declarator.type != "identifier":
        if declarator.type in ("init_declarator", "array_declarator", "pointer_declarator"):
            declarator = declarator.child_by_field_name("declarator")
        elif declarator.type == "variable_declarator":
            declarator = declarator.child_by_field_name("name")
        elif declarator.type == "reference_declarator":
            declarator = next((c for c in declarator.children if c.is_named), None)
        else:
            return None  # a function declarator (a prototype), a structured binding...
    return declarator


def _local_declarations(nodes: dict[str, list[Node]], language: str) -> Iterator[tuple[Node, Node]]:
    """(declared identifier, scope) of every local variable declared in a block or a for statement's init."""
    kind = "local_variable_declaration" if language == "java" else "declaration"
    for decl in nodes[kind]:
        scope = decl.parent
        if scope is None or scope.type not in (*_BLOCKS, "for_statement"):
            continue
        if language != "java" and not _inside_function(decl):
            continue
        for declarator in decl.children_by_field_name("declarator"):
            name = _declared_name(declarator)
            if name is not None:
                yield name, scope


def _inside_function(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_definition", "lambda_expression"):
            return True
        parent = parent.parent
    return False


def _is_use(node: Node) -> bool:
    parent = node.parent
    if parent is None or parent.type in _NOT_A_USE_PARENTS:
        return False
    return not any(parent.type == t and _same(parent.child_by_field_name(f), node) for t, f in _NOT_A_USE)


def _rename_sites(nodes: dict[str, list[Node]], language: str) -> Iterator[tuple[Node, list[Node]]]:
    """(declared identifier, every occurrence of its name) for each local variable that can be renamed safely:
    declared once, its name in no macro, and every occurrence of the name in the program a use inside its scope
    after the declaration (so no field, function, type, global or parameter shares it), declaring nothing else."""
    macro_words: set[bytes] = set()
    for kind in ("preproc_arg", "preproc_def", "preproc_function_def"):
        for node in nodes[kind]:
            macro_words |= _words(_bytes(node))
    by_text: dict[bytes, list[Node]] = defaultdict(list)
    for group in nodes.values():
        for node in group:
            if node.child_count == 0 and node.type.endswith("identifier"):
                by_text[_bytes(node)].append(node)
    declarations = list(_local_declarations(nodes, language))
    declared: dict[bytes, int] = defaultdict(int)
    for name, _ in declarations:
        declared[_bytes(name)] += 1
    for name, scope in declarations:
        occurrences = by_text[_bytes(name)]
        if declared[_bytes(name)] != 1 or _bytes(name) in macro_words:
            continue
        if any(
            n.type != "identifier"
            or not _is_use(n)
            or n.start_byte < name.start_byte
            or n.end_byte > scope.end_byte
            or (n.start_byte != name.start_byte and _declares(n))
            for n in occurrences
        ):
            continue
        yield name, occurrences


# (parent type, field) where an identifier declares a name: a parameter, a range-for variable, a lambda's...
_DECLARING = {
    ("parameter_declaration", "declarator"),
    ("optional_parameter_declaration", "declarator"),
    ("formal_parameter", "name"),
    ("catch_formal_parameter", "name"),
    ("for_range_loop", "declarator"),
    ("enhanced_for_statement", "name"),
    ("init_declarator", "declarator"),
    ("variable_declarator", "name"),
    ("declaration", "declarator"),
    ("array_declarator", "declarator"),
    ("pointer_declarator", "declarator"),
    ("function_declarator", "declarator"),
    ("lambda_expression", "parameters"),
}


def _declares(node: Node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type in ("inferred_parameters", "reference_declarator"):
        return True
    return any(parent.type == t and _same(parent.child_by_field_name(f), node) for t, f in _DECLARING)


def _same(a: Node | None, b: Node) -> bool:
    return a is not None and (a.start_byte, a.end_byte, a.type) == (b.start_byte, b.end_byte, b.type)


def _renames(src: bytes, nodes: dict[str, list[Node]], language: str) -> Iterator[Mutant]:
    sites = sorted(_rename_sites(nodes, language), key=lambda s: s[0].start_byte)
    fresh = _fresh_name(src)
    for index, (name, occurrences) in enumerate(sites):
        out, last = [], 0
        for n in sorted(occurrences, key=lambda n: n.start_byte):
            out += [src[last : n.start_byte], fresh.encode()]
            last = n.end_byte
        code = b"".join([*out, src[last:]])
        yield Mutant(
            operator="RENAME_LOCAL",
            arm="control",
            severity=None,
            line=name.start_point[0] + 1,
            kind="rename",
            before=_bytes(name).decode(),
            after=fresh,
            in_guard=_in_guard(name),
            in_loop=_in_loop(name),
            site=index,
            code=code.decode(),
        )


# --- REFORMAT -------------------------------------------------------------------------------------------------------


def _opening_braces(root: Node) -> list[tuple[Token, Token]]:
    """(previous token, `{`) for every opening brace of a block, in source order."""
    toks = _leaf_nodes(root)
    out = []
    for (prev, _, prev_in_directive), (brace, parent_type, _) in zip(toks, toks[1:]):
        if brace.type != "{" or parent_type not in _BRACED:
            continue
        if prev.type in _COMMENTS or prev_in_directive:
            continue
        out.append((Token(prev.type, _bytes(prev), prev.start_byte, prev.end_byte), Token("{", b"{", *_span(brace))))
    return out


def _span(node: Node) -> tuple[int, int]:
    return node.start_byte, node.end_byte


def _leaf_nodes(root: Node) -> list[tuple[Node, str | None, bool]]:
    """The leaves under ``root`` in source order, a literal, comment or macro body as one (empty MISSING nodes left
    out), each with its parent's type and whether it lies inside a preprocessor directive.

    The ancestors are tracked on the way down: ``Node.parent`` makes tree-sitter descend from the root again, so
    asking it of every leaf (and of every ancestor of each) cost the cube of the nesting depth (issue 34)."""
    out: list[tuple[Node, str | None, bool]] = []
    cursor = root.walk()
    ancestors: list[str] = []  # the types of the nodes above the cursor's
    directives = 0  # how many of them are directives
    seen = 0
    while True:
        node = cursor.node
        assert node is not None  # a cursor always stands on a node
        seen += 1
        if seen % 512 == 0:
            budget.check()
        atomic = node.type in _ATOMIC_TOKENS or node.child_count == 0
        if atomic and node.end_byte > node.start_byte:
            out.append((node, ancestors[-1] if ancestors else None, directives > 0 or node.type in _DIRECTIVES))
        if not atomic and cursor.goto_first_child():
            ancestors.append(node.type)
            directives += node.type in _DIRECTIVES
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out
            directives -= ancestors.pop() in _DIRECTIVES


def _line_indent(src: bytes, offset: int) -> bytes:
    start = src.rfind(b"\n", 0, offset) + 1
    line = src[start:offset]
    return line[: len(line) - len(line.lstrip(b" \t"))]


def _flip_braces(src: bytes, language: str) -> tuple[bytes, str, str]:
    """The program with its brace style flipped, and the styles before and after ("K&R", "Allman")."""
    braces = _opening_braces(_parse(language, src).root_node)
    same_line = [(p, b) for p, b in braces if b"\n" not in src[p.end : b.start]]
    if len(same_line) * 2 >= len(braces):  # K&R -> Allman: the brace on a line of its own
        edits = [
            (p.end, b.start, b"\n" + _line_indent(src, p.start))
            for p, b in same_line
            if src[p.end : b.start].strip(b" \t") == b"" and _ends_line(src, b.end)
        ]
        style = ("K&R", "Allman")
    else:  # Allman -> K&R: the brace pulled up to the end of the line before
        edits = [
            (p.end, b.start, b" ")
            for p, b in braces
            if src[p.end : b.start].count(b"\n") == 1 and src[p.end : b.start].strip(b" \t\r\n") == b""
        ]
        style = ("Allman", "K&R")
    for start, end, new in sorted(edits, reverse=True):
        src = src[:start] + new + src[end:]
    return src, *style


def _ends_line(src: bytes, offset: int) -> bool:
    end = src.find(b"\n", offset)
    return src[offset : len(src) if end < 0 else end].strip(b" \t\r") == b""


def _indent_unit(lines: list[bytes]) -> bytes:
    widths = [len(x) - len(x.lstrip(b" ")) for x in lines if x.startswith(b" ") and x.strip()]
    if sum(x.startswith(b"\t") for x in lines) > len(widths):
        return b"\t"
    return b"  " if widths and min(widths) == 2 else b"    "


def _reindent(src: bytes, language: str) -> tuple[bytes, str, str]:
    """Every line's leading indentation from the program's unit to another (4 <-> 2 spaces, a tab -> 2 spaces);
    lines that begin inside a multi-line token (a block comment, a text block) or continue a macro keep theirs."""
    frozen: set[int] = set()
    for tok in tokens(src, language):
        if b"\n" in tok.text:
            first = src.count(b"\n", 0, tok.start)
            frozen.update(range(first + 1, first + tok.text.count(b"\n") + 1))
    lines = src.split(b"\n")
    unit = _indent_unit(lines)
    new = b"    " if unit == b"  " else b"  "
    out = []
    for row, line in enumerate(lines):
        if row in frozen or (row > 0 and lines[row - 1].rstrip(b"\r").endswith(b"\\")):
            out.append(line)
            continue
        body = line.lstrip(b" \t")
        lead = line[: len(line) - len(body)]
        if unit == b"\t":
            levels, rest = lead.count(b"\t"), len(lead) - lead.count(b"\t")
        else:
            levels, rest = divmod(len(lead.replace(b"\t", b"    ")), len(unit))
        out.append(new * levels + b" " * rest + body)
    names = {b"\t": "tabs", b"  ": "2 spaces", b"    ": "4 spaces"}
    return b"\n".join(out), names[unit], names[new]


def _reformat(src: bytes, nodes: dict[str, list[Node]], language: str) -> Iterator[Mutant]:
    braced, style_before, style_after = _flip_braces(src, language)
    code, indent_before, indent_after = _reindent(braced, language)
    if code == src:
        return
    first = next((i for i, (a, b) in enumerate(zip(src, code)) if a != b), min(len(src), len(code)))
    yield Mutant(
        operator="REFORMAT",
        arm="control",
        severity=None,
        line=src.count(b"\n", 0, first) + 1,
        kind="reformat",
        before=f"{style_before} braces, indent {indent_before}",
        after=f"{style_after} braces, indent {indent_after}",
        in_guard=False,
        in_loop=False,
        site=0,
        code=code.decode(),
    )


# --- DEAD_BRANCH ----------------------------------------------------------------------------------------------------


def _dead_branch_text(nodes: dict[str, list[Node]], language: str) -> str | None:
    if language == "java":
        return "if (false) { return; }"
    body = _entry_body(nodes, language)
    if body is None:
        return None
    returns = body.parent.child_by_field_name("type") if body.parent is not None else None
    return "if (0) { return; }" if returns is not None and _bytes(returns) == b"void" else "if (0) { return 0; }"


def _dead_branches(src: bytes, nodes: dict[str, list[Node]], language: str) -> Iterator[Mutant]:
    text = _dead_branch_text(nodes, language)
    if text is None:
        return
    for site in _entry_comment(text)(nodes, language, src):
        line = site.new.removesuffix(b"\n").removesuffix(b"\r").decode()
        yield Mutant(
            operator="DEAD_BRANCH",
            arm="control",
            severity=None,
            line=src.count(b"\n", 0, site.start) + 1,
            kind="insert",
            before="",
            after=line,
            in_guard=False,
            in_loop=False,
            site=0,
            code=(src[: site.start] + site.new + src[site.end :]).decode(),
        )


# --- SWAP_STATEMENTS ------------------------------------------------------------------------------------------------


def _reads_writes(statement: Node) -> tuple[set[bytes], set[bytes]] | None:
    """(identifiers read or written, identifiers written) of a statement that may move, or None if it may not."""
    inside = list(_walk(statement))
    if any(n.type in _SIDE_EFFECTS for n in inside):
        return None
    names = {_bytes(n) for n in inside if n.type == "identifier"}
    if statement.type in ("declaration", "local_variable_declaration"):
        kind = statement.child_by_field_name("type")
        if kind is None or kind.type not in _PRIMITIVE_TYPES:
            return None
        written = set()
        for declarator in statement.children_by_field_name("declarator"):
            name = _declared_name(declarator)
            if name is None or declarator.type in ("reference_declarator", "pointer_declarator"):
                return None
            written.add(_bytes(name))
        if any(n.type in _WRITES for n in inside):
            return None
        return names, written
    if statement.type != "expression_statement" or statement.named_child_count != 1:
        return None
    expression = statement.named_children[0]
    if expression.type not in _WRITES or sum(n.type in _WRITES for n in inside) != 1:
        return None
    target = (
        expression.child_by_field_name("left")
        if expression.type == "assignment_expression"
        else expression.child_by_field_name("argument") or next(c for c in expression.children if c.is_named)
    )
    if target is None or target.type != "identifier":
        return None
    return names, {_bytes(target)}


def _whole_line(src: bytes, node: Node) -> bool:
    start = src.rfind(b"\n", 0, node.start_byte) + 1
    return src[start : node.start_byte].strip(b" \t") == b"" and _ends_line(src, node.end_byte)


def _swaps(src: bytes, nodes: dict[str, list[Node]], language: str) -> Iterator[Mutant]:
    lines = _lines(src.decode())
    index = 0
    for block in (b for kind in _BLOCKS for b in nodes[kind]):
        children = [c for c in block.named_children]
        for a, b in zip(children, children[1:]):
            if not (
                a.start_point[0] == a.end_point[0]
                and b.start_point[0] == b.end_point[0] == a.start_point[0] + 1
                and _whole_line(src, a)
                and _whole_line(src, b)
            ):
                continue
            first, second = _reads_writes(a), _reads_writes(b)
            if first is None or second is None or first[1] & second[0] or second[1] & first[0]:
                continue
            row = a.start_point[0]
            (text_a, eol_a), (text_b, eol_b) = _split_eol(lines[row]), _split_eol(lines[row + 1])
            if text_a.strip() == text_b.strip():
                continue
            swapped = lines[:row] + [text_b + eol_a, text_a + eol_b] + lines[row + 2 :]
            yield Mutant(
                operator="SWAP_STATEMENTS",
                arm="control",
                severity=None,
                line=row + 1,
                kind="swap",
                before=text_a,
                after=text_b,
                in_guard=False,
                in_loop=_in_loop(a),
                site=index,
                code="".join(swapped),
            )
            index += 1


# --- assembling and checking ----------------------------------------------------------------------------------------


_MAKERS = {
    "RENAME_LOCAL": _renames,
    "REFORMAT": _reformat,
    "DEAD_BRANCH": _dead_branches,
    "SWAP_STATEMENTS": _swaps,
}


def rewrite(
    code: str,
    language: str,
    *,
    max_per_operator: int | None = None,
    operators: tuple[str, ...] = REWRITES,
    first_only: bool = False,
) -> list[Mutant]:
    """The behaviour-preserving rewrites of ``code`` by ``operators`` (see the module docstring), in that order
    then source order; ``max_per_operator`` keeps that many per operator, spread over the program, as
    :func:`operators.mutate` does (before a rewrite that does not parse cleanly is dropped). With ``first_only``,
    only the rewrites of the first of ``operators`` that applies. verify.py checks each with :func:`single_edit`.
    Inside budget.program_budget, a tree deeper than its bound or work past its deadline raises budget.OverBudget."""
    if language not in _GRAMMARS:
        raise ValueError(f"cannot rewrite language {language!r}: expected one of {sorted(_GRAMMARS)}")
    if max_per_operator is not None and max_per_operator < 0:
        raise ValueError(f"max_per_operator must be >= 0, got {max_per_operator}")
    unknown = set(operators) - set(REWRITES)
    if unknown:
        raise ValueError(f"unknown rewrite operators {sorted(unknown)}: expected some of {list(REWRITES)}")
    src = code.encode("utf-8")
    root = _parse(language, src).root_node
    budget.bounded_depth(root)
    if root.has_error:
        return []  # a seed tree-sitter cannot read fully: no token stream to keep
    nodes = _nodes(root)
    out: list[Mutant] = []
    for operator in operators:
        with budget.rule(operator):
            made = sorted(_MAKERS[operator](src, nodes, language), key=lambda m: m.site)
            if max_per_operator is not None:
                made = [made[i] for i in _spread(len(made), max_per_operator)]
            out.extend(m for m in made if not _parse(language, m.code.encode()).root_node.has_error)
        if first_only and out:
            break
    return out


def rewrite_plan(seed_uids: list[str], share: float | None) -> list[tuple[str, ...]]:
    """For each seed of ``seed_uids``, the rewrite operators to try on it.

    ``share`` None: every operator on every seed. A share in (0, 1]: a seed is chosen, and which operator it tries
    first, by the sha256 of its seed_uid alone (never by its position among the seeds), so adding or removing a seed
    changes no other seed's rewrite; about that share of the seeds are chosen. A chosen seed tries the operators
    from its first on, in turn, and keeps the first that applies (one rewrite per seed); the others get none.
    Compiling a rewrite costs as much as compiling a mutant, so this keeps the demo run's added cost small
    (MutationSettings.rewrite_share).
    """
    if share is None:
        return [REWRITES] * len(seed_uids)
    if not 0 < share <= 1:
        raise ValueError(f"rewrite share {share}: expected a share in (0, 1], or None for every rewrite")
    plan: list[tuple[str, ...]] = []
    for uid in seed_uids:
        draw = int.from_bytes(hashlib.sha256(f"rewrite:{uid}".encode()).digest()[:8], "big")
        if (draw % _DRAWS) < share * _DRAWS:
            turn = (draw // _DRAWS) % len(REWRITES)
            plan.append(REWRITES[turn:] + REWRITES[:turn])
        else:
            plan.append(())
    return plan


_DRAWS = 1_000_000  # the resolution of the rewrite share


def _same_gaps(seed: bytes, a: list[Token], mutant: bytes, b: list[Token]) -> bool:
    edges_a = [0, *(x for t in a for x in (t.start, t.end)), len(seed)]
    edges_b = [0, *(x for t in b for x in (t.start, t.end)), len(mutant)]
    return all(
        seed[edges_a[i] : edges_a[i + 1]] == mutant[edges_b[i] : edges_b[i + 1]] for i in range(0, len(edges_a), 2)
    )


def single_edit(seed: str, mutant: Mutant, language: str | None = None) -> bool:
    """True iff ``mutant.code`` is ``seed`` changed by exactly the mutant's recorded edit and nothing else.

    ``rename``: every identifier token ``before`` of the seed became ``after`` (a name the seed does not use),
    and no other byte changed. ``reformat``: the same token stream (types and texts, comments included), only
    whitespace changed. ``swap``: lines ``line`` and ``line + 1`` (``before`` and ``after``) exchanged.
    Line kinds (``replace``, ``insert``) are :func:`operators.applies_once`. ``language`` is needed for the
    token kinds; without it they are not single edits.
    """
    if mutant.kind in ("replace", "insert"):
        return applies_once(seed, mutant)
    if mutant.code == seed:
        return False
    if mutant.kind == "swap":
        lines, i = _lines(seed), mutant.line - 1
        if not 0 <= i < len(lines) - 1:
            return False
        (a, eol_a), (b, eol_b) = _split_eol(lines[i]), _split_eol(lines[i + 1])
        if (a, b) != (mutant.before, mutant.after) or a == b:
            return False
        return mutant.code == "".join(lines[:i] + [b + eol_a, a + eol_b] + lines[i + 2 :])
    if language is None or mutant.kind not in ("rename", "reformat"):
        return False
    src, new = seed.encode("utf-8"), mutant.code.encode("utf-8")
    before, after = tokens(src, language), tokens(new, language)
    if len(before) != len(after):
        return False
    if mutant.kind == "reformat":
        if any((x.type, x.text) != (y.type, y.text) for x, y in zip(before, after)):
            return False
        return bytes(ch for ch in src if ch not in b" \t\r\n") == bytes(ch for ch in new if ch not in b" \t\r\n")
    old, fresh = mutant.before.encode(), mutant.after.encode()
    if old == fresh or fresh in _words(src) or not _WORD.fullmatch(fresh):
        return False
    renamed = 0
    for x, y in zip(before, after):
        if x.type.endswith("identifier") and x.text == old:
            if (y.type, y.text) != ("identifier", fresh):
                return False
            renamed += 1
        elif (x.type, x.text) != (y.type, y.text):
            return False
    return renamed > 0 and _same_gaps(src, before, new, after)
