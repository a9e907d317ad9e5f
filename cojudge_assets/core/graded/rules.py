"""Graded perturbation rules with score ceilings (AXIOM's categories), made on the tree-sitter syntax tree.

A rule rewrites an accepted C, C++ or Java program at one *site*; its *ceiling* is the highest score (0-5,
AXIOM's scale: the refinement effort before deployment) a program carrying it deserves. A program carrying
several rule applications gets the lowest of their ceilings.

* 5, Alternatives: the same behaviour written another way (a for loop as a while loop, compound
  assignments, ternaries).
* 4, Readability: the same behaviour, harder to read (single-letter names, magic numbers, unreachable code).
* 3, Design: the same behaviour, worse structure (nesting, duplicated code, an inlined helper, a global).
* 2, Minor bugs: a defect whose repair (the inverse edit) is at most ``MINOR_REPAIR_TOKENS`` tokens.
* 1, Major defects: a defect whose repair is longer: a branch, an else branch or a validation block deleted,
  a base case removed, a loop replaced by its first iteration (a plausible wrong algorithm).
* 0, Not rectifiable: the program does not compile (a semicolon or a closing brace missing, an undeclared
  name) or fails every test (main returns at once, the output statement deleted).

Every rule is applied at one site at a time (:func:`applications`: one program per site); a program made of
several applications is core/graded/verify.py's work. A rule that finds no site in a program does not apply
to it. Whether an application had its intended effect is decided by execution (core/graded/verify.py), never
assumed here; the repair size (:func:`repair_tokens`) is static: the token-level Levenshtein distance of the
edit, the same in both directions. Every rule's before/after example is in docs/methodology.md ("Graded
perturbations") and in its test.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # tree-sitter loads with the first rule applied, not with the Definitions
    from tree_sitter import Node

from cojudge_assets.core.perturbation import budget
from cojudge_assets.core.perturbation import operators as ops
from cojudge_assets.core.perturbation.operators import _GRAMMARS, _parse, _walk
from cojudge_assets.core.perturbation.rewrites import _local_declarations, _rename_sites, _words

CATEGORIES: dict[int, str] = {
    5: "Alternatives",
    4: "Readability",
    3: "Design",
    2: "Minor bugs",
    1: "Major defects",
    0: "Not rectifiable",
}
PRESERVING = (5, 4, 3)  # ceilings whose rules must keep the program's behaviour on every test
MINOR_REPAIR_TOKENS = 5  # a defect repaired by an edit of at most this many tokens is minor (2), a longer one major
LANGUAGES = tuple(sorted(_GRAMMARS))  # c, cpp, java


@dataclass(frozen=True, order=True)
class Edit:
    """Replace bytes [start, end) of the program by ``new`` (start == end: an insertion)."""

    start: int
    end: int
    new: bytes


Site = list[Edit]  # the edits of one site, applied together
Finder = Callable[[dict[str, list["Node"]], str, bytes], Iterator[Site]]


@dataclass(frozen=True)
class Rule:
    name: str  # R<ceiling>_<WHAT>: the ceiling is part of the name
    ceiling: int
    summary: str
    find: Finder

    @property
    def category(self) -> str:
        return CATEGORIES[self.ceiling]

    @property
    def repair_range(self) -> tuple[int, float]:
        """The repair sizes (tokens, inclusive) of this rule's sites: a minor bug's at most MINOR_REPAIR_TOKENS, a
        major defect's more; any for the others."""
        if self.ceiling == 2:
            return 1, MINOR_REPAIR_TOKENS
        if self.ceiling == 1:
            return MINOR_REPAIR_TOKENS + 1, float("inf")
        return 0, float("inf")


def _t(node: Node | None) -> bytes:
    return (node.text or b"") if node is not None else b""


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type not in ("comment", "line_comment", "block_comment")]


def _inner_condition(node: Node) -> Node | None:
    """The expression inside an if's condition: ``( e )`` in C and Java, a condition_clause's value in C++."""
    if node.type == "condition_clause":
        value = node.child_by_field_name("value")
        return value if value is not None and len(_named(node)) == 1 else None
    if node.type == "parenthesized_expression":
        inside = _named(node)
        return inside[0] if len(inside) == 1 else None
    return None


def _else_body(if_statement: Node) -> Node | None:
    alternative = if_statement.child_by_field_name("alternative")
    if alternative is not None and alternative.type == "else_clause":  # C/C++ wrap it; Java does not
        inside = _named(alternative)
        return inside[0] if inside else None
    return alternative


def _single_statement(node: Node | None) -> Node | None:
    """``node`` itself, or the one statement of a block that holds exactly one."""
    if node is None:
        return None
    if node.type in ("compound_statement", "block"):
        inside = _named(node)
        return inside[0] if len(inside) == 1 else None
    return node


def _split_top(text: bytes, sep: int) -> list[bytes]:
    """``text`` split at ``sep`` outside brackets, strings and character literals."""
    parts, depth, quote, start, i = [], 0, 0, 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == 0x5C:  # backslash: skip the escaped byte
                i += 1
            elif c == quote:
                quote = 0
        elif c in b"\"'":
            quote = c
        elif c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    return parts + [text[start:]]


def _has(node: Node, types: set[str]) -> bool:
    return any(n.type in types for n in _walk(node))


_JUMPS = {"return_statement", "break_statement", "continue_statement", "goto_statement", "throw_statement"}
_ATOMIC = set(ops._ATOMIC) | {"char_literal", "character_literal", "string_literal", "true", "false"}


def _paren(node: Node) -> bytes:
    return _t(node) if node.type in _ATOMIC else b"(" + _t(node) + b")"


def _functions(nodes: dict[str, list[Node]], language: str) -> Iterator[tuple[Node, bytes, Node]]:
    """(definition, name, body) of every function (C/C++) or method (Java) with a body."""
    if language == "java":
        for method in nodes["method_declaration"]:
            body = method.child_by_field_name("body")
            if body is not None:
                yield method, _t(method.child_by_field_name("name")), body
        return
    for function in nodes["function_definition"]:
        declarator, body = function.child_by_field_name("declarator"), function.child_by_field_name("body")
        while declarator is not None and declarator.type in ("pointer_declarator", "reference_declarator"):
            declarator = declarator.child_by_field_name("declarator") or next(iter(_named(declarator)), None)
        if declarator is None or declarator.type != "function_declarator" or body is None:
            continue
        name = declarator.child_by_field_name("declarator")
        if name is not None and name.type == "identifier":
            yield function, _t(name), body


def _calls(root: Node, language: str, name: bytes) -> list[Node]:
    """Plain calls ``name(...)`` under ``root`` (no object, no qualifier)."""
    if language == "java":
        return [
            n
            for n in _walk(root)
            if n.type == "method_invocation"
            and n.child_by_field_name("object") is None
            and _t(n.child_by_field_name("name")) == name
        ]
    return [
        n
        for n in _walk(root)
        if n.type == "call_expression"
        and (f := n.child_by_field_name("function")) is not None
        and f.type == "identifier"
        and _t(f) == name
    ]


# --- 5: Alternatives --------------------------------------------------------------------------------------------


def _for_header(loop: Node, src: bytes, jumps: set[str]) -> tuple[Node, list[bytes]] | None:
    """(body, [init, condition, update]) of a three-clause for loop whose body is a block holding none of
    ``jumps``, else None."""
    body = loop.child_by_field_name("body")
    if body is None or body.type not in ("compound_statement", "block") or _has(body, jumps):
        return None
    opening = next((c for c in loop.children if c.type == "("), None)
    closing = [c for c in loop.children if c.type == ")" and c.end_byte <= body.start_byte]
    if opening is None or not closing:
        return None
    parts = [p.strip() for p in _split_top(src[opening.end_byte : closing[-1].start_byte], ord(";"))]
    return (body, parts) if len(parts) == 3 else None


def _for_to_while(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for loop in nodes["for_statement"]:
        header = _for_header(loop, src, {"continue_statement"})
        if header is None:
            continue
        body, (init, condition, _) = header
        if language == "java":
            if len(loop.children_by_field_name("init")) > 1:
                continue  # `for (i = 0, j = 1; ...)`: Java has no comma operator outside a for header
            updates = [_t(u) for u in loop.children_by_field_name("update")]
        else:
            updates = [_t(u) for u in loop.children_by_field_name("update")]
        inner = src[body.children[0].end_byte : body.children[-1].start_byte].rstrip()
        truth = b"true" if language == "java" else b"1"
        text = (
            b"{ "
            + (init + b"; " if init else b"")
            + b"while ("
            + (condition or truth)
            + b") {"
            + inner
            + b"".join(b" " + u + b";" for u in updates)
            + b" } }"
        )
        yield [Edit(loop.start_byte, loop.end_byte, text)]


_COMPOUNDABLE = {b"+", b"-", b"*", b"/", b"%", b"&", b"|", b"^", b"<<", b">>"}


def _compound_assign(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for assign in nodes["assignment_expression"]:
        left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
        if _t(assign.child_by_field_name("operator")) != b"=" or left is None or right is None:
            continue
        if left.type != "identifier" or right.type != "binary_expression":
            continue
        operator = _t(right.child_by_field_name("operator"))
        first, second = right.child_by_field_name("left"), right.child_by_field_name("right")
        if operator in _COMPOUNDABLE and first is not None and second is not None and _t(first) == _t(left):
            yield [Edit(assign.start_byte, assign.end_byte, _t(left) + b" " + operator + b"= " + _t(second))]


def _discarded(update: Node) -> bool:
    parent = update.parent
    if parent is None:
        return False
    if parent.type == "expression_statement":
        return True
    return parent.type == "for_statement" and any(
        (u.start_byte, u.end_byte) == (update.start_byte, update.end_byte)
        for u in parent.children_by_field_name("update")
    )


def _increment_as_compound(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for update in nodes["update_expression"]:
        operand = next(iter(_named(update)), None)
        token = next((c for c in update.children if c.type in ("++", "--")), None)
        if operand is None or token is None or operand.type != "identifier" or not _discarded(update):
            continue
        sign = b"+=" if token.type == "++" else b"-="
        yield [Edit(update.start_byte, update.end_byte, _t(operand) + b" " + sign + b" 1")]


def _if_to_ternary(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["if_statement"]:
        condition = statement.child_by_field_name("condition")
        inner = _inner_condition(condition) if condition is not None else None
        then = _single_statement(statement.child_by_field_name("consequence"))
        other = _single_statement(_else_body(statement))
        if inner is None or then is None or other is None:
            continue
        test = b"(" + _t(inner) + b")"
        if then.type == other.type == "return_statement":
            a, b = _named(then), _named(other)
            if len(a) == 1 and len(b) == 1:
                yield [
                    Edit(
                        statement.start_byte,
                        statement.end_byte,
                        b"return " + test + b" ? " + _paren(a[0]) + b" : " + _paren(b[0]) + b";",
                    )
                ]
            continue
        if then.type != "expression_statement" or other.type != "expression_statement":
            continue
        a, b = _named(then), _named(other)
        if len(a) != 1 or len(b) != 1 or a[0].type != "assignment_expression" or b[0].type != "assignment_expression":
            continue
        left_a, left_b = a[0].child_by_field_name("left"), b[0].child_by_field_name("left")
        if (
            _t(a[0].child_by_field_name("operator")) != b"="
            or _t(b[0].child_by_field_name("operator")) != b"="
            or left_a is None
            or left_a.type != "identifier"
            or _t(left_a) != _t(left_b)
        ):
            continue
        value_a, value_b = a[0].child_by_field_name("right"), b[0].child_by_field_name("right")
        assert value_a is not None and value_b is not None  # an assignment has both sides
        yield [
            Edit(
                statement.start_byte,
                statement.end_byte,
                _t(left_a) + b" = " + test + b" ? " + _paren(value_a) + b" : " + _paren(value_b) + b";",
            )
        ]


# --- 4: Readability ---------------------------------------------------------------------------------------------


def _single_letter_names(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    free = [c.encode() for c in "abcdefghijklmnopqrstuvwxyz" if c.encode() not in _words(src)]
    sites = sorted(_rename_sites(nodes, language), key=lambda s: s[0].start_byte)
    for (_name, occurrences), letter in zip((s for s in sites if len(_t(s[0])) > 1), free):
        yield [Edit(n.start_byte, n.end_byte, letter) for n in occurrences]


_NUMBER = re.compile(rb"-?(0[xX][0-9a-fA-F]+|[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?)[uUlLfFdD]*")


def _identifier_uses(nodes: dict[str, list[Node]], name: bytes) -> list[Node]:
    return [n for n in nodes["identifier"] if _t(n) == name]


def _line_span(src: bytes, node: Node) -> tuple[int, int]:
    """``node``'s bytes widened to its whole line(s) when nothing else stands on them, else its own bytes."""
    start = src.rfind(b"\n", 0, node.start_byte) + 1
    end = src.find(b"\n", node.end_byte - 1 if _t(node).endswith(b"\n") else node.end_byte)
    end = len(src) if end < 0 else end + 1
    if src[start : node.start_byte].strip() or src[node.end_byte : end].strip():
        return node.start_byte, node.end_byte
    return start, end


def _magic_numbers(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    constants: list[tuple[Node, bytes, bytes]] = []  # (definition, name, literal)
    if language == "java":
        for field in nodes["field_declaration"]:
            modifiers = next((c for c in field.children if c.type == "modifiers"), None)
            words = {c.type for c in modifiers.children} if modifiers is not None else set()
            declarators = field.children_by_field_name("declarator")
            if not {"static", "final"} <= words or len(declarators) != 1:
                continue
            name, value = declarators[0].child_by_field_name("name"), declarators[0].child_by_field_name("value")
            if name is not None and value is not None and _NUMBER.fullmatch(_t(value)):
                constants.append((field, _t(name), _t(value)))
    else:
        macro_text = b" ".join(_t(n) for n in nodes["preproc_arg"])
        for define in nodes["preproc_def"]:
            name, value = define.child_by_field_name("name"), define.child_by_field_name("value")
            if name is not None and value is not None and _NUMBER.fullmatch(_t(value).strip()):
                literal = _t(value).strip()
                if macro_text.count(_t(name)) == 0:
                    constants.append((define, _t(name), literal))
        for decl in nodes["declaration"]:
            if decl.parent is None or decl.parent.type != "translation_unit":
                continue  # globals only: a local constant may be shadowed
            qualifiers = {_t(c) for c in decl.children if c.type == "type_qualifier"}
            declarators = decl.children_by_field_name("declarator")
            if not qualifiers & {b"const", b"constexpr"} or len(declarators) != 1:
                continue
            declarator = declarators[0]
            name, value = declarator.child_by_field_name("declarator"), declarator.child_by_field_name("value")
            if (
                declarator.type == "init_declarator"
                and name is not None
                and name.type == "identifier"
                and value is not None
                and _NUMBER.fullmatch(_t(value))
                and macro_text.count(_t(name)) == 0
            ):
                constants.append((decl, _t(name), _t(value)))
    for definition, constant, literal in constants:
        uses = [
            u
            for u in _identifier_uses(nodes, constant)
            if not (u.start_byte >= definition.start_byte and u.end_byte <= definition.end_byte)
        ]
        if not uses or any(
            u.parent is not None and u.parent.type in ("field_access", "field_expression") for u in uses
        ):
            continue
        text = b"(" + literal + b")" if literal.startswith(b"-") else literal
        start, end = _line_span(src, definition)
        yield [Edit(start, end, b"")] + [Edit(u.start_byte, u.end_byte, text) for u in uses]


_CHAR = re.compile(rb"'([ -&(-\[\]-~])'")  # one printable ASCII character other than a quote or backslash
_PROMOTING = {b"==", b"!=", b"<", b"<=", b">", b">=", b"-"}  # both operands promoted to int, the result too


def _char_codes(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for literal in nodes["char_literal"] + nodes["character_literal"]:
        match = _CHAR.fullmatch(_t(literal))
        parent = literal.parent
        if match and parent is not None and parent.type == "binary_expression":
            if _t(parent.child_by_field_name("operator")) in _PROMOTING:
                yield [Edit(literal.start_byte, literal.end_byte, str(ord(match.group(1))).encode())]


def _unreachable_code(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    taken = _words(src)
    name = next(n for n in (b"unused", b"unused_", b"dead", b"dead_", b"never") if n not in taken)
    never = b"false" if language == "java" else b"0"
    for _, _, body in _functions(nodes, language):
        if not body.children or body.children[0].type != "{":
            continue
        text = b" if (" + never + b") { int " + name + b" = 0; " + name + b"++; }"
        yield [Edit(body.children[0].end_byte, body.children[0].end_byte, text)]


# --- 3: Design --------------------------------------------------------------------------------------------------


def _nest_conjunction(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["if_statement"]:
        condition, then = statement.child_by_field_name("condition"), statement.child_by_field_name("consequence")
        inner = _inner_condition(condition) if condition is not None else None
        if inner is None or then is None or statement.child_by_field_name("alternative") is not None:
            continue
        if inner.type != "binary_expression" or _t(inner.child_by_field_name("operator")) != b"&&":
            continue
        left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
        assert left is not None and right is not None  # a binary expression has both operands
        text = b"if (" + _t(left) + b") { if (" + _t(right) + b") " + _t(then) + b" }"
        yield [Edit(statement.start_byte, statement.end_byte, text)]


def _nest_else_if(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["if_statement"]:
        other = _else_body(statement)
        if other is not None and other.type == "if_statement":
            yield [Edit(other.start_byte, other.start_byte, b"{ "), Edit(other.end_byte, other.end_byte, b" }")]


def _into_branch(branch: Node, statement: bytes) -> list[Edit]:
    if branch.type in ("compound_statement", "block"):
        closing = branch.children[-1]
        return [Edit(closing.start_byte, closing.start_byte, b" " + statement + b" ")]
    return [Edit(branch.start_byte, branch.end_byte, b"{ " + _t(branch) + b" " + statement + b" }")]


def _duplicate_into_branches(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["if_statement"]:
        then, other = statement.child_by_field_name("consequence"), _else_body(statement)
        after = statement.next_named_sibling
        if then is None or other is None or other.type == "if_statement" or after is None:
            continue
        if statement.parent is None or statement.parent.type not in ("compound_statement", "block"):
            continue
        if after.type != "expression_statement" or _has(statement, _JUMPS):
            continue
        text = _t(after)
        yield (_into_branch(then, text) + _into_branch(other, text) + [Edit(statement.end_byte, after.end_byte, b"")])


_PURE_ARGUMENT = {
    "identifier",
    "number_literal",
    "decimal_integer_literal",
    "char_literal",
    "character_literal",
    "field_expression",
    "field_access",
    "subscript_expression",
    "array_access",
    "parenthesized_expression",
    "binary_expression",
    "unary_expression",
}
_IMPURE = {
    "call_expression",
    "method_invocation",
    "update_expression",
    "assignment_expression",
    "object_creation_expression",
}


def _parameter_names(definition: Node, language: str) -> list[bytes] | None:
    if language == "java":
        parameters = definition.child_by_field_name("parameters")
        if parameters is None:
            return None
        names = [_t(p.child_by_field_name("name")) for p in _named(parameters)]
        return names if all(p.type == "formal_parameter" for p in _named(parameters)) else None
    declarator = definition.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    if parameters is None:
        return None
    names = []
    for p in _named(parameters):
        if p.type != "parameter_declaration":
            return None
        d = p.child_by_field_name("declarator")
        while d is not None and d.type in ("pointer_declarator", "array_declarator"):
            d = d.child_by_field_name("declarator")
        if d is None or d.type != "identifier":
            return None  # `void`, an unnamed parameter, a reference...
        names.append(_t(d))
    return names


def _inline_helper(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    functions = list(_functions(nodes, language))
    defined: dict[bytes, int] = defaultdict(int)
    for _, name, _ in functions:
        defined[name] += 1
    locals_ = {_t(name) for name, _ in _local_declarations(nodes, language)}
    for definition, name, body in functions:
        statement = _single_statement(body)
        if name == b"main" or defined[name] != 1 or statement is None or statement.type != "return_statement":
            continue
        returned = _named(statement)
        parameters = _parameter_names(definition, language)
        if len(returned) != 1 or not parameters or _calls(body, language, name):
            continue
        expression = returned[0]
        identifiers = [n for n in _walk(expression) if n.type == "identifier"]
        called = {
            f.start_byte
            for c in _walk(expression)
            if c.type in ("call_expression", "method_invocation")
            and (f := c.child_by_field_name("function") or c.child_by_field_name("name")) is not None
        }
        free = {_t(n) for n in identifiers if n.start_byte not in called} - set(parameters)
        if free & locals_:
            continue  # a global it reads could be shadowed by a local at a call site
        root = (nodes["program"] if language == "java" else nodes["translation_unit"])[0]
        for call in _calls(root, language, name):
            arguments_node = call.child_by_field_name("arguments")
            arguments = _named(arguments_node) if arguments_node is not None else []
            if len(arguments) != len(parameters):
                continue
            if any(a.type not in _PURE_ARGUMENT or _has(a, _IMPURE) for a in arguments):
                continue
            by_name = dict(zip(parameters, arguments))
            out, last = [], expression.start_byte
            for n in sorted(identifiers, key=lambda n: n.start_byte):
                if _t(n) in by_name and n.start_byte not in called:
                    out += [src[last : n.start_byte], _paren(by_name[_t(n)])]
                    last = n.end_byte
            text = b"(" + b"".join(out) + src[last : expression.end_byte] + b")"
            yield [Edit(call.start_byte, call.end_byte, text)]


def _redundant_loop_guard(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    """A loop's condition checked again around its body, one block deeper (true there, so the same behaviour)."""
    for loop in nodes["for_statement"] + nodes["while_statement"]:
        body, condition = loop.child_by_field_name("body"), loop.child_by_field_name("condition")
        inner = _inner_condition(condition) if condition is not None and loop.type == "while_statement" else condition
        if body is None or inner is None or body.type not in ("compound_statement", "block"):
            continue
        if _has(inner, _IMPURE) or inner.type == "comma_expression":
            continue  # evaluated twice: only a condition without side effects
        inside = src[body.children[0].end_byte : body.children[-1].start_byte]
        yield [Edit(body.start_byte, body.end_byte, b"{ if (" + _t(inner) + b") {" + inside + b"} }")]


_SCALAR_TYPES = {"primitive_type", "sized_type_specifier", "integral_type", "floating_point_type", "boolean_type"}
_LITERALS = {
    "number_literal",
    "decimal_integer_literal",
    "decimal_floating_point_literal",
    "char_literal",
    "character_literal",
    "true",
    "false",
}


def _movable(decl: Node, language: str) -> bool:
    """A declaration of scalars (or, in C/C++, fixed-size arrays) with no qualifier, each at most initialised
    with a literal: the same at file scope as at the top of main."""
    if any(c.type in ("type_qualifier", "storage_class_specifier", "modifiers") for c in decl.children):
        return False
    type_node = decl.child_by_field_name("type")
    if type_node is None or type_node.type not in _SCALAR_TYPES:
        return False
    for declarator in decl.children_by_field_name("declarator"):
        value = declarator.child_by_field_name("value")
        if value is not None and value.type not in _LITERALS:
            return False
        name = declarator.child_by_field_name("name" if language == "java" else "declarator") or declarator
        if declarator.type in ("identifier",):
            continue
        if language == "java":
            if declarator.child_by_field_name("dimensions") is not None:
                return False
        elif name.type == "array_declarator":
            size = name.child_by_field_name("size")
            if value is not None or size is None or size.type != "number_literal":
                return False
        elif name.type != "identifier":
            return False
    return True


def _locals_to_globals(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for definition, name, body in _functions(nodes, language):
        if name != b"main":
            continue
        kind = "local_variable_declaration" if language == "java" else "declaration"
        moved = [s for s in _named(body) if s.type == kind and _movable(s, language)]
        if not moved:
            continue
        start = src.rfind(b"\n", 0, definition.start_byte) + 1
        indent = src[start : definition.start_byte]
        prefix = b"static " if language == "java" else b""
        for d in moved:  # one declaration a site
            yield [Edit(definition.start_byte, definition.start_byte, prefix + _t(d) + b"\n" + indent)] + [
                Edit(*_line_span(src, d), b"")
            ]
        return


# --- 2: Minor bugs (the seed study's operators, one site each) --------------------------------------------------


def _from_operator(finder: ops._Finder) -> Finder:
    def find(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
        for site in finder(nodes, language, src):
            yield [Edit(site.start, site.end, site.new)]

    return find


# --- 1: Major defects (and the one-token defects of the old ceiling 1, now minor bugs by their repair) ------------


def _negate_condition(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["if_statement"]:
        condition = statement.child_by_field_name("condition")
        inner = _inner_condition(condition) if condition is not None else None
        if inner is not None:
            yield [Edit(inner.start_byte, inner.end_byte, b"!(" + _t(inner) + b")")]


def _remove_base_case(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for _, name, body in _functions(nodes, language):
        if not _calls(body, language, name):
            continue  # not recursive
        for statement in _named(body):
            if (
                statement.type == "if_statement"
                and statement.child_by_field_name("alternative") is None
                and _has(statement, {"return_statement"})
            ):
                start, end = _line_span(src, statement)
                yield [Edit(start, end, b"")]
                break


_MIN_MAX = {b"max": b"min", b"min": b"max", b"fmax": b"fmin", b"fmin": b"fmax"}


def _swap_min_max(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for call in nodes["call_expression"] + nodes["method_invocation"]:
        target = call.child_by_field_name("function") or call.child_by_field_name("name")
        if target is not None and target.type == "qualified_identifier":  # std::max
            target = target.child_by_field_name("name")
        if language == "java" and _t(call.child_by_field_name("object")) != b"Math":
            continue
        if target is not None and target.type == "identifier" and _t(target) in _MIN_MAX:
            yield [Edit(target.start_byte, target.end_byte, _MIN_MAX[_t(target)])]


def _loops_around(node: Node) -> Iterator[Node]:
    parent = node.parent
    while parent is not None:
        if parent.type in ops._LOOPS:
            yield parent
        parent = parent.parent


_ACCUMULATING = {b"+=", b"-=", b"*=", b"/=", b"%=", b"|=", b"&=", b"^=", b"<<=", b">>="}


def _delete_accumulation(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for assign in nodes["assignment_expression"]:
        statement = assign.parent
        if statement is None or statement.type != "expression_statement" or not ops._in_loop(assign):
            continue
        target = assign.child_by_field_name("left")
        if _t(assign.child_by_field_name("operator")) not in _ACCUMULATING or target is None:
            continue
        if any(_t(target) in _words(_t(loop.child_by_field_name("condition"))) for loop in _loops_around(assign)):
            continue  # the loop's own counter: deleting it would only make the loop endless
        yield [Edit(statement.start_byte, statement.end_byte, b";")]


_BLOCKS = ("compound_statement", "block")


def _in_block(node: Node) -> bool:
    return node.parent is not None and node.parent.type in _BLOCKS


def _ends_in_jump(node: Node | None) -> bool:
    """A jump statement, or a block whose last statement is one (a guard's body)."""
    if node is None:
        return False
    if node.type in _BLOCKS:
        inside = _named(node)
        return bool(inside) and _ends_in_jump(inside[-1])
    return node.type in _JUMPS or (node.type == "expression_statement" and _t(node).startswith(b"exit("))


def _delete_branch(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["if_statement"]:
        if statement.child_by_field_name("alternative") is not None or not _in_block(statement):
            continue
        if _has(statement, _JUMPS):
            continue  # a guard: R1_DELETE_VALIDATION
        yield [Edit(*_line_span(src, statement), b"")]


def _delete_validation(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["if_statement"]:
        if statement.child_by_field_name("alternative") is not None or not _in_block(statement):
            continue
        if _ends_in_jump(statement.child_by_field_name("consequence")):
            yield [Edit(*_line_span(src, statement), b"")]


def _delete_else(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["if_statement"]:
        then, other = statement.child_by_field_name("consequence"), _else_body(statement)
        if then is None or other is None or other.type == "if_statement":
            continue  # no else, or an else-if chain (deleting it would delete every later branch)
        yield [Edit(then.end_byte, statement.end_byte, b"")]


def _loop_first_iteration(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for loop in nodes["for_statement"]:
        header = _for_header(loop, src, {"break_statement", "continue_statement"})
        if header is None or not header[1][1]:
            continue  # no three clauses, a jump in the body, or no condition (the loop ends on a break)
        body, (init, condition, _) = header
        yield [
            Edit(
                loop.start_byte,
                loop.end_byte,
                b"{ " + (init + b"; " if init else b"") + b"if (" + condition + b") " + _t(body) + b" }",
            )
        ]


# --- 0: Not rectifiable (does not compile, or fails every test) ----------------------------------------------


def _missing_semicolon(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["expression_statement"]:
        last = statement.children[-1] if statement.children else None
        if _in_block(statement) and last is not None and last.type == ";" and len(statement.children) > 1:
            yield [Edit(last.start_byte, last.end_byte, b"")]


def _unclosed_block(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for block in nodes["compound_statement"] + nodes["block"]:
        if block.parent is not None and block.parent.type in ops._LOOPS | {"if_statement", "else_clause"}:
            closing = block.children[-1] if block.children else None
            if closing is not None and closing.type == "}":
                yield [Edit(closing.start_byte, closing.end_byte, b"")]


def _undeclared_name(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    taken = _words(src)
    for name, scope in _local_declarations(nodes, language):
        uses = [
            n
            for n in nodes["identifier"]
            if _t(n) == _t(name) and n.start_byte > name.end_byte and n.end_byte <= scope.end_byte
        ]
        if not uses:
            continue
        fresh = _t(name) + b"_"
        while fresh in taken:
            fresh += b"_"
        yield [Edit(uses[0].start_byte, uses[0].end_byte, fresh)]


def _return_at_start(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for definition, name, body in _functions(nodes, language):
        if name != b"main" or not body.children or body.children[0].type != "{":
            continue
        returns_int = language != "java" and b"void" not in _t(definition.child_by_field_name("type"))
        # Java rejects a statement after a bare return (unreachable); `if (true)` keeps the rest reachable
        text = b" return 0;" if returns_int else (b" if (true) return;" if language == "java" else b" return;")
        yield [Edit(body.children[0].end_byte, body.children[0].end_byte, text)]


_OUTPUT = (b"printf(", b"puts(", b"putchar(", b"cout", b"std::cout", b"System.out.print")


def _delete_output(nodes: dict[str, list[Node]], language: str, src: bytes) -> Iterator[Site]:
    for statement in nodes["expression_statement"]:
        if _in_block(statement) and _t(statement).startswith(_OUTPUT):
            yield [Edit(*_line_span(src, statement), b"")]


RULES: tuple[Rule, ...] = (
    Rule("R5_FOR_TO_WHILE", 5, "a three-clause for loop written as a while loop", _for_to_while),
    Rule("R5_COMPOUND_ASSIGN", 5, "x = x op e written x op= e", _compound_assign),
    Rule("R5_INCREMENT_AS_COMPOUND", 5, "a discarded i++ / i-- written i += 1 / i -= 1", _increment_as_compound),
    Rule("R5_IF_TO_TERNARY", 5, "if/else assigning or returning one value written with ?:", _if_to_ternary),
    Rule(
        "R4_SINGLE_LETTER_NAMES", 4, "descriptive local names replaced by unused single letters", _single_letter_names
    ),
    Rule("R4_MAGIC_NUMBERS", 4, "named numeric constants inlined as bare literals", _magic_numbers),
    Rule("R4_CHAR_CODES", 4, "character literals in comparisons written as their ASCII codes", _char_codes),
    Rule("R4_UNREACHABLE_CODE", 4, "an unreachable block at the top of every function", _unreachable_code),
    Rule("R3_NEST_CONJUNCTION", 3, "if (a && b) S nested as if (a) { if (b) S }", _nest_conjunction),
    Rule("R3_NEST_ELSE_IF", 3, "else if chains nested one block deeper each", _nest_else_if),
    Rule(
        "R3_DUPLICATE_INTO_BRANCHES",
        3,
        "the statement after an if/else copied into both branches",
        _duplicate_into_branches,
    ),
    Rule("R3_LOCALS_TO_GLOBALS", 3, "main's scalar locals made global (shared mutable state)", _locals_to_globals),
    Rule("R3_INLINE_HELPER", 3, "calls of a one-expression helper inlined (a longer caller)", _inline_helper),
    Rule(
        "R3_REDUNDANT_LOOP_GUARD",
        3,
        "a loop's condition checked again around its body (deeper nesting, duplicated logic)",
        _redundant_loop_guard,
    ),
    Rule(
        "R2_OFF_BY_ONE",
        2,
        "a comparison in a condition off by one (< <-> <=, > <-> >=)",
        _from_operator(ops._ror_boundary),
    ),
    Rule("R2_SWAP_PLUS_MINUS", 2, "one arithmetic + written -", _from_operator(ops._arith_flip)),
    Rule("R2_LOOP_BOUND_MINUS_ONE", 2, "a for loop's bound lowered by one", _from_operator(ops._loop_shorten)),
    Rule("R2_NARROW_TYPE", 2, "a 64-bit integer variable declared 32-bit", _from_operator(ops._type_narrow)),
    Rule("R2_NEGATE_CONDITION", 2, "an if's condition negated", _negate_condition),
    Rule("R2_SWAP_MIN_MAX", 2, "a max call made min (or min max)", _swap_min_max),
    Rule("R2_DELETE_ACCUMULATION", 2, "a short compound update inside a loop deleted", _delete_accumulation),
    Rule("R1_REMOVE_BASE_CASE", 1, "a recursive function's first guarded return removed", _remove_base_case),
    Rule("R1_DELETE_BRANCH", 1, "an if statement without else (and without a jump) deleted", _delete_branch),
    Rule("R1_DELETE_VALIDATION", 1, "a guard (an if whose body ends in a jump) deleted", _delete_validation),
    Rule("R1_DELETE_ELSE", 1, "the else branch of an if/else deleted", _delete_else),
    Rule(
        "R1_LOOP_FIRST_ITERATION",
        1,
        "a for loop replaced by its first iteration (a plausible wrong algorithm)",
        _loop_first_iteration,
    ),
    Rule("R0_MISSING_SEMICOLON", 0, "a statement's semicolon deleted (does not compile)", _missing_semicolon),
    Rule("R0_UNCLOSED_BLOCK", 0, "a block's closing brace deleted (does not compile)", _unclosed_block),
    Rule("R0_UNDECLARED_NAME", 0, "one use of a local variable misspelled (does not compile)", _undeclared_name),
    Rule("R0_RETURN_AT_START", 0, "main returns before doing anything (fails every test)", _return_at_start),
    Rule("R0_DELETE_OUTPUT", 0, "an output statement deleted", _delete_output),
)
BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULES}


_TOKEN = re.compile(
    rb'"(?:\\.|[^"\\\n])*"'  # a string literal
    rb"|'(?:\\.|[^'\\\n])*'"  # a character literal
    rb"|[A-Za-z_]\w*|\d[\w.]*"  # a word, a number
    rb"|<<=|>>=|->|::|\+\+|--|&&|\|\||<<|>>|[-+*/%&|^!=<>]="  # a two- or three-character operator
    rb"|\S"  # any other character
)


def tokens(text: bytes) -> list[bytes]:
    """C/C++/Java tokens of ``text`` (comments count as their characters; the rules never write any)."""
    return _TOKEN.findall(text)


def repair_tokens(src: bytes, site: Site) -> int:
    """The size of the repair that undoes ``site``: the token-level Levenshtein distance between each edit's old
    and new text, summed over the site's edits (``if (a) x++;`` deleted is 6 tokens, ``<`` made ``<=`` one)."""
    return sum(levenshtein(tokens(src[e.start : e.end]), tokens(e.new)) for e in site)


def levenshtein(a, b) -> int:
    """rapidfuzz's Levenshtein distance (of strings, or of token lists), imported where it is used: loading the
    Definitions imports no heavy library (test_startup.py)."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


@dataclass(frozen=True)
class Application:
    """One rule applied at one site: the program made, and the repair that undoes it (in tokens)."""

    rule: str
    code: str
    repair_tokens: int


def _nodes(src: bytes, language: str) -> dict[str, list[Node]]:
    nodes: dict[str, list[Node]] = defaultdict(list)
    root = _parse(language, src).root_node
    budget.bounded_depth(root)
    for node in _walk(root):
        nodes[node.type].append(node)
    return nodes


def _apply(src: bytes, edits: list[Edit]) -> bytes:
    out, last = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out += [src[last : edit.start], edit.new]
        last = edit.end
    return b"".join([*out, src[last:]])


def _check_language(language: str, rule: Rule) -> None:
    if language not in _GRAMMARS:
        raise ValueError(f"rule {rule.name}: cannot rewrite language {language!r}: expected one of {LANGUAGES}")


def sites(code: str, language: str, rule: Rule) -> tuple[bytes, list[Site]]:
    """(the program's bytes, ``rule``'s sites in it in source order, those whose repair size is in the rule's
    :attr:`Rule.repair_range`)."""
    _check_language(language, rule)
    src = code.encode("utf-8")
    low, high = rule.repair_range
    found = sorted(rule.find(_nodes(src, language), language, src), key=lambda s: min(e.start for e in s))
    return src, [s for s in found if s and low <= repair_tokens(src, s) <= high]


def _made(src: bytes, language: str, rule: Rule, site: Site) -> Application | None:
    made = _apply(src, site)
    if made == src:
        return None
    if rule.ceiling > 0 and _parse(language, made).root_node.has_error:
        return None  # only a ceiling-0 rule may leave a program that does not parse
    return Application(rule.name, made.decode("utf-8"), repair_tokens(src, site))


def apply_at(code: str, language: str, rule: Rule, pick: int) -> Application | None:
    """``rule`` applied at one site of ``code``: the site ``pick`` modulo the number of sites, or the next one in
    source order (cyclically) when that one's program does not parse; None when no site gives a program. Inside
    budget.program_budget, a tree deeper than its bound or work past its deadline raises budget.OverBudget."""
    src, found = sites(code, language, rule)
    for i in range(len(found)):
        made = _made(src, language, rule, found[(pick + i) % len(found)])
        if made is not None:
            return made
    return None


def variants(code: str, language: str, rule: Rule) -> list[str]:
    """The programs ``rule`` makes of ``code``, one per site (:func:`sites`) in source order; none when the rule
    finds no site or every result fails to parse (a ceiling-0 rule's may)."""
    src, found = sites(code, language, rule)
    return [a.code for s in found if (a := _made(src, language, rule, s)) is not None]
