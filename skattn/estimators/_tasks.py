"""What an estimator learns from its targets: single labels, multi-label rows or numbers.

A :class:`Task` is one part an estimator is built from (the other two are
its network, :mod:`skattn.estimators._architectures`, and its input,
:mod:`skattn.estimators._inputs`). It owns everything that depends on the
kind of target: checking and encoding ``y``, the size of the network's
head, class weights, thresholds tuned after training, the decision rule
``predict`` applies (:mod:`skattn.decisions`), the fitted attributes, and
what an explanation explains. A classifier picks :class:`SingleLabelTask`
or :class:`MultiLabelTask` from its ``y`` at ``fit``; a regressor uses
:class:`RegressionTask`. The fitted task is the estimator's ``task_``.
"""

from __future__ import annotations

import abc
import warnings
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
import torch
from scipy.special import expit, softmax
from sklearn.utils.class_weight import compute_class_weight

from skattn.decisions import DecisionRule
from skattn.training._thresholds import f1_thresholds, resolve_threshold
from skattn.utils._validation import (
    as_label_array,
    check_indicator_matrix,
    check_known_labels,
    check_label_names,
    check_labels,
    check_same_label_names,
    check_same_length,
    check_targets,
    is_indicator_matrix,
    label_names_of,
)

__all__ = ["MultiLabelTask", "RegressionTask", "SingleLabelTask", "Task", "classification_task"]


class Task(abc.ABC):
    """One kind of target: how ``fit`` learns it, what ``predict`` answers, what is explained.

    A task is made unfitted (with the estimator's settings), learns from
    ``y`` in :meth:`encode` (and, for thresholds, :meth:`tune` after
    training), and is then the estimator's fitted ``task_``.

    Examples
    --------
    >>> task = RegressionTask()
    >>> task.encode(np.array([1.0, 3.0]), warm=None).ravel().tolist()
    [-1.0, 1.0]
    >>> task.decision_rule().decide(np.array([[0.5]])).tolist()
    [2.5]
    """

    #: The network's task (:func:`skattn.training.build_net`).
    net_task: ClassVar[str]
    #: The keys of :meth:`state`, which a model file stores.
    state_names: ClassVar[tuple[str, ...]]

    @abc.abstractmethod
    def encode(self, y: Any, warm: Task | None) -> np.ndarray:
        """Learn from checked targets ``y``; return them as the network learns them.

        ``warm``: the fitted task of a warm start, whose classes or scale stay.
        """

    @abc.abstractmethod
    def n_outputs(self) -> int:
        """Size of the network's output layer."""

    def class_weights(self, y_encoded: np.ndarray) -> list[float] | None:
        """The loss weight of each output (None: unweighted)."""
        return None

    def needs_validation(self) -> bool:
        """Whether :meth:`tune` needs the trained network's outputs on held-out documents."""
        return False

    def base_epochs(self, model_base: int) -> tuple[int, str]:
        """The base epochs of ``max_epochs="auto"`` for this task, and why.

        ``model_base``: the model's own base epochs.
        """
        return model_base, "the model's base"

    def tune(self, logits: np.ndarray | None = None, y_encoded: np.ndarray | None = None) -> None:
        """Learn what the trained network decides (thresholds), after training.

        ``logits`` and ``y_encoded``: the network's outputs and the targets
        of held-out documents, given when :meth:`needs_validation`. A task
        with nothing to learn after training keeps this default.
        """
        return None

    @abc.abstractmethod
    def decision_rule(self) -> DecisionRule:
        """The rule ``predict`` applies to :meth:`scores` (or, regression, to the outputs)."""

    @abc.abstractmethod
    def scores(self, logits: np.ndarray) -> np.ndarray:
        """Per document, the values explanations are about: probabilities or targets."""

    @abc.abstractmethod
    def encode_fitted(self, y: Any, n_samples: int) -> np.ndarray:
        """``y`` after ``fit`` (for ``score`` and ``to_dataset``), as the network learns it."""

    @abc.abstractmethod
    def explained_columns(self, scores: np.ndarray) -> np.ndarray:
        """Per document, the column of :meth:`scores` an explanation is about by default."""

    @abc.abstractmethod
    def objective(self, logits: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
        """Per document, the differentiable value gradient explanations attribute."""

    @abc.abstractmethod
    def shown_prediction(self, scores: np.ndarray) -> dict[str, Any]:
        """The ``prediction`` (and ``proba``) an explanation record shows for one document."""

    @abc.abstractmethod
    def label_column(self, label: Any) -> int:
        """The column of :meth:`scores` that ``explain(label=...)`` names."""

    @abc.abstractmethod
    def column_label(self, column: int) -> Any:
        """The label of column ``column`` (a class, a label index or an output index)."""

    def shown_truth(self, y: Any, n_samples: int) -> list:
        """Each document's true value as an explanation shows it."""
        y = as_label_array(y)
        check_same_length(n_samples, y)
        return list(y)

    @abc.abstractmethod
    def attributes(self) -> dict[str, Any]:
        """The estimator's public fitted attributes this task describes, by name."""

    @abc.abstractmethod
    def state(self) -> dict[str, Any]:
        """What a model file stores of the fitted task, JSON-ready (besides ``classes``)."""

    @classmethod
    @abc.abstractmethod
    def from_state(cls, classes: np.ndarray | None, state: dict[str, Any], **settings) -> Task:
        """The fitted task a model file describes."""


def _probabilities(logits: np.ndarray, multilabel: bool) -> np.ndarray:
    logits = logits.astype(np.float64)
    return expit(logits) if multilabel else softmax(logits, axis=1)


class _ClassificationTask(Task):
    """What single- and multi-label targets share: classes, thresholds, probabilities."""

    def __init__(self, threshold: Any = "auto", class_weight: Any = None):
        self.threshold = threshold
        self.class_weight = class_weight
        self.classes: np.ndarray | None = None
        self.thresholds: np.ndarray | None = None
        self._rule: str | float | None = None

    def n_outputs(self) -> int:
        return len(self.classes)

    def needs_validation(self) -> bool:
        return self._rule == "f1"

    def _settle_threshold(self) -> None:
        """Check ``threshold`` against the targets (before any training) and keep its rule."""
        self._rule = resolve_threshold(
            self.threshold, multilabel=self.net_task == "multilabel", n_classes=len(self.classes)
        )

    def tune(self, logits: np.ndarray | None = None, y_encoded: np.ndarray | None = None) -> None:
        """``thresholds``: tuned for F1 on held-out documents, fixed, or None (argmax)."""
        if self._rule == "argmax":
            self.thresholds = None
            return
        n_columns = len(self.classes) if self.net_task == "multilabel" else 1
        if self._rule != "f1":
            self.thresholds = np.full(n_columns, float(self._rule))
            return
        proba, truth = self._tuning_columns(self.scores(logits), np.asarray(y_encoded))
        self.thresholds = f1_thresholds(truth, proba)

    @abc.abstractmethod
    def _tuning_columns(self, proba: np.ndarray, truth: np.ndarray) -> tuple:
        """The probabilities and 0/1 truths a threshold is tuned on, one column each."""

    def objective(self, logits: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
        rows = torch.arange(len(columns), device=logits.device)
        if self.net_task == "multilabel":
            return torch.nn.functional.logsigmoid(logits.float()[rows, columns])
        return torch.log_softmax(logits.float(), dim=1)[rows, columns]

    def column_label(self, column: int) -> Any:
        return self.classes[column].item()

    def label_column(self, label: Any) -> int:
        check_known_labels(np.asarray([label]), self.classes, context="label")
        return int(np.searchsorted(self.classes, label))

    def attributes(self) -> dict[str, Any]:
        thresholds = None if self.thresholds is None else np.asarray(self.thresholds, np.float64)
        return {"classes_": np.asarray(self.classes), "thresholds_": thresholds}


class SingleLabelTask(_ClassificationTask):
    """One label per document: softmax and cross-entropy; argmax or a binary threshold.

    Parameters
    ----------
    threshold : "auto", "f1" or float, default="auto"
        The estimator's ``threshold`` ("auto": the most probable class).
    class_weight : "balanced", dict or None, default=None
        The estimator's ``class_weight``.

    Examples
    --------
    >>> task = SingleLabelTask()
    >>> task.encode(np.array(["pos", "neg", "pos"]), warm=None).tolist()
    [1, 0, 1]
    >>> task.decision_rule().decide(np.array([[0.3, 0.7]])).tolist()
    ['pos']
    """

    net_task = "classification"
    state_names = ("multilabel", "thresholds", "target_dtype", "sparse_target")

    @staticmethod
    def check(y: Any, n_samples: int) -> np.ndarray:
        """``y`` as a 1-D array of labels, or a clear error."""
        return check_labels(y, n_samples)

    def encode(self, y: np.ndarray, warm: Task | None) -> np.ndarray:
        if warm is None:
            self.classes, y_encoded = np.unique(y, return_inverse=True)
        else:
            if not isinstance(warm, SingleLabelTask):
                raise ValueError(
                    f"warm_start: y is 1-D; the model was fitted on a multi-label indicator "
                    f"matrix of {len(warm.classes)} labels."
                )
            check_known_labels(y, warm.classes, context="warm_start: y")
            self.classes, y_encoded = warm.classes, np.searchsorted(warm.classes, y)
        self._settle_threshold()
        return y_encoded

    def class_weights(self, y_encoded: np.ndarray) -> list[float] | None:
        class_weight = self.class_weight
        if class_weight is None:
            return None
        if class_weight == "balanced":
            present = np.unique(y_encoded)
            weights = np.ones(len(self.classes))
            weights[present] = compute_class_weight("balanced", classes=present, y=y_encoded)
            return weights.tolist()
        return _named_weights(class_weight, self.classes, "labels")

    def _tuning_columns(self, proba: np.ndarray, truth: np.ndarray) -> tuple:
        # Binary: the positive class is classes[1].
        return proba[:, 1:], (truth == 1)[:, None]

    def decision_rule(self) -> DecisionRule:
        if self.thresholds is None:
            return DecisionRule.argmax(self.classes)
        return DecisionRule.threshold(self.classes, float(self.thresholds[0]))

    def scores(self, logits: np.ndarray) -> np.ndarray:
        return _probabilities(logits, multilabel=False)

    def encode_fitted(self, y: Any, n_samples: int) -> np.ndarray:
        y = as_label_array(y)
        check_same_length(n_samples, y)
        check_known_labels(y, self.classes)
        return np.searchsorted(self.classes, y)

    def explained_columns(self, scores: np.ndarray) -> np.ndarray:
        return np.argmax(scores, axis=1)  # the predicted class

    def shown_prediction(self, scores: np.ndarray) -> dict[str, Any]:
        return {"prediction": self.decision_rule().decide(scores[None, :])[0], "proba": scores}

    def state(self) -> dict[str, Any]:
        thresholds = None if self.thresholds is None else np.asarray(self.thresholds).tolist()
        return {"multilabel": False, "thresholds": thresholds}

    @classmethod
    def from_state(cls, classes, state, **settings) -> SingleLabelTask:
        task = cls(**settings)
        task.classes = np.asarray(classes)
        thresholds = state.get("thresholds")
        task.thresholds = None if thresholds is None else np.asarray(thresholds, np.float64)
        return task


class MultiLabelTask(_ClassificationTask):
    """A 0/1 indicator row per document: one sigmoid per label, a threshold per label.

    Parameters
    ----------
    threshold : "auto", "f1" or float, default="auto"
        The estimator's ``threshold`` ("auto": each label's F1 threshold,
        tuned on held-out documents).
    class_weight : "balanced", dict or None, default=None
        The estimator's ``class_weight``: weights of each label's positives.

    Examples
    --------
    >>> task = MultiLabelTask(threshold=0.5)
    >>> task.encode(np.array([[1, 0], [0, 1], [1, 1]]), warm=None).shape
    (3, 2)
    >>> task.tune()
    >>> task.decision_rule().decide(np.array([[0.7, 0.2]])).tolist()
    [[1, 0]]
    """

    net_task = "multilabel"
    state_names = (*SingleLabelTask.state_names, "label_names")
    #: The labels' names: a DataFrame ``y``'s string columns (None: unnamed). A class
    #: default for tasks pickled before it (their "label_names" only named warnings).
    names: list[str] | None = None
    #: Base epochs of a multi-label fit: each label's sigmoid sees its few positives
    #: once an epoch, and the single-label bases leave rare labels unlearned
    #: (chosen on GoEmotions' dev split; see *Results*).
    BASE_EPOCHS = 8

    def __init__(self, threshold: Any = "auto", class_weight: Any = None):
        super().__init__(threshold, class_weight)
        self.output_dtype: str | None = None
        self.sparse = False
        self.names: list[str] | None = None

    def base_epochs(self, model_base: int) -> tuple[int, str]:
        if model_base >= self.BASE_EPOCHS:
            return model_base, "the model's base"
        return self.BASE_EPOCHS, f"a multi-label fit's base ({model_base} for one label)"

    @staticmethod
    def check(y: Any, n_samples: int):
        """``y`` as a 0/1 indicator matrix (CSR if it came sparse), or a clear error."""
        dense = check_indicator_matrix(y, n_samples)
        return sp.csr_matrix(dense) if sp.issparse(y) else dense

    def encode(self, y: Any, warm: Task | None) -> np.ndarray:
        dense = y.toarray() if sp.issparse(y) else y
        n_labels = dense.shape[1]
        if warm is not None and (
            not isinstance(warm, MultiLabelTask) or n_labels != len(warm.classes)
        ):
            fitted = f"{len(warm.classes)} labels" if isinstance(warm, MultiLabelTask) else "1-D"
            raise ValueError(
                f"warm_start: y is an indicator matrix of {n_labels} labels; the model was "
                f"fitted with {fitted} labels."
            )
        self.names = _warm_names(self.names, warm)
        _check_labels_vary(dense, self.names)
        self.classes = np.arange(n_labels)
        self.output_dtype, self.sparse = dense.dtype.str, bool(sp.issparse(y))
        self._settle_threshold()
        return dense.astype(np.float32)

    def class_weights(self, y_encoded: np.ndarray) -> list[float] | None:
        """Each label's weight on its positive examples; "balanced": n_negative / n_positive."""
        class_weight = self.class_weight
        if class_weight is None:
            return None
        if class_weight == "balanced":
            positives = y_encoded.sum(axis=0).astype(np.float64)
            negatives = len(y_encoded) - positives
            ratio = np.divide(
                negatives, positives, out=np.ones_like(positives), where=positives > 0
            )
            return np.where(negatives > 0, ratio, 1.0).tolist()
        return _named_weights(class_weight, self.classes, "label indices")

    def _tuning_columns(self, proba: np.ndarray, truth: np.ndarray) -> tuple:
        return proba, truth

    def decision_rule(self) -> DecisionRule:
        return DecisionRule.multilabel(
            len(self.classes), self.thresholds, self.output_dtype, self.names
        )

    def scores(self, logits: np.ndarray) -> np.ndarray:
        return _probabilities(logits, multilabel=True)

    def checked(self, y: Any, n_samples: int) -> np.ndarray:
        """A multi-label ``y`` after ``fit``: an indicator matrix of the fitted labels.

        A DataFrame whose columns name labels must name the fitted ones, in
        their order: read by position, another order would pair each
        document with other labels.
        """
        check_label_names(y, self.names)
        if not is_indicator_matrix(y):
            raise ValueError(
                f"y has shape {np.shape(y)}; the model was fitted on a multi-label indicator "
                f"matrix of {len(self.classes)} labels."
            )
        dense = check_indicator_matrix(y, n_samples)
        if dense.shape[1] != len(self.classes):
            raise ValueError(
                f"y has {dense.shape[1]} labels; the model was fitted with {len(self.classes)}."
            )
        return dense

    def encode_fitted(self, y: Any, n_samples: int) -> np.ndarray:
        return self.checked(y, n_samples).astype(np.float32)

    def explained_columns(self, scores: np.ndarray) -> np.ndarray:
        # The most probable of the predicted labels (of all labels when none
        # is predicted), so a page never explains a label it does not show
        # as predicted while another one is.
        predicted = self.decision_rule().decide(scores).astype(bool)
        chosen = np.where(predicted.any(axis=1, keepdims=True), predicted, True)
        return np.argmax(np.where(chosen, scores, -np.inf), axis=1)

    def shown_prediction(self, scores: np.ndarray) -> dict[str, Any]:
        chosen = self.decision_rule().decide(scores[None, :])[0].astype(bool)
        return {
            "prediction": self.classes[chosen].tolist(),
            "label_proba": scores[chosen].tolist(),
            "proba": scores,
        }

    def shown_truth(self, y: Any, n_samples: int) -> list:
        indicator = self.checked(y, n_samples).astype(bool)
        return [self.classes[row].tolist() for row in indicator]

    def label_column(self, label: Any) -> int:
        if self.names is not None and isinstance(label, str):
            if label not in self.names:
                raise ValueError(
                    f"label {label!r} is not one of the model's labels {self.names[:10]}."
                )
            return self.names.index(label)
        return super().label_column(label)

    def attributes(self) -> dict[str, Any]:
        attributes = super().attributes()
        if self.names is not None:
            attributes["label_names_"] = np.array(self.names, dtype=object)
        return attributes

    def state(self) -> dict[str, Any]:
        thresholds = None if self.thresholds is None else np.asarray(self.thresholds).tolist()
        return {
            "multilabel": True,
            "thresholds": thresholds,
            "target_dtype": self.output_dtype,
            "sparse_target": self.sparse,
            "label_names": self.names,
        }

    @classmethod
    def from_state(cls, classes, state, **settings) -> MultiLabelTask:
        task = cls(**settings)
        task.classes = np.asarray(classes)
        thresholds = state.get("thresholds")
        task.thresholds = None if thresholds is None else np.asarray(thresholds, np.float64)
        task.output_dtype = state.get("target_dtype")
        task.sparse = bool(state.get("sparse_target", False))
        names = state.get("label_names")
        if names is not None and not isinstance(names, list):
            raise ValueError(f"label_names is {names!r}; expected a list of names.")
        task.names = names  # checked with the decision rule it makes
        return task


def classification_task(y: Any, n_samples: int, threshold: Any = "auto", class_weight: Any = None):
    """The task a classifier's ``y`` asks for, and ``y`` checked for it.

    An indicator matrix (2-D, 0/1) is multi-label; anything else is one
    label per document.

    Examples
    --------
    >>> task, y = classification_task(["a", "b"], 2)
    >>> type(task).__name__, y.tolist()
    ('SingleLabelTask', ['a', 'b'])
    >>> type(classification_task([[0, 1], [1, 0]], 2)[0]).__name__
    'MultiLabelTask'
    """
    if y is None or not is_indicator_matrix(y):
        return SingleLabelTask(threshold, class_weight), SingleLabelTask.check(y, n_samples)
    task = MultiLabelTask(threshold, class_weight)
    task.names = label_names_of(y)
    return task, MultiLabelTask.check(y, n_samples)


def _warm_names(names: list[str] | None, warm: Task | None) -> list[str] | None:
    """The label names of a warm start: the fitted ones, which new names must equal."""
    fitted = getattr(warm, "names", None)
    check_same_label_names(names, fitted, "warm_start: ")
    return names if fitted is None else fitted


class RegressionTask(Task):
    """Numbers per document: standardised for training (mean squared error), undone by predict.

    Each output is learned minus its mean over the fit data, divided by its
    standard deviation (a constant output is only centred), so the scale of
    ``y`` does not change the learning rate that works.

    Examples
    --------
    >>> task = RegressionTask()
    >>> task.encode(np.array([[1.0, 10.0], [3.0, 10.0]]), warm=None).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    >>> task.attributes()["target_scale_"].tolist()
    [1.0, 1.0]
    """

    net_task = "regression"
    state_names = ("target_mean", "target_scale", "target_ndim")

    def __init__(self):
        self.target_mean: np.ndarray | None = None
        self.target_scale: np.ndarray | None = None
        self.target_ndim: int | None = None

    @staticmethod
    def check(y: Any, n_samples: int) -> np.ndarray:
        """``y`` as a float array of one or more outputs, or a clear error."""
        return check_targets(y, n_samples)

    def encode(self, y: np.ndarray, warm: Task | None) -> np.ndarray:
        columns = y.reshape(len(y), -1)
        if warm is not None:
            if columns.shape[1] != warm.n_outputs():
                raise ValueError(
                    f"warm_start: y has {columns.shape[1]} outputs; the model was fitted with "
                    f"{warm.n_outputs()}."
                )
            self.target_mean, self.target_scale = warm.target_mean, warm.target_scale
        else:
            scale = columns.std(axis=0)
            self.target_mean, self.target_scale = (
                columns.mean(axis=0),
                np.where(scale > 0, scale, 1.0),
            )
        self.target_ndim = y.ndim
        return self._standardise(columns)

    def _standardise(self, columns: np.ndarray) -> np.ndarray:
        return ((columns - self.target_mean) / self.target_scale).astype(np.float32)

    def n_outputs(self) -> int:
        return len(self.target_mean)

    def decision_rule(self) -> DecisionRule:
        return DecisionRule.regression(self.target_mean, self.target_scale, self.target_ndim)

    def scores(self, logits: np.ndarray) -> np.ndarray:
        # The explained values: predict's, always one column per output.
        return self.decision_rule().decide(logits).reshape(len(logits), -1)

    def encode_fitted(self, y: Any, n_samples: int) -> np.ndarray:
        columns = check_targets(y, n_samples).reshape(n_samples, -1)
        if columns.shape[1] != self.n_outputs():
            raise ValueError(f"y has {columns.shape[1]} outputs; the model has {self.n_outputs()}.")
        return self._standardise(columns)

    def explained_columns(self, scores: np.ndarray) -> np.ndarray:
        return np.zeros(len(scores), dtype=np.int64)  # the first output

    def objective(self, logits: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
        scale = torch.as_tensor(self.target_scale, dtype=torch.float32, device=logits.device)
        values = logits.float() * scale
        return values[torch.arange(len(columns), device=values.device), columns]

    def shown_prediction(self, scores: np.ndarray) -> dict[str, Any]:
        return {"prediction": float(scores[0]) if self.target_ndim == 1 else scores}

    def label_column(self, label: Any) -> int:
        if not isinstance(label, Integral) or not 0 <= label < self.n_outputs():
            raise ValueError(
                f"label={label!r}: a regressor's label is an output index, 0 to "
                f"{self.n_outputs() - 1}."
            )
        return int(label)

    def column_label(self, column: int) -> Any:
        return column

    def attributes(self) -> dict[str, Any]:
        return {
            "target_mean_": np.asarray(self.target_mean, dtype=np.float64),
            "target_scale_": np.asarray(self.target_scale, dtype=np.float64),
            "n_outputs_": self.n_outputs(),
        }

    def state(self) -> dict[str, Any]:
        return {
            "target_mean": np.asarray(self.target_mean).tolist(),
            "target_scale": np.asarray(self.target_scale).tolist(),
            "target_ndim": int(self.target_ndim),
        }

    @classmethod
    def from_state(cls, classes, state, **settings) -> RegressionTask:
        task = cls()
        task.target_mean = np.asarray(state["target_mean"], dtype=np.float64)
        task.target_scale = np.asarray(state["target_scale"], dtype=np.float64)
        task.target_ndim = int(state["target_ndim"])
        return task


def _named_weights(class_weight: dict, classes: np.ndarray, what: str) -> list[float]:
    """The weight of each class from a ``{class: weight}`` dict (others weigh 1)."""
    known = set(classes.tolist())
    unknown = [label for label in class_weight if label not in known]
    if unknown:
        raise ValueError(
            f"class_weight names {what} that are not in y: {unknown[:5]}; "
            f"the classes are {classes.tolist()}."
        )
    return [float(class_weight.get(label, 1.0)) for label in classes.tolist()]


def _check_labels_vary(dense: np.ndarray, names: list[str] | None = None) -> None:
    """Refuse an indicator matrix whose every label is constant; warn about constant ones.

    The warning names the labels by ``names`` (a DataFrame's columns) when given.
    """
    counts = dense.sum(axis=0)
    constant = np.flatnonzero((counts == 0) | (counts == len(dense)))
    if len(constant) == dense.shape[1]:
        raise ValueError(
            f"y is a multi-label indicator matrix whose {dense.shape[1]} labels are each the "
            "same in every document; there is nothing to learn (a 2-D y of 0/1 is read "
            "as one column per label)."
        )
    if len(constant):
        shown = [names[i] for i in constant[:10]] if names else constant[:10].tolist()
        warnings.warn(
            f"labels {shown} are 0 in every document or 1 in every "
            "document of y; the model learns to always give them that value (their "
            "thresholds stay 0.5).",
            UserWarning,
            stacklevel=5,
        )
