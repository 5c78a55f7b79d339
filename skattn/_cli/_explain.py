"""``explain``: JSON Lines on standard output for ``--text``, or an HTML page."""

from __future__ import annotations

import sys

from skattn._cli._models import load_model
from skattn._cli._output import check_output, check_suffix, document_file

#: The suffixes of the HTML page that --output names.
HTML_SUFFIXES = (".html", ".htm")


def explain(args) -> int:
    """Explain the documents of ``args`` (see the ``explain`` help)."""
    source = document_file(args)
    if args.output is None and source is not None:
        raise ValueError(
            "explaining a file writes an HTML page: give --output PAGE.html "
            "(--text prints its explanations instead)"
        )
    if args.output is not None:
        check_output(args.output, args.force, model=args.model, file=source)
        check_suffix(args.output, HTML_SUFFIXES, "explain")
    model, documents = load_model(args), _documents(args, source)
    explanations = model.explain(documents, method=args.method, faithfulness=args.faithfulness)
    if args.output is None:
        _print_json_lines(documents, explanations)
        return 0
    path = explanations.save_html(args.output)
    print(f"wrote explanations of {len(documents)} document(s) to {path}")
    return 0


def _print_json_lines(documents: list[str], explanations) -> None:
    """One JSON object per document on standard output; the faithfulness on standard error.

    Standard error keeps standard output one record per document.
    """
    from skattn.explain._explanations import faithfulness_summary
    from skattn.text._unicode import json_text

    for text, record in zip(documents, explanations):
        print(json_text(_plain(text, record)))
    if explanations.faithfulness is not None:
        print(faithfulness_summary(explanations.faithfulness), file=sys.stderr)


def _documents(args, source) -> list[str]:
    """The documents: --text, or the file ``source`` (see read_documents)."""
    if source is None:
        return args.text
    from skattn.compare._io import read_documents

    return read_documents(source, text_column=args.text_column)


def _whole(prediction):
    """A number as the float it is (a regressor's value); a label or labels as a page shows them."""
    import numpy as np

    from skattn.explain._explanations import shown_value

    if isinstance(prediction, (float, np.floating)):
        return float(prediction)
    if isinstance(prediction, np.ndarray) and prediction.dtype.kind == "f":
        return [float(value) for value in prediction]
    return shown_value(prediction)


def _plain(text: str, record: dict) -> dict:
    """One document's explanation as JSON: its prediction and each token's score."""
    from skattn.explain._explanations import token_scores_of

    if "sentences" in record:
        tokens = [token for sentence in record["sentences"] for token in sentence]
    else:
        tokens = list(record["tokens"])
        if "second" in record:
            tokens += list(record["second"]["tokens"])
    scores = token_scores_of(record)
    return {
        "text": text,
        "prediction": _whole(record["prediction"]),
        "method": record.get("method", "attention"),
        "tokens": [[token, float(score)] for token, score in zip(tokens, scores)],
    }
