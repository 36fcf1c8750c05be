"""Reusable discord.ui views (the paginator)."""
