"""What is a document, and why a value is not one: one rule for every surface.

The estimators (:func:`skattn.utils._validation.check_text_input`) and the
ONNX runtime (:mod:`skattn.serving._runtime`) refuse the same values with
the same words, so the runtime never answers where ``predict`` refuses.
Nothing heavy is imported here: the runtime runs without scikit-learn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

DOCUMENTS_HINT = "expected a 1-D sequence of str (list, tuple, 1-D numpy array or pandas Series)"
PAIR_TEXT_HINT = "each text of a pair must be a str"
PAIRS_HINT = (
    "expected pairs of texts: a list of (text, text) tuples, a 2-column array or a "
    "2-column DataFrame"
)


def not_a_document(value: Any, where: str, hint: str = DOCUMENTS_HINT) -> str:
    """Why ``value`` is not a document (a ``str``), naming where it is.

    Parameters
    ----------
    value : object
        What was found where a document was expected.
    where : str
        Where it was found, e.g. ``"X[3]"``.
    hint : str, default=DOCUMENTS_HINT
        What was expected instead, ending the message.

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
    return f"{where} is {kind}, not str; {hint}."


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


def check_pairs(
    X: Any, feature_names: Sequence[str] | None = None, name: str = "X"
) -> list[tuple[str, str]]:
    """Pairs of texts as a list of ``(first, second)`` tuples, or the reason they are not.

    One rule for the pair estimators and the ONNX runtime, so both refuse the
    same values with the same exception and words, naming a text by its
    row and place, e.g. ``X[3][1]``.

    Parameters
    ----------
    X : list of 2-tuples, 2-column array or DataFrame
        A DataFrame is read by ``feature_names`` when given (it must hold
        exactly those columns, in any order), else by its two columns in order.
    feature_names : sequence of 2 str, optional
        A fitted model's ``feature_names_in_``.
    name : str, default="X"
        How the messages name the input.

    Returns
    -------
    list of (str, str)

    Raises
    ------
    TypeError
        ``X`` or a row is not a pair of texts, or a text is not a ``str``.
    ValueError
        ``X`` holds no pair, or a DataFrame's columns are not the fitted ones.

    Examples
    --------
    >>> check_pairs([("a man sings", "a person sings")])
    [('a man sings', 'a person sings')]
    >>> check_pairs([("a man sings", None)])
    Traceback (most recent call last):
    ...
    TypeError: X[0][1] is None/NaN, not str; each text of a pair must be a str.
    """
    if is_data_frame(X):
        X = _frame_rows(X, feature_names, name)
    elif type(X).__module__.startswith("scipy.sparse"):
        raise TypeError(f"{name} is a sparse matrix; {PAIRS_HINT}.")
    elif hasattr(X, "iloc"):  # a pandas Series: one column, not pairs
        raise TypeError(f"{name} is a Series; {PAIRS_HINT}.")
    elif hasattr(X, "ndim"):  # an array (numpy's matrix and masked arrays too)
        if X.ndim != 2 or X.shape[1] != 2:
            raise TypeError(f"{name} has shape {X.shape}; {PAIRS_HINT}.")
        X = X.tolist()  # rows of Python values (a masked text becomes None)
    elif not _is_row_sequence(X):
        raise TypeError(f"{name} is {_a(type(X).__name__)}; {PAIRS_HINT}.")
    pairs = [_pair(row, f"{name}[{i}]") for i, row in enumerate(X)]
    if not pairs:
        raise ValueError(f"{name} is empty; at least one pair is needed.")
    return pairs


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def _is_row_sequence(value: Any) -> bool:
    """A list, tuple or 1-D array, not a str, bytes, mapping or set (which iterate otherwise)."""
    if isinstance(value, (str, bytes, bytearray, Mapping, AbstractSet)):
        return False
    return isinstance(value, Sequence) or hasattr(value, "ndim")


def _pair(row: Any, where: str) -> tuple[str, str]:
    # A Series row is refused: its labels, not its positions, would say which text is which.
    if not _is_row_sequence(row) or getattr(row, "ndim", 1) != 1 or hasattr(row, "iloc"):
        raise TypeError(f"{where} is {_a(type(row).__name__)}, not a pair; {PAIRS_HINT}.")
    texts = tuple(row)  # read once, by position
    if len(texts) != 2:
        raise TypeError(f"{where} holds {len(texts)} texts, not 2; {PAIRS_HINT}.")
    for place, text in enumerate(texts):
        if not isinstance(text, str):  # blank strings are texts too
            raise TypeError(not_a_document(text, f"{where}[{place}]", PAIR_TEXT_HINT))
    # str's own conversion: a plain str, whatever a subclass's __str__ says (numpy's str_ too).
    return str.__str__(texts[0]), str.__str__(texts[1])


def _frame_rows(frame: Any, feature_names: Sequence[str] | None, name: str) -> list[tuple]:
    """A DataFrame's pairs: by ``feature_names`` when given, else its two columns in order."""
    columns = list(frame.columns)
    if len(set(map(repr, columns))) != len(columns):
        raise ValueError(f"{name} has columns {columns}; a column name appears twice.")
    if feature_names is None:
        if len(columns) != 2:
            raise TypeError(f"{name} has {len(columns)} columns; {PAIRS_HINT}.")
        feature_names = columns
    missing = [column for column in feature_names if column not in columns]
    unexpected = [column for column in columns if column not in feature_names]
    if missing or unexpected:
        raise ValueError(
            f"{name} has columns {columns}; the model was fitted on columns "
            f"{list(feature_names)}, which it reads by name (missing: {missing}, "
            f"unexpected: {unexpected})."
        )
    first, second = (frame[column].tolist() for column in feature_names)
    return list(zip(first, second))
