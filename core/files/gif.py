"""A small animated-GIF writer (GIF89a), for lesson slides: no Qt, no Pillow.

Qt's image writers do not write GIF (QImageWriter lists bmp, jpeg, png, webp, ...
but no gif), and Pillow is not a dependency; a GIF is simple enough to write here:

1. one palette of at most 256 colours for all frames (`palette_for`): the colours
   are counted in 5-bit-per-channel bins and the most frequent bins kept, each as
   the mean colour of its pixels -- screenshots of the studio are mostly a few flat
   colours plus the anti-aliased edges of text;
2. every pixel mapped to its nearest palette colour (`indexed`), through the bins,
   so the nearest-colour search runs once per bin present, not per pixel;
3. each frame LZW-compressed (`lzw`) into 255-byte sub-blocks, with a Graphic
   Control Extension giving its delay, and the NETSCAPE2.0 block so it loops.

    write_gif(path, [rgb_frame, ...], delay_ms=1500)   # frames: H x W x 3 uint8

Frames must all have the same size. The file is written atomically.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence

import numpy as np

from core.files.atomic import write_atomically

MAX_COLOURS = 256


def _bins(frame: np.ndarray) -> np.ndarray:
    """Each pixel's 15-bit colour bin (5 bits a channel)."""
    f = frame.astype(np.uint32) >> 3
    return (f[..., 0] << 10) | (f[..., 1] << 5) | f[..., 2]


def palette_for(frames: Sequence[np.ndarray]) -> np.ndarray:
    """At most 256 colours (N x 3 uint8) for all the frames: the most frequent bins."""
    counts = np.zeros(1 << 15, dtype=np.int64)
    sums = np.zeros((1 << 15, 3), dtype=np.int64)
    for frame in frames:
        bins = _bins(frame).ravel()
        counts += np.bincount(bins, minlength=1 << 15)
        for c in range(3):
            sums[:, c] += np.bincount(bins, weights=frame[..., c].ravel(), minlength=1 << 15).astype(np.int64)
    present = np.nonzero(counts)[0]
    keep = present[np.argsort(-counts[present], kind="stable")[:MAX_COLOURS]]
    return (sums[keep] // counts[keep][:, None]).astype(np.uint8)


def indexed(frame: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """The frame as palette indices (H x W uint8): each bin's nearest palette colour."""
    bins = _bins(frame)
    present = np.unique(bins)
    centres = np.stack([(present >> 10) & 31, (present >> 5) & 31, present & 31], axis=1).astype(np.int32) * 8 + 4
    nearest = np.empty(len(present), dtype=np.uint8)
    pal = palette.astype(np.int32)
    for start in range(0, len(present), 4096):  # bounded memory: 4096 x 256 distances at a time
        chunk = centres[start : start + 4096]
        d = ((chunk[:, None, :] - pal[None, :, :]) ** 2).sum(axis=2)
        nearest[start : start + 4096] = d.argmin(axis=1)
    lookup = np.zeros(1 << 15, dtype=np.uint8)
    lookup[present] = nearest
    return lookup[bins]


def lzw(indices: bytes, min_code_size: int = 8) -> bytes:
    """GIF's variable-width LZW of the index stream (codes packed least-significant bit first)."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    out = bytearray()
    bits = nbits = 0
    width = min_code_size + 1

    def emit(code):
        nonlocal bits, nbits
        bits |= code << nbits
        nbits += width
        while nbits >= 8:
            out.append(bits & 0xFF)
            bits >>= 8
            nbits -= 8

    table = {bytes([i]): i for i in range(clear)}
    following = end + 1
    emit(clear)
    word = b""
    for byte in indices:
        longer = word + bytes((byte,))
        if longer in table:
            word = longer
            continue
        emit(table[word])
        if following < 4096:
            table[longer] = following
            following += 1
            if following > (1 << width) and width < 12:
                width += 1
        else:  # the table is full: start again
            emit(clear)
            table = {bytes([i]): i for i in range(clear)}
            following = end + 1
            width = min_code_size + 1
        word = bytes((byte,))
    if word:
        emit(table[word])
    emit(end)
    if nbits:
        out.append(bits & 0xFF)
    return bytes(out)


def _sub_blocks(data: bytes) -> bytes:
    parts = [bytes((len(data[i : i + 255]),)) + data[i : i + 255] for i in range(0, len(data), 255)]
    return b"".join(parts) + b"\x00"


def gif_bytes(frames: Sequence[np.ndarray], delay_ms: int = 1500) -> bytes:
    if not frames:
        raise ValueError("a GIF needs at least one frame")
    height, width = frames[0].shape[:2]
    if any(f.shape[:2] != (height, width) for f in frames):
        raise ValueError("every frame of a GIF must have the same size")
    palette = palette_for(frames)
    table = np.zeros((MAX_COLOURS, 3), dtype=np.uint8)
    table[: len(palette)] = palette
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", width, height, 0xF7, 0, 0)  # global table of 256 colours
    out += table.tobytes()
    out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"  # loop for ever
    delay = max(2, round(delay_ms / 10))
    for frame in frames:
        out += b"\x21\xf9\x04\x04" + struct.pack("<H", delay) + b"\x00\x00"  # graphic control: delay
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
        out += b"\x08" + _sub_blocks(lzw(indexed(frame, palette).tobytes()))
    out += b"\x3b"
    return bytes(out)


def write_gif(path: str | os.PathLike[str], frames: Sequence[np.ndarray], delay_ms: int = 1500) -> None:
    write_atomically(os.fspath(path), gif_bytes(frames, delay_ms))
