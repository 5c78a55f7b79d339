"""The truncation rule of the TextEncoder, on tokenised sentences (standard library only).

Shared by the training encoder and the serving runtime
(:mod:`skattn.serving._text`), so that both cut documents identically.
"""

from __future__ import annotations


def truncate(
    sentences: list[list[str]],
    max_sentences: int | None,
    max_sentence_length: int | None,
    max_length: int | None,
) -> tuple[list[list[str]], tuple[str, ...]]:
    """Keep the first sentences, the first tokens of each, then the first tokens overall.

    Returns the kept sentences and the names of the limits that cut something.

    Examples
    --------
    >>> truncate([["a", "b", "c"], ["d"], ["e"]], 2, 2, 3)
    ([['a', 'b'], ['d']], ('max_sentences', 'max_sentence_length'))
    >>> truncate([["a", "b"], ["c", "d"]], None, None, 3)
    ([['a', 'b'], ['c']], ('max_length',))
    """
    cut = []
    if max_sentences is not None and len(sentences) > max_sentences:
        sentences = sentences[:max_sentences]
        cut.append("max_sentences")
    if max_sentence_length is not None and any(len(s) > max_sentence_length for s in sentences):
        cut.append("max_sentence_length")
        sentences = [s[:max_sentence_length] for s in sentences]
    if max_length is not None and sum(map(len, sentences)) > max_length:
        budget, kept = max_length, []
        for tokens in sentences:
            if budget <= 0:
                break
            kept.append(tokens[:budget])
            budget -= len(tokens)
        sentences = kept
        cut.append("max_length")
    return sentences, tuple(cut)
