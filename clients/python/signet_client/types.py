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
    #: metric name -> 95% interval (lower, upper) of the estimate (bias-corrected for the choice among configurations)
    performanceCis: Dict[str, List[float]]
    #: metric name -> value of this model's own out-of-fold predictions (its plots': the ROC curve's area, the
    #: confusion matrix's sensitivity)
    pooledPerformance: Dict[str, float]
    #: metric name -> 95% bootstrap interval of the pooled value
    pooledPerformanceCis: Dict[str, List[float]]
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


# ---- plots: one type per plot kind, as the OpenAPI document's schema of that kind (tests/test_client.py compares them) ----
# A key named "class" cannot be written in a class body: those types use TypedDict's functional form.


class FeatureImportanceItem(TypedDict):
    #: the feature removed
    name: str
    value: float
    #: 95% interval (lower, upper)
    cis: List[float]


FeatureImportance = List[FeatureImportanceItem]


class ProgressiveFeatureImportanceItem(TypedDict):
    #: the features of the signature so far, added one at a time
    name: List[str]
    value: float
    cis: List[float]


ProgressiveFeatureImportance = List[ProgressiveFeatureImportanceItem]


class FeatureStabilityItem(TypedDict):
    #: a feature of a shown signature
    name: str
    #: fraction of the cross-validation folds whose signature held the feature or one of its equivalents
    value: float


FeatureStability = List[FeatureStabilityItem]


class _RocPointBase(TypedDict):
    fpr: float
    tpr: float


class RocPoint(_RocPointBase, total=False):
    #: probability at or above which a sample is called positive (absent at (0, 0))
    threshold: float


class RocBandPoint(TypedDict):
    fpr: float
    tpr: float
    cis: List[float]


#: One curve: ``class`` (called positive), ``auc`` and its ``cis``, ``points`` from (0, 0) to (1, 1), and the 95%
#: bootstrap ``band`` of the true-positive rate.
RocCurveItem = TypedDict(
    "RocCurveItem", {"class": str, "auc": float, "cis": List[float], "points": List[RocPoint], "band": List[RocBandPoint]}
)
RocCurve = List[RocCurveItem]


class CalibrationBin(TypedDict):
    #: the lowest and highest probability in the bin
    lower: float
    upper: float
    #: samples in the bin
    count: int
    meanPredicted: float
    #: fraction of the samples of the bin that are of the class
    observed: float
    cis: List[float]


#: One class's calibration: ``bins`` of equal count (10, fewer when probabilities tie), the Brier score and the expected
#: calibration error over them.
CalibrationItem = TypedDict("CalibrationItem", {"class": str, "bins": List[CalibrationBin], "brier": float, "ece": float})
Calibration = List[CalibrationItem]

_ConfusionClassBase = TypedDict(
    "_ConfusionClassBase", {"class": str, "count": int, "sensitivity": float, "sensitivityCis": List[float]}
)


class ConfusionClass(_ConfusionClassBase, total=False):
    #: absent when no sample is predicted as the class
    precision: float
    precisionCis: List[float]


class ConfusionMatrix(TypedDict):
    classes: List[str]
    #: ``counts[t][p]``: samples of true class ``classes[t]`` predicted as ``classes[p]``
    counts: List[List[int]]
    perClass: List[ConfusionClass]


#: The out-of-fold probabilities of one class among the samples of a true class: their summary and ``values`` (at most 1000).
ClassProbabilities = TypedDict(
    "ClassProbabilities",
    {
        "class": str,
        "mean": float,
        "min": float,
        "q1": float,
        "median": float,
        "q3": float,
        "max": float,
        "values": List[float],
    },
)


class ProbabilitiesItem(TypedDict):
    trueClass: str
    #: samples of the true class
    count: int
    #: one per class, in the order of the classes
    probabilities: List[ClassProbabilities]


Probabilities = List[ProbabilitiesItem]


class PredictedVsActualPoint(TypedDict):
    actual: float
    predicted: float


class PredictedVsActual(TypedDict):
    #: one per sample (at most 1000, chosen at random beyond)
    points: List[PredictedVsActualPoint]
    #: of the least-squares line actual = intercept + slope x predicted
    intercept: float
    interceptCis: List[float]
    slope: float
    slopeCis: List[float]
    #: 1 - SSE / SST of the predictions around the identity line
    rSquared: float
    rSquaredCis: List[float]
    #: mean of predicted - actual
    meanError: float


class _KaplanMeierPointBase(TypedDict):
    time: float
    atRisk: int
    events: int
    censored: int
    survival: float


class KaplanMeierPoint(_KaplanMeierPointBase, total=False):
    #: 95% interval (Greenwood, log scale, as R's survfit); absent where undefined
    cis: List[float]


class RiskGroup(TypedDict):
    group: Literal["low", "middle", "high"]
    count: int
    events: int
    #: lowest and highest risk score
    riskRange: List[float]
    curve: List[KaplanMeierPoint]


class LogRank(TypedDict):
    chiSquare: float
    df: int
    pValue: float


class KaplanMeierByRiskGroup(TypedDict):
    groups: List[RiskGroup]
    logRank: LogRank


#: The methods of Shapley values: exact (closed form, tree, kernel, every coalition) or sampled with standard errors.
ShapleyMethod = Literal["closedForm", "exactTree", "exactKernel", "enumeration", "sampling"]


class FeatureContribution(TypedDict):
    name: str
    #: mean absolute contribution over the out-of-fold predictions
    value: float
    cis: List[float]


class _FeatureContributionsOutputBase(TypedDict):
    features: List[FeatureContribution]


_FeatureContributionsOutputClass = TypedDict("_FeatureContributionsOutputClass", {"class": str}, total=False)


class FeatureContributionsOutput(_FeatureContributionsOutputBase, _FeatureContributionsOutputClass):
    """One output explained: its ``class`` (classification) and the features from the largest mean absolute contribution."""


class FeatureContributions(TypedDict):
    #: the model output the contributions add up to (log-odds, probability, prediction, ...)
    scale: str
    method: ShapleyMethod
    #: one per output explained: the positive class of a binary outcome, each class of more, or the one output
    outputs: List[FeatureContributionsOutput]


class IceCurve(TypedDict):
    #: the sample (its position among the analysed samples)
    row: int
    values: List[float]


class _PartialDependenceOutputBase(TypedDict):
    #: per grid value: the mean output over the samples
    average: List[float]
    curves: List[IceCurve]


_PartialDependenceOutputClass = TypedDict("_PartialDependenceOutputClass", {"class": str}, total=False)


class PartialDependenceOutput(_PartialDependenceOutputBase, _PartialDependenceOutputClass):
    """One output (classification: the probability of ``class``) over the grid: the average and the ICE curves."""


class _PartialDependenceFeatureBase(TypedDict):
    feature: str
    kind: Literal["numerical", "categorical"]
    #: numerical: values over the observed range; categorical: 0, 1, ... (positions in labels)
    grid: List[float]
    outputs: List[PartialDependenceOutput]


class PartialDependenceFeature(_PartialDependenceFeatureBase, total=False):
    #: categorical: each observed category
    labels: List[str]


class _PartialDependenceBase(TypedDict):
    output: Literal["probability", "prediction", "survival probability"]
    features: List[PartialDependenceFeature]


class PartialDependence(_PartialDependenceBase, total=False):
    #: survival: the time of the survival probability (the median of the observed times)
    survivalTime: float


class PrecisionRecallPoint(TypedDict):
    recall: float
    precision: float
    threshold: float


PrecisionRecallCurve = TypedDict(
    "PrecisionRecallCurve",
    {"class": str, "averagePrecision": float, "cis": List[float], "prevalence": float, "points": List[PrecisionRecallPoint]},
)


class _ThresholdRowBase(TypedDict):
    threshold: float
    calledPositive: int
    sensitivity: float
    sensitivityCis: List[float]
    specificity: float
    specificityCis: List[float]


class ThresholdRow(_ThresholdRowBase, total=False):
    #: absent when no sample is called positive (ppv) or negative (npv)
    ppv: float
    ppvCis: List[float]
    npv: float
    npvCis: List[float]


class YoudenRow(ThresholdRow):
    #: Youden's J: sensitivity + specificity - 1
    j: float


ThresholdTable = TypedDict("ThresholdTable", {"class": str, "rows": List[ThresholdRow], "youden": YoudenRow})


class TimeDependentAucPoint(TypedDict):
    #: the quartile of the event times (0.25, 0.5, 0.75)
    quantile: float
    time: float
    auc: float
    cis: List[float]


TimeDependentAuc = List[TimeDependentAucPoint]


class BrierPoint(TypedDict):
    time: float
    brier: float
    cis: List[float]


class BrierScore(TypedDict):
    points: List[BrierPoint]
    #: the integrated Brier score: the mean of the curve over its range (0 is perfect)
    integrated: float
    integratedCis: List[float]
    #: the integrated Brier score of the Kaplan-Meier curve of all samples
    reference: float


#: One plot by its name, typed by its kind: ``{"ROC Curve": [...]}`` has one key (more plot names may be added).
Plot = TypedDict(
    "Plot",
    {
        "Feature Importance": FeatureImportance,
        "Progressive Feature Importance": ProgressiveFeatureImportance,
        "Feature Stability": FeatureStability,
        "Feature Contributions": FeatureContributions,
        "Partial Dependence": PartialDependence,
        "ROC Curve": RocCurve,
        "Precision-Recall Curve": PrecisionRecallCurve,
        "Threshold Table": ThresholdTable,
        "Calibration": Calibration,
        "Confusion Matrix": ConfusionMatrix,
        "Probabilities": Probabilities,
        "Predicted vs Actual": PredictedVsActual,
        "Kaplan-Meier by Risk Group": KaplanMeierByRiskGroup,
        "Time-dependent AUC": TimeDependentAuc,
        "Brier Score": BrierScore,
    },
    total=False,
)

#: The type of each plot kind by the name of its schema among the OpenAPI document's components.
PLOT_SCHEMA_TYPES: Dict[str, Any] = {
    "FeatureImportance": FeatureImportance,
    "ProgressiveFeatureImportance": ProgressiveFeatureImportance,
    "FeatureStability": FeatureStability,
    "FeatureContributions": FeatureContributions,
    "PartialDependence": PartialDependence,
    "RocCurve": RocCurve,
    "PrecisionRecallCurve": PrecisionRecallCurve,
    "ThresholdTable": ThresholdTable,
    "TimeDependentAuc": TimeDependentAuc,
    "BrierScore": BrierScore,
    "Calibration": Calibration,
    "ConfusionMatrix": ConfusionMatrix,
    "Probabilities": Probabilities,
    "PredictedVsActual": PredictedVsActual,
    "KaplanMeierByRiskGroup": KaplanMeierByRiskGroup,
}


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


class ConfigurationSimplicity(TypedDict):
    #: mean signature size, rounded (fewer first)
    features: int
    #: linear, tree, svm-linear, forest, svm-rbf (in that order)
    family: str
    #: within the family: smaller is more strongly regularised (smaller first)
    flexibility: float


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
    #: pooled out-of-fold value, the one the winner rule compared (of its calibrated probabilities when calibrated;
    #: droppedEarly: on the samples evaluated when it was dropped)
    value: Union[float, None]
    #: mean size of its selector's signature over the training folds
    signatureSize: float
    #: BBCD-CV stopped evaluating it
    droppedEarly: bool


class Configuration(_ConfigurationBase, total=False):
    #: "best" or "interpretable": the model of the result it became
    modelKey: str
    #: a calibrated configuration: the value of its probabilities before calibration
    uncalibratedValue: float
    #: the calibration its probabilities go through: "platt" or "temperature"
    calibration: str
    #: the winner rule (absent when dropped early): the standard error of the leader's lead over it (0 for the leader)
    standardError: float
    #: the winner rule: within one standard error of the leader on the metric
    tiedOnMetric: bool
    #: classification: the log loss of its out-of-fold probabilities (calibrated when it is)
    logLoss: float
    #: classification, tied on the metric: the standard error of its log loss above the lowest of those tied on it
    logLossStandardError: float
    #: the winner rule: tied with the leader, on the metric and, for classification, on the log loss
    tied: bool
    #: the winner rule's simplicity keys, in the order it compares them
    simplicity: ConfigurationSimplicity
    #: position in the simplicity order (1 = simplest): best is the tied row with the smallest
    simplicityRank: int
    #: an interpretable configuration, when the result has an interpretable model: against the best interpretable one
    interpretableStandardError: float
    interpretableTied: bool


class ConfigurationPage(TypedDict):
    analysisId: str
    offset: int
    totalCount: int
    data: List[Configuration]


class _ExplainedOutputBase(TypedDict):
    #: the output: base + the sum of the contributions
    value: float
    #: the mean output over the model's background of training samples
    base: float
    #: feature -> contribution
    contributions: Dict[str, float]


_ExplainedOutputClass = TypedDict("_ExplainedOutputClass", {"class": str}, total=False)


class ExplainedOutput(_ExplainedOutputBase, _ExplainedOutputClass, total=False):
    #: method sampling: feature -> standard error of its contribution
    standardErrors: Dict[str, float]


class Explanation(TypedDict):
    #: the model's output the base and the contributions add up to, before a classifier's probability floor and calibration
    scale: Literal[
        "prediction", "log-odds", "softmax score", "probability", "decision value", "one-vs-one decision sum", "log relative hazard", "risk"
    ]
    method: ShapleyMethod
    #: one per output explained: the positive class (binary), each class, or the one output
    outputs: List[ExplainedOutput]


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
    #: explain=True: the Shapley values of the sample's prediction by the signature refitted without it
    explanation: Explanation


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
    #: explain=True in predict_outcome: the Shapley values of the prediction
    explanation: Explanation


class PredictionResult(TypedDict):
    predictionId: str
    analysisId: str
    datasetId: str
    modelKey: str
    predictions: List[PredictionRow]
