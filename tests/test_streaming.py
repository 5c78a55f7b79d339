"""Streams: files read a document at a time, predictions a chunk at a time, same answers."""

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from skorch.callbacks import Callback

from skattn import save
from skattn.__main__ import main
from skattn.compare import read_documents
from skattn.text import DocumentFile, iter_chunks, iter_documents, iter_predictions

from estimators import small_hierarchical, small_self_attentive


@pytest.fixture(scope="module")
def fitted(toy):
    X, y = toy
    return small_self_attentive().fit(X, y), small_hierarchical().fit(X, y)


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 1000])
def test_streamed_outputs_equal_the_whole_list_in_order(fitted, toy, chunk_size):
    X, _ = toy
    documents = X[:50]
    for model in fitted:
        # A generator: the stream is read once, lazily.
        streamed = list(model.predict_iter((d for d in documents), chunk_size=chunk_size))
        assert [len(c) for c in streamed][:-1] == [chunk_size] * (len(streamed) - 1)
        np.testing.assert_array_equal(np.concatenate(streamed), model.predict(documents))
        proba = np.concatenate(list(model.predict_proba_iter(documents, chunk_size)))
        np.testing.assert_allclose(proba, model.predict_proba(documents), rtol=1e-5, atol=1e-6)
        vectors = np.concatenate(list(model.transform_iter(documents, chunk_size)))
        np.testing.assert_allclose(vectors, model.transform(documents), rtol=1e-5, atol=1e-6)


def test_a_bad_document_is_named_by_its_place_in_the_stream(fitted, toy):
    X, _ = toy
    documents = [*X[:9], None, X[0]]
    with pytest.raises(
        TypeError, match=r"X\[9\] is None/NaN.*\(in the chunk of documents 8 to 10\)"
    ):
        list(fitted[0].predict_iter(documents, chunk_size=4))
    with pytest.raises(ValueError, match="chunk_size must be a positive int"):
        list(iter_chunks(X, 0))
    with pytest.raises(ValueError, match="method must be one of"):
        list(iter_predictions(fitted[0], X, "fit"))


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".txt", ".parquet"])
def test_files_are_read_a_document_at_a_time_as_read_documents_reads_them(suffix, toy, tmp_path):
    X, _ = toy
    texts = [x.replace("\n", " ") for x in X[:20]] + ["", "naïve café 東京"]
    path = tmp_path / f"docs{suffix}"
    if suffix == ".parquet":
        pyarrow = pytest.importorskip("pyarrow")
        import pyarrow.parquet as parquet

        parquet.write_table(pyarrow.table({"text": texts}), path, row_group_size=6)
    elif suffix == ".csv":
        import csv

        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["text"])
            writer.writerows([t] for t in texts)
    elif suffix == ".jsonl":
        path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    else:
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    stream = iter_documents(path)
    assert next(stream) == texts[0]  # lazily: one document, then the rest
    assert [texts[0], *stream] == texts
    if suffix != ".parquet":
        assert read_documents(path) == texts


def test_a_row_without_text_is_named(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"text": "a"}\n{"body": "b"}\n{"text": 3}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="line 2: has no column 'text'"):
        list(iter_documents(path))
    with pytest.raises(FileNotFoundError):
        list(iter_documents(tmp_path / "missing.jsonl"))


def test_predict_command_streams_a_file_to_json_lines(fitted, toy, tmp_path):
    X, _ = toy
    model = fitted[0]
    save(model, tmp_path / "m.skattn")
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"text": t}) + "\n" for t in X[:23]), encoding="utf-8")
    output = tmp_path / "out.jsonl"
    argv = ["predict", str(tmp_path / "m.skattn"), str(source), "--output", str(output)]
    assert main([*argv, "--chunk-size", "5"]) == 0
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [row["text"] for row in rows] == X[:23]
    assert [row["label"] for row in rows] == model.predict(X[:23]).tolist()
    proba = model.predict_proba(X[:23])
    np.testing.assert_allclose(
        [row[f"proba_{model.classes_[1]}"] for row in rows], proba[:, 1], atol=1e-6
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.jsonl", "m.skattn", "out.jsonl"]


def test_a_stream_that_fails_leaves_an_earlier_output_as_it_was(fitted, toy, tmp_path):
    X, _ = toy
    save(fitted[0], tmp_path / "m.skattn")
    source = tmp_path / "in.jsonl"
    lines = [json.dumps({"text": t}) for t in X[:12]] + ['{"body": "no text"}']
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    output = tmp_path / "out.csv"
    output.write_text("what the user had\n", encoding="utf-8")
    argv = ["predict", str(tmp_path / "m.skattn"), str(source), "--output", str(output)]
    # --force: the existing output may be replaced, but only by a finished stream.
    assert main([*argv, "--chunk-size", "5", "--force"]) == 1
    assert output.read_text(encoding="utf-8") == "what the user had\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.jsonl", "m.skattn", "out.csv"]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"sentence_split": "punctuation", "max_sentences": 3, "max_sentence_length": 7},
        {"min_count": 1, "max_vocab": 40, "subword_buckets": None},
        {"max_length": 12, "analyzer": "char"},
    ],
)
def test_streamed_encoding_equals_encoding_the_whole_list(params, polarity_small):
    from skattn import TextEncoder

    X, _ = polarity_small
    documents = [*X[:300], "", "   ", "naïve café 東京 🙂"]
    whole = TextEncoder(**params).fit_encode(documents)
    encoder = TextEncoder(**params)
    streamed = encoder.fit_encode_stream((d for d in documents), chunk_size=37)
    for name in ("token_ids", "sentence_offsets", "document_offsets"):
        np.testing.assert_array_equal(getattr(streamed, name), getattr(whole, name))
    for name in ("token_types", "subword_table"):
        if getattr(whole, name) is None:
            assert getattr(streamed, name) is None
        else:
            np.testing.assert_array_equal(getattr(streamed, name), getattr(whole, name))
    assert (streamed.n_truncated, streamed.truncated_by, streamed.n_blank) == (
        whole.n_truncated,
        whole.truncated_by,
        whole.n_blank,
    )
    assert encoder.id_to_token_ == TextEncoder(**params).fit(documents).id_to_token_


def test_a_streamed_encoding_names_a_bad_document_by_its_place():
    from skattn import TextEncoder

    with pytest.raises(TypeError, match=r"X\[5\] is bytes"):
        TextEncoder().fit_encode_stream(iter(["a", "b", "c", "d", "e", b"f"]), chunk_size=2)
    with pytest.raises(ValueError, match="X is empty"):
        TextEncoder().fit_encode_stream(iter([]))


def test_a_streamed_encoding_can_live_on_disk(polarity_small, tmp_path):
    from skattn import TextEncoder

    X, y = polarity_small
    whole = TextEncoder(subword_buckets=1000).fit_encode(X[:200])
    on_disk = TextEncoder(subword_buckets=1000).fit_encode_stream(
        iter(X[:200]), chunk_size=64, memmap_dir=tmp_path
    )
    assert isinstance(on_disk.token_ids, np.memmap) and not on_disk.token_ids.flags.writeable
    assert (tmp_path / "token_ids.npy").exists() and (tmp_path / "token_types.npy").exists()
    np.testing.assert_array_equal(on_disk.token_ids, whole.token_ids)
    np.testing.assert_array_equal(on_disk.token_types, whole.token_types)
    # The offsets grow with the corpus too: on disk, read-only, equal.
    for name in ("sentence_offsets", "document_offsets"):
        mapped = getattr(on_disk, name)
        assert isinstance(mapped, np.memmap) and not mapped.flags.writeable
        assert (tmp_path / f"{name}.npy").exists()
        np.testing.assert_array_equal(mapped, getattr(whole, name))
    # A network trains on it as on the in-memory corpus.
    from skattn.text import DocumentDataset

    batch, _ = DocumentDataset(on_disk, np.zeros(200, dtype=np.int64)).collate(np.arange(5))
    reference, _ = DocumentDataset(whole, np.zeros(200, dtype=np.int64)).collate(np.arange(5))
    np.testing.assert_array_equal(batch["tokens"].numpy(), reference["tokens"].numpy())


# -- fitting from a stream ------------------------------------------------------


def _write_table(path, columns):
    """A CSV, JSON Lines or Parquet file of these columns."""
    rows = [dict(zip(columns, values)) for values in zip(*columns.values())]
    if path.suffix == ".parquet":
        pyarrow = pytest.importorskip("pyarrow")
        import pyarrow.parquet as parquet

        parquet.write_table(pyarrow.table(columns), path, row_group_size=97)
    elif path.suffix == ".csv":
        import csv

        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(columns))
            writer.writeheader()
            writer.writerows(rows)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return DocumentFile(path)


def _assert_same_model(a, b):
    assert a.encoder_.id_to_token_ == b.encoder_.id_to_token_
    np.testing.assert_array_equal(a.encoder_.token_counts_, b.encoder_.token_counts_)
    weights_a, weights_b = a.net_.module_.state_dict(), b.net_.module_.state_dict()
    assert weights_a.keys() == weights_b.keys()
    for name in weights_a:
        # Same data in the same order with the same seed: the same arithmetic.
        assert torch.equal(weights_a[name], weights_b[name]), name
    assert a.choices_ == b.choices_


@pytest.fixture(scope="module")
def polarity_fit_data(polarity_small):
    X, y = polarity_small
    return X[:400], [str(label) for label in y[:400]]


@pytest.fixture(scope="module")
def list_model(polarity_fit_data):
    X, y = polarity_fit_data
    return small_self_attentive(max_epochs=1).fit(X, y)


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_a_file_source_and_a_list_give_identical_models(
    suffix, polarity_fit_data, list_model, tmp_path
):
    X, y = polarity_fit_data
    train = _write_table(tmp_path / f"train{suffix}", {"text": X, "label": y})
    assert train.column("label") == y
    from_file = small_self_attentive(max_epochs=1).fit(train, train.column("label"))
    _assert_same_model(from_file, list_model)
    np.testing.assert_array_equal(from_file.predict(X[:50]), list_model.predict(X[:50]))


def test_other_streams_and_other_orders_give_the_same_model(polarity_fit_data, list_model):
    X, y = polarity_fit_data
    _assert_same_model(small_self_attentive(max_epochs=1).fit(iter(X), y), list_model)
    pyarrow = pytest.importorskip("pyarrow")
    column = pyarrow.chunked_array([X[:150], X[150:]])
    _assert_same_model(small_self_attentive(max_epochs=1).fit(column, y), list_model)
    # The caller's order does not matter: the fit sorts by text digest.
    order = np.random.RandomState(1).permutation(len(X))
    shuffled = [X[i] for i in order], [y[i] for i in order]
    _assert_same_model(small_self_attentive(max_epochs=1).fit(*shuffled), list_model)
    streamed = small_self_attentive(max_epochs=1).fit(iter(shuffled[0]), shuffled[1])
    _assert_same_model(streamed, list_model)


@pytest.mark.parametrize("factory", [small_self_attentive, small_hierarchical])
def test_streamed_fits_match_lists_with_word2vec_memmaps_and_warm_starts(
    factory, polarity_fit_data, tmp_path
):
    pytest.importorskip("gensim")
    X, y = polarity_fit_data
    params = dict(max_epochs=1, embeddings="word2vec", validation_fraction=0.2)
    listed = factory(**params).fit(X, y)
    seen = OnDisk()
    streamed = factory(**params, memmap_dir=tmp_path, callbacks=[seen])
    streamed.fit((x for x in X), y)
    _assert_same_model(streamed, listed)
    # Training read the ids from a file in a folder of memmap_dir, gone after the fit.
    assert seen.mapped and seen.folders[0].startswith("skattn-ids-")
    assert list(tmp_path.iterdir()) == []
    # A second fit of a warm start continues from the first, list or stream alike.
    listed.set_params(warm_start=True).fit(X, y)
    streamed.set_params(warm_start=True).fit(iter(X), y)
    _assert_same_model(streamed, listed)


class OnDisk(Callback):
    """Whether the training documents' ids are memory-mapped, and the folders beside them."""

    def on_train_begin(self, net, X=None, **kwargs):
        ids = X.corpus.token_ids
        self.mapped = isinstance(ids, np.memmap) or isinstance(ids.base, np.memmap)
        self.folders = [Path(ids.filename).parent.name] if self.mapped else []


def test_a_stream_with_sparse_multilabel_targets_and_its_pickle(polarity_fit_data):
    X, _ = polarity_fit_data
    Y = sp.csr_matrix(np.array([[len(x) % 2, len(x) % 3 == 0] for x in X], dtype=np.int64))
    model = small_self_attentive(max_epochs=1).fit(iter(X), Y)
    assert sp.issparse(model.predict(X[:5])) and model.predict(X[:5]).shape == (5, 2)
    with pytest.raises(ValueError, match="X has 399 documents but y has 400 labels"):
        small_self_attentive(max_epochs=1).fit(iter(X[:-1]), Y)
    # A fitted model keeps no reference to its fit data (its validation split
    # indexes the whole corpus): it pickles to the size of one that had none.
    corpus_bytes = 4 * sum(len(x.split()) for x in X)
    no_split = small_self_attentive(max_epochs=1, threshold=0.5).fit(X, Y)
    assert no_split.net_.history[-1].get("valid_loss") is None  # no validation split
    without_validation = len(pickle.dumps(no_split))
    assert abs(len(pickle.dumps(model)) - without_validation) < corpus_bytes


def test_a_stream_is_checked_before_training(polarity_fit_data, tmp_path):
    X, y = polarity_fit_data
    model = small_self_attentive(max_epochs=1)
    with pytest.raises(ValueError, match="X has 400 documents but y has 399 labels"):
        model.fit(iter(X), y[:399])
    assert not hasattr(model, "net_")
    with pytest.raises(TypeError, match=r"X\[7\] is None"):
        model.fit(iter([*X[:7], None, *X[8:]]), y)
    with pytest.raises(TypeError, match="y must be array-like"):
        model.fit(iter(X), (label for label in y))
    with pytest.raises(ValueError, match="y is empty"):
        model.fit(iter([]), [])
    lines = tmp_path / "plain.txt"
    lines.write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no column 'label'"):
        DocumentFile(lines).column("label")
    with pytest.raises(FileNotFoundError):
        DocumentFile(tmp_path / "missing.jsonl")


def test_pair_models_say_they_read_pairs_whole():
    from skattn import SelfAttentivePairClassifier

    pairs = iter([("a man sings", "a person sings")] * 4)
    with pytest.raises(TypeError, match="pair"):
        SelfAttentivePairClassifier(max_epochs=1).fit(pairs, [0, 1, 0, 1])
