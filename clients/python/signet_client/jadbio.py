"""
JADBio's Python client (the ``jadbio`` package, ``jadbio.client``), on Signet: code written for it runs by
changing its import and its host::

    import jadbio.client as jad                          ->  import signet_client.jadbio as jad
    client = jad.JadbioClient(user, password)            ->  client = jad.JadbioClient(user, password, host="http://localhost:8080")

For every operation the two services share, :class:`JadbioClient` has JADBio's method name, argument order,
defaults and return value: ``get_prediction_result`` returns CSV text, ``available_plots`` the whole payload,
``upload_file`` the ``file_id`` it was given, ``create_dataset``'s ``has_sample_headers`` defaults to ``True``,
``analyze_dataset`` takes ``model_selection_protocol`` in fourth place. Errors are JADBio's two exceptions:
:class:`JadRequestResponseError` for an error envelope, :class:`RequestFailed` for HTTP other than 200; both are
also Signet's (:class:`signet_client.SignetError`), with ``code``, ``message`` and ``http_status``.

Where the services differ (the modelled client is JADBio's 1.2.13):

- Payloads are Signet's (api-v1's shapes, which JADBio's API shares): a prediction has its fields at the top
  level; this layer adds JADBio's ``parameters`` object beside them.
- ``analyze_dataset_check`` returns ``{"errors": [codes], "warnings": [codes]}``, each key only when not empty,
  as JADBio's does (Signet's own check also gives messages: ``SignetClient.analyze_dataset_check``).
- ``model_selection_protocol`` may only be ``None`` or ``{"type": "cv"}`` (cross-validation, what Signet does).
- ``logout`` revokes the token on the server (JADBio's forgets it); a client that is dropped, or alive when the
  interpreter exits, is logged out then, and ``with JadbioClient(...) as client:`` logs out at the block's end.
- JADBio operations Signet does not have raise ``NotImplementedError`` saying so: ``upload_s3``,
  ``attach_dataset``, ``change_feature_types`` (JADBio's makes a new dataset; Signet's retypes in place:
  ``SignetClient.change_feature_types``) and its check, ``vertical_merge``, ``horizontal_merge``,
  ``random_split``, ``analyze_dataset_custom_preprocessing``, ``analyze_dataset_extra_models`` and its check,
  ``get_extra_models_description``, ``get_extra_fs_description``, ``download_analysis_model_predictions``,
  ``predict_outcome_check``.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any, Dict, List, Optional, Tuple, Type, cast

from . import client as _signet
from .types import (
    Analysis,
    AnalysisPage,
    AnalysisResult,
    AnalysisStatus,
    AvailablePlots,
    Dataset,
    DatasetPage,
    PlotAll,
    PlotOne,
    Project,
    ProjectPage,
    TaskStatus,
)

API_VERSION = "v1"
DEFAULT_HOST = "http://localhost:8080"


class RequestFailed(_signet.RequestFailed):
    """HTTP other than 200 (403, 404, 500), as JADBio's client raises it (no connection: signet_client.ConnectionFailed)."""


class JadRequestResponseError(_signet.SignetError):
    """An error envelope of the API: ``str(e)`` is JADBio's ``"<operation>: <message>, code: <code>"``."""

    def __str__(self) -> str:
        return f"{self.where}: {self.message}, code: {self.code}"


class _Signet(_signet.SignetClient):
    envelope_error = JadRequestResponseError
    http_error = RequestFailed


def _with_parameters(prediction: Dict[str, Any]) -> Dict[str, Any]:
    """A Signet prediction, with JADBio's ``parameters`` object beside its fields."""
    keys = ("analysisId", "modelKey", "signatureIndex", "datasetId")
    return {**prediction, "parameters": {k: prediction[k] for k in keys if k in prediction}}


def _unsupported(operation: str, instead: str = "") -> NotImplementedError:
    return NotImplementedError(f"Signet has no {operation}{': ' + instead if instead else ''}")


class JadbioClient(object):
    """
    JADBio's ``JadbioClient`` on a Signet service: logs in at construction.

    >>> client = JadbioClient('juser@example.org', 'a password', host='http://localhost:8080')
    """

    def __init__(self, username: str, password: str, host: Optional[str] = None):
        self._signet = _Signet(DEFAULT_HOST if host is None else host)
        #: per uploaded file_id: the sizes a JADBio script may give create_dataset, and the size in bytes
        self._uploaded: Dict[str, Tuple[Tuple[int, ...], int]] = {}
        self.login(username, password)

    def __enter__(self) -> "JadbioClient":
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self._signet.__exit__(kind, error, tb)

    @property
    def signet(self) -> _signet.SignetClient:
        """The Signet client underneath, for the operations JADBio's client lacks (sharing, files, features)."""
        return self._signet

    def get_version(self) -> str:
        return self._signet.get_version_info()["version"]

    def get_jadbio_version(self) -> str:
        """The service's version (a Signet service has no JADBio version)."""
        return self._signet.get_version_info()["version"]

    def login(self, username: str, password: str) -> None:
        self._signet.login(username, password)

    def logout(self) -> None:
        if self._signet.token is not None:
            self._signet.logout()

    # ---- projects --------------------------------------------------------------------------------

    def create_project(self, name: str, descr: str = "") -> str:
        return self._signet.create_project(name, descr)

    def get_project(self, project_id: str) -> Project:
        return self._signet.get_project(project_id)

    def get_projects(self, offset: int = 0, count: int = 10) -> ProjectPage:
        return self._signet.get_projects(offset, count)

    def delete_project(self, project_id: str) -> Project:
        return self._signet.delete_project(project_id)

    # ---- files and datasets ----------------------------------------------------------------------

    def upload_file(self, file_id: Any, pth_to_file: str) -> Any:
        """
        Uploads the file's text as JADBio's client does: read as UTF-8 text (a byte order mark dropped, line ends
        made ``\\n``), sent as UTF-8. Returns ``file_id`` as given.
        """
        with open(pth_to_file, "r", encoding="utf-8-sig") as f:
            text = f.read()
        body = text.encode("utf-8")
        self._signet.upload_bytes(str(file_id), body, len(body))
        # JADBio's examples give create_dataset the text's length (len(open(path).read())), others the file's size
        self._uploaded[str(file_id)] = ((len(body), len(text), os.path.getsize(pth_to_file)), len(body))
        return file_id

    def upload_s3(self, file_id: Any, link: str, region: str, access_key_id: str, access_key: str) -> Any:
        raise _unsupported("upload from S3", "download the file and upload_file it")

    def create_dataset(
        self,
        name: str,
        project_id: str,
        file_id: Any,
        file_size_in_bytes: int,
        separator: str = ",",
        has_samples_in_rows: bool = True,
        has_feature_headers_name: bool = True,
        has_sample_headers: bool = True,
        description: str = "",
    ) -> str:
        known = self._uploaded.get(str(file_id))
        if known is not None and file_size_in_bytes in known[0]:
            file_size_in_bytes = known[1]
        return self._signet.create_dataset(
            name, project_id, str(file_id), file_size_in_bytes, separator, has_samples_in_rows,
            has_feature_headers_name, has_sample_headers, description,
        )  # fmt: skip

    def get_dataset(self, dataset_id: str) -> Dataset:
        return self._signet.get_dataset(dataset_id)

    def attach_dataset(self, name: str, project_id: str, dataset_id: str) -> Dict[str, Any]:
        raise _unsupported("attach_dataset", "create the dataset again in the other project from its file")

    def get_datasets(self, project_id: str, offset: int = 0, count: int = 10) -> DatasetPage:
        return self._signet.get_datasets(project_id, offset, count)

    def delete_dataset(self, dataset_id: str) -> Dataset:
        return self._signet.delete_dataset(dataset_id)

    def change_feature_types(self, dataset_id: str, new_name: str, changes: List[Any]) -> str:
        raise _unsupported("change_feature_types into a new dataset", "client.signet.change_feature_types retypes in place")

    def change_feature_types_check(self, dataset_id: str, new_name: str, changes: List[Any]) -> Dict[str, Any]:
        raise _unsupported("change_feature_types_check")

    def vertical_merge(self, dataset_id: str, new_name: str, datasets: List[str]) -> str:
        raise _unsupported("vertical_merge")

    def horizontal_merge(self, dataset_id: str, new_name: str, datasets: List[str]) -> str:
        raise _unsupported("horizontal_merge")

    def random_split(self, dataset_id: str, percentage: float, new_name1: str, new_name2: str) -> str:
        raise _unsupported("random_split")

    def get_task_status(self, task_id: str) -> TaskStatus:
        return self._signet.get_task_status(task_id)

    # ---- analyses --------------------------------------------------------------------------------

    def analyze_dataset(
        self,
        dataset_id: str,
        name: str,
        outcome: Dict[str, Any],
        model_selection_protocol: Optional[Dict[str, Any]] = None,
        thoroughness: str = "preliminary",
        core_count: int = 1,
        grouping_feat: Optional[str] = None,
        models_considered: str = "all",
        feature_selection: str = "mostRelevant",
        max_signature_size: Optional[int] = None,
        max_visualized_signature_count: Optional[int] = None,
    ) -> str:
        if model_selection_protocol not in (None, {"type": "cv"}):
            raise ValueError("model_selection_protocol: Signet selects models by cross-validation only, {'type': 'cv'}")
        return self._signet.analyze_dataset(
            dataset_id, name, outcome, thoroughness, core_count, grouping_feat, models_considered, feature_selection,
            max_signature_size, max_visualized_signature_count,
        )  # fmt: skip

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
    ) -> Dict[str, List[str]]:
        """``{errors?: [code], warnings?: [code]}``: a key only when it has entries, as JADBio answers."""
        checked = self._signet.analyze_dataset_check(
            dataset_id, name, outcome, thoroughness, core_count, grouping_feat, models_considered, feature_selection,
            max_signature_size, max_visualized_signature_count,
        )  # fmt: skip
        listed = {"errors": checked["errors"], "warnings": checked["warnings"]}
        return {key: [e["code"] for e in found] for key, found in listed.items() if found}

    def analyze_dataset_custom_preprocessing(self, dataset_id: str, name: str, outcome: Dict[str, Any], *args: Any, **kw: Any) -> str:
        raise _unsupported("custom preprocessing scripts")

    def analyze_dataset_extra_models(self, dataset_id: str, name: str, outcome: Dict[str, Any], *args: Any, **kw: Any) -> str:
        raise _unsupported("extra models or feature selectors", "use analyze_dataset")

    def analyze_dataset_extra_models_check(self, dataset_id: str, name: str, outcome: Dict[str, Any], *args: Any, **kw: Any) -> Dict[str, Any]:
        raise _unsupported("extra models or feature selectors", "use analyze_dataset_check")

    def get_extra_models_description(self, outcome_type: str) -> List[Dict[str, Any]]:
        raise _unsupported("extra models")

    def get_extra_fs_description(self, outcome_type: str) -> List[Dict[str, Any]]:
        raise _unsupported("extra feature selectors")

    def get_analysis(self, analysis_id: str) -> Analysis:
        return self._signet.get_analysis(analysis_id)

    def get_analyses(self, project_id: str, offset: int = 0, count: int = 10) -> AnalysisPage:
        return self._signet.get_analyses(project_id, offset, count)

    def get_analysis_status(self, analysis_id: str) -> AnalysisStatus:
        return self._signet.get_analysis_status(analysis_id)

    def get_analysis_result(self, analysis_id: str) -> AnalysisResult:
        return self._signet.get_analysis_result(analysis_id)

    def download_analysis_model_predictions(self, analysis_id: str, model_id: str) -> str:
        raise _unsupported("download of out-of-sample predictions")

    def delete_analysis(self, analysis_id: str) -> Analysis:
        return self._signet.delete_analysis(analysis_id)

    # ---- plots -----------------------------------------------------------------------------------

    def available_plots(self, analysis_id: str, model_key: str) -> AvailablePlots:
        return self._signet.available_plots(analysis_id, model_key)

    def get_plot(self, analysis_id: str, model_key: str, plot_key: str) -> PlotOne:
        return self._signet.get_plot(analysis_id, model_key, plot_key)

    def get_plots(self, analysis_id: str, model_key: str) -> PlotAll:
        return self._signet.get_plots(analysis_id, model_key)

    # ---- predictions -----------------------------------------------------------------------------

    def predict_outcome(self, analysis_id: str, dataset_id: str, model_key: str, signature_index: int = 0) -> str:
        return self._signet.predict_outcome(analysis_id, dataset_id, model_key, signature_index)

    def predict_outcome_check(self, analysis_id: str, dataset_id: str, model_key: str, signature_index: int = 0) -> Dict[str, Any]:
        raise _unsupported("predict_outcome_check", "predict_outcome refuses a dataset lacking the model's columns at once")

    def get_prediction(self, prediction_id: str) -> Dict[str, Any]:
        """The prediction (its status), with JADBio's ``parameters`` object."""
        return _with_parameters(cast(Dict[str, Any], self._signet.get_prediction_status(prediction_id)))

    def get_predictions(self, analysis_id: str, offset: int = 0, count: int = 10) -> Dict[str, Any]:
        page = cast(Dict[str, Any], self._signet.get_predictions(analysis_id, offset, count))
        return {**page, "data": [_with_parameters(p) for p in page["data"]]}

    def get_prediction_status(self, prediction_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._signet.get_prediction_status(prediction_id))

    def get_prediction_result(self, prediction_id: str) -> str:
        """The predictions as CSV text, as JADBio's client returns them."""
        return self._signet.get_prediction_result_csv(prediction_id)

    def delete_prediction(self, prediction_id: str) -> Dict[str, Any]:
        return _with_parameters(cast(Dict[str, Any], self._signet.delete_prediction(prediction_id)))

    # ---- image datasets --------------------------------------------------------------------------

    def image_upload_init(
        self,
        project_id: str,
        name: str,
        data_path: str,
        has_feature_names: bool = True,
        description: Optional[str] = None,
    ) -> str:
        return self._signet.image_upload_init(project_id, name, "target.csv" if data_path is None else data_path, has_feature_names, description)

    def image_upload_add_sample(self, task_id: str, sample: str, path: str) -> Dict[str, Any]:
        return {"taskId": self._signet.image_upload_add_sample(task_id, sample, path)}

    def image_upload_commit(self, task_id: str) -> Dict[str, Any]:
        self._signet.image_upload_commit(task_id)
        return {}
