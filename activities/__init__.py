"""Activities: model requests, tool executions and the activity-side halves of capability hooks."""
