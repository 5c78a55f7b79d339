"""How many epochs ``max_epochs="auto"`` trains for: the rule and its reasons.

The defaults were tuned on sentence_polarity's training split (8,530
snippets, 187,600 tokens): 5 epochs for the self-attentive classifier and 3
for HAN (with their one-cycle learning rate), 8 for the self-attentive regressor and 5 for the
HAN regressor. An epoch over a smaller corpus is fewer optimizer steps over less
text, and on TREC's 5,452 questions those epochs leave both models short
of what they reach with more (see *Results*). The rule therefore scales a
model's base epochs by how much smaller the training split is than that
reference, in documents and in tokens, whichever is *less* small (a
corpus of few but long documents, such as movie reviews, holds plenty of
text and keeps the base):

    epochs = round(base × clip(min(8,530 / documents, 187,600 / tokens), 1, 2))

Corpora as large as the reference or larger keep the base; none gets more
than twice it (four times cost HAN accuracy on small corpora; see
*Results*). The estimator's ``choices_["max_epochs"]`` records the value
and the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["MAX_FACTOR", "REFERENCE_DOCUMENTS", "REFERENCE_TOKENS", "EpochChoice", "auto_epochs"]

#: Documents and tokens of the training split the default epochs were tuned on.
REFERENCE_DOCUMENTS = 8_530
REFERENCE_TOKENS = 187_600
#: The most ``"auto"`` multiplies a model's base epochs by.
MAX_FACTOR = 2.0


@dataclass(frozen=True)
class EpochChoice:
    """The number of epochs a fit trains for, and why (kept in ``choices_``).

    Attributes
    ----------
    value : int
    why : str

    Examples
    --------
    >>> EpochChoice(8, "the base").value
    8
    """

    value: int
    why: str


def auto_epochs(base: int, n_documents: int, n_tokens: int) -> EpochChoice:
    """The epochs ``max_epochs="auto"`` gives a model of ``base`` epochs on this training split.

    Parameters
    ----------
    base : int
        The model's epochs at the reference size (classifiers: self-attentive
        5, HAN 3; regressors: self-attentive 8, HAN 5).
    n_documents, n_tokens : int
        Documents and tokens (after truncation) the network trains on.

    Returns
    -------
    EpochChoice

    Examples
    --------
    TREC's training questions (5,452 documents, 57,000 tokens) get more
    epochs; movie reviews (1,600 long documents) keep the base:

    >>> auto_epochs(5, 5_452, 57_000).value
    8
    >>> auto_epochs(5, 1_600, 1_224_000).value
    5
    """
    documents_ratio = REFERENCE_DOCUMENTS / max(n_documents, 1)
    tokens_ratio = REFERENCE_TOKENS / max(n_tokens, 1)
    factor = min(max(min(documents_ratio, tokens_ratio), 1.0), MAX_FACTOR)
    epochs = max(base, math.floor(base * factor + 0.5))
    why = (
        f"{base} epochs × {factor:.2f}: the training split holds {n_documents:,} documents "
        f"and {n_tokens:,} tokens; the {REFERENCE_DOCUMENTS:,} documents and "
        f"{REFERENCE_TOKENS:,} tokens the defaults were tuned on are {documents_ratio:.2f}× and "
        f"{tokens_ratio:.2f}× as many, and the smaller ratio, kept between 1 and "
        f"{MAX_FACTOR:g}, scales the base"
    )
    return EpochChoice(epochs, why)
