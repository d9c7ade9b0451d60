"""
The payloads of the Signet API as ``TypedDict`` s: one per component schema of the OpenAPI document
(``/api/public/v1/openapi.json``), with the same names and fields, and one per object a schema holds inline
(``<Parent><Field>``). Ids are strings of digits, as the API writes them. A key that the API leaves out when it
does not apply (``description``, ``datasetId`` of an unfinished task, ``progress`` of an analysis not
running ...) is in the ``total=False`` part of its type. At run time they are plain ``dict`` s.

GENERATED from the OpenAPI document by src/openapi/python-types.ts (``npm run generate:python``): do not edit.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, TypedDict, Union



class LoginDto(TypedDict):
    usernameOrEmail: str
    password: str


class _CreateProjectDtoBase(TypedDict):
    name: str


class CreateProjectDto(_CreateProjectDtoBase, total=False):
    description: str


class ShareProjectDto(TypedDict):
    username: str
    permissions: List[Literal["read", "write", "execute"]]


class UnshareProjectDto(TypedDict):
    username: str


class _CreateDatasetDtoBase(TypedDict):
    #: project to hold the dataset (write permission); a string of digits (a JSON number is accepted too)
    projectId: str
    name: str
    #: size of the uploaded file, as a check
    fileSizeInBytes: int


class CreateDatasetDto(_CreateDatasetDtoBase, total=False):
    description: str
    separator: str
    hasFeatureHeaders: bool
    hasSampleHeaders: bool
    hasSamplesInRows: bool
    #: feature name -> numerical | categorical | identifier | event | timeToEvent
    featureTypes: Dict[str, Literal["numerical", "categorical", "identifier", "event", "timeToEvent"]]


class ChangeFeatureTypesDto(TypedDict):
    #: feature name -> numerical | categorical | identifier | event | timeToEvent
    featureTypes: Dict[str, Literal["numerical", "categorical", "identifier", "event", "timeToEvent"]]


class RegressionOutcome(TypedDict):
    #: the numerical feature to predict
    regression: str


class ClassificationOutcome(TypedDict):
    #: the categorical feature to predict
    classification: str


class SurvivalOutcomeSurvival(TypedDict):
    #: the event feature
    event: str
    #: the time-to-event feature
    timeToEvent: str


class SurvivalOutcome(TypedDict):
    survival: SurvivalOutcomeSurvival


class _AnalyzeDtoBase(TypedDict):
    #: the outcome to predict, one of three forms
    outcome: Union[RegressionOutcome, ClassificationOutcome, SurvivalOutcome]
    thoroughness: Literal["preliminary", "typical", "extensive"]
    #: at most the cores currently available to the user
    coreCount: int
    name: str


class AnalyzeDto(_AnalyzeDtoBase, total=False):
    modelsConsidered: Literal["interpretable", "all"]
    featureSelection: Literal["mostRelevant", "mostRelevantOrAll"]
    maxSignatureSize: int
    maxVisualizedSignatureCount: int
    #: an identifier feature; its groups are never split between training and test data
    groupingFeature: str
    #: bounds the running time: the search stops in time for the final phase and the result is over the configurations it tried (absent: every configuration)
    timeLimitSeconds: int


class ModelPlotsDto(TypedDict):
    #: a key of the models of the analysis result
    modelKey: str


class OnePlotDto(TypedDict):
    #: a key of the models of the analysis result
    modelKey: str
    #: one of the names availablePlots gives for the model
    plotKey: str


class _PredictDtoBase(TypedDict):
    #: a key of the models of the analysis result
    modelKey: str


class PredictDto(_PredictDtoBase, total=False):
    #: index in the model's signatures (0 = the reference signature); every signature shown has its own fitted model
    signatureIndex: int
    #: survival models: the times at which each row gives the predicted survival probability (1 to 100 non-negative numbers; default: the quartiles of the training times)
    times: List[float]
    #: add to each row its explanation: the contribution of each feature the model reads and a base value, adding up to the model's output on the stated scale (docs/api-guide.md, Explanations)
    explain: bool


class _ScoreDtoBase(TypedDict):
    #: a key of the models of the analysis result
    modelKey: str
    #: 1 to 1000 rows, each an object of feature name -> value (a number, a category's text, or null where missing); keys the model does not read are ignored
    rows: List[Dict[str, Any]]


class ScoreDto(_ScoreDtoBase, total=False):
    #: index in the model's signatures (0 = the reference signature); every signature shown has its own fitted model
    signatureIndex: int
    #: survival models: the times at which each row gives the predicted survival probability (1 to 100 non-negative numbers; default: the quartiles of the training times)
    times: List[float]
    #: add to each row its explanation: the contribution of each feature the model reads and a base value, adding up to the model's output on the stated scale (docs/api-guide.md, Explanations)
    explain: bool


class CreateReportLinkDto(TypedDict, total=False):
    #: days the link opens the report (default 7, at most 90)
    validForDays: int


#: an empty object
class Empty(TypedDict):
    pass


class Token(TypedDict):
    #: bearer token for the Authorization header
    token: str


class Version(TypedDict):
    #: service version
    version: str
    #: analysis engine and its version
    mlEngine: str


class _HealthBase(TypedDict):
    status: Literal["ok", "unavailable"]


class Health(_HealthBase, total=False):
    database: Literal["ok", "unreachable"]


class StatusError(TypedDict):
    #: an error code of the catalogue
    code: str
    message: str


class ProjectRef(TypedDict):
    #: the new project
    projectId: str


class _ProjectBase(TypedDict):
    #: identifier
    projectId: str
    name: str


class Project(_ProjectBase, total=False):
    description: str


class ProjectPage(TypedDict):
    #: echoed from the request
    offset: int
    #: items in the whole list
    totalCount: int
    data: List[Project]


class Share(TypedDict):
    #: the shared project
    projectId: str
    username: str
    permissions: List[Literal["read", "write", "execute"]]


class Unshare(TypedDict):
    #: the project
    projectId: str
    username: str


class UploadedFile(TypedDict):
    #: the client-chosen file id
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
    #: echoed from the request
    offset: int
    #: items in the whole list
    totalCount: int
    data: List[File]


class TaskRef(TypedDict):
    #: the task to poll
    taskId: str


class _TaskStatusBase(TypedDict):
    #: echoed
    taskId: str
    state: Literal["pending", "running", "finished", "failed"]


class TaskStatus(_TaskStatusBase, total=False):
    #: the dataset made, when finished
    datasetId: str
    error: StatusError


class _DatasetBase(TypedDict):
    #: identifier
    datasetId: str
    #: owning project
    projectId: str
    #: 3 to 60 characters, unique within the project
    name: str
    sampleCount: int
    featureCount: int
    #: storage occupied
    sizeInBytes: int


class Dataset(_DatasetBase, total=False):
    #: at most 255 characters
    description: str


class DatasetPage(TypedDict):
    #: echoed
    projectId: str
    #: echoed from the request
    offset: int
    #: items in the whole list
    totalCount: int
    data: List[Dataset]


class FeaturesFeaturesItem(TypedDict):
    name: str
    type: Literal["numerical", "categorical", "identifier", "event", "timeToEvent"]
    missingCount: int
    distinctCount: int


class Features(TypedDict):
    #: echoed
    datasetId: str
    features: List[FeaturesFeaturesItem]


class _AnalysisParametersBase(TypedDict):
    #: the dataset analysed
    datasetId: str
    #: { regression }, { classification } or { survival: { event, timeToEvent } }
    outcome: Union[RegressionOutcome, ClassificationOutcome, SurvivalOutcome]
    thoroughness: Literal["preliminary", "typical", "extensive"]
    coreCount: int
    name: str


#: the parameters given to analyze (with their defaults) and the dataset analysed
class AnalysisParameters(_AnalysisParametersBase, total=False):
    groupingFeature: str
    modelsConsidered: Literal["interpretable", "all"]
    featureSelection: Literal["mostRelevant", "mostRelevantOrAll"]
    maxSignatureSize: int
    maxVisualizedSignatureCount: int
    #: as given; absent: no limit
    timeLimitSeconds: int


#: the running time from startTime to the end (capped by timeLimitSeconds when given)
class AnalysisEstimateExecutionTimeInSeconds(TypedDict):
    expected: float
    #: the lower end of the interval the real value is expected in
    low: float
    #: the upper end of that interval
    high: float


#: the peak resident memory of the analysis's engine process (always from the shape)
class AnalysisEstimatePeakMemoryInBytes(TypedDict):
    expected: float
    #: the lower end of the interval the real value is expected in
    low: float
    #: the upper end of that interval
    high: float


#: the expected running time and peak memory, each with an interval; pending: from the shape; running: measured once progress reaches 0.05; finished or failed: the estimate made when the analysis was created
class AnalysisEstimate(TypedDict):
    #: shape: predicted from the dataset's shape, the thoroughness and the cores before the run; measured: from the time the analysis has run and the fraction of its planned work done
    basis: Literal["shape", "measured"]
    #: the running time from startTime to the end (capped by timeLimitSeconds when given)
    executionTimeInSeconds: AnalysisEstimateExecutionTimeInSeconds
    #: the peak resident memory of the analysis's engine process (always from the shape)
    peakMemoryInBytes: AnalysisEstimatePeakMemoryInBytes


class _AnalysisRefBase(TypedDict):
    #: the analysis started
    analysisId: str


class AnalysisRef(_AnalysisRefBase, total=False):
    estimate: AnalysisEstimate


#: errors: what analyze would refuse, with the codes it would answer; warnings: accepted with a caveat
class AnalysisCheck(TypedDict):
    errors: List[StatusError]
    warnings: List[StatusError]


class Analysis(TypedDict):
    #: identifier
    analysisId: str
    #: owning project
    projectId: str
    parameters: AnalysisParameters
    state: Literal["pending", "running", "finished", "failed"]


class AnalysisPage(TypedDict):
    #: echoed
    projectId: str
    #: echoed from the request
    offset: int
    #: items in the whole list
    totalCount: int
    data: List[Analysis]


class _AnalysisStatusBase(TypedDict):
    #: identifier
    analysisId: str
    #: owning project
    projectId: str
    parameters: AnalysisParameters
    state: Literal["pending", "running", "finished", "failed"]


class AnalysisStatus(_AnalysisStatusBase, total=False):
    #: when running or finished (maybe when failed)
    startTime: str
    #: when running or finished (maybe when failed)
    executionTimeInSeconds: float
    #: only while running
    progress: float
    error: StatusError
    estimate: AnalysisEstimate


class _ModelModelViewBase(TypedDict):
    featureNames: List[str]
    coefficients: Union[List[float], List[List[float]]]


class ModelModelView(_ModelModelViewBase, total=False):
    #: with originalCoefficients: the linear predictor is intercept + sum of coefficient x value (one per class of a multinomial model)
    intercept: Union[float, List[float]]
    #: per unit of each numerical feature, per level (against the reference level) of a categorical one
    originalCoefficients: Union[List[float], List[List[float]]]
    #: Cox models: hazard ratio per unit of each feature
    hazardRatios: List[float]
    #: logistic models: the class of each row of coefficients (binary: the positive class)
    classes: List[str]


class _ModelCalibrationUncalibratedBase(TypedDict):
    brier: float
    ece: float


#: before calibration
class ModelCalibrationUncalibrated(_ModelCalibrationUncalibratedBase, total=False):
    logLoss: float


class _ModelCalibrationBase(TypedDict):
    #: Brier score of the out-of-fold probabilities
    brier: float
    #: expected calibration error (10 bins of equal count) of the out-of-fold probabilities
    ece: float


#: classification: how well the probabilities are calibrated
class ModelCalibration(_ModelCalibrationBase, total=False):
    #: log loss of the out-of-fold probabilities (absent in results of engine 0.2)
    logLoss: float
    #: present when the probabilities are calibrated (the values above are then after it): Platt scaling (two classes) or temperature scaling (more); isotonic in results of engine 0.2
    method: Literal["platt", "temperature", "isotonic"]
    #: before calibration
    uncalibrated: ModelCalibrationUncalibrated


class _ModelBase(TypedDict):
    #: preprocessing steps
    preprocessing: str
    #: feature-selection algorithm
    featureSelection: str
    #: statistical model
    model: str
    #: reference signature first
    signatures: List[List[str]]
    #: metric name -> estimate on new data, bias-corrected for the choice among the configurations (BBC-CV)
    performance: Dict[str, float]


class Model(_ModelBase, total=False):
    #: equivalent signatures found in all
    signatureCount: int
    #: metric name -> 95% interval
    performanceCis: Dict[str, List[float]]
    #: metric name -> value on this model's own out-of-fold predictions (the value its plots show: the ROC curve's area, the confusion matrix's sensitivity); not corrected for the choice among the configurations
    pooledPerformance: Dict[str, float]
    #: metric name -> 95% bootstrap interval (the bootstraps of the ROC Curve, Calibration and Confusion Matrix plots)
    pooledPerformanceCis: Dict[str, List[float]]
    #: feature of a shown signature -> fraction of the cross-validation folds in which the selector chose it or one of its equivalents
    stability: Dict[str, float]
    modelView: ModelModelView
    #: classification: the class labels, in the order of the probabilities
    classes: List[str]
    #: binary classification: the class the ROC curve, sensitivity and the log-odds are of
    positiveClass: str
    #: classification: how well the probabilities are calibrated
    calibration: ModelCalibration


class _AnalysisResultSearchBase(TypedDict):
    #: the configurations of the grid of the thoroughness
    configurationsPlanned: int
    #: the configurations evaluated on every fold of every repeat (or dropped early by BBCD-CV on the way): the models, their bias-corrected estimates and the leaderboard are over these
    configurationsTried: int
    #: timeLimitSeconds stopped the search before it tried every configuration
    stoppedAtTimeLimit: bool


#: how much of the grid the search tried (absent in results stored before)
class AnalysisResultSearch(_AnalysisResultSearchBase, total=False):
    #: the search's first round, which always completes, ran past the time the limit left for the search
    firstRoundOverran: bool
    #: the limit, when the analysis had one
    timeLimitSeconds: int


class _AnalysisResultBase(TypedDict):
    #: identifier
    analysisId: str
    parameters: AnalysisParameters
    #: engine and version that produced the result
    mlEngine: str
    startTime: str
    executionTimeInSeconds: float
    #: model key (best, interpretable) -> model
    models: Dict[str, Model]


class AnalysisResult(_AnalysisResultBase, total=False):
    #: the estimate made when the analysis was created (absent for analyses created before estimates), beside the actual executionTimeInSeconds
    estimate: AnalysisEstimate
    #: how much of the grid the search tried (absent in results stored before)
    search: AnalysisResultSearch


class FeatureImportanceItem(TypedDict):
    #: the feature removed
    name: str
    value: float
    #: 95% interval (lower, upper)
    cis: List[float]


FeatureImportance = List[FeatureImportanceItem]


#: features added one at a time
class ProgressiveFeatureImportanceItem(TypedDict):
    name: List[str]
    value: float
    #: 95% interval (lower, upper)
    cis: List[float]


ProgressiveFeatureImportance = List[ProgressiveFeatureImportanceItem]


#: fraction of the cross-validation folds whose signature held the feature or one of its equivalents
class FeatureStabilityItem(TypedDict):
    #: a feature of a shown signature
    name: str
    value: float


FeatureStability = List[FeatureStabilityItem]


class FeatureContributionsOutputsItemFeaturesItem(TypedDict):
    name: str
    #: mean absolute contribution over the out-of-fold predictions
    value: float
    #: 95% interval (lower, upper)
    cis: List[float]


class _FeatureContributionsOutputsItemBase(TypedDict):
    features: List[FeatureContributionsOutputsItemFeaturesItem]


_FeatureContributionsOutputsItemOwn = TypedDict(
    "_FeatureContributionsOutputsItemOwn",
    {
        #: classification: the class whose output is explained
        "class": str,
    },
    total=False,
)


class FeatureContributionsOutputsItem(_FeatureContributionsOutputsItemBase, _FeatureContributionsOutputsItemOwn):
    pass


class FeatureContributions(TypedDict):
    #: the model output the contributions add up to (log-odds, probability, prediction, ...)
    scale: str
    method: Literal["closedForm", "exactTree", "exactKernel", "enumeration", "sampling"]
    #: one per output explained: the positive class of a binary outcome, each class of more, or the one output
    outputs: List[FeatureContributionsOutputsItem]


class PartialDependenceFeaturesItemOutputsItemCurvesItem(TypedDict):
    #: the sample (its position among the analysed samples)
    row: int
    values: List[float]


class _PartialDependenceFeaturesItemOutputsItemBase(TypedDict):
    #: per grid value: the mean output over the samples
    average: List[float]
    #: individual conditional expectation: at most 30 samples' outputs over the grid
    curves: List[PartialDependenceFeaturesItemOutputsItemCurvesItem]


_PartialDependenceFeaturesItemOutputsItemOwn = TypedDict(
    "_PartialDependenceFeaturesItemOutputsItemOwn",
    {
        #: classification: the class whose probability this is
        "class": str,
    },
    total=False,
)


class PartialDependenceFeaturesItemOutputsItem(_PartialDependenceFeaturesItemOutputsItemBase, _PartialDependenceFeaturesItemOutputsItemOwn):
    pass


class _PartialDependenceFeaturesItemBase(TypedDict):
    feature: str
    kind: Literal["numerical", "categorical"]
    #: numerical: up to 20 values over the observed range; categorical: 0, 1, ... (positions in labels)
    grid: List[float]
    #: one per output: the positive class, each class, or the one output
    outputs: List[PartialDependenceFeaturesItemOutputsItem]


class PartialDependenceFeaturesItem(_PartialDependenceFeaturesItemBase, total=False):
    #: categorical: each observed category
    labels: List[str]


class _PartialDependenceBase(TypedDict):
    output: Literal["probability", "prediction", "survival probability"]
    features: List[PartialDependenceFeaturesItem]


class PartialDependence(_PartialDependenceBase, total=False):
    #: survival: the time of the survival probability (the median of the observed times)
    survivalTime: float


class _RocCurveItemPointsItemBase(TypedDict):
    fpr: float
    tpr: float


class RocCurveItemPointsItem(_RocCurveItemPointsItemBase, total=False):
    #: probability at or above which a sample is called positive (absent at (0, 0))
    threshold: float


class RocCurveItemBandItem(TypedDict):
    fpr: float
    tpr: float
    #: 95% interval (lower, upper)
    cis: List[float]


RocCurveItem = TypedDict(
    "RocCurveItem",
    {
        #: the class called positive (the others negative)
        "class": str,
        #: area under the curve of the out-of-fold probabilities
        "auc": float,
        #: 95% interval (lower, upper)
        "cis": List[float],
        #: from (0, 0) to (1, 1), at most 201 points
        "points": List[RocCurveItemPointsItem],
        #: 95% bootstrap band of the true-positive rate at false-positive rates 0, 0.02, ..., 1
        "band": List[RocCurveItemBandItem],
    },
)


#: one curve per class shown: the positive class of a binary outcome, each class (one-vs-rest) of more
RocCurve = List[RocCurveItem]


class PrecisionRecallCurvePointsItem(TypedDict):
    recall: float
    precision: float
    #: probability at or above which a sample is called positive
    threshold: float


PrecisionRecallCurve = TypedDict(
    "PrecisionRecallCurve",
    {
        #: the class called positive
        "class": str,
        #: sum over thresholds of the recall gained x the precision (scikit-learn's average_precision_score)
        "averagePrecision": float,
        #: 95% interval (lower, upper)
        "cis": List[float],
        #: share of the samples of the class: the average precision of a ranking at random
        "prevalence": float,
        #: one per distinct out-of-fold probability from the highest, at most 201
        "points": List[PrecisionRecallCurvePointsItem],
    },
)


class _ThresholdTableRowsItemBase(TypedDict):
    #: probability at or above which a sample is called positive
    threshold: float
    calledPositive: int
    sensitivity: float
    #: 95% interval (lower, upper)
    sensitivityCis: List[float]
    specificity: float
    #: 95% interval (lower, upper)
    specificityCis: List[float]


class ThresholdTableRowsItem(_ThresholdTableRowsItemBase, total=False):
    #: positive predictive value; absent when no sample is called positive
    ppv: float
    #: 95% interval (lower, upper)
    ppvCis: List[float]
    #: negative predictive value; absent when every sample is called positive
    npv: float
    #: 95% interval (lower, upper)
    npvCis: List[float]


class _ThresholdTableYoudenBase(TypedDict):
    #: probability at or above which a sample is called positive
    threshold: float
    calledPositive: int
    sensitivity: float
    #: 95% interval (lower, upper)
    sensitivityCis: List[float]
    specificity: float
    #: 95% interval (lower, upper)
    specificityCis: List[float]
    #: Youden's J: sensitivity + specificity - 1
    j: float


#: at the out-of-fold probability that maximises Youden's J
class ThresholdTableYouden(_ThresholdTableYoudenBase, total=False):
    #: positive predictive value; absent when no sample is called positive
    ppv: float
    #: 95% interval (lower, upper)
    ppvCis: List[float]
    #: negative predictive value; absent when every sample is called positive
    npv: float
    #: 95% interval (lower, upper)
    npvCis: List[float]


ThresholdTable = TypedDict(
    "ThresholdTable",
    {
        #: the class called positive
        "class": str,
        #: at the thresholds 0.05, 0.10, ..., 0.95
        "rows": List[ThresholdTableRowsItem],
        #: at the out-of-fold probability that maximises Youden's J
        "youden": ThresholdTableYouden,
    },
)


class CalibrationItemBinsItem(TypedDict):
    #: the lowest probability in the bin
    lower: float
    #: the highest probability in the bin
    upper: float
    #: samples in the bin
    count: int
    meanPredicted: float
    #: fraction of the samples of the bin that are of the class
    observed: float
    #: 95% interval (lower, upper)
    cis: List[float]


CalibrationItem = TypedDict(
    "CalibrationItem",
    {
        "class": str,
        #: bins of equal count (10, fewer when probabilities tie), from the lowest probabilities
        "bins": List[CalibrationItemBinsItem],
        #: Brier score
        "brier": float,
        #: expected calibration error over the bins
        "ece": float,
    },
)


#: one entry per class shown: the positive class of a binary outcome, each class (one-vs-rest) of more
Calibration = List[CalibrationItem]


_ConfusionMatrixPerClassItemBase = TypedDict(
    "_ConfusionMatrixPerClassItemBase",
    {
        "class": str,
        "count": int,
        "sensitivity": float,
        #: 95% interval (lower, upper)
        "sensitivityCis": List[float],
    },
)


class ConfusionMatrixPerClassItem(_ConfusionMatrixPerClassItemBase, total=False):
    #: absent when no sample is predicted as the class
    precision: float
    #: 95% interval (lower, upper)
    precisionCis: List[float]


#: true class x predicted class (highest out-of-fold probability)
class ConfusionMatrix(TypedDict):
    classes: List[str]
    #: counts[t][p]: samples of true class classes[t] predicted as classes[p]
    counts: List[List[int]]
    perClass: List[ConfusionMatrixPerClassItem]


ProbabilitiesItemProbabilitiesItem = TypedDict(
    "ProbabilitiesItemProbabilitiesItem",
    {
        #: the class whose probability this is
        "class": str,
        "mean": float,
        "min": float,
        "q1": float,
        "median": float,
        "q3": float,
        "max": float,
        #: per sample (at most 1000, chosen at random beyond)
        "values": List[float],
    },
)


class ProbabilitiesItem(TypedDict):
    trueClass: str
    #: samples of the true class
    count: int
    #: one per class, in the order of the classes
    probabilities: List[ProbabilitiesItemProbabilitiesItem]


#: out-of-fold probabilities of each class among the samples of each true class
Probabilities = List[ProbabilitiesItem]


class PredictedVsActualPointsItem(TypedDict):
    actual: float
    predicted: float


class PredictedVsActual(TypedDict):
    #: one per sample (at most 1000, chosen at random beyond)
    points: List[PredictedVsActualPointsItem]
    #: of the least-squares line actual = intercept + slope x predicted
    intercept: float
    #: 95% interval (lower, upper)
    interceptCis: List[float]
    slope: float
    #: 95% interval (lower, upper)
    slopeCis: List[float]
    #: 1 - SSE / SST of the predictions around the identity line
    rSquared: float
    #: 95% interval (lower, upper)
    rSquaredCis: List[float]
    #: mean of predicted - actual
    meanError: float


class _KaplanMeierByRiskGroupGroupsItemCurveItemBase(TypedDict):
    time: float
    atRisk: int
    events: int
    censored: int
    survival: float


class KaplanMeierByRiskGroupGroupsItemCurveItem(_KaplanMeierByRiskGroupGroupsItemCurveItemBase, total=False):
    #: 95% interval (Greenwood, log scale, as R's survfit); absent where undefined
    cis: List[float]


class KaplanMeierByRiskGroupGroupsItem(TypedDict):
    group: Literal["low", "middle", "high"]
    count: int
    events: int
    #: lowest and highest risk score
    riskRange: List[float]
    curve: List[KaplanMeierByRiskGroupGroupsItemCurveItem]


class KaplanMeierByRiskGroupLogRank(TypedDict):
    chiSquare: float
    df: int
    pValue: float


#: Kaplan-Meier curves of the low, middle and high thirds of the out-of-fold risk scores, with the log-rank test
class KaplanMeierByRiskGroup(TypedDict):
    groups: List[KaplanMeierByRiskGroupGroupsItem]
    logRank: KaplanMeierByRiskGroupLogRank


class TimeDependentAucItem(TypedDict):
    #: the quartile of the event times (0.25, 0.5, 0.75)
    quantile: float
    time: float
    #: chance that a sample with an event by the time has a higher out-of-fold risk score than one event free after it (IPCW)
    auc: float
    #: 95% interval (lower, upper)
    cis: List[float]


#: cumulative/dynamic AUC at the quartiles of the event times
TimeDependentAuc = List[TimeDependentAucItem]


class BrierScorePointsItem(TypedDict):
    time: float
    brier: float
    #: 95% interval (lower, upper)
    cis: List[float]


class BrierScore(TypedDict):
    #: the Brier score (IPCW) at event times from the first to the third quartile of the event times
    points: List[BrierScorePointsItem]
    #: the integrated Brier score: the mean of the curve over its range (0 is perfect)
    integrated: float
    #: 95% interval (lower, upper)
    integratedCis: List[float]
    #: the integrated Brier score of the Kaplan-Meier curve of all samples
    reference: float


#: plot name -> plot values (more plot names may be added)
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


class AvailablePlots(TypedDict):
    #: echoed
    analysisId: str
    #: echoed
    modelKey: str
    plots: List[str]


class PlotOne(TypedDict):
    #: echoed
    analysisId: str
    #: echoed
    modelKey: str
    plot: Plot


class PlotAll(TypedDict):
    #: echoed
    analysisId: str
    #: echoed
    modelKey: str
    plots: List[Plot]


#: the winner rule's simplicity keys, in the order it compares them
class ConfigurationSimplicity(TypedDict):
    #: mean signature size, rounded (fewer first)
    features: int
    #: from the most to the least interpretable
    family: Literal["linear", "tree", "svm-linear", "forest", "svm-rbf"]
    #: within the family: smaller is more strongly regularised (smaller first)
    flexibility: float


class _ConfigurationBase(TypedDict):
    #: 1 for the highest metric
    rank: int
    #: index in the grid of the thoroughness
    configuration: int
    #: feature-selection algorithm and settings
    featureSelection: str
    #: statistical model and settings
    model: str
    interpretable: bool
    #: the primary metric
    metric: str
    #: pooled out-of-fold value, the one the winner rule compared (of its calibrated probabilities when calibrated); droppedEarly: on the samples evaluated when dropped
    value: Union[float, None]
    #: mean size of its selector signature over the training folds
    signatureSize: float
    #: BBCD-CV stopped evaluating it (it lost to the leader with probability above 0.99)
    droppedEarly: bool


class Configuration(_ConfigurationBase, total=False):
    #: a calibrated configuration: the pooled out-of-fold value of its probabilities before calibration
    uncalibratedValue: float
    #: the calibration its probabilities go through (absent: none lowered their log loss and Brier score)
    calibration: Literal["platt", "temperature"]
    #: the winner rule (absent when dropped early): the standard error of the leader's lead over it (0 for the leader)
    standardError: float
    #: the winner rule: its value is within one standard error of the leader's
    tiedOnMetric: bool
    #: classification: the log loss of its out-of-fold probabilities (calibrated when it is)
    logLoss: float
    #: classification, tied on the metric: the standard error of its log loss above the lowest of those tied on the metric (0 for that one)
    logLossStandardError: float
    #: the winner rule: tied with the leader, on the metric and, for classification, on the log loss
    tied: bool
    #: the winner rule's simplicity keys, in the order it compares them
    simplicity: ConfigurationSimplicity
    #: position in the simplicity order (1 = simplest): best is the tied row with the smallest
    simplicityRank: int
    #: an interpretable configuration, when the result has an interpretable model: against the best interpretable one
    interpretableStandardError: float
    #: an interpretable configuration: tied with the best interpretable one
    interpretableTied: bool
    #: the model of the result it became
    modelKey: Literal["best", "interpretable"]


class ConfigurationPage(TypedDict):
    #: echoed
    analysisId: str
    #: echoed from the request
    offset: int
    #: items in the whole list
    totalCount: int
    data: List[Configuration]


class _ExplanationOutputsItemBase(TypedDict):
    #: the output: base + the sum of the contributions
    value: float
    #: the mean output over the model's background of training samples
    base: float
    #: feature -> contribution
    contributions: Dict[str, float]


_ExplanationOutputsItemOwn = TypedDict(
    "_ExplanationOutputsItemOwn",
    {
        #: classification: the class whose output this is
        "class": str,
        #: method sampling: feature -> standard error of its contribution
        "standardErrors": Dict[str, float],
    },
    total=False,
)


class ExplanationOutputsItem(_ExplanationOutputsItemBase, _ExplanationOutputsItemOwn):
    pass


#: interventional Shapley values of one prediction: one output per class explained (binary: the positive class) or the one output
class Explanation(TypedDict):
    #: the model's output the base and the contributions add up to, before a classifier's probability floor and calibration (docs/api-guide.md, Explanations)
    scale: Literal["prediction", "log-odds", "softmax score", "probability", "decision value", "one-vs-one decision sum", "log relative hazard", "risk"]
    #: how the Shapley values were computed: exactly, or by sampling with standard errors
    method: Literal["closedForm", "exactTree", "exactKernel", "enumeration", "sampling"]
    outputs: List[ExplanationOutputsItem]


class _OutOfFoldPredictionsPredictionsItemBase(TypedDict):
    #: zero-based row of the dataset
    row: int
    actual: Union[str, float]
    prediction: Union[str, float]


class OutOfFoldPredictionsPredictionsItem(_OutOfFoldPredictionsPredictionsItemBase, total=False):
    #: the sample id, when the dataset has an identifier feature
    sampleId: str
    #: survival: 1 = event, 0 = censored
    event: int
    #: class -> probability
    probabilities: Dict[str, float]
    #: survival: higher is an earlier event
    risk: float
    #: explain=true: the Shapley values of the sample's prediction by the reference signature refitted on the plot fold that held it out (close to, not equal to, the prediction above)
    explanation: Explanation


class OutOfFoldPredictions(TypedDict):
    #: echoed
    analysisId: str
    #: echoed
    modelKey: str
    #: repeats of the cross-validation: each prediction is the mean over them
    repeats: int
    predictions: List[OutOfFoldPredictionsPredictionsItem]


class PredictionRef(TypedDict):
    #: the prediction started
    predictionId: str


class Prediction(TypedDict):
    #: identifier
    predictionId: str
    #: the analysis whose model predicts
    analysisId: str
    #: the dataset predicted
    datasetId: str
    modelKey: str
    signatureIndex: int
    state: Literal["pending", "running", "finished", "failed"]


class PredictionStatus(Prediction, total=False):
    error: StatusError


class PredictionPage(TypedDict):
    #: echoed
    analysisId: str
    #: echoed from the request
    offset: int
    #: items in the whole list
    totalCount: int
    data: List[Prediction]


class PredictionResultPredictionsItemSurvivalItem(TypedDict):
    time: float
    #: predicted probability of surviving past the time
    probability: float


class _PredictionResultPredictionsItemBase(TypedDict):
    #: zero-based row of the dataset
    row: int
    prediction: Union[str, float]


class PredictionResultPredictionsItem(_PredictionResultPredictionsItemBase, total=False):
    #: the sample id, when the dataset has an identifier feature
    sampleId: str
    #: class -> probability
    probabilities: Dict[str, float]
    #: survival: higher is an earlier event
    risk: float
    #: survival models (Cox regression, random survival forests): at the times of the predict body, default the quartiles of the training times
    survival: List[PredictionResultPredictionsItemSurvivalItem]
    #: survival models: the first training event time at which the predicted survival falls to 0.5 or below, when it does
    medianSurvivalTime: float
    #: explain: true in the predict body: the Shapley values of the prediction
    explanation: Explanation


class PredictionResult(TypedDict):
    #: identifier
    predictionId: str
    #: analysis
    analysisId: str
    #: dataset
    datasetId: str
    modelKey: str
    predictions: List[PredictionResultPredictionsItem]


class ModelCardModel(TypedDict):
    description: str
    preprocessing: str
    featureSelection: str


#: how a missing value is filled
class ModelCardInputsItemMissing(TypedDict):
    rule: Literal["training mean", "training mode"]
    value: Union[float, str]


class ModelCardInputsItemStandardization(TypedDict):
    center: float
    scale: float


class _ModelCardInputsItemBase(TypedDict):
    #: the dataset column, and the ONNX input of the same name
    name: str
    type: Literal["numerical", "categorical"]
    #: how a missing value is filled
    missing: ModelCardInputsItemMissing


class ModelCardInputsItem(_ModelCardInputsItemBase, total=False):
    #: categorical: the levels known (any other is missing)
    levels: List[str]
    standardization: ModelCardInputsItemStandardization
    referenceLevel: str


class _ModelCardOutcomeBase(TypedDict):
    task: Literal["classification", "regression", "survival"]
    #: the outcome's column(s) in the training dataset
    columns: Union[RegressionOutcome, ClassificationOutcome, SurvivalOutcome]


class ModelCardOutcome(_ModelCardOutcomeBase, total=False):
    classes: List[str]
    positiveClass: str
    survivalTimes: List[float]


class _ModelCardMetricsValueBase(TypedDict):
    estimate: float


class ModelCardMetricsValue(_ModelCardMetricsValueBase, total=False):
    #: 95% interval
    interval: List[float]


class _ModelCardPooledMetricsValueBase(TypedDict):
    estimate: float


class ModelCardPooledMetricsValue(_ModelCardPooledMetricsValueBase, total=False):
    #: 95% interval
    interval: List[float]


class _ModelCardCalibrationUncalibratedBase(TypedDict):
    brier: float
    ece: float


class ModelCardCalibrationUncalibrated(_ModelCardCalibrationUncalibratedBase, total=False):
    logLoss: float


class _ModelCardCalibrationBase(TypedDict):
    brier: float
    ece: float


class ModelCardCalibration(_ModelCardCalibrationBase, total=False):
    logLoss: float
    method: Literal["platt", "temperature", "isotonic"]
    uncalibrated: ModelCardCalibrationUncalibrated
    probabilityFloor: float


class _ModelCardBase(TypedDict):
    modelKey: str
    signatureIndex: int
    model: ModelCardModel
    inputs: List[ModelCardInputsItem]
    outcome: ModelCardOutcome
    #: by metric name: the estimate on new data with its 95% interval
    metrics: Dict[str, ModelCardMetricsValue]
    signature: List[str]
    equivalents: List[List[str]]
    signatureCount: int
    engine: str
    parameters: AnalysisParameters


class ModelCard(_ModelCardBase, total=False):
    #: the analysis
    analysisId: str
    #: the model's own pooled out-of-fold values
    pooledMetrics: Dict[str, ModelCardPooledMetricsValue]
    calibration: ModelCardCalibration
    trainingSamples: int


class ScoreResultPredictionsItemSurvivalItem(TypedDict):
    time: float
    #: predicted probability of surviving past the time
    probability: float


class _ScoreResultPredictionsItemBase(TypedDict):
    #: zero-based row of the dataset
    row: int
    prediction: Union[str, float]


class ScoreResultPredictionsItem(_ScoreResultPredictionsItemBase, total=False):
    #: the sample id, when the dataset has an identifier feature
    sampleId: str
    #: class -> probability
    probabilities: Dict[str, float]
    #: survival: higher is an earlier event
    risk: float
    #: survival models (Cox regression, random survival forests): at the times of the predict body, default the quartiles of the training times
    survival: List[ScoreResultPredictionsItemSurvivalItem]
    #: survival models: the first training event time at which the predicted survival falls to 0.5 or below, when it does
    medianSurvivalTime: float
    #: explain: true in the predict body: the Shapley values of the prediction
    explanation: Explanation


class ScoreResult(TypedDict):
    #: the analysis whose model scored
    analysisId: str
    modelKey: str
    signatureIndex: int
    #: one per row sent, in their order (`row` is its index)
    predictions: List[ScoreResultPredictionsItem]


class ReportLink(TypedDict):
    #: the link, to withdraw it
    linkId: str
    #: echoed
    analysisId: str
    #: opens the report in a browser without a bearer header; shown this once (only a hash of its token is kept)
    url: str
    expiresAt: str


class ReportLinkInfo(TypedDict):
    #: identifier
    linkId: str
    #: the analysis whose report it opens
    analysisId: str
    #: who made it
    username: str
    created: str
    expiresAt: str


class ReportLinkPage(TypedDict):
    #: echoed
    analysisId: str
    #: echoed from the request
    offset: int
    #: items in the whole list
    totalCount: int
    data: List[ReportLinkInfo]


#: the answer to a request the service refused or could not carry out (HTTP 200)
class ErrorEnvelope(TypedDict):
    status: Literal["error"]
    #: an error code of the catalogue (docs/api-guide.md, Errors); the operation lists those it can answer
    code: str
    #: for humans; its wording is not part of the API
    message: str


class _HttpErrorBase(TypedDict):
    #: the HTTP status again
    statusCode: int
    #: Forbidden, Not Found or Internal Server Error
    message: str


#: the body of HTTP 403, 404 and 500 (not part of the API: programs should read the HTTP status)
class HttpError(_HttpErrorBase, total=False):
    #: HTTP 500 only: names the fault in the service log
    correlationId: str


#: success, with a Version
class VersionSuccess(TypedDict):
    status: Literal["success"]
    payload: Version


#: the success envelope with a Version, or the error envelope (status tells which)
VersionResponse = Union[VersionSuccess, ErrorEnvelope]


#: success, with a Token
class TokenSuccess(TypedDict):
    status: Literal["success"]
    payload: Token


#: the success envelope with a Token, or the error envelope (status tells which)
TokenResponse = Union[TokenSuccess, ErrorEnvelope]


#: success, with a Empty
class EmptySuccess(TypedDict):
    status: Literal["success"]
    payload: Empty


#: the success envelope with a Empty, or the error envelope (status tells which)
EmptyResponse = Union[EmptySuccess, ErrorEnvelope]


#: success, with a ProjectRef
class ProjectRefSuccess(TypedDict):
    status: Literal["success"]
    payload: ProjectRef


#: the success envelope with a ProjectRef, or the error envelope (status tells which)
ProjectRefResponse = Union[ProjectRefSuccess, ErrorEnvelope]


#: success, with a Project
class ProjectSuccess(TypedDict):
    status: Literal["success"]
    payload: Project


#: the success envelope with a Project, or the error envelope (status tells which)
ProjectResponse = Union[ProjectSuccess, ErrorEnvelope]


#: success, with a ProjectPage
class ProjectPageSuccess(TypedDict):
    status: Literal["success"]
    payload: ProjectPage


#: the success envelope with a ProjectPage, or the error envelope (status tells which)
ProjectPageResponse = Union[ProjectPageSuccess, ErrorEnvelope]


#: success, with a Share
class ShareSuccess(TypedDict):
    status: Literal["success"]
    payload: Share


#: the success envelope with a Share, or the error envelope (status tells which)
ShareResponse = Union[ShareSuccess, ErrorEnvelope]


#: success, with a Unshare
class UnshareSuccess(TypedDict):
    status: Literal["success"]
    payload: Unshare


#: the success envelope with a Unshare, or the error envelope (status tells which)
UnshareResponse = Union[UnshareSuccess, ErrorEnvelope]


#: success, with a UploadedFile
class UploadedFileSuccess(TypedDict):
    status: Literal["success"]
    payload: UploadedFile


#: the success envelope with a UploadedFile, or the error envelope (status tells which)
UploadedFileResponse = Union[UploadedFileSuccess, ErrorEnvelope]


#: success, with a FilePage
class FilePageSuccess(TypedDict):
    status: Literal["success"]
    payload: FilePage


#: the success envelope with a FilePage, or the error envelope (status tells which)
FilePageResponse = Union[FilePageSuccess, ErrorEnvelope]


#: success, with a TaskRef
class TaskRefSuccess(TypedDict):
    status: Literal["success"]
    payload: TaskRef


#: the success envelope with a TaskRef, or the error envelope (status tells which)
TaskRefResponse = Union[TaskRefSuccess, ErrorEnvelope]


#: success, with a TaskStatus
class TaskStatusSuccess(TypedDict):
    status: Literal["success"]
    payload: TaskStatus


#: the success envelope with a TaskStatus, or the error envelope (status tells which)
TaskStatusResponse = Union[TaskStatusSuccess, ErrorEnvelope]


#: success, with a Dataset
class DatasetSuccess(TypedDict):
    status: Literal["success"]
    payload: Dataset


#: the success envelope with a Dataset, or the error envelope (status tells which)
DatasetResponse = Union[DatasetSuccess, ErrorEnvelope]


#: success, with a DatasetPage
class DatasetPageSuccess(TypedDict):
    status: Literal["success"]
    payload: DatasetPage


#: the success envelope with a DatasetPage, or the error envelope (status tells which)
DatasetPageResponse = Union[DatasetPageSuccess, ErrorEnvelope]


#: success, with a Features
class FeaturesSuccess(TypedDict):
    status: Literal["success"]
    payload: Features


#: the success envelope with a Features, or the error envelope (status tells which)
FeaturesResponse = Union[FeaturesSuccess, ErrorEnvelope]


#: success, with a AnalysisRef
class AnalysisRefSuccess(TypedDict):
    status: Literal["success"]
    payload: AnalysisRef


#: the success envelope with a AnalysisRef, or the error envelope (status tells which)
AnalysisRefResponse = Union[AnalysisRefSuccess, ErrorEnvelope]


#: success, with a AnalysisCheck
class AnalysisCheckSuccess(TypedDict):
    status: Literal["success"]
    payload: AnalysisCheck


#: the success envelope with a AnalysisCheck, or the error envelope (status tells which)
AnalysisCheckResponse = Union[AnalysisCheckSuccess, ErrorEnvelope]


#: success, with a Analysis
class AnalysisSuccess(TypedDict):
    status: Literal["success"]
    payload: Analysis


#: the success envelope with a Analysis, or the error envelope (status tells which)
AnalysisResponse = Union[AnalysisSuccess, ErrorEnvelope]


#: success, with a AnalysisPage
class AnalysisPageSuccess(TypedDict):
    status: Literal["success"]
    payload: AnalysisPage


#: the success envelope with a AnalysisPage, or the error envelope (status tells which)
AnalysisPageResponse = Union[AnalysisPageSuccess, ErrorEnvelope]


#: success, with a AnalysisStatus
class AnalysisStatusSuccess(TypedDict):
    status: Literal["success"]
    payload: AnalysisStatus


#: the success envelope with a AnalysisStatus, or the error envelope (status tells which)
AnalysisStatusResponse = Union[AnalysisStatusSuccess, ErrorEnvelope]


#: success, with a AnalysisResult
class AnalysisResultSuccess(TypedDict):
    status: Literal["success"]
    payload: AnalysisResult


#: the success envelope with a AnalysisResult, or the error envelope (status tells which)
AnalysisResultResponse = Union[AnalysisResultSuccess, ErrorEnvelope]


#: success, with a ConfigurationPage
class ConfigurationPageSuccess(TypedDict):
    status: Literal["success"]
    payload: ConfigurationPage


#: the success envelope with a ConfigurationPage, or the error envelope (status tells which)
ConfigurationPageResponse = Union[ConfigurationPageSuccess, ErrorEnvelope]


#: success, with a OutOfFoldPredictions
class OutOfFoldPredictionsSuccess(TypedDict):
    status: Literal["success"]
    payload: OutOfFoldPredictions


#: the success envelope with a OutOfFoldPredictions, or the error envelope (status tells which)
OutOfFoldPredictionsResponse = Union[OutOfFoldPredictionsSuccess, ErrorEnvelope]


#: success, with a AvailablePlots
class AvailablePlotsSuccess(TypedDict):
    status: Literal["success"]
    payload: AvailablePlots


#: the success envelope with a AvailablePlots, or the error envelope (status tells which)
AvailablePlotsResponse = Union[AvailablePlotsSuccess, ErrorEnvelope]


#: success, with a PlotOne
class PlotOneSuccess(TypedDict):
    status: Literal["success"]
    payload: PlotOne


#: the success envelope with a PlotOne, or the error envelope (status tells which)
PlotOneResponse = Union[PlotOneSuccess, ErrorEnvelope]


#: success, with a PlotAll
class PlotAllSuccess(TypedDict):
    status: Literal["success"]
    payload: PlotAll


#: the success envelope with a PlotAll, or the error envelope (status tells which)
PlotAllResponse = Union[PlotAllSuccess, ErrorEnvelope]


#: success, with a PredictionRef
class PredictionRefSuccess(TypedDict):
    status: Literal["success"]
    payload: PredictionRef


#: the success envelope with a PredictionRef, or the error envelope (status tells which)
PredictionRefResponse = Union[PredictionRefSuccess, ErrorEnvelope]


#: success, with a PredictionStatus
class PredictionStatusSuccess(TypedDict):
    status: Literal["success"]
    payload: PredictionStatus


#: the success envelope with a PredictionStatus, or the error envelope (status tells which)
PredictionStatusResponse = Union[PredictionStatusSuccess, ErrorEnvelope]


#: success, with a PredictionResult
class PredictionResultSuccess(TypedDict):
    status: Literal["success"]
    payload: PredictionResult


#: the success envelope with a PredictionResult, or the error envelope (status tells which)
PredictionResultResponse = Union[PredictionResultSuccess, ErrorEnvelope]


#: success, with a PredictionPage
class PredictionPageSuccess(TypedDict):
    status: Literal["success"]
    payload: PredictionPage


#: the success envelope with a PredictionPage, or the error envelope (status tells which)
PredictionPageResponse = Union[PredictionPageSuccess, ErrorEnvelope]


#: success, with a Prediction
class PredictionSuccess(TypedDict):
    status: Literal["success"]
    payload: Prediction


#: the success envelope with a Prediction, or the error envelope (status tells which)
PredictionResponse = Union[PredictionSuccess, ErrorEnvelope]


#: success, with a ModelCard
class ModelCardSuccess(TypedDict):
    status: Literal["success"]
    payload: ModelCard


#: the success envelope with a ModelCard, or the error envelope (status tells which)
ModelCardResponse = Union[ModelCardSuccess, ErrorEnvelope]


#: success, with a ScoreResult
class ScoreResultSuccess(TypedDict):
    status: Literal["success"]
    payload: ScoreResult


#: the success envelope with a ScoreResult, or the error envelope (status tells which)
ScoreResultResponse = Union[ScoreResultSuccess, ErrorEnvelope]


#: success, with a ReportLink
class ReportLinkSuccess(TypedDict):
    status: Literal["success"]
    payload: ReportLink


#: the success envelope with a ReportLink, or the error envelope (status tells which)
ReportLinkResponse = Union[ReportLinkSuccess, ErrorEnvelope]


#: success, with a ReportLinkPage
class ReportLinkPageSuccess(TypedDict):
    status: Literal["success"]
    payload: ReportLinkPage


#: the success envelope with a ReportLinkPage, or the error envelope (status tells which)
ReportLinkPageResponse = Union[ReportLinkPageSuccess, ErrorEnvelope]


#: success, with a ReportLinkInfo
class ReportLinkInfoSuccess(TypedDict):
    status: Literal["success"]
    payload: ReportLinkInfo


#: the success envelope with a ReportLinkInfo, or the error envelope (status tells which)
ReportLinkInfoResponse = Union[ReportLinkInfoSuccess, ErrorEnvelope]


#: Every component schema of the document, by name.
COMPONENTS: Dict[str, Any] = {
    "LoginDto": LoginDto,
    "CreateProjectDto": CreateProjectDto,
    "ShareProjectDto": ShareProjectDto,
    "UnshareProjectDto": UnshareProjectDto,
    "CreateDatasetDto": CreateDatasetDto,
    "ChangeFeatureTypesDto": ChangeFeatureTypesDto,
    "AnalyzeDto": AnalyzeDto,
    "ModelPlotsDto": ModelPlotsDto,
    "OnePlotDto": OnePlotDto,
    "PredictDto": PredictDto,
    "ScoreDto": ScoreDto,
    "CreateReportLinkDto": CreateReportLinkDto,
    "RegressionOutcome": RegressionOutcome,
    "ClassificationOutcome": ClassificationOutcome,
    "SurvivalOutcome": SurvivalOutcome,
    "Empty": Empty,
    "Token": Token,
    "Version": Version,
    "Health": Health,
    "StatusError": StatusError,
    "ProjectRef": ProjectRef,
    "Project": Project,
    "ProjectPage": ProjectPage,
    "Share": Share,
    "Unshare": Unshare,
    "UploadedFile": UploadedFile,
    "File": File,
    "FilePage": FilePage,
    "TaskRef": TaskRef,
    "TaskStatus": TaskStatus,
    "Dataset": Dataset,
    "DatasetPage": DatasetPage,
    "Features": Features,
    "AnalysisParameters": AnalysisParameters,
    "AnalysisRef": AnalysisRef,
    "AnalysisCheck": AnalysisCheck,
    "Analysis": Analysis,
    "AnalysisPage": AnalysisPage,
    "AnalysisStatus": AnalysisStatus,
    "Model": Model,
    "AnalysisResult": AnalysisResult,
    "FeatureImportance": FeatureImportance,
    "ProgressiveFeatureImportance": ProgressiveFeatureImportance,
    "FeatureStability": FeatureStability,
    "FeatureContributions": FeatureContributions,
    "PartialDependence": PartialDependence,
    "RocCurve": RocCurve,
    "PrecisionRecallCurve": PrecisionRecallCurve,
    "ThresholdTable": ThresholdTable,
    "Calibration": Calibration,
    "ConfusionMatrix": ConfusionMatrix,
    "Probabilities": Probabilities,
    "PredictedVsActual": PredictedVsActual,
    "KaplanMeierByRiskGroup": KaplanMeierByRiskGroup,
    "TimeDependentAuc": TimeDependentAuc,
    "BrierScore": BrierScore,
    "Plot": Plot,
    "AvailablePlots": AvailablePlots,
    "PlotOne": PlotOne,
    "PlotAll": PlotAll,
    "Configuration": Configuration,
    "ConfigurationPage": ConfigurationPage,
    "OutOfFoldPredictions": OutOfFoldPredictions,
    "Explanation": Explanation,
    "PredictionRef": PredictionRef,
    "Prediction": Prediction,
    "PredictionStatus": PredictionStatus,
    "PredictionPage": PredictionPage,
    "PredictionResult": PredictionResult,
    "AnalysisEstimate": AnalysisEstimate,
    "ModelCard": ModelCard,
    "ScoreResult": ScoreResult,
    "ReportLink": ReportLink,
    "ReportLinkPage": ReportLinkPage,
    "ReportLinkInfo": ReportLinkInfo,
    "ErrorEnvelope": ErrorEnvelope,
    "HttpError": HttpError,
    "VersionSuccess": VersionSuccess,
    "VersionResponse": VersionResponse,
    "TokenSuccess": TokenSuccess,
    "TokenResponse": TokenResponse,
    "EmptySuccess": EmptySuccess,
    "EmptyResponse": EmptyResponse,
    "ProjectRefSuccess": ProjectRefSuccess,
    "ProjectRefResponse": ProjectRefResponse,
    "ProjectSuccess": ProjectSuccess,
    "ProjectResponse": ProjectResponse,
    "ProjectPageSuccess": ProjectPageSuccess,
    "ProjectPageResponse": ProjectPageResponse,
    "ShareSuccess": ShareSuccess,
    "ShareResponse": ShareResponse,
    "UnshareSuccess": UnshareSuccess,
    "UnshareResponse": UnshareResponse,
    "UploadedFileSuccess": UploadedFileSuccess,
    "UploadedFileResponse": UploadedFileResponse,
    "FilePageSuccess": FilePageSuccess,
    "FilePageResponse": FilePageResponse,
    "TaskRefSuccess": TaskRefSuccess,
    "TaskRefResponse": TaskRefResponse,
    "TaskStatusSuccess": TaskStatusSuccess,
    "TaskStatusResponse": TaskStatusResponse,
    "DatasetSuccess": DatasetSuccess,
    "DatasetResponse": DatasetResponse,
    "DatasetPageSuccess": DatasetPageSuccess,
    "DatasetPageResponse": DatasetPageResponse,
    "FeaturesSuccess": FeaturesSuccess,
    "FeaturesResponse": FeaturesResponse,
    "AnalysisRefSuccess": AnalysisRefSuccess,
    "AnalysisRefResponse": AnalysisRefResponse,
    "AnalysisCheckSuccess": AnalysisCheckSuccess,
    "AnalysisCheckResponse": AnalysisCheckResponse,
    "AnalysisSuccess": AnalysisSuccess,
    "AnalysisResponse": AnalysisResponse,
    "AnalysisPageSuccess": AnalysisPageSuccess,
    "AnalysisPageResponse": AnalysisPageResponse,
    "AnalysisStatusSuccess": AnalysisStatusSuccess,
    "AnalysisStatusResponse": AnalysisStatusResponse,
    "AnalysisResultSuccess": AnalysisResultSuccess,
    "AnalysisResultResponse": AnalysisResultResponse,
    "ConfigurationPageSuccess": ConfigurationPageSuccess,
    "ConfigurationPageResponse": ConfigurationPageResponse,
    "OutOfFoldPredictionsSuccess": OutOfFoldPredictionsSuccess,
    "OutOfFoldPredictionsResponse": OutOfFoldPredictionsResponse,
    "AvailablePlotsSuccess": AvailablePlotsSuccess,
    "AvailablePlotsResponse": AvailablePlotsResponse,
    "PlotOneSuccess": PlotOneSuccess,
    "PlotOneResponse": PlotOneResponse,
    "PlotAllSuccess": PlotAllSuccess,
    "PlotAllResponse": PlotAllResponse,
    "PredictionRefSuccess": PredictionRefSuccess,
    "PredictionRefResponse": PredictionRefResponse,
    "PredictionStatusSuccess": PredictionStatusSuccess,
    "PredictionStatusResponse": PredictionStatusResponse,
    "PredictionResultSuccess": PredictionResultSuccess,
    "PredictionResultResponse": PredictionResultResponse,
    "PredictionPageSuccess": PredictionPageSuccess,
    "PredictionPageResponse": PredictionPageResponse,
    "PredictionSuccess": PredictionSuccess,
    "PredictionResponse": PredictionResponse,
    "ModelCardSuccess": ModelCardSuccess,
    "ModelCardResponse": ModelCardResponse,
    "ScoreResultSuccess": ScoreResultSuccess,
    "ScoreResultResponse": ScoreResultResponse,
    "ReportLinkSuccess": ReportLinkSuccess,
    "ReportLinkResponse": ReportLinkResponse,
    "ReportLinkPageSuccess": ReportLinkPageSuccess,
    "ReportLinkPageResponse": ReportLinkPageResponse,
    "ReportLinkInfoSuccess": ReportLinkInfoSuccess,
    "ReportLinkInfoResponse": ReportLinkInfoResponse,
}
