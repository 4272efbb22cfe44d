"""What the scenario's steps share: the record of the steps passed (``steps``) and the one running
(``current``), the checks that fail a step, and a test boundary."""

from __future__ import annotations

from typing import Any, Callable, Dict, TypeVar

from canopy import Polygon

T = TypeVar("T")
E = TypeVar("E", bound=BaseException)

steps: Dict[str, Any] = {}
current = {"step": "setup"}


class ScenarioFailure(Exception):
    pass


def check(cond: bool, what: str) -> None:
    if not cond:
        raise ScenarioFailure(what)


def expect_raises(exc: "type[E]", fn: Callable[[], object], what: str) -> E:
    try:
        fn()
    except exc as e:
        return e
    raise ScenarioFailure(f"{what}: expected {exc.__name__}, nothing was raised")


def step(name: str) -> None:
    current["step"] = name


def square(lon: float, side: float = 0.01) -> Polygon:
    return {
        "type": "Polygon",
        "coordinates": [[[lon, 0.0], [lon + side, 0.0], [lon + side, side], [lon, side], [lon, 0.0]]],
    }
