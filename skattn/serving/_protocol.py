"""uvicorn's httptools protocol with a deadline for each request's head.

uvicorn times out idle keep-alive connections after a response, but not a
fresh connection that sends nothing, nor a request head sent a byte at a
time (slowloris): each holds a socket for as long as the client likes.
Here a connection must deliver each request head (request line and
headers) within ``head_timeout`` seconds of opening, or of its previous
response; otherwise it is closed (with a 408 if a head had begun). The
body has its own deadline in the app (:mod:`skattn.serving._limits`).

The settings come from the ``SKATTN_SERVE`` environment variable that
:mod:`skattn.serving._server` sets, so every worker process reads them.
"""

from __future__ import annotations

import asyncio
import json
import os

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from skattn.serving._settings import DEFAULTS

__all__ = ["HeadTimeoutProtocol"]


_TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: 54\r\n\r\n"
    b'{"error": "the request head did not arrive in time"}\r\n'
)


def _head_timeout() -> float:
    settings = json.loads(os.environ.get("SKATTN_SERVE", "{}"))
    return float(settings.get("head_timeout", DEFAULTS["head_timeout"]))


class HeadTimeoutProtocol(HttpToolsProtocol):
    """:class:`uvicorn.protocols.http.httptools_impl.HttpToolsProtocol` with a head deadline.

    Examples
    --------
    >>> HeadTimeoutProtocol.head_timeout > 0
    True
    """

    head_timeout = _head_timeout()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._awaiting_head, self._head_begun = True, False
        self._head_timer: asyncio.TimerHandle | None = None
        self._arm_head_timer()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_begun = True

    def on_headers_complete(self) -> None:
        self._awaiting_head, self._head_begun = False, False
        self._cancel_head_timer()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._awaiting_head = True

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._awaiting_head and not self.transport.is_closing():
            self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        timer = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if not self._awaiting_head or self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a response is on its way; on_response_complete re-arms the deadline
        if self._head_begun:
            self.transport.write(_TIMEOUT_RESPONSE)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        # The HTTP parser's refusals (a negative or non-numeric Content-Length, a bad
        # chunk, a malformed head) answered in JSON like every other error.
        body = json.dumps({"error": f"malformed HTTP request: {msg}"}).encode("utf-8")
        self.transport.write(
            b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n\r\n" + body
        )
        self.transport.close()
