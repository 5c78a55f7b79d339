"""Loaders for the public corpora the papers and our tests use.

Files are read from ``data_home``: the argument, else ``$SKATTN_DATA``, else
``~/skattn_data``, in nltk_data's zip layout. A missing file is downloaded
from its public source and checked against its SHA-256 when
``download_if_missing`` is True; otherwise the error names the path and how
to get the file.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request
import xml.etree.ElementTree as ElementTree
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from skattn.text._readers import read_documents, read_records

_NLTK_DATA = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/"


@dataclass(frozen=True)
class RemoteFile:
    """A corpus file: its name under ``data_home``, source URL and SHA-256.

    Attributes
    ----------
    filename : str
        The file's name in the data folder (see :func:`get_data_home`).
    url : str
        Where :func:`fetch_file` downloads it from when it is missing.
    sha256 : str
        The hex digest a download must have to be kept.

    Examples
    --------
    >>> from skattn.datasets._corpora import REMOTE_FILES
    >>> REMOTE_FILES["qc"].filename
    'qc.zip'
    >>> len(REMOTE_FILES["qc"].sha256)
    64
    """

    filename: str
    url: str
    sha256: str


REMOTE_FILES = {
    "sentence_polarity": RemoteFile(
        "sentence_polarity.zip",
        _NLTK_DATA + "sentence_polarity.zip",
        "6e1ed4405b65c7eabf1d199a7f7c437091ac21da0ea7467b410a74062574566b",
    ),
    "movie_reviews": RemoteFile(
        "movie_reviews.zip",
        _NLTK_DATA + "movie_reviews.zip",
        "a41211ae685019137410268134db6a1a14428c89b671eb83056151a878539008",
    ),
    "qc": RemoteFile(
        "qc.zip",
        _NLTK_DATA + "qc.zip",
        "091fb01e50883014d150acb7d5013d787136968b3f955ae01725a65e7e80f304",
    ),
    "nps_chat": RemoteFile(
        "nps_chat.zip",
        _NLTK_DATA + "nps_chat.zip",
        "a4433d5da5e62fdbede49efa572a53a0139fff1014ffbe86cb263e17cbb4a837",
    ),
    # SICK as released for SemEval-2014 task 1, from a mirror many
    # evaluation suites download (the task's own site no longer serves it).
    **{
        f"sick_{part}": RemoteFile(
            f"sick/SICK_{name}.txt",
            f"https://raw.githubusercontent.com/alvations/stasis/master/SICK-data/SICK_{name}.txt",
            digest,
        )
        for part, name, digest in (
            ("train", "train", "266cf8047149bd1d68138dd30439f3122bff30069740ac6705bb6197d9f1b48e"),
            ("trial", "trial", "5a88cfb62f8c6bd2a3cce0f2421ba2cb8c2be5ab4a800f6f01e2c64aafb7db56"),
            (
                "test",
                "test_annotated",
                "2b8aa806658d6fc23c6824c83776c2d4fee7556000817b5ec0f982861413b7d0",
            ),
        )
    },
    # GoEmotions as released in google-research/google-research (Apache-2.0).
    **{
        f"goemotions_{part}": RemoteFile(
            f"goemotions/{part}.{extension}",
            f"https://raw.githubusercontent.com/google-research/google-research/master/"
            f"goemotions/data/{part}.{extension}",
            digest,
        )
        for part, extension, digest in (
            ("train", "tsv", "1c254a142be5c00e80d819b9ae1bbd36d94b2eeb8f4b1271846508d57e57d9c5"),
            ("dev", "tsv", "575489c079c9de1097062a01738f998590d6b7ead66dd1c9fd1d2ba01fd8bc62"),
            ("test", "tsv", "0587b2dd8b27b97352adbfc3fb083d46005c8946657fdc2b1ca8b1cc7f1f8be4"),
            ("emotions", "txt", "c2751b598c0da6d866e50058223c79a3d469546e9dc9c134c271e747d3a90ca1"),
        )
    },
    "product_reviews_1": RemoteFile(
        "product_reviews_1.zip",
        _NLTK_DATA + "product_reviews_1.zip",
        "627bfb0bb7c87586246d99b4402c3d7e4fb77ac14559d8695c283bd6850615ac",
    ),
    "product_reviews_2": RemoteFile(
        "product_reviews_2.zip",
        _NLTK_DATA + "product_reviews_2.zip",
        "272b08fe130882e5867aa7ecc69a65616099183c4ccc10374a62c271801b0bc1",
    ),
}


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The folder corpora are read from (and downloaded to).

    Parameters
    ----------
    data_home : str or path-like, optional
        Overrides ``$SKATTN_DATA`` and the default ``~/skattn_data``.

    Returns
    -------
    Path

    Examples
    --------
    >>> get_data_home("/tmp/corpora")
    PosixPath('/tmp/corpora')
    """
    if data_home is None:
        data_home = os.environ.get("SKATTN_DATA", Path.home() / "skattn_data")
    return Path(data_home).expanduser()


def fetch_file(name: str, data_home=None, download_if_missing: bool = True) -> Path:
    """Path of a corpus file, downloading and verifying it if missing.

    Parameters
    ----------
    name : str
        The corpus file: a key of :data:`REMOTE_FILES` (``"sentence_polarity"``,
        ``"movie_reviews"``, ``"qc"``, ``"nps_chat"``, ``"product_reviews_1"``,
        ``"product_reviews_2"``, ``"sick_train"``, ``"sick_trial"``,
        ``"sick_test"``).
    data_home : str or path-like, optional
    download_if_missing : bool, default=True

    Returns
    -------
    Path

    Raises
    ------
    FileNotFoundError
        The file is missing and downloading is not allowed.
    OSError
        The download failed or its checksum did not match (nothing is
        left at the target path then).

    Examples
    --------
    >>> fetch_file("qc").name
    'qc.zip'
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as empty:
    ...     fetch_file("qc", data_home=empty, download_if_missing=False)
    Traceback (most recent call last):
    ...
    FileNotFoundError: ...qc.zip does not exist. Pass download_if_missing=True to download it ...
    """
    remote = REMOTE_FILES[name]
    path = get_data_home(data_home) / remote.filename
    if path.exists():
        return path
    if not download_if_missing:
        raise FileNotFoundError(
            f"{path} does not exist. Pass download_if_missing=True to download it from "
            f"{remote.url}, or place the file there (or set SKATTN_DATA / data_home to the "
            "folder holding it)."
        )
    _download(remote, path)
    return path


def _download(remote: RemoteFile, path: Path) -> None:
    """``remote`` saved at ``path`` once its SHA-256 is checked (nothing left there if not).

    Folders made for it are removed again if it fails (a mistyped
    ``SKATTN_DATA`` leaves no trace).
    """
    made = [folder for folder in (path.parent, *path.parent.parents) if not folder.exists()]
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        _download_checked(remote, path)
    except BaseException:
        for folder in made:  # the deepest first
            try:
                folder.rmdir()
            except OSError:  # something else wrote there meanwhile: it stays
                break
        raise


def _download_checked(remote: RemoteFile, path: Path) -> None:
    # Download next to the target and rename only once verified, so an
    # interrupted or corrupted download never looks like a good file.
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".part") as tmp:
        try:
            try:
                with urllib.request.urlopen(remote.url, timeout=60) as response:
                    shutil.copyfileobj(response, tmp)
            except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
                raise OSError(
                    f"could not download {remote.url} to {path} "
                    f"({getattr(error, 'reason', error)}); place the file there yourself, or "
                    f"set SKATTN_DATA (or data_home=) to a folder that holds {remote.filename}."
                ) from error
            tmp.close()
            digest = _sha256(Path(tmp.name))
            if digest != remote.sha256:
                raise OSError(
                    f"Checksum mismatch for {remote.url}: got {digest}, expected {remote.sha256}."
                )
            os.replace(tmp.name, path)
        finally:
            if os.path.exists(tmp.name):
                os.unlink(tmp.name)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _result(data, target, target_names, descr, return_X_y, **extra):
    target = np.asarray(target)
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, target_names=list(target_names), DESCR=descr, **extra)


def _check_choice(name: str, value, choices: tuple) -> None:
    """Raise a ValueError naming ``choices`` unless ``value`` is one of them."""
    if value not in choices:
        listed = ", ".join(repr(choice) for choice in choices[:-1]) + f" or {choices[-1]!r}"
        raise ValueError(f"{name} must be {listed}, got {value!r}.")


def decoded_lines(raw: bytes) -> list[str]:
    """The lines of a file of mixed encodings: each UTF-8 if it is valid UTF-8, else Latin-1.

    Lines are cut at ``\\n`` bytes only (a ``\\r`` before it is dropped), so
    that a byte which Latin-1 or Unicode read as a line break (``\\x85``,
    U+2028) stays inside its line.

    Examples
    --------
    >>> decoded_lines("clichés\\n".encode("utf-8") + "naïf\\r\\n".encode("latin-1"))
    ['clichés', 'naïf', '']
    """
    lines = []
    for line in raw.split(b"\n"):
        line = line.removesuffix(b"\r")
        try:
            lines.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(line.decode("latin-1"))
    return lines


def fetch_sentence_polarity(*, data_home=None, download_if_missing=True, return_X_y=False):
    """Sentence polarity dataset v1.0 (Pang & Lee 2005, "MR").

    10,662 movie-review snippets, 5,331 positive and 5,331 negative. Each
    line is read as UTF-8, or as Latin-1 where it is not valid UTF-8
    (:func:`decoded_lines`). Labels are ``"neg"`` and ``"pos"``.

    Documents come grouped by class, in a fixed order: the 5,331 negative
    snippets first, then the 5,331 positive ones. Shuffle before splitting
    or subsampling, for example with
    ``sklearn.model_selection.train_test_split(X, y, stratify=y,
    random_state=0)``; a slice such as ``X[:8000]`` is not a random sample.

    Parameters
    ----------
    data_home : str or path-like, optional
    download_if_missing : bool, default=True
    return_X_y : bool, default=False

    Returns
    -------
    Bunch with ``data`` (list of str), ``target`` (ndarray of str),
    ``target_names`` and ``DESCR``; or ``(data, target)``.

    Examples
    --------
    >>> X, y = fetch_sentence_polarity(return_X_y=True)
    >>> len(X)
    10662
    """
    path = fetch_file("sentence_polarity", data_home, download_if_missing)
    data, target = [], []
    with zipfile.ZipFile(path) as archive:
        descr = "\n".join(decoded_lines(archive.read("sentence_polarity/README.txt")))
        for label in ("neg", "pos"):
            raw = archive.read(f"sentence_polarity/rt-polarity.{label}")
            lines = [line.strip() for line in decoded_lines(raw) if line.strip()]
            data.extend(lines)
            target.extend([label] * len(lines))
    return _result(data, target, ["neg", "pos"], descr, return_X_y)


def fetch_movie_reviews(*, data_home=None, download_if_missing=True, return_X_y=False):
    """Movie review polarity dataset v2.0 (Pang & Lee 2004, "RT-2k").

    2,000 full reviews. Each document keeps its sentence boundaries as line
    breaks (the corpus is stored one sentence per line), so
    ``sentence_split="lines"`` recovers them. Labels ``"neg"`` / ``"pos"``.

    Documents come grouped by class, sorted by file name within each class:
    the 1,000 negative reviews first, then the 1,000 positive ones. Shuffle
    before splitting or subsampling (``train_test_split(X, y, stratify=y,
    random_state=0)``); a slice such as ``X[:1600]`` is not a random sample.

    Parameters
    ----------
    data_home : str or path-like, optional
    download_if_missing : bool, default=True
    return_X_y : bool, default=False

    Returns
    -------
    Bunch with ``data``, ``target``, ``target_names``, ``DESCR`` and
    ``filenames``; or ``(data, target)``.

    Examples
    --------
    >>> X, y = fetch_movie_reviews(return_X_y=True)
    >>> len(X)
    2000
    """
    path = fetch_file("movie_reviews", data_home, download_if_missing)
    data, target, filenames = [], [], []
    with zipfile.ZipFile(path) as archive:
        descr = archive.read("movie_reviews/README").decode("utf-8", "replace")
        for name in sorted(archive.namelist()):
            parts = name.split("/")
            if len(parts) == 3 and parts[1] in ("neg", "pos") and name.endswith(".txt"):
                text = archive.read(name).decode("utf-8")
                data.append("\n".join(line.strip() for line in text.splitlines() if line.strip()))
                target.append(parts[1])
                filenames.append(name)
    return _result(data, target, ["neg", "pos"], descr, return_X_y, filenames=filenames)


def fetch_trec(
    *, subset="train", fine=False, data_home=None, download_if_missing=True, return_X_y=False
):
    """TREC question classification (Li & Roth 2002).

    5,452 training and 500 test questions with 6 coarse labels (``DESC``,
    ``ENTY``, ``ABBR``, ``HUM``, ``LOC``, ``NUM``) and 50 fine ones
    (``"DESC:manner"``).

    Questions keep the order of the original files, whose labels are
    interleaved; ``subset="all"`` gives the 5,452 training questions
    followed by the 500 test questions, so ``X[:5452]`` / ``X[5452:]`` is the
    standard split. ``subset="train"`` and ``subset="test"`` keep it.

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
    fine : bool, default=False
        ``target`` holds the fine labels instead of the coarse ones.
    data_home : str or path-like, optional
    download_if_missing : bool, default=True
    return_X_y : bool, default=False

    Returns
    -------
    Bunch with ``data``, ``target``, ``target_coarse``, ``target_fine``,
    ``target_names`` and ``DESCR``; or ``(data, target)``.

    Examples
    --------
    >>> X, y = fetch_trec(subset="test", return_X_y=True)
    >>> len(X)
    500
    """
    _check_choice("subset", subset, ("train", "test", "all"))
    path = fetch_file("qc", data_home, download_if_missing)
    subsets = ("train", "test") if subset == "all" else (subset,)
    data, coarse, fine_labels = [], [], []
    with zipfile.ZipFile(path) as archive:
        descr = "\n".join(decoded_lines(archive.read("qc/README")))
        for part in subsets:
            for line in decoded_lines(archive.read(f"qc/{part}.txt")):
                if not line.strip():
                    continue
                label, question = line.split(" ", 1)
                data.append(question.strip())
                coarse.append(label.split(":", 1)[0])
                fine_labels.append(label)
    target = fine_labels if fine else coarse
    return _result(
        data,
        target,
        sorted(set(target)),
        descr,
        return_X_y,
        target_coarse=np.asarray(coarse),
        target_fine=np.asarray(fine_labels),
    )


def fetch_nps_chat(*, data_home=None, download_if_missing=True, return_X_y=False):
    """NPS Chat Corpus, release 1.0 (Forsyth & Martell 2007): chat posts and dialogue acts.

    10,567 posts from 15 age-specific chat-room sessions recorded in 2006,
    each labelled with one of 15 dialogue acts: ``Statement`` (3,185),
    ``System`` (2,632: joins, parts, nick changes), ``Greet``, ``Emotion``,
    ``ynQuestion``, ``whQuestion``, ``Accept``, ``Bye``, ``Emphasis``,
    ``Continuer``, ``Reject``, ``yAnswer``, ``nAnswer``, ``Clarify`` and
    ``Other`` (35). Posts are short (about 4 tokens), informal, misspelt,
    with emoticons; user names are masked as ``<session>UserN``. The text
    of a post is the text of its ``<Post>`` element before the part-of-speech
    tags, stripped of surrounding whitespace (read with the standard
    library's XML parser).

    Documents come **grouped by session, in time order**: the sessions in
    the order of their file names (``10-19-20s_706posts``, ...), and the
    posts of each session as they were posted. Neighbouring posts belong to
    one conversation (and often to one user), so shuffle before taking a
    slice, or use stratified (or, for session-level generalisation,
    grouped: ``sessions``) splits. The rare classes (``Clarify`` 38,
    ``Other`` 35) limit stratified K-fold to K ≤ 35.

    Distributed for non-commercial, non-profit educational and research
    use (see ``DESCR``, the corpus' README).

    Parameters
    ----------
    data_home : str or path-like, optional
    download_if_missing : bool, default=True
    return_X_y : bool, default=False

    Returns
    -------
    Bunch with ``data`` (list of str), ``target`` (ndarray of str),
    ``target_names`` (the 15 acts, sorted), ``DESCR``, ``sessions`` (the
    session, i.e. file name without ``.xml``, of each post) and ``users``
    (the masked poster of each post); or ``(data, target)``.

    Examples
    --------
    >>> X, y = fetch_nps_chat(return_X_y=True)
    >>> len(X), len(set(y))
    (10567, 15)
    """
    path = fetch_file("nps_chat", data_home, download_if_missing)
    with zipfile.ZipFile(path) as archive:
        descr = archive.read("nps_chat/README.txt").decode("utf-8", "replace")
        posts = list(_nps_posts(archive))
    data, target, sessions, users = (list(column) for column in zip(*posts))
    return _result(
        data,
        target,
        sorted(set(target)),
        descr,
        return_X_y,
        sessions=np.asarray(sessions),
        users=np.asarray(users),
    )


def _nps_posts(archive: zipfile.ZipFile):
    """(text, dialogue act, session, user) of every post, sessions in file-name order."""
    for name in sorted(archive.namelist()):
        parts = name.split("/")
        if len(parts) != 2 or not name.endswith(".xml"):
            continue
        session = parts[1][: -len(".xml")]
        for post in ElementTree.fromstring(archive.read(name)).iter("Post"):
            yield (post.text or "").strip(), post.get("class"), session, post.get("user")


#: An opinion annotation of a product feature: ``feature[+2]``, ``feature[-1]``;
#: also written without a sign (``[2]``: positive) or without a number (``[+]``: 1).
_OPINION = re.compile(r"\[([+-]?)(\d*)\]")


def _strength(sign: str, digits: str) -> int:
    """One opinion's strength: ``[+2]`` → 2, ``[-1]`` → −1, ``[2]`` → 2, ``[+]`` → 1."""
    if not sign and not digits:  # "[]" is not an opinion
        return 0
    return (-1 if sign == "-" else 1) * int(digits or 1)


def fetch_product_reviews(
    *, target="strength", data_home=None, download_if_missing=True, return_X_y=False
):
    """Customer review sentences with opinion strengths (Hu & Liu 2004): a regression corpus.

    8,194 sentences from reviews of 14 products (both nltk_data parts:
    ``product_reviews_1``, 5 products, and ``product_reviews_2``, 9). An
    annotated line is ``feature[+2], other feature[-1]##the sentence``:
    each opinion on a product feature has a strength from −3 to +3, and a
    sentence's target is the sum of its strengths (−9 … +18; 0 for the 54%
    of sentences without an opinion). About 40 annotations omit the sign
    (``[2]``, counted positive) or the number (``[+]``, counted as 1).
    Review titles (``[t]`` lines) and the
    file headers are not sentences. Ten annotation lines in two files lack
    the ``##`` separator, so their sentence cannot be told from their
    annotation; they are left out (as in the corpus' own count) and listed
    in ``skipped_lines``.

    Research use, as distributed in nltk_data (see ``DESCR``, the corpora's
    README files).

    Parameters
    ----------
    target : {"strength", "sign"}, default="strength"
        "strength": the sum of the opinion strengths (float); "sign": its
        sign as an int label, −1, 0 or +1 (a three-class problem).
    data_home : str or path-like, optional
    download_if_missing : bool, default=True
    return_X_y : bool, default=False

    Returns
    -------
    Bunch with ``data`` (list of str), ``target`` (ndarray), ``target_names``
    (empty for "strength"), ``DESCR``, ``products`` (the product of each
    sentence, its file name without ``.txt``), ``opinions`` (each sentence's
    annotation, e.g. ``"use[+2]"``) and ``skipped_lines``
    (``(product, line)`` pairs); or ``(data, target)``.

    Examples
    --------
    >>> X, y = fetch_product_reviews(return_X_y=True)
    >>> len(X), float(y.min()), float(y.max())
    (8194, -9.0, 18.0)
    """
    _check_choice("target", target, ("strength", "sign"))
    sentences, skipped, readmes = _product_sentences(data_home, download_if_missing)
    data, strengths, products, opinions = _columns(sentences, 4)
    strengths = np.asarray(strengths, dtype=np.float64)
    values = strengths if target == "strength" else np.sign(strengths).astype(np.int64)
    names = [] if target == "strength" else [-1, 0, 1]
    extra = {"products": np.asarray(products), "opinions": opinions, "skipped_lines": skipped}
    return _result(data, values, names, "\n\n".join(readmes), return_X_y, **extra)


def _product_sentences(data_home, download_if_missing) -> tuple[list, list, list]:
    """(sentence, strength, product, annotation) of each sentence; the lines left out; READMEs."""
    sentences, skipped, readmes = [], [], []
    for name, text in _review_files(data_home, download_if_missing):
        if name.endswith("README.txt"):
            readmes.append(text)
            continue
        product = name.rsplit("/", 1)[-1][: -len(".txt")]
        for annotation, sentence in _annotated_lines(text):
            if annotation is None:
                skipped.append((product, sentence))
                continue
            strength = sum(_strength(*m) for m in _OPINION.findall(annotation))
            sentences.append((sentence.strip(), strength, product, annotation.strip()))
    return sentences, skipped, readmes


def _columns(rows: list[tuple], width: int) -> list[list]:
    """The columns of ``rows`` (tuples of ``width`` values) as lists."""
    return [list(column) for column in zip(*rows)] or [[] for _ in range(width)]


def _review_files(data_home, download_if_missing):
    """(name, text) of every ``.txt`` file of both product-review parts, in order."""
    for part in ("product_reviews_1", "product_reviews_2"):
        path = fetch_file(part, data_home, download_if_missing)
        with zipfile.ZipFile(path) as archive:
            for name in sorted(archive.namelist()):
                if name.endswith(".txt"):
                    yield name, archive.read(name).decode("utf-8", "replace")


def _annotated_lines(text: str):
    """(annotation, sentence) of each sentence line; (None, line) for one without ``##``."""
    for line in text.splitlines():
        if not line.strip() or line.startswith(("*", "[t]")):
            continue  # blank, a file header, or a review title
        if "##" not in line:
            yield None, line
            continue
        annotation, sentence = line.split("##", 1)
        yield annotation, sentence


#: SICK's entailment judgments, in the order of ``target_names``.
SICK_JUDGMENTS = ("CONTRADICTION", "ENTAILMENT", "NEUTRAL")
#: The columns of SICK's files that :func:`fetch_sick` reads (a tab-separated table).
_SICK_COLUMNS = ("pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment")
_SICK_DESCR = (
    "SICK (Sentences Involving Compositional Knowledge), Marelli et al. 2014, "
    "SemEval-2014 task 1 release. CC BY-NC-SA 3.0."
)


def fetch_sick(
    *,
    subset="train",
    target="entailment",
    data_home=None,
    download_if_missing=True,
    return_X_y=False,
):
    """SICK (Marelli et al. 2014): sentence pairs with entailment and relatedness.

    The SemEval-2014 task 1 release: 4,500 training, 500 trial (development)
    and 4,927 test pairs of image and video captions, each with an
    entailment judgment (``ENTAILMENT``, ``NEUTRAL``, ``CONTRADICTION``:
    does sentence A entail sentence B?) and a relatedness score from 1 to 5
    (the mean of ten annotators). Pairs keep the files' order.

    Licensed CC BY-NC-SA 3.0.

    Parameters
    ----------
    subset : {"train", "trial", "test", "all"}, default="train"
        "all": train, then trial, then test.
    target : {"entailment", "relatedness"}, default="entailment"
        The judgment (str labels) or the score (float).
    data_home : str or path-like, optional
        The folder holding ``sick/SICK_train.txt``, ``sick/SICK_trial.txt``
        and ``sick/SICK_test_annotated.txt``.
    download_if_missing : bool, default=True
    return_X_y : bool, default=False

    Returns
    -------
    Bunch with ``data`` (list of ``(sentence_A, sentence_B)`` tuples, the
    input of :class:`~skattn.SelfAttentivePairClassifier`), ``target``,
    ``target_names``, ``entailment``, ``relatedness``, ``pair_ids``,
    ``subsets`` (the file of each pair) and ``DESCR``; or ``(data, target)``.

    Examples
    --------
    >>> X, y = fetch_sick(subset="test", return_X_y=True)
    >>> len(X), X[0][0]
    (4927, 'There is no boy playing outdoors and there is no man smiling')
    """
    _check_choice("subset", subset, ("train", "trial", "test", "all"))
    _check_choice("target", target, ("entailment", "relatedness"))
    parts = ("train", "trial", "test") if subset == "all" else (subset,)
    rows = [row for part in parts for row in _sick_pairs(part, data_home, download_if_missing)]
    data, judgments, scores, pair_ids, subsets = _columns(rows, 5)
    values = judgments if target == "entailment" else np.asarray(scores)
    names = SICK_JUDGMENTS if target == "entailment" else []
    extra = {"entailment": np.asarray(judgments), "relatedness": np.asarray(scores)}
    extra.update(pair_ids=np.asarray(pair_ids), subsets=np.asarray(subsets))
    return _result(data, values, names, _SICK_DESCR, return_X_y, **extra)


def _sick_pairs(part: str, data_home, download_if_missing):
    """((sentence A, sentence B), judgment, score, pair id, part) of each pair of one file."""
    path = fetch_file(f"sick_{part}", data_home, download_if_missing)
    for pair in read_records(path, format="tsv", columns=_SICK_COLUMNS):
        sentences = (pair["sentence_A"], pair["sentence_B"])
        score, pair_id = float(pair["relatedness_score"]), int(pair["pair_ID"])
        yield sentences, pair["entailment_judgment"], score, pair_id, part


#: The columns of GoEmotions' files (which have no header row).
_GOEMOTIONS_COLUMNS = ("text", "labels", "id")
_GOEMOTIONS_DESCR = (
    "GoEmotions, Demszky et al. 2020 (ACL): Reddit comments, 27 emotions and neutral, "
    "multi-label; the google-research release. Apache-2.0."
)


def fetch_goemotions(*, subset="train", data_home=None, download_if_missing=True, return_X_y=False):
    """GoEmotions (Demszky et al. 2020): Reddit comments with 28 emotion labels, multi-label.

    58,009 English Reddit comments (43,410 train, 5,426 dev, 5,427 test as
    released), each with one or more of 27 emotions or "neutral"; 16% of
    the training comments have two or more. Names and religion terms were
    masked by the authors as ``[NAME]`` and ``[RELIGION]``. Very
    unbalanced: grief has 77 training examples, neutral 14,219. Comments
    keep the files' order.

    Licensed Apache-2.0.

    Parameters
    ----------
    subset : {"train", "dev", "test", "all"}, default="train"
        "all": train, then dev, then test.
    data_home : str or path-like, optional
        The folder holding ``goemotions/train.tsv``, ``dev.tsv``,
        ``test.tsv`` and ``emotions.txt``.
    download_if_missing : bool, default=True
    return_X_y : bool, default=False

    Returns
    -------
    Bunch with ``data`` (list of str), ``target`` (int64 indicator matrix of
    shape (n_comments, 28): ``target[i, j]`` is 1 when comment i has label
    j), ``target_names`` (the 28 label names, in column order),
    ``comment_ids``, ``subsets`` (the file of each comment) and ``DESCR``;
    or ``(data, target)``.

    Examples
    --------
    >>> X, Y = fetch_goemotions(subset="dev", return_X_y=True)
    >>> len(X), Y.shape
    (5426, (5426, 28))
    """
    _check_choice("subset", subset, ("train", "dev", "test", "all"))
    names_file = fetch_file("goemotions_emotions", data_home, download_if_missing)
    names = list(read_documents(names_file, format="lines"))
    parts = ("train", "dev", "test") if subset == "all" else (subset,)
    rows = [
        row for part in parts for row in _goemotions_comments(part, data_home, download_if_missing)
    ]
    data, label_lists, comment_ids, subsets = _columns(rows, 4)
    target = np.zeros((len(data), len(names)), dtype=np.int64)
    for row, labels in enumerate(label_lists):
        target[row, labels] = 1
    extra = {"comment_ids": np.asarray(comment_ids), "subsets": np.asarray(subsets)}
    return _result(data, target, names, _GOEMOTIONS_DESCR, return_X_y, **extra)


def _goemotions_comments(part: str, data_home, download_if_missing):
    """(text, label ids, comment id, part) of each comment of one file."""
    path = fetch_file(f"goemotions_{part}", data_home, download_if_missing)
    # A TSV without a header; some comments are quoted (with doubled quotes inside).
    for comment in read_records(path, format="tsv", fieldnames=_GOEMOTIONS_COLUMNS):
        labels = [int(label) for label in comment["labels"].split(",")]
        yield comment["text"], labels, comment["id"], part
