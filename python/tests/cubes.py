"""Cubes the Python tests share: one defective facelet string for each
INVALID_CUBE reason the library names, made from the solved cube."""

from quadsolve import SOLVED


def facelet(name):
    """Index of a facelet such as "U9" in a facelet string."""
    return "URFDLB".index(name[0]) * 9 + int(name[1]) - 1


def swapped(*pairs, cube=SOLVED):
    """cube with the facelets of each (name, name) pair exchanged."""
    c = list(cube)
    for a, b in pairs:
        i, j = facelet(a), facelet(b)
        c[i], c[j] = c[j], c[i]
    return "".join(c)


def replace(cube, name, colour):
    i = facelet(name)
    return cube[:i] + colour + cube[i + 1:]


# One defective facelet string for each INVALID_CUBE reason.
BAD_CUBES = {
    "LENGTH": SOLVED[:53],
    "CHARACTER": SOLVED[:53] + "X",
    "CENTER": swapped(("U5", "R5")),
    "COLOR_COUNT": replace(SOLVED, "U1", "R"),
    "CORNER": swapped(("U9", "R1")),           # a mirrored corner
    "EDGE": swapped(("F2", "D2")),             # edges U-D and F-F
    "DUP_CORNER": swapped(("U1", "R1"), ("L1", "U9")),
    "DUP_EDGE": swapped(("F2", "B8")),         # UF->UB, DB->DF
    "TWIST": swapped(("U9", "R1"), ("U9", "F3")),
    "FLIP": swapped(("U8", "F2")),
    "PARITY": swapped(("F2", "R2")),           # UF and UR exchanged
}
