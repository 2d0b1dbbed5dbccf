"""The MCP server: kgqa's read calls as tools, over stdio or streamable HTTP on loopback.

Why a tool call runs in a thread with a deadline: kgqa's calls block (a worker's socket, a store's read), and an
agent must get an answer or an error, never wait without end; a call past ``mcp_call_timeout`` is answered with a
one-line error while it ends in the worker within kgqa's own bounds (``query_timeout``, ``llm_timeout``). Why a pool
of clients: a worker's client carries one call at a time, and an HTTP server has many agents at once; the worker's
admission (``worker_max_calls``, ``worker_max_waiting``) bounds them, and refuses beyond, as it does for commands.

Annotations here are evaluated when the tools are defined (no ``from __future__ import annotations``): the SDK reads
each tool's parameters, bounds included (``max_question_chars``, ``l_max``), into the schema the model is shown.
"""

import contextlib
import hmac
import ipaddress
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import AnyHttpUrl, Field, ValidationError

from kgqa._version import __version__
from kgqa.api import Api
from kgqa.config import Config, open_home
from kgqa.errors import ConfigError, KgqaError, SkbNotLoadedError
from kgqa.mcp.results import (
    AskResult,
    ExplainResult,
    SchemaResult,
    SkbList,
    ask_result,
    explain_result,
    node_result,
    schema_result,
    skb_entry,
)
from kgqa.runtime.skbs import KNOWN

log = logging.getLogger("kgqa.mcp")
T = TypeVar("T")
MAX_K = 100
ERROR_META = "kgqa/error"
"""The ``_meta`` key of an error result holding ``{"type", "message"}``: structured content must match the tool's
output schema, which describes answers, so an error's type travels in ``_meta`` (the MCP spec's place for data
outside a result's schema), and clients that check structured content (the TypeScript SDK) read the error as is."""
"""The most answers one ``ask`` returns."""
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
INSTRUCTIONS = (
    "kgqa answers questions over semi-structured knowledge bases (SKBs): typed graphs whose nodes carry text, such as "
    "the Human Phenotype Ontology (hpo) or STaRK's prime, mag and amazon. Call list_skbs first to see which are "
    "loaded, schema to see an SKB's node types and relations, then ask with a question in plain words; each answer "
    "comes with its evidence (the graph nodes its query matched) and the trace of how it was found. explain shows "
    "the query plan and the parameterized Cypher for a question or for a Cypher draft of yours, ready to run in "
    "Neo4j Browser; kgqa never runs your text itself. node shows one entity with its document and relations. Every "
    "tool only reads."
)


class Clients:
    """Where the tools' calls go: the data directory's worker, one connection per call at once (a worker's client
    answers one call at a time), or with ``worker_idle_timeout = 0`` one kgqa in this process, shared (its calls are
    thread-safe, as the worker's are). ``opener``: how a connection is made (tests pass their own).

    The shared kgqa is opened, and closed, by a thread of its own that lives as long as the server: its store server
    dies with the thread that started it (``PR_SET_PDEATHSIG``), and the threads that run tool calls come and go."""

    def __init__(self, opener: Callable[[], Api], *, shared: bool) -> None:
        self._opener = opener
        self._shared = shared
        self._lock = threading.Lock()
        self._idle: list[Api] = []
        self._open: list[Api] = []
        self._closed = threading.Event()
        self._keeper: threading.Thread | None = None
        self._ready = threading.Event()
        self._one_api: Api | None = None
        self._failed: BaseException | None = None

    @contextlib.contextmanager
    def borrow(self) -> Iterator[Api]:
        if self._shared:
            yield self._one()
            return
        with self._lock:
            api = self._idle.pop() if self._idle else None
        if api is None:
            api = self._opener()
            with self._lock:
                self._open.append(api)
        try:
            yield api
        except KgqaError:
            self._give_back(api)
            raise
        except BaseException:
            self._discard(api)  # a connection that failed otherwise (cut mid-call) is not trusted again
            raise
        self._give_back(api)

    def _one(self) -> Api:
        with self._lock:
            if self._keeper is None:
                self._keeper = threading.Thread(target=self._keep, name="kgqa-mcp-store", daemon=True)
                self._keeper.start()
        self._ready.wait()
        if self._failed is not None:
            raise self._failed
        assert self._one_api is not None  # set before ``_ready`` unless the open failed
        return self._one_api

    def _keep(self) -> None:
        try:
            api = self._opener()
        except BaseException as exc:  # every call reports it
            self._failed = exc
            self._ready.set()
            return
        self._one_api = api
        self._ready.set()
        self._closed.wait()
        with contextlib.suppress(Exception):
            api.close()

    def _give_back(self, api: Api) -> None:
        with self._lock:
            if not self._closed.is_set():
                self._idle.append(api)
                return
        with contextlib.suppress(Exception):
            api.close()

    def _discard(self, api: Api) -> None:
        with self._lock:
            if api in self._open:
                self._open.remove(api)
        with contextlib.suppress(Exception):
            api.close()

    def close(self) -> None:
        with self._lock:
            self._closed.set()
            opened, self._open, self._idle = self._open, [], []  # the pool's; the shared one is its keeper's
            keeper = self._keeper
        for api in opened:
            with contextlib.suppress(Exception):
                api.close()
        if keeper is not None:
            keeper.join(60)


def default_clients(config: Config) -> Clients:
    """The worker's clients, as the command line connects (``kgqa: ...`` notices to the log), or kgqa in process."""
    if config.worker_idle_timeout > 0:
        from kgqa.runtime.worker.client import connect_worker

        return Clients(
            lambda: connect_worker(config, lambda text: log.warning("%s", text), wait=config.mcp_call_timeout),
            shared=False,
        )
    from kgqa.runtime.app import Kgqa

    return Clients(lambda: Kgqa(config), shared=True)


class KgqaMcp(MCPServer):
    """The SDK's server with kgqa's error contract: every failed call is a tool error of one line, the same line the
    command line prints (``error: ...``), with the error's type beside it as structured content; an argument the
    schema refuses names the argument and why; an internal error names its type and goes to the log with its
    traceback, never to the client."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            return failure(name, exc)


def failure(tool: str, exc: ToolError) -> CallToolResult:
    cause = exc.__cause__
    if isinstance(cause, ValidationError) and cause.title.endswith("Arguments"):  # the SDK's model of the inputs
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in cause.errors())
        kind, message = "InvalidArguments", f"invalid arguments for {tool}: {problems}"
    elif isinstance(cause, KgqaError):
        kind, message = type(cause).__name__, str(cause)
    elif isinstance(cause, ToolError):  # the tools' own refusals (two arguments at odds, the time bound)
        kind, message = "ToolError", str(cause)
    elif cause is None:  # the SDK's own (an unknown tool)
        kind, message = "ToolError", str(exc)
    else:
        log.error("internal error in tool %s", tool, exc_info=cause)
        kind, message = (
            "InternalError",
            f"internal error ({type(cause).__name__}) in {tool}; the server's log has the details",
        )
    line = " ".join(message.split())
    return CallToolResult(
        content=[TextContent(type="text", text=f"error: {line}")],
        is_error=True,
        _meta={ERROR_META: {"type": kind, "message": line}},
    )


class StaticToken:
    """The SDK's token check for one shared secret (``mcp_token``), compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="kgqa", scopes=[])
        return None


def build_server(config: Config, clients: Clients | None = None) -> KgqaMcp:
    """The server and its five tools, each call bounded by ``config.mcp_call_timeout``."""
    pool = clients or default_clients(config)
    timeout = config.mcp_call_timeout
    auth: dict[str, Any] = {}
    if config.mcp_token:
        auth = {
            "token_verifier": StaticToken(config.mcp_token),
            # the SDK's resource-server settings want an issuer; a static token has none, and nothing serves this URL
            "auth": AuthSettings(issuer_url=AnyHttpUrl("http://localhost"), resource_server_url=None),
        }
    server = KgqaMcp(name="kgqa", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING", **auth)
    # the tool calls' own threads: an abandoned call (past the timeout) holds one until kgqa answers it, so the SDK's
    # stdio reader, which shares anyio's default pool, never waits for them
    threads = anyio.CapacityLimiter(config.worker_max_calls + config.worker_max_waiting)

    async def call(work: Callable[[Api], T]) -> T:
        def run() -> T:
            with pool.borrow() as api:
                return work(api)

        try:
            with anyio.fail_after(timeout):
                return await anyio.to_thread.run_sync(run, abandon_on_cancel=True, limiter=threads)
        except TimeoutError:
            raise ToolError(
                f"kgqa did not answer within {timeout:g} s (mcp_call_timeout); the call ends in kgqa within its own "
                "bounds (query_timeout, llm_timeout): try again, or a narrower question"
            ) from None

    Skb = Annotated[
        str, Field(description=f"The knowledge base: one of {', '.join(KNOWN)} that is loaded (list_skbs).")
    ]

    @server.tool(annotations=READ_ONLY, structured_output=True)
    async def ask(
        question: Annotated[
            str,
            Field(
                description="The question in plain words, e.g. 'Which genes are associated with Marfan syndrome?'.",
                min_length=1,
                max_length=config.max_question_chars,
            ),
        ],
        skb: Skb,
        types: Annotated[
            list[str] | None,
            Field(description="Answer types to rank, e.g. ['gene/protein'] (schema lists them); default: the SKB's."),
        ] = None,
        k: Annotated[
            int | None,
            Field(description=f"How many answers, 1 to {MAX_K}; default {min(config.top_k, MAX_K)}.", ge=1, le=MAX_K),
        ] = None,
    ) -> AskResult:
        """Answer a question over an SKB: the entities best first, each with its evidence (the graph nodes the
        question's query matched, and why it ranks where it does), and a summary of the eight steps that found them
        (the compiled Cypher and its parameters included)."""
        top_k = k if k is not None else min(config.top_k, MAX_K)
        answer = await call(lambda api: api.ask(question, skb, types=types or None, top_k=top_k))
        return ask_result(answer)

    @server.tool(annotations=READ_ONLY, structured_output=True)
    async def explain(
        skb: Skb,
        question: Annotated[
            str | None,
            Field(
                description="A question in plain words: its query is planned as ask plans it.",
                max_length=config.max_question_chars,
            ),
        ] = None,
        cypher: Annotated[
            str | None,
            Field(
                description="Or a Cypher draft (MATCH ... RETURN ...), e.g. yours: it is sanitized against the schema, "
                "never run.",
                max_length=config.max_question_chars,
            ),
        ] = None,
        dialect: Annotated[
            Literal["neo4j", "falkordb"],
            Field(description="Whose Cypher to write: neo4j (for Neo4j Browser) or falkordb."),
        ] = "neo4j",
        scope: Annotated[
            int, Field(description="Candidate nodes per constant of the plan.", ge=1, le=config.l_max)
        ] = 1,
        types: Annotated[
            list[str] | None,
            Field(description="For a question: its answer types, as ask takes them; default: the SKB's."),
        ] = None,
    ) -> ExplainResult:
        """The query plan of a question or of a Cypher draft, and the parameterized Cypher kgqa compiles from it with
        its parameters (the vector lookups of each constant included), ready to paste into Neo4j Browser; what the
        sanitizer repaired or dropped, and why. Give exactly one of question and cypher."""
        if (question is None) == (cypher is None):
            raise ToolError("give exactly one of question and cypher")
        explanation = await call(
            lambda api: api.explain(
                skb, cypher=cypher, question=question, scope=scope, types=types or None, dialect=dialect
            )
        )
        return explain_result(explanation)

    @server.tool(annotations=READ_ONLY, structured_output=True)
    async def schema(skb: Skb) -> SchemaResult:
        """What an SKB holds: its source and counts, the candidate answer types, and the live schema (node labels,
        relationship types with their endpoints and counts, indexes)."""
        return await call(lambda api: schema_result(api.meta(skb), api.schema(skb)))

    @server.tool(annotations=READ_ONLY, structured_output=True)
    async def node(
        skb: Skb, node_id: Annotated[str, Field(description="The node's id, as an answer gives it.", min_length=1)]
    ) -> dict[str, Any]:
        """One entity: its type, name, aliases, document and relation counts."""
        return await call(lambda api: node_result(api.node(skb, node_id)))

    @server.tool(annotations=READ_ONLY, structured_output=True)
    async def list_skbs() -> SkbList:
        """The knowledge bases kgqa knows, and for each whether it is loaded here, with its source, size and
        candidate answer types."""

        def entries(api: Api) -> SkbList:
            found = []
            for name in KNOWN:
                try:
                    found.append(skb_entry(name, api.meta(name)))
                except SkbNotLoadedError:
                    found.append(skb_entry(name, None))
            return SkbList(skbs=found)

        return await call(entries)

    return server


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def check_http(config: Config) -> None:
    """HTTP binds loopback unless configured, and anything else only with a token."""
    if not _loopback(config.mcp_host) and not config.mcp_token:
        raise ConfigError(
            f"'mcp_host' {config.mcp_host} is not a loopback address: set 'mcp_token' (KGQA_MCP_TOKEN) so that HTTP "
            "clients must send it, or bind 127.0.0.1"
        )


def rebinding_guard(host: str) -> TransportSecuritySettings | None:
    """The SDK's guard against DNS rebinding (a web page's script reaching a local server under another name): only
    requests whose Host, and Origin if any, name the loopback address served are answered. None: the SDK's own for
    127.0.0.1, localhost and ::1, and no guard for an address that is not loopback, which needs the token instead
    (its clients use names the server cannot know)."""
    if host in ("127.0.0.1", "localhost", "::1") or not _loopback(host):
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=[f"{host}:*"], allowed_origins=[f"http://{host}:*"]
    )


def http_app(server: KgqaMcp, config: Config) -> Any:
    """The streamable HTTP app of ``server``, its endpoint behind kgqa's request checks (kgqa.mcp.http)."""
    from kgqa.mcp.http import guard_endpoint

    app = server.streamable_http_app(host=config.mcp_host, transport_security=rebinding_guard(config.mcp_host))
    guard_endpoint(app, "/mcp")
    return app


def serve(config: Config, *, http: bool = False, clients: Clients | None = None) -> None:
    """Serve until the client closes stdin (stdio) or the process is interrupted (HTTP). The worker is connected
    (started if need be) at once, in the background, so that the first tool call finds it warm."""
    if http:
        check_http(config)
    open_home(config.home)  # a one-line error at start, not one per tool call
    pool = clients or default_clients(config)
    server = build_server(config, pool)

    def warm() -> None:
        try:
            with pool.borrow():
                pass
        except Exception as exc:  # the first call reports it to the client
            log.warning("could not open kgqa yet: %s", exc)

    threading.Thread(target=warm, name="kgqa-mcp-warm", daemon=True).start()
    try:
        if http:
            import uvicorn

            app = http_app(server, config)
            uvicorn.run(app, host=config.mcp_host, port=config.mcp_port, log_level="warning")
        else:
            server.run()
    finally:
        pool.close()
