"""Three process-wide settings that training on a worker thread needs, applied once at startup.

1. The interpreter's switch interval: 5 ms -> 0.5 ms. While the worker trains
   in pure Python, the GUI thread waits for the GIL on every return from Qt
   into Python, and CPython hands it over only when the switch interval ends.
   A repaint makes hundreds of such returns, so at 5 ms each the window froze;
   at 0.5 ms the GUI thread gets the interpreter back within half a
   millisecond. A switch happens only while both threads want to run, so the
   worker loses next to nothing (bench/bench_gui_training.py: the longest
   event-loop delay while training with live plots fell from 51-74 ms at 1 ms
   to 27-39 ms at 0.5 ms; steps per second unchanged within the noise).

2. BLAS threads: 1. The worker's matrix products are tiny (a 50x50 grid
   through 16 neurons), so BLAS threads gain nothing -- but OpenBLAS keeps its
   idle threads spinning for a while after each product, and on a two-core
   machine that spinning took the core the GUI thread needed: live plots
   halved the training speed until BLAS ran single-threaded.

3. The C allocator keeps freed memory: glibc's malloc gives freed memory
   back to the system once more than a "trim threshold" is free at the top of
   a heap. The batched replay allocates and frees arrays of ~100 kB many times
   a step; on a thread other than the main one (the training worker) glibc
   returned them every time and took them back page by page: ~970 page faults
   a step, and a 500-point 16-16 step ran 2.3x slower on a thread (~170 steps/s)
   than on the main thread (~450 steps/s). Whether it happened depended on what
   the process had allocated before (glibc raises its thresholds as it sees
   large blocks freed; the panel's worker was spared by the boundary's grids).
   Fixed thresholds -- keep up to 64 MB free per heap, take blocks under
   16 MB from the heap rather than from their own mapping -- make it never
   happen: 0 faults a step, the same speed on every thread. It costs at most
   that much memory kept per heap, which a desktop app can spare.

`app.startup.main()` calls `tune_process()` before numpy is first
imported, so OPENBLAS_NUM_THREADS=1 takes effect when numpy loads OpenBLAS.
When numpy is already loaded (the panel used on its own: tests, embedding),
OpenBLAS's own setter does it at run time instead. A thread count the user
chose in the environment is left alone. Calling it again does nothing.

This module imports neither numpy nor Qt, so it can run first.
"""

import ctypes
import glob
import os
import sys

SWITCH_INTERVAL = 0.0005  # seconds
BLAS_ENV = "OPENBLAS_NUM_THREADS"

_blas_limited = False


# glibc's mallopt() parameters (malloc.h) and the values set (see the module docstring, item 3)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
TRIM_THRESHOLD = 64 * 2**20
MMAP_THRESHOLD = 16 * 2**20

_malloc_tuned = False


def tune_process():
    """Switch interval 0.5 ms, the allocator's thresholds fixed, OpenBLAS single-threaded
    (see the module docstring)."""
    if sys.getswitchinterval() > SWITCH_INTERVAL:
        sys.setswitchinterval(SWITCH_INTERVAL)
    keep_freed_memory()
    if BLAS_ENV in os.environ:
        return  # set here before numpy loaded, or the user's own choice
    if "numpy" not in sys.modules:
        os.environ[BLAS_ENV] = "1"
    else:
        limit_blas_threads(1)


def keep_freed_memory():
    """Fix glibc malloc's trim and mmap thresholds (item 3); True if set. Elsewhere (macOS,
    Windows, musl) there is no mallopt and nothing to do: False."""
    global _malloc_tuned
    if _malloc_tuned:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success; setting either also stops glibc adjusting both on its own
    _malloc_tuned = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _malloc_tuned


def limit_blas_threads(n=1):
    """Tell the OpenBLAS that numpy already loaded to use n threads; True if it could be told."""
    global _blas_limited
    if _blas_limited:
        return True
    np = sys.modules.get("numpy")
    if np is None:
        return False
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    names = (
        "scipy_openblas_set_num_threads64_",
        "scipy_openblas_set_num_threads",
        "openblas_set_num_threads64_",
        "openblas_set_num_threads",
    )
    for path in glob.glob(os.path.join(libs, "*openblas*")):
        try:
            lib = ctypes.CDLL(path)  # the library numpy already loaded: dlopen returns the same handle
        except OSError:
            continue
        for name in names:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(int(n))
                _blas_limited = True
                return True
    return False
