"""How many epochs ``max_epochs="auto"`` trains for: the rule and its reasons.

The defaults were tuned on sentence_polarity's training split (8,530
snippets, 187,600 tokens): 5 epochs for the self-attentive classifier and 3
for HAN (with their one-cycle learning rate), 8 for the self-attentive regressor and 5 for the
HAN regressor. A training split holding less text than that reference
gives each epoch less to learn from: on TREC's 5,452 questions and on
nps_chat's chat posts (as many documents as the reference, a quarter of
its tokens) those epochs leave both models short of what they reach with
more (see *Results*). The rule therefore scales a model's base epochs by
how many fewer tokens the training split holds than the reference; a
corpus of few but long documents, such as movie reviews, holds plenty of
text and keeps the base:

    epochs = round(base × clip(187,600 / tokens, 1, 2))

Corpora with as much text as the reference or more keep the base; none gets more
than twice it (four times cost HAN accuracy on small corpora; see
*Results*). The estimator's ``choices_["max_epochs"]`` records the value
and the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["MAX_FACTOR", "REFERENCE_DOCUMENTS", "REFERENCE_TOKENS", "EpochChoice", "auto_epochs"]

#: Documents and tokens of the training split the default epochs were tuned on
#: (the rule reads the tokens; the documents are quoted in its reason).
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
    n_documents : int
        Documents the network trains on, quoted in the reason (the rule
        reads the tokens).
    n_tokens : int
        Tokens (after truncation) the network trains on.

    Returns
    -------
    EpochChoice

    Examples
    --------
    TREC's training questions (5,452 documents, 57,000 tokens) and
    nps_chat's posts (8,453 documents, 52,600 tokens) get twice the base;
    movie reviews (1,600 long documents) keep it:

    >>> auto_epochs(5, 5_452, 57_000).value
    10
    >>> auto_epochs(5, 8_453, 52_600).value
    10
    >>> auto_epochs(5, 1_600, 1_224_000).value
    5
    """
    tokens_ratio = REFERENCE_TOKENS / max(n_tokens, 1)
    factor = min(max(tokens_ratio, 1.0), MAX_FACTOR)
    epochs = max(base, math.floor(base * factor + 0.5))
    why = (
        f"{base} epochs × {factor:.2f}: the training split holds {n_documents:,} documents "
        f"and {n_tokens:,} tokens; the {REFERENCE_TOKENS:,} tokens the defaults were tuned on "
        f"({REFERENCE_DOCUMENTS:,} documents) are {tokens_ratio:.2f}× as many, and that "
        f"ratio, kept between 1 and {MAX_FACTOR:g}, scales the base"
    )
    return EpochChoice(epochs, why)
