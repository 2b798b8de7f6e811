"""Chat answers from the KB (`kb ask`, `kb mcp`, `kb bot`): read the question (`intents`),
find the ops and versions it names (`oplookup`, `function_map`), answer it (`answer`,
`answer_eol`, `answer_model`; the answer type is in `reply`), and serve it (`mcp_server`,
`bot`).
"""
