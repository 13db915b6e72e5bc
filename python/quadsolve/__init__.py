"""quadsolve: Rubik's cube solutions for quad-arm robots, from Python.

    import quadsolve
    quadsolve.solve("DRBLUUDDUFRDRRLRFLFFLBFDULUBFFRDUBUULBRLLDRBRLFFDBUBBD",
                    metric="robot")          # in this process, no daemon

solve() runs the installed libquadsolve in this process (quadsolve.local,
through ctypes) and returns the moves of the best solution; Solver gives
the whole result (the robot plan, its cost) and control over the tables.
Client talks to a running quadsolved instead (quadsolve.client, needs
pyzmq). Both send the daemon protocol's requests (docs/protocol.md), get
its results, check every solution with the cube model here, and raise
QuadsolveError with the library's error codes.
"""

from .client import (SOLVED, Client, NotationError, QuadsolveError,
                     apply_moves, scramble_to_facelets, solves)
from .local import Solver, library_version, solve

__version__ = "0.1.0"
__all__ = ["solve", "Solver", "Client", "QuadsolveError", "NotationError",
           "apply_moves", "scramble_to_facelets", "solves", "SOLVED",
           "library_version"]
