"""The conclusions an auditor reads first, derived from a finished inventory.

Each rule is registered data (`rule.FindingRule`: id, severity, title, SARIF help) with a small pure function
from the inventory to hits: `inventory_rules` holds the rules over files, `session_rules` those over session logs,
`live_rules` those only a live audit can make; `derive.RULES` is the one list. Finding ids are stable (no paths, no line
numbers), so baselines and diffs can key on them.
"""
