"""Remote connectors: third-party MCP servers served as one more kind of platform."""
