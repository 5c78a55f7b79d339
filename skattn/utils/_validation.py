"""Input checks shared by every estimator: clear errors before any training."""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from skattn.utils._documents import DOCUMENTS_HINT as _HINT
from skattn.utils._documents import not_a_document


def check_text_input(X: Any, *, name: str = "X") -> list[str]:
    """Validate a collection of documents and return it as a list of str.

    Parameters
    ----------
    X : list, tuple, 1-D numpy array or pandas Series of str
        The documents.
    name : str, default="X"
        How the error messages name the input.

    Returns
    -------
    list of str

    Raises
    ------
    TypeError
        ``X`` is not a 1-D collection, or an element is not a ``str``
        (bytes, numbers, None/NaN, lists).
    ValueError
        ``X`` holds no document at all. (Blank strings are documents.)

    Examples
    --------
    >>> check_text_input(("good", "bad"))
    ['good', 'bad']
    """
    documents = _as_document_list(X, name)
    if len(documents) == 0:
        raise ValueError(f"{name} is empty; at least one document is needed.")
    for i, doc in enumerate(documents):
        if not isinstance(doc, str):  # blank strings are documents too
            raise TypeError(not_a_document(doc, f"{name}[{i}]"))
    return documents


def _as_document_list(X: Any, name: str) -> list:
    """A 1-D collection (list, tuple, array, Series, 1-column DataFrame) as a list, or an error."""
    if isinstance(X, (str, bytes)):
        raise TypeError(
            f"{name} is a single {type(X).__name__}; {_HINT}. Wrap one document in a list: [text]."
        )
    if sp.issparse(X):
        raise TypeError(f"{name} is a sparse matrix; {_HINT}. skattn estimators read raw text.")
    if hasattr(X, "iloc") and getattr(X, "ndim", 1) == 2:
        if X.shape[1] != 1:
            raise TypeError(
                f"{name} is a DataFrame with {X.shape[1]} columns; {_HINT}. "
                "Select the text column, e.g. df['text'], or use a ColumnTransformer."
            )
        X = X.iloc[:, 0]
    if hasattr(X, "to_numpy"):  # pandas Series
        X = X.to_numpy(dtype=object)
    if isinstance(X, np.ndarray):
        if X.ndim != 1:
            raise TypeError(f"{name} has shape {X.shape}; {_HINT}.")
        return X.tolist()
    if not isinstance(X, Sequence):
        raise TypeError(f"{name} is a {type(X).__name__}; {_HINT}.")
    return list(X)


def check_same_length(n_documents: int, y, what: str = "labels") -> None:
    """Raise if ``y`` does not hold one label (or target: ``what``) per document.

    ``y`` may be a sparse indicator matrix (its rows are counted).

    Examples
    --------
    >>> check_same_length(2, ["pos", "neg"])
    >>> check_same_length(2, [0.5], what="targets")
    Traceback (most recent call last):
    ...
    ValueError: X has 2 documents but y has 1 targets; they must match.
    """
    n_labels = y.shape[0] if sp.issparse(y) else len(y)
    if n_labels != n_documents:
        raise ValueError(
            f"X has {n_documents} documents but y has {n_labels} {what}; they must match."
        )


def as_label_array(y: Any) -> np.ndarray:
    """Labels as a NumPy array (a pandas Series through ``to_numpy``).

    Examples
    --------
    >>> as_label_array(("pos", "neg")).tolist()
    ['pos', 'neg']
    """
    return np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)


def check_known_labels(y: np.ndarray, classes: np.ndarray, *, context: str = "y") -> None:
    """Raise if ``y`` holds labels that are not among the fitted ``classes``.

    Parameters
    ----------
    y : ndarray
        Labels.
    classes : ndarray
        The classes seen in ``fit`` (``classes_``).
    context : str, default="y"
        How the message names the labels' origin.

    Examples
    --------
    >>> check_known_labels(np.array(["pos"]), np.array(["neg", "pos"]))
    >>> check_known_labels(np.array(["meh"]), np.array(["neg", "pos"]))
    Traceback (most recent call last):
    ...
    ValueError: y holds labels never seen in fit: ['meh']; the classes are ['neg', 'pos'].
    """
    unseen = np.setdiff1d(np.unique(y), classes)
    if len(unseen):
        raise ValueError(
            f"{context} holds labels never seen in fit: {unseen[:5].tolist()}; "
            f"the classes are {classes.tolist()}."
        )


def text_input_tags(tags):
    """Mark an estimator as one that takes raw documents, like scikit-learn's vectorizers.

    Parameters
    ----------
    tags : sklearn.utils.Tags

    Returns
    -------
    sklearn.utils.Tags

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> text_input_tags(CountVectorizer().__sklearn_tags__()).input_tags.string
    True
    """
    tags.input_tags.string = True
    tags.input_tags.two_d_array = False
    return tags


#: The kinds of missing value an object array can hold, by type name (pandas' without pandas).
_MISSING_TYPES = {"NoneType": "None", "NAType": "pandas.NA", "NaTType": "NaT"}

#: Labels whose != is plain (a NaN alone differs from itself): an array of them is compared at once.
_PLAIN_LABELS = (str, int, float, np.floating, np.integer, np.bool_)


def first_missing(values: np.ndarray) -> tuple[int, str] | None:
    """The first missing value's flat position and kind (None, NaN, pandas' NA or NaT), if any.

    Examples
    --------
    >>> first_missing(np.array(["pos", None, "neg"], dtype=object))
    (1, 'None')
    >>> first_missing(np.array([1.0, 2.0])) is None
    True
    >>> first_missing(np.array(["pos", 1.0, float("nan")], dtype=object))
    (2, 'NaN')
    >>> first_missing(np.array([Decimal("1.5"), Decimal("NaN")], dtype=object))
    (1, 'NaN')
    """
    flat = values.ravel()
    if flat.dtype.kind == "f":
        nan = np.flatnonzero(np.isnan(flat))
        return (int(nan[0]), "NaN") if len(nan) else None
    if flat.dtype.kind != "O":
        return None
    objects = flat.tolist()
    # The types present, at C speed: labels of str or int alone are not walked one by one.
    types = set(map(type, objects))
    if not any(
        t.__name__ in _MISSING_TYPES or issubclass(t, (float, np.floating, Decimal)) for t in types
    ):
        return None
    if all(issubclass(t, _PLAIN_LABELS) for t in types):
        # Among these only a float can be missing, and NaN alone differs from itself.
        nan = np.flatnonzero(flat != flat)
        return (int(nan[0]), "NaN") if len(nan) else None
    for position, value in enumerate(objects):
        kind = _MISSING_TYPES.get(type(value).__name__)
        if kind is None and isinstance(value, (float, np.floating)) and math.isnan(value):
            kind = "NaN"
        if kind is None and isinstance(value, Decimal) and value.is_nan():
            kind = "NaN"
        if kind is not None:
            return position, kind
    return None


def check_labels(y: Any, n_samples: int) -> np.ndarray:
    """Validate classification labels against the number of documents.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels of any hashable type.
    n_samples : int
        Number of documents they label.

    Returns
    -------
    ndarray of shape (n_samples,)

    Raises
    ------
    ValueError
        Wrong length, missing labels, not 1-D, continuous targets, or fewer
        than two classes.

    Examples
    --------
    >>> check_labels(["pos", "neg"], 2).tolist()
    ['pos', 'neg']
    """
    if y is None:
        raise ValueError("y is None; a classifier needs one label per document.")
    given = y
    y = as_label_array(y)
    if y.ndim != 1:
        raise ValueError(f"y has shape {y.shape}; expected one label per document (1-D).")
    check_same_length(n_samples, y)
    # numpy writes a NaN among strings as the text "nan": a list's own values are read.
    listed = isinstance(given, (list, tuple))
    missing = first_missing(np.fromiter(given, dtype=object, count=len(y)) if listed else y)
    if missing is not None:
        position, kind = missing
        raise ValueError(f"y holds {kind} (y[{position}]); every document needs a label.")
    check_classification_targets(y)
    if y.dtype.kind == "f":
        # Whole-number floats are classes to scikit-learn too; say so, since
        # they are often a regression target (ratings, scores).
        warnings.warn(
            f"y holds floats; its {len(np.unique(y))} distinct values are used as class "
            "labels. For a numeric target, use a regressor; to silence this, pass int or "
            "str labels.",
            UserWarning,
            stacklevel=3,
        )
    if type_of_target(y) not in ("binary", "multiclass"):
        raise ValueError(f"y is {type_of_target(y)}; expected binary or multiclass labels.")
    if len(np.unique(y)) < 2:
        raise ValueError(
            f"y has a single class ({y[0]!r}); a classifier needs at least two classes."
        )
    return y


def is_indicator_matrix(y: Any) -> bool:
    """Whether ``y`` is meant as a multi-label indicator matrix (sparse, or 2-D with columns).

    A 2-D ``y`` of one column is not: scikit-learn reads it as a column of
    labels. What ``y`` holds is checked by :func:`check_indicator_matrix`.

    Examples
    --------
    >>> is_indicator_matrix([[1, 0], [0, 1]]), is_indicator_matrix([1, 0])
    (True, False)
    """
    if y is None:
        return False
    if sp.issparse(y):
        return True
    _refuse_lists_of_labels(y)
    shape = np.shape(y.to_numpy() if hasattr(y, "to_numpy") else y)
    return len(shape) == 2 and shape[1] > 1


def _refuse_lists_of_labels(y: Any) -> None:
    """Refuse label collections that are not a matrix (``[["bug", "login"], ["billing"]]``).

    numpy fails on lists of unequal lengths with a message about shapes,
    and reads sets as single objects; a multi-label ``y`` is an indicator
    matrix, which MultiLabelBinarizer makes from exactly such lists. A list
    of lists of equal length is left to :func:`check_indicator_matrix`: it
    may be one. A 1-D array or Series of lists never is, whatever their
    lengths (scikit-learn calls it a "legacy multi-label" format, and
    refuses tuples as labels for the same reason).
    """
    if isinstance(y, (list, tuple)):
        items, one_dimensional = y, False
    elif getattr(getattr(y, "dtype", None), "kind", None) == "O" and np.ndim(y) == 1:
        items = y.to_numpy() if hasattr(y, "to_numpy") else y  # a view: no copy
        one_dimensional = True
    else:
        return
    types = set(map(type, items))  # at C speed: labels are not walked one by one
    if not any(issubclass(t, _COLLECTIONS) for t in types):
        return
    first = next((i for i, item in enumerate(items) if _is_collection(item)), None)
    if first is None:  # numpy's 0-d arrays: single labels
        return
    rows = all(issubclass(t, (list, tuple, np.ndarray)) for t in types)
    if rows and not one_dimensional and len(set(map(_length, items))) == 1:
        return  # rows of equal length: perhaps an indicator matrix
    raise ValueError(
        f"y holds collections of labels (y[{first}] is {items[first]!r}); a multi-label y is "
        "a 0/1 indicator matrix, one column per label: "
        "sklearn.preprocessing.MultiLabelBinarizer().fit_transform(y) makes one; pass it "
        "as a pandas DataFrame with columns=binarizer.classes_ and the model answers "
        "those names."
    )


_COLLECTIONS = (list, tuple, set, frozenset, np.ndarray)


def _is_collection(item: Any) -> bool:
    """A list, tuple, set or array of labels (a 0-d array is one label)."""
    if isinstance(item, np.ndarray):
        return item.ndim > 0
    return isinstance(item, (list, tuple, set, frozenset))


def _length(item: Any) -> int:
    return len(item) if _is_collection(item) else -1


def label_names_of(y: Any) -> list[str] | None:
    """A DataFrame ``y``'s column names, when every one is a string (scikit-learn's rule).

    They name a multi-label model's labels wherever it answers lists of
    labels. Names that repeat or are empty would answer ambiguously, so they
    are refused.

    Examples
    --------
    >>> import pandas as pd
    >>> label_names_of(pd.DataFrame([[1, 0]], columns=["joy", "anger"]))
    ['joy', 'anger']
    >>> label_names_of(pd.DataFrame([[1, 0]])) is None
    True
    >>> label_names_of(pd.DataFrame([[1, 0]], columns=["joy", "joy"]))
    Traceback (most recent call last):
    ...
    ValueError: y's columns name its labels, so they must be distinct and non-empty; repeated...
    """
    columns = list(y.columns) if hasattr(y, "columns") else []
    if not columns or not all(isinstance(c, str) for c in columns):
        return None
    repeated = sorted(c for c, n in Counter(columns).items() if n > 1)
    if repeated or "" in columns:
        raise ValueError(
            f"y's columns name its labels, so they must be distinct and non-empty; "
            f"{'repeated: ' + str(repeated[:10]) if repeated else 'one is empty'}."
        )
    return columns


def check_label_names(y: Any, fitted: Sequence[str] | None) -> None:
    """Refuse a DataFrame ``y`` whose columns name other labels than ``fitted``, or another order.

    Read by position, the same names in another order would pair each
    document with other labels (a score or a page's true labels).

    Examples
    --------
    >>> import pandas as pd
    >>> check_label_names(pd.DataFrame([[1, 0]], columns=["joy", "anger"]), ["joy", "anger"])
    >>> check_label_names(pd.DataFrame([[1, 0]], columns=["anger", "joy"]), ["joy", "anger"])
    Traceback (most recent call last):
    ...
    ValueError: y's columns ['anger', 'joy'] are not the labels the model was fitted with, ...
    """
    check_same_label_names(label_names_of(y), fitted)


def check_same_label_names(
    names: Sequence[str] | None, fitted: Sequence[str] | None, context: str = ""
) -> None:
    """Refuse ``names`` (of a new ``y``) that differ from the ``fitted`` ones; None is no name.

    Examples
    --------
    >>> check_same_label_names(["joy"], None)
    >>> check_same_label_names(["joy"], ["anger"], "warm_start: ")
    Traceback (most recent call last):
    ...
    ValueError: warm_start: y's columns ['joy'] are not the labels the model was fitted with, ...
    """
    if names is not None and fitted is not None and list(names) != list(fitted):
        raise ValueError(
            f"{context}y's columns {list(names)[:10]} are not the labels the model was fitted "
            f"with, {list(fitted)[:10]}, in that order (y[model.label_names_] reorders them)."
        )


def check_indicator_matrix(y: Any, n_samples: int) -> np.ndarray:
    """Validate a multi-label target: an (n_samples, n_labels) matrix of 0/1 (dense or sparse).

    Parameters
    ----------
    y : array-like or sparse matrix of shape (n_samples, n_labels)
        ``y[i, j]`` is 1 when document i has label j (what
        :class:`sklearn.preprocessing.MultiLabelBinarizer` makes).
    n_samples : int
        Number of documents it labels.

    Returns
    -------
    ndarray of shape (n_samples, n_labels), the dtype of ``y``

    Raises
    ------
    ValueError
        A wrong length, missing values, or values other than 0 and 1 (a
        multi-output multiclass ``y``, which no skattn classifier learns).

    Examples
    --------
    >>> check_indicator_matrix([[1, 0, 1], [0, 1, 0]], 2).shape
    (2, 3)
    >>> check_indicator_matrix([[1, 2], [0, 1]], 2)
    Traceback (most recent call last):
    ...
    ValueError: y is a 2-D array of values other than 0 and 1 ([0, 1, 2]); ...
    """
    raw = y.toarray() if sp.issparse(y) else as_label_array(y)
    if raw.dtype.kind == "O":
        missing = first_missing(raw)
        if missing is not None:
            row, column = np.unravel_index(missing[0], raw.shape)
            raise ValueError(
                f"y holds {missing[1]} (row {row}, column {column}); a multi-label y holds "
                "0 or 1 in every cell."
            )
        try:
            raw = raw.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                "y is a 2-D array of labels; a multi-label y is a 0/1 indicator matrix "
                "(sklearn.preprocessing.MultiLabelBinarizer turns lists of labels into one)."
            ) from None
    if raw.ndim != 2:
        raise ValueError(f"y has shape {raw.shape}; a multi-label y is (n_documents, n_labels).")
    check_same_length(n_samples, raw)
    if raw.dtype.kind == "f" and np.isnan(raw).any():
        raise ValueError("y holds NaN; a multi-label y holds 0 or 1 in every cell.")
    values = np.unique(raw)
    if raw.dtype.kind not in "biuf" or not np.isin(values, (0, 1)).all():
        shown = values[:5].tolist() if raw.dtype.kind in "biuf" else raw.dtype
        raise ValueError(
            f"y is a 2-D array of values other than 0 and 1 ({shown}); skattn classifiers "
            "take a 1-D y of labels or a multi-label 0/1 indicator matrix "
            "(sklearn.preprocessing.MultiLabelBinarizer makes one)."
        )
    return raw


def check_targets(y: Any, n_samples: int) -> np.ndarray:
    """Validate regression targets against the number of documents.

    Parameters
    ----------
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Numbers: one per document, or one row of outputs per document.
    n_samples : int
        Number of documents they belong to.

    Returns
    -------
    ndarray of float64, the shape of ``y``

    Raises
    ------
    ValueError
        Missing, non-numeric or non-finite values, a wrong length, or more
        than two dimensions.

    Examples
    --------
    >>> check_targets([0.5, 2], 2).tolist()
    [0.5, 2.0]
    >>> check_targets([0.5, float("nan")], 2)
    Traceback (most recent call last):
    ...
    ValueError: y holds NaN or infinite values; every document needs a finite target.
    """
    if y is None:
        raise ValueError("y is None; a regressor needs one target per document.")
    if sp.issparse(y):
        y = y.toarray()
    raw = np.asarray(y)
    if raw.dtype.kind not in "biuf":
        missing = first_missing(raw)
        if missing is not None and missing[1] != "NaN":  # NaN is refused below, with inf
            where = np.unravel_index(missing[0], raw.shape)
            raise ValueError(
                f"y holds {missing[1]} (y[{', '.join(map(str, where))}]); every document "
                "needs a target."
            )
        try:
            raw = raw.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"y holds {raw.dtype} values; a regressor needs numbers "
                "(for labels, use a classifier)."
            ) from None
    if raw.ndim not in (1, 2) or (raw.ndim == 2 and raw.shape[1] == 0):
        raise ValueError(
            f"y has shape {raw.shape}; expected (n_documents,) or (n_documents, n_outputs)."
        )
    check_same_length(n_samples, raw, what="targets")
    targets = raw.astype(np.float64)
    if not np.isfinite(targets).all():
        raise ValueError("y holds NaN or infinite values; every document needs a finite target.")
    return targets


def check_sample_weight(sample_weight: Any, n_samples: int) -> np.ndarray:
    """Validate sample weights: finite, non-negative, one per document, some positive.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,) or None
        Weights; None means all ones.
    n_samples : int
        Number of documents.

    Returns
    -------
    ndarray of float32, shape (n_samples,)

    Examples
    --------
    >>> check_sample_weight(None, 2).tolist()
    [1.0, 1.0]
    """
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float32)
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.shape != (n_samples,):
        raise ValueError(
            f"sample_weight has shape {weights.shape}; expected ({n_samples},), one per document."
        )
    if not np.isfinite(weights).all() or (weights < 0).any() or weights.sum() <= 0:
        raise ValueError("sample_weight must be finite, non-negative and not all zero.")
    return weights.astype(np.float32)


def seed_from(random_state) -> int:
    """An int seed: ``random_state`` itself when an int, else drawn from it.

    Parameters
    ----------
    random_state : int, RandomState or None

    Returns
    -------
    int

    Examples
    --------
    >>> seed_from(7)
    7
    >>> import numpy as np
    >>> seed_from(np.random.RandomState(0)) == seed_from(np.random.RandomState(0))
    True
    """
    if isinstance(random_state, Integral):
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
