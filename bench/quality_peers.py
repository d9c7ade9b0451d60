"""Peers of bench/quality.bench.ts: scikit-learn's models fitted on the same training split, scored on the same
held-out split, with the engine's metric definitions.

    /usr/bin/python3 bench/quality_peers.py TASK TRAIN.csv TEST.csv

TASK is classification, regression. The CSV files (written by the bench) have a header; the last column is the
outcome (the class index, or the value); the other columns are the design (numbers, one-hot columns for categorical
features; an empty cell is missing). Each model sees the training rows' mean imputation and standardization.
Prints one JSON object: {"metric": {peer: value}, "logLoss": {peer: value}, "brier": {peer: value}}, the log loss and
Brier score (binary: of the positive class; more: summed over the classes) for classification only.
"""

import json
import sys
import warnings

import numpy as np


def load(path):
    with open(path) as f:
        f.readline()
        rows = [[float(v) if v != "" else np.nan for v in line.rstrip("\n").split(",")] for line in f if line.strip()]
    a = np.array(rows, dtype=float)
    return a[:, :-1], a[:, -1]


def scores(y, p):
    from sklearn.metrics import roc_auc_score

    k = p.shape[1]
    yi = y.astype(int)
    if k == 2:
        auc = roc_auc_score(yi, p[:, 1])
        brier = float(np.mean((p[:, 1] - (yi == 1)) ** 2))
    else:
        auc = float(np.mean([roc_auc_score(yi == c, p[:, c]) for c in range(k)]))
        onehot = np.eye(k)[yi]
        brier = float(np.mean(np.sum((p - onehot) ** 2, axis=1)))
    ll = float(np.mean(-np.log(np.clip(p[np.arange(len(yi)), yi], 1e-300, 1))))
    return auc, ll, brier


def main(task, train_path, test_path):
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression, LogisticRegressionCV, RidgeCV
    from sklearn.metrics import r2_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    warnings.filterwarnings("ignore")
    Xtr, ytr = load(train_path)
    Xte, yte = load(test_path)
    out = {"metric": {}, "logLoss": {}, "brier": {}}
    prep = lambda: [SimpleImputer(strategy="mean", keep_empty_features=True), StandardScaler()]
    if task == "classification":
        models = {
            "LogisticRegression": LogisticRegression(max_iter=10000),
            "LogisticRegressionCV": LogisticRegressionCV(Cs=10, max_iter=10000),
            "RandomForest500": RandomForestClassifier(n_estimators=500, random_state=0, n_jobs=1),
        }
        k = int(max(ytr.max(), yte.max())) + 1
        for name, m in models.items():
            model = make_pipeline(*prep(), m)
            model.fit(Xtr, ytr.astype(int))
            p = np.zeros((len(yte), k))
            p[:, model.classes_.astype(int)] = model.predict_proba(Xte)
            auc, ll, brier = scores(yte, p)
            out["metric"][name] = auc
            out["logLoss"][name] = ll
            out["brier"][name] = brier
    else:
        models = {
            "RidgeCV": RidgeCV(alphas=np.logspace(-3, 3, 25)),
            "RandomForest500": RandomForestRegressor(n_estimators=500, random_state=0, n_jobs=1),
        }
        for name, m in models.items():
            model = make_pipeline(*prep(), m)
            model.fit(Xtr, ytr)
            out["metric"][name] = float(r2_score(yte, model.predict(Xte)))
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
