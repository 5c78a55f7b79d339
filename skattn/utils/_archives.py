"""Files that cannot lie: zip archives with a manifest of digests, and atomic writers.

A model file (:mod:`skattn.persistence`) and a serving artefact
(:mod:`skattn.serving`) are zip archives. :func:`write_archive` adds a
``manifest.json`` that records the SHA-256 and the size of every other
member; :func:`read_archive` checks, before any member is used:

- that the file is a zip archive whose members are exactly the expected
  ones (none missing, none extra, no name twice);
- that every member's size, as the archive's directory declares it, is
  the manifest's and under a cap (the total too), *before* anything is
  decompressed: a small file cannot expand into gigabytes in memory;
- that every member decompresses without error to bytes of the recorded
  SHA-256.

Every failure is an :class:`ArchiveError` (a ``ValueError``) naming the
file and the member. Archives written before manifests existed are read by
:func:`read_legacy_archive`, which checks the same except the digests.

:func:`atomic_write` writes any file through a temporary file in the same
folder, renamed over the target only once complete; :func:`refuse_same_file`
refuses an output path that is one of the inputs. This module imports the
standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import uuid
import zipfile
import zlib
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MANIFEST",
    "ArchiveError",
    "atomic_write",
    "member_names",
    "read_archive",
    "read_legacy_archive",
    "refuse_same_file",
    "write_archive",
]

#: The member that holds the digests.
MANIFEST = "manifest.json"
#: What a manifest declares itself as.
MANIFEST_FORMAT, MANIFEST_VERSION = "skattn-manifest", 1
#: The most bytes an archive's members may declare in all, by default (1 GiB).
DEFAULT_MAX_BYTES = 2**30
#: The most bytes a manifest may declare.
MAX_MANIFEST_BYTES = 2**20
_SHA256 = re.compile(r"[0-9a-f]{64}")


class ArchiveError(ValueError):
    """An archive that cannot be trusted: unreadable, truncated, altered, or too large.

    Parameters
    ----------
    path : str or path-like
        The file (or, alone, the whole message).
    member : str or None
        The member at fault (None: the file as a whole).
    reason : str or None
        What is wrong.

    Attributes
    ----------
    path : Path or None
    member : str or None
    reason : str

    Examples
    --------
    >>> error = ArchiveError("m.skattn", "metadata.json", "its bytes do not match their digest")
    >>> str(error), error.member
    ('m.skattn: metadata.json: its bytes do not match their digest.', 'metadata.json')
    """

    def __init__(
        self, path: str | os.PathLike, member: str | None = None, reason: str | None = None
    ):
        if reason is None:  # a message alone
            self.path, self.member, self.reason = None, member, str(path)
            super().__init__(str(path))
            return
        self.path, self.member, self.reason = Path(path), member, reason
        where = f"{self.path}: {member}: " if member else f"{self.path}: "
        super().__init__(where + reason.rstrip(".") + ".")

    def __reduce__(self):
        if self.path is None:
            return type(self), (self.reason, self.member)
        return type(self), (self.path, self.member, self.reason)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_archive(path: str | os.PathLike, members: Mapping[str, bytes]) -> Path:
    """Write ``members`` and their manifest as a zip archive, atomically.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced only once the new one is complete).
    members : mapping of str to bytes
        Member name -> content (``manifest.json`` is added).

    Returns
    -------
    Path

    Examples
    --------
    >>> import tempfile
    >>> path = write_archive(tempfile.mkdtemp() + "/a.zip", {"config.json": b"{}"})
    >>> read_archive(path, ["config.json"])
    {'config.json': b'{}'}
    """
    if MANIFEST in members:
        raise ValueError(f"{MANIFEST} is written by write_archive itself.")
    manifest = {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "members": {
            name: {"sha256": _digest(data), "size": len(data)} for name, data in members.items()
        },
    }
    with atomic_write(path, "wb") as handle:
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(MANIFEST, json.dumps(manifest, indent=1))
            for name, data in members.items():
                archive.writestr(name, data)
    return Path(path)


def read_archive(
    path: str | os.PathLike,
    names: Collection[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    error: type[ArchiveError] = ArchiveError,
) -> dict[str, bytes]:
    """The members of an archive of :func:`write_archive`, each checked against its manifest.

    Parameters
    ----------
    path : str or path-like
    names : collection of str
        The members the archive must hold besides the manifest (no more, no fewer).
    max_bytes : int, default=DEFAULT_MAX_BYTES
        The most bytes the members may declare in all.
    error : type, default=ArchiveError
        The :class:`ArchiveError` subclass raised.

    Returns
    -------
    dict of str to bytes

    Raises
    ------
    FileNotFoundError
        ``path`` is not a file.
    ArchiveError
        Of type ``error``, naming the file and the member.

    Examples
    --------
    >>> read_archive("missing.zip", ["config.json"])
    Traceback (most recent call last):
    ...
    FileNotFoundError: missing.zip does not exist.
    """
    with _open(path, error) as archive:
        infos = _members(archive, path, error)
        if MANIFEST not in infos:
            raise error(path, MANIFEST, "missing: the archive has no manifest of its members")
        _check_declared_size(infos[MANIFEST], MAX_MANIFEST_BYTES, path, error)
        recorded = _manifest(_read(archive, infos[MANIFEST], path, error), path, error)
        _check_names(set(infos) - {MANIFEST}, set(names), path, error, recorded=set(recorded))
        _check_sizes({name: infos[name] for name in names}, recorded, max_bytes, path, error)
        contents = {}
        for name in names:
            data = _read(archive, infos[name], path, error)
            if _digest(data) != recorded[name]["sha256"]:
                raise error(path, name, "its bytes do not match the manifest's SHA-256 (altered)")
            contents[name] = data
        return contents


def read_legacy_archive(
    path: str | os.PathLike,
    names: Collection[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    error: type[ArchiveError] = ArchiveError,
    exact: bool = True,
) -> dict[str, bytes]:
    """The members of an archive without a manifest: names, sizes and CRCs checked, no digests.

    For files written before manifests existed. The archive must hold
    exactly ``names`` (with ``exact=False``: at least them), and no
    manifest: a manifest means the newer format, which :func:`read_archive`
    reads.

    Examples
    --------
    >>> import tempfile, zipfile
    >>> path = tempfile.mkdtemp() + "/old.zip"
    >>> with zipfile.ZipFile(path, "w") as archive:
    ...     archive.writestr("config.json", "{}")
    >>> read_legacy_archive(path, ["config.json"])
    {'config.json': b'{}'}
    """
    with _open(path, error) as archive:
        infos = _members(archive, path, error)
        present = set(infos) if exact else set(infos) & set(names)
        _check_names(present, set(names), path, error)
        _check_total(sum(infos[name].file_size for name in names), max_bytes, path, error)
        return {name: _read(archive, infos[name], path, error) for name in names}


def member_names(path: str | os.PathLike, error: type[ArchiveError] = ArchiveError) -> set[str]:
    """The names of an archive's members (to tell a format by its layout).

    Examples
    --------
    >>> import tempfile
    >>> member_names(write_archive(tempfile.mkdtemp() + "/a.zip", {"x": b""})) == {"x", MANIFEST}
    True
    """
    with _open(path, error) as archive:
        return set(_members(archive, path, error))


@contextlib.contextmanager
def _open(path: str | os.PathLike, error: type[ArchiveError]) -> Iterator[zipfile.ZipFile]:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist.")
    try:
        archive = zipfile.ZipFile(path)
    except PermissionError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as cause:
        raise error(
            path,
            None,
            f"not a readable zip archive (truncated, corrupted or another kind of file: {cause})",
        ) from cause
    with archive:
        yield archive


def _members(archive: zipfile.ZipFile, path, error) -> dict[str, zipfile.ZipInfo]:
    infos: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        if info.filename in infos:
            raise error(path, info.filename, "appears twice in the archive")
        infos[info.filename] = info
    return infos


def _check_names(present: set, expected: set, path, error, recorded: set | None = None) -> None:
    """Refuse members that are missing or not expected (in the archive or its manifest)."""
    for where, names in (("the archive", present), ("the manifest", recorded)):
        if names is None:
            continue
        missing, extra = sorted(expected - names), sorted(names - expected)
        if missing:
            raise error(path, missing[0], f"missing from {where}")
        if extra:
            raise error(path, extra[0], f"in {where}, but not a member this format has")


def _check_declared_size(info: zipfile.ZipInfo, limit: int, path, error) -> None:
    if info.file_size > limit:
        raise error(
            path, info.filename, f"declares {info.file_size} bytes; at most {limit} are read"
        )


def _check_sizes(infos: dict, recorded: dict, max_bytes: int, path, error) -> None:
    """Each member's declared size is the manifest's, and their total is under the cap."""
    for name, info in infos.items():
        size = recorded[name]["size"]
        if info.file_size != size:
            raise error(
                path, name, f"the archive declares {info.file_size} bytes, the manifest {size}"
            )
    _check_total(sum(info.file_size for info in infos.values()), max_bytes, path, error)


def _check_total(total: int, max_bytes: int, path, error) -> None:
    if total > max_bytes:
        raise error(
            path,
            None,
            f"its members declare {total} bytes in all, over the limit of {max_bytes} "
            "(max_bytes): refused before decompressing",
        )


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path, error) -> bytes:
    """A member's bytes; zipfile stops at the declared size and checks the CRC."""
    try:
        with archive.open(info) as member:
            data = member.read()
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as cause:
        raise error(
            path, info.filename, f"cannot be read ({type(cause).__name__}: {cause})"
        ) from cause
    if len(data) != info.file_size:
        raise error(
            path, info.filename, f"holds {len(data)} bytes, not the {info.file_size} declared"
        )
    return data


def _manifest(data: bytes, path, error) -> dict[str, dict[str, Any]]:
    """The manifest's members, each ``{"sha256": str, "size": int}``, validated."""
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as cause:
        raise error(path, MANIFEST, f"not JSON ({cause})") from cause
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise error(path, MANIFEST, "not a skattn manifest")
    if manifest.get("version") != MANIFEST_VERSION:
        raise error(
            path,
            MANIFEST,
            f"manifest version {manifest.get('version')!r}; this skattn reads {MANIFEST_VERSION}",
        )
    members = manifest.get("members")
    if not isinstance(members, dict):
        raise error(path, MANIFEST, "has no members object")
    for name, entry in members.items():
        valid = (
            isinstance(entry, dict)
            and set(entry) == {"sha256", "size"}
            and isinstance(entry["sha256"], str)
            and _SHA256.fullmatch(entry["sha256"]) is not None
            and isinstance(entry["size"], int)
            and not isinstance(entry["size"], bool)
            and entry["size"] >= 0
        )
        if not valid:
            raise error(path, MANIFEST, f"the entry of {name!r} is not a SHA-256 and a size")
    return members


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **options) -> Iterator[IO[Any]]:
    """A handle on a temporary file beside ``path``, renamed to ``path`` once written.

    If the block raises, the temporary file is removed and an existing
    ``path`` is left as it was. The file gets the process's usual
    permissions (it is created with ``open``, not ``mkstemp``).

    Parameters
    ----------
    path : str or path-like
    mode : {"w", "wb"}, default="w"
    **options
        Passed to :func:`open` (``encoding``, ``newline``); text files
        default to UTF-8.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_write(path) as handle:
    ...     _ = handle.write("done")
    >>> path.read_text()
    'done'
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}.")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode == "w":
        options.setdefault("encoding", "utf-8")
    temporary = path.parent / f".{path.name}.{uuid.uuid4().hex}.part"
    try:
        with open(temporary, mode.replace("w", "x"), **options) as handle:
            yield handle
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def refuse_same_file(output: str | os.PathLike, **inputs: str | os.PathLike | None) -> None:
    """Raise ValueError if ``output`` is the same file as one of ``inputs`` (by name).

    Examples
    --------
    >>> refuse_same_file("out.csv", model="m.skattn")
    >>> refuse_same_file("m.skattn", model="./m.skattn")
    Traceback (most recent call last):
    ...
    ValueError: the output m.skattn is the model it reads; write to another path.
    """
    target = Path(output)
    for name, source in inputs.items():
        if source is None:
            continue
        same = Path(source).resolve() == target.resolve()
        if not same and target.exists() and Path(source).exists():
            same = os.path.samefile(source, target)
        if same:
            raise ValueError(f"the output {output} is the {name} it reads; write to another path.")
