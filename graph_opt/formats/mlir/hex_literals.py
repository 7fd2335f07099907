"""Large `dense<"0x...">` literals kept out of Python strings.

A ResNet-50 is 205 MB of text, nearly all of it hex digits. Reading, the digits
of each long literal are cut out of the text the parser sees (`cut_hex_literals`)
and decoded straight from the file's bytes when the fast parser reaches them;
writing, `write_hex` streams a literal's bytes as hex to the file's binary buffer
in small pieces. Neither makes a string of the digits, nor a second copy of them.

The blobs of a `{-# dialect_resources: ... #-}` section are cut the same way
(their text becomes `"0x#"`) and left in the file, kept mapped: `resources`
gives each one's key and digits, which `HexWeight` decodes when a pass reads
them. The scan gives back the pages of a mapped file behind it.
"""

from __future__ import annotations

import binascii
import codecs
import re
from dataclasses import dataclass
from mmap import mmap
from typing import IO

from graph_opt.weights import release_pages

LONG_HEX_DIGITS = 4096
"""Hex literals of at least this many digits bypass strings; shorter ones stay in
the text."""
HEX_OPEN = b'dense<"0x'
BLOB_KEY = re.compile(rb'([A-Za-z_][\w.$-]*|"[^"\n]*")\s*:\s*"0x$')
"""A resource section entry up to its digits: `key: "0x` (attributes take `=`;
a string cut elsewhere is found out by the parse, see `cut_hex_literals`)."""
SCAN_WINDOW = 1 << 23
"""Bytes of a mapped file searched at a time before their pages are given back."""
PLACEHOLDER = "#"
"""What a cut literal's digits leave in the text (not a hex digit: xDSL's parser
fails on it)."""

HEX_PIECE_BYTES = 1 << 15
"""Bytes converted to hex at a time: their digits (64 KiB) stay below the size at
which the C allocator maps fresh pages for each piece."""
BINARY_ENCODINGS = {"utf-8", "ascii"}
"""Text-stream encodings in which hex digits are their ASCII bytes."""


@dataclass
class HexLiterals:
    """`source` decoded to `text`, with the digits of its long hex literals replaced
    by `PLACEHOLDER`; `spans` maps the offset of each placeholder in `text` to where
    its digits are in `source`."""

    text: str
    source: bytes | mmap
    spans: dict[int, tuple[int, int]]
    resources: dict[str, tuple[int, int]]
    """Resource blob key -> where its digits (after `0x`) are in `source`."""

    def digits_at(self, start: int, end: int) -> bytes | None:
        """The bytes of the literal cut at text[start:end], None if nothing was cut
        there. Raises ValueError (binascii.Error) for digits that are not hex."""
        span = self.spans.get(start)
        if span is None or end != start + len(PLACEHOLDER):
            return None
        with memoryview(self.source) as source, source[span[0] : span[1]] as digits:
            return binascii.unhexlify(digits)


def cut_hex_literals(source: bytes | mmap) -> HexLiterals | None:
    """`source` with the digits of its `dense<"0x...">` literals and resource
    blobs of at least `LONG_HEX_DIGITS` cut out, or None if it has none (or is
    not UTF-8: its reader reports that). Whatever was cut must be read back
    through `digits_at` or `resources`: a cut inside a comment or a string is a
    placeholder there too."""
    parts: list[str] = []
    spans: dict[int, tuple[int, int]] = {}
    resources: dict[str, tuple[int, int]] = {}
    length = 0  # of the text in `parts`, in characters
    copied = 0  # of `source`, in bytes
    start = _find(source, b'"0x', 0)
    try:
        while start >= 0:
            digits = start + len(b'"0x')
            end = _find(source, b'"', digits)
            if end < 0:
                break
            key = _blob_key(source, start)
            dense = source[start - len(HEX_OPEN) + 3 : start] == HEX_OPEN[:-3]
            if (dense or key) and end - digits >= LONG_HEX_DIGITS:
                if key is not None:
                    if key in resources:  # (read as written, twice)
                        return None
                    resources[key] = (digits, end)
                parts.append(str(source[copied:digits], "utf-8"))
                length += len(parts[-1])
                if key is None:
                    spans[length] = (digits, end)
                parts.append(PLACEHOLDER)
                length += len(PLACEHOLDER)
                copied = end
            start = _find(source, b'"0x', end)
        if not spans and not resources:
            return None
        parts.append(str(source[copied:], "utf-8"))
    except UnicodeDecodeError:
        return None
    return HexLiterals("".join(parts), source, spans, resources)


def _blob_key(source: bytes | mmap, start: int) -> str | None:
    """The key of the resource entry whose digits open at `start`, if any."""
    match = BLOB_KEY.search(source[max(start - 256, 0) : start + 3])
    if match is None:
        return None
    return str(match[1], "utf-8").strip('"')


def _find(source: bytes | mmap, needle: bytes, start: int) -> int:
    """`source.find(needle, start)`, a window at a time, giving back the pages
    of a mapped file searched (they hold hex digits read later, if at all)."""
    while start < len(source):
        stop = min(start + SCAN_WINDOW, len(source))
        found = source.find(needle, start, stop + len(needle) - 1)
        release_pages(source, start, stop)
        if found >= 0:
            return found
        start = stop
    return -1


def write_hex(stream: IO[str], data: bytes) -> None:
    """`stream.write(data.hex().upper())`, written in pieces of bytes to the binary
    buffer of a text file (after flushing the text before), so that no string of the
    digits is made."""
    buffer = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None)
    if buffer is None or encoding is None or not _binary_encoding(encoding):
        stream.write(data.hex().upper())
        return
    stream.flush()
    with memoryview(data) as view:
        for start in range(0, len(view), HEX_PIECE_BYTES):
            buffer.write(
                binascii.hexlify(view[start : start + HEX_PIECE_BYTES]).upper()
            )


def write_digits(stream: IO[str], digits: bytes) -> None:
    """`stream.write(digits.decode())` for hex digits, to the binary buffer of a
    text file (after flushing the text before) where it has one."""
    buffer = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None)
    if buffer is None or encoding is None or not _binary_encoding(encoding):
        stream.write(str(digits, "ascii"))
        return
    stream.flush()
    buffer.write(digits)


def _binary_encoding(encoding: str) -> bool:
    try:
        return codecs.lookup(encoding).name in BINARY_ENCODINGS
    except LookupError:
        return False
