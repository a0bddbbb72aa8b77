"""The deterministic Temporal workflow that drives the agent graph.

Workflow code imports only dataclasses, the agent graph and activity references: no HTTP clients or SDKs.
"""
