"""Deps that must travel as data are checked up front, with an error that says what to do."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from agent import UserError
from agent._serialization import serializable_deps_adapter


@dataclass
class Settings:
    user_id: int
    region: str = 'eu'


@dataclass
class HoldsALock:
    lock: threading.Lock


def test_serializable_deps_round_trip_through_json() -> None:
    adapter = serializable_deps_adapter(Settings)
    assert adapter.validate_json(adapter.dump_json(Settings(7))) == Settings(7)


def test_non_serializable_deps_type_is_rejected_with_guidance() -> None:
    with pytest.raises(UserError, match=r"deps_type of agent 'support' \(HoldsALock\) cannot be serialized.*dataclass"):
        serializable_deps_adapter(HoldsALock, agent_name='support')
