"""The review page's server: a Starlette app over a `Session`, served by uvicorn on
127.0.0.1 (the `label` extra)."""

from __future__ import annotations

import json
import socket
from importlib import resources
from typing import TYPE_CHECKING, Any

from ragjudge.exceptions import ConfigurationError, GoldDataError, RagJudgeError
from ragjudge.label._session import Session, SessionStoppedError

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["HOST", "bind", "make_app", "serve"]

HOST = "127.0.0.1"


def _page() -> str:
    return resources.files("ragjudge.label").joinpath("_page.html").read_text(encoding="utf-8")


def _reviewer(value: Any) -> str:
    name = str(value or "").strip()
    if not name or len(name) > 80:
        raise GoldDataError("a reviewer name is needed (1-80 characters)")
    return name


def make_app(session: Session, *, reviewer: str | None = None) -> Starlette:
    """The page and its JSON API over `session`.

    `app.state.fatal` holds the error that stopped the session (a rows file that changed), and
    `app.state.stop` is called with it so that the server exits.
    """
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse
    from starlette.routing import Route

    page = _page()

    def fail(exc: RagJudgeError, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=status)

    def stop(request: Request, exc: SessionStoppedError) -> JSONResponse:
        request.app.state.fatal = exc
        request.app.state.stop()
        return fail(exc, 409)

    def state(name: str, row_id: str | None) -> dict[str, Any]:
        return {
            "reviewer": name,
            "row": None if row_id is None else session.row_payload(row_id, name),
            "history": session.history.get(name, []),
            "figures": session.figures(name),
            "rows_sha256": session.rows_sha256,  # the page keys unsent notes by it
        }

    async def index(request: Request) -> HTMLResponse:
        fixed = json.dumps(reviewer or "").replace("<", "\\u003c")
        return HTMLResponse(page.replace('"__REVIEWER__"', fixed))

    async def next_row(request: Request) -> JSONResponse:
        try:
            name = _reviewer(request.query_params.get("reviewer"))
            return JSONResponse(state(name, session.next_row(name)))
        except SessionStoppedError as exc:
            return stop(request, exc)
        except RagJudgeError as exc:
            return fail(exc)

    async def show(request: Request) -> JSONResponse:
        try:
            name = _reviewer(request.query_params.get("reviewer"))
            row_id = request.path_params["row_id"]
            if row_id not in session.index:
                raise GoldDataError(f"no row {row_id!r}")
            return JSONResponse(state(name, row_id))
        except SessionStoppedError as exc:
            return stop(request, exc)
        except RagJudgeError as exc:
            return fail(exc, 404)

    async def answer(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the request is not JSON"}, status_code=400)
        try:
            name = _reviewer(body.get("reviewer"))
            said = body.get("answer")
            labels = {"faithful": 1, "not faithful": 0, "skip": None}
            if said not in labels:
                raise GoldDataError("answer must be 'faithful', 'not faithful' or 'skip'")
            session.answer(
                reviewer=name,
                row_id=str(body.get("id")),
                label=labels[said],
                note=str(body.get("note") or "")[:2000],
            )
            return JSONResponse({"ok": True})
        except SessionStoppedError as exc:
            return stop(request, exc)
        except RagJudgeError as exc:
            return fail(exc)

    async def draft(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the request is not JSON"}, status_code=400)
        try:
            session.keep_draft(
                reviewer=_reviewer(body.get("reviewer")),
                row_id=str(body.get("id")),
                note=str(body.get("note") or "")[:2000],
            )
            return JSONResponse({"ok": True})
        except RagJudgeError as exc:
            return fail(exc)

    async def reviewers(request: Request) -> JSONResponse:
        try:
            return JSONResponse({"reviewers": session.reviewers()})
        except SessionStoppedError as exc:
            return stop(request, exc)
        except RagJudgeError as exc:
            return fail(exc)

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/next", next_row),
            Route("/api/row/{row_id:path}", show),
            Route("/api/answer", answer, methods=["POST"]),
            Route("/api/draft", draft, methods=["POST"]),
            Route("/api/reviewers", reviewers),
        ]
    )
    app.state.fatal = None
    app.state.stop = lambda: None
    return app


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:`port` (0: a free port).

    The port can be bound again at once after a server on it stopped (`SO_REUSEADDR`: the
    connections it closed wait a minute in TIME_WAIT), so that the command started again
    serves the page at the same address, where the browser keeps the reviewer's name. A port
    another process listens on is still refused.

    Raises:
        ConfigurationError: The port is in use.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError:
        sock.close()
        raise ConfigurationError(
            f"port {port} on {HOST} is in use; pass another `port` (0 picks a free one)"
        ) from None
    sock.listen(64)
    sock.setblocking(False)
    return sock


def serve(app: Starlette, sock: socket.socket) -> None:
    """Serve `app` on `sock` until Ctrl-C, SIGTERM or a fatal error.

    Raises:
        RagJudgeError: The error that stopped the session, if one did.
    """
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
    server = uvicorn.Server(config)

    def stop() -> None:
        server.should_exit = True

    app.state.stop = stop
    server.run(sockets=[sock])
    fatal = app.state.fatal
    if fatal is not None:
        raise fatal
