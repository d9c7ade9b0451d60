#!/usr/bin/env python3
"""
Scores a CSV file with a model exported from Signet, by ONNX Runtime alone: the model's file is downloaded once
(``export_model``), then run where the data lives, without the service.

    pip install onnxruntime   # with numpy; neither the service nor its tests need it
    SIGNET_URL=http://localhost:8080 SIGNET_TOKEN=... python3 examples/score_onnx.py ANALYSIS_ID data.csv [model_key]

Each input of the file is a feature, named after it, as a rows x 1 tensor: numbers as doubles (NaN where missing),
categories as text ('' where missing). The outputs are those of the predict route (``label`` and ``probabilities``,
``prediction``, or ``risk`` and ``survival``); the model card is in the file's metadata (``model_card``).
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
import tempfile
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the package beside this folder, when not installed

from signet_client import SignetClient  # noqa: E402


def feeds(session: Any, rows: List[Dict[str, str]]) -> Dict[str, Any]:
    """The file's inputs from the CSV's columns of the same names."""
    import numpy as np

    out: Dict[str, Any] = {}
    for node in session.get_inputs():
        cells = [row.get(node.name, "") for row in rows]
        if node.type == "tensor(string)":
            out[node.name] = np.array(cells, dtype=object).reshape(-1, 1)
        else:
            out[node.name] = np.array([float(c) if c != "" else math.nan for c in cells], dtype=np.float64).reshape(-1, 1)
    return out


def main() -> None:
    import onnxruntime

    analysis_id, data = sys.argv[1], sys.argv[2]
    model_key = sys.argv[3] if len(sys.argv) > 3 else "best"
    url = os.environ.get("SIGNET_URL", "http://localhost:8080")
    token = os.environ.get("SIGNET_TOKEN")
    client = SignetClient(url, token=token) if token else SignetClient(url, os.environ.get("SIGNET_USERNAME", "admin"), os.environ["SIGNET_PASSWORD"])
    with client, tempfile.TemporaryDirectory() as folder:
        path = client.export_model(analysis_id, os.path.join(folder, "model.onnx"), model_key)
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    card = json.loads(session.get_modelmeta().custom_metadata_map["model_card"])
    with open(data, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    outputs = session.run(None, feeds(session, rows))
    names = [o.name for o in session.get_outputs()]
    print(f"{card['model']['description']}: {len(rows)} rows, outputs {', '.join(names)}")
    for i in range(min(5, len(rows))):
        print(i, {name: (value[i].tolist() if hasattr(value[i], "tolist") else value[i]) for name, value in zip(names, outputs)})


if __name__ == "__main__":
    main()
