"""scikit-learn's side of bench/models.bench.ts: the same fits on the same matrices, timed the same way.

    python3 bench/sklearn_fits.py --digits OUT.csv    writes sklearn's bundled digits (1,797 x 64 + class) and exits
    python3 bench/sklearn_fits.py SPEC.json           runs the fits SPEC.json lists, one JSON line per fit on stdout
    python3 bench/sklearn_fits.py --probabilities TRAIN.csv TEST.csv
                                                       bench/calibration.bench.ts's reference: LogisticRegression (its
                                                       defaults, on standardized features) fitted on TRAIN, its
                                                       class probabilities of each row of TEST as one JSON array

SPEC.json: {"matrices": {name: csv path (features..., outcome; no header)}, "fits": [{"id", "model", "matrix",
"params", "reps"}]}. Each fit runs once untimed, then is timed `reps` times (fit only, perf_counter); the medians of wall and CPU time (process_time) are reported with the
training quality (accuracy or R squared) and, for linear models, the coefficients. Single-threaded unless
SIGNET_BENCH_THREADS says otherwise (the caller sets OMP/OpenBLAS threads in the environment to match).
"""

import json
import os
import statistics
import sys
import time
import warnings

import numpy as np


def digits(out):
    from sklearn.datasets import load_digits

    d = load_digits()
    np.savetxt(out, np.column_stack([d.data, d.target]), delimiter=",", fmt="%.10g")


def make(model, p, n, d):
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.svm import SVC, SVR, LinearSVC
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    jobs = int(os.environ.get("SIGNET_BENCH_THREADS", "1"))
    if model == "forest-classification":
        return RandomForestClassifier(
            n_estimators=p["trees"], max_features=p["mtry"], min_samples_leaf=p["minLeaf"], bootstrap=True, n_jobs=jobs, random_state=1
        )
    if model == "forest-regression":
        return RandomForestRegressor(
            n_estimators=p["trees"], max_features=p["mtry"], min_samples_leaf=p["minLeaf"], bootstrap=True, n_jobs=jobs, random_state=1
        )
    if model == "logistic":
        # ours: (1/n) sum log p - (lambda/2)||w||^2  <=>  sklearn: C sum loss + 1/2 ||w||^2 with C = 1 / (n lambda)
        return LogisticRegression(C=1 / (n * p["lambda"]), solver="lbfgs", max_iter=10000, tol=1e-6)
    if model == "ridge":
        # ours: (1/2n)||r||^2 + (lambda/2)||b||^2  <=>  sklearn: ||r||^2 + alpha ||b||^2 with alpha = n lambda
        return Ridge(alpha=n * p["lambda"])
    if model == "tree-classification":
        return DecisionTreeClassifier(max_depth=p["maxDepth"], min_samples_leaf=p["minLeaf"], random_state=1)
    if model == "tree-regression":
        return DecisionTreeRegressor(max_depth=p["maxDepth"], min_samples_leaf=p["minLeaf"], random_state=1)
    if model == "svm-linear":
        # the same solver as ours: LIBLINEAR's L1-loss dual coordinate descent, bias as a feature, one-vs-rest
        return LinearSVC(loss="hinge", dual=True, C=p["C"], tol=1e-3, max_iter=1000, random_state=1)
    if model == "svm-rbf":
        # more than two classes: one-vs-one, as ours (SVC's own scheme, LIBSVM's)
        return SVC(kernel="rbf", C=p["C"], gamma=p["gammaFactor"] / d, tol=1e-3)
    if model == "svr":
        return SVR(kernel=p["kernel"], C=p["C"], epsilon=p["epsilon"], gamma=p["gammaFactor"] / d, tol=1e-3)
    raise ValueError(f"unknown model {model}")


def quality(model, est, X, y):
    if model in ("forest-classification", "logistic", "tree-classification", "svm-linear", "svm-rbf"):
        return {"accuracy": float(np.mean(est.predict(X) == y))}
    return {"r2": float(est.score(X, y))}


def coefficients(model, est):
    if model == "logistic":
        return {"intercept": est.intercept_.tolist(), "coef": est.coef_.tolist()}
    if model == "ridge":
        return {"intercept": [float(est.intercept_)], "coef": [est.coef_.tolist()]}
    return None


def main(spec_path):
    # LinearSVC stops at max_iter=1000 as ours does (the grid's liblinear-style solver); its warning is noise here
    warnings.filterwarnings("ignore", message="Liblinear failed to converge")
    with open(spec_path) as f:
        spec = json.load(f)
    matrices = {}
    for fit in spec["fits"]:
        if fit["matrix"] not in matrices:
            a = np.loadtxt(spec["matrices"][fit["matrix"]], delimiter=",", ndmin=2)
            matrices[fit["matrix"]] = (np.ascontiguousarray(a[:, :-1]), a[:, -1])
        X, y = matrices[fit["matrix"]]
        if fit["model"] == "svr":
            y = (y - y.mean()) / y.std(ddof=1)  # ours standardizes the target inside SVR
        times = []
        cpu = []
        est = None
        for r in range(fit["reps"] + 1):  # the first fit warms up and is not timed
            est = make(fit["model"], fit["params"], X.shape[0], X.shape[1])
            t0 = time.perf_counter()
            c0 = time.process_time()
            est.fit(X, y)
            if r > 0:
                cpu.append(time.process_time() - c0)
                times.append(time.perf_counter() - t0)
        out = {"id": fit["id"], "seconds": statistics.median(times), "cpuSeconds": statistics.median(cpu), "quality": quality(fit["model"], est, X, y)}
        c = coefficients(fit["model"], est)
        if c is not None:
            out["coefficients"] = c
        print(json.dumps(out), flush=True)


def probabilities(train_path, test_path):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    train = np.loadtxt(train_path, delimiter=",", ndmin=2)
    test = np.loadtxt(test_path, delimiter=",", ndmin=2)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=10000))
    model.fit(train[:, :-1], train[:, -1].astype(int))
    print(json.dumps(model.predict_proba(test[:, :-1]).tolist()))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--digits":
        digits(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "--probabilities":
        probabilities(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1])
