"""
Serving a model without the training stack
==========================================

:func:`skattn.serving.export` writes a fitted model as one artefact (the
network as ONNX, the text settings as JSON);
:class:`~skattn.serving.OnnxTextClassifier` answers from it with numpy and
onnxruntime only. Here a self-attentive classifier trained on movie-review
snippets is exported, served, checked against the estimator, and timed on
single snippets (the latency a web service sees), end to end from the raw
string.
"""

import os
import tempfile
import time
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from skattn import SelfAttentiveClassifier
from skattn.datasets import fetch_sentence_polarity
from skattn.serving import OnnxTextClassifier, export

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

X, y = fetch_sentence_polarity(return_X_y=True)
order = np.random.RandomState(0).permutation(len(X))
X, y = [X[i] for i in order], y[order]
n_train = 1500 if QUICK else 8000
model = SelfAttentiveClassifier(max_epochs=2 if QUICK else "auto", random_state=0)
model.fit(X[:n_train], y[:n_train])

folder = Path(tempfile.mkdtemp())
path = export(model, folder / "polarity.onnx.zip")
served = OnnxTextClassifier(path)
print(f"artefact: {path.stat().st_size / 2**20:.1f} MiB")

# %%
# The served model gives the estimator's probabilities
# ----------------------------------------------------
test = X[-500:]
difference = np.abs(served.predict_proba(test) - model.predict_proba(test)).max()
print(f"largest probability difference over 500 snippets: {difference:.1e}")
print("same labels:", bool((served.predict(test) == model.predict(test)).all()))
record = served.attention(["a gorgeous, witty, seductive movie ."])[0]
weights = record["attention"].sum(axis=0)
print({token: round(float(w), 2) for token, w in zip(record["tokens"], weights)})

# %%
# Latency of one snippet, raw string to probabilities
# ---------------------------------------------------
# One thread each; the median of 200 calls (the docs' build may shrink the
# run; *Results* has the benchmark on a quiet machine).


def median_ms(predict, documents):
    predict(documents[:1])
    times = []
    for doc in documents:
        start = time.perf_counter()
        predict([doc])
        times.append(1000 * (time.perf_counter() - start))
    return float(np.median(times))


singles = X[-200:]
latency = {
    "PyTorch eager\n(the estimator)": median_ms(model.predict_proba, singles),
    "onnxruntime\n(the artefact)": median_ms(served.predict_proba, singles),
}
figure = Figure(figsize=(5.5, 2.6), layout="constrained")
axis = figure.subplots()
bars = axis.barh(list(latency), list(latency.values()), color=["#8c8c8c", "#1f77b4"])
axis.bar_label(bars, fmt="%.2f ms", padding=3)
axis.set_xlabel("median latency of one snippet (ms)")
axis.set_xlim(0, 1.3 * max(latency.values()))
axis.invert_yaxis()
figure
