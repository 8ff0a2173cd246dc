"""Structured config formats flattened to (key path, value, line) items: one reader module per format."""

from scanner.formats.config.hcl_items import parse_hcl
from scanner.formats.config.items import MAX_ITEMS, BudgetExceeded, ConfigItem, LineMap, ParseFailure, first_line
from scanner.formats.config.json_items import MAX_JSON_TOKENS, clean_json, parse_json
from scanner.formats.config.line_items import env_assignment, parse_conf, parse_env, parse_ini, parse_systemd
from scanner.formats.config.loose_items import parse_loose
from scanner.formats.config.lua_items import parse_lua
from scanner.formats.config.toml_items import parse_toml
from scanner.formats.config.yaml_items import YAML_LOADER, parse_yaml

__all__ = [
    "MAX_ITEMS", "MAX_JSON_TOKENS", "YAML_LOADER", "BudgetExceeded", "ConfigItem", "LineMap", "ParseFailure",
    "clean_json", "env_assignment", "first_line", "parse_conf", "parse_env", "parse_hcl", "parse_ini", "parse_json",
    "parse_loose", "parse_lua", "parse_systemd", "parse_toml", "parse_yaml",
]
