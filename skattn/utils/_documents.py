"""What is a document, and why a value is not one: one rule for every surface.

The estimators (:func:`skattn.utils._validation.check_text_input`) and the
ONNX runtime (:mod:`skattn.serving._runtime`) refuse the same values with
the same words, so the runtime never answers where ``predict`` refuses.
Nothing heavy is imported here: the runtime runs without scikit-learn.
"""

from __future__ import annotations

from typing import Any

DOCUMENTS_HINT = "expected a 1-D sequence of str (list, tuple, 1-D numpy array or pandas Series)"


def not_a_document(value: Any, where: str) -> str:
    """Why ``value`` is not a document (a ``str``), naming where it is.

    Parameters
    ----------
    value : object
        What was found where a document was expected.
    where : str
        Where it was found, e.g. ``"X[3]"``.

    Returns
    -------
    str
        The message of the ``TypeError`` to raise.

    Examples
    --------
    >>> not_a_document(None, "X[1]")[:30]
    'X[1] is None/NaN, not str; exp'
    >>> not_a_document(b"good", "X[0]")[:37]
    'X[0] is bytes; documents must be str.'
    """
    if isinstance(value, (bytes, bytearray)):
        return (
            f"{where} is bytes; documents must be str. Decode them first, "
            "e.g. doc.decode('utf-8') (or the encoding of your files)."
        )
    missing = value is None or (isinstance(value, float) and value != value)
    kind = "None/NaN" if missing else type(value).__name__
    return f"{where} is {kind}, not str; {DOCUMENTS_HINT}."
