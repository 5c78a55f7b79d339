"""The HTTP service: routes in-process, and a real uvicorn process under hostile clients."""

import asyncio
import json
import re
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")
pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from skattn import SelfAttentivePairClassifier  # noqa: E402
from skattn.serving import (  # noqa: E402
    OnnxTextClassifier,
    OnnxTextEmbedder,
    OnnxTextRegressor,
    create_app,
    export,
)
from skattn.serving._served import jsonable  # noqa: E402

from estimators import (  # noqa: E402
    small_embedder,
    small_self_attentive,
    small_self_attentive_regressor,
)

TRAIN = [
    "a good film . truly great acting !",
    "a bad film . awful plot",
    "电影 很 好看 😀",
    "فيلم سيء جدا",
    "café naïve résumé , good",
    "never good , not great ?",
    "",
    "   ",
] * 6
LABELS = np.array(["pos", "neg", "pos", "neg", "pos", "neg", "neg", "pos"] * 6)
LABEL_ROWS = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1]] * 8)
PAIRS = list(zip(TRAIN, TRAIN[3:] + TRAIN[:3]))
TEXTS = ["a good film", "", "awful plot !", "电影 很 好看", "never great", "café"] * 3
RUNTIMES = {
    "binary": OnnxTextClassifier,
    "multilabel": OnnxTextClassifier,
    "regressor": OnnxTextRegressor,
    "pair": OnnxTextClassifier,
    "embedder": OnnxTextEmbedder,
}


def _thresholded_binary():
    """A binary classifier whose threshold (the median positive probability) moves labels."""
    positive = small_self_attentive().fit(TRAIN, LABELS).predict_proba(TEXTS)[:, 1]
    return small_self_attentive(threshold=float(np.median(positive))).fit(TRAIN, LABELS)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("served")
    fitted = {
        "binary": _thresholded_binary(),
        "multilabel": small_self_attentive().fit(TRAIN, LABEL_ROWS),
        "regressor": small_self_attentive_regressor().fit(TRAIN, np.linspace(-1, 2, len(TRAIN))),
        "pair": SelfAttentivePairClassifier(
            embedding_dim=8,
            hidden_size=6,
            attention_hops=2,
            gated_dim=4,
            max_epochs=2,
            random_state=0,
        ).fit(PAIRS, LABELS),
        "embedder": small_embedder().fit(TRAIN, LABELS),
    }
    return {name: export(model, folder / f"{name}.onnx.zip") for name, model in fitted.items()}


def _samples(name):
    return list(zip(TEXTS, TEXTS[::-1])) if name == "pair" else TEXTS


def _body(name, samples=None):
    samples = _samples(name) if samples is None else samples
    return {"pairs": [list(pair) for pair in samples]} if name == "pair" else {"texts": samples}


@pytest.fixture(scope="module")
def clients(artifacts):
    """An in-process client of each kind's app (lifespan run: ready and warmed up)."""
    opened = {name: TestClient(create_app(path)) for name, path in artifacts.items()}
    for client in opened.values():
        client.__enter__()
    yield opened
    for client in opened.values():
        client.__exit__(None, None, None)


# --- answers: the service's are the runtime's ---------------------------------------------


@pytest.mark.parametrize("name", ["binary", "multilabel", "regressor", "pair"])
def test_the_services_predictions_are_the_runtimes(artifacts, clients, name):
    runtime = RUNTIMES[name](artifacts[name])
    expected = runtime.predict(_samples(name))
    answer = clients[name].post("/predict", json=_body(name))
    assert answer.status_code == 200, answer.text
    got = answer.json()["predictions"]
    if name == "multilabel":  # the names of the labels set to 1 in predict's rows
        assert got == [runtime.classes_[row.astype(bool)].tolist() for row in expected]
        assert sum(map(len, got)) == expected.sum()
    elif name == "regressor":
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    else:
        assert got == expected.tolist()


def test_a_tuned_threshold_is_what_the_service_applies(artifacts, clients):
    runtime = OnnxTextClassifier(artifacts["binary"])
    labels = clients["binary"].post("/predict", json={"texts": TEXTS}).json()["predictions"]
    argmax = runtime.classes_[runtime.predict_proba(TEXTS).argmax(axis=1)].tolist()
    # The threshold is the median probability: labels argmax would give differ somewhere.
    assert labels == runtime.predict(TEXTS).tolist() and labels != argmax


@pytest.mark.parametrize("name", ["binary", "multilabel", "pair"])
def test_probabilities_are_the_runtimes(artifacts, clients, name):
    runtime = RUNTIMES[name](artifacts[name])
    answer = clients[name].post("/predict_proba", json=_body(name)).json()
    np.testing.assert_allclose(
        answer["probabilities"], runtime.predict_proba(_samples(name)), rtol=1e-6, atol=1e-7
    )
    assert answer["classes"] == runtime.classes_.tolist()


def test_the_embedder_answers_its_embedding_route(artifacts, clients):
    got = clients["embedder"].post("/embed", json={"texts": TEXTS}).json()["embeddings"]
    expected = OnnxTextEmbedder(artifacts["embedder"]).transform(TEXTS)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    refused = clients["embedder"].post("/predict", json={"texts": TEXTS})
    assert refused.status_code == 404 and "/embed" in refused.json()["error"]


@pytest.mark.parametrize("name", list(RUNTIMES))
def test_every_kind_answers_attention_health_readiness_and_its_model(clients, name):
    client = clients[name]
    records = client.post("/attention", json=_body(name, _samples(name)[:2])).json()["attention"]
    assert len(records) == 2 and records[0]["tokens"] == ["a", "good", "film"]
    assert client.get("/health").json() == {"status": "ok"}
    assert client.get("/ready").status_code == 200
    model = client.get("/model").json()
    assert model["name"] == name and model["input"] == ("pairs" if name == "pair" else "texts")


def test_readiness_waits_for_the_warm_up(artifacts):
    app = create_app(artifacts["binary"])

    async def before_and_after():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            before = (await client.get("/ready")).status_code
            v2_before = (await client.get("/v2/health/ready")).status_code
            async with app.router.lifespan_context(app):
                after = (await client.get("/ready")).status_code
            return before, v2_before, after

    assert asyncio.run(before_and_after()) == (503, 503, 200)


# --- bodies that are not what a route takes: a 4xx with a reason --------------------------

WRONG_BODIES = [
    ({"texts": "a film"}, "texts"),
    ({"texts": ["a film", None]}, r"texts\[1\]"),
    ({"texts": ["a film", 3]}, r"texts\[1\]"),
    ({"texts": []}, "texts"),
    ({"text": ["a film"]}, "text"),
    ({"texts": ["a"], "extra": 1}, "extra"),
    (["a film"], "JSON object"),
    ("a film", "JSON object"),
]


@pytest.mark.parametrize(("body", "named"), WRONG_BODIES, ids=[str(b) for b, _ in WRONG_BODIES])
def test_wrong_json_shapes_get_a_422_naming_the_field(clients, body, named):
    answer = clients["binary"].post("/predict", json=body)
    assert answer.status_code == 422
    assert re.search(named, answer.json()["error"]), answer.json()


def test_invalid_json_a_wrong_content_type_and_bad_pairs_get_a_422(clients):
    client = clients["binary"]
    broken = client.post(
        "/predict", content=b'{"texts": ["a"', headers={"content-type": "application/json"}
    )
    assert broken.status_code == 422 and "not valid JSON" in broken.json()["error"]
    form = client.post(
        "/predict", content=b'{"texts": ["a"]}', headers={"content-type": "text/plain"}
    )
    assert form.status_code == 422 and "Content-Type: application/json" in form.json()["error"]
    triple = clients["pair"].post("/predict", json={"pairs": [["a", "b", "c"]]})
    assert triple.status_code == 422 and "pairs[0]" in triple.json()["error"]
    singles = clients["pair"].post("/predict", json={"texts": ["a"]})
    assert singles.status_code == 422 and "pairs" in singles.json()["error"]


def test_too_many_texts_and_too_large_a_body_get_a_413(artifacts):
    with TestClient(create_app(artifacts["binary"], max_texts=4, max_body_bytes=1000)) as client:
        many = client.post("/predict", json={"texts": ["a"] * 5})
        assert many.status_code == 413 and "at most 4" in many.json()["error"]
        large = client.post("/predict", json={"texts": ["a" * 2000]})
        assert large.status_code == 413 and "1000" in large.json()["error"]
        assert client.post("/predict", json={"texts": ["a"] * 4}).status_code == 200


def _v2_texts(texts):
    return {"inputs": [{"name": "text", "shape": [len(texts)], "datatype": "BYTES", "data": texts}]}


def test_more_tokens_than_max_tokens_get_a_413_before_the_model_runs(artifacts):
    runtime = OnnxTextClassifier(artifacts["binary"])
    within = ["a good film", "awful plot", ""]  # 3 + 2 + 1 (a blank text is <empty>) tokens
    over = [*within, "never"]
    with TestClient(create_app(artifacts["binary"], max_tokens=6)) as client:
        calls = {m: _batch_counts(client.get("/metrics").text, m) for m in ("attention", "predict")}
        for route in ("/attention", "/predict", "/predict_proba"):
            refused = client.post(route, json={"texts": over})
            assert refused.status_code == 413, refused.text
            assert refused.json()["error"] == (
                "the request holds more than 6 tokens (counted as the model reads them, after "
                "its truncation); at most 6 per request (max_tokens)"
            )
        refused = client.post("/v2/models/binary/infer", json=_v2_texts(over))
        assert refused.status_code == 413 and "(max_tokens)" in refused.json()["error"]
        metrics = client.get("/metrics").text
        assert {m: _batch_counts(metrics, m) for m in calls} == calls  # only the warm-up's
        answer = client.post("/attention", json={"texts": within})
        assert answer.status_code == 200, answer.text
        assert answer.json()["attention"] == jsonable(runtime.attention(within))
        answer = client.post("/predict_proba", json={"texts": within}).json()["probabilities"]
        assert answer == runtime.predict_proba(within).tolist()
        answer = client.post("/v2/models/binary/infer", json=_v2_texts(within))
        assert answer.status_code == 200, answer.text
        assert client.get("/model").json()["settings"]["max_tokens"] == 6


def test_max_tokens_counts_tokens_after_truncation_and_both_texts_of_a_pair(artifacts):
    runtime = OnnxTextClassifier(artifacts["binary"])
    assert runtime.config["text"]["max_length"] == 1000
    long = "w " * 5000  # 5,000 tokens, of which the model reads 1,000
    with TestClient(create_app(artifacts["binary"], max_tokens=1000)) as client:
        answer = client.post("/attention", json={"texts": [long]})
        assert answer.status_code == 200, answer.text
        assert answer.json()["attention"] == jsonable(runtime.attention([long]))
        assert client.post("/attention", json={"texts": ["w " * 999, ""]}).status_code == 200
        refused = client.post("/attention", json={"texts": [long, "w"]})
        assert refused.status_code == 413 and "more than 1000 tokens" in refused.json()["error"]
    pairs = OnnxTextClassifier(artifacts["pair"])
    within = [["a good film", "awful plot"]]  # 3 + 2
    over = [["a good film", "a good film"], ["a", ""]]  # 6 + 2
    with TestClient(create_app(artifacts["pair"], max_tokens=5)) as client:
        answer = client.post("/attention", json={"pairs": within})
        assert answer.status_code == 200, answer.text
        assert answer.json()["attention"] == jsonable(pairs.attention(within))
        refused = client.post("/predict", json={"pairs": over})
        assert refused.status_code == 413 and "more than 5 tokens" in refused.json()["error"]


def test_the_token_bound_holds_and_spares_short_requests_a_count(artifacts, monkeypatch):
    runtime = OnnxTextClassifier(artifacts["binary"])
    texts = ["a good film", "", "  ", "don't!", "w " * 3000, "\u0301x y", "好看的电影"]
    for text in texts:
        assert runtime.token_bound([text]) >= runtime.count_tokens([text]), repr(text)
    assert runtime.token_bound(["w " * 3000]) == 1000  # the truncation caps it
    pairs = OnnxTextClassifier(artifacts["pair"])
    assert pairs.token_bound([["a good film", ""]]) == 11 + 1
    # 1,024 short texts: within the limit by their characters, never counted.
    with TestClient(create_app(artifacts["binary"], max_tokens=20_000)) as client:
        monkeypatch.setattr(
            type(runtime), "count_tokens", lambda *a, **k: pytest.fail("counted a short request")
        )
        answer = client.post("/predict", json={"texts": ["a fine film"] * 1024})
        assert answer.status_code == 200, answer.text
        assert answer.json()["predictions"] == runtime.predict(["a fine film"] * 1024).tolist()


def test_serve_takes_max_tokens_on_its_command_line():
    import argparse

    from skattn.serving._server import add_arguments, settings_from

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    default = settings_from(parser.parse_args(["m.onnx.zip"]))
    chosen = settings_from(parser.parse_args(["m.onnx.zip", "--max-tokens", "50"]))
    assert default["max_tokens"] == 200_000 and chosen["max_tokens"] == 50
    with pytest.raises(SystemExit):
        parser.parse_args(["m.onnx.zip", "--max-tokens", "0"])


def test_unknown_routes_and_methods_get_json_errors(clients):
    missing = clients["binary"].get("/nowhere")
    assert missing.status_code == 404 and "/predict" in missing.json()["error"]
    wrong_method = clients["binary"].get("/predict")
    assert wrong_method.status_code == 405 and "GET" in wrong_method.json()["error"]


# --- dynamic batching ------------------------------------------------------------------------


def _batch_counts(metrics_text, method):
    """(number of model calls, samples in them) for ``method`` from /metrics."""
    count = re.search(rf'skattn_batch_size_count{{method="{method}"}} (\S+)', metrics_text)
    total = re.search(rf'skattn_batch_size_sum{{method="{method}"}} (\S+)', metrics_text)
    return float(count.group(1)), float(total.group(1))


@pytest.mark.parametrize("batching", [True, False])
def test_concurrent_requests_get_the_answers_of_unbatched_calls(artifacts, batching):
    app = create_app(artifacts["binary"], batching=batching, max_batch_size=64, max_wait_ms=50)
    runtime = OnnxTextClassifier(artifacts["binary"])
    requests = [TEXTS[i : i + 1 + i % 3] for i in range(16)]  # 1 to 3 texts each

    async def concurrently():
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                answers = await asyncio.gather(
                    *(client.post("/predict_proba", json={"texts": texts}) for texts in requests),
                    *(client.post("/predict", json={"texts": texts}) for texts in requests),
                )
                return answers, (await client.get("/metrics")).text

    answers, metrics = asyncio.run(concurrently())
    for texts, proba, labels in zip(requests, answers[:16], answers[16:]):
        np.testing.assert_allclose(
            proba.json()["probabilities"], runtime.predict_proba(texts), rtol=1e-6, atol=1e-7
        )
        assert labels.json()["predictions"] == runtime.predict(texts).tolist()
    calls, samples = _batch_counts(metrics, "predict_proba")
    assert samples == sum(map(len, requests)) + 1  # + the warm-up's one text
    if batching:
        assert calls < 1 + len(requests)  # requests were gathered
    else:
        assert calls == 1 + len(requests)


def test_a_failing_request_does_not_fail_the_others_in_its_batch():
    from concurrent.futures import ThreadPoolExecutor

    from skattn.serving._batching import Batcher

    def double(values):
        if any(v < 0 for v in values):
            raise ValueError("negative")
        return [2 * v for v in values]

    async def run():
        batcher = Batcher(double, ThreadPoolExecutor(1), max_batch_size=8, max_wait=0.05)
        results = await asyncio.gather(
            batcher([1, 2]), batcher([-1]), batcher([3]), return_exceptions=True
        )
        await batcher.close()
        return results

    good, bad, other = asyncio.run(run())
    assert good == [2, 4] and other == [6] and isinstance(bad, ValueError)


# --- metrics, the protocol in-process, the docs page ------------------------------------------


def test_metrics_count_requests_errors_and_latency(artifacts):
    with TestClient(create_app(artifacts["binary"])) as client:
        for _ in range(3):
            client.post("/predict", json={"texts": ["a"]})
        client.post("/predict", json={"texts": None})
        text = client.get("/metrics").text
    assert 'skattn_requests_total{route="/predict",status="200"} 3.0' in text
    assert 'skattn_request_errors_total{route="/predict",status="422"} 1.0' in text
    assert 'skattn_request_duration_seconds_count{route="/predict"} 4.0' in text
    assert "skattn_batch_size_bucket" in text


def test_the_v2_routes_answer_pairs_and_refuse_bad_tensors(artifacts, clients):
    client = clients["pair"]
    pairs = _samples("pair")
    body = {
        "inputs": [
            {
                "name": "first",
                "shape": [len(pairs)],
                "datatype": "BYTES",
                "data": [a for a, _ in pairs],
            },
            {
                "name": "second",
                "shape": [len(pairs)],
                "datatype": "BYTES",
                "data": [b for _, b in pairs],
            },
        ],
        "outputs": [{"name": "label"}],
    }
    answer = client.post("/v2/models/pair/infer", json=body)
    assert answer.status_code == 200, answer.text
    (label,) = answer.json()["outputs"]
    assert label["data"] == OnnxTextClassifier(artifacts["pair"]).predict(pairs).tolist()
    assert label["shape"] == [len(pairs)] and label["datatype"] == "BYTES"
    bad = [
        ({**body, "inputs": body["inputs"][:1]}, 400, "second"),
        ({**body, "outputs": [{"name": "logits"}]}, 400, "logits"),
        ({"inputs": [{**body["inputs"][0], "shape": [1]}, body["inputs"][1]]}, 400, "shape"),
        ({"inputs": [{**body["inputs"][0], "datatype": "FP32"}, body["inputs"][1]]}, 400, "BYTES"),
        ({"inputs": "text"}, 400, "inputs"),
    ]
    for wrong, status, named in bad:
        refused = client.post("/v2/models/pair/infer", json=wrong)
        assert refused.status_code == status and named in refused.json()["error"], refused.text
    assert client.post("/v2/models/other/infer", json=body).status_code == 404
    assert client.get("/v2/models/pair/versions/2").status_code == 404


def test_the_openapi_page_is_served_without_a_cdn(clients):
    client = clients["binary"]
    page = client.get("/docs").text
    scripts = re.findall(r'src="([^"]+\.js)"', page)
    assert scripts and all(src.startswith("/") for src in scripts)  # served here, not fetched
    assert all(client.get(src).status_code == 200 for src in scripts)
    schema = client.get("/openapi.json").json()
    assert {"/predict", "/predict_proba", "/attention", "/v2/models/{name}/infer"} <= set(
        schema["paths"]
    )
    body = schema["paths"]["/predict"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"]["$ref"].endswith("TextsRequest")


def test_importing_serving_needs_no_fastapi(artifacts):
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('fastapi', 'starlette', 'uvicorn'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import skattn.serving\n"
        "try:\n"
        f"    skattn.serving.create_app({str(artifacts['binary'])!r})\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "pip install 'skattn[server]'" in result.stdout


def test_serve_refuses_a_missing_artifact_in_one_line(tmp_path, capsys):
    from skattn.__main__ import main

    assert main(["serve", str(tmp_path / "missing.onnx.zip")]) == 1
    assert "missing.onnx.zip does not exist" in capsys.readouterr().err


# --- a real uvicorn process on 127.0.0.1 ------------------------------------------------------

READ_TIMEOUT = 2.0  # the served process's body and head deadlines, in seconds


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(artifact, *options):
    port = _free_port()
    command = [sys.executable, "-m", "skattn", "serve", str(artifact), "--port", str(port)]
    process = subprocess.Popen(
        [*command, *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(base + "/ready", timeout=2).status_code == 200:
                return process, port
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"the server did not become ready: {process.communicate()[0]}")


def _stop(process):
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def server(artifacts):
    timeouts = ["--read-timeout", str(READ_TIMEOUT), "--head-timeout", str(READ_TIMEOUT)]
    process, port = _start(artifacts["binary"], *timeouts, "--keep-alive-timeout", "2")
    yield port
    _stop(process)


def _exchange(port, data, wait=10.0):
    """Send raw bytes; read until the server closes. (response, seconds to the close)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as connection:
        start = time.monotonic()
        connection.sendall(data)
        chunks = []
        while True:
            try:
                chunk = connection.recv(65536)
            except TimeoutError:
                raise AssertionError(f"no close within {wait} s: {b''.join(chunks)!r}") from None
            if not chunk:
                return b"".join(chunks), time.monotonic() - start
            chunks.append(chunk)


def _status(response):
    return int(response.split(b" ", 2)[1])


def _json_body(response):
    return json.loads(response.split(b"\r\n\r\n", 1)[1])


def _answers(port, artifact):
    """The service still answers, and right."""
    texts = ["a good film", ""]
    got = httpx.post(f"http://127.0.0.1:{port}/predict", json={"texts": texts}, timeout=10)
    return got.json()["predictions"] == OnnxTextClassifier(artifact).predict(texts).tolist()


POST = b"POST /predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
BODY = b'{"texts": ["a good film"]}'


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("length", "status"),
    [(b"-1", 400), (b"abc", 400), (b"10" * 20, 400), (b"1" + b"0" * 12, 413)],
    ids=["negative", "not-a-number", "past-64-bits", "over-the-cap"],
)
def test_bad_declared_lengths_are_refused_at_once(server, artifacts, length, status):
    response, seconds = _exchange(server, POST + b"Content-Length: " + length + b"\r\n\r\n")
    assert _status(response) == status and "error" in _json_body(response)
    assert seconds < READ_TIMEOUT  # refused from the head, no body awaited
    assert _answers(server, artifacts["binary"])


@pytest.mark.timeout(60)
def test_a_body_shorter_than_its_length_times_out_with_a_408(server, artifacts):
    response, seconds = _exchange(server, POST + b"Content-Length: 1000\r\n\r\n" + BODY)
    assert _status(response) == 408 and "Content-Length" in _json_body(response)["error"]
    assert READ_TIMEOUT - 0.5 < seconds < READ_TIMEOUT + 5
    assert _answers(server, artifacts["binary"])


@pytest.mark.timeout(60)
def test_a_missing_length_is_an_empty_body(server, artifacts):
    response, _ = _exchange(server, POST + b"Connection: close\r\n\r\n")
    assert _status(response) == 422 and "texts" in _json_body(response)["error"]
    assert _answers(server, artifacts["binary"])


def _chunked(body, size=4096):
    parts = [
        b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size])
        for i in range(0, len(body), size)
    ]
    return b"".join(parts) + b"0\r\n\r\n"


@pytest.mark.timeout(60)
def test_chunked_bodies_are_read_and_capped_while_they_stream(server, artifacts):
    head = POST + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    response, _ = _exchange(server, head + _chunked(BODY, size=5))
    assert _status(response) == 200
    expected = OnnxTextClassifier(artifacts["binary"]).predict(["a good film"]).tolist()
    assert _json_body(response)["predictions"] == expected
    oversized = json.dumps({"texts": ["word " * 1000] * 300}).encode()  # 1.5 MB > the 1 MiB cap
    response, _ = _exchange(server, head + _chunked(oversized))
    assert _status(response) == 413 and "exceeds" in _json_body(response)["error"]
    assert _answers(server, artifacts["binary"])


@pytest.mark.timeout(60)
def test_a_body_under_the_cap_with_too_many_tokens_gets_a_413(server, artifacts):
    # 1.0 MB, under the 1 MiB cap and 1,000 texts: 500,000 tokens, whose attention weights
    # made a 47 MB answer and held hundreds of MB while it was built.
    texts = ["w " * 500] * 1000
    answer = httpx.post(f"http://127.0.0.1:{server}/attention", json={"texts": texts}, timeout=30)
    assert answer.status_code == 413 and "at most 200000" in answer.json()["error"]
    assert "(max_tokens)" in answer.json()["error"]
    assert _answers(server, artifacts["binary"])


@pytest.mark.timeout(60)
def test_idle_and_slow_connections_are_closed_while_others_are_answered(server, artifacts):
    idle = socket.create_connection(("127.0.0.1", server), timeout=READ_TIMEOUT + 5)
    slow = socket.create_connection(("127.0.0.1", server), timeout=READ_TIMEOUT + 5)
    slow.sendall(b"POST /predict HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and no more
    start = time.monotonic()
    assert _answers(server, artifacts["binary"])  # while both hang on
    assert time.monotonic() - start < READ_TIMEOUT
    assert idle.recv(100) == b""  # closed, nothing said: no request had begun
    slow_response = slow.recv(1000)
    assert _status(slow_response) == 408
    assert time.monotonic() - start < READ_TIMEOUT + 5
    idle.close()
    slow.close()
    assert _answers(server, artifacts["binary"])


@pytest.mark.timeout(60)
def test_the_v2_client_round_trips(server, artifacts):
    http = pytest.importorskip("tritonclient.http")
    client = http.InferenceServerClient(url=f"127.0.0.1:{server}")
    runtime = OnnxTextClassifier(artifacts["binary"])
    assert client.is_server_live() and client.is_server_ready()
    assert client.is_model_ready("binary")
    metadata = client.get_model_metadata("binary")
    assert metadata["inputs"] == [{"name": "text", "datatype": "BYTES", "shape": [-1]}]
    for binary in (True, False):  # Triton's binary tensor extension, and plain JSON
        text = http.InferInput("text", [len(TEXTS)], "BYTES")
        text.set_data_from_numpy(np.array(TEXTS, dtype=object), binary_data=binary)
        outputs = [
            http.InferRequestedOutput(name, binary_data=binary)
            for name in ("label", "probabilities")
        ]
        result = client.infer("binary", [text], outputs=outputs)
        labels = [v.decode() if isinstance(v, bytes) else v for v in result.as_numpy("label")]
        assert labels == runtime.predict(TEXTS).tolist()
        np.testing.assert_allclose(
            result.as_numpy("probabilities"), runtime.predict_proba(TEXTS), rtol=1e-6, atol=1e-7
        )
    everything = client.infer("binary", [text])  # no outputs named: all, in binary
    assert everything.as_numpy("probabilities").shape == (len(TEXTS), 2)
    with pytest.raises(Exception, match="no model 'other'"):
        client.infer("other", [text])
    client.close()


@pytest.mark.timeout(120)
def test_two_workers_share_their_metrics(artifacts):
    process, port = _start(artifacts["regressor"], "--workers", "2")
    try:
        for _ in range(12):  # a new connection each: either worker may answer
            with httpx.Client() as client:
                assert client.post(f"http://127.0.0.1:{port}/predict", json={"texts": ["a"]})
        text = httpx.get(f"http://127.0.0.1:{port}/metrics").text
        counted = re.findall(r'skattn_requests_total{route="/predict",status="200"} (\S+)', text)
        assert sum(map(float, counted)) == 12
    finally:
        _stop(process)


def test_batching_auto_follows_the_size_of_the_network(artifacts, monkeypatch):
    import skattn.serving._app as app_module

    small = artifacts["binary"].stat().st_size  # the zip holds the network, compressed
    with TestClient(create_app(artifacts["binary"])) as client:
        assert client.get("/model").json()["settings"]["batching"] is False
    monkeypatch.setattr(app_module, "AUTO_BATCHING_MIB", small / 2**20 / 100)
    with TestClient(create_app(artifacts["binary"])) as client:
        assert client.get("/model").json()["settings"]["batching"] is True
    with pytest.raises(ValueError, match='"auto"'):
        create_app(artifacts["binary"], batching="yes")
