"""Two process-wide settings that training on a worker thread needs, applied once at startup.

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


def tune_process():
    """Switch interval 0.5 ms, OpenBLAS single-threaded (see the module docstring)."""
    if sys.getswitchinterval() > SWITCH_INTERVAL:
        sys.setswitchinterval(SWITCH_INTERVAL)
    if BLAS_ENV in os.environ:
        return  # set here before numpy loaded, or the user's own choice
    if "numpy" not in sys.modules:
        os.environ[BLAS_ENV] = "1"
    else:
        limit_blas_threads(1)


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
