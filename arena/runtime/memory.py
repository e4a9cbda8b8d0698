"""Workers and web processes keep the memory their steps and pages free, instead of
giving it back to the system at every step or request.

glibc's allocator serves a request above its mmap threshold (128 KiB at first) with a
fresh mapping, and gives the top of a heap back once more than its trim threshold
(twice that) lies free there. A simulator that draws with numpy allocates arrays of a
megabyte or more and frees them within the step: crafter's frame is blended in float64
(256 × 256 × 3 × 8 bytes = 1.5 MiB per temporary), so every step mapped and unmapped
those pages, or trimmed and regrew a heap, and the kernel zeroed and faulted them in
again. In a worker that plays Crafter that was about a quarter of the process's CPU time,
spent in the kernel (`bench/balrog_throughput.py` prints the row). Raising both
thresholds keeps the pages: a step's temporaries come from memory the process already
holds, and the process's size settles at its busiest step's.

A web process is the same with strings: an uncached front page is some 600 kB of HTML,
joined, copied and encoded several times over by the template engine and the response,
each copy a fresh mapping; with 1,000 runs on it, that was some 1,300 page faults and
3 ms of system time per request, about 8 % of its CPU, against some 160 faults with
the thresholds raised, for about 15 MB more resident memory (bench/read_pages.py).

Only glibc has `mallopt`; elsewhere (musl, macOS) nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

logger = logging.getLogger(__name__)

# mallopt's parameters (malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

# Larger than any temporary a step allocates (crafter's are 1.5 MiB), so they come from
# a heap; a heap keeps up to TRIM of free memory at its top before giving it back.
MMAP_THRESHOLD_BYTES = 16 * 1024 * 1024
TRIM_THRESHOLD_BYTES = 64 * 1024 * 1024


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds for this process; False where the C
    library has no mallopt (not glibc) or refused the settings."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success, 0 on error.
    done = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1 and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES) == 1
    if not done:
        logger.warning("the C library refused the allocator's thresholds; freed memory goes back to the system")
    return done
