"""What a comparison is: classification, regression or multi-label, decided in the open.

``--task auto`` follows scikit-learn's ``type_of_target``: lists of labels
(an indicator matrix) are multi-label, numbers with a fraction
("continuous") are a regression, and so is a corpus known as one
(product_reviews' whole-number strengths); anything else (words,
integers) is a classification. The decision and its reason are printed; so is every row
left out (an empty label) and how many.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass
class Task:
    """The task decided, the documents and labels it reads, and the reason in words."""

    name: str
    X: list
    y: np.ndarray
    reason: str
    target_names: list | None = None
    test_mask: np.ndarray | None = None


def _numbers(labels: np.ndarray) -> np.ndarray | None:
    """The labels as floats when every one is a number, else None."""
    if labels.dtype.kind in "iuf":
        return labels.astype(float)
    try:
        return np.array([float(value) for value in labels.tolist()])
    except (TypeError, ValueError):
        return None


def _drop_empty(corpus, say: Callable[[str], None], name: str):
    """The corpus without rows whose label is empty, announced with their count."""
    y = corpus.y
    if y.ndim != 1 or y.dtype.kind not in "OUS":
        return corpus.X, y, corpus.test_mask
    empty = np.array([value is None or str(value).strip() == "" for value in y.tolist()])
    if not empty.any():
        return corpus.X, y, corpus.test_mask
    say(f"{name}: left out {int(empty.sum())} row(s) with an empty label")
    keep = ~empty
    mask = None if corpus.test_mask is None else corpus.test_mask[keep]
    return [x for x, k in zip(corpus.X, keep) if k], _one_type(y[keep]), mask


def _one_type(labels: np.ndarray) -> np.ndarray:
    """Labels left as Python objects by a missing one (JSON's null) as the array of their type.

    Examples
    --------
    >>> _one_type(np.array([1, 0, 1], dtype=object)).dtype.kind
    'i'
    """
    values = labels.tolist()
    for kind in (int, float, str):
        if all(type(value) is kind for value in values):
            return np.array(values, dtype={int: np.int64, float: np.float64, str: object}[kind])
    return labels


def split_labels(labels, separator: str) -> tuple[np.ndarray, list]:
    """The indicator matrix and label names of cells joined by ``separator``.

    Examples
    --------
    >>> Y, names = split_labels(["joy,love", "anger", "", None, float("nan")], ",")
    >>> Y.tolist(), names
    ([[0, 1, 1], [1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]], ['anger', 'joy', 'love'])
    """
    cells = [
        [] if _missing(value) else [p.strip() for p in str(value).split(separator) if p.strip()]
        for value in np.asarray(labels, dtype=object).tolist()
    ]
    names = sorted({label for cell in cells for label in cell})
    column = {label: j for j, label in enumerate(names)}
    Y = np.zeros((len(cells), len(names)), dtype=np.int64)
    for i, cell in enumerate(cells):
        Y[i, [column[label] for label in cell]] = 1
    return Y, names


def _missing(value) -> bool:
    """An empty cell as a reader gives it: None (JSON's null) or NaN (pandas, parquet)."""
    return value is None or (isinstance(value, float) and value != value)


def decide_task(corpus, requested: str, separator: str, name: str, say=print) -> Task:
    """The task of ``corpus`` (``requested``, or decided by ``auto``), said in one line."""
    from sklearn.utils.multiclass import type_of_target

    if corpus.multilabel:
        if requested not in ("auto", "multilabel"):
            raise ValueError(
                f"{name} holds lists of labels (multi-label); --task {requested} cannot read them"
            )
        reason = "its labels are lists (type_of_target: 'multilabel-indicator')"
        return Task("multilabel", corpus.X, corpus.y, reason, corpus.target_names, corpus.test_mask)
    if requested == "multilabel":  # an empty cell is a document without labels: kept
        Y, names = split_labels(corpus.y, separator)
        reason = f"asked (--task multilabel): label cells split at {separator!r}"
        n_empty = int((Y.sum(axis=1) == 0).sum())
        if n_empty:
            reason += f"; {n_empty} empty cell(s) read as documents without labels"
        return Task("multilabel", corpus.X, Y, reason, names, corpus.test_mask)
    X, y, mask = _drop_empty(corpus, say, name)
    numbers = _numbers(y)
    target = type_of_target(numbers if numbers is not None else y)
    if requested == "regression":
        if numbers is None:
            bad = next(v for v in y.tolist() if _numbers(np.array([v], dtype=object)) is None)
            raise ValueError(f"--task regression needs numeric labels; {name} has {bad!r}")
        return Task("regression", X, numbers, "asked (--task regression)", test_mask=mask)
    if requested == "classification":
        return Task("classification", X, y, "asked (--task classification)", test_mask=mask)
    if corpus.regression:
        reason = (
            f"{name} is a regression corpus (its whole numbers are amounts); "
            "--task classification treats them as classes"
        )
        return Task("regression", X, numbers, reason, test_mask=mask)
    if target == "continuous":
        reason = (
            "its labels are numbers with fractions (type_of_target: 'continuous'); "
            "--task classification treats them as classes"
        )
        return Task("regression", X, numbers, reason, test_mask=mask)
    kind = "integers" if numbers is not None else "values"
    reason = f"its labels are {len(np.unique(y))} distinct {kind} (type_of_target: {target!r})"
    if numbers is not None:
        reason += "; --task regression treats them as numbers"
    return Task("classification", X, y, reason, test_mask=mask)
