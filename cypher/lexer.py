"""A hand-written Cypher tokenizer: linear time, never raises anything but :class:`CypherSyntaxError`.

Comments (``//`` and ``/* */``) are skipped: kgqa never executes the input text, so nothing hidden in them can run.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import CypherSyntaxError

MAX_INPUT = 200_000
DIGITS = "0123456789"
_OPERATORS = (
    "<>",
    "!=",
    "<=",
    ">=",
    "=~",
    "..",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    ".",
    "|",
    ";",
    "*",
    "=",
    "<",
    ">",
    "-",
    "+",
    "/",
    "%",
    "^",
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "'": "'", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class Token:
    kind: str
    """IDENT, QIDENT (backticked), STRING, BADSTRING (a string literal that is not valid Unicode: its value says
    why), NUMBER, PARAM, OP or EOF."""
    value: str
    pos: int

    def is_keyword(self, *words: str) -> bool:
        return self.kind == "IDENT" and self.value.upper() in words


def tokenize(text: str) -> list[Token]:
    if len(text) > MAX_INPUT:
        raise CypherSyntaxError(f"input of {len(text)} characters exceeds the limit of {MAX_INPUT}")
    lone = next((i for i, c in enumerate(text) if _SURROGATES[0] <= c <= _SURROGATES[1]), None)
    if lone is not None:  # e.g. undecodable bytes of a command line: no text of it can be printed or embedded
        raise CypherSyntaxError(f"the text is not valid Unicode: {text[lone]!a} at position {lone}")
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise CypherSyntaxError("unterminated comment", i)
            i = end + 2
        elif c in "'\"":
            value, i2 = _string(text, i)
            tokens.append(_string_token(value, i))
            i = i2
        elif c == "`":
            end = i + 1
            parts = []
            while True:
                close = text.find("`", end)
                if close < 0:
                    raise CypherSyntaxError("unterminated backtick identifier", i)
                parts.append(text[end:close])
                if text.startswith("``", close):
                    parts.append("`")
                    end = close + 2
                    continue
                break
            tokens.append(Token("QIDENT", "".join(parts), i))
            i = close + 1
        elif c in DIGITS:  # ASCII only: str.isdigit() also accepts '²', which int() rejects
            j = i
            while j < n and (text[j] in DIGITS or (text[j] == "." and j + 1 < n and text[j + 1] in DIGITS)):
                j += 1
            if j < n and text[j] in "eE" and j + 1 < n and (text[j + 1] in DIGITS or text[j + 1] in "+-"):
                j += 2
                while j < n and text[j] in DIGITS:
                    j += 1
            tokens.append(Token("NUMBER", text[i:j], i))
            i = j
        elif c == "$":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            tokens.append(Token("PARAM", text[i + 1 : j], i))
            i = j
        elif c.isalpha() or c == "_":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            tokens.append(Token("IDENT", text[i:j], i))
            i = j
        else:
            op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
            if op is None:
                raise CypherSyntaxError(f"unexpected character {c!r}", i)
            tokens.append(Token("OP", op, i))
            i += len(op)
    tokens.append(Token("EOF", "", n))
    return tokens


_SURROGATES = ("\ud800", "\udfff")


def _string_token(value: str, pos: int) -> Token:
    """A string literal; ``\\u`` escapes of a surrogate pair become its character, a lone surrogate (``'\\uD83D'``)
    or a NUL a BADSTRING: no database, JSON encoder or terminal takes it."""
    if "\x00" in value:  # FalkorDB reads parameters as C strings: a NUL ends (and breaks) the query
        return Token("BADSTRING", "string literal holds a NUL character", pos)
    if not any(_SURROGATES[0] <= c <= _SURROGATES[1] for c in value):
        return Token("STRING", value, pos)
    units = value.encode("utf-16-le", "surrogatepass")
    try:
        return Token("STRING", units.decode("utf-16-le"), pos)
    except UnicodeDecodeError as exc:
        lone = units[exc.start : exc.end].decode("utf-16-le", "surrogatepass")
        return Token("BADSTRING", f"string literal holds a lone surrogate {lone!a}", pos)


def _string(text: str, start: int) -> tuple[str, int]:
    quote = text[start]
    out: list[str] = []
    i = start + 1
    while i < len(text):
        c = text[i]
        if c == quote:
            return "".join(out), i + 1
        if c == "\\":
            if i + 1 >= len(text):
                break
            nxt = text[i + 1]
            if nxt == "u" and i + 5 < len(text) and all(h in "0123456789abcdefABCDEF" for h in text[i + 2 : i + 6]):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    raise CypherSyntaxError("unterminated string", start)
