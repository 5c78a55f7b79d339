"""
Training from a file, a chunk at a time
=======================================

A corpus too large to hold comfortably as a list of strings can be fitted
straight from its file: :class:`skattn.text.DocumentFile` reads a CSV,
JSON Lines or Parquet file a chunk at a time, and ``fit`` encodes each
chunk into flat int32 arrays and never keeps the text. Because ``fit``
orders its samples by a digest of each text, the model fitted from the
file is the very model fitted from the same documents as a list. Here
sentence_polarity's snippets stand in for a large file: written to JSON
Lines, fitted both ways, compared weight by weight, then the test file is
predicted as a stream.
"""

import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from matplotlib.figure import Figure
from sklearn.model_selection import train_test_split

from skattn import SelfAttentiveClassifier, TextEncoder
from skattn.datasets import fetch_sentence_polarity
from skattn.text import DocumentFile

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

X, y = fetch_sentence_polarity(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
folder = Path(tempfile.mkdtemp())
for name, texts, labels in (("train", X_train, y_train), ("test", X_test, y_test)):
    with open(folder / f"{name}.jsonl", "w", encoding="utf-8") as handle:
        for text, label in zip(texts, labels):
            handle.write(json.dumps({"text": text, "label": str(label)}) + "\n")

# %%
# Fit from the file, and from the same documents as a list. The labels are
# an ordinary array; ``column`` reads them from the file.
train = DocumentFile(folder / "train.jsonl")
params = dict(max_epochs=2 if QUICK else "auto", random_state=0)
from_file = SelfAttentiveClassifier(**params).fit(train, train.column("label"))
from_list = SelfAttentiveClassifier(**params).fit(X_train, [str(label) for label in y_train])
weights_file = from_file.net_.module_.state_dict()
weights_list = from_list.net_.module_.state_dict()
identical = all(torch.equal(weights_file[k], weights_list[k]) for k in weights_file)
print(f"{len(weights_file)} weight tensors, identical: {identical}")

# %%
# What a fit holds for the documents. Fitted from a list, the list's Python
# strings stay in memory beside the encoded arrays ``fit`` trains from
# (int32 token ids and subword rows, int64 offsets: about 8 bytes a token
# with subwords, about as much as short ASCII text takes as str); fitted
# from the file, only the arrays, and with ``memmap_dir=`` not even those:
# they stay on disk and the operating system pages in what a batch reads.
corpus = TextEncoder(subword_buckets=50_000).fit_encode_stream(train)  # as the model's
encoded = sum(
    array.nbytes
    for array in (
        corpus.token_ids,
        corpus.token_types,
        corpus.sentence_offsets,
        corpus.document_offsets,
    )
)
strings = sys.getsizeof(X_train) + sum(sys.getsizeof(text) for text in X_train)
figure = Figure(figsize=(6.5, 2.4))
ax = figure.subplots()
rows = ["fit(list)", "fit(DocumentFile)"]
ax.barh(rows, [encoded / 2**20] * 2, label="encoded arrays")
ax.barh(rows, [strings / 2**20, 0], left=[encoded / 2**20] * 2, label="the list's strings")
for row, total in enumerate((encoded + strings, encoded)):
    ax.annotate(
        f"{total / 2**20:.2f} MiB",
        (total / 2**20, row),
        xytext=(4, 0),
        textcoords="offset points",
        va="center",
    )
ax.set_xlabel(f"MiB held for {len(X_train):,} training snippets")
ax.set_xlim(0, (encoded + strings) / 2**20 * 1.25)
ax.legend(loc="upper right", fontsize="small")
figure.tight_layout()
figure

# %%
# Predict the test file as a stream: one chunk of documents at a time, in
# order, so memory does not grow with the file.
test = DocumentFile(folder / "test.jsonl")
predicted = np.concatenate(list(from_file.predict_iter(test, chunk_size=500)))
accuracy = np.mean(predicted == np.array(test.column("label")))
print(f"accuracy on {len(predicted):,} streamed test snippets: {accuracy:.3f}")
