"""Tools for tests that damage zip archives (model files and artefacts) on purpose."""

import zipfile

from skattn.utils._archives import MANIFEST, write_archive


def members(path):
    """Every member of a zip archive, by name."""
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def write_members(path, contents):
    """The members as they are, the manifest (if any) included: edits fail its digests."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


def write_signed(path, contents):
    """The members with a new manifest of their digests, as an editor who knows the format."""
    write_archive(path, {name: data for name, data in contents.items() if name != MANIFEST})


def flip_member_byte(contents, member):
    """Flip one bit in the middle of a member's (uncompressed) bytes."""
    data = bytearray(contents[member])
    data[len(data) // 2] ^= 0x01
    contents[member] = bytes(data)


def flip_compressed_byte(path, member):
    """Flip a byte in the middle of ``member``'s compressed data in the file, in place."""
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    name_length, extra_length = _shorts(raw, info.header_offset, (26, 28))
    start = info.header_offset + 30 + name_length + extra_length
    raw[start + info.compress_size // 2] ^= 0xFF
    path.write_bytes(bytes(raw))


def declare_size(path, member, size):
    """Make ``member`` declare ``size`` bytes (local header and central directory), in place."""
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
        offset = archive.start_dir
    raw[info.header_offset + 22 : info.header_offset + 26] = size.to_bytes(4, "little")
    while raw[offset : offset + 4] == b"PK\x01\x02":
        name_length, extra_length, comment_length = _shorts(raw, offset, (28, 30, 32))
        if raw[offset + 46 : offset + 46 + name_length].decode() == member:
            raw[offset + 24 : offset + 28] = size.to_bytes(4, "little")
        offset += 46 + name_length + extra_length + comment_length
    path.write_bytes(bytes(raw))


def _shorts(raw, offset, positions):
    return [int.from_bytes(raw[offset + i : offset + i + 2], "little") for i in positions]


def write_csv(path, texts, labels, columns=("text", "label")):
    """A two-column CSV of texts and their labels, as a user's file."""
    import csv

    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(zip(texts, labels))
    return path
