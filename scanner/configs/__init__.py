"""What the settings of config files mean, shared by the detectors that read them and the live audit: model keys,
records and provider blocks (`interpret`, `records`, `providers`), MCP server records by their shape, and an agent
product's settings and model lists read under the key paths its catalog entry names."""
