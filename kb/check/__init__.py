"""A model's ops against the KB (`kb check`): read a model file without running its code
(`model_formats`), trace factories on meta tensors (`tracing`, `runmodel`), resolve each
op on a target (`resolve`), and add the warnings the KB knows of (`warnings`).
"""
