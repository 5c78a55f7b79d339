"""Text the package was not tuned on: blank documents mixed in, and a Chinese task.

1. sentence_polarity with 5% blank documents mixed in (empty strings,
   spaces, line breaks, random labels), as in 20 Newsgroups with headers,
   footers and quotes removed: stratified 80/20 split, seed 0.
2. A synthetic Chinese task: three random clauses of common characters,
   the class is whether 好 or 坏 hides inside one clause (2,000 training and
   1,000 test documents from different seeds, so test clauses are unseen).

Each next to TF-IDF logistic regression on the same split (scikit-learn's
default tokenisation, and character unigrams for Chinese). Prints
``name: value`` lines.

Usage: SKATTN_DATA=../shared/data python benchmarks/bench_real_text.py
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.baselines import tfidf_logreg
from skattn.datasets import fetch_sentence_polarity

from _common import report
from _training import split

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_real_text import chinese_task, with_blank_documents  # noqa: E402


def main() -> None:
    if "--chinese-only" not in sys.argv:
        blank_documents()
    chinese()


def blank_documents() -> None:
    X, y = fetch_sentence_polarity(return_X_y=True)
    X, y = with_blank_documents(X, y, share=0.05)
    X_train, X_test, y_train, y_test = split(X, y)
    blank = np.array([not doc.strip() for doc in X_test])
    report("blank_train_documents", sum(not d.strip() for d in X_train))
    report("blank_test_documents", int(blank.sum()))
    models = {
        "self_attentive": SelfAttentiveClassifier(random_state=0),
        "han": HierarchicalAttentionClassifier(random_state=0),
        "tfidf_logreg": tfidf_logreg(),
    }
    for name, model in models.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            predicted = model.fit(X_train, y_train).predict(X_test)
        correct = predicted == np.asarray(y_test)
        report(f"blanks_{name}_accuracy", float(correct.mean()))
        report(f"blanks_{name}_accuracy_on_text", float(correct[~blank].mean()))
        report(f"blanks_{name}_accuracy_on_blank", float(correct[blank].mean()))


def chinese() -> None:
    X_train, y_train = chinese_task(2000, seed=0)
    X_test, y_test = chinese_task(1000, seed=1)
    models = {
        "self_attentive": SelfAttentiveClassifier(random_state=0),
        "han": HierarchicalAttentionClassifier(random_state=0),
        # scikit-learn's default tokens: each clause is one "word".
        "tfidf_logreg_default_tokens": make_pipeline(
            TfidfVectorizer(), LogisticRegression(C=10.0, max_iter=2000)
        ),
        "tfidf_logreg_characters": make_pipeline(
            TfidfVectorizer(analyzer="char"), LogisticRegression(C=10.0, max_iter=2000)
        ),
    }
    for name, model in models.items():
        report(f"chinese_{name}_accuracy", model.fit(X_train, y_train).score(X_test, y_test))


if __name__ == "__main__":
    main()
