#!/usr/bin/env python3
"""Writes a synthetic class of N varied submissions for a lab, for the batch-grading benchmark:
the reference solution, the untouched starter, and every known-bad variant of
grader/tests/mutants/<lab>.yaml, in turn. Standard library only (the mutant file is read with a
tiny parser of the subset it uses, so no YAML package is needed)."""
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


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    lab, count, dest = sys.argv[1], int(sys.argv[2]), pathlib.Path(sys.argv[3])
    solution = (root / "solutions" / lab / "matmul.cu").read_text()
    variants = [("solution", solution), ("starter", (root / "starter" / lab / "matmul.cu").read_text())]
    for name, pairs in mutants(root / "grader" / "tests" / "mutants" / f"{lab}.yaml"):
        text = solution
        for old, new in pairs:
            text = text.replace(old, new, 1)
        variants.append((name, text))
    for i in range(count):
        name, text = variants[i % len(variants)]
        folder = dest / f"student{i:03d}_{name}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "matmul.cu").write_text(text)
    print(f"{count} submissions in {dest} ({len(variants)} variants)")


if __name__ == "__main__":
    main()
