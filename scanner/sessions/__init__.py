"""Session-log forensics: which provider really served each session.

`formats` turns a file's container (JSON lines, a SQLite store, recorded HTTP exchanges, a transcript) into
records, `reader` streams them out of JSON, the generic adapter reads each record by its shape and the other
`adapters` add what only an agent's format says, `fingerprints` applies the
catalogs' id and marker rules to a record, `reasoning` tells readable from encrypted reasoning,
`attribution` folds it all into one entry per session, and `alias_routes` ties model aliases in configs to
what the logs observed. The `sessions` detector (scanner/detectors/session_logs.py) is the only caller.
"""

from scanner.native import guard

guard()  # before any compiled module loads: a stale or unwanted build imports the sources instead
