"""
Python client of the Signet analysis service: ``from signet_client import SignetClient``.

``signet_client.types`` holds the payload types; ``signet_client.jadbio`` is a layer with the interface of
JADBio's Python client (``import signet_client.jadbio as jad``).
"""

from . import types
from .client import (
    ConnectionFailed,
    ProgressCallback,
    RequestFailed,
    SignetClient,
    SignetError,
    SignetTimeout,
    TaskFailed,
)

__all__ = [
    "SignetClient",
    "SignetError",
    "RequestFailed",
    "ConnectionFailed",
    "TaskFailed",
    "SignetTimeout",
    "ProgressCallback",
    "types",
]
