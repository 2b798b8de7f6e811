"""Product names moved to kb.products (a basic: the web pages name products too); this
name is kept so existing imports keep working."""

from kb.products import *  # noqa: F403
from kb.products import _ALIASES, _BY_NAME  # noqa: F401
