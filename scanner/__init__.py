"""modelcensus: which models, from which providers, is this agent really wired to?"""

__version__ = "0.1.0"
