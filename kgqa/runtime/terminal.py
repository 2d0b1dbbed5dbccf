"""Text as a terminal may be shown it. Questions, node names, documents, file rows and the errors that quote them come
from users and data; a control character in them (``ESC ] 0 ; title BEL`` retitles a terminal, ``ESC [ 2 J`` clears
it, a CR or a newline forges a line of output) must reach the screen as something to read, never as a command.

One function, :func:`shown`, escapes them as GNU ``ls -b`` does: C escapes where C has one (``\\a``, ``\\b``, ``\\t``,
``\\n``, ``\\v``, ``\\f``, ``\\r``), else the character's UTF-8 bytes in octal (ESC is ``\\033``, DEL ``\\177``, the
C1 control CSI ``\\302\\233``). Printable Unicode is shown as it is. Beyond ``ls -b``, the bidirectional overrides and
isolates and the Unicode line and paragraph separators are escaped too (they reorder or break the line a reader
sees), and a lone surrogate is shown as the byte it stands for (``\\377``: what a non-UTF-8 byte of a command line
decodes to), where printing it would fail. A backslash stays one backslash: the escaping is for safety, not a
reversible encoding (JSON output is that), and LaTeX in MAG's abstracts or a regex in a question reads as written.

The module imports nothing heavy: the command line escapes every line it prints with it.
"""

from __future__ import annotations

import re

C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}
"""The C escapes ``ls -b`` writes."""

_BEYOND_C0 = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff"
UNSAFE = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
"""What :func:`shown` escapes: C0 and C1 controls and DEL, the bidirectional marks, embeddings, overrides and
isolates, the line and paragraph separators, and lone surrogates."""
UNSAFE_IN_JSON = re.compile(f"[{_BEYOND_C0}]")
"""What of :data:`UNSAFE` ``json.dumps`` leaves raw (it escapes C0 itself, and with ``ensure_ascii=False`` writes the
rest as it is); JSON has these characters only inside strings, where a ``\\uXXXX`` escape reads back the same."""


def shown(text: str) -> str:
    """``text`` with every character of :data:`UNSAFE` escaped (see the module): safe to print, one line."""
    return UNSAFE.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    named = C_ESCAPES.get(char)
    if named is not None:
        return named
    code = ord(char)
    data = bytes([code - 0xDC00]) if 0xDC80 <= code <= 0xDCFF else char.encode("utf-8", "surrogatepass")
    return "".join(f"\\{byte:03o}" for byte in data)
