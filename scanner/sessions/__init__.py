"""Session-log forensics: which provider really served each session.

`reader` streams records out of a log, `adapters` know each agent's format, `fingerprints` applies the
catalogs' id and marker rules to a record, `reasoning` tells readable from encrypted reasoning,
`attribution` folds it all into one entry per session, and `alias_routes` ties model aliases in configs to
what the logs observed. The `sessions` detector (scanner/detectors/session_logs.py) is the only caller.
"""
