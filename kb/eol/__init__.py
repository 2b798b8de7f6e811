"""End of support for the whole stack (`kb eol`): support windows per product cycle
(`windows`), the product names and their aliases (`products`), the iCalendar feed (`ics`).

The package is also the API's function: `kb.eol(product=None, stack=None, within=None)` is
`kb.eol.api.eol`.
"""


def __kb_call__(product=None, stack=None, within=None, **options):
    """kb.eol(product=None, stack=None, within=None, *, at=None, today=None, fail_on_unknown=False,
    db=None): see kb.eol.api.eol."""
    from kb.eol.api import eol

    return eol(product, stack, within, **options)


import kb as _kb  # noqa: E402

_kb.make_callable(__name__)
