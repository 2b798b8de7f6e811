"""Browsing the KB in Datasette (`kb serve`): the app and its metadata (`launch`) and the
plugin that renders statuses and links (`plugin`).
"""
