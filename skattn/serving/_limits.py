"""Request-body limits enforced while the body streams: size and read deadline.

A pure ASGI middleware, so it sees every body message as the server
receives it, whether the client declared a ``Content-Length`` or sent the
body chunked. The whole body is read before the route runs:

- a declared length above the cap is refused at once (413), unread;
- a body that grows past the cap while it streams is refused (413) as
  soon as it does, the rest never stored;
- a body not complete within ``read_timeout`` seconds of the request's
  start (a client that declared more than it sends, or trickles) gets a
  408.

Refusals carry ``Connection: close``: the server closes the connection
instead of parsing the unread rest of the body as a next request. Before a
413 the rest of the body is read and discarded for at most
``DRAIN_SECONDS`` (as nginx's lingering close does): a socket closed with
unread data sends a TCP reset, which can destroy the refusal before the
client reads it.
(Malformed lengths — negative, not a number — never get here: the HTTP
parser refuses them with a 400.)
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["BodyLimits"]

#: Longest time the rest of a refused body is read and discarded, in seconds.
DRAIN_SECONDS = 1.0

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class _Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class BodyLimits:
    """ASGI middleware: read each request body whole, within a size cap and a deadline.

    Parameters
    ----------
    app : ASGI application
    max_body_bytes : int
        Largest body accepted, in bytes.
    read_timeout : float
        Seconds allowed for the whole body to arrive.
    on_refusal : callable or None
        Called with (path, status) for each refused request (metrics).

    Examples
    --------
    >>> async def app(scope, receive, send): ...
    >>> BodyLimits(app, max_body_bytes=2**20, read_timeout=10.0).max_body_bytes
    1048576
    """

    def __init__(
        self,
        app,
        max_body_bytes: int,
        read_timeout: float,
        on_refusal: Callable[[str, int], None] | None = None,
    ):
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.read_timeout = read_timeout
        self.on_refusal = on_refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            self._check_declared_length(scope)
            body = await _within(self._read(receive), self.read_timeout)
        except _Refused as refusal:
            if refusal.status == 413:
                await _drain(receive, min(DRAIN_SECONDS, self.read_timeout))
            await self._refuse(scope, send, refusal.status, str(refusal))
            return
        except asyncio.TimeoutError:
            message = (
                f"the request body did not arrive within {self.read_timeout:g} s "
                "(is Content-Length larger than the body sent?)"
            )
            await self._refuse(scope, send, 408, message)
            return
        if body is None:  # the client went away while sending
            return
        await self.app(scope, _replay(body, receive), send)

    def _check_declared_length(self, scope: Scope) -> None:
        # uvicorn's parser already refuses malformed lengths; another ASGI server may not.
        for name, value in scope.get("headers", ()):
            if name != b"content-length":
                continue
            if not value.isdigit():
                raise _Refused(
                    400, f"Content-Length must be a whole number of bytes, got {value!r}"
                )
            if int(value) > self.max_body_bytes:
                raise _Refused(
                    413,
                    f"the request body declares {int(value)} bytes; at most "
                    f"{self.max_body_bytes} are accepted",
                )

    async def _read(self, receive: Receive) -> bytes | None:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                raise _Refused(
                    413,
                    f"the request body exceeds {self.max_body_bytes} bytes (read so far: {size})",
                )
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _refuse(self, scope: Scope, send: Send, status: int, message: str) -> None:
        if self.on_refusal is not None:
            self.on_refusal(scope.get("path", ""), status)
        body = json.dumps({"error": message}).encode("utf-8")
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode("ascii")),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


async def _within(coroutine, seconds: float):
    """``coroutine``'s result, or ``asyncio.TimeoutError`` after ``seconds``."""
    if hasattr(asyncio, "timeout"):  # Python 3.11+: no task per request, unlike wait_for
        async with asyncio.timeout(seconds):
            return await coroutine
    return await asyncio.wait_for(coroutine, seconds)


async def _drain(receive: Receive, seconds: float) -> None:
    """Read and drop body messages until the body ends, the client goes, or ``seconds`` pass."""

    async def discard() -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                return

    try:
        await _within(discard(), seconds)
    except asyncio.TimeoutError:
        pass


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body read once, then the server's own messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
