"""
The payloads of the Signet API as ``TypedDict`` s: one per component schema of the OpenAPI document
(``/api/public/v1/openapi.json``, built from ``src/openapi/schemas.ts``), with the same names and fields.
Ids are strings of digits, as the API writes them. A key that the API leaves out when it does not apply
(``description``, ``datasetId`` of an unfinished task, ``progress`` of an analysis not running ...) is in the
``total=False`` part of its type. At run time they are plain ``dict`` s.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, TypedDict, Union

#: The states of a task, an analysis or a prediction.
State = Literal["pending", "running", "finished", "failed"]
FeatureType = Literal["numerical", "categorical", "identifier", "event", "timeToEvent"]
Permission = Literal["read", "write", "execute"]


class Empty(TypedDict):
    """An empty object (logout, image upload commit)."""


class Token(TypedDict):
    token: str


class Version(TypedDict):
    version: str
    mlEngine: str


class _HealthBase(TypedDict):
    status: Literal["ok", "unavailable"]


class Health(_HealthBase, total=False):
    database: Literal["ok", "unreachable"]


class StatusError(TypedDict):
    """The error a failed task, analysis or prediction carries in its status."""

    code: str
    message: str


class ProjectRef(TypedDict):
    projectId: str


class _ProjectBase(TypedDict):
    projectId: str
    name: str


class Project(_ProjectBase, total=False):
    description: str


class ProjectPage(TypedDict):
    offset: int
    totalCount: int
    data: List[Project]


class Share(TypedDict):
    projectId: str
    username: str
    permissions: List[Permission]


class Unshare(TypedDict):
    projectId: str
    username: str


class UploadedFile(TypedDict):
    fileId: str
    sizeInBytes: int


class File(TypedDict):
    fileId: str
    sizeInBytes: int
    created: str
    #: a dataset that still exists was created from this upload
    usedByDataset: bool
    #: a dataset is being created from it right now
    inUse: bool


class FilePage(TypedDict):
    offset: int
    totalCount: int
    data: List[File]


class TaskRef(TypedDict):
    taskId: str


class _TaskStatusBase(TypedDict):
    taskId: str
    state: State


class TaskStatus(_TaskStatusBase, total=False):
    datasetId: str
    error: StatusError


class _DatasetBase(TypedDict):
    datasetId: str
    projectId: str
    name: str
    sampleCount: int
    featureCount: int
    sizeInBytes: int


class Dataset(_DatasetBase, total=False):
    description: str


class DatasetPage(TypedDict):
    projectId: str
    offset: int
    totalCount: int
    data: List[Dataset]


class Feature(TypedDict):
    name: str
    type: FeatureType
    missingCount: int
    distinctCount: int


class Features(TypedDict):
    datasetId: str
    features: List[Feature]


#: ``{"classification": name}``, ``{"regression": name}`` or ``{"survival": {"event": name, "timeToEvent": name}}``
Outcome = Dict[str, Any]


class _AnalysisParametersBase(TypedDict):
    datasetId: str
    outcome: Outcome
    thoroughness: Literal["preliminary", "typical", "extensive"]
    coreCount: int
    name: str


class AnalysisParameters(_AnalysisParametersBase, total=False):
    groupingFeature: str
    modelsConsidered: Literal["interpretable", "all"]
    featureSelection: Literal["mostRelevant", "mostRelevantOrAll"]
    maxSignatureSize: int
    maxVisualizedSignatureCount: int


class AnalysisRef(TypedDict):
    analysisId: str


class AnalysisCheck(TypedDict):
    #: what analyze would refuse, with the codes it would answer
    errors: List[StatusError]
    #: accepted with a caveat
    warnings: List[StatusError]


class Analysis(TypedDict):
    analysisId: str
    projectId: str
    parameters: AnalysisParameters
    state: State


class AnalysisPage(TypedDict):
    projectId: str
    offset: int
    totalCount: int
    data: List[Analysis]


class _AnalysisStatusBase(TypedDict):
    analysisId: str
    projectId: str
    parameters: AnalysisParameters
    state: State


class AnalysisStatus(_AnalysisStatusBase, total=False):
    startTime: str
    executionTimeInSeconds: float
    #: 0 to 1, only while running
    progress: float
    error: StatusError


class ModelView(TypedDict):
    featureNames: List[str]
    coefficients: Union[List[float], List[List[float]]]


class _ModelBase(TypedDict):
    preprocessing: str
    featureSelection: str
    model: str
    #: the reference signature first, then equivalent ones
    signatures: List[List[str]]
    #: metric name -> estimate
    performance: Dict[str, float]


class Model(_ModelBase, total=False):
    signatureCount: int
    #: metric name -> 95% interval (lower, upper)
    performanceCis: Dict[str, List[float]]
    #: feature of a shown signature -> fraction of the cross-validation folds that chose it (or an equivalent)
    stability: Dict[str, float]
    modelView: ModelView


class AnalysisResult(TypedDict):
    analysisId: str
    parameters: AnalysisParameters
    mlEngine: str
    startTime: str
    executionTimeInSeconds: float
    #: model key (``best``, ``interpretable``) -> model
    models: Dict[str, Model]


class FeatureImportanceItem(TypedDict):
    name: str
    value: float
    cis: List[float]


class ProgressiveFeatureImportanceItem(TypedDict):
    name: List[str]
    value: float
    cis: List[float]


class FeatureStabilityItem(TypedDict):
    name: str
    value: float


#: One plot by its name: ``{"Feature Importance": [...]}`` (more plot names may be added).
Plot = Dict[str, List[Dict[str, Any]]]


class AvailablePlots(TypedDict):
    analysisId: str
    modelKey: str
    plots: List[str]


class PlotOne(TypedDict):
    analysisId: str
    modelKey: str
    plot: Plot


class PlotAll(TypedDict):
    analysisId: str
    modelKey: str
    plots: List[Plot]


class PredictionRef(TypedDict):
    predictionId: str


class Prediction(TypedDict):
    predictionId: str
    analysisId: str
    datasetId: str
    modelKey: str
    signatureIndex: int
    state: State


class PredictionStatus(Prediction, total=False):
    error: StatusError


class PredictionPage(TypedDict):
    analysisId: str
    offset: int
    totalCount: int
    data: List[Prediction]


class _ConfigurationBase(TypedDict):
    #: 1 for the highest metric
    rank: int
    #: index in the grid of the thoroughness
    configuration: int
    featureSelection: str
    model: str
    interpretable: bool
    #: the primary metric
    metric: str
    #: pooled out-of-fold value (droppedEarly: on the samples evaluated when it was dropped)
    value: Union[float, None]
    #: mean size of its selector's signature over the training folds
    signatureSize: float
    #: BBCD-CV stopped evaluating it
    droppedEarly: bool


class Configuration(_ConfigurationBase, total=False):
    #: "best" or "interpretable": the model of the result it became
    modelKey: str


class ConfigurationPage(TypedDict):
    analysisId: str
    offset: int
    totalCount: int
    data: List[Configuration]


class _OutOfFoldRowBase(TypedDict):
    #: zero-based row of the dataset
    row: int
    #: the class label, value or time
    actual: Union[str, float]
    #: the class of highest probability, the value or the risk score
    prediction: Union[str, float]


class OutOfFoldRow(_OutOfFoldRowBase, total=False):
    sampleId: str
    #: survival: 1 = event, 0 = censored
    event: int
    #: class -> probability
    probabilities: Dict[str, float]
    #: survival: higher is an earlier event
    risk: float


class OutOfFoldPredictions(TypedDict):
    analysisId: str
    modelKey: str
    #: repeats of the cross-validation: each prediction is the mean over them
    repeats: int
    predictions: List[OutOfFoldRow]


class _PredictionRowBase(TypedDict):
    #: zero-based row of the dataset
    row: int
    #: the class label (classification), the value (regression) or the risk score (survival)
    prediction: Union[str, float]


class PredictionRow(_PredictionRowBase, total=False):
    sampleId: str
    #: class -> probability
    probabilities: Dict[str, float]
    #: survival: higher is an earlier event
    risk: float


class PredictionResult(TypedDict):
    predictionId: str
    analysisId: str
    datasetId: str
    modelKey: str
    predictions: List[PredictionRow]
