"""The main job: attention models and linear baselines on one corpus, same folds.

One module per job:

- :mod:`skattn.compare.registry`: which models exist (name → factory and
  kind), and seeding them;
- :mod:`skattn.compare.io`: reading CSV/JSON Lines/text files and the named
  corpora;
- :mod:`skattn.compare.evaluation`: :func:`compare`, the fold loop (fit and
  predict timing, one record per model);
- :mod:`skattn.compare.report`: the Markdown and JSON tables (as in Table 2
  of the HAN paper: accuracy mean ± std, fit time, prediction speed), the
  bar chart and the attention pages.

Every public name is importable from ``skattn.compare``.
"""

from skattn.compare.evaluation import compare
from skattn.compare.io import Corpus, load_dataset, read_documents, read_table
from skattn.compare.registry import (
    ATTENTION_MODEL,
    TABLE_2_BASELINE,
    TUNED_BASELINE,
    ModelEntry,
    available_models,
    model_kind,
    set_random_state,
)
from skattn.compare.report import (
    MODEL_KINDS,
    format_json,
    format_table,
    plot_results,
    save_attention_page,
)

__all__ = [
    "ATTENTION_MODEL",
    "MODEL_KINDS",
    "TABLE_2_BASELINE",
    "TUNED_BASELINE",
    "Corpus",
    "ModelEntry",
    "available_models",
    "compare",
    "format_json",
    "format_table",
    "load_dataset",
    "model_kind",
    "plot_results",
    "read_documents",
    "read_table",
    "save_attention_page",
    "set_random_state",
]
