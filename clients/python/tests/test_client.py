"""
The client against a running service (the jest suite starts one: test/python-client.e2e-spec.ts).

    SIGNET_URL=http://127.0.0.1:8080 SIGNET_USERNAME=alice SIGNET_PASSWORD=... python3 -m unittest discover -s tests
"""

from __future__ import annotations

import io
import json
import os
import struct
import sys
import tempfile
import typing
import unittest
import urllib.request
import zlib
from html import unescape

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))

from typing import Any, Dict, List, TypedDict  # noqa: E402

from signet_client import ConnectionFailed, RequestFailed, SignetClient, SignetError, TaskFailed, types  # noqa: E402
from signet_client.client import OPERATION_METHODS  # noqa: E402

URL = os.environ.get("SIGNET_URL", "http://localhost:8080")


def client() -> SignetClient:
    return SignetClient(URL, os.environ.get("SIGNET_USERNAME", "admin"), os.environ["SIGNET_PASSWORD"])


class CoverageTest(unittest.TestCase):
    def test_every_operation_of_the_served_document_has_a_method(self) -> None:
        document = served_document()
        served = {(m, p[len("/api/public/v1") :]) for p, ops in document["paths"].items() for m in ops if m in ("get", "post")}
        self.assertEqual(sorted(served), sorted(OPERATION_METHODS))
        for operation, method in OPERATION_METHODS.items():
            self.assertTrue(callable(getattr(SignetClient, method, None)), f"{operation}: SignetClient.{method}")


def served_document() -> Dict[str, Any]:
    with urllib.request.urlopen(URL + "/api/public/v1/openapi.json", timeout=30) as res:
        return json.load(res)


def mismatches(py_type: Any, schema: Dict[str, Any], components: Dict[str, Any], where: str) -> List[str]:
    """Where a type of signet_client.types differs from a schema of the OpenAPI document (nothing when they agree)."""
    if "$ref" in schema:
        return mismatches(py_type, components[schema["$ref"].split("/")[-1]], components, where)
    kind = schema.get("type")
    if kind == "array":
        if typing.get_origin(py_type) is not list:
            return [f"{where}: {py_type} is not a list"]
        return mismatches(typing.get_args(py_type)[0], schema["items"], components, where + "[]")
    if kind == "object":
        if not (isinstance(py_type, type) and hasattr(py_type, "__required_keys__")):
            return [f"{where}: {py_type} is not a TypedDict"]
        hints = typing.get_type_hints(py_type)
        properties = schema.get("properties", {})
        found = []
        if sorted(hints) != sorted(properties):
            found.append(f"{where}: keys {sorted(hints)} but the schema has {sorted(properties)}")
        if sorted(py_type.__required_keys__) != sorted(schema.get("required", [])):
            found.append(f"{where}: required {sorted(py_type.__required_keys__)} but the schema says {sorted(schema.get('required', []))}")
        for key in set(hints) & set(properties):
            found += mismatches(hints[key], properties[key], components, f"{where}.{key}")
        return found
    if "enum" in schema:
        ok = typing.get_origin(py_type) is typing.Literal and sorted(typing.get_args(py_type)) == sorted(schema["enum"])
        return [] if ok else [f"{where}: {py_type} is not Literal{schema['enum']}"]
    expected = {"number": float, "integer": int, "string": str, "boolean": bool}[kind]
    return [] if py_type is expected else [f"{where}: {py_type} where the schema says {kind}"]


class PlotTypesTest(unittest.TestCase):
    def test_each_plot_kind_has_the_type_of_its_schema_in_the_served_document(self) -> None:
        components = served_document()["components"]["schemas"]
        plot_names = components["Plot"]["properties"]
        # every plot name, typed by the schema it refers to
        self.assertEqual(sorted(typing.get_type_hints(types.Plot)), sorted(plot_names))
        self.assertEqual(types.Plot.__required_keys__, frozenset())
        # every component schema of the document has its type (types.py is generated from it)
        self.assertEqual(sorted(types.COMPONENTS), sorted(components))
        for name, ref in plot_names.items():
            schema_name = ref["$ref"].split("/")[-1]
            self.assertIs(typing.get_type_hints(types.Plot)[name], types.COMPONENTS[schema_name], name)
            self.assertEqual(mismatches(types.COMPONENTS[schema_name], components[schema_name], components, schema_name), [])
        self.assertEqual(mismatches(types.PlotOne, components["PlotOne"], components, "PlotOne"), [])
        self.assertEqual(mismatches(types.PlotAll, components["PlotAll"], components, "PlotAll"), [])

    def test_the_check_sees_a_type_that_differs(self) -> None:
        schema = {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}, "n": {"type": "integer"}}, "required": ["x"]}}

        class Good(TypedDict, total=False):
            x: float
            n: int

        class Wrong(TypedDict):
            x: float
            n: float

        self.assertEqual(mismatches(List[Good], schema, {}, "s"), ["s[]: required [] but the schema says ['x']"])
        self.assertEqual(
            mismatches(List[Wrong], schema, {}, "s"),
            ["s[]: required ['n', 'x'] but the schema says ['x']", f"s[].n: {float} where the schema says integer"],
        )


class ErrorsTest(unittest.TestCase):
    def test_a_wrong_password_raises_the_api_code_with_the_http_status_of_the_answer(self) -> None:
        with self.assertRaises(SignetError) as caught:
            SignetClient(URL, "nobody-at-all", "wrong-password")
        e = caught.exception
        # the API answers an error with HTTP 200 and an error envelope (api-v1)
        self.assertEqual((e.code, e.where, e.http_status), ("auth-10-3", "Login", 200))
        self.assertEqual(str(e), f"Login: {e.message} (auth-10-3)")
        self.assertNotIsInstance(e, RequestFailed)

    def test_an_unknown_analysis_raises_not_found(self) -> None:
        with client() as c, self.assertRaises(SignetError) as caught:
            c.get_analysis_result("987654321")
        self.assertEqual((caught.exception.code, caught.exception.http_status), ("notFound-120-2-1", 200))

    def test_no_token_is_http_403(self) -> None:
        with self.assertRaises(RequestFailed) as caught:
            SignetClient(URL).get_projects()
        self.assertEqual((caught.exception.http_status, caught.exception.code), (403, "http-403"))

    def test_an_unknown_endpoint_is_http_404(self) -> None:
        with client() as c, self.assertRaises(RequestFailed) as caught:
            c._get("/no/such/route", "Nothing")
        self.assertEqual((caught.exception.http_status, caught.exception.code), (404, "http-404"))

    def test_a_refused_connection_is_connection_failed_with_its_reason(self) -> None:
        with self.assertRaises(ConnectionFailed) as caught:
            SignetClient("http://127.0.0.1:9", timeout=5).get_version()
        e = caught.exception
        self.assertEqual((e.code, e.http_status, e.where), ("connection", None, "Get version"))
        self.assertIn("http://127.0.0.1:9/api/public/v1 could not be reached", e.message)
        self.assertIn("refused", e.message.lower())

    def test_a_failed_dataset_task_raises_task_failed_with_its_code(self) -> None:
        with client() as c, tempfile.TemporaryDirectory() as d:
            project_id = c.create_project("ragged")
            path = os.path.join(d, "ragged.csv")
            with open(path, "w") as f:
                f.write("a,b,c\n1,2,3\n4,5\n")
            uploaded = c.upload_file("ragged.csv", path)
            self.assertEqual(uploaded, {"fileId": "ragged.csv", "sizeInBytes": os.path.getsize(path)})
            task_id = c.create_dataset("ragged", project_id, "ragged.csv", uploaded["sizeInBytes"])
            with self.assertRaises(TaskFailed) as caught:
                c.wait_for_task(task_id, poll_interval=0.1, timeout=60)
            e = caught.exception
            self.assertEqual((e.code, e.http_status, e.status["state"], e.status["taskId"]), ("badRequest-115-3-1", None, "failed", task_id))


class SessionTest(unittest.TestCase):
    def test_the_with_block_logs_out_at_its_end_even_on_an_error(self) -> None:
        with client() as c:
            token = c.token
            self.assertEqual(SignetClient(URL, token=token).get_projects(0, 1)["offset"], 0)
        self.assertIsNone(c.token)
        with self.assertRaises(RequestFailed):
            SignetClient(URL, token=token).get_projects()
        with self.assertRaises(SignetError), client() as c2:
            token2 = c2.token
            c2.get_project("987654321")
        with self.assertRaises(RequestFailed):
            SignetClient(URL, token=token2).get_projects()

    def test_a_given_token_is_not_logged_out_by_the_with_block(self) -> None:
        with client() as owner:
            with SignetClient(URL, token=owner.token) as borrowed:
                borrowed.get_projects()
            self.assertEqual(owner.get_projects()["offset"], 0)

    def test_version_and_health(self) -> None:
        c = SignetClient(URL)
        info = c.get_version_info()
        self.assertEqual(c.get_version(), info["version"])
        self.assertRegex(info["mlEngine"], r"\S")
        self.assertEqual(c.health_live(), {"status": "ok"})
        self.assertEqual(c.health_ready(), {"status": "ok", "database": "ok"})


class ProjectsTest(unittest.TestCase):
    def test_create_get_list_delete(self) -> None:
        with client() as c:
            project_id = c.create_project("py project", "from unittest")
            self.assertEqual(c.get_project(project_id), {"projectId": project_id, "name": "py project", "description": "from unittest"})
            listed = c.get_projects(0, 100)
            self.assertIn(project_id, [p["projectId"] for p in listed["data"]])
            self.assertEqual(c.delete_project(project_id)["projectId"], project_id)
            with self.assertRaises(SignetError):
                c.get_project(project_id)

    def test_share_and_unshare(self) -> None:
        other = os.environ.get("SIGNET_OTHER_USERNAME")
        if not other:
            self.fail("SIGNET_OTHER_USERNAME and SIGNET_OTHER_PASSWORD name a second user")
        with client() as c, SignetClient(URL, other, os.environ["SIGNET_OTHER_PASSWORD"]) as o:
            project_id = c.create_project("shared by py")
            shared = c.share_project(project_id, other, ["read", "execute"])
            self.assertEqual(shared, {"projectId": project_id, "username": other, "permissions": ["read", "execute"]})
            self.assertIn(project_id, [p["projectId"] for p in o.get_shared_projects(0, 100)["data"]])
            self.assertEqual(o.get_project(project_id)["name"], "shared by py")
            self.assertEqual(c.unshare_project(project_id, other), {"projectId": project_id, "username": other})
            self.assertNotIn(project_id, [p["projectId"] for p in o.get_shared_projects(0, 100)["data"]])
            with self.assertRaises(SignetError) as caught:
                c.share_project(project_id, "no-such-user-here")
            self.assertEqual(caught.exception.code, "badRequest-10-0-1")
            c.delete_project(project_id)


class FilesTest(unittest.TestCase):
    def test_upload_list_delete(self) -> None:
        with client() as c:
            uploaded = c.upload_bytes("py-bytes.csv", b"x,y\n1,2\n", 8)
            self.assertEqual(uploaded, {"fileId": "py-bytes.csv", "sizeInBytes": 8})
            listed = {f["fileId"]: f for f in c.get_files(0, 100)["data"]}
            self.assertEqual(
                {k: v for k, v in listed["py-bytes.csv"].items() if k != "created"},
                {"fileId": "py-bytes.csv", "sizeInBytes": 8, "usedByDataset": False, "inUse": False},
            )
            self.assertEqual(c.delete_file("py-bytes.csv"), uploaded)
            self.assertNotIn("py-bytes.csv", [f["fileId"] for f in c.get_files(0, 100)["data"]])
            with self.assertRaises(SignetError) as caught:
                c.delete_file("py-bytes.csv")
            self.assertEqual(caught.exception.code, "notFound-115-1-1")


def png(path: str, width: int, height: int, shade: int) -> None:
    """A gray PNG (8-bit grayscale), written with the standard library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes([(shade + x) % 256 for x in range(width)]) for _ in range(height))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(rows)))
        f.write(chunk(b"IEND", b""))


class ImageUploadTest(unittest.TestCase):
    def test_init_add_commit_wait_by_multipart(self) -> None:
        with client() as c, tempfile.TemporaryDirectory() as d:
            project_id = c.create_project("images")
            labels = os.path.join(d, "labels.csv")
            with open(labels, "w") as f:
                f.write("sampleId,label\ns1,dark\ns2,light\n")
            task_id = c.image_upload_init(project_id, "scans", labels, description="two tiny scans")
            self.assertEqual(c.get_image_upload_status(task_id), {"taskId": task_id, "state": "pending"})
            for sample, shade in (("s1", 10), ("s2", 200)):
                path = os.path.join(d, f"{sample}.png")
                png(path, 8, 6, shade)
                self.assertEqual(c.image_upload_add_sample(task_id, sample, path), task_id)
            with self.assertRaises(SignetError) as caught:
                c.image_upload_add_sample(task_id, "s9", path)
            self.assertEqual(caught.exception.code, "badRequest-130-2-1")
            c.image_upload_commit(task_id)
            dataset_id = c.wait_for_task(task_id, poll_interval=0.2, timeout=120)["datasetId"]
            self.assertEqual(c.get_image_upload_status(task_id), {"taskId": task_id, "state": "finished", "datasetId": dataset_id})
            dataset = c.get_dataset(dataset_id)
            self.assertEqual((dataset["name"], dataset["sampleCount"]), ("scans", 2))
            names = [f["name"] for f in c.get_dataset_features(dataset_id)["features"]]
            self.assertEqual(names[:4], ["sampleId", "label", "img_width", "img_height"])
            retyped = c.change_feature_types(dataset_id, {"label": "identifier"})
            self.assertEqual([f["type"] for f in retyped["features"] if f["name"] == "label"], ["identifier"])
            self.assertEqual(c.get_datasets(project_id)["data"][0]["datasetId"], dataset_id)
            self.assertEqual(c.delete_dataset(dataset_id)["datasetId"], dataset_id)


class JourneyTest(unittest.TestCase):
    def test_the_example_runs_the_whole_journey(self) -> None:
        import journey

        out = io.StringIO()
        seen = journey.main(out)
        text = out.getvalue()
        best = seen["result"]["models"]["best"]
        self.assertIsInstance(best["model"], str)
        self.assertIn(f"best model: {best['model']}", text)
        self.assertTrue(best["performance"])
        for metric, value in best["performance"].items():
            self.assertIsInstance(value, float)
            self.assertIn(f"estimate {metric}: {value:.3f}", text)
        plots = sorted(
            [
                "Feature Importance",
                "Progressive Feature Importance",
                "Feature Stability",
                "Feature Contributions",
                "Partial Dependence",
                "ROC Curve",
                "Precision-Recall Curve",
                "Threshold Table",
                "Calibration",
                "Confusion Matrix",
                "Probabilities",
            ]
        )
        self.assertEqual(sorted(seen["plots"]), plots)
        self.assertEqual(sorted(k for p in seen["allPlots"] for k in p), plots)
        self.assertEqual(len(seen["predictions"]), 569)
        self.assertIn(seen["predictions"][0]["prediction"], ["malignant", "benign"])
        self.assertEqual(len(seen["csv"].splitlines()), 570)

        # what the journey made, read with the other operations
        analysis_id, dataset_id = seen["analysisId"], seen["datasetId"]
        with client() as c:
            self.assertEqual(c.get_analysis(analysis_id)["state"], "finished")
            self.assertEqual(c.get_analyses(seen["projectId"])["data"][0]["analysisId"], analysis_id)
            self.assertEqual(c.available_plots(analysis_id, "best", method="POST"), c.available_plots(analysis_id, "best"))
            self.assertEqual(c.get_plots(analysis_id, "best", method="POST"), c.get_plots(analysis_id, "best"))
            board = c.get_configurations(analysis_id, 0, 100)
            self.assertEqual([row["rank"] for row in board["data"]], list(range(1, min(board["totalCount"], 100) + 1)))
            self.assertEqual([row["modelKey"] for row in board["data"] if row.get("modelKey") == "best"], ["best"])
            oof = c.get_out_of_fold_predictions(analysis_id)
            self.assertEqual((oof["modelKey"], len(oof["predictions"])), ("best", 569))
            self.assertEqual(len(c.get_out_of_fold_predictions_csv(analysis_id).splitlines()), 570)
            with tempfile.TemporaryDirectory() as d:
                report = os.path.join(d, "report.html")
                self.assertEqual(c.download_report(analysis_id, report), report)
                with open(report, encoding="utf-8") as f:
                    page = f.read()
                self.assertTrue(page.startswith("<!DOCTYPE html>"))
                self.assertIn(f"Analysis {analysis_id} ", page)
                self.assertIn(best["model"], unescape(page))
                # the model leaves the service: its card, its ONNX file, rows scored in one call
                card = c.get_model_card(analysis_id)
                self.assertEqual(card["signature"], best["signatures"][0])
                onnx = os.path.join(d, "best.onnx")
                self.assertEqual(c.export_model(analysis_id, onnx), onnx)
                self.assertGreater(os.path.getsize(onnx), 100)
            row = {i["name"]: 1.0 for i in card["inputs"]}
            scored = c.score(analysis_id, [row, row])
            self.assertEqual([p["row"] for p in scored["predictions"]], [0, 1])
            self.assertEqual(scored["predictions"][0]["prediction"], scored["predictions"][1]["prediction"])
            with self.assertRaises(SignetError) as caught:
                c.score(analysis_id, [{}])
            self.assertEqual(caught.exception.code, "badRequest-150-3-1")
            with self.assertRaises(SignetError) as caught:
                c.download_report("987654321", os.path.join(tempfile.gettempdir(), "never-written.html"))
            self.assertEqual(caught.exception.code, "notFound-120-2-1")
            self.assertFalse(os.path.exists(os.path.join(tempfile.gettempdir(), "never-written.html")))
            link = c.create_report_link(analysis_id, 3)
            token = link["url"].rsplit("/", 1)[1]
            self.assertIn(f"Analysis {analysis_id} ", SignetClient(URL).open_report_link(token))
            self.assertEqual([l["linkId"] for l in c.get_report_links(analysis_id)["data"]], [link["linkId"]])
            self.assertEqual(c.delete_report_link(analysis_id, link["linkId"])["linkId"], link["linkId"])
            with self.assertRaises(SignetError) as refused:
                SignetClient(URL).open_report_link(token)
            self.assertEqual((refused.exception.code, refused.exception.http_status), ("http-404", 404))
            plot = c.get_plot(analysis_id, "best", "Feature Importance", method="POST")
            self.assertEqual((plot["analysisId"], plot["modelKey"], list(plot["plot"])), (analysis_id, "best", ["Feature Importance"]))
            checked = c.analyze_dataset_check(dataset_id, "check", {"classification": "no-such-feature"})
            self.assertEqual([e["code"] for e in checked["errors"]], ["badRequest-120-0-2"])
            # time_limit_seconds is sent as timeLimitSeconds: 5 is under its least (10)
            checked = c.analyze_dataset_check(dataset_id, "check", {"classification": "diagnosis"}, time_limit_seconds=5)
            self.assertEqual([e["code"] for e in checked["errors"]], ["badRequest-120-0-14"])
            checked = c.analyze_dataset_check(dataset_id, "check", {"classification": "diagnosis"}, time_limit_seconds=60)
            self.assertEqual(checked["errors"], [])
            self.assertEqual(c.get_analysis_status(analysis_id)["estimate"]["basis"], "shape")
            page = c.get_predictions(analysis_id)
            self.assertEqual(page["totalCount"], 1)
            prediction_id = page["data"][0]["predictionId"]
            self.assertEqual(c.delete_prediction(prediction_id)["state"], "finished")
            self.assertEqual(c.delete_analysis(analysis_id)["analysisId"], analysis_id)
            self.assertEqual(c.delete_project(seen["projectId"])["projectId"], seen["projectId"])


if __name__ == "__main__":
    unittest.main()


class _Recorder:
    """A local HTTP server that answers each request with `answer(path)` and keeps what it was sent."""

    def __init__(self, answer: typing.Callable[[str], typing.Tuple[int, Dict[str, str], bytes]]) -> None:
        import http.server
        import threading

        seen: List[Dict[str, Any]] = []
        self.seen = seen

        class Handler(http.server.BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                seen.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status, headers, content = answer(self.path)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = _any
            do_POST = _any

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _success(payload: Any) -> typing.Tuple[int, Dict[str, str], bytes]:
    return 200, {"Content-Type": "application/json"}, json.dumps({"status": "success", "payload": payload}).encode("utf-8")


class TransportTest(unittest.TestCase):
    """Issue 41, finding 12: what the client sends, against local servers that record it (no service needed)."""

    def test_a_redirect_to_another_host_gets_no_token_and_one_to_the_same_host_keeps_it(self) -> None:
        elsewhere = _Recorder(lambda path: _success({"projectId": "9"}))
        # the service's origin: its own redirects stay, one to another port (another origin) leaves
        service = _Recorder(
            lambda path: (307, {"Location": elsewhere.url + "/api/public/v1/project/9"}, b"")
            if path.endswith("/away")
            else ((307, {"Location": "/api/public/v1/project/8"}, b"") if path.endswith("/home") else _success({"projectId": "8"}))
        )
        try:
            c = SignetClient(service.url, token="secret-token")
            c._get("/away", "Redirected away")
            c._get("/home", "Redirected home")
            self.assertEqual([s["path"] for s in elsewhere.seen], ["/api/public/v1/project/9"])
            self.assertNotIn("Authorization", elsewhere.seen[0]["headers"])
            home = [s for s in service.seen if s["path"] == "/api/public/v1/project/8"]
            self.assertEqual(home[0]["headers"].get("Authorization"), "Bearer secret-token")
        finally:
            service.close()
            elsewhere.close()

    def test_predict_sends_times_when_given(self) -> None:
        service = _Recorder(lambda path: _success({"predictionId": "3"}))
        try:
            c = SignetClient(service.url, token="t")
            self.assertEqual(c.predict_outcome("7", "12", "best", times=[180, 365.5]), "3")
            self.assertEqual(c.predict_outcome("7", "12"), "3")
            bodies = [json.loads(s["body"]) for s in service.seen]
            self.assertEqual(bodies, [{"modelKey": "best", "signatureIndex": 0, "times": [180, 365.5]}, {"modelKey": "best", "signatureIndex": 0}])
        finally:
            service.close()
