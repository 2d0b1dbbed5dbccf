"""The cypher package's one error type: the parser raises nothing else, whatever the input."""


class CypherSyntaxError(ValueError):
    """The input holds no usable query, or is malformed beyond what the tolerant parser can skip."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message if position is None else f"{message} (at character {position})")
        self.position = position
