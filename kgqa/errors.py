"""Typed errors. The CLI prints any KgqaError as one line and exits non-zero; anything else is a bug."""

from __future__ import annotations


class KgqaError(Exception):
    """Base class of every error kgqa reports to a user."""

    exit_code = 1


class ConfigError(KgqaError):
    """A configuration file, environment variable or flag is invalid."""


class InputError(KgqaError):
    """User-supplied data (a STaRK directory, a question) is missing or malformed."""


class QuestionError(InputError):
    """A question (or Cypher text) given on the command line or to the API is refused before any work: too long,
    not text. Exit 2, like any other bad argument; malformed files stay exit 1 (InputError)."""

    exit_code = 2


class ArgumentError(InputError):
    """A call's argument of the wrong type (:func:`kgqa.api.check_arguments`), refused before any work, in process or
    at the worker's client. Exit 2, like any other bad argument."""

    exit_code = 2


class CypherSyntaxError(QuestionError):
    """A Cypher text, given or written by the LLM, holds no usable query. The Cypher front end (``kgqa.cypher``)
    imports nothing of kgqa and raises its own errors (root ``kgqa.cypher.errors.CypherError``); kgqa's API raises
    this one in place of its ``CypherSyntaxError``, under the same name, and an InputError in place of the others, so
    that ``KgqaError`` catches everything a user can meet. Exit 2: a bad argument."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position

    def __reduce__(self) -> tuple[type[CypherSyntaxError], tuple[str, int | None]]:
        return type(self), (str(self), self.position)  # crosses the worker's pipe whole


class UnknownSkbError(KgqaError):
    """The SKB name is not one kgqa knows how to load."""


class SkbNotLoadedError(KgqaError):
    """The SKB is known but has not been loaded into the store yet."""


class StoreError(KgqaError):
    """The graph store failed or refused a request."""


class StoreTimeoutError(StoreError):
    """A read ran past the store's query timeout (``query_timeout``), or kgqa's watchdog stopped it."""


class StoreLockedError(StoreError):
    """Another kgqa process holds the data directory."""


class EmbeddingError(KgqaError):
    """The embedding model could not be loaded or used."""


class LlmError(KgqaError):
    """The configured LLM failed: unreachable, timed out, refused the request, or could not be loaded."""


class WorkerError(KgqaError):
    """The background kgqa worker could not be started, reached or stopped."""


class WorkerStoppingError(WorkerError):
    """The worker is on its way out (idle, ``kgqa server stop``, replaced by one of other code): the client sends the
    call to the next worker."""


class WorkerBusyError(WorkerError):
    """The worker already answers as many calls as it may and as many wait: try again shortly (EX_TEMPFAIL)."""

    exit_code = 75


class Cancelled(KgqaError):
    """A long command was cancelled from its client (Ctrl-C, or the client went away)."""

    exit_code = 130
