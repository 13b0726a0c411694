"""MkDocs hooks and the pure renderers behind them; see site_hooks/README.md."""
