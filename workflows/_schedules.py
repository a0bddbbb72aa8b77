"""Schedules that start `AgentWorkflow` runs, as a person lists them.

A schedule's listing carries its action's workflow type and spec but not the action's input, so a schedule created
by `AgentClient.create_schedule` also records its agent in the schedule's memo; one created otherwise (the `temporal`
CLI) is listed without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from temporalio.client import Client, ScheduleListActionStartWorkflow, ScheduleSpec

__all__ = ('AGENT_MEMO_KEY', 'AgentSchedule', 'agent_schedules', 'describe_spec')

AGENT_MEMO_KEY = 'agent'
"""The schedule memo field that names the agent its runs belong to."""


@dataclass(frozen=True)
class AgentSchedule:
    """A schedule that starts `AgentWorkflow` runs."""

    schedule_id: str
    """The schedule's id: what deleting it takes."""
    agent: str | None
    """The agent its runs belong to, when the schedule records it."""
    spec: str
    """When it fires, briefly (`every 1 day, 0:00:00`, `cron 0 9 * * *`)."""
    next_run: datetime | None
    """When it fires next, if it will."""
    paused: bool
    """Whether it is paused."""


def describe_spec(spec: ScheduleSpec) -> str:
    """A short description of when `spec` fires."""
    parts = [f'every {interval.every}' for interval in spec.intervals]
    parts += [f'cron {cron}' for cron in spec.cron_expressions]
    if spec.calendars:
        parts.append(f'{len(spec.calendars)} calendar(s)')
    return ', '.join(parts) or '-'


async def agent_schedules(client: Client) -> list[AgentSchedule]:
    """The schedules of `client`'s namespace whose action starts `AgentWorkflow`, by id.

    Listing goes through visibility, so a schedule shows up a moment after it is created.
    """
    found: list[AgentSchedule] = []
    async for listed in await client.list_schedules():
        schedule = listed.schedule
        if schedule is None or not isinstance(schedule.action, ScheduleListActionStartWorkflow):
            continue
        if schedule.action.workflow != 'AgentWorkflow':
            continue
        agent = (await listed.memo()).get(AGENT_MEMO_KEY)
        next_times = listed.info.next_action_times if listed.info else []
        found.append(
            AgentSchedule(
                schedule_id=listed.id,
                agent=str(agent) if agent is not None else None,
                spec=describe_spec(schedule.spec),
                next_run=next_times[0] if next_times else None,
                paused=schedule.state.paused,
            )
        )
    return sorted(found, key=lambda s: s.schedule_id)
