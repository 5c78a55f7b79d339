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
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        value = value.item()  # a numpy scalar is named as the Python value it holds
    if isinstance(value, (bytes, bytearray)):
        return (
            f"{where} is bytes; documents must be str. Decode them first, "
            "e.g. doc.decode('utf-8') (or the encoding of your files)."
        )
    missing = value is None or (isinstance(value, float) and value != value)
    kind = "None/NaN" if missing else type(value).__name__
    return f"{where} is {kind}, not str; {DOCUMENTS_HINT}."


def is_data_frame(X: Any) -> bool:
    """Whether ``X`` looks like a pandas DataFrame (checked without importing pandas)."""
    return hasattr(X, "iloc") and hasattr(X, "columns")


def text_column_name(X: Any) -> list[str] | None:
    """The column name of a one-column DataFrame of texts (a str), else None.

    What a single-text estimator fitted on ``X`` records as
    ``feature_names_in_`` (scikit-learn's convention: only str names).

    Examples
    --------
    >>> text_column_name(["a good film"]) is None
    True
    """
    if not is_data_frame(X):
        return None
    names = list(X.columns)
    return names if len(names) == 1 and isinstance(names[0], str) else None


def check_text_column(X: Any, feature_names: Any) -> None:
    """Refuse a DataFrame whose column is not the one the model was fitted on.

    A model fitted on ``df[["review"]]`` and given ``df[["title"]]`` would
    answer for the wrong text; scikit-learn refuses mismatched feature names
    the same way. Lists, arrays and Series carry no name and are read as is;
    so is a DataFrame whose column has no str name (scikit-learn warns there).

    Parameters
    ----------
    X : object
        The documents, possibly a one-column DataFrame.
    feature_names : sequence of one str, or None
        The fitted model's ``feature_names_in_``.

    Raises
    ------
    ValueError
        ``X`` is a one-column DataFrame whose column is not ``feature_names``.

    Examples
    --------
    >>> check_text_column(["a good film"], ["review"]) is None
    True
    """
    if feature_names is None or text_column_name(X) is None:
        return  # not a one-column DataFrame with a named column: read (or refused) as before
    expected = [str(name) for name in feature_names]
    columns = list(X.columns)
    if columns != expected:
        raise ValueError(
            f"X has columns {columns}; the model was fitted on the column {expected}, so it "
            f"would answer for another text. Pass df[{expected[0]!r}], or rename the column."
        )
