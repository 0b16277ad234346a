"""The error the stand-in answers with (HTTP status, the API's error type, a message)."""

from __future__ import annotations


class ApiError(Exception):
    """An error the stand-in answers with: HTTP status, the API's error type, a message."""

    def __init__(self, status: int, type_: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.type = type_
        self.message = message
        self.headers = headers or {}


def invalid(message: str) -> ApiError:
    return ApiError(400, "invalid_request_error", message)
