"""The Cypher front end's errors, under one root of its own (it imports nothing of kgqa; kgqa's API raises its own
errors in their place): the parser raises nothing but :class:`CypherSyntaxError`, whatever the input."""


class CypherError(ValueError):
    """Root of the front end's errors."""


class CypherSyntaxError(CypherError):
    """The input holds no usable query, or is malformed beyond what the tolerant parser can skip."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message if position is None else f"{message} (at character {position})")
        self.position = position


class CypherValueError(CypherError):
    """A value the compiler cannot use: a LIMIT below 1, an identifier no database accepts."""
