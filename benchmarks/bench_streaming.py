"""Streams at scale: encoding and prediction time and peak memory at 100k, 300k and 1M documents.

    SKATTN_DATA=../shared/data python benchmarks/bench_streaming.py [--sizes 100000,300000,1000000]

The documents are sentence_polarity snippets (~21 tokens each), drawn with
replacement and written to a JSON Lines file of N documents. Each
measurement runs in a fresh process and reports its wall time and peak
resident memory (``ru_maxrss``) above the process's memory after its
imports:

- ``encode_stream``: ``TextEncoder().fit_encode_stream(iter_documents(path))``,
  the one-pass chunked vocabulary and encoding, and the bytes of the
  resulting id arrays; ``encode_stream_memmap``: the same with
  ``memmap_dir`` (the ids written to disk and mapped back);
- ``encode_list`` (sizes up to 300k): the in-memory path it replaces,
  ``read_documents`` then ``fit_encode``;
- ``fit_stream``: ``SelfAttentiveClassifier(max_epochs=1)`` (the defaults
  otherwise) fitted from ``DocumentFile(path)`` and its label column: the
  time and peak memory until training begins (reading, encoding, word
  vectors), then one training epoch over all N documents (docs/s) and the
  peak of the whole fit; ``fit_stream_memmap``: the same with
  ``memmap_dir`` (the training ids on disk);
- ``predict_stream``: ``python -m skattn predict MODEL path --output
  out.jsonl`` with a default self-attentive model trained on 2,000
  snippets (docs/s and peak memory, which should not grow with N).

One JSON line per measurement.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ENCODE_STREAM = """
import resource, time
from skattn import TextEncoder
from skattn.text import iter_documents
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
corpus = TextEncoder().fit_encode_stream(iter_documents({path!r}), memmap_dir={memmap!r})
seconds = time.perf_counter() - start
ids = sum(a.nbytes for a in (corpus.token_ids, corpus.sentence_offsets, corpus.document_offsets,
                             corpus.token_types, corpus.subword_table) if a is not None)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(seconds, (peak - base) / 1024, ids / 2**20, len(corpus), int(corpus.document_lengths.sum()))
"""

ENCODE_LIST = """
import resource, time
from skattn import TextEncoder
from skattn.compare import read_documents
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
corpus = TextEncoder().fit_encode(read_documents({path!r}))
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(seconds, (peak - base) / 1024, 0, len(corpus), int(corpus.document_lengths.sum()))
"""

PREDICT_STREAM = """
import resource, sys, time
from skattn.__main__ import main
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
main(["predict", {model!r}, {path!r}, "--output", {output!r}])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(seconds, (peak - base) / 1024, 0, 0, 0)
"""

FIT_STREAM = """
import resource, time
from skorch.callbacks import Callback
from skattn import SelfAttentiveClassifier
from skattn.text import DocumentFile
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
class TrainingBegins(Callback):
    def on_train_begin(self, net, **kwargs):
        self.time, self.peak = time.perf_counter(), peak()
train = DocumentFile({path!r})
labels = train.column("label")
mark = TrainingBegins()
model = SelfAttentiveClassifier(
    max_epochs=1, random_state=0, memmap_dir={memmap!r}, callbacks=[mark]
)
base = peak()
start = time.perf_counter()
model.fit(train, labels)
end = time.perf_counter()
print(mark.time - start, mark.peak - base, end - mark.time, peak() - base, end - start)
"""

TRAIN = """
import numpy as np
from skattn import SelfAttentiveClassifier, save
from skattn.datasets import fetch_sentence_polarity
X, y = fetch_sentence_polarity(return_X_y=True)
order = np.random.default_rng(0).permutation(len(X))[:2000]
model = SelfAttentiveClassifier(max_epochs=1, random_state=0).fit([X[i] for i in order], y[order])
save(model, {model!r})
"""


def _write_corpus(path: Path, n: int) -> None:
    import numpy as np

    from skattn.datasets import fetch_sentence_polarity

    X, y = fetch_sentence_polarity(return_X_y=True)
    picks = np.random.default_rng(0).integers(0, len(X), size=n)
    with open(path, "w", encoding="utf-8") as handle:
        for i in picks:
            handle.write(json.dumps({"text": X[i], "label": str(y[i])}) + "\n")


def _run(code: str) -> list[float]:
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return [float(v) for v in out.stdout.split()[-5:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100000,300000,1000000")
    parser.add_argument("--no-predict", action="store_true", help="no predict_stream")
    parser.add_argument(
        "--only", default=None, help="comma-separated measures (default: all of them)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        model = str(Path(folder) / "model.skattn")
        subprocess.run([sys.executable, "-c", TRAIN.format(model=model)], check=True)
        for n in (int(v) for v in args.sizes.split(",")):
            path = Path(folder) / f"docs_{n}.jsonl"
            _write_corpus(path, n)
            jobs = {
                "encode_stream": ENCODE_STREAM.format(path=str(path), memmap=None),
                "encode_stream_memmap": ENCODE_STREAM.format(path=str(path), memmap=folder),
            }
            if n <= 300_000:
                jobs["encode_list"] = ENCODE_LIST.format(path=str(path))
            output = str(Path(folder) / "out.jsonl")
            if not args.no_predict:
                jobs["predict_stream"] = PREDICT_STREAM.format(
                    model=model, path=str(path), output=output
                )
            jobs["fit_stream"] = FIT_STREAM.format(path=str(path), memmap=None)
            jobs["fit_stream_memmap"] = FIT_STREAM.format(path=str(path), memmap=folder)
            if args.only:
                jobs = {k: v for k, v in jobs.items() if k in args.only.split(",")}
            for name, code in jobs.items():
                if name.startswith("fit_stream"):
                    before, before_mib, training, peak_mib, total = _run(code)
                    record = {
                        "documents": n,
                        "measure": name,
                        "until_training_s": round(before, 1),
                        "peak_rss_until_training_mib": round(before_mib, 1),
                        "epoch_s": round(training, 1),
                        "training_docs_per_s": round(n / training),
                        "fit_s": round(total, 1),
                        "peak_rss_above_imports_mib": round(peak_mib, 1),
                    }
                    print(json.dumps(record), flush=True)
                    continue
                seconds, peak_mib, ids_mib, documents, tokens = _run(code)
                record = {
                    "documents": n,
                    "measure": name,
                    "seconds": round(seconds, 1),
                    "docs_per_s": round(n / seconds),
                    "peak_rss_above_imports_mib": round(peak_mib, 1),
                }
                if name.startswith("encode_stream"):
                    record.update(id_arrays_mib=round(ids_mib, 1), tokens=int(tokens))
                print(json.dumps(record), flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
