#!/usr/bin/env python3
"""
The whole journey on the breast-cancer dataset of the repository's test/data: login, project, upload,
dataset, a preliminary analysis waited for with progress, the result and its plots, a prediction and its
rows (JSON and CSV).

    SIGNET_URL=http://localhost:8080 SIGNET_USERNAME=admin SIGNET_PASSWORD=... python3 examples/journey.py

(``SIGNET_TOKEN`` instead of the username and password works too; ``SIGNET_DATA`` names another CSV
file.) Run from ``clients/python``, or with the package installed (``pip install ./clients/python``).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, TextIO

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the package beside this folder, when not installed

from signet_client import SignetClient  # noqa: E402

# the repository's test data: clients/python/examples -> the repository root -> test/data
DEFAULT_DATA = os.path.join(HERE, "..", "..", "..", "test", "data", "breast_cancer.csv")


def main(out: TextIO = sys.stdout) -> Dict[str, Any]:
    url = os.environ.get("SIGNET_URL", "http://localhost:8080")
    data = os.path.abspath(os.environ.get("SIGNET_DATA", DEFAULT_DATA))
    if os.environ.get("SIGNET_TOKEN"):
        client = SignetClient(url, token=os.environ["SIGNET_TOKEN"])
    else:
        client = SignetClient(url, os.environ.get("SIGNET_USERNAME", "admin"), os.environ["SIGNET_PASSWORD"])
    # the with block logs the client out at its end (a given SIGNET_TOKEN is left alone)
    with client:
        return journey(client, url, data, out)


def journey(client: SignetClient, url: str, data: str, out: Any) -> Dict[str, Any]:
    print(f"Signet {client.get_version()} at {url}", file=out)

    project_id = client.create_project("breast cancer journey", "made by examples/journey.py")
    uploaded = client.upload_file("breast_cancer.csv", data)
    task_id = client.create_dataset("breast cancer", project_id, uploaded["fileId"], uploaded["sizeInBytes"])
    dataset_id = client.wait_for_task(task_id)["datasetId"]
    dataset = client.get_dataset(dataset_id)
    print(f"dataset {dataset_id}: {dataset['sampleCount']} samples, {dataset['featureCount']} features", file=out)

    analysis_id = client.analyze_dataset(
        dataset_id, "diagnosis, preliminary", {"classification": "diagnosis"}, thoroughness="preliminary", core_count=1
    )

    shown = {"progress": -1.0}

    def show(status: Dict[str, Any]) -> None:
        # Called at every poll; prints when the progress moved.
        if status["state"] == "running" and status.get("progress", 0) > shown["progress"]:
            shown["progress"] = status.get("progress", 0)
            print(f"  analysis {analysis_id}: {shown['progress'] * 100:5.1f}%", file=out)

    client.wait_for_analysis(analysis_id, progress=show, poll_interval=0.5)
    result = client.get_analysis_result(analysis_id)
    best = result["models"]["best"]
    print(f"best model: {best['model']}", file=out)
    print(f"  signature: {', '.join(best['signatures'][0])}", file=out)
    for metric, value in best["performance"].items():
        ci = best.get("performanceCis", {}).get(metric)
        interval = f" (95% CI {ci[0]:.3f} to {ci[1]:.3f})" if ci else ""
        print(f"  estimate {metric}: {value:.3f}{interval}", file=out)

    plots = client.available_plots(analysis_id, "best")["plots"]
    for name in plots:
        plot = client.get_plot(analysis_id, "best", name)["plot"][name]
        print(f"plot {name}: {len(plot)} points", file=out)
    every = client.get_plots(analysis_id, "best")["plots"]

    # The model applied to the same file (a new dataset would be scored the same way).
    prediction_id = client.predict_outcome(analysis_id, dataset_id, "best")
    client.wait_for_prediction(prediction_id)
    rows = client.get_prediction_result(prediction_id)["predictions"]
    csv_text = client.get_prediction_result_csv(prediction_id)
    print(f"predictions: {len(rows)} rows; first: {rows[0]}", file=out)
    print(f"predictions CSV: {len(csv_text.splitlines())} lines; header: {csv_text.splitlines()[0]}", file=out)
    return {
        "projectId": project_id,
        "datasetId": dataset_id,
        "analysisId": analysis_id,
        "result": result,
        "plots": plots,
        "allPlots": every,
        "predictions": rows,
        "csv": csv_text,
    }


if __name__ == "__main__":
    main()
