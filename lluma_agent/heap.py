"""Resident memory over a long run: a freed frame goes back to the system (glibc).

Every turn allocates and frees blocks of several MB on several threads: captures and their raw bytes, the
vision's working arrays, the screenshot's copies (and, in the demo, the simulated phone's frames). glibc
starts by giving such a block its own mapping, but once one is freed it raises its mmap threshold (up to
32 MB) and serves the next ones from its heaps, which fragment: resident memory grew by several MB a turn
while the live images and arrays stayed the same (the demo: 699 -> 1,067 MB over turns 10-50, 13-16 live
images throughout). A fixed threshold keeps each large block in its own mapping, returned when freed
(435 MB, flat, over the same turns).
"""

from __future__ import annotations

import ctypes
import os
import sys

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD_BYTES = 256 * 1024  # blocks from this size up get their own mapping


def return_freed_frames() -> bool:
    """Fix glibc's mmap threshold (process-wide) so freed large blocks go back to the system; True when set.
    Nothing is done off Linux, without glibc's mallopt, or when MALLOC_MMAP_THRESHOLD_ says otherwise."""
    if not sys.platform.startswith("linux") or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return int(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) == 1
