"""The read-only MCP server over the history (`python -m dashboard mcp`, docs/assistant.md):
tools that answer a lead's daily questions from the pages' own views. Not named `mcp`, which
would shadow the SDK's package where the repository's root is on the path."""
