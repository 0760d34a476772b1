"""RENDER: pages, claims, figures and notebooks from the committed captures.

Needs mkdocs (and, for notebook pages, mkdocs-jupyter); never torch, never the capture
half: it reads captures only through ``kernelbook.common.records``. ``plugin`` is the MkDocs
plugin (entry point ``kernelbook``); ``directives`` the page directives, one small
function each in a registry; ``figures`` the SVG figures, one module each.
"""
