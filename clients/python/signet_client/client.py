"""
The Signet API (``/api/public/v1``) from Python, with the standard library only.

Method names follow JADBio's Python client where the operation is the same (``create_project``,
``upload_file``, ``create_dataset``, ``analyze_dataset``, ``get_analysis_result``, ``get_plot``,
``predict_outcome`` ...); the ``wait_for_*`` helpers poll a task until it ends. Every payload comes back
as the plain ``dict`` (or ``list``/``str``) the API sends; every error envelope is raised as
:class:`SignetError` carrying the API ``code``.
"""

from __future__ import annotations

import json
import mimetypes
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable, Dict, List, Optional, Tuple

API_PREFIX = "/api/public/v1"

#: Called with each status payload while a ``wait_for_*`` helper polls (``progress`` is 0..1 while running).
ProgressCallback = Callable[[Dict[str, Any]], None]


class SignetError(Exception):
    """An error answer of the API: ``code`` is for programs (part of the API), ``message`` for people."""

    def __init__(self, code: str, message: str, where: str = "", http_status: int = 200):
        self.code = code
        self.message = message
        self.where = where
        self.http_status = http_status
        super().__init__(f"{where + ': ' if where else ''}{message} ({code})")


class RequestFailed(SignetError):
    """HTTP other than 200 (403: no token or no permission, 404: no such endpoint, 500: server fault)."""


class SignetTimeout(SignetError, TimeoutError):
    """A ``wait_for_*`` helper gave up before the task ended."""


def _id(value: Any) -> str:
    return urllib.parse.quote(str(value), safe="")


class SignetClient:
    """
    A session with a Signet service.

    >>> client = SignetClient("http://localhost:8080", "alice", "s3cret-pw")   # logs in
    >>> client = SignetClient("http://localhost:8080", token="...")            # or uses a token
    """

    def __init__(
        self,
        host: str = "http://localhost:8080",
        username: Optional[str] = None,
        password: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 60.0,
    ):
        self.base_url = host.rstrip("/") + API_PREFIX
        self.timeout = timeout
        self.token: Optional[str] = token
        if username is not None:
            if password is None:
                raise ValueError("a password is needed with a username")
            self.login(username, password)

    # ---- transport -------------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        where: str,
        body: Any = None,
        data: Any = None,
        headers: Optional[Dict[str, str]] = None,
        query: Optional[Dict[str, str]] = None,
        raw: bool = False,
    ) -> Any:
        url = self.base_url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        hdrs = {"Accept": "application/json"}
        if self.token:
            hdrs["Authorization"] = "Bearer " + self.token
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            hdrs["Content-Type"] = "application/json"
        hdrs.update(headers or {})
        req = urllib.request.Request(url, data=data, headers=hdrs, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                content = res.read()
                content_type = res.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")[:300]
            raise RequestFailed(f"http-{e.code}", text or e.reason, where, e.code) from None
        except urllib.error.URLError as e:
            raise RequestFailed("connection", str(e.reason), where, 0) from None
        if raw and not content_type.startswith("application/json"):
            return content.decode("utf-8")
        envelope = json.loads(content.decode("utf-8"))
        if envelope.get("status") != "success":
            raise SignetError(envelope.get("code", "unknown"), envelope.get("message", ""), where)
        return envelope.get("payload")

    def _get(self, path: str, where: str, **kw: Any) -> Any:
        return self._request("GET", path, where, **kw)

    def _post(self, path: str, where: str, body: Any = None, **kw: Any) -> Any:
        # POST without a body still sends an empty JSON object: the API's routes all take JSON.
        return self._request("POST", path, where, body={} if body is None and "data" not in kw else body, **kw)

    def _wait(
        self,
        read: Callable[[], Dict[str, Any]],
        where: str,
        progress: Optional[ProgressCallback],
        poll_interval: float,
        timeout: Optional[float],
    ) -> Dict[str, Any]:
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            status = read()
            if progress is not None:
                progress(status)
            if status.get("state") == "finished":
                return status
            if status.get("state") == "failed":
                error = status.get("error") or {}
                raise SignetError(error.get("code", "failed"), error.get("message", "the task failed"), where)
            if end is not None and time.monotonic() > end:
                raise SignetTimeout("timeout", f"still {status.get('state')} after {timeout} s", where)
            time.sleep(poll_interval)

    # ---- session ---------------------------------------------------------------------------------

    def login(self, username: str, password: str) -> str:
        """Logs in (username or email); keeps and returns the token."""
        self.token = None
        payload = self._post("/login", "Login", {"usernameOrEmail": username, "password": password})
        self.token = payload["token"]
        return self.token

    def logout(self) -> None:
        """Revokes the session's token."""
        self._post("/logout", "Logout")
        self.token = None

    def get_version(self) -> str:
        return self._get("/version", "Get version")["version"]

    # ---- projects --------------------------------------------------------------------------------

    def create_project(self, name: str, descr: str = "") -> str:
        body: Dict[str, Any] = {"name": name}
        if descr:
            body["description"] = descr
        return str(self._post("/createProject", "Create project", body)["projectId"])

    def get_project(self, project_id: str) -> Dict[str, Any]:
        return self._get(f"/project/{_id(project_id)}", "Get project")

    def get_projects(self, offset: int = 0, count: int = 10) -> Dict[str, Any]:
        return self._get(f"/projects/owned/{int(offset)}/{int(count)}", "Get projects")

    def get_shared_projects(self, offset: int = 0, count: int = 10) -> Dict[str, Any]:
        return self._get(f"/projects/shared/{int(offset)}/{int(count)}", "Get shared projects")

    def delete_project(self, project_id: str) -> Dict[str, Any]:
        return self._post(f"/project/{_id(project_id)}/delete", "Delete project")

    # ---- files and datasets ----------------------------------------------------------------------

    def upload_file(self, file_id: str, pth_to_file: str) -> str:
        """Uploads a file (streamed, not read into memory) under ``file_id``; returns ``file_id``."""
        size = os.path.getsize(pth_to_file)
        with open(pth_to_file, "rb") as f:
            self._request(
                "POST",
                f"/file/{_id(file_id)}/upload",
                "Upload file",
                data=f,
                headers={"Content-Type": "application/octet-stream", "Content-Length": str(size)},
            )
        return str(file_id)

    def create_dataset(
        self,
        name: str,
        project_id: str,
        file_id: str,
        file_size_in_bytes: int,
        separator: str = ",",
        has_samples_in_rows: bool = True,
        has_feature_headers_name: bool = True,
        has_sample_headers: bool = False,
        description: str = "",
        feature_types: Optional[Dict[str, str]] = None,
    ) -> str:
        """Starts creating a dataset from an uploaded file; returns the task id (see :meth:`wait_for_task`)."""
        body: Dict[str, Any] = {
            "projectId": str(project_id),
            "name": name,
            "fileSizeInBytes": file_size_in_bytes,
            "separator": separator,
            "hasSamplesInRows": has_samples_in_rows,
            "hasFeatureHeaders": has_feature_headers_name,
            "hasSampleHeaders": has_sample_headers,
        }
        if description:
            body["description"] = description
        if feature_types:
            body["featureTypes"] = feature_types
        return str(self._post(f"/file/{_id(file_id)}/createDataset", "Create dataset", body)["taskId"])

    def get_task_status(self, task_id: str) -> Dict[str, Any]:
        """``{taskId, state, datasetId?, error?}`` of a dataset-creation (or image upload) task."""
        return self._get(f"/task/{_id(task_id)}/status", "Get task status")

    def wait_for_task(
        self,
        task_id: str,
        progress: Optional[ProgressCallback] = None,
        poll_interval: float = 0.5,
        timeout: Optional[float] = None,
    ) -> Dict[str, Any]:
        """Polls a task until it finishes (returns its status, with ``datasetId``) or fails (raises its error)."""
        return self._wait(lambda: self.get_task_status(task_id), "Dataset task", progress, poll_interval, timeout)

    def upload_dataset(self, project_id: str, pth_to_file: str, name: str, **options: Any) -> str:
        """Upload, create and wait in one call; returns the dataset id. ``options`` go to :meth:`create_dataset`."""
        file_id = "py-" + uuid.uuid4().hex
        self.upload_file(file_id, pth_to_file)
        task_id = self.create_dataset(name, project_id, file_id, os.path.getsize(pth_to_file), **options)
        return str(self.wait_for_task(task_id)["datasetId"])

    def get_dataset(self, dataset_id: str) -> Dict[str, Any]:
        return self._get(f"/dataset/{_id(dataset_id)}", "Get dataset")

    def get_datasets(self, project_id: str, offset: int = 0, count: int = 10) -> Dict[str, Any]:
        return self._get(f"/datasets/{_id(project_id)}/{int(offset)}/{int(count)}", "Get datasets")

    def get_dataset_features(self, dataset_id: str) -> Dict[str, Any]:
        """``{datasetId, features: [{name, type, missingCount, distinctCount}]}``."""
        return self._get(f"/dataset/{_id(dataset_id)}/features", "Get dataset features")

    def change_feature_types(self, dataset_id: str, feature_types: Dict[str, str]) -> Dict[str, Any]:
        """Sets feature types in place (``{"sex": "categorical"}``); unlike JADBio, no new dataset is made."""
        return self._post(f"/dataset/{_id(dataset_id)}/changeFeatureTypes", "Change feature types", {"featureTypes": feature_types})

    def delete_dataset(self, dataset_id: str) -> Dict[str, Any]:
        return self._post(f"/dataset/{_id(dataset_id)}/delete", "Delete dataset")

    # ---- image datasets --------------------------------------------------------------------------

    def _multipart(self, path: str, where: str, fields: List[Tuple[str, str]], files: List[Tuple[str, str]]) -> Any:
        boundary = "signet-" + uuid.uuid4().hex
        parts: List[bytes] = []
        for name, value in fields:
            parts.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode("utf-8")
            )
        for name, file_path in files:
            filename = os.path.basename(file_path).replace('"', "")
            mime = mimetypes.guess_type(file_path)[0] or "application/octet-stream"
            with open(file_path, "rb") as f:
                content = f.read()
            parts.append(
                (
                    f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                    f"Content-Type: {mime}\r\n\r\n"
                ).encode("utf-8")
                + content
                + b"\r\n"
            )
        parts.append(f"--{boundary}--\r\n".encode("utf-8"))
        return self._request(
            "POST", path, where, data=b"".join(parts), headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
        )

    def image_upload_init(
        self,
        project_id: str,
        name: str,
        data_path: str,
        has_feature_names: bool = True,
        description: Optional[str] = None,
    ) -> str:
        """Starts an image dataset from a CSV of sample ids (first column) and labels; returns the task id."""
        attributes: Dict[str, Any] = {"projectId": int(project_id), "name": name, "hasFeatureHeaders": has_feature_names}
        if description:
            attributes["description"] = description
        payload = self._multipart("/image/initUpload", "Image upload init", [("attributes", json.dumps(attributes))], [("file", data_path)])
        return str(payload["taskId"])

    def image_upload_add_sample(self, task_id: str, sample: str, path: str) -> str:
        """Adds the image of one sample."""
        payload = self._multipart(f"/image/{_id(task_id)}/add", "Image upload add", [("sampleId", sample)], [("file", path)])
        return str(payload["taskId"])

    def image_upload_commit(self, task_id: str) -> None:
        """Ends the upload; the dataset is then built (see :meth:`wait_for_task`)."""
        self._get(f"/image/{_id(task_id)}/commit", "Image upload commit")

    # ---- analyses --------------------------------------------------------------------------------

    @staticmethod
    def _analysis_body(
        name: str,
        outcome: Dict[str, Any],
        thoroughness: str,
        core_count: int,
        grouping_feat: Optional[str],
        models_considered: str,
        feature_selection: str,
        max_signature_size: Optional[int],
        max_visualized_signature_count: Optional[int],
    ) -> Dict[str, Any]:
        body: Dict[str, Any] = {
            "name": name,
            "outcome": outcome,
            "thoroughness": thoroughness,
            "coreCount": core_count,
            "modelsConsidered": models_considered,
            "featureSelection": feature_selection,
        }
        if grouping_feat is not None:
            body["groupingFeature"] = grouping_feat
        if max_signature_size is not None:
            body["maxSignatureSize"] = max_signature_size
        if max_visualized_signature_count is not None:
            body["maxVisualizedSignatureCount"] = max_visualized_signature_count
        return body

    def analyze_dataset(
        self,
        dataset_id: str,
        name: str,
        outcome: Dict[str, Any],
        thoroughness: str = "preliminary",
        core_count: int = 1,
        grouping_feat: Optional[str] = None,
        models_considered: str = "all",
        feature_selection: str = "mostRelevant",
        max_signature_size: Optional[int] = None,
        max_visualized_signature_count: Optional[int] = None,
    ) -> str:
        """
        Starts an analysis; returns its id. ``outcome``: ``{"classification": "diagnosis"}``,
        ``{"regression": "progression"}`` or ``{"survival": {"event": "status", "timeToEvent": "time"}}``.
        """
        body = self._analysis_body(
            name, outcome, thoroughness, core_count, grouping_feat, models_considered, feature_selection,
            max_signature_size, max_visualized_signature_count,
        )
        return str(self._post(f"/dataset/{_id(dataset_id)}/analyze", "Analyze dataset", body)["analysisId"])

    #: Short name for :meth:`analyze_dataset`.
    analyze = analyze_dataset

    def analyze_dataset_check(
        self,
        dataset_id: str,
        name: str,
        outcome: Dict[str, Any],
        thoroughness: str = "preliminary",
        core_count: int = 1,
        grouping_feat: Optional[str] = None,
        models_considered: str = "all",
        feature_selection: str = "mostRelevant",
        max_signature_size: Optional[int] = None,
        max_visualized_signature_count: Optional[int] = None,
    ) -> Dict[str, Any]:
        """Checks the parameters without starting anything: ``{errors: [{code, message}], warnings: [...]}``."""
        body = self._analysis_body(
            name, outcome, thoroughness, core_count, grouping_feat, models_considered, feature_selection,
            max_signature_size, max_visualized_signature_count,
        )
        return self._post(f"/check/dataset/{_id(dataset_id)}/analyze", "Analyze dataset check", body)

    def get_analysis(self, analysis_id: str) -> Dict[str, Any]:
        return self._get(f"/analysis/{_id(analysis_id)}", "Get analysis")

    def get_analyses(self, project_id: str, offset: int = 0, count: int = 10) -> Dict[str, Any]:
        return self._get(f"/analyses/all/{_id(project_id)}/{int(offset)}/{int(count)}", "Get analyses")

    def get_analysis_status(self, analysis_id: str) -> Dict[str, Any]:
        """``{analysisId, projectId, parameters, state, startTime?, executionTimeInSeconds?, progress?, error?}``."""
        return self._get(f"/analysis/{_id(analysis_id)}/status", "Get analysis status")

    def wait_for_analysis(
        self,
        analysis_id: str,
        progress: Optional[ProgressCallback] = None,
        poll_interval: float = 1.0,
        timeout: Optional[float] = None,
    ) -> Dict[str, Any]:
        """
        Polls until the analysis finishes (returns the last status) or fails (raises its error code, e.g.
        ``badRequest-120-0-13``). ``progress`` gets every status read (``status["progress"]`` while running).
        """
        return self._wait(lambda: self.get_analysis_status(analysis_id), "Analysis", progress, poll_interval, timeout)

    def get_analysis_result(self, analysis_id: str) -> Dict[str, Any]:
        """``{analysisId, parameters, mlEngine, startTime, executionTimeInSeconds, models: {best: {...}, ...}}``."""
        return self._get(f"/analysis/{_id(analysis_id)}/result", "Get analysis result")

    def delete_analysis(self, analysis_id: str) -> Dict[str, Any]:
        """Deletes (and stops, if running) an analysis."""
        return self._post(f"/analysis/{_id(analysis_id)}/delete", "Delete analysis")

    # ---- plots -----------------------------------------------------------------------------------

    def available_plots(self, analysis_id: str, model_key: str) -> List[str]:
        """Names of the plots computed for a model (e.g. ``Feature Importance``)."""
        return self._get(f"/analysis/{_id(analysis_id)}/availablePlots", "Available plots", query={"modelKey": model_key})["plots"]

    def get_plot(self, analysis_id: str, model_key: str, plot_key: str) -> Dict[str, Any]:
        """``{analysisId, modelKey, plot: {<plotKey>: [...]}}``."""
        return self._get(
            f"/analysis/{_id(analysis_id)}/getPlot", "Get plot", query={"modelKey": model_key, "plotKey": plot_key}
        )

    def get_plots(self, analysis_id: str, model_key: str) -> Dict[str, Any]:
        """``{analysisId, modelKey, plots: [{<plotKey>: [...]}, ...]}``: every available plot."""
        return self._get(f"/analysis/{_id(analysis_id)}/getPlots", "Get plots", query={"modelKey": model_key})

    # ---- predictions -----------------------------------------------------------------------------

    def predict_outcome(self, analysis_id: str, dataset_id: str, model_key: str = "best", signature_index: int = 0) -> str:
        """Applies a model of a finished analysis to a dataset; returns the prediction id."""
        body = {"modelKey": model_key, "signatureIndex": signature_index}
        return str(self._post(f"/analysis/{_id(analysis_id)}/predict/{_id(dataset_id)}", "Predict outcome", body)["predictionId"])

    def get_prediction_status(self, prediction_id: str) -> Dict[str, Any]:
        return self._get(f"/prediction/{_id(prediction_id)}/status", "Get prediction status")

    def wait_for_prediction(
        self,
        prediction_id: str,
        progress: Optional[ProgressCallback] = None,
        poll_interval: float = 0.5,
        timeout: Optional[float] = None,
    ) -> Dict[str, Any]:
        """Polls until the prediction finishes (returns its status) or fails (raises its error code)."""
        return self._wait(lambda: self.get_prediction_status(prediction_id), "Prediction", progress, poll_interval, timeout)

    def get_prediction_result(self, prediction_id: str) -> Dict[str, Any]:
        """
        The predictions as JSON: ``{predictionId, analysisId, datasetId, modelKey, predictions: [{row, sampleId?,
        prediction, probabilities?, risk?}]}``. (JADBio's method of this name returns CSV: here that is
        :meth:`get_prediction_result_csv`.)
        """
        return self._get(f"/prediction/{_id(prediction_id)}/result", "Get prediction result")

    def get_prediction_result_csv(self, prediction_id: str) -> str:
        """The predictions as CSV text."""
        return self._get(f"/prediction/{_id(prediction_id)}/result", "Get prediction result", query={"format": "csv"}, raw=True)

    def get_predictions(self, analysis_id: str, offset: int = 0, count: int = 10) -> Dict[str, Any]:
        return self._get(f"/analysis/{_id(analysis_id)}/predictions/{int(offset)}/{int(count)}", "Get predictions")

    def delete_prediction(self, prediction_id: str) -> Dict[str, Any]:
        return self._post(f"/prediction/{_id(prediction_id)}/delete", "Delete prediction")
