"""Clients for the upstream model providers listed in /etc/jarvis/models.yaml."""
