"""Python client of the Signet analysis service: ``from signet_client import SignetClient``."""

from .client import ProgressCallback, RequestFailed, SignetClient, SignetError, SignetTimeout

__all__ = ["SignetClient", "SignetError", "RequestFailed", "SignetTimeout", "ProgressCallback"]
