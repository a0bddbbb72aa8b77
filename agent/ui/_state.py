"""Frontend state for UI runs: the `StateHandler` protocol and the ready-made `StateDeps` deps type.

A UI protocol may send the frontend's state with every run. A `UIAdapter` hands it to the run by assigning
`deps.state` when `deps` implements `StateHandler`; a pydantic model as the current state makes the adapter
validate the incoming state into that model's type first.
"""

from __future__ import annotations

from dataclasses import Field, dataclass
from typing import Any, ClassVar, Generic, Protocol, runtime_checkable

from typing_extensions import TypeVar

__all__ = ('StateDeps', 'StateHandler', 'StateT')

StateT = TypeVar('StateT', default=Any)
"""The type of the state held by `StateDeps` (a pydantic `BaseModel` subclass)."""


@runtime_checkable
class StateHandler(Protocol):
    """A deps object that can receive the frontend's state when a UI run starts.

    Implementations must be dataclasses with a `state` field: the marker below is what makes a dataclass
    (and only a dataclass) satisfy the runtime check, so `dataclasses.replace` can always rebuild the deps.
    """

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def state(self) -> Any:
        """The run's current state."""
        ...

    @state.setter
    def state(self, state: Any) -> None:
        """Replace the run's state (the adapter calls this with the frontend's state as the run starts).

        Args:
            state: The new state.
        """
        ...


@dataclass
class StateDeps(Generic[StateT]):
    """Deps that carry the frontend's state, typed by a pydantic `BaseModel` subclass.

    Pass an instance holding a default state (`StateDeps(MyState())`); when a UI run starts the adapter
    validates the frontend's state into `MyState` and assigns it to `state`. Implements `StateHandler`.
    """

    state: StateT
    """The run's state: a `BaseModel` instance, replaced by the frontend's validated state at the start of a run."""
