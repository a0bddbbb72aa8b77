"""The demo's agent under its earlier path (`--agents deploy.demo:demo_agent`); the demo lives in `doors.demo`."""

from __future__ import annotations

from doors.demo import demo_agent, run_demo

__all__ = ('demo_agent', 'run_demo')
