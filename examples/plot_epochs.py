"""
How many epochs ``"auto"`` trains for
=====================================

``max_epochs="auto"`` (the default) trains a model's base epochs on a
training split holding as much text as sentence_polarity's (187,600
tokens, where the bases were tuned) and up to twice as many on less: the
base times how many fewer tokens the split holds, kept between 1 and 2
(:func:`skattn.training.auto_epochs`). Counting tokens rather than
documents matters for corpora of many short texts: nps_chat has as many
posts as sentence_polarity has snippets, but a quarter of the text.

Here each shipped corpus's 5-fold training size is counted (nothing is
trained for the chart), then one model is fitted to show that
``choices_`` records what the rule chose and why.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from skattn import SelfAttentiveClassifier
from skattn.datasets import (
    fetch_movie_reviews,
    fetch_nps_chat,
    fetch_sentence_polarity,
    fetch_trec,
)
from skattn.text import TextEncoder
from skattn.training import auto_epochs

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

corpora = {
    "sentence_polarity": fetch_sentence_polarity(return_X_y=True)[0],
    "nps_chat": fetch_nps_chat(return_X_y=True)[0],
    "TREC": fetch_trec(subset="train", return_X_y=True)[0],
    "movie_reviews": fetch_movie_reviews(return_X_y=True)[0],
}
BASES = {"self-attentive": 5, "HAN": 3}

rows = []
for name, texts in corpora.items():
    train = texts if name == "TREC" else texts[: len(texts) * 4 // 5]  # a 5-fold training part
    tokens = int(TextEncoder().fit(train).encode(train).document_lengths.sum())
    epochs = {model: auto_epochs(base, len(train), tokens).value for model, base in BASES.items()}
    rows.append((name, len(train), tokens, epochs))
    print(f"{name:18s} {len(train):6,d} documents {tokens:9,d} tokens -> epochs {epochs}")

# %%
# The rule as a curve: the factor on the base epochs against the tokens of
# the training split, with each corpus where its training split falls.
grid = np.logspace(4, 7, 200)
fig, ax = plt.subplots(figsize=(7, 3.4))
# A base of 100 epochs shows the factor itself; a real base is rounded to whole
# epochs, so a corpus's point (its self-attentive epochs ÷ 5) can sit off the curve.
ax.plot(grid, [auto_epochs(100, 1, int(t)).value / 100 for t in grid], color="#4c72b0")
offsets = {"nps_chat": (-110, 12), "TREC": (8, -26)}  # the two points lie close together
for name, _, tokens, epochs in rows:
    factor = epochs["self-attentive"] / BASES["self-attentive"]
    ax.plot(tokens, factor, "o", color="#c44e52")
    label = f"{name}\nself-attentive {epochs['self-attentive']}, HAN {epochs['HAN']}"
    ax.annotate(
        label,
        (tokens, factor),
        textcoords="offset points",
        xytext=offsets.get(name, (6, -22)),
        fontsize=8,
    )
ax.set_xscale("log")
ax.set_ylim(0.8, 2.4)
ax.set_xlabel("tokens in the training split (log scale)")
ax.set_ylabel("epochs ÷ base epochs")
ax.set_title("max_epochs='auto': reference 187,600 tokens", fontsize=10)
fig.tight_layout()

# %%
# A fit records the rule's choice and its reason.
posts, acts = fetch_nps_chat(return_X_y=True)
if QUICK:
    posts, acts = posts[:1500], acts[:1500]
clf = SelfAttentiveClassifier(random_state=0).fit(posts, acts)  # max_epochs="auto"
print(clf.choices_["max_epochs"])
