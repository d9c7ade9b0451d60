"""
The jadbio layer against a running service: a script written for JADBio's client, run with only its import and
host changed; JADBio's signatures and defaults; JADBio's exceptions.
"""

from __future__ import annotations

import difflib
import inspect
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
sys.path.insert(0, PACKAGE_ROOT)

import signet_client  # noqa: E402
import signet_client.jadbio as jad  # noqa: E402

URL = os.environ.get("SIGNET_URL", "http://localhost:8080")
USERNAME = os.environ.get("SIGNET_USERNAME", "admin")
PASSWORD = os.environ.get("SIGNET_PASSWORD", "")
IRIS = os.environ.get("SIGNET_IRIS", os.path.join(PACKAGE_ROOT, "..", "..", "test", "data", "iris.csv"))

# The signatures of JADBio's Python client 1.2.13 (jadbio/client.py) for the operations Signet shares:
# name -> (parameter, default) in order; NO_DEFAULT for a required one.
NO_DEFAULT = inspect.Parameter.empty
ANALYSIS_OPTIONS = [
    ("thoroughness", "preliminary"),
    ("core_count", 1),
    ("grouping_feat", None),
    ("models_considered", "all"),
    ("feature_selection", "mostRelevant"),
    ("max_signature_size", None),
    ("max_visualized_signature_count", None),
]
JADBIO_SIGNATURES = {
    "__init__": [("username", NO_DEFAULT), ("password", NO_DEFAULT), ("host", None)],
    "get_version": [],
    "get_jadbio_version": [],
    "login": [("username", NO_DEFAULT), ("password", NO_DEFAULT)],
    "logout": [],
    "create_project": [("name", NO_DEFAULT), ("descr", "")],
    "get_project": [("project_id", NO_DEFAULT)],
    "get_projects": [("offset", 0), ("count", 10)],
    "delete_project": [("project_id", NO_DEFAULT)],
    "upload_file": [("file_id", NO_DEFAULT), ("pth_to_file", NO_DEFAULT)],
    "create_dataset": [
        ("name", NO_DEFAULT),
        ("project_id", NO_DEFAULT),
        ("file_id", NO_DEFAULT),
        ("file_size_in_bytes", NO_DEFAULT),
        ("separator", ","),
        ("has_samples_in_rows", True),
        ("has_feature_headers_name", True),
        ("has_sample_headers", True),
        ("description", ""),
    ],
    "get_dataset": [("dataset_id", NO_DEFAULT)],
    "get_datasets": [("project_id", NO_DEFAULT), ("offset", 0), ("count", 10)],
    "delete_dataset": [("dataset_id", NO_DEFAULT)],
    "get_task_status": [("task_id", NO_DEFAULT)],
    "analyze_dataset": [("dataset_id", NO_DEFAULT), ("name", NO_DEFAULT), ("outcome", NO_DEFAULT), ("model_selection_protocol", None)]
    + ANALYSIS_OPTIONS,
    "analyze_dataset_check": [("dataset_id", NO_DEFAULT), ("name", NO_DEFAULT), ("outcome", NO_DEFAULT)] + ANALYSIS_OPTIONS,
    "get_analysis": [("analysis_id", NO_DEFAULT)],
    "get_analyses": [("project_id", NO_DEFAULT), ("offset", 0), ("count", 10)],
    "get_analysis_status": [("analysis_id", NO_DEFAULT)],
    "get_analysis_result": [("analysis_id", NO_DEFAULT)],
    "delete_analysis": [("analysis_id", NO_DEFAULT)],
    "available_plots": [("analysis_id", NO_DEFAULT), ("model_key", NO_DEFAULT)],
    "get_plot": [("analysis_id", NO_DEFAULT), ("model_key", NO_DEFAULT), ("plot_key", NO_DEFAULT)],
    "get_plots": [("analysis_id", NO_DEFAULT), ("model_key", NO_DEFAULT)],
    "predict_outcome": [("analysis_id", NO_DEFAULT), ("dataset_id", NO_DEFAULT), ("model_key", NO_DEFAULT), ("signature_index", 0)],
    "get_prediction": [("prediction_id", NO_DEFAULT)],
    "get_predictions": [("analysis_id", NO_DEFAULT), ("offset", 0), ("count", 10)],
    "get_prediction_status": [("prediction_id", NO_DEFAULT)],
    "get_prediction_result": [("prediction_id", NO_DEFAULT)],
    "delete_prediction": [("prediction_id", NO_DEFAULT)],
    "image_upload_init": [
        ("project_id", NO_DEFAULT),
        ("name", NO_DEFAULT),
        ("data_path", NO_DEFAULT),
        ("has_feature_names", True),
        ("description", None),
    ],
    "image_upload_add_sample": [("task_id", NO_DEFAULT), ("sample", NO_DEFAULT), ("path", NO_DEFAULT)],
    "image_upload_commit": [("task_id", NO_DEFAULT)],
}
# JADBio operations Signet lacks: present, and saying so
UNSUPPORTED = [
    "upload_s3",
    "attach_dataset",
    "change_feature_types",
    "change_feature_types_check",
    "vertical_merge",
    "horizontal_merge",
    "random_split",
    "analyze_dataset_custom_preprocessing",
    "analyze_dataset_extra_models",
    "analyze_dataset_extra_models_check",
    "get_extra_models_description",
    "get_extra_fs_description",
    "download_analysis_model_predictions",
    "predict_outcome_check",
]


class InterfaceTest(unittest.TestCase):
    def test_every_shared_operation_has_jadbios_name_argument_order_and_defaults(self) -> None:
        for name, expected in JADBIO_SIGNATURES.items():
            params = list(inspect.signature(getattr(jad.JadbioClient, name)).parameters.values())[1:]
            self.assertEqual([(p.name, p.default) for p in params], expected, name)

    def test_jadbios_operations_that_signet_lacks_say_so(self) -> None:
        client = jad.JadbioClient(USERNAME, PASSWORD, host=URL)
        try:
            for name in UNSUPPORTED:
                method = getattr(client, name)
                args = [None] * sum(1 for p in list(inspect.signature(method).parameters.values()) if p.default is NO_DEFAULT and p.kind == p.POSITIONAL_OR_KEYWORD)
                with self.assertRaises(NotImplementedError, msg=name) as caught:
                    method(*args)
                self.assertIn("Signet has no", str(caught.exception))
        finally:
            client.logout()


class ErrorsTest(unittest.TestCase):
    def test_an_error_envelope_is_jadbios_JadRequestResponseError_with_the_code_and_http_status(self) -> None:
        with self.assertRaises(jad.JadRequestResponseError) as caught:
            jad.JadbioClient(USERNAME, "wrong-password", host=URL)
        e = caught.exception
        self.assertEqual((e.code, e.http_status, e.where), ("auth-10-3", 200, "Login"))
        self.assertEqual(str(e), f"Login: {e.message}, code: auth-10-3")
        self.assertIsInstance(e, signet_client.SignetError)

    def test_http_403_is_jadbios_RequestFailed(self) -> None:
        client = jad.JadbioClient(USERNAME, PASSWORD, host=URL)
        client.logout()
        with self.assertRaises(jad.RequestFailed) as caught:
            client.get_projects()
        self.assertEqual((caught.exception.http_status, caught.exception.code), (403, "http-403"))
        self.assertIsInstance(caught.exception, signet_client.RequestFailed)


class JadbioScriptTest(unittest.TestCase):
    def test_a_script_written_for_jadbio_runs_with_only_its_import_and_host_changed(self) -> None:
        with open(os.path.join(HERE, "jadbio_script.py")) as f:
            original = f.read()
        ported = original.replace("import jadbio.client as jad  # JADBIO-IMPORT", "import signet_client.jadbio as jad  # JADBIO-IMPORT")
        ported = ported.replace('HOST = "https://app.jadbio.com"  # JADBIO-HOST', f'HOST = "{URL}"  # JADBIO-HOST')
        changed = [line for line in difflib.ndiff(original.splitlines(), ported.splitlines()) if line[:2] in ("- ", "+ ")]
        self.assertEqual(
            changed,
            [
                "- import jadbio.client as jad  # JADBIO-IMPORT",
                "+ import signet_client.jadbio as jad  # JADBIO-IMPORT",
                '- HOST = "https://app.jadbio.com"  # JADBIO-HOST',
                f'+ HOST = "{URL}"  # JADBIO-HOST',
            ],
        )
        with tempfile.TemporaryDirectory() as d:
            script = os.path.join(d, "ported.py")
            with open(script, "w") as f:
                f.write(ported)
            env = {**os.environ, "PYTHONPATH": PACKAGE_ROOT, "JAD_USER": USERNAME, "JAD_PASSWORD": PASSWORD, "JAD_DATA": IRIS}
            run = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=600)
        self.assertEqual(run.returncode, 0, run.stderr)
        out = run.stdout
        self.assertIn("Dataset: 150 samples, 5 features", out)
        self.assertIn("Analysis finished", out)
        self.assertIn("Analyses: 1", out)
        self.assertRegex(out, r"best: .+; signature ")
        self.assertRegex(out, r"  plot Feature Importance: \d+ values")
        self.assertRegex(out, r"prediction result head: \['row,sampleId,prediction,probability:setosa,probability:versicolor,probability:virginica', '0,flower1,setosa,")
        self.assertIn("prediction rows: 150", out)
        self.assertIn("Predictions: 1", out)
        self.assertIn("Prediction model: best", out)
        self.assertRegex(out, r"Image dataset: 2 samples, \d{3} features")
        self.assertRegex(out, r"Expected error: Get analysis result: .+, code: notFound-120-2-1")
        self.assertIn("Deleted analysis: finished", out)
        self.assertIn("Deleted dataset: iris_test", out)
        self.assertIn("Deleted project: iris, from a jadbio script", out)
        self.assertNotIn("errors:", out)
        self.assertEqual(run.stderr, "")


if __name__ == "__main__":
    unittest.main()
