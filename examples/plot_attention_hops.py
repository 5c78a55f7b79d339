"""
What the penalty does to the hops
=================================

Do the r hops of a self-attentive model look at different words? This
trains :class:`~skattn.SelfAttentiveClassifier` on sentence_polarity
(stratified 80/20, seed 0) with the redundancy penalty off and on, then
prints, for each setting, the held-out accuracy, the mean off-diagonal of
AAᵀ over the test documents (0 = hops attend to disjoint tokens, higher =
hops repeat each other) and the tokens each hop attends to most (mean
weight over test documents, tokens seen at least 20 times).

Run it alone: ``SKATTN_DATA=../shared/data python examples/plot_attention_hops.py``.
"""

from __future__ import annotations

import os
from collections import defaultdict

import numpy as np
from sklearn.model_selection import train_test_split

from skattn import SelfAttentiveClassifier
from skattn.datasets import fetch_sentence_polarity


def mean_off_diagonal(explanations) -> float:
    values = []
    for record in explanations:
        gram = record["attention"] @ record["attention"].T
        values.append(gram[~np.eye(len(gram), dtype=bool)].mean())
    return float(np.mean(values))


def top_tokens_per_hop(explanations, k: int = 8, min_count: int = 20) -> list[list[str]]:
    hops = explanations[0]["attention"].shape[0]
    weights = [defaultdict(list) for _ in range(hops)]
    for record in explanations:
        for h in range(hops):
            for token, weight in zip(record["tokens"], record["attention"][h]):
                weights[h][token].append(weight)
    return [
        [
            t
            for t, w in sorted(
                ((t, np.mean(w)) for t, w in hop.items() if len(w) >= min_count),
                key=lambda item: -item[1],
            )[:k]
        ]
        for hop in weights
    ]


def main() -> None:
    quick = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"
    X, y = fetch_sentence_polarity(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=0
    )
    if quick:
        X_train, y_train = X_train[:1500], y_train[:1500]
    for penalty in (0.0, 1.0):
        clf = SelfAttentiveClassifier(
            penalty=penalty, max_epochs=1 if quick else 8, random_state=0
        ).fit(X_train, y_train)
        explanations = clf.explain(X_test, method="attention")
        print(
            f"penalty={penalty}: accuracy {clf.score(X_test, y_test):.4f}, "
            f"mean off-diagonal of AA^T {mean_off_diagonal(explanations):.4f}"
        )
        for h, tokens in enumerate(top_tokens_per_hop(explanations)):
            print(f"  hop {h}: {' '.join(tokens)}")


main()
