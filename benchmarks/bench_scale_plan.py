"""The papers' full scale, on paper: HAN's cost per document of Yelp's and Amazon's shape.

    SKATTN_DATA=../shared/data python benchmarks/bench_scale_plan.py [--documents 2000]

Builds documents shaped like the HAN paper's corpora out of
sentence_polarity snippets (each snippet one sentence of ~21 tokens):
"yelp" documents of 7 sentences (~150 tokens, the order of a Yelp review),
"amazon" documents of 4 sentences (~90 tokens). Trains
``HierarchicalAttentionClassifier.from_paper()`` (200-d embeddings, GRU 50,
batch 64) for 2 epochs on ``--documents`` of them with one thread and
reports the second (steady) epoch's docs/s and tokens/s, the peak RSS, and
what these give for one epoch over the papers' training splits (80% of
Yelp 2015's 1,569,264 reviews and of Amazon's 3,650,000, as Yang et al.
split them): hours on one CPU core, and the memory of the encoded training
corpus (int32 ids, as ``fit`` keeps them). One JSON line per corpus shape.
"""

from __future__ import annotations

import argparse
import json

#: Training documents of the papers' corpora (80% of each, Yang et al. 2016).
PAPER_TRAINING_DOCUMENTS = {"yelp": int(0.8 * 1_569_264), "amazon": int(0.8 * 3_650_000)}
#: Sentences per synthetic document, by corpus shape.
SENTENCES = {"yelp": 7, "amazon": 4}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=2000)
    args = parser.parse_args()

    import numpy as np

    from skattn import HierarchicalAttentionClassifier
    from skattn.datasets import fetch_sentence_polarity
    from skattn.text import ID_DTYPE

    from _common import peak_rss_mb

    ID_BYTES = np.dtype(ID_DTYPE).itemsize

    X, y = fetch_sentence_polarity(return_X_y=True)
    rng = np.random.default_rng(0)
    for shape, n_sentences in SENTENCES.items():
        # One label's snippets make one document: a learnable, review-like task.
        labels = rng.integers(0, 2, size=args.documents)
        pools = {label: np.flatnonzero(y == label) for label in np.unique(y)}
        names = sorted(pools)
        documents = [
            "\n".join(X[i] for i in rng.choice(pools[names[label]], n_sentences))
            for label in labels
        ]
        model = HierarchicalAttentionClassifier.from_paper(
            max_epochs=2, validation_fraction=None, sentence_split="lines", random_state=0
        )
        model.fit(documents, labels)
        seconds = model.net_.history[-1, "dur"]
        tokens = int(model.encoder_.encode(documents).document_lengths.sum())
        docs_per_s = len(documents) / seconds
        tokens_per_doc = tokens / len(documents)
        paper = PAPER_TRAINING_DOCUMENTS[shape]
        print(
            json.dumps(
                {
                    "shape": shape,
                    "sentences_per_doc": n_sentences,
                    "tokens_per_doc": round(tokens_per_doc, 1),
                    "epoch2_docs_per_s": round(docs_per_s, 1),
                    "epoch2_tokens_per_s": round(docs_per_s * tokens_per_doc),
                    "peak_rss_mib": round(peak_rss_mb()),
                    "paper_training_documents": paper,
                    "paper_epoch_hours_one_core": round(paper / docs_per_s / 3600, 1),
                    "paper_ids_gib": round(paper * tokens_per_doc * ID_BYTES / 2**30, 2),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
