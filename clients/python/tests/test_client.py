"""
The client against a running service (the jest suite starts one: test/python-client.e2e-spec.ts).

    SIGNET_URL=http://127.0.0.1:8080 SIGNET_USERNAME=alice SIGNET_PASSWORD=... python3 -m unittest discover -s tests
"""

from __future__ import annotations

import io
import os
import struct
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))

from signet_client import RequestFailed, SignetClient, SignetError  # noqa: E402

URL = os.environ.get("SIGNET_URL", "http://localhost:8080")


def client() -> SignetClient:
    return SignetClient(URL, os.environ.get("SIGNET_USERNAME", "admin"), os.environ["SIGNET_PASSWORD"])


class ErrorsTest(unittest.TestCase):
    def test_a_wrong_password_raises_the_api_code(self) -> None:
        with self.assertRaises(SignetError) as caught:
            SignetClient(URL, "nobody-at-all", "wrong-password")
        self.assertEqual(caught.exception.code, "auth-10-3")
        self.assertEqual(caught.exception.where, "Login")

    def test_an_unknown_analysis_raises_not_found(self) -> None:
        with self.assertRaises(SignetError) as caught:
            client().get_analysis_result("987654321")
        self.assertEqual(caught.exception.code, "notFound-120-2-1")

    def test_no_token_is_http_403(self) -> None:
        with self.assertRaises(RequestFailed) as caught:
            SignetClient(URL).get_projects()
        self.assertEqual((caught.exception.http_status, caught.exception.code), (403, "http-403"))

    def test_a_failed_dataset_task_raises_its_code(self) -> None:
        c = client()
        project_id = c.create_project("ragged")
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write("a,b,c\n1,2,3\n4,5\n")
        try:
            c.upload_file("ragged.csv", f.name)
            task_id = c.create_dataset("ragged", project_id, "ragged.csv", os.path.getsize(f.name))
            with self.assertRaises(SignetError) as caught:
                c.wait_for_task(task_id, poll_interval=0.1, timeout=60)
            self.assertEqual(caught.exception.code, "badRequest-115-3-1")
        finally:
            os.unlink(f.name)


class ProjectsTest(unittest.TestCase):
    def test_create_get_list_delete(self) -> None:
        c = client()
        project_id = c.create_project("py project", "from unittest")
        self.assertEqual(c.get_project(project_id), {"projectId": project_id, "name": "py project", "description": "from unittest"})
        listed = c.get_projects(0, 100)
        self.assertIn(project_id, [p["projectId"] for p in listed["data"]])
        self.assertEqual(c.delete_project(project_id)["projectId"], project_id)
        with self.assertRaises(SignetError):
            c.get_project(project_id)


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
        c = client()
        project_id = c.create_project("images")
        with tempfile.TemporaryDirectory() as d:
            labels = os.path.join(d, "labels.csv")
            with open(labels, "w") as f:
                f.write("sampleId,label\ns1,dark\ns2,light\n")
            task_id = c.image_upload_init(project_id, "scans", labels, description="two tiny scans")
            for sample, shade in (("s1", 10), ("s2", 200)):
                path = os.path.join(d, f"{sample}.png")
                png(path, 8, 6, shade)
                self.assertEqual(c.image_upload_add_sample(task_id, sample, path), task_id)
            with self.assertRaises(SignetError) as caught:
                c.image_upload_add_sample(task_id, "s9", path)
            self.assertEqual(caught.exception.code, "badRequest-130-2-1")
            c.image_upload_commit(task_id)
            dataset_id = c.wait_for_task(task_id, poll_interval=0.2, timeout=120)["datasetId"]
        dataset = c.get_dataset(dataset_id)
        self.assertEqual((dataset["name"], dataset["sampleCount"]), ("scans", 2))
        names = [f["name"] for f in c.get_dataset_features(dataset_id)["features"]]
        self.assertEqual(names[:4], ["sampleId", "label", "img_width", "img_height"])


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
                "ROC Curve",
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


if __name__ == "__main__":
    unittest.main()
