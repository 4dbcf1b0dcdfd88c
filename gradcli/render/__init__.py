"""Rendering: what gradcli writes for people (plain or Rich-coloured text) and for machines (JSON).

Nothing here is imported at start-up unless it is needed: ``rich`` only when colour or a table
is asked for, the engine only when a tensor has to be described.

- ``style``: when to use colour (terminal, ``--no-color``, ``NO_COLOR``, ``FORCE_COLOR``, ``TERM=dumb``).
- ``stream``: stdout writers; the characters are always exactly what Python with PyTorch prints.
- ``diagnostics``: error panels and warnings on stderr.
- ``tensors``: tensor descriptions (for JSON and tables); NaN and infinities as strings.
- ``summary``: the Rich tables (``--summary``, the calculator).
- ``jsonout``: the ``--json`` document, checked against ``schema.json``.
"""
