"""
The Signet API (``/api/public/v1``) from Python, with the standard library only.

Every operation of the API has a method; each returns its payload typed (``signet_client.types``: plain
``dict`` s at run time) or, for the operations that start something, the new id as a ``str``. Method names
follow JADBio's Python client where the operation is the same; ``signet_client.jadbio`` is a layer with
JADBio's exact signatures, defaults and return values for code written for that client.

Errors (see :class:`SignetError`): the API answers an error with HTTP 200 and the envelope
``{code, message, status: "error"}`` (api-v1); that raises :class:`SignetError` with the envelope's ``code``
and ``message`` and ``http_status`` 200, the real status of the response. HTTP 403, 404 and 500 raise
:class:`RequestFailed` (``code`` ``http-403`` ...), a refused or broken connection :class:`ConnectionFailed`
(``http_status`` ``None``), a failed task, analysis or prediction :class:`TaskFailed` (its status's error code),
and a wait that gives up :class:`SignetTimeout`.

A client that logged in logs out (revoking its token) when its ``with`` block ends, on :meth:`SignetClient.close`,
and at the latest when it is garbage-collected or the interpreter exits.
"""

from __future__ import annotations

import json
import mimetypes
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import weakref
from types import TracebackType
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Type, TypeVar, cast

from .types import (
    ReportLink,
    ReportLinkInfo,
    ReportLinkPage,
    Analysis,
    ConfigurationPage,
    OutOfFoldPredictions,
    AnalysisCheck,
    AnalysisPage,
    AnalysisResult,
    AnalysisStatus,
    AvailablePlots,
    Dataset,
    DatasetPage,
    Features,
    FilePage,
    Health,
    PlotAll,
    PlotOne,
    Prediction,
    PredictionPage,
    ModelCard,
    PredictionResult,
    PredictionStatus,
    Project,
    ProjectPage,
    ScoreResult,
    Share,
    TaskStatus,
    Unshare,
    UploadedFile,
    Version,
)

API_PREFIX = "/api/public/v1"

#: ``{"classification": name}``, ``{"regression": name}`` or ``{"survival": {"event": name, "timeToEvent": name}}``
#: (``types.RegressionOutcome``, ``types.ClassificationOutcome``, ``types.SurvivalOutcome``; any dict is accepted)
Outcome = Dict[str, Any]

#: Every operation of the API (method and path under the prefix, as the OpenAPI document lists them) -> the client's
#: method: tests/test_client.py fails when an operation of the served document has none.
OPERATION_METHODS: Dict[Tuple[str, str], str] = {
    ("get", "/version"): "get_version_info",
    ("get", "/health/live"): "health_live",
    ("get", "/health/ready"): "health_ready",
    ("post", "/login"): "login",
    ("post", "/logout"): "logout",
    ("post", "/createProject"): "create_project",
    ("get", "/project/{projectId}"): "get_project",
    ("get", "/projects/owned/{offset}/{count}"): "get_projects",
    ("get", "/projects/shared/{offset}/{count}"): "get_shared_projects",
    ("post", "/project/{projectId}/delete"): "delete_project",
    ("post", "/project/{projectId}/share"): "share_project",
    ("post", "/project/{projectId}/unshare"): "unshare_project",
    ("post", "/file/{fileId}/upload"): "upload_file",
    ("get", "/files/{offset}/{count}"): "get_files",
    ("post", "/file/{fileId}/delete"): "delete_file",
    ("post", "/file/{fileId}/createDataset"): "create_dataset",
    ("get", "/task/{taskId}/status"): "get_task_status",
    ("get", "/dataset/{datasetId}"): "get_dataset",
    ("get", "/datasets/{projectId}/{offset}/{count}"): "get_datasets",
    ("post", "/dataset/{datasetId}/delete"): "delete_dataset",
    ("get", "/dataset/{datasetId}/features"): "get_dataset_features",
    ("post", "/dataset/{datasetId}/changeFeatureTypes"): "change_feature_types",
    ("post", "/dataset/{datasetId}/analyze"): "analyze_dataset",
    ("post", "/check/dataset/{datasetId}/analyze"): "analyze_dataset_check",
    ("get", "/analysis/{analysisId}"): "get_analysis",
    ("get", "/analyses/all/{projectId}/{offset}/{count}"): "get_analyses",
    ("get", "/analysis/{analysisId}/status"): "get_analysis_status",
    ("get", "/analysis/{analysisId}/result"): "get_analysis_result",
    ("post", "/analysis/{analysisId}/delete"): "delete_analysis",
    ("get", "/analysis/{analysisId}/availablePlots"): "available_plots",
    ("post", "/analysis/{analysisId}/availablePlots"): "available_plots",  # method="POST"
    ("get", "/analysis/{analysisId}/getPlot"): "get_plot",
    ("post", "/analysis/{analysisId}/getPlot"): "get_plot",  # method="POST"
    ("get", "/analysis/{analysisId}/getPlots"): "get_plots",
    ("post", "/analysis/{analysisId}/getPlots"): "get_plots",  # method="POST"
    ("post", "/analysis/{analysisId}/predict/{datasetId}"): "predict_outcome",
    ("get", "/prediction/{predictionId}/status"): "get_prediction_status",
    ("get", "/prediction/{predictionId}/result"): "get_prediction_result",  # and get_prediction_result_csv
    ("get", "/analysis/{analysisId}/predictions/{offset}/{count}"): "get_predictions",
    ("post", "/prediction/{predictionId}/delete"): "delete_prediction",
    ("get", "/analysis/{analysisId}/model"): "export_model",
    ("get", "/analysis/{analysisId}/modelCard"): "get_model_card",
    ("post", "/analysis/{analysisId}/score"): "score",
    ("post", "/image/initUpload"): "image_upload_init",
    ("post", "/image/{taskId}/add"): "image_upload_add_sample",
    ("get", "/image/{taskId}/commit"): "image_upload_commit",
    ("get", "/image/{taskId}/status"): "get_image_upload_status",
    ("get", "/analysis/{analysisId}/configurations/{offset}/{count}"): "get_configurations",
    ("get", "/analysis/{analysisId}/outOfFoldPredictions"): "get_out_of_fold_predictions",
    ("get", "/analysis/{analysisId}/report"): "download_report",
    ("post", "/analysis/{analysisId}/reportLink"): "create_report_link",
    ("get", "/analysis/{analysisId}/reportLinks/{offset}/{count}"): "get_report_links",
    ("post", "/analysis/{analysisId}/reportLink/{linkId}/delete"): "delete_report_link",
    ("get", "/sharedReport/{token}"): "open_report_link",
}

#: Called with each status payload while a ``wait_for_*`` helper polls (``progress`` is 0..1 while running).
ProgressCallback = Callable[[Dict[str, Any]], None]

S = TypeVar("S", TaskStatus, AnalysisStatus, PredictionStatus)


class SignetError(Exception):
    """
    An error of the API. ``code`` is for programs (the API's code, e.g. ``notFound-120-2-1``, part of the API),
    ``message`` for people; ``where`` names the operation. ``http_status`` is the HTTP status of the response
    that carried the error: 200 for an error envelope (the API answers errors with HTTP 200), 403, 404 or 500
    for :class:`RequestFailed`, and ``None`` when no response carried it (a failed job, a timeout, no connection).
    """

    def __init__(self, code: str, message: str, where: str = "", http_status: Optional[int] = 200):
        self.code = code
        self.message = message
        self.where = where
        self.http_status = http_status
        super().__init__(code, message, where, http_status)

    def __str__(self) -> str:
        return f"{self.where + ': ' if self.where else ''}{self.message} ({self.code})"


class RequestFailed(SignetError):
    """
    HTTP other than 200: 403 (no valid token, or no permission), 404 (no such endpoint), 500 (a fault of the
    service; the message holds its correlation id). ``code`` is ``http-<status>``.
    """


class ConnectionFailed(RequestFailed):
    """The service could not be reached or the connection broke: ``code`` ``connection``, ``message`` the reason."""


class TaskFailed(SignetError):
    """A task, analysis or prediction ended ``failed``: its error's ``code`` and ``message``, its last ``status``."""

    def __init__(self, code: str, message: str, where: str, status: Dict[str, Any]):
        super().__init__(code, message, where, None)
        self.status = status


class SignetTimeout(SignetError, TimeoutError):
    """A ``wait_for_*`` helper gave up before the task ended (``code`` ``timeout``)."""


def _id(value: Any) -> str:
    return urllib.parse.quote(str(value), safe="")


def _page(offset: int, count: int) -> str:
    return f"{int(offset)}/{int(count)}"


def _origin(url: str) -> Tuple[str, str]:
    """A URL's scheme and host (with its port): what a bearer token is for."""
    parts = urllib.parse.urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


class _NoTokenElsewhere(urllib.request.HTTPRedirectHandler):
    """
    Follows redirects as urllib does, but sends the token to the service's own origin only: urllib copies every
    header of a request to the request it is redirected to, ``Authorization`` included, so a redirect to another host
    (or from https to http) handed that host the user's token.
    """

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(newurl) != _origin(req.full_url):
            new.remove_header("Authorization")
        return new


#: How every request is sent: urllib's opener with _NoTokenElsewhere in place of its redirect handler.
_OPENER = urllib.request.build_opener(_NoTokenElsewhere)


def _logout_at_exit(base_url: str, token: str, timeout: float) -> None:
    """Revokes a token nobody logged out (the client was dropped, or the interpreter exits)."""
    req = urllib.request.Request(
        base_url + "/logout",
        data=b"{}",
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with _OPENER.open(req, timeout=min(timeout, 5.0)) as res:
            res.read()
    except (OSError, ValueError) as e:
        sys.stderr.write(f"signet_client: could not log out ({e}); the token stays valid until it expires\n")


class SignetClient:
    """
    A session with a Signet service.

    >>> with SignetClient("http://localhost:8080", "alice", "s3cret-pw") as client:   # logs in, and out at the end
    ...     project_id = client.create_project("cohort A")
    >>> client = SignetClient("http://localhost:8080", token="...")                   # or uses a token it was given

    A token the client was given is never logged out by it; one it obtained by :meth:`login` is.
    """

    #: The exception classes raised for an error envelope and for HTTP other than 200 (the jadbio layer swaps them).
    envelope_error: Type[SignetError] = SignetError
    http_error: Type[RequestFailed] = RequestFailed

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
        self._finalizer: Optional[weakref.finalize] = None
        if username is not None:
            if password is None:
                raise ValueError("a password is needed with a username")
            self.login(username, password)

    # ---- session ---------------------------------------------------------------------------------

    def __enter__(self) -> "SignetClient":
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        try:
            self.close()
        except SignetError:
            if error is None:
                raise  # the block succeeded: the failed logout is the news
            # else the block's own exception goes on; the token expires in time

    def close(self) -> None:
        """Logs out if this client logged in (its token is revoked); a token it was given is left alone."""
        if self._finalizer is not None and self._finalizer.alive:
            self.logout()

    def login(self, username: str, password: str) -> str:
        """Logs in (username or email); keeps the token (logging out the previous one this client made) and returns it."""
        self.close()
        self.token = None
        payload = self._post("/login", "Login", {"usernameOrEmail": username, "password": password})
        self.token = cast(str, payload["token"])
        self._finalizer = weakref.finalize(self, _logout_at_exit, self.base_url, self.token, self.timeout)
        return self.token

    def logout(self) -> None:
        """Revokes the session's token (whoever made it)."""
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        self._post("/logout", "Logout")
        self.token = None

    def get_version_info(self) -> Version:
        """``{version, mlEngine}``."""
        return cast(Version, self._get("/version", "Get version"))

    def get_version(self) -> str:
        return self.get_version_info()["version"]

    def health_live(self) -> Health:
        """``{status: "ok"}`` while the process answers."""
        return cast(Health, self._request("GET", "/health/live", "Health live", envelope=False))

    def health_ready(self) -> Health:
        """``{status, database}``: ``ok`` when the database answers, ``unavailable`` (HTTP 503) when not."""
        return cast(Health, self._request("GET", "/health/ready", "Health ready", envelope=False, accept={503}))

    # ---- projects --------------------------------------------------------------------------------

    def create_project(self, name: str, descr: str = "") -> str:
        """Creates a project; returns its id."""
        body: Dict[str, Any] = {"name": name}
        if descr:
            body["description"] = descr
        return str(self._post("/createProject", "Create project", body)["projectId"])

    def get_project(self, project_id: str) -> Project:
        return cast(Project, self._get(f"/project/{_id(project_id)}", "Get project"))

    def get_projects(self, offset: int = 0, count: int = 10) -> ProjectPage:
        """The projects the user owns."""
        return cast(ProjectPage, self._get(f"/projects/owned/{_page(offset, count)}", "Get projects"))

    def get_shared_projects(self, offset: int = 0, count: int = 10) -> ProjectPage:
        """The projects others share with the user."""
        return cast(ProjectPage, self._get(f"/projects/shared/{_page(offset, count)}", "Get shared projects"))

    def delete_project(self, project_id: str) -> Project:
        """Deletes a project the user owns, with its datasets, analyses and predictions; returns it as it was."""
        return cast(Project, self._post(f"/project/{_id(project_id)}/delete", "Delete project"))

    def share_project(self, project_id: str, username: str, permissions: Iterable[str] = ("read",)) -> Share:
        """Shares a project the user owns with another user: ``permissions`` of ``read``, ``write``, ``execute``."""
        body = {"username": username, "permissions": list(permissions)}
        return cast(Share, self._post(f"/project/{_id(project_id)}/share", "Share project", body))

    def unshare_project(self, project_id: str, username: str) -> Unshare:
        """Takes back every permission the user had on the project."""
        return cast(Unshare, self._post(f"/project/{_id(project_id)}/unshare", "Unshare project", {"username": username}))

    # ---- files and datasets ----------------------------------------------------------------------

    def upload_file(self, file_id: str, pth_to_file: str) -> UploadedFile:
        """Uploads a file (streamed, not read into memory) under ``file_id``; returns ``{fileId, sizeInBytes}``."""
        with open(pth_to_file, "rb") as f:
            return self.upload_bytes(file_id, f, os.path.getsize(pth_to_file))

    def upload_bytes(self, file_id: str, data: Any, size: int) -> UploadedFile:
        """Uploads ``data`` (bytes, or a binary file object of ``size`` bytes) under ``file_id``."""
        return cast(
            UploadedFile,
            self._request(
                "POST",
                f"/file/{_id(file_id)}/upload",
                "Upload file",
                data=data,
                headers={"Content-Type": "application/octet-stream", "Content-Length": str(size)},
            ),
        )

    def get_files(self, offset: int = 0, count: int = 10) -> FilePage:
        """The user's uploaded files, oldest first, with whether a dataset was (or is being) made from each."""
        return cast(FilePage, self._get(f"/files/{_page(offset, count)}", "Get files"))

    def delete_file(self, file_id: str) -> UploadedFile:
        """Deletes an uploaded file (datasets made from it keep their own copy)."""
        return cast(UploadedFile, self._post(f"/file/{_id(file_id)}/delete", "Delete file"))

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

    def get_task_status(self, task_id: str) -> TaskStatus:
        """``{taskId, state, datasetId?, error?}`` of a dataset-creation (or image upload) task."""
        return cast(TaskStatus, self._get(f"/task/{_id(task_id)}/status", "Get task status"))

    def wait_for_task(
        self,
        task_id: str,
        progress: Optional[ProgressCallback] = None,
        poll_interval: float = 0.5,
        timeout: Optional[float] = None,
    ) -> TaskStatus:
        """Polls a task until it finishes (returns its status, with ``datasetId``) or fails (raises :class:`TaskFailed`)."""
        return self._wait(lambda: self.get_task_status(task_id), "Dataset task", progress, poll_interval, timeout)

    def upload_dataset(self, project_id: str, pth_to_file: str, name: str, **options: Any) -> str:
        """Upload, create and wait in one call; returns the dataset id. ``options`` go to :meth:`create_dataset`."""
        file_id = "py-" + uuid.uuid4().hex
        uploaded = self.upload_file(file_id, pth_to_file)
        task_id = self.create_dataset(name, project_id, file_id, uploaded["sizeInBytes"], **options)
        return str(self.wait_for_task(task_id)["datasetId"])

    def get_dataset(self, dataset_id: str) -> Dataset:
        return cast(Dataset, self._get(f"/dataset/{_id(dataset_id)}", "Get dataset"))

    def get_datasets(self, project_id: str, offset: int = 0, count: int = 10) -> DatasetPage:
        return cast(DatasetPage, self._get(f"/datasets/{_id(project_id)}/{_page(offset, count)}", "Get datasets"))

    def get_dataset_features(self, dataset_id: str) -> Features:
        """``{datasetId, features: [{name, type, missingCount, distinctCount}]}``."""
        return cast(Features, self._get(f"/dataset/{_id(dataset_id)}/features", "Get dataset features"))

    def change_feature_types(self, dataset_id: str, feature_types: Dict[str, str]) -> Features:
        """Sets feature types in place (``{"sex": "categorical"}``); unlike JADBio, no new dataset is made."""
        body = {"featureTypes": feature_types}
        return cast(Features, self._post(f"/dataset/{_id(dataset_id)}/changeFeatureTypes", "Change feature types", body))

    def delete_dataset(self, dataset_id: str) -> Dataset:
        """Deletes a dataset with its analyses and predictions; returns it as it was."""
        return cast(Dataset, self._post(f"/dataset/{_id(dataset_id)}/delete", "Delete dataset"))

    # ---- image datasets --------------------------------------------------------------------------

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
        payload = self._multipart(
            "/image/initUpload", "Image upload init", [("attributes", json.dumps(attributes))], [("file", data_path)]
        )
        return str(payload["taskId"])

    def image_upload_add_sample(self, task_id: str, sample: str, path: str) -> str:
        """Adds the image of one sample; returns the task id."""
        payload = self._multipart(f"/image/{_id(task_id)}/add", "Image upload add", [("sampleId", sample)], [("file", path)])
        return str(payload["taskId"])

    def image_upload_commit(self, task_id: str) -> None:
        """Ends the upload; the dataset is then built (see :meth:`wait_for_task`)."""
        self._get(f"/image/{_id(task_id)}/commit", "Image upload commit")

    def get_image_upload_status(self, task_id: str) -> TaskStatus:
        """``{taskId, state, datasetId?, error?}`` (``pending`` until the commit)."""
        return cast(TaskStatus, self._get(f"/image/{_id(task_id)}/status", "Image upload status"))

    # ---- analyses --------------------------------------------------------------------------------

    @staticmethod
    def _analysis_body(
        name: str,
        outcome: Outcome,
        thoroughness: str,
        core_count: int,
        grouping_feat: Optional[str],
        models_considered: str,
        feature_selection: str,
        max_signature_size: Optional[int],
        max_visualized_signature_count: Optional[int],
        time_limit_seconds: Optional[int] = None,
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
        if time_limit_seconds is not None:
            body["timeLimitSeconds"] = time_limit_seconds
        return body

    def analyze_dataset(
        self,
        dataset_id: str,
        name: str,
        outcome: Outcome,
        thoroughness: str = "preliminary",
        core_count: int = 1,
        grouping_feat: Optional[str] = None,
        models_considered: str = "all",
        feature_selection: str = "mostRelevant",
        max_signature_size: Optional[int] = None,
        max_visualized_signature_count: Optional[int] = None,
        time_limit_seconds: Optional[int] = None,
    ) -> str:
        """
        Starts an analysis; returns its id. ``outcome``: ``{"classification": "diagnosis"}``,
        ``{"regression": "progression"}`` or ``{"survival": {"event": "status", "timeToEvent": "time"}}``.
        ``time_limit_seconds`` (10 to 604800) bounds the running time: the search stops in time for the final phase
        (the result's ``search`` says what it tried). The status's ``estimate`` says the expected running time.
        """
        body = self._analysis_body(
            name, outcome, thoroughness, core_count, grouping_feat, models_considered, feature_selection,
            max_signature_size, max_visualized_signature_count, time_limit_seconds,
        )  # fmt: skip
        return str(self._post(f"/dataset/{_id(dataset_id)}/analyze", "Analyze dataset", body)["analysisId"])

    #: Short name for :meth:`analyze_dataset`.
    analyze = analyze_dataset

    def analyze_dataset_check(
        self,
        dataset_id: str,
        name: str,
        outcome: Outcome,
        thoroughness: str = "preliminary",
        core_count: int = 1,
        grouping_feat: Optional[str] = None,
        models_considered: str = "all",
        feature_selection: str = "mostRelevant",
        max_signature_size: Optional[int] = None,
        max_visualized_signature_count: Optional[int] = None,
        time_limit_seconds: Optional[int] = None,
    ) -> AnalysisCheck:
        """Checks the parameters (and the data) without starting anything: ``{errors: [{code, message}], warnings}``."""
        body = self._analysis_body(
            name, outcome, thoroughness, core_count, grouping_feat, models_considered, feature_selection,
            max_signature_size, max_visualized_signature_count, time_limit_seconds,
        )  # fmt: skip
        return cast(AnalysisCheck, self._post(f"/check/dataset/{_id(dataset_id)}/analyze", "Analyze dataset check", body))

    def get_analysis(self, analysis_id: str) -> Analysis:
        return cast(Analysis, self._get(f"/analysis/{_id(analysis_id)}", "Get analysis"))

    def get_analyses(self, project_id: str, offset: int = 0, count: int = 10) -> AnalysisPage:
        return cast(AnalysisPage, self._get(f"/analyses/all/{_id(project_id)}/{_page(offset, count)}", "Get analyses"))

    def get_analysis_status(self, analysis_id: str) -> AnalysisStatus:
        """
        ``{analysisId, projectId, parameters, state, startTime?, executionTimeInSeconds?, progress?, error?, estimate?}``;
        ``estimate``: the expected running time and peak memory, each ``{expected, low, high}``, and its ``basis``.
        """
        return cast(AnalysisStatus, self._get(f"/analysis/{_id(analysis_id)}/status", "Get analysis status"))

    def wait_for_analysis(
        self,
        analysis_id: str,
        progress: Optional[ProgressCallback] = None,
        poll_interval: float = 1.0,
        timeout: Optional[float] = None,
    ) -> AnalysisStatus:
        """
        Polls until the analysis finishes (returns the last status) or fails (raises :class:`TaskFailed` with its
        code, e.g. ``badRequest-120-0-13``). ``progress`` gets every status read (``status["progress"]`` while running).
        """
        return self._wait(lambda: self.get_analysis_status(analysis_id), "Analysis", progress, poll_interval, timeout)

    def get_analysis_result(self, analysis_id: str) -> AnalysisResult:
        """``{analysisId, parameters, mlEngine, startTime, executionTimeInSeconds, models: {best: {...}, ...}}``."""
        return cast(AnalysisResult, self._get(f"/analysis/{_id(analysis_id)}/result", "Get analysis result"))

    def delete_analysis(self, analysis_id: str) -> Analysis:
        """Deletes (and stops, if running) an analysis; returns it as it was."""
        return cast(Analysis, self._post(f"/analysis/{_id(analysis_id)}/delete", "Delete analysis"))

    def get_configurations(self, analysis_id: str, offset: int = 0, count: int = 100) -> ConfigurationPage:
        """The leaderboard: every configuration the analysis evaluated, from the highest pooled out-of-fold metric."""
        path = f"/analysis/{_id(analysis_id)}/configurations/{int(offset)}/{int(count)}"
        return cast(ConfigurationPage, self._get(path, "Get configurations"))

    def get_out_of_fold_predictions(self, analysis_id: str, model_key: str = "best", explain: bool = False) -> OutOfFoldPredictions:
        """
        The out-of-fold predictions the model's estimate was computed from, per sample, beside the actual outcome;
        ``explain=True``: with each sample's ``explanation`` (by the signature refitted on the folds without it).
        """
        path = f"/analysis/{_id(analysis_id)}/outOfFoldPredictions"
        query = {"modelKey": model_key, **({"explain": "true"} if explain else {})}
        return cast(OutOfFoldPredictions, self._get(path, "Get out-of-fold predictions", query=query))

    def get_out_of_fold_predictions_csv(self, analysis_id: str, model_key: str = "best") -> str:
        """The out-of-fold predictions as CSV text."""
        path = f"/analysis/{_id(analysis_id)}/outOfFoldPredictions"
        query = {"modelKey": model_key, "format": "csv"}
        return cast(str, self._get(path, "Get out-of-fold predictions", query=query, raw=True))

    def download_report(self, analysis_id: str, path: str) -> str:
        """
        Writes the analysis report to ``path`` and returns ``path``: one self-contained HTML page (its models, estimates
        with 95% intervals, signatures, every plot drawn, the leaderboard, how to predict) that opens offline.
        """
        text = self._get(f"/analysis/{_id(analysis_id)}/report", "Download report", raw=True)
        if not isinstance(text, str):
            raise SignetError("http-200", "the answer is not a report", "Download report")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def create_report_link(self, analysis_id: str, valid_for_days: Optional[int] = None) -> ReportLink:
        """
        A link that opens the report of a finished analysis in a browser without a token, for ``valid_for_days``
        (default 7, at most 90). Its ``url`` is shown this once.
        """
        body = {} if valid_for_days is None else {"validForDays": valid_for_days}
        return cast(ReportLink, self._post(f"/analysis/{_id(analysis_id)}/reportLink", "Create report link", body))

    def get_report_links(self, analysis_id: str, offset: int = 0, count: int = 100) -> ReportLinkPage:
        """The analysis's report links (the project's owner sees every one, others their own), without their URLs."""
        path = f"/analysis/{_id(analysis_id)}/reportLinks/{int(offset)}/{int(count)}"
        return cast(ReportLinkPage, self._get(path, "Get report links"))

    def delete_report_link(self, analysis_id: str, link_id: str) -> ReportLinkInfo:
        """Withdraws a report link (the project's owner): it opens nothing from then on."""
        path = f"/analysis/{_id(analysis_id)}/reportLink/{_id(link_id)}/delete"
        return cast(ReportLinkInfo, self._post(path, "Delete report link"))

    def open_report_link(self, token: str) -> str:
        """The report page a link's token opens (the link needs no login); one that opens nothing raises http-404."""
        text = self._get(f"/sharedReport/{urllib.parse.quote(token, safe='')}", "Open report link", raw=True)
        return cast(str, text)

    # ---- plots (GET with a query string, or POST with a JSON body: the same answer) --------------

    def _plot_call(self, analysis_id: str, operation: str, where: str, params: Dict[str, str], method: str) -> Any:
        path = f"/analysis/{_id(analysis_id)}/{operation}"
        if method.upper() == "POST":
            return self._post(path, where, params)
        if method.upper() != "GET":
            raise ValueError("method must be GET or POST")
        return self._get(path, where, query=params)

    def available_plots(self, analysis_id: str, model_key: str, method: str = "GET") -> AvailablePlots:
        """``{analysisId, modelKey, plots: [names]}``: the plots computed for a model (e.g. ``Feature Importance``)."""
        params = {"modelKey": model_key}
        return cast(AvailablePlots, self._plot_call(analysis_id, "availablePlots", "Available plots", params, method))

    def get_plot(self, analysis_id: str, model_key: str, plot_key: str, method: str = "GET") -> PlotOne:
        """``{analysisId, modelKey, plot: {<plotKey>: value}}``, the value typed by its kind (``types.Plot``)."""
        params = {"modelKey": model_key, "plotKey": plot_key}
        return cast(PlotOne, self._plot_call(analysis_id, "getPlot", "Get plot", params, method))

    def get_plots(self, analysis_id: str, model_key: str, method: str = "GET") -> PlotAll:
        """``{analysisId, modelKey, plots: [{<plotKey>: [...]}, ...]}``: every available plot."""
        params = {"modelKey": model_key}
        return cast(PlotAll, self._plot_call(analysis_id, "getPlots", "Get plots", params, method))

    # ---- predictions -----------------------------------------------------------------------------

    def predict_outcome(
        self,
        analysis_id: str,
        dataset_id: str,
        model_key: str = "best",
        signature_index: int = 0,
        explain: bool = False,
        times: Optional[Sequence[float]] = None,
    ) -> str:
        """
        Applies a model of a finished analysis to a dataset; returns the prediction id. ``explain=True``: each row of the
        result then has an ``explanation`` (the contribution of each feature and a base value, adding up to the model's
        output on the stated scale). ``times`` (survival models): the times at which each row gives its survival
        probability, increasing (default: the quartiles of the training times).
        """
        body: Dict[str, Any] = {"modelKey": model_key, "signatureIndex": signature_index}
        if explain:
            body["explain"] = True
        if times is not None:
            body["times"] = list(times)
        path = f"/analysis/{_id(analysis_id)}/predict/{_id(dataset_id)}"
        return str(self._post(path, "Predict outcome", body)["predictionId"])

    # ---- models that leave the service ----------------------------------------------------------

    def export_model(self, analysis_id: str, path: str, model_key: str = "best", signature_index: int = 0) -> str:
        """
        Writes the ONNX file of a model's signature to ``path`` and returns ``path``: one graph of its preprocessing, model
        and calibration, with an input per feature (named after it: numbers as doubles with NaN where missing,
        categories as text with '' where missing). A model the export refuses raises badRequest-150-5-1.
        """
        query = {"modelKey": model_key, "signatureIndex": str(signature_index), "format": "onnx"}
        content = self._get(f"/analysis/{_id(analysis_id)}/model", "Export model", query=query, binary=True)
        if not isinstance(content, bytes):
            raise SignetError("http-200", "the answer is not a model", "Export model")
        with open(path, "wb") as f:
            f.write(content)
        return path

    def get_model_card(self, analysis_id: str, model_key: str = "best", signature_index: int = 0) -> ModelCard:
        """The model card: inputs (types, levels, how missing values are filled), outcome, metrics with intervals, signatures."""
        query = {"modelKey": model_key, "signatureIndex": str(signature_index)}
        return cast(ModelCard, self._get(f"/analysis/{_id(analysis_id)}/modelCard", "Get model card", query=query))

    def score(
        self,
        analysis_id: str,
        rows: Sequence[Dict[str, Any]],
        model_key: str = "best",
        signature_index: int = 0,
        explain: bool = False,
        times: Optional[Sequence[float]] = None,
    ) -> ScoreResult:
        """
        Scores up to 1,000 rows (feature name -> value, ``None`` where missing) within the call: ``{analysisId, modelKey,
        signatureIndex, predictions}``, each row as a prediction's (``prediction``, ``probabilities``, ``risk``...).
        """
        body: Dict[str, Any] = {"modelKey": model_key, "signatureIndex": signature_index, "rows": list(rows)}
        if explain:
            body["explain"] = True
        if times is not None:
            body["times"] = list(times)
        return cast(ScoreResult, self._post(f"/analysis/{_id(analysis_id)}/score", "Score rows", body))

    def get_prediction_status(self, prediction_id: str) -> PredictionStatus:
        """``{predictionId, analysisId, datasetId, modelKey, signatureIndex, state, error?}``."""
        return cast(PredictionStatus, self._get(f"/prediction/{_id(prediction_id)}/status", "Get prediction status"))

    def wait_for_prediction(
        self,
        prediction_id: str,
        progress: Optional[ProgressCallback] = None,
        poll_interval: float = 0.5,
        timeout: Optional[float] = None,
    ) -> PredictionStatus:
        """Polls until the prediction finishes (returns its status) or fails (raises :class:`TaskFailed`)."""
        return self._wait(lambda: self.get_prediction_status(prediction_id), "Prediction", progress, poll_interval, timeout)

    def get_prediction_result(self, prediction_id: str) -> PredictionResult:
        """
        The predictions as JSON: ``{predictionId, analysisId, datasetId, modelKey, predictions: [{row, sampleId?,
        prediction, probabilities?, risk?}]}``. (JADBio's method of this name returns CSV: here that is
        :meth:`get_prediction_result_csv`, and ``signet_client.jadbio`` keeps JADBio's.)
        """
        return cast(PredictionResult, self._get(f"/prediction/{_id(prediction_id)}/result", "Get prediction result"))

    def get_prediction_result_csv(self, prediction_id: str) -> str:
        """The predictions as CSV text: ``row,sampleId,prediction,probability:<class>...,risk``."""
        path = f"/prediction/{_id(prediction_id)}/result"
        return cast(str, self._get(path, "Get prediction result", query={"format": "csv"}, raw=True))

    def get_predictions(self, analysis_id: str, offset: int = 0, count: int = 10) -> PredictionPage:
        """The analysis's predictions whose dataset the user may read."""
        path = f"/analysis/{_id(analysis_id)}/predictions/{_page(offset, count)}"
        return cast(PredictionPage, self._get(path, "Get predictions"))

    def delete_prediction(self, prediction_id: str) -> Prediction:
        return cast(Prediction, self._post(f"/prediction/{_id(prediction_id)}/delete", "Delete prediction"))

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
        binary: bool = False,
        envelope: bool = True,
        accept: Iterable[int] = (),
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
            with _OPENER.open(req, timeout=self.timeout) as res:
                status, content, content_type = res.status, res.read(), res.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            if e.code not in set(accept):
                text = e.read().decode("utf-8", "replace")[:300]
                raise self.http_error(f"http-{e.code}", text or str(e.reason), where, e.code) from None
            status, content, content_type = e.code, e.read(), e.headers.get("Content-Type", "")
        except (urllib.error.URLError, OSError) as e:
            reason = e.reason if isinstance(e, urllib.error.URLError) else e
            raise ConnectionFailed("connection", f"{self.base_url} could not be reached: {reason}", where, None) from None
        if binary and not content_type.startswith("application/json"):
            return content
        if raw and not content_type.startswith("application/json"):
            return content.decode("utf-8")
        try:
            answer = json.loads(content.decode("utf-8"))
        except ValueError:
            raise self.http_error(f"http-{status}", "the answer is not JSON", where, status) from None
        if not envelope:
            return answer
        if answer.get("status") != "success":
            raise self.envelope_error(answer.get("code", "unknown"), answer.get("message", ""), where, status)
        return answer.get("payload")

    def _get(self, path: str, where: str, **kw: Any) -> Any:
        return self._request("GET", path, where, **kw)

    def _post(self, path: str, where: str, body: Any = None, **kw: Any) -> Any:
        # POST without a body still sends an empty JSON object: the API's routes all take JSON.
        return self._request("POST", path, where, body={} if body is None and "data" not in kw else body, **kw)

    def _multipart(self, path: str, where: str, fields: List[Tuple[str, str]], files: List[Tuple[str, str]]) -> Any:
        boundary = "signet-" + uuid.uuid4().hex
        parts: List[bytes] = []
        for name, value in fields:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode("utf-8"))
        for name, file_path in files:
            filename = os.path.basename(file_path).replace('"', "")
            mime = mimetypes.guess_type(file_path)[0] or "application/octet-stream"
            with open(file_path, "rb") as f:
                content = f.read()
            head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\nContent-Type: {mime}\r\n\r\n'
            parts.append(head.encode("utf-8") + content + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode("utf-8"))
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        return self._request("POST", path, where, data=b"".join(parts), headers=headers)

    def _wait(
        self,
        read: Callable[[], S],
        where: str,
        progress: Optional[ProgressCallback],
        poll_interval: float,
        timeout: Optional[float],
    ) -> S:
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            status = read()
            if progress is not None:
                progress(cast(Dict[str, Any], status))
            if status["state"] == "finished":
                return status
            if status["state"] == "failed":
                error = cast(Dict[str, str], status.get("error") or {})
                code, message = error.get("code", "failed"), error.get("message", "failed")
                raise TaskFailed(code, message, where, cast(Dict[str, Any], status))
            if end is not None and time.monotonic() > end:
                raise SignetTimeout("timeout", f"still {status['state']} after {timeout} s", where, None)
            time.sleep(poll_interval)
