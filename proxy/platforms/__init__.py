"""One module per source platform, named exactly as the registry's platform key (see proxy.toolkit)."""
