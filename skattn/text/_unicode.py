"""Text that is not valid Unicode, represented rather than refused (standard library only).

A Python ``str`` may hold any code point, lone surrogates (U+D800-U+DFFF)
included: ``open(..., errors="surrogateescape")`` and ``sys.argv`` give one
for each undecodable byte (``b"a\\xff"`` becomes ``"a\\udcff"``). UTF-8
cannot encode them (``str.encode("utf-8")`` raises), so every place that
turns text into bytes goes through this module, shared by the training code
and the serving runtime:

- :func:`text_bytes` is the bytes every hash of a text is taken from: UTF-8,
  with a lone surrogate written as its three-byte form ("surrogatepass").
  Ordinary text gets exactly its UTF-8 bytes, so its hashes are unchanged.
- :func:`join_surrogate_pairs` reads a high surrogate followed by a low
  one as the character the pair encodes, as JSON and UTF-16 do; the
  tokenizers apply it first, so that a token holds only lone surrogates,
  which JSON stores and reads back unchanged.
- :func:`json_text` writes JSON that keeps non-ASCII text as it is and
  escapes lone surrogates (``"\\udcff"``), so that the result is valid UTF-8,
  and the line separators U+0085, U+2028 and U+2029, so that a JSON line is
  one line for every reader.
- :func:`first_lone_surrogate` finds what UTF-8 cannot hold, for writers
  that must refuse it (a CSV cell has no escape).
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

__all__ = [
    "first_lone_surrogate",
    "join_surrogate_pairs",
    "json_text",
    "text_bytes",
    "text_crc32",
]

_SURROGATE = re.compile("[\ud800-\udfff]")
#: What json.dumps(ensure_ascii=False) leaves raw but UTF-8 cannot encode (lone
#: surrogates) or some line readers split at (NEL, LINE and PARAGRAPH SEPARATOR).
_JSON_ESCAPED = re.compile("[\x85\u2028\u2029\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def text_bytes(text: str) -> bytes:
    """The UTF-8 bytes of ``text``, a lone surrogate as its three-byte form.

    Parameters
    ----------
    text : str

    Returns
    -------
    bytes
        ``text.encode("utf-8")`` for any text that has no lone surrogate.

    Examples
    --------
    >>> text_bytes("café") == "café".encode("utf-8")
    True
    >>> text_bytes("a\\udcff")
    b'a\\xed\\xb3\\xbf'
    """
    return text.encode("utf-8", "surrogatepass")


def text_crc32(text: str) -> int:
    """CRC-32 of :func:`text_bytes`: the hash of subword n-grams and word2vec seeds.

    Examples
    --------
    >>> import zlib
    >>> text_crc32("film") == zlib.crc32(b"film"), text_crc32("a\\udcff") > 0
    (True, True)
    """
    return zlib.crc32(text_bytes(text))


def _joined(pair: re.Match) -> str:
    high, low = map(ord, pair[0])
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def join_surrogate_pairs(text: str) -> str:
    """``text`` with each high surrogate followed by a low one read as one character.

    Lone surrogates are kept as they are.

    Examples
    --------
    >>> join_surrogate_pairs("\\ud83c\\udfac film\\udcff") == "🎬 film\\udcff"
    True
    """
    # isascii is O(1) on CPython's strings: most text skips the search.
    if text.isascii() or _SURROGATE_PAIR.search(text) is None:
        return text
    return _SURROGATE_PAIR.sub(_joined, text)


def _escaped(surrogate: re.Match) -> str:
    return f"\\u{ord(surrogate[0]):04x}"


def json_text(value: Any, **options: Any) -> str:
    """JSON of ``value`` on one line of valid UTF-8: non-ASCII kept, lone surrogates escaped.

    U+0085, U+2028 and U+2029 are escaped too (``str.splitlines`` and some
    JSON Lines readers split at them).

    Parameters
    ----------
    value : object
        Anything :func:`json.dumps` takes.
    **options
        Passed to :func:`json.dumps` (``default``, ``indent``, ...).

    Returns
    -------
    str
        ``json.loads`` gives ``value`` back, lone surrogates included.

    Examples
    --------
    >>> json_text({"text": "café a\\udcff"})
    '{"text": "café a\\\\udcff"}'
    >>> json.loads(json_text(["a\\udcff"])) == ["a\\udcff"]
    True
    """
    written = json.dumps(value, ensure_ascii=False, **options)
    # Outside strings JSON is ASCII, so every character matched is inside a string.
    return _JSON_ESCAPED.sub(_escaped, written)


def first_lone_surrogate(text: str) -> int | None:
    """Position of the first lone surrogate of ``text`` (what UTF-8 cannot encode), or None.

    Examples
    --------
    >>> first_lone_surrogate("ok"), first_lone_surrogate("ab\\udcff")
    (None, 2)
    """
    found = _SURROGATE.search(text)
    return None if found is None else found.start()
