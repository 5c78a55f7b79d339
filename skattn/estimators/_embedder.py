"""The self-attentive sentence embedding as a scikit-learn transformer."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from skattn.estimators._base import FittedState
from skattn.estimators._classifiers import SelfAttentiveClassifier
from skattn.utils._params import Options, validate_params
from skattn.utils._validation import text_input_tags


class SelfAttentiveEmbedder(TransformerMixin, BaseEstimator):
    """Sentence embeddings M (Lin et al. 2017) learned on a supervised task.

    ``fit(X, y)`` trains a :class:`SelfAttentiveClassifier` on the labels, as
    the paper does; ``transform(X)`` returns each document's embedding
    M = A H (r hops × 2u), flattened, or pooled over the hops.

    Parameters
    ----------
    classifier : SelfAttentiveClassifier or None, default=None
        The network and its training settings (cloned in ``fit``); None
        means ``SelfAttentiveClassifier()``. Its parameters are searchable
        as ``classifier__attention_hops`` and so on.
    output : {"flatten", "max", "mean"}, default="flatten"
        "flatten": (n, r·2u), hop after hop; "max" / "mean": (n, 2u), the
        element-wise max / mean over the r hops. The same choices as the
        classifier's ``pooling`` (which sets what its MLP reads); named
        ``output`` here because it only shapes ``transform``, and the
        classifier's own ``pooling`` stays free to differ.

    Attributes
    ----------
    classifier_ : SelfAttentiveClassifier
        The trained classifier.
    n_features_out_ : int
        Width of ``transform``'s output under the current ``output`` (it
        follows ``set_params(output=...)`` on a fitted embedder).

    Examples
    --------
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> clf = SelfAttentiveClassifier(hidden_size=4, attention_hops=2, max_epochs=1,
    ...                               random_state=0)
    >>> emb = SelfAttentiveEmbedder(clf).fit(X, y)
    >>> emb.transform(X[:3]).shape
    (3, 16)
    >>> emb.get_feature_names_out()[:3].tolist()
    ['hop0_dim0', 'hop0_dim1', 'hop0_dim2']
    """

    _parameter_constraints: dict = {
        "classifier": [SelfAttentiveClassifier, None],
        "output": [Options({"flatten", "max", "mean"})],
    }

    def __new__(cls, *args: Any, **params: Any):
        # Training parameters belong to the classifier; say so, not only "unexpected".
        unknown = sorted(set(params) - {"classifier", "output"})
        if unknown:
            shown = ", ".join(f"{name}=..." for name in unknown)
            raise TypeError(
                f"{cls.__name__}() got unexpected keyword argument(s) {unknown}; the training "
                f"parameters belong to its classifier: {cls.__name__}(classifier="
                f"SelfAttentiveClassifier({shown}))"
            )
        return super().__new__(cls)

    def __init__(self, classifier: SelfAttentiveClassifier | None = None, output: str = "flatten"):
        self.classifier = classifier
        self.output = output

    def fit(self, X: Sequence[str], y: Sequence[Any], sample_weight=None) -> SelfAttentiveEmbedder:
        """Train the self-attentive network on ``(X, y)``.

        Parameters
        ----------
        X : sequence of str
        y : array-like of shape (n_documents,) or (n_documents, n_labels)
            Labels, or a multi-label indicator matrix.
        sample_weight : array-like, optional

        Returns
        -------
        self
        """
        validate_params(self)
        return self._adopt(self._new_classifier().fit(X, y, sample_weight=sample_weight))

    def _new_classifier(self) -> SelfAttentiveClassifier:
        return clone(SelfAttentiveClassifier() if self.classifier is None else self.classifier)

    def get_fitted_state(self) -> FittedState:
        """What ``fit`` learned: the fitted state of ``classifier_``.

        Returns
        -------
        FittedState
        """
        check_is_fitted(self, "classifier_")
        return self.classifier_.get_fitted_state()

    def set_fitted_state(self, state: FittedState) -> SelfAttentiveEmbedder:
        """Become the fitted embedder that ``state`` describes.

        Parameters
        ----------
        state : FittedState
            From :meth:`get_fitted_state` of an embedder with the same parameters.

        Returns
        -------
        self
        """
        validate_params(self)
        return self._adopt(self._new_classifier().set_fitted_state(state))

    def _adopt(self, classifier: SelfAttentiveClassifier) -> SelfAttentiveEmbedder:
        """Set every fitted attribute from a fitted classifier (fit, set_fitted_state)."""
        self.classifier_ = classifier
        return self

    @property
    def feature_names_in_(self):
        """The column name of the DataFrame fitted on (only then; see the classifier's)."""
        check_is_fitted(self, "classifier_")
        return self.classifier_.feature_names_in_

    @property
    def n_features_out_(self) -> int:
        # Derived, not stored: ``output`` only shapes transform, so it may
        # change after fit.
        check_is_fitted(self, "classifier_")
        width = 2 * self.classifier_.hidden_size
        return self.classifier_.attention_hops * width if self.output == "flatten" else width

    def transform_3d(self, X: Sequence[str]) -> np.ndarray:
        """The embeddings unflattened: shape (n_documents, r, 2u).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of float32
        """
        check_is_fitted(self, "classifier_")
        return self.classifier_.document_outputs(X, ("embedding",))["embedding"]

    def transform(self, X: Sequence[str]) -> np.ndarray:
        """Embeddings as set by ``output``: (n, r·2u) or (n, 2u).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of float32
        """
        validate_params(self)
        embedding = self.transform_3d(X)
        if self.output == "max":
            return embedding.max(axis=1)
        if self.output == "mean":
            return embedding.mean(axis=1)
        return embedding.reshape(len(embedding), -1)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the output columns: ``hop{i}_dim{j}``, or ``{max,mean}_dim{j}``.

        Parameters
        ----------
        input_features : ignored

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "classifier_")
        if self.output == "flatten":
            return self.classifier_.get_feature_names_out()
        width = 2 * self.classifier_.hidden_size
        return np.asarray([f"{self.output}_dim{d}" for d in range(width)], dtype=object)

    def __sklearn_tags__(self):
        tags = text_input_tags(super().__sklearn_tags__())
        tags.target_tags.required = True
        return tags


# The class's signature is its __init__'s (inspect.signature would read __new__'s
# catch-all otherwise; scikit-learn builds estimators from that signature).
SelfAttentiveEmbedder.__new__.__signature__ = inspect.signature(SelfAttentiveEmbedder.__init__)
