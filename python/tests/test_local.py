"""Tests of quadsolve.local (quadsolve.solve, Solver): the ctypes binding
of the installed libquadsolve, solving in this process with the tables of
$QUADSOLVE_TABLES. Every solution is checked here by applying it with the
package's cube model, besides the check solve() itself makes; errors must
arrive as QuadsolveError with the library's code, reason and number."""

import os
import subprocess
import sys
import tempfile
import threading

import pytest

import quadsolve
from cubes import BAD_CUBES
from quadsolve import QuadsolveError, Solver, scramble_to_facelets, solves

HARD = "DRBLUUDDUFRDRRLRFLFFLBFDULUBFFRDUBUULBRLLDRBRLFFDBUBBD"
SCRAMBLE = "R U2 F' L D B2 R' U"


# One set of tables for the whole run, the one quadsolve.solve uses: the
# small robot set when QUADSOLVE_TABLE_SIZE=small (tests/test_python.sh),
# and only the metrics below, so the process holds about 2 GB at most.
METRICS = ("robot", "htm", "qtm")


@pytest.fixture(scope="module")
def solver():
    return quadsolve.local.default_solver()


def test_solve_like_kociemba():
    moves = quadsolve.solve(HARD, metric="robot")
    assert isinstance(moves, str) and moves
    assert solves(HARD, moves)


def test_metrics(solver):
    cube = scramble_to_facelets(SCRAMBLE)
    for metric in METRICS:
        res = solver.solve_full(cube, metric=metric, time_ms=20)
        assert res["type"] == "result" and res["metric"] == metric
        best = res["solutions"][0]
        assert solves(cube, best["moves"]), (metric, best["moves"])
        assert best["length"] >= 1


def test_robot_plan(solver):
    res = solver.solve_full(scramble=SCRAMBLE, metric="robot", time_ms=30,
                            solutions=2)
    assert 1 <= len(res["solutions"]) <= 2
    for sol in res["solutions"]:
        assert sol["robot"] and sol["robot_moves"] == sol["length"]
        assert sol["cost_ms"] > 0


def test_solved_cube():
    assert quadsolve.solve(quadsolve.SOLVED, metric="htm") == ""


def test_max_len_not_found(solver):
    with pytest.raises(QuadsolveError) as e:
        solver.solve(HARD, metric="htm", max_len=5, time_ms=200)
    assert e.value.code == "NOT_FOUND" and e.value.number == -9


@pytest.mark.parametrize("reason", sorted(BAD_CUBES))
def test_bad_cube(solver, reason):
    with pytest.raises(QuadsolveError) as e:
        solver.solve(BAD_CUBES[reason], metric="robot")
    assert (e.value.code, e.value.reason, e.value.number) == (
        "INVALID_CUBE", reason, -1)
    assert e.value.message


def test_bad_options(solver):
    with pytest.raises(QuadsolveError) as e:
        solver.solve(HARD, metric="stm")
    assert (e.value.code, e.value.number) == ("BAD_REQUEST", -3)
    assert "metric" in e.value.message
    with pytest.raises(QuadsolveError) as e:
        solver.solve(HARD, metric="htm", time_ms=-1)
    assert e.value.code == "BAD_REQUEST"
    with pytest.raises(QuadsolveError) as e:
        solver.solve(scramble="R U X2", metric="htm")
    assert (e.value.code, e.value.number) == ("INVALID_MOVES", -2)
    with pytest.raises(QuadsolveError) as e:
        solver.solve(HARD, metric="htm", deadline_ms=100)
    assert e.value.code == "BAD_REQUEST" and "time_ms" in e.value.message
    with pytest.raises(QuadsolveError) as e:
        solver.request({"id": 7, "op": "status"})
    assert (e.value.code, e.value.request_id) == ("UNKNOWN_OP", 7)
    with pytest.raises(ValueError):
        solver.solve(HARD, scramble="R")
    with pytest.raises(ValueError):
        Solver(table_size="huge")


def test_medium_robot_set():
    # the robot set of a 2 GB robot computer: the small set and the
    # corner-path table
    medium = Solver(table_size="medium")
    try:
        res = medium.solve_full(scramble=SCRAMBLE, metric="robot",
                                time_ms=20)
        best = res["solutions"][0]
        assert solves(scramble_to_facelets(SCRAMBLE), best["moves"])
        assert best["robot_moves"] == best["length"] >= 1
    finally:
        medium.close()


def test_unusable_table_directory():
    # A regular file where the directory should be: the tables cannot be
    # had, and the error says so (nothing is generated).
    with tempfile.NamedTemporaryFile() as f, Solver(tables=f.name) as s:
        with pytest.raises(QuadsolveError) as e:
            s.solve(HARD, metric="htm")
        assert (e.value.code, e.value.number) == ("UNAVAILABLE", -10)
        assert "htm tables" in e.value.message


def test_threads_share_a_solver(solver):
    cubes = [scramble_to_facelets(SCRAMBLE + " " + m)
             for m in ("R", "U", "F2", "L'", "D", "B")]
    out = {}

    def run(cube):
        out[cube] = solver.solve(cube, metric="htm", time_ms=20)

    threads = [threading.Thread(target=run, args=(c,)) for c in cubes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(out) == len(cubes)
    for cube, moves in out.items():
        assert solves(cube, moves)


def test_closed_solver():
    s = Solver()
    s.close()
    with pytest.raises(ValueError):
        s.solve(HARD)


def test_library_version():
    assert quadsolve.library_version() == quadsolve.__version__


def test_missing_library():
    code = ("import quadsolve\n"
            "try:\n"
            "    quadsolve.solve('x')\n"
            "except ImportError as e:\n"
            "    print('ImportError', e)\n")
    env = dict(os.environ, QUADSOLVE_LIBRARY="/nonexistent/libquadsolve.so")
    out = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ImportError libquadsolve is not installed")
