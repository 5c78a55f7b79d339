"""The Open Inference Protocol (KServe v2 REST), as Triton, KServe and MLServer speak it.

Routes: ``GET /v2``, ``/v2/health/live``, ``/v2/health/ready``,
``/v2/models/{name}`` (metadata), ``/v2/models/{name}/ready`` and
``POST /v2/models/{name}/infer`` (each also under
``/v2/models/{name}/versions/{version}``; the one version is "1").

Inputs are BYTES tensors of UTF-8 texts: ``text`` of shape [n] (or [n, 1]),
or ``first`` and ``second`` for a pair model. Outputs, by kind: ``label``
and ``probabilities`` (a classifier; a multi-label model's ``label`` is its
0/1 rows), ``prediction`` (a regressor), ``embedding`` (an embedder). Data
travel as JSON or in Triton's binary tensor extension
(``Inference-Header-Content-Length``; BYTES elements each prefixed by a
4-byte little-endian length), which ``tritonclient`` uses by default.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import numpy as np
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skattn._version import __version__

__all__ = ["InferenceRequest", "v2_router"]

VERSION = "1"
#: Output name -> runtime method, by model kind.
OUTPUTS = {
    "classifier": {"label": "predict", "probabilities": "predict_proba"},
    "multilabel": {"label": "predict", "probabilities": "predict_proba"},
    "regressor": {"prediction": "predict"},
    "embedder": {"embedding": "transform"},
}


class V2Error(Exception):
    """A request the protocol refuses: answered as ``{"error": ...}`` with ``status``."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class RequestInput(BaseModel):
    """One input tensor of an inference request."""

    model_config = ConfigDict(extra="forbid")
    name: str
    shape: list[int]
    datatype: str
    parameters: dict[str, Any] | None = None
    data: list | None = None


class RequestOutput(BaseModel):
    """One output asked for; ``parameters.binary_data`` asks for it in binary."""

    model_config = ConfigDict(extra="forbid")
    name: str
    parameters: dict[str, Any] | None = None


class InferenceRequest(BaseModel):
    """The JSON of ``POST /v2/models/{name}/infer`` (the Open Inference Protocol).

    Examples
    --------
    >>> body = {"inputs": [{"name": "text", "shape": [1], "datatype": "BYTES",
    ...                     "data": ["a funny film"]}]}
    >>> InferenceRequest.model_validate(body).inputs[0].data
    ['a funny film']
    """

    model_config = ConfigDict(extra="forbid")
    id: str | None = None
    parameters: dict[str, Any] | None = None
    inputs: list[RequestInput] = Field(min_length=1)
    outputs: list[RequestOutput] | None = None


def _split_body(body: bytes, headers) -> tuple[bytes, bytes]:
    """The JSON header and the binary rest of a request (Triton's binary extension)."""
    encoding = headers.get("content-encoding", "identity").lower()
    if encoding not in ("identity", ""):
        raise V2Error(
            f"Content-Encoding {encoding} is not accepted; send the body uncompressed.", 415
        )
    length = headers.get("inference-header-content-length")
    if length is None:
        return body, b""
    if not length.isdigit() or int(length) > len(body):
        raise V2Error(
            f"Inference-Header-Content-Length is {length!r}; it must be a whole number of "
            f"bytes, at most the body's {len(body)}."
        )
    return body[: int(length)], body[int(length) :]


def _parse_request(body: bytes, headers) -> tuple[InferenceRequest, bytes]:
    header, binary = _split_body(body, headers)
    try:
        return InferenceRequest.model_validate_json(header), binary
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc']) or 'body'}: {e['msg']}"
            for e in error.errors()[:5]
        )
        raise V2Error(
            f"not an inference request of the Open Inference Protocol: {problems}"
        ) from None


def _flatten(data: list) -> list:
    flat = []
    for item in data:
        flat.extend(_flatten(item) if isinstance(item, list) else [item])
    return flat


def _binary_strings(raw: bytes, name: str) -> list[bytes]:
    """BYTES elements of the binary extension: each a 4-byte length and its bytes."""
    items, offset = [], 0
    while offset < len(raw):
        if offset + 4 > len(raw):
            raise V2Error(f"input {name}: its binary data ends inside an element's length.")
        (size,) = struct.unpack_from("<I", raw, offset)
        offset += 4
        if offset + size > len(raw):
            raise V2Error(f"input {name}: an element of {size} bytes runs past its data.")
        items.append(raw[offset : offset + size])
        offset += size
    return items


def _input_texts(tensor: RequestInput, binary: bytes, offset: int) -> tuple[list[str], int]:
    """An input's texts, and the binary offset after it."""
    if tensor.datatype != "BYTES":
        raise V2Error(f"input {tensor.name} must be BYTES (UTF-8 texts), not {tensor.datatype}.")
    if len(tensor.shape) not in (1, 2) or (len(tensor.shape) == 2 and tensor.shape[1] != 1):
        raise V2Error(f"input {tensor.name} has shape {tensor.shape}; expected [n] or [n, 1].")
    size = (tensor.parameters or {}).get("binary_data_size")
    if size is not None:
        if not isinstance(size, int) or size < 0 or offset + size > len(binary):
            raise V2Error(f"input {tensor.name}: binary_data_size {size!r} runs past the body.")
        items, offset = _binary_strings(binary[offset : offset + size], tensor.name), offset + size
    elif tensor.data is None:
        raise V2Error(f"input {tensor.name} has neither data nor binary_data_size.")
    else:
        items = _flatten(tensor.data)
    if len(items) != tensor.shape[0]:
        raise V2Error(
            f"input {tensor.name} holds {len(items)} elements; its shape says {tensor.shape}."
        )
    return [_text(item, tensor.name, i) for i, item in enumerate(items)], offset


def _text(item: Any, name: str, index: int) -> str:
    if isinstance(item, bytes):
        try:
            return item.decode("utf-8")
        except UnicodeDecodeError:
            raise V2Error(f"input {name}[{index}] is not UTF-8.") from None
    if not isinstance(item, str):
        raise V2Error(f"input {name}[{index}] is {type(item).__name__}; every element is a text.")
    return item


def _samples(request: InferenceRequest, binary: bytes, served) -> list:
    """The request's texts (or pairs of texts), checked against what the model reads."""
    expected = ["first", "second"] if served.reads_pairs else ["text"]
    names = [tensor.name for tensor in request.inputs]
    if sorted(names) != sorted(expected):
        raise V2Error(f"this model takes the input(s) {expected} (BYTES); the request has {names}.")
    texts, offset = {}, 0
    for tensor in request.inputs:  # binary data follow the inputs' order
        texts[tensor.name], offset = _input_texts(tensor, binary, offset)
    if not served.reads_pairs:
        return texts["text"]
    if len(texts["first"]) != len(texts["second"]):
        raise V2Error(
            f"inputs first and second hold {len(texts['first'])} and {len(texts['second'])} "
            "texts; a pair takes one of each."
        )
    return list(zip(texts["first"], texts["second"]))


def _tensor(name: str, rows: Any) -> tuple[dict[str, Any], np.ndarray]:
    """An output tensor's JSON description and its values, typed for the protocol."""
    values = np.asarray(rows)
    kind = values.dtype.kind
    if kind == "b":
        datatype = "BOOL"
    elif kind in "iu":
        datatype, values = "INT64", values.astype(np.int64)
    elif kind == "f":
        datatype = "FP32" if values.dtype == np.float32 else "FP64"
        values = values.astype(np.float32 if datatype == "FP32" else np.float64)
    else:
        datatype, values = "BYTES", values.astype(object)
    return {"name": name, "datatype": datatype, "shape": list(values.shape)}, values


def _binary_values(datatype: str, values: np.ndarray) -> bytes:
    if datatype != "BYTES":
        return values.tobytes()  # C order, little-endian on every platform numpy ships on
    parts = []
    for item in values.ravel():
        data = str(item).encode("utf-8")
        parts.append(struct.pack("<I", len(data)) + data)
    return b"".join(parts)


def _wants_binary(request: InferenceRequest, name: str) -> bool:
    for output in request.outputs or ():
        if output.name == name and output.parameters and "binary_data" in output.parameters:
            return bool(output.parameters["binary_data"])
    return bool((request.parameters or {}).get("binary_data_output", False))


def _respond(request: InferenceRequest, served, tensors: list) -> Response:
    """The inference response, in JSON or with binary data after its JSON header."""
    outputs, binaries = [], []
    for description, values in tensors:
        if _wants_binary(request, description["name"]):
            data = _binary_values(description["datatype"], values)
            outputs.append({**description, "parameters": {"binary_data_size": len(data)}})
            binaries.append(data)
        else:
            flat = values.ravel().tolist()
            outputs.append(
                {
                    **description,
                    "data": [str(v) for v in flat] if description["datatype"] == "BYTES" else flat,
                }
            )
    answer = {"model_name": served.name, "model_version": VERSION, "outputs": outputs}
    if request.id is not None:
        answer["id"] = request.id
    header = json.dumps(answer).encode("utf-8")
    if not binaries:
        return Response(header, media_type="application/json")
    return Response(
        header + b"".join(binaries),
        media_type="application/octet-stream",
        headers={"Inference-Header-Content-Length": str(len(header))},
    )


def metadata(served) -> dict[str, Any]:
    """The model metadata of the protocol: its inputs and outputs."""
    names = ["first", "second"] if served.reads_pairs else ["text"]
    outputs = [
        {"name": name, "datatype": _OUTPUT_TYPES.get(name, "FP64"), "shape": [-1, -1]}
        for name in OUTPUTS[served.kind]
    ]
    for output in outputs:
        if output["name"] == "label" and served.kind == "classifier":
            output["shape"] = [-1]
            output["datatype"] = _tensor("label", np.asarray(served.runtime.classes_))[0][
                "datatype"
            ]
        if output["name"] == "prediction" and served.runtime.config.get("target_ndim") == 1:
            output["shape"] = [-1]
        if output["name"] == "probabilities" or (
            output["name"] == "label" and served.kind == "multilabel"
        ):  # what each column is: the classes, or the labels by name
            output["parameters"] = {"columns": served.classes}
    return {
        "name": served.name,
        "versions": [VERSION],
        "platform": "skattn_onnx",
        "inputs": [{"name": name, "datatype": "BYTES", "shape": [-1]} for name in names],
        "outputs": outputs,
    }


_OUTPUT_TYPES = {
    "label": "INT64",
    "probabilities": "FP64",
    "prediction": "FP64",
    "embedding": "FP32",
}


def _requested(request: InferenceRequest, served) -> list[str]:
    known = OUTPUTS[served.kind]
    names = [output.name for output in request.outputs] if request.outputs else list(known)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise V2Error(f"this model has no output {unknown}; its outputs are {list(known)}.")
    return names


def v2_router(served, run, is_ready) -> APIRouter:
    """The protocol's routes for one served model.

    ``run(method, samples)`` is awaited for each output (the app's batchers);
    ``is_ready()`` says whether the model has loaded and warmed up.
    """
    router = APIRouter(prefix="/v2", tags=["Open Inference Protocol (v2)"])

    def check_model(name: str, version: str | None = None) -> None:
        if name != served.name:
            raise V2Error(f"no model {name!r}; this server serves {served.name!r}.", 404)
        if version not in (None, VERSION):
            raise V2Error(f"model {name!r} has no version {version!r}; it has {VERSION!r}.", 404)

    @router.get("", summary="Server metadata")
    async def server_metadata() -> dict:
        return {"name": "skattn", "version": __version__, "extensions": ["binary_tensor_data"]}

    @router.get("/health/live", summary="Liveness")
    async def live() -> dict:
        return {"live": True}

    @router.get("/health/ready", summary="Readiness", responses={503: {"description": "Not ready"}})
    async def ready() -> JSONResponse:
        return JSONResponse({"ready": is_ready()}, status_code=200 if is_ready() else 503)

    async def model_metadata(name: str, version: str | None = None) -> dict:
        check_model(name, version)
        return metadata(served)

    async def model_ready(name: str, version: str | None = None) -> JSONResponse:
        check_model(name, version)
        return JSONResponse(
            {"name": name, "ready": is_ready()}, status_code=200 if is_ready() else 503
        )

    async def infer(name: str, request: Request, version: str | None = None) -> Response:
        check_model(name, version)
        inference, binary = _parse_request(await request.body(), request.headers)
        samples = _samples(inference, binary, served)
        tensors = []
        for output in _requested(inference, served):
            rows = await run(OUTPUTS[served.kind][output], samples)
            tensors.append(_tensor(output, rows))
        return _respond(inference, served, tensors)

    schema = _inline(InferenceRequest.model_json_schema())
    body = {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}
    for prefix in ("/models/{name}", "/models/{name}/versions/{version}"):
        router.add_api_route(prefix, model_metadata, methods=["GET"], summary="Model metadata")
        router.add_api_route(
            prefix + "/ready", model_ready, methods=["GET"], summary="Model readiness"
        )
        router.add_api_route(
            prefix + "/infer", infer, methods=["POST"], summary="Inference", openapi_extra=body
        )
    return router


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema with its ``$defs`` written in place (an OpenAPI body has no ``$defs``)."""
    definitions = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return resolve(definitions[node["$ref"].rsplit("/", 1)[-1]])
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    return resolve(schema)
