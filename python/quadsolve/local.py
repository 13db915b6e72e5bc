"""quadsolve.local: the solver in this process, through the installed
libquadsolve (ctypes), with no daemon.

The library's qsv_local_* functions take the daemon protocol's request
frame and return its reply frame (docs/protocol.md), so this module sends
the same dicts quadsolve.Client does and gets the same results back, and
an error is the same QuadsolveError with the library's code ("INVALID_CUBE"),
reason ("TWIST") and number (the qsv_error, -1). Every solution is checked
again with the pure-Python cube model before it is returned.

The library is found as $QUADSOLVE_LIBRARY (a path), else as
libquadsolve.so.0 on the loader's path (LD_LIBRARY_PATH, ldconfig).
"""

import ctypes
import ctypes.util
import json
import os
import threading

from .client import QuadsolveError, solve_request, verify_result

SONAME = "libquadsolve.so.0"


def _load(path=None):
    """The library, its functions typed."""
    path = path or os.environ.get("QUADSOLVE_LIBRARY")
    names = [path] if path else [SONAME, ctypes.util.find_library("quadsolve")]
    errors = []
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise ImportError("libquadsolve is not installed or not on the "
                          "loader's path (set QUADSOLVE_LIBRARY to its "
                          "file): %s" % "; ".join(errors))
    lib.qs_version.restype = ctypes.c_char_p
    lib.qs_version.argtypes = []
    lib.qsv_local_open.restype = ctypes.c_int
    lib.qsv_local_open.argtypes = [ctypes.c_char_p, ctypes.c_int,
                                   ctypes.c_int,
                                   ctypes.POINTER(ctypes.c_void_p)]
    # A char * the caller frees: c_void_p keeps the pointer (c_char_p
    # would convert it and lose it).
    lib.qsv_local_solve.restype = ctypes.c_void_p
    lib.qsv_local_solve.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                    ctypes.c_size_t, ctypes.c_void_p]
    lib.qsv_local_close.restype = None
    lib.qsv_local_close.argtypes = [ctypes.c_void_p]
    lib.qsv_free.restype = None
    lib.qsv_free.argtypes = [ctypes.c_void_p]
    lib.qsv_errcode.restype = ctypes.c_char_p
    lib.qsv_errcode.argtypes = [ctypes.c_int]
    lib.qsv_error_parse.restype = ctypes.c_int
    lib.qsv_error_parse.argtypes = [ctypes.c_char_p]
    return lib


_lib = None
_lib_lock = threading.Lock()


def library():
    """The loaded libquadsolve (loaded on first use)."""
    global _lib
    with _lib_lock:
        if _lib is None:
            _lib = _load()
        return _lib


def library_version():
    """The version of the libquadsolve in use, e.g. "0.1.0"."""
    return library().qs_version().decode()


def _error(lib, code, message):
    return QuadsolveError(lib.qsv_errcode(code).decode(), message,
                          number=code)


class Solver:
    """The tables of each metric, opened on the first solve that needs
    them (generated into the table directory when missing: minutes, once)
    and kept until close(). One Solver may be used from several threads.

    tables: the table directory (default $QUADSOLVE_TABLES, else
    ~/.cache/quadsolve). threads: search and table-generation threads (0:
    the library's defaults). table_size: "large" (default: the fastest
    sets, with the optimal solver's 3.84 GB h48h7 set in HTM), "medium"
    (the 771 MB robot set, for a 2 GB Raspberry Pi) or "small" (the 734 MB
    robot set, for a 1 GB one; see docs/raspberry-pi.md)."""

    _SIZES = {"large": 0, "small": 1, "medium": 2}  # QSV_TABLES_*

    def __init__(self, tables=None, threads=0, table_size="large"):
        if table_size not in self._SIZES:
            raise ValueError("table_size is 'large', 'medium' or 'small'")
        self._lib = library()
        handle = ctypes.c_void_p()
        rc = self._lib.qsv_local_open(
            os.fsencode(tables) if tables is not None else None,
            int(threads), self._SIZES[table_size], ctypes.byref(handle))
        if rc != 0:
            raise _error(self._lib, rc, "cannot open the solver")
        self._handle = handle

    def close(self):
        """Frees the tables; the Solver cannot be used afterwards."""
        # (also from __del__ after a failed __init__, without a handle)
        if getattr(self, "_handle", None):
            self._lib.qsv_local_close(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def request(self, request, verify=True):
        """Solves one request dict (docs/protocol.md, op "solve") and
        returns the result dict the daemon would send, or raises
        QuadsolveError with the error it would send."""
        if not self._handle:
            raise ValueError("the Solver is closed")
        frame = json.dumps(request).encode()
        p = self._lib.qsv_local_solve(self._handle, frame, len(frame), None)
        if not p:
            raise QuadsolveError("INTERNAL", "out of memory")
        try:
            reply = json.loads(ctypes.string_at(p).decode())
        finally:
            self._lib.qsv_free(p)
        if reply["type"] == "error":
            e = reply["error"]
            raise QuadsolveError(
                e["code"], e["message"], e.get("reason"), request.get("id"),
                number=self._lib.qsv_error_parse(e["code"].encode()))
        if verify:
            verify_result(request, reply)
        return reply

    def solve_full(self, facelets=None, scramble=None, verify=True,
                   **options):
        """The verified result dict of one cube given by its facelets or a
        scramble; options are the request's fields (metric, time_ms,
        max_len, solutions, profile, objective, optimal, all)."""
        # The protocol wants an id; it only comes back in the reply here.
        return self.request(solve_request(facelets, scramble, 1, **options),
                            verify)

    def solve(self, facelets=None, metric="robot", scramble=None,
              **options):
        """The moves of the best solution, as a string ("" for a solved
        cube)."""
        res = self.solve_full(facelets, scramble, metric=metric, **options)
        return res["solutions"][0]["moves"]


_default = None
_default_lock = threading.Lock()


def default_solver():
    """The Solver quadsolve.solve uses: tables from $QUADSOLVE_TABLES (or
    the cache), table size from $QUADSOLVE_TABLE_SIZE (default large)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Solver(table_size=os.environ.get(
                "QUADSOLVE_TABLE_SIZE", "large"))
        return _default


def solve(facelets=None, metric="robot", scramble=None, **options):
    """Solves a cube in this process and returns the moves of its best
    solution, as kociemba.solve does: quadsolve.solve(facelets,
    metric="robot"). Raises QuadsolveError (code, reason, number) for a
    cube that cannot exist, a bad option, or no solution in time."""
    return default_solver().solve(facelets, metric, scramble, **options)
