"""Ready-made tools to give an agent: web search, web fetching and X search run locally (or through a subagent).

Each module is also the local side of the matching capability (`WebSearch`, `WebFetch`, `XSearch`), so a tool
built here and the capability's fallback behave the same.
"""
