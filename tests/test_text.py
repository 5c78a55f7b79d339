import dataclasses
import re
import sys
import unicodedata

import numpy as np
import pytest

from skattn.text import EMPTY_ID, PAD_ID, UNK_ID, TextEncoder, split_sentences
from skattn.text._marks import COMBINING_MARKS


def test_vocabulary_respects_min_count_and_max_vocab_with_distinct_reserved_ids():
    docs = ["b a a", "a b c", "c a d"]
    enc = TextEncoder(min_count=2).fit(docs)
    assert enc.vocabulary_ == {"a": 3, "b": 4, "c": 5}  # by count, then alphabetically
    assert enc.id_to_token_[:3] == ["<pad>", "<unk>", "<empty>"]
    assert len({PAD_ID, UNK_ID, EMPTY_ID}) == 3
    assert TextEncoder(max_vocab=1).fit(docs).vocabulary_ == {"a": 3}
    assert enc.encode(["d a zzz"]).token_ids.tolist() == [UNK_ID, 3, UNK_ID]


def test_corpus_is_flat_arrays_with_offsets():
    enc = TextEncoder(sentence_split="punctuation").fit(["x y. z", "y"])
    corpus = enc.encode(["x y. z", "y", "z z z"])
    assert corpus.token_ids.dtype == np.int32 and corpus.token_ids.ndim == 1
    assert corpus.sentence_offsets.tolist() == [0, 3, 4, 5, 8]
    assert corpus.document_offsets.tolist() == [0, 2, 3, 4]
    assert corpus.document_lengths.tolist() == [4, 1, 3]
    assert [s.tolist() for s in corpus.sentences(0)] == [
        corpus.token_ids[:3].tolist(),
        corpus.token_ids[3:4].tolist(),
    ]

    # A batch's spans, read from its own documents' offsets only.
    starts, lengths = corpus.document_spans(np.array([2, 0]))
    assert starts.tolist() == [5, 0] and lengths.tolist() == [3, 4]


def test_a_batch_reads_only_its_own_documents_offsets():
    from skattn.text import DocumentDataset

    corpus = TextEncoder(sentence_split="punctuation").fit_encode(
        ["a b. c", "d", "e f g. h. i", "j k"] * 50
    )
    for hierarchical in (False, True):
        dataset = DocumentDataset(corpus, np.zeros(200, dtype=np.int64), hierarchical=hierarchical)
        reference, _ = dataset.collate([7, 5, 190])
        # Offsets readable only at the batch's documents: a derivation over the
        # whole corpus (np.diff of every document) would raise.
        watched = _OnlyAt(corpus.document_offsets, allowed={5, 6, 7, 8, 190, 191})
        dataset.corpus = dataclasses.replace(corpus, document_offsets=watched)
        batch, _ = dataset.collate([7, 5, 190])
        for key in ("tokens", "lengths"):
            np.testing.assert_array_equal(batch[key].numpy(), reference[key].numpy())


class _OnlyAt:
    """An offsets array that refuses to be read outside ``allowed`` positions."""

    def __init__(self, array, allowed):
        self.array, self.allowed = array, allowed

    def __getitem__(self, indices):
        asked = set(np.atleast_1d(np.asarray(indices)).tolist())
        if not asked <= self.allowed:
            raise AssertionError(f"read offsets of documents {sorted(asked - self.allowed)}")
        return self.array[indices]

    def __len__(self):
        return len(self.array)


def test_sklearn_analyzer_options_are_honoured():
    assert TextEncoder(lowercase=False).build_analyzer()("Ab") == ["Ab"]
    assert TextEncoder(strip_accents="unicode").build_analyzer()("café") == ["cafe"]
    assert TextEncoder(token_pattern=r"\d+").build_analyzer()("a 12 b 3") == ["12", "3"]
    assert TextEncoder(tokenizer=str.split).build_analyzer()("a-b c") == ["a-b", "c"]
    assert TextEncoder(analyzer="char").build_analyzer()("日本語") == ["日", "本", "語"]


def test_truncation_rule_keeps_the_first_tokens_and_counts_documents():
    enc = TextEncoder(max_length=3).fit(["a b c d e", "a"])
    corpus = enc.encode(["a b c d e", "a b"])
    assert corpus.document_lengths.tolist() == [3, 2]
    assert [enc.id_to_token_[i] for i in corpus.document(0)] == ["a", "b", "c"]
    assert corpus.n_truncated == 1


def test_hierarchical_truncation_applies_sentence_then_length_limits():
    enc = TextEncoder(
        sentence_split="lines", max_sentences=2, max_sentence_length=2, max_length=3
    ).fit(["a b c\nd e\nf"])
    corpus = enc.encode(["a b c\nd e\nf"])
    tokens = [[enc.id_to_token_[i] for i in s] for s in corpus.sentences(0)]
    assert tokens == [["a", "b"], ["d"]]
    assert corpus.n_truncated == 1


def test_sentences_without_tokens_are_skipped_and_blank_documents_are_one_empty_token():
    enc = TextEncoder(sentence_split="lines").fit(["a\n\n\nb"])
    assert enc.encode(["a\n\n\nb"]).sentence_counts.tolist() == [2]
    digits = TextEncoder(token_pattern=r"\d+")
    corpus = digits.fit_encode(["12", "no digits", "", "12 34"])
    assert corpus.n_blank == 2 and digits.token_counts_[EMPTY_ID] == 2
    assert corpus.document(1).tolist() == corpus.document(2).tolist() == [EMPTY_ID]
    assert corpus.sentence_counts.tolist() == [1, 1, 1, 1]
    # Fit without blank documents: <empty> was never trained, blanks read as <unk>.
    plain = TextEncoder().fit(["a b"])
    assert plain.encode(["  "]).token_ids.tolist() == [UNK_ID]
    with pytest.raises(ValueError, match="every one is blank"):
        TextEncoder().fit(["", " \t"])


def test_fit_encode_equals_fit_then_encode():
    docs = ["the cat sat", "the dog", "a cat"]
    a = TextEncoder(min_count=2).fit_encode(docs)
    b = TextEncoder(min_count=2).fit(docs).encode(docs)
    assert a.token_ids.tolist() == b.token_ids.tolist()


def test_split_sentences_rule():
    assert split_sentences("One. Two? Three!\nFour") == ["One.", "Two?", "Three!", "Four"]
    assert split_sentences("3.5 stars") == ["3.5 stars"]


def test_encode_can_return_the_tokens_it_kept():
    enc = TextEncoder(max_length=2, sentence_split="punctuation").fit(["a b. c", "d"])
    corpus, tokens = enc.encode(["a b. c", "zz"], return_tokens=True)
    assert tokens == enc.tokenize(["a b. c", "zz"]) == [[["a", "b"]], [["zz"]]]
    assert [enc.id_to_token_[i] for i in corpus.document(1)] == ["<unk>"]


#: Words whose combining marks ``\w`` does not match: Hindi (vowel signs,
#: virama, nukta), vowel-pointed Arabic and Hebrew, Bengali, Tamil, Latin in
#: decomposed form (NFD), which macOS file names and some exports use, and
#: Persian's zero-width non-joiner.
MARKED_WORDS = [
    "हिन्दी फ़िल्म बहुत अच्छी है",
    "مُحَمَّد رائع جِدًّا",
    "שָׁלוֹם עוֹלָם",
    "সিনেমাটি ভালো",
    "படம் நன்றாக இருந்தது",
    unicodedata.normalize("NFD", "tiếng việt café naïve"),
    "می\u200cخواهم کتاب",  # Persian: a zero-width non-joiner inside the word
]


@pytest.mark.parametrize("text", MARKED_WORDS)
def test_the_default_pattern_keeps_words_with_combining_marks_whole(text):
    # No punctuation in these texts: the words are what white space separates.
    assert TextEncoder().build_analyzer()(text) == text.lower().split()


def test_combining_marks_table_is_unicodes_marks():
    marks = re.compile(f"[{COMBINING_MARKS}]")
    in_table = {c for c in range(sys.maxunicode + 1) if marks.match(chr(c))}
    in_database = {
        c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)).startswith("M")
    }
    # A code point's category does not change once assigned: a newer
    # database only adds marks, an older one (Python 3.10: 13.0) lacks some.
    version = tuple(int(part) for part in unicodedata.unidata_version.split("."))
    if version >= (14, 0, 0):
        assert in_table <= in_database
    if version <= (14, 0, 0):
        assert in_database <= in_table
