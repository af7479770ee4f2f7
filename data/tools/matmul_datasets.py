#!/usr/bin/env python3
"""Make, add and check the matrix-multiply datasets kept as CMake ExternalData content links.

A dataset is one JSON object (see docs/DATASETS.md):
  {"lab": ..., "name": ..., "description": ..., "m": M, "n": N, "k": K,
   "A": [M*N floats], "B": [N*K floats], "C": [M*K floats]}        (all row-major)
It is stored once, under its SHA-256, as <store>/SHA256/<hash>; the lab refers to it through a
content link <data dir>/<lab>/<name>.json.sha256 whose only content is that hash.

  matmul_datasets.py 03_tiled_matmul             write the built-in datasets for one lab
  matmul_datasets.py 01_matmul --name ones_17x5x9 ...   only some of them
  matmul_datasets.py --add my_case.json           store a hand-made dataset and link it
  matmul_datasets.py --check                      verify every link, object and expected C
  --data-dir DIR / --store DIR                    another folder of links / object store (for
                                                  an instructor's private, hidden datasets)

Python 3 standard library only, so that it runs wherever CMake finds an interpreter.
"""

import argparse
import hashlib
import json
import math
import pathlib
import re
import sys

DATA_DIR = pathlib.Path(__file__).resolve().parent.parent  # the repository's data/
ALGO = "SHA256"
LINK_SUFFIX = ".json.sha256"
LAB_RE = re.compile(r"^[0-9]{2}_[a-z0-9_]+$")
NAME_RE = re.compile(r"^[A-Za-z0-9_]+$")
HASH_RE = re.compile(r"^[0-9a-f]{64}$")
# Every partial sum of a dot product of integers stays exact in float32 below 2**24, whatever
# the order of the additions and whether they are fused: that is what makes C exact.
EXACT_LIMIT = 2**24
FLOAT32_UNIT_ROUNDOFF = 2.0**-24


# ---------------------------------------------------------------------------------------------
# Built-in datasets. Each builder returns (description, m, n, k, A, B) with integer entries;
# C is computed here exactly, never typed in by hand.


def example_4x4x3():
    # A 4 x 4 times B 4 x 3: big enough to show rows, columns and a non-square result, small
    # enough to multiply on paper. Zeros and negative entries make sign and skip bugs visible.
    a = [[2, 1, 0, 3],
         [-1, 4, 2, 0],
         [0, 1, -2, 1],
         [3, 0, 1, -1]]
    b = [[1, 0, 2],
         [2, -1, 1],
         [0, 3, 1],
         [-1, 2, 0]]
    return ("Worked example from the handout: a 4x4 A times a 4x3 B, small integers so C is exact.",
            4, 4, 3, a, b)


def ones_17x5x9():
    # n = 5 is less than one tile: a kernel that skips the partial tile in n returns 0, one that
    # reads past it without zero-filling returns garbage. m = 17 and k = 9 leave partial tiles too.
    m, n, k = 17, 5, 9
    return ("All-ones A (17x5) and B (5x9): every element of C is 5. Catches partial tiles in n.",
            m, n, k, [[1] * n for _ in range(m)], [[1] * k for _ in range(n)])


def identity_32():
    # A = I, so C must equal B; distinct entries in B show where a wrong index reads from.
    size = 32
    a = [[1 if r == c else 0 for c in range(size)] for r in range(size)]
    b = [[r * size + c - size * size // 2 for c in range(size)] for r in range(size)]
    return ("A is the 32x32 identity and B holds 1024 distinct integers, so C equals B exactly.",
            size, size, size, a, b)


BUILDERS = {f.__name__: f for f in (example_4x4x3, ones_17x5x9, identity_32)}


# ---------------------------------------------------------------------------------------------
# Dataset objects: building, serialising, validating.


def multiply_exact(m, n, k, a, b):
    c = [[0] * k for _ in range(m)]
    for r in range(m):
        for col in range(k):
            total = 0
            for i in range(n):
                total += a[r][i] * b[i][col]
                if abs(total) >= EXACT_LIMIT:
                    raise ValueError("partial sum %d is not exact in float32" % total)
            c[r][col] = total
    return c


def make_dataset(lab, name, description, m, n, k, a, b):
    c = multiply_exact(m, n, k, a, b)
    flat = lambda rows: [float(x) for row in rows for x in row]
    return {"lab": lab, "name": name, "description": description, "m": m, "n": n, "k": k,
            "A": flat(a), "B": flat(b), "C": flat(c)}


def serialise(ds):
    """Deterministic text (the hash depends on it): fixed key order, one matrix row per line."""

    def matrix(values, cols):
        rows = [", ".join(repr(float(v)) for v in values[i:i + cols])
                for i in range(0, len(values), cols)]
        return "[\n    " + ",\n    ".join(rows) + "\n  ]"

    lines = ['  "lab": %s' % json.dumps(ds["lab"]),
             '  "name": %s' % json.dumps(ds["name"]),
             '  "description": %s' % json.dumps(ds["description"]),
             '  "m": %d' % ds["m"], '  "n": %d' % ds["n"], '  "k": %d' % ds["k"],
             '  "A": ' + matrix(ds["A"], ds["n"]),
             '  "B": ' + matrix(ds["B"], ds["k"]),
             '  "C": ' + matrix(ds["C"], ds["k"])]
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode("utf-8")


def validate(ds, where):
    """Return a list of problems (empty when the dataset is well formed and C is right)."""
    problems = []
    for key in ("lab", "name", "description", "m", "n", "k", "A", "B", "C"):
        if key not in ds:
            problems.append("%s: missing key \"%s\"" % (where, key))
    if problems:
        return problems
    if not LAB_RE.match(str(ds["lab"])):
        problems.append("%s: lab \"%s\" is not of the form NN_name" % (where, ds["lab"]))
    if not NAME_RE.match(str(ds["name"])):
        problems.append("%s: name \"%s\" may hold only letters, digits and _" % (where, ds["name"]))
    dims = [ds[d] for d in ("m", "n", "k")]
    if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims):
        return problems + ["%s: m, n and k must be positive integers, got %s" % (where, dims)]
    m, n, k = dims
    for key, want in (("A", m * n), ("B", n * k), ("C", m * k)):
        values = ds[key]
        if not isinstance(values, list) or len(values) != want:
            got = len(values) if isinstance(values, list) else type(values).__name__
            problems.append("%s: %s should hold %d numbers, holds %s" % (where, key, want, got))
        elif not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                     for v in values):
            problems.append("%s: %s holds something that is not a finite number" % (where, key))
    if problems:
        return problems
    # Expected C against A*B in double, within the float32 forward-error bound of a length-n dot
    # product (exactly equal for the integer datasets, whose bound is never needed).
    a, b, c = ds["A"], ds["B"], ds["C"]
    gamma = n * FLOAT32_UNIT_ROUNDOFF / (1 - n * FLOAT32_UNIT_ROUNDOFF)
    for r in range(m):
        for col in range(k):
            terms = [a[r * n + i] * b[i * k + col] for i in range(n)]
            ref = math.fsum(terms)
            bound = gamma * math.fsum(abs(t) for t in terms)
            got = c[r * k + col]
            if abs(got - ref) > bound:
                problems.append("%s: C at row %d, column %d is %r but A*B gives %r"
                                % (where, r, col, got, ref))
                return problems
    return problems


def store_object(content, store):
    digest = hashlib.sha256(content).hexdigest()
    obj = store / ALGO / digest
    obj.parent.mkdir(parents=True, exist_ok=True)
    if not obj.exists() or obj.read_bytes() != content:
        obj.write_bytes(content)
    return digest, obj


def write_link(data_dir, lab, name, digest):
    link = data_dir / lab / (name + LINK_SUFFIX)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.write_text(digest + "\n")
    return link


def publish(ds, data_dir, store):
    problems = validate(ds, "%s/%s" % (ds.get("lab"), ds.get("name")))
    if problems:
        raise ValueError("\n".join(problems))
    digest, obj = store_object(serialise(ds), store)
    link = write_link(data_dir, ds["lab"], ds["name"], digest)
    print("%s -> %s" % (link, obj))


# ---------------------------------------------------------------------------------------------
# --check


def find_object(digest, stores):
    for store in stores:
        obj = store / ALGO / digest
        if obj.is_file():
            return obj
    return None


def check(data_dirs, stores):
    problems, count = [], 0
    for data_dir in data_dirs:
        links = sorted(data_dir.glob("*/*" + LINK_SUFFIX))
        if not links and data_dir.resolve() == DATA_DIR:
            problems.append("%s: no content links found" % data_dir)
        for link in links:
            count += 1
            lab = link.parent.name
            name = link.name[:-len(LINK_SUFFIX)]
            digest = link.read_text().strip()
            if not HASH_RE.match(digest):
                problems.append("%s: does not hold a lower-case SHA-256 (64 hex digits)" % link)
                continue
            obj = find_object(digest, stores)
            if obj is None:
                problems.append("%s: object %s/%s is in none of the stores %s"
                                % (link, ALGO, digest, [str(s) for s in stores]))
                continue
            content = obj.read_bytes()
            actual = hashlib.sha256(content).hexdigest()
            if actual != digest:
                problems.append("%s: its content hashes to %s (corrupt object)" % (obj, actual))
                continue
            try:
                ds = json.loads(content)
            except ValueError as err:
                problems.append("%s (object of %s): not valid JSON: %s" % (obj, link, err))
                continue
            found = validate(ds, str(link))
            if not found and (ds["lab"] != lab or ds["name"] != name):
                found = ["%s: the object says lab \"%s\", name \"%s\" but the link is %s/%s"
                         % (link, ds["lab"], ds["name"], lab, name)]
            problems += found
    for p in problems:
        print("FAIL " + p, file=sys.stderr)
    print("%d content link(s) checked, %d problem(s)" % (count, len(problems)))
    return 1 if problems else 0


def main(argv):
    parser = argparse.ArgumentParser(
        description="Write, add or check matrix-multiply datasets (ExternalData content links).")
    parser.add_argument("lab", nargs="?", help="write the built-in datasets for this lab")
    parser.add_argument("--name", action="append", choices=sorted(BUILDERS),
                        help="only this built-in dataset (repeatable; default: all)")
    parser.add_argument("--add", metavar="FILE.json", action="append",
                        help="store a hand-made dataset and write its link (repeatable)")
    parser.add_argument("--check", action="store_true",
                        help="verify every link's object exists, hashes right and is correct")
    parser.add_argument("--data-dir", action="append", type=pathlib.Path,
                        help="folder of <lab>/<name>.json.sha256 links (default: the repo's "
                             "data/); with --check it may be repeated")
    parser.add_argument("--store", action="append", type=pathlib.Path,
                        help="object store (default: <data dir>/objects); with --check it may be "
                             "repeated and every <data dir>/objects is searched as well")
    args = parser.parse_args(argv)
    if sum(bool(x) for x in (args.lab, args.add, args.check)) != 1:
        parser.error("give exactly one of: a lab name, --add FILE.json, --check")

    data_dirs = args.data_dir or [DATA_DIR]
    if args.check:
        stores = list(args.store or []) + [d / "objects" for d in data_dirs]
        return check(data_dirs, stores)

    if len(data_dirs) > 1 or (args.store and len(args.store) > 1):
        parser.error("writing takes one --data-dir and one --store")
    data_dir = data_dirs[0]
    store = args.store[0] if args.store else data_dir / "objects"
    try:
        if args.add:
            for path in args.add:
                publish(json.loads(pathlib.Path(path).read_text()), data_dir, store)
        else:
            if not LAB_RE.match(args.lab):
                parser.error("lab \"%s\" is not of the form NN_name" % args.lab)
            for name in args.name or sorted(BUILDERS):
                publish(make_dataset(args.lab, name, *BUILDERS[name]()), data_dir, store)
    except (OSError, ValueError) as err:
        print("error: %s" % err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
