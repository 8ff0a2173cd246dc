"""Models on the machine itself: the weight files, the stores that name them, the servers that serve them, and the
agents and sessions that use them.

Evidence comes from one detector (`detectors/local_models.py`): a weight file's header and digest, a store's
record of a model (an Ollama manifest, a Hugging Face cache repo), a server's command line. `fold` groups them
into one entry per model; `join` reads the built inventory, so that a model an agent configures through a
server on this machine resolves to its entry and one no store holds is said plainly; `rules` are its findings
and `views` what the report formats show of it.
"""

# The inventory's model names this kind's types: loaded first, it loads them in its own order.
import scanner.model  # noqa: E402, F401
