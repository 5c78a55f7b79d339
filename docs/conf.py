"""Sphinx configuration of the skattn documentation.

Build (from the repository root)::

    pip install -e ".[docs]"
    SKATTN_DATA="$(cd ../shared/data && pwd)" sphinx-build -W -b html docs docs/_build/html

``SKATTN_EXAMPLES_QUICK=1`` makes every gallery example shrink (fewer
documents, one epoch), as CI builds it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import skattn  # noqa: E402

project = "skattn"
author = "the skattn developers"
copyright = "2026, the skattn developers"
version = release = skattn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

autosummary_generate = True
# Signatures show DEFAULT_TOKEN_PATTERN, not the regular expression itself.
autodoc_preserve_defaults = True
# scikit-learn's metadata-routing setters are generated on every estimator
# class; their docstrings point into scikit-learn's own glossary.
autodoc_default_options = {
    "members": True,
    # fit/predict/... live in the shared base class; the methods of the
    # libraries' own base classes (scikit-learn's get_params, PyTorch's
    # Module, skorch's NeuralNet, ...) are documented by those libraries.
    "inherited-members": ",".join(
        [
            "BaseEstimator",
            "ClassifierMixin",
            "RegressorMixin",
            "Module",
            "NeuralNet",
            "NeuralNetClassifier",
            "NeuralNetRegressor",
            "GridSearchCV",
            "BaseSearchCV",
            "Callback",
            "Dataset",
            "Sampler",
        ]
    ),
    "exclude-members": ",".join(
        ["get_metadata_routing", "set_output"]
        + [
            f"set_{method}_request"
            for method in (
                "fit",
                "score",
                "predict",
                "predict_proba",
                "transform",
                "partial_fit",
                "decision_function",
                "inverse_transform",
                "split",
            )
        ]
    ),
}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
templates_path = ["_templates"]
# Everything the build generates (the API pages, the gallery) is written under
# _build, beside the HTML, so that a build leaves the source tree as it was.
GENERATED = "_build"
exclude_patterns = [
    f"{GENERATED}/html",
    f"{GENERATED}/doctrees",
    f"{GENERATED}/gallery/*.ipynb",
    f"{GENERATED}/gallery/*.py",
    "**.zip",
]
# Docstrings name types in prose (e.g. "sequence of str", "ndarray of shape
# (n,)") that are not cross-reference targets; every other warning is an error.
nitpicky = False
suppress_warnings = ["config.cache"]
source_suffix = {".rst": "restructuredtext"}
myst_heading_anchors = 3

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
    "torch": ("https://pytorch.org/docs/stable", None),
    "skorch": ("https://skorch.readthedocs.io/en/stable", None),
}
# No network at build time here: intersphinx inventories are optional.
if os.environ.get("SKATTN_DOCS_OFFLINE", "1") == "1":
    intersphinx_mapping = {}

html_theme = "pydata_sphinx_theme"
html_title = f"skattn {release}"
html_static_path = ["_static"]
html_css_files = ["skattn.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": True,
    "footer_start": ["copyright"],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": [], "getting_started": [], "changelog": [], "results": []}


def figure_scraper(block, block_vars, gallery_conf):
    """Save the matplotlib ``Figure`` objects an example made since the last block.

    skattn draws on ``matplotlib.figure.Figure`` objects and never touches
    pyplot (so it never changes a user's backend); sphinx-gallery's own
    scraper only sees pyplot's figures, so this one looks for Figure objects
    in the example's namespace.
    """
    from matplotlib.figure import Figure
    from sphinx_gallery.scrapers import figure_rst

    seen = block_vars.setdefault("skattn_seen_figures", set())
    paths = []
    for value in list(block_vars["example_globals"].values()):
        if isinstance(value, Figure) and id(value) not in seen:
            seen.add(id(value))
            path = next(block_vars["image_path_iterator"])
            value.savefig(path, dpi=96, bbox_inches="tight")
            paths.append(path)
    return figure_rst(paths, gallery_conf["src_dir"])


sphinx_gallery_conf = {
    "image_scrapers": (figure_scraper,),
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": f"{GENERATED}/gallery",
    # The table of run times would be written beside conf.py.
    "write_computation_times": False,
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"glove_vectors\.py|_helpers\.py",
    "within_subsection_order": "FileNameSortKey",
    "capture_repr": ("_repr_html_", "__repr__"),
    "download_all_examples": False,
    "show_memory": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
}
