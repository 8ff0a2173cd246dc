"""One file as every detector sees it: its view (bytes read once, matched once), its context, its config parse."""
