#!/usr/bin/env python3
"""Writes the handwritten digits of test/data from scikit-learn's digits data set (8 x 8 images):
- test/data/digits.csv: every digit 3, 5 and 8;
- test/data/digits012.csv: the first 80 digits 0, 1 and 2 each (test/image-quality.quality-spec.ts trains on 60 of
  each and holds out 20).

The source is the copy Debian's python3-sklearn package ships (apt-get install python3-sklearn):
sklearn/datasets/data/digits.csv.gz, 1797 digits, 64 pixel values 0..16 (row by row) and the digit. The test
image-quality.quality-spec.ts turns each row into a 32 x 32 PNG. Run from the repository's root:

    python3 tools/make-digits.py [path/to/digits.csv.gz]
"""
import csv
import gzip
import os
import sys

SOURCE = sys.argv[1] if len(sys.argv) > 1 else '/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz'

with gzip.open(SOURCE, 'rt') as f:
    rows = [[int(float(v)) for v in line] for line in csv.reader(f) if line]


def write(name, kept):
    with open(os.path.join('test', 'data', name), 'w', newline='') as out:
        w = csv.writer(out, lineterminator='\n')
        w.writerow([f'p{i}' for i in range(64)] + ['digit'])
        w.writerows(kept)
    print(f'{len(kept)} digits written to {name} from {SOURCE}')


write('digits.csv', [r for r in rows if r[64] in {3, 5, 8}])
write('digits012.csv', [r for d in (0, 1, 2) for r in [r for r in rows if r[64] == d][:80]])
