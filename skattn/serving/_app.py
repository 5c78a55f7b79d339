"""The ASGI application that serves one artefact (FastAPI): see :func:`create_app`."""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from skattn._version import __version__
from skattn.serving._batching import Batcher
from skattn.serving._limits import BodyLimits
from skattn.serving._metrics import Metrics, MetricsMiddleware
from skattn.serving._served import ServedModel, load_served
from skattn.serving._settings import AUTO_BATCHING_MIB, DEFAULTS
from skattn.serving._v2 import V2Error, v2_router
from skattn.text._unicode import json_text

__all__ = ["create_app"]


class TextsRequest(BaseModel):
    """The body of a single-text model's routes."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"texts": ["a moving, funny film", ""]}]}
    )
    texts: list[StrictStr] = Field(min_length=1, description="The documents, one string each.")


class PairsRequest(BaseModel):
    """The body of a pair model's routes: each pair is [first text, second text]."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"pairs": [["A man plays a guitar.", "A man plays."]]}]},
    )
    pairs: list[tuple[StrictStr, StrictStr]] = Field(
        min_length=1, description="The pairs, each [first, second] (premise, hypothesis)."
    )


class Predictions(BaseModel):
    """``predict``'s answer: a label, a list of labels (multi-label) or a value per sample."""

    predictions: list[Any]


class Probabilities(BaseModel):
    """``predict_proba``'s answer, one row per sample, columns in the order of ``classes``."""

    probabilities: list[list[float]]
    classes: list[Any]


class Embeddings(BaseModel):
    """``transform``'s answer: one embedding per text."""

    embeddings: list[list[float]]


class Attention(BaseModel):
    """Each sample's tokens and attention weights, as the network computed them."""

    attention: list[dict[str, Any]]


class Error(BaseModel):
    """Every refusal: one line saying what is wrong and what is expected."""

    error: str


class _ServiceError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class _Service:
    """The app's state: the model, its executor and batchers, readiness."""

    def __init__(self, served: ServedModel, metrics: Metrics, settings: dict[str, Any]):
        self.served = served
        self.settings = settings
        self.ready = False
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="skattn-model")
        size = settings["max_batch_size"] if settings["batching"] else 1
        self.batchers = {
            method: Batcher(
                served.function(method),
                self.executor,
                size,
                settings["max_wait_ms"] / 1000,
                on_batch=lambda n, method=method: metrics.batch(method, n),
            )
            for method in served.methods
        }

    async def run(self, method: str, samples: list) -> Any:
        """The method's rows for ``samples``, through its batcher."""
        if len(samples) > self.settings["max_texts"]:
            raise _ServiceError(
                413,
                f"the request holds {len(samples)} samples; at most "
                f"{self.settings['max_texts']} per request (max_texts)",
            )
        try:
            await self._check_tokens(samples)
            return await self.batchers[method](samples)
        except (TypeError, ValueError) as error:  # the runtime's checks of the documents
            raise _ServiceError(422, str(error)) from None

    async def _check_tokens(self, samples: list) -> None:
        """A 413 for more tokens than ``max_tokens``, before any model work.

        The tokens are those the network reads (each text as the model
        truncates it): what a call's time and an answer's size grow with
        (``/attention`` returns weights for each). A request whose
        characters cannot hold that many tokens is not tokenised here (the
        model tokenises it once); others are, stopping past the limit, in a
        thread of their own so that the event loop keeps serving others.
        """
        budget = self.settings["max_tokens"]
        runtime = self.served.runtime
        if runtime.token_bound(samples) <= budget:
            return
        if await asyncio.to_thread(runtime.count_tokens, samples, stop_above=budget) > budget:
            raise _ServiceError(
                413,
                f"the request holds more than {budget} tokens (counted as the model reads "
                f"them, after its truncation); at most {budget} per request (max_tokens)",
            )

    async def warm_up(self) -> None:
        sample = ("a", "a") if self.served.reads_pairs else "a"
        for method in self.served.methods:
            await self.batchers[method]([sample])
        self.ready = True

    async def close(self) -> None:
        self.ready = False
        await asyncio.gather(*(batcher.close() for batcher in self.batchers.values()))
        self.executor.shutdown(wait=False)


class _TextSafeJSON(JSONResponse):
    """JSON that holds any token: lone surrogates escaped (``\\udcff``), not an encoding error."""

    def render(self, content: Any) -> bytes:
        return json_text(content).encode("utf-8")


def create_app(
    artifact: str | Path,
    *,
    batching: bool | str = DEFAULTS["batching"],
    max_batch_size: int = DEFAULTS["max_batch_size"],
    max_wait_ms: float = DEFAULTS["max_wait_ms"],
    max_body_bytes: int = DEFAULTS["max_body_bytes"],
    max_texts: int = DEFAULTS["max_texts"],
    max_tokens: int = DEFAULTS["max_tokens"],
    read_timeout: float = DEFAULTS["read_timeout"],
    threads: int | None = DEFAULTS["threads"],
    model_name: str | None = None,
) -> FastAPI:
    """An ASGI application that serves an artefact, for uvicorn or any ASGI host.

    Parameters
    ----------
    artifact : str or Path
        Written by :func:`skattn.serving.export`; read and checked now, not
        at the first request.
    batching : bool or "auto", default="auto"
        Gather concurrent requests into one onnxruntime call. "auto": on for
        networks of 64 MiB or more (*Deployment* guide); ``GET /model`` says.
    max_batch_size : int, default=64
        Most samples gathered into one call.
    max_wait_ms : float, default=0
        How long a call waits for more requests (0: only those queued meanwhile).
    max_body_bytes : int, default=1 MiB
        Largest request body, enforced while it streams (chunked too).
    max_texts : int, default=1024
        Most samples in one request.
    max_tokens : int, default=200,000
        Most tokens in one request, as the model reads them (truncated), else a
        413 before any model work: it bounds a request's time and answer.
    read_timeout : float, default=10
        Seconds allowed for a request's whole body to arrive.
    threads : int or None, default=1
        onnxruntime's intra-op threads (run more workers to use more cores).
    model_name : str or None, default=None
        The name in the v2 routes (default: the file name less ``.onnx.zip``).

    Returns
    -------
    fastapi.FastAPI
        Routes: ``/health``, ``/ready``, ``/model``, ``/metrics``, ``/docs``,
        the model's ``POST`` routes and the v2 protocol's ``/v2/...``.

    Examples
    --------
    >>> app = create_app("reviews.onnx.zip")  # doctest: +SKIP
    >>> import uvicorn; uvicorn.run(app, port=8000)  # doctest: +SKIP
    """
    served = load_served(artifact, threads=threads, name=model_name)
    settings = {"batching": _resolve_batching(batching, served), "max_batch_size": max_batch_size}
    settings.update(max_wait_ms=max_wait_ms, max_texts=max_texts, max_tokens=max_tokens)
    metrics = Metrics()
    app = _application(_Service(served, metrics, settings), metrics)
    app.add_middleware(BodyLimits, max_body_bytes=max_body_bytes, read_timeout=read_timeout)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    return app


def _resolve_batching(batching: bool | str, served: ServedModel) -> bool:
    """``batching`` as True or False ("auto": by the network's size)."""
    if batching == "auto":
        return served.network_bytes >= AUTO_BATCHING_MIB * 2**20
    if not isinstance(batching, bool):
        raise ValueError(f'batching must be True, False or "auto", got {batching!r}.')
    return batching


def _application(service: _Service, metrics: Metrics) -> FastAPI:
    """The FastAPI app of a service: warm-up at start, routes, error handlers."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await service.warm_up()
        logging.getLogger("uvicorn.error").info(
            "skattn: serving %s (%s, %.1f MiB network), dynamic batching %s",
            service.served.name,
            service.served.kind,
            service.served.network_bytes / 2**20,
            "on" if service.settings["batching"] else "off",
        )
        yield
        await service.close()

    app = FastAPIOffline(
        title=f"skattn: {service.served.name}",
        version=__version__,
        description=_description(service.served),
        lifespan=lifespan,
    )
    app.state.service = service
    app.openapi = _openapi_with_our_errors(app)
    _add_error_handlers(app)
    _add_operations_routes(app, service, metrics)
    _add_model_routes(app, service)
    app.include_router(v2_router(service.served, service.run, lambda: service.ready))
    return app


def _openapi_with_our_errors(app: FastAPI):
    """The OpenAPI schema, its 422 answers documented as they are: ``{"error": ...}``."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            schemas = schema.get("components", {}).get("schemas", {})
            for name in ("HTTPValidationError", "ValidationError"):
                schemas.pop(name, None)
            error = {"$ref": "#/components/schemas/Error"}
            schemas.setdefault("Error", Error.model_json_schema())
            for operations in schema["paths"].values():
                for operation in operations.values():
                    invalid = operation.get("responses", {}).get("422")
                    if invalid is not None:
                        invalid["content"] = {"application/json": {"schema": error}}
            app.openapi_schema = schema
        return app.openapi_schema

    return openapi


def _description(served: ServedModel) -> str:
    body = '{"pairs": [["first", "second"], ...]}' if served.reads_pairs else '{"texts": [...]}'
    return (
        f"A {served.runtime.config.get('estimator')} ({served.kind}) served by skattn. "
        f"Every POST route takes `{body}` as JSON; the Open Inference Protocol (v2) "
        f'routes take BYTES tensors. Errors are `{{"error": "..."}}`.'
    )


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid_body(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _validation_message(request, error)}, status_code=422)

    @app.exception_handler(_ServiceError)
    async def refused(request: Request, error: _ServiceError) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=error.status)

    @app.exception_handler(V2Error)
    async def refused_v2(request: Request, error: V2Error) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=error.status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        message = error.detail
        if error.status_code == 404:
            routes = ", ".join(request.app.state.service.served.description()["routes"])
            message = (
                f"no route {request.method} {request.url.path}; this model answers POST "
                f"{routes} and /v2/models/{request.app.state.service.served.name}/infer "
                "(all routes: /docs)"
            )
        elif error.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
        return JSONResponse({"error": message}, status_code=error.status_code)


def _validation_message(request: Request, error: RequestValidationError) -> str:
    """One line for a body that is not what the route takes."""
    content_type = request.headers.get("content-type", "")
    problems = []
    for item in error.errors()[:3]:
        where = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in item["loc"][1:]
        )
        if item["type"] == "missing" and not where:
            problems.append(f"the request has no body; send JSON {_body_shape(request)}")
        elif item["type"] == "json_invalid":
            problems.append(f"the body is not valid JSON ({item.get('ctx', {}).get('error')})")
        elif item["type"] in ("model_attributes_type", "dict_type", "model_type") and not where:
            if "json" not in content_type:
                problems.append(
                    f"the body must be JSON sent with Content-Type: application/json "
                    f"(got {content_type or 'none'})"
                )
            else:
                problems.append("the body must be a JSON object")
        else:
            problems.append(f"body{where}: {item['msg']}")
    more = len(error.errors()) - len(problems)
    return "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")


def _body_shape(request: Request) -> str:
    if request.app.state.service.served.reads_pairs:
        return '{"pairs": [["first", "second"], ...]}'
    return '{"texts": ["...", ...]}'


def _add_operations_routes(app: FastAPI, service: _Service, metrics: Metrics) -> None:
    @app.get("/health", tags=["operations"], summary="Liveness: the process answers")
    async def health() -> dict:
        return {"status": "ok"}

    @app.get(
        "/ready",
        tags=["operations"],
        summary="Readiness: the model is loaded and warmed up",
        responses={503: {"description": "Not ready (starting or shutting down)"}},
    )
    async def ready() -> JSONResponse:
        status = 200 if service.ready else 503
        return JSONResponse({"ready": service.ready, "model": service.served.name}, status)

    @app.get("/model", tags=["operations"], summary="What is served and how")
    async def model() -> dict:
        return {**service.served.description(), "settings": service.settings}

    @app.get("/metrics", tags=["operations"], summary="Prometheus metrics")
    async def prometheus() -> Response:
        data, content_type = metrics.render()
        return Response(data, media_type=content_type)


#: route, answer key and answer model of each runtime method.
_ROUTES = {
    "predict": ("/predict", "predictions", Predictions, "Each sample's label or value, as predict"),
    "predict_proba": ("/predict_proba", "probabilities", Probabilities, "Class probabilities"),
    "transform": ("/embed", "embeddings", Embeddings, "Each text's sentence embedding"),
    "attention": ("/attention", "attention", Attention, "Tokens and attention weights"),
}


def _add_model_routes(app: FastAPI, service: _Service) -> None:
    body_class = PairsRequest if service.served.reads_pairs else TextsRequest
    for method in service.served.methods:
        path, key, answer_class, summary = _ROUTES[method]
        app.router.add_api_route(
            path,
            _documented(body_class),
            route_class_override=_route_class(_endpoint(service, method, key, body_class)),
            methods=["POST"],
            response_model=answer_class,
            summary=summary,
            tags=["model"],
            responses={
                status: {"model": Error, "description": description}
                for status, description in (
                    (408, "The body did not arrive within the read timeout"),
                    (413, "The body, the number of samples or of tokens is over the limit"),
                    (422, "The body is not what the route takes"),
                )
            },
        )


def _documented(body_class: type[BaseModel]):
    """A stand-in endpoint whose signature tells FastAPI's OpenAPI schema the body."""

    async def endpoint(body) -> None: ...

    endpoint.__annotations__ = {"body": body_class, "return": None}
    return endpoint


def _endpoint(service: _Service, method: str, key: str, body_class: type[BaseModel]):
    """The route's handler: the body validated into ``body_class``, the runtime's answer."""
    served = service.served

    async def handle(request: Request) -> Response:
        body = _validated(await request.body(), request, body_class)
        samples = body.pairs if served.reads_pairs else body.texts
        rows = await service.run(method, list(samples))
        answer = {key: served.rows_as_json(method, rows)}
        if method == "predict_proba":
            answer["classes"] = served.classes
        return _TextSafeJSON(answer)

    return handle


def _validated(body: bytes, request: Request, body_class: type[BaseModel]) -> BaseModel:
    """The body as ``body_class``, or the ``RequestValidationError`` FastAPI would raise."""
    if not body:
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body",), "msg": "Field required"}]
        )
    if "json" not in request.headers.get("content-type", ""):
        raise RequestValidationError([{"type": "dict_type", "loc": ("body",), "msg": "not JSON"}])
    try:
        return body_class.model_validate_json(body)
    except ValidationError as error:
        try:
            return _lenient_json(body, body_class, error)
        except ValidationError as again:
            error = again
        errors = [{**item, "loc": ("body", *item["loc"])} for item in error.errors()]
        raise RequestValidationError(errors) from None


def _lenient_json(body: bytes, body_class: type[BaseModel], error: ValidationError) -> BaseModel:
    """A body pydantic's parser refused but Python's reads: texts with lone surrogates.

    ``"\\udcff"`` is a valid JSON escape, and what an undecodable byte of a
    text read with ``errors="surrogateescape"`` becomes; the estimators
    take such texts, so the service does too.
    """
    if not any(item["type"] == "json_invalid" for item in error.errors()):
        raise error
    try:
        parsed = json.loads(body)
    except ValueError:
        raise error from None
    return body_class.model_validate(parsed)


def _route_class(handle):
    """An APIRoute documented from its models but answered by ``handle`` alone.

    FastAPI's documented way to change how a route handles requests: its
    per-request dependency machinery is skipped (a third of the event
    loop's time per request, profiled), the OpenAPI schema is unchanged.
    """

    class ModelRoute(APIRoute):
        def get_route_handler(self):
            return handle

    return ModelRoute
