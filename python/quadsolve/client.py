"""quadsolve.client: the client of quadsolved, the quadsolve solver daemon.

The protocol is described in docs/protocol.md: JSON objects, one per
ZeroMQ frame, over a DEALER socket connected to the daemon's ROUTER. This
module needs only pyzmq (Debian: python3-zmq) and the standard library.

    from quadsolve import Client
    with Client("tcp://127.0.0.1:5555") as qs:
        result = qs.solve("DRBLUUDDUFRDRRLRFLFFLBFDULUBFFRDUBUULBRLLDRBRLFFDBUBBD",
                          metric="robot", time_ms=20,
                          on_progress=lambda best, ms: print(best, ms))
        print(result["solutions"][0]["moves"], result["solutions"][0]["robot"])

Several requests may be in flight on one Client (submit() then wait()),
replies are matched to requests by id, a request that takes too long is
cancelled, and every solution is checked with the pure-Python cube model
below before solve() returns it. A Client is not thread-safe (neither is a
ZeroMQ socket): use one per thread.

Run as a program (python3 -m quadsolve.client) it solves the facelet
strings given as arguments (or read from standard input, one per line);
see --help. The cube model and QuadsolveError are shared with the
in-process solver of quadsolve.local.
"""

import argparse
import itertools
import json
import os
import sys
import time

try:
    import zmq
except ImportError:  # pragma: no cover - depends on the machine
    # quadsolve.solve (in process) needs no pyzmq; Client says so itself.
    zmq = None

DEFAULT_ENDPOINT = "tcp://127.0.0.1:5555"
SOLVED = "".join(face * 9 for face in "URFDLB")

# ---------------------------------------------------------------- cube model
#
# Facelets are numbered as in the protocol's facelet strings: the faces in
# the order U R F D L B, each read in rows of three as seen from outside
# the cube, U with B at the top, D with F at the top, the four side faces
# with U at the top. Instead of typing the 18 permutations in by hand, they
# are derived from geometry: every sticker gets the position of its cubie
# (x towards R, y towards U, z towards F, each -1, 0 or 1) and the outward
# normal of its face, and a clockwise quarter turn of a face rotates the
# stickers of that layer by -90 degrees about the face's normal.

_FACES = "URFDLB"
# face: (normal, screen "right" on the face, screen "down" on the face)
_FRAMES = {
    "U": ((0, 1, 0), (1, 0, 0), (0, 0, 1)),
    "R": ((1, 0, 0), (0, 0, -1), (0, -1, 0)),
    "F": ((0, 0, 1), (1, 0, 0), (0, -1, 0)),
    "D": ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
    "L": ((-1, 0, 0), (0, 0, 1), (0, -1, 0)),
    "B": ((0, 0, -1), (-1, 0, 0), (0, -1, 0)),
}


def _add(a, b, k=1):
    return tuple(x + k * y for x, y in zip(a, b))


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0])


def _quarter(axis, v):
    """v rotated by -90 degrees about the unit vector axis (clockwise as
    seen from the end of axis)."""
    return _add(tuple(c * _dot(axis, v) for c in axis), _cross(axis, v), -1)


def _stickers():
    """Index -> (cubie position, normal) for the 54 facelets."""
    out = []
    for face in _FACES:
        normal, right, down = _FRAMES[face]
        for i in range(9):
            row, col = divmod(i, 3)
            pos = _add(_add(normal, right, col - 1), down, row - 1)
            out.append((pos, normal))
    return out


def _face_turn_table():
    """{face: permutation p} with new[p[i]] = old[i] for a clockwise
    quarter turn of face."""
    stickers = _stickers()
    where = {s: i for i, s in enumerate(stickers)}
    table = {}
    for face in _FACES:
        axis = _FRAMES[face][0]
        perm = []
        for pos, normal in stickers:
            if _dot(pos, axis) == 1:
                pos, normal = _quarter(axis, pos), _quarter(axis, normal)
            perm.append(where[(pos, normal)])
        table[face] = perm
    return table


_QUARTER = _face_turn_table()


class NotationError(ValueError):
    """A move sequence that is not in quadsolve's notation."""


def parse_moves(text):
    """Splits "R U2 (F B') D'" into a list of moves; a move is a list of
    (face, quarter turns clockwise) for the faces it turns at once."""
    moves = []
    tokens = text.split()
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        if tok.startswith("("):
            if k + 1 >= len(tokens) or not tokens[k + 1].endswith(")"):
                raise NotationError("unclosed pair at %r" % tok)
            parts = [tok[1:], tokens[k + 1][:-1]]
            k += 2
        else:
            parts = [tok]
            k += 1
        move = []
        for p in parts:
            if len(p) not in (1, 2) or p[0] not in _FACES or \
                    (len(p) == 2 and p[1] not in "2'"):
                raise NotationError("bad move %r" % p)
            move.append((p[0], {"": 1, "2": 2, "'": 3}[p[1:]]))
        if len(move) == 2:
            a, b = (_FACES.index(face) for face, _ in move)
            if a == b or a % 3 != b % 3:
                raise NotationError("a pair turns two opposite faces: %s" %
                                    " ".join(parts))
        moves.append(move)
    return moves


def apply_moves(facelets, text):
    """The facelet string after the moves of text (quadsolve notation)."""
    cube = list(facelets)
    if len(cube) != 54:
        raise ValueError("a facelet string has 54 characters")
    for move in parse_moves(text):
        for face, quarters in move:
            perm = _QUARTER[face]
            for _ in range(quarters):
                new = [None] * 54
                for i, target in enumerate(perm):
                    new[target] = cube[i]
                cube = new
    return "".join(cube)


def scramble_to_facelets(text):
    """The facelet string that the moves of text make from a solved cube."""
    return apply_moves(SOLVED, text)


def solves(facelets, moves):
    """True when the moves of a solution turn facelets into the solved
    cube. A solution is relative to the cube's own centres, which face
    turns never move, so "solved" means every face shows its centre."""
    after = apply_moves(facelets, moves)
    return all(after[9 * f:9 * f + 9] == after[9 * f + 4] * 9
               for f in range(6))


# ---------------------------------------------------------------- the client


class QuadsolveError(Exception):
    """An error reply of the daemon or of the library in process (code,
    reason, message: the library's qsv_errcode names, "INVALID_CUBE" with
    reason "TWIST"), or one of the client's own: NO_REPLY (timeout),
    PROTOCOL (a reply that breaks the protocol), VERIFY (a solution that
    does not solve the cube). number is the library's qsv_error (-1 for
    INVALID_CUBE) when the error came from the library in process, else
    None."""

    def __init__(self, code, message, reason=None, request_id=None,
                 number=None):
        Exception.__init__(self, "%s%s: %s" % (
            code, ": " + reason if reason else "", message))
        self.code = code
        self.reason = reason
        self.message = message
        self.request_id = request_id
        self.number = number


def raise_error(reply, request_id=None):
    """Raises the QuadsolveError of an error reply (code, reason and
    message as the library names them)."""
    e = reply["error"]
    raise QuadsolveError(e["code"], e["message"], e.get("reason"),
                         request_id)


def solve_request(facelets=None, scramble=None, request_id=None,
                  **options):
    """The solve request (a dict, docs/protocol.md) of a cube given by its
    facelets or a scramble, with request_id as its id unless None; options are the request's other fields
    (metric, time_ms, max_len, solutions, deadline_ms, profile, objective,
    optimal, all), None leaving the solver's default."""
    if (facelets is None) == (scramble is None):
        raise ValueError("give facelets or scramble")
    request = {"op": "solve"}
    if request_id is not None:
        request["id"] = request_id
    if facelets is not None:
        request["facelets"] = facelets
    else:
        request["scramble"] = scramble
    for k, v in options.items():
        if v is not None:
            request[k] = v
    return request


def verify_result(request, reply):
    """Checks every solution of a result reply with the cube model above:
    raises QuadsolveError VERIFY for one that does not solve the cube."""
    if "facelets" in request:
        cube = request["facelets"]
    else:
        cube = scramble_to_facelets(request["scramble"])
    for n, sol in enumerate(reply["solutions"], 1):
        try:
            ok = solves(cube, sol["moves"])
        except (NotationError, KeyError):
            ok = False
        if not ok:
            raise QuadsolveError("VERIFY", "solution %d %r does not "
                                 "solve the cube" % (n, sol.get("moves")),
                                 request_id=request.get("id"))


def load_key(path):
    """A Z85 key (40 characters) from the first line of a file, as
    written by quadsolved --keygen."""
    with open(path, "rb") as f:
        key = f.readline().strip()
    if len(key) != 40:
        raise ValueError("%s: no 40-character Z85 key on the first line" %
                         path)
    return key


class _Pending:
    __slots__ = ("request", "replies", "final", "on_progress", "on_depth",
                 "accepted", "sent_at")

    def __init__(self, request, on_progress, on_depth=None):
        self.request = request
        self.replies = []
        self.final = None
        self.on_progress = on_progress
        self.on_depth = on_depth
        self.accepted = None
        self.sent_at = time.monotonic()


class Client:
    """One DEALER connection to quadsolved.

    endpoint: the daemon's ZeroMQ endpoint.
    timeout: seconds to wait for a reply beyond the request's own limits
        (time_ms, deadline_ms); default 30.
    server_key: the daemon's CURVE public key (Z85 str/bytes, e.g. from
        the .pub file of quadsolved --keygen) to speak CURVE; client_public
        and client_secret are this client's pair (a fresh one is made when
        they are not given, enough for a daemon without --curve-clients).
    """

    def __init__(self, endpoint=DEFAULT_ENDPOINT, timeout=30.0,
                 server_key=None, client_public=None, client_secret=None,
                 context=None, id_prefix=None):
        if zmq is None:
            raise ImportError("quadsolve.Client needs pyzmq (Debian: "
                              "python3-zmq)")
        self.endpoint = endpoint
        self.timeout = timeout
        self._own_context = context is None
        self._ctx = context or zmq.Context()
        self._sock = self._ctx.socket(zmq.DEALER)
        self._sock.setsockopt(zmq.LINGER, 0)
        if server_key is not None:
            if (client_public is None) != (client_secret is None):
                raise ValueError("give both client keys or neither")
            if client_public is None:
                client_public, client_secret = zmq.curve_keypair()
            self._sock.curve_serverkey = _bytes(server_key)
            self._sock.curve_publickey = _bytes(client_public)
            self._sock.curve_secretkey = _bytes(client_secret)
        self._sock.connect(endpoint)
        self._ids = itertools.count(1)
        self._prefix = id_prefix or "py%d-" % os.getpid()
        self._pending = {}
        self._answers = {}  # replies to ping/status/cancel, by id
        self._abandoned = set()  # ids of solves that wait() gave up on

    # -- plumbing

    def close(self):
        self._sock.close(0)
        if self._own_context:
            self._ctx.term()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _new_id(self):
        return "%s%d" % (self._prefix, next(self._ids))

    def _send(self, request):
        self._sock.send(json.dumps(request, separators=(",", ":")).encode())

    def _receive(self, timeout):
        """Receives and files the replies that arrive within timeout
        seconds (at least one poll). Returns after the first frame."""
        if not self._sock.poll(max(0, int(timeout * 1000))):
            return False
        while True:
            try:
                frame = self._sock.recv(zmq.NOBLOCK)
            except zmq.Again:
                return True
            self._file(frame)

    def _file(self, frame):
        try:
            reply = json.loads(frame.decode("utf-8"))
            rid, kind = reply["id"], reply["type"]
        except (ValueError, KeyError, TypeError):
            raise QuadsolveError("PROTOCOL", "not a reply: %r" % frame[:200])
        key = json.dumps(rid)
        pending = self._pending.get(key)
        if pending is None and key in self._abandoned:
            # The late replies of a request given up by wait().
            if kind in ("result", "error"):
                self._abandoned.discard(key)
            return
        if pending is None:
            # Replies to ping/status/cancel, and errors for frames whose
            # id the daemon could not read (id null).
            self._answers[key] = reply
            return
        pending.replies.append(reply)
        if kind == "accepted":
            pending.accepted = reply
        elif kind == "progress":
            # An optimal solve reports each length searched (depth), the
            # others each new best solution.
            if "depth" in reply:
                if pending.on_depth:
                    pending.on_depth(reply["depth"], reply["found"],
                                     reply["nodes"], reply["elapsed_ms"])
            elif pending.on_progress:
                pending.on_progress(reply["best"], reply["elapsed_ms"])
        elif kind in ("result", "error"):
            pending.final = reply
        else:
            raise QuadsolveError("PROTOCOL", "unexpected %r reply to a solve"
                                 % kind, request_id=rid)

    def _call(self, request, timeout):
        """Sends a ping/status/cancel request and returns its reply."""
        key = json.dumps(request["id"])
        self._send(request)
        end = time.monotonic() + (self.timeout if timeout is None
                                  else timeout)
        while key not in self._answers:
            left = end - time.monotonic()
            if left <= 0:
                raise QuadsolveError("NO_REPLY", "no reply to %s within "
                                     "the timeout" % request["op"],
                                     request_id=request.get("id"))
            self._receive(left)
        reply = self._answers.pop(key)
        if reply["type"] == "error":
            raise_error(reply, request["id"])
        return reply

    # -- operations

    def ping(self, timeout=None):
        """Round-trip time of a ping, in seconds."""
        t0 = time.monotonic()
        self._call({"id": self._new_id(), "op": "ping"}, timeout)
        return time.monotonic() - t0

    def status(self, timeout=None):
        """The daemon's status reply (a dict: state, tables, queue_depth,
        served, uptime_s, ...)."""
        return self._call({"id": self._new_id(), "op": "status"}, timeout)

    def wait_ready(self, timeout=60.0, interval=0.1):
        """Polls status until state is "ready" (or "degraded", returned
        too: some metric failed to load). Returns the status."""
        end = time.monotonic() + timeout
        while True:
            st = self.status(timeout=max(0.1, end - time.monotonic()))
            if st["state"] in ("ready", "degraded"):
                return st
            if time.monotonic() + interval > end:
                raise QuadsolveError("NO_REPLY", "daemon still %s after %g s"
                                     % (st["state"], timeout))
            time.sleep(interval)

    def cancel(self, request_id, timeout=None):
        """Asks the daemon to cancel one of this client's requests. Returns
        whether the daemon found it queued or running. The request itself
        then ends with an error CANCELLED that wait() raises."""
        reply = self._call({"id": self._new_id(), "op": "cancel",
                            "target": request_id}, timeout)
        return reply["found"]

    def submit(self, facelets=None, scramble=None, on_progress=None,
               request_id=None, on_depth=None, **options):
        """Sends a solve request without waiting; returns its id for
        wait() and cancel(). options are the request's other fields:
        metric, time_ms, max_len, solutions, deadline_ms, profile (a
        built-in name or a dict), objective, optimal, all; None leaves the
        daemon's default. on_progress(best, elapsed_ms) gets each new best
        length, on_depth(depth, found, nodes, elapsed_ms) each length an
        optimal solve has searched."""
        rid = request_id if request_id is not None else self._new_id()
        request = solve_request(facelets, scramble, rid, **options)
        if on_progress is not None or on_depth is not None:
            request["progress"] = True
        key = json.dumps(rid)
        if key in self._pending:
            raise ValueError("id %s is already in flight" % key)
        self._pending[key] = _Pending(request, on_progress, on_depth)
        self._send(request)
        return rid

    def _limit(self, request):
        """Seconds the daemon may legitimately spend on a request; None
        for an optimal solve without a deadline, which has no bound."""
        def ms(key):
            v = request.get(key)
            return v if isinstance(v, int) and v > 0 else None
        if request.get("optimal") and not ms("deadline_ms"):
            return None
        own = ms("deadline_ms") or ms("time_ms") or (
            10000 if request.get("max_len") is not None else 10)
        return own / 1000.0

    def _give_up(self, key, request_id, why):
        del self._pending[key]
        self._abandoned.add(key)
        try:
            self._send({"id": self._new_id(), "op": "cancel",
                        "target": request_id})
        except zmq.ZMQError:
            pass
        raise QuadsolveError("NO_REPLY", why, request_id=request_id)

    def wait(self, request_id, timeout=None, verify=True):
        """Waits for the final reply of a submitted request and returns the
        result (a dict, see docs/protocol.md), or raises QuadsolveError
        with the daemon's error. When no final reply comes within the
        request's own limit plus timeout (default: the client's timeout),
        the request is cancelled and NO_REPLY raised. An optimal solve
        without deadline_ms has no limit: it is waited for as long as the
        daemon answers a ping after each timeout of silence."""
        key = json.dumps(request_id)
        pending = self._pending[key]
        grace = self.timeout if timeout is None else timeout
        own = self._limit(pending.request)
        if own is None:
            # No bound: wait while the daemon answers a ping after each
            # silence of `grace` seconds (a long search is silent too).
            while pending.final is None:
                if not self._receive(grace):
                    try:
                        self.ping(timeout=grace)
                    except QuadsolveError:
                        self._give_up(key, request_id, "the daemon stopped "
                                      "answering (no reply to a ping)")
        budget = (own or 0) + grace
        end = pending.sent_at + budget
        while pending.final is None:
            left = end - time.monotonic()
            if left <= 0:
                self._give_up(key, request_id,
                              "no reply within %.1f s" % budget)
            self._receive(left)
        del self._pending[key]
        reply = pending.final
        if reply["type"] == "error":
            raise_error(reply, request_id)
        if verify:
            verify_result(pending.request, reply)
        return reply

    def solve(self, facelets=None, scramble=None, on_progress=None,
              timeout=None, verify=True, on_depth=None, **options):
        """submit() then wait(): the verified result of one solve."""
        rid = self.submit(facelets, scramble, on_progress, on_depth=on_depth,
                          **options)
        return self.wait(rid, timeout, verify)


def _bytes(key):
    return key.encode() if isinstance(key, str) else key


# ---------------------------------------------------------------- the CLI


def _arguments(argv):
    p = argparse.ArgumentParser(
        prog="python3 -m quadsolve.client",
        description="Solve cubes with a running quadsolved. Prints one line "
        "per cube: the moves (checked here), or 'error: CODE: message'.")
    p.add_argument("facelets", nargs="*",
                   help="54-character URFDLB facelet strings (default: read "
                   "one per line from standard input)")
    p.add_argument("--endpoint", "-e",
                   default=os.environ.get("QUADSOLVED_ENDPOINT",
                                          DEFAULT_ENDPOINT),
                   help="daemon endpoint (default $QUADSOLVED_ENDPOINT or "
                   "%s)" % DEFAULT_ENDPOINT)
    p.add_argument("--scramble", help="solve the cube these moves make")
    p.add_argument("--metric", choices=["robot", "htm", "qtm", "axht",
                                        "axqt"])
    p.add_argument("--time-ms", type=int)
    p.add_argument("--max-len", type=int)
    p.add_argument("--solutions", type=int)
    p.add_argument("--deadline-ms", type=int)
    p.add_argument("--profile", help="built-in profile name, or a JSON "
                   "file sent inline")
    p.add_argument("--objective", choices=["moves", "time"])
    p.add_argument("--optimal", action="store_true",
                   help="a shortest solution (metric htm or qtm; no "
                   "time limit)")
    p.add_argument("--all", action="store_true",
                   help="with --optimal: every optimal solution (up to 16)")
    p.add_argument("--robot", action="store_true",
                   help="also print the robot-frame plan and its cost")
    p.add_argument("--json", action="store_true",
                   help="print each reply as one JSON line")
    p.add_argument("--progress", action="store_true",
                   help="print progress events on standard error")
    p.add_argument("--timeout", type=float, default=30.0,
                   help="seconds to wait beyond the request's own limits")
    p.add_argument("--status", action="store_true",
                   help="print the daemon's status and exit")
    p.add_argument("--curve-server-key", metavar="FILE",
                   help="CURVE: the daemon's public key file (.pub)")
    p.add_argument("--curve-client-key", metavar="FILE",
                   help="CURVE: this client's secret key file (its .pub "
                   "next to it), from quadsolved --keygen")
    return p.parse_args(argv)


def main(argv=None):
    args = _arguments(argv)
    curve = {}
    if args.curve_server_key:
        curve["server_key"] = load_key(args.curve_server_key)
        if args.curve_client_key:
            curve["client_secret"] = load_key(args.curve_client_key)
            curve["client_public"] = load_key(args.curve_client_key + ".pub")
    profile = args.profile
    if profile and (profile.endswith(".json") or "/" in profile):
        with open(profile) as f:
            profile = json.load(f)
    options = dict(metric=args.metric, time_ms=args.time_ms,
                   max_len=args.max_len, solutions=args.solutions,
                   deadline_ms=args.deadline_ms, profile=profile,
                   objective=args.objective,
                   optimal=True if args.optimal else None,
                   all=True if args.all else None)
    if args.scramble is not None:
        cubes = [("scramble", args.scramble)]
    else:
        source = args.facelets or (line.strip() for line in sys.stdin)
        cubes = [("facelets", c) for c in source]

    def progress(best, ms):
        sys.stderr.write("progress: %d after %.1f ms\n" % (best, ms))

    def depth(length, found, nodes, ms):
        sys.stderr.write("optimal: length %d: %s (%d nodes, %.1f s)\n" % (
            length, "found" if found else "none", nodes, ms / 1000.0))

    failed = 0
    with Client(args.endpoint, timeout=args.timeout, **curve) as qs:
        if args.status:
            print(json.dumps(qs.status()))
            return 0
        # Keep up to 16 requests in flight; print in input order.
        window, ids = 16, []
        for n, (kind, cube) in enumerate(cubes):
            ids.append(qs.submit(on_progress=progress if args.progress
                                 else None,
                                 on_depth=depth if args.progress else None,
                                 **{kind: cube}, **options))
            if len(ids) < window and n + 1 < len(cubes):
                continue
            while ids:
                rid = ids.pop(0)
                try:
                    res = qs.wait(rid)
                except QuadsolveError as e:
                    if e.code == "NO_REPLY":
                        sys.stderr.write("quadsolve.client: %s\n" % e)
                        return 2
                    failed += 1
                    if args.json:
                        print(json.dumps({"id": rid, "type": "error",
                                          "error": {"code": e.code,
                                                    "reason": e.reason,
                                                    "message": e.message}}))
                    else:
                        print("error: %s%s: %s" % (
                            e.code, ": " + e.reason if e.reason else "",
                            e.message))
                    continue
                if args.json:
                    print(json.dumps(res))
                    continue
                for sol in res["solutions"]:
                    line = sol["moves"]
                    if args.robot:
                        line += "  |  %s  {%d robot moves, %.1f ms}" % (
                            sol["robot"], sol["robot_moves"], sol["cost_ms"])
                    print(line)
            sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (zmq.ZMQError if zmq else ()) as e:
        sys.stderr.write("quadsolve.client: %s\n" % e)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
