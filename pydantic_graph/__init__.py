"""`pydantic_graph` names that code written for Pydantic AI imports next to it: the agent graph's `End` and `BaseNode`.

This is not Pydantic Graph (there are no graphs, persistence or `GraphRunContext` here): it only lets
`from pydantic_graph import End` work, resolving to `agent.graph.End`, the class the agent graph returns to
end a run, so `isinstance(node, End)` holds for the nodes an agent run yields.
"""

from agent.graph import BaseNode, End

__all__ = ('BaseNode', 'End')
