#!/usr/bin/env python3
"""Compares Java's plan (one JSON summary per split, `java-oracle.sh plan`) with paimon's
(`paimon plan --json`): the same splits (bucket, data files in order with level and row count,
deletion files by index-file name, offset, length, cardinality) and raw-convertible flags.
Exits 1 and prints the first differences when they disagree."""
import json
import os
import sys


def java_splits(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


def key(split):
    files = []
    for f in split["files"]:
        dv = f.get("deletionFile")
        dv_key = None if not dv else (os.path.basename(dv["path"]), dv["offset"], dv["length"], dv.get("cardinality"))
        files.append((f["name"], f["level"], f["rowCount"], dv_key))
    return (split["bucket"], split["rawConvertible"], tuple(files))


def main():
    java = [key(s) for s in java_splits(sys.argv[1])]
    with open(sys.argv[2]) as f:
        ours = [key(s) for s in json.load(f)["splits"]]
    js, rs = sorted(map(repr, java)), sorted(map(repr, ours))
    if js == rs:
        return 0
    missing = [s for s in js if s not in rs]
    extra = [s for s in rs if s not in js]
    print(f"{len(java)} Java splits, {len(ours)} ours; {len(missing)} only in Java, {len(extra)} only in ours")
    for s in missing[:2]:
        print("  java only:", s[:400])
    for s in extra[:2]:
        print("  ours only:", s[:400])
    return 1


if __name__ == "__main__":
    sys.exit(main())
