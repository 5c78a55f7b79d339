"""The public corpora: read from the data folder, or downloaded once with a checksum.

The names below are the package's public API; the code lives in its
private modules, imported on first use.
"""

from skattn._compat import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "fetch_sentence_polarity": "skattn.datasets._corpora",
    "fetch_movie_reviews": "skattn.datasets._corpora",
    "fetch_trec": "skattn.datasets._corpora",
    "fetch_nps_chat": "skattn.datasets._corpora",
    "fetch_product_reviews": "skattn.datasets._corpora",
    "fetch_sick": "skattn.datasets._corpora",
    "fetch_goemotions": "skattn.datasets._corpora",
    "SICK_JUDGMENTS": "skattn.datasets._corpora",
    "get_data_home": "skattn.datasets._corpora",
    "fetch_file": "skattn.datasets._corpora",
    "RemoteFile": "skattn.datasets._corpora",
    "decoded_lines": "skattn.datasets._corpora",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
