#!/usr/bin/env python3
"""Writes test/data/digits.csv: the 8 x 8 handwritten digits 3, 5 and 8 of scikit-learn's digits data set.

The source is the copy Debian's python3-sklearn package ships (apt-get install python3-sklearn):
sklearn/datasets/data/digits.csv.gz, 1797 digits, 64 pixel values 0..16 (row by row) and the digit. The test
image-quality.e2e-spec.ts turns each row into a 32 x 32 PNG. Run from the repository's root:

    python3 tools/make-digits.py [path/to/digits.csv.gz]
"""
import csv
import gzip
import os
import sys

SOURCE = sys.argv[1] if len(sys.argv) > 1 else '/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz'
KEEP = {3, 5, 8}

with gzip.open(SOURCE, 'rt') as f:
    rows = [[int(float(v)) for v in line] for line in csv.reader(f) if line]
kept = [r for r in rows if r[64] in KEEP]
with open(os.path.join('test', 'data', 'digits.csv'), 'w', newline='') as out:
    w = csv.writer(out, lineterminator='\n')
    w.writerow([f'p{i}' for i in range(64)] + ['digit'])
    w.writerows(kept)
print(f'{len(kept)} digits written from {SOURCE}')
