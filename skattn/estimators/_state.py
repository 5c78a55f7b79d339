"""What a fitted estimator learned, as plain data: the fitted-state protocol.

:meth:`~skattn.estimators._base.AttentionEstimatorBase.get_fitted_state`
describes everything ``fit`` learned as a :class:`FittedState` (plain data
plus the network's tensors), and ``set_fitted_state`` rebuilds a fitted
estimator from one; model files (:mod:`skattn.persistence`) and the
embedder go through the same two methods.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

__all__ = ["FittedState", "WeightsMismatchError"]


class WeightsMismatchError(ValueError):
    """Stored network weights do not fit the network an estimator's parameters build.

    :meth:`AttentionClassifierBase.set_fitted_state` raises it;
    :func:`skattn.load` turns it into its "not a valid model file" error.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> small = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
    >>> state = small.fit(["good", "bad"] * 4, [1, 0] * 4).get_fitted_state()
    >>> try:
    ...     SelfAttentiveClassifier(hidden_size=3).set_fitted_state(state)
    ... except WeightsMismatchError:
    ...     print("refused")
    refused
    """


@dataclass
class FittedState:
    """Everything a fitted estimator learned: plain data plus the network's tensors.

    Attributes
    ----------
    classes : ndarray or None
        ``classes_`` (None for a regressor: its target scaling is among the
        ``attributes``).
    tokens : list of str
        The token of each id (``TextEncoder.id_to_token_``).
    token_counts : list of int
        How often each token was seen in ``fit``.
    attributes : dict
        The other fitted attributes by name without the trailing underscore
        (``n_truncated``, ``embedding_coverage``, ``history``), JSON-ready.
    weights : dict of str to Tensor
        The network's ``state_dict``, on the CPU.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
    >>> state = clf.fit(["good", "bad"] * 4, [1, 0] * 4).get_fitted_state()
    >>> state.attributes["n_blank"], "embedding.weight" in state.weights
    (0, True)
    """

    classes: np.ndarray
    tokens: list[str]
    token_counts: list[int]
    attributes: dict[str, Any] = field(default_factory=dict)
    weights: dict[str, torch.Tensor] = field(default_factory=dict)
