"""Tests of quadsolve.client, the Python package's daemon client, against
the real daemon.

Starts quadsolved (path in $QUADSOLVED) on a free loopback port with the
robot and htm tables, then exercises the protocol through
quadsolve.Client and a few raw sockets: solving cubes from
$QUADSOLVE_BENCH_DIR/random-1k.txt with every solution checked by the
pure-Python cube model, error replies, progress, cancel, deadlines, BUSY,
REQ clients, CURVE, the example's command line, and finally SIGTERM with
requests in flight. Tables come from $QUADSOLVE_TABLES (ctest runs the
tables fixture first).
"""

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import zmq

try:
    import jsonschema
except ImportError:  # Debian: python3-jsonschema (scripts/deps.sh)
    jsonschema = None

from quadsolve import client as qc

from cubes import BAD_CUBES

HERE = os.path.dirname(os.path.abspath(__file__))

DAEMON = os.environ.get("QUADSOLVED")
BENCH = os.environ.get("QUADSOLVE_BENCH_DIR")
SOLVED = qc.SOLVED
# A cube whose htm search with max_len 15 neither finds a solution nor
# proves there is none for many seconds (max_len 14 takes about 3 s to
# exhaust): it keeps the daemon's one worker busy until cancelled.
HARD = "DRBLUUDDUFRDRRLRFLFFLBFDULUBFFRDUBUULBRLLDRBRLFFDBUBBD"
BLOCKER = dict(facelets=HARD, metric="htm", max_len=15, time_ms=20000)


def start_daemon(*extra):
    """Starts quadsolved; returns (process, endpoint)."""
    proc = subprocess.Popen(
        [DAEMON, "--bind", "tcp://127.0.0.1:0", *extra],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    ready, _, _ = select.select([proc.stdout], [], [], 20)
    line = proc.stdout.readline().decode() if ready else ""
    if not line.startswith("listening "):
        proc.kill()
        raise RuntimeError("quadsolved did not start: %r %s" %
                           (line, proc.stderr.read().decode()[-2000:]))
    return proc, line.split()[1]


def stop_daemon(proc, timeout=10):
    """SIGTERM, then the exit status (the stderr pipe is drained)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    return proc.returncode


class Raw:
    """A bare DEALER socket for frames the Client would never send."""

    def __init__(self, ctx, endpoint, kind=zmq.DEALER):
        self.sock = ctx.socket(kind)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.connect(endpoint)

    def send(self, obj):
        self.sock.send(obj if isinstance(obj, bytes) else
                       json.dumps(obj).encode())

    def recv(self, timeout=10.0):
        if not self.sock.poll(int(timeout * 1000)):
            raise AssertionError("no reply within %g s" % timeout)
        return json.loads(self.sock.recv_multipart()[-1])

    def final(self, rid, timeout=10.0):
        """Replies up to the final one of request rid: (final, all)."""
        seen = []
        while True:
            r = self.recv(timeout)
            seen.append(r)
            if r["id"] == rid and r["type"] in ("result", "error"):
                return r, seen

    def ask(self, obj, timeout=10.0):
        self.send(obj)
        reply = self.recv(timeout)
        if os.environ.get("QS_TEST_TRACE"):
            sys.stderr.write("%s -> %s\n" % (obj, reply))
        return reply

    def close(self):
        self.sock.close(0)


@unittest.skipUnless(DAEMON and os.access(DAEMON, os.X_OK),
                     "QUADSOLVED is not set to the quadsolved executable")
class DaemonTest(unittest.TestCase):
    """One daemon for all tests; they run in name order and the last one
    stops it."""

    @classmethod
    def setUpClass(cls):
        # One client fills the whole queue in test_12: as many requests
        # as the queue holds may come from one client here.
        cls.proc, cls.endpoint = start_daemon("--metrics", "robot,htm",
                                              "--client-queue", "256")
        cls.ctx = zmq.Context()
        cls.qs = qc.Client(cls.endpoint, timeout=20, context=cls.ctx)
        cls.qs.wait_ready(timeout=120)

    @classmethod
    def tearDownClass(cls):
        cls.qs.close()
        cls.ctx.term()
        if cls.proc.poll() is None:
            stop_daemon(cls.proc)

    def raw(self, kind=zmq.DEALER):
        r = Raw(self.ctx, self.endpoint, kind)
        self.addCleanup(r.close)
        return r

    def assert_solution(self, cube, result, metric):
        self.assertEqual(result["type"], "result")
        self.assertEqual(result["metric"], metric)
        self.assertGreaterEqual(len(result["solutions"]), 1)
        for sol in result["solutions"]:
            self.assertTrue(qc.solves(cube, sol["moves"]),
                            "%s does not solve %s" % (sol["moves"], cube))
            want = sol["robot_moves"] if metric == "robot" \
                else sol["lengths"][metric]
            self.assertEqual(sol["length"], want)
            self.assertEqual(sol["robot_moves"], sol["turns"] +
                             sol["tilts"] + sol["full_regrips"])
            self.assertGreaterEqual(sol["cost_ms"], 0)
        for key in ("solve_ms", "queue_ms", "first_ms", "phase1_nodes",
                    "phase2_nodes", "phase2_searches"):
            self.assertIn(key, result["stats"])

    # ------------------------------------------------------------ basics

    def test_01_status_and_ping(self):
        st = self.qs.status()
        self.assertEqual(st["state"], "ready")
        self.assertEqual(st["tables"], {"robot": "ready", "htm": "ready"})
        self.assertEqual(st["endpoint"], self.endpoint)
        for key in ("version", "threads", "workers", "queue_depth",
                    "queue_limit", "running", "served", "uptime_s"):
            self.assertIn(key, st)
        self.assertLess(self.qs.ping(), 5.0)

    def test_02_cube_model(self):
        # The model against a known position: R from the solved cube.
        self.assertEqual(qc.scramble_to_facelets("R"),
                         "UUFUUFUUF" + "R" * 9 + "FFDFFDFFD" + "DDBDDBDDB" +
                         "L" * 9 + "UBBUBBUBB")
        scramble = "R U2 (F B') L' D (U D2) B2"
        cube = qc.scramble_to_facelets(scramble)
        self.assertFalse(qc.solves(cube, ""))
        self.assertTrue(qc.solves(cube, "B2 (U' D2) D' L (F' B) U2 R'"))
        self.assertFalse(qc.solves(cube, "B2 (U' D2) D' L (F' B) U2 R"))
        with self.assertRaises(qc.NotationError):
            qc.parse_moves("(R U)")

    def test_03_bench_cubes(self):
        with open(os.path.join(BENCH, "random-1k.txt")) as f:
            cubes = [line.strip() for line in f if line.strip()][:20]
        self.assertEqual(len(cubes), 20)
        # All in flight at once, half for the robot, half in HTM.
        ids = []
        for n, cube in enumerate(cubes):
            metric = "robot" if n % 2 == 0 else "htm"
            ids.append((cube, metric, self.qs.submit(cube, metric=metric,
                                                     time_ms=10)))
        for cube, metric, rid in ids:
            res = self.qs.wait(rid)
            self.assertEqual(res["id"], rid)
            self.assert_solution(cube, res, metric)

    def test_04_scramble_solutions_solved(self):
        res = self.qs.solve(scramble="R U R' U'", metric="htm", solutions=3)
        self.assertTrue(1 <= len(res["solutions"]) <= 3)
        self.assert_solution(qc.scramble_to_facelets("R U R' U'"), res,
                             "htm")
        lengths = [s["length"] for s in res["solutions"]]
        self.assertEqual(lengths, sorted(lengths))
        # A solved cube gets one empty solution, in every metric served.
        for metric in ("robot", "htm"):
            res = self.qs.solve(SOLVED, metric=metric)
            self.assertEqual(len(res["solutions"]), 1)
            sol = res["solutions"][0]
            self.assertEqual((sol["moves"], sol["robot"], sol["length"]),
                             ("", "", 0))
        # Options: profile by name and inline, objective, max_len.
        res = self.qs.solve(HARD, profile="lego", objective="time")
        self.assertEqual((res["profile"], res["objective"]), ("lego", "time"))
        mine = {"name": "mine", "quarter_ms": 48, "half_ms": 80,
                "pair_quarter_ms": 52, "pair_half_ms": 84, "tilt_ms": 95,
                "regrip_parallel_ms": 0, "regrip_ms": 70, "open_ms": 12,
                "close_ms": 12, "settle_ms": 4}
        res = self.qs.solve(HARD, profile=mine)
        self.assertEqual(res["profile"], "mine")
        res = self.qs.solve(HARD, metric="htm", max_len=21)
        self.assertLessEqual(res["solutions"][0]["length"], 21)

    # ------------------------------------------------------------ errors

    def expect_error(self, code, reason=None, **request):
        with self.assertRaises(qc.QuadsolveError) as cm:
            self.qs.solve(**request)
        self.assertEqual(cm.exception.code, code, str(cm.exception))
        if reason is not None:
            self.assertEqual(cm.exception.reason, reason, str(cm.exception))
        self.assertTrue(cm.exception.message)

    def test_05_invalid_cubes(self):
        for reason, cube in BAD_CUBES.items():
            with self.subTest(reason=reason):
                self.expect_error("INVALID_CUBE", reason, facelets=cube)
        self.expect_error("INVALID_MOVES", "MOVE", scramble="R U X")
        self.expect_error("INVALID_MOVES", "MOVE", scramble="(R U)")
        self.expect_error("INVALID_MOVES", "BUFFER", scramble="R " * 65)

    def test_06_bad_requests(self):
        bad = [
            dict(facelets=HARD, metric="fast"),
            dict(facelets=HARD, time_ms=0),
            dict(facelets=HARD, time_ms=600001),
            dict(facelets=HARD, time_ms=1.5),
            dict(facelets=HARD, time_ms="10"),
            dict(facelets=HARD, max_len=-1),
            dict(facelets=HARD, max_len=201),
            dict(facelets=HARD, solutions=17),
            dict(facelets=HARD, deadline_ms=0),
            dict(facelets=HARD, objective="speed"),
            dict(facelets=HARD, profile="/etc/passwd"),
            dict(facelets=HARD, profile={"quarter_ms": 1}),
            dict(facelets=HARD, time=10),           # unknown field
            dict(facelets=7),
        ]
        for request in bad:
            with self.subTest(request=request):
                self.expect_error("BAD_REQUEST", **request)
        self.expect_error("UNAVAILABLE", facelets=HARD, metric="qtm")

        raw = self.raw()
        cases = [
            (b'{"id":1,"op":"ping"', "BAD_REQUEST", None),
            (b'[1,2]', "BAD_REQUEST", None),
            (b'{"id":1,"op":"ping"} x', "BAD_REQUEST", None),
            (b'{"id":1,"op":"ping","op":"ping"}', "BAD_REQUEST", None),
            (b'{"op":"ping"}', "BAD_REQUEST", None),
            (b'{"id":1.5,"op":"ping"}', "BAD_REQUEST", None),
            (b'{"id":"' + b"x" * 101 + b'","op":"ping"}', "BAD_REQUEST",
             None),
            (b'{"id":"r1","op":"ping","x":1}', "BAD_REQUEST", "r1"),
            (b'{"id":"r2","op":"cancel"}', "BAD_REQUEST", "r2"),
            (b'{"id":"r3"}', "BAD_REQUEST", "r3"),
            (b'{"id":"r6","op":"solve","facelets":"%s","scramble":"R"}'
             % SOLVED.encode(), "BAD_REQUEST", "r6"),
            (b'{"id":"r4","op":"fly"}', "UNKNOWN_OP", "r4"),
            (b'{"id":"r5","op":"ping","pad":"' + b"x" * 70000 + b'"}',
             "TOO_LARGE", None),
        ]
        for frame, code, rid in cases:
            with self.subTest(frame=frame[:40]):
                reply = raw.ask(frame)
                self.assertEqual(reply["type"], "error")
                self.assertEqual(reply["error"]["code"], code)
                self.assertEqual(reply["id"], rid)
        raw.sock.send_multipart([b'{"id":1,"op":"ping"}', b"more"])
        self.assertEqual(raw.recv()["error"]["code"], "BAD_REQUEST")
        # Still serving, on the same connection.
        self.assertEqual(raw.ask({"id": "alive", "op": "ping"}),
                         {"id": "alive", "type": "pong"})

    def test_07_duplicate_id_in_flight(self):
        raw = self.raw()
        raw.send(dict(id="dup", op="solve", **BLOCKER))
        self.assertEqual(raw.recv()["type"], "accepted")
        raw.send(dict(id="dup", op="solve", facelets=SOLVED))
        refused = raw.recv()
        self.assertEqual((refused["id"], refused["error"]["code"]),
                         ("dup", "BAD_REQUEST"))
        # Another client may use the same id (it queues behind).
        other = self.raw()
        self.assertEqual(other.ask({"id": "dup", "op": "solve",
                                    "facelets": SOLVED})["type"], "accepted")
        self.assertEqual(raw.ask({"id": "c", "op": "cancel",
                                  "target": "dup"})["found"], True)
        self.assertEqual(raw.final("dup")[0]["error"]["code"], "CANCELLED")
        self.assertEqual(other.final("dup")[0]["type"], "result")

    # -------------------------------------------------- progress, cancel

    def test_08_progress(self):
        events = []
        res = self.qs.solve(HARD, metric="robot", time_ms=200,
                            on_progress=lambda b, ms: events.append((b, ms)))
        self.assertGreaterEqual(len(events), 1)
        bests = [b for b, _ in events]
        self.assertEqual(bests, sorted(bests, reverse=True))
        self.assertEqual(len(set(bests)), len(bests))
        self.assertEqual(res["solutions"][0]["length"], bests[-1])
        times = [ms for _, ms in events]
        self.assertEqual(times, sorted(times))
        # Progress is only sent on request.
        raw = self.raw()
        raw.send({"id": "np", "op": "solve", "facelets": HARD})
        _, seen = raw.final("np")
        self.assertEqual([r["type"] for r in seen], ["accepted", "result"])

    def test_08a_optimal(self):
        # Every optimal solution of the checkerboard (6 moves, 6 canonical
        # solutions), one progress event per length searched.
        depths = []
        scramble = "U2 D2 F2 B2 L2 R2"
        res = self.qs.solve(scramble=scramble, metric="htm", optimal=True,
                            all=True, on_depth=lambda d, f, n, ms:
                            depths.append((d, f)))
        self.assert_solution(qc.scramble_to_facelets(scramble), res, "htm")
        self.assertEqual(res["optimal_solutions"], 6)
        moves = [s["moves"] for s in res["solutions"]]
        self.assertEqual(len(set(moves)), 6)
        self.assertEqual({s["length"] for s in res["solutions"]}, {6})
        self.assertEqual(depths[-1], (6, 6))
        self.assertEqual([d for d, _ in depths],
                         list(range(depths[0][0], 7)))
        self.assertTrue(all(f == 0 for _, f in depths[:-1]))
        # Refused combinations.
        self.expect_error("BAD_REQUEST", scramble=scramble, metric="axht",
                          optimal=True)
        self.expect_error("BAD_REQUEST", scramble=scramble, optimal=True,
                          all=True)  # robot (the default): one solution
        self.expect_error("BAD_REQUEST", scramble=scramble, metric="htm",
                          optimal=True, time_ms=100)
        self.expect_error("BAD_REQUEST", scramble=scramble, metric="htm",
                          all=True)

    def test_09_cancel(self):
        # Running, no solution yet: CANCELLED within milliseconds.
        rid = self.qs.submit(**BLOCKER)
        time.sleep(0.2)
        t0 = time.monotonic()
        self.assertTrue(self.qs.cancel(rid))
        with self.assertRaises(qc.QuadsolveError) as cm:
            self.qs.wait(rid)
        self.assertEqual(cm.exception.code, "CANCELLED")
        self.assertLess(time.monotonic() - t0, 5.0)
        # Queued behind a running one; the running one next.
        first = self.qs.submit(**BLOCKER)
        second = self.qs.submit(HARD, metric="htm")
        self.assertTrue(self.qs.cancel(second))
        self.assertTrue(self.qs.cancel(first))
        for rid in (second, first):
            with self.assertRaises(qc.QuadsolveError) as cm:
                self.qs.wait(rid)
            self.assertEqual(cm.exception.code, "CANCELLED")
        # Unknown, finished, or another client's: not found.
        self.assertFalse(self.qs.cancel("no-such-id"))
        self.assertFalse(self.qs.cancel(first))
        rid = self.qs.submit(**BLOCKER)
        other = self.raw()
        self.assertEqual(other.ask({"id": 1, "op": "cancel",
                                    "target": rid})["found"], False)
        self.assertTrue(self.qs.cancel(rid))
        self.assertRaises(qc.QuadsolveError, self.qs.wait, rid)
        # Cancelled after it has solutions: still CANCELLED (the client
        # no longer wants an answer; deadline_ms is for "best by then").
        rid = self.qs.submit(HARD, metric="robot", time_ms=20000)
        time.sleep(0.3)
        self.assertTrue(self.qs.cancel(rid))
        with self.assertRaises(qc.QuadsolveError) as cm:
            self.qs.wait(rid, timeout=2)
        self.assertEqual(cm.exception.code, "CANCELLED")

    def test_10_deadline(self):
        # The search stops at the deadline with the best it has.
        t0 = time.monotonic()
        res = self.qs.solve(HARD, metric="robot", time_ms=20000,
                            deadline_ms=300)
        self.assertLess(time.monotonic() - t0, 5.0)
        self.assert_solution(HARD, res, "robot")
        # Passed while queued: DEADLINE, without running.
        blocker = self.qs.submit(**dict(BLOCKER, time_ms=600))
        late = self.qs.submit(HARD, metric="htm", deadline_ms=100)
        with self.assertRaises(qc.QuadsolveError) as cm:
            self.qs.wait(late)
        self.assertEqual(cm.exception.code, "DEADLINE")
        self.assertRaises(qc.QuadsolveError, self.qs.wait, blocker)

    def test_11_timeout_cancels(self):
        # A request stuck behind another: the client gives up after its
        # timeout and cancels it, so the daemon does not run it later.
        raw = self.raw()
        raw.send(dict(id="block", op="solve", **BLOCKER))
        self.assertEqual(raw.recv()["type"], "accepted")
        qs = qc.Client(self.endpoint, timeout=0.3, context=self.ctx)
        self.addCleanup(qs.close)
        rid = qs.submit(HARD, metric="htm", time_ms=10)
        t0 = time.monotonic()
        with self.assertRaises(qc.QuadsolveError) as cm:
            qs.wait(rid)
        self.assertEqual(cm.exception.code, "NO_REPLY")
        self.assertLess(time.monotonic() - t0, 5.0)
        self.assertEqual(qs.ping() < 5.0, True)  # the cancel went out first
        st = self.qs.status()
        self.assertEqual((st["queue_depth"], st["running"]), (0, 1))
        self.assertTrue(raw.ask({"id": "c", "op": "cancel",
                                 "target": "block"})["found"])
        self.assertEqual(raw.final("block")[0]["error"]["code"], "CANCELLED")

    # ------------------------------------------------- queue and sockets

    def wait_running(self, n=1, timeout=10.0):
        """Waits until the daemon runs n requests (a loaded machine may
        take a moment to start a worker on one)."""
        end = time.monotonic() + timeout
        while self.qs.status()["running"] != n:
            self.assertLess(time.monotonic(), end, "nothing started")
            time.sleep(0.01)

    def test_12_busy_and_fairness(self):
        limit = self.qs.status()["queue_limit"]
        raw = self.raw()
        raw.send(dict(id="block", op="solve", **BLOCKER))
        self.assertEqual(raw.recv()["type"], "accepted")
        self.wait_running()
        # BUSY: the queue holds `limit` requests, whoever sends them.
        for i in range(limit - 1):
            raw.send({"id": i, "op": "solve", "facelets": SOLVED})
        positions = [raw.recv() for _ in range(limit - 1)]
        self.assertEqual([p["type"] for p in positions],
                         ["accepted"] * (limit - 1))
        self.assertEqual(positions[-1]["queue_position"], limit - 1)
        other = self.raw()
        reply = other.ask({"id": "last", "op": "solve", "facelets": SOLVED})
        self.assertEqual((reply["type"], reply["queue_position"]),
                         ("accepted", limit))
        for sock in (raw, other):
            reply = sock.ask({"id": "over", "op": "solve",
                              "facelets": SOLVED})
            self.assertEqual((reply["id"], reply["error"]["code"]),
                             ("over", "BUSY"))
        raw.send({"id": "x", "op": "cancel", "target": "block"})
        got = {"raw": 0, "other": 0}
        poller = zmq.Poller()
        poller.register(raw.sock, zmq.POLLIN)
        poller.register(other.sock, zmq.POLLIN)
        while got["raw"] < limit or got["other"] < 1:
            events = dict(poller.poll(10000))
            self.assertTrue(events, "replies stopped at %s" % got)
            for sock in events:
                r = json.loads(sock.recv())
                if r["type"] in ("result", "error"):
                    got["raw" if sock is raw.sock else "other"] += 1
        # Fairness: a second client's request is served after one of the
        # first client's, not after its whole backlog. Each of the first
        # client's requests takes 20 ms of search, so the order shows
        # through the sockets even on a loaded machine.
        raw.send(dict(id="block2", op="solve", **BLOCKER))
        self.assertEqual(raw.recv()["type"], "accepted")
        self.wait_running()
        for i in range(12):
            raw.send({"id": "a%d" % i, "op": "solve", "facelets": HARD,
                      "metric": "htm", "time_ms": 20})
        for i in range(12):
            self.assertEqual(raw.recv()["type"], "accepted")
        self.assertEqual(other.ask({"id": "fair", "op": "solve",
                                    "facelets": HARD, "metric": "htm",
                                    "time_ms": 20})["type"], "accepted")
        raw.send({"id": "y", "op": "cancel", "target": "block2"})
        a_before_fair = 0
        while True:
            events = dict(poller.poll(10000))
            self.assertTrue(events, "no reply to fair")
            if other.sock in events:
                r = json.loads(other.sock.recv())
                if r["id"] == "fair" and r["type"] == "result":
                    break
            if raw.sock in events:
                r = json.loads(raw.sock.recv())
                if r["type"] == "result":
                    a_before_fair += 1
        self.assertLessEqual(a_before_fair, 3)
        for _ in range(12 - a_before_fair):
            r = raw.recv(10.0)
            while r["type"] != "result":
                r = raw.recv(10.0)

    def test_13_req_socket(self):
        req = self.raw(zmq.REQ)
        req.send({"id": "r", "op": "solve", "facelets": HARD,
                  "progress": True})
        res = req.recv()
        self.assertEqual((res["id"], res["type"]), ("r", "result"))
        self.assert_solution(HARD, res, "robot")
        self.assertEqual(req.ask({"id": "p", "op": "ping"})["type"], "pong")

    def test_14_command_line(self):
        with open(os.path.join(BENCH, "random-1k.txt")) as f:
            cubes = [next(f).strip() for _ in range(3)]
        script = ["-m", "quadsolve.client"]
        out = subprocess.run(
            [sys.executable, *script, "--endpoint", self.endpoint,
             "--metric", "htm", *cubes, SOLVED],
            capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.split("\n")
        self.assertEqual(len(lines), 5)   # 4 lines and the final newline
        for cube, moves in zip(cubes + [SOLVED], lines):
            self.assertTrue(qc.solves(cube, moves))
        self.assertEqual(lines[3], "")
        out = subprocess.run(
            [sys.executable, *script, "--endpoint", self.endpoint,
             BAD_CUBES["TWIST"]], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertTrue(out.stdout.startswith("error: INVALID_CUBE: TWIST: "),
                        out.stdout)

    def test_15_curve(self):
        keys = tempfile.mkdtemp(prefix="qs-curve-")
        self.addCleanup(shutil.rmtree, keys)
        allowed = os.path.join(keys, "clients")
        os.mkdir(allowed)
        for name in ("server", "robot"):
            subprocess.run([DAEMON, "--keygen", os.path.join(keys, name)],
                           check=True, capture_output=True)
        shutil.copy(os.path.join(keys, "robot.pub"), allowed)
        proc, endpoint = start_daemon(
            "--metrics", "htm", "--curve-secret",
            os.path.join(keys, "server"), "--curve-clients", allowed)
        self.addCleanup(stop_daemon, proc)
        server = qc.load_key(os.path.join(keys, "server.pub"))
        with qc.Client(endpoint, server_key=server,
                       client_public=qc.load_key(
                           os.path.join(keys, "robot.pub")),
                       client_secret=qc.load_key(os.path.join(keys, "robot")),
                       context=self.ctx) as qs:
            qs.wait_ready(timeout=60)
            res = qs.solve(scramble="R U F", metric="htm")
            self.assertTrue(qc.solves(qc.scramble_to_facelets("R U F"),
                                      res["solutions"][0]["moves"]))
        # A key not in --curve-clients, and plain text: no answer at all.
        for curve in ({"server_key": server}, {}):
            with qc.Client(endpoint, timeout=0.5, context=self.ctx,
                           **curve) as qs:
                with self.assertRaises(qc.QuadsolveError) as cm:
                    qs.ping()
                self.assertEqual(cm.exception.code, "NO_REPLY")
        self.assertEqual(stop_daemon(proc), 0)

    @unittest.skipUnless(jsonschema, "python3-jsonschema is not installed")
    def test_16_schema(self):
        # Requests and every kind of reply against docs/protocol.schema.json.
        source = os.environ.get("QUADSOLVE_SOURCE_DIR",
                                os.path.join(HERE, "..", ".."))
        path = os.path.join(source, "docs", "protocol.schema.json")
        with open(path) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)

        def validator(name):
            return jsonschema.Draft202012Validator(
                {"$ref": "#/$defs/" + name, "$defs": schema["$defs"]})
        requests, replies = validator("request"), validator("reply")
        raw = self.raw()
        sent = [
            {"id": 1, "op": "ping"},
            {"id": "s", "op": "status"},
            {"id": "a", "op": "solve", "facelets": HARD, "progress": True,
             "solutions": 2, "time_ms": 30},
            {"id": "b", "op": "solve", "scramble": "R U (F B')",
             "metric": "HTM", "max_len": None, "profile": "servo",
             "objective": "time", "deadline_ms": 1000},
            {"id": "c", "op": "solve", "facelets": SOLVED, "metric": "axqt"},
            {"id": "f", "op": "solve", "scramble": "R U F' L2", "metric":
             "htm", "optimal": True, "all": True, "progress": True,
             "deadline_ms": 86400000},
            {"id": "d", "op": "solve", "facelets": BAD_CUBES["FLIP"]},
            {"id": "e", "op": "solve", "scramble": "R U R4"},
            {"id": 2, "op": "cancel", "target": "zz"},
        ]
        for request in sent:
            self.assertEqual(list(requests.iter_errors(request)), [],
                             request)
        for bad in ({"id": 1, "op": "ping", "x": 1},
                    {"id": 1, "op": "solve"},
                    {"id": 1, "op": "solve", "facelets": HARD,
                     "scramble": "R"},
                    {"id": 1.5, "op": "ping"},
                    {"id": 1, "op": "solve", "facelets": HARD, "time_ms": 0},
                    {"id": 1, "op": "solve", "facelets": HARD,
                     "profile": "/etc/passwd"},
                    {"id": 1, "op": "solve", "facelets": HARD,
                     "optimal": 1},
                    {"id": 1, "op": "solve", "facelets": HARD,
                     "optimal": True, "all": True},
                    {"id": 1, "op": "solve", "facelets": HARD,
                     "metric": "axht", "optimal": True},
                    {"id": 1, "op": "solve", "facelets": HARD,
                     "metric": "htm", "optimal": True, "time_ms": 5},
                    {"id": 1, "op": "solve", "facelets": HARD,
                     "metric": "htm", "all": True}):
            self.assertNotEqual(list(requests.iter_errors(bad)), [], bad)
        kinds = set()
        for request in sent:
            raw.send(request)
        for frame in (b"{", b'{"id":"t","op":"ping","pad":"' +
                      b"x" * 70000 + b'"}'):
            raw.send(frame)
        deadline = time.monotonic() + 10
        finals = 0
        while finals < len(sent) + 2 and time.monotonic() < deadline:
            reply = raw.recv()
            self.assertEqual(list(replies.iter_errors(reply)), [], reply)
            kinds.add(reply["type"])
            finals += reply["type"] not in ("accepted", "progress")
        self.assertEqual(kinds, {"pong", "status", "accepted", "progress",
                                 "result", "error", "cancel"})

    @unittest.skipUnless(jsonschema, "python3-jsonschema is not installed")
    def test_17_schema_sizes(self):
        # A status from a daemon holding other table sizes than the
        # defaults (the schema's enums once knew only small and large),
        # and its keeper's figures.
        source = os.environ.get("QUADSOLVE_SOURCE_DIR",
                                os.path.join(HERE, "..", ".."))
        with open(os.path.join(source, "docs", "protocol.schema.json")) as f:
            schema = json.load(f)
        replies = jsonschema.Draft202012Validator(
            {"$ref": "#/$defs/reply", "$defs": schema["$defs"]})
        proc, endpoint = start_daemon(
            "--metrics", "robot,htm", "--robot-tables", "medium",
            "--optimal-tables", "h48", "--keep-warm", "7")
        self.addCleanup(stop_daemon, proc)
        with qc.Client(endpoint, context=self.ctx) as qs:
            qs.wait_ready(timeout=300)
            status = qs.status()
        self.assertEqual(list(replies.iter_errors(status)), [], status)
        self.assertEqual(status["robot_tables"], "medium")
        self.assertEqual(status["optimal_tables"], {"htm": "h48"})
        self.assertEqual(status["keep_warm"]["period_ms"], 7)
        # ready: the two-phase sets are held, each with its keeper
        self.assertGreaterEqual(status["keep_warm"]["threads"], 1)
        self.assertEqual(stop_daemon(proc), 0)

    # ------------------------------------------------------------- stop

    def test_99_sigterm(self):
        raw = self.raw()
        raw.send(dict(id="run", op="solve", **BLOCKER))
        raw.send({"id": "queued", "op": "solve", "facelets": HARD})
        self.assertEqual([raw.recv()["type"] for _ in range(2)],
                         ["accepted", "accepted"])
        time.sleep(0.1)
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        replies = {}
        while len(replies) < 2:
            r = raw.recv(5)
            replies[r["id"]] = r
        for rid in ("run", "queued"):
            self.assertEqual(replies[rid]["error"]["code"], "CANCELLED")
        _, err = self.proc.communicate(timeout=10)
        self.assertEqual(self.proc.returncode, 0)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertIn(b"SIGTERM received", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
