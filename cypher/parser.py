"""Tolerant recursive-descent parser: LLM-written Cypher -> :class:`kgqa.cypher.plan.QueryPlan` (method step 3).

Tolerant of what LLMs really write (code fences, prose around the query, several MATCH clauses, comma patterns,
``p-[:r]->(f)`` without parentheses, backticked labels, type alternatives, WHERE conjunctions, trailing ``;``) and
total on everything else: a clause it cannot use is dropped with a reason; only when nothing usable remains does it
raise :class:`CypherSyntaxError`, its only error type.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .errors import CypherSyntaxError
from .lexer import Token, tokenize
from .plan import Condition, Direction, Dropped, QueryPlan, Symbol, Triplet, Value

READ_CLAUSES = (
    "MATCH",
    "OPTIONAL",
    "WHERE",
    "RETURN",
    "WITH",
    "UNWIND",
    "ORDER",
    "SKIP",
    "LIMIT",
    "LET",
    "FILTER",
    "FINISH",
    "NEXT",
    "OFFSET",
)
WRITE_OR_ADMIN = frozenset(
    (
        "CREATE",
        "MERGE",
        "DELETE",
        "DETACH",
        "NODETACH",
        "INSERT",
        "SET",
        "REMOVE",
        "CALL",
        "LOAD",
        "FOREACH",
        "USE",
        "UNION",
        "SHOW",
        "GRANT",
        "DENY",
        "REVOKE",
        "DROP",
        "ALTER",
        "START",
        "STOP",
        "TERMINATE",
    )
)
CLAUSES = READ_CLAUSES + tuple(sorted(WRITE_OR_ADMIN))
"""Keywords that start a clause (Cypher 5 and 25, GQL's INSERT/LET/FILTER/FINISH/NEXT): parsing of the clause
before stops there, so nothing after a RETURN item can hide in it."""
MAX_DEPTH = 64
_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|$)", re.DOTALL)
_FIRST_MATCH = re.compile(r"\b(?:OPTIONAL\s+)?MATCH\b", re.IGNORECASE)
_LABEL_STOPS = (":", "{", ")", "|")
_TYPE_STOPS = ("]", "|", "*", "{")
_RETURN_TAIL = re.compile(r"(?:\.\s*\w+)?(?:\s+AS\s+\w+)?", re.IGNORECASE)
"""What may follow the returned variable without changing the answer: ``.name``, ``AS drug``."""
_CASE_FUNCTIONS = ("TOLOWER", "TOUPPER", "TRIM", "LOWER", "UPPER")


def extract_query(text: str) -> tuple[str, list[Dropped]]:
    """The query inside an LLM reply: the first fenced block with a MATCH, else the text from the first MATCH."""
    dropped: list[Dropped] = []
    for block in _FENCE.findall(text):
        if _FIRST_MATCH.search(block):
            outside = _FENCE.sub("", text).strip()
            if outside:
                dropped.append(Dropped(_short(outside), "prose around the query"))
            text = block
            break
    found = _FIRST_MATCH.search(text)
    if found is None:
        raise CypherSyntaxError("no MATCH clause found")
    if text[: found.start()].strip():
        dropped.append(Dropped(_short(text[: found.start()]), "text before the first MATCH"))
    return text[found.start() :], dropped


def parse(text: str) -> QueryPlan:
    """Parse an LLM reply into a plan; raises only :class:`CypherSyntaxError`."""
    if not isinstance(text, str):
        raise CypherSyntaxError(f"expected text, got {type(text).__name__}")
    query, dropped = extract_query(text)
    try:
        tokens = tokenize(query)
    except CypherSyntaxError as exc:
        if exc.position is None:
            raise
        # Replies cut off by a token limit end inside a string: keep what came before, as far as it parses.
        tokens = tokenize(query[: exc.position])
        dropped.append(Dropped(_short(query[exc.position :]), f"{exc.args[0]}; the reply looks truncated"))
    try:
        return _Parser(tokens, query, dropped).run()
    except RecursionError as exc:  # pragma: no cover - MAX_DEPTH stops nesting long before Python's limit
        raise CypherSyntaxError("query nested too deeply") from exc


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


INT64_MAX = 2**63 - 1
"""Cypher integers are 64-bit in both dialects."""


def _number(text: str) -> int | float:
    """A number literal as Cypher reads it: a 64-bit integer or a finite float, else the clause is skipped (a
    5,000-digit LIMIT, ``1e999``)."""
    try:
        if text.isascii() and text.isdigit():
            if len(text.lstrip("0")) > len(str(INT64_MAX)) or int(text) > INT64_MAX:
                raise _Skip(f"number {text[:20]}{'...' if len(text) > 20 else ''} is beyond a 64-bit integer")
            return int(text)
        number = float(text)
    except ValueError as exc:
        raise _Skip(f"bad number {text[:20]!r}") from exc
    if not math.isfinite(number):
        raise _Skip(f"number {text[:20]} is not finite")
    return number


class _Skip(Exception):
    """Abandon the current clause (it is dropped with this reason) and resume at the next clause keyword."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


@dataclass
class _SymbolBuilder:
    labels: list[str] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)


@dataclass(frozen=True)
class _State:
    """A parser position and what had been built up to it (:meth:`_Parser.save`)."""

    i: int
    journal: int
    """entries of :attr:`_Parser.journal` then: the symbol changes made since are undone from it"""
    triplets: int
    dropped: int
    target: str | None
    limit: int | None
    distinct: bool
    anonymous: int


class _Parser:
    def __init__(self, tokens: list[Token], text: str, dropped: list[Dropped]) -> None:
        self.tokens = tokens
        self.text = text
        self.i = 0
        self.depth = 0
        self.dropped = dropped
        self.symbols: dict[str, _SymbolBuilder] = {}
        self.journal: list[tuple[str, int, int]] = []
        """(symbol, its labels and conditions before a change) per change, -1s for its creation: what
        :meth:`restore` undoes"""
        self.triplets: list[Triplet] = []
        self.target: str | None = None
        self.limit: int | None = None
        self.distinct = False
        self.anonymous = 0
        self._last_name = ""

    # -- token helpers -------------------------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def next(self) -> Token:
        token = self.tok
        if token.kind != "EOF":
            self.i += 1
        return token

    def is_op(self, *ops: str) -> bool:
        return self.tok.kind == "OP" and self.tok.value in ops

    def expect_op(self, op: str) -> None:
        if not self.is_op(op):
            raise _Skip(f"expected '{op}' but found '{self.tok.value or 'end of input'}'")
        self.next()

    def at_clause(self) -> bool:
        return self.tok.kind == "EOF" or self.tok.is_keyword(*CLAUSES) or self.is_op(";")

    def skip_clause(self, start: int, reason: str) -> None:
        """Drop tokens up to the next clause keyword outside brackets."""
        depth = 0
        self.i = max(self.i, start + 1) if self.tokens[start].kind != "EOF" else start
        while self.tok.kind != "EOF":
            if self.is_op("(", "[", "{"):
                depth += 1
            elif self.is_op(")", "]", "}"):
                depth = max(0, depth - 1)
            elif depth == 0 and self.at_clause():
                break
            self.next()
        self.dropped.append(Dropped(_short(self.text[self.tokens[start].pos : self.tok.pos]), reason))

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CypherSyntaxError(f"brackets nested deeper than {MAX_DEPTH}", self.tok.pos)

    # -- clauses -------------------------------------------------------------------------------------------------
    def run(self) -> QueryPlan:
        while self.tok.kind != "EOF":
            start = self.i
            token = self.tok
            saved = self.save()
            try:
                if self.is_op(";"):
                    self.next()
                elif token.is_keyword("MATCH"):
                    self.next()
                    self.match()
                elif token.is_keyword("OPTIONAL") and self.peek().is_keyword("MATCH"):
                    self.i += 2
                    self.dropped.append(Dropped("OPTIONAL", "OPTIONAL MATCH is read as MATCH"))
                    self.match()
                elif token.is_keyword("WHERE"):
                    self.next()
                    self.where()
                elif token.is_keyword("RETURN"):
                    self.next()
                    self.returns()
                elif token.is_keyword("LIMIT"):
                    self.next()
                    self.limit_clause()
                elif token.is_keyword("UNION"):  # a second query: joining its patterns to the first would be wrong
                    rest = self.text[token.pos :]
                    self.dropped.append(Dropped(_short(rest), "UNION: only the query before it is used"))
                    self.i = len(self.tokens) - 1
                elif token.is_keyword(*WRITE_OR_ADMIN):
                    self.skip_clause(start, f"{token.value.upper()} is not a read clause; kgqa only reads")
                elif token.is_keyword(*CLAUSES):
                    self.skip_clause(start, f"{token.value.upper()} is outside the supported subset")
                else:
                    self.dropped.append(Dropped(_short(self.text[token.pos :]), "trailing text after the query"))
                    break
            except _Skip as skip:  # the clause is dropped whole: nothing of it shapes the plan
                self.restore(saved)
                self.skip_clause(start, f"could not parse: {skip.reason}")
        return self.plan()

    def save(self) -> _State:
        """What a clause may change, to undo it when the clause is dropped after all."""
        return _State(
            self.i,
            len(self.journal),
            len(self.triplets),
            len(self.dropped),
            self.target,
            self.limit,
            self.distinct,
            self.anonymous,
        )

    def restore(self, state: _State) -> None:
        while len(self.journal) > state.journal:
            name, labels, conditions = self.journal.pop()
            builder = self.symbols[name]
            if labels < 0:  # the entry that made the symbol
                del self.symbols[name]
            else:
                del builder.labels[labels:], builder.conditions[conditions:]
        self.i, self.target = state.i, state.target
        del self.triplets[state.triplets :]
        del self.dropped[state.dropped :]
        self.limit, self.distinct, self.anonymous = state.limit, state.distinct, state.anonymous
        self.depth = 0  # clauses start at the top level

    def plan(self) -> QueryPlan:
        if not self.triplets and not any(b.labels or b.conditions for b in self.symbols.values()):
            why = next((f": {d.text} ({d.reason})" for d in self.dropped if d.reason.startswith("could not")), "")
            raise CypherSyntaxError(f"no usable MATCH pattern{why}")
        symbols = tuple(
            Symbol(name, tuple(dict.fromkeys(b.labels)), tuple(b.conditions)) for name, b in self.symbols.items()
        )
        target = self.target if self.target in self.symbols else None
        return QueryPlan(
            symbols, tuple(dict.fromkeys(self.triplets)), target, self.limit, self.distinct, tuple(self.dropped)
        )

    def match(self) -> None:
        """Comma-separated patterns; one that does not parse is dropped with the rest of the clause, those before it
        are kept (and so are not reported as dropped)."""
        while True:
            saved = self.save()
            try:
                self.pattern()
            except _Skip as skip:
                self.restore(saved)
                self.skip_clause(saved.i, f"could not parse: {skip.reason}")
                return
            if not self.is_op(","):
                break
            self.next()
        if not self.at_clause():
            self.skip_clause(self.i, f"could not parse: unexpected '{self.tok.value}' in MATCH")

    def pattern(self) -> None:
        if self.tok.kind in ("IDENT", "QIDENT") and self.peek().kind == "OP" and self.peek().value == "=":
            self.dropped.append(Dropped(f"{self.tok.value} =", "path variables are not used"))
            self.i += 2
        left = self.node()
        while self.is_op("-", "<"):
            types, direction = self.relationship()
            right = self.node()
            head, tail = (right, left) if direction == "in" else (left, right)
            self.triplets.append(Triplet(head, types, tail, "both" if direction == "both" else "out"))
            left = right

    def node(self) -> str:
        if self.tok.kind in ("IDENT", "QIDENT") and not self.tok.is_keyword(*CLAUSES):
            return self.variable(self.next().value)  # ``p-[:r]->(f)``: a bare variable
        self.expect_op("(")
        self.enter()
        name = None
        if self.tok.kind in ("IDENT", "QIDENT"):
            name = self.next().value
        self.variable_builder(name)
        symbol = self._last_name
        while self.is_op(":"):
            self.next()
            label = self.loose_name("label", _LABEL_STOPS)
            self.changing(symbol).labels.append(label)
            while self.is_op("|"):
                self.next()
                alternative = self.loose_name("label", _LABEL_STOPS)
                self.dropped.append(Dropped(f"|{alternative}", "label alternatives: first label kept"))
        if self.is_op("{"):
            items = self.map_literal()
            self.changing(symbol).conditions.extend(Condition(key, "=", value) for key, value in items)
        self.expect_op(")")
        self.depth -= 1
        return self._last_name

    def variable(self, name: str) -> str:
        self.variable_builder(name)
        return self._last_name

    def variable_builder(self, name: str | None) -> _SymbolBuilder:
        if name is None:
            self.anonymous += 1
            name = f"_n{self.anonymous}"
        self._last_name = name
        if name not in self.symbols:
            self.symbols[name] = _SymbolBuilder()
            self.journal.append((name, -1, -1))
        return self.symbols[name]

    def changing(self, name: str) -> _SymbolBuilder:
        """The builder of ``name``, its labels and conditions as they are now recorded so :meth:`restore` can undo
        what follows (one entry per change: saving a state costs nothing, however many symbols there are)."""
        builder = self.symbols[name]
        self.journal.append((name, len(builder.labels), len(builder.conditions)))
        return builder

    def identifier(self, what: str) -> str:
        if self.tok.kind not in ("IDENT", "QIDENT"):
            raise _Skip(f"expected a {what} name")
        return self.next().value

    def loose_name(self, what: str, stops: tuple[str, ...]) -> str:
        """A label or type as LLMs write it unquoted: ``gene/protein``, ``associated with``, ``off-label use``.

        Words are joined by one space, ``/`` and ``-`` without spaces, up to a stop operator; a backticked name is
        taken as is.
        """
        if self.tok.kind == "QIDENT":
            return self.next().value
        parts: list[str] = []
        while self.tok.kind in ("IDENT", "NUMBER") or self.is_op("/", "-"):
            if self.is_op("-") and (self.peek().kind == "OP" and self.peek().value in ("-", ">", "[", "(")):
                break  # the dash starts the relationship arrow, not a name
            token = self.next()
            if token.kind == "OP" or (parts and parts[-1] in ("/", "-")):
                parts.append(token.value)
            else:
                parts.append((" " if parts else "") + token.value)
            if self.is_op(*stops):
                break
        name = "".join(parts).strip()
        if not name or name.endswith(("/", "-")):
            raise _Skip(f"expected a {what} name")
        return name

    def relationship(self) -> tuple[tuple[str, ...], Direction]:
        left_arrow = self.is_op("<")
        if left_arrow:
            self.next()
        self.expect_op("-")
        types: list[str] = []
        if self.is_op("["):
            self.next()
            self.enter()
            if self.tok.kind in ("IDENT", "QIDENT"):
                self.next()  # relationship variables are not used
            if self.is_op(":"):
                self.next()
                types.append(self.loose_name("relationship type", _TYPE_STOPS))
                while self.is_op("|"):
                    self.next()
                    if self.is_op(":"):
                        self.next()
                    types.append(self.loose_name("relationship type", _TYPE_STOPS))
            if self.is_op("*"):
                raise _Skip("variable-length relationships are outside the supported subset")
            if self.is_op("{"):
                self.map_literal()
                self.dropped.append(Dropped("{...}", "relationship properties are not used"))
            self.expect_op("]")
            self.depth -= 1
        self.expect_op("-")
        right_arrow = self.is_op(">")
        if right_arrow:
            self.next()
        if left_arrow and right_arrow:
            raise _Skip("a relationship cannot point both ways")
        direction: Direction = "in" if left_arrow else "out" if right_arrow else "both"
        return tuple(types), direction

    def map_literal(self) -> list[tuple[str, Value]]:
        self.expect_op("{")
        self.enter()
        items = []
        while not self.is_op("}"):
            key = self.identifier("property")
            self.expect_op(":")
            items.append((key, self.literal()))
            if not self.is_op(","):
                break
            self.next()
        self.expect_op("}")
        self.depth -= 1
        return items

    def literal(self) -> Value:
        token = self.tok
        if token.kind == "STRING":
            self.next()
            return token.value
        if token.kind == "BADSTRING":
            raise _Skip(token.value)
        if token.kind == "NUMBER" or (self.is_op("-") and self.peek().kind == "NUMBER"):
            sign = -1 if self.is_op("-") else 1
            if sign < 0:
                self.next()
            text = self.next().value
            return sign * _number(text)
        if token.is_keyword("TRUE", "FALSE"):
            self.next()
            return token.value.upper() == "TRUE"
        if token.is_keyword("NULL"):
            self.next()
            return None
        if self.is_op("["):
            self.next()
            self.enter()
            values = []
            while not self.is_op("]"):
                values.append(self.literal())
                if not self.is_op(","):
                    break
                self.next()
            self.expect_op("]")
            self.depth -= 1
            return tuple(values)
        raise _Skip(f"expected a literal value, found '{token.value or 'end of input'}'")

    # -- WHERE ---------------------------------------------------------------------------------------------------
    def where(self) -> None:
        """Keep top-level AND-ed predicates; a predicate kgqa cannot use is dropped on its own."""
        while True:
            start, depth = self.i, self.depth
            try:
                self.predicate()
            except _Skip as skip:
                self.i, self.depth = start, depth
                self.skip_predicate(start, skip.reason)
            if self.tok.is_keyword("AND"):
                self.next()
                continue
            if self.tok.is_keyword("OR", "XOR"):
                start = self.i
                self.skip_to_clause()
                text = _short(self.text[self.tokens[start].pos : self.tok.pos])
                self.dropped.append(Dropped(text, "OR/XOR are not supported (method rule: no OR); the rest is dropped"))
            break
        if not self.at_clause():
            self.skip_clause(self.i, f"could not parse: unexpected '{self.tok.value}' in WHERE")

    def skip_to_clause(self) -> None:
        while not self.at_clause():
            self.next()

    def skip_predicate(self, start: int, reason: str) -> None:
        depth = 0
        self.i = start
        while self.tok.kind != "EOF":
            if self.is_op("(", "[", "{"):
                depth += 1
            elif self.is_op(")", "]", "}"):
                depth -= 1
            elif depth <= 0 and (self.tok.is_keyword("AND", "OR", "XOR") or self.at_clause()):
                break
            self.next()
        end = self.tok.pos
        self.dropped.append(Dropped(_short(self.text[self.tokens[start].pos : end]) or "?", reason))

    def predicate(self) -> None:
        if self.tok.is_keyword("NOT"):
            raise _Skip("negation is not supported (method rule: no negation)")
        if self.is_op("("):
            raise _Skip("parenthesised or pattern predicates are not supported")
        variable, prop, folded = self.property_ref()
        token = self.tok
        if token.kind == "OP" and token.value == "=~":
            raise _Skip(
                "regular expressions (=~) are not used: FalkorDB has none, and a pattern can take Neo4j "
                "exponential time"
            )
        if token.kind == "OP" and token.value in ("=", "<>", "!=", "<", ">", "<=", ">="):
            self.next()
            op = "<>" if token.value == "!=" else token.value
            value = self.literal()
        elif token.is_keyword("CONTAINS"):
            self.next()
            op, value = "CONTAINS", self.literal()
        elif token.is_keyword("STARTS", "ENDS") and self.peek().is_keyword("WITH"):
            self.i += 2
            op, value = f"{token.value.upper()} WITH", self.literal()
        elif token.is_keyword("IN"):
            self.next()
            op, value = "IN", self.literal()
            if not isinstance(value, tuple):
                raise _Skip("IN needs a list")
        elif token.is_keyword("IS"):
            raise _Skip("IS [NOT] NULL conditions are not used")
        else:
            raise _Skip(f"unsupported operator '{token.value}'")
        if folded and isinstance(value, str):
            value = value.lower()
        if variable not in self.symbols:
            raise _Skip(f"'{variable}' is not a variable of the MATCH pattern")
        self.changing(variable).conditions.append(Condition(prop, op, value))

    def property_ref(self) -> tuple[str, str, bool]:
        """``v.prop`` or ``toLower(v.prop)`` (case-folding functions are unwrapped)."""
        if self.tok.is_keyword(*_CASE_FUNCTIONS) and self.peek().kind == "OP" and self.peek().value == "(":
            self.i += 2
            variable, prop, _ = self.property_ref()
            self.expect_op(")")
            return variable, prop, True
        if self.tok.kind not in ("IDENT", "QIDENT"):
            raise _Skip("expected variable.property")
        variable = self.next().value
        self.expect_op(".")
        return variable, self.identifier("property"), False

    # -- RETURN / LIMIT ------------------------------------------------------------------------------------------
    def returns(self) -> None:
        if self.tok.is_keyword("DISTINCT"):
            self.next()
            self.distinct = True
        first = True
        while True:
            start = self.tok.pos
            depth = 0
            head = self.tok if self.tok.kind in ("IDENT", "QIDENT") else None
            while not (depth == 0 and (self.is_op(",") or self.at_clause())):
                if self.tok.kind == "EOF":  # an opened bracket never closed: next() stays on EOF, so stop here
                    raise _Skip("unbalanced brackets in RETURN")
                if self.is_op("(", "[", "{"):
                    depth += 1
                elif self.is_op(")", "]", "}"):
                    depth -= 1
                    if depth < 0:
                        raise _Skip("unbalanced brackets in RETURN")
                self.next()
            if first and head is not None and self.target is None:
                self.target = head.value
                rest = self.text[head.pos + len(head.value) : self.tok.pos].strip()
                if head.kind == "IDENT" and rest and not _RETURN_TAIL.fullmatch(rest):
                    self.dropped.append(Dropped(_short(rest), f"only the variable {head.value} of the RETURN is used"))
            elif self.tok.pos > start:
                item = _short(self.text[start : self.tok.pos])
                self.dropped.append(Dropped(item, "only the first RETURN item is kept"))
            first = False
            if not self.is_op(","):
                break
            self.next()
        while self.tok.is_keyword("ORDER", "SKIP"):
            start = self.i
            self.next()
            self.skip_clause(start, "ORDER BY/SKIP are not used; answers are ranked by similarity")

    def limit_clause(self) -> None:
        if self.tok.kind != "NUMBER" or not (self.tok.value.isascii() and self.tok.value.isdigit()):
            raise _Skip("LIMIT needs an integer")
        limit = _number(self.next().value)
        assert isinstance(limit, int)  # an ASCII digit string
        self.limit = limit
