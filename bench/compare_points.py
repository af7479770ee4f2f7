#!/usr/bin/env python3
"""Whether two gradings of one class gave the same verdicts: for every submission in both output
folders (labgrade grade --out), each exercise's status, cause and score, and the speed status, must
match; speed scores may differ by at most SPEED_TOLERANCE points (timing varies run to run).
Prints every difference and a last line with the counts; exits 1 on any difference.
Usage: compare_points.py OUT_A OUT_B [SPEED_TOLERANCE]"""
import json
import pathlib
import sys


def results(folder):
    found = {}
    for path in sorted(pathlib.Path(folder, "results").glob("*/result.json")):
        found[path.parent.name] = json.loads(path.read_text())
    return found


def verdicts(result):
    exercises = {e["id"]: (e["status"], e.get("cause", ""), e["score"])
                 for e in result.get("exercises", [])}
    speed = result.get("speed") or {}
    return exercises, speed.get("status"), float(speed.get("score", 0.0))


def main():
    a, b = results(sys.argv[1]), results(sys.argv[2])
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    differ, widest = 0, 0.0
    for slug in sorted(set(a) & set(b)):
        (ex_a, speed_a, score_a), (ex_b, speed_b, score_b) = verdicts(a[slug]), verdicts(b[slug])
        problems = []
        if ex_a != ex_b:
            problems.append(f"exercises {ex_a} against {ex_b}")
        if speed_a != speed_b:
            problems.append(f"speed status {speed_a} against {speed_b}")
        widest = max(widest, abs(score_a - score_b))
        if abs(score_a - score_b) > tolerance:
            problems.append(f"speed score {score_a} against {score_b}")
        if problems:
            differ += 1
            print(f"{slug}: " + "; ".join(problems))
    only = sorted(set(a) ^ set(b))
    for slug in only:
        print(f"{slug}: graded in one folder only")
    print(f"compared {len(set(a) & set(b))} submissions: {differ} differ, {len(only)} in one only; "
          f"speed scores differ by at most {widest:.2f} points")
    sys.exit(1 if differ or only else 0)


if __name__ == "__main__":
    main()
