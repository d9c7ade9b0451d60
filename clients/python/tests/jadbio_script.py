#!/usr/bin/env python3
"""
A script written for JADBio's Python client (the ``jadbio`` package, 1.2.x), as a JADBio user would write it:
iris uploaded and made a dataset, an analysis checked, started and polled, its models and plots read, the
species of new samples predicted and read as CSV, an image dataset uploaded, an error handled, and everything
deleted again.

tests/test_jadbio.py runs it against Signet after changing only the two lines marked ``# JADBIO-IMPORT`` and
``# JADBIO-HOST``.

    JAD_USER=... JAD_PASSWORD=... JAD_DATA=path/to/iris.csv python3 jadbio_script.py
"""

import csv
import os
import struct
import tempfile
import time
import zlib

import jadbio.client as jad  # JADBIO-IMPORT

HOST = "https://app.jadbio.com"  # JADBIO-HOST

USER = os.environ["JAD_USER"]
PASSWORD = os.environ["JAD_PASSWORD"]
IRIS = os.environ["JAD_DATA"]  # sepal_length_cm, sepal_width_cm, petal_length_cm, petal_width_cm, species


def wait_for_dataset(client, task_id, timeout=600):
    status = client.get_task_status(task_id)
    start = time.time()
    while status["state"] != "finished":
        if status["state"] == "failed" or time.time() - start > timeout:
            raise Exception("dataset task " + task_id + " did not finish: " + str(status))
        time.sleep(1)
        status = client.get_task_status(task_id)
    return status["datasetId"]


def upload_dataset(client, path, name, project_id, has_sample_names=True):
    file_id = client.upload_file(4711, path)
    with open(path, "r") as f:
        size = len(f.read())
    task_id = client.create_dataset(name, project_id, file_id, size, has_sample_headers=has_sample_names)
    return wait_for_dataset(client, task_id)


def gray_png(path, shade):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes([(shade + x) % 256 for x in range(8)]) for _ in range(8))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


client = jad.JadbioClient(USER, PASSWORD, host=HOST)
print("Version: " + client.get_version())
pid = client.create_project("iris, from a jadbio script")
print("Projects: " + str(client.get_projects()["totalCount"]))
work = tempfile.mkdtemp()
try:
    dataset_id = upload_dataset(client, IRIS, "iris", pid, False)
    dataset = client.get_dataset(dataset_id)
    print("Dataset: " + str(dataset["sampleCount"]) + " samples, " + str(dataset["featureCount"]) + " features")

    outcome = {"classification": "species"}
    for key, messages in client.analyze_dataset_check(dataset_id, "iris analysis", outcome).items():
        print(key + ": " + str(messages))
        if "errors" in key:
            raise Exception("Invalid analysis parameters: " + str(messages))
    analysis_id = client.analyze_dataset(dataset_id, "iris analysis", outcome, {"type": "cv"}, "preliminary", 1)
    status = client.get_analysis_status(analysis_id)
    while status["state"] != "finished":
        if status["state"] == "failed":
            raise Exception("analysis failed: " + str(status))
        time.sleep(1)
        status = client.get_analysis_status(analysis_id)
    print("Analysis finished")
    print("Analyses: " + str(client.get_analyses(pid)["totalCount"]))

    result = client.get_analysis_result(analysis_id)
    for model_key, model in result["models"].items():
        print(model_key + ": " + model["model"] + "; signature " + ", ".join(model["signatures"][0]))
        available = client.available_plots(analysis_id, model_key)
        for plot_key in available["plots"]:
            values = client.get_plot(analysis_id, model_key, plot_key)["plot"][plot_key]
            print("  plot " + plot_key + ": " + str(len(values)) + " values")
        print("  plots at once: " + str(len(client.get_plots(analysis_id, model_key)["plots"])))

    # new samples, named in their first column, without the species
    unlabeled = os.path.join(work, "iris_no_target.csv")
    with open(IRIS, newline="") as src, open(unlabeled, "w", newline="") as dst:
        rows = list(csv.reader(src))
        out = csv.writer(dst)
        out.writerow(["sample"] + rows[0][:4])
        for i, row in enumerate(rows[1:]):
            out.writerow(["flower" + str(i + 1)] + row[:4])
    unlabeled_id = upload_dataset(client, unlabeled, "iris_test", pid)
    prediction_id = client.predict_outcome(analysis_id, unlabeled_id, "best")
    status = client.get_prediction_status(prediction_id)
    while status["state"] != "finished":
        if status["state"] == "failed":
            raise Exception("prediction failed: " + str(status))
        time.sleep(1)
        status = client.get_prediction_status(prediction_id)
    lines = client.get_prediction_result(prediction_id).strip().split("\n")
    print("prediction result head: " + str(lines[0:2]))
    print("prediction rows: " + str(len(lines) - 1))
    print("Predictions: " + str(client.get_predictions(analysis_id)["totalCount"]))
    print("Prediction model: " + client.get_prediction(prediction_id)["parameters"]["modelKey"])
    print("Deleted prediction: " + client.delete_prediction(prediction_id)["predictionId"])

    # an image dataset: a target file naming the samples, then one image per sample
    with open(os.path.join(work, "target.csv"), "w") as f:
        f.write("sample,target\ndark,0\nlight,1\n")
    for sample, shade in (("dark", 20), ("light", 220)):
        gray_png(os.path.join(work, sample + ".png"), shade)
    task = client.image_upload_init(pid, "images", os.path.join(work, "target.csv"), True)
    for sample in ("dark", "light"):
        client.image_upload_add_sample(task, sample, os.path.join(work, sample + ".png"))
    client.image_upload_commit(task)
    images = client.get_dataset(wait_for_dataset(client, task))
    print("Image dataset: " + str(images["sampleCount"]) + " samples, " + str(images["featureCount"]) + " features")

    try:
        client.get_analysis_result("987654321")
    except jad.JadRequestResponseError as e:
        print("Expected error: " + str(e))

    print("Deleted analysis: " + client.delete_analysis(analysis_id)["state"])
    print("Deleted dataset: " + client.delete_dataset(unlabeled_id)["name"])
finally:
    print("Remaining datasets: " + str(client.get_datasets(pid)["totalCount"]))
    print("Deleted project: " + client.delete_project(pid)["name"])
client.logout()
