#!/usr/bin/env python3
"""Writes a synthetic class of N varied submissions for a lab, for the batch-grading benchmark.

  make_class.py LAB N DEST [--mix bad|realistic]

bad (the default): the reference solution, the untouched starter, and every known-bad variant of
grader/tests/mutants/<lab>.yaml, in turn; most of them stop at their first failing check.
realistic: about 70% correct but different kernels (the student corpus's cases whose expected
status is "passed"), the rest its wrong kernels, the mutants and the starter; most of them run
every check and the timing, as a real class's near-correct submissions do.

Standard library only (the YAML files are read with a tiny parser of the subset they use, so no
YAML package is needed)."""
import ast
import pathlib
import sys


def mutants(path):
    """(name, [(from, to)]) for each mutant: the YAML subset used there (double-quoted strings)."""
    out, name, pairs, pending = [], None, [], None
    for line in path.read_text().splitlines():
        s = line.strip()
        if s.startswith("- name:"):
            if name:
                out.append((name, pairs))
            name, pairs = s.split(":", 1)[1].strip(), []
        elif s.startswith("- from:"):
            pending = ast.literal_eval(s.split(":", 1)[1].strip())
        elif s.startswith("to:") and pending is not None:
            pairs.append((pending, ast.literal_eval(s.split(":", 1)[1].strip())))
            pending = None
    if name:
        out.append((name, pairs))
    return out


def corpus(root, lab):
    """(passed, wrong): the student corpus's (name, source) pairs by expected status."""
    passed, wrong = [], []
    for case in sorted((root / "grader" / "tests" / "student_corpus" / lab).iterdir()):
        expect = (case / "expect.yaml").read_text().splitlines()
        status = next(l.split(":", 1)[1].strip() for l in expect if l.startswith("status:"))
        (passed if status == "passed" else wrong).append((case.name, (case / "matmul.cu").read_text()))
    return passed, wrong


def interleave(good, bad, good_share, count):
    """`count` entries, each list cycled on its own, so that a share `good_share` of every prefix
    (rounded up) is good."""
    out, g, b = [], 0, 0
    for i in range(count):
        if g < good_share * (i + 1) or not bad:
            out.append(good[g % len(good)])
            g += 1
        else:
            out.append(bad[b % len(bad)])
            b += 1
    return out


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    lab, count, dest = sys.argv[1], int(sys.argv[2]), pathlib.Path(sys.argv[3])
    mix = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--mix" else "bad"
    solution = (root / "solutions" / lab / "matmul.cu").read_text()
    bad = [("starter", (root / "starter" / lab / "matmul.cu").read_text())]
    for name, pairs in mutants(root / "grader" / "tests" / "mutants" / f"{lab}.yaml"):
        text = solution
        for old, new in pairs:
            text = text.replace(old, new, 1)
        bad.append((name, text))
    if mix == "realistic":
        passed, wrong = corpus(root, lab)
        variants = interleave([("solution", solution)] + passed, wrong + bad, 0.7, count)
    else:
        variants = [("solution", solution)] + bad
    for i in range(count):
        name, text = variants[i % len(variants)]
        folder = dest / f"student{i:03d}_{name}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "matmul.cu").write_text(text)
    print(f"{count} submissions in {dest} ({len(variants)} variants, mix {mix})")


if __name__ == "__main__":
    main()
