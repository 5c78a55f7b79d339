"""The main job: attention models and linear baselines on one corpus, same folds.

One module per job:

- :mod:`skattn.compare._registry`: which models exist (name → factory and
  kind), and seeding them;
- :mod:`skattn.compare._io`: reading CSV/JSON Lines/text files and the named
  corpora;
- :mod:`skattn.compare._evaluation`: :func:`compare`, the fold loop (fit and
  predict timing, per-document correctness, one record per model), and the
  handling of classes too small for stratified folds;
- :mod:`skattn.compare._multilabel`: :func:`compare_multilabel`, the same
  loop for multi-label corpora, scored by macro- and micro-F1 with bootstrap
  intervals and paired bootstrap tests;
- :mod:`skattn.compare._regression`: :func:`compare_regression`, the loop
  for numeric labels (the attention regressors against ridge and linear
  TF-IDF baselines), scored by R², MAE and Pearson's r;
- :mod:`skattn.compare._stats`: bootstrap intervals and the paired tests of
  each attention model against the best baseline (corrected resampled
  t-test over folds, McNemar's exact test on one split);
- :mod:`skattn.compare._report`: the Markdown and JSON tables (as in Table 2
  of the HAN paper: accuracy mean ± std or interval, fit time, prediction
  speed, margin and p-value against the best baseline), the bar chart with
  error bars, the attention pages and the faithfulness tables.

Every public name is importable from ``skattn.compare``.
"""

from skattn.compare._evaluation import (
    FoldRun,
    check_cv,
    compare,
    drop_rare_classes,
    fold_runs,
    min_class_size,
    rare_classes,
)
from skattn.compare._io import Corpus, load_dataset, read_documents, read_table
from skattn.compare._multilabel import compare_multilabel, f1_scores, format_multilabel_table
from skattn.compare._registry import (
    ATTENTION_MODEL,
    BASELINE_KINDS,
    OTHER_BASELINE,
    TABLE_2_BASELINE,
    TUNED_BASELINE,
    ModelEntry,
    available_models,
    model_kind,
    one_vs_rest,
    quick_baseline,
    set_random_state,
)
from skattn.compare._regression import (
    compare_regression,
    format_regression_table,
    regression_models,
    regression_scores,
    tfidf_ridge,
)
from skattn.compare._report import (
    FAITHFULNESS_METHODS,
    MODEL_KINDS,
    faithfulness_section,
    format_json,
    format_table,
    plot_results,
    save_attention_page,
)
from skattn.compare._stats import (
    add_statistics,
    best_baseline,
    bootstrap_interval,
    corrected_resampled_ttest,
    mcnemar_test,
    paired_test,
)

__all__ = [
    "FoldRun",
    "fold_runs",
    "ATTENTION_MODEL",
    "BASELINE_KINDS",
    "FAITHFULNESS_METHODS",
    "MODEL_KINDS",
    "OTHER_BASELINE",
    "TABLE_2_BASELINE",
    "TUNED_BASELINE",
    "Corpus",
    "ModelEntry",
    "add_statistics",
    "available_models",
    "best_baseline",
    "bootstrap_interval",
    "check_cv",
    "compare",
    "compare_multilabel",
    "compare_regression",
    "corrected_resampled_ttest",
    "drop_rare_classes",
    "f1_scores",
    "faithfulness_section",
    "format_json",
    "format_multilabel_table",
    "format_regression_table",
    "format_table",
    "load_dataset",
    "mcnemar_test",
    "min_class_size",
    "model_kind",
    "one_vs_rest",
    "paired_test",
    "plot_results",
    "quick_baseline",
    "rare_classes",
    "read_documents",
    "read_table",
    "regression_models",
    "regression_scores",
    "save_attention_page",
    "set_random_state",
    "tfidf_ridge",
]
